"""Any screen: at 1024×700 nothing important hides; wide windows use the space; either theme.

The smoke test renders the window with an answer and a document at each size and theme and
checks what a user would see cut off: the library's columns behind a scroll bar, an
inspector tab reading "vidence", the window forced wider than the screen.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QTabBar

from paperpilot.core.library import Library
from paperpilot.ui.library_model import Column
from paperpilot.ui.theme import apply_theme, is_dark
from tests.fixtures.pdfs import make_paper_pdf

SIZES = [(1024, 700), (1440, 900), (1920, 1080)]


def tabs_whole(bar: QTabBar) -> list[str]:
    """The tabs whose text does not fit (elided, or pushed behind scroll buttons)."""
    cut = []
    fm = bar.fontMetrics()
    for i in range(bar.count()):
        rect = bar.tabRect(i)
        if rect.right() > bar.width() or fm.horizontalAdvance(bar.tabText(i)) > rect.width():
            cut.append(bar.tabText(i))
    return cut


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_window_renders_with_nothing_important_cut(
    window: Any, library: Library, tmp_path: Path, qtbot: Any, size: tuple[int, int], theme: str
) -> None:
    apply_theme(theme)
    try:
        library.import_paths([make_paper_pdf(tmp_path)])
        window.refresh_library()
        window.resize(*size)
        QApplication.processEvents()
        window.on_chat_ask_requested("What does the zebra crossing experiment show?", "quick")
        qtbot.waitUntil(lambda: window.agent_thread is None, timeout=30_000)
        QApplication.processEvents()
        assert (window.width(), window.height()) == size, "the panes' minimum sizes forced the window wider"
        assert is_dark(window.palette()) is (theme == "dark")
        lib = window.library_pane
        header = lib.table.horizontalHeader()
        # Year, Pages and Status in view: no horizontal scroll bar, every column inside the viewport.
        assert not lib.table.horizontalScrollBar().isVisible()
        assert header.sectionViewportPosition(Column.STATUS) + header.sectionSize(Column.STATUS) <= lib.table.viewport().width()
        assert header.sectionSize(Column.TITLE) >= 100
        # The inspector's tabs read in full.
        assert not tabs_whole(window.inspector.tabs.tabBar()), tabs_whole(window.inspector.tabs.tabBar())
        assert window.chat_pane.width() >= 300 and window.inspector.isVisible()
        # Narrow: the conversation list is folded into its drawer; wide: it is out.
        assert window.conversations_pane.isVisible() is (size[0] >= 1280)
        # Wider windows give the room to the panes, not to empty margins.
        used = window.library_pane.width() + window.reader.width() + window.inspector.width()
        assert used >= size[0] - 40
        # A document tab beside the chat: the page, the reader's toolbar fit.
        doc = library.all_documents()[0]
        lib.open_document(doc.doc_id, 2, "")
        viewer = lib.viewers[doc.doc_id]
        QApplication.processEvents()
        assert viewer.isVisible() and viewer.pdf_view.width() > 150
        bar = window.reader.tabBar()
        assert bar.tabText(0) == "Chat" and bar.fontMetrics().horizontalAdvance("Chat") <= bar.tabRect(0).width()
        image = window.grab().toImage()
        assert image.width() >= size[0] and not image.isNull()
    finally:
        apply_theme("system")


def test_the_drawer_opens_on_request_in_a_narrow_window(window: Any) -> None:
    window.resize(1024, 700)
    QApplication.processEvents()
    assert not window.conversations_pane.isVisible()
    chat_width = window.chat_pane.width()
    window.drawer_button.click()
    QApplication.processEvents()
    # A drawer over the chat: the list is usable, the chat keeps its width, the window its size.
    pane = window.conversations_pane
    assert window.drawer_open() and pane.isVisible() and pane.width() >= 200
    assert window.chat_pane.width() == chat_width and window.width() == 1024
    assert pane.geometry().top() >= window.reader.tabBar().height()
    window.drawer_button.click()
    assert not pane.isVisible() and not window.drawer_open()
    # Choosing a conversation in the drawer closes it; widening the window docks the list.
    conv = window.conversations.create("Gulls on zebra crossings")
    pane.refresh()
    window.drawer_button.click()
    window.open_conversation(conv.id)
    assert not window.drawer_open()
    window.drawer_button.click()
    window.resize(1600, 900)
    QApplication.processEvents()
    assert pane.isVisible() and not window.drawer_open() and pane.parentWidget() is window.chat_splitter
    assert pane.width() >= 160


def test_4k_scaling_renders_at_twice_the_pixels(paperpilot_home: Path, tmp_path: Path) -> None:
    """QT_SCALE_FACTOR=2 (a 4K display at 200 %): the window renders, at twice the pixels."""
    out = tmp_path / "4k.png"
    env = {**os.environ, "PAPERPILOT_HOME": str(paperpilot_home), "QT_QPA_PLATFORM": "offscreen", "QT_SCALE_FACTOR": "2"}
    r = subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "gui", "--screenshot", str(out), "--size", "1920x1080"],
        env=env, capture_output=True, text=True, timeout=120,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    image = QImage(str(out))
    assert (image.width(), image.height()) == (3840, 2160)
