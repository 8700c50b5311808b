"""The reader: documents dock as tabs beside the chat, with page jump, zoom and thumbnails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from paperpilot.core.library import Library
from paperpilot.ui.document_viewer import DocumentViewer
from tests.fixtures.pdfs import make_paper_pdf


def open_paper(window: Any, library: Library, tmp_path: Path, qtbot: Any) -> DocumentViewer:
    library.import_paths([make_paper_pdf(tmp_path)])
    window.refresh_library()
    doc = library.all_documents()[0]
    window.library_pane.open_document(doc.doc_id, 1, "")
    viewer = window.library_pane.viewers[doc.doc_id]
    qtbot.waitUntil(lambda: viewer.isVisible())
    return viewer


def test_a_document_opens_as_a_tab_beside_the_chat_and_closes_with_ctrl_w(
    window: Any, library: Library, tmp_path: Path, qtbot: Any
) -> None:
    viewer = open_paper(window, library, tmp_path, qtbot)
    reader = window.reader
    assert viewer.docked and not viewer.isWindow()
    assert viewer.window() is window
    assert reader.currentWidget() is viewer and reader.count() == 2
    assert reader.tabToolTip(1) == viewer.doc.title
    assert viewer.doc.title.startswith(reader.tabText(1).rstrip("…"))
    assert len(reader.tabText(1)) <= 29 and reader.tabText(0) == "Chat"
    # The inspector stays beside the document: the citations can be clicked through.
    assert window.inspector.isVisible() and window.inspector.width() > 0
    # Opening the same document again goes to its tab, at the new page.
    hit = library.search("zebra crossing experiment", 1)[0]
    window.library_pane.open_document(hit.doc_id, hit.page, library.read(hit.doc_id, hit.seq).text)
    assert window.library_pane.viewers[hit.doc_id] is viewer and reader.count() == 2
    qtbot.waitUntil(lambda: viewer.span_location is not None and not viewer.is_locating(), timeout=10_000)
    assert viewer.current_page() == 3
    reader.show_chat()
    assert reader.currentWidget() is window.chat_splitter
    reader.setCurrentWidget(viewer)
    viewer.search_edit.setFocus()
    window.close_document_action.trigger()
    QApplication.processEvents()
    assert reader.count() == 1 and reader.currentWidget() is window.chat_splitter
    # The chat tab itself cannot be closed.
    assert not reader.close_current_document()
    assert reader.count() == 1


def test_page_jump_zoom_and_fit_width(window: Any, library: Library, tmp_path: Path, qtbot: Any) -> None:
    viewer = open_paper(window, library, tmp_path, qtbot)
    assert viewer.page_count() >= 3
    assert viewer.page_spin.maximum() == viewer.page_count()
    viewer.page_spin.setValue(3)
    assert viewer.current_page() == 3
    assert viewer.page_label.text() == f"of {viewer.page_count()}"
    # Going past the end clamps to the last page.
    viewer.go_to_page(999)
    assert viewer.current_page() == viewer.page_count()
    assert viewer.page_spin.value() == viewer.page_count()  # the box follows the view
    viewer.go_to_page(1)
    assert viewer.page_spin.value() == 1
    width_before = viewer.pdf_view.page_rect(0).width()
    fit = viewer.zoom_factor()
    viewer.zoom_in_action.trigger()
    assert abs(viewer.zoom_factor() - fit * 1.25) < 0.02
    assert viewer.pdf_view.page_rect(0).width() > width_before
    viewer.zoom_out_action.trigger()
    viewer.zoom_out_action.trigger()
    assert viewer.zoom_factor() < fit
    viewer.fit_width_action.trigger()
    assert abs(viewer.zoom_factor() - fit) < 0.02


def test_thumbnails_show_each_page_and_a_click_jumps_there(
    window: Any, library: Library, tmp_path: Path, qtbot: Any
) -> None:
    viewer = open_paper(window, library, tmp_path, qtbot)
    thumbs = viewer.thumbnails
    assert thumbs.isVisible() and thumbs.count() == viewer.page_count()
    qtbot.waitUntil(lambda: viewer.thumbnails_rendered() == thumbs.count(), timeout=10_000)
    # A rendered thumbnail shows the page: white paper with dark print on it.
    image = thumbs.item(0).icon().pixmap(thumbs.iconSize()).toImage()
    colours = [image.pixelColor(x, y) for y in range(image.height()) for x in range(image.width())]
    assert sum(c.lightness() > 240 for c in colours) > len(colours) // 2
    assert sum(c.lightness() < 160 for c in colours) > 20  # print, shrunk and antialiased
    item = thumbs.item(2)
    rect = thumbs.visualItemRect(item)
    qtbot.mouseClick(thumbs.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert viewer.current_page() == 3
    viewer.go_to_page(2)
    assert thumbs.currentRow() == 1  # the current page is marked in the strip
    viewer.thumbnails_action.trigger()
    assert not thumbs.isVisible()
    viewer.thumbnails_action.trigger()
    assert thumbs.isVisible()


def test_a_tab_pops_out_into_a_window_and_stays_there(
    window: Any, library: Library, tmp_path: Path, qtbot: Any
) -> None:
    viewer = open_paper(window, library, tmp_path, qtbot)
    viewer.go_to_page(2)
    doc_id = viewer.doc.doc_id
    viewer.pop_out_action.trigger()
    QApplication.processEvents()
    popped = window.library_pane.viewers[doc_id]
    assert popped is not viewer and popped.isWindow() and not popped.docked
    assert popped.isVisible() and popped.current_page() == 2
    assert window.reader.count() == 1
    # Opening the document again shows its window, not a new tab.
    window.library_pane.open_document(doc_id, 1, "")
    assert window.library_pane.viewers[doc_id] is popped and window.reader.count() == 1
    popped.close()


def test_a_text_document_docks_too(window: Any, library: Library, tmp_path: Path, qtbot: Any) -> None:
    paper = tmp_path / "notes.md"
    paper.write_text("# Kestrels\n\nKestrels hover over verges and hunt voles at dusk.\n", encoding="utf-8")
    library.import_paths([paper])
    doc = library.all_documents()[0]
    window.library_pane.open_document(doc.doc_id, 1, "Kestrels hover over verges")
    viewer = window.library_pane.viewers[doc.doc_id]
    assert viewer.docked and not viewer.is_pdf and window.reader.currentWidget() is viewer
    assert viewer.result_label.text() == "Passage highlighted"
    assert not viewer.thumbnails.isVisible() and not viewer.page_spin.isVisible()
