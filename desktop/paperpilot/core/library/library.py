"""The per-user library: import, remove, recover, and the document-pool API the agent uses.

``Library`` is ``LibraryBase`` (``library.base``: opening, the one serialized writer,
organisation, reads) with the import pipeline (``library.importer``) and recovery
(``library.recovery``) plugged in: its methods for those delegate, so callers see one class.
``Library.writing()`` stays the one way to change the library.

SQLite is the source of truth; the Tantivy index is derived from it. All writes to either go
through one serialized writer: a thread lock inside this process and a cross-process writer
lock (library.writerlock) between processes (the GUI open while the CLI imports).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable

from ..settings.config import ImportSettings
from ..settings.paths import AppPaths
from .importer import ImportedDoc, Importer, ImportProgress, ImportReport, ProgressFn
from .library_base import LibraryBase, LibraryWriter, LinkedReference
from .recovery import Recovery

__all__ = ["ImportProgress", "ImportReport", "ImportedDoc", "Library", "LibraryWriter", "LinkedReference"]


class Library(LibraryBase):
    """A PaperPilot library rooted at ``paths.library_dir``.

    ``allow_damaged``: open even when the database is missing or damaged (``damaged`` then holds
    the one-line message, and only the integrity check and its repair may be used); without it
    that case raises LibraryDamaged. A library folder this process cannot write to opens
    read-only (``read_only``): listing, searching and reading work, every write raises
    LibraryReadOnly, and nothing is recovered. ``recover``: run start-up recovery on opening.
    """

    def __init__(
        self,
        paths: AppPaths,
        settings: ImportSettings | None = None,
        lock_timeout: float = 15.0,
        recover: bool = True,
        allow_damaged: bool = False,
    ) -> None:
        self.importer = Importer(self)
        self.recovery = Recovery(self, self.importer)
        super().__init__(paths, settings, lock_timeout, allow_damaged)
        if recover and not self.read_only and not self.damaged:
            self.recover()

    # --- import (library.importer) --------------------------------------------------------------

    def import_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        progress: ProgressFn | None = None,
        cancel: threading.Event | None = None,
    ) -> ImportReport:
        """Import files and folders one file at a time; one bad file never stops the batch
        (see ``Importer.import_paths``)."""
        return self.importer.import_paths(paths, progress, cancel)

    # --- recovery and repair (library.recovery) -------------------------------------------------

    def recover(self) -> list[str]:
        """Bring the library back to a consistent state after a crash; returns what was done."""
        return self.recovery.recover()

    def _recover_locked(self, notes: list[str], *, after_crash: bool) -> None:
        self.recovery.recover_locked(notes, after_crash=after_crash)

    def restore_stored_copy(self, rel: str, report: ImportReport) -> int | None:
        """Re-import a stored copy that no document refers to (see ``Recovery.restore_stored_copy``)."""
        return self.recovery.restore_stored_copy(rel, report)

    def finish_removal(self, doc_id: int) -> None:
        """Finish a removal that a crash interrupted (a 'deleting' row)."""
        self.recovery.finish_removal(doc_id)

    def settle_part_files(self) -> list[str]:
        """Finish or remove ``.part`` copies (inside ``exclusive()``)."""
        return self.recovery.settle_part_files()

    def recopy_from_source(self, doc_id: int) -> bool:
        """Put back a document's missing stored copy from its original file, if unchanged."""
        return self.recovery.recopy_from_source(doc_id)

    def merge_duplicate(self, doc_id: int, keep: int) -> None:
        """Remove document ``doc_id``, a second copy of ``keep``, keeping its note."""
        self.recovery.merge_duplicate(doc_id, keep)
