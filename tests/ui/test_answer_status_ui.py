"""Partial and insufficient answers in the window: badge, missing parts, related passages, copies."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from paperpilot.core.agent.events import Evidence, Result, Status
from paperpilot.core.library import Library
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths
from paperpilot.ui import i18n
from paperpilot.ui.chat_pane import STATUS_COLOURS, ChatPane
from paperpilot.ui.inspector import InspectorPane

MISSING = "No passage says which county borders McDowell County"
COUNTY_TEXT = (
    "Johnnycake is an unincorporated community in McDowell County, West Virginia, United States. "
    "It lies along Elkhorn Creek."
)
RIVER_TEXT = (
    "The Tug Fork river forms part of the border between West Virginia and Kentucky, and its valley "
    "was mined for coal for more than a century before the mines closed."
)


@pytest.fixture
def papers(library: Library, tmp_path: Path) -> tuple[int, int]:
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "county.md").write_text(f"# Places of McDowell County\n\n{COUNTY_TEXT}\n", encoding="utf-8")
    (folder / "river.md").write_text(f"# The Tug Fork\n\n{RIVER_TEXT}\n", encoding="utf-8")
    assert not library.import_paths([folder]).failed
    ids = {d.title: d.doc_id for d in library.all_documents()}
    return ids["Places of McDowell County"], ids["The Tug Fork"]


def partial_result(doc_id: int = 1) -> Result:
    return Result(
        question="What county shares a border with the county in which Johnnycake, West Virginia is located?",
        status=Status.PARTIAL,
        answer="Johnnycake is in McDowell County, West Virginia [1].",
        evidence=[Evidence(number=1, id="P1", doc_id=doc_id, title="Places of McDowell County", page=1, text=COUNTY_TEXT)],
        missing=[MISSING],
        steps=3,
        confidence=0.48,
        confidence_notes=["model estimate 0.90", "question parts covered 1 of 2"],
        policy="offline",
    )


def insufficient_result(doc_id: int = 2) -> Result:
    return Result(
        question="Who won the 2022 World Cup?",
        status=Status.INSUFFICIENT,
        answer="Your library has nothing on “World Cup”.",
        evidence=[Evidence(number=1, id="P7", doc_id=doc_id, title="The Tug Fork", page=1, text=RIVER_TEXT)],
        missing=["No passage mentions the World Cup"],
        steps=1,
        confidence=0.05,
        policy="offline",
    )


@pytest.fixture
def pane(qtbot: Any) -> ChatPane:
    p = ChatPane()
    qtbot.addWidget(p)
    p.resize(700, 600)
    return p


def luminance(colour: QColor) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())


def contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


# --- the badge -----------------------------------------------------------------------------------


def test_partial_badge_with_missing_parts_under_it(pane: ChatPane) -> None:
    pane.show_result(partial_result())
    html = pane.conversation_html().lower()
    assert STATUS_COLOURS[Status.PARTIAL.value] in html
    text = pane.conversation.toPlainText()
    assert "Partial answer" in text
    # The missing part is listed plainly, between the badge and the answer.
    badge, heading, part, answer = (
        text.index("Partial answer"),
        text.index("Not covered by this answer"),
        text.index(MISSING),
        text.index("Johnnycake is in McDowell County"),
    )
    assert badge < heading < part < answer
    assert "Sources" in text  # the verified citation is still a source of what was answered


def test_partial_badge_colour_is_its_own_and_readable_in_light_and_dark(pane: ChatPane) -> None:
    partial = QColor(STATUS_COLOURS[Status.PARTIAL.value])
    for status, colour in STATUS_COLOURS.items():
        assert contrast(QColor(colour), QColor("#ffffff")) >= 4.5, status  # white badge text
        if status != Status.PARTIAL.value:
            assert abs(partial.hueF() - QColor(colour).hueF()) > 0.05 or QColor(colour).saturationF() < 0.2, status
    light, dark = QPalette(QColor("#f0f0f0")), QPalette(QColor("#2d2d2d"))
    for palette in (light, dark):
        pane.setPalette(palette)
        pane.show_result(partial_result())
        base = pane.conversation.palette().color(QPalette.ColorRole.Base)
        text = pane.conversation.palette().color(QPalette.ColorRole.Text)
        # The badge stands out from the page, and the missing list uses the palette's text colour.
        assert contrast(partial, base) >= 1.9
        assert contrast(text, base) >= 4.5
        assert MISSING in pane.conversation.toPlainText()


def test_insufficient_answer_shows_related_passages_not_sources(pane: ChatPane) -> None:
    pane.show_result(insufficient_result())
    text = pane.conversation.toPlainText()
    assert "Insufficient evidence" in text and "Not found in your library" in text
    assert "Related passages" in text
    assert "they do not answer the question" in text
    assert "The Tug Fork river forms part of the border" in text  # what was found, quoted
    assert "Sources" not in text
    # Still linked, so the reader can open the passage that was found.
    assert 'href="cite:1"' in pane.conversation_html()


# --- the Result and Evidence tabs ------------------------------------------------------------------


def test_offline_result_tab_never_says_model_estimate(qtbot: Any) -> None:
    insp = InspectorPane()
    qtbot.addWidget(insp)
    insp.show_result(partial_result())
    assert insp.status_label.text() == "Partial answer"
    assert "model estimate" not in insp.confidence_notes.text()
    assert "question parts covered 1 of 2" in insp.confidence_notes.text()
    assert "not covered" in insp.status_note.text()
    assert MISSING in insp.missing_label.text() and "Not covered by this answer" in insp.missing_label.text()
    # With a model the estimate is the model's, and it is shown.
    insp.show_result(partial_result().model_copy(update={"policy": "llm"}))
    assert "model estimate 0.90" in insp.confidence_notes.text()


def test_evidence_tab_labels_related_passages(qtbot: Any) -> None:
    insp = InspectorPane()
    qtbot.addWidget(insp)
    insp.show()
    insp.show_result(insufficient_result())
    assert insp.related_label.isVisible()
    assert insp.related_label.text().startswith("Related passages:")
    assert insp.evidence_list.count() == 1
    insp.show_result(partial_result())
    assert not insp.related_label.isVisible()


# --- copies --------------------------------------------------------------------------------------


def test_copy_carries_status_and_missing_parts(pane: ChatPane) -> None:
    pane.show_result(partial_result())
    pane.copy_answer()
    mime = QApplication.clipboard().mimeData()
    text = mime.text()
    lines = text.splitlines()
    assert lines[0] == "Status: Partial answer · confidence 48%"
    assert lines[1] == "Some parts of the question are not covered by the cited passages."
    assert f"Not covered by this answer\n- {MISSING}" in text
    assert text.index("Johnnycake is in McDowell County") < text.index(MISSING) < text.index("References")
    assert "Partial answer" in mime.html() and MISSING in mime.html()


def test_styled_copy_from_the_window_carries_status_and_missing(
    qtbot: Any, library: Library, papers: tuple[int, int]
) -> None:
    from paperpilot.ui.main_window import MainWindow

    win = MainWindow(library, app_paths(), Settings())
    try:
        win.show()
        win.chat_pane.show_result(partial_result(papers[0]))
        win.copy_answer_action.trigger()  # Ctrl+Alt+C
        mime = QApplication.clipboard().mimeData()
        text = mime.text()
        assert text.startswith("Status: Partial answer · confidence 48%\n")
        assert f"- {MISSING}" in text
        refs = text.split("\n\nReferences\n", 1)[1]
        assert "Places of McDowell County" in refs  # formatted in the preferred style
        assert MISSING in mime.html() and "<b>References</b>" in mime.html()
    finally:
        win.shutdown_workers()
        win.close()
        win.deleteLater()
        QApplication.processEvents()


def test_copy_of_an_insufficient_answer_lists_related_passages_not_references(pane: ChatPane) -> None:
    pane.show_result(insufficient_result())
    pane.copy_answer()
    text = QApplication.clipboard().mimeData().text()
    assert text.startswith("Status: Insufficient evidence · confidence 5%\n")
    assert "Not found in your library\n- No passage mentions the World Cup" in text
    assert "Related passages (Found and verified in your library, but they do not answer the question.)" in text
    assert "[1] The Tug Fork, p. 1: “The Tug Fork river forms part" in text
    assert "References" not in text


# --- Chinese -------------------------------------------------------------------------------------


@pytest.fixture
def chinese() -> Iterator[None]:
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


def test_chinese_partial_badge_missing_and_copy(qtbot: Any, chinese: None) -> None:
    pane = ChatPane()
    qtbot.addWidget(pane)
    pane.show_result(partial_result())
    text = pane.conversation.toPlainText()
    assert "部分回答" in text and "本答案未覆盖" in text
    pane.copy_answer()
    copied = QApplication.clipboard().mimeData().text()
    assert copied.startswith("状态：部分回答 · 置信度 48%\n")
    pane.show_result(insufficient_result())
    text = pane.conversation.toPlainText()
    assert "证据不足" in text and "相关段落" in text and "文献库中未找到" in text
