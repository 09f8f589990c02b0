"""The exported folder's README: install, run, client configuration, each tool's proof."""

from __future__ import annotations

import json
import re

from metaserver.contracts import Parameter, ToolSpec
from metaserver.export.readme import export_readme


def _spec(name: str) -> ToolSpec:
    parameter = Parameter(name="a", kind="positional_or_keyword", json_schema={"type": "integer"})
    return ToolSpec(
        name=name,
        description=f"{name.title()} numbers.\n\nMore.",
        target=f"calc:{name}",
        parameters=[parameter],
    )


def test_each_tool_is_shown_with_the_call_that_proved_it() -> None:
    calls = [
        {"tool": "add", "arguments": {"a": 2}, "result": 5, "check": "expected-value"},
        {"tool": "big", "arguments": {"a": 1}, "result": "x" * 1000, "check": "no-error"},
    ]
    text = export_readme(
        "calc",
        "calcpack",
        "mcp-server",
        "pip install -e '.[mcp]'",
        [_spec("add"), _spec("big"), _spec("unproven")],
        calls,
        "0.1.0",
    )
    assert "    pip install -e '.[mcp]'\n    python mcp-server/server.py" in text
    assert "    pytest mcp-server/" in text
    config = json.loads(re.search(r"```json\n(.*?)\n```", text, re.S).group(1))
    assert config["mcpServers"]["calc"]["args"] == ["/path/to/repo/mcp-server/server.py"]
    assert 'Proven with `{"a": 2}` -> `5` (checked: the documented value).' in text
    assert "(checked: no error)" in text
    assert "x" * 300 not in text  # a long result is cut; the tests keep it whole
    unproven = text.split("### `unproven`")[1]
    assert "Calls `calc:unproven`." in unproven and "Proven" not in unproven
    assert "Add numbers." in text and "More." not in text  # the summary line only
