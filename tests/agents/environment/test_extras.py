"""Which optional extras the guides need: read from metadata and imports, nothing run."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from metaserver.agents.environment.distributions import import_names
from metaserver.agents.environment.extras import (
    choose_extras,
    declared_extras,
    extra_requirements,
)

PKG_INFO = """\
Metadata-Version: 2.1
Name: arraypack
Version: 1.0
Provides-Extra: arrays
Requires-Dist: numpy>=1.20; extra == "arrays"
Provides-Extra: plots
Requires-Dist: matplotlib; extra == "plots"
Requires-Dist: numpy; extra == "plots"
Provides-Extra: test
Requires-Dist: pytest; extra == "test"
Requires-Dist: scipy; extra == "test"
Provides-Extra: all
Requires-Dist: arraypack[arrays,plots,test]; extra == "all"

A package.
"""


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


def test_a_submodule_the_readme_imports_brings_the_smallest_extra_providing_its_import(
    tmp_path: Path,
) -> None:
    root = write(
        tmp_path,
        {
            "PKG-INFO": PKG_INFO,
            "arraypack/__init__.py": "from .core import *\n",
            "arraypack/core.py": "try:\n    import matplotlib\nexcept ImportError:\n    pass\n",
            "arraypack/arrays/__init__.py": "from .impl import *\n",
            "arraypack/arrays/impl.py": "import sys\nimport numpy\nfrom .. import core\n",
            "README.rst": ">>> from arraypack import arrays\n>>> arrays.grid(2)\n",
            "docs/guide.rst": ">>> import scipy  # only the test extra has it\n",
        },
    )
    chosen = choose_extras(root, "arraypack")
    # numpy: both "arrays" and "plots" have it; the smaller one. matplotlib is imported under
    # try (optional for the module), so "plots" is not needed; scipy only in "test".
    assert [(e.name, e.requirements) for e in chosen] == [("arrays", ["numpy>=1.20"])]
    assert chosen[0].reason == (
        "the guides import arraypack.arrays, whose arraypack/arrays/impl.py imports numpy"
    )


def test_a_direct_import_in_a_fenced_block_counts_and_lazy_imports_do_not(tmp_path: Path) -> None:
    pyproject = """\
        [project]
        name = "plotpack"
        version = "1"
        [project.optional-dependencies]
        plot = ["matplotlib>=3; python_version >= '3.9'"]
        yaml = ["PyYAML"]
        """
    readme = """\
        ```python
        import plotpack
        from PIL import Image
        import yaml
        ```
        """
    module = "def save(x):\n    import matplotlib\n    return x\n"
    root = write(
        tmp_path,
        {"pyproject.toml": pyproject, "README.md": readme, "src/plotpack/__init__.py": module},
    )
    assert [e.name for e in choose_extras(root, None)] == ["yaml"]
    # Nothing imported by the README: nothing installed.
    write(root, {"README.md": "```python\nimport plotpack\nplotpack.save(1)\n```\n"})
    assert choose_extras(root, None) == []


def test_setup_cfg_extras_are_read(tmp_path: Path) -> None:
    root = write(
        tmp_path,
        {"setup.cfg": "[options.extras_require]\nfast =\n    orjson>=3\n    ujson\n"},
    )
    assert declared_extras(root) == {"fast": ["orjson>=3", "ujson"]}


def test_the_extra_marker_goes_and_other_markers_stay() -> None:
    lines = [
        'numpy>=1.20; extra == "arrays"',
        "tomli; python_version < '3.11' and extra == 'arrays'",
        'evil @ https://example.invalid/evil.whl ; extra == "arrays"',
        '--index-url=http://x; extra == "arrays"',
    ]
    assert extra_requirements(lines, "arrays") == [
        "numpy>=1.20",
        "tomli; python_version < '3.11'",
    ]


def test_import_names_of_a_distribution() -> None:
    assert import_names("Pillow") == {"pillow", "PIL"}
    assert import_names("python-dateutil") == {"python_dateutil", "dateutil"}
    assert import_names("more-itertools") == {"more_itertools"}
    # a module a distribution ships beside its own: an example's ``import pylab``
    assert import_names("matplotlib") == {"matplotlib", "pylab"}


def test_a_module_the_plain_install_brings_needs_no_extra(tmp_path: Path) -> None:
    pyproject = """\
        [project]
        name = "basepack"
        version = "1"
        dependencies = ["numpy"]
        [project.optional-dependencies]
        gpu = ["numpy", "cupy"]
        """
    root = write(tmp_path, {"pyproject.toml": pyproject, "README.md": ">>> import numpy\n"})
    assert choose_extras(root, "basepack") == []


def test_only_the_needed_requirements_of_a_large_extra_and_no_flag_guarded_import(
    tmp_path: Path,
) -> None:
    pyproject = """\
        [project]
        name = "huepack"
        version = "1"
        [project.optional-dependencies]
        optional = ["matplotlib>=3.9", "openimageio<4,>=3", "pandas>=2", "xxhash"]
        """
    compat = (
        "try:\n    import pandas\n    HAS_PANDAS = True\nexcept ImportError:\n"
        "    HAS_PANDAS = False\n"
        "if HAS_PANDAS:\n    import pandas as pd\n"
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import xxhash\n"
    )
    root = write(
        tmp_path,
        {
            "pyproject.toml": pyproject,
            "huepack/__init__.py": "from . import compat\n",
            "huepack/compat.py": compat,
            "README.md": ">>> import huepack\n>>> import matplotlib.pyplot as plt\n",
        },
    )
    chosen = choose_extras(root, "huepack")
    assert [(e.name, e.requirements, e.reason) for e in chosen] == [
        ("optional", ["matplotlib>=3.9"], "the guides import matplotlib")
    ]


def test_an_extra_a_tutorial_imports_is_needed(tmp_path: Path) -> None:
    # Tutorials become tools: a notebook's ``import matplotlib.pyplot`` needs the plot
    # extra as a guide's would (scikit-rf's notebooks, with a README that shows no code);
    # an example script's import counts too, a shell line or a magic is no import.
    notebook = {
        "cells": [
            {"cell_type": "code", "source": ["%matplotlib inline\n", "import matplotlib.pyplot"]},
            {"cell_type": "code", "source": "!pip install scipy\nimport netpack"},
        ]
    }
    root = write(
        tmp_path,
        {
            "pyproject.toml": """\
                [project]
                name = "netpack"
                version = "1.0"
                dependencies = ["numpy"]
                [project.optional-dependencies]
                plot = ["matplotlib>=3.5"]
                xlsx = ["openpyxl>=3.0"]
                fit = ["scipy"]
                """,
            "netpack/__init__.py": "",
            "README.md": "A package.\n",
            "doc/examples/lines.ipynb": json.dumps(notebook),
            "examples/tables.py": "import netpack\nimport openpyxl\n",
        },
    )
    chosen = choose_extras(root, "netpack")
    assert [(e.name, e.requirements, e.reason) for e in chosen] == [
        ("plot", ["matplotlib>=3.5"], "the tutorials import matplotlib"),
        ("xlsx", ["openpyxl>=3.0"], "the tutorials import openpyxl"),
    ]
