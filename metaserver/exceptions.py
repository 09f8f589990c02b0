"""Every error metaserver raises on purpose.

The tree, in the manner of httpx::

    MetaServerError
    ├── UserError                 bad input or configuration (exit code 2)
    │   ├── SourceError           a SOURCE that is malformed, unsafe or does not exist
    │   └── NameTakenError        an added server's name is a registered server's already
    ├── FetchError                a valid source that could not be fetched
    ├── EnvironmentBuildError     the isolated environment could not be built
    ├── AnalysisError             the probe could not import or describe the package
    │   └── UntoolableError       it imports, but no callable can become a tool
    ├── GenerationError           server code could not be rendered
    ├── ValidationError           the generated server did not start or answer
    ├── SandboxError              the sandbox could not run a child
    │   ├── SandboxTimeout        a child ran past its wall-clock limit
    │   └── NoConfinementError    no confining backend works here (also a UserError: exit 2)
    ├── RegistryError             the registry could not be read or written
    │   └── NotFoundError         no such server or tool
    ├── ExportError               git could not make an export's patch or branch
    └── (models/errors.py)        ModelConfigError (a UserError) and ModelError, the model
                                  layer's: a model that gave no usable answer

Conversion failures carry a ``failure_type`` from the contract's taxonomy, so the pipeline can
put them into the report without guessing.
"""

from __future__ import annotations

from typing import Any, Literal

FailureType = Literal[
    "env_failure",
    "api_inference_error",
    "import_error",
    "repo_internal_bug",
    "mcp_spec_violation",
    "untoolable_repo",
    "timeout",
    "sandbox_violation",
]


class MetaServerError(Exception):
    """Base of every error metaserver raises on purpose."""

    failure_type: FailureType | None = None


class UserError(MetaServerError):
    """The caller's input or configuration is wrong; nothing was run."""


class SourceError(UserError):
    """A SOURCE is malformed, unsafe, or names something that does not exist."""


class NameTakenError(UserError):
    """``metaserver add`` was given the name of a server already registered."""


class FetchError(MetaServerError):
    """A well-formed source could not be fetched (network, git, archive)."""

    failure_type: FailureType | None = "env_failure"


class EnvironmentBuildError(MetaServerError):
    """The isolated environment for a repository could not be built."""

    failure_type: FailureType | None = "env_failure"

    def __init__(self, message: str, attempts: list[Any] | None = None) -> None:
        super().__init__(message)
        self.attempts = attempts or []


class DownloadTooLarge(EnvironmentBuildError):
    """A repair's install would download past its bound (``repair_install_max_mb``)."""


class AnalysisError(MetaServerError):
    """The package could not be imported or described inside its environment."""

    failure_type: FailureType | None = "import_error"


class UntoolableError(AnalysisError):
    """The package imports, but offers nothing that can become a tool."""

    failure_type: FailureType | None = "untoolable_repo"


class GenerationError(MetaServerError):
    """Server code could not be rendered from the tool specs."""

    failure_type: FailureType | None = "mcp_spec_violation"


class ValidationError(MetaServerError):
    """The generated server did not start, or did not answer the MCP handshake."""

    failure_type: FailureType | None = "mcp_spec_violation"


class SandboxError(MetaServerError):
    """The sandbox could not start or confine a child process."""

    failure_type: FailureType | None = "sandbox_violation"


class SandboxTimeout(SandboxError):
    """A sandboxed child ran past its wall-clock limit and was killed."""

    failure_type: FailureType | None = "timeout"


class NoConfinementError(SandboxError, UserError):
    """No confining sandbox backend works here, or the one named does not: repository code
    is not run at all. A configuration problem for the operator to fix (exit code 2)."""


class RegistryError(MetaServerError):
    """The registry could not be read or written."""


class NotFoundError(RegistryError):
    """No registered server or tool has that name."""


class ExportError(MetaServerError):
    """git could not make the patch or the branch of ``metaserver export``."""
