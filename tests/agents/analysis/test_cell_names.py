"""Names a tutorial's cells bind and read in order; a star import's names from its source."""

from __future__ import annotations

import ast
from pathlib import Path

from metaserver.agents.analysis.cell_names import Session, star_names


def test_a_module_exports_its_literal_all_else_its_public_top_level_names(
    tmp_path: Path,
) -> None:
    package = tmp_path / "src" / "starcalc"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from math import pi\n__all__ = ('grow', 'Fitter')\n")
    (package / "extra.py").write_text(
        "import math\ntry:\n    import json as codec\nexcept ImportError:\n    codec = None\n"
        "def half(x):\n    inner = x\n    return inner / 2\nclass Box:\n    size = 1\n_hidden = 1\n"
    )
    assert star_names("starcalc", tmp_path) == {"grow", "Fitter"}
    assert star_names("starcalc.extra", tmp_path) == {"math", "codec", "half", "Box"}
    # Names that cannot be known: another star import, an __all__ built by code, a module
    # the repository does not hold.
    (package / "dynamic.py").write_text("from math import *\n")
    (package / "built.py").write_text("__all__ = ['x']\n__all__ += ['y']\n")
    (package / "extended.py").write_text("__all__ = ['x']\n__all__.extend(['y'])\n")
    for module in ("starcalc.dynamic", "starcalc.built", "starcalc.extended", "numpy", "a-b"):
        assert star_names(module, tmp_path) is None, module


def test_a_session_knows_what_earlier_cells_bound(tmp_path: Path) -> None:
    (tmp_path / "starcalc.py").write_text("def grow(x):\n    return x\n")
    session = Session(tmp_path)
    cells = [
        "import numpy as np\nx = np.ones(3)\ndisplay(len(x))",
        "def later():\n    return y  # read when called\n[i for i in x]",
        "print(plt.plot(x))",
        "from starcalc import *\nz = grow(x)",
        "grow(w)",
        "from numpy import *\nv = zeros(2)",
        "anything(at, all)",
    ]
    missing = []
    for source in cells:
        tree = ast.parse(source)
        missing.append(sorted(session.missing(tree)))
        session.add(tree)
    assert missing == [[], [], ["plt"], [], ["w"], [], []]


def test_names_an_except_clause_or_a_match_pattern_binds_are_bound() -> None:
    # ``except FitError as error: print(error)`` (a gallery script's debugging block) read
    # ``error`` as unbound, and the script was skipped.
    session = Session(None)
    cells = [
        "try:\n    fit()\nexcept ValueError as error:\n    print(error)",
        "match point:\n    case [x, *rest]:\n        print(x, rest)\n"
        "    case {'k': v, **others}:\n        print(v, others)\n    case _ as whole:\n"
        "        print(whole)",
    ]
    missing = []
    for source in cells:
        tree = ast.parse(source)
        missing.append(sorted(session.missing(tree)))
        session.add(tree)
    assert missing == [["fit"], ["point"]]
