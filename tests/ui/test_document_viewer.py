"""The document viewer paints the whole cited span over the PDF page, where the page really is."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication

from paperpilot.core.library import Library
from paperpilot.core.models import DocumentInfo, Passage
from paperpilot.ui.document_viewer import DocumentViewer
from tests.fixtures import pdfs
from tests.fixtures.pdfs import MM, PlacedLine
from tests.timing import bound

PAGE_HEIGHT = 297 * MM


@pytest.fixture
def span_doc(library: Library, tmp_path: Path) -> DocumentInfo:
    library.import_paths([pdfs.make_span_pdf(tmp_path)])
    return library.all_documents()[0]


@pytest.fixture
def open_viewers(qapp: QApplication) -> Iterator[list[DocumentViewer]]:
    viewers: list[DocumentViewer] = []
    yield viewers
    for v in viewers:
        v.close()
    QApplication.processEvents()


def passage_with(library: Library, doc: DocumentInfo, words: str) -> Passage:
    for seq in range(doc.chunks):
        p = library.read(doc.doc_id, seq)
        if words in p.text:
            return p
    raise AssertionError(f"no chunk holds {words!r}")


def passage_on(doc: DocumentInfo, page: int, text: str) -> Passage:
    """A passage as an answer would cite it: its text and the page it starts on."""
    return Passage(
        doc_id=doc.doc_id, chunk_id=0, seq=0, title=doc.title, section="", page=page, text=text, prev=None, next=None
    )


def open_at(library: Library, doc: DocumentInfo, passage: Passage, viewers: list[DocumentViewer], qtbot: Any) -> DocumentViewer:
    viewer = DocumentViewer(library, doc, passage.page, passage.text)
    viewers.append(viewer)
    viewer.resize(900, 1000)
    viewer.show()
    qtbot.waitUntil(lambda: viewer.span_location is not None and not viewer.is_locating(), timeout=10_000)
    return viewer


def covering(rects: list[QRectF], placed: PlacedLine) -> QRectF | None:
    """The rectangle (in points, top-left origin) that spans ``placed`` from end to end."""
    for r in rects:
        if (
            abs(r.left() - placed.x) < 1.5
            and abs(r.right() - (placed.x + placed.width)) < 2.5
            and r.top() < placed.baseline < r.bottom()
        ):
            return r
    return None


def point_rects(viewer: DocumentViewer) -> list[QRectF]:
    """The span's rectangles in points with the origin at the top-left, as the page is drawn."""
    out = []
    assert viewer.span_location is not None
    for p in viewer.span_location.pages:
        for r in p.rects:
            out.append(QRectF(r.left, p.height - r.top, r.width, r.height))
    return out


def is_marked(colour: QColor) -> bool:
    """Highlighter yellow over paper, or print under it; never plain white or the gap colour."""
    return colour.blue() < 190 and (colour.red() - colour.blue() > 40 or colour.lightness() < 120)


def is_paper(colour: QColor) -> bool:
    return colour.red() > 245 and colour.green() > 245 and colour.blue() > 245


def test_whole_span_across_the_gutter_is_painted_on_the_page(
    library: Library, span_doc: DocumentInfo, open_viewers: list[DocumentViewer], qtbot: Any
) -> None:
    passage = passage_with(library, span_doc, "gutter")
    viewer = open_at(library, span_doc, passage, open_viewers, qtbot)
    assert viewer.result_label.text() == "Passage highlighted"
    loc = viewer.span_location
    assert loc is not None and loc.coverage == 1.0
    cited = [ln for ln in pdfs.span_pdf_lines() if ln.page == 1 and ln.text.split()[0] in passage.text]
    rects = point_rects(viewer)
    # One rectangle per printed line of the passage, each spanning it (the title above it is a
    # passage of its own, of kind "title").
    block = [ln for ln in pdfs.span_pdf_lines() if ln.page == 1][:8]
    assert passage.kind == "body" and pdfs.SPAN_TITLE not in passage.text
    assert len(rects) == len(block) == len(cited)
    for placed in block:
        assert covering(rects, placed) is not None, placed.text

    view = viewer.pdf_view
    assert view is not None
    on_screen = view.span_viewport_rects()
    assert len(on_screen) == len(rects)
    image: QImage = view.viewport().grab().toImage()
    page = view.page_rect(0).translated(-view.horizontalScrollBar().value(), -view.verticalScrollBar().value())
    # The page is where the overlay thinks it is: paper inside, the gap colour just outside.
    assert is_paper(image.pixelColor(page.left() + 3, page.top() + 3))
    assert not is_paper(image.pixelColor(page.left() - 3, page.top() + 40))
    visible = [r for _, r in on_screen if image.rect().contains(r.center().toPoint())]
    assert len(visible) >= 4
    for r in visible:
        xs = [r.left() + r.width() * k / 10 for k in range(1, 10)]
        marked = sum(is_marked(image.pixelColor(QPointF(x, r.center().y()).toPoint())) for x in xs)
        assert marked >= 8, r
        # Just before the band the page is still plain paper (the margin, or the gutter).
        assert is_paper(image.pixelColor(QPointF(r.left() - 6, r.center().y()).toPoint()))
    # The empty gutter between the columns stays unpainted.
    top_right = min((r for _, r in on_screen if r.left() > page.center().x()), key=lambda r: r.top())
    gutter_x = round(top_right.left() - 12)
    assert is_paper(image.pixelColor(gutter_x, round(top_right.center().y())))


def test_span_on_a_later_page_is_scrolled_into_view_and_follows_zoom(
    library: Library, span_doc: DocumentInfo, open_viewers: list[DocumentViewer], qtbot: Any
) -> None:
    block = [ln for ln in pdfs.span_pdf_lines() if ln.page == 2][:3]
    passage = passage_on(span_doc, 2, " ".join(ln.text for ln in block))
    viewer = open_at(library, span_doc, passage, open_viewers, qtbot)
    view = viewer.pdf_view
    assert view is not None and viewer.span_location is not None
    assert [p.page for p in viewer.span_location.pages] == [2]
    rects = point_rects(viewer)
    assert len(rects) == 3 and all(covering(rects, ln) is not None for ln in block)
    assert viewer.current_page() == 2
    first = view.span_viewport_rects()[0][1]
    assert first.top() >= 0 and first.bottom() <= view.viewport().height()
    width_before = first.width()
    page_before = view.page_rect(1).width()
    viewer.on_zoom_in_action_triggered()
    qtbot.waitUntil(lambda: view.page_rect(1).width() != page_before)
    # The marks grow with the page they sit on.
    ratio = view.span_viewport_rects()[0][1].width() / width_before
    assert ratio == pytest.approx(view.page_rect(1).width() / page_before, rel=0.02)
    assert ratio > 1.05


def test_a_chunk_over_three_pages_is_marked_on_each(
    library: Library, span_doc: DocumentInfo, open_viewers: list[DocumentViewer], qtbot: Any
) -> None:
    passage = passage_with(library, span_doc, "after the page break")
    viewer = open_at(library, span_doc, passage, open_viewers, qtbot)
    loc = viewer.span_location
    assert loc is not None and loc.coverage == 1.0
    assert [p.page for p in loc.pages] == [1, 2, 3]
    lines = pdfs.span_pdf_lines()
    rects = point_rects(viewer)
    for placed in lines[8:]:  # "Careful tools …" to the end of page 3
        assert covering(rects, placed) is not None, placed.text
    assert viewer.current_page() == 1  # the passage starts there


def test_a_passage_not_in_the_text_layer_falls_back_to_searching_its_first_words(
    library: Library, span_doc: DocumentInfo, open_viewers: list[DocumentViewer], qtbot: Any
) -> None:
    # The PDF's own words, but in an order no line has: not a span, still searchable.
    passage = passage_on(span_doc, 1, "Careful tools quarks and hadrons everywhere")
    viewer = open_at(library, span_doc, passage, open_viewers, qtbot)
    assert viewer.span_location is not None and not viewer.span_location.found
    assert viewer.search_model is not None
    assert viewer.search_model.searchString() == "Careful tools quarks and hadrons everywhere"


def test_a_newer_request_wins_over_an_older_one(
    library: Library, span_doc: DocumentInfo, open_viewers: list[DocumentViewer], qtbot: Any
) -> None:
    first = passage_with(library, span_doc, "gutter")
    second = passage_on(span_doc, 2, "The second page holds a single wide column of text that")
    viewer = DocumentViewer(library, span_doc, first.page, first.text)
    open_viewers.append(viewer)
    viewer.show()
    viewer.show_location(second.page, second.text)  # before the first look-up has answered
    qtbot.waitUntil(lambda: not viewer.is_locating() and viewer.span_location is not None, timeout=10_000)
    assert viewer.span_location is not None
    assert [p.page for p in viewer.span_location.pages] == [2]


def test_closing_the_viewer_during_a_look_up_is_safe(library: Library, span_doc: DocumentInfo, qtbot: Any) -> None:
    from paperpilot.ui.workers import wait_lingering_threads

    passage = passage_with(library, span_doc, "gutter")
    viewer = DocumentViewer(library, span_doc, passage.page, passage.text)
    viewer.show()
    assert viewer.is_locating()
    viewer.close()  # deletes the window while its look-up may still run
    wait_lingering_threads(5_000)
    for _ in range(3):
        QApplication.processEvents()
    # A new viewer on the same document still works: nothing was left half torn down.
    again = DocumentViewer(library, span_doc, passage.page, passage.text)
    again.show()
    qtbot.waitUntil(lambda: again.span_location is not None, timeout=10_000)
    assert again.span_location is not None and again.span_location.found
    again.close()
    wait_lingering_threads(5_000)


def test_gui_keeps_running_while_pdfium_is_busy_elsewhere(
    library: Library, span_doc: DocumentInfo, open_viewers: list[DocumentViewer], qtbot: Any, lag_meter: Any
) -> None:
    from paperpilot.core.extract.pdfium_calls import PDFIUM_LOCK

    passage = passage_with(library, span_doc, "gutter")
    # An import extracting a big PDF holds PDFium's lock for a while; the look-up must wait for
    # it in its worker, never on the GUI thread.
    with PDFIUM_LOCK:
        viewer = DocumentViewer(library, span_doc, passage.page, passage.text)
        open_viewers.append(viewer)
        viewer.show()
        lag_meter.start()
        qtbot.wait(600)
        assert viewer.is_locating() and viewer.span_location is None
        assert viewer.result_label.text() == "Finding the passage…"
        assert lag_meter.ticks > 20 and lag_meter.max_gap_ms < bound(250)
    qtbot.waitUntil(lambda: viewer.span_location is not None, timeout=10_000)
    assert viewer.span_location is not None and viewer.span_location.found
