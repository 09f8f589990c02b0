"""A scripted OpenAI-compatible chat server on 127.0.0.1, for tests and the benchmark.

It is real HTTP in a thread of its own, so the real client (httpx, retries, timeouts) talks
to it exactly as to vLLM. It records every request and answers through a *responder*: a
function from the request body to a :class:`Reply` (an answer, malformed JSON, a delay, an
error status). ``sensible`` answers every metaserver agent schema plausibly.

    with ScriptedLLM(sensible()) as server:
        settings.llm.base_url = server.url
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

JSON = Any


@dataclass
class Reply:
    """One scripted answer.

    Attributes:
        content: the assistant message's text (``None``: a null content).
        status: the HTTP status; anything but 200 sends ``{"error": {...}}``.
        delay: seconds to wait before answering.
        raw: a whole response body to send instead of a chat completion.
        finish_reason: "stop", or "length" for an answer cut off.
        headers: extra response headers (such as Retry-After).
        timings: llama-server's own timing of the answer (set by a server with a ``speed``).
    """

    content: str | None = "{}"
    status: int = 200
    delay: float = 0.0
    raw: str | None = None
    finish_reason: str = "stop"
    headers: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] | None = None


Responder = Callable[[dict[str, JSON]], Reply]


def answer(data: JSON, delay: float = 0.0) -> Reply:
    """A well-formed answer whose content is ``data`` as JSON."""
    return Reply(content=json.dumps(data), delay=delay)


def schema_name(request: dict[str, JSON]) -> str:
    """The ``response_format`` schema name a request asked for ("" when none)."""
    try:
        return str(request["response_format"]["json_schema"]["name"])
    except (KeyError, TypeError):
        return ""


def schema_of(request: dict[str, JSON]) -> dict[str, JSON]:
    return dict(request["response_format"]["json_schema"]["schema"])


class ScriptedLLM:
    """The server. Use as a context manager; ``url`` is the OpenAI base URL (…/v1).

    Like a real server it may have a bounded number of ``slots`` (requests past them queue
    inside the server, their wait counting against the client's timeout) and a ``context``
    (a prompt over it is refused with HTTP 400, an answer is cut where prompt and answer
    fill it). ``reports`` says how it tells them: "llama" (``GET /props``, as llama-server),
    "vllm" (``max_model_len`` in ``GET /v1/models``) or "none". With a ``speed`` (prompt and
    generated tokens a second) each answer takes the time a model of that speed takes, on top
    of the responder's delay, and carries llama-server's ``timings`` of it (unless ``reports``
    is "vllm" or "none", whose servers give none).
    """

    def __init__(
        self,
        responder: Responder | None = None,
        *,
        slots: int | None = None,
        context: int | None = None,
        reports: str = "llama",
        speed: tuple[float, float] | None = None,
    ) -> None:
        self.responder: Responder = responder or sensible()
        self.requests: list[dict[str, JSON]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.arrived = 0  # requests received and not yet answered, queued ones included
        self.max_arrived = 0
        self.slots, self.context, self.reports = slots, context, reports
        self.speed = speed
        self._slot = threading.Semaphore(slots) if slots else None
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def calls(self, name: str) -> list[dict[str, JSON]]:
        """The recorded requests for the schema ``name``."""
        return [r for r in self.requests if schema_name(r) == name]

    def __enter__(self) -> ScriptedLLM:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _respond(self, request: dict[str, JSON]) -> Reply:
        with self._lock:
            self.requests.append(request)
            self.arrived += 1
            self.max_arrived = max(self.max_arrived, self.arrived)
        try:
            if self._slot is None:
                return self._generate(request)
            with self._slot:  # past the slots, a request waits here, as in a real server
                return self._generate(request)
        finally:
            with self._lock:
                self.arrived -= 1

    def _generate(self, request: dict[str, JSON]) -> Reply:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            prompt = prompt_tokens(request)
            if self.context is not None and prompt > self.context:
                message = "the request exceeds the available context size"
                return Reply(status=400, raw=json.dumps({"error": {"message": message}}))
            reply = self.responder(request)
            if reply.delay:
                time.sleep(reply.delay)
            return self._timed(self._fitted(request, reply, prompt), prompt)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _fitted(self, request: dict[str, JSON], reply: Reply, prompt: int) -> Reply:
        """The reply cut where the answer's tokens run out (max_tokens, or the context)."""
        if reply.content is None or reply.status != 200 or reply.raw is not None:
            return reply
        room = int(request.get("max_tokens") or 1 << 30)
        if self.context is not None:
            room = min(room, self.context - prompt)
        if len(reply.content) // 4 + 1 <= room:
            return reply
        cut = reply.content[: max(room - 1, 0) * 4]
        return Reply(content=cut, finish_reason="length", headers=reply.headers)

    def _timed(self, reply: Reply, prompt: int) -> Reply:
        """The reply after the time a model of ``speed`` takes for it, with its timings."""
        if self.speed is None or reply.content is None or reply.status != 200:
            return reply
        reading, writing = self.speed
        written = len(reply.content) // 4 + 1
        time.sleep(prompt / reading + written / writing)
        if self.reports != "llama":
            return reply
        timings = {
            "prompt_n": prompt,
            "prompt_ms": 1000 * prompt / reading,
            "predicted_n": written,
            "predicted_ms": 1000 * written / writing,
        }
        return Reply(
            content=reply.content,
            finish_reason=reply.finish_reason,
            headers=reply.headers,
            timings=timings,
        )

    def profile(self, path: str) -> JSON | None:
        """What GET ``path`` answers of the server itself; None for a 404."""
        if path.endswith("/models"):
            entry: dict[str, JSON] = {"id": "scripted"}
            if self.reports == "vllm" and self.context:
                entry["max_model_len"] = self.context
            return {"data": [entry]}
        if path == "/props" and self.reports == "llama" and (self.slots or self.context):
            props: dict[str, JSON] = {"default_generation_settings": {}}
            if self.slots:
                props["total_slots"] = self.slots
            if self.context:
                props["default_generation_settings"] = {"n_ctx": self.context}
            return props
        return None


def _handler(server: ScriptedLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            pass

        def do_GET(self) -> None:  # /v1/models (health checks), /props (llama-server)
            found = server.profile(self.path)
            if found is None:
                self._send(404, json.dumps({"error": {"message": "not found"}}), {})
            else:
                self._send(200, json.dumps(found), {})

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            server.headers.append(dict(self.headers))
            reply = server._respond(request)
            if reply.raw is not None:
                self._send(reply.status, reply.raw, reply.headers)
            elif reply.status != 200:
                body = {"error": {"message": f"scripted {reply.status}", "code": reply.status}}
                self._send(reply.status, json.dumps(body), reply.headers)
            else:
                self._send(200, json.dumps(_completion(request, reply)), reply.headers)

        def _send(self, status: int, body: str, headers: dict[str, str]) -> None:
            data = body.encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (its timeout): nothing to do

    return Handler


def prompt_tokens(request: dict[str, JSON]) -> int:
    """The prompt's tokens as this server counts them: about four characters a token."""
    return sum(len(str(m.get("content", ""))) for m in request.get("messages", [])) // 4 + 1


def _completion(request: dict[str, JSON], reply: Reply) -> dict[str, JSON]:
    timed = {"timings": reply.timings} if reply.timings is not None else {}
    return {
        **timed,
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "model": request.get("model", "scripted"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": reply.finish_reason,
            }
        ],
        # About four characters a token, which is near enough for accounting tests.
        "usage": {
            "prompt_tokens": prompt_tokens(request),
            "completion_tokens": len(reply.content or "") // 4 + 1,
        },
    }


# --- Responders ---------------------------------------------------------------------------


def sensible(
    renames: dict[str, str] | None = None,
    descriptions: dict[str, str] | None = None,
    delay: float = 0.0,
    picks: list[str] | None = None,
) -> Responder:
    """Plausible answers to every agent schema, read off the schema itself.

    Args:
        renames: function name -> new tool name (others keep their name).
        descriptions: function name -> description (others get a generic one).
        delay: seconds each answer takes (a model's generation time).
        picks: function names to select; unset selects the last-ranked targets offered.
    """
    renames, descriptions = renames or {}, descriptions or {}

    def respond(request: dict[str, JSON]) -> Reply:
        name = schema_name(request)
        schema = schema_of(request) if name else {}
        if name == "tool_selection":
            targets = schema["properties"]["targets"]
            offered: list[str] = targets["items"]["enum"]
            if picks is not None:
                chosen = [t for p in picks for t in offered if t.rsplit(":", 1)[-1] == p]
            else:  # the last-ranked first: a selection that visibly differs from the design's
                chosen = offered[::-1]
            return answer({"targets": chosen[: targets["maxItems"]]}, delay)
        if name == "tool_descriptions":
            tools = []
            for target in schema["properties"]["tools"]["items"]["properties"]["target"]["enum"]:
                function = target.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
                tools.append(
                    {
                        "target": target,
                        "name": renames.get(function, function),
                        "description": descriptions.get(
                            function, f"Calls {function} and returns its result."
                        ),
                    }
                )
            return answer({"tools": tools}, delay)
        if name == "tool_example":
            arguments = schema["properties"]["arguments"]
            return answer({"arguments": instance(arguments)}, delay)
        if name == "tool_requests":
            tools = []
            for target in schema["properties"]["tools"]["items"]["properties"]["target"]["enum"]:
                function = target.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
                tools.append({"target": target, "requests": [f"please {function} my values"]})
            return answer({"tools": tools}, delay)
        if name == "tool_diagnosis":
            return answer(
                {
                    "kind": "drop",
                    "reason": "needs a live object",
                    "arguments": None,
                    "requirement": None,
                    "timeout_seconds": None,
                },
                delay,
            )
        return answer({}, delay)

    return respond


def instance(schema: dict[str, JSON]) -> JSON:
    """A small value that fits a simple JSON schema (what a model would write)."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return instance(schema["anyOf"][0])
    kind = schema.get("type")
    if kind == "object":
        required = schema.get("required", [])
        return {k: instance(v) for k, v in schema.get("properties", {}).items() if k in required}
    if kind == "array":
        return [instance(schema.get("items", {"type": "integer"})) for _ in range(2)]
    simple = {"integer": 3, "number": 2.5, "string": "hello", "boolean": False, "null": None}
    return simple.get(str(kind), 1)


def garbage() -> Responder:
    """Answers that are not JSON at all."""
    return lambda request: Reply(content="Sure! Here are some great tools: {oops")


def nonsense() -> Responder:
    """Well-formed JSON of the wrong shape and values (the model ignored the schema)."""

    def respond(request: dict[str, JSON]) -> Reply:
        return answer(
            {
                "targets": ["os:system", 42],
                "tools": [{"target": "nope:nothing", "name": "bad name!", "description": ""}],
                "arguments": {"unknown": object.__name__},
                "kind": "rewrite_server",
            }
        )

    return respond


def failing(status: int = 500) -> Responder:
    """Every answer an HTTP error."""
    return lambda request: Reply(status=status)


def slow(seconds: float) -> Responder:
    """Sensible answers, each after ``seconds``."""
    return sensible(delay=seconds)


def in_turn(*replies: Reply) -> Responder:
    """The given replies, one per request, in order; then the last one again."""
    queue = list(replies)
    return lambda request: queue.pop(0) if len(queue) > 1 else queue[0]


def by_schema(responders: dict[str, Responder], default: Responder | None = None) -> Responder:
    """Dispatch on the requested schema name: a different behaviour per agent."""
    fallback = default or sensible()
    return lambda request: responders.get(schema_name(request), fallback)(request)


# --- Data for agent tests -----------------------------------------------------------------


def llm_settings(url: str, **overrides: Any) -> Any:
    """LLMSettings pointed at ``url``, with fast retries for tests."""
    from metaserver.settings import LLMSettings

    values: dict[str, Any] = {
        "base_url": url,
        "model": "scripted",
        "retries": 1,
        "retry_backoff": 0.0,
        "timeout": 2.0,
    }
    values.update(overrides)
    return LLMSettings(**values)


def sample_report(extra: int = 0) -> Any:
    """A CodeReport of four documented functions (two doctested) and ``extra`` plain ones."""
    from metaserver.contracts import Candidate, CodeReport, Example, Parameter

    def param(name: str, schema: dict[str, JSON]) -> Parameter:
        return Parameter(name=name, kind="positional_or_keyword", json_schema=schema)

    doctest = [Example(arguments={"a": 2, "b": 3}, expected=5, has_expected=True)]
    candidates = [
        Candidate(
            target="pkg:add",
            name="add",
            signature="(a: int, b: int) -> int",
            parameters=[param("a", {"type": "integer"}), param("b", {"type": "integer"})],
            doc="Add two integers.",
            summary="Add two integers.",
            examples=doctest,
            in_all=True,
        ),
        Candidate(
            target="pkg:mean",
            name="mean",
            signature="(values: list[float]) -> float",
            parameters=[param("values", {"type": "array", "items": {"type": "number"}})],
            doc="The arithmetic mean of some numbers.",
            summary="The arithmetic mean of some numbers.",
            examples=[Example(arguments={"values": [1.0, 3.0]}, expected=2.0, has_expected=True)],
            in_all=True,
        ),
        Candidate(
            target="pkg:shout",
            name="shout",
            signature="(text: str) -> str",
            parameters=[param("text", {"type": "string"})],
            doc="Upper-case text.",
            summary="Upper-case text.",
            in_all=True,
        ),
        Candidate(
            target="pkg:ping",
            name="ping",
            signature="() -> str",
            parameters=[],
            doc="Say pong.",
            summary="Say pong.",
        ),
    ]
    for i in range(extra):
        candidates.append(
            Candidate(
                target=f"pkg.more:helper_{i:03d}",
                name=f"helper_{i:03d}",
                signature="(n: int) -> int",
                parameters=[param("n", {"type": "integer"})],
                summary=f"Helper number {i}.",
            )
        )
    return CodeReport(packages=["pkg"], candidates=candidates)


def failed_add() -> tuple[Any, Any]:
    """``sample_report``'s ``add`` tool and a failure the model is asked to diagnose: the
    spec and its ``repo_internal_bug`` evidence."""
    from metaserver.agents.design.specs import design
    from metaserver.contracts import Evidence, ToolEvidence

    spec = design(sample_report(), 12)[0]  # pkg:add(a: int, b: int)
    failed = ToolEvidence(
        name=spec.name,
        target=spec.target,
        status="failed",
        evidence=Evidence(arguments={"a": 2, "b": 2}),
        error="ZeroDivisionError: division by zero",
        failure_type="repo_internal_bug",
    )
    return spec, failed
