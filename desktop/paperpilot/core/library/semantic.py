"""Retrieval by meaning for one library: its vector store, its embedder, and the fusion with keyword search.

The vector store (``retrieval.store``) is derived data in ``vectors.sqlite`` beside the library's
database; it is opened on the first search by meaning, never while the library opens. Its
chunk ids are the library's ``chunks.id`` (never reused), and a vector never decides by
itself what is found: every hit by meaning is looked up in the library's live chunks (a
trashed document's, a deleted one's or a replaced chunk's vector finds nothing). So trash,
restore and undo need no work here (a restored document is searchable by meaning at once,
with no re-embedding), and emptying the trash or a re-import only leaves vectors that cost
disk space until the next embedding run or ``check --repair`` prunes them.

Hybrid ranking is a weighted reciprocal-rank fusion of Tantivy's BM25 ranks and the dense
cosine ranks: ``fused = (1 - w) / (c + rank_bm25) + w / (c + rank_dense)``, a rank missing from
one list counting as absent. ``w`` and ``c`` were chosen by measurement on HotpotQA's even
lines (tests/bench/bench_semantic.py; 4,858 paragraphs, one search from the question): both
supporting paragraphs in the top 6 / top 10 for BM25 67 / 79 %, dense 85 / 89 %, unweighted
fusion (0.5, 60) 82 / 88 %, w 0.8 with c 1 84 / 90 %. With c = 1 a BM25 first hit that the
dense list lacks still ranks with the 7th dense hit: a gene or model name the embedding does
not know is still found.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

# numpy, httpx and the model's engine load on the first search by meaning, not with the
# library: every CLI command opens the library, few search by meaning.
if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from ..retrieval import Chunk, Embedder, EmbeddingJob, JobResult, VectorStore

log = logging.getLogger(__name__)

VECTOR_FILE = "vectors.sqlite"
SEARCH_MODES = ("keyword", "meaning", "hybrid")
# Measured (bench_semantic.py, HotpotQA even lines): see the module's docstring.
HYBRID_DENSE_WEIGHT = 0.8
# A Chinese query: the character-bigram index is already precise for Chinese over Chinese, and
# 0.8 lets the weaker dense ranking take the first place (CMRC 2018 trial, bench_cmrc_modes.py:
# top 1 97.1 % by keyword alone, 93.4 % hybrid at 0.8). Chosen on the even questions (0.3–0.5
# tie on top 3, 0.4 best on both); the odd ones, held out: top 1 98.4 %, top 3 99.2 %. A
# Chinese query over English papers finds nothing by keyword, so the dense ranking decides.
HYBRID_DENSE_WEIGHT_CJK = 0.4
HYBRID_RRF_C = 1
# Each list of a hybrid search holds this many candidates (at least), fused, then cut to k.
HYBRID_DEPTH = 30
# Recent query vectors kept: the agent asks the same queries again within a question (rounds,
# the out-of-library check), and the bundled model takes 20–40 ms a question on two cores,
# more than the search itself (tests/bench/README.md, "Hybrid search latency and scale").
QUERY_CACHE_SIZE = 256


def vector_path(database: Path) -> Path:
    """Where a library's vectors live: beside its database."""
    return database.with_name(VECTOR_FILE)


@dataclass(frozen=True)
class Ranked:
    """One chunk of a fused ranking, with the scores that put it there (None: not in that list)."""

    chunk_id: int
    fused: float
    bm25: float | None
    dense: float | None

    @property
    def found_by(self) -> str:
        if self.bm25 is not None and self.dense is not None:
            return "both"
        return "keyword" if self.bm25 is not None else "meaning"


def fuse(
    keyword: Sequence[tuple[int, float]],
    dense: Sequence[tuple[int, float]],
    *,
    weight: float = HYBRID_DENSE_WEIGHT,
    c: float = HYBRID_RRF_C,
) -> list[Ranked]:
    """The two rankings (chunk id, score; best first) fused, best first (ties: keyword order first)."""
    bm25 = {cid: (r, s) for r, (cid, s) in enumerate(keyword, 1)}
    cos = {cid: (r, s) for r, (cid, s) in enumerate(dense, 1)}
    out: list[Ranked] = []
    for cid in dict.fromkeys([*bm25, *cos]):
        kb, kd = bm25.get(cid), cos.get(cid)
        fused = ((1 - weight) / (c + kb[0]) if kb else 0.0) + (weight / (c + kd[0]) if kd else 0.0)
        out.append(Ranked(cid, fused, kb[1] if kb else None, kd[1] if kd else None))
    out.sort(key=lambda r: -r.fused)
    return out


class Semantic:
    """The embedder and the vector store of one library, both opened on first use.

    ``make_embedder`` builds the embedder from the settings (nothing is loaded or downloaded
    until a query or a passage is embedded). Thread-safe.

    Query vectors are kept (the last ``QUERY_CACHE_SIZE``) under the model's name and version
    with the query. ``prefetch`` starts a query's embedding on a worker thread, so that a
    hybrid search runs its keyword half meanwhile (the bundled engine runs outside the
    interpreter lock); ``query_vector`` then waits for that result instead of embedding again.
    """

    def __init__(self, database: Path, make_embedder: Callable[[], Embedder], *, search_threads: int = 1) -> None:
        self.path = vector_path(database)
        self._make_embedder = make_embedder
        self._embedder: Embedder | None = None
        self._store: VectorStore | None = None
        self._search_threads = search_threads
        self._lock = threading.RLock()
        self._queries: OrderedDict[tuple[str, str, str], NDArray[np.float32]] = OrderedDict()
        self._pending: dict[tuple[str, str, str], Future[NDArray[np.float32]]] = {}
        # One long-lived thread embeds prefetched queries: the model's OpenMP team is made per
        # calling thread, so a thread per search would build a new team every time.
        self._worker: ThreadPoolExecutor | None = None
        self._warm: threading.Thread | None = None
        self._closed = False
        self._has_vectors = False
        self._checked_at = -1e9

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = self._make_embedder()
            return self._embedder

    @property
    def store(self) -> VectorStore:
        """The vector store for the embedder's model (opened now if it was not; a damaged file
        is moved aside and started again, see ``VectorStore``)."""
        with self._lock:
            if self._store is None:
                from ..retrieval import VectorStore

                self._store = VectorStore(self.path, self.embedder.model_key, threads=self._search_threads)
            return self._store

    @property
    def recovered(self) -> bool:
        """The vector file was damaged when it was opened, and was set aside."""
        return self._store is not None and self._store.recovered

    def has_vectors(self) -> bool:
        """Whether any chunk has a vector of the current model (then search defaults to hybrid).
        Without a vector file nothing is opened; a "no" is asked again after a second, so the
        first batch the background job stores is used."""
        if self._has_vectors:
            return True
        now = time.monotonic()
        if now - self._checked_at < 1.0:
            return False
        self._checked_at = now
        if self._store is None and not self.path.exists():
            return False
        try:
            self._has_vectors = self.store.count() > 0
        except Exception as exc:  # an unusable vector file: keyword search, never a failure
            log.warning("vector store unavailable: %s", exc)
            return False
        return self._has_vectors

    def _key(self, query: str) -> tuple[str, str, str]:
        name, version = self.embedder.model_key
        return (name, version, query)

    def query_vector(self, query: str) -> NDArray[np.float32]:
        """The query's vector: kept, being embedded by ``prefetch`` (waited for), or embedded now."""
        key = self._key(query)
        with self._lock:
            cached = self._queries.get(key)
            if cached is not None:
                self._queries.move_to_end(key)
                return cached
            pending = self._pending.get(key)
        if pending is not None:
            try:
                return pending.result()
            finally:  # a failure is reported once, here; the next search asks again
                with self._lock:
                    if self._pending.get(key) is pending:
                        del self._pending[key]
        return self._embed_query(key, query)

    def _embed_query(self, key: tuple[str, str, str], query: str) -> NDArray[np.float32]:
        vec = self.embedder.embed_query(query)
        with self._lock:
            self._queries[key] = vec
            self._queries.move_to_end(key)
            while len(self._queries) > QUERY_CACHE_SIZE:
                self._queries.popitem(last=False)
        return vec

    def prefetch(self, query: str) -> None:
        """Start embedding ``query`` on the worker thread unless its vector is kept or coming."""
        try:
            key = self._key(query)
        except Exception:  # no usable embedder: the search itself says so where it is handled
            return
        with self._lock:
            if self._closed or key in self._queries or key in self._pending:
                return
            if self._worker is None:
                self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="query-embedding")
            future = self._worker.submit(self._embed_query, key, query)
            self._pending[key] = future

        def done(f: Future[NDArray[np.float32]]) -> None:
            # Kept: the vector (already in the cache). A failure stays pending until the search
            # that asked for it takes it: embedding again there would double a timeout.
            if f.exception() is None:
                with self._lock:
                    if self._pending.get(key) is f:
                        del self._pending[key]

        future.add_done_callback(done)

    def forget_queries(self) -> None:
        """Drop the kept query vectors (a benchmark measuring first searches)."""
        with self._lock:
            self._queries.clear()

    def warm_up(self) -> threading.Thread | None:
        """Open the vector store and load the embedding model on a background thread, once, when
        the library has vectors: the first search by meaning then pays neither (loading the
        bundled model and paging its weights in takes ~0.2–1 s). None when there is nothing to do."""
        with self._lock:
            if self._closed or self._warm is not None or (self._store is None and not self.path.exists()):
                return None
            self._warm = threading.Thread(target=self._warm_up, name="semantic-warm-up", daemon=True)
            thread = self._warm
        thread.start()
        return thread

    def _warm_up(self) -> None:
        try:
            if self._closed or not self.has_vectors():
                return
            vec = self.embedder.warm_up()
            with self._lock:
                if self._closed:
                    return
                store = self.store
            if vec is None:  # an endpoint: not asked before the first search (it may bill)
                import numpy as np

                dim = store.dim or 1
                vec = np.full(dim, dim**-0.5, dtype=np.float32)
            store.search(vec, 1)  # reads the search structure into memory
        except Exception as exc:  # the first search says what is wrong, in its own words
            log.info("search by meaning not warmed up: %s", exc)

    def search(self, query: str, k: int, allowed: Iterable[int] | None = None) -> list[tuple[int, float]]:
        """The ``k`` chunks nearest to ``query`` (chunk id, cosine), best first."""
        return self.store.search(self.query_vector(query), k, allowed)

    def vectors(self, chunk_ids: Iterable[int]) -> dict[int, NDArray[np.float32]]:
        return self.store.vectors(chunk_ids)

    def job(
        self,
        source: Callable[[], Iterator[list[Chunk]]],
        *,
        batch_size: int = 16,
        on_progress: Callable[[int, int], None] | None = None,
        low_priority: bool = False,
    ) -> EmbeddingJob:
        """An embedding run over ``source`` that also forgets the vectors of chunks gone from it
        and of other models (a change of model embeds everything again)."""
        from ..retrieval import EmbeddingJob

        return EmbeddingJob(
            self.store, self.embedder, source, batch_size=batch_size, on_progress=on_progress,
            prune=True, low_priority=low_priority,
        )  # fmt: skip

    def after_run(self, result: JobResult) -> None:
        if not result.cancelled and self.store.model_changed():
            self.store.drop_other_models()
        self._has_vectors = False
        self._checked_at = -1e9

    def close(self) -> None:
        with self._lock:
            self._closed = True
            worker, self._worker = self._worker, None
        if worker is not None:  # a search in flight finishes first (tens of ms)
            worker.shutdown(wait=True)
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
            close = getattr(self._embedder, "close", None)
            if callable(close):
                close()


def chunk_batches(rows: Iterable[tuple[int, str, str, str]], size: int = 2000) -> Iterator[list[Chunk]]:
    """(chunk id, document title, text, kind) rows as the embedding job's batches."""
    from ..retrieval import Chunk, passage_text

    batch: list[Chunk] = []
    for cid, title, text, kind in rows:
        batch.append(Chunk(cid, passage_text(title, text), kind))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
