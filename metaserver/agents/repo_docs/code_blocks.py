"""The code a README or a docs page shows: Markdown fenced blocks, reStructuredText code
directives and literal blocks, and ``>>>`` sessions (read with ``doctest``). Static: the
texts are parsed, never run; usage mining and the guide sessions read them alike.
"""

from __future__ import annotations

import ast
import doctest
import re
import textwrap

from metaserver.agents.repo_docs.comment_outputs import statements
from metaserver.probe.text import shown_as_text

__all__ = [
    "code_in_text",
    "doctest_examples",
    "fenced_blocks",
    "labelled_blocks",
    "rst_blocks",
]

# A Markdown fence line: its marker (``` or ~~~) and the info string's language.
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)")
_PYTHON_FENCES = {"", "python", "py", "python3", "pycon", "ipython", "ipython3"}
# reStructuredText code directives: the indented block after them is the code.
# (jupyter-execute and testcode: Sphinx extensions' blocks of code the docs build runs.)
_RST_DIRECTIVE = re.compile(
    r"^([ \t]*)\.\. (?:code-block|code|sourcecode|ipython|jupyter-execute|testcode)::"
    r"[ \t]*(?:python3?|py|ipython)?[ \t]*\n"
    r"(?:\1[ \t]+:[\w-]+:.*\n)*"  # directive options such as :linenos:
    r"((?:[ \t]*\n|\1[ \t]+\S.*\n?)+)",
    re.M,
)
# A reStructuredText literal block: a paragraph ending in "::" (not a directive), then the
# block indented below it; most READMEs written in reST show their code this way.
_RST_LITERAL = re.compile(
    r"^([ \t]*)(?!\.\.[ \t])\S[^\n]*::[ \t]*\n(?:[ \t]*\n)+((?:[ \t]*\n|\1[ \t]+\S[^\n]*\n?)+)",
    re.M,
)


def fenced_blocks(text: str) -> list[str]:
    """The Python (or unlabelled) fenced blocks of a Markdown text, opening and closing
    fences paired line by line (a regex across the text pairs one block's closing fence
    with the next one's opening and reads the prose between them as code)."""
    return [block for _, language, block in _fenced(text) if language in _PYTHON_FENCES]


def _fenced(text: str) -> list[tuple[int, str, str]]:
    """Every fenced block of a Markdown text: the line (0-based) its code starts on, its
    language (lower case, "" when unlabelled) and its code, dedented."""
    blocks: list[tuple[int, str, str]] = []
    marker: str | None = None
    language = ""
    start = 0
    lines: list[str] = []
    for number, line in enumerate(text.splitlines()):
        fence = _FENCE.match(line)
        if marker is None:
            if fence:
                marker, language, lines = fence.group(1), fence.group(2).lower(), []
                start = number + 1
            continue
        if fence and fence.group(1).startswith(marker) and not fence.group(2):
            blocks.append((start, language, textwrap.dedent("\n".join(lines))))
            marker = None
            continue
        lines.append(line)
    return blocks


def labelled_blocks(text: str) -> list[tuple[int, str]]:
    """The blocks a page labels as Python, with the line (0-based) each starts on, in page
    order: fences whose language is Python and reST code directives. Unlabelled fences and
    reST literal blocks are left out: on a docs page they show a printed output or a shell
    line as often as code, and a page read as one session must not run an output."""
    found = [
        (line, block)
        for line, language, block in _fenced(text)
        if language and language in _PYTHON_FENCES
    ]
    for match in _RST_DIRECTIVE.finditer(text):
        block = textwrap.dedent(match.group(2))
        # Counted from the code's first line: the blank line after the directive is not code.
        line = text.count("\n", 0, match.start(2)) + len(block) - len(block.lstrip("\n"))
        found.append((line, block.strip("\n")))
    return sorted(found)


def doctest_examples(text: str) -> list[doctest.Example]:
    """The ``>>>`` examples of a text, as doctest parses them, except that a statement
    continued on lines without the ``...`` prompt (``>>> h2 = Atoms('H2',`` then an indented
    ``positions=[...])``, as READMEs write it) is one statement with no output: doctest
    would read its continuation as the output of a line that does not parse; and that a
    Markdown fence closing the block under an output is not part of the output."""
    try:
        examples = doctest.DocTestParser().get_examples(text)
    except ValueError:
        return []
    for example in examples:
        # A Markdown block's closing fence right under a shown output is no part of it
        # (doctest reads up to a blank line): ``1 + x**2/2 + O(x**4)`` then ```.
        lines = example.want.splitlines(keepends=True)
        while lines and _FENCE.match(lines[-1]) and not lines[-1].strip().strip("`~"):
            lines.pop()
        example.want = "".join(lines)
    for index, example in enumerate(examples):
        if not example.want or _parses(example.source):
            continue
        joined = example.source + example.want
        if _parses(joined):
            examples[index] = doctest.Example(joined, "", lineno=example.lineno)
    return examples


def _shown(source: str, want: str) -> tuple[str, str]:
    """A line that shows a call's result as text (``print(f(2))``, ``str(f(2))``): the
    line and its text as a string literal, which ``_unwrap`` reads (wrapper ``"str"``); for
    ``repr(f(2))``, the call and the output it would have shown (probe/text.py)."""
    try:
        node = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source, want
    inner, wrapper, text = shown_as_text(node, want)
    if inner is node or wrapper == "str" or not text:
        return source, text
    return ast.unparse(inner), text


def _parses(source: str) -> bool:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def code_in_text(text: str) -> list[str]:
    """Doctest sessions and fenced Python blocks of a README or a docs page, as code.

    The text's ``>>>`` examples that parse are one piece, in order, as doctest runs them in
    one namespace: ``r = f(2)`` then ``r`` showing ``4`` is ``f(2)``'s value
    (``test_calls.bound_results``); each that does not parse is a piece of its own. A
    block's values shown in comments are assertions too (``_asserting``)."""
    pieces: list[str] = []
    session: list[str] = []
    for example in doctest_examples(text):
        source, want = _shown(example.source.strip(), example.want.strip())
        # A shown result becomes an assertion, which the miner turns into an expected value.
        piece = f"assert ({source}) == ({want})" if want and "\n" not in source else source
        (session if _parses(piece) else pieces).append(piece)
    if session:
        pieces.insert(0, "\n".join(session))
    for block in fenced_blocks(text):
        if ">>>" not in block:
            pieces.append(_asserting(block))
    for block in rst_blocks(text):
        if ">>>" not in block:  # sessions inside a directive are doctest examples already
            pieces.append(_asserting(block))
    return pieces


def _asserting(block: str) -> str:
    """A block whose statements show their values in comments (``f(2)`` then ``# 4``), with
    each such statement written as the assertion a shown ``>>>`` output becomes; any other
    block as it is."""
    found = statements(block)
    if not any(shown for _, shown in found):
        return block
    lines: list[str] = []
    for source, shown in found:
        if shown:
            source, shown = _shown(source, shown)
        lines.append(f"assert ({source}) == ({shown})" if shown else source)
    rewritten = "\n".join(lines)
    return rewritten if _parses(rewritten) else block


def rst_blocks(text: str) -> list[str]:
    """The code of a reStructuredText text's code directives and literal blocks, dedented
    (a literal block that is not Python, such as a shell line, fails to parse later)."""
    found = [(m.start(), m.group(2)) for m in _RST_DIRECTIVE.finditer(text)]
    found += [(m.start(), m.group(2)) for m in _RST_LITERAL.finditer(text)]
    return [textwrap.dedent(block) for _, block in sorted(found)]
