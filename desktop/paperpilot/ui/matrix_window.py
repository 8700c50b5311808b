"""The literature matrix window: papers × questions, filled in the background, cell by cell.

A click on a cell shows its evidence in the main window's inspector (double-click there opens
the PDF at the cited span); rows sort and filter; a Group box groups them by year or by a
column's values (method family for a method column). Export writes Markdown, CSV or XLSX;
Copy puts the table on the clipboard as HTML and as tab-separated text.
"""

from __future__ import annotations

import threading
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
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..core.agent.events import Evidence, Result, Status
from ..core.app import Session
from ..core.errors import PaperPilotError
from ..core.workflows.export import (
    Reference,
    matrix_csv,
    matrix_html,
    matrix_markdown,
    matrix_tsv,
    matrix_xlsx,
)
from ..core.workflows.matrix import (
    NOT_STATED,
    CellProgress,
    Matrix,
    create_matrix,
    edit_columns,
    family,
    not_stated,
    open_matrix,
    parse_column,
    run_matrix,
    save_column_set,
    set_columns,
)
from ..core.workflows.scope import Scope
from .core_text import translate_phrase
from .i18n import language, tr
from .qtcompat import new_mime_data
from .workers import GeneratorWorker, WorkerThread

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
            return tr(self.matrix.columns[section - self._offset()].name)  # a default column's name
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
        return family(cell.text) if self.group_by == "method" else cell.text[:50]

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
            # An English matrix's "not stated" cell reads in the interface's language.
            return not_stated("zh") if cell.text == NOT_STATED and language() == "zh" else cell.text
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


class MatrixWindow(QMainWindow):
    """One literature matrix; ``show_cell`` hands a clicked cell's evidence to the inspector."""

    show_cell = Signal(object)  # a Result holding the cell's evidence

    def __init__(self, session: Session, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setWindowTitle(tr("Literature Matrix"))
        self.resize(1200, 640)
        self.thread: WorkerThread | None = None
        self.model = MatrixModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.proxy.setFilterKeyColumn(-1)
        self.proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
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
        self.run_button = QPushButton(tr("Stop"), self)
        self.export_button = QPushButton(tr("Export…"), self)
        self.columns_button = QPushButton(tr("Columns…"), self)
        self.save_columns_button = QPushButton(tr("Save Columns…"), self)
        self.copy_button = QPushButton(tr("Copy as Table"), self)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(220)
        self.status_label = QLabel("", self)
        bar = QHBoxLayout()
        bar.addWidget(self.filter_edit, 2)
        bar.addWidget(QLabel(tr("Group:"), self))
        bar.addWidget(self.group_box, 1)
        bar.addWidget(self.progress)
        bar.addWidget(self.run_button)
        bar.addWidget(self.columns_button)
        bar.addWidget(self.save_columns_button)
        bar.addWidget(self.copy_button)
        bar.addWidget(self.export_button)
        body = QWidget(self)
        lay = QVBoxLayout(body)
        lay.addLayout(bar)
        lay.addWidget(self.table, 1)
        lay.addWidget(self.status_label)
        self.setCentralWidget(body)
        self.filter_edit.textChanged.connect(self.on_filter_edit_text_changed)
        self.group_box.currentIndexChanged.connect(self.on_group_box_current_index_changed)
        self.table.clicked.connect(self.on_table_clicked)
        self.run_button.clicked.connect(self.on_run_button_clicked)
        self.export_button.clicked.connect(self.on_export_button_clicked)
        self.copy_button.clicked.connect(self.on_copy_button_clicked)
        self.columns_button.clicked.connect(self.on_columns_button_clicked)
        self.save_columns_button.clicked.connect(self.on_save_columns_button_clicked)

    # --- a matrix ----------------------------------------------------------------------------

    @property
    def matrix(self) -> Matrix | None:
        return self.model.matrix

    def new_matrix(self, doc_ids: list[int]) -> Matrix:
        """A new matrix over ``doc_ids`` (all papers when empty), shown and started."""
        m = create_matrix(self.session.workflows, self.session.library, Scope(doc_ids=doc_ids))
        self.show_matrix(m)
        self.start()
        return m

    def open_saved(self, matrix_id: str) -> Matrix:
        """A saved matrix, shown at once; its pending cells (if any) start filling."""
        m = open_matrix(self.session.workflows, matrix_id)
        self.show_matrix(m)
        if m.pending():
            self.start()
        return m

    def show_matrix(self, m: Matrix) -> None:
        self.model.set_matrix(m)
        self.group_box.blockSignals(True)
        self.group_box.clear()
        self.group_box.addItem(tr("(none)"), "")
        self.group_box.addItem(tr("Year"), "year")
        for c in m.columns:
            self.group_box.addItem(tr(c.name), c.key)
        self.group_box.blockSignals(False)
        self.setWindowTitle(f"{tr('Literature Matrix')} — {translate_phrase(m.title)}")
        self._progress_text()
        self.run_button.setEnabled(bool(m.pending()))
        self.run_button.setText(tr("Run"))
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

    def start(self) -> None:
        m = self.matrix
        if m is None or self.thread is not None or not m.pending():
            return
        try:
            model = self.session.workflow_model()
        except PaperPilotError as e:
            QMessageBox.warning(self, tr("Language model"), str(e))
            return
        cancel = threading.Event()
        worker = GeneratorWorker(run_matrix(self.session.workflows, m, self.session.library, model=model,
                                            cancel=cancel), doing="The matrix", cancel=cancel)  # fmt: skip
        worker.item.connect(self.on_worker_item)
        worker.finished.connect(self.on_worker_finished)
        worker.failed.connect(self.on_worker_failed)
        self.run_button.setText(tr("Stop"))
        self.run_button.setEnabled(True)
        self.thread = WorkerThread(worker, self)
        self.thread.start()

    def stop(self) -> None:
        if self.thread is not None:
            worker = self.thread.worker
            if isinstance(worker, GeneratorWorker):
                worker.request_stop()

    def _done(self) -> None:
        if self.thread is not None:
            self.thread.finish()
            self.thread = None
        self.model.running = None
        pending = self.matrix is not None and bool(self.matrix.pending())
        self.run_button.setText(tr("Resume") if pending else tr("Run"))
        self.run_button.setEnabled(pending)
        self._progress_text()
        self.table.resizeRowsToContents()

    # --- slots -------------------------------------------------------------------------------------

    @Slot(object)
    def on_worker_item(self, p: CellProgress) -> None:
        if p.cell is None:
            self.model.running = (p.row.doc_id, p.column.key)
        else:
            self.model.running = None
        self.model.cell_done(p.row.doc_id, p.column.key)
        self._progress_text()

    @Slot(object)
    def on_worker_finished(self, _it: Any) -> None:
        self._done()

    @Slot(str)
    def on_worker_failed(self, message: str) -> None:
        self._done()
        self.status_label.setText(message)

    @Slot()
    def on_run_button_clicked(self) -> None:
        if self.thread is not None:
            self.stop()
        else:
            self.start()

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

    def columns_text(self) -> str:
        m = self.matrix
        return "\n".join(f"{c.name}={c.question}" for c in m.columns) if m is not None else ""

    def apply_columns(self, text: str) -> None:
        """New columns from ``NAME=QUESTION`` lines (in order): a kept name keeps its cells unless
        its question changed; only new and changed columns run."""
        m = self.matrix
        if m is None or self.thread is not None:
            return
        try:
            specs = [parse_column(line) for line in text.splitlines() if line.strip()]
            self.show_matrix(set_columns(self.session.workflows, m, edit_columns(m, specs)))
        except PaperPilotError as e:
            QMessageBox.warning(self, tr("Columns"), str(e))
            return
        self.start()

    @Slot()
    def on_columns_button_clicked(self) -> None:
        text, ok = QInputDialog.getMultiLineText(
            self, tr("Columns"), tr("One column a line, as NAME=QUESTION (add, remove, rename, reorder):"),
            self.columns_text())  # fmt: skip
        if ok:
            self.apply_columns(text)

    @Slot()
    def on_save_columns_button_clicked(self) -> None:
        m = self.matrix
        if m is None:
            return
        name, ok = QInputDialog.getText(self, tr("Save Columns"), tr("Name of the column set:"))
        if ok and name.strip():
            save_column_set(self.session.workflows, name, m.columns)
            self.status_label.setText(tr("Saved the columns as “{name}”.").format(name=name.strip()))

    def references(self) -> list[Reference]:
        m = self.matrix
        if m is None:
            return []
        ids = [r.doc_id for r in m.rows]
        return [Reference(i + 1, d, t) for i, (d, t) in enumerate(zip(ids, self.session.reference_entries(ids), strict=True))]

    @Slot()
    def on_copy_button_clicked(self) -> None:
        if self.matrix is None:
            return
        refs = self.references()
        # A Qt-made QMimeData: a Python-made one on the clipboard crashes the process at quit.
        mime = new_mime_data()
        mime.setHtml(matrix_html(self.matrix, refs))
        mime.setText(matrix_tsv(self.matrix, refs))
        QGuiApplication.clipboard().setMimeData(mime)
        self.status_label.setText(tr("Copied the table (HTML and tab-separated text) with its references."))

    @Slot()
    def on_export_button_clicked(self) -> None:
        if self.matrix is None:
            return
        name, _ = QFileDialog.getSaveFileName(self, tr("Export matrix"), str(Path.home() / "matrix.xlsx"),
                                              "Excel (*.xlsx);;CSV (*.csv);;Markdown (*.md)")  # fmt: skip
        if name:
            self.export_to(Path(name))

    def export_to(self, path: Path) -> None:
        assert self.matrix is not None
        refs = self.references()
        try:
            if path.suffix.lower() == ".xlsx":
                matrix_xlsx(self.matrix, refs, path)
            elif path.suffix.lower() == ".csv":
                path.write_text(matrix_csv(self.matrix, refs), encoding="utf-8")
            else:
                path.write_text(matrix_markdown(self.matrix, refs), encoding="utf-8")
        except OSError as e:
            QMessageBox.warning(self, tr("Could not export"), f"{path}: {e.strerror or e}")

    def closeEvent(self, event: Any) -> None:
        if self.thread is not None:
            self.stop()
            self.thread.stop()
            self.thread = None
        super().closeEvent(event)
