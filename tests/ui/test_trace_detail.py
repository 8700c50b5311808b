"""The Trace tab at any width: a step's whole text is readable (the detail view under the
tree), and its words are in the interface language."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTreeWidgetItem

from paperpilot.core.library import Library
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths
from paperpilot.ui import i18n
from paperpilot.ui.inspector import FULL_TEXT_ROLE
from tests.fixtures.pdfs import make_paper_pdf

from .ui_text import english_left

QUESTION = "Why did house sparrows decline in the Old Town of Marlow Bay?"
SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"


def _items(tree: Any) -> list[QTreeWidgetItem]:
    out: list[QTreeWidgetItem] = []

    def walk(item: QTreeWidgetItem) -> None:
        out.append(item)
        for i in range(item.childCount()):
            walk(item.child(i))

    for i in range(tree.topLevelItemCount()):
        walk(tree.topLevelItem(i))
    return out


def _answered(lib: Library, size: tuple[int, int]) -> Any:
    from paperpilot.ui.main_window import MainWindow

    w = MainWindow(lib, app_paths(), Settings())
    w.resize(*size)
    w.show()
    QApplication.processEvents()
    run = w.session.ask(QUESTION, save=False, mode="loop")
    for event in run:
        w.on_agent_event(event)
    w.inspector.show_result(run.result)
    w.inspector.tabs.setCurrentWidget(w.inspector.trace_tab)
    QApplication.processEvents()
    return w


@pytest.fixture
def lib(paperpilot_home: Path, tmp_path: Path) -> Any:
    library = Library(app_paths())
    library.import_paths([SAMPLE, make_paper_pdf(tmp_path)])
    yield library
    library.close()


def test_a_long_trace_step_is_shown_whole_below_the_tree_at_1024(qapp: QApplication, lib: Library) -> None:
    w = _answered(lib, (1024, 700))
    try:
        tree, detail = w.inspector.trace_tree, w.inspector.trace_detail
        assert detail.isVisible() and detail.height() >= 3 * detail.fontMetrics().height()
        column = tree.header().sectionSize(1)
        # A row whose text is wider than its column: the column shows it cut, the detail whole.
        long_rows = [
            it for it in _items(tree)
            if tree.fontMetrics().horizontalAdvance(str(it.data(1, FULL_TEXT_ROLE) or it.text(1))) > column
        ]
        assert long_rows, "every trace row fits its column at 1024 px?"
        for item in long_rows[:8]:
            tree.setCurrentItem(item)
            shown = " ".join(detail.toPlainText().split())
            full = " ".join(str(item.data(1, FULL_TEXT_ROLE)).split())
            assert full and full in shown, (full, shown)
            assert item.text(0) in shown
        # A hit: its whole snippet, where it is and its score (not just the first words).
        hit = next(it for it in _items(tree) if it.text(0).startswith("·"))
        tree.setCurrentItem(hit)
        assert "doc " in detail.toPlainText() and "score" in detail.toPlainText()
        assert len(detail.toPlainText()) > len(hit.text(1)) / 2
        # The snippet's marked words are bold, not wrapped in asterisks (nor in the row).
        assert "**" not in detail.toPlainText() and "**" not in hit.text(1)
        assert "<b>" in detail.toHtml() or "font-weight:700" in detail.toHtml() or "font-weight:600" in detail.toHtml()
        # The keys walk the rows and the detail follows.
        tree.setFocus()
        before = detail.toPlainText()
        from PySide6.QtTest import QTest

        QTest.keyClick(tree, Qt.Key.Key_Down)
        assert detail.toPlainText() != before
    finally:
        w.shutdown_workers()
        w.close()


def test_the_trace_is_in_chinese_but_for_what_the_user_and_the_papers_wrote(qapp: QApplication, lib: Library) -> None:
    """Step names, counts, units, locators and the mode line are the interface's words; left
    in English may only be the question, the search queries (quoted), the papers' titles and
    text, and what the policy wrote itself (its thoughts, its answer draft)."""
    i18n.set_language("zh")
    try:
        w = _answered(lib, (1400, 860))
        try:
            titles = [d.title for d in lib.all_documents()]
            left = []
            for item in _items(w.inspector.trace_tree):
                step, detail = item.text(0), str(item.data(1, FULL_TEXT_ROLE) or item.text(1))
                if english_left(step.replace("·", "")):
                    left.append(f"step {step!r}")
                if step in ("思路", "开始") or (item.parent() is not None and item.parent().text(0) in ("命中", "阅读")):
                    continue  # the policy's own thought, the question, a hit's or passage's own text
                for data in (QUESTION, *titles):
                    detail = detail.replace(data, " ")
                if step.startswith("答案草稿"):
                    detail = detail.split("\n", 1)[0]  # the head; the draft is the policy's
                if step in ("信息", "⚠ 警告"):
                    detail = detail.split(":", 1)[0]  # core's diagnostic code; its message is core's
                    detail = re.sub(r"^[a-z_]+$", " ", detail.strip())
                if english_left(detail):
                    left.append(f"{step}: {detail!r}")
            assert not left, "\n".join(left)
        finally:
            w.shutdown_workers()
            w.close()
    finally:
        i18n.set_language("en")


def test_the_trace_follows_its_newest_step_after_a_burst_of_events(qapp: QApplication, lib: Library) -> None:
    """A run's events come in bursts: the tree scrolls once per burst, to the newest step."""
    w = _answered(lib, (1024, 700))
    try:
        tree = w.inspector.trace_tree
        tree.expandAll()  # the first run's steps fill more than the view
        QApplication.processEvents()
        assert tree.verticalScrollBar().maximum() > 0
        tree.scrollToTop()
        run = w.session.ask("How do green roofs help black redstarts and other birds?", save=False, mode="loop")
        for event in run:  # one burst: no event loop in between
            w.on_agent_event(event)
        assert tree.verticalScrollBar().value() == 0  # not yet: once, when the burst is handled
        QApplication.processEvents()
        newest = _items(tree)[-1]
        assert tree.verticalScrollBar().value() > 0
        assert tree.viewport().rect().intersects(tree.visualItemRect(newest))
    finally:
        w.shutdown_workers()
        w.close()
