"""A scripted OpenAI-compatible chat server on 127.0.0.1, for testing the LLM client and policy.

Real HTTP, so the tests exercise httpx, timeouts, status codes and dropped connections. Each
POST /v1/chat/completions takes the next step of the script:

- a ``dict``: a JSON object the "model" produces (as message content, or as a tool call
  when the request asked for tools), with a usage block;
- a ``str``: raw message content (for malformed replies);
- ``reply(obj_or_text, usage=..., with_usage=...)``, ``http_error(status, body, headers)``,
  ``delay(seconds, then)``, ``die()``;
- a server that hangs: ``hang()`` (takes the request, never answers), ``headers_then_hang()``
  (sends the status line and headers, then nothing), ``trickle(step, interval)`` (sends the
  reply one byte per ``interval`` seconds); each holds its connection open until the server
  stops, and ``stalls`` counts the requests that reached the hanging part;
- a callable ``f(request_json) -> step`` for replies that depend on the request.

GET /v1/models lists ``listed_models`` (default: the one model), unless ``models_steps`` holds
steps: then each GET takes the next one (``hang()``, ``http_error(404)`` …).

Every request is recorded (body, headers, arrival time) so tests can assert on prompts,
temperature and response_format. ``reject`` lists structured-output modes the server answers
with HTTP 400 without consuming a step, like servers that lack json_schema or tools.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import pytest

DEFAULT_MODEL = "scripted-model"


@dataclass
class Reply:
    """One scripted response. ``content`` may be a JSON-able object or raw text."""

    content: Any = None
    status: int = 200
    body: Any = None  # a full response body (dict → JSON, str → text); overrides content
    headers: dict[str, str] = field(default_factory=dict)
    usage: tuple[int, int] | None = None  # (prompt, completion); None → derived from sizes
    with_usage: bool = True
    delay: float = 0.0
    die: bool = False
    then: Reply | None = None  # after a delay
    hang: str = ""  # "" | "before_headers" | "after_headers" | "trickle"
    trickle_interval: float = 0.0


Step = Reply | dict[str, Any] | str | Callable[[dict[str, Any]], Any]


def reply(content: Any, usage: tuple[int, int] | None = None, *, with_usage: bool = True) -> Reply:
    return Reply(content=content, usage=usage, with_usage=with_usage)


def http_error(status: int, body: Any = None, headers: dict[str, str] | None = None) -> Reply:
    if body is None:
        body = {"error": {"message": f"scripted error {status}", "type": "server_error"}}
    return Reply(status=status, body=body, headers=dict(headers or {}))


def delay(seconds: float, then: Step | None = None) -> Reply:
    """Wait before answering (longer than the client's timeout → the client times out)."""
    return Reply(delay=seconds, then=_as_reply(then, {}) if then is not None else None)


def die() -> Reply:
    """Shut the whole server down without answering this request."""
    return Reply(die=True)


def hang() -> Reply:
    """Accept the request and never answer (until the server stops)."""
    return Reply(hang="before_headers")


def headers_then_hang() -> Reply:
    """Send "200 OK" and headers promising a body, then nothing."""
    return Reply(hang="after_headers")


def trickle(then: Step | None = None, interval: float = 0.5) -> Reply:
    """Send the reply (``then``, default a short note) one byte every ``interval`` seconds."""
    inner = _as_reply(then, {}) if then is not None else Reply(content={"note": "slow reply"})
    return Reply(content=inner.content, usage=inner.usage, with_usage=inner.with_usage,
                 hang="trickle", trickle_interval=interval)  # fmt: skip


def _as_reply(step: Step, request: dict[str, Any]) -> Reply:
    if isinstance(step, Reply):
        return step
    if isinstance(step, dict | str):
        return Reply(content=step)
    return _as_reply(step(request), request)


REJECTION_MESSAGES = {
    "json_schema": "response_format type 'json_schema' is not supported by this server",
    "tools": "tools are not supported for this model",
    "json_object_schema": "response_format: unknown field 'schema'",
    "json_object": "response_format type 'json_object' is not supported",
}


def request_mode(body: dict[str, Any]) -> str:
    """Which structured-output mode a chat request used."""
    if body.get("tools"):
        return "tools"
    rf = body.get("response_format")
    if isinstance(rf, dict) and rf.get("type") == "json_object" and "schema" in rf:
        return "json_object_schema"  # llama.cpp's grammar-constrained JSON
    if isinstance(rf, dict) and rf.get("type") in ("json_schema", "json_object"):
        return str(rf["type"])
    return "text"


class ScriptedServer:
    """An OpenAI-compatible server whose replies come from a script."""

    def __init__(
        self, script: Iterable[Step] = (), *, model: str = DEFAULT_MODEL, reject: Iterable[str] = ()
    ) -> None:
        self.model = model
        self.reject: set[str] = set(reject)
        self.requests: list[dict[str, Any]] = []  # chat request bodies, in arrival order
        self.headers: list[dict[str, str]] = []
        self.arrivals: list[float] = []  # time.monotonic() of each chat request
        self.modes: list[str] = []
        self.usage_sent: list[tuple[int, int]] = []
        self.unexpected: list[str] = []  # requests that found the script empty
        self.stalls = 0  # requests that reached a hang / trickle step
        self.listed_models: list[str] = [model]
        self.models_steps: list[Step] = []  # when set, GET /v1/models takes these first
        self.proxied: list[str] = []  # absolute URLs of requests that came as to a proxy
        self._script: list[Step] = list(script)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    # --- control -------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def set_script(self, steps: Iterable[Step]) -> None:
        with self._lock:
            self._script = list(steps)

    def add(self, *steps: Step) -> None:
        with self._lock:
            self._script.extend(steps)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def chat_prompts(self) -> list[str]:
        """The user message of every chat request (the state the policy sent)."""
        out = []
        for body in self.requests:
            users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
            out.append(users[-1] if users else "")
        return out

    def start(self) -> ScriptedServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        # Not a daemon: the suite's leak check must notice a server nobody stopped.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="scripted-llm-server"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket; idempotent, also after a ``die`` step."""
        self._stop.set()
        with self._lock:
            if self._closed:
                httpd = None
            else:
                self._closed = True
                httpd = self._httpd
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- request handling (handler threads) ----------------------------------------------------

    def _next(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            step = self._script.pop(0) if self._script else None
        if step is None:
            self.unexpected.append(json.dumps(request)[:200])
            return http_error(400, {"error": {"message": "the test script is exhausted"}})
        return _as_reply(step, request)

    def _kill_from_handler(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            httpd = self._httpd
        assert httpd is not None
        httpd.shutdown()  # safe here: handlers run in their own threads, not serve_forever's
        httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedServer
    protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers after a test

    def parse_request(self) -> bool:
        ok = super().parse_request()
        if ok and self.path.startswith(("http://", "https://")):
            # A client using this server as its HTTP proxy sends the absolute URL: record it
            # and serve the path, so tests can stand a proxy in front of the "model".
            self.owner.proxied.append(self.path)
            self.path = urlsplit(self.path).path or "/"
        return ok

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/") != "/v1/models":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        owner = self.owner
        listing = {"object": "list", "data": [{"id": m, "object": "model"} for m in owner.listed_models]}
        with owner._lock:
            step = _as_reply(owner.models_steps.pop(0), {}) if owner.models_steps else None
        if step is None:
            self._send(200, listing)
            return
        if step.delay and owner._stop.wait(step.delay):
            return
        if step.hang:
            self._hang(step, json.dumps(listing).encode())
        elif step.status != 200 or step.body is not None:
            self._send(step.status, step.body, step.headers)
        else:
            self._send(200, listing)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"error": {"message": "body is not JSON"}})
            return
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        owner = self.owner
        mode = request_mode(body)
        with owner._lock:
            owner.requests.append(body)
            owner.headers.append({k.lower(): v for k, v in self.headers.items()})
            owner.arrivals.append(time.monotonic())
            owner.modes.append(mode)
        if mode in owner.reject:
            self._send(400, {"error": {"message": REJECTION_MESSAGES[mode], "type": "invalid_request_error"}})
            return
        step = owner._next(body)
        if step.delay:
            if owner._stop.wait(step.delay):
                return
            step = step.then or Reply(content={"note": "late reply"})
        if step.die:
            owner._kill_from_handler()
            self.close_connection = True
            return  # no response at all: the client sees the connection drop
        if step.hang:
            self._hang(step, json.dumps(self._completion(body, mode, step)).encode())
            return
        if step.status != 200 or step.body is not None:
            self._send(step.status, step.body, step.headers)
            return
        self._send(200, self._completion(body, mode, step), step.headers)

    def _completion(self, request: dict[str, Any], mode: str, step: Reply) -> dict[str, Any]:
        content = step.content
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if mode == "tools" and not isinstance(content, str):
            name = request["tools"][0]["function"]["name"]
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}
                ],
            }
        out: dict[str, Any] = {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model") or self.owner.model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }
        if step.with_usage:
            prompt, completion = step.usage or (
                len(json.dumps(request.get("messages", []))) // 4,
                max(1, len(text) // 4),
            )
            out["usage"] = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
            with self.owner._lock:
                self.owner.usage_sent.append((prompt, completion))
        return out

    def _hang(self, step: Reply, data: bytes) -> None:
        """Hold the connection: before or after the headers, or trickling ``data``."""
        owner = self.owner
        try:
            if step.hang != "before_headers":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.flush()
            with owner._lock:
                owner.stalls += 1
            if step.hang == "trickle":
                for i in range(len(data)):
                    if owner._stop.wait(step.trickle_interval):
                        return
                    self.wfile.write(data[i : i + 1])
                    self.wfile.flush()
                return
            owner._stop.wait()
        except OSError:
            pass  # the client gave up and closed the connection: that is the point
        self.close_connection = True

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = (
            body
            if isinstance(body, bytes)
            else (body if isinstance(body, str) else json.dumps(body)).encode()
        )
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up (timed out) before the reply; that is what some tests want


@pytest.fixture
def scripted_llm() -> Iterator[ScriptedServer]:
    """A started ScriptedServer; give it a script with ``set_script`` / ``add``. Stopped at teardown."""
    server = ScriptedServer().start()
    try:
        yield server
    finally:
        server.stop()
