"""Find a cited passage on its PDF page: the line rectangles that cover the whole span.

The passage text PaperPilot cites is the *cleaned* chunk text (lines joined, hyphenation
undone, ligatures expanded, headers dropped), while PDFium's text layer has ``\\r\\n`` line
ends, ``\\ufffe``/``\\x02`` marks where it removed a line-end hyphen, ligature characters and,
in two-column papers, lines of both columns interleaved. So both sides are reduced to a *key*
(letters and digits only, NFKC, case-folded) with a map from every key character back to
the page's text, and the passage key is laid over the page key in as few long pieces as
possible (greedy tiling: at each point, the longest piece that occurs on the page). Pieces
that are short and far from the others are dropped as chance matches. What cannot be found
on the page (the tail of a passage that runs onto the next page) is looked for on the
following page.

The matched characters' boxes come from PDFium and are merged into one rectangle per line
piece, in PDF points with the origin at the bottom-left of the page's crop box, in the order
the passage reads. Everything runs under ``PDFIUM_LOCK``: PDFium is not thread-safe.
"""

from __future__ import annotations

import contextlib
import re
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from paperpilot.core.extract.pdfium_calls import PDFIUM_LOCK

__all__ = ["PageRects", "Rect", "SpanLocation", "locate_span", "match_key", "merge_line_rects", "span_key"]

# A piece this long (letters and digits) rarely occurs by chance on the same page.
LONG_PIECE = 20
# Shorter pieces are kept only when they sit this close (key characters) to a long one.
NEAR = 40
# The shortest piece worth looking for at all, except at the very end of the passage.
MIN_PIECE = 8
# How many following pages a passage may run onto.
FOLLOW_PAGES = 2

_WORD = re.compile(r"[^\W_]+")
_OPENING = frozenset("([{\"'“‘«")
# Characters without a box worth drawing. The marks PDFium leaves for a removed line-end
# hyphen (\x02, \ufffe) keep the hyphen's box, so the highlight covers the printed hyphen.
_SKIP = frozenset("\r\n\t \ufffd")
_HYPHEN_MARKS = frozenset("\x02\ufffe\u00ad")


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle in PDF points; origin at the bottom-left of the page, y grows upwards."""

    left: float
    bottom: float
    right: float
    top: float

    @property
    def width(self) -> float:
        return self.right - self.left

    @property
    def height(self) -> float:
        return self.top - self.bottom


@dataclass(frozen=True)
class PageRects:
    page: int  # 1-based
    width: float  # the page's size in points (crop box)
    height: float
    rects: tuple[Rect, ...]


@dataclass(frozen=True)
class SpanLocation:
    """Where a passage sits: rectangles per page in reading order, and how much was found."""

    pages: tuple[PageRects, ...] = ()
    coverage: float = 0.0  # share of the passage's letters and digits that were found
    note: str = ""  # why nothing was found, when that is the case
    seconds: float = 0.0  # how long the look-up took

    @property
    def found(self) -> bool:
        return any(p.rects for p in self.pages)

    @property
    def first(self) -> tuple[int, Rect] | None:
        for p in self.pages:
            if p.rects:
                return p.page, p.rects[0]
        return None


# --- matching (pure text) ------------------------------------------------------------------


def span_key(text: str) -> tuple[str, list[int]]:
    """``text`` reduced to case-folded letters and digits, with each key character's index in ``text``.

    NFKC expands ligatures ("ﬁ" → "fi") and full-width forms; one text character may give
    several key characters, which then all point back to it.
    """
    out: list[str] = []
    where: list[int] = []
    # Word by word, not character by character: a page has ~1,000 words and ~6,000 characters.
    for m in _WORD.finditer(text):
        word = m.group()
        a = m.start()
        if word.isascii():
            out.append(word.lower())
            where.extend(range(a, a + len(word)))
            continue
        for i, c in enumerate(word, a):
            for k in unicodedata.normalize("NFKC", c).casefold():
                if k.isalnum():
                    out.append(k)
                    where.append(i)
    return "".join(out), where


def _longest_prefix(needle: str, start: int, hay: str, shortest: int) -> int:
    """The length of the longest ``needle[start:start+L]`` that occurs in ``hay`` (0 if < shortest)."""
    if needle[start : start + shortest] not in hay:
        return 0
    lo, hi = shortest, len(needle) - start
    # Occurrence is monotone in the length (a prefix of an occurring piece occurs), so bisect.
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if needle[start : start + mid] in hay:
            lo = mid
        else:
            hi = mid - 1
    return lo


def match_key(needle: str, hay: str) -> list[tuple[int, int, int]]:
    """Lay ``needle`` over ``hay`` in long pieces: ``(needle_start, hay_start, length)`` in needle order.

    Pieces shorter than ``LONG_PIECE`` survive only next to a long piece, so a passage that is
    not on the page yields nothing rather than a scatter of common words.
    """
    m = len(needle)
    if not m or not hay:
        return []
    tiles: list[tuple[int, int, int]] = []
    i = 0
    prev_end = -1
    while i < m:
        length = _longest_prefix(needle, i, hay, min(MIN_PIECE, m - i))
        if not length:
            i += 1
            continue
        piece = needle[i : i + length]
        pos = hay.find(piece, prev_end) if prev_end >= 0 else -1
        if pos < 0:
            pos = hay.find(piece)
        tiles.append((i, pos, length))
        prev_end = pos + length
        i += length
    long_enough = min(LONG_PIECE, m)
    anchors = [t for t in tiles if t[2] >= long_enough]
    if not anchors:
        return []
    kept: list[tuple[int, int, int]] = []
    for t in tiles:
        if t[2] >= long_enough:
            kept.append(t)
            continue
        # Near a long piece in both texts: the passage's own words, not a chance hit.
        if any(_follows(t, a) or _follows(a, t) for a in anchors):
            kept.append(t)
    return kept


def _follows(later: tuple[int, int, int], earlier: tuple[int, int, int]) -> bool:
    """``later`` starts just after ``earlier`` ends, in the passage and on the page alike."""
    return (
        abs(later[0] - (earlier[0] + earlier[2])) <= NEAR and abs(later[1] - (earlier[1] + earlier[2])) <= NEAR
    )


# --- rectangles ------------------------------------------------------------------------------


def _same_line(a: Rect, b: Rect) -> bool:
    overlap = min(a.top, b.top) - max(a.bottom, b.bottom)
    return overlap >= 0.5 * min(a.height, b.height)


def merge_line_rects(boxes: list[Rect]) -> list[Rect]:
    """Character boxes, in text order, merged into one rectangle per line piece.

    A box joins the current rectangle when it sits on the same line just to its right (word
    gaps included); a jump back to the left, to another line or across a column gutter
    starts a new one. Rectangles of the same line that touch are merged afterwards (a
    passage matched in two pieces that meet mid-line).
    """
    lines: list[Rect] = []
    if not boxes:
        return lines
    first = boxes[0]
    cl, cb, cr, ct = first.left, first.bottom, first.right, first.top
    for b in boxes[1:]:
        bl, bb, br, bt = b.left, b.bottom, b.right, b.top
        h = ct - cb if ct - cb > bt - bb else bt - bb
        low = ct - cb if ct - cb < bt - bb else bt - bb
        overlap = (ct if ct < bt else bt) - (cb if cb > bb else bb)
        if overlap >= 0.5 * low and cl - 0.5 <= bl and bl - cr <= 0.9 * h:
            cb, cr, ct = (cb if cb < bb else bb), (cr if cr > br else br), (ct if ct > bt else bt)
            continue
        lines.append(Rect(cl, cb, cr, ct))
        cl, cb, cr, ct = bl, bb, br, bt
    lines.append(Rect(cl, cb, cr, ct))
    merged: list[Rect] = []
    for r in lines:
        for k, m in enumerate(merged):
            h = max(m.height, r.height)
            if _same_line(m, r) and r.left - m.right <= 0.9 * h and m.left - r.right <= 0.9 * h:
                merged[k] = Rect(min(m.left, r.left), min(m.bottom, r.bottom), max(m.right, r.right), max(m.top, r.top))
                break
        else:
            merged.append(r)
    return merged


def _glued(c: str) -> bool:
    return not c.isalnum() and not c.isspace() and c not in _SKIP and c not in _HYPHEN_MARKS


class _TextPage:
    """One page's text, key and character boxes (call only under PDFIUM_LOCK)."""

    def __init__(self, doc: Any, index: int) -> None:
        self.page = doc[index]
        self.textpage = self.page.get_textpage()
        left, bottom, right, top = self.page.get_bbox()
        self.origin = (float(left), float(bottom))
        self.width = float(right - left)
        self.height = float(top - bottom)
        self.rotation = int(self.page.get_rotation() or 0)
        self.text = self.textpage.get_text_range()
        self.mapped = len(self.text) != self.textpage.count_chars()
        self.key, self.where = span_key(self.text)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.textpage.close()
        with contextlib.suppress(Exception):
            self.page.close()

    def _char_index(self, text_index: int) -> int:
        if not self.mapped:
            return text_index
        return int(pdfium_c.FPDFText_GetCharIndexFromTextIndex(self.textpage.raw, text_index))

    def _box(self, char_index: int) -> Rect | None:
        try:
            left, bottom, right, top = self.textpage.get_charbox(char_index, loose=True)
        except Exception:
            return None
        if right - left <= 0 or top - bottom <= 0:
            # Some fonts give no loose box; the tight one is better than none.
            try:
                left, bottom, right, top = self.textpage.get_charbox(char_index, loose=False)
            except Exception:
                return None
            if right - left <= 0 or top - bottom <= 0:
                return None
        ox, oy = self.origin
        return Rect(left - ox, bottom - oy, right - ox, top - oy)

    def _widen(self, first: int, last: int) -> tuple[int, int]:
        """Take in the punctuation glued to a piece's ends ("(see", "below)."), which the key left out."""
        text = self.text
        n = 0
        while n < 3 and first > 0 and text[first - 1] in _OPENING:
            first -= 1
            n += 1
        n = 0
        while n < 3 and last + 1 < len(text) and _glued(text[last + 1]):
            last += 1
            n += 1
        return first, last

    def rects(self, tiles: list[tuple[int, int, int]]) -> list[Rect]:
        boxes: list[Rect] = []
        text = self.text
        for _, hay_start, length in tiles:
            first, last = self._widen(self.where[hay_start], self.where[hay_start + length - 1])
            for ti in range(first, last + 1):
                if text[ti] in _SKIP:
                    continue
                ci = self._char_index(ti)
                if ci < 0:
                    continue
                box = self._box(ci)
                if box is not None:
                    boxes.append(box)
        return merge_line_rects(boxes)


def locate_span(path: Path | str, text: str, page: int) -> SpanLocation:
    """Where ``text`` (a cited passage) sits in the PDF at ``path``, starting on ``page`` (1-based).

    Never raises for a file it cannot read or a passage it cannot find: the result is then
    empty (``found`` is False) with a ``note``; a partly found passage comes back with the
    rectangles of what was found and its ``coverage``.
    """
    t0 = time.perf_counter()
    needle, _ = span_key(text)
    if not needle:
        return SpanLocation(note="the passage has no letters or digits")
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(str(path))
        except Exception:
            return SpanLocation(note="the PDF cannot be opened")
        try:
            found = _locate(doc, needle, page)
        except Exception as e:  # a damaged page must not take the viewer down
            found = SpanLocation(note=f"the PDF text could not be read ({type(e).__name__})")
        finally:
            with contextlib.suppress(Exception):
                doc.close()
    return SpanLocation(found.pages, found.coverage, found.note, time.perf_counter() - t0)


def _locate(doc: Any, needle: str, page: int) -> SpanLocation:
    n_pages = len(doc)
    if n_pages == 0:
        return SpanLocation(note="the PDF has no pages")
    start = min(max(1, page), n_pages)
    opened: dict[int, _TextPage] = {}
    try:
        first = opened[start] = _TextPage(doc, start - 1)
        tiles = match_key(needle, first.key) if not first.rotation % 360 else []
        per_page: dict[int, list[tuple[int, int, int]]] = {start: tiles} if tiles else {}
        if len(needle) - sum(t[2] for t in tiles) >= LONG_PIECE:
            # Not all on its page: the passage may run onto the next pages, or its page number
            # may be off by one. Match once over those pages together, so each piece goes where
            # it is longest instead of to a chance hit on the first page.
            order = [p for p in (start, *range(start + 1, start + FOLLOW_PAGES + 1), start - 1) if 1 <= p <= n_pages]
            for p in order:
                if p not in opened:
                    opened[p] = _TextPage(doc, p - 1)
            usable = [p for p in order if not opened[p].rotation % 360]
            hay, offsets = _joined([opened[p].key for p in usable])
            wide = match_key(needle, hay)
            if sum(t[2] for t in wide) > sum(t[2] for t in tiles):
                per_page = {}
                for n0, h0, length in wide:
                    k = max(j for j, off in enumerate(offsets) if off <= h0)
                    per_page.setdefault(usable[k], []).append((n0, h0 - offsets[k], length))
        matched = sum(t[2] for ts in per_page.values() for t in ts)
        if not matched:
            if first.rotation % 360:
                return SpanLocation(note="the page is rotated")
            return SpanLocation(note="the passage was not found on its page")
        # Pages in the order the passage reads them.
        ordered = sorted(per_page.items(), key=lambda kv: min(t[0] for t in kv[1]))
        pages = []
        for p, ts in ordered:
            tp = opened[p]
            rects = tp.rects(ts)
            if rects:
                pages.append(PageRects(p, tp.width, tp.height, tuple(rects)))
        return SpanLocation(tuple(pages), matched / len(needle))
    finally:
        for tp in opened.values():
            tp.close()


def _joined(keys: list[str]) -> tuple[str, list[int]]:
    """The keys joined by a separator no piece can match across, and where each one starts."""
    offsets: list[int] = []
    pos = 0
    for k in keys:
        offsets.append(pos)
        pos += len(k) + 1
    return "\x00".join(keys), offsets
