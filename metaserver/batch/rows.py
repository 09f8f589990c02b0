"""One line of a batch's result: what happened to one source."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from metaserver.contracts import ConversionReport

Status = Literal["success", "failed", "skipped"]


class BatchRow(BaseModel):
    """``{source, status, server, tools_passed, seconds, failure}`` (the ``--json`` contract)."""

    source: str
    status: Status
    server: str | None = None
    tools_passed: int = 0
    seconds: float = 0.0
    failure: str | None = None

    @classmethod
    def from_report(cls, source: str, report: ConversionReport) -> BatchRow:
        failure = None
        if report.failure is not None:
            failure = f"{report.failure.type}: {report.failure.detail}"
        return cls(
            source=source,
            status="success" if report.status == "success" else "failed",
            server=report.server or None,
            tools_passed=report.tools_passed,
            seconds=report.seconds.get("total", 0.0),
            failure=failure,
        )

    @classmethod
    def error(cls, source: str, message: str, seconds: float = 0.0) -> BatchRow:
        return cls(source=source, status="failed", failure=message, seconds=round(seconds, 2))


def table(rows: list[BatchRow]) -> str:
    """A plain-text table of ``rows`` for a terminal."""
    width = max([len("source"), *(len(r.source) for r in rows)])
    lines = [f"{'source':<{width}}  {'status':<8} {'tools':>5} {'seconds':>8}  server / failure"]
    for row in rows:
        tail = row.server or ""
        if row.failure:
            tail = f"{tail}  {row.failure}".strip()
        lines.append(
            f"{row.source:<{width}}  {row.status:<8} {row.tools_passed:>5} {row.seconds:>8.1f}"
            f"  {tail[:160]}"
        )
    return "\n".join(lines)
