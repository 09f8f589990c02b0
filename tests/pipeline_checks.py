"""What a pipeline test asks of a conversion of a package and its test suite: that it
succeeded, and which of its tools were proven by a value (``value_evidence``)."""

from __future__ import annotations

from pathlib import Path

from fixture_repos import make_package_repo

from metaserver.contracts import ConversionReport, Evidence
from metaserver.pipeline import convert
from metaserver.settings import Settings


async def converted_with_tests(
    tmp_path: Path, package: str, module: str, tests: str
) -> ConversionReport:
    """The successful conversion of a package ``module`` whose suite is ``tests``."""
    name = package.replace("_", "-")
    repo = make_package_repo(
        tmp_path / package, name, package, module, {f"tests/test_{package}.py": tests}
    )
    report = await convert(str(repo), settings=Settings(home=tmp_path / "home"))
    assert report.status == "success", (report.failure, report.tools)
    return report


def value_evidence(report: ConversionReport, target: str) -> Evidence:
    """The evidence of the passed tool whose target ends with ``target``, proven by a value."""
    (tool,) = [t for t in report.tools if t.target.rpartition(":")[2] == target]
    assert tool.status == "passed", tool.error
    evidence = tool.evidence
    assert evidence is not None and evidence.check == "expected-value", (target, evidence)
    return evidence
