"""The library table: a Qt item model over DocumentInfo rows, plus its sort/filter proxy."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QByteArray,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Slot,
)
from PySide6.QtGui import QColor, QGuiApplication, QIcon, QPainter, QPalette, QPixmap

from ..core.api import DocumentInfo, has_cjk
from .i18n import language, said_or, tr
from .qtcompat import new_mime_data

# What a drag of table rows carries: a JSON list of document ids.
DOC_IDS_MIME = "application/x-paperpilot-doc-ids"

AnyIndex = QModelIndex | QPersistentModelIndex


class Column(IntEnum):
    TITLE = 0
    AUTHORS = 1
    YEAR = 2
    PAGES = 3
    STATUS = 4
    MARKS = 5  # note, metadata to check, OCR'd, coloured tags
    HITS = 6  # passages matching the full-text filter (shown in that mode only)


HEADERS = ("Title", "Authors", "Year", "Pages", "Status", "Marks", "Hits")
# Computed once: flags() runs for every painted cell, and or-ing Python enums is slow.
_ROW_FLAGS = (
    Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
    | Qt.ItemFlag.ItemIsDragEnabled
)  # fmt: skip
NOTE_MARK = "✎"
CHECK_MARK = "⚑"
OCR_MARK = "OCR"
# Field names other helpers give DocumentInfo (the metadata-confidence flag, the OCR flag):
# shown when present, so the table needs no change when they land.
_CHECK_FIELDS = ("check_metadata", "metadata_check", "needs_check", "metadata_flag")
_OCR_FIELDS = ("ocr", "ocrd", "is_ocr", "ocr_done")
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
    sort_keys: tuple[str, str, int, int, str, str]
    tooltip: str
    haystack: str
    failed: bool
    marks_tip: str
    tag_colors: tuple[str, ...]
    note: bool  # what the row was made from besides ``doc`` (see make_rows' reuse)
    language: str


def _flag(doc: DocumentInfo, names: tuple[str, ...]) -> bool:
    return any(bool(getattr(doc, n, False)) for n in names)


def _make_row(
    doc: DocumentInfo, has_note: bool = False, colors: dict[str, str] | None = None
) -> _Row:
    failed = doc.status == "failed"
    authors = short_authors(doc.authors)
    year = str(doc.year) if doc.year else ""
    pages = str(doc.pages) if not failed and doc.pages else ""
    if failed:
        status = tr("Failed: {reason}").format(reason=said_or(doc.error_msg, doc.error)) if doc.error else tr("Failed")
    elif doc.status == "trashed":
        status = tr("In the trash since {date}").format(date=doc.trashed[:10])
    else:
        status = tr("Ready")
    marks: list[str] = []
    marks_tip: list[str] = []
    if has_note:
        marks.append(NOTE_MARK)
        marks_tip.append(tr("Has notes"))
    if _flag(doc, _CHECK_FIELDS):
        marks.append(CHECK_MARK)
        marks_tip.append(metadata_tip(doc))
    if _flag(doc, _OCR_FIELDS):
        marks.append(OCR_MARK)
        marks_tip.append(tr("Text read by OCR (a scanned document)"))
    if doc.tags:
        marks_tip.append(tr("Tags: {tags}").format(tags=", ".join(doc.tags)))
    lowered = {k.casefold(): v for k, v in (colors or {}).items()}
    tag_colors = tuple(lowered[t.casefold()] for t in doc.tags if t.casefold() in lowered)
    tip = [doc.title]
    if doc.authors:
        tip.append(", ".join(doc.authors))
    if doc.file_name:
        tip.append(tr("File: {name}").format(name=doc.file_name))
    if doc.status == "trashed":
        tip.append(tr("In the trash since {date}: restore it to search and cite it again").format(date=doc.trashed[:10]))
    if failed:
        tip.append(tr("Import failed: {reason}").format(reason=said_or(doc.error_msg, doc.error) if doc.error else tr("unknown reason")))
        if doc.source_path:
            tip.append(tr("Source: {path}").format(path=doc.source_path))
    check = doc.check_metadata and not failed
    if check:
        tip.append(metadata_tip(doc))
    conf = doc.metadata_confidence
    return _Row(
        doc=doc,
        cells=(doc.title, authors, year, pages, status, " ".join(marks)),
        sort_keys=(
            doc.title.casefold(),
            surname(doc.authors[0]).casefold() if doc.authors else "",
            doc.year or 0,
            doc.pages if not failed else -1,
            status.casefold(),
            # Least sure metadata first when sorted ascending (failed imports before all).
            f"{-1.0 if failed else (conf if conf is not None else 1.0):.3f} {' '.join(marks)}",
        ),
        tooltip="\n".join(tip),
        haystack=" ".join([doc.title, *doc.authors, year]).casefold(),
        failed=failed,
        marks_tip="\n".join(marks_tip),
        tag_colors=tag_colors,
        note=has_note,
        language=language(),
    )


SortState = tuple[int, Qt.SortOrder]


def sort_rows(rows: list[_Row], sort: SortState, hits: dict[int, int] | None = None) -> None:
    """Sort ``rows`` in place by a column's precomputed key (then the id, so ties are stable)."""
    col, order = sort
    reverse = order == Qt.SortOrder.DescendingOrder
    if col == Column.HITS:
        counts = hits or {}
        rows.sort(key=lambda r: (counts.get(r.doc.doc_id, 0), r.doc.doc_id), reverse=reverse)
    elif 0 <= col < len(HEADERS):
        rows.sort(key=lambda r: (r.sort_keys[col], r.doc.doc_id), reverse=reverse)
    else:
        rows.sort(key=lambda r: r.doc.doc_id)


@dataclass(frozen=True)
class RowSet:
    """The table's rows for a list of documents, made once (any thread) and shown by
    ``DocumentTableModel.set_rows``: the cells, tips and sort keys of every document."""

    rows: list[_Row]
    docs: list[DocumentInfo]  # the rows' documents, in the order they were given
    sort: SortState  # what ``rows`` are sorted by
    failed: int
    to_check: int


def make_rows(
    docs: list[DocumentInfo],
    notes: set[int] | None = None,
    colors: dict[str, str] | None = None,
    sort: SortState = (-1, Qt.SortOrder.AscendingOrder),
    reuse: Sequence[_Row] = (),
) -> RowSet:
    """The rows for ``docs``, sorted by ``sort`` (the full-text counts play no part here: a
    Hits sort is redone by the model, which holds them). Touches no widget: safe in a worker.

    ``reuse``: rows shown now; one whose document, note mark, tag colours and language are
    unchanged is kept as it is (with its document) instead of being made again, so replacing
    the table's rows frees only what changed, not every row (~15 ms for 10,000)."""
    have = notes or set()
    old = {r.doc.doc_id: r for r in reuse}
    lowered = {k.casefold(): v for k, v in (colors or {}).items()}
    lang = language()
    rows: list[_Row] = []
    for d in docs:
        note = d.doc_id in have
        r = old.get(d.doc_id)
        if (
            r is None
            or r.note != note
            or r.language != lang
            or r.doc != d
            or r.tag_colors != tuple(lowered[t.casefold()] for t in d.tags if t.casefold() in lowered)
        ):
            r = _make_row(d, note, colors)
        rows.append(r)
    kept = [r.doc for r in rows]
    sort_rows(rows, sort)
    return RowSet(
        rows=rows,
        docs=kept,
        sort=sort if sort[0] != Column.HITS else (-2, sort[1]),
        failed=sum(1 for r in rows if r.failed),
        to_check=sum(1 for d in docs if d.check_metadata and d.status == "ready"),
    )


class DocumentTableModel(QAbstractTableModel):
    """Read-only table of documents; the library pane refills it with ``set_documents``."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Every document (sorted), and the ones the filter shows: filtering happens here, as
        # a reset of the visible list, so the proxy never calls back into Python per row.
        self._all: list[_Row] = []
        self._rows: list[_Row] = []
        self._visible: set[int] | None = None
        self._where: dict[int, int] | None = None
        self._failed = 0
        self._to_check = 0
        self._retired: list[object] = []  # rows replaced by set_rows, freed a moment later
        self._sort_column = -1
        self._sort_order = Qt.SortOrder.AscendingOrder
        # The full-text filter's passage counts and snippets (doc_id → …), {} outside that mode.
        self._hits: dict[int, int] = {}
        self._snippets: dict[int, str] = {}
        self._icons: dict[tuple[str, ...], QIcon] = {}
        self.snippet_provider: Callable[[int], str] | None = None

    # --- filling ------------------------------------------------------------------------------

    def set_documents(
        self,
        docs: list[DocumentInfo],
        notes: set[int] | None = None,
        colors: dict[str, str] | None = None,
    ) -> None:
        """Show ``docs``; ``notes``: the ids with a note, ``colors``: tag → colour (the marks)."""
        self.set_rows(make_rows(docs, notes, colors, self.sort_state()))

    def set_rows(self, rows: RowSet) -> None:
        """Show rows made by ``make_rows`` (in any thread): on the GUI thread this is a reset and
        no per-document work, unless the sort changed since they were made."""
        ordered = list(rows.rows)  # the model sorts its list in place; ``rows`` stays as made
        if rows.sort != self.sort_state():
            self._sort_rows(ordered)
        self.retire(self._all, self._rows)
        self.beginResetModel()
        self._all = ordered
        self._failed = rows.failed
        self._to_check = rows.to_check
        self._rows = self._shown(ordered)
        self._where = None
        self.endResetModel()

    def retire(self, *objects: object) -> None:
        """Let ``objects`` (replaced rows, a snapshot that held them) go in the next round of
        the event loop: freeing 10,000 rows takes about as long as the reset that replaced
        them, and the two together would be one long pause."""
        if not self._retired:
            QTimer.singleShot(0, self, self.on_retired_due)
        self._retired.extend(objects)

    @Slot()
    def on_retired_due(self) -> None:
        self._retired.clear()

    def _shown(self, rows: list[_Row]) -> list[_Row]:
        v = self._visible
        return list(rows) if v is None else [r for r in rows if r.doc.doc_id in v]

    def set_visible(self, ids: set[int] | None) -> None:
        """Show only these documents (None: all of them)."""
        if ids == self._visible:
            return
        self.beginResetModel()
        self._visible = None if ids is None else set(ids)
        self._rows = self._shown(self._all)
        self._where = None
        self.endResetModel()

    def ids_matching(self, needles: list[str]) -> set[int]:
        """Documents whose title, authors or year hold every (casefolded) needle."""
        return {r.doc.doc_id for r in self._all if all(n in r.haystack for n in needles)}

    def visible_ids(self) -> set[int] | None:
        return None if self._visible is None else set(self._visible)

    def is_showing(self, ids: set[int] | None) -> bool:
        """Whether exactly these documents are shown already (no copy of the set)."""
        return ids == self._visible

    def total(self) -> int:
        """Documents held, shown or not."""
        return len(self._all)

    def failed_count(self) -> int:
        return self._failed

    def to_check_count(self) -> int:
        """Ready documents held whose metadata is flagged "check"."""
        return self._to_check

    # --- sorting ------------------------------------------------------------------------------
    # Sorting happens here, on precomputed keys with list.sort, rather than in the proxy: the
    # proxy's C++ sort would call back into Python data() ~2·n·log n times (a second for 5,000
    # rows); list.sort takes milliseconds.

    def _sort_rows(self, rows: list[_Row]) -> None:
        sort_rows(rows, (self._sort_column, self._sort_order), self._hits)

    def sort_state(self) -> SortState:
        """(column, order) the rows are sorted by; column -1: by document id."""
        return self._sort_column, self._sort_order

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self._sort_column, self._sort_order = column, order
        self.layoutAboutToBeChanged.emit()
        old = self.persistentIndexList()
        old_ids = [self._rows[i.row()].doc.doc_id if 0 <= i.row() < len(self._rows) else -1 for i in old]
        self._sort_rows(self._all)
        self._rows = self._shown(self._all)
        self._where = None
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
        return [r.doc for r in self._all]

    def document_at(self, row: int) -> DocumentInfo:
        return self._rows[row].doc

    def row_of(self, doc_id: int) -> int:
        if self._where is None:
            self._where = {r.doc.doc_id: n for n, r in enumerate(self._rows)}
        return self._where.get(doc_id, -1)

    def haystack(self, row: int) -> str:
        return self._rows[row].haystack

    def doc_id_at(self, row: int) -> int:
        return self._rows[row].doc.doc_id

    def set_hits(self, hits: dict[int, int], snippets: dict[int, str]) -> None:
        """The full-text filter's counts per document (an empty dict leaves that mode)."""
        self._hits, self._snippets = dict(hits), dict(snippets)
        if self._rows:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._rows) - 1, len(HEADERS) - 1))

    def hits(self) -> dict[int, int]:
        return dict(self._hits)

    def _tag_icon(self, colors: tuple[str, ...]) -> QIcon:
        icon = self._icons.get(colors)
        if icon is None:
            size = 10
            pix = QPixmap(size * min(len(colors), 4) + 2, size + 2)
            pix.fill(Qt.GlobalColor.transparent)
            painter = QPainter(pix)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            for i, c in enumerate(colors[:4]):
                painter.setBrush(QColor(c))
                painter.setPen(Qt.PenStyle.NoPen)
                painter.drawEllipse(1 + i * size, 1, size - 1, size - 1)
            painter.end()
            icon = self._icons[colors] = QIcon(pix)
        return icon

    def needs_check(self, row: int) -> bool:
        return bool(getattr(self._rows[row].doc, "check_metadata", False))

    def flagged_ids(self) -> set[int]:
        """The documents flagged "check metadata"."""
        return {r.doc.doc_id for r in self._rows if getattr(r.doc, "check_metadata", False)}

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
        if col == Column.HITS:
            n = self._hits.get(r.doc.doc_id)
            if role == Qt.ItemDataRole.DisplayRole:
                return str(n) if n else ""
            if role == SORT_ROLE:
                return n or 0
        if role == Qt.ItemDataRole.DisplayRole:
            return r.cells[col]
        if role == SORT_ROLE:
            return r.sort_keys[col]
        if role == DOC_ID_ROLE:
            return r.doc.doc_id
        if role == Qt.ItemDataRole.DecorationRole and col == Column.MARKS and r.tag_colors:
            return self._tag_icon(r.tag_colors)
        if role == Qt.ItemDataRole.ToolTipRole:
            snippet = self._snippets.get(r.doc.doc_id)
            if snippet is None and self._hits and r.doc.doc_id in self._hits and self.snippet_provider is not None:
                # Only the best documents' snippets come with the search; the rest on hover.
                snippet = self._snippets[r.doc.doc_id] = self.snippet_provider(r.doc.doc_id)
            if snippet and self._hits:
                n = self._hits.get(r.doc.doc_id, 0)
                head = tr("{n} matching passage(s)").format(n=n)
                return f"{head}\n\n{snippet.replace('**', '')}"
            if col == Column.MARKS and r.marks_tip:
                return r.marks_tip
            if col == Column.AUTHORS and r.doc.authors:
                return "\n".join(r.doc.authors)
            return r.tooltip
        if role == Qt.ItemDataRole.ForegroundRole and r.failed:
            return warning_colour(QGuiApplication.palette())
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = (
                Qt.AlignmentFlag.AlignRight
                if col in (Column.YEAR, Column.PAGES, Column.HITS)
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
            return tr(HEADERS[section], "library column") if 0 <= section < len(HEADERS) else None
        return section + 1

    def flags(self, index: AnyIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return _ROW_FLAGS

    def mimeTypes(self) -> list[str]:
        return [DOC_IDS_MIME]

    def mimeData(self, indexes: list[QModelIndex]) -> QMimeData:  # type: ignore[override]
        """The dragged rows' document ids (dropped onto a collection in the sources pane)."""
        rows = sorted({i.row() for i in indexes if i.isValid()})
        ids = [self._rows[r].doc.doc_id for r in rows if 0 <= r < len(self._rows)]
        mime = new_mime_data()
        mime.setData(DOC_IDS_MIME, QByteArray(json.dumps(ids).encode()))
        return mime

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction | Qt.DropAction.LinkAction


class DocumentFilterProxy(QSortFilterProxyModel):
    """The view's model: filtering and sorting are delegated to the source model (its visible
    rows and its sort), so neither calls back into Python per row."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._needles: list[str] = []
        # The ids the library pane's filter (fields, source view, full text) lets through;
        # None: all. Computed once per change in core, so a row costs one set lookup.
        self._accepted: set[int] | None = None
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
        self._needles = needles
        self._filter_by_needles()

    def filter_text(self) -> str:
        return " ".join(self._needles)

    def set_accepted(self, ids: set[int] | None) -> None:
        """Show only these documents (None: every one); replaces the typed-words filter. The
        source model hides the others (see DocumentTableModel.set_visible)."""
        self._accepted, self._needles = ids, []
        self._show(ids)

    def _show(self, ids: set[int] | None) -> None:
        model = self.sourceModel()
        if not isinstance(model, DocumentTableModel):
            return
        if self._needs_checking:
            flagged = model.flagged_ids()
            ids = flagged if ids is None else ids & flagged
        model.set_visible(ids)

    def set_needs_checking(self, on: bool) -> None:
        """Show only the documents flagged "check metadata" (on top of the other filters)."""
        if on == self._needs_checking:
            return
        self._needs_checking = on
        model = self.sourceModel()
        if self._needles and isinstance(model, DocumentTableModel):
            self._show(model.ids_matching(self._needles))
        else:
            self._show(self._accepted)

    def needs_checking(self) -> bool:
        return self._needs_checking

    def _filter_by_needles(self) -> None:
        model = self.sourceModel()
        if not isinstance(model, DocumentTableModel):
            return
        self._show(model.ids_matching(self._needles) if self._needles else None)

