"""An OpenAI-compatible ``/v1/embeddings`` server on 127.0.0.1 serving deterministic vectors.

Real HTTP, for the endpoint embedder's tests and its benchmark. Each text's vector is drawn
from a generator seeded by the text's hash (the same text always gets the same vector, and it
is not normalised: the client must do that). ``fail`` holds steps taken one per request before
normal service resumes: an HTTP status (``int``), ``"garbage"`` (a body without vectors),
``"short"`` (one vector too few), ``("sleep", seconds)`` or ``"drop"`` (close without a reply).
Every request body and its headers are recorded. ``embed`` (texts → vectors) replaces the
deterministic vectors with a real engine's (the benchmark puts llama.cpp behind it).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest


def vector_for(text: str, dim: int) -> list[float]:
    seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
    return [float(x) for x in np.random.default_rng(seed).standard_normal(dim) * 3.0]


class EmbeddingsServer:
    def __init__(self, dim: int = 384, embed: Callable[[list[str]], list[list[float]]] | None = None) -> None:
        self.dim = dim
        self.embed = embed
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.fail: list[Any] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> EmbeddingsServer:
        owner = self

        class Handler(_Handler):
            server_owner = owner

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="embeddings-server"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> EmbeddingsServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _Handler(BaseHTTPRequestHandler):
    server_owner: EmbeddingsServer
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        owner = self.server_owner
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.rstrip("/") != "/v1/embeddings":
            self._send(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"error": {"message": "body is not JSON"}})
            return
        with owner._lock:
            owner.requests.append(body)
            owner.headers.append({k.lower(): v for k, v in self.headers.items()})
            step = owner.fail.pop(0) if owner.fail else None
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else list(inputs)
        if isinstance(step, tuple) and step[0] == "sleep":
            if owner._stop.wait(step[1]):
                return
            step = None
        if step == "drop":
            self.close_connection = True
            return
        if isinstance(step, int):
            self._send(step, {"error": {"message": f"scripted failure {step}", "type": "server_error"}})
            return
        if step == "garbage":
            self._send(200, {"object": "list", "nothing": True})
            return
        if step == "short":
            inputs = inputs[:-1]
        vectors = owner.embed(inputs) if owner.embed is not None else [vector_for(t, owner.dim) for t in inputs]
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
        data.reverse()  # servers need not answer in order: the client sorts by index
        self._send(200, {"object": "list", "data": data, "model": body.get("model", ""),
                         "usage": {"prompt_tokens": 0, "total_tokens": 0}})  # fmt: skip

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass


@pytest.fixture
def embeddings_server() -> Iterator[EmbeddingsServer]:
    server = EmbeddingsServer().start()
    try:
        yield server
    finally:
        server.stop()


