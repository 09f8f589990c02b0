"""Air-gapped conversions: a bundle made on a connected machine (``metaserver bundle``) holds
every source tree and distribution that converting those sources needs, and ``convert
--bundle DIR`` uses it with no network at all."""
