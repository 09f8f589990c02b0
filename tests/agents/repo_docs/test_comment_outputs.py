"""comment_outputs: the values a README's code block shows in comments, not prose."""

from __future__ import annotations

from pathlib import Path

from metaserver.agents.repo_docs.code_blocks import code_in_text
from metaserver.agents.repo_docs.comment_outputs import statements
from metaserver.agents.repo_docs.guides import guide_sessions
from metaserver.agents.repo_docs.usage import mine_usage

BLOCK = """\
import textdistance

textdistance.hamming('test', 'text')
# 1

textdistance.hamming.similarity('test', 'text')  # 3
width = textdistance.width(2)  # 4
print(textdistance.hamming.normalized_distance('test', 'text'))
# => 0.25
textdistance.levenshtein('a', 'b')
# compute the distance of two words
textdistance.jaro('a', 'b')
# Output: [1,
#          2]
textdistance.plot('a')
# -> done

textdistance.mlipns('a', 'b')

# 7
"""


def test_a_comment_shows_a_statements_value_only_when_it_reads_as_one() -> None:
    assert statements(BLOCK) == [
        ("import textdistance", ""),
        ("textdistance.hamming('test', 'text')", "1"),
        ("textdistance.hamming.similarity('test', 'text')", "3"),  # beside it
        ("width = textdistance.width(2)", ""),  # an assignment's comment says what it is for
        ("print(textdistance.hamming.normalized_distance('test', 'text'))", "0.25"),
        ("textdistance.levenshtein('a', 'b')", ""),  # prose
        ("textdistance.jaro('a', 'b')", "[1,\n2]"),  # a literal over two comment lines
        ("textdistance.plot('a')", ""),  # a bare word after an arrow
        ("textdistance.mlipns('a', 'b')", ""),  # a blank line ends what a statement shows
    ]
    assert statements("def broken(:\n    pass\n") == []


def test_shown_comments_are_a_guide_sessions_outputs_and_a_miners_assertions(
    tmp_path: Path,
) -> None:
    (tmp_path / "README.md").write_text(f"# textdistance\n\n```python\n{BLOCK}```\n")

    (session,) = guide_sessions(tmp_path)
    lines = session.splitlines()
    shown = lines.index(">>> textdistance.hamming.similarity('test', 'text')")
    assert lines[shown + 1] == "3"
    assert lines[lines.index(">>> width = textdistance.width(2)") + 1] == ""

    (code,) = code_in_text((tmp_path / "README.md").read_text())
    assert "assert (textdistance.hamming('test', 'text')) == (1)" in code
    usage = mine_usage(tmp_path, {"hamming", "normalized_distance", "levenshtein"})
    (hamming,) = usage.calls["hamming"]
    assert (hamming.args, hamming.expected, hamming.has_expected) == (["test", "text"], 1, True)
    (printed,) = usage.calls["normalized_distance"]  # print shows the value's text
    assert (printed.expected, printed.wrapper) == ("0.25", "str")
    (levenshtein,) = usage.calls["levenshtein"]
    assert not levenshtein.has_expected
