"""The probe's entry: ``python -I <this folder>/__main__.py --output FILE ...``, run INSIDE
the target environment (standard library only; see script.py for the options).

It loads this folder as a package under a private name (``metaserver_probe``) and calls
its ``main``; nothing is put on ``sys.path`` (``-I`` keeps the script's folder off it), so
a target package named like one of these modules (``members``, ``text``) is the target's,
and the probe's modules are never shadowed by the target's either.
"""

import importlib
import importlib.util
import os
import sys
import time

STARTED = time.monotonic()  # the budget counts from here: loading the probe is its time too
ALIAS = "metaserver_probe"


def load(folder):
    """The probe package in ``folder``, registered in ``sys.modules`` as ALIAS (once)."""
    if ALIAS in sys.modules:
        return sys.modules[ALIAS]
    spec = importlib.util.spec_from_file_location(
        ALIAS, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
    )
    package = importlib.util.module_from_spec(spec)
    sys.modules[ALIAS] = package
    spec.loader.exec_module(package)
    return package


if __name__ == "__main__":
    load(os.path.dirname(os.path.abspath(__file__)))
    importlib.import_module(f"{ALIAS}.script").main(STARTED)
