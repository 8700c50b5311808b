"""The notes editor: one document's Markdown notes beside a live preview, saved with ``set_note``
(in a worker: a write may wait for another process's writer lock).

The preview uses the chat's escaping Markdown converter, so a note can never inject HTML.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer, Slot
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QSplitter,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..core.api import Library
from ..core.app import Session
from .chat_pane import markdown_to_html
from .i18n import tr
from .workers import FunctionWorker, WorkerThread

PREVIEW_DELAY_MS = 150


class NotesDialog(QDialog):
    def __init__(
        self, library: Library, doc_id: int, title: str, parent: QWidget | None = None, *, session: Session | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("notesDialog")
        self.library = library
        # The save goes through the application layer (the library's one writer behind it).
        self.session = session if session is not None else Session(paths=library.paths, library=library)
        self.doc_id = doc_id
        self._save_thread: WorkerThread | None = None
        self._title = tr("Notes — {title}").format(title=title or tr("Untitled"))
        self.setWindowTitle(self._title)
        self.resize(820, 520)

        heading = QLabel(title or tr("Untitled"), self)
        heading.setWordWrap(True)
        heading.setTextFormat(Qt.TextFormat.PlainText)
        font = heading.font()
        font.setBold(True)
        heading.setFont(font)
        hint = QLabel(
            tr("Markdown. Notes are searchable, and the assistant can cite them as evidence."), self
        )
        hint.setWordWrap(True)

        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("notesEdit")
        self.editor.setPlaceholderText(tr("Your notes on this paper…"))
        self.editor.setTabChangesFocus(True)
        self.preview = QTextBrowser(self)
        self.preview.setObjectName("notesPreview")
        self.preview.setOpenLinks(False)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.editor)
        split.addWidget(self.preview)
        split.setSizes([420, 380])

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(hint)
        layout.addWidget(split, 1)
        layout.addWidget(self.buttons)

        # Re-render after a pause in typing, not on every key press.
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self.update_preview)
        self.editor.textChanged.connect(self.on_editor_text_changed)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)

        self.editor.setPlainText(library.get_note(doc_id))
        self.update_preview()

    def text(self) -> str:
        return self.editor.toPlainText()

    @Slot()
    def update_preview(self) -> None:
        text = self.text()
        if text.strip():
            self.preview.setHtml(markdown_to_html(text, None))
        else:
            self.preview.setHtml(f"<p><i>{tr('Nothing written yet.')}</i></p>")

    @Slot()
    def on_editor_text_changed(self) -> None:
        self._preview_timer.start()

    @Slot()
    def save(self) -> None:
        if self._save_thread is not None:
            return
        # A write: in a worker, because another process may hold the writer lock for a while.
        worker = FunctionWorker(self.session.set_note, self.doc_id, self.text(), doing="Saving the notes")
        worker.finished.connect(self.on_save_worker_finished)
        worker.failed.connect(self.on_save_worker_failed)
        self._save_thread = WorkerThread(worker, self)
        self.buttons.setEnabled(False)
        self.editor.setReadOnly(True)
        self.setWindowTitle(tr("Saving…"))
        self._save_thread.start()

    def is_saving(self) -> bool:
        return self._save_thread is not None

    def _save_done(self) -> None:
        if self._save_thread is not None:
            self._save_thread.finish()
            self._save_thread = None
        self.buttons.setEnabled(True)
        self.editor.setReadOnly(False)
        self.setWindowTitle(self._title)

    @Slot(object)
    def on_save_worker_finished(self, _none: object) -> None:
        self._save_done()
        self.accept()

    @Slot(str)
    def on_save_worker_failed(self, message: str) -> None:
        # A busy or read-only library: keep the text, say why.
        self._save_done()
        QMessageBox.warning(self, tr("Could not save the notes"), message)

    def reject(self) -> None:
        if self._save_thread is not None:
            return  # the save ends (or fails) in a moment: the dialog then closes or says why
        super().reject()
