"""The glyph reader's shortcut for glyphs on the previous glyph's row gives the lines the
plain per-glyph tests gave (the reader before it, kept here), on every page and line of the
test PDFs, with and without the page text."""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from paperpilot.core.extract.metadata import glyphs as G
from paperpilot.core.extract.pdf import _PageReader
from paperpilot.core.text.whitespace import SPACES
from tests.fixtures import pdfs


def _read_lines_plain(textpage: Any, spans: list[tuple[int, int]], text: str | None = None) -> list[G.GlyphLine]:
    box = pdfium_c.FS_RECTF()
    ref = ctypes.byref(box)
    if G._BOX is not None and G._UNICODE is not None:
        tp: Any = ctypes.c_void_p(ctypes.cast(textpage.raw, ctypes.c_void_p).value)
        get_box, get_code = G._BOX, G._UNICODE
    else:
        raise AssertionError("no lean PDFium calls")
    rect = G._RECT
    skip = G._SKIP
    n_text = len(text) if text is not None else 0
    rounded: dict[float, float] = {}
    lines: list[G.GlyphLine] = []
    for start, count in spans:
        end = start + count
        if text is not None and start >= 0 and end <= n_text:
            chars: Iterator[tuple[int, str]] = zip(range(start, end), text[start:end])  # noqa: B905 (same length)
        else:
            chars = G._span_chars(get_code, tp, start, end, text)
        out: list[str] = []  # the current line's characters
        boxes: list[tuple[float, float, float, float]] = []  # its glyphs' (left, top, right, bottom)
        # Its glyphs per height (first seen first), counted at the end of each run of one height.
        heights: dict[float, int] = {}
        run = 0
        spaced = False  # a space since the previous glyph
        # The previous glyph's box.
        ly0 = ly1 = lx1 = lh = 0.0
        for i, ch in chars:
            if ch in skip:
                continue
            if ch.isspace():
                spaced = True
                continue
            if not get_box(tp, i, ref):
                continue
            b = rect(box)
            gx0, gy1, gx1, gy0 = b
            gh = gy1 - gy0
            if out:
                # h = max(lh, gh, 0.1); overlap of the two rows; the gap after the previous glyph.
                h = lh if lh >= gh else gh
                if h < 0.1:
                    h = 0.1
                overlap = (ly1 if ly1 <= gy1 else gy1) - (ly0 if ly0 >= gy0 else gy0)
                gap = gx0 - lx1
                if overlap < 0.2 * (lh if lh <= gh else gh) or gap < -h or gap > 1.1 * h:
                    heights[lh] = heights.get(lh, 0) + run
                    lines.append(G._close(out, boxes, heights, rounded))
                    out, boxes, heights, run = [], [], {}, 0
                else:
                    if spaced:
                        out.append(" ")
                    if gh != lh:
                        heights[lh] = heights.get(lh, 0) + run
                        run = 0
            out.append(ch)
            boxes.append(b)
            run += 1
            spaced = False
            ly0, ly1, lx1, lh = gy0, gy1, gx1, gh
        if out:
            heights[lh] = heights.get(lh, 0) + run
            lines.append(G._close(out, boxes, heights, rounded))
    return lines


def _fields(lines: list[G.GlyphLine]) -> list[tuple[object, ...]]:
    return [(ln.chars, ln.raised, ln.height, ln.x0, ln.x1, ln.y0, ln.y1) for ln in lines]


_MAKERS = [
    pdfs.make_paper_pdf,
    pdfs.make_two_column_pdf,
    pdfs.make_chinese_pdf,
    pdfs.make_span_pdf,
    pdfs.make_structured_paper_pdf,
]


@pytest.mark.parametrize("make", _MAKERS, ids=lambda f: f.__name__)
def test_read_lines_equals_plain_reader(make: Any, tmp_path: Path) -> None:
    doc = pdfium.PdfDocument(str(make(tmp_path)))
    try:
        for i in range(len(doc)):
            page = doc[i]
            width, _height = page.get_size()
            textpage = page.get_textpage()
            text = textpage.get_text_range()
            mapped = len(text) != textpage.count_chars()
            lines = _PageReader(textpage, width).read(text, mapped)
            spans = [(ln.cstart, ln.count) for ln in lines]
            # Whole lines, and a span of the whole page (rows and columns cut inside one span).
            for sp in (spans, [(0, textpage.count_chars())]):
                for t in (None, None if mapped else text):
                    got = _fields(G.read_lines(textpage, sp, t))
                    assert got == _fields(_read_lines_plain(textpage, sp, t))
                    assert got
            textpage.close()
            page.close()
    finally:
        doc.close()


def test_spaces_are_what_isspace_holds_for() -> None:
    assert "".join(c for c in map(chr, range(0x110000)) if c.isspace()) == SPACES
