"""What makes a hybrid search fast: the query embedded beside the keyword search, query vectors
kept per model, the model and the vector index warmed up once per session.

A real library (SQLite, Tantivy) with the bundled model, and small deterministic embedders
where a test needs to count or hold the embedding.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from paperpilot.core.app import Session
from paperpilot.core.library.semantic import QUERY_CACHE_SIZE, Semantic
from paperpilot.core.retrieval import BundledEmbedder, EmbeddingError, VectorStore
from paperpilot.core.retrieval.embedder import Embedder, Vectors, normalise

PAPERS = {
    "glaciers.md": (
        "# Alpine glaciers\n\nAlpine glaciers lost about a tenth of their ice volume between 2000 and 2020; "
        "summer heat waves melted the thin tongues fastest, and dust darkened the snow."
    ),
    "bread.md": (
        "# Sourdough\n\nA sourdough starter is a culture of wild yeasts and lactic acid bacteria; fed flour "
        "and water each day it leavens bread and gives it a sour taste."
    ),
    "owls.md": (
        "# Barn owls\n\nBarn owls hunt at night by sound alone: the facial disc funnels the rustle of a vole "
        "to ears set at different heights, so the bird can place its prey in the dark."
    ),
    "lidar.md": (
        "# Lidar mapping\n\nAirborne lidar measures the ground beneath forest canopies with laser pulses; "
        "archaeologists used it to find Maya causeways hidden under the jungle."
    ),
}
QUERIES = [
    "how do owls find mice in darkness",
    "Alpine glaciers ice volume",
    "bread fermentation with wild yeast",
    "laser scanning reveals ancient roads under trees",
    "冰川融化",
]


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("latency")
    src = root / "papers"
    src.mkdir()
    for name, text in PAPERS.items():
        (src / name).write_text(text, encoding="utf-8")
    home = root / "home"
    with Session(home) as s:
        assert not s.import_paths([src]).failed
        assert s.embed_library(threads=1).done == len(PAPERS)
    return home


class Letters(Embedder):
    """Letter counts: deterministic, a version of its own; counts the calls, may wait or fail."""

    batch_size = 8

    def __init__(self, version: str = "1", *, fail: bool = False) -> None:
        self._version = version
        self.fail = fail
        self.calls: list[tuple[str, str]] = []  # (text, thread name)
        self.gate = threading.Event()
        self.gate.set()

    @property
    def name(self) -> str:
        return "letters"

    @property
    def version(self) -> str:
        return self._version

    @property
    def dim(self) -> int:
        return 32

    def _embed_batch(self, texts: Sequence[str], *, query: bool) -> Vectors:
        self.gate.wait(10)
        self.calls.extend((t, threading.current_thread().name) for t in texts)
        if self.fail:
            raise EmbeddingError("The embedding server at 127.0.0.1 could not be reached.")
        out = np.zeros((len(texts), 32), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t.lower():
                out[i, (ord(ch) * int(self._version)) % 32] += 1.0
        return normalise(out)


def fingerprint(hits: Sequence[object]) -> list[tuple[object, ...]]:
    return [(h.chunk_id, h.score, h.found_by, h.bm25, h.dense, h.fused) for h in hits]  # type: ignore[attr-defined]


def test_hybrid_embeds_the_query_beside_the_keyword_search_and_finds_the_same(embedded: Path) -> None:
    with Session(embedded) as s:
        lib = s.library
        semantic = lib.semantic
        assert semantic is not None
        embedder = semantic.embedder
        threads: list[str] = []
        real = embedder.embed_query

        def spy(text: str) -> np.ndarray:
            threads.append(threading.current_thread().name)
            return real(text)

        embedder.embed_query = spy  # type: ignore[method-assign]
        concurrent = [fingerprint(lib.search(q, 3, mode="hybrid")) for q in QUERIES]
        # every query was embedded once, on the worker, not on the searching thread
        assert len(threads) == len(QUERIES) and all(t.startswith("query-embedding") for t in threads)
        assert all(concurrent) and concurrent[0][0][2] in ("both", "meaning")

        semantic.forget_queries()
        semantic.prefetch = lambda query: None  # type: ignore[method-assign]
        sequential = [fingerprint(lib.search(q, 3, mode="hybrid")) for q in QUERIES]
        assert threads[len(QUERIES) :] == [threading.current_thread().name] * len(QUERIES)
        assert sequential == concurrent


def test_a_prefetched_query_is_embedded_once_and_waited_for(tmp_path: Path) -> None:
    emb = Letters()
    semantic = Semantic(tmp_path / "library.sqlite3", lambda: emb)
    try:
        emb.gate.clear()  # the worker is still embedding when the search asks for the vector
        semantic.prefetch("barn owls")
        semantic.prefetch("barn owls")  # already coming: not submitted again
        got: list[np.ndarray] = []
        asker = threading.Thread(target=lambda: got.append(semantic.query_vector("barn owls")))
        asker.start()
        asker.join(0.2)
        assert asker.is_alive()  # waiting for the worker, not embedding a second time
        emb.gate.set()
        asker.join(10)
        assert [t for t, _ in emb.calls] == ["barn owls"]
        assert np.array_equal(got[0], Letters().embed_query("barn owls"))
        assert np.array_equal(semantic.query_vector("barn owls"), got[0]) and len(emb.calls) == 1
    finally:
        semantic.close()


def test_query_vectors_are_kept_per_model_name_and_version(tmp_path: Path) -> None:
    first, second = Letters("1"), Letters("2")
    semantic = Semantic(tmp_path / "library.sqlite3", lambda: first)
    try:
        a = semantic.query_vector("sourdough starter")
        assert np.array_equal(semantic.query_vector("sourdough starter"), a) and len(first.calls) == 1
        semantic._embedder = second  # another model: its own vector, never the first model's
        b = semantic.query_vector("sourdough starter")
        assert len(second.calls) == 1 and not np.array_equal(a, b)
        semantic._embedder = first  # back: still kept
        assert np.array_equal(semantic.query_vector("sourdough starter"), a) and len(first.calls) == 1
        for i in range(QUERY_CACHE_SIZE):  # the oldest go first
            semantic.query_vector(f"query {i}")
        semantic.query_vector("sourdough starter")
        assert len(first.calls) == 2 + QUERY_CACHE_SIZE
        semantic.forget_queries()
        semantic.query_vector("query 255")
        assert len(first.calls) == 3 + QUERY_CACHE_SIZE
    finally:
        semantic.close()


def test_a_failing_embedder_leaves_hybrid_to_keywords_on_either_path(embedded: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(embedded, home)
    with Session(home) as s:
        lib = s.library
        semantic = lib.semantic
        assert semantic is not None and semantic.has_vectors()  # the store is open for the real model
        broken = Letters(fail=True)
        semantic._embedder = broken
        hits = lib.search("Alpine glaciers ice volume", 3, mode="hybrid")
        assert hits and all(h.found_by == "keyword" for h in hits)
        assert len(broken.calls) == 1 and not semantic._pending  # the failed prefetch is forgotten
        lib.search("Alpine glaciers ice volume", 3, mode="hybrid")
        assert len(broken.calls) == 2  # asked again, not a failure kept


def test_the_session_warms_the_model_and_the_index_once(embedded: Path, tmp_path: Path) -> None:
    with Session(embedded) as s:
        semantic = s.library.semantic
        assert semantic is not None
        thread = s.warm_up_search()
        assert thread is not None
        thread.join(60)
        assert not thread.is_alive()
        assert semantic._store is not None and semantic._store._matrix is not None
        assert semantic._store._matrix.rows.shape == (len(PAPERS), 384)
        assert s.warm_up_search() is None  # once per session
        assert s.library.search("barn owls hunting", 1, mode="meaning")[0].title == "Barn owls"
    bare = tmp_path / "bare"
    with Session(bare) as s:  # nothing embedded: nothing is loaded
        assert s.warm_up_search() is None
        assert s.library.semantic is not None and s.library.semantic._store is None


def test_warm_up_asks_an_endpoint_nothing_but_loads_the_index(embedded: Path) -> None:
    emb = Letters()
    with Session(embedded) as s:
        semantic = s.library.semantic
        assert semantic is not None
        semantic._store = VectorStore(semantic.path, BundledEmbedder().model_key)  # vectors there
        semantic._embedder = emb
        thread = semantic.warm_up()
        assert thread is not None
        thread.join(30)
        assert emb.calls == []  # Embedder.warm_up does nothing by default: an endpoint may bill
        assert semantic._store._matrix is not None and len(semantic._store._matrix.ids) == len(PAPERS)


def test_snippet_stems_are_kept_and_handed_out_as_copies(embedded: Path) -> None:
    with Session(embedded) as s:
        index = s.library.index
        first = index.stems("Glaciers melting")
        assert first == list(index.en.analyze("Glaciers melting")) and first
        first.append("changed")  # a caller's list: never the kept answer
        assert index.stems("Glaciers melting") == list(index.en.analyze("Glaciers melting"))
