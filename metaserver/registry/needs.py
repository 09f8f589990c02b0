"""A request as the needs it is made of.

Real requests ask for several things ("read the sheet, plot it as a bar chart and save it in
/tmp/sales.png"), and one ranking of the whole text favours the tools of its most-worded part.
Search therefore ranks the tools for the whole request and for each of its parts, and merges
the rankings (:mod:`metaserver.registry.search`). The parts are deterministic:

- its sentences, and clauses opened by a sequencing word ("then", "also", "after that"), all
  without the request's file paths (the file needs stand for them);
- for each file path (not part of a web address), the file operation it implies: "write a
  word document file" when a writing word comes shortly before the path and after any reading
  word, else "read a word document file". A request naming a file rarely says "file system",
  yet needs a tool that reads or writes one. A plain-text format is named as text ("write a
  text file in markdown"): any tool that writes text files writes it, and "write a markdown
  file" ranked the tools that convert markdown ahead of the one that writes the file. A path
  with an extension of no known kind is still a file ("read a file"). A document that is
  written (a Word or PowerPoint file, a spreadsheet, a PDF) is built in steps, one need each:
  "save a powerpoint presentation file", "create a new powerpoint presentation", "add content
  to a powerpoint presentation"; a PDF is made as a document and converted. A file named
  without a folder ("titled report.pdf") is a file too when its extension is of a known kind,
  and a file that is inserted or attached is read by the tool that inserts it (no need).

No need is added for a means a request implies without naming it (a calculator for
"calculate", a browser for "online"): such a table maps the words of the requests it was
written for, and neither passed 5-fold cross validation on the development half when added
(ARCHITECTURE.md, decision 34). The embedding carries what a word implies.
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
# A file named without a folder ("a report titled summary.pdf"), of a known kind only: a bare
# "Node.js" or "www.example.com" is no file.
_NAMED = re.compile(r"(?<![\w/.@\-])[\w\-]+\.([A-Za-z0-9]{1,5})\b(?![.\w/@\-])")
# A web address is no local file, though its path may end like one ("https://x.org/a.html").
_URL = re.compile(r"\b[a-z][a-z0-9+.\-]*://\S+", re.IGNORECASE)
# Words that make a path the place something is written to ("save it in", "a markdown report
# in", "summarise it in a PPT in"), and words that make it the place something is read from
# ("read the data under", "line 10 of", "located at"): the nearer of the two decides.
_SAVING = re.compile(
    r"\b(?:save[sd]?|saving|write|writes|written|writing|export(?:ed)?|store[sd]?|output|"
    r"put|create[sd]?|generate[sd]?|report|summari[sz]e[sd]?)\b",
    re.IGNORECASE,
)
_READING = re.compile(
    r"\b(?:reads?|open|opens|loads?|located|under|of|from|analy[sz]e[sd]?|parse|extract|"
    r"convert|get|view)\b",
    re.IGNORECASE,
)
# Words that make a file an argument of another operation ("insert clock.png into the
# document", "attach /tmp/a.pdf"): the tool that inserts it reads it, so it is no need of its
# own (a "read an image file" need only took places from the document's tools).
_PASSING = re.compile(r"\b(?:insert(?:s|ed)?|attach(?:es|ed)?|embed(?:s|ded)?)\b", re.IGNORECASE)
# How far before a path a saving verb is looked for ("save the summary as a report to /x").
_VERB_REACH = 60
# Plain-text formats: a file of one is "a text file in markdown".
_TEXT_FORMATS = {
    "md": "markdown",
    "csv": "csv",
    "tsv": "csv",
    "json": "json",
    "yaml": "yaml",
    "yml": "yaml",
    "xml": "xml",
    "html": "html",
    "htm": "html",
}
_KINDS = {
    "txt": "text",
    "log": "text",
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
# Kinds of document that are built, not written at once: the tools that make one create it,
# add its parts (slides, paragraphs, sheets) and save it, each a tool of its own, and "write a
# powerpoint presentation file" alone found the opening and saving tools (recall@10 0.640 ->
# 0.665 with the creating and adding needs; "save a ... file" for the writing one then ranked
# the saving tool ahead of the reading ones: recall@5 0.562 -> 0.578).
_DOCUMENTS = frozenset(("word document", "powerpoint presentation", "excel spreadsheet", "pdf"))
# A PDF is rarely written directly: it is made as a document and converted, and "create a new
# pdf" and "add content to a pdf" found the PDF readers, splitters and the browser's page saver
# instead of the document's tools (with the files named without a folder: recall@5 0.578 ->
# 0.596, recall@10 0.690 -> 0.702, bench/retrieval.py).
_CONVERTED = {
    "pdf": ["convert a document to pdf", "create a new document", "add content to a document"]
}


def sub_needs(query: str) -> list[str]:
    """The whole request first, then its parts (no duplicates, at most :data:`MAX_NEEDS`);
    the request's own text without its files' paths, which the file needs stand for."""
    text = _without_paths(query.strip())
    needs = [text]
    needs += [part for part in (p.strip(" ,.") for p in _CLAUSES.split(text) if p) if part]
    needs = [needs[0]] + [n for n in needs[1:] if len(n.split()) >= _MIN_WORDS]
    needs += file_needs(query)
    # A one-sentence request is its own clause, less its full stop: one need, not two (each
    # costs an embedding and a BM25 query; the rankings did not change).
    first = {_key(need): need for need in reversed(needs)}
    return list(dict.fromkeys(first[_key(need)] for need in needs))[:MAX_NEEDS]


def _key(need: str) -> str:
    """What tells needs apart: their words, whatever their case and closing punctuation."""
    return " ".join(need.lower().strip(" ,.!?;").split())


def file_needs(query: str) -> list[str]:
    """The file operations that the paths in ``query`` imply, in order of appearance."""
    needs = []
    previous = 0  # where the text about this path may begin: after the previous path
    for match in _paths(query):
        before = query[max(previous, match.start() - _VERB_REACH) : match.start()]
        previous = match.end()
        extension = match.group(1).lower()
        if extension.isdigit():  # a version ("python3.12"), not a file's kind
            continue
        kind = _KINDS.get(extension)
        # Only this sentence's words speak of this path.
        before = re.split(r"[.;!?]\s", before)[-1]
        saving, reading = _last(_SAVING, before), _last(_READING, before)
        if _last(_PASSING, before) > max(saving, reading):
            continue
        verb = "write" if saving > reading else "read"
        if extension in _TEXT_FORMATS:
            needs.append(f"{verb} a text file in {_TEXT_FORMATS[extension]}")
        elif verb == "write" and kind in _CONVERTED:
            needs += _CONVERTED[kind]
        elif verb == "write" and kind in _DOCUMENTS:
            needs += [f"save a {kind} file", f"create a new {kind}", f"add content to a {kind}"]
        else:
            needs.append(f"{verb} a {kind} file" if kind else f"{verb} a file")
    return needs


def _paths(query: str) -> list[re.Match[str]]:
    """The file paths and named files of ``query`` outside its web addresses, in order."""
    addresses = [url.span() for url in _URL.finditer(query)]
    named = [
        match
        for match in _NAMED.finditer(query)
        if match.group(1).lower() in _KINDS or match.group(1).lower() in _TEXT_FORMATS
    ]
    return [
        match
        for match in sorted([*_PATH.finditer(query), *named], key=lambda m: m.start())
        if not any(start <= match.start() < end for start, end in addresses)
    ]


def _without_paths(query: str) -> str:
    """``query`` less its files' paths: each file's operation is a need of its own, and a
    path's words ("root", "markdown", "excel", the file's name) ranked the format converters
    and mind-map tools for the request's other needs (recall@10 0.744 -> 0.762). A version
    ("python3.12") stays; so does a request that is nothing but a path."""
    kept, end = [], 0
    for match in _paths(query):
        if not match.group(1).isdigit():
            kept.append(query[end : match.start()])
            end = match.end()
    text = " ".join("".join([*kept, query[end:]]).split())
    return text or query


def _last(words: re.Pattern[str], text: str) -> int:
    """Where the last match of ``words`` in ``text`` ends; -1 when there is none."""
    return max((match.end() for match in words.finditer(text)), default=-1)
