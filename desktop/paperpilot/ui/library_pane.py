"""The library pane: the document table with its filter, the first-run welcome view, and
the per-document actions (open, edit metadata, remove, retry, copy citation)."""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..core.library import Library, LibraryBusy, LibraryError
from ..core.metadata_edit import MAX_YEAR, clean_fields, update_metadata
from ..core.models import DocumentInfo
from .document_viewer import DocumentViewer
from .i18n import tr
from .library_model import DOC_ID_ROLE, Column, DocumentFilterProxy, DocumentTableModel
from .resources import app_icon, is_sample_path, sample_questions

WELCOME_PAGE, TABLE_PAGE = 0, 1
MAX_SUGGESTIONS = 3


def plain_citation(doc: DocumentInfo) -> str:
    """``Authors (Year). Title. Venue.`` — a neutral stand-in until citation styles exist."""
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


class MetadataDialog(QDialog):
    """Title, authors (one per line), year, venue and DOI of one document."""

    def __init__(self, doc: DocumentInfo, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Edit Metadata"))
        self.setMinimumWidth(460)
        self.title_edit = QLineEdit(doc.title, self)
        self.authors_edit = QPlainTextEdit("\n".join(doc.authors), self)
        self.authors_edit.setPlaceholderText(tr("One author per line"))
        self.authors_edit.setTabChangesFocus(True)
        self.authors_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 5 + 12)
        self.year_spin = QSpinBox(self)
        self.year_spin.setRange(0, MAX_YEAR)
        self.year_spin.setSpecialValueText("—")  # 0 shows as "no year"
        self.year_spin.setValue(doc.year or 0)
        self.venue_edit = QLineEdit(doc.venue, self)
        self.doi_edit = QLineEdit(doc.doi, self)
        self.doi_edit.setPlaceholderText("10.xxxx/…")
        self.error_label = QLabel(self)
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        form = QFormLayout()
        form.addRow("&Title:", self.title_edit)
        form.addRow("&Authors:", self.authors_edit)
        form.addRow("&Year:", self.year_spin)
        form.addRow("&Venue:", self.venue_edit)
        form.addRow("&DOI:", self.doi_edit)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(self.error_label)
        lay.addWidget(buttons)

    def values(self) -> dict[str, Any]:
        return {
            "title": self.title_edit.text(),
            "authors": [a for a in self.authors_edit.toPlainText().splitlines() if a.strip()],
            "year": self.year_spin.value() or None,
            "venue": self.venue_edit.text(),
            "doi": self.doi_edit.text(),
        }

    def accept(self) -> None:
        try:
            clean_fields(self.values())
        except ValueError as e:
            # Keep the dialog open with the user's input rather than losing it to an error box.
            self.error_label.setText(str(e))
            self.error_label.setVisible(True)
            return
        super().accept()


class LibraryPane(QWidget):
    import_requested = Signal(list)  # paths (str) to import
    sample_requested = Signal()
    library_changed = Signal()
    example_question = Signal(str)

    def __init__(self, library: Library, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.library = library
        self.viewers: dict[int, DocumentViewer] = {}
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
            "Papers (*.pdf *.txt *.md *.markdown *.jsonl);;All files (*)",
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
            menu.addSeparator()
        if ready:
            menu.addAction(
                tr("Copy Citation") if len(ready) == 1 else tr("Copy Citations"),
                self.on_menu_copy_citation_triggered,
            )
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
    def on_menu_copy_citation_triggered(self) -> None:
        docs = [d for d in self.selected_documents() if d.status == "ready"]
        if docs:
            QGuiApplication.clipboard().setText("\n".join(plain_citation(d) for d in docs))

    @Slot()
    def on_menu_retry_triggered(self) -> None:
        self.retry_documents([d for d in self.selected_documents() if d.status != "ready"])

    def retry_documents(self, docs: list[DocumentInfo]) -> None:
        paths = [d.source_path for d in docs if d.source_path]
        if paths:
            self.import_requested.emit(paths)

    # --- actions ------------------------------------------------------------------------------

    def edit_metadata(self, doc_id: int) -> bool:
        """Show the metadata dialog; True when the document was changed."""
        doc = self.library.document(doc_id)
        if doc is None:
            return False
        dlg = MetadataDialog(doc, self)
        try:
            if dlg.exec() != QDialog.DialogCode.Accepted:
                return False
            values = dlg.values()
        finally:
            dlg.deleteLater()
        try:
            update_metadata(self.library, doc_id, **values)
        except (ValueError, LibraryError, LibraryBusy) as e:
            QMessageBox.warning(self, tr("Edit Metadata"), str(e))
            return False
        viewer = self.viewers.get(doc_id)
        if viewer is not None and shiboken6.isValid(viewer):
            viewer.setWindowTitle(f"{values['title']} — PaperPilot")
        self.library_changed.emit()
        return True

    @Slot()
    def remove_selected(self) -> None:
        docs = self.selected_documents()
        if not docs:
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
        errors: list[str] = []
        for doc in docs:
            viewer = self.viewers.pop(doc.doc_id, None)
            if viewer is not None and shiboken6.isValid(viewer):
                viewer.close()
            try:
                self.library.remove(doc.doc_id)
            except (LibraryError, LibraryBusy) as e:
                errors.append(f"{doc.title}: {e}")
        self.library_changed.emit()
        if errors:
            QMessageBox.warning(self, tr("Remove from library"), "\n".join(errors))

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
            viewer = DocumentViewer(self.library, doc, page, text, self.window())
            self.viewers[doc_id] = viewer
        viewer.show()
        viewer.raise_()
        viewer.activateWindow()
