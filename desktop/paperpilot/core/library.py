"""The per-user library: import, remove, recover, and the document-pool API the agent uses.

SQLite is the source of truth; the Tantivy index is derived from it. All writes to either go
through one serialized writer: a thread lock inside this process and a file lock across
processes (the GUI open while the CLI imports).
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import filelock
import tantivy

from .chunker import chunk_pages
from .config import ImportSettings
from .extract.corpus import CorpusError, CorpusRecord, is_corpus_file, iter_corpus
from .extract.pdf import extract_pdf
from .extract.text import extract_text_file
from .index import IndexCorrupt, SearchIndex
from .models import DocumentInfo, Extracted, Hit, ImportFailure, Metadata, Page, Passage
from .paths import AppPaths
from .snippets import make_snippet
from .store import Store, StoreError
from .textutil import detect_language, query_terms

log = logging.getLogger(__name__)

PDF_EXT = {".pdf"}
TEXT_EXT = {".txt", ".md", ".markdown", ".text"}
CORPUS_EXT = {".jsonl"}
# Bibliographies: their entries are merged into matching documents or become metadata-only
# documents (citations/library_meta.py). A .json file counts only when it holds a CSL-JSON array.
BIBLIOGRAPHY_EXT = {".bib", ".ris", ".json"}
SUPPORTED_EXT = PDF_EXT | TEXT_EXT | CORPUS_EXT | BIBLIOGRAPHY_EXT
# Index commits are batched: at most this long between commits while importing.
COMMIT_INTERVAL_S = 1.0


class LibraryBusy(Exception):
    """Another process holds the library's writer lock for longer than we are willing to wait."""


class LibraryError(Exception):
    """A user-facing library error (unknown document, unusable database …)."""


@dataclass
class ImportedDoc:
    doc_id: int
    title: str
    pages: int
    chunks: int
    path: str


@dataclass
class ImportReport:
    imported: list[ImportedDoc] = field(default_factory=list)
    duplicates: list[tuple[str, int]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    cancelled: bool = False
    # Existing documents whose metadata a bibliography entry completed (.bib / .ris / CSL-JSON).
    updated: list[ImportedDoc] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "imported": [
                {"doc_id": d.doc_id, "title": d.title, "pages": d.pages, "chunks": d.chunks, "path": d.path}
                for d in self.imported
            ],
            "updated": [
                {"doc_id": d.doc_id, "title": d.title, "pages": d.pages, "chunks": d.chunks, "path": d.path}
                for d in self.updated
            ],
            "duplicates": [{"path": p, "doc_id": i} for p, i in self.duplicates],
            "failed": [{"path": p, "reason": r} for p, r in self.failed],
            "cancelled": self.cancelled,
        }


@dataclass
class ImportProgress:
    index: int  # 1-based number of the file being imported
    total: int
    path: str


ProgressFn = Callable[[ImportProgress], None]


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files named directly, plus supported files found recursively in named folders."""
    out: list[Path] = []
    for p in paths:
        path = Path(p).expanduser()
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    f = Path(root) / name
                    if not name.startswith(".") and f.suffix.lower() in SUPPORTED_EXT:
                        # A folder of papers may hold any .json (configs, data): only CSL-JSON.
                        if f.suffix.lower() == ".json" and not _looks_like_csl_json(f):
                            continue
                        out.append(f)
        else:
            out.append(path)
    return out


def _looks_like_csl_json(path: Path) -> bool:
    # Imported here: library_meta builds on this module.
    from .citations.library_meta import looks_like_csl_json

    return looks_like_csl_json(path)


def _extract_pdf_path(path: str) -> Extracted:
    return extract_pdf(Path(path))


class _PdfPrefetcher:
    """Extracts the PDFs of a large import in worker processes, a few files ahead.

    Extraction (PDFium plus layout analysis) is most of an import's time and PDFium is not
    thread-safe, so a second process is what uses the second core; SQLite and index writes stay
    in this process, one file at a time, in order. Small imports skip the start-up cost.
    """

    MIN_FILES = 4
    AHEAD = 4

    def __init__(self, pdfs: list[Path], workers: int) -> None:
        # spawn, not fork: the caller may be a thread of a Qt application.
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))
        self.queue = list(pdfs)
        self.futures: dict[Path, Future[Extracted]] = {}
        self.broken = False
        self._fill()

    @classmethod
    def for_files(cls, files: list[Path]) -> _PdfPrefetcher | None:
        pdfs = [f for f in files if f.suffix.lower() in PDF_EXT]
        workers = min(2, os.cpu_count() or 1)
        if len(pdfs) < cls.MIN_FILES or workers < 2:
            return None
        return cls(pdfs, workers)

    def _fill(self) -> None:
        while self.queue and len(self.futures) < self.AHEAD:
            path = self.queue.pop(0)
            self.futures[path] = self.pool.submit(_extract_pdf_path, str(path))

    def result(self, path: Path) -> Extracted:
        future = self.futures.pop(path, None)
        if future is None or self.broken:  # not prefetched, or the pool is gone: do it here
            self.queue = [p for p in self.queue if p != path]
            self._fill()
            return extract_pdf(path)
        self._fill()
        try:
            return future.result()
        except BrokenProcessPool:
            # A worker died (PDFium crashed on a hostile file): this file fails, and the rest
            # of the batch is extracted here.
            self.broken = True
            self.close()
            raise ImportFailure("The PDF could not be read: the text extractor crashed on it.", "corrupt") from None

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class Library:
    """A PaperPilot library rooted at ``paths.library_dir``."""

    def __init__(
        self,
        paths: AppPaths,
        settings: ImportSettings | None = None,
        lock_timeout: float = 15.0,
        recover: bool = True,
    ) -> None:
        self.paths = paths.ensure()
        self.settings = settings or ImportSettings()
        self.lock_timeout = lock_timeout
        # One SQLite connection per thread (the GUI reads while a worker imports); WAL lets them
        # read concurrently, and the writer lock below keeps writes serialized.
        self._local = threading.local()
        self._stores: list[Store] = []
        self._stores_lock = threading.Lock()
        _ = self.store  # open now so a broken database is reported at once
        self._thread_lock = threading.RLock()
        self._file_lock = filelock.FileLock(str(paths.lock_file), thread_local=False)
        self._writer: tantivy.IndexWriter | None = None
        self._pending_index: list[int] = []
        self._last_commit = time.monotonic()
        self._generation = 0
        self._seen_generation = -1
        self._catalogue: list[DocumentInfo] | None = None
        self._search_cache: OrderedDict[tuple[object, ...], list[Hit]] = OrderedDict()
        self.index_rebuilt = False
        try:
            self.index = SearchIndex(paths.index_dir)
        except IndexCorrupt:
            self.index = self._fresh_index()
        if recover:
            self.recover()

    @property
    def store(self) -> Store:
        store: Store | None = getattr(self._local, "store", None)
        if store is None:
            try:
                store = Store(self.paths.database)
            except StoreError as e:
                raise LibraryError(str(e)) from e
            self._local.store = store
            with self._stores_lock:
                self._stores.append(store)
        return store

    def close(self) -> None:
        with self._thread_lock:
            self._flush_and_unlock()
        with self._stores_lock:
            for store in self._stores:
                store.close()
            self._stores.clear()
        self._local = threading.local()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the serialized writer -----------------------------------------------------------------

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        with self._thread_lock:
            if not self._file_lock.is_locked:
                try:
                    self._file_lock.acquire(timeout=self.lock_timeout)
                except filelock.Timeout as e:
                    raise LibraryBusy(
                        "The library is busy: another PaperPilot process is writing to it. "
                        "Try again when it has finished."
                    ) from e
            yield

    def _get_writer(self) -> tantivy.IndexWriter:
        if self._writer is None:
            try:
                self._writer = self.index.writer()
            except ValueError as e:
                raise LibraryBusy(f"The search index is locked by another process: {e}") from e
        return self._writer

    def _flush_and_unlock(self) -> None:
        """Commit pending index work, mark it in SQLite, and release the cross-process lock."""
        if self._writer is not None:
            self._writer.commit()
            self._writer.wait_merging_threads()
            self._writer = None
            self.store.mark_indexed(self._pending_index)
            self._pending_index.clear()
            self.index.reload()
        self._last_commit = time.monotonic()
        if self._file_lock.is_locked:
            self._file_lock.release(force=True)
        self._changed()

    def _maybe_flush(self) -> None:
        if time.monotonic() - self._last_commit >= COMMIT_INTERVAL_S:
            self._flush_and_unlock()

    def _changed(self) -> None:
        self._generation += 1
        self._catalogue = None
        self._search_cache.clear()

    def _fresh_index(self) -> SearchIndex:
        self.index_rebuilt = True
        return SearchIndex.recreate(self.paths.index_dir)

    # --- recovery -----------------------------------------------------------------------------

    def recover(self) -> list[str]:
        """Bring the library back to a consistent state after a crash; returns what was done.

        Only runs when no other process is writing: a live writer's unindexed documents are
        its work in progress, not debris.
        """
        notes: list[str] = []
        with self._thread_lock:
            try:
                self._file_lock.acquire(timeout=0.05)
            except filelock.Timeout:
                return notes
            try:
                for doc_id in self.store.doc_ids_with_status("deleting"):
                    self._finish_delete(doc_id)
                    notes.append(f"finished removing document {doc_id}")
                if self.index_rebuilt or not self.index.healthy(self.store.indexed_chunk_count()):
                    self._rebuild_locked()
                    notes.append("rebuilt the search index")
                else:
                    todo = self.store.unindexed_ready()
                    if todo:
                        w = self._get_writer()
                        for doc_id in todo:
                            SearchIndex.delete_doc(w, doc_id)
                        self.index.add_chunks(w, self.store.iter_chunks_for_index(todo))
                        self._pending_index.extend(todo)
                        notes.append(f"indexed {len(todo)} half-imported document(s)")
                removed = self._remove_orphan_files()
                if removed:
                    notes.append(f"removed {removed} orphaned file(s)")
            finally:
                self._flush_and_unlock()
        for n in notes:
            log.info("recovery: %s", n)
        return notes

    def _remove_orphan_files(self) -> int:
        keep = self.store.stored_paths()
        removed = 0
        for f in self.paths.files_dir.rglob("*"):
            if f.is_file():
                rel = f.relative_to(self.paths.library_dir).as_posix()
                if rel not in keep:
                    f.unlink(missing_ok=True)
                    removed += 1
        return removed

    def reindex(self) -> int:
        """Rebuild the whole index from SQLite; returns the number of chunks indexed."""
        with self._write_lock():
            try:
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

    # --- import -------------------------------------------------------------------------------

    def import_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> ImportReport:
        """Import files and folders one file at a time; one bad file never stops the batch."""
        files = expand_paths(paths)
        report = ImportReport()
        prefetch = _PdfPrefetcher.for_files(files)
        try:
            for i, f in enumerate(files, 1):
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    break
                if progress is not None:
                    progress(ImportProgress(i, len(files), str(f)))
                self._import_one(f, report, cancel, prefetch)
                with self._thread_lock:
                    if self._file_lock.is_locked:
                        self._maybe_flush()
        finally:
            if prefetch is not None:
                prefetch.close()
            with self._thread_lock:
                self._flush_and_unlock()
        return report

    def _import_one(
        self,
        path: Path,
        report: ImportReport,
        cancel: threading.Event | None,
        prefetch: _PdfPrefetcher | None = None,
    ) -> None:
        src = str(path.resolve()) if path.exists() else str(path)
        try:
            ext = path.suffix.lower()
            if not path.exists():
                raise ImportFailure(f"{path} does not exist.", "missing")
            if not path.is_file():
                raise ImportFailure(f"{path} is not a regular file.", "unsupported")
            if ext not in SUPPORTED_EXT:
                raise ImportFailure(
                    f"Unsupported file type '{ext or path.name}': PaperPilot imports PDF, .txt, .md and "
                    ".jsonl corpus files, and .bib, .ris and CSL-JSON bibliographies.",
                    "unsupported",
                )
            size = path.stat().st_size
            limit = self.settings.max_file_mb * 1024 * 1024
            if size > limit:
                raise ImportFailure(
                    f"File is too large ({size / 1048576:.0f} MB; the limit is "
                    f"{self.settings.max_file_mb:g} MB, see the import settings).",
                    "too_large",
                )
            if size == 0:
                raise ImportFailure("The file is empty.", "empty")
            if ext in CORPUS_EXT:
                if not is_corpus_file(path):
                    raise ImportFailure(
                        'Not a PaperPilot corpus: a .jsonl file needs one {"id", "title", "text"} '
                        "object per line.",
                        "unsupported",
                    )
                self._import_corpus(path, report, cancel)
                return
            if ext in BIBLIOGRAPHY_EXT:
                if ext == ".json" and not _looks_like_csl_json(path):
                    raise ImportFailure(
                        "Not a CSL-JSON bibliography: a .json file needs an array of CSL-JSON items "
                        '([{"type": …, "title": …}, …]).',
                        "unsupported",
                    )
                self._import_bibliography(path, report, cancel)
                return
            data = path.read_bytes()
        except ImportFailure as e:
            self._fail(src, path.name, "", e, report)
            return
        except OSError as e:
            self._fail(
                src, path.name, "", ImportFailure(f"The file cannot be read: {e.strerror}.", "io"), report
            )
            return
        digest = sha256_bytes(data)
        dup = self.store.find_ready_by_sha(digest)
        if dup is not None:
            report.duplicates.append((src, dup))
            return
        try:
            if ext in PDF_EXT:
                extracted = prefetch.result(path) if prefetch is not None else extract_pdf(path)
            else:
                extracted = extract_text_file(path)
            self._store_extracted(
                extracted,
                report,
                sha=digest,
                src=src,
                file_name=path.name,
                data=data,
                ext=ext,
                external_id="",
            )
        except ImportFailure as e:
            self._fail(src, path.name, digest, e, report)
        except LibraryBusy:
            raise
        except Exception as e:  # an extractor bug must not end the batch or lose the library
            log.exception("import of %s failed", path)
            self._fail(
                src,
                path.name,
                digest,
                ImportFailure(f"Unexpected error while reading the file: {e}", "error"),
                report,
            )

    def _import_corpus(self, path: Path, report: ImportReport, cancel: threading.Event | None) -> None:
        src = str(path.resolve())
        for item in iter_corpus(path):
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                return
            if isinstance(item, CorpusError):
                report.failed.append((f"{src}:{item.line_no}", item.reason))
                continue
            assert isinstance(item, CorpusRecord)
            data = (item.title + "\n" + item.text).encode("utf-8")
            digest = sha256_bytes(data)
            where = f"{src}:{item.line_no}"
            dup = self.store.find_ready_by_sha(digest)
            if dup is not None:
                report.duplicates.append((where, dup))
                continue
            meta = Metadata(title=item.title or item.external_id, language=detect_language(item.text))
            try:
                self._store_extracted(
                    Extracted(pages=[Page(1, item.text)], metadata=meta, kind="corpus"),
                    report,
                    sha=digest,
                    src=where,
                    file_name=path.name,
                    data=None,
                    ext="",
                    external_id=item.external_id,
                )
            except ImportFailure as e:
                report.failed.append((where, e.reason))
            with self._thread_lock:
                if self._file_lock.is_locked:
                    self._maybe_flush()

    def _import_bibliography(self, path: Path, report: ImportReport, cancel: threading.Event | None) -> None:
        from .citations.library_meta import import_bibliography

        src = str(path.resolve())
        try:
            bib = import_bibliography(self, path, cancel=cancel)
        except (ImportFailure, LibraryBusy):
            raise
        except Exception as e:  # a parser bug must not end the batch
            log.exception("import of %s failed", path)
            report.failed.append((src, f"Unexpected error while reading the bibliography: {e}"))
            return
        if bib.cancelled:
            report.cancelled = True
        for err in bib.errors:
            report.failed.append((f"{src}:{err.line}", err.message))
        for doc_id in bib.created:
            doc = self.document(doc_id)
            if doc is not None:
                report.imported.append(ImportedDoc(doc_id, doc.title, doc.pages, doc.chunks, src))
        # A document every matching entry left unchanged (a re-import) is reported as a
        # duplicate, like a re-imported PDF; one that any entry completed, as updated.
        matches = Counter(doc_id for doc_id, _how in bib.matched)
        unchanged = Counter(bib.unchanged)
        for doc_id in matches:
            if unchanged[doc_id] == matches[doc_id]:
                report.duplicates.append((src, doc_id))
                continue
            doc = self.document(doc_id)
            if doc is not None:
                report.updated.append(ImportedDoc(doc_id, doc.title, doc.pages, doc.chunks, src))

    def _store_extracted(
        self,
        extracted: Extracted,
        report: ImportReport,
        *,
        sha: str,
        src: str,
        file_name: str,
        data: bytes | None,
        ext: str,
        external_id: str,
    ) -> None:
        chunks = chunk_pages(
            extracted.pages, min_chars=self.settings.chunk_min_chars, max_chars=self.settings.chunk_max_chars
        )
        if not chunks:
            raise ImportFailure("The file contains no text.", "empty")
        meta = extracted.metadata
        if not meta.title:
            meta.title = Path(file_name).stem if file_name else external_id
        if not meta.language:
            meta.language = detect_language(" ".join(c.text for c in chunks[:20]))
        stored_rel = ""
        if data is not None:
            stored_rel = f"files/{sha[:2]}/{sha}{ext}"
            self._copy_in(data, self.paths.library_dir / stored_rel)
        page_count = max(extracted.page_count, max((p.number for p in extracted.pages), default=1))
        with self._write_lock():
            doc_id = self.store.add_document(
                sha256=sha,
                file_name=file_name,
                source_path=src,
                stored_path=stored_rel,
                kind=extracted.kind,
                external_id=external_id,
                metadata=meta,
                page_count=page_count,
                size_bytes=len(data) if data is not None else 0,
                chunks=chunks,
            )
            self.index.add_chunks(self._get_writer(), self.store.iter_chunks_for_index([doc_id]))
            self._pending_index.append(doc_id)
        report.imported.append(ImportedDoc(doc_id, meta.title, page_count, len(chunks), src))

    @staticmethod
    def _copy_in(data: bytes, dest: Path) -> None:
        if dest.exists():
            return
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_suffix(dest.suffix + ".part")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, dest)

    def _fail(self, src: str, name: str, sha: str, err: ImportFailure, report: ImportReport) -> None:
        report.failed.append((src, err.reason))
        if err.code in ("missing", "unsupported"):
            return  # nothing to retry: not worth a row in the library
        with self._write_lock():
            self.store.record_failure(
                source_path=src, file_name=name, sha256=sha, reason=err.reason, code=err.code
            )
        self._changed()

    # --- removal ------------------------------------------------------------------------------

    def remove(self, doc_id: int) -> DocumentInfo:
        """Remove a document from the store, the index and the library folder."""
        doc = self.store.document(doc_id)
        if doc is None:
            raise LibraryError(f"No document with id {doc_id}.")
        with self._write_lock():
            try:
                self.store.mark_deleting(doc_id)
                self._finish_delete(doc_id)
            finally:
                self._flush_and_unlock()
        return doc

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

    # --- document-pool API ----------------------------------------------------------------------

    def _sync(self) -> None:
        """Drop caches when this or another process changed the library."""
        store = self.store
        version = store.data_version()
        other_process = store.seen_version is not None and version != store.seen_version
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
    ) -> list[Hit]:
        """Best chunks for ``query``: title, section, page and a two-sentence snippet each."""
        k = max(1, min(int(k), 1000))
        key = (query, k, tuple(doc_ids) if doc_ids is not None else None, year_from, year_to)
        with self._thread_lock:
            self._sync()
            cached = self._search_cache.get(key)
            if cached is not None:
                self._search_cache.move_to_end(key)
                return list(cached)
            q = self.index.build_query(query, doc_ids=doc_ids, year_from=year_from, year_to=year_to)
            try:
                raw = self.index.search(q, k) if q is not None else []
            except ValueError as e:
                raise LibraryError(
                    f"The search index is damaged ({e}); run `paperpilot reindex` to rebuild it."
                ) from e
            rows = self.store.chunks_by_ids([h.chunk_id for h in raw])
            stems = set(self.index.stems(" ".join(query_terms(query))))
            hits: list[Hit] = []
            for h in raw:
                r = rows.get(h.chunk_id)
                if r is None:  # index ahead of a concurrent delete: skip, never crash
                    continue
                snippet, terms = make_snippet(r.text, query, stems, self.index.stems)
                hits.append(
                    Hit(
                        doc_id=r.doc_id,
                        chunk_id=r.chunk_id,
                        seq=r.seq,
                        title=r.title,
                        section=r.section,
                        page=r.page,
                        score=round(h.score, 4),
                        snippet=snippet,
                        terms=terms,
                    )
                )
            self._search_cache[key] = hits
            if len(self._search_cache) > 256:
                self._search_cache.popitem(last=False)
            return list(hits)

    def concept_stats(self, terms: Sequence[str], sample: int = 40, fuzzy: bool = True) -> dict[str, int]:
        """Documents mentioning each term: chunks with all its words that are not a reference
        list (the agent's out-of-library check: a name found only in bibliographies is not in
        the library). Counted over the ``sample`` best chunks per term, so a common term reads
        as "at least that many". ``fuzzy``: long words may be one edit off (typos in names)."""
        from .textkinds import Kind, classify_passage

        out: dict[str, int] = {}
        with self._thread_lock:
            self._sync()
            for term in terms:
                q = self.index.all_words_query(term, fuzzy=fuzzy)
                if q is None:
                    out[term] = 0
                    continue
                raw = self.index.search(q, sample)
                rows = self.store.chunks_by_ids([h.chunk_id for h in raw])
                docs = {
                    r.doc_id for r in rows.values() if classify_passage(r.text, r.section) != Kind.REFERENCES
                }
                out[term] = len(docs)
        return out

    def get_note(self, doc_id: int) -> str:
        """The user's Markdown note on a document ("" when none); see core.notes."""
        from .notes import get_note

        return get_note(self, doc_id)

    def set_note(self, doc_id: int, text: str) -> None:
        """Save (or, with an empty text, delete) the note on a document; see core.notes."""
        from .notes import set_note

        set_note(self, doc_id, text)

    def read(self, doc_id: int, segment: int) -> Passage:
        p = self.store.passage(doc_id, segment)
        if p is None:
            if self.store.document(doc_id) is None:
                raise LibraryError(f"No document with id {doc_id}.")
            raise LibraryError(f"Document {doc_id} has no segment {segment}.")
        return p
