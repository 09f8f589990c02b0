"""Repair: why a tool failed, and the catalogue of changes to try."""
