"""Page 1 read character by character: lines whose superscripts and footnote marks are known.

The page reader in ``extract.pdf`` works per line for speed; the author line needs more, because
"Lane\u1d43\u02bc\u1d9c" and "Agyeman-Duah1*" only come apart by the size and height of each mark.
One page, a few thousand characters, costs a few milliseconds. Callers hold ``PDFIUM_LOCK``.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import sub
from typing import Any

import pypdfium2.raw as pdfium_c

from ...text.whitespace import SPACES
from ..pdfium_calls import address_arg, keeping_gil, without_argtypes


@dataclass(slots=True)
class GlyphLine:
    """One physical line of page 1, its marks flagged."""

    # One character per glyph, a single space where the words were apart.
    chars: str = ""
    # Where in ``chars`` the superscripts are: smaller than the line's type and lifted.
    raised: tuple[int, ...] = ()
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
        if marks or not self.raised:
            return " ".join(self.chars.split())
        raised = set(self.raised)
        out: list[str] = []
        prev_raised = False
        for i, ch in enumerate(self.chars):
            if i in raised:
                if not prev_raised:
                    out.append(sep)
                prev_raised = True
                continue
            prev_raised = False
            out.append(ch)
        return " ".join("".join(out).split())


# (called for every glyph read)
_BOX = keeping_gil(pdfium_c.FPDFText_GetLooseCharBox, ctypes.c_int) or without_argtypes(
    pdfium_c.FPDFText_GetLooseCharBox, ctypes.c_int
)
_UNICODE = keeping_gil(pdfium_c.FPDFText_GetUnicode, ctypes.c_uint) or without_argtypes(
    pdfium_c.FPDFText_GetUnicode, ctypes.c_uint
)
# An FS_RECTF's fields in their order: left, top, right, bottom.
_RECT = struct.Struct("4f").unpack_from
# Characters that are no glyph (PDFium's line breaks, hyphen marks, NUL).
_SKIP = frozenset("\n\r\x00\x02\ufffe")
# What is no glyph: a skipped character or a space (one set test for a glyph, the common case).
_NO_GLYPH = _SKIP | frozenset(SPACES)
_NAN = float("nan")


def _span_chars(
    get_code: Any, tp: Any, start: int, end: int, text: str | None
) -> Iterator[tuple[int, str]]:
    """(index, character) of a span the text does not cover: asked of PDFium, one call each."""
    n_text = len(text) if text is not None else 0
    for i in range(start, end):
        if i < n_text:
            yield i, text[i]  # type: ignore[index]
            continue
        code = get_code(tp, i)
        if code in (0, 10, 13, 0xFFFE, 0x02) or 0xD800 <= code < 0xE000:
            continue  # (surrogate halves: only reached for symbols outside the BMP)
        yield i, chr(code)


def read_lines(textpage: Any, spans: list[tuple[int, int]], text: str | None = None) -> list[GlyphLine]:
    """The glyph lines of the given (first character, count) spans, each span ending a line.

    Only the lines the caller picked are read (page 1's upper part), so a page costs a fraction
    of reading every character. ``text``: the page's text, when its characters map one to one
    onto PDFium's (then only the boxes are asked for).

    A span is cut into more lines at a jump back to the left or to another row, or at a gap of
    about an em (a column of the author grid, or the quad that sets names apart on a by-line
    without commas). Characters and boxes stay in plain lists and floats (this loop runs for
    every character of the page's upper part); a line's glyphs are looked at together when it
    is closed (``_close``).
    """
    box = pdfium_c.FS_RECTF()
    ref = ctypes.byref(box)
    if _BOX is not None and _UNICODE is not None:
        tp: Any = address_arg(textpage.raw)  # (converted once, not on every call)
        get_box, get_code = _BOX, _UNICODE
    else:  # pragma: no cover - only when ctypes refuses the cast
        tp = textpage.raw
        get_box, get_code = pdfium_c.FPDFText_GetLooseCharBox, pdfium_c.FPDFText_GetUnicode
    rect = _RECT
    skip = _SKIP
    no_glyph = _NO_GLYPH
    n_text = len(text) if text is not None else 0
    rounded: dict[float, float] = {}
    lines: list[GlyphLine] = []
    for start, count in spans:
        end = start + count
        if text is not None and start >= 0 and end <= n_text:
            chars: Iterator[tuple[int, str]] = zip(range(start, end), text[start:end])  # noqa: B905 (same length)
        else:
            chars = _span_chars(get_code, tp, start, end, text)
        out: list[str] = []  # the current line's characters
        boxes: list[tuple[float, float, float, float]] = []  # its glyphs' (left, top, right, bottom)
        # Its glyphs per height (first seen first), counted at the end of each run of one height.
        heights: dict[float, int] = {}
        run = 0
        spaced = False  # a space since the previous glyph
        # The previous glyph's box.
        ly0 = ly1 = lx1 = lh = 0.0
        # The previous glyph's row (NaN: none, or none the shortcut below may take), and the
        # bounds a next glyph of that row and height has to keep its gap within.
        ry0 = ry1 = lo = hi = _NAN
        bad = False
        for i, ch in chars:
            if ch in no_glyph:
                if ch not in skip:
                    spaced = True
                continue
            if not get_box(tp, i, ref):
                continue
            b = rect(box)
            gx0, gy1, gx1, gy0 = b
            if gy1 == ry1 and gy0 == ry0:
                # The previous glyph's top and bottom (the common case): the tests below with
                # gh == lh and a full overlap, whose bounds were worked out for that glyph.
                gap = gx0 - lx1
                if bad or gap < lo or gap > hi:
                    heights[lh] = heights.get(lh, 0) + run
                    lines.append(_close(out, boxes, heights, rounded))
                    out, boxes, heights, run = [], [], {}, 0
                elif spaced:
                    out.append(" ")
                out.append(ch)
                boxes.append(b)
                run += 1
                spaced = False
                lx1 = gx1
                continue
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
                    lines.append(_close(out, boxes, heights, rounded))
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
            if gh == gh:
                # What the tests above give a next glyph with this top and bottom: h = max(gh, 0.1),
                # overlap == gh (the same subtraction).
                h = gh
                if h < 0.1:
                    h = 0.1
                ry0, ry1, lo, hi, bad = gy0, gy1, -h, 1.1 * h, gh < 0.2 * gh
            else:  # (a NaN height: its glyphs keep to the tests above)
                ry0 = ry1 = _NAN
        if out:
            heights[lh] = heights.get(lh, 0) + run
            lines.append(_close(out, boxes, heights, rounded))
    return lines


def _close(
    out: list[str],
    boxes: list[tuple[float, float, float, float]],
    heights: dict[float, int],
    rounded: dict[float, float],
) -> GlyphLine:
    """The line of these characters (spaces included), their glyphs' boxes (spaces have none)
    and glyphs per height: its dominant type height, its baseline and which glyphs are raised
    marks. ``rounded``: heights already rounded to 0.1 (through a decimal string, so once each)."""
    # Glyphs per height rounded to 0.1, first seen first (which decides a tie).
    counts: dict[float, int] = {}
    for x, n in heights.items():
        r = rounded.get(x)
        if r is None:
            r = rounded[x] = round(x, 1)
        counts[r] = counts.get(r, 0) + n
    h = max(counts, key=counts.__getitem__) if len(boxes) > 2 else max(counts)
    x0s, y1s, x1s, y0s = zip(*boxes, strict=True)
    lowest = min(heights)
    highest = max(heights)
    near = 0.15 * h
    # (abs(gh - h) is largest at the lowest or the highest glyph)
    if abs(highest - h) < near and abs(lowest - h) < near:
        bottoms = sorted(y0s)  # every glyph at the line's height: the common case
        each: list[float] = []
    else:
        each = list(map(sub, y1s, y0s))
        bottoms = sorted([y for y, gh in zip(y0s, each) if abs(gh - h) < near]) or sorted(y0s)  # noqa: B905
    base = bottoms[len(bottoms) // 2]
    lo, lift = 0.85 * h, base + 0.2 * h
    raised: tuple[int, ...] = ()
    if lowest < lo and max(y0s) > lift:
        # Smaller type whose bottom sits well above the line's: an affiliation or note mark.
        each = each or list(map(sub, y1s, y0s))
        marks = [k for k, (gh, y) in enumerate(zip(each, y0s)) if gh < lo and y > lift]  # noqa: B905
        if marks:
            # Glyph k is the k-th character that is not a space.
            at = [j for j, ch in enumerate(out) if ch != " "]
            raised = tuple([at[k] for k in marks])
    return GlyphLine("".join(out), raised, h, min(x0s), max(x1s), base, base + h)
