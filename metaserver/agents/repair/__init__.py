"""The repair stage's door: :func:`validate_and_repair`, validation rounds with the catalogue's
repairs between them (:mod:`.rounds`), and :func:`probe_installer`, the same install for a
module the analysis probe found missing (:mod:`.imports`)."""

from metaserver.agents.repair.imports import probe_installer
from metaserver.agents.repair.rounds import validate_and_repair

__all__ = ["probe_installer", "validate_and_repair"]
