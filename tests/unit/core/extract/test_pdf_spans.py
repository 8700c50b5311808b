"""Tests for locating a cited passage on its PDF page: the rectangles must cover the whole span."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from fpdf import FPDF

from paperpilot.core.extract.pdf_spans import (
    Rect,
    SpanLocation,
    locate_span,
    match_key,
    merge_line_rects,
    span_key,
)
from paperpilot.core.extract.pdfium_calls import PDFIUM_LOCK
from tests.fixtures import pdfs
from tests.fixtures.pdfs import MM, SPAN_FONT_SIZE, PlacedLine

PAGE_HEIGHT = 297 * MM


@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("span_pdfs")


@pytest.fixture(scope="module")
def span_pdf(fixture_dir: Path) -> Path:
    return pdfs.make_span_pdf(fixture_dir)


@pytest.fixture(scope="module")
def lines() -> list[PlacedLine]:
    return pdfs.span_pdf_lines()


def line(lines: list[PlacedLine], start: str) -> PlacedLine:
    return next(ln for ln in lines if ln.text.startswith(start))


def assert_covers(rect: Rect, placed: PlacedLine, left: float | None = None, right: float | None = None) -> None:
    """``rect`` is the line's box: from its first to its last glyph, around its baseline."""
    want_left = placed.x if left is None else left
    want_right = placed.x + placed.width if right is None else right
    assert rect.left == pytest.approx(want_left, abs=1.5), placed.text
    assert rect.right == pytest.approx(want_right, abs=2.5), placed.text
    baseline = PAGE_HEIGHT - placed.baseline  # PDF y grows upwards
    assert rect.bottom < baseline < rect.top, placed.text
    assert 0.8 * SPAN_FONT_SIZE <= rect.height <= 1.6 * SPAN_FONT_SIZE, placed.text


def string_width(text: str, size: float = SPAN_FONT_SIZE) -> float:
    pdf = FPDF(unit="pt")
    pdf.add_page()
    pdf.set_font("Helvetica", "", size)
    return float(pdf.get_string_width(text))


# --- the text key ------------------------------------------------------------------------------


def test_key_ignores_line_ends_hyphen_marks_ligatures_and_case() -> None:
    page_text = "broken at the end of a line during extrac\ufffetion,\r\nWe \ufb01nd the \ufb02at FILE"
    key, where = span_key(page_text)
    assert key == "brokenattheendofalineduringextractionwefindtheflatfile"
    assert len(where) == len(key)
    # Both key letters of a ligature point back at the one ligature character.
    fi = key.index("wefind") + 2
    assert page_text[where[fi]] == page_text[where[fi + 1]] == "\ufb01"
    chunk_key, _ = span_key("broken at the end of a line during extraction, we find the flat file")
    assert chunk_key == key


def test_match_key_tiles_interleaved_lines_and_skips_what_is_missing() -> None:
    hay, _ = span_key(
        "Alpine meadows hold many small plants Our survey tracked the quantum pelican\r\n"
        "that flower quickly in the short summer. migration along the western coast for"
    )
    needle, _ = span_key("Our survey tracked the quantum pelican migration along the western coast for")
    tiles = match_key(needle, hay)
    assert sum(length for _, _, length in tiles) == len(needle)
    assert [n for n, _, _ in tiles] == sorted(n for n, _, _ in tiles)  # in passage order
    assert match_key(span_key("nothing of this occurs on the page at all")[0], hay) == []


def test_short_chance_matches_are_dropped() -> None:
    hay, _ = span_key("the results of the study and the method of the analysis")
    needle, _ = span_key("zebra quagga okapi of the study giraffe narwhal axolotl")
    # "ofthestudy" is on the page, but alone and short: a chance hit, not the passage.
    assert match_key(needle, hay) == []


def test_merge_line_rects_joins_words_splits_lines_and_gutters() -> None:
    def box(x: float, y: float, w: float = 5.0) -> Rect:
        return Rect(x, y, x + w, y + 10)

    boxes = [box(10, 100), box(15, 100), box(23, 100), box(300, 100), box(10, 88), box(15, 88)]
    merged = merge_line_rects(boxes)
    assert merged == [Rect(10, 100, 28, 110), Rect(300, 100, 305, 110), Rect(10, 88, 20, 98)]
    assert merge_line_rects([]) == []


# --- spans in generated PDFs ---------------------------------------------------------------------


def test_multi_line_span_starting_mid_line(span_pdf: Path, lines: list[PlacedLine]) -> None:
    first = line(lines, "Cited passages")
    second = line(lines, "stand on the printed")
    third = line(lines, "can check every")
    passage = "shown where they stand on the printed page, so that a reader can check every word"
    loc = locate_span(span_pdf, passage, 1)
    assert loc.found and loc.coverage == 1.0
    assert [p.page for p in loc.pages] == [1]
    r1, r2, r3 = loc.pages[0].rects
    assert_covers(r1, first, left=first.x + string_width("Cited passages must be "))
    assert_covers(r2, second)
    assert_covers(r3, third, right=third.x + string_width("can check every word"))
    assert loc.first == (1, r1)


def test_span_across_the_column_gutter(span_pdf: Path, lines: list[PlacedLine]) -> None:
    block = [ln for ln in lines if ln.page == 1][3:8]
    passage = " ".join(ln.text for ln in block)
    loc = locate_span(span_pdf, passage, 1)
    assert loc.coverage == 1.0
    rects = loc.pages[0].rects
    assert len(rects) == 5
    for rect, placed in zip(rects, block, strict=True):
        assert_covers(rect, placed)
    gutter_left = max(ln.x + ln.width for ln in block[:3])
    gutter_right = min(ln.x for ln in block[3:])
    # Nothing is painted over the empty gutter between the columns.
    assert all(r.right <= gutter_left + 1 or r.left >= gutter_right - 1 for r in rects)


def test_span_with_a_hyphenated_line_break(span_pdf: Path, lines: list[PlacedLine]) -> None:
    block = [line(lines, "Careful tools"), line(lines, "broken at the end"), line(lines, "tion, before")]
    # The chunk text has the word rejoined, as the importer stores it.
    passage = "Careful tools rebuild the words that were broken at the end of a line during extraction, before any passage is indexed."
    loc = locate_span(span_pdf, passage, 1)
    assert loc.coverage == 1.0
    rects = loc.pages[0].rects
    assert len(rects) == 3
    assert_covers(rects[0], block[0])
    # PDFium replaced the hyphen with a mark; the printed hyphen is still covered.
    assert_covers(rects[1], block[1])
    assert_covers(rects[2], block[2])


def test_span_on_page_two(span_pdf: Path, lines: list[PlacedLine]) -> None:
    block = [ln for ln in lines if ln.page == 2][:3]
    loc = locate_span(span_pdf, " ".join(ln.text for ln in block), 2)
    assert [p.page for p in loc.pages] == [2]
    assert loc.pages[0].height == pytest.approx(PAGE_HEIGHT, abs=0.5)
    for rect, placed in zip(loc.pages[0].rects, block, strict=True):
        assert_covers(rect, placed)


def test_span_that_runs_onto_the_next_page(span_pdf: Path, lines: list[PlacedLine]) -> None:
    tail_of_2 = line(lines, "A passage may also")
    head_of_3 = line(lines, "end at the top")
    loc = locate_span(span_pdf, f"{tail_of_2.text} {head_of_3.text}", 2)
    assert loc.coverage == 1.0
    assert [p.page for p in loc.pages] == [2, 3]
    assert_covers(loc.pages[0].rects[0], tail_of_2)
    assert_covers(loc.pages[1].rects[0], head_of_3)


def test_interleaved_columns_keep_to_their_column(fixture_dir: Path) -> None:
    path = pdfs.make_two_column_pdf(fixture_dir)
    # Drawn row by row, so PDFium's text alternates left and right column lines.
    passage = " ".join(pdfs.TWO_COL_RIGHT[0])
    loc = locate_span(path, passage, 1)
    assert loc.coverage == 1.0
    rects = loc.pages[0].rects
    assert len(rects) == 3
    for rect, text in zip(rects, pdfs.TWO_COL_RIGHT[0], strict=True):
        assert rect.left == pytest.approx(110 * MM, abs=1.5)
        assert rect.right == pytest.approx(110 * MM + string_width(text), abs=2.5)


def test_ligatures_in_the_pdf_match_the_expanded_chunk_text(fixture_dir: Path) -> None:
    path = pdfs.make_paper_pdf(fixture_dir)
    loc = locate_span(path, "We find that the flat file layout is the simplest one to maintain.", 1)
    assert loc.coverage == 1.0
    assert len(loc.pages[0].rects) == 1
    assert loc.pages[0].rects[0].left == pytest.approx(20 * MM, abs=1.5)


def test_span_that_does_not_occur_is_not_found(span_pdf: Path) -> None:
    loc = locate_span(span_pdf, "Quantum chromodynamics explains how quarks bind into hadrons.", 1)
    assert isinstance(loc, SpanLocation)
    assert not loc.found and loc.coverage == 0.0 and loc.pages == ()
    assert loc.note
    assert loc.first is None


def test_partly_occurring_span_gives_the_part_that_is_there(span_pdf: Path, lines: list[PlacedLine]) -> None:
    real = line(lines, "Cited passages")
    passage = real.text + " and then quarks bind into hadrons inside every proton we know"
    loc = locate_span(span_pdf, passage, 1)
    assert loc.found and 0.3 < loc.coverage < 0.8
    assert len(loc.pages[0].rects) == 1
    assert_covers(loc.pages[0].rects[0], real)


def test_wrong_page_number_finds_the_neighbouring_page(span_pdf: Path, lines: list[PlacedLine]) -> None:
    placed = line(lines, "The second page holds")
    loc = locate_span(span_pdf, placed.text, 1)
    assert [p.page for p in loc.pages] == [2]


@pytest.mark.parametrize("page", [0, -3, 99])
def test_out_of_range_pages_never_crash(span_pdf: Path, page: int) -> None:
    loc = locate_span(span_pdf, "Locating Cited Passages in Two Columns", page)
    assert loc.coverage >= 0.0


def test_unreadable_files_and_empty_passages(tmp_path: Path, span_pdf: Path) -> None:
    assert locate_span(tmp_path / "missing.pdf", "some passage text here", 1).note
    bad = pdfs.make_not_a_pdf(tmp_path)
    assert not locate_span(bad, "some passage text here", 1).found
    assert locate_span(span_pdf, " — … ", 1).note


def test_runs_under_the_pdfium_lock(span_pdf: Path) -> None:
    done = threading.Event()

    def run() -> None:
        locate_span(span_pdf, "Cited passages must be shown where they", 1)
        done.set()

    with PDFIUM_LOCK:
        t = threading.Thread(target=run)
        t.start()
        # While another PDFium user holds the lock, the look-up waits for it.
        assert not done.wait(0.3)
    t.join(10)
    assert done.is_set()
