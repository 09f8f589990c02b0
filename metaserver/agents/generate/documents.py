"""The repository's README and tutorials as MCP resources, and a prompt per tutorial.

Every generated server serves, beside its tools, the text a client needs to use them: the
README, each tutorial (a notebook rendered as markdown: its markdown cells and its code; a
markdown or reStructuredText page with code from docs/, examples/ or tutorials/) and, for a
conversion from a paper, the paper's text. Each is a resource with a stable URI
(``doc://<server>/readme``, ``doc://<server>/paper``, ``doc://<server>/tutorials/<slug>``);
each tutorial also gets a prompt that describes its workflow and names the tools that run it.

They are written as files beside ``server.py`` with one manifest, ``documents.json``, which
the generated server registers at start and the meta-server reads to list them without
starting the server (ARCHITECTURE.md decision 14). Read statically: nothing is imported.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from metaserver.contracts import JSON, ToolSpec

__all__ = [
    "DOCUMENTS_DIR",
    "MANIFEST",
    "MAX_DOCUMENT_CHARS",
    "MAX_TUTORIALS",
    "Document",
    "WorkflowPrompt",
    "collect",
    "notebook_markdown",
    "write_documents",
]

MANIFEST = "documents.json"
DOCUMENTS_DIR = "documents"
MAX_DOCUMENT_CHARS = 100_000
"""Characters of one document served; the rest is cut with a notice (resources are read whole)."""
MAX_TUTORIALS = 30
TUTORIAL_DIRS = ("tutorials", "tutorial", "docs", "doc", "examples", "example", "notebooks")
_TEXT_SUFFIXES = (".md", ".rst", ".txt")
_README = re.compile(r"^readme(\.(md|rst|txt|markdown))?$", re.IGNORECASE)
# A page is a tutorial when it shows code: a fence, an rst code directive or a doctest.
_SHOWS_CODE = re.compile(r"^(```|~~~|\.\. (code-block|code|sourcecode|ipython)::|>>> )", re.M)
_SKIP_PARTS = {"node_modules", "build", "dist", "_build", "site-packages", "__pycache__"}
_SLUG = re.compile(r"[^a-z0-9]+")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_PROMPT_TOOLS = 8


@dataclass(frozen=True)
class Document:
    """One text resource of a generated server."""

    uri: str
    name: str
    title: str
    description: str
    path: str  # where it came from, relative to the repository ("" for the paper)
    text: str


@dataclass(frozen=True)
class WorkflowPrompt:
    """One tutorial's prompt: what it does and which tools run it."""

    name: str
    title: str
    description: str
    text: str
    resource: str  # the tutorial's URI
    tools: list[str]


def collect(
    root: Path, server: str, specs: list[ToolSpec], paper: str | None = None
) -> tuple[list[Document], list[WorkflowPrompt]]:
    """The README, the tutorials and the paper of the repository at ``root``, with prompts."""
    documents: list[Document] = []
    readme = _readme(root)
    if readme is not None:
        text = _capped(readme.read_text(encoding="utf-8", errors="replace"))
        documents.append(
            Document(
                uri=f"doc://{server}/readme",
                name="readme",
                title=_title(text) or f"{server} README",
                description=f"The repository's {readme.name}.",
                path=readme.name,
                text=text,
            )
        )
    if paper is not None:
        documents.append(
            Document(
                uri=f"doc://{server}/paper",
                name="paper",
                title=_title(paper) or "paper",
                description="The text of the paper this server was converted from.",
                path="",
                text=_capped(paper),
            )
        )
    prompts: list[WorkflowPrompt] = []
    taken: set[str] = set()
    for path in _tutorials(root, specs):
        relative = path.relative_to(root).as_posix()
        text = _tutorial_text(path)
        if not text.strip():
            continue
        slug = _unique(_SLUG.sub("-", relative.rsplit(".", 1)[0].lower()).strip("-"), taken)
        title = _title(text) or relative
        tutorial = Document(
            uri=f"doc://{server}/tutorials/{slug}",
            name=f"tutorial-{slug}",
            title=title,
            description=f"Tutorial {relative}" + (" (notebook)" if path.suffix == ".ipynb" else ""),
            path=relative,
            text=_capped(text),
        )
        documents.append(tutorial)
        prompts.append(_prompt(tutorial, text, specs))
    return documents, prompts


def notebook_markdown(path: Path) -> str:
    """A notebook as markdown: its markdown cells as they are, its code cells fenced."""
    try:
        cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    except (OSError, ValueError, AttributeError):
        return ""
    language = "python"
    parts = []
    for cell in cells if isinstance(cells, list) else []:
        if not isinstance(cell, dict):
            continue
        source = cell.get("source", "")
        text = "".join(map(str, source)) if isinstance(source, list) else str(source)
        if not text.strip():
            continue
        if cell.get("cell_type") == "markdown":
            parts.append(text.strip())
        elif cell.get("cell_type") == "code":
            parts.append(f"```{language}\n{text.rstrip()}\n```")
    return "\n\n".join(parts) + "\n" if parts else ""


def write_documents(
    directory: Path, server: str, documents: list[Document], prompts: list[WorkflowPrompt]
) -> None:
    """``documents/<n>.md`` and the ``documents.json`` manifest in the server directory."""
    folder = directory / DOCUMENTS_DIR
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.md"):
        old.unlink()
    resources: list[JSON] = []
    for index, document in enumerate(documents):
        name = f"{index:03d}-{document.name.replace('/', '-')}.md"
        (folder / name).write_text(document.text, encoding="utf-8")
        resources.append(
            {
                "uri": document.uri,
                "name": document.name,
                "title": document.title,
                "description": document.description,
                "mime_type": "text/markdown",
                "file": f"{DOCUMENTS_DIR}/{name}",
                "size": len(document.text.encode("utf-8")),
                "path": document.path,
            }
        )
    manifest: dict[str, JSON] = {
        "server": server,
        "resources": resources,
        "prompts": [asdict(prompt) for prompt in prompts],  # type: ignore[misc]
        "work_template": f"work://{server}/{{path*}}",
    }
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2), encoding="utf-8")


def _readme(root: Path) -> Path | None:
    found = sorted(p for p in root.iterdir() if p.is_file() and _README.match(p.name))
    # README.md before README.rst before a bare README: the richest form first.
    found.sort(key=lambda p: {".md": 0, ".markdown": 0, ".rst": 1}.get(p.suffix.lower(), 2))
    return next((p for p in found if not p.is_symlink()), None)


def _tutorials(root: Path, specs: list[ToolSpec]) -> list[Path]:
    """Notebook tools' notebooks first, then notebooks and pages with code in tutorial dirs."""
    chosen: list[Path] = []
    for spec in specs:
        if spec.notebook is not None:
            path = root / spec.notebook.path
            if path.is_file() and path not in chosen:
                chosen.append(path)
    found: list[Path] = []
    for top in TUTORIAL_DIRS:
        base = root / top
        if not base.is_dir() or base.is_symlink():
            continue
        for path in sorted(base.rglob("*")):
            parts = path.relative_to(root).parts
            if any(p.startswith(".") or p in _SKIP_PARTS for p in parts):
                continue
            if not path.is_file() or path.is_symlink() or path in chosen or path in found:
                continue
            suffix = path.suffix.lower()
            if suffix == ".ipynb" or (suffix in _TEXT_SUFFIXES and _shows_code(path)):
                found.append(path)
    return (chosen + found)[:MAX_TUTORIALS]


def _shows_code(path: Path) -> bool:
    try:
        if path.stat().st_size > 4 * MAX_DOCUMENT_CHARS:
            return False
        return bool(_SHOWS_CODE.search(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return False


def _tutorial_text(path: Path) -> str:
    if path.suffix.lower() == ".ipynb":
        return notebook_markdown(path)
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _prompt(tutorial: Document, text: str, specs: list[ToolSpec]) -> WorkflowPrompt:
    tools = _tools_for(tutorial.path, text, specs)
    lines = [
        f'Follow the workflow of the tutorial "{tutorial.title}" ({tutorial.path}).',
        f"Its full text is the resource {tutorial.uri}; read it first.",
    ]
    summary = _summary(text)
    if summary:
        lines += ["", f"What it does: {summary}"]
    if tools:
        lines += ["", "Tools that run it:"]
        lines += [f"- {_describe_tool(spec)}" for spec in tools]
    else:
        lines += ["", "No single tool runs it; use the server's tools for the steps it shows."]
    return WorkflowPrompt(
        name=tutorial.name,
        title=f"Workflow: {tutorial.title}",
        description=f"The workflow of {tutorial.path}"
        + (f", run by {', '.join(s.name for s in tools)}" if tools else ""),
        text="\n".join(lines),
        resource=tutorial.uri,
        tools=[spec.name for spec in tools],
    )


def _tools_for(path: str, text: str, specs: list[ToolSpec]) -> list[ToolSpec]:
    """The notebook's own tool, else the tools whose callable the tutorial names."""
    own = [s for s in specs if s.notebook is not None and s.notebook.path == path]
    if own:
        return own
    words = set(_WORD.findall(text))
    named = []
    for spec in specs:
        if spec.kind in ("script", "notebook"):
            continue
        callable_name = spec.target.rpartition(":")[2].rpartition(".")[2]
        if callable_name in words:
            named.append(spec)
    return named[:MAX_PROMPT_TOOLS]


def _describe_tool(spec: ToolSpec) -> str:
    parameters = []
    for parameter in spec.parameters:
        kind = parameter.json_schema.get("type", "any")
        shown = f"{parameter.name}: {kind}"
        if not parameter.required:
            shown += f" = {json.dumps(parameter.default)}"
        parameters.append(shown)
    first_line = spec.description.strip().splitlines()[0] if spec.description.strip() else ""
    return f"`{spec.name}`({', '.join(parameters)}): {first_line}".rstrip(": ")


def _summary(text: str) -> str:
    """The first paragraph of prose (not a heading, not code), up to 400 characters."""
    in_fence = False
    paragraph: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            if paragraph:
                break
            continue
        if in_fence or stripped.startswith(("#", ">>>", "..", "=", "-", "*", "<", "!")):
            if paragraph:
                break
            continue
        if not stripped:
            if paragraph:
                break
            continue
        paragraph.append(stripped)
    return " ".join(paragraph)[:400]


def _title(text: str) -> str:
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith(("```", "..", "<", "[![", "!")):
            return stripped.lstrip("#").strip()[:200]
    return ""


def _capped(text: str) -> str:
    if len(text) <= MAX_DOCUMENT_CHARS:
        return text
    cut = len(text) - MAX_DOCUMENT_CHARS
    return text[:MAX_DOCUMENT_CHARS] + f"\n\n[... {cut} more characters not served]\n"


def _unique(slug: str, taken: set[str]) -> str:
    slug = slug or "tutorial"
    candidate, n = slug, 2
    while candidate in taken:
        candidate, n = f"{slug}-{n}", n + 1
    taken.add(candidate)
    return candidate
