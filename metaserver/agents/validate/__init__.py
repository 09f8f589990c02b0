"""The validation stage's door: :func:`validate`, every tool called through a real MCP client
(:mod:`.calls`, with protocol checks and value comparison); :func:`publish`, the server
rendered with its proven tools and its generated tests replayed; :func:`notebook_seconds`,
the time each notebook tool's run took; :func:`tutorial_summary`, the report's count of
tutorials (found, run here, proven, skipped).
"""

from metaserver.agents.validate.calls import validate
from metaserver.agents.validate.notebook_outputs import notebook_seconds
from metaserver.agents.validate.publish import publish
from metaserver.agents.validate.tutorial_report import tutorial_summary

__all__ = ["notebook_seconds", "publish", "tutorial_summary", "validate"]
