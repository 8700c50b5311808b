"""The Research Profile dialog: what the user works on and how answers should come back.

Edits a ``ResearchProfile`` (fields, topics, keywords with synonyms, trusted venues, answer
language, citation style, answer length and tone); the main window saves the result.
"""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.api import ResearchProfile
from .i18n import tr
from .settings_dialog import CITATION_STYLES

ANSWER_LANGUAGES: tuple[tuple[str, str], ...] = (
    ("same", "Same as the question"),
    ("zh", "Chinese"),
    ("en", "English"),
)
ANSWER_LENGTHS: tuple[tuple[str, str], ...] = (("short", "Short"), ("medium", "Medium"), ("long", "Long"))
TONES: tuple[tuple[str, str], ...] = (("neutral", "Neutral"), ("formal", "Formal"), ("plain", "Plain language"))


def split_list(text: str) -> list[str]:
    """Items typed one per line or separated by commas / semicolons (either script), de-duplicated."""
    out: list[str] = []
    for line in text.replace("；", ";").replace("，", ",").replace(";", ",").splitlines():
        for part in line.split(","):
            item = " ".join(part.split())
            if item and item.casefold() not in {o.casefold() for o in out}:
                out.append(item)
    return out


class PreferencesDialog(QDialog):
    def __init__(self, profile: ResearchProfile, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("preferencesDialog")
        self.setWindowTitle(tr("Research Profile"))
        self.setMinimumWidth(620)
        self._profile = profile

        intro = QLabel(
            tr(
                "PaperPilot uses your profile to try related terms when it searches and to shape its "
                "answers. The trace shows when it did."
            ),
            self,
        )
        intro.setWordWrap(True)

        research = QGroupBox(tr("Research"), self)
        rform = QFormLayout(research)
        self.fields_edit = QLineEdit(research)
        self.fields_edit.setObjectName("fieldsEdit")
        self.fields_edit.setPlaceholderText(tr("e.g. medical imaging, ecology (comma-separated)"))
        self.topics_edit = QLineEdit(research)
        self.topics_edit.setObjectName("topicsEdit")
        self.topics_edit.setPlaceholderText(tr("e.g. segmentation, urban birds (comma-separated)"))
        self.venues_edit = QPlainTextEdit(research)
        self.venues_edit.setObjectName("venuesEdit")
        self.venues_edit.setPlaceholderText(tr("One venue per line"))
        self.venues_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 12)
        rform.addRow(tr("Fields of research"), self.fields_edit)
        rform.addRow(tr("Topics"), self.topics_edit)
        rform.addRow(tr("Trusted venues"), self.venues_edit)

        keywords = QGroupBox(tr("Keywords and synonyms"), self)
        kl = QVBoxLayout(keywords)
        self.keywords_table = QTableWidget(0, 2, keywords)
        self.keywords_table.setObjectName("keywordsTable")
        self.keywords_table.setHorizontalHeaderLabels([tr("Keyword"), tr("Synonyms (comma-separated)")])
        header = self.keywords_table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.keywords_table.setColumnWidth(0, 170)
        self.keywords_table.verticalHeader().setVisible(False)
        self.keywords_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.keywords_table.setMinimumHeight(150)
        self.add_keyword_button = QPushButton(tr("Add"), keywords)
        self.add_keyword_button.setObjectName("addKeywordButton")
        self.remove_keyword_button = QPushButton(tr("Remove"), keywords)
        self.remove_keyword_button.setObjectName("removeKeywordButton")
        krow = QHBoxLayout()
        krow.addWidget(self.add_keyword_button)
        krow.addWidget(self.remove_keyword_button)
        krow.addStretch(1)
        kl.addWidget(self.keywords_table, 1)
        kl.addLayout(krow)

        answers = QGroupBox(tr("Answers"), self)
        aform = QFormLayout(answers)
        self.language_combo = self._combo(ANSWER_LANGUAGES, "answerLanguageCombo", answers)
        self.citation_combo = QComboBox(answers)
        self.citation_combo.setObjectName("profileCitationCombo")
        for value, label in CITATION_STYLES:
            self.citation_combo.addItem(tr(label), value)
        self.length_combo = self._combo(ANSWER_LENGTHS, "answerLengthCombo", answers)
        self.tone_combo = self._combo(TONES, "toneCombo", answers)
        aform.addRow(tr("Answer language"), self.language_combo)
        aform.addRow(tr("Default citation style"), self.citation_combo)
        aform.addRow(tr("Answer length"), self.length_combo)
        aform.addRow(tr("Tone"), self.tone_combo)

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(research)
        layout.addWidget(keywords, 1)
        layout.addWidget(answers)
        layout.addWidget(self.buttons)

        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.add_keyword_button.clicked.connect(self.on_add_keyword_button_clicked)
        self.remove_keyword_button.clicked.connect(self.on_remove_keyword_button_clicked)
        self._load(profile)

    def _combo(self, choices: tuple[tuple[str, str], ...], name: str, parent: QWidget) -> QComboBox:
        combo = QComboBox(parent)
        combo.setObjectName(name)
        for value, label in choices:
            combo.addItem(tr(label), value)
        return combo

    # --- load / result ------------------------------------------------------------------------------

    def _load(self, p: ResearchProfile) -> None:
        self.fields_edit.setText(", ".join(p.fields_of_research))
        self.topics_edit.setText(", ".join(p.topics))
        self.venues_edit.setPlainText("\n".join(p.trusted_venues))
        self.keywords_table.setRowCount(0)
        for keyword, synonyms in p.keywords.items():
            self.add_keyword_row(keyword, synonyms)
        for combo, value in (
            (self.language_combo, p.answer_language),
            (self.citation_combo, p.citation_style),
            (self.length_combo, p.answer_length),
            (self.tone_combo, p.tone),
        ):
            i = combo.findData(value)
            if i >= 0:
                combo.setCurrentIndex(i)

    def add_keyword_row(self, keyword: str = "", synonyms: list[str] | None = None) -> int:
        row = self.keywords_table.rowCount()
        self.keywords_table.insertRow(row)
        self.keywords_table.setItem(row, 0, QTableWidgetItem(keyword))
        self.keywords_table.setItem(row, 1, QTableWidgetItem(", ".join(synonyms or [])))
        return row

    def keywords(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for row in range(self.keywords_table.rowCount()):
            k_item = self.keywords_table.item(row, 0)
            s_item = self.keywords_table.item(row, 1)
            keyword = " ".join((k_item.text() if k_item else "").split())
            if not keyword:
                continue  # a blank row left over from "Add"
            synonyms = [s for s in split_list(s_item.text() if s_item else "") if s.casefold() != keyword.casefold()]
            out.setdefault(keyword, [])
            out[keyword].extend(s for s in synonyms if s not in out[keyword])
        return out

    def result_profile(self) -> ResearchProfile:
        updates = {
            "fields_of_research": split_list(self.fields_edit.text()),
            "topics": split_list(self.topics_edit.text()),
            "keywords": self.keywords(),
            # One per line: venue names may contain commas ("Proceedings of …, Part II").
            "trusted_venues": list(dict.fromkeys(" ".join(v.split()) for v in self.venues_edit.toPlainText().splitlines() if v.strip())),
            "answer_language": self.language_combo.currentData(),
            "citation_style": self.citation_combo.currentData(),
            "answer_length": self.length_combo.currentData(),
            "tone": self.tone_combo.currentData(),
        }
        # Validated, and any field this dialog does not edit (schema version …) is kept.
        return ResearchProfile.model_validate({**self._profile.model_dump(), **updates})

    # --- slots ------------------------------------------------------------------------------------

    @Slot()
    def on_add_keyword_button_clicked(self) -> None:
        row = self.add_keyword_row()
        self.keywords_table.setCurrentCell(row, 0)
        item = self.keywords_table.item(row, 0)
        if item is not None:
            self.keywords_table.editItem(item)

    @Slot()
    def on_remove_keyword_button_clicked(self) -> None:
        rows = sorted({i.row() for i in self.keywords_table.selectedIndexes()}, reverse=True)
        if not rows and self.keywords_table.currentRow() >= 0:
            rows = [self.keywords_table.currentRow()]
        for row in rows:
            self.keywords_table.removeRow(row)


__all__ = ["PreferencesDialog", "split_list"]
