"""The analysis probe: runs INSIDE the target environment, never in metaserver's process.

Usage: ``python -I probe_script.py --output FILE [--distribution NAME] [--path DIR]
[--guides FILE]``

It imports the package, lists its public functions and classes (constructors, methods) with
signatures, JSON Schemas and codecs for their parameters, docstrings, doctest examples and
risk flags, and writes one JSON document to FILE (not to stdout, which the imported code may
print on). Standard library only: the target environment holds nothing of metaserver. Its
helpers (``probe_types``, ``probe_docs``, ``probe_scan``, ``probe_members``) sit beside it.
"""

import argparse
import importlib
import importlib.metadata
import inspect
import itertools
import json
import os
import re
import sys
import warnings

if not __package__:  # run as a script (``-I`` leaves the script's folder off sys.path)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from probe_assign import setter_candidates
    from probe_docs import parameter_docs, summary_of
    from probe_members import (
        GUIDES,
        describe_callable,
        describe_class,
        public_members,
        set_guides,
        spread_keywords,
    )
    from probe_types import Unsupported, json_safe, schema_for
else:
    from .probe_assign import setter_candidates
    from .probe_docs import parameter_docs, summary_of  # noqa: F401
    from .probe_members import (
        GUIDES,
        describe_callable,
        describe_class,
        public_members,
        set_guides,
        spread_keywords,
    )
    from .probe_types import Unsupported, json_safe, schema_for  # noqa: F401

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
    try:
        package = importlib.import_module(package_name)
    except BaseException as exc:  # import-time code may raise anything, even SystemExit
        errors.append({"target": package_name, "reason": f"import failed: {describe(exc)}"})
        return []
    modules = [package]
    if hasattr(package, "__path__"):
        import pkgutil

        documented = guide_modules(guides, package_name)
        walked = (i.name for i in pkgutil.walk_packages(package.__path__, package_name + "."))
        seen = {package_name}
        for name in itertools.chain(documented, walked):
            if len(modules) >= MAX_MODULES:
                break
            if name in seen or any(part.startswith("_") for part in name.split(".")):
                continue
            seen.add(name)
            if re.search(r"\.(tests?|testing|conftest|_?vendor(ed)?)(\.|$)", name):
                continue
            try:
                modules.append(importlib.import_module(name))
            except ModuleNotFoundError as exc:
                if exc.name != name or name not in documented:  # a guide's line, not a module
                    errors.append({"target": name, "reason": f"import failed: {describe(exc)}"})
            except BaseException as exc:
                errors.append({"target": name, "reason": f"import failed: {describe(exc)}"})
    return modules


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    parser.add_argument("--distribution")
    parser.add_argument("--path")
    parser.add_argument("--guides", help="JSON list: the README's and guides' code sessions")
    options = parser.parse_args()
    if options.guides:
        with open(options.guides, encoding="utf-8") as handle:
            set_guides(json.load(handle))
    if options.path:
        sys.path.insert(0, options.path)
    warnings.simplefilter("ignore")
    packages = top_level_modules(options.distribution, options.path)
    candidates, skipped, seen = [], [], {}
    for package_name in packages:
        for module in walk_modules(package_name, skipped, GUIDES):
            try:
                members = list(public_members(module, package_name))
            except Exception as exc:  # a module whose attributes raise: report, go on
                skipped.append({"target": module.__name__, "reason": describe(exc)})
                continue
            for name, obj, in_all in members:
                target = f"{module.__name__}:{name}"
                if id(obj) in seen:
                    seen[id(obj)].setdefault("aliases", []).append(target)
                    continue  # an alias: the first (shallowest) public path wins
                try:
                    if isinstance(obj, type):
                        described = describe_class(obj, name, module, in_all, package_name)
                    else:
                        described = [describe_callable(obj, name, module, in_all)]
                except Exception as exc:
                    described = [(None, f"probe error: {describe(exc)}", target)]
                for item, reason, where in described:
                    if item is None:
                        skipped.append({"target": where, "reason": reason})
                    else:
                        candidates.append(item)
                found = [d[0] for d in described if d[0] is not None]
                seen[id(obj)] = found[0] if found else {}
                if inspect.ismethod(obj):  # the unbound function, met later, is an alias
                    seen.setdefault(id(obj.__func__), seen[id(obj)])
    name_steps(candidates, seen)
    with open(options.output, "w", encoding="utf-8") as handle:
        json.dump({"packages": packages, "candidates": candidates, "skipped": skipped}, handle)


def name_steps(candidates, seen):
    """Session steps that build an argument (probe_values) name their callable by its id
    until now: here it gets the target the probe listed it under (a setup call, its class's
    constructor's target and its method); an example whose step calls no listed callable is
    dropped (no tool could replay it). The setters those steps assign through
    (probe_assign.py) join the candidates, their own examples named the same way."""
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


if __name__ == "__main__":
    main()
