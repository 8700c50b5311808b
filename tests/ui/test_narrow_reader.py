"""At 1024 px the chat column is narrow: a document tab elides its title rather than pushing
the Chat tab out of sight, and the chat's key hint wraps instead of losing its last word."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
