"""Long-term memory in the GUI: saved conversations, follow-ups, the research profile, notes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QFileDialog, QInputDialog, QMessageBox
from pytestqt.qtbot import QtBot

from paperpilot.core.agent.events import Evidence, Info, Result, Status
from paperpilot.core.library import Library
from paperpilot.core.memory.conversations import ConversationStore
from paperpilot.core.memory.profile import ResearchProfile, load_profile, profile_path
from paperpilot.core.settings import keystore
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import AppPaths, app_paths
from paperpilot.ui.inspector import InspectorPane
from paperpilot.ui.main_window import MainWindow
from paperpilot.ui.notes_editor import NotesDialog
from paperpilot.ui.preferences_dialog import PreferencesDialog
from paperpilot.ui.workers import FOLLOWUP_INFO_CODE

PAPERS = {
    "sparrows.md": (
        "# The Decline of House Sparrows in European Cities\n\n## Abstract\n\n"
        "House sparrow populations in many European cities declined sharply between 1990 and 2010.\n\n"
        "## Causes of the decline\n\n"
        "The loss of nesting sites in modern buildings reduced breeding success. Insect prey for nestlings "
        "became scarce because of pesticide use. Chick starvation was the main driver of the decline.\n\n"
        "## Predation\n\n"
        "Predation by domestic cats and sparrowhawks increased in some cities, but the effect on population "
        "size was small compared with food shortage.\n"
    ),
    "bees.md": (
        "# Neonicotinoid Pesticides and Wild Bee Health\n\n## Results\n\n"
        "Exposure to neonicotinoids reduced colony growth of bumblebees by 8 to 12 percent in field experiments.\n"
    ),
}
QUESTION = "Why did house sparrows decline in European cities?"
FOLLOW_UP = "What about predation by cats?"


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> AppPaths:
    monkeypatch.setenv(keystore.NO_KEYRING_ENV, "1")
    return app_paths().ensure()


@pytest.fixture
def library(tmp_path: Path, paths: AppPaths) -> Iterator[Library]:
    folder = tmp_path / "papers"
    folder.mkdir()
    for name, text in PAPERS.items():
        (folder / name).write_text(text, encoding="utf-8")
    lib = Library(paths)
    assert not lib.import_paths([folder]).failed
    yield lib
    lib.close()


def open_window(qtbot: QtBot, library: Library, paths: AppPaths) -> MainWindow:
    win = MainWindow(library, paths, Settings())
    win.show()
    qtbot.waitExposed(win)
    # Wide enough for the conversation list to sit beside the chat (narrower, it is a drawer);
    # the offscreen screen is smaller than the window's default size.
    win.resize(1400, 860)
    QApplication.processEvents()
    return win


def close_window(win: MainWindow) -> None:
    win.shutdown_workers()
    win.close()
    win.deleteLater()
    QApplication.processEvents()


@pytest.fixture
def win(qtbot: QtBot, library: Library, paths: AppPaths) -> Iterator[MainWindow]:
    w = open_window(qtbot, library, paths)
    yield w
    close_window(w)


def ask(qtbot: QtBot, win: MainWindow, question: str) -> Result:
    pane = win.chat_pane
    pane.input.setPlainText(question)
    pane.input.setFocus()
    qtbot.keyClick(pane.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.agent_thread is None, timeout=10_000)
    result = pane.last_result()
    assert result is not None
    return result


def trace_texts(insp: InspectorPane) -> list[str]:
    out: list[str] = []

    def walk(item: object) -> None:
        out.append(f"{item.text(0)} | {item.text(1)}")  # type: ignore[attr-defined]
        for i in range(item.childCount()):  # type: ignore[attr-defined]
            walk(item.child(i))  # type: ignore[attr-defined]

    for i in range(insp.trace_tree.topLevelItemCount()):
        walk(insp.trace_tree.topLevelItem(i))
    return out


def click_conversation(qtbot: QtBot, win: MainWindow, row: int) -> None:
    lst = win.conversations_pane.list
    rect = lst.visualItemRect(lst.item(row))
    qtbot.mouseClick(lst.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def fake_result(question: str, answer: str, doc_id: int) -> Result:
    ev = Evidence(number=1, id="E1", doc_id=doc_id, title="Paper", text="Some passage.", page=1)
    return Result(question=question, status=Status.ANSWERED, answer=answer + " [1]", evidence=[ev], confidence=0.8)


# --- conversations --------------------------------------------------------------------------------


def test_conversation_survives_an_app_restart(
    qtbot: QtBot, library: Library, paths: AppPaths
) -> None:
    first = open_window(qtbot, library, paths)
    result = ask(qtbot, first, QUESTION)
    assert result.status is Status.ANSWERED and result.evidence
    assert first.conversations_pane.list.count() == 1
    assert first.conversations_pane.titles() == [QUESTION]
    conv_id = first.conversation_id
    assert conv_id is not None
    close_window(first)

    second = open_window(qtbot, library, paths)
    try:
        pane = second.conversations_pane
        assert pane.ids() == [conv_id]
        assert second.chat_pane.exchange_count() == 0  # a fresh start shows no conversation yet
        click_conversation(qtbot, second, 0)
        assert second.conversation_id == conv_id
        text = second.chat_pane.conversation.toPlainText()
        assert QUESTION in text and "Answered" in text
        first_sentence = result.answer.splitlines()[0].lstrip("- ").split("[")[0].strip()
        assert first_sentence in text
        assert 'href="cite:1"' in second.chat_pane.conversation_html()
        insp = second.inspector
        assert insp.evidence_list.count() == len(result.evidence)
        labels = [insp.trace_tree.topLevelItem(i).text(0) for i in range(insp.trace_tree.topLevelItemCount())]
        assert labels[0] == "Start" and "Round 1" in labels and labels[-1] == "Finished"
        assert insp.status_label.text() == "Answered"
        # A new question continues the reopened conversation.
        ask(qtbot, second, FOLLOW_UP)
        assert pane.ids() == [conv_id]
        assert len(second.conversations.turns(conv_id)) == 2
        # "New" starts an empty one; the next question makes a second conversation.
        qtbot.mouseClick(pane.new_button, Qt.MouseButton.LeftButton)
        assert second.conversation_id is None and second.chat_pane.exchange_count() == 0
        assert second.inspector.trace_tree.topLevelItemCount() == 0
        ask(qtbot, second, "Do neonicotinoids harm bumblebees?")
        assert len(pane.ids()) == 2 and second.conversation_id != conv_id
    finally:
        close_window(second)


def test_rename_delete_and_search_in_the_list(
    qtbot: QtBot, win: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    store: ConversationStore = win.conversations
    doc_id = win.library.list_documents()[0].doc_id
    a = store.create()
    store.add_turn(a.id, "Why did sparrows decline?", None, fake_result("q", "Chick starvation.", doc_id), [])
    b = store.create()
    store.add_turn(b.id, "Do pesticides harm bees?", None, fake_result("q", "They cut colony growth.", doc_id), [])
    pane = win.conversations_pane
    pane.refresh()
    assert pane.list.count() == 2

    # Search filters by text in titles, questions and answers.
    pane.search_edit.setText("starvation")
    qtbot.waitUntil(lambda: pane.ids() == [a.id], timeout=2000)
    pane.search_edit.setText("nothing-like-this")
    qtbot.waitUntil(lambda: pane.list.count() == 0, timeout=2000)
    assert pane.empty_label.isVisible()
    pane.search_edit.clear()
    qtbot.waitUntil(lambda: pane.list.count() == 2, timeout=2000)

    # Rename through the dialog.
    row = pane.ids().index(b.id)
    click_conversation(qtbot, win, row)
    assert win.conversation_id == b.id
    assert "colony growth" in win.chat_pane.conversation.toPlainText()
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Bees and pesticides", True))
    qtbot.mouseClick(pane.rename_button, Qt.MouseButton.LeftButton)
    assert "Bees and pesticides" in pane.titles()
    assert store.get(b.id).title == "Bees and pesticides"  # type: ignore[union-attr]

    # Delete asks first; "No" keeps it, "Yes" removes it and clears the open view.
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    qtbot.mouseClick(pane.delete_button, Qt.MouseButton.LeftButton)
    assert pane.list.count() == 2
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    qtbot.mouseClick(pane.delete_button, Qt.MouseButton.LeftButton)
    assert pane.ids() == [a.id]
    assert store.get(b.id) is None
    assert win.conversation_id is None and win.chat_pane.exchange_count() == 0


def test_follow_up_is_understood_in_context(qtbot: QtBot, win: MainWindow) -> None:
    ask(qtbot, win, QUESTION)
    assert not [e for e in win.inspector.events() if isinstance(e, Info) and e.code == FOLLOWUP_INFO_CODE]
    ask(qtbot, win, FOLLOW_UP)
    infos = [e for e in win.inspector.events() if isinstance(e, Info) and e.code == FOLLOWUP_INFO_CODE]
    assert len(infos) == 1
    standalone = str(infos[0].data["standalone"])
    assert standalone and standalone != FOLLOW_UP
    assert f"Understood as: {standalone}" in win.chat_pane.conversation.toPlainText()
    assert any(FOLLOWUP_INFO_CODE in t and standalone[:40] in t for t in trace_texts(win.inspector))
    turns = win.conversations.turns(win.conversation_id)
    assert [t.question for t in turns] == [QUESTION, FOLLOW_UP]
    assert turns[1].standalone_question == standalone
    # Reopening shows the rewrite again.
    win.open_conversation(win.conversation_id)
    assert f"Understood as: {standalone}" in win.chat_pane.conversation.toPlainText()


def test_export_conversation_as_markdown_with_references(
    qtbot: QtBot, win: MainWindow, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = ask(qtbot, win, QUESTION)
    out = tmp_path / "exported"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "Markdown (*.md)"))
    qtbot.mouseClick(win.conversations_pane.export_button, Qt.MouseButton.LeftButton)
    path = out.with_suffix(".md")
    text = path.read_text(encoding="utf-8")
    assert QUESTION in text
    assert "References" in text
    assert result.evidence[0].title.split(":")[0] in text


# --- research profile -------------------------------------------------------------------------------


def test_preferences_dialog_round_trip(qtbot: QtBot, win: MainWindow, paths: AppPaths) -> None:
    start = ResearchProfile(keywords={"segmentation": ["delineation"]}, topics=["urban birds"])
    dlg = PreferencesDialog(start, win)
    qtbot.addWidget(dlg)
    assert dlg.keywords() == {"segmentation": ["delineation"]}
    assert dlg.topics_edit.text() == "urban birds"
    dlg.fields_edit.setText("medical imaging, ecology")
    dlg.topics_edit.setText("urban birds; 城市鸟类")
    dlg.venues_edit.setPlainText("Nature\nProceedings of the IEEE, Part II\n")
    qtbot.mouseClick(dlg.add_keyword_button, Qt.MouseButton.LeftButton)
    row = dlg.keywords_table.rowCount() - 1
    dlg.keywords_table.item(row, 0).setText("sparrow")
    dlg.keywords_table.item(row, 1).setText("Passer domesticus, house sparrow")
    dlg.add_keyword_row("", [])  # a blank row is ignored
    dlg.language_combo.setCurrentIndex(dlg.language_combo.findData("zh"))
    dlg.citation_combo.setCurrentIndex(dlg.citation_combo.findData("gbt7714-2015-numeric"))
    dlg.length_combo.setCurrentIndex(dlg.length_combo.findData("short"))
    dlg.tone_combo.setCurrentIndex(dlg.tone_combo.findData("formal"))
    profile = dlg.result_profile()
    win.apply_profile(profile)

    loaded, warning = load_profile(paths)
    assert warning is None
    assert loaded == profile
    assert loaded.fields_of_research == ["medical imaging", "ecology"]
    assert loaded.topics == ["urban birds", "城市鸟类"]
    assert loaded.trusted_venues == ["Nature", "Proceedings of the IEEE, Part II"]
    assert loaded.keywords == {"segmentation": ["delineation"], "sparrow": ["Passer domesticus", "house sparrow"]}
    assert (loaded.answer_language, loaded.answer_length, loaded.tone) == ("zh", "short", "formal")
    # The profile's citation style becomes the one copies and exports use.
    assert win.library_pane.citation_style() == "gbt7714-2015-numeric"
    # Reopening the dialog shows what was saved.
    again = PreferencesDialog(win.profile, win)
    qtbot.addWidget(again)
    assert again.result_profile() == loaded
    assert win.profile_action.text().startswith("Research")


def test_a_broken_profile_is_reported_once_in_the_status_bar(
    qtbot: QtBot, library: Library, paths: AppPaths
) -> None:
    profile_path(paths).write_text("{not json", encoding="utf-8")
    w = open_window(qtbot, library, paths)
    try:
        assert w.profile_warning and "profile" in w.statusBar().currentMessage().lower()
        assert w.profile == ResearchProfile()
    finally:
        close_window(w)


# --- notes ------------------------------------------------------------------------------------------


def test_notes_editor_saves_searchable_notes(qtbot: QtBot, win: MainWindow) -> None:
    doc = next(d for d in win.library.list_documents() if "Sparrows" in d.title)
    win.library_pane.select_ids([doc.doc_id])
    menu = win.library_pane.build_context_menu()
    assert menu is not None and "Notes…" in [a.text() for a in menu.actions()]
    dlg = NotesDialog(win.library, doc.doc_id, doc.title, win)
    qtbot.addWidget(dlg)
    text = "Remember: **chick starvation** matters more than cats.\n\n- check the London data"
    dlg.editor.setPlainText(text)
    qtbot.waitUntil(lambda: "chick starvation" in dlg.preview.toPlainText(), timeout=2000)
    assert "<b>chick starvation</b>" in dlg.preview.toHtml() or "font-weight" in dlg.preview.toHtml()
    dlg.save()
    assert dlg.is_saving() and dlg.editor.isReadOnly()  # in a worker: a write may wait for a lock
    qtbot.waitUntil(lambda: dlg.result() == NotesDialog.DialogCode.Accepted, timeout=10_000)
    assert win.library.get_note(doc.doc_id) == text
    assert [h.doc_id for h in win.library.search_notes("starvation")] == [doc.doc_id]
    # Reopened, the editor shows the saved text.
    again = NotesDialog(win.library, doc.doc_id, doc.title, win)
    qtbot.addWidget(again)
    assert again.text() == text


def test_notes_used_as_evidence_are_labelled(qtbot: QtBot) -> None:
    insp = InspectorPane()
    qtbot.addWidget(insp)
    note = Evidence(number=1, id="N1", doc_id=1, title="Sparrows", section="Notes", text="My note.")
    passage = Evidence(number=2, id="E2", doc_id=1, title="Sparrows", section="Predation", text="Cats.")
    insp.show_result(Result(question="q", status=Status.ANSWERED, answer="a [1][2]", evidence=[note, passage]))
    assert "Your note on this paper" in insp.evidence_list.item(0).text()
    assert "Your note on this paper" not in insp.evidence_list.item(1).text()
    insp.select_evidence(1)
    assert "Your note on this paper" in insp.passage_view.toPlainText()
