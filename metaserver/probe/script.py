"""The analysis probe: runs INSIDE the target environment, never in metaserver's process.

Usage: ``python -I <this folder>/__main__.py --output FILE [--distribution NAME]
[--path DIR] [--guides FILE] [--budget SECONDS]`` (__main__.py loads this folder as a
package and calls :func:`main`).

It imports the package, lists its public functions and classes (constructors, methods) with
signatures, JSON Schemas and codecs for their parameters, docstrings, doctest examples and
risk flags, and writes one JSON document to FILE (not to stdout, which the imported code may
print on). Standard library only: the target environment holds nothing of metaserver; its
helpers are the modules beside it, in the same package. With a budget it reads the most
valuable part first and stops when the budget is spent, noting what it left unread
(``unread``), rather than running into the sandbox's limit, which fails the conversion.
"""

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import os
import re
import sys
import time
import warnings

from .assign import setter_candidates
from .budget import Budget, named
from .listing import Listing, guide_words
from .members import (
    GUIDES,
    TESTS,
    describe_callable,
    describe_class,
    public_members,
    set_guides,
    set_tests,
    spread_keywords,
)

MAX_MODULES = 200


# ---------------------------------------------------------------- discovering the package


def top_level_modules(distribution, path):
    """Importable top-level names that the distribution (or a plain directory) provides."""
    names = []
    if distribution:
        try:
            dist = importlib.metadata.distribution(distribution)
        except importlib.metadata.PackageNotFoundError:
            dist = None
        if dist is not None:
            text = dist.read_text("top_level.txt") or ""
            names = [n.strip() for n in text.splitlines() if n.strip()]
            if not names:
                for file in dist.files or []:
                    parts = file.parts
                    if not parts or parts[0].endswith((".dist-info", ".egg-info", ".data")):
                        continue
                    head = parts[0]
                    if len(parts) == 1:
                        if head.endswith(".py"):
                            names.append(head[:-3])
                        elif head.endswith((".so", ".pyd")):
                            names.append(head.split(".")[0])
                    elif head != "__pycache__":
                        names.append(head)
    if not names and path:
        for root in (path, os.path.join(path, "src")):
            if not os.path.isdir(root):
                continue
            for entry in sorted(os.listdir(root)):
                full = os.path.join(root, entry)
                if os.path.isfile(os.path.join(full, "__init__.py")):
                    names.append(entry)
                elif entry.endswith(".py") and entry not in ("setup.py", "conftest.py"):
                    names.append(entry[:-3])
    seen = []
    for name in names:
        name = name.replace("/", ".")
        if name.isidentifier() and not name.startswith("_") and name not in seen:
            if name not in ("test", "tests", "docs", "examples", "setup", "conftest"):
                seen.append(name)
    return seen


def walk_modules(package_name, errors, guides=()):
    """The package, the public submodules its guides import from, then the others, imported.

    A callable is listed under the first path met, the others become aliases: the module a
    guide imports it from (``from pkg.io import write``) comes before one that merely
    re-exports it (``pkg.calculators.aims``), and within the module budget.
    """
    walk = ModuleWalk(package_name, errors, guides)
    return walk.documented() + list(walk.others())


class ModuleWalk:
    """One package's modules in walk order: the package and the submodules its guides
    import from first (``documented``), then the others (``others``), imported one at a
    time as they are asked for, so that a caller whose budget is spent stops importing."""

    def __init__(self, package_name, errors, guides=()):
        self.package_name = package_name
        self.errors = errors
        self.guides = guides
        self.package = None
        self.count = 0  # modules imported, within MAX_MODULES
        self.seen = {package_name}

    def documented(self):
        try:
            self.package = importlib.import_module(self.package_name)
        except BaseException as exc:  # import-time code may raise anything, even SystemExit
            reason = f"import failed: {describe(exc)}"
            self.errors.append({"target": self.package_name, "reason": reason})
            return []
        self.count = 1
        modules = [self.package]
        if hasattr(self.package, "__path__"):
            for name in guide_modules(self.guides, self.package_name):
                if self.count >= MAX_MODULES:
                    continue
                listed = self._wanted(name)
                # A guide's import line may name a class, not a module: no error then.
                module = self._import(name, quiet=True)
                # A test helper module a guide imports (``from nibabel.testing import
                # data_path``) is imported, so the guide's names mean what they mean
                # there, but its functions are no tools.
                if module is not None and listed:
                    modules.append(module)
        return modules

    def others(self, budget=None):
        """The package's other public submodules, imported; none once ``budget`` is spent
        (its note names the module the walk stopped at)."""
        if self.package is None or not hasattr(self.package, "__path__"):
            return
        import pkgutil

        prefix = self.package_name + "."
        for info in pkgutil.walk_packages(self.package.__path__, prefix):
            if self.count >= MAX_MODULES:
                return
            if not self._wanted(info.name):
                continue
            if budget is not None and budget.spent():
                budget.note(
                    self.package_name,
                    f"modules from {info.name} on not walked ({self.count} walked)",
                )
                return
            module = self._import(info.name)
            if module is not None:
                yield module

    def _wanted(self, name):
        if name in self.seen or any(part.startswith("_") for part in name.split(".")):
            return False
        self.seen.add(name)
        return not re.search(r"\.(tests?|testing|conftest|_?vendor(ed)?)(\.|$)", name)

    def _import(self, name, quiet=False):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name or not quiet:
                self.errors.append({"target": name, "reason": f"import failed: {describe(exc)}"})
            return None
        except BaseException as exc:
            self.errors.append({"target": name, "reason": f"import failed: {describe(exc)}"})
            return None
        self.count += 1
        return module


_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:(?:>>>|\.\.\.)[ \t]+)?"
    r"(?:from[ \t]+([\w.]+)[ \t]+import\b|import[ \t]+([\w., \t]+))",
    re.M,
)


def guide_modules(guides, package_name):
    """The submodules of ``package_name`` that the guides' import lines name, first met
    first (``from pkg.io import write``: ``pkg.io``; ``import pkg.units as u``: ``pkg.units``).
    """
    found = []
    for text in guides:
        for match in _IMPORT_LINE.finditer(text):
            if match.group(1):
                named = [match.group(1)]
            else:
                named = [part.split()[0] for part in match.group(2).split(",") if part.split()]
            for name in named:
                if name.startswith(package_name + ".") and name not in found:
                    found.append(name)
    return found


def describe(exc):
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def main(started=None):
    """Probe the package the command line names; ``started``: when the budget's time
    began (__main__.py: before the probe's own modules were loaded)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    parser.add_argument("--distribution")
    parser.add_argument("--path")
    parser.add_argument("--guides", help="JSON list: the README's and guides' code sessions")
    parser.add_argument("--tests", help="JSON list: the test suite's tests as sessions")
    parser.add_argument("--budget", type=float, help="seconds to read in (budget.py)")
    options = parser.parse_args()
    if options.guides:
        with open(options.guides, encoding="utf-8") as handle:
            set_guides(json.load(handle))
    if options.tests:
        with open(options.tests, encoding="utf-8") as handle:
            set_tests(json.load(handle))
    if options.path:
        sys.path.insert(0, options.path)
    warnings.simplefilter("ignore")
    import_array_library(GUIDES + TESTS)
    budget = Budget(options.budget, time.monotonic() if started is None else started)
    packages = top_level_modules(options.distribution, options.path)
    skipped, listing, walks = [], Listing(), []
    for package_name in packages:
        walk = ModuleWalk(package_name, skipped, GUIDES)
        for module in walk.documented():
            list_members(listing, module, package_name, skipped)
        walks.append(walk)
    # In order of value (listing.py), while time is left: what the guides call, the
    # rest of the documented modules, then the other modules, walked, the same way (with
    # several top-level packages, all their documented modules come before any walk).
    words = guide_words(GUIDES)
    read = {}  # a member's place in walk order: its candidates and its skipped entries
    describe_members(listing.unread(words), read, budget)
    describe_members(listing.unread(), read, budget)
    for walk in walks:
        for module in walk.others(budget):
            list_members(listing, module, walk.package_name, skipped)
    describe_members(listing.unread(words), read, budget)
    describe_members(listing.unread(), read, budget)
    for package_name in packages:
        left = [m.target for m in listing.unread() if m.package == package_name]
        if left:
            budget.note(package_name, f"{named(left)} public callables not described")
    candidates, seen = [], {}
    for member in listing.members:
        if member.order not in read:
            continue
        described, skips = read[member.order]
        candidates += described
        skipped += skips
        seen[id(member.obj)] = described[0] if described else {}
        if described and member.aliases:
            described[0]["aliases"] = list(member.aliases)
    name_steps(candidates, seen)
    report = {"packages": packages, "candidates": candidates, "skipped": skipped}
    with open(options.output, "w", encoding="utf-8") as handle:
        json.dump({**report, "unread": budget.unread}, handle)


def import_array_library(sessions):
    """Import numpy where the sessions import it and this environment has it.

    Session reading binds only modules already imported (doctest_lines.bind_imports), and
    the docs build their arrays with numpy even where the package itself never imports it:
    sgp4's README makes with ``np.array`` the arrays ``Satrec.sgp4_array`` takes, and
    without numpy bound no such call was an example. numpy is the one library whose arrays
    session reading makes (array_values.py); any other module a guide imports stays
    unknown."""
    if "numpy" in sys.modules or not any(_IMPORTS_NUMPY.search(s) for s in sessions):
        return
    if importlib.util.find_spec("numpy") is None:
        return
    try:
        importlib.import_module("numpy")
    except Exception:  # a broken install: the sessions' arrays stay unknown, as before
        return


_IMPORTS_NUMPY = re.compile(r"^\s*(>>>\s*)?(import numpy\b|from numpy\b)", re.MULTILINE)


def list_members(listing, module, package_name, skipped):
    try:
        members = list(public_members(module, package_name))
    except Exception as exc:  # a module whose attributes raise: report, go on
        skipped.append({"target": module.__name__, "reason": describe(exc)})
        return
    listing.add(module, package_name, members)


def describe_members(members, read, budget=None):
    """Each member's candidates (a class: its constructor and methods) and skipped entries,
    into ``read`` by its place in walk order; until ``budget`` is spent, when given."""
    for member in members:
        if budget is not None and budget.spent():
            return
        member.read = True
        obj, name, module, target = member.obj, member.name, member.module, member.target
        try:
            if isinstance(obj, type):
                described = describe_class(obj, name, module, member.in_all, member.package)
            else:
                described = [describe_callable(obj, name, module, member.in_all)]
        except Exception as exc:
            described = [(None, f"probe error: {describe(exc)}", target)]
        found = [item for item, _, _ in described if item is not None]
        skips = [{"target": where, "reason": why} for item, why, where in described if item is None]
        read[member.order] = (found, skips)


def name_steps(candidates, seen):
    """Session steps that build an argument (built_arguments) name their callable by its id
    until now: here it gets the target the probe listed it under (a setup call, its class's
    constructor's target and its method); an example whose step calls no listed callable is
    dropped (no tool could replay it). The setters those steps assign through
    (assign.py) join the candidates, their own examples named the same way."""
    for candidate in candidates:
        _name_classes(candidate, seen)
        _name_examples(candidate, seen)
    setters = setter_candidates(candidates)
    for setter in setters:
        _name_examples(setter, seen)
    candidates.extend(setters)
    _replayable(candidates)


def _replayable(candidates):
    """Only examples whose every step passes arguments its tool takes: a value the docs pass
    where the tool has no parameter (a hidden one) makes a step no replay could make. A
    step that passes keywords into its callable's ``**kwargs`` (``h2 = Atoms('H2',
    positions=...)``) makes that a parameter of its tool first."""
    by_target = {c.get("target"): c for c in candidates}
    for candidate in candidates:
        for example in candidate.get("examples", []):
            for step in example.get("session") or []:
                listed = by_target.get(step["target"]) or {}
                spread = listed.get("_spread")
                if spread is not None and spread in (step.get("arguments") or {}):
                    spread_keywords(listed["parameters"], listed["hidden_parameters"], spread)
                    del listed["_spread"]
    for candidate in candidates:
        candidate.pop("_spread", None)
    # (a target not listed here is left to design, which keeps no session without its tools)
    takes = {c.get("target"): {p["name"] for p in c.get("parameters", [])} for c in candidates}
    for candidate in candidates:
        candidate["examples"] = [
            example
            for example in candidate.get("examples", [])
            if all(
                set(step.get("arguments") or {}) | set(step.get("takes") or {})
                <= takes[step["target"]]
                for step in example.get("session") or []
                if step["target"] in takes
            )
        ]


def _name_examples(candidate, seen):
    kept = []
    for example in candidate.get("examples", []):
        steps = example.get("session") or []
        for step in steps:
            if "_id" in step:
                listed = seen.get(step.pop("_id")) or {}
                step["target"] = listed.get("target")
                factory = step.pop("factory", None)
                if factory:  # a class method that builds the class's instance
                    constructor = listed.get("kind") == "constructor" and listed.get("target")
                    step["target"] = f"{listed['target']}.{factory}" if constructor else None
                if step.get("typed") and listed.get("kind") != "constructor":
                    step["target"] = None  # built by the class's own constructor only
                if listed.get("kind") == "method":  # a class listed by a method alone
                    step["target"] = None
                if step.get("member"):  # a setup call of an argument: its class's method
                    constructor = listed.get("kind") == "constructor"
                    method = f"{listed['target']}.{step['member']}"
                    step["target"] = method if constructor else None
        if all(step.get("target") for step in steps):
            kept.append(example)
    candidate["examples"] = kept


def _name_classes(candidate, seen):
    """``returns`` and ``bases`` by the targets of the classes' constructors (a class with
    no constructor candidate is left out)."""

    def constructor(key):
        listed = seen.get(key) or {}
        return listed.get("target") if listed.get("kind") == "constructor" else None

    if "_returns" in candidate:
        returned = constructor(candidate.pop("_returns"))
        if returned:
            candidate["returns"] = returned
    if "_bases" in candidate:
        bases = [constructor(key) for key in candidate.pop("_bases")]
        candidate["bases"] = [b for b in bases if b]
