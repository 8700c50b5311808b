"""Recovery: the library brought back to a consistent state after a crash, a stored copy
re-imported when its row was lost, and the repairs the integrity check asks for.

Nothing deletes a stored copy it cannot prove orphaned. Start-up recovery runs only with the
writer lock, never touches a completed copy without a row (a lost database leaves exactly
those: ``paperpilot check --repair`` re-imports them, ``restore_stored_copy``), and removes
``.part`` files only when the previous lock holder is known to have died while writing.

Part of the library's implementation: ``Library`` delegates its recovery and repair methods
here, and recovery uses the writer's members as the class it was split from did.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from datetime import timedelta
from pathlib import Path

from ..clock import now as clock_now
from ..extract.text import extract_text_file
from ..models import ImportFailure
from .importer import PDF_EXT, STORED_EXT, Importer, ImportReport, sha256_bytes
from .index import SearchIndex
from .library_base import COLLECTIONS_KEPT, PART_SUFFIX, SIDECARS_DONE, LibraryBase, plural
from .sidecar import sidecar_path

log = logging.getLogger(__name__)

def _file_sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Recovery:
    """Recovery and repair of one library; ``importer`` re-imports its stored copies."""

    def __init__(self, library: LibraryBase, importer: Importer) -> None:
        self.lib = library
        self.importer = importer

    def recover(self) -> list[str]:
        """Bring the library back to a consistent state after a crash; returns what was done.

        Runs only when the writer lock is free right now: a live writer's unindexed documents
        and ``.part`` files are its work in progress, not debris. Nothing it does loses data:
        it finishes removals the user asked for, indexes committed documents, and removes
        half-written copies only when the lock file says their writer died.
        """
        notes: list[str] = []
        if self.lib.read_only or self.lib.damaged:
            return notes
        with self.lib._writing():
            try:
                if not self.lib._lock.try_acquire():
                    return notes
            except OSError:
                return notes
            self.lib._last_commit = time.monotonic()
            try:
                self.recover_locked(notes, after_crash=self.lib._lock.inherited_dirty)
                self._purge_expired_locked(notes)
            finally:
                try:
                    self.lib._flush_and_unlock()
                except Exception as e:
                    self.lib._drop_writer()
                    notes.append(f"could not finish: {e}")
                    log.warning("recovery could not finish: %s", e)
        for n in notes:
            log.info("recovery: %s", n)
        self.lib.recovery_notes = notes
        return notes

    def recover_locked(self, notes: list[str], *, after_crash: bool) -> None:
        try:
            with self.lib.storage_errors():
                for doc_id in self.lib.store.doc_ids_with_status("deleting"):
                    self.lib._finish_delete(doc_id)
                    notes.append(f"finished removing document {doc_id}")
                if after_crash:
                    self._settle_part_files(notes)
                todo = self.lib.store.unindexed_ready()
                if self.lib.index_rebuilt or not self.lib.index.healthy(self.lib.store.indexed_chunk_count()):
                    self.lib._rebuild_locked()
                    notes.append("rebuilt the search index")
                elif todo:
                    w = self.lib._get_writer()
                    for doc_id in todo:
                        SearchIndex.delete_doc(w, doc_id)
                    self.lib.index.add_chunks(w, self.lib.store.iter_chunks_for_index(todo))
                    self.lib._pending_index.extend(todo)
                    notes.append(f"indexed {len(todo)} half-imported document(s)")
                # A crash between the commit of a row and its sidecar leaves the row unindexed.
                for doc_id in todo:
                    self.lib.write_sidecar(doc_id)
                if self.lib.store.get_meta(SIDECARS_DONE) is None:
                    n = self._write_all_sidecars()
                    if n:
                        notes.append(f"wrote {plural(n, 'sidecar')} for stored copies")
                if self.lib.store.get_meta(COLLECTIONS_KEPT) is None:
                    filed = {i for ids in self.lib.store.collection_members().values() for i in ids}
                    self.lib._write_sidecars(filed)
                    if filed or self.lib.store.collections() or self.lib.store.tag_colors():
                        self.lib.write_organize_file()
                        notes.append("kept the collections and tag colours beside the stored copies")
                    self.lib.store.set_meta(COLLECTIONS_KEPT, "1")
        except Exception as e:
            # Recovery is best effort and reading must keep working (a full disk, a second index
            # writer, a damaged index): say so and go on; the integrity check reports the rest.
            self.lib._drop_writer()
            notes.append(f"could not finish: {e}")
            log.warning("recovery could not finish: %s", e)

    def _purge_expired_locked(self, notes: list[str], days: int | None = None) -> None:
        """Empty what has been in the trash longer than ``trash_days`` (caller holds the lock)."""
        cutoff = (clock_now() - timedelta(days=self.lib.trash_days if days is None else days)).isoformat(
            timespec="seconds"
        )
        try:
            with self.lib.storage_errors():
                old = self.lib.store.trashed_before(cutoff)
                for doc_id in old:
                    self.lib.store.mark_deleting(doc_id)
                    self.lib._finish_delete(doc_id)
        except Exception as e:  # best effort, like the rest of recovery: the next start tries again
            self.lib._drop_writer()
            notes.append(f"could not empty the old trash: {e}")
            return
        if old:
            notes.append(f"emptied {plural(len(old), 'document')} kept in the trash over {self.lib.trash_days} days")

    def _settle_part_files(self, notes: list[str]) -> None:
        """Finish or remove the ``.part`` copies of a writer that died (caller holds the lock)."""
        wanted = self.lib.store.stored_paths()
        finished = removed = 0
        for rel, part in list(self.lib.iter_stored_files(parts=True)):
            final_rel = rel[: -len(PART_SUFFIX)]
            final = self.lib.paths.library_dir / final_rel
            if final_rel in wanted and not final.exists() and _file_sha(part) == Path(final_rel).stem:
                os.replace(part, final)  # committed, then the writer died before the rename
                finished += 1
            elif final_rel in wanted and not final.exists():
                self.lib.quarantine(part, "an unfinished copy whose content does not match its document")
            else:
                part.unlink(missing_ok=True)  # its row was never committed: the import did not happen
                removed += 1
        if finished:
            notes.append(f"finished storing {plural(finished, 'copy')}")
        if removed:
            notes.append(f"removed {plural(removed, 'unfinished copy')} of imports that did not complete")

    def _write_all_sidecars(self) -> int:
        """Once per library (upgrades from before sidecars): a sidecar for every stored copy."""
        n = 0
        for doc_id, stored in self.lib.store.conn.execute(
            "SELECT id, stored_path FROM documents WHERE status='ready' AND stored_path != ''"
        ).fetchall():
            if not sidecar_path(self.lib.paths, stored).exists():
                self.lib.write_sidecar(int(doc_id))
                n += 1
        self.lib.store.set_meta(SIDECARS_DONE, "1")
        return n

    def restore_stored_copy(self, rel: str, report: ImportReport) -> int | None:
        """Re-import a stored copy that no document refers to (a lost database, a crash).

        The copy stays where it is; its sidecar, when there is one, brings back the file name,
        source, date, edited metadata, CSL data and note. Raises ImportFailure when the file
        cannot be imported (the caller quarantines it). Returns the new document id, or None
        when a document with the same content exists.
        """
        path = self.lib.paths.library_dir / rel
        ext = path.suffix.lower()
        if ext not in STORED_EXT:
            raise ImportFailure(f"Not a kind of file PaperPilot stores ('{ext}').", "unsupported")
        data = path.read_bytes()
        digest = sha256_bytes(data)
        if digest != path.stem:
            raise ImportFailure("Its content does not match its name (it was changed or damaged).", "corrupt")
        side = self.lib.read_sidecar(rel) or {}
        if side.get("sha256") not in (None, digest):
            side = {}
        try:
            extracted = self.importer.extract_pdf(path) if ext in PDF_EXT else extract_text_file(path)
        finally:
            self.importer.close_ocr_pool()
        return self.importer.store_extracted(
            extracted,
            report,
            sha=digest,
            src=str(side.get("source_path") or ""),
            file_name=str(side.get("file_name") or path.name),
            data=None,
            ext=ext,
            external_id="",
            stored_rel=rel,
            restore=side,
        )

    def finish_removal(self, doc_id: int) -> None:
        """Finish a removal that a crash interrupted (a 'deleting' row)."""
        with self.lib._write_lock(), self.lib.storage_errors():
            self.lib._finish_delete(doc_id)

    def settle_part_files(self) -> list[str]:
        """Finish or remove ``.part`` copies; only safe while no writer can be writing them,
        which holding the lock (``exclusive()``) guarantees."""
        notes: list[str] = []
        with self.lib._write_lock(), self.lib.storage_errors():
            self._settle_part_files(notes)
        return notes

    def recopy_from_source(self, doc_id: int) -> bool:
        """Put back a document's missing stored copy from its original file, if that still
        exists with the same content; False when it cannot be found."""
        doc = self.lib.store.document(doc_id)
        if doc is None or not doc.stored_path or not doc.source_path:
            return False
        src = Path(doc.source_path)
        try:
            data = src.read_bytes()
        except OSError:
            return False
        if sha256_bytes(data) != doc.sha256:
            return False
        final = self.lib.paths.library_dir / doc.stored_path
        with self.lib._write_lock(), self.lib.storage_errors():
            part = Importer.write_part(data, final)
            if part is not None:
                os.replace(part, final)
            self.lib.write_sidecar(doc_id)
        return True

    def merge_duplicate(self, doc_id: int, keep: int) -> None:
        """Remove document ``doc_id``, a second copy of ``keep`` (same content); its note is
        appended to the kept document's note first, and the shared stored copy stays."""
        with self.lib.writing(batch=True) as w:
            extra = self.lib.get_note(doc_id).strip()
            if extra:
                mine = self.lib.get_note(keep).strip()
                w.set_note(keep, f"{mine}\n\n{extra}" if mine and extra not in mine else mine or extra)
            self.lib.store.mark_deleting(doc_id)
            self.lib._finish_delete(doc_id)
