"""Errors of the model layer, in the manner of httpx::

    MetaServerError
    ├── UserError
    │   └── ModelConfigError      a model is misconfigured, or its optional extra is missing
    └── ModelError                a model gave no usable answer (never fails a conversion)
        ├── ModelAPIError         transport failure or an HTTP error status, after retries
        │   └── ModelTimeout      no answer within the per-call timeout
        ├── ModelOutputError      an answer that is not the JSON that was asked for
        └── ModelSkipped          not sent: its least answer cannot arrive in the time left

A :class:`ModelError` is "their failure": agents catch it, count it, and go on with the
deterministic result. A :class:`ModelConfigError` is "your mistake" and is raised to the user.
"""

from __future__ import annotations

from metaserver.exceptions import MetaServerError, UserError


class ModelConfigError(UserError):
    """The model settings are wrong, or the backend's extra is not installed."""


class ModelError(MetaServerError):
    """A model call gave no usable answer.

    Attributes:
        model_name: the model that was asked.
        tokens_in: prompt tokens the failed call still cost (0 when unknown).
        tokens_out: completion tokens the failed call still cost.
    """

    def __init__(self, model_name: str, message: str) -> None:
        super().__init__(f"{model_name}: {message}")
        self.model_name = model_name
        self.tokens_in = 0
        self.tokens_out = 0


class ModelAPIError(ModelError):
    """The server could not be reached or answered with an error status."""

    def __init__(
        self,
        model_name: str,
        message: str,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(model_name, message)
        self.status = status
        self.retry_after = retry_after


class ModelTimeout(ModelAPIError):
    """No complete answer arrived within the per-call timeout."""


class ModelOutputError(ModelError):
    """The answer was not valid JSON, not an object, or was cut off."""


class ModelSkipped(ModelError):
    """The request was not sent: at the server's measured speed, the least answer worth
    having could not arrive before the conversion's model time runs out. Not a failure of
    the model; the deterministic result stays, as for any :class:`ModelError`."""
