"""The design stage's door: :func:`design_tools`, which callables become tools, their names,
descriptions and example arguments (:mod:`.specs`), as a :class:`Design`."""

from metaserver.agents.design.stage import Design, design_tools

__all__ = ["Design", "design_tools"]
