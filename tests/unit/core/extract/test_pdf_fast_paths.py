"""The extractor's fast paths read what the plain ones read (PDFium calls, line clean-up)."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import pytest

from paperpilot.core.extract import pdf as pdf_mod
from paperpilot.core.extract.pdf import (
    _LINE_DIRTY,
    _clean_page_lines,
    _Line,
    _PageReader,
    _RawPage,
    clean_line,
)
from tests.fixtures import pdfs


def _read_all(path: Path) -> list[tuple[object, ...]]:
    out: list[tuple[object, ...]] = []
    doc = pdfium.PdfDocument(str(path))
    try:
        for i in range(len(doc)):
            page = doc[i]
            width, _height = page.get_size()
            textpage = page.get_textpage()
            text = textpage.get_text_range()
            mapped = len(text) != textpage.count_chars()
            for ln in _PageReader(textpage, width).read(text, mapped):
                out.append((i, ln.text, ln.x0, ln.y0, ln.x1, ln.y1, ln.size, ln.bold, ln.hyphen, ln.cstart, ln.count))
            textpage.close()
            page.close()
    finally:
        doc.close()
    return out


def test_the_lean_pdfium_calls_read_what_the_typed_bindings_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A body page, a two-column page (lines that cross the gutter take the per-rectangle path)
    # and bold headings: every function the reader calls per line.
    files = [pdfs.make_paper_pdf(tmp_path), pdfs.make_two_column_pdf(tmp_path)]
    assert pdf_mod._LEAN_OK  # on this platform the lean path is the one in use
    lean = [_read_all(f) for f in files]
    assert all(lean) and any(row[7] for rows in lean for row in rows)  # some line is bold
    typed = {
        "_LOOSE_BOX": pdfium_c.FPDFText_GetLooseCharBox,
        "_FONT_SIZE": pdfium_c.FPDFText_GetFontSize,
        "_FONT_WEIGHT": pdfium_c.FPDFText_GetFontWeight,
        "_COUNT_RECTS": pdfium_c.FPDFText_CountRects,
        "_GET_RECT": pdfium_c.FPDFText_GetRect,
        "_CHAR_INDEX": pdfium_c.FPDFText_GetCharIndexFromTextIndex,
    }
    for name, func in typed.items():
        monkeypatch.setattr(pdf_mod, name, func)
    monkeypatch.setattr(pdf_mod, "_LEAN_OK", False)
    assert [_read_all(f) for f in files] == lean


def _page(texts: list[str]) -> _RawPage:
    lines = [_Line(t, 0.0, 10.0 * i, 100.0, 10.0 * i + 8, 10.0, False, False) for i, t in enumerate(texts)]
    return _RawPage(1, 600.0, 800.0, lines)


@pytest.mark.parametrize(
    "texts",
    [
        ["plain text", "more plain text"],
        ["ﬁrst line", "clean", "two  spaces", "\x01", "ends with a soft hy\u00ad", "clean again"],
        ["", "x\xa0y", "Farber ¨ (2019)", "a", "  ", "tab\there"],
        ["\x03\x04", "ﬀ", "a  b  c   d", "ok", "ﬂ"],
    ],
)
def test_cleaning_a_page_in_one_scan_cleans_the_lines_one_by_one_would(texts: list[str]) -> None:
    expected = [clean_line(t) if _LINE_DIRTY.search(t) else t for t in texts]
    dirty = any(_LINE_DIRTY.search(t) for t in texts)
    page = _page(texts)
    _clean_page_lines(page)
    # Lines left empty go, but only from a page that had something to clean.
    assert [ln.text for ln in page.lines] == ([t for t in expected if t] if dirty else texts)
