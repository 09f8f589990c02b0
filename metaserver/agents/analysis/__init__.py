"""The analysis stage's door: :func:`analyse`, what the package offers (the probe, run inside
the target environment by :mod:`.analyse`, with its scripts and notebooks) and how the
repository's own text uses it (:mod:`metaserver.agents.repo_docs`), as a CodeReport and a
:class:`Usage`; :func:`readme_coverage`, how much of what that text shows became tools.
"""

from metaserver.agents.analysis.analyse import Installer

# The stage function takes the package attribute ``analyse`` from the module of that name
# (the probe's runner), which stays importable by its full path (tests/probe/ read PROBE).
from metaserver.agents.analysis.stage import analyse
from metaserver.agents.repo_docs.coverage import readme_coverage
from metaserver.agents.repo_docs.usage import Usage

__all__ = ["Installer", "Usage", "analyse", "readme_coverage"]
