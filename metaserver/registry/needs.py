"""A request as the needs it is made of.

Real requests ask for several things ("read the sheet, plot it as a bar chart and save it in
/tmp/sales.png"), and one ranking of the whole text favours the tools of its most-worded part.
Search therefore ranks the tools for the whole request and for each of its parts, and merges
the rankings (:mod:`metaserver.registry.search`). The parts are deterministic:

- its sentences, and clauses opened by a sequencing word ("then", "also", "after that");
- for each file path with a known extension, the file operation it implies: "write a markdown
  file" when a saving verb comes shortly before the path, else "read a markdown file". A
  request naming a file rarely says "file system", yet needs a tool that reads or writes one.
"""

from __future__ import annotations

import re

# A need of fewer words says too little to rank on its own (it stays in the whole request).
_MIN_WORDS = 3
# Every need costs one embedding and one BM25 query: a long request keeps its first ones.
MAX_NEEDS = 8
_CLAUSES = re.compile(
    r"(?<=[.!?;])\s+|\s*\b(?:and then|then|after that|afterwards|also|finally|next)\b\s*,?",
    re.IGNORECASE,
)
_PATH = re.compile(r"(?<![\w/])(?:~|\.{1,2})?/[\w.\-/]*?[\w\-]+\.([A-Za-z0-9]{1,5})\b")
_SAVING = re.compile(
    r"\b(?:save[sd]?|saving|write|writes|written|writing|export(?:ed)?|store[sd]?|output|"
    r"put|create[sd]?|generate[sd]?)\b",
    re.IGNORECASE,
)
# How far before a path a saving verb is looked for ("save the summary as a report to /x").
_VERB_REACH = 60
_KINDS = {
    "md": "markdown",
    "txt": "text",
    "log": "text",
    "csv": "csv",
    "tsv": "csv",
    "json": "json",
    "yaml": "yaml",
    "yml": "yaml",
    "xml": "xml",
    "html": "html",
    "htm": "html",
    "xlsx": "excel spreadsheet",
    "xls": "excel spreadsheet",
    "docx": "word document",
    "doc": "word document",
    "pptx": "powerpoint presentation",
    "ppt": "powerpoint presentation",
    "pdf": "pdf",
    "png": "image",
    "jpg": "image",
    "jpeg": "image",
    "gif": "image",
    "svg": "image",
    "webp": "image",
    "wav": "audio",
    "mp3": "audio",
    "flac": "audio",
    "mp4": "video",
    "zip": "archive",
    "py": "python source",
}


def sub_needs(query: str) -> list[str]:
    """The whole request first, then its parts (no duplicates, at most :data:`MAX_NEEDS`)."""
    needs = [query.strip()]
    needs += [part for part in (p.strip(" ,.") for p in _CLAUSES.split(query) if p) if part]
    needs = [needs[0]] + [n for n in needs[1:] if len(n.split()) >= _MIN_WORDS]
    needs += file_needs(query)
    return list(dict.fromkeys(needs))[:MAX_NEEDS]


def file_needs(query: str) -> list[str]:
    """The file operations that the paths in ``query`` imply, in order of appearance."""
    needs = []
    previous = 0  # where the text about this path may begin: after the previous path
    for match in _PATH.finditer(query):
        before = query[max(previous, match.start() - _VERB_REACH) : match.start()]
        previous = match.end()
        kind = _KINDS.get(match.group(1).lower())
        if kind is None:
            continue
        # Only this sentence's verbs speak of this path.
        before = re.split(r"[.;!?]\s", before)[-1]
        verb = "write" if _SAVING.search(before) else "read"
        needs.append(f"{verb} a {kind} file")
    return needs
