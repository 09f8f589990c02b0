"""The missing-module repair at the import probe: the same install the validation rounds
make for ``No module named X`` (catalogue.py), made before analysis gives up.

A package that imports a distribution it never declares fails at its first import, long
before any tool is called. Its modules' distributions are installed into the environment
(through the sandbox and the install proxy, dependencies.py) and the probe runs once more.
"""

from __future__ import annotations

import logging

from metaserver.agents.analysis import Installer
from metaserver.agents.conversion import Draft
from metaserver.agents.environment.dependencies import add_packages, is_requirement
from metaserver.agents.environment.distributions import distribution_of
from metaserver.exceptions import MetaServerError

logger = logging.getLogger(__name__)


def probe_installer(draft: Draft) -> Installer:
    """What the analysis calls with the missing modules: installs their distributions once."""
    done: set[str] = set()

    async def install(modules: list[str]) -> bool:
        packages = sorted({distribution_of(m) for m in modules} - done)
        packages = [p for p in packages if is_requirement(p)]
        if not packages:
            return False
        done.update(packages)
        logger.info("analysis: installing undeclared %s, then probing again", ", ".join(packages))
        try:
            await add_packages(
                draft.environment,
                packages,
                draft.settings,
                draft.sandbox,
                max_download_mb=draft.settings.repair_install_max_mb,
            )
        except MetaServerError as exc:
            logger.warning("analysis: %s", exc)  # the probe's own import error stands
            return False
        if draft.report.environment is not None:
            draft.report.environment.added += packages
        return True

    return install
