"""The library filter's search mode (keyword / meaning / hybrid), as ``paperpilot search --mode``:
through the Session, in a worker; "meaning" is offered only once something is embedded, and
hybrid is then the default. The embedded case uses the bundled model on four short papers."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QStandardItemModel

from paperpilot.core.app import Session
from paperpilot.core.library import Library
from paperpilot.ui.library_model import Column
from paperpilot.ui.library_pane import LibraryPane
from tests.ui.test_library_organize import TIMEOUT_MS, ids, shown, write_papers


@pytest.fixture
def pane(window: Any, library: Library, tmp_path: Path) -> LibraryPane:
    library.import_paths(write_papers(tmp_path / "in"))
    window.refresh_library()
    return window.library_pane


def meaning_item(pane: LibraryPane) -> Any:
    model = pane.mode_combo.model()
    assert isinstance(model, QStandardItemModel)
    return model.item(pane.mode_combo.findData("meaning"))


def search(pane: LibraryPane, qtbot: Any, text: str) -> None:
    pane.filter_edit.setText(text)
    qtbot.waitUntil(lambda: not pane.is_searching(), timeout=TIMEOUT_MS)


def hits(pane: LibraryPane, doc_id: int) -> str:
    return str(pane.model.index(pane.model.row_of(doc_id), Column.HITS).data())


def test_without_vectors_the_filter_searches_keywords_and_meaning_is_disabled(
    pane: LibraryPane, library: Library, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    known = ids(library)
    calls: list[tuple[str, str | None, bool]] = []
    real = Session.text_matches

    def spy(self: Session, text: str, mode: str | None = None) -> Any:
        calls.append((text, mode, threading.current_thread() is threading.main_thread()))
        return real(self, text, mode)

    monkeypatch.setattr(Session, "text_matches", spy)
    assert not pane.mode_combo.isEnabled()  # a mode for the full text only
    pane.fulltext_check.setChecked(True)
    qtbot.waitUntil(lambda: not pane.is_searching(), timeout=TIMEOUT_MS)
    assert pane.mode_combo.isEnabled() and pane.filter_mode() == "keyword"
    item = meaning_item(pane)
    assert not item.isEnabled() and "Nothing is embedded yet" in item.toolTip()
    search(pane, qtbot, "voles meadows")
    assert shown(pane) == {known["kestrels"], known["owls"]}
    # Every search went through the Session, in a worker, in the mode shown.
    assert calls and all(mode == "keyword" and not on_gui for _text, mode, on_gui in calls)
    # Hybrid (chosen) with nothing embedded finds what keyword finds; the choice stays.
    pane.mode_combo.setCurrentIndex(pane.mode_combo.findData("hybrid"))
    pane.mode_combo.activated.emit(pane.mode_combo.currentIndex())
    qtbot.waitUntil(lambda: not pane.is_searching(), timeout=TIMEOUT_MS)
    assert calls[-1][1] == "hybrid" and pane.filter_mode() == "hybrid"
    assert shown(pane) == {known["kestrels"], known["owls"]}
    pane.fulltext_check.setChecked(False)
    assert not pane.mode_combo.isEnabled()


def test_with_vectors_hybrid_is_the_default_and_meaning_finds_other_words(
    window: Any, pane: LibraryPane, library: Library, qtbot: Any
) -> None:
    known = ids(library)
    session: Session = window.session
    assert session.embed_library().embedded == len(known)  # the bundled model, four passages
    assert session.has_vectors()
    pane.fulltext_check.setChecked(True)
    qtbot.waitUntil(lambda: not pane.is_searching() and pane.filter_mode() == "hybrid", timeout=TIMEOUT_MS)
    assert meaning_item(pane).isEnabled() and not meaning_item(pane).toolTip()
    # Keyword: no paper has these words; by meaning the swifts' paper says it differently.
    pane.mode_combo.setCurrentIndex(pane.mode_combo.findData("keyword"))
    pane.mode_combo.activated.emit(pane.mode_combo.currentIndex())
    search(pane, qtbot, "bugs caught above rooftops")
    assert shown(pane) == set()
    pane.mode_combo.setCurrentIndex(pane.mode_combo.findData("meaning"))
    pane.mode_combo.activated.emit(pane.mode_combo.currentIndex())
    qtbot.waitUntil(lambda: not pane.is_searching() and bool(shown(pane)), timeout=TIMEOUT_MS)
    assert known["swifts"] in shown(pane) and hits(pane, known["swifts"]) == "1"
    tip = pane.model.index(pane.model.row_of(known["swifts"]), Column.TITLE).data(Qt.ItemDataRole.ToolTipRole)
    assert "insects" in tip  # the nearest passage's snippet
    # Hybrid: the documents with every word, and those found by meaning.
    pane.mode_combo.setCurrentIndex(pane.mode_combo.findData("hybrid"))
    pane.mode_combo.activated.emit(pane.mode_combo.currentIndex())
    search(pane, qtbot, "voles")
    with_word = {known["kestrels"], known["gulls"], known["owls"]}
    assert with_word <= shown(pane)
    assert session.text_matches("voles", "keyword").counts.keys() == with_word


def test_the_session_filter_names_the_mode_it_searched(library: Library, tmp_path: Path) -> None:
    library.import_paths(write_papers(tmp_path / "in"))
    with Session(paths=library.paths, library=library) as session:
        got = session.text_matches("voles", "meaning")  # nothing embedded: keyword
        assert got.mode == "keyword" and not got.has_vectors and len(got.counts) == 3
        assert session.text_matches("voles").mode == "keyword"
        from paperpilot.core.errors import InvalidInput

        with pytest.raises(InvalidInput):
            session.text_matches("voles", "fuzzy")


def test_the_inspector_shows_a_rerank_its_scores_and_its_tokens(qapp: Any) -> None:
    from PySide6.QtWidgets import QTreeWidgetItem

    from paperpilot.core.api import ActionChosen, HitView, Info, RoundStarted, RunStarted, ToolResult
    from paperpilot.ui.inspector import InspectorPane, hit_scores_text

    hit = HitView(doc_id=3, segment=4, title="Absence Procedure", score=0.5, snippet="file an absence form",
                  found_by="meaning", dense=0.81, rerank=9, search_rank=5)  # fmt: skip
    unscored = HitView(doc_id=1, segment=0, title="Survey", score=0.9, search_rank=1)
    assert hit_scores_text(hit).endswith("model 9/10 · search #5")
    assert hit_scores_text(unscored).endswith("model: no score · search #1")
    pane = InspectorPane()
    try:
        for ev in (
            RunStarted(question="q", mode="loop", policy="llm", max_rounds=6),
            RoundStarted(round=1),
            ActionChosen(round=1, action={"action": "search", "query": "staff sick day"}),
            Info(round=1, code="rerank", message="by the model, 2 candidates, 2 kept: doc 3 seg 4 (9/10, was #5)",
                 data={"by": "model", "usage": {"prompt_tokens": 612, "completion_tokens": 40}}),
            ToolResult(round=1, tool="search", query="staff sick day", hits=[hit, unscored], new_items=2,
                       note="reranked by the model"),
        ):  # fmt: skip
            pane.add_event(ev)

        def walk(item: QTreeWidgetItem) -> list[QTreeWidgetItem]:
            return [item] + [x for i in range(item.childCount()) for x in walk(item.child(i))]

        tree = pane.trace_tree
        items = [x for i in range(tree.topLevelItemCount()) for x in walk(tree.topLevelItem(i))]
        texts = [x.text(1) for x in items]
        assert any("rerank: by the model" in t for t in texts)
        assert any("reranked by the model" in t for t in texts)
        assert any(x.toolTip(0).endswith("model 9/10 · search #5") for x in items)
        assert any(t.startswith("612 in · 40 out") for t in texts)  # the round's tokens count the rerank
    finally:
        pane.close()
        pane.deleteLater()
