"""The reader: documents open as tabs beside the chat, next to the inspector's evidence.

The chat is the first tab and cannot be closed; each document gets one tab (opening it again
goes to that tab at the new passage). A tab can be popped out into a window of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QSize, Qt, Signal, Slot
from PySide6.QtWidgets import QTabBar, QTabWidget, QWidget

from .i18n import tr

if TYPE_CHECKING:  # imported when a document is first opened (QtPdf is slow to load)
    from .document_viewer import DocumentViewer

TAB_TITLE_CHARS = 28


def tab_title(title: str) -> str:
    """A document tab's text: the title's first words, the whole title is the tab's tooltip."""
    flat = " ".join(title.split())
    if len(flat) <= TAB_TITLE_CHARS:
        return flat
    cut = flat[:TAB_TITLE_CHARS]
    space = cut.rfind(" ")
    return (cut[:space] if space > TAB_TITLE_CHARS // 2 else cut).rstrip(" ,;:–-") + "…"


class ReaderTabBar(QTabBar):
    """Tabs that may elide down to a few letters, except the first (the chat)."""

    def minimumTabSizeHint(self, index: int) -> QSize:  # Qt override
        if index == 0:
            return self.tabSizeHint(index)
        return super().minimumTabSizeHint(index)


class Reader(QTabWidget):
    """A tab widget holding the chat (tab 0) and the docked document viewers."""

    popped_out = Signal(int, object)  # doc_id, the DocumentViewer window that replaces the tab

    def __init__(self, chat: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("reader")
        self.setTabBar(ReaderTabBar(self))  # first: the bar takes the settings below
        self.setDocumentMode(True)
        self.setTabsClosable(True)
        self.setMovable(True)
        # Document titles are shortened by hand (tab_title) and elide further when the column
        # is narrow; the Chat tab never does (ReaderTabBar), so it never reads "Ch…". Scroll
        # buttons appear only when even the elided tabs do not fit.
        self.setElideMode(Qt.TextElideMode.ElideRight)
        self.setUsesScrollButtons(True)
        self.chat = chat
        self.addTab(chat, tr("Chat"))
        bar = self.tabBar()
        # The chat tab has no close button: it is where questions are asked.
        for side in (QTabBar.ButtonPosition.RightSide, QTabBar.ButtonPosition.LeftSide):
            button = bar.tabButton(0, side)
            if button is not None:
                button.resize(0, 0)
                bar.setTabButton(0, side, None)
        self.tabCloseRequested.connect(self.on_tab_close_requested)

    def viewer_at(self, index: int) -> DocumentViewer | None:
        """The document viewer in tab ``index``: every tab but the chat holds one (``present``
        adds nothing else)."""
        widget = self.widget(index)
        return None if widget is None or widget is self.chat else widget  # type: ignore[return-value]

    def viewers(self) -> list[DocumentViewer]:
        return [v for i in range(self.count()) if (v := self.viewer_at(i)) is not None]

    def present(self, viewer: DocumentViewer) -> None:
        """Show ``viewer``: its tab (added if needed) when docked, its window otherwise."""
        if not viewer.docked:
            viewer.show()
            viewer.raise_()
            viewer.activateWindow()
            return
        index = self.indexOf(viewer)
        if index < 0:
            title = viewer.doc.title or tr("Untitled")
            index = self.addTab(viewer, tab_title(title))
            self.setTabToolTip(index, title)
            viewer.closed.connect(self.on_viewer_closed)
            viewer.pop_out_requested.connect(self.on_viewer_pop_out_requested)
        self.setCurrentIndex(index)
        viewer.show()

    def retitle(self, viewer: DocumentViewer, title: str) -> None:
        index = self.indexOf(viewer)
        if index >= 0:
            self.setTabText(index, tab_title(title))
            self.setTabToolTip(index, title)

    def show_chat(self) -> None:
        self.setCurrentIndex(self.indexOf(self.chat))

    def close_current_document(self) -> bool:
        """Close the document tab in front (Ctrl+W); False when the chat is in front."""
        viewer = self.viewer_at(self.currentIndex())
        if viewer is not None:
            viewer.close()
            return True
        return False

    @Slot(int)
    def on_tab_close_requested(self, index: int) -> None:
        viewer = self.viewer_at(index)
        if viewer is not None:
            viewer.close()

    @Slot(object)
    def on_viewer_closed(self, viewer: DocumentViewer) -> None:
        if not shiboken6.isValid(viewer):
            return
        index = self.indexOf(viewer)
        if index >= 0:
            self.removeTab(index)
            viewer.setParent(None)
            viewer.deleteLater()

    @Slot(object)
    def on_viewer_pop_out_requested(self, viewer: DocumentViewer) -> None:
        from .document_viewer import DocumentViewer

        page, passage = viewer.location()
        window = DocumentViewer(viewer.library, viewer.doc, page, passage, self.window())
        viewer.close()
        self.popped_out.emit(window.doc.doc_id, window)
        window.show()
        window.raise_()

