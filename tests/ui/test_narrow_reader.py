"""At 1024 px the chat column is narrow: a document tab elides its title rather than pushing
the Chat tab out of sight, and the chat's key hint wraps instead of losing its last word."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication, QTabBar

from paperpilot.core.library import Library
from tests.fixtures.pdfs import make_paper_pdf


def test_document_tabs_elide_and_the_chat_tab_stays_whole(window: Any, library: Library, tmp_path: Path) -> None:
    library.import_paths([make_paper_pdf(tmp_path)])
    window.resize(1024, 700)
    QApplication.processEvents()
    doc = library.all_documents()[0]
    window.library_pane.open_document(doc.doc_id, 1, "")
    QApplication.processEvents()
    bar = window.reader.tabBar()
    assert bar.count() == 2
    visible = QRect(0, 0, bar.width(), bar.height())
    for i in range(bar.count()):
        assert visible.contains(bar.tabRect(i)), (i, bar.tabRect(i), bar.width())  # no tab scrolled away
    chat = bar.tabRect(0)
    assert chat.width() >= bar.fontMetrics().horizontalAdvance(bar.tabText(0))  # "Chat", never "Ch…"
    assert bar.tabButton(1, QTabBar.ButtonPosition.RightSide) is not None  # the document tab closes
    assert bar.elideMode() == Qt.TextElideMode.ElideRight


def test_the_chat_hint_wraps_rather_than_cut(window: Any) -> None:
    window.resize(1024, 700)
    QApplication.processEvents()
    hint = window.chat_pane.hint_label
    needed = hint.fontMetrics().horizontalAdvance(hint.text())
    if hint.width() < needed:
        assert hint.height() >= hint.heightForWidth(hint.width()) > hint.fontMetrics().height()
    else:
        assert hint.height() >= hint.fontMetrics().height()


@pytest.mark.parametrize("size", [(1024, 700), (1440, 900), (1920, 1080)], ids=["1024", "1440", "1920"])
def test_the_title_column_keeps_its_minimum_at_every_size(
    qapp: QApplication, library: Library, size: tuple[int, int]
) -> None:
    """The collections tree steps aside once the splitter has shared out the width (at 1440 px
    it used to stay, squeezing titles to three letters). A fresh home each: a window that
    folded the tree remembers it."""
    from paperpilot.core.settings.config import Settings
    from paperpilot.core.settings.paths import app_paths
    from paperpilot.ui.main_window import TITLE_MIN_WIDTH, MainWindow

    library.import_paths([Path(__file__).resolve().parents[2] / "resources" / "sample"])
    w = MainWindow(library, app_paths(), Settings())
    w.resize(*size)
    w.show()
    for _ in range(5):
        QApplication.processEvents()
    title = w.library_pane.table.horizontalHeader().sectionSize(0)
    w.shutdown_workers()
    w.close()
    w.deleteLater()
    assert title >= TITLE_MIN_WIDTH, (size, title)
