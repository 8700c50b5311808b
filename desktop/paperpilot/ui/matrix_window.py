"""The literature matrix window: papers × questions, filled in the background, cell by cell.

On the left the saved matrices (a click reopens one at once; rename, delete); on top the scope
of a new one (the selection, a tag, a collection or a query, a year range, with the number of
papers it yields). A click on a cell shows its evidence in the main window's inspector and
opens the PDF at the cited span; rows sort and filter; a Group box groups them by year or by a
column's values (method family for a method column). Columns are added, removed, renamed and
reordered in a dialog (a changed one re-runs alone) and saved as sets. Export writes Markdown,
CSV or XLSX; Copy puts the table on the clipboard as HTML and as tab-separated text.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QProgressBar,
    QPushButton,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.api import (
    CellProgress,
    Column,
    Evidence,
    Matrix,
    PaperSelection,
    Result,
    Status,
    column,
    family,
    shown_title,
)
from ..core.app import Session
from .i18n import language, said, tr
from .qtcompat import new_mime_data
from .workflow_parts import WorkflowWindow, policy_box

AnyIndex = QModelIndex | QPersistentModelIndex
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
FIXED = 2  # Paper, Year; then the group (when grouping), then the matrix's columns


class MatrixModel(QAbstractTableModel):
    """A Qt table over a ``Matrix``: one row per paper, the question columns after Paper and Year."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.matrix: Matrix | None = None
        self.group_by = ""  # "" | "year" | a column key
        self.running: tuple[int, str] | None = None

    def set_matrix(self, matrix: Matrix | None) -> None:
        self.beginResetModel()
        self.matrix = matrix
        self.endResetModel()

    def set_group_by(self, key: str) -> None:
        self.beginResetModel()
        self.group_by = key
        self.endResetModel()

    def _offset(self) -> int:
        return FIXED + (1 if self.group_by else 0)

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self.matrix is None else len(self.matrix.rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() or self.matrix is None else self._offset() + len(self.matrix.columns)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or self.matrix is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            fixed = [tr("Paper"), tr("Year")] + ([tr("Group")] if self.group_by else [])
            if section < len(fixed):
                return fixed[section]
            # The default columns' names are the interface's words; a user's own name stays as typed.
            return tr(self.matrix.columns[section - self._offset()].name)
        if role == Qt.ItemDataRole.ToolTipRole and section >= self._offset():
            col = self.matrix.columns[section - self._offset()]
            return col.question_zh if language() == "zh" and col.question_zh else col.question
        return None

    def group_of(self, row: int) -> str:
        assert self.matrix is not None
        r = self.matrix.rows[row]
        if self.group_by == "year":
            return str(r.year or tr("no year"))
        cell = self.matrix.cell(r.doc_id, self.group_by)
        if cell is None or cell.status != "found":
            return tr("not stated")
        return tr(family(cell.text)) if self.group_by == "method" else cell.text[:50]

    def cell_at(self, index: AnyIndex) -> tuple[int, str] | None:
        """(doc_id, column key) of a question cell."""
        if self.matrix is None or index.column() < self._offset():
            return None
        return self.matrix.rows[index.row()].doc_id, self.matrix.columns[index.column() - self._offset()].key

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or self.matrix is None:
            return None
        r = self.matrix.rows[index.row()]
        col = index.column()
        if role in (Qt.ItemDataRole.DisplayRole, SORT_ROLE, Qt.ItemDataRole.ToolTipRole):
            if col == 0:
                return r.title
            if col == 1:
                return (r.year or 0) if role == SORT_ROLE else (str(r.year) if r.year else "")
            if self.group_by and col == 2:
                return self.group_of(index.row())
            key = self.matrix.columns[col - self._offset()].key
            cell = self.matrix.cell(r.doc_id, key)
            if cell is None:
                return tr("running…") if self.running == (r.doc_id, key) else ""
            if cell.status == "found" and role == Qt.ItemDataRole.DisplayRole:
                pages = sorted({e.page for e in cell.evidence})
                return f"{cell.text} [{tr('p. {n}').format(n=', '.join(str(p) for p in pages))}]"
            # "not stated in this paper" is core's word for an empty cell: the interface's to translate.
            return tr(cell.text) if cell.status == "not_stated" else cell.text
        if role == Qt.ItemDataRole.TextAlignmentRole:
            # Tall cells read from their top, like a spreadsheet of notes.
            return int(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        if role == Qt.ItemDataRole.ForegroundRole and col >= self._offset():
            key = self.matrix.columns[col - self._offset()].key
            cell = self.matrix.cell(r.doc_id, key)
            if cell is not None and cell.status != "found":
                return QColor("#8a8a8a")
        return None

    def cell_done(self, doc_id: int, key: str) -> None:
        if self.matrix is None:
            return
        row = next((i for i, r in enumerate(self.matrix.rows) if r.doc_id == doc_id), None)
        col = next((i for i, c in enumerate(self.matrix.columns) if c.key == key), None)
        if row is not None and col is not None:
            idx = self.index(row, col + self._offset())
            self.dataChanged.emit(idx, idx)
            if self.group_by:
                g = self.index(row, FIXED)
                self.dataChanged.emit(g, g)




# --- work done off the GUI thread ----------------------------------------------------------------


def _create(session: Session, scope: PaperSelection, column_set: str, title: str) -> Matrix:
    return session.create_matrix(scope, column_set=column_set, title=title)


def _fill(session: Session, matrix: Matrix, policy: str, cancel: threading.Event) -> Iterator[CellProgress]:
    """The pending cells, with the model built here, in the worker (it may import the HTTP client)."""
    yield from session.run_matrix(matrix, policy or None, cancel)


def _edit(session: Session, matrix: Matrix, specs: list[tuple[str, str]]) -> Matrix:
    return session.edit_matrix_columns(matrix, [column(name, question) for name, question in specs])


def _clipboard(session: Session, m: Matrix) -> tuple[str, str]:
    return session.matrix_text(m, "html"), session.matrix_text(m, "tsv")


def _snapshot(m: Matrix) -> Matrix:
    """A copy whose cells the worker may read or fill while the window keeps its own."""
    return dataclasses.replace(m, cells=dict(m.cells))


# --- the columns dialog ----------------------------------------------------------------------------


class ColumnsDialog(QDialog):
    """The matrix's columns as a table of NAME and QUESTION: add, remove, rename, move up and down,
    load a saved set or save these as one."""

    def __init__(self, columns: list[Column], sets: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("Columns"))
        self.resize(720, 420)
        self.table = QTableWidget(0, 2, self)
        self.table.setHorizontalHeaderLabels([tr("Name"), tr("Question asked of each paper")])
        self.table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().resizeSection(0, 180)
        self.table.verticalHeader().setVisible(False)
        self.set_columns([(tr(c.name), c.question) for c in columns], [c.name for c in columns])
        add = QPushButton(tr("Add"), self)
        remove = QPushButton(tr("Remove"), self)
        up = QPushButton(tr("Move Up"), self)
        down = QPushButton(tr("Move Down"), self)
        self.sets_box = QComboBox(self)
        self.sets_box.addItem(tr("Load a column set…"), "")
        for name in ["default", *sets]:
            self.sets_box.addItem(tr("Default columns") if name == "default" else name, name)
        self.save_set_button = QPushButton(tr("Save as Set…"), self)
        side = QVBoxLayout()
        for b in (add, remove, up, down):
            side.addWidget(b)
        side.addStretch(1)
        side.addWidget(self.sets_box)
        side.addWidget(self.save_set_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self)
        body = QHBoxLayout()
        body.addWidget(self.table, 1)
        body.addLayout(side)
        lay = QVBoxLayout(self)
        lay.addWidget(QLabel(tr("A renamed or moved column keeps its cells; a changed question re-runs that column only."), self))
        lay.addLayout(body, 1)
        lay.addWidget(buttons)
        self.set_name = ""
        self.loaded_set = ""
        add.clicked.connect(self.on_add_clicked)
        remove.clicked.connect(self.on_remove_clicked)
        up.clicked.connect(self.on_up_clicked)
        down.clicked.connect(self.on_down_clicked)
        self.sets_box.activated.connect(self.on_sets_box_activated)
        self.save_set_button.clicked.connect(self.on_save_set_clicked)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)

    def set_columns(self, rows: list[tuple[str, str]], originals: list[str] | None = None) -> None:
        self.table.setRowCount(0)
        for i, (name, question) in enumerate(rows):
            self._append(name, question, (originals or [])[i] if originals and i < len(originals) else name)

    def _append(self, name: str, question: str, original: str = "") -> None:
        r = self.table.rowCount()
        self.table.insertRow(r)
        item = QTableWidgetItem(name)
        # The name as saved (a translated default column shows its Chinese name, but is still that column).
        item.setData(Qt.ItemDataRole.UserRole, original)
        self.table.setItem(r, 0, item)
        self.table.setItem(r, 1, QTableWidgetItem(question))

    def specs(self) -> list[tuple[str, str]]:
        """(name, question) per row, in order; a default column's translated name as its saved name."""
        out = []
        for r in range(self.table.rowCount()):
            name_item, q_item = self.table.item(r, 0), self.table.item(r, 1)
            name = name_item.text().strip() if name_item is not None else ""
            original = str(name_item.data(Qt.ItemDataRole.UserRole) or "") if name_item is not None else ""
            if original and tr(original) == name:
                name = original
            question = q_item.text().strip() if q_item is not None else ""
            if name or question:
                out.append((name, question))
        return out

    def _move(self, step: int) -> None:
        r = self.table.currentRow()
        t = r + step
        if r < 0 or not 0 <= t < self.table.rowCount():
            return
        for c in range(2):
            a, b = self.table.takeItem(r, c), self.table.takeItem(t, c)
            self.table.setItem(r, c, b)
            self.table.setItem(t, c, a)
        self.table.setCurrentCell(t, 0)

    @Slot()
    def on_add_clicked(self) -> None:
        self._append("", "")
        self.table.setCurrentCell(self.table.rowCount() - 1, 0)
        item = self.table.item(self.table.rowCount() - 1, 0)
        if item is not None:
            self.table.editItem(item)

    @Slot()
    def on_remove_clicked(self) -> None:
        if self.table.currentRow() >= 0:
            self.table.removeRow(self.table.currentRow())

    @Slot()
    def on_up_clicked(self) -> None:
        self._move(-1)

    @Slot()
    def on_down_clicked(self) -> None:
        self._move(1)

    @Slot(int)
    def on_sets_box_activated(self, i: int) -> None:
        self.loaded_set = str(self.sets_box.itemData(i) or "")
        if self.loaded_set:
            self.accept()  # the window loads the set (off the GUI thread) and applies it

    @Slot()
    def on_save_set_clicked(self) -> None:
        name, ok = QInputDialog.getText(self, tr("Save Columns"), tr("Name of the column set:"))
        if ok and name.strip():
            self.set_name = name.strip()
            self.accept()


# --- the window ------------------------------------------------------------------------------------


class MatrixWindow(WorkflowWindow):
    """The saved matrices, a new one's scope, and one matrix; ``show_cell`` hands a clicked cell's
    evidence to the inspector (and the PDF)."""

    KIND = "matrix"
    TITLE = "Literature Matrix"
    STOPPING = "Stopping after the current cell…"
    BUSY_NEW = "Stop the run before starting another matrix."
    show_cell = Signal(object)  # a Result holding the cell's evidence

    def __init__(self, session: Session, parent: QWidget | None = None, selected: list[int] | None = None) -> None:
        super().__init__(session, selected or [], parent)
        self.resize(1200, 680)
        self.column_sets: list[str] = []
        self.model = MatrixModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.set_box = QComboBox(self)
        self.set_box.addItem(tr("Default columns"), "")
        self.policy_box = policy_box(self)
        self.make_button = QPushButton(tr("Make Matrix"), self)
        self.make_button.setObjectName("makeMatrix")
        self.table = QTableView(self)
        self.table.setObjectName("matrixTable")
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.proxy.sort(-1)  # the scope's order until the user sorts by a column
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.horizontalHeader().setDefaultSectionSize(230)
        self.table.verticalHeader().setVisible(False)
        self.filter_edit = QLineEdit(self)
        self.filter_edit.setPlaceholderText(tr("Filter rows…"))
        self.group_box = QComboBox(self)
        self.run_button = QPushButton(tr("Run"), self)
        self.columns_button = QPushButton(tr("Columns…"), self)
        self.export_button = QPushButton(tr("Export"), self)
        menu = QMenu(self.export_button)
        self.export_actions = {
            "xlsx": menu.addAction(tr("Excel (.xlsx)…"), self.on_export_xlsx_triggered),
            "csv": menu.addAction(tr("CSV (.csv)…"), self.on_export_csv_triggered),
            "md": menu.addAction(tr("Markdown (.md)…"), self.on_export_md_triggered),
        }
        menu.addSeparator()
        self.copy_action = menu.addAction(tr("Copy as Table"), self.on_copy_button_clicked)
        self.export_button.setMenu(menu)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(160)
        setup = QHBoxLayout()
        setup.addWidget(QLabel(tr("Columns:"), self))
        setup.addWidget(self.set_box)
        setup.addWidget(QLabel(tr("Answers:"), self))
        setup.addWidget(self.policy_box)
        setup.addWidget(self.make_button)
        setup.addStretch(1)
        bar = QHBoxLayout()
        bar.addWidget(self.filter_edit, 2)
        bar.addWidget(QLabel(tr("Group:"), self))
        bar.addWidget(self.group_box)
        bar.addWidget(self.progress)
        bar.addWidget(self.run_button)
        bar.addWidget(self.columns_button)
        bar.addWidget(self.export_button)
        right = QWidget(self)
        lay = QVBoxLayout(right)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.scope_row)
        lay.addLayout(setup)
        lay.addLayout(bar)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.status_label)
        self.assemble(right, 1200)
        self.filter_edit.textChanged.connect(self.on_filter_edit_text_changed)
        self.group_box.currentIndexChanged.connect(self.on_group_box_current_index_changed)
        self.table.clicked.connect(self.on_table_clicked)
        self.run_button.clicked.connect(self.on_run_button_clicked)
        self.make_button.clicked.connect(self.on_make_button_clicked)
        self.columns_button.clicked.connect(self.on_columns_button_clicked)
        self.scope_row.changed.connect(self.on_scope_row_changed)
        self.side_task.call(self.session.column_sets, done=self.on_column_sets, doing="Column sets")
        self.show_new()

    # --- state ---------------------------------------------------------------------------------

    @property
    def matrix(self) -> Matrix | None:
        return self.model.matrix

    def shown_id(self) -> str | None:
        return self.matrix.id if self.matrix is not None else None

    def renamed(self, title: str) -> None:
        if self.matrix is not None:
            self.matrix.title = title
        self.set_title(title)

    def _buttons(self) -> None:
        m = self.matrix
        running = self.cancel is not None
        pending = m is not None and bool(m.pending())
        self.make_button.setEnabled(m is None and not self.busy and self.scope_row.ready())
        self.run_button.setText(tr("Stop") if running else (tr("Resume") if pending and m is not None and m.cells
                                                            else tr("Run")))  # fmt: skip
        self.run_button.setEnabled(running or (pending and not self.busy))
        for w in (self.columns_button, self.export_button, self.filter_edit, self.group_box):
            w.setEnabled(m is not None and (w is not self.columns_button or not self.busy))
        for w in (self.set_box, self.policy_box):
            w.setEnabled(not running)
        self.scope_row.set_locked(m is not None)
        self.run_changed()

    def show_new(self) -> None:
        """No matrix shown: choose the papers and columns of a new one."""
        self.model.set_matrix(None)
        self.group_box.clear()
        self.saved.select(None)
        self.set_title("")
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.status_label.setText(tr("Choose the papers and the columns, then Make Matrix; or reopen a saved matrix on the left."))
        self._buttons()

    def show_matrix(self, m: Matrix) -> None:
        self.model.set_matrix(m)
        self.group_box.blockSignals(True)
        self.group_box.clear()
        self.group_box.addItem(tr("(none)"), "")
        self.group_box.addItem(tr("Year"), "year")
        for c in m.columns:
            self.group_box.addItem(tr(c.name), c.key)
        self.group_box.blockSignals(False)
        self.model.set_group_by("")
        self.scope_row.show_scope(m.scope)
        self.saved.select(m.id)
        made = shown_title(m)
        self.set_title(said(made) if made is not None else m.title)
        self._progress_text()
        self._buttons()
        self.table.resizeRowsToContents()

    def _progress_text(self) -> None:
        m = self.matrix
        if m is None:
            return
        done = m.total - len(m.pending())
        self.progress.setRange(0, max(1, m.total))
        self.progress.setValue(done)
        found = sum(c.status == "found" for c in m.cells.values())
        self.status_label.setText(tr("{done} of {total} cells · {found} found · click a cell for its evidence").format(
            done=done, total=m.total, found=found))  # fmt: skip

    # --- making, opening, filling ------------------------------------------------------------------

    def new_matrix(self, scope: PaperSelection | None = None, column_set: str = "") -> bool:
        """Make a matrix over ``scope`` (default: the scope row's) and fill it; False when busy."""
        if self.busy:
            return False
        self.status_label.setText(tr("Making the matrix…"))
        title = f"{self.scope_row.describe()} · {datetime.now():%Y-%m-%d %H:%M}" if scope is None else ""
        ok = self.task.call(_create, self.session, scope or self.scope_row.scope(), column_set, title,
                            done=self.on_created, failed=self.on_failed, doing="The matrix")  # fmt: skip
        self._buttons()
        return ok

    def open_saved(self, matrix_id: str) -> bool:
        """Reopen a saved matrix (read in the background; no cell runs until Resume)."""
        if self.busy:
            self.status_label.setText(tr("Stop the run before opening another matrix."))
            self.saved.select(self.matrix.id if self.matrix else None)
            return False
        self.status_label.setText(tr("Opening…"))
        ok = self.task.call(self.session.open_matrix, matrix_id, done=self.on_opened,
                            failed=self.on_failed, doing="Opening the matrix")  # fmt: skip
        self._buttons()
        return ok

    def start(self) -> bool:
        """Fill the pending cells in the background; False when there is nothing to run or a job runs."""
        m = self.matrix
        if m is None or self.busy or not m.pending():
            return False
        cancel = threading.Event()
        run = _fill(self.session, _snapshot(m), str(self.policy_box.currentData() or ""), cancel)
        if not self.task.iterate(run, cancel=cancel, item=self.on_cell, done=self.on_filled, failed=self.on_failed,
                                 doing="The matrix"):  # fmt: skip
            return False
        self.cancel = cancel
        self._buttons()
        return True

    def apply_columns(self, specs: list[tuple[str, str]]) -> bool:
        """New columns as (name, question) in order: a kept column keeps its cells unless its
        question changed; then only new and changed columns run."""
        m = self.matrix
        if m is None or self.busy:
            return False
        return self.task.call(_edit, self.session, m, specs, done=self.on_edited, failed=self.on_failed,
                              doing="The columns")  # fmt: skip

    def apply_column_set(self, name: str) -> bool:
        m = self.matrix
        if m is None or self.busy:
            return False
        return self.task.call(self.session.use_column_set, m, name, done=self.on_edited, failed=self.on_failed,
                              doing="The columns")  # fmt: skip

    def save_columns(self, name: str) -> bool:
        m = self.matrix
        if m is None:
            return False
        return self.side_task.call(self.session.save_column_set, name, m.columns,
                                   done=lambda _r: self.on_columns_saved(name), failed=self.on_failed,
                                   doing="Saving the columns")  # fmt: skip

    def export_to(self, path: Path) -> bool:
        """Write the matrix (.xlsx, .csv or .md, by the suffix) in the background."""
        m = self.matrix
        if m is None:
            return False
        return self.side_task.call(self.session.export_matrix, _snapshot(m), path, done=self.on_exported,
                                   failed=self.on_failed, doing="Export")  # fmt: skip

    def copy_table(self) -> bool:
        m = self.matrix
        if m is None:
            return False
        return self.side_task.call(_clipboard, self.session, _snapshot(m), done=self.on_clipboard,
                                   failed=self.on_failed, doing="Copy")  # fmt: skip

    # --- what the background work reports ----------------------------------------------------------

    def on_created(self, m: Matrix) -> None:
        self.saved.refresh()
        self.show_matrix(m)
        self.start()

    def on_opened(self, m: Matrix) -> None:
        self.show_matrix(m)
        pending = len(m.pending())
        if pending:
            self.say(tr("{n} cells to fill: Resume").format(n=pending), add=True)

    def on_edited(self, m: Matrix) -> None:
        self.saved.refresh()
        self.show_matrix(m)
        self.start()

    def on_cell(self, p: CellProgress) -> None:
        m = self.matrix
        if m is None:
            return
        if p.cell is None:
            self.model.running = (p.row.doc_id, p.column.key)
        else:
            self.model.running = None
            m.cells[(p.row.doc_id, p.column.key)] = p.cell
        self.model.cell_done(p.row.doc_id, p.column.key)
        self._progress_text()
        if p.cell is None:
            self.say(tr("running: {paper} · {column}").format(paper=p.row.title[:40], column=tr(p.column.name)), add=True)

    def _run_ended(self) -> None:
        self.cancel = None
        self.model.running = None
        self._progress_text()
        self._buttons()
        self.table.resizeRowsToContents()

    def on_filled(self, _run: Any) -> None:
        self._run_ended()
        self.saved.refresh()
        m = self.matrix
        if m is not None and m.pending():
            self.say(tr("stopped; the cells done are saved: Resume"), add=True)

    def on_failed(self, message: str) -> None:
        self._run_ended()
        if self.matrix is None:
            self.show_new()
        self.status_label.setText(message)

    def on_column_sets(self, names: list[str]) -> None:
        self.column_sets = list(names)
        keep = self.set_box.currentData()
        self.set_box.clear()
        self.set_box.addItem(tr("Default columns"), "")
        for n in names:
            self.set_box.addItem(n, n)
        self.set_box.setCurrentIndex(max(0, self.set_box.findData(keep)))

    def on_columns_saved(self, name: str) -> None:
        self.status_label.setText(tr("Saved the columns as “{name}”.").format(name=name))
        self.side_task.call(self.session.column_sets, done=self.on_column_sets, doing="Column sets")

    def on_exported(self, path: Path) -> None:
        self.status_label.setText(tr("Exported to {path}").format(path=path))

    def on_clipboard(self, texts: tuple[str, str]) -> None:
        html, tsv = texts
        # A Qt-made QMimeData: a Python-made one on the clipboard crashes the process at quit.
        mime = new_mime_data()
        mime.setHtml(html)
        mime.setText(tsv)
        QGuiApplication.clipboard().setMimeData(mime)
        self.status_label.setText(tr("Copied the table (HTML and tab-separated text) with its references."))

    # --- slots -------------------------------------------------------------------------------------

    @Slot()
    def on_run_button_clicked(self) -> None:
        if self.cancel is not None:
            self.stop()
        else:
            self.start()

    @Slot()
    def on_make_button_clicked(self) -> None:
        self.new_matrix(column_set=str(self.set_box.currentData() or ""))

    @Slot()
    def on_scope_row_changed(self) -> None:
        self._buttons()

    @Slot(str)
    def on_filter_edit_text_changed(self, text: str) -> None:
        self.proxy.setFilterFixedString(text)

    @Slot(int)
    def on_group_box_current_index_changed(self, _i: int) -> None:
        key = self.group_box.currentData() or ""
        self.model.set_group_by(key)
        if key:
            self.proxy.sort(FIXED, Qt.SortOrder.DescendingOrder if key == "year" else Qt.SortOrder.AscendingOrder)
        self.table.resizeRowsToContents()

    @Slot(QModelIndex)
    def on_table_clicked(self, index: QModelIndex) -> None:
        src = self.proxy.mapToSource(index)
        at = self.model.cell_at(src)
        m = self.matrix
        if at is None or m is None:
            return
        cell = m.cell(*at)
        if cell is None:
            return
        row = m.rows[src.row()]
        evidence = [Evidence(number=i + 1, id=f"P{i + 1}", doc_id=e.doc_id, title=row.title, section=e.section,
                             page=e.page, segment=e.segment, text=e.text) for i, e in enumerate(cell.evidence)]  # fmt: skip
        marks = "".join(f" [{e.number}]" for e in evidence)
        result = Result(question=cell.question, answer=cell.text + marks, evidence=evidence, policy=cell.policy,
                        status=Status.ANSWERED if cell.status == "found" else Status.INSUFFICIENT,
                        seconds=cell.seconds, usage=cell.usage)  # fmt: skip
        self.show_cell.emit(result)

    @Slot()
    def on_columns_button_clicked(self) -> None:
        m = self.matrix
        if m is None:
            return
        dlg = ColumnsDialog(m.columns, self.column_sets, self)
        if dlg.exec() != QDialog.DialogCode.Accepted:
            return
        if dlg.loaded_set:
            self.apply_column_set(dlg.loaded_set)
            return
        specs = dlg.specs()
        if dlg.set_name:
            self.save_columns(dlg.set_name)
        if specs != [(c.name, c.question) for c in m.columns]:
            self.apply_columns(specs)

    def _export_dialog(self, suffix: str, label: str) -> None:
        if self.matrix is None:
            return
        name, _ = QFileDialog.getSaveFileName(self, tr("Export matrix"), str(Path.home() / f"matrix.{suffix}"),
                                              f"{label} (*.{suffix})")  # fmt: skip
        if name:
            path = Path(name)
            self.export_to(path if path.suffix else path.with_suffix(f".{suffix}"))

    @Slot()
    def on_export_xlsx_triggered(self) -> None:
        self._export_dialog("xlsx", "Excel")

    @Slot()
    def on_export_csv_triggered(self) -> None:
        self._export_dialog("csv", "CSV")

    @Slot()
    def on_export_md_triggered(self) -> None:
        self._export_dialog("md", "Markdown")

    @Slot()
    def on_copy_button_clicked(self) -> None:
        self.copy_table()
