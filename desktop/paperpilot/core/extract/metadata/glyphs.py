"""Page 1 read character by character: lines whose superscripts and footnote marks are known.

The page reader in ``extract.pdf`` works per line for speed; the author line needs more, because
"Lane\u1d43\u02bc\u1d9c" and "Agyeman-Duah1*" only come apart by the size and height of each mark.
One page, a few thousand characters, costs a few milliseconds. Callers hold ``PDFIUM_LOCK``.
"""

from __future__ import annotations

import ctypes
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pypdfium2.raw as pdfium_c


@dataclass(slots=True)
class Glyph:
    ch: str
    x0: float
    y0: float  # bottom of the loose box (font descent)
    x1: float
    y1: float  # top of the loose box (font ascent)
    raised: bool = False  # a superscript: smaller than the line's type and lifted


@dataclass(slots=True)
class GlyphLine:
    """One physical line of page 1, its marks flagged."""

    glyphs: list[Glyph] = field(default_factory=list)
    height: float = 0.0  # the line's dominant loose-box height: a font-size proxy that works
    # even where PDFium reports size 1 (text scaled by its matrix)
    x0: float = 0.0
    x1: float = 0.0
    y0: float = 0.0
    y1: float = 0.0
    _texts: dict[tuple[bool, str], str] = field(default_factory=dict)

    def text(self, marks: bool = True, sep: str = "") -> str:
        """The line's text; ``marks=False`` puts ``sep`` where each run of raised marks was."""
        key = (marks, sep)
        cached = self._texts.get(key)
        if cached is None:
            cached = self._texts[key] = self._text(marks, sep)
        return cached

    def _text(self, marks: bool, sep: str) -> str:
        glyphs = self.glyphs
        if marks or not any(g.raised for g in glyphs):
            return " ".join("".join([g.ch for g in glyphs]).split())
        out: list[str] = []
        prev_raised = False
        for g in self.glyphs:
            if not marks and g.raised:
                if not prev_raised:
                    out.append(sep)
                prev_raised = True
                continue
            prev_raised = False
            out.append(g.ch)
        return " ".join("".join(out).split())


def _lean(func: Any, restype: Any, *argtypes: Any) -> Any:
    """The PDFium function with plain pointer arguments: ctypes then skips its per-call type
    checks, which would otherwise cost more than the call itself (see ``extract.pdf``)."""
    try:
        lean = type(func)(ctypes.cast(func, ctypes.c_void_p).value)
        lean.restype = restype
        lean.argtypes = argtypes
        return lean
    except Exception:
        return None


_BOX = _lean(pdfium_c.FPDFText_GetLooseCharBox, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
_UNICODE = _lean(pdfium_c.FPDFText_GetUnicode, ctypes.c_uint, ctypes.c_void_p, ctypes.c_int)


def read_glyphs(textpage: Any, top_fraction: float = 1.0, page_height: float = 0.0, text: str | None = None) -> list[Glyph]:
    """Every character of a PDFium text page with its loose box, in content order.

    Line breaks PDFium inserts become "\\n" glyphs with an empty box (they separate lines).
    With ``top_fraction`` < 1, characters below that part of the page are skipped. ``text``:
    the page's text when its characters map one to one onto PDFium's (saves a call each).
    """
    tp = textpage.raw
    n = int(pdfium_c.FPDFText_CountChars(tp))
    box = pdfium_c.FS_RECTF()
    if _BOX is not None and _UNICODE is not None:
        addr: Any = ctypes.cast(tp, ctypes.c_void_p).value
        ptr: Any = ctypes.addressof(box)
        get_box, get_code = _BOX, _UNICODE
    else:  # pragma: no cover - only when ctypes refuses the cast
        addr, ptr = tp, ctypes.byref(box)
        get_box, get_code = pdfium_c.FPDFText_GetLooseCharBox, pdfium_c.FPDFText_GetUnicode
    if text is not None and len(text) != n:
        text = None
    floor = page_height * (1.0 - top_fraction) if page_height else -1e9
    out: list[Glyph] = []
    append = out.append
    newline, space = Glyph("\n", 0, 0, 0, 0), Glyph(" ", 0, 0, 0, 0)
    for i in range(n):
        if text is not None:
            ch = text[i]
            if ch == "\n":
                append(newline)
                continue
            if ch in "\r\x02\ufffe\x00":
                continue
            if ch.isspace():
                append(space)
                continue
        else:
            code = get_code(addr, i)
            if code == 10:
                append(newline)
                continue
            if code in (0, 13, 0xFFFE, 0x02) or 0xD800 <= code < 0xE000:
                continue  # (surrogate halves: only reached for symbols outside the BMP)
            ch = chr(code)
            if ch.isspace():
                append(space)
                continue
        if not get_box(addr, i, ptr) or box.top < floor:
            continue
        append(Glyph(ch, box.left, box.bottom, box.right, box.top))
    return out


def read_glyph_spans(textpage: Any, spans: list[tuple[int, int]], text: str | None = None) -> list[Glyph]:
    """The characters of the given (first character, count) spans, each span ending a line.

    Only the lines the caller picked are read (page 1's upper part), so a page costs a fraction
    of reading every character. ``text``: the page's text, when its characters map one to one
    onto PDFium's (then only the boxes are asked for).
    """
    tp = textpage.raw
    box = pdfium_c.FS_RECTF()
    if _BOX is not None and _UNICODE is not None:
        addr: Any = ctypes.cast(tp, ctypes.c_void_p).value
        ptr: Any = ctypes.addressof(box)
        get_box, get_code = _BOX, _UNICODE
    else:  # pragma: no cover - only when ctypes refuses the cast
        addr, ptr = tp, ctypes.byref(box)
        get_box, get_code = pdfium_c.FPDFText_GetLooseCharBox, pdfium_c.FPDFText_GetUnicode
    out: list[Glyph] = []
    append = out.append
    newline, space = Glyph("\n", 0, 0, 0, 0), Glyph(" ", 0, 0, 0, 0)
    n_text = len(text) if text is not None else 0
    skip = frozenset("\n\r\x00\x02\ufffe")
    for start, count in spans:
        end = start + count
        if text is not None and start >= 0 and end <= n_text:
            # Characters known from the text: only the boxes are asked for.
            for i, ch in zip(range(start, end), text[start:end]):  # noqa: B905 (same length)
                if ch in skip:
                    continue
                if ch.isspace():
                    append(space)
                elif get_box(addr, i, ptr):
                    append(Glyph(ch, box.left, box.bottom, box.right, box.top))
            append(newline)
            continue
        for i in range(start, end):
            if i < n_text:
                ch = text[i]  # type: ignore[index]
                if ch in skip:
                    continue
            else:
                code = get_code(addr, i)
                if code in (0, 10, 13, 0xFFFE, 0x02) or 0xD800 <= code < 0xE000:
                    continue
                ch = chr(code)
            if ch.isspace():
                append(space)
                continue
            if get_box(addr, i, ptr):
                append(Glyph(ch, box.left, box.bottom, box.right, box.top))
        append(newline)
    return out


def _close(line: GlyphLine) -> None:
    real = [g for g in line.glyphs if g.ch != " "]
    if not real:
        line.glyphs = []
        return
    heights = [g.y1 - g.y0 for g in real]
    counts = Counter([round(x, 1) for x in heights])  # (first seen first, like a dict)
    h = max(counts, key=counts.__getitem__) if len(real) > 2 else max(counts)
    near = 0.15 * h
    bottoms = sorted([g.y0 for g, gh in zip(real, heights) if abs(gh - h) < near]) or sorted(  # noqa: B905
        [g.y0 for g in real]
    )
    base = bottoms[len(bottoms) // 2]
    lo, lift = 0.85 * h, base + 0.2 * h
    x0, x1 = real[0].x0, real[0].x1
    for g in real:
        # Smaller type whose bottom sits well above the line's: an affiliation or note mark.
        if g.y1 - g.y0 < lo and g.y0 > lift:
            g.raised = True
        if g.x0 < x0:
            x0 = g.x0
        if g.x1 > x1:
            x1 = g.x1
    line.height = h
    line.x0, line.x1 = x0, x1
    line.y0 = base
    line.y1 = base + h
    glyphs = line.glyphs
    while glyphs and glyphs[-1].ch == " ":
        glyphs.pop()
    while glyphs and glyphs[0].ch == " ":
        glyphs.pop(0)


def build_lines(glyphs: list[Glyph]) -> list[GlyphLine]:
    """Group glyphs into lines: a new line at PDFium's line breaks, a jump back to the left or
    another row, or a gap of about an em (a column of the author grid, or the quad that sets
    names apart on a by-line without commas)."""
    lines: list[GlyphLine] = []
    cur = GlyphLine()
    last: Glyph | None = None
    pending_space = False

    def flush() -> None:
        nonlocal cur, last
        if cur.glyphs:
            _close(cur)
            if cur.glyphs:
                lines.append(cur)
        cur = GlyphLine()
        last = None

    # The previous glyph's box, kept in locals (this loop runs for every character of the page).
    ly0 = ly1 = lx1 = lh = 0.0
    for g in glyphs:
        ch = g.ch
        if ch == "\n":
            flush()
            pending_space = False
            continue
        if ch == " ":
            pending_space = last is not None
            continue
        gx0, gy0, gy1 = g.x0, g.y0, g.y1
        gh = gy1 - gy0
        if last is not None:
            # h = max(lh, gh, 0.1); overlap of the two rows; the gap after the previous glyph.
            h = lh if lh >= gh else gh
            if h < 0.1:
                h = 0.1
            overlap = (ly1 if ly1 <= gy1 else gy1) - (ly0 if ly0 >= gy0 else gy0)
            gap = gx0 - lx1
            if overlap < 0.2 * (lh if lh <= gh else gh) or gap < -h or gap > 1.1 * h:
                flush()
                pending_space = False
        if pending_space and cur.glyphs:
            cur.glyphs.append(Glyph(" ", gx0, gy0, gx0, gy1))
        pending_space = False
        cur.glyphs.append(g)
        last = g
        ly0, ly1, lx1, lh = gy0, gy1, g.x1, gh
    flush()
    return lines
