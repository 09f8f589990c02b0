"""Readers of the repository's own text: README and guide pages, code blocks, doctest
sessions, data flow, file arguments and coverage of the documented names."""
