"""The library pane: the document table with its filter, the first-run welcome view, and
the per-document actions (open, edit metadata, remove, retry, copy references and in-text
citations in the preferred style, export to BibTeX / RIS / CSL-JSON)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QItemSelectionModel, QMimeData, QModelIndex, QPoint, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QKeySequence, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..core.citations.formats import ExportFormat
from ..core.citations.styles import STYLE_NAMES, Rendered, get_style
from ..core.library import Library, LibraryBusy, LibraryError
from ..core.library.metadata import export_items, format_references, in_text
from ..core.models import DocumentInfo
from ..core.settings.config import atomic_write_text
from .document_viewer import DocumentViewer
from .i18n import tr
from .library_model import DOC_ID_ROLE, Column, DocumentFilterProxy, DocumentTableModel
from .metadata_dialog import MetadataDialog
from .qtcompat import new_mime_data
from .resources import app_icon, is_sample_path, sample_questions
from .workers import FunctionWorker, WorkerThread

WELCOME_PAGE, TABLE_PAGE = 0, 1
MAX_SUGGESTIONS = 3
DEFAULT_STYLE = "apa"

# (format for export_items, file dialog filter, suffix). The first is the default.
EXPORT_FORMATS: tuple[tuple[ExportFormat, str, str], ...] = (
    ("bibtex", "BibTeX (*.bib)", ".bib"),
    ("ris", "RIS (*.ris)", ".ris"),
    ("csl-json", "CSL-JSON (*.json)", ".json"),
)

__all__ = ["EXPORT_FORMATS", "LibraryPane", "MetadataDialog", "plain_citation", "references_mime"]


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


def plain_citation(doc: DocumentInfo) -> str:
    """``Authors (Year). Title. Venue.`` — a style-free line from the document's columns."""
    year = str(doc.year) if doc.year else "n.d."
    title = doc.title.rstrip(".")
    if doc.authors:
        if len(doc.authors) == 1:
            who = doc.authors[0]
        else:
            who = ", ".join(doc.authors[:-1]) + " & " + doc.authors[-1]
        text = f"{who} ({year}). {title}."
    else:
        text = f"{title} ({year})."
    if doc.venue:
        text += f" {doc.venue.rstrip('.')}."
    if doc.doi:
        text += f" https://doi.org/{doc.doi}"
    return text


def remove_documents(library: Library, docs: list[DocumentInfo]) -> list[str]:
    """Remove ``docs`` one by one (in a worker); the lines of those that could not be removed."""
    errors: list[str] = []
    for doc in docs:
        try:
            library.remove(doc.doc_id)
        except (LibraryError, LibraryBusy) as e:
            errors.append(f"{doc.title}: {e}")
    return errors


AUTHORS_MIN_WIDTH = 64


class LibraryPane(QWidget):
    import_requested = Signal(list)  # paths (str) to import
    sample_requested = Signal()
    library_changed = Signal()
    example_question = Signal(str)
    message = Signal(str)  # a short note for the status bar ("Copied 2 references …")

    def __init__(self, library: Library, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self._citation_style = DEFAULT_STYLE
        self.viewers: dict[int, DocumentViewer] = {}
        # The main window's reader (ui/reader.py): documents open in its tabs; None: in windows.
        self.reader: Any = None
        self.remove_thread: WorkerThread | None = None
        self._questions = sample_questions()
        self._pending_question = ""
        self.model = DocumentTableModel(self)
        self.proxy = DocumentFilterProxy(self)
        self.proxy.setSourceModel(self.model)

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self._build_welcome())
        self.stack.addWidget(self._build_table_page())
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.stack)
        self.setMinimumWidth(260)

    # --- construction -------------------------------------------------------------------------

    def _build_welcome(self) -> QWidget:
        page = QWidget(self)
        icon = QLabel(page)
        icon.setPixmap(app_icon().pixmap(72, 72))
        icon.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        title = QLabel(f"<h2>{html.escape(tr('Welcome to PaperPilot'))}</h2>", page)
        title.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        intro = QLabel(
            tr(
                "<p>Drag <b>PDFs</b>, <b>text</b> or <b>Markdown</b> files — or whole folders — "
                "anywhere onto this window to add them to your library. PaperPilot keeps a copy, "
                "indexes it on this computer and answers questions with citations to the exact "
                "passages. Nothing is uploaded.</p>"
                "<p>No papers at hand? Try the six short sample papers on urban birds.</p>"
            ),
            page,
        )
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.RichText)
        self.sample_button = QPushButton(tr("Try with sample papers"), page)
        self.sample_button.setDefault(True)
        self.sample_button.clicked.connect(self.on_sample_button_clicked)
        self.import_button = QPushButton(tr("Import files…"), page)
        self.import_button.clicked.connect(self.on_import_button_clicked)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.sample_button)
        buttons.addWidget(self.import_button)
        buttons.addStretch(1)
        self.welcome_questions = QLabel(page)
        self.welcome_questions.setWordWrap(True)
        self.welcome_questions.setTextFormat(Qt.TextFormat.RichText)
        self.welcome_questions.linkActivated.connect(self.on_question_link_activated)
        if self._questions:
            items = "".join(
                f'<li><a href="q:{i}">{html.escape(tr("Ask: {question}").format(question=q))}</a></li>'
                for i, q in enumerate(self._questions)
            )
            self.welcome_questions.setText(
                f"<p>{html.escape(tr('Questions to try (clicking one imports the sample papers first):'))}</p>"
                f"<ul style='margin-left:-20px'>{items}</ul>"
            )
        lay = QVBoxLayout(page)
        lay.setContentsMargins(24, 24, 24, 24)
        lay.addStretch(1)
        lay.addWidget(icon)
        lay.addWidget(title)
        lay.addWidget(intro)
        lay.addSpacing(8)
        lay.addLayout(buttons)
        lay.addSpacing(16)
        lay.addWidget(self.welcome_questions)
        lay.addStretch(2)
        return page

    def _build_table_page(self) -> QWidget:
        page = QWidget(self)
        self.filter_edit = QLineEdit(page)
        self.filter_edit.setPlaceholderText(tr("Filter by title, author, year"))
        self.filter_edit.setClearButtonEnabled(True)
        # Files dropped here must reach the window's import, not become text in the box.
        self.filter_edit.setAcceptDrops(False)
        self.filter_edit.textChanged.connect(self.on_filter_edit_text_changed)
        self.count_label = QLabel(page)
        top = QHBoxLayout()
        top.addWidget(self.filter_edit, 1)
        top.addWidget(self.count_label)

        view = QTableView(page)
        view.setModel(self.proxy)
        view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        view.setSortingEnabled(True)
        view.sortByColumn(Column.TITLE, Qt.SortOrder.AscendingOrder)
        view.setAlternatingRowColors(True)
        # Paper titles are long and the pane is narrow: two lines per row, at a fixed height.
        view.setWordWrap(True)
        view.setTextElideMode(Qt.TextElideMode.ElideRight)
        view.setShowGrid(False)
        view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        view.verticalHeader().setVisible(False)
        # Fixed row heights: the view never measures 1,000 rows to lay itself out.
        view.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        view.verticalHeader().setDefaultSectionSize(self.fontMetrics().lineSpacing() * 2 + 10)
        header = view.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(Column.TITLE, QHeaderView.ResizeMode.Stretch)
        fm = self.fontMetrics()
        # Narrow fixed columns leave the width to the title, which is what people scan for.
        widths = {
            Column.AUTHORS: fm.horizontalAdvance("Oliveira & Dahl") + 12,
            Column.YEAR: fm.horizontalAdvance("Year") + 20,
            Column.PAGES: fm.horizontalAdvance("Pages") + 14,
            Column.STATUS: fm.horizontalAdvance("Status") + 20,
        }
        for col, w in widths.items():
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(col, w)
        header.setMinimumSectionSize(36)
        self._authors_width = widths[Column.AUTHORS]
        view.doubleClicked.connect(self.on_table_double_clicked)
        view.customContextMenuRequested.connect(self.on_table_context_menu_requested)
        open_action = QAction(tr("Open"), view)
        open_action.setShortcuts([QKeySequence(Qt.Key.Key_Return), QKeySequence(Qt.Key.Key_Enter)])
        open_action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        open_action.triggered.connect(self.on_open_action_triggered)
        view.addAction(open_action)
        self.table = view

        self.suggestions = QLabel(page)
        self.suggestions.setWordWrap(True)
        self.suggestions.setTextFormat(Qt.TextFormat.RichText)
        self.suggestions.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.suggestions.linkActivated.connect(self.on_question_link_activated)
        self.suggestions.setVisible(False)

        lay = QVBoxLayout(page)
        lay.setContentsMargins(6, 6, 0, 6)
        lay.addLayout(top)
        lay.addWidget(view, 1)
        lay.addWidget(self.suggestions)
        return page

    # --- state --------------------------------------------------------------------------------

    @Slot()
    def refresh(self) -> None:
        """Re-read the library (a fast SQLite read) and keep the user's selection."""
        keep = set(self.selected_ids())
        docs = self.library.all_documents()
        self.model.set_documents(docs)
        self.stack.setCurrentIndex(TABLE_PAGE if docs else WELCOME_PAGE)
        if keep:
            self.select_ids(keep)
        self._update_count()
        self._update_suggestions(docs)
        if self._pending_question and any(d.status == "ready" for d in docs):
            # Deferred: refresh runs inside the import-finished handler; ask after it returns.
            QTimer.singleShot(0, self.on_pending_question_due)

    def is_welcome_shown(self) -> bool:
        return self.stack.currentIndex() == WELCOME_PAGE

    def _update_count(self) -> None:
        total = self.model.rowCount()
        shown = self.proxy.rowCount()
        failed = sum(1 for d in self.model.documents() if d.status != "ready")
        if shown != total:
            text = tr("{shown} of {total}").format(shown=shown, total=total)
        else:
            text = tr("1 document") if total == 1 else tr("{n} documents").format(n=total)
        if failed:
            text += " · " + tr("{n} failed").format(n=failed)
        self.count_label.setText(text)

    def _update_suggestions(self, docs: list[DocumentInfo]) -> None:
        has_samples = bool(self._questions) and any(
            d.status == "ready" and is_sample_path(d.source_path) for d in docs
        )
        if has_samples:
            links = "<br>".join(
                f'<a href="q:{i}">{html.escape(q)}</a>'
                for i, q in enumerate(self._questions[:MAX_SUGGESTIONS])
            )
            self.suggestions.setText(f"<b>{html.escape(tr('Try asking:'))}</b><br>{links}")
        self.suggestions.setVisible(has_samples)

    def selected_ids(self) -> list[int]:
        sel = self.table.selectionModel()
        if sel is None:
            return []
        rows = sorted(sel.selectedRows(), key=lambda i: i.row())
        return [int(i.data(DOC_ID_ROLE)) for i in rows]

    def selected_documents(self) -> list[DocumentInfo]:
        out = []
        for doc_id in self.selected_ids():
            row = self.model.row_of(doc_id)
            if row >= 0:
                out.append(self.model.document_at(row))
        return out

    def select_ids(self, doc_ids: set[int] | list[int]) -> None:
        sel = self.table.selectionModel()
        sel.clearSelection()
        flags = QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows
        for doc_id in doc_ids:
            row = self.model.row_of(doc_id)
            if row < 0:
                continue
            index = self.proxy.mapFromSource(self.model.index(row, 0))
            if index.isValid():
                sel.select(index, flags)

    @Slot()
    def fit_columns(self) -> None:
        """In a narrow pane the authors column gives way (elided) before the title does, so the
        year, pages and status always stay in view without a horizontal scroll bar."""
        header = self.table.horizontalHeader()
        others = sum(
            header.sectionSize(c)
            for c in range(header.count())
            if c not in (Column.TITLE, Column.AUTHORS) and not header.isSectionHidden(c)
        )
        room = self.table.viewport().width() - others
        # Up to twice its usual width in a wide pane: "Okafor & Hartmann" whole, not elided.
        header.resizeSection(Column.AUTHORS, max(AUTHORS_MIN_WIDTH, min(2 * self._authors_width, room * 2 // 5)))

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        self.fit_columns()

    def focus_filter(self) -> None:
        if self.is_welcome_shown():
            return
        self.filter_edit.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.filter_edit.selectAll()

    # --- welcome view -------------------------------------------------------------------------

    @Slot()
    def on_sample_button_clicked(self) -> None:
        self.sample_requested.emit()

    @Slot()
    def on_import_button_clicked(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self,
            tr("Import papers"),
            str(Path.home()),
            tr("Papers") + " (*.pdf *.txt *.md *.markdown *.jsonl);;" + tr("All files") + " (*)",
        )
        if files:
            self.import_requested.emit(files)

    @Slot(str)
    def on_question_link_activated(self, link: str) -> None:
        try:
            question = self._questions[int(link.removeprefix("q:"))]
        except (ValueError, IndexError):
            return
        if self.model.rowCount() == 0:
            self._pending_question = question
            self.sample_requested.emit()
        else:
            self.example_question.emit(question)

    @Slot()
    def on_pending_question_due(self) -> None:
        question, self._pending_question = self._pending_question, ""
        if question:
            self.example_question.emit(question)

    # --- table --------------------------------------------------------------------------------

    @Slot(str)
    def on_filter_edit_text_changed(self, text: str) -> None:
        self.proxy.set_filter_text(text)
        self._update_count()

    def _doc_at(self, proxy_index: QModelIndex) -> DocumentInfo | None:
        if not proxy_index.isValid():
            return None
        src = self.proxy.mapToSource(proxy_index)
        return self.model.document_at(src.row()) if src.isValid() else None

    @Slot(QModelIndex)
    def on_table_double_clicked(self, index: QModelIndex) -> None:
        doc = self._doc_at(index)
        if doc is None:
            return
        if doc.status == "ready":
            self.open_document(doc.doc_id, 1, "")
        else:
            self._explain_failure(doc)

    @Slot()
    def on_open_action_triggered(self) -> None:
        docs = self.selected_documents()
        if len(docs) == 1:
            if docs[0].status == "ready":
                self.open_document(docs[0].doc_id, 1, "")
            else:
                self._explain_failure(docs[0])

    def _explain_failure(self, doc: DocumentInfo) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            tr("Import failed"),
            tr("{name} could not be imported:\n\n{reason}").format(
                name=doc.file_name or doc.title, reason=doc.error or tr("unknown reason")
            ),
            QMessageBox.StandardButton.Retry | QMessageBox.StandardButton.Close,
            self,
        )
        if box.exec() == QMessageBox.StandardButton.Retry:
            self.retry_documents([doc])

    @Slot(QPoint)
    def on_table_context_menu_requested(self, pos: QPoint) -> None:
        index = self.table.indexAt(pos)
        if index.isValid() and not self.table.selectionModel().isRowSelected(index.row(), QModelIndex()):
            self.table.selectRow(index.row())
        menu = self.build_context_menu()
        if menu is not None:
            menu.exec(self.table.viewport().mapToGlobal(pos))
            menu.deleteLater()

    def build_context_menu(self) -> QMenu | None:
        """The actions for the selected rows (a separate method so tests can inspect it)."""
        docs = self.selected_documents()
        if not docs:
            return None
        ready = [d for d in docs if d.status == "ready"]
        failed = [d for d in docs if d.status != "ready"]
        menu = QMenu(self)
        if len(ready) == 1 and not failed:
            doc = ready[0]
            menu.addAction(tr("Open"), self.on_menu_open_triggered)
            has_file = bool(doc.stored_path)
            act = menu.addAction(tr("Open File"), self.on_menu_open_file_triggered)
            act.setEnabled(has_file)
            act = menu.addAction(tr("Show in Folder"), self.on_menu_show_in_folder_triggered)
            act.setEnabled(has_file or Path(doc.source_path).exists())
            menu.addAction(tr("Edit Metadata…"), self.on_menu_edit_metadata_triggered)
            menu.addAction(tr("Notes…"), self.on_menu_notes_triggered)
            menu.addSeparator()
        if ready:
            one = len(ready) == 1
            menu.addAction(tr("Copy Reference") if one else tr("Copy References"), self.copy_references)
            menu.addAction(
                tr("Copy In-text Citation") if one else tr("Copy In-text Citations"), self.copy_in_text
            )
            menu.addAction(tr("Export Selection…"), self.export_selection)
        if failed:
            menu.addAction(tr("Retry Import"), self.on_menu_retry_triggered)
        menu.addSeparator()
        menu.addAction(
            tr("Remove") if len(docs) == 1 else tr("Remove {n} Documents").format(n=len(docs)),
            self.remove_selected,
        )
        return menu

    def _single_ready(self) -> DocumentInfo | None:
        docs = [d for d in self.selected_documents() if d.status == "ready"]
        return docs[0] if len(docs) == 1 else None

    @Slot()
    def on_menu_open_triggered(self) -> None:
        doc = self._single_ready()
        if doc is not None:
            self.open_document(doc.doc_id, 1, "")

    @Slot()
    def on_menu_open_file_triggered(self) -> None:
        doc = self._single_ready()
        if doc is not None and doc.stored_path:
            QDesktopServices.openUrl(
                QUrl.fromLocalFile(str(self.library.paths.library_dir / doc.stored_path))
            )

    @Slot()
    def on_menu_show_in_folder_triggered(self) -> None:
        doc = self._single_ready()
        if doc is None:
            return
        # The user's original folder means more to them than the library's hash-named copy.
        src = Path(doc.source_path)
        target = src if src.is_file() else self.library.paths.library_dir / doc.stored_path
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(target.parent)))

    @Slot()
    def on_menu_edit_metadata_triggered(self) -> None:
        doc = self._single_ready()
        if doc is not None:
            self.edit_metadata(doc.doc_id)

    @Slot()
    def on_menu_notes_triggered(self) -> None:
        doc = self._single_ready()
        if doc is not None:
            self.edit_notes(doc.doc_id)

    def edit_notes(self, doc_id: int) -> bool:
        """Open the notes editor for one document; True when the notes were saved."""
        from .notes_editor import NotesDialog

        doc = self.library.document(doc_id)
        dlg = NotesDialog(self.library, doc_id, doc.title if doc is not None else "", self)
        saved = bool(dlg.exec())
        dlg.deleteLater()
        if saved:
            self.message.emit(tr("Saved the notes."))
        return saved

    @Slot()
    def on_menu_retry_triggered(self) -> None:
        self.retry_documents([d for d in self.selected_documents() if d.status != "ready"])

    def retry_documents(self, docs: list[DocumentInfo]) -> None:
        paths = [d.source_path for d in docs if d.source_path]
        if paths:
            self.import_requested.emit(paths)

    # --- actions ------------------------------------------------------------------------------

    def edit_metadata(self, doc_id: int) -> bool:
        """Show the metadata editor (it saves on its own); True when the document was changed."""
        if self.library.document(doc_id) is None:
            return False
        try:
            dlg = MetadataDialog(self.library, doc_id, self, style=self._citation_style)
        except (LibraryError, LibraryBusy, ValueError) as e:
            QMessageBox.warning(self, tr("Edit Metadata"), str(e))
            return False
        try:
            if dlg.exec() != QDialog.DialogCode.Accepted:
                return False
        finally:
            dlg.deleteLater()
        doc = self.library.document(doc_id)
        viewer = self.viewers.get(doc_id)
        if doc is not None and viewer is not None and shiboken6.isValid(viewer):
            viewer.setWindowTitle(f"{doc.title} — PaperPilot")
            if self.reader is not None:
                self.reader.retitle(viewer, doc.title)
        self.library_changed.emit()
        return True

    # --- citations ----------------------------------------------------------------------------

    def set_citation_style(self, name: str) -> None:
        """The style for copied references and the metadata preview; unknown names mean APA."""
        self._citation_style = name if name in STYLE_NAMES else DEFAULT_STYLE

    def citation_style(self) -> str:
        return self._citation_style

    def citable_ids(self) -> list[int]:
        """The selected documents that have metadata to cite (failed imports have none)."""
        return [d.doc_id for d in self.selected_documents() if d.status == "ready"]

    def _style_label(self) -> str:
        try:
            return get_style(self._citation_style).label
        except Exception:  # a broken style module must not stop the copy from reporting
            return self._citation_style

    @Slot()
    def copy_references(self) -> None:
        """The selected documents' references in the preferred style, as HTML and plain text."""
        ids = self.citable_ids()
        if not ids:
            self.message.emit(tr("Select the documents to cite in the library first."))
            return
        try:
            refs = format_references(self.library, ids, self._citation_style)
        except (LibraryError, LibraryBusy, ValueError) as e:
            QMessageBox.warning(self, tr("Copy References"), str(e))
            return
        QGuiApplication.clipboard().setMimeData(references_mime(refs))
        self.message.emit(
            tr("Copied {n} reference(s) in {style}.").format(n=len(refs), style=self._style_label())
        )

    @Slot()
    def copy_in_text(self) -> None:
        """The in-text citation of the selected documents ([1, 2] or (Author, 2020; …))."""
        ids = self.citable_ids()
        if not ids:
            self.message.emit(tr("Select the documents to cite in the library first."))
            return
        try:
            text = in_text(self.library, ids, self._citation_style)
        except (LibraryError, LibraryBusy, ValueError) as e:
            QMessageBox.warning(self, tr("Copy In-text Citations"), str(e))
            return
        QGuiApplication.clipboard().setText(text)
        self.message.emit(tr("Copied the in-text citation {text}.").format(text=text))

    @Slot()
    def export_selection(self) -> None:
        ids = self.citable_ids()
        if not ids:
            self.message.emit(tr("Select the documents to export in the library first."))
            return
        self._export(ids, tr("Export Selection"), "references")

    @Slot()
    def export_library(self) -> None:
        if not any(d.status == "ready" for d in self.model.documents()):
            self.message.emit(tr("The library has no documents to export yet."))
            return
        self._export(None, tr("Export Library"), "library")

    def _export(self, doc_ids: list[int] | None, title: str, stem: str) -> Path | None:
        name, chosen = QFileDialog.getSaveFileName(
            self, title, str(Path.home() / f"{stem}.bib"), ";;".join(f for _, f, _ in EXPORT_FORMATS)
        )
        if not name:
            return None
        fmt, path = export_format_for(Path(name), chosen)
        try:
            atomic_write_text(path, export_items(self.library, doc_ids, fmt))
        except OSError as e:
            QMessageBox.warning(
                self, title, tr("Could not write {path}: {reason}").format(path=path, reason=e.strerror or e)
            )
            return None
        except (LibraryError, LibraryBusy, ValueError) as e:
            QMessageBox.warning(self, title, str(e))
            return None
        n = (
            len(doc_ids)
            if doc_ids is not None
            else sum(1 for d in self.model.documents() if d.status == "ready")
        )
        self.message.emit(tr("Exported {n} reference(s) to {path}.").format(n=n, path=path))
        return path

    @Slot()
    def remove_selected(self) -> None:
        docs = self.selected_documents()
        if not docs or self.remove_thread is not None:
            return
        what = f"“{docs[0].title}”" if len(docs) == 1 else tr("these {n} documents").format(n=len(docs))
        answer = QMessageBox.question(
            self,
            tr("Remove from library"),
            tr(
                "Remove {what} from the library?\n\nThe library's copy and its search entries are "
                "deleted; your original files are not touched."
            ).format(what=what),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        for doc in docs:
            viewer = self.viewers.pop(doc.doc_id, None)
            if viewer is not None and shiboken6.isValid(viewer):
                viewer.close()
        # A write: in a worker, because another process may hold the writer lock for a while.
        worker = FunctionWorker(remove_documents, self.library, docs, doing="Remove")
        worker.finished.connect(self.on_remove_worker_finished)
        worker.failed.connect(self.on_remove_worker_failed)
        self.remove_thread = WorkerThread(worker, self)
        self.table.setEnabled(False)
        self.message.emit(tr("Removing {n} document(s)…").format(n=len(docs)))
        self.remove_thread.start()

    def is_removing(self) -> bool:
        return self.remove_thread is not None

    def _remove_done(self) -> None:
        if self.remove_thread is not None:
            self.remove_thread.finish()
            self.remove_thread = None
        self.table.setEnabled(True)

    @Slot(object)
    def on_remove_worker_finished(self, errors: list[str]) -> None:
        self._remove_done()
        self.library_changed.emit()
        if errors:
            QMessageBox.warning(self, tr("Remove from library"), "\n".join(errors))

    @Slot(str)
    def on_remove_worker_failed(self, message: str) -> None:
        self._remove_done()
        self.library_changed.emit()
        QMessageBox.warning(self, tr("Remove from library"), message)

    def shutdown_workers(self) -> None:
        """The window is closing: let a removal finish (a write is never abandoned half-way)."""
        if self.remove_thread is not None:
            self.remove_thread.stop(20_000)
            self.remove_thread = None

    @Slot(int, int, str)
    def open_document(self, doc_id: int, page: int, text: str) -> None:
        """Show the document at ``page`` (1-based) with ``text`` searched / highlighted."""
        self.viewers = {k: v for k, v in self.viewers.items() if shiboken6.isValid(v)}
        viewer = self.viewers.get(doc_id)
        if viewer is not None:
            viewer.show_location(page, text)
        else:
            doc = self.library.document(doc_id)
            if doc is None or doc.status != "ready":
                QMessageBox.information(
                    self, tr("Open document"), tr("This document is no longer in the library.")
                )
                return
            docked = self.reader is not None
            viewer = DocumentViewer(self.library, doc, page, text, self.window(), docked=docked)
            self.viewers[doc_id] = viewer
        if self.reader is not None:
            self.reader.present(viewer)
            return
        viewer.show()
        viewer.raise_()
        viewer.activateWindow()
