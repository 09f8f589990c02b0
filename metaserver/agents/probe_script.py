"""The analysis probe: runs INSIDE the target environment, never in metaserver's process.

Usage: ``python -I probe_script.py --output FILE [--distribution NAME] [--path DIR]``

It imports the package, lists its public callables with signatures, JSON Schemas for their
parameters, docstrings and doctest examples, and writes one JSON document to FILE (not to
stdout, which the imported code may print on). Standard library only: the target environment
holds nothing of metaserver.
"""

import argparse
import ast
import doctest
import enum
import importlib
import importlib.metadata
import inspect
import json
import keyword
import os
import re
import sys
import types
import typing
import warnings

JSON_SCALARS = (type(None), bool, int, float, str)
WRAPPERS = {"list", "tuple", "sorted", "set", "frozenset", "dict"}
MAX_EXAMPLES = 5
MAX_MODULES = 200


class Unsupported(Exception):
    """A type that JSON Schema cannot express (yet)."""


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


def walk_modules(package_name, errors):
    """The package and its public submodules, imported."""
    try:
        package = importlib.import_module(package_name)
    except BaseException as exc:  # import-time code may raise anything, even SystemExit
        errors.append({"target": package_name, "reason": f"import failed: {describe(exc)}"})
        return []
    modules = [package]
    if hasattr(package, "__path__"):
        import pkgutil

        for info in pkgutil.walk_packages(package.__path__, package_name + "."):
            if len(modules) >= MAX_MODULES:
                break
            if any(part.startswith("_") for part in info.name.split(".")):
                continue
            if re.search(r"\.(tests?|testing|conftest|_?vendor(ed)?)(\.|$)", info.name):
                continue
            try:
                modules.append(importlib.import_module(info.name))
            except BaseException as exc:
                errors.append({"target": info.name, "reason": f"import failed: {describe(exc)}"})
    return modules


def describe(exc):
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def public_functions(module, package_name):
    """(public name, function) pairs a user of ``module`` is meant to call."""
    exported = getattr(module, "__all__", None)
    names = list(exported) if isinstance(exported, (list, tuple)) else dir(module)
    for name in names:
        if not isinstance(name, str) or name.startswith("_"):
            continue
        obj = getattr(module, name, None)
        if not (inspect.isfunction(obj) or inspect.isbuiltin(obj)):
            continue
        home = getattr(obj, "__module__", "") or ""
        if home != package_name and not home.startswith(package_name + "."):
            continue  # re-exported from elsewhere (stdlib, a dependency)
        yield name, obj, exported is not None


# ---------------------------------------------------------------- types to JSON Schema


def schema_for(annotation):
    """The JSON Schema of an annotation, or :class:`Unsupported`."""
    if annotation is inspect.Parameter.empty or annotation is typing.Any:
        return {}
    if annotation is None or annotation is type(None):
        return {"type": "null"}
    simple = {bool: "boolean", int: "integer", float: "number", str: "string"}
    if annotation in simple:
        return {"type": simple[annotation]}
    if annotation in (list, tuple, set, frozenset):
        return {"type": "array"}
    if annotation is dict:
        return {"type": "object"}
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Union or (hasattr(types, "UnionType") and origin is types.UnionType):
        return {"anyOf": [schema_for(arg) for arg in args]}
    if origin is typing.Literal:
        if all(isinstance(a, JSON_SCALARS) for a in args):
            return {"enum": list(args)}
        raise Unsupported(repr(annotation))
    if origin is typing.Annotated:
        return schema_for(args[0])
    import collections.abc as abc

    sequences = (
        list,
        set,
        frozenset,
        abc.Sequence,
        abc.Iterable,
        abc.Collection,
        abc.MutableSequence,
        abc.Set,
        abc.Iterator,
    )
    if origin in sequences:
        return {"type": "array", "items": schema_for(args[0])} if args else {"type": "array"}
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": schema_for(args[0])}
        if args:
            items = [schema_for(a) for a in args]
            return {
                "type": "array",
                "prefixItems": items,
                "minItems": len(items),
                "maxItems": len(items),
            }
        return {"type": "array"}
    if origin in (dict, abc.Mapping, abc.MutableMapping):
        if args and args[0] is not str:
            raise Unsupported(repr(annotation))
        return (
            {"type": "object", "additionalProperties": schema_for(args[1])}
            if args
            else {"type": "object"}
        )
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = [m.value for m in annotation]
        if all(isinstance(v, JSON_SCALARS) for v in values):
            return {"enum": values}
    raise Unsupported(getattr(annotation, "__name__", None) or repr(annotation))


def json_safe(value):
    """``value`` as JSON if it is plain data, else raise :class:`Unsupported`."""
    if isinstance(value, float) and value != value:
        raise Unsupported("nan")
    if isinstance(value, JSON_SCALARS):
        return value
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: json_safe(v) for k, v in value.items()}
    raise Unsupported(type(value).__name__)


# ---------------------------------------------------------------- docstrings


def parameter_docs(doc):
    """Per-parameter descriptions from Google, NumPy or reST docstrings."""
    found = {}
    for match in re.finditer(r":param\s+(?:[\w\[\], .]+\s+)?(\w+):\s*(.+)", doc):
        found.setdefault(match.group(1), match.group(2).strip())
    section = re.search(
        r"\n\s*(Args|Arguments|Parameters)\s*:?\s*\n(?:\s*-+\s*\n)?(.*?)(\n\s*\n\S|\Z)",
        "\n" + doc,
        re.S,
    )
    if section:
        for match in re.finditer(
            r"^\s*\*{0,2}(\w+)\s*(?:\(([^)]*)\)|:\s*[^\n]*?)?\s*:\s*(.+)$", section.group(2), re.M
        ):
            found.setdefault(match.group(1), match.group(3).strip())
    return found


def summary_of(doc):
    first = doc.strip().split("\n\n", 1)[0]
    return " ".join(first.split())


# ---------------------------------------------------------------- doctest examples


def call_in(node, names):
    """(wrapper, call) when ``node`` is ``f(...)`` or ``list(f(...))`` with f in ``names``."""
    wrapper = None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in WRAPPERS
        and len(node.args) == 1
        and not node.keywords
        and node.func.id not in names
    ):
        wrapper, node = node.func.id, node.args[0]
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    if called not in names:
        return None
    return wrapper, node


def examples_for(func, names, doc, signature, exposed):
    """Literal calls of ``func`` in its doctests, bound to parameter names."""
    found = []
    try:
        parsed = doctest.DocTestParser().get_examples(doc)
    except ValueError:
        return found
    for example in parsed:
        if len(found) >= MAX_EXAMPLES:
            break
        try:
            tree = ast.parse(example.source.strip(), mode="eval")
        except SyntaxError:
            continue
        match = call_in(tree.body, names)
        if match is None:
            continue
        wrapper, call = match
        try:
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
            if any(k.arg is None for k in call.keywords):
                continue
            bound = signature.bind(*args, **kwargs)
            arguments = {k: json_safe(v) for k, v in bound.arguments.items()}
        except (ValueError, TypeError, SyntaxError, Unsupported, RecursionError):
            continue
        if not set(arguments) <= exposed:
            continue
        item = {
            "arguments": arguments,
            "wrapper": wrapper,
            "origin": "doctest",
            "has_expected": False,
            "expected": None,
        }
        want = example.want.strip()
        if want and not example.exc_msg:
            try:
                value = ast.literal_eval(want)
                item["expected"] = json_safe(sorted(value) if wrapper == "set" else value)
                if wrapper in ("set", "frozenset"):
                    item["wrapper"] = "set"
                item["has_expected"] = True
            except (ValueError, TypeError, SyntaxError, Unsupported, RecursionError):
                pass
        if example.exc_msg:
            continue
        found.append(item)
    found.sort(key=lambda e: not e["has_expected"])
    return found


# ---------------------------------------------------------------- one callable


def describe_callable(func, public_name, module, in_all):
    target = f"{module.__name__}:{public_name}"
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return None, "no signature"
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:
        hints = {}
    doc = inspect.getdoc(func) or ""
    docs = parameter_docs(doc)
    params, hidden = [], []
    kinds = {
        inspect.Parameter.POSITIONAL_ONLY: "positional_only",
        inspect.Parameter.POSITIONAL_OR_KEYWORD: "positional_or_keyword",
        inspect.Parameter.KEYWORD_ONLY: "keyword_only",
    }
    for p in signature.parameters.values():
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            hidden.append(p.name)
            continue
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            return None, f"*{p.name} parameters are not supported yet"
        required = p.default is inspect.Parameter.empty
        if keyword.iskeyword(p.name) or p.name.startswith("_"):
            if required:
                return None, f"parameter {p.name!r} cannot be named in a tool"
            hidden.append(p.name)
            continue
        annotation = hints.get(p.name, p.annotation)
        if isinstance(annotation, str):
            annotation = inspect.Parameter.empty  # unresolvable forward reference
        try:
            schema = schema_for(annotation)
            default = None if required else json_safe(p.default)
        except Unsupported as exc:
            if required:
                return None, f"parameter {p.name!r}: type {exc} has no JSON form yet"
            hidden.append(p.name)
            continue
        if not required:
            schema = dict(schema, default=default)
        if p.name in docs:
            schema["description"] = docs[p.name]
        params.append(
            {
                "name": p.name,
                "kind": kinds[p.kind],
                "json_schema": schema,
                "required": required,
                "default": default,
                "description": docs.get(p.name),
            }
        )
    exposed = {p["name"] for p in params}
    names = {public_name, func.__name__}
    return {
        "target": target,
        "name": public_name,
        "signature": f"{public_name}{signature}",
        "parameters": params,
        "hidden_parameters": hidden,
        "doc": doc,
        "summary": summary_of(doc),
        "examples": examples_for(func, names, doc, signature, exposed),
        "in_all": in_all,
        "top_level": "." not in module.__name__,
    }, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    parser.add_argument("--distribution")
    parser.add_argument("--path")
    options = parser.parse_args()
    if options.path:
        sys.path.insert(0, options.path)
    warnings.simplefilter("ignore")
    packages = top_level_modules(options.distribution, options.path)
    candidates, skipped, seen = [], [], {}
    for package_name in packages:
        for module in walk_modules(package_name, skipped):
            for name, func, in_all in public_functions(module, package_name):
                key = id(func)
                target = f"{module.__name__}:{name}"
                if key in seen:
                    continue  # an alias: the first (shallowest) public path wins
                seen[key] = target
                try:
                    described, reason = describe_callable(func, name, module, in_all)
                except Exception as exc:
                    described, reason = None, f"probe error: {describe(exc)}"
                if described is None:
                    skipped.append({"target": target, "reason": reason})
                else:
                    candidates.append(described)
    with open(options.output, "w", encoding="utf-8") as handle:
        json.dump({"packages": packages, "candidates": candidates, "skipped": skipped}, handle)


if __name__ == "__main__":
    main()
