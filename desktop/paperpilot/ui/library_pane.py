"""The library pane: the document table with its filter and sources, the first-run welcome
view and the menus. What the menus do (edit metadata, remove, copy references and in-text
citations, export, organize, undo) is ``LibraryActions`` (ui/library_actions.py), on the
``Session``; the full-text filter runs on the same worker shape (``BackgroundTask``)."""

from __future__ import annotations

import functools
import html
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import (
    QByteArray,
    QItemSelectionModel,
    QModelIndex,
    QPoint,
    Qt,
    QTimer,
    QUrl,
    Signal,
    Slot,
)
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence, QResizeEvent, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..core.api import (
    CollectionScope,
    CollectionTree,
    DocumentFilter,
    DocumentInfo,
    Library,
    LibraryError,
    MetadataUpdate,
    TextMatches,
    all_tags,
    one_line,
    parse_query,
    recently_added,
)
from ..core.app import Session
from .i18n import said_or, tr
from .library_actions import EXPORT_FORMATS, LibraryActions, references_mime
from .library_model import (
    DOC_ID_ROLE,
    Column,
    DocumentFilterProxy,
    DocumentTableModel,
    RowSet,
    SortState,
    make_rows,
)
from .metadata_dialog import MetadataDialog
from .resources import app_icon, is_sample_path, sample_questions
from .sources_pane import ALL, COLLECTION, RECENT, TAG, TRASH, UNFILED, SourcesPane
from .workers import BackgroundTask, WorkerThread

if TYPE_CHECKING:  # imported where a document is first opened
    from .document_viewer import DocumentViewer

WELCOME_PAGE, TABLE_PAGE = 0, 1
# The full-text filter waits this long after the last keystroke before it searches.
FULLTEXT_DEBOUNCE_MS = 250
WAIT_MS = 20_000  # how long a closing window waits for a running search
WARM_UP_QUERY = "the"  # searched (and its result dropped) when the Full text box is ticked
MAX_SUGGESTIONS = 3

__all__ = ["EXPORT_FORMATS", "LibraryPane", "MetadataDialog", "plain_citation", "references_mime"]


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


@dataclass(frozen=True)
class LibrarySnapshot:
    """What the library pane shows, read and prepared in one go: the documents and the trash,
    their table rows and filters, the collections, tags and counts of the sources pane.

    ``read_snapshot`` touches no widget, so a worker can make it (the import's, when it ends):
    the GUI thread then only swaps it in, with no work per document.
    """

    docs: list[DocumentInfo]
    trash: list[DocumentInfo]
    tree: CollectionTree
    colors: dict[str, str]
    notes: set[int]
    tags: list[tuple[str, int]]
    counts: dict[str, int]
    rows: RowSet  # of docs
    trash_rows: RowSet
    doc_filter: DocumentFilter
    trash_filter: DocumentFilter
    ready: tuple[int, int]  # (documents, chunks) ready
    has_samples: bool  # a ready document is one of the bundled sample papers
    # When the read began, in the order of all reads: of two snapshots the later-begun one
    # holds every change the other does (workers of different writes may report out of order).
    begun: int = 0


_READS = itertools.count(1)


def read_snapshot(library: Library, sort: SortState, previous: LibrarySnapshot | None = None) -> LibrarySnapshot:
    """Read the library for the pane (SQLite reads, then the rows sorted by ``sort``); the
    rows of ``previous`` (shown now) are kept for the documents that did not change."""
    begun = next(_READS)
    read = library.all_documents()
    read_trash = library.trashed_documents()
    tree = library.collection_tree()
    colors = library.tag_colors()
    notes = library.note_doc_ids()
    rows = make_rows(read, notes, colors, sort, previous.rows.rows if previous else ())
    trash_rows = make_rows(read_trash, notes, colors, sort, previous.trash_rows.rows if previous else ())
    # The documents the rows hold: an unchanged one is the object shown now, not its new copy.
    docs, trash = rows.docs, trash_rows.docs
    live = [d for d in docs if d.status == "ready"]
    filed = tree.filed()
    counts = {
        ALL: len(docs),
        RECENT: len(recently_added(docs)),
        TRASH: len(trash),
        UNFILED: sum(1 for d in docs if d.doc_id not in filed),
    }
    return LibrarySnapshot(
        docs=docs,
        trash=trash,
        tree=tree,
        colors=colors,
        notes=notes,
        tags=all_tags(live + trash),
        counts=counts,
        rows=rows,
        trash_rows=trash_rows,
        doc_filter=DocumentFilter(docs),
        trash_filter=DocumentFilter(trash),
        ready=(len(live), sum(d.chunks for d in live)),
        has_samples=any(is_sample_path(d.source_path) for d in live),
        begun=begun,
    )


def read_snapshot_of_nothing() -> LibrarySnapshot:
    """The pane before its first refresh."""
    empty = make_rows([])
    return LibrarySnapshot(
        docs=[], trash=[], tree=CollectionTree([], {}), colors={}, notes=set(), tags=[], counts={},
        rows=empty, trash_rows=empty, doc_filter=DocumentFilter([]), trash_filter=DocumentFilter([]),
        ready=(0, 0), has_samples=False,
    )  # fmt: skip


def fulltext_filter(session: Session, text: str, mode: str) -> tuple[str, TextMatches]:
    """(``mode``, the documents matching ``text`` in it, with passage counts and snippets): the
    full-text filter's work, done in a worker through the Session, as ``paperpilot search
    --mode`` does it (a mode by meaning searches by keyword while nothing is embedded)."""
    return mode, session.text_matches(text, mode)


# The full-text filter's search modes, as paperpilot search --mode names them.
FILTER_MODES = (("keyword", "Keyword"), ("meaning", "Meaning"), ("hybrid", "Hybrid"))


AUTHORS_MIN_WIDTH = 64


class LibraryPane(QWidget):
    import_requested = Signal(list)  # paths (str) to import
    sample_requested = Signal()
    library_changed = Signal()  # the library changed: read it again (the window refreshes)
    refreshed = Signal()  # the pane shows the library anew (its counts changed)
    example_question = Signal(str)
    message = Signal(str)  # a short note for the status bar ("Copied 2 references …")
    document_selected = Signal(int)  # the one ready document now selected (its references show)

    def __init__(self, library: Library, parent: QWidget | None = None, session: Session | None = None) -> None:
        super().__init__(parent)
        self.library = library
        # The application layer: removals to the trash, tags, collections, the undo stack.
        self.session = session if session is not None else Session(paths=library.paths, library=library)
        # What the pane does (writes, removals, metadata, citations) runs in its controller.
        self.controller = LibraryActions(self)
        self.fulltext_task = BackgroundTask(self)
        self.vectors_task = BackgroundTask(self)  # whether anything is embedded (the filter's modes)
        self._fulltext_due = ""  # a query typed while a search ran: searched when it ends
        self._tree = CollectionTree([], {})
        self._docs: list[DocumentInfo] = []
        self._trash: list[DocumentInfo] = []
        self._colors: dict[str, str] = {}
        self._notes: set[int] = set()
        self._problems: list[str] = []
        self.fulltext_timer = QTimer(self)
        self.fulltext_timer.setSingleShot(True)
        self.fulltext_timer.setInterval(FULLTEXT_DEBOUNCE_MS)
        self.fulltext_timer.timeout.connect(self.on_fulltext_timer_timeout)
        self.viewers: dict[int, DocumentViewer] = {}  # the open ones, docked or in windows
        # The main window's reader (ui/reader.py): documents open in its tabs; None: in windows.
        self.reader: Any = None
        # Set by the main window: whether online lookups are allowed (a setting) and the
        # Session's retrieval, which reads the lookup endpoints from the settings.
        self.lookups_allowed: Callable[[], bool] = lambda: False
        self.retrieve: Callable[[list[int]], list[MetadataUpdate]] | None = None
        self._questions = sample_questions()
        self._pending_question = ""
        self.model = DocumentTableModel(self)
        self.model.snippet_provider = self._snippet_for
        self._filter = DocumentFilter([])
        self._snapshot = read_snapshot_of_nothing()
        self._showing_trash = False
        self.proxy = DocumentFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self._sources_folded: list[int] | None = None  # the sizes before a narrow pane folded the tree
        self._fit_deferred = False
        self.table_min_width = 0  # what the table needs (set by the window, see fit_sources)

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

    def fold_sources(self, fold: bool) -> bool:
        """Fold the collections tree away in a narrow window (the splitter's handle still opens
        it); unfold it, as it was, when the window is wide again. True when it changed."""
        if fold and self._sources_folded is None:
            sizes = self.table_splitter.sizes()
            if sizes and sizes[0] > 0:
                self._sources_folded = sizes
                self.table_splitter.setSizes([0, sum(sizes)])
                return True
        elif not fold and self._sources_folded is not None:
            sizes, self._sources_folded = self._sources_folded, None
            if self.table_splitter.sizes()[0] == 0:
                self.table_splitter.setSizes(sizes)
            return True
        return False

    def fit_sources(self) -> None:
        """Fold the collections tree when the table beside it would get less than its minimum
        (its columns must stay whole); bring it back when the pane has the room again."""
        if not self.table_min_width:
            return
        room = self.width() - self.table_splitter.handleWidth()
        if self._sources_folded is None:
            sizes = self.table_splitter.sizes()
            tree = sizes[0] if sizes else 0
            if sum(sizes) < room - 8 and not self._fit_deferred:
                # The splitter has not shared out this width yet (the pane's first resize comes
                # before that, and the tree's own width only then): look again once it has.
                self._fit_deferred = True
                QTimer.singleShot(0, self.fit_sources_once_laid_out)
                return
            if tree and room - tree < self.table_min_width:
                self.fold_sources(True)
        elif room - self._sources_folded[0] >= self.table_min_width:
            self.fold_sources(False)

    @Slot()
    def fit_sources_once_laid_out(self) -> None:
        self.fit_sources()
        self._fit_deferred = False

    def _build_table_page(self) -> QWidget:
        page = QWidget(self)
        self.filter_edit = QLineEdit(page)
        self.filter_edit.setPlaceholderText(tr("Filter by title, author, year"))
        self.filter_edit.setToolTip(
            tr(
                "Words match title, authors and year (with Full text: the documents' text). "
                "Prefixes narrow further: author:smith year:2020-2023 tag:name collection:Parent/Child"
            )
        )
        self.filter_edit.setClearButtonEnabled(True)
        # Files dropped here must reach the window's import, not become text in the box.
        self.filter_edit.setAcceptDrops(False)
        self.filter_edit.textChanged.connect(self.on_filter_edit_text_changed)
        self.fulltext_check = QCheckBox(tr("Full text"), page)
        self.fulltext_check.setToolTip(tr("Filter by the documents' full text, with the number of matching passages"))
        self.fulltext_check.toggled.connect(self.on_fulltext_check_toggled)
        self.mode_combo = QComboBox(page)
        self.mode_combo.setObjectName("filterModeCombo")
        for value, label in FILTER_MODES:
            self.mode_combo.addItem(tr(label), value)
        self.mode_combo.setToolTip(tr("How the full-text filter searches: keyword (the words themselves), meaning "
                                      "(passages that say the same in other words or another language) or hybrid (both)"))
        self.mode_combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.mode_combo.setEnabled(False)  # with Full text only
        self.mode_combo.activated.connect(self.on_mode_combo_activated)
        self._mode_chosen: str | None = None  # the user's choice; None: hybrid once embedded
        self._has_vectors = False
        self._show_modes(False)
        self.count_label = QLabel(page)
        self.needs_checking_box = QCheckBox(tr("Needs checking"), page)
        self.needs_checking_box.setToolTip(tr("Only documents whose metadata came from weak sources (⚑)"))
        self.needs_checking_box.toggled.connect(self.on_needs_checking_box_toggled)
        # The filter keeps the row's width; its switches sit under it (a narrow pane would
        # otherwise squeeze the box to a few letters).
        top = QVBoxLayout()
        line = QHBoxLayout()
        line.addWidget(self.filter_edit, 1)
        line.addWidget(self.count_label)
        switches = QHBoxLayout()
        switches.addWidget(self.fulltext_check)
        switches.addWidget(self.mode_combo)
        switches.addWidget(self.needs_checking_box)
        switches.addStretch(1)
        top.addLayout(line)
        top.addLayout(switches)

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
        # Rows are dragged onto a collection in the sources pane.
        view.setDragEnabled(True)
        view.setDragDropMode(QAbstractItemView.DragDropMode.DragOnly)
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
            Column.MARKS: fm.horizontalAdvance("✎⚑OCR") + 4,
            Column.HITS: fm.horizontalAdvance("Hits") + 20,
        }
        for col, w in widths.items():
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(col, w)
        header.setMinimumSectionSize(36)
        header.setSectionHidden(Column.HITS, True)  # shown in full-text mode
        self._authors_width = widths[Column.AUTHORS]
        view.doubleClicked.connect(self.on_table_double_clicked)
        view.customContextMenuRequested.connect(self.on_table_context_menu_requested)
        view.selectionModel().selectionChanged.connect(self.on_table_selection_changed)
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

        self.sources = SourcesPane(page)
        self.sources.source_selected.connect(self.on_sources_source_selected)
        self.sources.documents_dropped.connect(self.controller.on_sources_documents_dropped)
        self.sources.new_collection_requested.connect(self.controller.on_sources_new_collection_requested)
        self.sources.rename_collection_requested.connect(self.controller.on_sources_rename_collection_requested)
        self.sources.delete_collection_requested.connect(self.controller.on_sources_delete_collection_requested)
        self.sources.empty_trash_requested.connect(self.controller.empty_trash)
        self.sources.tag_color_requested.connect(self.controller.on_sources_tag_color_requested)
        right = QWidget(page)
        rlay = QVBoxLayout(right)
        rlay.setContentsMargins(0, 0, 0, 0)
        rlay.addLayout(top)
        rlay.addWidget(view, 1)
        rlay.addWidget(self.suggestions)
        self.table_splitter = QSplitter(Qt.Orientation.Horizontal, page)
        self.table_splitter.setObjectName("librarySplitter")
        self.table_splitter.addWidget(self.sources)
        self.table_splitter.addWidget(right)
        self.table_splitter.setCollapsible(1, False)
        self.table_splitter.setStretchFactor(0, 0)
        self.table_splitter.setStretchFactor(1, 1)
        self.table_splitter.setSizes([150, 450])
        self.table_splitter.setCollapsible(0, True)

        lay = QVBoxLayout(page)
        lay.setContentsMargins(6, 6, 0, 6)
        lay.addWidget(self.table_splitter, 1)
        return page

    def restore_header(self, state: QByteArray) -> None:
        """Put back the table's saved column widths and sort order (and sort by it)."""
        header = self.table.horizontalHeader()
        if not header.restoreState(state):
            return
        header.setSectionHidden(Column.HITS, not self.fulltext_check.isChecked())
        col = header.sortIndicatorSection()
        if 0 <= col < self.model.columnCount():
            self.model.sort(col, header.sortIndicatorOrder())

    # --- state --------------------------------------------------------------------------------

    def refresh(self, snapshot: LibrarySnapshot | None = None) -> None:
        """Show the library as it is now (a fast SQLite read) or as ``snapshot`` read it (in a
        worker, see ``snapshot_reader``), keeping the user's selection."""
        if snapshot is None:
            snapshot = read_snapshot(self.library, self.model.sort_state(), self._snapshot)
        elif snapshot.begun < self._snapshot.begun:
            return  # the pane shows a read begun later already, which has all this one has
        keep = set(self.selected_ids())
        # Freed a moment later, with the rows the model replaces (DocumentTableModel.retire).
        self.model.retire(self._snapshot)
        self._snapshot = snapshot
        self._docs, self._trash, self._tree = snapshot.docs, snapshot.trash, snapshot.tree
        self._colors, self._notes = snapshot.colors, snapshot.notes
        self.sources.fill(snapshot.tree, snapshot.tags, snapshot.colors, snapshot.counts)
        self._fill_model()
        self.stack.setCurrentIndex(TABLE_PAGE if snapshot.docs or snapshot.trash else WELCOME_PAGE)
        self.apply_filter()
        if keep:
            self.select_ids(keep)
        self._update_count()
        self._update_suggestions(snapshot.has_samples)
        self._check_vectors()
        if self._pending_question and snapshot.ready[0]:
            # Deferred: refresh runs inside the import-finished handler; ask after it returns.
            QTimer.singleShot(0, self.on_pending_question_due)
        self.refreshed.emit()

    def snapshot_reader(self) -> Callable[[], LibrarySnapshot]:
        """A call that reads the library for ``refresh(snapshot)`` in another thread (the rows
        sorted as the table is sorted now; a sort changed meanwhile is redone on showing)."""
        library, sort, shown = self.library, self.model.sort_state(), self._snapshot
        return lambda: read_snapshot(library, sort, shown)

    def is_welcome_shown(self) -> bool:
        return self.stack.currentIndex() == WELCOME_PAGE

    def _fill_model(self) -> None:
        """The table holds the library, or in the Trash view the trash (from the last refresh)."""
        snap = self._snapshot
        self._showing_trash = self.sources.current()[0] == TRASH
        if self._showing_trash:
            self.model.set_rows(snap.trash_rows)
            self._filter = snap.trash_filter
        else:
            self.model.set_rows(snap.rows)
            self._filter = snap.doc_filter

    def _snippet_for(self, doc_id: int) -> str:
        """The best matching passage of a document for the current full-text filter (a read)."""
        text = getattr(self, "_snippet_text", "") if getattr(self, "_hits_text", "") else ""
        if not text:
            return ""
        try:
            return self.library.fulltext_snippets(text, [doc_id]).get(doc_id, "")
        except (LibraryError, ValueError):
            return ""

    def ready_count(self) -> tuple[int, int]:
        """(documents, chunks) of the ready documents the pane holds: what the status bar shows,
        from the same list as the pane's own count."""
        return self._snapshot.ready

    def _update_count(self) -> None:
        total = self.model.total()
        shown = self.proxy.rowCount()
        failed = self.model.failed_count()
        if shown != total:
            text = tr("{shown} of {total}").format(shown=shown, total=total)
        elif self.sources.current()[0] == TRASH:
            text = tr("{n} in the trash").format(n=total)
        else:
            # Failed imports are counted apart, so this agrees with the status bar's count.
            n = total - failed
            text = tr("1 document") if n == 1 else tr("{n} documents").format(n=n)
        if failed:
            text += " · " + tr("{n} failed").format(n=failed)
        if self.fulltext_task.busy or self.fulltext_timer.isActive():
            text += " · " + tr("searching…")
        if self._problems:
            text += " ⚠"  # the tooltip says what in the filter was not understood
        to_check = self.model.to_check_count()
        if to_check:
            text += " · " + tr("{n} to check").format(n=to_check)
        self.count_label.setText(text)
        self.count_label.setToolTip("\n".join(self._problems))

    def _update_suggestions(self, samples_shown: bool) -> None:
        has_samples = bool(self._questions) and samples_shown
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
        self.fit_sources()
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
        self.apply_filter()

    def filter_mode(self) -> str:
        """The full-text filter's mode as shown: the user's choice, else hybrid once embedded."""
        return str(self.mode_combo.currentData())

    def _show_modes(self, has_vectors: bool) -> None:
        """Offer "meaning" only when something is embedded (its tooltip says why not); select
        the user's choice, else hybrid once embedded, else keyword."""
        self._has_vectors = has_vectors
        model = self.mode_combo.model()
        if isinstance(model, QStandardItemModel):
            item = model.item(self.mode_combo.findData("meaning"))
            if item is not None:
                item.setEnabled(has_vectors)
                item.setToolTip("" if has_vectors else tr(
                    "Nothing is embedded yet: search by meaning works once the passages are embedded "
                    "(after an import, in the background; or paperpilot index --semantic)"))  # fmt: skip
        wanted = self._mode_chosen or ("hybrid" if has_vectors else "keyword")
        if wanted == "meaning" and not has_vectors:
            wanted = "keyword"
        self.mode_combo.setCurrentIndex(self.mode_combo.findData(wanted))

    def _check_vectors(self) -> None:
        """Ask, in a worker, whether anything is embedded yet (until something is): the filter
        then offers "meaning" and defaults to hybrid, before its first search."""
        if not self._has_vectors and not self.vectors_task.busy:
            self.vectors_task.call(self.session.has_vectors, done=self.on_vectors_known, doing="Search by meaning")

    def on_vectors_known(self, has_vectors: bool) -> None:
        if bool(has_vectors) != self._has_vectors:
            self._show_modes(bool(has_vectors))

    @Slot(int)
    def on_mode_combo_activated(self, index: int) -> None:
        self._mode_chosen = str(self.mode_combo.itemData(index))
        self._hits_text = ""  # the counts shown were found in the other mode
        self.apply_filter()

    @Slot(bool)
    def on_fulltext_check_toggled(self, on: bool) -> None:
        self.mode_combo.setEnabled(on)
        self.table.horizontalHeader().setSectionHidden(Column.HITS, not on)
        if not on:
            self._hits_text = ""
            self.model.set_hits({}, {})
        elif not parse_query(self.filter_edit.text()).words and not self.fulltext_task.busy:
            # Warm the index's searcher and fast fields in the worker while the user types: the
            # first search on a cold searcher costs several times a warm one.
            self._search(WARM_UP_QUERY)
        self.apply_filter()

    def _source_ids(self) -> set[int] | None:
        """The documents of the current source view (None: every one the model holds)."""
        kind, value = self.sources.current()
        if kind == RECENT:
            return set(recently_added(self._docs))
        if kind == UNFILED:
            filed = self._tree.filed()
            return {d.doc_id for d in self._docs if d.doc_id not in filed}
        if kind == COLLECTION:
            found = self._tree.find(value)
            return found.all_doc_ids() if found is not None else set()
        if kind == TAG:
            want = value.casefold()
            return {d.doc_id for d in self.model.documents() if want in {t.casefold() for t in d.tags}}
        return None

    def apply_filter(self) -> None:
        """Narrow the table to the source view and the typed filter. The fields and plain words
        are matched here (in memory, fast); full-text words go to the index in a worker,
        after a pause in typing."""
        q = parse_query(self.filter_edit.text())
        fulltext = self.fulltext_check.isChecked() and bool(q.words)
        base = self._source_ids()
        if base is None and q.empty:
            self._problems = list(q.problems)
            self._set_shown(None)
            self._update_count()
            return
        ids = set(self._filter.ids(q, self._tree, words=not fulltext))
        if base is not None:
            ids &= base
        self._problems = list(q.problems)
        if fulltext:
            if getattr(self, "_hits_text", None) == self._hits_key(q.text()):
                # (Also when nothing matched: an empty result is a result, not a search to redo.)
                ids &= set(self.model.hits())
            else:
                self._fulltext_due = q.text()
                self.fulltext_timer.start()
        self._set_shown(ids)
        self._update_count()

    def _set_shown(self, ids: set[int] | None) -> None:
        """Show these documents, keeping the selection of those that stay."""
        if self.model.is_showing(ids):
            return
        keep = self.selected_ids()
        self.proxy.set_accepted(ids)
        if keep:
            self.select_ids(keep)

    @Slot()
    def on_fulltext_timer_timeout(self) -> None:
        text = self._fulltext_due
        if not text:
            return
        if self.fulltext_task.busy:
            return  # searched when the running one ends
        self._fulltext_due = ""
        self._search(text)
        self._update_count()

    def _search(self, text: str) -> None:
        self.fulltext_task.call(fulltext_filter, self.session, text, self.filter_mode(), done=self.on_fulltext_done,
                                failed=self.on_fulltext_failed, doing="Full-text filter")  # fmt: skip

    def _hits_key(self, text: str) -> str:
        """What the counts shown were found for: the words and the mode."""
        return f"{self.filter_mode()}\x00{text}"

    def is_searching(self) -> bool:
        return self.fulltext_task.busy or self.fulltext_timer.isActive() or bool(self._fulltext_due)

    def _fulltext_done(self) -> None:
        if self._fulltext_due:
            self.fulltext_timer.start()

    def on_fulltext_done(self, done: tuple[str, TextMatches]) -> None:
        self._fulltext_done()
        asked, result = done
        if result.has_vectors != self._has_vectors:
            self._show_modes(result.has_vectors)  # the background embedding got on meanwhile
        q = parse_query(self.filter_edit.text())
        if not self.fulltext_check.isChecked() or q.text() != result.text or asked != self.filter_mode():
            self._update_count()
            if self.fulltext_check.isChecked() and q.words and not self._fulltext_due:
                self.apply_filter()  # the mode changed meanwhile: search again in the mode shown
            return  # typed on meanwhile: the newer search is due
        self._hits_text = self._hits_key(result.text)
        self._snippet_text = result.text
        self.model.set_hits(result.counts, result.snippets)
        self.apply_filter()

    def on_fulltext_failed(self, message: str) -> None:
        self._fulltext_done()
        self._problems = [message]
        self._update_count()
        self.message.emit(message)

    @Slot(bool)
    def on_needs_checking_box_toggled(self, on: bool) -> None:
        self.proxy.set_needs_checking(on)
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
                name=doc.file_name or doc.title, reason=said_or(doc.error_msg, doc.error) if doc.error else tr("unknown reason")
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
        failed = [d for d in docs if d.status == "failed"]
        menu = QMenu(self)
        if any(d.status == "trashed" for d in docs):
            menu.addAction(tr("Restore"), self.controller.restore_selected)
            menu.addAction(tr("Delete for Good…"), self.controller.delete_selected_for_good)
            return menu
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
            menu.addAction(tr("Papers in My Library That Cite This"), self.on_menu_cited_by_triggered)
            menu.addSeparator()
        if ready:
            one = len(ready) == 1
            menu.addAction(tr("Copy Reference") if one else tr("Copy References"), self.controller.copy_references)
            menu.addAction(
                tr("Copy In-text Citation") if one else tr("Copy In-text Citations"), self.controller.copy_in_text
            )
            menu.addAction(tr("Export Selection…"), self.controller.export_selection)
            menu.addSeparator()
            busy = self.controller.metadata.busy
            act = menu.addAction(tr("Re-read Metadata from File"), self.controller.reread_selected)
            act.setEnabled(not busy)
            act = menu.addAction(tr("Retrieve Metadata Online"), self.controller.retrieve_selected)
            allowed = self.lookups_allowed() and self.retrieve is not None
            act.setEnabled(allowed and not busy)
            if not allowed:
                act.setToolTip(tr("Allow online metadata lookups in Settings first"))
        if failed:
            menu.addAction(tr("Retry Import"), self.on_menu_retry_triggered)
        if ready:
            menu.addSeparator()
            menu.addAction(tr("Add Tag…"), self.controller.add_tag_to_selected)
            tags = sorted({t for d in ready for t in d.tags}, key=str.casefold)
            if tags:
                sub = menu.addMenu(tr("Remove Tag"))
                for t in tags:
                    sub.addAction(t, functools.partial(self.controller.remove_tag_from_selected, t))
            coll = menu.addMenu(tr("Add to Collection"))
            for c in self._tree.walk():
                coll.addAction(
                    "    " * c.path.count("/") + c.name, functools.partial(self.controller.add_selected_to_collection, c.path)
                )
            coll.addAction(tr("New Collection…"), self.controller.add_selected_to_new_collection)
            kind, value = self.sources.current()
            if kind == COLLECTION:
                menu.addAction(
                    tr("Remove from {name}").format(name=value), lambda: self.controller.remove_selected_from_collection(value)
                )
        menu.addSeparator()
        if not ready:  # failed imports hold nothing but their reason: they are removed
            label = tr("Remove") if len(docs) == 1 else tr("Remove {n} Documents").format(n=len(docs))
        else:
            label = tr("Move to Trash") if len(docs) == 1 else tr("Move {n} Documents to Trash").format(n=len(docs))
        menu.addAction(label, self.controller.remove_selected)
        return menu

    def _single_ready(self) -> DocumentInfo | None:
        docs = [d for d in self.selected_documents() if d.status == "ready"]
        return docs[0] if len(docs) == 1 else None

    def on_table_selection_changed(self, *_selection: object) -> None:
        doc = self._single_ready()
        if doc is not None:
            self.document_selected.emit(doc.doc_id)

    @Slot()
    def on_menu_cited_by_triggered(self) -> None:
        doc = self._single_ready()
        if doc is not None:
            self.show_cited_by(doc.doc_id)

    def show_cited_by(self, doc_id: int) -> list[int]:
        """Select the documents whose reference lists cite ``doc_id`` (a read: their stored
        reference lists); returns their ids."""
        doc = self.library.document(doc_id)
        citing = [d.doc_id for d in self.library.cited_by(doc_id)]
        title = one_line(doc.title, 60) if doc is not None else f"#{doc_id}"
        if citing:
            self.select_ids(citing)
            self.message.emit(tr("{n} document(s) in your library cite “{title}”.").format(n=len(citing), title=title))
        else:
            self.message.emit(tr("No document in your library cites “{title}”.").format(title=title))
        return citing

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
            self.controller.edit_metadata(doc.doc_id)

    @Slot()
    def on_menu_notes_triggered(self) -> None:
        doc = self._single_ready()
        if doc is not None:
            self.controller.edit_notes(doc.doc_id)

    @Slot()
    def on_menu_retry_triggered(self) -> None:
        self.retry_documents([d for d in self.selected_documents() if d.status == "failed"])

    def retry_documents(self, docs: list[DocumentInfo]) -> None:
        paths = [d.source_path for d in docs if d.source_path]
        if paths:
            self.import_requested.emit(paths)

    # --- the actions (LibraryActions does them; these are the window's and the tests' handles) ---

    def edit_metadata(self, doc_id: int) -> bool:
        return self.controller.edit_metadata(doc_id)

    def set_citation_style(self, name: str) -> None:
        self.controller.set_citation_style(name)

    def citation_style(self) -> str:
        return self.controller.citation_style()

    def copy_references(self) -> None:
        self.controller.copy_references()

    def copy_in_text(self) -> None:
        self.controller.copy_in_text()

    def export_selection(self) -> None:
        self.controller.export_selection()

    def export_library(self) -> None:
        self.controller.export_library()

    def remove_selected(self) -> None:
        self.controller.remove_selected()

    def is_removing(self) -> bool:
        return self.controller.is_removing()

    def is_writing(self) -> bool:
        return self.controller.is_writing()

    @property
    def metadata_thread(self) -> WorkerThread | None:
        """The metadata update running (re-read or online retrieval), if any."""
        return self.controller.metadata.worker_thread

    def run_write(
        self, fn: Callable[..., Any], *args: object, done: str = "", say: Callable[[str], str] | None = None
    ) -> bool:
        return self.controller.run_write(fn, *args, done=done, say=say)

    def tag_documents(self, doc_ids: list[int], add: Sequence[str] = (), remove: Sequence[str] = ()) -> bool:
        return self.controller.tag_documents(doc_ids, add, remove)

    def add_tag_to_selected(self) -> None:
        self.controller.add_tag_to_selected()

    def add_to_collection(self, path: str, doc_ids: list[int]) -> bool:
        return self.controller.add_to_collection(path, doc_ids)

    def empty_trash(self) -> None:
        self.controller.empty_trash()

    def undo(self) -> None:
        self.controller.undo()

    def shutdown_workers(self) -> None:
        """The window is closing: let a removal or a write finish (never abandoned half-way)."""
        self.fulltext_timer.stop()
        self.fulltext_task.shutdown(WAIT_MS)
        self.vectors_task.shutdown(WAIT_MS)
        self.controller.shutdown()

    @Slot(str, str)
    def on_sources_source_selected(self, kind: str, _value: str) -> None:
        if (kind == TRASH) != self._showing_trash:
            self._fill_model()  # the trash is another list
        self.apply_filter()

    def current_scope(self) -> CollectionScope | None:
        """The collection or tag open in the sources pane, which a question is asked of."""
        kind, value = self.sources.current()
        return CollectionScope(kind, value) if kind in (COLLECTION, TAG) and value else None

    def show_source(self, kind: str, value: str = "") -> None:
        """Switch the view (All, Recently added, Unfiled, Trash, a collection, a tag)."""
        self.sources.select(kind, value)
        if self.sources.current() != (kind, value) and kind not in (ALL,):
            return
        self.on_sources_source_selected(kind, value)

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
            # Imported on first use: QtPdf and the span locator cost ~60 ms of the start-up.
            from .document_viewer import DocumentViewer

            viewer = DocumentViewer(self.library, doc, page, text, self.window(), docked=docked)
            self.viewers[doc_id] = viewer
        if self.reader is not None:
            self.reader.present(viewer)
            return
        viewer.show()
        viewer.raise_()
        viewer.activateWindow()
