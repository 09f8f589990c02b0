"""Probe helper (runs INSIDE the target environment; standard library only, and pandas when
the package imported it): pandas tables in a parameter's docstring words and in a session's
lines.

A data library's docs say "data : DataFrame" and build the table from literals on the page
(``data = pd.DataFrame({'v_mp': 8, 'i_mp': 5}, index=[0])``, then
``system.scale(data)``). The parameter takes the dataframe (or series) codec, as it would
annotated; the page's table, built here by pandas from those literals, is that codec's
JSON form (``{"columns", "data", "index"}``, runtime/decode.py) and an argument like any
literal. A table whose cells or labels have no JSON form (timestamps) is no literal.
"""

import ast
import re
import sys

from .docstrings import first_type
from .json_values import Unsupported, json_safe

__all__ = ["documented_frame", "frame_literal"]

TABLES = ("DataFrame", "Series")
# "DataFrame", "pandas.DataFrame", "pd.Series", "DataFrame with columns ...": the class's own
# spelling only ("a time series" is no type).
_FRAME_TYPE = re.compile(r"(?:(?:pandas|pd)\.)?(DataFrame|Series)(?:\s+(?:of|with)\b.*)?")


def documented_frame(text):
    """``pandas.DataFrame`` or ``pandas.Series`` when a parameter's docstring type names one
    first of its alternatives ("DataFrame or tuple of DataFrame"); only when the package
    has imported pandas itself."""
    pandas = sys.modules.get("pandas")
    first = first_type(text)
    match = _FRAME_TYPE.fullmatch(first) if pandas is not None and first else None
    return getattr(pandas, match.group(1), None) if match else None


def frame_literal(node, namespace):
    """The codec's JSON form of ``pd.DataFrame(...)`` or ``pd.Series(...)`` called with
    literals only, as a literal node; None for any other node."""
    table = _table_class(node, namespace)
    if table is None:
        return None
    try:
        args = [ast.literal_eval(a) for a in node.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
        if None in kwargs:
            return None  # ``**options``
        value = table(*args, **kwargs)
        if table.__name__ == "DataFrame":
            form = value.to_dict(orient="split")
        else:
            form = {"data": value.tolist(), "index": value.index.tolist(), "name": value.name}
        form = json_safe(form)
    except Unsupported:  # a cell or label with no JSON form
        return None
    except Exception:  # not literals, or pandas refused them: no table
        return None
    return ast.parse(repr(form), mode="eval").body


def _table_class(node, namespace):
    """pandas's DataFrame or Series when ``node`` calls one (``pd.DataFrame``, or the name
    a ``from pandas import DataFrame`` bound); else None."""
    if not isinstance(node, ast.Call):
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr in TABLES and isinstance(func.value, ast.Name):
        module = namespace.get(func.value.id)
        found = getattr(module, func.attr, None) if _is_pandas(module) else None
    elif isinstance(func, ast.Name):
        found = namespace.get(func.id)
    else:
        return None
    if getattr(found, "__name__", None) not in TABLES:
        return None
    return found if _is_pandas(sys.modules.get(getattr(found, "__module__", "") or "")) else None


def _is_pandas(module):
    return (getattr(module, "__name__", "") or "").partition(".")[0] == "pandas"
