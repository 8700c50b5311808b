"""The background embedding job: embeds the chunks that have no vector yet, batch by batch.

Qt-free; a front end runs ``EmbeddingJob.run`` in a worker thread (or the CLI in the
foreground) and shows ``on_progress``. Each batch is committed on its own, so a kill loses at
most one batch and the next run embeds only what is missing (or was edited, or was embedded
by another model). Reference lists, boilerplate and figure residue are never embedded: they
never answer a question, and a bibliography entry looks like everything.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..errors import Cancelled
from ..text.kinds import Kind, classify_passage, stored_kind
from .embedder import Embedder
from .store import VectorItem, VectorStore, text_hash

log = logging.getLogger(__name__)

# Kinds never embedded (see the module's docstring).
SKIP_KINDS = frozenset({Kind.REFERENCES, Kind.BOILERPLATE, Kind.FIGURE})
# Shorter than this (after trimming), a chunk is a stray line with no meaning to find.
MIN_CHARS = 12


class Chunk(NamedTuple):
    """One chunk as the library stores it: ``kind`` is a ``Kind`` value or "" (classified here)."""

    id: int
    text: str
    kind: str = ""


# Called (again for each run, and twice per run: once to plan, once to embed) for the chunks in
# batches, e.g. pages of the library's chunks table in id order.
ChunkSource = Callable[[], Iterable[Sequence[Chunk | tuple[int, str, str]]]]
Progress = Callable[[int, int], None]


@dataclass
class JobResult:
    total: int = 0  # chunks that should have a vector
    done: int = 0  # of those, stored now
    embedded: int = 0  # embedded by this run
    skipped: int = 0  # chunks of a kind never embedded
    removed: int = 0  # vectors of chunks no longer in the source (prune)
    cancelled: bool = False


def passage_text(title: str, text: str) -> str:
    """What is embedded for a chunk: its document's title, then its text. A paragraph rarely
    names what it is about ("It was released in 1994"); the title does, and the hash of this
    text makes a retitled document's chunks embedded again."""
    title = " ".join(title.split())
    return f"{title}\n{text}" if title else text


def embeddable(chunk: Chunk) -> bool:
    text = chunk.text.strip()
    if len(text) < MIN_CHARS:
        return False
    kind = stored_kind(chunk.kind) or classify_passage(text)
    return kind not in SKIP_KINDS


class EmbeddingJob:
    """Embeds ``source``'s chunks into ``store`` with ``embedder``.

    ``pause()`` / ``resume()`` / ``cancel()`` are safe from any thread and take effect between
    batches. ``low_priority`` lowers the running thread's scheduling priority (Linux: per
    thread; the OpenMP threads the model starts from it inherit it), so import and the GUI
    come first.
    """

    def __init__(
        self,
        store: VectorStore,
        embedder: Embedder,
        source: ChunkSource,
        *,
        batch_size: int = 16,
        on_progress: Progress | None = None,
        prune: bool = False,
        low_priority: bool = False,
    ) -> None:
        if store.model != embedder.model_key:
            raise ValueError("the store and the embedder are for different models")
        self.store = store
        self.embedder = embedder
        self.source = source
        self.batch_size = max(1, batch_size)
        self.on_progress = on_progress
        self.prune = prune
        self.low_priority = low_priority
        self._cancel = threading.Event()
        self._running = threading.Event()
        self._running.set()

    # --- control, from any thread ------------------------------------------------------------

    def pause(self) -> None:
        self._running.clear()

    def resume(self) -> None:
        self._running.set()

    def cancel(self) -> None:
        self._cancel.set()
        self._running.set()  # a paused job wakes up to stop

    @property
    def paused(self) -> bool:
        return not self._running.is_set()

    def _stop_requested(self) -> bool:
        """Between batches: wait while paused; True when cancelled."""
        while not self._running.wait(0.2):
            pass
        return self._cancel.is_set()

    # --- the work -----------------------------------------------------------------------------

    def _chunks(self) -> Iterable[Chunk]:
        for batch in self.source():
            for c in batch:
                yield c if isinstance(c, Chunk) else Chunk(*c)

    def plan(self) -> tuple[list[tuple[int, bytes]], int, set[int]]:
        """(id, text hash) of every chunk to embed, the skipped count and every chunk id seen."""
        wanted: list[tuple[int, bytes]] = []
        seen: set[int] = set()
        skipped = 0
        for c in self._chunks():
            seen.add(c.id)
            if embeddable(c):
                wanted.append((c.id, text_hash(c.text)))
            else:
                skipped += 1
        return wanted, skipped, seen

    def run(self) -> JobResult:
        """Embed what is missing; returns what was done (``cancelled`` when stopped)."""
        if self.low_priority:
            _lower_thread_priority()
        wanted, skipped, seen = self.plan()
        result = JobResult(total=len(wanted), skipped=skipped)
        if self.prune:
            result.removed = self.store.retain(seen)
        todo = set(self.store.stale(wanted))
        result.done = result.total - len(todo)
        self._report(result)
        batch: list[Chunk] = []
        try:
            for c in self._chunks():
                if c.id not in todo:
                    continue
                todo.discard(c.id)  # a source that repeats an id embeds it once
                batch.append(c)
                if len(batch) >= self.batch_size:
                    self._embed(batch, result)
                    batch = []
            if batch:
                self._embed(batch, result)
        except Cancelled:
            result.cancelled = True
        finally:
            try:
                self.store.save_index()
            except OSError as exc:
                log.info("vector index not saved: %s", exc)
        return result

    def _embed(self, batch: list[Chunk], result: JobResult) -> None:
        if self._stop_requested():
            raise Cancelled("Embedding was stopped.")
        texts = [c.text for c in batch]
        vectors = self.embedder.embed_passages(texts, cancel=self._cancel.is_set)
        self.store.add([VectorItem(c.id, text_hash(c.text), vectors[i]) for i, c in enumerate(batch)])
        result.embedded += len(batch)
        result.done += len(batch)
        self._report(result)

    def _report(self, result: JobResult) -> None:
        if self.on_progress is not None:
            self.on_progress(result.done, result.total)


def _lower_thread_priority() -> None:
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):  # not allowed: run at the normal priority
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
