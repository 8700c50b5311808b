"""The metadata editor: every CSL field of one document, online lookup by DOI / arXiv id, and a
live preview of the reference in the user's citation style.

The dialog edits a copy of the document's ``CslItem`` (fields it does not show, such as CSL
variables imported from a ``.bib`` file, are kept) and saves it with ``Session.save_metadata``.
Lookups run in a ``WorkerThread``; they only fill fields that are still empty, and nothing is
stored until the user presses Save.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from ..core.api import (
    ITEM_TYPES,
    CslItem,
    CslName,
    Library,
    bare_arxiv,
    bare_doi,
    bibliography,
    get_style,
    is_arxiv_id,
    is_doi,
)
from ..core.app import Session, lookup_identifier
from .i18n import language, tr
from .theme import error_colour, ok_colour
from .workers import FunctionWorker, WorkerThread, adopt_lingering_thread, wait_lingering_threads

MAX_YEAR = 2200
PREVIEW_DELAY_MS = 120  # typing fast re-renders once, not once per key

TYPE_LABELS: dict[str, str] = {
    "article-journal": "Journal article",
    "paper-conference": "Conference paper",
    "book": "Book",
    "chapter": "Book chapter",
    "thesis": "Thesis",
    "report": "Report",
    "webpage": "Web page",
    "article": "Preprint",
    "patent": "Patent",
    "standard": "Standard",
    "dataset": "Dataset",
    "article-newspaper": "Newspaper article",
    "article-magazine": "Magazine article",
    "manuscript": "Manuscript",
    "software": "Software",
    "legislation": "Legislation",
    "entry-encyclopedia": "Encyclopedia entry",
    "entry-dictionary": "Dictionary entry",
}

# What the container is called for each type: people look for "Journal", not "Container title".
CONTAINER_LABELS: dict[str, str] = {
    "article-journal": "Journal",
    "paper-conference": "Proceedings",
    "chapter": "Book",
    "webpage": "Website",
    "article-newspaper": "Newspaper",
    "article-magazine": "Magazine",
    "entry-encyclopedia": "Encyclopedia",
    "entry-dictionary": "Dictionary",
    "article": "Repository",
}
PUBLISHER_LABELS: dict[str, str] = {"thesis": "University", "report": "Institution"}

# The single-line text fields: CslItem attribute → label. The order is the tab order.
TEXT_FIELDS: tuple[tuple[str, str], ...] = (
    ("title", "Title"),
    ("container_title", "Container title"),
    ("collection_title", "Series"),
    ("volume", "Volume"),
    ("issue", "Issue"),
    ("page", "Pages"),
    ("number", "Number"),
    ("edition", "Edition"),
    ("publisher", "Publisher"),
    ("publisher_place", "Place"),
    ("event_title", "Event"),
    ("genre", "Genre"),
    ("DOI", "DOI"),
    ("arxiv", "arXiv ID"),
    ("URL", "URL"),
    ("ISBN", "ISBN"),
    ("ISSN", "ISSN"),
    ("note", "Note"),
)
# CSL locales, which is what the styles read ("zh-CN" → 等 and Chinese punctuation in GB/T).
LANGUAGES: tuple[str, ...] = (
    "",
    "en-US",
    "en-GB",
    "zh-CN",
    "zh-TW",
    "de-DE",
    "fr-FR",
    "es-ES",
    "ja-JP",
    "ko-KR",
    "ru-RU",
)

_ISO_DATE = re.compile(r"^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?$")


@dataclass
class LookupEndpoints:
    """Where lookups go. ``None`` means the lookup module's own default (the real services);
    tests point these at a fake server on 127.0.0.1."""

    crossref_url: str | None = None
    arxiv_url: str | None = None
    timeout: float = 10.0


LOOKUP = LookupEndpoints()


def date_parts(value: dict[str, Any] | None) -> list[int]:
    """``[year, month, day]`` (as many as known) from a CSL date, or [] when it has none."""
    try:
        raw = (value or {}).get("date-parts") or []
        return [int(p) for p in raw[0] if str(p).strip()][:3] if raw else []
    except (TypeError, ValueError, IndexError):
        return []


# --- background lookup ---------------------------------------------------------------------------


def lookup(kind: str, key: str, endpoints: LookupEndpoints) -> CslItem:
    """One DOI (Crossref) or arXiv lookup; runs in a FunctionWorker, off the GUI thread.

    Raises LookupFailed with a plain sentence for the user.
    """
    return lookup_identifier(
        kind, key, crossref_url=endpoints.crossref_url, arxiv_url=endpoints.arxiv_url, timeout=endpoints.timeout
    )


def stop_lookups(timeout_ms: int | None = None) -> None:
    """Wait for lookups that outlived their dialog (called when the main window shuts down)."""
    wait_lingering_threads(timeout_ms if timeout_ms is not None else int(LOOKUP.timeout * 1000) + 2000)


# --- the name list -------------------------------------------------------------------------------


class NameListEditor(QWidget):
    """A small table of people: family / given name, or one literal name (张伯伟, a group)."""

    changed = Signal()

    FAMILY, GIVEN, LITERAL = 0, 1, 2

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table = QTableWidget(0, 3, self)
        literal = QTableWidgetItem(tr("Full name (literal)"))
        literal.setToolTip(
            tr("For names that are not split into family and given name, such as 张伯伟 or an organisation.")
        )
        self.table.setHorizontalHeaderItem(self.FAMILY, QTableWidgetItem(tr("Family name")))
        self.table.setHorizontalHeaderItem(self.GIVEN, QTableWidgetItem(tr("Given name")))
        self.table.setHorizontalHeaderItem(self.LITERAL, literal)
        self.table.verticalHeader().setVisible(True)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().lineSpacing() + 10)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.setTabKeyNavigation(True)
        self.add_button = QPushButton(tr("Add"), self)
        self.remove_button = QPushButton(tr("Remove"), self)
        self.up_button = QPushButton(tr("Move Up"), self)
        self.down_button = QPushButton(tr("Move Down"), self)
        for b in (self.add_button, self.remove_button, self.up_button, self.down_button):
            b.setAutoDefault(False)
        buttons = QVBoxLayout()
        buttons.setSpacing(4)
        for b in (self.add_button, self.remove_button, self.up_button, self.down_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.table, 1)
        lay.addLayout(buttons)

        self.add_button.clicked.connect(self.on_add_button_clicked)
        self.remove_button.clicked.connect(self.on_remove_button_clicked)
        self.up_button.clicked.connect(self.on_up_button_clicked)
        self.down_button.clicked.connect(self.on_down_button_clicked)
        self.table.itemChanged.connect(self.on_table_item_changed)
        self.table.itemSelectionChanged.connect(self.on_table_item_selection_changed)
        self._update_buttons()

    # --- values ---------------------------------------------------------------------------------

    def set_names(self, names: Sequence[CslName]) -> None:
        self.table.blockSignals(True)
        try:
            self.table.setRowCount(0)
            for n in names:
                self._append_row(n.family, n.given, n.literal)
        finally:
            self.table.blockSignals(False)
        self._update_buttons()
        self.changed.emit()

    def names(self) -> list[CslName]:
        """The rows as names, empty rows left out; a literal name wins over family / given."""
        out = []
        for row in range(self.table.rowCount()):
            family, given, literal = (self._text(row, c) for c in (self.FAMILY, self.GIVEN, self.LITERAL))
            if literal:
                out.append(CslName(literal=literal))
            elif family or given:
                out.append(CslName(family=family, given=given))
        return out

    def add_name(self, family: str = "", given: str = "", literal: str = "") -> int:
        """Append a row (the Add button, and tests); returns its index."""
        self.table.blockSignals(True)
        try:
            row = self._append_row(family, given, literal)
        finally:
            self.table.blockSignals(False)
        self.table.selectRow(row)
        self._update_buttons()
        self.changed.emit()
        return row

    def move_row(self, row: int, delta: int) -> None:
        target = row + delta
        if not (0 <= row < self.table.rowCount() and 0 <= target < self.table.rowCount()):
            return
        self.table.blockSignals(True)
        try:
            for col in range(self.table.columnCount()):
                a, b = self.table.takeItem(row, col), self.table.takeItem(target, col)
                self.table.setItem(row, col, b)
                self.table.setItem(target, col, a)
        finally:
            self.table.blockSignals(False)
        self.table.selectRow(target)
        self.changed.emit()

    def remove_row(self, row: int) -> None:
        if 0 <= row < self.table.rowCount():
            self.table.removeRow(row)
            self._update_buttons()
            self.changed.emit()

    # --- slots ----------------------------------------------------------------------------------

    @Slot()
    def on_add_button_clicked(self) -> None:
        row = self.add_name()
        self.table.setFocus()
        cell = self.table.item(row, self.FAMILY)
        if cell is not None:
            self.table.editItem(cell)

    @Slot()
    def on_remove_button_clicked(self) -> None:
        self.remove_row(self.table.currentRow())

    @Slot()
    def on_up_button_clicked(self) -> None:
        self.move_row(self.table.currentRow(), -1)

    @Slot()
    def on_down_button_clicked(self) -> None:
        self.move_row(self.table.currentRow(), +1)

    @Slot(QTableWidgetItem)
    def on_table_item_changed(self, item: QTableWidgetItem) -> None:
        self.changed.emit()

    @Slot()
    def on_table_item_selection_changed(self) -> None:
        self._update_buttons()

    # --- internals ------------------------------------------------------------------------------

    def _append_row(self, family: str, given: str, literal: str) -> int:
        row = self.table.rowCount()
        self.table.insertRow(row)
        for col, text in ((self.FAMILY, family), (self.GIVEN, given), (self.LITERAL, literal)):
            self.table.setItem(row, col, QTableWidgetItem(text))
        return row

    def _text(self, row: int, col: int) -> str:
        item = self.table.item(row, col)
        return " ".join(item.text().split()) if item is not None else ""

    def _update_buttons(self) -> None:
        row = self.table.currentRow()
        has = 0 <= row < self.table.rowCount() and bool(self.table.selectedItems())
        self.remove_button.setEnabled(has)
        self.up_button.setEnabled(has and row > 0)
        self.down_button.setEnabled(has and row < self.table.rowCount() - 1)


# --- the dialog ----------------------------------------------------------------------------------


# How the editor names a metadata source (core.extract.metadata.merge lists them).
SOURCE_LABELS = {
    "user": "you", "bibliography": "imported bibliography", "online": "online record", "xmp": "PDF XMP",
    "layout": "page 1 layout", "ocr": "OCR of the scanned page", "masthead": "masthead", "arxiv": "arXiv stamp",
    "page": "page (weak)", "info": "PDF Info (weak)", "text": "first heading", "filename": "file name (weak)",
}  # fmt: skip
FIELD_LABELS = {
    "title": "title", "authors": "authors", "year": "year", "container_title": "journal", "volume": "volume",
    "issue": "issue", "pages": "pages", "doi": "DOI", "arxiv_id": "arXiv",
}  # fmt: skip


class MetadataDialog(QDialog):
    """Edit all bibliographic fields of one document; Save writes them with ``Session.save_metadata``
    (which also lets Ctrl+Z put the old ones back)."""

    lookup_done = Signal(bool, str)  # ok, the message shown (for tests and status bars)

    def __init__(
        self,
        library: Library,
        doc_id: int,
        parent: QWidget | None = None,
        *,
        style: str = "apa",
        endpoints: LookupEndpoints | None = None,
        session: Session | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("metadataDialog")
        self.setWindowTitle(tr("Edit Metadata"))
        self.library = library
        # The application layer: the save (with its undo entry) goes through it.
        self.session = session if session is not None else Session(paths=library.paths, library=library)
        self.doc_id = doc_id
        self.style_name = style
        self.endpoints = endpoints or LOOKUP
        self._item = self.session.metadata_item(doc_id)
        self._lookup_thread: WorkerThread | None = None
        self._lookup_worker: FunctionWorker | None = None
        self._save_thread: WorkerThread | None = None
        self._lookup_source = ""
        self.filled_fields: list[str] = []  # labels of the fields the last lookup filled

        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(PREVIEW_DELAY_MS)

        self._build()
        self._load(self._item)
        self._wire()
        self.update_preview()

    # --- construction ---------------------------------------------------------------------------

    def _build(self) -> None:
        self.edits: dict[str, QLineEdit] = {}
        for key, _label in TEXT_FIELDS:
            edit = QLineEdit(self)
            edit.setObjectName(f"{key}Edit")
            self.edits[key] = edit
        self.title_edit = self.edits["title"]
        self.doi_edit = self.edits["DOI"]
        self.doi_edit.setPlaceholderText("10.xxxx/…")
        self.arxiv_edit = self.edits["arxiv"]
        self.arxiv_edit.setPlaceholderText("2101.00001")
        self.edits["page"].setPlaceholderText("123–145")
        self.edits["URL"].setPlaceholderText("https://…")
        self.edits["genre"].setPlaceholderText(tr("e.g. PhD thesis"))

        self.type_combo = QComboBox(self)
        self.type_combo.setObjectName("typeCombo")
        for t in ITEM_TYPES:
            self.type_combo.addItem(tr(TYPE_LABELS.get(t, t)), t)

        self.authors = NameListEditor(self)
        self.editors = NameListEditor(self)
        self.names_tabs = QTabWidget(self)
        self.names_tabs.addTab(self.authors, tr("Authors"))
        self.names_tabs.addTab(self.editors, tr("Editors"))
        self.names_tabs.setMinimumHeight(self.fontMetrics().lineSpacing() * 9)

        self.year_spin = self._date_spin(MAX_YEAR, tr("Year"))
        self.month_spin = self._date_spin(12, tr("Month"))
        self.day_spin = self._date_spin(31, tr("Day"))
        self.language_combo = QComboBox(self)
        self.language_combo.setEditable(True)
        self.language_combo.addItems(list(LANGUAGES))
        self.language_combo.setToolTip(tr("en-US, zh-CN … — decides “et al.” or “等” in GB/T 7714."))
        self.accessed_edit = QLineEdit(self)
        self.accessed_edit.setPlaceholderText("YYYY-MM-DD")
        self.today_button = QPushButton(tr("Today"), self)
        self.today_button.setAutoDefault(False)
        self.abstract_edit = QPlainTextEdit(self)
        self.abstract_edit.setTabChangesFocus(True)
        self.abstract_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)

        self.doi_button = QPushButton(tr("Look up DOI"), self)
        self.arxiv_button = QPushButton(tr("Look up arXiv"), self)
        for b in (self.doi_button, self.arxiv_button):
            b.setAutoDefault(False)
        self.lookup_spinner = QProgressBar(self)
        self.lookup_spinner.setRange(0, 0)  # busy indicator
        self.lookup_spinner.setTextVisible(False)
        self.lookup_spinner.setFixedSize(60, 8)
        self.lookup_spinner.setVisible(False)
        self.lookup_label = QLabel(self)
        self.lookup_label.setWordWrap(True)
        self.lookup_label.setTextFormat(Qt.TextFormat.PlainText)

        self.preview_label = QLabel(self)
        self.preview_label.setObjectName("previewLabel")
        self.preview_label.setWordWrap(True)
        self.preview_label.setTextFormat(Qt.TextFormat.RichText)
        self.preview_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_label = QLabel(self)
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(f"color: {error_colour()};")
        self.error_label.setVisible(False)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        # Where each value came from (a value you save here becomes "you").
        self.sources_label = QLabel(self)
        self.sources_label.setObjectName("sourcesLabel")
        self.sources_label.setWordWrap(True)
        self.sources_label.setTextFormat(Qt.TextFormat.PlainText)

        # Left: what the reference says. Right: identifiers (with lookup) and the rest.
        left = QFormLayout()
        left.addRow(tr("&Type:"), self.type_combo)
        left.addRow(tr("T&itle:"), self.title_edit)
        left.addRow(self.names_tabs)
        self.container_label = QLabel(self)
        left.addRow(self.container_label, self.edits["container_title"])
        left.addRow(tr("Volume / issue:"), self._row(self.edits["volume"], QLabel("/"), self.edits["issue"]))
        left.addRow(tr("Pages:"), self.edits["page"])
        left.addRow(tr("Date (Y / M / D):"), self._row(self.year_spin, self.month_spin, self.day_spin))
        self.publisher_label = QLabel(self)
        left.addRow(self.publisher_label, self.edits["publisher"])
        left.addRow(tr("Place:"), self.edits["publisher_place"])
        left.addRow(tr("Edition:"), self.edits["edition"])
        left.addRow(tr("Series:"), self.edits["collection_title"])

        right = QFormLayout()
        right.addRow(tr("&DOI:"), self._row(self.doi_edit, self.doi_button))
        right.addRow(tr("&arXiv ID:"), self._row(self.arxiv_edit, self.arxiv_button))
        right.addRow("", self._row(self.lookup_spinner, self.lookup_label))
        right.addRow(tr("URL:"), self.edits["URL"])
        right.addRow(tr("ISBN:"), self.edits["ISBN"])
        right.addRow(tr("ISSN:"), self.edits["ISSN"])
        right.addRow(tr("Number:"), self.edits["number"])
        right.addRow(tr("Genre:"), self.edits["genre"])
        right.addRow(tr("Event:"), self.edits["event_title"])
        right.addRow(tr("Language:"), self.language_combo)
        right.addRow(tr("Accessed:"), self._row(self.accessed_edit, self.today_button))
        right.addRow(tr("Note:"), self.edits["note"])

        columns = QGridLayout()
        columns.setHorizontalSpacing(18)
        columns.addLayout(left, 0, 0)
        columns.addLayout(right, 0, 1, Qt.AlignmentFlag.AlignTop)
        columns.setColumnStretch(0, 3)
        columns.setColumnStretch(1, 2)

        abstract = QFormLayout()
        abstract.addRow(tr("Abstract:"), self.abstract_edit)

        preview_box = QGroupBox(self)
        self.preview_box = preview_box
        pl = QVBoxLayout(preview_box)
        pl.addWidget(self.preview_label)

        lay = QVBoxLayout(self)
        lay.addLayout(columns)
        lay.addLayout(abstract)
        lay.addWidget(preview_box)
        lay.addWidget(self.sources_label)
        lay.addWidget(self.error_label)
        lay.addWidget(self.buttons)
        self.resize(960, 640)
        self._show_sources()

    def _show_sources(self) -> None:
        """Say per field where its value came from, in the label and in each editor's tooltip."""
        doc = self.library.document(self.doc_id)
        sources = doc.metadata_sources if doc is not None else {}
        widgets: dict[str, QWidget] = {
            "title": self.title_edit, "authors": self.authors, "year": self.year_spin,
            "container_title": self.edits["container_title"], "volume": self.edits["volume"],
            "issue": self.edits["issue"], "pages": self.edits["page"], "doi": self.doi_edit,
            "arxiv_id": self.arxiv_edit,
        }  # fmt: skip
        self.field_sources: dict[str, str] = {}
        parts = []
        for field, widget in widgets.items():
            src = sources.get(field)
            if src is None:
                continue
            label = tr(SOURCE_LABELS.get(src, src))
            self.field_sources[field] = label
            widget.setToolTip(tr("From: {source}").format(source=label))
            parts.append(f"{tr(FIELD_LABELS.get(field, field))}: {label}")
        if not parts:
            self.sources_label.setText(tr("Sources: not recorded (imported before PaperPilot kept track)."))
            return
        conf = doc.metadata_confidence if doc is not None else None
        head = tr("Sources") + (tr(" (confidence {conf})").format(conf=f"{conf:.2f}") if conf is not None else "")
        if doc is not None and doc.check_metadata:
            head = "⚑ " + tr("Please check.") + " " + head
        self.sources_label.setText(head + " — " + "; ".join(parts))

    def _date_spin(self, maximum: int, tip: str) -> QSpinBox:
        spin = QSpinBox(self)
        spin.setRange(0, maximum)
        spin.setSpecialValueText("—")  # 0 shows as "not known"
        spin.setToolTip(tip)
        return spin

    def _row(self, *widgets: QWidget) -> QWidget:
        """Widgets side by side; editors share the width, labels and buttons keep their size."""
        box = QWidget(self)
        lay = QHBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        for w in widgets:
            fixed = isinstance(w, QPushButton | QProgressBar) or (isinstance(w, QLabel) and not w.wordWrap())
            lay.addWidget(w, 0 if fixed else 1)
        return box

    def _wire(self) -> None:
        for edit in self.edits.values():
            edit.textChanged.connect(self.on_field_changed)
        self.abstract_edit.textChanged.connect(self.on_field_changed)
        self.accessed_edit.textChanged.connect(self.on_field_changed)
        self.language_combo.currentTextChanged.connect(self.on_field_changed)
        for spin in (self.year_spin, self.month_spin, self.day_spin):
            spin.valueChanged.connect(self.on_field_changed)
        self.authors.changed.connect(self.on_field_changed)
        self.editors.changed.connect(self.on_field_changed)
        self.type_combo.currentIndexChanged.connect(self.on_type_combo_changed)
        self.doi_edit.textChanged.connect(self.on_identifier_changed)
        self.arxiv_edit.textChanged.connect(self.on_identifier_changed)
        self.doi_button.clicked.connect(self.on_doi_button_clicked)
        self.arxiv_button.clicked.connect(self.on_arxiv_button_clicked)
        self.today_button.clicked.connect(self.on_today_button_clicked)
        self._preview_timer.timeout.connect(self.update_preview)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.on_identifier_changed()
        self.on_type_combo_changed()

    # --- item ↔ fields --------------------------------------------------------------------------

    def _load(self, item: CslItem) -> None:
        for key, edit in self.edits.items():
            edit.setText(str(getattr(item, key, "") or ""))
        self.set_type(item.type)
        self.authors.set_names(item.author)
        self.editors.set_names(item.editor)
        self._set_date(date_parts(item.issued))
        self.language_combo.setCurrentText(item.language)
        acc = date_parts(item.accessed)
        self.accessed_edit.setText("-".join(f"{p:02d}" if i else f"{p:04d}" for i, p in enumerate(acc)))
        self.abstract_edit.setPlainText(item.abstract)
        self._update_name_tabs()

    def set_type(self, csl_type: str) -> None:
        i = self.type_combo.findData(csl_type)
        if i < 0:
            # A type we do not offer (from an imported file) stays selectable, so Save keeps it.
            self.type_combo.addItem(csl_type, csl_type)
            i = self.type_combo.count() - 1
        self.type_combo.setCurrentIndex(i)

    def _set_date(self, parts: Sequence[int]) -> None:
        for spin, value in zip(
            (self.year_spin, self.month_spin, self.day_spin), [*parts, 0, 0, 0], strict=False
        ):
            spin.setValue(value if 0 <= value <= spin.maximum() else 0)

    def current_type(self) -> str:
        return str(self.type_combo.currentData())

    def item(self) -> CslItem:
        """The item as the fields describe it now (not validated; see ``validate``)."""
        updates: dict[str, Any] = {key: " ".join(edit.text().split()) for key, edit in self.edits.items()}
        updates["DOI"] = bare_doi(updates["DOI"])
        updates["arxiv"] = bare_arxiv(updates["arxiv"])
        updates["type"] = self.current_type()
        updates["author"] = self.authors.names()
        updates["editor"] = self.editors.names()
        updates["language"] = self.language_combo.currentText().strip()
        updates["abstract"] = self.abstract_edit.toPlainText().strip()
        updates["issued"] = self._issued()
        updates["accessed"] = self._accessed()
        return self._item.model_copy(update=updates, deep=True)

    def _issued(self) -> dict[str, Any] | None:
        parts = [self.year_spin.value(), self.month_spin.value(), self.day_spin.value()]
        if not parts[0]:
            parts = []
        elif not parts[1]:
            parts = parts[:1]  # a day without a month means nothing
        elif not parts[2]:
            parts = parts[:2]
        if parts == date_parts(self._item.issued):
            # Unchanged: keep the original, which may carry "literal", "season" or "circa".
            return self._item.issued
        return {"date-parts": [parts]} if parts else None

    def _accessed(self) -> dict[str, Any] | None:
        text = self.accessed_edit.text().strip()
        if not text and not date_parts(self._item.accessed):
            # Nothing shown because the stored date is not Y-M-D parts ("raw"): keep it.
            return self._item.accessed
        m = _ISO_DATE.match(text)
        if not m:
            return None  # cleared, or not a date yet (Save refuses it; see validate)
        parts = [int(p) for p in m.groups() if p]
        if parts == date_parts(self._item.accessed):
            return self._item.accessed
        return {"date-parts": [parts]}

    def validate(self) -> str:
        """The first problem that stops Save, as a sentence; "" when the fields are fine."""
        if not self.title_edit.text().strip():
            return tr("The title cannot be empty.")
        doi = bare_doi(self.doi_edit.text())
        if doi and not is_doi(doi):
            return tr("{doi} does not look like a DOI (10.xxxx/…).").format(doi=doi)
        arxiv = bare_arxiv(self.arxiv_edit.text())
        if arxiv and not is_arxiv_id(arxiv):
            return tr("{id} does not look like an arXiv ID (such as 1706.03762).").format(id=arxiv)
        acc = self.accessed_edit.text().strip()
        if acc:
            m = _ISO_DATE.match(acc)
            if not m:
                return tr("Write the access date as YYYY-MM-DD.")
            _y, mo, d = (int(p) if p else 0 for p in m.groups())
            if not (1 <= (mo or 1) <= 12 and 1 <= (d or 1) <= 31):
                return tr("Write the access date as YYYY-MM-DD.")
        return ""

    # --- save -----------------------------------------------------------------------------------

    def accept(self) -> None:
        problem = self.validate()
        if problem:
            # Keep the dialog open with the user's input rather than losing it to an error box.
            self._show_error(problem)
            return
        if self._save_thread is not None:
            return
        # A write: in a worker, because another process may hold the writer lock for a while.
        worker = FunctionWorker(self.session.save_metadata, self.doc_id, self.item(), doing="Saving")
        worker.finished.connect(self.on_save_worker_finished)
        worker.failed.connect(self.on_save_worker_failed)
        self._save_thread = WorkerThread(worker, self)
        self.buttons.setEnabled(False)
        self.error_label.setVisible(False)
        self.lookup_label.setStyleSheet("")
        self.lookup_label.setText(tr("Saving…"))
        self._save_thread.start()

    def is_saving(self) -> bool:
        return self._save_thread is not None

    def _save_done(self) -> None:
        if self._save_thread is not None:
            self._save_thread.finish()
            self._save_thread = None
        self.buttons.setEnabled(True)
        self.lookup_label.setText("")

    @Slot(object)
    def on_save_worker_finished(self, _doc: object) -> None:
        self._save_done()
        self._stop_lookup()
        super().accept()

    @Slot(str)
    def on_save_worker_failed(self, message: str) -> None:
        self._save_done()
        self._show_error(message)

    def reject(self) -> None:
        if self._save_thread is not None:
            return  # the save ends (or fails) in a moment: the dialog then closes or says why
        self._stop_lookup()
        super().reject()

    def done(self, result: int) -> None:
        self._stop_lookup()
        super().done(result)

    def _show_error(self, message: str) -> None:
        self.error_label.setText(message)
        self.error_label.setVisible(True)

    # --- preview --------------------------------------------------------------------------------

    @Slot()
    def update_preview(self) -> None:
        """Render the reference and its in-text marker in the chosen style from the fields."""
        self._preview_timer.stop()
        try:
            style = get_style(self.style_name)
            item = self.item()
            entry = bibliography([item], self.style_name)[0]
            marker = style.in_text([item], [1])
        except Exception as e:  # the preview must never take the editor down with it
            self.preview_box.setTitle(tr("Preview"))
            self.preview_label.setText(
                f"<span style='color:{error_colour()}'>"
                + _escape(tr("No preview: {reason}").format(reason=f"{type(e).__name__}: {e}"))
                + "</span>"
            )
            return
        self.preview_box.setTitle(tr("Preview — {style}").format(style=tr(style.label)))
        self.preview_label.setText(
            f"{entry.html}<br><span>{_escape(tr('In text:'))} {_escape(marker)}</span>"
        )

    def preview_text(self) -> str:
        return self.preview_label.text()

    # --- slots ----------------------------------------------------------------------------------

    @Slot()
    def on_field_changed(self) -> None:
        self.error_label.setVisible(False)
        self._preview_timer.start()
        self._update_name_tabs()

    @Slot()
    def on_type_combo_changed(self) -> None:
        t = self.current_type()
        self.container_label.setText(_label(CONTAINER_LABELS.get(t, "Container title")))
        self.publisher_label.setText(_label(PUBLISHER_LABELS.get(t, "Publisher")))
        self.on_field_changed()

    @Slot()
    def on_identifier_changed(self) -> None:
        busy = self._lookup_thread is not None
        self.doi_button.setEnabled(not busy and bool(self.doi_edit.text().strip()))
        self.arxiv_button.setEnabled(not busy and bool(self.arxiv_edit.text().strip()))

    @Slot()
    def on_today_button_clicked(self) -> None:
        self.accessed_edit.setText(date.today().isoformat())

    @Slot()
    def on_doi_button_clicked(self) -> None:
        doi = bare_doi(self.doi_edit.text())
        if not is_doi(doi):
            self._set_lookup_message(False, tr("{doi} does not look like a DOI (10.xxxx/…).").format(doi=doi))
            return
        self.start_lookup("doi", doi)

    @Slot()
    def on_arxiv_button_clicked(self) -> None:
        arxiv = bare_arxiv(self.arxiv_edit.text())
        if not is_arxiv_id(arxiv):
            self._set_lookup_message(
                False, tr("{id} does not look like an arXiv ID (such as 1706.03762).").format(id=arxiv)
            )
            return
        self.start_lookup("arxiv", arxiv)

    @Slot(object)
    def on_lookup_worker_finished(self, found: CslItem) -> None:
        self._finish_lookup_thread()
        filled = self.fill_empty(found)
        self.filled_fields = filled
        if filled:
            message = tr("Filled from {source}: {fields}. Press Save to keep them.").format(
                source=self._lookup_source, fields=tr(", ").join(filled)
            )
        else:
            message = tr("{source} knows nothing that is not already filled in.").format(
                source=self._lookup_source
            )
        self._set_lookup_message(True, message)
        self.lookup_done.emit(True, message)

    @Slot(str)
    def on_lookup_worker_failed(self, message: str) -> None:
        self._finish_lookup_thread()
        self.filled_fields = []
        self._set_lookup_message(False, message)
        self.lookup_done.emit(False, message)

    # --- lookup ---------------------------------------------------------------------------------

    def is_looking_up(self) -> bool:
        return self._lookup_thread is not None

    def start_lookup(self, kind: str, key: str) -> None:
        if self._lookup_thread is not None:
            return
        worker = FunctionWorker(lookup, kind, key, self.endpoints, doing="The lookup")
        worker.finished.connect(self.on_lookup_worker_finished)
        worker.failed.connect(self.on_lookup_worker_failed)
        self._lookup_worker = worker
        self._lookup_source = "Crossref" if kind == "doi" else "arXiv"
        self._lookup_thread = WorkerThread(worker, self)
        self.lookup_spinner.setVisible(True)
        self.lookup_label.setStyleSheet("")
        self.lookup_label.setText(tr("Looking up…"))
        self.on_identifier_changed()
        self._lookup_thread.start()

    def fill_empty(self, found: CslItem) -> list[str]:
        """Copy the looked-up values into the fields that are empty; returns their labels."""
        filled: list[str] = []
        container_was_empty = not self.edits["container_title"].text().strip()
        for key, label in TEXT_FIELDS:
            edit = self.edits[key]
            value = str(getattr(found, key, "") or "").strip()
            if value and not edit.text().strip():
                edit.setText(value)
                filled.append(self._field_label(key, label, found.type))
        if found.author and not self.authors.names():
            self.authors.set_names(found.author)
            filled.append(tr("Authors"))
        if found.editor and not self.editors.names():
            self.editors.set_names(found.editor)
            filled.append(tr("Editors"))
        parts = date_parts(found.issued)
        if parts and not self.year_spin.value():
            self._set_date(parts)
            filled.append(tr("Date"))
        if found.language and not self.language_combo.currentText().strip():
            self.language_combo.setCurrentText(found.language)
            filled.append(tr("Language"))
        if found.abstract and not self.abstract_edit.toPlainText().strip():
            self.abstract_edit.setPlainText(found.abstract)
            filled.append(tr("Abstract"))
        # Without a container the stored type is only the import's guess; the service knows.
        if container_was_empty and found.type and found.type != self.current_type():
            self.set_type(found.type)
            filled.insert(0, tr("Type"))
        self.update_preview()
        return filled

    def _field_label(self, key: str, label: str, csl_type: str) -> str:
        if key == "container_title":
            return tr(CONTAINER_LABELS.get(csl_type, "Container title"))
        if key == "publisher":
            return tr(PUBLISHER_LABELS.get(csl_type, "Publisher"))
        return tr(label)

    def _set_lookup_message(self, ok: bool, message: str) -> None:
        self.lookup_label.setStyleSheet(f"color: {ok_colour() if ok else error_colour()};")
        self.lookup_label.setText(message)

    def _finish_lookup_thread(self) -> None:
        """The worker has reported: its run is over, so the thread ends at once."""
        if self._lookup_thread is not None:
            self._lookup_thread.finish()
        self._lookup_thread = None
        self._lookup_worker = None
        self.lookup_spinner.setVisible(False)
        self.on_identifier_changed()

    def _stop_lookup(self) -> None:
        """The dialog is closing mid-lookup: never wait for a slow server on the GUI thread."""
        thread, worker = self._lookup_thread, self._lookup_worker
        self._lookup_thread = None
        self._lookup_worker = None
        self.lookup_spinner.setVisible(False)
        if thread is None or worker is None:
            return
        worker.finished.disconnect(self.on_lookup_worker_finished)
        worker.failed.disconnect(self.on_lookup_worker_failed)
        worker.cancel.set()
        if thread.stop(100):
            thread.deleteLater()
        else:
            adopt_lingering_thread(thread)

    def _update_name_tabs(self) -> None:
        self.names_tabs.setTabText(0, tr("Authors ({n})").format(n=len(self.authors.names())))
        self.names_tabs.setTabText(1, tr("Editors ({n})").format(n=len(self.editors.names())))


def _label(text: str) -> str:
    """A form label: the translated word and the colon its language uses."""
    return tr(text) + ("：" if language() == "zh" else ":")


def _escape(text: str) -> str:
    return html.escape(text, quote=False)
