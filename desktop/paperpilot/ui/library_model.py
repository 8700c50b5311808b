"""The library table: a Qt item model over DocumentInfo rows, plus its sort/filter proxy."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from ..core.models import DocumentInfo
from ..core.text.language import has_cjk
from .i18n import tr

AnyIndex = QModelIndex | QPersistentModelIndex


class Column(IntEnum):
    TITLE = 0
    AUTHORS = 1
    YEAR = 2
    PAGES = 3
    STATUS = 4
    CHECK = 5  # "check metadata": a flag, sorted by the metadata confidence


HEADERS = ("Title", "Authors", "Year", "Pages", "Status", "Check")
CHECK_FLAG = "⚑"
DOC_ID_ROLE = Qt.ItemDataRole.UserRole
# Typed sort keys (ints for year/pages) so the proxy compares numbers, not their strings.
SORT_ROLE = Qt.ItemDataRole.UserRole + 1


def surname(name: str) -> str:
    """The family name for a compact column: "Zhang, Alice" → Zhang, "Ana Ruiz" → Ruiz, 李明 → 李明."""
    name = name.strip()
    if "," in name:
        return name.split(",", 1)[0].strip()
    if has_cjk(name):
        return name  # CJK names are short and not split into given/family by spaces
    parts = name.split()
    return parts[-1] if parts else name


def short_authors(authors: list[str]) -> str:
    if not authors:
        return ""
    if len(authors) == 1:
        return surname(authors[0])
    if len(authors) == 2:
        return f"{surname(authors[0])} & {surname(authors[1])}"
    return tr("{name} et al.").format(name=surname(authors[0]))


def metadata_tip(doc: DocumentInfo) -> str:
    """Why a document is flagged: its confidence and the weak or missing key fields."""
    weak = [
        f"{field} ({doc.metadata_sources[field]})" if field in doc.metadata_sources else tr("{field} (missing)").format(field=field)
        for field in ("title", "authors", "year")
        if doc.metadata_sources.get(field) in (None, "info", "page", "filename")
    ]
    conf = "?" if doc.metadata_confidence is None else f"{doc.metadata_confidence:.2f}"
    text = tr("Check metadata: confidence {conf}").format(conf=conf)
    return text + (" — " + ", ".join(weak) if weak else "")


def warning_colour(palette: QPalette) -> QColor:
    """A red that stays readable on the current palette's base colour (light or dark)."""
    dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
    return QColor("#ff8a80") if dark else QColor("#b3261e")


@dataclass(frozen=True)
class _Row:
    """Everything data() needs for one document, computed once per reset, not per paint."""

    doc: DocumentInfo
    cells: tuple[str, str, str, str, str, str]
    sort_keys: tuple[str, str, int, int, str, float]
    tooltip: str
    haystack: str
    failed: bool


def _make_row(doc: DocumentInfo) -> _Row:
    failed = doc.status != "ready"
    authors = short_authors(doc.authors)
    year = str(doc.year) if doc.year else ""
    pages = str(doc.pages) if not failed and doc.pages else ""
    if failed:
        status = tr("Failed: {reason}").format(reason=doc.error) if doc.error else tr("Failed")
    else:
        status = tr("Ready")
    tip = [doc.title]
    if doc.authors:
        tip.append(", ".join(doc.authors))
    if doc.file_name:
        tip.append(tr("File: {name}").format(name=doc.file_name))
    if failed:
        tip.append(tr("Import failed: {reason}").format(reason=doc.error or tr("unknown reason")))
        if doc.source_path:
            tip.append(tr("Source: {path}").format(path=doc.source_path))
    check = doc.check_metadata and not failed
    if check:
        tip.append(metadata_tip(doc))
    conf = doc.metadata_confidence
    return _Row(
        doc=doc,
        cells=(doc.title, authors, year, pages, status, CHECK_FLAG if check else ""),
        sort_keys=(
            doc.title.casefold(),
            surname(doc.authors[0]).casefold() if doc.authors else "",
            doc.year or 0,
            doc.pages if not failed else -1,
            status.casefold(),
            # Least sure first when sorted ascending; unknown confidence sorts with the sure ones.
            -1.0 if failed else (conf if conf is not None else 1.0),
        ),
        tooltip="\n".join(tip),
        haystack=" ".join([doc.title, *doc.authors, year]).casefold(),
        failed=failed,
    )


class DocumentTableModel(QAbstractTableModel):
    """Read-only table of documents; the library pane refills it with ``set_documents``."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[_Row] = []
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder

    # --- filling ------------------------------------------------------------------------------

    def set_documents(self, docs: list[DocumentInfo]) -> None:
        rows = [_make_row(d) for d in docs]
        self._sort_rows(rows)
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    # --- sorting ------------------------------------------------------------------------------
    # Sorting happens here, on precomputed keys with list.sort, rather than in the proxy: the
    # proxy's C++ sort would call back into Python data() ~2·n·log n times (a second for 5,000
    # rows); list.sort takes milliseconds.

    def _sort_rows(self, rows: list[_Row]) -> None:
        col = self._sort_column
        if 0 <= col < len(HEADERS):
            rows.sort(
                key=lambda r: (r.sort_keys[col], r.doc.doc_id),
                reverse=self._sort_order == Qt.SortOrder.DescendingOrder,
            )
        else:
            rows.sort(key=lambda r: r.doc.doc_id)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column, self._sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        old_ids = [self._rows[i.row()].doc.doc_id if 0 <= i.row() < len(self._rows) else -1 for i in old]
        self._sort_rows(self._rows)
        where = {r.doc.doc_id: n for n, r in enumerate(self._rows)}
        new = [
            self.index(where[doc_id], i.column()) if doc_id in where else QModelIndex()
            for i, doc_id in zip(old, old_ids, strict=True)
        ]
        self.changePersistentIndexList(old, new)
        self.layoutChanged.emit()

    def sort_column(self) -> int:
        return self._sort_column

    def sort_order(self) -> Qt.SortOrder:
        return self._sort_order

    def documents(self) -> list[DocumentInfo]:
        return [r.doc for r in self._rows]

    def document_at(self, row: int) -> DocumentInfo:
        return self._rows[row].doc

    def row_of(self, doc_id: int) -> int:
        for i, r in enumerate(self._rows):
            if r.doc.doc_id == doc_id:
                return i
        return -1

    def haystack(self, row: int) -> str:
        return self._rows[row].haystack

    def needs_check(self, row: int) -> bool:
        return bool(self._rows[row].cells[Column.CHECK])

    # --- QAbstractTableModel ------------------------------------------------------------------

    def rowCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt API default
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: AnyIndex = QModelIndex()) -> int:  # noqa: B008 - Qt API default
        return 0 if parent.isValid() else len(HEADERS)

    def data(self, index: AnyIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        row, col = index.row(), index.column()
        if not (0 <= row < len(self._rows) and 0 <= col < len(HEADERS)):
            return None
        r = self._rows[row]
        if role == Qt.ItemDataRole.DisplayRole:
            return r.cells[col]
        if role == SORT_ROLE:
            return r.sort_keys[col]
        if role == DOC_ID_ROLE:
            return r.doc.doc_id
        if role == Qt.ItemDataRole.ToolTipRole:
            if col == Column.CHECK and r.cells[col]:
                return metadata_tip(r.doc)
            if col == Column.AUTHORS and r.doc.authors:
                return "\n".join(r.doc.authors)
            return r.tooltip
        if role == Qt.ItemDataRole.ForegroundRole and r.failed:
            return warning_colour(QGuiApplication.palette())
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = (
                Qt.AlignmentFlag.AlignRight
                if col in (Column.YEAR, Column.PAGES)
                else Qt.AlignmentFlag.AlignLeft
            )
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal:
            return tr(HEADERS[section]) if 0 <= section < len(HEADERS) else None
        return section + 1

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren


class DocumentFilterProxy(QSortFilterProxyModel):
    """Keeps the rows whose title, authors or year contain every typed word; sorts via the model."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._needles: list[str] = []
        self._needs_checking = False
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """Sort by ``column``: delegated to the source model (see DocumentTableModel.sort)."""
        model = self.sourceModel()
        if isinstance(model, DocumentTableModel):
            model.sort(column, order)
        else:
            super().sort(column, order)

    def set_filter_text(self, text: str) -> None:
        needles = text.casefold().split()
        if needles == self._needles:
            return
        # beginFilterChange (Qt 6.10+) keeps the proxy's mapping when only rows change.
        if hasattr(self, "beginFilterChange"):
            self.beginFilterChange()
            self._needles = needles
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self._needles = needles
            self.invalidateRowsFilter()

    def filter_text(self) -> str:
        return " ".join(self._needles)

    def set_needs_checking(self, on: bool) -> None:
        """Show only the documents flagged "check metadata"."""
        if on == self._needs_checking:
            return
        if hasattr(self, "beginFilterChange"):
            self.beginFilterChange()
            self._needs_checking = on
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self._needs_checking = on
            self.invalidateRowsFilter()

    def needs_checking(self) -> bool:
        return self._needs_checking

    def filterAcceptsRow(self, source_row: int, source_parent: AnyIndex) -> bool:
        model = self.sourceModel()
        if not isinstance(model, DocumentTableModel):
            return True
        if self._needs_checking and not model.needs_check(source_row):
            return False
        if not self._needles:
            return True
        hay = model.haystack(source_row)
        return all(n in hay for n in self._needles)
