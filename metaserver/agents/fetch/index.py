"""Package-index sources: find, choose and download a release's source distribution.

The project page comes from the configured index (PEP 691 JSON, or PEP 503 HTML); the sdist of
the pinned or newest version is chosen (a wheel only for a release published without one), and
the download is checked against the index's hash and a size cap before it is unpacked by
:mod:`.archives`. PEP 440 ordering is implemented here so that ``packaging`` is not needed.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin

import httpx

from metaserver.agents.fetch.archives import MAX_ARCHIVE_BYTES
from metaserver.agents.fetch.common import redact
from metaserver.exceptions import FetchError, SourceError

logger = logging.getLogger(__name__)

_SIMPLE_ACCEPT = (
    "application/vnd.pypi.simple.v1+json, "
    "application/vnd.pypi.simple.v1+html;q=0.2, "
    "text/html;q=0.01"
)
# In order of preference when one version has several.
_SDIST_SUFFIXES = (".tar.gz", ".zip", ".tgz", ".tar.bz2", ".tar.xz")
_HASH_PREFERENCE = ("sha256", "sha512", "sha384", "sha3_256", "sha3_512", "blake2b", "md5")


@dataclass(frozen=True)
class IndexFile:
    """One file the index lists for a project."""

    filename: str
    url: str
    hashes: dict[str, str]
    yanked: bool


def normalise_name(name: str) -> str:
    """PEP 503 name normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


async def list_files(client: httpx.AsyncClient, index: str, name: str) -> list[IndexFile]:
    """The files the index lists for ``name``, from its JSON or HTML project page."""
    url = f"{index.rstrip('/')}/{normalise_name(name)}/"
    response = await client.get(url, headers={"Accept": _SIMPLE_ACCEPT})
    if response.status_code in (404, 410):
        raise SourceError(f"unknown package on the index: {name}")
    if response.status_code >= 400:
        raise FetchError(f"package index answered HTTP {response.status_code} for {redact(url)}")
    content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
    page_url = str(response.url)
    if "json" in content_type:
        try:
            data = response.json()
        except ValueError:
            raise FetchError(f"package index sent invalid JSON for {name}") from None
        return _files_from_json(data, page_url)
    # PEP 503 mirrors that ignore the Accept header (or only serve HTML).
    return _files_from_html(response.text, page_url)


def _files_from_json(data: object, page_url: str) -> list[IndexFile]:
    """Files of a PEP 691 JSON project page; malformed entries are skipped."""
    entries = data.get("files") if isinstance(data, dict) else None
    files: list[IndexFile] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        filename, url = entry.get("filename"), entry.get("url")
        if not isinstance(filename, str) or not isinstance(url, str):
            continue
        raw_hashes = entry.get("hashes")
        hashes = {
            str(k).lower(): v
            for k, v in (raw_hashes.items() if isinstance(raw_hashes, dict) else ())
            if isinstance(v, str)
        }
        files.append(
            IndexFile(
                filename=filename,
                url=urljoin(page_url, url),
                hashes=hashes,
                yanked=bool(entry.get("yanked", False)),
            )
        )
    return files


class _LinkParser(HTMLParser):
    """Collects the anchors of a PEP 503 project page."""

    def __init__(self, page_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = page_url
        self.links: list[tuple[dict[str, str | None], str]] = []
        self._current: dict[str, str | None] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "base":
            href = dict(attrs).get("href")
            if href:
                self.base = urljoin(self.base, href)
        elif tag == "a":
            self._current = dict(attrs)
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._current is not None:
            self.links.append((self._current, "".join(self._text).strip()))
            self._current = None


def _files_from_html(text: str, page_url: str) -> list[IndexFile]:
    """Files of a PEP 503 HTML project page (hash in the URL fragment, PEP 592 yanking)."""
    parser = _LinkParser(page_url)
    parser.feed(text)
    parser.close()
    files: list[IndexFile] = []
    for attrs, label in parser.links:
        href = attrs.get("href")
        if not href:
            continue
        url, fragment = urldefrag(urljoin(parser.base, href))
        filename = label or url.rstrip("/").rsplit("/", 1)[-1]
        hashes: dict[str, str] = {}
        algorithm, sep, digest = fragment.partition("=")
        if sep and digest:
            hashes[algorithm.lower()] = digest
        files.append(
            IndexFile(filename=filename, url=url, hashes=hashes, yanked="data-yanked" in attrs)
        )
    return files


def _choose_sdist(
    name: str, pinned: str | None, files: Iterable[IndexFile]
) -> tuple[IndexFile, str]:
    """Pick the sdist of the pinned version, or of the newest version that has one.

    Requires-Python is deliberately ignored: the tree is the repository, not an install.
    """
    normalised = normalise_name(name)
    sdists: list[tuple[str, IndexFile]] = []
    known_versions: set[str] = set()
    for file in files:
        version = _sdist_version(file.filename, normalised)
        if version is not None:
            sdists.append((version, file))
            known_versions.add(version)
        elif (wheel_version := _wheel_version(file.filename, normalised)) is not None:
            known_versions.add(wheel_version)
    if pinned is not None:
        return _pinned_sdist(name, pinned, sdists, known_versions)
    candidates = [(v, f) for v, f in sdists if not f.yanked and _version_key(v) is not None]
    if not candidates:
        reason = "no source distribution that is not yanked" if sdists else "no source distribution"
        raise SourceError(f"{name} has {reason} on the index")
    # Like pip: pre-releases only when there is nothing else.
    finals = [(v, f) for v, f in candidates if not _is_prerelease(v)] or candidates
    newest = max(_key(v) for v, _ in finals)
    return _prefer_format([(v, f) for v, f in finals if _key(v) == newest])


def choose_sdist_or_wheel(
    name: str, pinned: str | None, files: list[IndexFile]
) -> tuple[IndexFile, str]:
    """The sdist, or for a release published only as wheels, one of its wheels.

    A wheel holds the package's Python source too (and, for a compiled one, its built
    extensions); the environment then comes from the published wheel, not from this tree.
    """
    try:
        return _choose_sdist(name, pinned, files)
    except SourceError as err:
        if "has no source distribution" not in str(err):
            raise
        wheel = _choose_wheel(name, pinned, files)
        if wheel is None:
            raise
        logger.info("%s: no source distribution; taking the tree from %s", name, wheel[0].filename)
        return wheel


def _choose_wheel(
    name: str, pinned: str | None, files: list[IndexFile]
) -> tuple[IndexFile, str] | None:
    normalised = normalise_name(name)
    wheels = [
        (version, file)
        for file in files
        if (version := _wheel_version(file.filename, normalised)) is not None
        and _version_key(version) is not None
    ]
    if pinned is not None:
        wheels = [(v, f) for v, f in wheels if _same_version(v, pinned)]
    else:
        wheels = [(v, f) for v, f in wheels if not f.yanked]
        finals = [(v, f) for v, f in wheels if not _is_prerelease(v)] or wheels
        newest = max((_key(v) for v, _ in finals), default=None)
        wheels = [(v, f) for v, f in finals if _key(v) == newest]
    if not wheels:
        return None
    # A pure-Python wheel is the plainest view of the source.
    version, file = min(wheels, key=lambda vf: (not vf[1].filename.endswith("-none-any.whl"),))
    return file, version


def _pinned_sdist(
    name: str, pinned: str, sdists: list[tuple[str, IndexFile]], known_versions: set[str]
) -> tuple[IndexFile, str]:
    matches = [(v, f) for v, f in sdists if _same_version(v, pinned)]
    if not matches:
        if any(_same_version(v, pinned) for v in known_versions):
            raise SourceError(f"{name} {pinned} has no source distribution on the index")
        raise SourceError(f"{name} has no version {pinned} on the index")
    live = [(v, f) for v, f in matches if not f.yanked]
    if not live:
        # PEP 592: an exact pin may still select a yanked release.
        logger.warning("%s %s is yanked on the index; fetching it as pinned", name, pinned)
        live = matches
    return _prefer_format(live)


def _prefer_format(choices: list[tuple[str, IndexFile]]) -> tuple[IndexFile, str]:
    def rank(choice: tuple[str, IndexFile]) -> int:
        lower = choice[1].filename.lower()
        return next(i for i, suffix in enumerate(_SDIST_SUFFIXES) if lower.endswith(suffix))

    version, file = min(choices, key=rank)
    return file, version


def _sdist_version(filename: str, normalised: str) -> str | None:
    """The version in ``{name}-{version}.tar.gz`` when ``name`` is the project's."""
    lower = filename.lower()
    suffix = next((s for s in _SDIST_SUFFIXES if lower.endswith(s)), None)
    if suffix is None:
        return None
    stem = filename[: -len(suffix)]
    # Old sdists keep dashes in the name (python-dateutil-2.8.2), so try every split point.
    for index, char in enumerate(stem):
        if char == "-" and normalise_name(stem[:index]) == normalised:
            return stem[index + 1 :] or None
    return None


def _wheel_version(filename: str, normalised: str) -> str | None:
    if not filename.lower().endswith(".whl"):
        return None
    parts = filename[:-4].split("-")
    if len(parts) >= 5 and normalise_name(parts[0]) == normalised:
        return parts[1]
    return None


# PEP 440, as in the ``packaging`` project (not a dependency of metaserver).
_PEP440_RE = re.compile(
    r"""^\s*v?
    (?:(?P<epoch>[0-9]+)!)?
    (?P<release>[0-9]+(?:\.[0-9]+)*)
    (?P<pre>[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>[0-9]+)?)?
    (?P<post>(?:-(?P<post_n1>[0-9]+))|(?:[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>[0-9]+)?))?
    (?P<dev>[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>[0-9]+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$""",
    re.VERBOSE | re.IGNORECASE,
)
_PRE_RANK = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_BELOW: tuple[int, ...] = (0,)  # sorts before any present component
_ABOVE: tuple[int, ...] = (2,)  # sorts after any present component
_VersionKey = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...], str]


def _version_key(version: str) -> _VersionKey | None:
    """A sort key with PEP 440 ordering, or None for a version PEP 440 cannot read."""
    match = _PEP440_RE.match(version)
    if not match:
        return None
    release = [int(part) for part in match.group("release").split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()  # 1.0 == 1.0.0
    pre_l, dev_l = match.group("pre_l"), match.group("dev_l")
    post_present = match.group("post") is not None
    pre: tuple[int, ...]
    if pre_l:
        pre = (1, _PRE_RANK[pre_l.lower()], int(match.group("pre_n") or 0))
    elif dev_l and not post_present:
        pre = _BELOW  # 1.0.dev1 comes before 1.0a1
    else:
        pre = _ABOVE
    post_n = match.group("post_n1") or match.group("post_n2")
    post = (1, int(post_n or 0)) if post_present else _BELOW
    dev = (1, int(match.group("dev_n") or 0)) if dev_l else _ABOVE
    return (int(match.group("epoch") or 0), tuple(release), pre, post, dev, "")


def _key(version: str) -> _VersionKey:
    key = _version_key(version)
    if key is None:  # callers filter these out first
        raise ValueError(f"not a PEP 440 version: {version}")
    return key


def _same_version(found: str, pinned: str) -> bool:
    found_key, pinned_key = _version_key(found), _version_key(pinned)
    if found_key is None or pinned_key is None:
        return found.lower() == pinned.lower()
    return found_key == pinned_key


def _is_prerelease(version: str) -> bool:
    match = _PEP440_RE.match(version)
    return bool(match and (match.group("pre_l") or match.group("dev_l")))


def _pick_hash(hashes: dict[str, str]) -> tuple[str, str] | None:
    for algorithm in _HASH_PREFERENCE:
        if algorithm in hashes:
            return algorithm, hashes[algorithm].lower()
    return None


async def download_file(client: httpx.AsyncClient, file: IndexFile, target: Path) -> None:
    """Stream ``file`` to ``target``, checking its size and the index's hash."""
    expected = _pick_hash(file.hashes)
    if expected is None:
        logger.warning("the index gives no hash for %s; it is not verified", file.filename)
    digest = hashlib.new(expected[0] if expected else "sha256")
    size = 0
    async with client.stream("GET", file.url) as response:
        if response.status_code >= 400:
            raise FetchError(f"download of {file.filename} failed: HTTP {response.status_code}")
        with target.open("wb") as out:
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > MAX_ARCHIVE_BYTES:
                    raise FetchError(
                        f"{file.filename} is larger than {MAX_ARCHIVE_BYTES // 2**20} MiB"
                    )
                digest.update(chunk)
                out.write(chunk)
    if expected is not None and digest.hexdigest() != expected[1]:
        raise FetchError(
            f"{expected[0]} of {file.filename} does not match the index "
            f"(expected {expected[1]}, got {digest.hexdigest()})"
        )
