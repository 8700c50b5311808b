"""The library's state and its one serialized writer: opening, the writer lock, organisation, reads.

``LibraryBase`` is what ``library.Library`` is made of apart from the import pipeline
(``library.importer``) and recovery (``library.recovery``), which take it as their library:
the modules that read or write a library (``library.metadata``, the importer, recovery) import
this one, never ``library.library``, so the package has no import circle.

SQLite is the source of truth; the Tantivy index is derived from it. All writes to either go
through one serialized writer: a thread lock inside this process and a cross-process writer
lock (library.writerlock) between processes (the GUI open while the CLI imports). A writer
may keep the cross-process lock across the items of a batch, so that index commits are batched,
and hands it over between items as soon as another writer queues for it; one that gets no turn
within ``lock_timeout`` is told "busy". Nothing deletes a stored copy it cannot prove orphaned.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, Self

import tantivy

from ..citations.identifiers import normalize_arxiv, normalize_doi
from ..citations.references import title_key
from ..clock import file_stamp, utc_now
from ..clock import now as clock_now
from ..errors import (
    DocumentNotFound,
    InvalidInput,
    LibraryBusy,
    LibraryDamaged,
    LibraryError,
    LibraryFull,
    LibraryReadOnly,
    PaperPilotError,
)
from ..models import Chunk, DocumentInfo, Hit, ImportFailure, Metadata, Passage, Reference
from ..settings.config import ImportSettings
from ..settings.paths import AppPaths
from ..text.language import has_cjk, query_terms
from ..text.messages import msg
from ..text.snippets import make_snippet
from .index import IndexCorrupt, SearchIndex
from .note_store import NoteHit, search_notes
from .organize import SEPARATOR, CollectionNotFound, CollectionTree, parse_path
from .semantic import (
    HYBRID_DENSE_WEIGHT,
    HYBRID_DENSE_WEIGHT_CJK,
    HYBRID_DEPTH,
    SEARCH_MODES,
    Ranked,
    Semantic,
    fuse,
)
from .sidecar import organize_path, read_sidecar, sidecar_path, write_sidecar
from .store import Store, StoreDamaged, StoreError, StoreMissing, is_disk_full
from .writerlock import WriterLock

log = logging.getLogger(__name__)

# Index commits are batched: at most this long between commits while importing.
COMMIT_INTERVAL_S = 1.0
# How often a writer that keeps the lock across files looks for another writer waiting.
WAITER_CHECK_S = 0.05
PART_SUFFIX = ".part"
SIDECARS_DONE = "sidecars"  # meta key: every stored copy has had its sidecar written once
# meta key: the sidecars of filed documents and meta/library.json were written once (libraries
# organised before sidecars named collections get them on the first start that can write).
COLLECTIONS_KEPT = "sidecars_collections"
# Documents stay this many days in the trash; start-up empties what is older.
TRASH_DAYS = 30


@dataclass
class LinkedReference:
    """An entry of a document's reference list and the library document it names (or None)."""

    reference: Reference
    doc_id: int | None = None

    def to_json(self) -> dict[str, object]:
        return {**self.reference.to_json(), "doc_id": self.doc_id}


def _disk_full(e: BaseException) -> bool:
    if isinstance(e, OSError) and e.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        return True
    if is_disk_full(e):
        return True
    # Tantivy reports I/O errors as ValueError with the OS error in the text.
    text = str(e)
    return isinstance(e, ValueError) and ("os error 28" in text or "StorageFull" in text or "No space left" in text)


def _read_only_error(e: BaseException) -> bool:
    if isinstance(e, OSError) and e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return True
    return isinstance(e, sqlite3.OperationalError) and "readonly" in str(e)


def _writable(paths: AppPaths) -> bool:
    """Whether this process may change the library folder (else it opens read-only)."""
    for d in (paths.library_dir, paths.files_dir, paths.index_dir, paths.database):
        if d.exists() and not os.access(d, os.W_OK):
            return False
    return True


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class LibraryBase:
    """A PaperPilot library rooted at ``paths.library_dir`` (``Library`` adds import and recovery).

    ``allow_damaged``: open even when the database is missing or damaged (``damaged`` then holds
    the one-line message, and only the integrity check and its repair may be used); without it
    that case raises LibraryDamaged. A library folder this process cannot write to opens
    read-only (``read_only``): listing, searching and reading work, every write raises
    LibraryReadOnly, and nothing is recovered.
    """

    def __init__(
        self,
        paths: AppPaths,
        settings: ImportSettings | None = None,
        lock_timeout: float = 15.0,
        allow_damaged: bool = False,
    ) -> None:
        try:
            self.paths = paths.ensure()
        except OSError as e:
            raise LibraryError(f"The library folder {paths.library_dir} cannot be created: {e.strerror or e}.") from e
        self.settings = settings or ImportSettings()
        self.lock_timeout = lock_timeout
        self.trash_days = TRASH_DAYS
        self.read_only = not _writable(paths)
        self.damaged = ""
        self.recovery_notes: list[str] = []
        # One SQLite connection per thread (the GUI reads while a worker imports); WAL lets them
        # read concurrently, and the writer lock below keeps writes serialized.
        self._local = threading.local()
        self._stores: list[Store] = []
        self._stores_lock = threading.Lock()
        # Two locks, always taken in this order. _writer_mutex serializes this process's writers
        # and is what a writer holds while it waits for the cross-process lock; _thread_lock
        # guards what readers share (caches, the index object) and is held only for short
        # critical sections, so a reader (the GUI thread) never waits for another process.
        self._writer_mutex = threading.RLock()
        self._thread_lock = threading.RLock()
        self._lock = WriterLock(paths.lock_file, paths.lock_queue_file)
        self._writer: tantivy.IndexWriter | None = None
        # Indexing threads of the next Tantivy writer (0: one per core). While extraction
        # workers keep the cores busy, one thread indexes as fast and does not compete with
        # them; a rebuild or an import without workers has the cores to itself.
        self._index_threads = 0
        self._pending_index: list[int] = []
        self._last_commit = time.monotonic()
        self._next_waiter_check = 0.0
        self._generation = 0
        self._seen_generation = -1
        self._catalogue: list[DocumentInfo] | None = None
        self._search_cache: OrderedDict[tuple[object, ...], list[Hit]] = OrderedDict()
        self.index_rebuilt = False
        self.index_error = ""
        # Retrieval by meaning (library.semantic), given by the application layer; None: keyword only.
        self.semantic: Semantic | None = None
        self._open_database(allow_damaged)
        self.index = self._open_index()

    # --- opening ------------------------------------------------------------------------------

    def _open_database(self, allow_damaged: bool) -> None:
        """Open this thread's connection, or find out that the database was lost or damaged.

        A missing or empty database next to stored copies is a lost library, not a new one:
        creating a fresh database there would make every copy look orphaned.
        """
        db = self.paths.database
        present = db.is_file() and db.stat().st_size > 0
        if not present and self.stored_copy_count():
            self._set_damaged("missing", allow_damaged)
            return
        if not present and self.read_only:
            raise LibraryReadOnly(f"The library folder {self.paths.library_dir} is read-only and holds no library yet.")
        try:
            self._local.store = self._new_store(must_exist=present)
        except StoreMissing:  # a SQLite file without library tables
            if self.stored_copy_count() or self.read_only:
                self._set_damaged("missing", allow_damaged)
                return
            self._local.store = self._new_store(must_exist=False)
        except StoreDamaged:
            self._set_damaged("damaged", allow_damaged)
        except StoreError as e:  # busy, written by a newer version
            raise LibraryError(str(e)) from e

    def _set_damaged(self, state: str, allow: bool) -> None:
        n = self.stored_copy_count()
        if n:
            self.damaged = (
                f"The library database is {state}; {plural(n, 'stored file')} "
                f"{'is' if n == 1 else 'are'} kept. Run `paperpilot check --repair` "
                "(or Help ▸ Check Library… in the window) to rebuild the library from them."
            )
        else:
            self.damaged = (
                f"The library database is {state} and no stored files were found. Run `paperpilot check "
                "--repair` (or Help ▸ Check Library…) to set it aside and start an empty library."
            )
        if not allow:
            raise LibraryDamaged(self.damaged)

    def _new_store(self, must_exist: bool = True) -> Store:
        store = Store(self.paths.database, read_only=self.read_only, must_exist=must_exist)
        with self._stores_lock:
            self._stores.append(store)
        return store

    def _open_index(self) -> SearchIndex:
        if self.read_only:
            try:
                return SearchIndex.read_only_view(self.paths.index_dir)
            except (IndexCorrupt, OSError, ValueError) as e:
                self.index_error = (
                    f"The search index cannot be read ({e}) and the library folder is read-only, "
                    "so it cannot be rebuilt: listing and reading still work."
                )
                return SearchIndex.scratch()
        try:
            return SearchIndex(self.paths.index_dir)
        except IndexCorrupt:
            return self._fresh_index()

    def stored_copy_count(self) -> int:
        """Completed copies in the library folder (``.part`` files are not copies yet)."""
        n = 0
        for _rel, _path in self.iter_stored_files():
            n += 1
        return n

    def iter_stored_files(self, parts: bool = False) -> Iterator[tuple[str, Path]]:
        """(relative path, path) of every file in ``files/``; ``parts``: the ``.part`` files instead."""
        try:
            groups = sorted(os.scandir(self.paths.files_dir), key=lambda e: e.name)
        except OSError:
            return
        for group in groups:
            if not group.is_dir():
                continue
            try:
                entries = sorted(os.scandir(group.path), key=lambda e: e.name)
            except OSError:
                continue
            for e in entries:
                if e.is_file() and e.name.endswith(PART_SUFFIX) == parts:
                    yield f"files/{group.name}/{e.name}", Path(e.path)

    @property
    def store(self) -> Store:
        if self.damaged:
            raise LibraryDamaged(self.damaged)
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            try:
                store = self._new_store()
            except StoreError as e:
                raise LibraryError(str(e)) from e
            self._local.store = store
        return store

    def close(self) -> None:
        with self._writing():
            try:
                self._flush_and_unlock()
            except Exception as e:  # the documents stay unindexed; the next writer indexes them
                self._drop_writer()
                log.warning("%s", e)
        with self._stores_lock:
            for store in self._stores:
                store.close()
            self._stores.clear()
        self._local = threading.local()
        self.index.close()
        if self.semantic is not None:
            self.semantic.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the serialized writer -----------------------------------------------------------------

    def _check_writable(self) -> None:
        if self.read_only:
            raise LibraryReadOnly(
                f"The library folder {self.paths.library_dir} is read-only: PaperPilot can list, search "
                "and read it, but not change it."
            )
        if self.damaged:
            raise LibraryDamaged(self.damaged)

    @contextmanager
    def _as_writer(self) -> Iterator[None]:
        """The writer: this process's writer mutex and the cross-process lock (waiting for our
        turn if another process has it). Readers are not held up."""
        self._check_writable()
        with self._writer_mutex:
            if not self._lock.held:
                self._acquire_writer()
            yield

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        """A write: the writer, then the short critical section that readers wait for."""
        with self._as_writer(), self._thread_lock:
            yield

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Both locks of this process, without asking for the cross-process one."""
        with self._writer_mutex, self._thread_lock:
            yield

    def flush(self) -> None:
        """Commit pending index work and let other writers have the library."""
        with self._writing():
            self._flush_and_unlock()

    def _acquire_writer(self) -> None:
        try:
            got = self._lock.acquire(self.lock_timeout)
        except OSError as e:
            if _read_only_error(e):
                self.read_only = True
                self._check_writable()
            raise LibraryError(f"The library's lock file cannot be opened: {e.strerror or e}.") from e
        if not got:
            raise LibraryBusy(
                "The library is busy: another PaperPilot process is writing to it. "
                "Try again when it has finished."
            )
        self._last_commit = time.monotonic()
        if self._lock.inherited_dirty:
            # The previous holder died while writing (kill -9, power cut): clean up after it
            # before adding anything, whichever process we are.
            with self._thread_lock:
                self._recover_locked(self.recovery_notes, after_crash=True)

    @contextmanager
    def writing(self, *, batch: bool = False) -> Iterator[LibraryWriter]:
        """One write under the library's serialized writer: the public way to change the library.

        Waits for the cross-process writer lock (LibraryBusy after ``lock_timeout``), then holds
        this process's short critical section for the block; a full disk or a folder that became
        read-only comes out as one LibraryError. On leaving, pending index work is committed and
        the cross-process lock released. ``batch``: the lock is kept for the next write of a batch
        (a bibliography's entries); the batch calls ``handover()`` between its items, so that a
        waiting writer gets its turn, and ``flush()`` at its end.
        """
        with self._write_lock():
            try:
                with self._storage_errors():
                    yield LibraryWriter(self)
            finally:
                if not batch:
                    self._flush_and_unlock()

    def handover(self) -> None:
        """Between the items of a batch: commit and hand the lock over if another writer waits,
        or when a second has passed since the last commit."""
        self._maybe_flush()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the writer for a consistent view (the integrity check): pending index work of
        this process is committed first, and no other writer runs until the block ends.
        A read-only library gives no lock (nothing can write there) and no commit."""
        if self.read_only:
            with self._writer_mutex:
                yield
            return
        with self._as_writer():
            try:
                with self._thread_lock:
                    self._commit_pending()
                yield
            finally:
                with self._thread_lock:
                    self._flush_and_unlock()

    def storage_errors(self) -> Any:
        """The context that turns a full disk or a read-only folder into one LibraryError."""
        return self._storage_errors()

    @contextmanager
    def _storage_errors(self) -> Iterator[None]:
        """Turn a full disk or a folder that became read-only into one clear LibraryError."""
        try:
            yield
        except (LibraryError, LibraryBusy, ImportFailure):
            raise
        except Exception as e:
            if _disk_full(e) or (isinstance(e, OSError | ValueError | sqlite3.Error) and self._disk_nearly_full()):
                raise LibraryFull(
                    f"The disk is full ({self.paths.library_dir}): PaperPilot stopped writing; everything "
                    "already in the library is kept. Free some space and try again."
                ) from e
            if _read_only_error(e):
                raise LibraryReadOnly(
                    f"The library folder {self.paths.library_dir} cannot be written to ({e})."
                ) from e
            raise

    def _disk_nearly_full(self) -> bool:
        # Tantivy's background threads report a full disk as "an index writer was killed": the
        # free space says what happened.
        try:
            return shutil.disk_usage(self.paths.library_dir).free < 1 << 20
        except OSError:
            return False

    def _get_writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            try:
                self._writer = self.index.writer(self._index_threads)
            except ValueError as e:
                if _disk_full(e):
                    with self._storage_errors():
                        raise
                raise LibraryBusy(f"The search index is locked by another process: {e}") from e
        return self._writer

    def _drop_writer(self) -> None:
        """Forget uncommitted index work (its documents stay indexed=0 for the next writer)."""
        w, self._writer = self._writer, None
        self._pending_index = []
        if w is not None:
            with suppress(ValueError):
                w.rollback()
            del w  # the Tantivy writer lock goes with the object

    def _commit_pending(self) -> None:
        """Commit pending index work and mark it in SQLite; the writer lock stays held."""
        if self._writer is None:
            return
        w: tantivy.IndexWriter | None = self._writer
        self._writer = None
        pending, self._pending_index = self._pending_index, []
        assert w is not None
        try:
            with self._storage_errors():
                w.commit()
                w.wait_merging_threads()
        except BaseException:
            self._writer = w
            self._drop_writer()
            raise
        finally:
            w = None  # a traceback must not keep the Tantivy writer (and its lock) alive
        with self._storage_errors():
            self.store.mark_indexed(pending)
            self.index.reload()
        self._last_commit = time.monotonic()

    def _flush_and_unlock(self) -> None:
        """Commit pending index work, mark it in SQLite, and release the cross-process lock."""
        try:
            self._commit_pending()
        finally:
            self._last_commit = time.monotonic()
            if self._lock.held:
                self._lock.release()
            self._changed()

    def _maybe_flush(self) -> None:
        """Between files: commit and hand the lock over if another writer waits or it is time."""
        with self._writing():
            if not self._lock.held:
                return
            now = time.monotonic()
            if now - self._last_commit >= COMMIT_INTERVAL_S:
                self._flush_and_unlock()
            elif now >= self._next_waiter_check:
                # Not after every corpus line: a look at the turnstile costs a few system calls.
                self._next_waiter_check = now + WAITER_CHECK_S
                if self._lock.waiter_queued():
                    self._flush_and_unlock()

    def _changed(self) -> None:
        self._generation += 1
        self._catalogue = None
        self._search_cache.clear()

    def _fresh_index(self) -> SearchIndex:
        self.index_rebuilt = True
        return SearchIndex.recreate(self.paths.index_dir)

    def _recover_locked(self, notes: list[str], *, after_crash: bool) -> None:
        """Recovery under the writer lock (``library.recovery``; ``Library`` plugs it in here):
        ``_acquire_writer`` runs it when the previous holder died while writing."""
        raise NotImplementedError

    # --- sidecars, quarantine and the whole index ------------------------------------------------

    def write_sidecar(self, doc_id: int) -> None:
        """Rewrite the sidecar of a document's stored copy from the database (see library.sidecar).

        Best effort: the database stays the source of truth, and a sidecar that could not be
        written is reported (and rewritten) by the integrity check.
        """
        if self.read_only or self.damaged:
            return
        try:
            data = self.store.sidecar_data(doc_id)
            if data is not None:
                write_sidecar(sidecar_path(self.paths, data["stored_path"]), data)
        except (OSError, sqlite3.Error) as e:
            log.info("could not write the sidecar of document %s: %s", doc_id, e)

    def read_sidecar(self, stored_rel: str) -> dict[str, Any] | None:
        return read_sidecar(sidecar_path(self.paths, stored_rel))

    def organize_data(self) -> dict[str, Any]:
        """What ``meta/library.json`` keeps: every collection by path (parents first, with when
        it was made) and the tag colours (see library.sidecar)."""
        created = self.store.collection_created()
        return {
            "collections": [{"path": c.path, "created": created.get(c.collection_id, "")} for c in self.collection_tree().walk()],
            "tag_colors": dict(sorted(self.store.tag_colors().items(), key=lambda kv: kv[0].casefold())),
        }

    def write_organize_file(self) -> None:
        """Rewrite ``meta/library.json`` from the database; best effort, like write_sidecar."""
        if self.read_only or self.damaged:
            return
        try:
            write_sidecar(organize_path(self.paths), self.organize_data())
        except (OSError, sqlite3.Error) as e:
            log.info("could not write the collections and tag colours beside the library: %s", e)

    def read_organize_file(self) -> dict[str, Any] | None:
        return read_sidecar(organize_path(self.paths))

    def restore_organization(self) -> tuple[int, int]:
        """Make the collections and tag colours ``meta/library.json`` lists that the database
        lacks (a rebuild runs this before re-importing the stored copies, whose sidecars then
        file each document again); (collections made, colours set)."""
        data = self.read_organize_file() or {}
        made = colours = 0
        # The lock is kept (not handed over at the end) when the caller holds it: a rebuild runs
        # this inside ``exclusive()``.
        with self._write_lock(), self._storage_errors():
            for entry in data.get("collections") or []:
                if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                    continue
                try:
                    parts = parse_path(entry["path"])
                except InvalidInput:
                    continue
                before = len(self.store.collections())
                self._ensure_collection(parts, str(entry.get("created") or "") or None)
                made += len(self.store.collections()) - before
            have = self.store.tag_colors()
            for name, color in (data.get("tag_colors") or {}).items():
                if isinstance(name, str) and isinstance(color, str) and color and name not in have:
                    self.store.set_tag_color(name, color)
                    colours += 1
        self.write_organize_file()
        return made, colours

    def quarantine(self, path: Path, why: str) -> Path:
        """Move a file the library cannot account for out of the way, never deleting it."""
        stamp = file_stamp()
        try:
            rel = path.relative_to(self.paths.library_dir)
        except ValueError:
            rel = Path(path.name)
        dest = self.paths.quarantine_dir / stamp / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, dest)
        log.warning("quarantined %s (%s) as %s", path, why, dest)
        return dest

    def reindex(self) -> int:
        """Rebuild the whole index from SQLite; returns the number of chunks indexed."""
        with self._write_lock():
            try:
                with self._storage_errors():
                    return self._rebuild_locked()
            finally:
                self._flush_and_unlock()

    def _rebuild_locked(self) -> int:
        if self._writer is not None:
            self._writer.rollback()
            self._writer.wait_merging_threads()
            self._writer = None
        self.store.mark_all_unindexed()
        self.index = self._fresh_index()
        w = self._get_writer()
        n = self.index.add_chunks(w, self.store.iter_chunks_for_index())
        self._pending_index.extend(d.doc_id for d in self.store.documents(("ready",)))
        return n

    # --- repair of the index and the database (library.integrity, inside ``exclusive()``) --------

    def reindex_documents(self, doc_ids: Iterable[int]) -> int:
        """Delete the index entries of these documents and add those of the ready ones again."""
        ids = sorted(set(doc_ids))
        if not ids:
            return 0
        with self._write_lock(), self._storage_errors():
            w = self._get_writer()
            for doc_id in ids:
                SearchIndex.delete_doc(w, doc_id)
            ready = {d.doc_id for d in self.store.documents(("ready",))}
            again = [i for i in ids if i in ready]
            n = self.index.add_chunks(w, self.store.iter_chunks_for_index(again))
            self._pending_index.extend(again)
            self._commit_pending()
        return n

    def rebuild_index(self) -> int:
        with self._write_lock(), self._storage_errors():
            n = self._rebuild_locked()
            self._commit_pending()
        return n

    def rebuild_database(self) -> str:
        """Set the database aside and start an empty one (the stored copies are then re-imported
        by library.integrity); returns the name the old database was given, "" when there was none.
        """
        if self.read_only:
            self._check_writable()
        with self._writer_mutex:
            if not self._lock.held:
                was, self.damaged = self.damaged, ""
                try:
                    self._acquire_writer()
                finally:
                    self.damaged = was
            with self._thread_lock:
                return self._set_database_aside()

    def _set_database_aside(self) -> str:
        self._drop_writer()
        with self._stores_lock:
            for store in self._stores:
                store.close()
            self._stores.clear()
        self._local = threading.local()
        stamp = file_stamp()
        db = self.paths.database
        aside = ""
        with self._storage_errors():
            if db.exists():
                target = db.with_name(f"{db.name}.damaged-{stamp}")
                os.replace(db, target)
                aside = target.name
                for suffix in ("-wal", "-shm"):
                    extra = db.with_name(db.name + suffix)
                    if extra.exists():
                        os.replace(extra, target.with_name(target.name + suffix))
            self.damaged = ""
            self._local.store = self._new_store(must_exist=False)
            self.store.set_meta(SIDECARS_DONE, "1")
            self.store.set_meta(COLLECTIONS_KEPT, "1")
            self.index = self._fresh_index()
        self._changed()
        return aside

    # --- removal ------------------------------------------------------------------------------

    def remove(self, doc_id: int) -> DocumentInfo:
        """Remove a document from the store, the index and the library folder."""
        doc = self.store.document(doc_id)
        if doc is None:
            raise DocumentNotFound(f"No document with id {doc_id}.")
        with self._write_lock():
            try:
                with self._storage_errors():
                    self.store.mark_deleting(doc_id)
                    self._finish_delete(doc_id)
            finally:
                self._flush_and_unlock()
        return doc

    # --- the trash, tags and collections (see library.organize) ---------------------------------

    def trash(self, doc_ids: Sequence[int]) -> list[DocumentInfo]:
        """Move ready documents to the trash: out of the index (unsearchable, unseen by the agent)
        but kept whole, rows, note and stored copy, until the trash is emptied. Returns them."""
        with self.writing() as w:
            return w.trash(doc_ids)

    def restore(self, doc_ids: Sequence[int]) -> list[DocumentInfo]:
        """Take documents out of the trash; they are searchable again when this returns."""
        with self.writing() as w:
            return w.restore(doc_ids)

    def trashed_documents(self) -> list[DocumentInfo]:
        return self.store.documents(("trashed",))

    def empty_trash(self, doc_ids: Sequence[int] | None = None) -> list[DocumentInfo]:
        """Delete documents in the trash for good (all of them, or those of ``doc_ids`` that are
        there), with the guarantees of a removal: under the writer lock, index first, then the
        rows, then the stored copy and its sidecar (a crash leaves a 'deleting' row that
        recovery finishes). The only real deletion there is."""
        with self.writing(batch=True):
            try:
                trashed = {d.doc_id: d for d in self.store.documents(("trashed",))}
                ids = list(trashed) if doc_ids is None else [i for i in doc_ids if i in trashed]
                for doc_id in ids:
                    self.store.mark_deleting(doc_id)
                    self._finish_delete(doc_id)
                return [trashed[i] for i in ids]
            finally:
                self._flush_and_unlock()

    def purge_expired_trash(self, days: int | None = None) -> list[int]:
        """Empty what has been in the trash longer than ``days`` (default ``trash_days``; start-up
        does it on its own); the ids deleted."""
        cutoff = (clock_now() - timedelta(days=self.trash_days if days is None else days)).isoformat(
            timespec="seconds"
        )
        old = self.store.trashed_before(cutoff)
        return [d.doc_id for d in self.empty_trash(old)] if old else []

    def set_tags(self, changes: dict[int, list[str]]) -> list[int]:
        """Replace the tags of documents (the caller normalizes them; see organize.merge_tags)."""
        with self.writing() as w:
            return w.set_tags(changes)

    def tag_colors(self) -> dict[str, str]:
        return self.store.tag_colors()

    def set_tag_color(self, tag: str, color: str) -> None:
        with self.writing():
            self.store.set_tag_color(tag, color)
            self.write_organize_file()

    def collection_tree(self) -> CollectionTree:
        return CollectionTree(self.store.collections(), self.store.collection_members())

    def create_collection(self, path: str, created: str | None = None) -> int:
        """The collection at ``path`` ("Parent/Child"), made with any missing parents; its id.
        ``created``: when the new ones were made (an undone deletion keeps the date)."""
        parts = parse_path(path)
        with self.writing():
            before = len(self.store.collections())
            cid = self._ensure_collection(parts, created)
            if len(self.store.collections()) != before:
                self.write_organize_file()
            return cid

    def _ensure_collection(self, parts: Sequence[str], created: str | None = None) -> int:
        """The id of the collection at ``parts``, made with its missing parents (the caller
        holds the writer); ``created``: when the new ones were made (a rebuild keeps the date)."""
        tree = self.collection_tree()
        parent: int | None = None
        for part in parts:
            found = tree.child(parent, part)
            if found is None:
                parent = self.store.add_collection(part, parent, created)
                tree = self.collection_tree()
            else:
                parent = found.collection_id
        assert parent is not None
        return parent

    def _write_sidecars(self, doc_ids: Iterable[int]) -> None:
        for doc_id in sorted(set(doc_ids)):
            self.write_sidecar(doc_id)

    def rename_collection(
        self, collection_id: int, name: str | None = None, *, move: bool = False, parent_id: int | None = None
    ) -> None:
        """Rename a collection (``name``) and / or, with ``move``, put it under ``parent_id`` (None:
        the top); never under itself, never beside a sibling of the same name."""
        if name is not None and SEPARATOR in name:
            raise InvalidInput(f"a collection name cannot hold a {SEPARATOR!r}; move the collection instead")
        with self.writing():
            tree = self.collection_tree()
            c = tree.by_id.get(collection_id)
            if c is None:
                raise CollectionNotFound(f"no collection with id {collection_id}")
            name = parse_path(name)[0] if name is not None else c.name
            parent = parent_id if move else c.parent_id
            p = parent
            while p is not None:
                if p == collection_id:
                    raise InvalidInput(f"the collection {c.path!r} cannot go inside itself")
                p = tree.by_id[p].parent_id if p in tree.by_id else None
            other = tree.child(parent, name)
            if other is not None and other.collection_id != collection_id:
                raise InvalidInput(f"there is already a collection named {other.path!r}")
            self.store.update_collection(collection_id, name, parent)
            # Sidecars name collections by path: every document below this one has a new path.
            self._write_sidecars(c.all_doc_ids())
            self.write_organize_file()

    def delete_collection(self, collection_id: int) -> None:
        """Delete a collection with its sub-collections; their documents stay in the library."""
        with self.writing():
            c = self.collection_tree().by_id.get(collection_id)
            self.store.delete_collection(collection_id)
            if c is not None:
                self._write_sidecars(c.all_doc_ids())
            self.write_organize_file()

    def file_documents(self, collection_id: int, doc_ids: Sequence[int], member: bool = True) -> list[int]:
        """Put documents into a collection (or, ``member`` False, take them out); the ids changed."""
        with self.writing():
            done = self.store.set_membership(collection_id, doc_ids, member)
            self._write_sidecars(done)
            return done

    def note_doc_ids(self) -> set[int]:
        """The documents that have a note (the table's note mark)."""
        return self.store.note_doc_ids()

    def fulltext_counts(self, text: str, doc_ids: Sequence[int] | None = None) -> dict[int, int]:
        """Passages holding every word of ``text``, counted per live document (the library
        pane's full-text filter); {} for a query with no words."""
        q = self.index.all_words_query(text)
        if q is None:
            return {}
        if doc_ids is not None:
            q = tantivy.Query.boolean_query(
                [
                    (tantivy.Occur.Must, q),
                    (tantivy.Occur.Must, tantivy.Query.term_set_query(self.index.schema, "doc_id", list(doc_ids))),
                ]
            )
        with self._thread_lock:
            self._sync()
            counts = self.index.count_by_doc(q)
            live = self._live_ids()
        return {d: n for d, n in counts.items() if d in live}

    def _live_ids(self) -> set[int]:
        if self._catalogue is not None:
            return {d.doc_id for d in self._catalogue}
        # Only the ids: building 10,000 records (their JSON fields) took 0.3 s of the first
        # full-text filter after start-up, for a set of numbers.
        return self.store.ready_ids()

    def fulltext_snippets(self, text: str, doc_ids: Sequence[int], limit: int = 200) -> dict[int, str]:
        """The best matching passage's snippet for each of ``doc_ids`` (at most ``limit``)."""
        out: dict[int, str] = {}
        q = self.index.all_words_query(text)
        ids = list(doc_ids)[:limit]
        if q is None or not ids:
            return out
        scoped = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, q),
                (tantivy.Occur.Must, tantivy.Query.term_set_query(self.index.schema, "doc_id", ids)),
            ]
        )
        with self._thread_lock:
            self._sync()
            best: dict[int, int] = {}
            for h in self.index.search(scoped, max(len(ids) * 4, 50)):
                best.setdefault(h.doc_id, h.chunk_id)
                if len(best) == len(ids):
                    break
            rows = self.store.chunks_by_ids(list(best.values()))
            stems = set(self.index.stems(" ".join(query_terms(text))))
            for doc_id, chunk_id in best.items():
                r = rows.get(chunk_id)
                if r is not None:
                    out[doc_id] = make_snippet(r.text, text, stems, self.index.stems)[0]
        return out

    def _finish_delete(self, doc_id: int) -> None:
        # Order matters for crash safety: index first, then rows, then the file. A crash in
        # between leaves a 'deleting' row that recovery finishes.
        doc = self.store.document(doc_id)
        w = self._get_writer()
        SearchIndex.delete_doc(w, doc_id)
        w.commit()
        self.store.delete_document(doc_id)
        if doc and doc.stored_path and doc.stored_path not in self.store.stored_paths():
            (self.paths.library_dir / doc.stored_path).unlink(missing_ok=True)
            sidecar_path(self.paths, doc.stored_path).unlink(missing_ok=True)
        elif doc and doc.stored_path:
            # Another row shares the copy (a duplicate being repaired): its sidecar is its own.
            remaining = self.store.conn.execute(
                "SELECT id FROM documents WHERE stored_path=? AND status='ready' ORDER BY id LIMIT 1",
                (doc.stored_path,),
            ).fetchone()
            if remaining:
                self.write_sidecar(int(remaining[0]))

    # --- document-pool API ----------------------------------------------------------------------

    def _sync(self) -> None:
        """Drop caches when this or another process changed the library."""
        store = self.store
        version = store.data_version()
        # Not synced before: what changed since the index reader was opened is unknown (another
        # process may have restored a document it had already seen deleted), so reload once.
        other_process = store.seen_version is None or version != store.seen_version
        store.seen_version = version
        if other_process:
            # data_version moves when another connection commits: another process, or another
            # thread of this one. Either way the index may have new segments.
            self.index.reload()
            self._generation += 1
        if self._generation != self._seen_generation:
            self._seen_generation = self._generation
            self._catalogue = None
            self._search_cache.clear()

    def list_documents(self) -> list[DocumentInfo]:
        """Ready documents (title, authors, year …), cached until the library changes."""
        with self._thread_lock:
            self._sync()
            if self._catalogue is None:
                self._catalogue = self.store.documents(("ready",))
            return list(self._catalogue)

    def language_mix(self) -> dict[str, float]:
        """Share of the ready documents in each detected language ({"en": 0.92, "zh": 0.08});
        documents whose language is unknown are not counted. The agent tells a model which
        languages to search in."""
        langs = [d.language for d in self.list_documents() if d.language]
        return {lang: langs.count(lang) / len(langs) for lang in dict.fromkeys(langs)} if langs else {}

    def all_documents(self) -> list[DocumentInfo]:
        """Ready and failed documents, for the library view and ``paperpilot list``."""
        return self.store.documents(("ready", "failed"))

    def document(self, doc_id: int) -> DocumentInfo | None:
        return self.store.document(doc_id)

    def counts(self) -> tuple[int, int]:
        return self.store.counts()

    def search(
        self,
        query: str,
        k: int = 3,
        *,
        doc_ids: Sequence[int] | None = None,
        year_from: int | None = None,
        year_to: int | None = None,
        kinds: Sequence[str] | None = None,
        mode: str | None = None,
    ) -> list[Hit]:
        """Best chunks for ``query``: title, section, page and a two-sentence snippet each.
        ``kinds``: only chunks of these kinds (``text.kinds.Kind`` values; None: every kind).
        ``mode``: "keyword" (Tantivy BM25), "meaning" (the vector store) or "hybrid" (both,
        fused); None: hybrid when the library has vectors, else keyword. Without vectors every
        mode is keyword; each hit says which mode found it (``found_by``) and its scores."""
        k = max(1, min(int(k), 1000))
        mode = self.search_mode(mode)
        kinds_key = tuple(sorted(str(x) for x in kinds)) if kinds is not None else None
        key = (query, k, tuple(doc_ids) if doc_ids is not None else None, year_from, year_to, kinds_key)
        if self.index_error:
            raise LibraryError(self.index_error)
        filters: dict[str, Any] = {
            "doc_ids": doc_ids, "year_from": year_from, "year_to": year_to,
            "kinds": list(kinds_key) if kinds_key is not None else None,
        }  # fmt: skip
        if mode == "keyword":
            with self._thread_lock:
                self._sync()
                cached = self._search_cache.get(key)
                if cached is not None:
                    self._search_cache.move_to_end(key)
                    return list(cached)
                raw = self._keyword(query, k, filters)
                hits = self._hits(query, [Ranked(cid, sc, sc, None) for cid, sc in raw], "keyword")
                self._search_cache[key] = hits
                if len(self._search_cache) > 256:
                    self._search_cache.popitem(last=False)
                return list(hits)
        # By meaning: not cached (the background job adds vectors all the time); the query's
        # vector is, in Semantic.
        assert self.semantic is not None
        depth = max(HYBRID_DEPTH, 2 * k) if mode == "hybrid" else k
        keyword: list[tuple[int, float]] = []
        if mode == "hybrid":
            # The query is embedded on the semantic worker while BM25 runs here (the engine
            # leaves the interpreter lock): with a core free, the keyword half adds no time.
            self.semantic.prefetch(query)
            with self._thread_lock:
                self._sync()
                keyword = self._keyword(query, depth, filters)
        dense = self._dense(query, depth, filters)
        with self._thread_lock:
            self._sync()
            if mode == "meaning":
                ranked = [Ranked(cid, sc, None, sc) for cid, sc in dense]
            else:
                weight = HYBRID_DENSE_WEIGHT_CJK if has_cjk(query) else HYBRID_DENSE_WEIGHT
                ranked = fuse(keyword, dense, weight=weight)
            return self._hits(query, ranked[:k], mode)

    def has_vectors(self) -> bool:
        """Whether any passage has a vector of the current model (search by meaning works)."""
        return self.semantic is not None and self.semantic.has_vectors()

    def search_mode(self, mode: str | None) -> str:
        """The mode a search asked in ``mode`` runs in: hybrid by default once anything is
        embedded; keyword while nothing is (keyword search finds everything). Raises
        InvalidInput for an unknown mode."""
        if mode is not None and mode not in SEARCH_MODES:
            raise InvalidInput(f"unknown search mode {mode!r} ({' | '.join(SEARCH_MODES)})")
        if mode == "keyword" or not self.has_vectors():
            return "keyword"
        return mode or "hybrid"

    def _keyword(self, query: str, k: int, filters: dict[str, Any]) -> list[tuple[int, float]]:
        """Tantivy's best ``k`` (chunk id, BM25 score)."""
        q = self.index.build_query(query, **filters)
        try:
            raw = self.index.search(q, k) if q is not None else []
        except ValueError as e:
            raise LibraryError(
                f"The search index is damaged ({e}); run `paperpilot reindex` to rebuild it."
            ) from e
        return [(h.chunk_id, h.score) for h in raw]

    def _dense(self, query: str, k: int, filters: dict[str, Any]) -> list[tuple[int, float]]:
        """The vector store's best ``k`` live chunks (chunk id, cosine). Vectors of chunks that
        are trashed, deleted or replaced are skipped here: the store is not told of those
        changes (see ``library.semantic``)."""
        assert self.semantic is not None
        # The agent always names the kinds it searches (body, abstract …), and those are nearly
        # all a library's embedded chunks: filter the nearest ones afterwards instead of
        # listing every such chunk id for each search (117k chunks: ~50 ms).
        wanted = set(filters["kinds"]) if filters["kinds"] is not None else None
        other = any(filters[f] is not None for f in ("doc_ids", "year_from", "year_to"))
        allowed: list[int] | None = None
        if other:
            allowed = self.store.live_chunk_ids(**filters)
            if not allowed:
                return []
        try:
            found = self.semantic.search(query, 2 * k + 16 if allowed is None else k, allowed)
            if allowed is None:
                live = self.store.chunks_by_ids([c for c, _ in found])
                kept = [(c, s) for c, s in found if c in live and (wanted is None or live[c].kind in wanted)]
                if len(kept) < min(k, len(found)):  # many gone or of other kinds: search the right ones only
                    found = self.semantic.search(query, k, self.store.live_chunk_ids(**filters))
                else:
                    found = kept
        except PaperPilotError as e:  # no embedder, a damaged vector file: keyword search still works
            log.warning("search by meaning failed: %s", e)
            return []
        return found[:k]

    def _hits(self, query: str, ranked: Sequence[Ranked], mode: str) -> list[Hit]:
        rows = self.store.chunks_by_ids([r.chunk_id for r in ranked])
        stems = set(self.index.stems(" ".join(query_terms(query))))
        hits: list[Hit] = []
        for h in ranked:
            r = rows.get(h.chunk_id)
            if r is None:  # index ahead of a concurrent delete: skip, never crash
                continue
            snippet, terms = make_snippet(r.text, query, stems, self.index.stems)
            found_by = h.found_by if mode == "hybrid" else mode
            hits.append(
                Hit(
                    doc_id=r.doc_id,
                    chunk_id=r.chunk_id,
                    seq=r.seq,
                    title=r.title,
                    section=r.section,
                    page=r.page,
                    score=round(h.fused, 6 if mode == "hybrid" else 4),
                    snippet=snippet,
                    terms=terms,
                    kind=r.kind,
                    section_path=r.section_path,
                    found_by=found_by,
                    bm25=None if h.bm25 is None else round(h.bm25, 4),
                    dense=None if h.dense is None else round(h.dense, 4),
                    fused=round(h.fused, 6) if mode == "hybrid" else None,
                )
            )
        return hits

    def concept_stats(
        self, terms: Sequence[str], sample: int = 40, fuzzy: bool = True, *, doc_ids: Sequence[int] | None = None
    ) -> dict[str, int]:
        """Documents mentioning each term: chunks with all its words that are not a reference
        list (the agent's out-of-library check: a name found only in bibliographies is not in
        the library). Counted over the ``sample`` best chunks per term, so a common term reads
        as "at least that many". ``fuzzy``: long words may be one edit off (typos in names)."""
        from ..text.kinds import Kind, classify_passage

        out: dict[str, int] = {}
        with self._thread_lock:
            self._sync()
            for term in terms:
                q = self.index.all_words_query(term, fuzzy=fuzzy)
                if q is None:
                    out[term] = 0
                    continue
                if doc_ids is not None:  # a scoped question: only its documents count
                    q = tantivy.Query.boolean_query(
                        [
                            (tantivy.Occur.Must, q),
                            (tantivy.Occur.Must, tantivy.Query.term_set_query(self.index.schema, "doc_id", list(doc_ids))),
                        ]
                    )
                raw = self.index.search(q, sample)
                rows = self.store.chunks_by_ids([h.chunk_id for h in raw])
                docs = {
                    r.doc_id for r in rows.values() if classify_passage(r.text, r.section) != Kind.REFERENCES
                }
                out[term] = len(docs)
        return out

    # --- notes (one Markdown text per document, deleted with it; see library.notes) ---------------

    def get_note(self, doc_id: int) -> str:
        """The user's Markdown note on a document ("" when none)."""
        note = self.store.note(doc_id)
        return note[0] if note else ""

    def note_updated(self, doc_id: int) -> str | None:
        """When the note was last saved (ISO 8601 UTC), or None."""
        note = self.store.note(doc_id)
        return note[1] if note else None

    def all_notes(self) -> dict[int, str]:
        """Every note, by document id."""
        return {doc_id: text for doc_id, text, _updated in self.store.notes()}

    def search_notes(self, query: str) -> list[NoteHit]:
        """Notes whose text (or document title) holds every word of ``query``; most recent first.
        An empty query lists every note."""
        return search_notes(self.store.notes_of_ready_documents(), query)

    def set_note(self, doc_id: int, text: str) -> None:
        """Save (or, with an empty text, delete) the note on a document, as one write.

        Raises DocumentNotFound when no ready document has that id, LibraryReadOnly in a
        read-only library, LibraryBusy when another process keeps the writer lock.
        """
        if self.read_only:
            raise LibraryReadOnly(f"The library folder {self.paths.library_dir} is read-only: the note was not saved.")
        with self.writing() as w:
            w.set_note(doc_id, text)

    # --- reference lists --------------------------------------------------------------------

    def references(self, doc_id: int) -> list[LinkedReference]:
        """The parsed reference list of a document, each entry with the library document it
        names (by DOI, arXiv id, or title and year), if any."""
        if self.store.document(doc_id) is None:
            raise DocumentNotFound(f"No document with id {doc_id}.")
        refs = self.store.references(doc_id)
        if not refs:
            return []
        by_doi: dict[str, int] = {}
        by_arxiv: dict[str, int] = {}
        by_title: dict[str, list[tuple[int, int | None]]] = {}
        for d in self.store.documents(("ready",)):
            if d.doc_id == doc_id:
                continue
            if d.doi:
                by_doi.setdefault(normalize_doi(d.doi), d.doc_id)
            if d.arxiv_id:
                by_arxiv.setdefault(normalize_arxiv(d.arxiv_id), d.doc_id)
            tk = title_key(d.title)
            if len(tk) >= 12:
                by_title.setdefault(tk, []).append((d.doc_id, d.year))
        out: list[LinkedReference] = []
        for r in refs:
            linked: int | None = None
            if r.doi:
                linked = by_doi.get(normalize_doi(r.doi))
            if linked is None and r.arxiv_id:
                linked = by_arxiv.get(normalize_arxiv(r.arxiv_id))
            if linked is None:
                for cand, year in by_title.get(title_key(r.title), []):
                    # A title alone may be shared (an editorial, a preprint a year earlier).
                    if year is None or r.year is None or abs(year - r.year) <= 1:
                        linked = cand
                        break
            out.append(LinkedReference(r, linked))
        return out

    def cited_by(self, doc_id: int) -> list[DocumentInfo]:
        """Library documents whose reference list names this document."""
        doc = self.store.document(doc_id)
        if doc is None:
            raise DocumentNotFound(f"No document with id {doc_id}.")
        arxiv = normalize_arxiv(doc.arxiv_id) if doc.arxiv_id else ""
        seen: dict[int, None] = {}
        for citing, _seq, year, by_id in self.store.citing_references(doc.doi, arxiv, doc.title):
            if citing == doc_id or citing in seen:
                continue
            # A title printed with another year is another paper (or another edition).
            if not by_id and year is not None and doc.year is not None and abs(year - doc.year) > 1:
                continue
            seen[citing] = None
        return [d for d in (self.store.document(i) for i in seen) if d is not None]

    def section_opening(self, doc_id: int, segment: int) -> int | None:
        """The first segment of the section ``segment`` is in (None: it has none)."""
        return self.store.section_opening(doc_id, segment)

    def read(self, doc_id: int, segment: int) -> Passage:
        p = self.store.passage(doc_id, segment)
        if p is None:
            doc = self.store.document(doc_id)
            if doc is None:
                raise DocumentNotFound.said(msg("read.no_document", doc_id=doc_id))
            if doc.status == "trashed":
                raise DocumentNotFound.said(msg("read.trashed", doc_id=doc_id))
            raise DocumentNotFound.said(msg("read.no_segment", doc_id=doc_id, segment=segment))
        return p


class LibraryWriter:
    """The writes a ``Library.writing()`` block may make. Each keeps SQLite, the search index
    and the stored copy's sidecar in step; the index work is committed when the block ends."""

    def __init__(self, library: LibraryBase) -> None:
        self._library = library

    def find_ready_by_sha(self, sha256: str) -> int | None:
        """The ready document with this content hash; checked again here, under the lock."""
        return self._library.store.find_ready_by_sha(sha256)

    def add_metadata_document(
        self, *, sha256: str, source_path: str, file_name: str, metadata: Metadata, csl: str, chunks: Sequence[Chunk]
    ) -> int:
        """Add a document with no file (a bibliography entry) and index its chunks."""
        lib = self._library
        doc_id = lib.store.add_metadata_document(
            sha256=sha256, source_path=source_path, file_name=file_name, metadata=metadata, csl=csl, chunks=chunks
        )
        lib.index.add_chunks(lib._get_writer(), lib.store.iter_chunks_for_index([doc_id]))
        lib._pending_index.append(doc_id)
        return doc_id

    def set_csl(
        self,
        doc_id: int,
        csl: str,
        columns: dict[str, Any],
        replace_chunks: Sequence[Chunk] | None = None,
        provenance: tuple[dict[str, str], float | None, bool] | None = None,
    ) -> bool:
        """Store a document's CSL item and its columns (and where each field came from), then
        re-index it; False for an unknown id."""
        if not self._library.store.set_csl(doc_id, csl, columns, replace_chunks=replace_chunks, provenance=provenance):
            return False
        self.reindex_document(doc_id)
        return True

    def update_columns(
        self, doc_id: int, values: dict[str, Any], provenance: tuple[dict[str, str], float | None, bool] | None = None
    ) -> bool:
        """Write edited metadata columns, then re-index the document; False for an unknown id."""
        if not self._library.store.update_columns(doc_id, values, provenance):
            return False
        self.reindex_document(doc_id)
        return True

    def set_note(self, doc_id: int, text: str) -> None:
        """Save the note on ``doc_id`` (an empty text deletes it) and its copy in the sidecar."""
        if not self._library.store.set_note(doc_id, text):
            raise DocumentNotFound(f"No document with id {doc_id}.")
        # The sidecar keeps the note with the stored copy, for a rebuild if the database is lost.
        self._library.write_sidecar(doc_id)

    def reindex_document(self, doc_id: int) -> None:
        """Index the document's chunks again (the title and year are indexed with every chunk)."""
        lib = self._library
        w = lib._get_writer()
        SearchIndex.delete_doc(w, doc_id)
        lib.index.add_chunks(w, lib.store.iter_chunks_for_index([doc_id]))
        lib._pending_index.append(doc_id)
        lib.write_sidecar(doc_id)

    def trash(self, doc_ids: Sequence[int]) -> list[DocumentInfo]:
        """Move ready documents to the trash (see Library.trash); returns those moved."""
        lib = self._library
        moved = lib.store.set_trashed(list(dict.fromkeys(doc_ids)), utc_now())
        w = lib._get_writer()
        for doc_id in moved:
            SearchIndex.delete_doc(w, doc_id)
            lib.write_sidecar(doc_id)
        return [d for d in (lib.store.document(i) for i in moved) if d is not None]

    def restore(self, doc_ids: Sequence[int]) -> list[DocumentInfo]:
        """Take documents out of the trash and index them again; returns those restored."""
        lib = self._library
        back = lib.store.set_trashed(list(dict.fromkeys(doc_ids)), "")
        for doc_id in back:
            self.reindex_document(doc_id)
        return [d for d in (lib.store.document(i) for i in back) if d is not None]

    def set_tags(self, changes: dict[int, list[str]]) -> list[int]:
        """Replace documents' tags (kept in their sidecars too); the ids changed."""
        done = self._library.store.set_tags(changes)
        for doc_id in done:
            self._library.write_sidecar(doc_id)
        return done
