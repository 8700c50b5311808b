"""The import pipeline: files and folders into a library, one file at a time under its one writer.

The import of one file is one critical section under the library's serialized writer
(``LibraryBase``): the duplicate check by content hash, the copy into the library folder, the
SQLite commit and the index update. Two imports of the same folder therefore take turns file
by file, and the second one finds the first one's documents as duplicates. Extraction, the slow
part, stays outside (and in worker processes). A writer keeps the cross-process lock across
files so that index commits can be batched, and hands it over between files as soon as another
writer queues for it; one that gets no turn within ``lock_timeout`` is told "busy" and its batch
stops there, keeping what it imported (``ImportReport.stopped``).

A copy is written as ``<name>.part`` and renamed only after its row is committed, all under the
writer lock (``library.recovery`` settles the ``.part`` files of a writer that died).

Part of the library's implementation: ``Library`` delegates ``import_paths`` here, and the
importer uses the writer's members as the class it was split from did.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..citations.csl_record import looks_like_csl_json
from ..citations.formats import BIBLIOGRAPHY_EXT
from ..citations.references import parse_references
from ..errors import (
    InvalidInput,
    LibraryBusy,
    LibraryError,
)
from ..extract.chunker import chunk_document
from ..extract.corpus import CorpusError, CorpusRecord, is_corpus_file, iter_corpus
from ..extract.metadata import confidence as metadata_confidence
from ..extract.ocr import LocalOcrPool, OcrCancelled, OcrPool, OcrUnavailable, ocr_available, run_ocr
from ..extract.pdf import PdfScan, finish_pdf, read_pdf_for_import
from ..extract.text import extract_text_file
from ..extract.worker_processes import ExtractionPool, WorkerCrashed
from ..models import Extracted, ImportFailure, Metadata, Page
from ..text.language import detect_language
from ..text.messages import Message, msg
from .library_base import PART_SUFFIX, LibraryBase
from .metadata import import_bibliography
from .organize import parse_path
from .sidecar import METADATA_KEYS

log = logging.getLogger(__name__)

PDF_EXT = {".pdf"}


TEXT_EXT = {".txt", ".md", ".markdown", ".text"}


CORPUS_EXT = {".jsonl"}


SUPPORTED_EXT = PDF_EXT | TEXT_EXT | CORPUS_EXT | BIBLIOGRAPHY_EXT


# Extensions whose files are kept as stored copies (and can be rebuilt from them).
STORED_EXT = PDF_EXT | TEXT_EXT


class _Cancelled(Exception):
    """The import was cancelled while waiting for an extraction."""


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
    # Files found in the folders given that PaperPilot cannot import (path, why).
    unsupported: list[tuple[str, str]] = field(default_factory=list)
    # Why the batch stopped before its end (disk full, busy, read-only): one line, "" if it did not.
    stopped: str = ""
    # The files the batch did not get to because it stopped.
    not_imported: list[str] = field(default_factory=list)
    # Each reason above (failed, unsupported, stopped) as a catalogued message, by its words.
    said: dict[str, Message] = field(default_factory=dict)

    def message(self, reason: str) -> Message | None:
        """``reason`` (one of this report's) as a catalogued message, when core gave it as one."""
        return self.said.get(reason)

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
            "unsupported": [{"path": p, "reason": r} for p, r in self.unsupported],
            "cancelled": self.cancelled,
            "stopped": self.stopped or None,
            "not_imported": list(self.not_imported),
        }


@dataclass
class ImportProgress:
    index: int  # 1-based number of the file being imported
    total: int
    path: str
    detail: str = ""  # a step within the file, e.g. "OCR page 3 of 12"
    detail_msg: Message | None = None  # the same as a catalogued message


ProgressFn = Callable[[ImportProgress], None]


def text_path(path: str) -> str:
    """``path`` as text that SQLite and JSON can hold: bytes of a non-UTF-8 name as \\xNN."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return path


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def scan_paths(paths: Iterable[str | os.PathLike[str]]) -> tuple[list[Path], list[tuple[str, Message]]]:
    """Files to import (named directly, or found recursively in named folders), and the files
    in those folders that cannot be imported, with the reason. Hidden files and folders are
    skipped silently; a file named directly is always returned (its import says what is wrong).
    """
    out: list[Path] = []
    unsupported: list[tuple[str, Message]] = []
    for p in paths:
        path = Path(p).expanduser()
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                for name in sorted(files):
                    if name.startswith("."):
                        continue
                    f = Path(root) / name
                    why = _unsupported_reason(f)
                    if why is not None:
                        unsupported.append((str(f.resolve()), why))
                    else:
                        out.append(f)
        else:
            out.append(path)
    return out, unsupported


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files named directly, plus supported files found recursively in named folders."""
    return scan_paths(paths)[0]


def _unsupported_reason(f: Path) -> Message | None:
    ext = f.suffix.lower()
    if not ext:
        return msg("import.no_extension")
    if ext not in SUPPORTED_EXT:
        return msg("import.unsupported_found", ext=ext)
    # A folder of papers may hold any .json (configs, data): only CSL-JSON.
    if ext == ".json" and not looks_like_csl_json(f):
        return msg("import.json_not_csl")
    return None


class _PdfPrefetcher:
    """Extracts the PDFs of a large import in worker processes, a few files ahead.

    Extraction (PDFium plus layout analysis) is most of an import's time and PDFium is not
    thread-safe, so a second process is what uses the second core; SQLite and index writes stay
    in this process, one file at a time, in order. Small imports skip the start-up cost.
    """

    MIN_FILES = 4
    AHEAD = 4
    WAIT_S = 0.1

    def __init__(self, pdfs: list[Path], workers: int, ocr: bool = False, ocr_off: bool = False) -> None:
        self.ocr = ocr  # PDFs with pages that need OCR come back as a PdfScan
        self.ocr_off = ocr_off
        self.pool = ExtractionPool(workers)
        self.queue: deque[Path] = deque(pdfs)
        self.futures: dict[Path, Future[Extracted | PdfScan]] = {}
        self._fill()

    @classmethod
    def for_files(cls, files: list[Path], ocr: bool = False, ocr_off: bool = False) -> _PdfPrefetcher | None:
        pdfs = [f for f in files if f.suffix.lower() in PDF_EXT]
        workers = min(2, os.cpu_count() or 1)
        if len(pdfs) < cls.MIN_FILES or workers < 2 or not ExtractionPool.available():
            return None
        return cls(pdfs, workers, ocr, ocr_off)

    def _fill(self) -> None:
        while self.queue and len(self.futures) < self.AHEAD:
            path = self.queue.popleft()
            self.futures[path] = self.pool.submit(str(path), ocr=self.ocr, ocr_off=self.ocr_off)

    def _here(self, path: Path) -> Extracted | PdfScan:
        return read_pdf_for_import(path, ocr=self.ocr, ocr_off=self.ocr_off)

    def result(self, path: Path, idle: Callable[[], bool]) -> Extracted | PdfScan:
        """The extraction of ``path``. While it is not ready, ``idle`` is called every
        WAIT_S (the library hands its writer lock over there); it returns True to give up."""
        future = self.futures.pop(path, None)
        if future is None:  # not prefetched: do it here
            self.queue = deque(p for p in self.queue if p != path)
            self._fill()
            return self._here(path)
        self._fill()
        while True:
            try:
                return future.result(timeout=self.WAIT_S)
            except TimeoutError:
                self.pool.maintain()
                if idle():
                    raise _Cancelled() from None
            except WorkerCrashed as e:
                if e.culprit:
                    raise ImportFailure(msg("import.extractor_crashed"), "corrupt") from None
                return self._here(path)
            except CancelledError:
                return self._here(path)

    def close(self) -> None:
        self.pool.close()


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _json_text(value: object) -> str:
    import json

    return json.dumps(value, ensure_ascii=False) if isinstance(value, dict) and value else "{}"


class Importer:
    """The import pipeline of one library: extraction (in worker processes for a large batch, OCR
    for pages without text), chunking, and the store of each file under the library's writer."""

    def __init__(self, library: LibraryBase) -> None:
        self.lib = library
        # OCR workers of the running import (started on the first page that needs OCR).
        self._ocr_pool: OcrPool | None = None

    def import_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> ImportReport:
        """Import files and folders one file at a time; one bad file never stops the batch.

        A full disk, a read-only folder or a writer lock that does not come stop it: what was
        imported is kept, ``stopped`` says why in one line and ``not_imported`` lists the rest.
        """
        files, unsupported = scan_paths(paths)
        report = ImportReport(unsupported=[(p, m.text()) for p, m in unsupported], said={m.text(): m for _, m in unsupported})
        try:
            self.lib._check_writable()
        except LibraryError as e:
            report.stopped = str(e)
            report.not_imported = [str(f) for f in files]
            return report
        prefetch = _PdfPrefetcher.for_files(files, ocr=self._ocr_wanted(), ocr_off=not self.lib.settings.ocr)
        self.lib._index_threads = 1 if prefetch is not None else 0
        try:
            for i, f in enumerate(files):
                if cancel is not None and cancel.is_set():
                    report.cancelled = True
                    break
                step: Callable[[Message], None] | None = None
                if progress is not None:
                    progress(ImportProgress(i + 1, len(files), str(f)))

                    def step(detail: Message, i: int = i, f: Path = f) -> None:
                        assert progress is not None
                        progress(ImportProgress(i + 1, len(files), str(f), detail.text(), detail))

                try:
                    self._import_one(f, report, cancel, prefetch, step)
                    self.lib.handover()
                except _Cancelled:
                    report.cancelled = True
                    break
                except (LibraryError, LibraryBusy) as e:
                    self._stop(report, e, files[i:])
                    break
        finally:
            self.lib._index_threads = 0
            if prefetch is not None:
                prefetch.close()
            self.close_ocr_pool()
            try:
                self.lib.flush()
            except LibraryError as e:
                self._stop(report, e, [])
        return report

    @staticmethod
    def _stop(report: ImportReport, e: BaseException, rest: list[Path]) -> None:
        if not report.stopped:
            report.stopped = str(e)
        done = {d.path for d in report.imported} | {p for p, _ in report.duplicates}
        report.not_imported.extend(str(f) for f in rest if str(f.resolve()) not in done)

    def _import_one(
        self,
        path: Path,
        report: ImportReport,
        cancel: threading.Event | None,
        prefetch: _PdfPrefetcher | None = None,
        step: Callable[[Message], None] | None = None,
    ) -> None:
        # A file name that is not valid UTF-8 reaches us with surrogates, which SQLite and JSON
        # cannot hold: the library keeps its readable form (bytes as \xNN).
        src = text_path(str(path.resolve()) if path.exists() else str(path))
        name = text_path(path.name)
        try:
            ext = path.suffix.lower()
            if not path.exists():
                raise ImportFailure(msg("import.missing", path=str(path)), "missing")
            if not path.is_file():
                raise ImportFailure(msg("import.not_regular", path=str(path)), "unsupported")
            if ext not in SUPPORTED_EXT:
                raise ImportFailure(msg("import.unsupported_type", ext=ext or name), "unsupported")
            size = path.stat().st_size
            limit = self.lib.settings.max_file_mb * 1024 * 1024
            if size > limit:
                raise ImportFailure(
                    msg("import.too_large", size=f"{size / 1048576:.0f}", limit=f"{self.lib.settings.max_file_mb:g}"),
                    "too_large",
                )
            if size == 0:
                raise ImportFailure(msg("import.empty"), "empty")
            if ext in CORPUS_EXT:
                if not is_corpus_file(path):
                    raise ImportFailure(msg("import.not_corpus"), "unsupported")
                self._import_corpus(path, report, cancel)
                return
            if ext in BIBLIOGRAPHY_EXT:
                if ext == ".json" and not looks_like_csl_json(path):
                    raise ImportFailure(msg("import.not_csl_json"), "unsupported")
                self._import_bibliography(path, report, cancel)
                return
            data = path.read_bytes()
        except ImportFailure as e:
            self._fail(src, name, "", e, report)
            return
        except OSError as e:
            self._fail(
                src, name, "", ImportFailure(msg("import.cannot_read", error=str(e.strerror)), "io"), report
            )
            return
        digest = sha256_bytes(data)
        # A first look without the lock spares the extraction of a known file; the check that
        # counts is repeated inside the critical section.
        dup = self.lib.store.find_ready_by_sha(digest)
        if dup is not None:
            report.duplicates.append((src, dup))
            return
        try:
            if ext in PDF_EXT:
                extracted = self.extract_pdf(path, prefetch, cancel, step)
            else:
                extracted = extract_text_file(path)
            self.store_extracted(
                extracted,
                report,
                sha=digest,
                src=src,
                file_name=name,
                data=data,
                ext=ext,
                external_id="",
            )
        except ImportFailure as e:
            self._fail(src, name, digest, e, report)
        except (LibraryBusy, LibraryError, _Cancelled):
            raise
        except Exception as e:  # an extractor bug must not end the batch or lose the library
            log.exception("import of %s failed", path)
            self._fail(
                src,
                name,
                digest,
                ImportFailure(msg("import.unexpected", error=str(e)), "error"),
                report,
            )

    def _ocr_wanted(self) -> bool:
        return self.lib.settings.ocr and ocr_available()

    def extract_pdf(
        self,
        path: Path,
        prefetch: _PdfPrefetcher | None = None,
        cancel: threading.Event | None = None,
        step: Callable[[Message], None] | None = None,
    ) -> Extracted:
        """The PDF's text: its text layer, and OCR in worker processes for pages without one."""
        if prefetch is not None:
            got = prefetch.result(path, lambda: self._idle(cancel))
        else:
            got = read_pdf_for_import(path, ocr=self._ocr_wanted(), ocr_off=not self.lib.settings.ocr)
        if isinstance(got, Extracted):
            return got
        pool = self._ocr_pool
        if pool is None:
            workers = max(1, min(self.lib.settings.ocr_workers, os.cpu_count() or 1))
            pool = ExtractionPool(workers) if ExtractionPool.available() else LocalOcrPool()
            self._ocr_pool = pool

        def on_page(done: int, total: int) -> None:
            if step is not None:
                step(msg("import.ocr_page", done=done, total=total))

        try:
            lines = run_ocr(pool, got.path, got.ocr_pages, on_page, lambda: self._idle(cancel))
        except OcrCancelled:
            self._ocr_pool = None  # run_ocr ended its workers
            raise _Cancelled() from None
        except OcrUnavailable as e:
            log.warning("OCR unavailable: %s", e)
            return finish_pdf(got, None)
        return finish_pdf(got, lines)

    def close_ocr_pool(self) -> None:
        pool, self._ocr_pool = self._ocr_pool, None
        if pool is not None:
            pool.close()

    def _idle(self, cancel: threading.Event | None) -> bool:
        """Called while waiting for an extraction: hand the lock over if wanted; True to give up."""
        self.lib.handover()
        return cancel is not None and cancel.is_set()

    def _import_corpus(self, path: Path, report: ImportReport, cancel: threading.Event | None) -> None:
        src = text_path(str(path.resolve()))
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
            dup = self.lib.store.find_ready_by_sha(digest)
            if dup is not None:
                report.duplicates.append((where, dup))
                continue
            meta = Metadata(title=item.title or item.external_id, language=detect_language(item.text))
            try:
                self.store_extracted(
                    Extracted(pages=[Page(1, item.text)], metadata=meta, kind="corpus"),
                    report,
                    sha=digest,
                    src=where,
                    file_name=text_path(path.name),
                    data=None,
                    ext="",
                    external_id=item.external_id,
                )
            except ImportFailure as e:
                report.failed.append((where, e.reason))
                if e.msg is not None:
                    report.said[e.reason] = e.msg
            self.lib.handover()

    def _import_bibliography(self, path: Path, report: ImportReport, cancel: threading.Event | None) -> None:
        src = text_path(str(path.resolve()))
        try:
            bib = import_bibliography(self.lib, path, cancel=cancel)
        except (ImportFailure, LibraryBusy):
            raise
        except Exception as e:  # a parser bug must not end the batch
            log.exception("import of %s failed", path)
            said = msg("import.unexpected_bibliography", error=str(e))
            report.failed.append((src, said.text()))
            report.said[said.text()] = said
            return
        if bib.cancelled:
            report.cancelled = True
        for err in bib.errors:
            report.failed.append((f"{src}:{err.line}", err.message))
        for doc_id in bib.created:
            doc = self.lib.document(doc_id)
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
            doc = self.lib.document(doc_id)
            if doc is not None:
                report.updated.append(ImportedDoc(doc_id, doc.title, doc.pages, doc.chunks, src))

    def store_extracted(
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
        stored_rel: str = "",
        restore: dict[str, Any] | None = None,
    ) -> int | None:
        """Chunk, then store one document in one critical section; returns its id (None: duplicate).

        ``data``: the file's bytes, copied into the library folder. ``stored_rel`` instead: the
        copy is already there (rebuilding from stored copies), and ``restore`` holds its
        sidecar's record (file name, dates, edited metadata, CSL, note).
        """
        structure = extracted.structure
        chunks, reference_paragraphs = chunk_document(
            extracted.pages,
            min_chars=self.lib.settings.chunk_min_chars,
            max_chars=self.lib.settings.chunk_max_chars,
            blocks=structure.blocks if structure is not None else None,
        )
        if structure is not None:
            references = structure.references
        else:
            references = parse_references(reference_paragraphs) if extracted.kind != "corpus" else []
        if not chunks:
            raise ImportFailure("The file contains no text.", "empty")
        meta = extracted.metadata
        # Extractors title a text file by its name, which may hold undecodable bytes.
        meta.title = text_path(meta.title)
        if restore:
            for key in METADATA_KEYS:
                value = restore.get(key)
                if value not in (None, "", []):
                    setattr(meta, key, value)
        if not meta.title:
            meta.title = Path(file_name).stem if file_name else external_id
            meta.sources.pop("title", None)
        if not meta.language:
            meta.language = detect_language(" ".join(c.text for c in chunks[:20]))
        restored_sources = (restore or {}).get("metadata_sources")
        if isinstance(restored_sources, dict) and restored_sources:
            meta.sources = {str(k): str(v) for k, v in restored_sources.items()}
        else:
            meta.sources.setdefault("title", "filename")
        meta.confidence, meta.check = metadata_confidence(meta.sources)
        page_count = max(extracted.page_count, max((p.number for p in extracted.pages), default=1))
        with self.lib._as_writer(), self.lib.storage_errors():
            # The check that counts: another process may have stored this file since we looked.
            dup = self.lib.store.find_ready_by_sha(sha)
            if dup is not None:
                report.duplicates.append((src, dup))
                return None
            part: Path | None = None
            final: Path | None = None
            if data is not None:
                stored_rel = f"files/{sha[:2]}/{sha}{ext}"
                final = self.lib.paths.library_dir / stored_rel
                part = self.write_part(data, final)  # the fsync keeps only writers waiting
            with self.lib._thread_lock:
                try:
                    doc_id = self.lib.store.add_document(
                        sha256=sha,
                        file_name=file_name,
                        source_path=src,
                        stored_path=stored_rel,
                        kind=extracted.kind,
                        external_id=external_id,
                        metadata=meta,
                        page_count=page_count,
                        size_bytes=len(data) if data is not None else _size(self.lib.paths.library_dir / stored_rel),
                        chunks=chunks,
                        added=(restore or {}).get("added") or None,
                        csl=_json_text((restore or {}).get("csl") or meta.csl),
                        tags=[str(t) for t in (restore or {}).get("tags") or []],
                        doc_id=_int_or_none((restore or {}).get("doc_id")),
                        references=references,
                    )
                except BaseException:
                    if part is not None:
                        part.unlink(missing_ok=True)
                    raise
                if part is not None and final is not None:
                    # After the commit: a crash in between leaves a row and its .part, which
                    # recovery renames; never a finished copy without a row.
                    os.replace(part, final)
                if restore and restore.get("note"):
                    self.lib.store.restore_note(doc_id, str(restore["note"]), restore.get("note_updated"))
                if restore and isinstance(restore.get("collections"), list):
                    self._refile(doc_id, restore["collections"])
                # A document rebuilt from a copy that was in the trash goes back there.
                in_trash = bool(restore and isinstance(restore.get("trashed"), str) and restore["trashed"])
                if in_trash:
                    self.lib.store.set_trashed([doc_id], str((restore or {})["trashed"]))
                if stored_rel:
                    self.lib.write_sidecar(doc_id)
                if not in_trash:
                    self.lib.index.add_chunks(self.lib._get_writer(), self.lib.store.iter_chunks_for_index([doc_id]))
                    self.lib._pending_index.append(doc_id)
        report.imported.append(ImportedDoc(doc_id, meta.title, page_count, len(chunks), src))
        return doc_id

    def _refile(self, doc_id: int, paths: list[Any]) -> None:
        """Put a rebuilt document back into the collections its sidecar names (made when the
        tree lost them); the caller holds the writer."""
        made = False
        for path in paths:
            try:
                parts = parse_path(str(path))
            except InvalidInput:
                continue
            before = len(self.lib.store.collections())
            cid = self.lib._ensure_collection(parts)
            made = made or len(self.lib.store.collections()) != before
            self.lib.store.set_membership(cid, [doc_id], True)
        if made:
            self.lib.write_organize_file()

    @staticmethod
    def write_part(data: bytes, dest: Path) -> Path | None:
        """Write the copy beside its final name; None when an identical copy is already there."""
        if dest.exists():
            return None  # named by content hash: the same bytes
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + PART_SUFFIX)
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return tmp

    def _fail(self, src: str, name: str, sha: str, err: ImportFailure, report: ImportReport) -> None:
        report.failed.append((src, err.reason))
        if err.msg is not None:
            report.said[err.reason] = err.msg
        if err.code in ("missing", "unsupported"):
            return  # nothing to retry: not worth a row in the library
        with self.lib._write_lock(), self.lib.storage_errors():
            self.lib.store.record_failure(
                source_path=src, file_name=name, sha256=sha, reason=err.reason, code=err.code, said=err.msg
            )
        self.lib._changed()
