"""The parts the matrix and the draft windows share: which papers (the scope row), the list of
saved matrices or drafts (reopen, rename, delete), and the window around them.

Everything that reads the library or the workflows store runs in a ``BackgroundTask``; the
widgets only show what comes back.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ..core.api import PaperSelection, SavedItem, all_tags, parse_years, today
from ..core.app import Session
from .i18n import tr
from .workers import BackgroundTask

ID_ROLE = Qt.ItemDataRole.UserRole
NO_YEAR = 1899  # the spin boxes' "any year"
RECENT_YEARS = (3, 5, 10)
# Recount the scope this long after the last edit, so typing a query does not search per key.
RECOUNT_MS = 300


def _pickers(session: Session) -> tuple[list[str], list[str]]:
    """The library's tags and collection paths (for the pickers)."""
    tags = [name for name, _n in all_tags(session.library.list_documents())]
    return tags, [c.path for c in session.collections().walk()]


def _count(session: Session, scope: PaperSelection) -> int:
    return len(session.scope_documents(scope))


def policy_box(parent: QWidget) -> QComboBox:
    """How cells and drafts are written: as the settings say, offline (extractive) or with the model."""
    box = QComboBox(parent)
    box.addItem(tr("As in Settings"), "")
    box.addItem(tr("Offline (extractive)"), "offline")
    box.addItem(tr("Language model"), "llm")
    return box


class ScopeRow(QWidget):
    """Which papers: the selection, all, a tag, a collection or a query; a year range; and how
    many papers that is, counted in the background as the user edits it."""

    changed = Signal()

    def __init__(self, session: Session, selected: list[int], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.selected = list(selected)
        # The draft window widens the scope by its topic's year phrase ("近三年").
        self.adjust: Callable[[PaperSelection], PaperSelection] | None = None
        self.count: int | None = None
        self.error = ""
        self._dirty = False
        self.task = BackgroundTask(self)
        self.picker_task = BackgroundTask(self)
        self.kind_box = QComboBox(self)
        self.kind_box.setObjectName("scopeKind")
        self.tag_box = QComboBox(self)
        self.collection_box = QComboBox(self)
        self.query_edit = QLineEdit(self)
        self.query_edit.setPlaceholderText(tr("Words the papers' passages match"))
        self.pick = QStackedWidget(self)
        self.pick.addWidget(QWidget(self))
        for w in (self.tag_box, self.collection_box, self.query_edit):
            self.pick.addWidget(w)
        self.from_spin = self._year_spin()
        self.to_spin = self._year_spin()
        self.recent_box = QComboBox(self)
        self.recent_box.addItem(tr("Recent…"), 0)
        for n in RECENT_YEARS:
            self.recent_box.addItem(tr("Last {n} years").format(n=n), n)
        self.count_label = QLabel("", self)
        self.count_label.setObjectName("scopeCount")
        self.count_label.setMinimumWidth(90)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel(tr("Papers:"), self))
        lay.addWidget(self.kind_box)
        lay.addWidget(self.pick, 1)
        lay.addWidget(QLabel(tr("Years:"), self))
        lay.addWidget(self.from_spin)
        lay.addWidget(QLabel("–", self))
        lay.addWidget(self.to_spin)
        lay.addWidget(self.recent_box)
        lay.addWidget(self.count_label, 1)
        self._fill_kinds()
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(RECOUNT_MS)
        self.timer.timeout.connect(self.recount)
        self.kind_box.currentIndexChanged.connect(self.on_kind_box_current_index_changed)
        self.tag_box.currentIndexChanged.connect(self.on_edited)
        self.collection_box.currentIndexChanged.connect(self.on_edited)
        self.query_edit.textChanged.connect(self.on_edited)
        self.from_spin.valueChanged.connect(self.on_edited)
        self.to_spin.valueChanged.connect(self.on_edited)
        self.recent_box.activated.connect(self.on_recent_box_activated)
        self.refresh_pickers()
        self.on_kind_box_current_index_changed(self.kind_box.currentIndex())

    def refresh_pickers(self) -> None:
        """Read the library's tags and collections again (a tag added since shows up)."""
        self.picker_task.call(_pickers, self.session, done=self.on_pickers, failed=self.on_count_failed,
                              doing="Reading tags")  # fmt: skip

    def _year_spin(self) -> QSpinBox:
        spin = QSpinBox(self)
        spin.setRange(NO_YEAR, today().year + 1)
        spin.setSpecialValueText(tr("any"))
        spin.setValue(NO_YEAR)
        return spin

    def _fill_kinds(self) -> None:
        self.kind_box.blockSignals(True)
        current = self.kind_box.currentData()
        self.kind_box.clear()
        if self.selected:
            self.kind_box.addItem(tr("Selected papers ({n})").format(n=len(self.selected)), "selection")
        self.kind_box.addItem(tr("All papers"), "all")
        self.kind_box.addItem(tr("Tag"), "tag")
        self.kind_box.addItem(tr("Collection"), "collection")
        self.kind_box.addItem(tr("Papers matching"), "query")
        i = self.kind_box.findData(current)
        self.kind_box.setCurrentIndex(max(0, i))
        self.kind_box.blockSignals(False)

    def set_selection(self, ids: list[int]) -> None:
        """The library pane's selection changed: the "Selected papers" choice follows it."""
        self.selected = list(ids)
        self._fill_kinds()
        self.on_edited()

    # --- the scope ---------------------------------------------------------------------------

    def kind(self) -> str:
        return str(self.kind_box.currentData() or "all")

    def set_kind(self, kind: str, value: str = "") -> None:
        """Choose a kind (and its tag, collection or query) as the user would."""
        self.kind_box.setCurrentIndex(self.kind_box.findData(kind))
        if kind == "tag":
            self.tag_box.setCurrentIndex(self.tag_box.findText(value))
        elif kind == "collection":
            self.collection_box.setCurrentIndex(self.collection_box.findText(value))
        elif kind == "query":
            self.query_edit.setText(value)

    def years(self) -> tuple[int | None, int | None]:
        lo, hi = self.from_spin.value(), self.to_spin.value()
        return (None if lo == NO_YEAR else lo, None if hi == NO_YEAR else hi)

    def set_years(self, lo: int | None, hi: int | None) -> None:
        self.from_spin.setValue(lo or NO_YEAR)
        self.to_spin.setValue(hi or NO_YEAR)

    def scope(self) -> PaperSelection:
        """The scope as chosen (before the draft's topic adds its years)."""
        lo, hi = self.years()
        kind = self.kind()
        s = PaperSelection(year_from=lo, year_to=hi)
        if kind == "selection":
            s.doc_ids = list(self.selected)
        elif kind == "tag" and self.tag_box.currentText():
            s.tags = [self.tag_box.currentText()]
        elif kind == "collection" and self.collection_box.currentText():
            s.collections = [self.collection_box.currentText()]
        elif kind == "query":
            s.query = self.query_edit.text().strip()
        return s

    def describe(self) -> str:
        """The scope in the interface's words, as a new matrix's name: "Tag: birds · 2021–2023"."""
        kind = self.kind()
        text = {"selection": self.kind_box.currentText(), "all": tr("All papers"),
                "tag": f"{tr('Tag')}: {self.tag_box.currentText()}",
                "collection": f"{tr('Collection')}: {self.collection_box.currentText()}",
                "query": f"{tr('Papers matching')}: {self.query_edit.text().strip()}"}.get(kind, "")  # fmt: skip
        lo, hi = self.years()
        if lo is not None or hi is not None:
            text += f" · {lo or '…'}–{hi or '…'}"
        return text

    def effective_scope(self) -> PaperSelection:
        s = self.scope()
        return self.adjust(s) if self.adjust is not None else s

    def ready(self) -> bool:
        """A scope that names its papers (a tag, collection or query kind needs its value)."""
        s, kind = self.scope(), self.kind()
        return not ((kind == "tag" and not s.tags) or (kind == "collection" and not s.collections)
                    or (kind == "query" and not s.query))  # fmt: skip

    # --- counting ----------------------------------------------------------------------------

    @Slot()
    def on_edited(self, *_args: Any) -> None:
        self.count = None
        self.count_label.setText(tr("counting…"))
        self.timer.start()
        self.changed.emit()

    @Slot(int)
    def on_kind_box_current_index_changed(self, _i: int) -> None:
        page = {"tag": 1, "collection": 2, "query": 3}.get(self.kind(), 0)
        self.pick.setCurrentIndex(page)
        if page in (1, 2):
            self.refresh_pickers()
        self.on_edited()

    @Slot(int)
    def on_recent_box_activated(self, i: int) -> None:
        n = self.recent_box.itemData(i)
        if n:
            years = parse_years(f"the last {n} years")
            if years is not None:
                self.set_years(*years)
        self.recent_box.setCurrentIndex(0)

    @Slot()
    def recount(self) -> None:
        if not self.ready():
            self.count = None
            self.count_label.setText(tr("choose a value"))
            return
        if not self.task.call(_count, self.session, self.effective_scope(), done=self.on_counted,
                              failed=self.on_count_failed, doing="Counting"):  # fmt: skip
            self._dirty = True

    def on_counted(self, n: int) -> None:
        if self._dirty:
            self._dirty = False
            self.recount()
            return
        self.count, self.error = n, ""
        s = self.effective_scope()
        text = tr("→ {n} papers").format(n=n)
        tip = ""
        if s.year_from != self.scope().year_from or s.year_to != self.scope().year_to:
            years = f"{s.year_from or '…'}–{s.year_to or '…'}"
            text += f" · {years}"
            tip = tr("The topic names the years {years}.").format(years=years)
        self.count_label.setText(text)
        self.count_label.setToolTip(tip)

    def on_count_failed(self, message: str) -> None:
        if self._dirty:
            self._dirty = False
            self.recount()
            return
        self.count, self.error = 0, message
        self.count_label.setText(tr("→ no papers"))
        self.count_label.setToolTip(message)

    def on_pickers(self, found: tuple[list[str], list[str]]) -> None:
        tags, paths = found
        for box, names in ((self.tag_box, tags), (self.collection_box, paths)):
            keep = box.currentText()
            box.blockSignals(True)
            box.clear()
            box.addItems(names)
            if keep in names:
                box.setCurrentIndex(names.index(keep))
            box.blockSignals(False)
        self.on_edited()

    def show_scope(self, scope: PaperSelection) -> None:
        """A saved matrix's or draft's scope, shown as it was chosen (and fixed: its papers are chosen)."""
        self.timer.stop()
        if scope.doc_ids:
            self.selected = list(scope.doc_ids)
            self._fill_kinds()
            self.kind_box.setCurrentIndex(self.kind_box.findData("selection"))
        elif scope.tags:
            self.tag_box.setCurrentIndex(max(0, self.tag_box.findText(scope.tags[0])))
            self.kind_box.setCurrentIndex(self.kind_box.findData("tag"))
        elif scope.collections:
            self.collection_box.setCurrentIndex(max(0, self.collection_box.findText(scope.collections[0])))
            self.kind_box.setCurrentIndex(self.kind_box.findData("collection"))
        elif scope.query:
            self.kind_box.setCurrentIndex(self.kind_box.findData("query"))
        else:
            self.kind_box.setCurrentIndex(self.kind_box.findData("all"))
        self.query_edit.setText(scope.query)
        self.set_years(scope.year_from, scope.year_to)

    def set_locked(self, locked: bool) -> None:
        for w in (self.kind_box, self.pick, self.from_spin, self.to_spin, self.recent_box):
            w.setEnabled(not locked)

    def shutdown(self) -> None:
        self.timer.stop()
        self.task.shutdown()
        self.picker_task.shutdown()


class SavedList(QWidget):
    """The saved matrices (or drafts): a click reopens one; New, Rename…, Delete."""

    open_requested = Signal(str)
    new_requested = Signal()
    deleted = Signal(str)
    renamed = Signal(str, str)
    message = Signal(str)  # a failure, for the window's status line

    def __init__(self, session: Session, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.kind = kind  # "matrix" | "draft"
        self.items: list[SavedItem] = []
        self.wanted: str | None = None  # the id to show selected (the window's matrix or draft)
        self.locked = False  # a run goes on: nothing is deleted under it
        self.task = BackgroundTask(self)
        self._queue: list[tuple[Callable[..., Any], tuple[Any, ...], Callable[[Any], None]]] = []
        self.list = QListWidget(self)
        self.list.setObjectName("savedList")
        self.list.setWordWrap(True)
        self.list.setMinimumWidth(150)
        self.new_button = QPushButton(tr("New"), self)
        self.rename_button = QPushButton(tr("Rename…"), self)
        self.delete_button = QPushButton(tr("Delete"), self)
        title = QLabel(tr("Saved matrices") if kind == "matrix" else tr("Saved drafts"), self)
        title.setObjectName("paneTitle")
        buttons = QHBoxLayout()
        buttons.addWidget(self.new_button)
        buttons.addWidget(self.rename_button)
        buttons.addWidget(self.delete_button)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(title)
        lay.addWidget(self.list, 1)
        lay.addLayout(buttons)
        self.list.itemClicked.connect(self.on_list_item_clicked)
        self.list.itemActivated.connect(self.on_list_item_clicked)
        self.list.currentRowChanged.connect(self.on_list_current_row_changed)
        self.new_button.clicked.connect(self.new_requested)
        self.rename_button.clicked.connect(self.on_rename_button_clicked)
        self.delete_button.clicked.connect(self.on_delete_button_clicked)
        self.on_list_current_row_changed(-1)
        self.refresh()

    def _store_call(self, fn: Callable[..., Any], *args: Any, done: Callable[[Any], None]) -> None:
        """Run ``fn(*args)`` (a Session call on the saved workflows) off the GUI thread, after the
        jobs queued before it."""
        self._queue.append((fn, args, done))
        self._next()

    def _next(self) -> None:
        if self.task.busy or not self._queue:
            return
        fn, args, done = self._queue.pop(0)
        self.task.call(fn, *args, done=lambda r: self._after(done, r), failed=self.on_failed,
                       doing="Saved")  # fmt: skip

    def _after(self, done: Callable[[Any], None], result: Any) -> None:
        done(result)
        self._next()

    def refresh(self) -> None:
        if any(d == self.on_listed for _f, _a, d in self._queue):
            return  # a listing already waits: it will show the latest
        self._store_call(self.session.saved_workflows, self.kind, done=self.on_listed)

    def _line(self, it: SavedItem) -> str:
        total = "?" if it.total is None else str(it.total)
        if self.kind == "matrix":
            progress = tr("{done} of {total} cells").format(done=it.done, total=total)
        else:
            progress = tr("{done} of {total} sections").format(done=it.done, total=total)
        return f"{it.title}\n{progress} · {it.updated[:16].replace('T', ' ')}"

    def on_listed(self, items: list[SavedItem]) -> None:
        self.items = items
        self.list.blockSignals(True)
        self.list.clear()
        for it in items:
            row = QListWidgetItem(self._line(it))
            row.setData(ID_ROLE, it.id)
            row.setToolTip(it.title)
            self.list.addItem(row)
        self.list.blockSignals(False)
        self.select(self.wanted)

    def on_failed(self, message: str) -> None:
        # Said in the window's status line, not a modal box: the list stays usable.
        self.message.emit(message)
        self._next()

    def current_id(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(ID_ROLE)) if item is not None else None

    def select(self, item_id: str | None) -> None:
        self.wanted = item_id
        self.list.blockSignals(True)
        self.list.setCurrentRow(-1)
        for i in range(self.list.count()):
            if self.list.item(i).data(ID_ROLE) == item_id:
                self.list.setCurrentRow(i)
        self.list.blockSignals(False)
        self.on_list_current_row_changed(self.list.currentRow())

    @Slot(QListWidgetItem)
    def on_list_item_clicked(self, item: QListWidgetItem) -> None:
        self.open_requested.emit(str(item.data(ID_ROLE)))

    @Slot(int)
    def on_list_current_row_changed(self, row: int) -> None:
        self.rename_button.setEnabled(row >= 0)
        self.delete_button.setEnabled(row >= 0 and not self.locked)

    def set_locked(self, locked: bool) -> None:
        self.locked = locked
        self.on_list_current_row_changed(self.list.currentRow())

    def rename(self, item_id: str, title: str) -> None:
        self._store_call(
            self.session.rename_workflow, self.kind, item_id, title, done=lambda _r: self._after_rename(item_id, title)
        )

    def _after_rename(self, item_id: str, title: str) -> None:
        self.renamed.emit(item_id, " ".join(title.split()))
        self.refresh()

    def delete(self, item_id: str) -> None:
        self._store_call(self.session.delete_workflow, self.kind, item_id, done=lambda _r: self._after_delete(item_id))

    def _after_delete(self, item_id: str) -> None:
        self.deleted.emit(item_id)
        self.refresh()

    @Slot()
    def on_rename_button_clicked(self) -> None:
        item_id = self.current_id()
        it = next((i for i in self.items if i.id == item_id), None)
        if it is None:
            return
        title, ok = QInputDialog.getText(self, tr("Rename"), tr("New name:"), text=it.title)
        if ok and title.strip():
            self.rename(it.id, title)

    @Slot()
    def on_delete_button_clicked(self) -> None:
        item_id = self.current_id()
        it = next((i for i in self.items if i.id == item_id), None)
        if it is None:
            return
        answer = QMessageBox.question(self, tr("Delete"), tr("Delete “{title}” and everything saved with it?").format(title=it.title))
        if answer == QMessageBox.StandardButton.Yes:
            self.delete(it.id)

    def shutdown(self) -> None:
        self._queue.clear()
        self.task.shutdown()


class WorkflowWindow(QMainWindow):
    """What the matrix and the draft windows share: the saved list on the left, the scope row,
    the status line, one background job at a time (``task``) and one beside it for files and
    the clipboard (``side_task``), stopping between steps, and the shutdown.

    Subclasses set ``KIND`` ("matrix" | "draft") and the English strings below, build their
    right-hand side and pass it to ``assemble``, and give ``shown_id``, ``show_new``,
    ``open_saved`` and ``renamed``."""

    KIND = ""
    TITLE = ""
    STOPPING = "Stopping…"
    BUSY_NEW = "Stop the run first."

    def __init__(self, session: Session, selected: list[int], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.task = BackgroundTask(self)  # creating, loading, running: one at a time
        self.side_task = BackgroundTask(self)  # files and the clipboard, while a run goes on
        self.cancel: threading.Event | None = None  # set while a run goes on
        self.saved = SavedList(session, self.KIND, self)
        self.scope_row = ScopeRow(session, selected, self)
        self.status_label = QLabel("", self)
        self.status_label.setWordWrap(True)
        self.set_title("")
        self.saved.open_requested.connect(self.on_saved_open_requested)
        self.saved.new_requested.connect(self.on_saved_new_requested)
        self.saved.deleted.connect(self.on_saved_deleted)
        self.saved.renamed.connect(self.on_saved_renamed)
        self.saved.message.connect(self.on_saved_message)

    def assemble(self, right: QWidget, width: int) -> None:
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.saved)
        split.addWidget(right)
        split.setStretchFactor(1, 1)
        split.setSizes([210, width - 210])
        body = QWidget(self)
        QVBoxLayout(body).addWidget(split)
        self.setCentralWidget(body)

    @property
    def busy(self) -> bool:
        return self.task.busy

    def shown_id(self) -> str | None:
        raise NotImplementedError

    def show_new(self) -> None:
        raise NotImplementedError

    def open_saved(self, item_id: str) -> bool:
        raise NotImplementedError

    def renamed(self, title: str) -> None:
        self.set_title(title)

    def follow_selection(self, ids: list[int]) -> None:
        """The library's selection changed: a scope still being chosen offers the new one."""
        if self.scope_row.kind_box.isEnabled():
            self.scope_row.set_selection(ids)

    def set_title(self, name: str) -> None:
        self.setWindowTitle(f"{tr(self.TITLE)} — {name}" if name else tr(self.TITLE))

    def say(self, text: str, *, add: bool = False) -> None:
        """The status line (``add``: after what it says)."""
        self.status_label.setText(f"{self.status_label.text()} · {text}" if add and self.status_label.text() else text)

    def stop(self) -> None:
        """Stop the run after its current step (what is done stays saved)."""
        if self.cancel is not None:
            self.cancel.set()
            self.say(tr(self.STOPPING))

    def run_changed(self) -> None:
        """A run started or ended: a shown item is not deleted under a running job."""
        self.saved.set_locked(self.busy)

    @Slot(str)
    def on_saved_open_requested(self, item_id: str) -> None:
        if item_id != self.shown_id():
            self.open_saved(item_id)

    @Slot()
    def on_saved_new_requested(self) -> None:
        if self.busy:
            self.say(tr(self.BUSY_NEW))
            return
        self.show_new()

    @Slot(str)
    def on_saved_deleted(self, item_id: str) -> None:
        if item_id == self.shown_id():
            self.show_new()

    @Slot(str, str)
    def on_saved_renamed(self, item_id: str, title: str) -> None:
        if item_id == self.shown_id():
            self.renamed(title)

    @Slot(str)
    def on_saved_message(self, text: str) -> None:
        self.say(text)

    def shutdown_workers(self) -> None:
        """Stop the run (what is done is saved) and end every background job."""
        if self.cancel is not None:
            self.cancel.set()
        for t in (self.task, self.side_task):
            t.shutdown()
        self.scope_row.shutdown()
        self.saved.shutdown()

    def closeEvent(self, event: Any) -> None:
        self.shutdown_workers()
        super().closeEvent(event)
