"""What an operator watches: Prometheus metrics (:mod:`.metrics`), OpenTelemetry spans
(:mod:`.tracing`) and log lines that carry the trace id, as text or JSON (:mod:`.logs`).

A leaf package: it imports nothing of metaserver, so the pipeline, the serving side and the
page can all report into it.
"""
