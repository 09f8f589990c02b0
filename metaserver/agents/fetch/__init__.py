"""The fetch stage's door: the sources a SOURCE names (:func:`source_candidates`), the first
of them fetched into a private tree (:func:`fetch_first`, one source: :func:`fetch`), and a
staged tree discarded with its lease (:func:`discard_staged`).

:mod:`.tree` dispatches one source on its kind (:mod:`.git`, :mod:`.local`, :mod:`.archives`,
:mod:`.index`); :mod:`.candidates` reads a paper SOURCE (:mod:`.paper`) and tries what it
links in turn.
"""

from metaserver.agents.fetch.candidates import fetch_first, source_candidates
from metaserver.agents.fetch.paper import Paper
from metaserver.agents.fetch.staging import discard_staged
from metaserver.agents.fetch.tree import fetch

__all__ = ["Paper", "discard_staged", "fetch", "fetch_first", "source_candidates"]
