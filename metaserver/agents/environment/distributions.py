"""Import names and the distributions that provide them (usually the same name)."""

from __future__ import annotations

from packaging.utils import canonicalize_name

__all__ = ["DISTRIBUTIONS", "distribution_of", "import_names"]

# Import names whose distribution is called something else (the common cases).
DISTRIBUTIONS = {
    "yaml": "PyYAML",
    "PIL": "Pillow",
    "sklearn": "scikit-learn",
    "cv2": "opencv-python-headless",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
    "attr": "attrs",
    "Crypto": "pycryptodome",
    "skimage": "scikit-image",
    "serial": "pyserial",
    "dotenv": "python-dotenv",
    "jose": "python-jose",
    "magic": "python-magic",
    "pylab": "matplotlib",  # the MATLAB-style namespace old examples import (pykalman's)
}
_CANONICAL = {canonicalize_name(d): m for m, d in DISTRIBUTIONS.items()}


def distribution_of(module: str) -> str:
    """The distribution that provides top-level ``module`` (usually its own name)."""
    return DISTRIBUTIONS.get(module, module)


def import_names(distribution: str) -> set[str]:
    """The top-level modules ``distribution`` is likely to provide: its name as an
    identifier, and the known other name (``Pillow`` -> ``PIL``)."""
    canonical = canonicalize_name(distribution)
    names = {canonical.replace("-", "_")}
    if canonical in _CANONICAL:
        names.add(_CANONICAL[canonical])
    return names
