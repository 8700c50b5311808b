"""What the library pane does to the library and the clipboard: edit metadata and notes, copy and
export references in the one citation style, remove, re-read or retrieve metadata, organize
(tags, collections, the trash) and undo.

``LibraryActions`` is the pane's controller: it calls the ``Session`` and runs every long
operation on the one worker shape of ``ui/workers.py`` (a ``BackgroundTask`` per kind of job:
writes, removals, metadata), so the view (``ui/library_pane.py``) keeps only the table, its
filter and the menus.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QMimeData, QObject, Slot
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QLineEdit, QMessageBox

from ..core.api import (
    STYLE_NAMES,
    DocumentInfo,
    ExportFormat,
    LibraryBusy,
    LibraryError,
    MetadataUpdate,
    Rendered,
    atomic_write_text,
    get_style,
)
from ..core.app import Session
from .i18n import tr
from .metadata_dialog import MetadataDialog
from .qtcompat import new_mime_data
from .undo_text import shown, undo_text
from .workers import BackgroundTask

if TYPE_CHECKING:
    from .library_pane import LibraryPane, LibrarySnapshot

DEFAULT_STYLE = "apa"
# A write is never abandoned half-way: the window waits this long for one when it closes.
WRITE_WAIT_MS = 20_000

# (export format, file dialog filter, suffix). The first is the default.
EXPORT_FORMATS: tuple[tuple[ExportFormat, str, str], ...] = (
    ("bibtex", "BibTeX (*.bib)", ".bib"),
    ("ris", "RIS (*.ris)", ".ris"),
    ("csl-json", "CSL-JSON (*.json)", ".json"),
)


def references_mime(refs: list[Rendered]) -> QMimeData:
    """References for the clipboard: HTML (keeps the style's italics in Word and mail) and text."""
    mime = new_mime_data()
    mime.setHtml("<html><body>" + "".join(f"<p>{r.html}</p>" for r in refs) + "</body></html>")
    mime.setText("\n".join(r.text for r in refs))
    return mime


def export_format_for(path: Path, chosen_filter: str) -> tuple[ExportFormat, Path]:
    """The export format and final path: a suffix the user typed wins, else the chosen filter."""
    for fmt, _flt, suffix in EXPORT_FORMATS:
        if path.suffix.lower() == suffix:
            return fmt, path
    for fmt, flt, suffix in EXPORT_FORMATS:
        if flt == chosen_filter:
            return fmt, path.with_name(path.name + suffix) if path.suffix else path.with_suffix(suffix)
    fmt, _flt, suffix = EXPORT_FORMATS[0]
    return fmt, path.with_name(path.name + suffix) if path.suffix else path.with_suffix(suffix)


def remove_documents(session: Session, docs: list[DocumentInfo]) -> list[str]:
    """Move ``docs`` to the trash (in a worker; Ctrl+Z brings them back); the lines of what
    could not be removed."""
    try:
        session.remove([d.doc_id for d in docs])
    except (LibraryError, LibraryBusy) as e:
        return [str(e)]
    return []


@dataclass(frozen=True)
class _Written:
    """What a worker of ``LibraryActions.write_then_read`` returns: the write's own result and
    the library as read after it (None if that read failed)."""

    result: object
    snapshot: LibrarySnapshot | None


class LibraryActions(QObject):
    """The library pane's actions, on the pane's ``Session``; results and errors are shown in
    the pane (its ``message`` signal, message boxes over it)."""

    def __init__(self, pane: LibraryPane) -> None:
        super().__init__(pane)
        self.pane = pane
        self.session: Session = pane.session
        # One job at a time of each kind: an organizing write, a removal, a metadata update.
        self.writes = BackgroundTask(self)
        self.removal = BackgroundTask(self)
        self.metadata = BackgroundTask(self)
        self._write_done_message = ""
        self._write_say: Callable[[str], str] | None = None  # see run_write

    # --- writes that also read the library for the pane ---------------------------------------

    def write_then_read(self, fn: Callable[..., Any]) -> Callable[..., _Written]:
        """``fn`` for a worker that changes the library: it then also reads the library for the
        pane in that thread (see ``show_written``), so the GUI thread does no work per document."""
        reader = self.pane.snapshot_reader()

        def run(*args: Any, **kwargs: Any) -> _Written:
            result = fn(*args, **kwargs)
            try:
                snapshot: LibrarySnapshot | None = reader()
            except Exception:  # show_written then has the window read it on the GUI thread
                snapshot = None
            return _Written(result, snapshot)

        return run

    def show_written(self, value: object) -> object:
        """Show the library after a worker of ``write_then_read`` has reported ``value``; returns
        what the write itself returned."""
        if isinstance(value, _Written) and value.snapshot is not None:
            self.pane.refresh(value.snapshot)
            return value.result
        self.pane.library_changed.emit()
        return value.result if isinstance(value, _Written) else value

    def shutdown(self) -> None:
        """The window is closing: let a write or a removal finish (never abandoned half-way)."""
        for task in (self.removal, self.writes, self.metadata):
            task.shutdown(WRITE_WAIT_MS)

    # --- metadata and notes -------------------------------------------------------------------

    def edit_metadata(self, doc_id: int) -> bool:
        """Show the metadata editor (it saves on its own); True when the document was changed."""
        pane = self.pane
        if pane.library.document(doc_id) is None:
            return False
        try:
            dlg = MetadataDialog(pane.library, doc_id, pane, style=self.citation_style(), session=self.session)
        except (LibraryError, LibraryBusy, ValueError) as e:
            QMessageBox.warning(pane, tr("Edit Metadata"), str(e))
            return False
        try:
            # The dialog saves through the Session, which also lets Ctrl+Z put the old fields back.
            if dlg.exec() != QDialog.DialogCode.Accepted:
                return False
        finally:
            dlg.deleteLater()
        doc = pane.library.document(doc_id)
        viewer = pane.viewers.get(doc_id)
        if doc is not None and viewer is not None and shiboken6.isValid(viewer):
            viewer.setWindowTitle(f"{doc.title} — PaperPilot")
            if pane.reader is not None:
                pane.reader.retitle(viewer, doc.title)
        pane.library_changed.emit()
        return True

    def edit_notes(self, doc_id: int) -> bool:
        """Open the notes editor for one document; True when the notes were saved."""
        from .notes_editor import NotesDialog

        pane = self.pane
        doc = pane.library.document(doc_id)
        dlg = NotesDialog(pane.library, doc_id, doc.title if doc is not None else "", pane, session=self.session)
        saved = bool(dlg.exec())
        dlg.deleteLater()
        if saved:
            pane.message.emit(tr("Saved the notes."))
        return saved

    @Slot()
    def reread_selected(self) -> None:
        ids = [d.doc_id for d in self.pane.selected_documents() if d.status == "ready"]
        if ids:
            self._run_metadata(self.session.reread_metadata, ids, tr("Re-reading metadata of {n} document(s)…"))

    @Slot()
    def retrieve_selected(self) -> None:
        ids = [d.doc_id for d in self.pane.selected_documents() if d.status == "ready"]
        retrieve = self.pane.retrieve
        if ids and retrieve is not None and self.pane.lookups_allowed():
            self._run_metadata(retrieve, ids, tr("Retrieving metadata of {n} document(s)…"))

    def _run_metadata(self, fn: Callable[[list[int]], list[MetadataUpdate]], ids: list[int], note: str) -> None:
        # Both write: in a worker, because another process may hold the writer lock for a while.
        if self.metadata.call(fn, ids, done=self.on_metadata_done, failed=self.on_metadata_failed, doing="Metadata"):
            self.pane.message.emit(note.format(n=len(ids)))

    def on_metadata_done(self, updates: list[MetadataUpdate]) -> None:
        self.pane.library_changed.emit()
        changed = sum(1 for u in updates if u.changed)
        skipped = [f"#{u.doc_id}: {u.skipped}" for u in updates if u.skipped]
        self.pane.message.emit(tr("Metadata updated for {n} document(s).").format(n=changed))
        if skipped:
            QMessageBox.information(self.pane, tr("Metadata"), "\n".join(skipped))

    def on_metadata_failed(self, message: str) -> None:
        self.pane.library_changed.emit()
        QMessageBox.warning(self.pane, tr("Metadata"), message)

    # --- citations: the Session's one style ----------------------------------------------------

    def set_citation_style(self, name: str) -> None:
        """The style for copied references and the metadata preview; unknown names mean APA.
        It is the Session's one style: a change here is the user's style everywhere."""
        style = name if name in STYLE_NAMES else DEFAULT_STYLE
        if style != self.session.citation_style:
            self.session.set_citation_style(style)

    def citation_style(self) -> str:
        return self.session.citation_style

    def citable_ids(self) -> list[int]:
        """The selected documents that have metadata to cite (failed imports have none)."""
        return [d.doc_id for d in self.pane.selected_documents() if d.status == "ready"]

    def _style_label(self) -> str:
        try:
            return tr(get_style(self.citation_style()).label)
        except Exception:  # a broken style module must not stop the copy from reporting
            return self.citation_style()

    @Slot()
    def copy_references(self) -> None:
        """The selected documents' references in the preferred style, as HTML and plain text."""
        ids = self.citable_ids()
        if not ids:
            self.pane.message.emit(tr("Select the documents to cite in the library first."))
            return
        try:
            refs = self.session.references(ids)
        except (LibraryError, LibraryBusy, ValueError) as e:
            QMessageBox.warning(self.pane, tr("Copy References"), str(e))
            return
        QGuiApplication.clipboard().setMimeData(references_mime(refs))
        self.pane.message.emit(
            tr("Copied {n} reference(s) in {style}.").format(n=len(refs), style=self._style_label())
        )

    @Slot()
    def copy_in_text(self) -> None:
        """The in-text citation of the selected documents ([1, 2] or (Author, 2020; …))."""
        ids = self.citable_ids()
        if not ids:
            self.pane.message.emit(tr("Select the documents to cite in the library first."))
            return
        try:
            text = self.session.in_text(ids)
        except (LibraryError, LibraryBusy, ValueError) as e:
            QMessageBox.warning(self.pane, tr("Copy In-text Citations"), str(e))
            return
        QGuiApplication.clipboard().setText(text)
        self.pane.message.emit(tr("Copied the in-text citation {text}.").format(text=text))

    @Slot()
    def export_selection(self) -> None:
        ids = self.citable_ids()
        if not ids:
            self.pane.message.emit(tr("Select the documents to export in the library first."))
            return
        self.export(ids, tr("Export Selection"), "references")

    @Slot()
    def export_library(self) -> None:
        if not any(d.status == "ready" for d in self.pane.model.documents()):
            self.pane.message.emit(tr("The library has no documents to export yet."))
            return
        self.export(None, tr("Export Library"), "library")

    def export(self, doc_ids: list[int] | None, title: str, stem: str) -> Path | None:
        pane = self.pane
        name, chosen = QFileDialog.getSaveFileName(
            pane, title, str(Path.home() / f"{stem}.bib"), ";;".join(f for _, f, _ in EXPORT_FORMATS)
        )
        if not name:
            return None
        fmt, path = export_format_for(Path(name), chosen)
        try:
            atomic_write_text(path, self.session.export(doc_ids, fmt)[0])
        except OSError as e:
            QMessageBox.warning(
                pane, title, tr("Could not write {path}: {reason}").format(path=path, reason=e.strerror or e)
            )
            return None
        except (LibraryError, LibraryBusy, ValueError) as e:
            QMessageBox.warning(pane, title, str(e))
            return None
        n = (
            len(doc_ids)
            if doc_ids is not None
            else sum(1 for d in pane.model.documents() if d.status == "ready")
        )
        pane.message.emit(tr("Exported {n} reference(s) to {path}.").format(n=n, path=path))
        return path

    # --- removal to the trash -----------------------------------------------------------------

    @Slot()
    def remove_selected(self) -> None:
        pane = self.pane
        docs = pane.selected_documents()
        if not docs or self.removal.busy:
            return
        if any(d.status == "trashed" for d in docs):
            self.delete_selected_for_good()
            return
        what = f"“{docs[0].title}”" if len(docs) == 1 else tr("these {n} documents").format(n=len(docs))
        answer = QMessageBox.question(
            pane,
            tr("Remove from library"),
            tr(
                "Move {what} to the trash?\n\nIt is no longer searched or used in answers; Edit ▸ Undo "
                "(Ctrl+Z) or Restore in the Trash brings it back. Your original files are not touched."
            ).format(what=what),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        for doc in docs:
            viewer = pane.viewers.pop(doc.doc_id, None)
            if viewer is not None and shiboken6.isValid(viewer):
                viewer.close()
        # A write: in a worker, because another process may hold the writer lock for a while.
        self.removal.call(self.write_then_read(remove_documents), self.session, docs, done=self.on_removal_done,
                          failed=self.on_removal_failed, doing="Remove")  # fmt: skip
        pane.table.setEnabled(False)
        pane.message.emit(tr("Removing {n} document(s)…").format(n=len(docs)))

    def is_removing(self) -> bool:
        return self.removal.busy

    def on_removal_done(self, value: object) -> None:
        self.pane.table.setEnabled(True)
        errors = self.show_written(value)
        if isinstance(errors, list) and errors:
            QMessageBox.warning(self.pane, tr("Remove from library"), "\n".join(errors))
        else:
            self.pane.message.emit(tr("Moved to the trash. Edit ▸ Undo (Ctrl+Z) brings it back."))

    def on_removal_failed(self, message: str) -> None:
        self.pane.table.setEnabled(True)
        self.pane.library_changed.emit()
        QMessageBox.warning(self.pane, tr("Remove from library"), message)

    # --- organizing: tags, collections, the trash, undo (writes run in a worker) ---------------

    def is_writing(self) -> bool:
        return self.writes.busy

    def run_write(
        self, fn: Callable[..., Any], *args: object, done: str = "", say: Callable[[str], str] | None = None
    ) -> bool:
        """Run one organizing write in a worker; False (and a note) while another runs.
        ``say``: puts core's lines about the write (its result, its error) in the interface
        language."""
        if self.writes.busy:
            self.pane.message.emit(tr("Wait for the last change to finish."))
            return False
        self._write_done_message = done
        self._write_say = say
        return self.writes.call(self.write_then_read(fn), *args, done=self.on_write_done,
                                failed=self.on_write_failed, doing=done or "Change")  # fmt: skip

    def on_write_done(self, value: object) -> None:
        result = self.show_written(value)
        if isinstance(result, str) and result:
            text = self._write_say(result) if self._write_say is not None else result
        else:
            text = self._write_done_message
        if text:
            self.pane.message.emit(text)

    def on_write_failed(self, message: str) -> None:
        self.pane.library_changed.emit()
        say = self._write_say
        QMessageBox.warning(self.pane, tr("Library"), say(message) if say is not None else message)

    def _ask_text(self, title: str, label: str, text: str = "") -> str:
        value, ok = QInputDialog.getText(self.pane, title, label, QLineEdit.EchoMode.Normal, text)
        return value.strip() if ok else ""

    @Slot()
    def add_tag_to_selected(self) -> None:
        ids = self.citable_ids()
        if not ids:
            return
        tag = self._ask_text(tr("Add Tag"), tr("Tag for {n} document(s):").format(n=len(ids)))
        if tag:
            self.tag_documents(ids, add=[tag])

    def tag_documents(self, doc_ids: list[int], add: Sequence[str] = (), remove: Sequence[str] = ()) -> bool:
        return self.run_write(self.session.tag, doc_ids, list(add), list(remove), done=tr("Tags changed."))

    def remove_tag_from_selected(self, tag: str) -> None:
        ids = self.citable_ids()
        if ids:
            self.tag_documents(ids, remove=[tag])

    def add_selected_to_collection(self, path: str) -> None:
        ids = self.citable_ids()
        if ids:
            self.add_to_collection(path, ids)

    def add_to_collection(self, path: str, doc_ids: list[int]) -> bool:
        return self.run_write(
            self.session.collection_add, path, doc_ids, done=tr("Added to {name}.").format(name=path)
        )

    @Slot()
    def add_selected_to_new_collection(self) -> None:
        ids = self.citable_ids()
        name = self._ask_text(tr("New Collection"), tr("Name (Parent/Child for a sub-collection):"))
        if name:
            self.add_to_collection(name, ids)

    def remove_selected_from_collection(self, path: str) -> None:
        ids = self.pane.selected_ids()
        if ids:
            self.run_write(self.session.collection_remove, path, ids, done=tr("Taken out of {name}.").format(name=path))

    @Slot(str, list)
    def on_sources_documents_dropped(self, path: str, doc_ids: list[int]) -> None:
        self.add_to_collection(path, doc_ids)

    @Slot(str)
    def on_sources_new_collection_requested(self, parent: str) -> None:
        name = self._ask_text(tr("New Collection"), tr("Name:"))
        if name:
            self.run_write(
                self.session.collection_add, f"{parent}/{name}" if parent else name, [],
                done=tr("Made the collection {name}.").format(name=name),
            )  # fmt: skip

    @Slot(str)
    def on_sources_rename_collection_requested(self, path: str) -> None:
        old = path.rsplit("/", 1)[-1]
        name = self._ask_text(tr("Rename Collection"), tr("New name:"), old)
        if name and name != old:
            self.run_write(self.session.collection_rename, path, name, done=tr("Renamed."))

    @Slot(str)
    def on_sources_delete_collection_requested(self, path: str) -> None:
        answer = QMessageBox.question(
            self.pane,
            tr("Delete Collection"),
            tr("Delete the collection {name} and its sub-collections? Its documents stay in the library.").format(
                name=path
            ),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.run_write(self.session.collection_delete, path, done=tr("Deleted the collection."))

    @Slot(str, str)
    def on_sources_tag_color_requested(self, tag: str, color: str) -> None:
        self.run_write(self.session.set_tag_color, tag, color)

    @Slot()
    def restore_selected(self) -> None:
        ids = [d.doc_id for d in self.pane.selected_documents() if d.status == "trashed"]
        if ids:
            self.run_write(self.session.restore, ids, done=tr("Restored {n} document(s).").format(n=len(ids)))

    @Slot()
    def delete_selected_for_good(self) -> None:
        ids = [d.doc_id for d in self.pane.selected_documents() if d.status == "trashed"]
        if ids and self._confirm_delete(len(ids)):
            self.run_write(self.session.empty_trash, ids, done=tr("Deleted {n} document(s) for good.").format(n=len(ids)))

    @Slot()
    def empty_trash(self) -> None:
        n = len(self.pane.library.trashed_documents())
        if not n:
            self.pane.message.emit(tr("The trash is empty."))
            return
        if self._confirm_delete(n):
            self.run_write(self.session.empty_trash, None, done=tr("Emptied the trash."))

    def _confirm_delete(self, n: int) -> bool:
        answer = QMessageBox.question(
            self.pane,
            tr("Empty Trash"),
            tr("Delete {n} document(s) for good? Their copies, notes and search entries are deleted; this cannot be undone.").format(n=n),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        return answer == QMessageBox.StandardButton.Yes

    @Slot()
    def undo(self) -> None:
        """Ctrl+Z: undo the library's last removal, tag, collection or metadata edit (this
        session's, an earlier one's or the command line's: the journal is in the database)."""
        entry = self.session.undo_stack.last()
        if entry is None:
            self.pane.message.emit(tr("Nothing to undo."))
            return
        what = undo_text(entry)
        done = tr("Undone: {what}").format(what=what)
        if self.run_write(self._undo_in_worker, entry.label, done=done):
            self.pane.message.emit(tr("Undoing: {what}…").format(what=what))

    def _undo_in_worker(self, label: str) -> str:
        # In the worker: no widget here. The core's answer replaces the status line only when
        # it says more than the label (part of it could not be undone).
        done = self.session.undo()
        return "" if done == label else shown(self.session.undo_stack.last_said)
