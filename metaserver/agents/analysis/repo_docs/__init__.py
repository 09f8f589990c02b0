"""Moved to :mod:`metaserver.agents.repo_docs`; kept only for tests/probe/test_probe_fold.py,
which the probe regroup owns, until it imports ``metaserver.agents.repo_docs.usage``."""
