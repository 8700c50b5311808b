"""The embedding job: the real bundled model on a few passages, pause/cancel, resume after kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from paperpilot.core.retrieval import BundledEmbedder, Chunk, EmbeddingJob, VectorStore
from paperpilot.core.retrieval.embedder import Embedder, Vectors

CHUNKS = [
    Chunk(1, "Adults need about 0.8 grams of protein per kilogram of body weight each day.", "body"),
    Chunk(2, "The Eiffel Tower was completed in 1889 for the World's Fair in Paris.", "body"),
    Chunk(3, "Smith, J. and Lee, K. 2019. Deep learning. In Proc. of ACL, pp. 1-10. doi:10.1/x", "references"),
    Chunk(4, "© 2024 The Authors. Licensed under CC BY 4.0. All rights reserved.", "boilerplate"),
    Chunk(5, "0.2 0.4 0.6 a b", "figure"),
    Chunk(6, "We measured BRCA1 expression in 120 tumour samples and found it reduced by half.", ""),
    Chunk(7, "ok", "body"),  # too short to mean anything
]


def source(chunks: Sequence[Chunk], per_batch: int = 3):  # type: ignore[no-untyped-def]
    def pages():  # type: ignore[no-untyped-def]
        for i in range(0, len(chunks), per_batch):
            yield chunks[i : i + per_batch]

    return pages


@pytest.fixture(scope="module")
def bundled() -> BundledEmbedder:
    return BundledEmbedder(threads=1, batch_size=2)


def test_the_job_embeds_what_answers_and_skips_the_rest(tmp_path: Path, bundled: BundledEmbedder) -> None:
    progress: list[tuple[int, int]] = []
    with VectorStore(tmp_path / "v.sqlite", bundled.model_key) as store:
        job = EmbeddingJob(store, bundled, source(CHUNKS), batch_size=2, on_progress=lambda d, t: progress.append((d, t)))
        result = job.run()
        assert (result.total, result.embedded, result.skipped, result.cancelled) == (3, 3, 4, False)
        assert progress == [(0, 3), (2, 3), (3, 3)]
        assert store.chunk_ids() == {1, 2, 6}
        hit = store.search(bundled.embed_query("埃菲尔铁塔哪年建成"), 1)
        assert hit[0][0] == 2
        # nothing left to do; an edited chunk is embedded again, alone
        assert EmbeddingJob(store, bundled, source(CHUNKS)).run().embedded == 0
        edited = [*CHUNKS[:5], Chunk(6, "BRCA1 expression was halved in the tumours.", "body"), CHUNKS[6]]
        again = EmbeddingJob(store, bundled, source(edited)).run()
        assert (again.embedded, again.done, again.total) == (1, 3, 3)


def test_prune_forgets_chunks_the_library_no_longer_has(tmp_path: Path, bundled: BundledEmbedder) -> None:
    with VectorStore(tmp_path / "v.sqlite", bundled.model_key) as store:
        EmbeddingJob(store, bundled, source(CHUNKS[:2])).run()
        result = EmbeddingJob(store, bundled, source(CHUNKS[1:2]), prune=True).run()
        assert result.removed == 1 and store.chunk_ids() == {2}


class Counting(Embedder):
    """Deterministic vectors from the text; counts the texts it embeds; may wait per batch."""

    def __init__(self, gate: threading.Event | None = None) -> None:
        self.texts: list[str] = []
        self.gate = gate
        self.batches = threading.Semaphore(0)

    @property
    def name(self) -> str:
        return "counting"

    @property
    def version(self) -> str:
        return "1"

    @property
    def dim(self) -> int:
        return 8

    def _embed_batch(self, texts: Sequence[str], *, query: bool) -> Vectors:
        self.texts.extend(texts)
        self.batches.release()
        if self.gate is not None:
            self.gate.wait(10)
        rows = np.stack([np.random.default_rng(zlib.crc32(t.encode())).standard_normal(8) for t in texts])
        return (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)


def many(n: int) -> list[Chunk]:
    return [Chunk(i, f"Passage {i} says something about topic {i % 7} in plain words.", "body") for i in range(1, n + 1)]


def test_pause_resume_and_cancel_between_batches(tmp_path: Path) -> None:
    gate = threading.Event()
    emb = Counting(gate)
    with VectorStore(tmp_path / "v.sqlite", emb.model_key) as store:
        job = EmbeddingJob(store, emb, source(many(20), per_batch=5), batch_size=4)
        out: list[object] = []
        worker = threading.Thread(target=lambda: out.append(job.run()))
        worker.start()
        assert emb.batches.acquire(timeout=10)  # inside the first batch
        job.pause()
        gate.set()
        assert not emb.batches.acquire(timeout=0.6)  # paused: no second batch starts
        assert job.paused and store.count() == 4
        gate.clear()
        job.resume()
        assert emb.batches.acquire(timeout=10)  # inside the second batch
        job.cancel()
        gate.set()
        worker.join(10)
        result = out[0]
        assert result.cancelled and result.embedded == 8  # type: ignore[attr-defined]
        assert store.count() == result.embedded  # type: ignore[attr-defined]
        rest = EmbeddingJob(store, Counting(), source(many(20))).run()
        assert rest.embedded == 20 - result.embedded and store.count() == 20  # type: ignore[attr-defined]


_CHILD = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv[2])
    from tests.unit.core.retrieval.test_job import Counting, many, source
    from paperpilot.core.retrieval import EmbeddingJob, VectorStore

    class Slow(Counting):
        def _embed_batch(self, texts, *, query):
            time.sleep(0.05)
            return super()._embed_batch(texts, query=query)

    emb = Slow()
    store = VectorStore(sys.argv[1], emb.model_key)
    EmbeddingJob(store, emb, source(many(400)), batch_size=10,
                 on_progress=lambda d, t: print(d, flush=True)).run()
    """
)


def test_after_a_kill_only_the_missing_chunks_are_embedded(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    repo = str(Path(__file__).resolve().parents[4])
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(path), repo], stdout=subprocess.PIPE, text=True,
                             env={**os.environ})  # fmt: skip
    assert child.stdout is not None
    while int(child.stdout.readline() or 400) < 50:
        pass
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    emb = Counting()
    with VectorStore(path, emb.model_key) as store:
        stored = store.count()
        assert 50 <= stored < 400 and stored % 10 == 0
        result = EmbeddingJob(store, emb, source(many(400)), batch_size=50).run()
        assert result.embedded == 400 - stored == len(emb.texts)
        assert store.count() == 400 and store.missing(range(1, 401)) == []


def test_through_an_endpoint_a_failure_keeps_the_batches_done(tmp_path: Path) -> None:
    from paperpilot.core.retrieval import EmbeddingError, EndpointEmbedder
    from tests.fakes.embeddings_server import EmbeddingsServer

    with EmbeddingsServer(dim=16) as server:
        emb = EndpointEmbedder(server.url, "nomic-embed-text", batch_size=5)
        with VectorStore(tmp_path / "v.sqlite", emb.model_key) as store:
            server.fail = [None, None, 503]  # the third batch fails
            with pytest.raises(EmbeddingError, match="HTTP 503"):
                EmbeddingJob(store, emb, source(many(30)), batch_size=5).run()
            assert store.count() == 10
            result = EmbeddingJob(store, emb, source(many(30)), batch_size=5).run()
            assert (result.embedded, store.count()) == (20, 30)
            assert store.search(emb.embed_query("Passage 7 says something"), 1)
        emb.close()
