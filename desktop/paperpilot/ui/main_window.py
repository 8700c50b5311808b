"""The main window: Library | Chat | Inspector in splitters, menus, status bar, workers.

All signal wiring lives here (one place); slots are named ``on_<source>_<event>``. Panes know
nothing of each other or of threads.
"""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, Qt, QUrl, Slot
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDropEvent,
    QKeySequence,
    QResizeEvent,
    QShortcut,
)
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QSplitter,
    QToolButton,
    QWidget,
)

from .. import __version__
from ..core.api import (
    EVENT_ADAPTER,
    AppPaths,
    ConversationStore,
    ImportReport,
    Library,
    LibraryError,
    Rendered,
    ResearchProfile,
    Settings,
    answer_status,
    atomic_write_text,
)
from ..core.app import AskRun, ConversationNotFound, Session
from ..core.errors import PaperPilotError
from .chat_pane import ChatPane
from .conversations_pane import ConversationsPane
from .i18n import said_or, tr
from .inspector import InspectorPane
from .keyboard import FilterKeys, ShortcutsDialog
from .library_pane import AUTHORS_MIN_WIDTH, LibraryPane, LibrarySnapshot
from .metadata_dialog import stop_lookups
from .reader import Reader
from .theme import apply_theme
from .undo_text import undo_text
from .workers import EmbedWorker, FunctionWorker, GeneratorWorker, ImportWorker, WorkerThread

# Below this width the conversation list folds away into a drawer (View ▸ Show Conversations,
# or the button beside the Chat tab), so the library, the chat and the inspector keep their room.
NARROW_WIDTH = 1280
TITLE_MIN_WIDTH = 100  # the library's title column, the one people scan (two lines a row)
CHAT_MIN_WIDTH = 300
CONVERSATIONS_MIN_WIDTH = 160


class MainWindow(QMainWindow):
    def __init__(self, library: Library, paths: AppPaths, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # The application layer: policy, follow-ups, profile, conversations, citation style.
        self.session = Session(paths=paths, settings=settings, library=library)
        self.library = library
        self.paths = paths
        self.qsettings = QSettings(str(paths.config_dir / "window.ini"), QSettings.Format.IniFormat)
        self.import_thread: WorkerThread | None = None
        self.agent_thread: WorkerThread | None = None
        self.reindex_thread: WorkerThread | None = None
        self.embed_thread: WorkerThread | None = None  # embedding after an import (search by meaning)
        self.last_report: ImportReport | None = None
        self._import_snapshot: LibrarySnapshot | None = None  # read by the import's worker
        self.check_dialog: Any = None  # CheckDialog while it is open
        # Once, at start-up: defaults are in use and the broken profile was moved aside.
        self.profile_warning = next(iter(self.session.warnings), "")
        self.conversation_id: Any = None  # None: a new conversation, created by its first answer
        self.setWindowTitle("PaperPilot")
        self.setAcceptDrops(True)
        self.resize(1400, 860)

        self.library_pane = LibraryPane(library, self, session=self.session)
        # Past import batches (newest last): the failure list stays reachable after the next one.
        self.import_log: list[ImportReport] = []
        self.library_pane.set_citation_style(self.session.citation_style)
        self.library_pane.lookups_allowed = self.online_lookups_allowed
        self.library_pane.retrieve = self.session.retrieve_metadata
        self.chat_pane = ChatPane(self)
        self.conversations_pane = ConversationsPane(self.conversations, self)
        self.inspector = InspectorPane(self)
        # The conversation list sits at the chat's left and can be dragged shut.
        self.chat_splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.chat_splitter.setObjectName("chatSplitter")
        self.chat_splitter.addWidget(self.conversations_pane)
        self.chat_splitter.addWidget(self.chat_pane)
        self.chat_splitter.setCollapsible(1, False)
        self.chat_splitter.setStretchFactor(0, 0)
        self.chat_splitter.setStretchFactor(1, 1)
        self.chat_splitter.setSizes([190, 470])
        # Documents open as tabs beside the chat, so the inspector's evidence stays in view.
        self.reader = Reader(self.chat_splitter, self)
        self.library_pane.reader = self.reader
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainSplitter")
        for pane in (self.library_pane, self.reader, self.inspector):
            self.splitter.addWidget(pane)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 4)
        self.splitter.setStretchFactor(2, 2)
        # The library pane holds the collections tree beside its table: it gets the larger share.
        self.splitter.setSizes([460, 600, 340])
        self.setCentralWidget(self.splitter)

        # A frame over the panes while files are dragged onto the window (see set_drop_highlight).
        self.drop_highlight = QLabel(tr("Drop to import into the library"), self)
        self.drop_highlight.setObjectName("dropHighlight")
        self.drop_highlight.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_highlight.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.drop_highlight.setStyleSheet(
            "#dropHighlight { border: 3px dashed palette(highlight); border-radius: 8px;"
            " background: rgba(80, 140, 255, 90); font-size: 18px; font-weight: bold; }"
        )
        self.drop_highlight.setVisible(False)

        self._drawer_folded = False  # the window folded the conversation list because it is narrow
        self._build_status_bar()
        self._build_menus()
        self._build_drawer_button()
        self._wire()
        self._keyboard()
        self.apply_minimum_sizes()
        self._restore_geometry()
        self.refresh_library()
        if self.profile_warning:
            # Once, at start-up: defaults are in use and the broken file was moved aside.
            self.statusBar().showMessage(self.profile_warning, 15_000)

    @property
    def settings(self) -> Settings:
        return self.session.settings

    def online_lookups_allowed(self) -> bool:
        return self.session.online_lookups_allowed

    @property
    def profile(self) -> ResearchProfile:
        return self.session.profile

    @property
    def conversations(self) -> ConversationStore:
        return self.session.conversations

    # --- construction -------------------------------------------------------------------------

    def _build_status_bar(self) -> None:
        sb = self.statusBar()
        self.docs_label = QLabel(self)
        self.model_label = QLabel(self)
        self.task_label = QLabel(self)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        self.cancel_import_button = QPushButton(tr("Cancel"), self)
        self.cancel_import_button.setVisible(False)
        self.failures_button = QPushButton(self)
        self.failures_button.setFlat(True)
        self.failures_button.setVisible(False)
        sb.addWidget(self.docs_label)
        sb.addWidget(self.task_label, 1)
        sb.addPermanentWidget(self.failures_button)
        sb.addPermanentWidget(self.progress)
        sb.addPermanentWidget(self.cancel_import_button)
        sb.addPermanentWidget(self.model_label)
        self.update_model_label()

    def _action(
        self, text: str, slot: Any, shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None
    ) -> QAction:
        act = QAction(text, self)
        if shortcut is not None:
            act.setShortcut(QKeySequence(shortcut))
        act.triggered.connect(slot)
        return act

    def _build_menus(self) -> None:
        mb = self.menuBar()
        file_menu = mb.addMenu(tr("&File"))
        self.import_files_action = self._action(tr("&Import Files…"), self.on_import_files_triggered, QKeySequence.StandardKey.Open)
        self.import_folder_action = self._action(tr("Import &Folder…"), self.on_import_folder_triggered, "Ctrl+Shift+O")
        file_menu.addActions([self.import_files_action, self.import_folder_action])
        file_menu.addSeparator()
        self.new_conversation_action = self._action(tr("&New Conversation"), self.on_conversations_pane_new_requested, QKeySequence.StandardKey.New)
        self.export_conversation_action = self._action(tr("Export &Conversation as Markdown…"), self.on_export_conversation_triggered)
        file_menu.addActions([self.new_conversation_action, self.export_conversation_action])
        file_menu.addSeparator()
        self.export_library_action = self._action(tr("Export &Library…"), self.library_pane.export_library)
        self.export_selection_action = self._action(tr("Export &Selection…"), self.library_pane.export_selection)
        file_menu.addActions([self.export_library_action, self.export_selection_action])
        self.export_trace_action = self._action(tr("Export &Trace…"), self.inspector.export_trace, "Ctrl+Shift+T")
        file_menu.addAction(self.export_trace_action)
        file_menu.addSeparator()
        file_menu.addAction(self._action(tr("&Quit"), self.close, QKeySequence.StandardKey.Quit))

        edit = mb.addMenu(tr("&Edit"))
        self.undo_action = self._action(tr("&Undo"), self.library_pane.undo, QKeySequence.StandardKey.Undo)
        edit.addAction(self.undo_action)
        edit.aboutToShow.connect(self.on_edit_menu_about_to_show)
        edit.aboutToHide.connect(self.on_edit_menu_about_to_hide)
        edit.addSeparator()
        self.copy_references_action = self._action(tr("Copy &References"), self.library_pane.copy_references, "Ctrl+Shift+C")
        self.copy_in_text_action = self._action(tr("Copy &In-text Citations"), self.library_pane.copy_in_text, "Ctrl+Shift+A")
        self.copy_answer_action = self._action(tr("&Copy Answer with References"), self.chat_pane.copy_answer, "Ctrl+Alt+C")
        edit.addActions([self.copy_references_action, self.copy_in_text_action, self.copy_answer_action])
        edit.addAction(self._action(tr("&Find in Library"), self.library_pane.focus_filter, QKeySequence.StandardKey.Find))
        edit.addSeparator()
        self.profile_action = self._action(tr("Research &Profile…"), self.on_profile_triggered)
        edit.addAction(self.profile_action)
        edit.addAction(self._action(tr("&Settings…"), self.on_settings_triggered, QKeySequence.StandardKey.Preferences))

        view = mb.addMenu(tr("&View"))
        for i, name in enumerate((tr("Show &Library"), tr("Show &Chat"), tr("Show &Inspector"))):
            act = self._action(name, lambda checked=False, i=i: self.toggle_pane(i), f"Ctrl+{i + 1}")
            act.setCheckable(True)
            act.setChecked(True)
            view.addAction(act)
        self.show_conversations_action = self._action(tr("Show C&onversations"), self.on_show_conversations_toggled, "Ctrl+4")
        self.show_conversations_action.setCheckable(True)
        self.show_conversations_action.setChecked(True)
        view.addAction(self.show_conversations_action)
        view.addSeparator()
        view.addAction(self._action(tr("Focus &Question Box"), self.chat_pane.focus_input, "Ctrl+L"))
        self.close_document_action = self._action(tr("Close &Document"), self.on_close_document_triggered, "Ctrl+W")
        view.addAction(self.close_document_action)

        lib = mb.addMenu(tr("&Library"))
        lib.addAction(self._action(tr("&Refresh"), self.refresh_library, QKeySequence.StandardKey.Refresh))
        self.reindex_action = self._action(tr("&Rebuild Search Index"), self.on_reindex_triggered)
        lib.addAction(self.reindex_action)
        lib.addAction(self._action(tr("Remove &Selected Documents"), self.library_pane.remove_selected, QKeySequence.StandardKey.Delete))
        lib.addAction(self._action(tr("Add &Sample Papers"), self.on_sample_requested))
        lib.addSeparator()
        self.matrix_action = self._action(tr("Literature &Matrix…"), self.on_matrix_triggered, "Ctrl+M")
        lib.addAction(self.matrix_action)
        self.draft_action = self._action(tr("&Draft a Proposal or Review…"), self.on_draft_triggered, "Ctrl+Shift+D")
        lib.addAction(self.draft_action)
        lib.addSeparator()
        lib.addAction(self._action(tr("Show &Trash"), self.on_show_trash_triggered))
        lib.addAction(self._action(tr("&Empty Trash…"), self.library_pane.empty_trash))
        self.import_log_action = self._action(tr("Import &Log…"), self.on_import_log_triggered)
        lib.addAction(self.import_log_action)

        help_menu = mb.addMenu(tr("&Help"))
        self.check_library_action = self._action(tr("&Check Library…"), self.on_check_library_triggered)
        help_menu.addAction(self.check_library_action)
        self.shortcuts_action = self._action(
            tr("&Keyboard Shortcuts"), self.on_shortcuts_triggered, QKeySequence.StandardKey.HelpContents
        )
        help_menu.addAction(self.shortcuts_action)
        help_menu.addAction(self._action(tr("&About PaperPilot"), self.on_about_triggered))

    def _build_drawer_button(self) -> None:
        button = QToolButton(self.reader)
        button.setObjectName("conversationsDrawerButton")
        button.setText(tr("Conversations"))
        button.setCheckable(True)
        button.setChecked(self.show_conversations_action.isChecked())
        button.clicked.connect(self.show_conversations_action.trigger)
        self.show_conversations_action.toggled.connect(button.setChecked)
        button.setToolTip(tr("Show or hide the conversation list") + " (Ctrl+4)")
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        button.setAutoRaise(True)
        self.drawer_button = button
        self.reader.setCornerWidget(button, Qt.Corner.TopLeftCorner)

    def apply_minimum_sizes(self) -> None:
        """Panes never get narrower than what shows their essentials: the library's fixed
        columns beside a readable title, the inspector's tabs unabbreviated, a usable chat."""
        header = self.library_pane.table.horizontalHeader()
        # The authors column elides down to its minimum (LibraryPane.fit_columns); the rest are fixed.
        fixed = sum(header.sectionSize(c) for c in range(2, header.count()) if not header.isSectionHidden(c))
        fixed += AUTHORS_MIN_WIDTH
        scroll = self.library_pane.table.verticalScrollBar().sizeHint().width()
        table_min = fixed + TITLE_MIN_WIDTH + scroll + 2 * self.library_pane.table.frameWidth() + 4
        self.library_pane.setMinimumWidth(table_min)
        # The collections tree steps aside when the table would get less (LibraryPane.resizeEvent).
        self.library_pane.table_min_width = table_min
        tabs = self.inspector.tabs
        corner = self.inspector.export_button.sizeHint().width()
        self.inspector.setMinimumWidth(tabs.tabBar().sizeHint().width() + corner + 8)
        self.chat_pane.setMinimumWidth(CHAT_MIN_WIDTH)
        # Not its natural minimum: an open list must not stop the window from being made narrow
        # (it folds away below NARROW_WIDTH instead).
        self.conversations_pane.setMinimumWidth(1)
        self.chat_splitter.setCollapsible(0, True)

    def resizeEvent(self, event: QResizeEvent) -> None:  # Qt override
        super().resizeEvent(event)
        narrow = event.size().width() < NARROW_WIDTH
        if self.drawer_open():
            if narrow:
                self._place_drawer()
                return
            self.on_show_conversations_toggled(True)  # wide again: the drawer becomes a pane
            return
        open_now = self.show_conversations_action.isChecked()
        if narrow and open_now and not self._drawer_folded:
            self._drawer_folded = True
            self.show_conversations_action.setChecked(False)
            self.on_show_conversations_toggled(False)
        elif not narrow and self._drawer_folded:
            # Wide again: the list comes back, as it was before the window folded it.
            self._drawer_folded = False
            self.show_conversations_action.setChecked(True)
            self.on_show_conversations_toggled(True)

    def _keyboard(self) -> None:
        """Filter boxes hand the arrow keys to their results; Tab walks the panes left to right."""
        lib, conv, chat, insp = self.library_pane, self.conversations_pane, self.chat_pane, self.inspector
        lib.table.setObjectName("libraryTable")
        self.library_filter_keys = FilterKeys(lib.filter_edit, lib.table, lib.on_open_action_triggered)
        self.conversation_filter_keys = FilterKeys(conv.search_edit, conv.list, self.on_conversation_filter_open)
        chat._stop_shortcut.setProperty("description", tr("Stop the run"))
        # The drawer is a popup over the chat: Esc inside it closes it, like a menu.
        self.drawer_escape = QShortcut(QKeySequence(Qt.Key.Key_Escape), conv)
        self.drawer_escape.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        self.drawer_escape.setProperty("description", tr("Close the conversations drawer"))
        self.drawer_escape.activated.connect(self.on_drawer_escape_activated)
        chain: list[QWidget] = [
            lib.filter_edit, lib.table, conv.search_edit, conv.list, chat.input, chat.mode_combo,
            chat.send_button, chat.conversation, insp.tabs,
        ]
        for first, second in pairwise(chain):
            QWidget.setTabOrder(first, second)

    @Slot()
    def on_conversation_filter_open(self) -> None:
        item = self.conversations_pane.list.currentItem()
        if item is not None:
            self.conversations_pane.list.itemActivated.emit(item)

    @Slot()
    def on_shortcuts_triggered(self) -> None:
        dlg = ShortcutsDialog(self)
        dlg.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.shortcuts_dialog = dlg
        dlg.show()

    def _wire(self) -> None:
        self.library_pane.import_requested.connect(self.start_import)
        self.library_pane.sample_requested.connect(self.on_sample_requested)
        self.library_pane.library_changed.connect(self.refresh_library)
        self.library_pane.refreshed.connect(self.on_library_pane_refreshed)
        self.library_pane.example_question.connect(self.chat_pane.ask_example)
        self.library_pane.message.connect(self.on_library_pane_message)
        self.library_pane.document_selected.connect(self.on_library_pane_document_selected)
        self.chat_pane.set_reference_formatter(self.format_references, self.format_citation)
        self.chat_pane.ask_requested.connect(self.on_chat_ask_requested)
        self.chat_pane.stop_requested.connect(self.on_chat_stop_requested)
        self.chat_pane.citation_clicked.connect(self.inspector.select_evidence)
        self.inspector.open_source.connect(self.library_pane.open_document)
        self.conversations_pane.conversation_selected.connect(self.on_conversations_pane_conversation_selected)
        self.conversations_pane.new_requested.connect(self.on_conversations_pane_new_requested)
        self.conversations_pane.export_requested.connect(self.on_conversations_pane_export_requested)
        self.conversations_pane.deleted.connect(self.on_conversations_pane_deleted)
        self.cancel_import_button.clicked.connect(self.on_cancel_import_clicked)
        self.failures_button.clicked.connect(self.on_failures_clicked)
        self.reader.popped_out.connect(self.on_reader_popped_out)

    def _restore_geometry(self) -> None:
        geo = self.qsettings.value("geometry")
        if isinstance(geo, QByteArray):
            self.restoreGeometry(geo)
        state = self.qsettings.value("splitter")
        if isinstance(state, QByteArray):
            self.splitter.restoreState(state)
        lib_state = self.qsettings.value("librarySplitter")
        if isinstance(lib_state, QByteArray):
            self.library_pane.table_splitter.restoreState(lib_state)
        header_state = self.qsettings.value("libraryHeader")
        if isinstance(header_state, QByteArray):
            self.library_pane.restore_header(header_state)
        chat_state = self.qsettings.value("chatSplitter")
        if isinstance(chat_state, QByteArray):
            self.chat_splitter.restoreState(chat_state)
            shown = self.chat_splitter.sizes()[0] > 0
            self.show_conversations_action.setChecked(shown)
            self.conversations_pane.setVisible(shown)

    def save_geometry(self) -> None:
        self.qsettings.setValue("geometry", self.saveGeometry())
        self.qsettings.setValue("splitter", self.splitter.saveState())
        if not self._drawer_folded:  # folded for a narrow window: the user's choice is kept as it was
            self.qsettings.setValue("chatSplitter", self.chat_splitter.saveState())
        # The library table's sort order and column widths, like the window's geometry.
        self.qsettings.setValue("libraryHeader", self.library_pane.table.horizontalHeader().saveState())
        self.qsettings.setValue("librarySplitter", self.library_pane.table_splitter.saveState())
        self.qsettings.sync()

    # --- library ---------------------------------------------------------------------------

    @Slot()
    def refresh_library(self) -> None:
        self.show_library()

    def show_library(self, snapshot: LibrarySnapshot | None = None) -> None:
        """Show the library as it is now, or as ``snapshot`` (read by a worker) has it."""
        self.library_pane.refresh(snapshot)

    @Slot()
    def on_library_pane_refreshed(self) -> None:
        # One source: the list the library pane just read (its header counts the same rows).
        docs, chunks = self.library_pane.ready_count()
        self.docs_label.setText(tr("{docs} documents · {chunks} chunks").format(docs=docs, chunks=chunks))

    @Slot(int, object)
    def on_reader_popped_out(self, doc_id: int, viewer: Any) -> None:
        # The window replaces the tab: opening the document again shows the window.
        self.library_pane.viewers[doc_id] = viewer

    @Slot()
    def on_close_document_triggered(self) -> None:
        self.reader.close_current_document()

    @Slot(int)
    def on_library_pane_document_selected(self, doc_id: int) -> None:
        doc = self.library.document(doc_id)
        if doc is None:
            return
        try:
            refs = self.library.references(doc_id)
        except LibraryError as e:
            self.statusBar().showMessage(str(e), 5000)
            return
        self.inspector.show_references(doc.title, refs)

    @Slot(str)
    def on_library_pane_message(self, text: str) -> None:
        self.statusBar().showMessage(text, 6000)

    def format_references(self, doc_ids: list[int]) -> list[Rendered]:
        """Bibliography entries for ``doc_ids`` in the preferred style (the chat pane's answers)."""
        return self.session.references(doc_ids, self.library_pane.citation_style())

    def format_citation(self, doc_ids: list[int], numbers: list[int]) -> str:
        """The in-text marker citing ``doc_ids``, which are entries ``numbers`` of an answer's
        own bibliography (so numeric styles print those numbers, not 1, 2 …)."""
        return self.session.in_text(doc_ids, self.library_pane.citation_style(), numbers)

    def update_model_label(self) -> None:
        llm = self.settings.llm
        if llm.enabled and llm.model:
            self.model_label.setText(tr("Model: {model}").format(model=llm.model))
        else:
            self.model_label.setText(tr("Offline (no language model)"))

    def last_import_dir(self) -> str:
        """Where the file dialogs open: the folder of the last import, else the home folder."""
        last = self.qsettings.value("lastImportDir")
        return last if isinstance(last, str) and last and Path(last).is_dir() else str(Path.home())

    def remember_import_dir(self, paths: list[str]) -> None:
        if paths:
            first = Path(paths[0])
            self.qsettings.setValue("lastImportDir", str(first if first.is_dir() else first.parent))

    @Slot()
    def on_import_files_triggered(self) -> None:
        files, _ = QFileDialog.getOpenFileNames(
            self,
            tr("Import papers"),
            self.last_import_dir(),
            tr("Papers and bibliographies") + " (*.pdf *.txt *.md *.markdown *.jsonl *.bib *.ris *.json);;"
            + tr("All files") + " (*)",
        )
        if files:
            self.remember_import_dir(files)
            self.start_import(files)

    @Slot()
    def on_import_folder_triggered(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, tr("Import a folder of papers"), self.last_import_dir())
        if folder:
            self.remember_import_dir([str(Path(folder) / ".")])
            self.start_import([folder])

    @Slot()
    def on_edit_menu_about_to_show(self) -> None:
        entry = self.session.undo_stack.last()
        label = undo_text(entry) if entry is not None else ""
        self.undo_action.setText(tr("&Undo {what}").format(what=label) if label else tr("&Undo"))
        self.undo_action.setEnabled(bool(label))

    @Slot()
    def on_edit_menu_about_to_hide(self) -> None:
        # Ctrl+Z always reaches the pane, which asks the journal: another process (the CLI) may
        # have added to it since the menu was last open.
        self.undo_action.setEnabled(True)

    @Slot()
    def on_show_trash_triggered(self) -> None:
        self.library_pane.show_source("trash")

    @Slot()
    def on_import_log_triggered(self) -> None:
        from .import_log import ImportLogDialog

        dlg = ImportLogDialog(self.import_log, self)
        dlg.exec()
        dlg.deleteLater()

    @Slot(list)
    def start_import(self, paths: list[str]) -> None:
        if self.import_thread is not None:
            self.statusBar().showMessage(tr("An import is already running; wait for it or cancel it."), 5000)
            return
        # The worker also reads the library for the table once the import is done, so that the
        # GUI thread does no work per document when it ends (10,000 documents: ~0.5 s).
        self._import_snapshot = None
        worker = ImportWorker(self.session, paths, then=self.library_pane.snapshot_reader())
        worker.prepared.connect(self.on_import_prepared)
        worker.progress.connect(self.on_import_progress)
        worker.step.connect(self.on_import_step)
        worker.finished.connect(self.on_import_finished)
        worker.failed.connect(self.on_import_failed)
        self.import_thread = WorkerThread(worker, self)
        self.progress.setRange(0, 0)
        self.progress.setVisible(True)
        self.cancel_import_button.setVisible(True)
        self.failures_button.setVisible(False)
        self.task_label.setText(tr("Importing…"))
        self.import_thread.start()

    @Slot(int, int, str)
    def on_import_progress(self, index: int, total: int, path: str) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(index - 1)
        self.task_label.setText(tr("Importing {index} of {total}: {name}").format(index=index, total=total, name=Path(path).name))
        self._import_label = self.task_label.text()

    @Slot(str)
    def on_import_step(self, detail: str) -> None:
        """A step inside the file being imported ("OCR page 3 of 12") after its name."""
        base = getattr(self, "_import_label", "") or self.task_label.text()
        self.task_label.setText(f"{base} · {detail}")

    @Slot(object)
    def on_import_prepared(self, snapshot: Any) -> None:
        self._import_snapshot = snapshot  # shown by on_import_finished, which comes next

    def _import_done(self) -> None:
        if self.import_thread is not None:
            self.import_thread.finish()
            self.import_thread = None
        self.progress.setVisible(False)
        self.cancel_import_button.setVisible(False)
        snapshot, self._import_snapshot = self._import_snapshot, None
        self.show_library(snapshot)

    @Slot(object)
    def on_import_finished(self, report: ImportReport) -> None:
        self._import_done()
        self.last_report = report
        self.import_log.append(report)
        dups = ""
        if report.duplicates:
            # Name them: "already in the library as #12" says where to look.
            named = [
                tr("{name} already in the library as #{n}").format(name=Path(p).name, n=i) for p, i in report.duplicates[:2]
            ]
            more = len(report.duplicates) - len(named)
            dups = " (" + "; ".join(named) + ("; " + tr("{n} more").format(n=more) if more > 0 else "") + ")"
        summary = (
            tr("Imported {n} · {d} duplicate(s) · {f} failed").format(
                n=len(report.imported), d=f"{len(report.duplicates)}{dups}", f=len(report.failed)
            )
            + (tr(" · {n} unsupported").format(n=len(report.unsupported)) if report.unsupported else "")
            + (tr(" · {n} updated from bibliography").format(n=len(report.updated)) if report.updated else "")
            + (tr(" · cancelled") if report.cancelled else "")
            + (tr(" · stopped, {n} not imported").format(n=len(report.not_imported)) if report.stopped else "")
        )
        self.task_label.setText(summary)
        skipped = len(report.failed) + len(report.unsupported)
        if skipped:
            self.failures_button.setText(tr("{n} not imported — show").format(n=skipped))
            self.failures_button.setVisible(True)
        elif any(r.failed or r.unsupported for r in self.import_log):
            # An earlier batch's failures stay one click away.
            self.failures_button.setText(tr("Import log"))
            self.failures_button.setVisible(True)
        if report.stopped:
            QMessageBox.warning(self, tr("Import"), said_or(report.message(report.stopped), report.stopped))
        if report.imported:
            self.start_embedding()

    def start_embedding(self) -> None:
        """Embed what is not embedded yet, in the background at low priority (never during the
        import itself); the status bar shows how far it is."""
        if self.embed_thread is not None or not self.session.settings.embedding.enabled:
            return
        worker = EmbedWorker(self.session)
        worker.progress.connect(self.on_embed_progress)
        worker.finished.connect(self.on_embed_finished)
        worker.failed.connect(self.on_embed_failed)
        self.embed_thread = WorkerThread(worker, self)
        self.embed_thread.start()

    def _embed_done(self) -> None:
        if self.embed_thread is not None:
            self.embed_thread.finish()
            self.embed_thread = None

    @Slot(int, int)
    def on_embed_progress(self, done: int, total: int) -> None:
        if done < total:
            self.statusBar().showMessage(
                tr("Embedding for search by meaning: {done} of {total}").format(done=done, total=total)
            )

    @Slot(object)
    def on_embed_finished(self, result: Any) -> None:
        self._embed_done()
        if not result.cancelled:
            self.statusBar().showMessage(
                tr("Search by meaning: {n} passage(s) embedded.").format(n=result.embedded), 5000
            )

    @Slot(str)
    def on_embed_failed(self, message: str) -> None:
        # Keyword search still finds everything: a line in the status bar, no dialog.
        self._embed_done()
        self.statusBar().showMessage(message, 10_000)

    @Slot(str)
    def on_import_failed(self, message: str) -> None:
        self._import_done()
        self.task_label.setText(message)
        QMessageBox.warning(self, tr("Import"), message)

    @Slot()
    def on_cancel_import_clicked(self) -> None:
        if self.import_thread is not None:
            worker = self.import_thread.worker
            if isinstance(worker, ImportWorker):
                worker.cancel.set()
            self.task_label.setText(tr("Cancelling import…"))

    @Slot()
    def on_failures_clicked(self) -> None:
        if self.last_report is None:
            return
        if not (self.last_report.failed or self.last_report.unsupported):
            self.on_import_log_triggered()
            return
        report = self.last_report
        lines = [f"{Path(p).name}: {said_or(report.message(r), r)}" for p, r in report.failed + report.unsupported]
        box = QMessageBox(QMessageBox.Icon.Information, tr("Files that could not be imported"), "\n".join(lines[:40]), parent=self)
        if len(lines) > 40:
            box.setDetailedText("\n".join(lines))
        box.exec()

    @Slot()
    def on_sample_requested(self) -> None:
        from .resources import sample_library_dir

        self.start_import([str(sample_library_dir())])

    @Slot()
    def on_reindex_triggered(self) -> None:
        # A write: in a worker, because another process may hold the writer lock for a while.
        if self.reindex_thread is not None:
            return
        worker = FunctionWorker(self.session.reindex, doing="Rebuilding the search index")
        worker.finished.connect(self.on_reindex_finished)
        worker.failed.connect(self.on_reindex_failed)
        self.reindex_thread = WorkerThread(worker, self)
        self.reindex_action.setEnabled(False)
        self.task_label.setText(tr("Rebuilding the search index…"))
        self.reindex_thread.start()

    def _reindex_done(self) -> None:
        if self.reindex_thread is not None:
            self.reindex_thread.finish()
            self.reindex_thread = None
        self.reindex_action.setEnabled(True)

    @Slot(object)
    def on_reindex_finished(self, n: int) -> None:
        self._reindex_done()
        self.task_label.setText("")
        self.statusBar().showMessage(tr("Rebuilt the search index: {n} chunks.").format(n=n), 5000)
        self.refresh_library()

    @Slot(str)
    def on_reindex_failed(self, message: str) -> None:
        self._reindex_done()
        self.task_label.setText(message)
        QMessageBox.warning(self, tr("Rebuild Search Index"), message)

    # --- chat / agent ----------------------------------------------------------------------

    @Slot(str, str)
    def on_chat_ask_requested(self, question: str, mode: str) -> None:
        if self.agent_thread is not None:
            return
        try:
            policy = self.session.make_policy()
        except PaperPilotError as e:
            QMessageBox.warning(self, tr("Language model"), str(e))
            return
        # A collection or tag open in the library pane scopes the question to its documents.
        scope = self.library_pane.current_scope()
        try:
            run = self.session.ask(
                question, conversation=self.conversation_id, save=True, mode=mode, policy=policy, scope=scope
            )
        except ConversationNotFound as e:  # deleted meanwhile: answer it as a new question
            self.statusBar().showMessage(tr("Could not read the conversation: {e}").format(e=e), 6000)
            self.conversation_id = None
            run = self.session.ask(question, save=True, mode=mode, policy=policy, scope=scope)
        except PaperPilotError as e:  # the collection was deleted meanwhile
            QMessageBox.warning(self, tr("Ask"), str(e))
            return
        # The worker iterates the run: the follow-up rewrite, the loop, saving the turn.
        worker = GeneratorWorker(run, doing="The agent", cancel=run.cancel)
        worker.item.connect(self.on_agent_event)
        worker.finished.connect(self.on_agent_finished)
        worker.failed.connect(self.on_agent_failed)
        self.inspector.clear()
        self.chat_pane.set_running(True)
        self.task_label.setText(tr("Researching…"))
        self.agent_thread = WorkerThread(worker, self)
        self.agent_thread.start()

    @Slot(object)
    def on_agent_event(self, event: Any) -> None:
        self.inspector.add_event(event)
        self.chat_pane.on_event(event)

    def _agent_done(self) -> None:
        if self.agent_thread is not None:
            self.agent_thread.finish()
            self.agent_thread = None
        self.chat_pane.set_running(False)

    @Slot(object)
    def on_agent_finished(self, run: AskRun) -> None:
        self._agent_done()
        result = run.result
        if run.save:
            self.on_agent_saved(run.conversation_id or "", run.save_error)
        self.chat_pane.show_result(result)
        self.inspector.show_result(result)
        if result is None:
            return
        self.task_label.setText(
            tr("Done: {status} in {s:.1f} s").format(status=tr(answer_status.status_label(result.status)), s=result.seconds)
        )

    @Slot(str, str)
    def on_agent_saved(self, conversation_id: str, error: str) -> None:
        """The worker kept the run as a turn of the current conversation (a new one if none)."""
        if conversation_id:
            self.conversation_id = conversation_id
        if error:  # the answer is on screen either way; say it was not kept
            self.statusBar().showMessage(tr("Could not save the conversation: {e}").format(e=error), 8000)
            return
        self.conversations_pane.set_current(conversation_id)
        self.conversations_pane.refresh()

    @Slot(str)
    def on_agent_failed(self, message: str) -> None:
        self._agent_done()
        self.chat_pane.show_error(message)
        self.task_label.setText(message)

    @Slot()
    def on_chat_stop_requested(self) -> None:
        if self.agent_thread is not None:
            worker = self.agent_thread.worker
            if isinstance(worker, GeneratorWorker):
                worker.request_stop()
            self.task_label.setText(tr("Stopping…"))

    # --- conversations -----------------------------------------------------------------------

    @Slot(object)
    def on_conversations_pane_conversation_selected(self, conv_id: Any) -> None:
        if self.agent_thread is not None:
            # Switching mid-run would file the answer under the wrong conversation.
            self.statusBar().showMessage(tr("Wait for the answer (or stop it) before switching conversations."), 5000)
            self.conversations_pane.set_current(self.conversation_id)
            return
        self.open_conversation(conv_id)

    def open_conversation(self, conv_id: Any) -> None:
        """Show a saved conversation: its turns in the chat, its last run in the inspector."""
        if self.drawer_open():
            self.show_conversations_action.setChecked(False)
            self.on_show_conversations_toggled(False)
        try:
            turns = list(self.conversations.turns(conv_id))
        except Exception as e:
            QMessageBox.warning(self, tr("Conversations"), tr("Could not read the conversation: {e}").format(e=e))
            return
        self.conversation_id = conv_id
        self.conversations_pane.set_current(conv_id)
        self.chat_pane.restore(turns)
        self.inspector.clear()
        if turns:
            last = turns[-1]
            for ev in last.events or []:
                # Stored events come back as models, or as plain dicts from an older store.
                self.inspector.add_event(ev if not isinstance(ev, dict) else EVENT_ADAPTER.validate_python(ev))
            self.inspector.show_result(last.result)

    @Slot()
    def on_conversations_pane_new_requested(self) -> None:
        if self.agent_thread is not None:
            self.statusBar().showMessage(tr("Wait for the answer (or stop it) before switching conversations."), 5000)
            return
        self.conversation_id = None
        self.conversations_pane.set_current(None)
        self.chat_pane.clear()
        self.inspector.clear()
        self.chat_pane.focus_input()

    @Slot(object)
    def on_conversations_pane_deleted(self, conv_id: Any) -> None:
        if conv_id == self.conversation_id and self.agent_thread is None:
            self.conversation_id = None
            self.chat_pane.clear()
            self.inspector.clear()

    @Slot()
    def on_export_conversation_triggered(self) -> None:
        if self.conversation_id is None:
            QMessageBox.information(self, tr("Export conversation"), tr("Nothing to export yet: ask a question first."))
            return
        self.on_conversations_pane_export_requested(self.conversation_id)

    @Slot(object)
    def on_conversations_pane_export_requested(self, conv_id: Any) -> None:
        conv = self.conversations.get(conv_id)
        title = conv.title if conv is not None else "conversation"
        stem = "".join(c if c.isalnum() or c in "-_ " else "_" for c in title).strip()[:60] or "conversation"
        name, _ = QFileDialog.getSaveFileName(
            self, tr("Export conversation"), str(Path.home() / f"{stem}.md"), "Markdown (*.md)"
        )
        if not name:
            return
        path = Path(name) if Path(name).suffix else Path(name).with_suffix(".md")
        try:
            self.export_conversation_to(conv_id, path)
        except OSError as e:
            QMessageBox.warning(self, tr("Export conversation"), f"{path}: {e.strerror or e}")
            return
        self.statusBar().showMessage(tr("Exported the conversation to {path}").format(path=path), 6000)

    def export_conversation_to(self, conv_id: Any, path: Path) -> None:
        """Write a conversation as Markdown, its references in the preferred citation style."""
        text = self.session.export_conversation(conv_id, self.library_pane.citation_style())
        atomic_write_text(path, text)

    @Slot(bool)
    def on_show_conversations_toggled(self, checked: bool) -> None:
        # Hidden, not dragged to zero: a splitter counts the minimum width of every visible
        # pane, and the folded list must not keep the window from getting narrow.
        pane = self.conversations_pane
        if not checked:
            pane.setVisible(False)
            self._dock_conversations()
            return
        if self.width() < NARROW_WIDTH:
            # A narrow window has no room for a fourth pane: the list opens as a drawer over
            # the chat's left side, and closes again once a conversation is chosen.
            self._open_drawer()
            return
        self._dock_conversations()
        pane.setVisible(True)
        total = sum(self.chat_splitter.sizes())
        left = max(CONVERSATIONS_MIN_WIDTH, min(190, total // 3))
        self.chat_splitter.setSizes([left, max(0, total - left)])

    @Slot()
    def on_drawer_escape_activated(self) -> None:
        if self.drawer_open():
            self.show_conversations_action.setChecked(False)
            self.on_show_conversations_toggled(False)
            self.chat_pane.focus_input()

    def drawer_open(self) -> bool:
        return self.conversations_pane.parentWidget() is self.reader and self.conversations_pane.isVisible()

    def _open_drawer(self) -> None:
        pane = self.conversations_pane
        if pane.parentWidget() is not self.reader:
            pane.setParent(self.reader)
            pane.setAutoFillBackground(True)
        self._place_drawer()
        pane.show()
        pane.raise_()

    def _place_drawer(self) -> None:
        top = self.reader.tabBar().height()
        width = min(max(CONVERSATIONS_MIN_WIDTH + 60, self.reader.width() // 2), self.reader.width())
        self.conversations_pane.setGeometry(0, top, width, max(0, self.reader.height() - top))

    def _dock_conversations(self) -> None:
        pane = self.conversations_pane
        if pane.parentWidget() is self.chat_splitter:
            return
        visible = pane.isVisible()
        pane.setAutoFillBackground(False)
        self.chat_splitter.insertWidget(0, pane)
        self.chat_splitter.setCollapsible(0, True)
        pane.setVisible(visible)

    @Slot()
    def on_profile_triggered(self) -> None:
        from .preferences_dialog import PreferencesDialog

        dlg = PreferencesDialog(self.profile, self)
        if dlg.exec():
            self.apply_profile(dlg.result_profile())
        dlg.deleteLater()

    def apply_profile(self, profile: ResearchProfile) -> None:
        """Save an edited profile and use it from the next question on."""
        style_changed = profile.citation_style != self.profile.citation_style
        try:
            self.session.save_profile(profile)
        except OSError as e:
            QMessageBox.warning(self, tr("Research Profile"), tr("Could not save the profile: {e}").format(e=e))
            return
        if style_changed:
            # The profile's default style is the one copies and exports use from now on.
            self.library_pane.set_citation_style(self.session.citation_style)
        self.statusBar().showMessage(tr("Saved the research profile."), 5000)

    # --- misc ------------------------------------------------------------------------------

    def toggle_pane(self, index: int) -> None:
        w = self.splitter.widget(index)
        if w is not None:
            w.setVisible(not w.isVisible())

    @Slot()
    def on_settings_triggered(self) -> None:
        from .settings_dialog import SettingsDialog

        dlg = SettingsDialog(self.settings, self.paths, self)
        if dlg.exec():
            self.session.save_settings(dlg.result_settings())  # new chunk sizes apply to the next import
            apply_theme(self.settings.ui.theme)
            self.library_pane.set_citation_style(self.session.citation_style)
            self.update_model_label()

    @Slot()
    def on_check_library_triggered(self) -> None:
        from .check_dialog import CheckDialog

        if self.check_dialog is None:
            self.check_dialog = CheckDialog(self.library, self, session=self.session)
            self.check_dialog.repaired.connect(self.on_check_dialog_repaired)
            self.check_dialog.finished.connect(self.on_check_dialog_finished)
        self.check_dialog.show()
        self.check_dialog.raise_()

    @Slot()
    def on_check_dialog_repaired(self) -> None:
        self.refresh_library()

    @Slot(int)
    def on_check_dialog_finished(self, _result: int) -> None:
        if self.check_dialog is not None:
            self.check_dialog.deleteLater()
            self.check_dialog = None

    @Slot()
    def on_about_triggered(self) -> None:
        QMessageBox.about(
            self,
            tr("About PaperPilot"),
            f"<b>PaperPilot {__version__}</b><p>"
            + tr(
                "A local research assistant: every claim in an answer points to a passage of your own papers "
                "that the program has checked."
            )
            + "</p>",
        )

    # --- drag and drop ----------------------------------------------------------------------

    def set_drop_highlight(self, on: bool) -> None:
        """Frame the window while files are dragged over it: a drop here imports them."""
        self.drop_highlight.setVisible(on)
        if on:
            central = self.centralWidget()
            if central is not None:
                self.drop_highlight.setGeometry(central.geometry())
            self.drop_highlight.raise_()

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            event.acceptProposedAction()
            self.set_drop_highlight(True)
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self.set_drop_highlight(False)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self.set_drop_highlight(False)
        paths = [u.toLocalFile() for u in event.mimeData().urls() if isinstance(u, QUrl) and u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.remember_import_dir(paths)
            self.start_import(paths)

    # --- shutdown ---------------------------------------------------------------------------

    # --- the literature matrix -----------------------------------------------------------------

    def open_matrix_window(self, doc_ids: list[int] | None = None, matrix_id: str | None = None) -> Any:
        """The matrix window beside the chat: its scope starts from ``doc_ids`` (the selection), or
        it reopens a saved matrix; its cells' evidence goes to the inspector and the PDF."""
        from .matrix_window import MatrixWindow

        win = MatrixWindow(self.session, self, selected=doc_ids or [])
        win.show_cell.connect(self.on_matrix_window_show_cell)
        self.library_pane.table.selectionModel().selectionChanged.connect(
            self.on_library_selection_changed, Qt.ConnectionType.UniqueConnection
        )
        if matrix_id is not None:
            win.open_saved(matrix_id)
        win.show()
        return win

    def open_draft_window(self, doc_ids: list[int] | None = None) -> Any:
        """The draft window; its scope starts from ``doc_ids`` (the selection)."""
        from .draft_window import DraftWindow

        win = DraftWindow(self.session, doc_ids or [], self)
        self.library_pane.table.selectionModel().selectionChanged.connect(
            self.on_library_selection_changed, Qt.ConnectionType.UniqueConnection
        )
        win.show()
        return win

    def on_draft_triggered(self) -> None:
        self.open_draft_window(self.library_pane.selected_ids())

    def on_matrix_triggered(self) -> None:
        self.open_matrix_window(self.library_pane.selected_ids())

    @Slot()
    def on_library_selection_changed(self) -> None:
        from .workflow_parts import WorkflowWindow

        ids = self.library_pane.selected_ids()
        for win in self.findChildren(WorkflowWindow):
            win.follow_selection(ids)

    @Slot(object)
    def on_matrix_window_show_cell(self, result: Any) -> None:
        self.inspector.clear()
        self.inspector.show_result(result)
        self.inspector.tabs.setCurrentWidget(self.inspector.evidence_tab)
        self.inspector.select_evidence(1)
        if result.evidence:
            e = result.evidence[0]
            self.library_pane.open_document(e.doc_id, e.page, e.text)

    def shutdown_workers(self) -> None:
        from .draft_window import DraftWindow
        from .matrix_window import MatrixWindow

        for win in [*self.findChildren(MatrixWindow), *self.findChildren(DraftWindow)]:
            win.close()
        if self.check_dialog is not None:
            self.check_dialog.stop()
        for thread in (self.agent_thread, self.import_thread, self.reindex_thread, self.embed_thread):
            if thread is not None:
                thread.stop(10_000)
        self.embed_thread = None
        self.agent_thread = None
        self.import_thread = None
        self.reindex_thread = None
        self.library_pane.shutdown_workers()
        stop_lookups()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_geometry()
        self.shutdown_workers()
        # The library belongs to whoever opened it (run_gui); the conversations are the window's.
        self.session.close_conversations()
        event.accept()
