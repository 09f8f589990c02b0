"""Probe helper (runs INSIDE the target environment; standard library only): a
docstring's sections.

Per-parameter descriptions and types (Google, NumPy, reST), the documented return type and
the summary line. Text only: what a type word names is doc_types.py's. Imports nothing else
of the probe.
"""

import re

# ---------------------------------------------------------------- docstrings


def first_type(text):
    """The first of a docstring type's alternatives ("array_like, optional", "ndarray or
    None", "DataFrame | None"), without Sphinx's roles and markup: ``:py:class:`~pandas.
    DataFrame``` reads ``pandas.DataFrame``."""
    first = re.split(r",(?![^(\[]*[)\]])|\s+or\s+|\|", (text or "").strip())[0]
    return re.sub(r"(?::[\w-]+)+:|[`~*]", "", first).strip()


def _parameters_section(doc):
    """The body of a docstring's Google ``Args:`` or NumPy ``Parameters`` section, or None."""
    section = re.search(
        r"\n\s*(Args|Arguments|Parameters)\s*:?\s*\n(?:\s*-+\s*\n)?(.*?)(\n\s*\n\S|\Z)",
        "\n" + doc,
        re.S,
    )
    return section.group(2) if section else None


def parameter_docs(doc):
    """Per-parameter descriptions from Google, NumPy or reST docstrings."""
    found = {}
    for match in re.finditer(r":param\s+(?:[\w\[\], .]+\s+)?(\w+):\s*(.+)", doc):
        found.setdefault(match.group(1), match.group(2).strip())
    section = _parameters_section(doc)
    if section:
        # NumPy: "name : type" (or a bare "name") with the description indented below it.
        for match in re.finditer(
            r"^([ \t]*)\*{0,2}(\w+)(?:[ \t]+:[^\n]*)?\n((?:\1[ \t]+\S[^\n]*(?:\n|$))+)",
            section,
            re.M,
        ):
            found.setdefault(match.group(2), " ".join(match.group(3).split()))
        for match in re.finditer(
            r"^\s*\*{0,2}(\w+)\s*(?:\(([^)]*)\)|:\s*[^\n]*?)?\s*:\s*(.+)$", section, re.M
        ):
            found.setdefault(match.group(1), match.group(3).strip())
    return found


def returned_type(doc):
    """The type text of a docstring's first documented result (reST ``:rtype: T``, NumPy's
    ``Returns`` section ``name : T`` or a bare ``T``, Google's ``T: what``), markup and an
    ``optional`` left as written; None when it documents none."""
    match = re.search(r":rtype:\s*(\S[^\n]*)", doc)
    if match:
        return match.group(1).strip()
    section = re.search(
        r"\n\s*Returns?\s*:?\s*\n(?:\s*-+\s*\n)?(.*?)(?:\n\s*\n\S|\Z)", "\n" + doc, re.S
    )
    lines = section.group(1).strip().splitlines() if section else []
    first = lines[0].strip() if lines else ""
    if not first:
        return None
    if " : " in first or first.endswith(" :"):
        return first.partition(":")[2].strip() or None
    google = re.match(r"([\w.`~]+)\s*:", first)
    return google.group(1) if google else first


def parameter_types(doc):
    """Per-parameter type text: reST ``:type name: T``, NumPy ``name : T``, Google
    ``name (T): ...``."""
    found = {}
    for match in re.finditer(r":type\s+(\w+):\s*(.+)", doc):
        found.setdefault(match.group(1), match.group(2).strip())
    section = _parameters_section(doc)
    if section:
        for pattern in (
            r"^[ \t]*\*{0,2}(\w+)[ \t]+:[ \t]*(\S[^\n]*)$",
            r"^\s*(\w+)\s*\(([^)]*)\)\s*:",
        ):
            for match in re.finditer(pattern, section, re.M):
                found.setdefault(match.group(1), match.group(2).strip())
    return found


def summary_of(doc):
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(first.split())
