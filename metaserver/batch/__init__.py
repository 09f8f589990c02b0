"""Many conversions from one list of sources (``metaserver batch``), on a local pool or Ray."""
