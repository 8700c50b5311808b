"""Extract PDF text for the importer: reading-ordered, cleaned page text plus front-matter metadata.

``extract_pdf(path)`` returns one ``Page`` per PDF page that has text (1-based page numbers
kept). Page text follows the chunker's contract: paragraphs are separated by a blank line,
the lines of a paragraph are joined into running text, and detected section headings are
paragraphs of their own that start with ``"# "``.

How it works, and why it is shaped this way:

* PDFium (via pypdfium2) gives the page text in content-stream order with ``\\r\\n`` between
  what it considers lines. Per *line* we ask PDFium for the boxes of its first and last
  character, one font size and (for short lines) the font weight; only suspicious lines
  (spanning the page middle or two rows) get their text rectangles. We never loop over
  every character in Python, because extraction must stay close to the speed of a plain
  ``get_text_range()``.
* Layout is rebuilt from the line boxes: a page is cut into horizontal bands that are either
  full width (title, wide figures and tables) or two columns; a column band is read left
  column first. Footnotes at the bottom of a column move to the end of the page so a
  paragraph that continues in the next column can be joined.
* Lines repeated at the top or bottom of most pages (running headers, footers) and bare
  page numbers are dropped.
* PDFium is not thread-safe: every call into it happens under ``PDFIUM_LOCK``; the layout
  work runs outside the lock.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import math
import re
import statistics
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, chain, pairwise
from operator import attrgetter
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from paperpilot.core.models import Extracted, ImportFailure, Metadata, Page
from paperpilot.core.text.language import detect_language
from paperpilot.core.text.lazy import lazy_pattern
from paperpilot.core.text.messages import Message, msg

from . import metadata as front_matter
from .ocr import OcrLine, image_cover, needs_ocr
from .pdfium_calls import PDFIUM_LOCK, address_arg, keeping_gil, without_argtypes
from .structure_reader import read_structure

__all__ = [
    "PdfScan",
    "clean_line",
    "extract_pdf",
    "finish_pdf",
    "join_lines",
    "read_pdf_for_import",
    "scan_pdf",
]

# --- text clean-up -----------------------------------------------------------------------

# pypdfium2 marks a hyphen that PDFium removed at a line end with \x02 (older builds) or
# \ufffe (newer builds); U+00AD is a soft hyphen that some producers write explicitly.
_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
# Only these ligatures are expanded: NFKC on the whole text would also rewrite full-width
# CJK punctuation, superscripts and math symbols that the reader expects to see unchanged.
_CLEAN_TABLE: dict[int, str | None] = {ord(k): v for k, v in _LIGATURES.items()}
for _c in range(32):
    _CLEAN_TABLE[_c] = " " if chr(_c) in "\t\n" else None
_CLEAN_TABLE.update({0x00AD: None, 0xFFFE: None, 0xFFFF: None, 0x7F: None, 0xA0: " "})

# Anything clean_line would change (the \r\n line ends and hyphen marks are consumed by
# the reader itself); most lines have none, and then cleaning is skipped.
_DIRTY_CHARS = "[\x00-\x01\x03-\x1f\x7f\xa0\xad\ufb00-\ufb06\uffff\u00a8\u00b4\u02c6\u02dc\u00b8\u02da\u02c7\u02d8]"
_LINE_DIRTY = re.compile(_DIRTY_CHARS + "|  ")
_DIRTY_CHAR = re.compile(_DIRTY_CHARS)  # (the first half alone: see _clean_page_lines)


# Character classes spanning tens of thousands of code points take ``re`` milliseconds to
# compile, in every process that imports this module (each extraction worker), and English
# text never needs them: they are compiled on first use, and asked only about text that holds
# a character at least as high as their lowest one.
_cjk_join = lazy_pattern(
    "[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]"
)


def _cjk(ch: str) -> bool:
    """Whether the character ``ch`` is CJK text (joined without spaces)."""
    return ch >= "\u2e80" and _cjk_join().match(ch) is not None


_TERMINAL = frozenset('.!?:。！？：”"')


# Spacing accents that PDFium reports as separate glyphs next to the letter they belong on
# ("Farber ¨ (2019)"); without positions we cannot put them back, so they are dropped.
_ACCENT_CHAR = re.compile("[\u00a8\u00b4\u02c6\u02dc\u00b8\u02da\u02c7\u02d8]")
_STRAY_ACCENT = re.compile(" [\u00a8\u00b4\u02c6\u02dc\u00b8\u02da\u02c7\u02d8](?= |$)")
_WORD_TAIL = re.compile(r"[A-Za-z]+(?:-[A-Za-z]+)*")
_WORD_HEAD = re.compile(r"^[A-Za-z]+")
_COMPOUND = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b")


def clean_line(text: str) -> str:
    """One PDF line made presentable: controls, markers and soft hyphens gone, ligatures expanded."""
    text = text.translate(_CLEAN_TABLE)
    if _ACCENT_CHAR.search(text):
        text = _STRAY_ACCENT.sub("", " " + text)
    if "  " in text or text[:1] == " " or text[-1:] == " ":
        text = " ".join(text.split())
    return text


def join_lines(
    prev: str, nxt: str, hyphen_removed: bool = False, compounds: frozenset[str] = frozenset()
) -> str:
    """Join two cleaned lines of one paragraph into running text.

    ``hyphen_removed`` says PDFium already dropped a line-end hyphen, so the halves belong
    to one word. Otherwise an English word broken as ``infor-`` / ``mation`` is rejoined
    (lowercase letter, hyphen, lowercase letter); CJK text joins without a space.
    ``compounds`` holds hyphenated words seen elsewhere in the document (lowercase): when
    the broken word is one of them ("publisher-provided"), its hyphen is kept.
    """
    if not prev:
        return nxt
    if not nxt:
        return prev
    last = prev[-1]
    first = nxt[0]
    if hyphen_removed or (last == "-" and len(prev) >= 2 and prev[-2].islower() and first.islower()):
        stem = prev[:-1] if not hyphen_removed else prev
        if compounds:
            tail = stem[stem.rfind(" ") + 1 :].lstrip("([{\"'“‘")
            head = _WORD_HEAD.match(nxt)
            if head and _WORD_TAIL.fullmatch(tail) and f"{tail}-{head.group(0)}".lower() in compounds:
                return stem + "-" + nxt
        return stem + nxt
    if last == "-" and len(prev) >= 2 and prev[-2].isalnum():
        # "GPT-" + "4", "ACL-" + "IJCNLP": the hyphen is real, the break is not a space.
        return prev + nxt
    if _cjk(last) and _cjk(first):
        return prev + nxt
    return prev + " " + nxt


# --- PDFium reading (under the lock) -------------------------------------------------------


@dataclass(slots=True)
class _Line:
    """A physical text line (or a part of one, when a line spans a column gap)."""

    text: str
    x0: float
    y0: float  # bottom (PDF coordinates: y grows upwards)
    x1: float
    y1: float  # top
    size: float
    bold: bool
    hyphen: bool  # PDFium removed a hyphen at this line's end: the word continues
    col: int = 0  # 0 full width, 1 left column, 2 right column
    # PDFium's index of the line's first character and the characters it spans (for the
    # character-level reading of the front page in core.extract.metadata).
    cstart: int = -1
    count: int = 0
    note: bool = False  # small print cut off the foot of a column (a footnote)


@dataclass(slots=True)
class _RawPage:
    number: int
    width: float
    height: float
    lines: list[_Line]
    # Why the text layer cannot be used ("no_text", "garbage"; see ocr.needs_ocr), else "".
    ocr: str = ""
    source: str = "text"  # "ocr" once its lines came from OCR


def _lean(func: Any, restype: Any) -> Any:
    """``func`` without ctypes' per-call argument checks and keeping the GIL (see
    ``pdfium_calls``), else without the checks only, else ``func``."""
    return keeping_gil(func, restype) or without_argtypes(func, restype) or func


_LOOSE_BOX = _lean(pdfium_c.FPDFText_GetLooseCharBox, ctypes.c_int)
# In every PDFium pypdfium2 4.30 ships; looked up so that an older build only loses this fallback.
_GET_MATRIX = getattr(pdfium_c, "FPDFText_GetMatrix", None)
_FONT_SIZE = _lean(pdfium_c.FPDFText_GetFontSize, ctypes.c_double)
_FONT_WEIGHT = _lean(pdfium_c.FPDFText_GetFontWeight, ctypes.c_int)
_COUNT_RECTS = _lean(pdfium_c.FPDFText_CountRects, ctypes.c_int)
_GET_RECT = _lean(pdfium_c.FPDFText_GetRect, ctypes.c_int)
_CHAR_INDEX = _lean(pdfium_c.FPDFText_GetCharIndexFromTextIndex, ctypes.c_int)
_LEAN_OK = all(
    lean is not func
    for lean, func in (
        (_LOOSE_BOX, pdfium_c.FPDFText_GetLooseCharBox),
        (_FONT_SIZE, pdfium_c.FPDFText_GetFontSize),
        (_FONT_WEIGHT, pdfium_c.FPDFText_GetFontWeight),
        (_COUNT_RECTS, pdfium_c.FPDFText_CountRects),
        (_GET_RECT, pdfium_c.FPDFText_GetRect),
        (_CHAR_INDEX, pdfium_c.FPDFText_GetCharIndexFromTextIndex),
    )
)
if not _LEAN_OK:  # all or none: the text page is passed one way to all of them
    _LOOSE_BOX = pdfium_c.FPDFText_GetLooseCharBox
    _FONT_SIZE = pdfium_c.FPDFText_GetFontSize
    _FONT_WEIGHT = pdfium_c.FPDFText_GetFontWeight
    _COUNT_RECTS = pdfium_c.FPDFText_CountRects
    _GET_RECT = pdfium_c.FPDFText_GetRect
    _CHAR_INDEX = pdfium_c.FPDFText_GetCharIndexFromTextIndex


class _PageReader:
    """Turns one PDFium text page into ``_Line`` objects with a few C calls per line."""

    def __init__(self, textpage: Any, page_width: float) -> None:
        self.tp = textpage.raw
        # The text page as the lean functions take it: its address, converted once.
        self.tp_addr: Any = address_arg(self.tp) if _LEAN_OK else self.tp
        self.page_mid = page_width / 2
        self.mid_lo = 0.48 * page_width
        self.mid_hi = 0.52 * page_width
        self._last_size = 0.0
        self._prev_bold = False
        self._prev_height = -1.0
        self._box = pdfium_c.FS_RECTF()
        self._matrix = pdfium_c.FS_MATRIX()
        self._box_ptr: Any = ctypes.byref(self._box)
        self._l = ctypes.c_double()
        self._t = ctypes.c_double()
        self._r = ctypes.c_double()
        self._b = ctypes.c_double()
        self._rect_refs = tuple(map(ctypes.byref, (self._l, self._t, self._r, self._b)))
        self._font_buf = ctypes.create_string_buffer(128)
        self._font_flags = ctypes.c_int()
        self._bold_by_name: dict[bytes, bool] = {}

    def read(self, text: str, mapped: bool) -> list[_Line]:
        lines: list[_Line] = []
        pos = 0
        add = self._add
        for seg in text.split("\r\n"):
            start = pos
            pos += len(seg) + 2
            if not seg or seg.isspace():
                continue
            if "\x02" in seg or "\ufffe" in seg:
                # PDFium glued a hyphenated line to the next one; cut them apart again so
                # each keeps its own box (the halves may even sit in different columns).
                *parts, tail = seg.replace("\ufffe", "\x02").split("\x02")
                a = start
                for part in parts:
                    add(lines, a, part, True, mapped)
                    a += len(part) + 1  # the mark is one character
                add(lines, a, tail, False, mapped)
            else:
                add(lines, start, seg, seg[-1] == "\u00ad", mapped)
        return lines

    def _char_index(self, text_index: int, mapped: bool) -> int:
        if not mapped:
            return text_index
        return int(_CHAR_INDEX(self.tp_addr, text_index))

    def _rects(self, start: int, count: int) -> list[tuple[float, float, float, float]]:
        tp = self.tp_addr
        n = _COUNT_RECTS(tp, start, count)
        out = []
        left, top, right, bottom = self._l, self._t, self._r, self._b
        refs = self._rect_refs
        for k in range(n):
            if _GET_RECT(tp, k, *refs):
                out.append((left.value, bottom.value, right.value, top.value))
        return out

    def _add(self, lines: list[_Line], start: int, text: str, hyphen: bool, mapped: bool) -> None:
        n = len(text)
        if not n:
            return
        if text[0] == " " or text[-1] == " ":
            stripped = text.lstrip()
            start += n - len(stripped)
            text = stripped.rstrip()
            n = len(text)
            if not n:
                return
        if mapped:
            cstart = self._char_index(start, mapped)
            count = self._char_index(start + n - 1, mapped) - cstart + 1
        else:
            cstart, count = start, n
        # Fast path: the loose boxes (font ascent to descent) of the first and last
        # character give the line box. Only a line that crosses the middle of the page
        # (it may span a column gutter) or that wraps to another row needs the slower
        # per-rectangle look.
        tp, box, ptr = self.tp_addr, self._box, self._box_ptr
        if _LOOSE_BOX(tp, cstart, ptr):
            ax0, ay0, ay1 = box.left, box.bottom, box.top
            if count == 1 or _LOOSE_BOX(tp, cstart + count - 1, ptr):
                bx1, by0, by1 = box.right, box.bottom, box.top
                ha, hb = ay1 - ay0, by1 - by0
                h = ha if ha < hb else hb
                overlap = (ay1 if ay1 < by1 else by1) - (ay0 if ay0 > by0 else by0)
                if (
                    h > 0
                    and overlap >= 0.3 * h
                    and bx1 >= ax0
                    and not (ax0 < self.mid_lo and bx1 > self.mid_hi)
                ):
                    # The loose box height follows font and size: a line that starts
                    # like the previous one has its size, and needs no lookup.
                    if -0.01 < ha - self._prev_height < 0.01:
                        size = self._last_size
                    else:
                        size = self._size(cstart, text)
                        self._prev_height = ha
                    # Only short lines can be headings, so only they pay for the weight
                    # lookups; a line starting in lowercase only when it may continue a
                    # bold line (a heading over two lines).
                    bold = (
                        n <= 100
                        and (self._prev_bold or not text[0].islower())
                        and self._is_bold(cstart)
                        and self._is_bold(cstart + n - 1)
                    )
                    self._prev_bold = bold
                    y0 = ay0 if ay0 < by0 else by0
                    y1 = ay1 if ay1 > by1 else by1
                    lines.append(_Line(text, ax0, y0, bx1, y1, size, bold, hyphen, 0, cstart, count))
                    return
        rects = self._rects(cstart, count)
        if not rects:
            return
        groups = self._split_groups(rects)
        if len(groups) == 1:
            self._emit(lines, cstart, text, rects, hyphen)
            return
        # Rare: one PDFium line holds text from two rows or from both sides of a column
        # gap. Find the character where each rectangle group starts by bisection.
        cuts = [0]
        for first_rect in groups[1:]:
            lo, hi = cuts[-1] + 1, len(text)
            while lo < hi:
                mid = (lo + hi) // 2
                if _COUNT_RECTS(self.tp_addr, cstart, mid) > first_rect:
                    hi = mid
                else:
                    lo = mid + 1
            cuts.append(max(lo - 1, cuts[-1] + 1))
        cuts.append(len(text))
        bounds = [*groups, len(rects)]
        for g in range(len(groups)):
            piece = text[cuts[g] : cuts[g + 1]]
            stripped = piece.lstrip()
            offset = cuts[g] + len(piece) - len(stripped)
            stripped = stripped.rstrip()
            if not stripped:
                continue
            last = g == len(groups) - 1
            self._emit(lines, cstart + offset, stripped, rects[bounds[g] : bounds[g + 1]], hyphen and last)

    def _split_groups(self, rects: Sequence[tuple[float, float, float, float]]) -> list[int]:
        """Indices of the rects that start a new physical line."""
        starts = [0]
        gx0, gy0, gx1, gy1 = rects[0]
        mid = self.page_mid
        for i in range(1, len(rects)):
            x0, y0, x1, y1 = rects[i]
            h = max(min(gy1 - gy0, y1 - y0), 1.0)
            overlap = min(gy1, y1) - max(gy0, y0)
            gap = x0 - gx1
            new = False
            if overlap < 0.3 * h or x1 < gx0:
                new = True  # another row, or the text went back to the left
            elif gap > 2.5 * h or (gap > 0.9 * h and x0 > mid > gx1):
                new = True  # a column gutter (or a very wide gap) between the two parts
            if new:
                starts.append(i)
                gx0, gy0, gx1, gy1 = x0, y0, x1, y1
            else:
                gx0, gy0 = min(gx0, x0), min(gy0, y0)
                gx1, gy1 = max(gx1, x1), max(gy1, y1)
        return starts

    def _emit(
        self,
        lines: list[_Line],
        cstart: int,
        text: str,
        rects: Sequence[tuple[float, float, float, float]],
        hyphen: bool,
    ) -> None:
        if len(rects) == 1:
            x0, y0, x1, y1 = rects[0]
        else:
            x0 = min(r[0] for r in rects)
            y0 = min(r[1] for r in rects)
            x1 = max(r[2] for r in rects)
            y1 = max(r[3] for r in rects)
        n = len(text)
        size = self._size(cstart, text)
        # Only short lines can be headings, so only they pay for the weight lookups.
        bold = n <= 100 and self._is_bold(cstart) and self._is_bold(cstart + n - 1)
        self._prev_bold = bold
        self._prev_height = -1.0  # the fast path must not reuse this size blindly
        lines.append(_Line(text, x0, y0, x1, y1, size, bold, hyphen, 0, cstart, n))

    def _size(self, cstart: int, text: str) -> float:
        """Font size of the line, from one character in the middle or, if that one differs
        from the previous line, the median of three.

        One sample can mislead on a mixed line (a short word in small capitals, a footnote
        mark); consecutive lines mostly share their size, so usually one call is enough.
        """
        n = len(text)
        tp = self.tp_addr
        mid = n // 2
        while mid < n - 1 and text[mid] == " ":
            mid += 1
        size = round(float(_FONT_SIZE(tp, cstart + mid)), 2)
        if size != self._last_size and n >= 12:
            sizes = [size]
            for pos in (n // 4, (3 * n) // 4):
                while pos < n - 1 and text[pos] == " ":
                    pos += 1
                sizes.append(round(float(_FONT_SIZE(tp, cstart + pos)), 2))
            sizes = [s for s in sizes if s > 1.0]  # generated characters report size 1
            sizes.sort()
            size = sizes[len(sizes) // 2] if sizes else 0.0
        if size <= 1.0:
            # A font set at size 1 and scaled by the text matrix (Elsevier's typesetting, some
            # generators): the matrix holds the size the reader sees.
            size = self._matrix_size(cstart + mid, size)
        self._last_size = size
        return size

    def _matrix_size(self, index: int, size: float) -> float:
        m = self._matrix
        if _GET_MATRIX is None or not _GET_MATRIX(self.tp, index, ctypes.byref(m)):
            return size
        scale = abs(m.a * m.d - m.b * m.c) ** 0.5
        return round(max(size, 1.0) * scale, 2) if scale > 1.5 else size

    def _is_bold(self, index: int) -> bool:
        weight = int(_FONT_WEIGHT(self.tp_addr, index))
        if weight >= 600:
            return True
        if 0 < weight < 500:
            return False
        # No weight (base-14 fonts) or a medium one: the font name tells ("Helvetica-Bold",
        # "Inconsolatazi4-Bold" reports 560).
        n = pdfium_c.FPDFText_GetFontInfo(self.tp, index, self._font_buf, 128, self._font_flags)
        name = self._font_buf.raw[: max(0, min(int(n), 128) - 1)]
        bold = self._bold_by_name.get(name)
        if bold is None:
            low = name.lower()
            bold = any(w in low for w in (b"bold", b"black", b"heavy", b"semibold", b"demi"))
            self._bold_by_name[name] = bold
        return bold


def _load_failure(path: Path) -> ImportFailure:
    """Explain why PDFium refused the file.

    PDFium's last-error code is global and is not always set (a zero-page file leaves the
    previous one), so the decision rests on the file's bytes.
    """
    try:
        with path.open("rb") as fh:
            head = fh.read(65536)
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - 65536))
            tail = fh.read()
    except OSError:
        return ImportFailure(msg("import.unreadable"), "unreadable")
    if b"%PDF-" not in head[:1024]:
        return ImportFailure(msg("import.not_pdf"), "corrupt")
    # An encryption dictionary plus a refusal to open means we lack the password (an
    # empty user password would have opened); the error code alone may be left over.
    if b"/Encrypt" in head or b"/Encrypt" in tail:
        return ImportFailure(msg("import.encrypted"), "encrypted")
    if size <= 1 << 20:
        data = path.read_bytes()
        has_page = re.search(rb"/Type\s*/Page(?![a-zA-Z])", data) is not None
        if not has_page and re.search(rb"/Count\s+0\b", data):
            return ImportFailure(msg("import.no_pages"), "empty")
    return ImportFailure(msg("import.not_pdf"), "corrupt")


def _read_pdf(path: Path) -> tuple[dict[str, str], list[_RawPage], int, front_matter.Front]:
    """Everything PDFium is needed for: metadata, the raw lines of every page and page 1's glyphs."""
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(str(path))
        except Exception:  # any binding error on open means we cannot read it
            raise _load_failure(path) from None
        try:
            n_pages = len(doc)
            if n_pages == 0:
                raise ImportFailure(msg("import.no_pages"), "empty")
            try:
                meta = {k: str(v) for k, v in doc.get_metadata_dict(skip_empty=True).items()}
            except Exception:  # metadata is optional; a broken Info dict must not stop import
                meta = {}
            pages: list[_RawPage] = []
            failed = 0
            front = front_matter.FrontReader()
            for i in range(n_pages):
                try:
                    pages.append(_read_page(doc, i, front))
                except Exception:  # one damaged page should not lose the rest of the paper
                    failed += 1
            if failed == n_pages:
                raise ImportFailure(msg("import.not_pdf"), "corrupt")
            return meta, pages, n_pages, front.front
        except ImportFailure:
            raise
        except Exception:
            raise ImportFailure(msg("import.not_pdf"), "corrupt") from None
        finally:
            with contextlib.suppress(Exception):
                doc.close()


def _read_page(doc: Any, index: int, front: front_matter.FrontReader | None = None) -> _RawPage:
    page = doc[index]
    try:
        width, height = page.get_size()
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_range()
            reason = needs_ocr(text, lambda: image_cover(page, width, height))
            mapped = len(text) != textpage.count_chars()
            # A garbage layer is not worth laying out: OCR replaces it, or the page stays empty.
            lines = _PageReader(textpage, width).read(text, mapped) if text.strip() and reason != "garbage" else []
            if front is not None and front.wants(index):
                # Page 1's characters for the by-line, from the text page that is open anyway.
                spans = [(ln.cstart, ln.count, ln.y1, ln.y0) for ln in lines]
                front.take(index, textpage, float(height), spans, None if mapped else text)
        finally:
            textpage.close()
    finally:
        page.close()
    return _RawPage(index + 1, float(width), float(height), lines, reason)


# --- page layout (no PDFium, no lock) ----------------------------------------------------


def _rows(lines: Sequence[_Line]) -> list[list[_Line]]:
    """Group lines (sorted top-down by the caller) into visual rows, each sorted left to right."""
    rows: list[list[_Line]] = []
    shared: list[list[_Line]] = []  # the rows of more than one line
    row: list[_Line] = []
    ry0 = ry1 = rh = 0.0
    for ln in lines:
        y0, y1 = ln.y0, ln.y1
        # A line whose top is not above the row's bottom cannot overlap it (the usual case).
        if row and y1 > ry0:
            h = y1 - y0
            if rh < h:
                h = rh
            overlap = (y1 if y1 < ry1 else ry1) - (y0 if y0 > ry0 else ry0)
            if overlap >= 0.5 * (h if h > 0.5 else 0.5):
                if len(row) == 1:
                    shared.append(row)
                row.append(ln)
                continue
        row = [ln]
        rows.append(row)
        ry0, ry1, rh = y0, y1, y1 - y0
    for row in shared:
        row.sort(key=_X0)
    return rows


_X0 = attrgetter("x0")
_Y1 = attrgetter("y1")


def _top_down(lines: Iterable[_Line], presorted: bool = False) -> list[_Line]:
    """Reading order of lines that form one block: rows top-down, each row left to right."""
    ordered = lines if presorted and isinstance(lines, list) else sorted(lines, key=_Y1, reverse=True)
    return list(chain.from_iterable(_rows(ordered)))


def _find_gutter(lines: Sequence[_Line], width: float, body: float) -> float | None:
    """The x of the vertical gap between two text columns, or None for a one-column page."""
    # Only lines of running text vote: text inside figures and footnote marks would
    # otherwise suggest gutters of their own. Running text is the body's size, or the page's
    # own where a whole page is set smaller (a reference list, back matter).
    long_lines = [ln for ln in lines if len(ln.text) >= 10]
    min_size = 0.8 * body
    if long_lines:
        sizes = sorted([ln.size for ln in long_lines])
        min_size = 0.8 * min(body, sizes[len(sizes) // 2])
    text_lines = [ln for ln in long_lines if ln.size >= min_size]
    if len(text_lines) < 6:
        return None
    lo, hi, step = 0.3 * width, 0.7 * width, 2.0
    nbins = int((hi - lo) / step) + 1
    diff = [0] * (nbins + 1)
    for ln in text_lines:
        x0, x1 = ln.x0, ln.x1
        if x1 <= lo or x0 >= hi:
            continue
        d0 = x0 + 1 - lo
        # A line starting left of the range covers it from bin 0 (a left column's lines do):
        # no division for them. (d0 / step > -1 exactly when d0 > -step, step being 2.)
        b0 = int(d0 / step) + 1 if d0 > -step else 0
        b1 = int((x1 - 1 - lo) / step) + 1
        if b1 > nbins:
            b1 = nbins
        if b0 < b1:
            diff[b0] += 1
            diff[b1] -= 1
    cover = list(accumulate(diff[:nbins]))
    least = min(cover)
    if least > 0.4 * len(text_lines):
        return None
    # The longest run of least-covered bins; among equals, the one nearest the middle.
    idx = [i for i, c in enumerate(cover) if c == least]
    best_key: tuple[int, float] = (-1, 0.0)
    gutter = width / 2
    run_start = prev = idx[0]
    for i in [*idx[1:], -2]:
        if i == prev + 1:
            prev = i
            continue
        centre = lo + step * (run_start + prev) / 2
        key = (prev - run_start, -abs(centre - width / 2))
        if key > best_key:
            best_key, gutter = key, centre
        run_start = prev = i
    # The two sides must be text columns standing next to each other.
    wide = 0.2 * width
    n_left = 0
    wide_left = wide_right = False
    ltop, lbot = -1e9, 1e9
    right_side: list[_Line] = []
    left_edge, right_edge = gutter + 2, gutter - 2
    for ln in text_lines:
        x0, x1 = ln.x0, ln.x1
        if x1 <= left_edge:
            n_left += 1
            if ln.y1 > ltop:
                ltop = ln.y1
            if ln.y0 < lbot:
                lbot = ln.y0
            if x1 - x0 > wide:
                wide_left = True
        elif x0 >= right_edge:
            right_side.append(ln)
            if x1 - x0 > wide:
                wide_right = True
    if n_left < 2 or len(right_side) < 2 or not (wide_left and wide_right):
        return None
    beside = sum(1 for ln in right_side if ln.y0 < ltop and ln.y1 > lbot)
    return gutter if beside >= 2 else None


def _reading_order(lines: list[_Line], width: float, body: float) -> list[list[_Line]]:
    """Lines grouped into sequences in reading order; footnotes come last.

    A sequence is a run of lines read top-down: a full-width band, or one column of a
    two-column band. Paragraphs may continue from one sequence into the next.
    """
    if not lines:
        return []
    vertical = len([ln for ln in lines if ln.y1 - ln.y0 > 2 * (ln.x1 - ln.x0) and len(ln.text) > 3])
    if vertical > len(lines) / 2:
        return [lines]  # rotated page (a landscape table): trust the content stream
    gutter = _find_gutter(lines, width, body)
    if gutter is None:
        body_part, foot_part = _split_footnotes(_top_down(lines), body)
        return [s for s in (body_part, foot_part) if s]
    tol = 0.02 * width
    g_lo, g_hi, g2 = gutter - tol, gutter + tol, 2 * gutter
    for ln in lines:
        x0, x1 = ln.x0, ln.x1
        if x0 < g_lo and x1 > g_hi:
            ln.col = 0
        else:
            ln.col = 1 if x0 + x1 < g2 else 2  # the middle left of the gutter (halving is exact)
    # Horizontal bands, top to bottom: full width or two columns.
    bands: list[tuple[bool, list[_Line]]] = []
    band: list[_Line] = []
    in_full: bool | None = None
    for ln in sorted(lines, key=_Y1, reverse=True):  # bands and their columns stay sorted
        full = ln.col == 0
        if full is not in_full:
            band = []
            bands.append((full, band))
            in_full = full
        band.append(ln)
    # A "column band" of a line or three between full-width lines is really part of a
    # centred block (authors and affiliations set side by side): read it row by row.
    merged: list[tuple[bool, list[_Line]]] = []
    for full, band in bands:
        full = full or len(band) <= 3
        if merged and merged[-1][0] and full:
            merged[-1][1].extend(band)
        else:
            merged.append((full, band))
    seqs: list[list[_Line]] = []
    notes: list[_Line] = []
    for full, band in merged:
        if full:
            seqs.append(_top_down(band, presorted=True))
            continue
        for col in (1, 2):
            column = [ln for ln in band if ln.col == col]
            part, foot = _split_footnotes(_top_down(column, presorted=True), body)
            if part:
                seqs.append(part)
            notes.extend(foot)
    if notes:
        seqs.append(notes)
    return seqs


def _split_footnotes(seq: list[_Line], body: float) -> tuple[list[_Line], list[_Line]]:
    """Cut small-print lines off the bottom of a column (footnotes)."""
    if body <= 0 or len(seq) < 3:
        return seq, []
    k = len(seq)
    while k > 0 and (seq[k - 1].size < 0.88 * body or len(seq[k - 1].text) <= 2):
        k -= 1
    if k == len(seq) or k == 0:
        return seq, []
    # A footnote block is set off from the body text above it.
    above, first = seq[k - 1], seq[k]
    if above.y0 - first.y1 < 0.2 * body and not above.hyphen:
        return seq, []
    # Back matter set small under its own headings (BMC's "Competing interests",
    # "Acknowledgments" at the foot of the last column) is no footnote.
    for ln in seq[k:]:
        if len(ln.text) <= 40 and _strip_heading_number(ln.text).rstrip(":.").strip().lower() in _SECTION_NAMES:
            return seq, []
    for ln in seq[k:]:
        ln.note = True
    return seq[:k], seq[k:]


# --- headings ------------------------------------------------------------------------------


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_HEADING_WORDS = _words(
    """abstract introduction background methods method methodology approach experiments
    experiment evaluation results discussion conclusion conclusions limitations references
    bibliography acknowledgments acknowledgements acknowledgment acknowledgement appendix
    appendices analysis preliminaries summary"""
)
_HEADING_PHRASES = frozenset(
    {
        "related work",
        "related works",
        "future work",
        "experimental setup",
        "experimental results",
        "conclusion and future work",
        "conclusions and future work",
        "ethics statement",
        "ethical considerations",
        "broader impact",
        "supplementary material",
        "problem formulation",
        "author contributions",
    }
)
# Names a section may have, set in any type (the footnote test asks).
_SECTION_NAMES = _HEADING_WORDS | _HEADING_PHRASES | frozenset(
    {"competing interests", "conflict of interest", "conflicts of interest", "author details",
     "authors' contributions", "authors’ contributions", "funding", "data availability"}
)  # fmt: skip
_ZH_HEADING_WORDS = _words(
    "摘要 引言 前言 绪论 背景 相关工作 方法 实验 结果 讨论 结论 总结 致谢 参考文献 附录 结语"
)
_NUMBERED = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.|[A-H](?:\.\d{1,2}){0,2}\.?)\s+(\S.*)$")
# A label, a colon and its value: a thesis cover's or a form's field, never a heading.
_FORM_FIELD = re.compile(r"^[^\W\d_]{1,8}\s*[：:]\s*\S")


_zh_numbered_re = lazy_pattern(
    r"^(?:[一二三四五六七八九十百]+[、.．]|[（(][一二三四五六七八九十]+[）)]|第[一二三四五六七八九十百\d]+[章节部分篇条]"
    r"|\d{1,2}(?:\.\d{1,2}){0,3}\.?\s*(?=[\u4e00-\u9fff]))"
)


def _zh_numbered(text: str) -> bool:
    """A Chinese section number leads ``text`` ("一、", "（二）", "第3章", "2.1 方法"); every form
    holds a Han character, so text without one is not asked (see ``_cjk_join``)."""
    return not text.isascii() and max(text) >= "\u4e00" and _zh_numbered_re().match(text) is not None


# Compiled on first use: asked only of lines with a "." after a leading I, V or X.
_roman_caps = lazy_pattern(r"^[IVX]{1,5}\.\s+[A-Z][A-Z0-9 ,&:\-–]{2,60}$")
# Four leader dots ("." "⋅" "·", a space after each allowed) or two ellipses. Both patterns here
# only answer whether there is a match; each starts with the one character class its
# matches start with (the rest looks behind), so ``re`` skips ahead in C instead of trying
# a match at every position.
_LEADER = re.compile(r"[.⋅·…](?:(?<=[.⋅·])(?: ?[.⋅·]){3}|(?<=…)…)")
# One sentence ending and another starting: headings are phrases, so a "heading" with this
# inside is a bold or letter-led paragraph ("A Bigtable is a sparse … map. The map is …"):
# two letters, ".!?", spaces and a capital, or a Chinese sentence end before anything.
_SENTENCE_INSIDE = re.compile(r"[.!?。！？](?:(?<=[^\W\d_]{2}[.!?]) +[A-Z]|(?<=[。！？]).)")
_ZH_SENTENCE_END = lazy_pattern("[。；，！？]")  # Chinese headings only


# What a section number may start with (``\d`` is any decimal digit; ``isdigit`` takes more).
_NUMBER_LEADS = frozenset("IVXABCDEFGH")


def _strip_heading_number(text: str) -> str:
    if not (text[:1].isdigit() or text[:1] in _NUMBER_LEADS):
        return text  # no number can start here: the pattern need not be asked
    m = _NUMBERED.match(text)
    return m.group(1) if m else text


def _heading_strength(ln: _Line, text: str, body: float) -> int:
    """2: surely a section heading (numbered or a known name, set off by type);
    1: maybe one (only its big type says so); 0: not a heading."""
    n = len(text)
    if n < 2 or n > 100 or text[-1] in ",;":
        return 0
    if "@" in text or "://" in text or _LEADER.search(text):
        return 0  # an address, or a table-of-contents entry with dot leaders
    bigger = ln.size >= body * 1.08 if body > 0 else False
    # IEEE sets its section headings in small capitals of the body's size, neither bold nor big:
    # a Roman numeral and capitals ("IV. RESULTS") is as sure a mark.
    emphasised = (
        ln.bold
        or bigger
        or (text[0] in "IVX" and text.find(".", 1, 6) > 0 and _roman_caps().match(text) is not None)
    )
    if not emphasised and (n > 30 or not (text[0].isupper() or _cjk(text[0]))):
        return 0  # plain type: only a short, capitalised known name can be a heading
    if _cjk(text[0]) or _zh_numbered(text):
        if n > 30 or _ZH_SENTENCE_END().search(text[:-1]) or text[-1] in "。，；":
            return 0
        if _FORM_FIELD.match(text):
            return 0  # a cover's form field ("作者姓名：莫晃锐", "学科专业：流体力学")
        if text.replace(" ", "") in _ZH_HEADING_WORDS or (_zh_numbered(text) and emphasised):
            return 2
        return 1 if body > 0 and ln.size >= body * 1.15 else 0
    words = text.split()
    if len(words) > 12:
        return 0
    key = _strip_heading_number(text).rstrip(":.").strip().lower()
    if (key in _HEADING_WORDS or key in _HEADING_PHRASES) and (
        emphasised or (key == text.lower() and text[0].isupper())
    ):
        return 2
    if text[-1] == ".":
        return 0
    m = _NUMBERED.match(text) if text[0].isdigit() or text[0] in _NUMBER_LEADS else None
    if m and emphasised:
        rest = m.group(1)
        if (rest[0].isupper() or _cjk(rest[0])) and len(rest.split()) <= 10:
            return 0 if rest.startswith(("http", "www")) else 2
    if body > 0 and ln.size >= body * 1.2 and _THREE_LETTERS.search(text):
        return 1
    return 0


def _style(ln: _Line) -> tuple[float, bool]:
    return (round(ln.size * 2) / 2, ln.bold)


class _Headings:
    """Decides headings for a document.

    Big type alone is weak evidence: plots and diagrams carry text in all sizes. A line
    that is only big counts as a heading when it shares its style (size, boldness) with
    the document's sure headings, or, in a document without any, when it is bold or
    clearly big.
    """

    def __init__(self, pages: Sequence[_RawPage], body: float, skip: set[int]) -> None:
        self.body = body
        self.styles: set[tuple[float, bool]] = set()
        self.strength: dict[int, int] = {}
        big = body * 1.08
        weak_pages: list[tuple[_RawPage, list[_Line]]] = []  # the pages with weak headings
        for p in pages:
            weak: list[_Line] = []
            for ln in p.lines:
                text = ln.text
                if len(text) > 100:
                    continue
                if not ln.bold and ln.size < big and (len(text) > 30 or text[0].islower()):
                    continue  # the common case, decided without the full test below
                if id(ln) in skip:
                    continue
                strength = _heading_strength(ln, text, body)
                if strength == 2:
                    self.strength[id(ln)] = strength
                    self.styles.add(_style(ln))
                elif strength:
                    self.strength[id(ln)] = strength
                    weak.append(ln)
            if weak:
                weak_pages.append((p, weak))
        self._plain_numbered(pages, big, skip)
        # A page of form fields (a thesis cover: 作者姓名：…, 指导教师：…, 培养单位：…) has no
        # headings; its other big lines are the fields' values, broken over lines.
        for p, weak in weak_pages:
            if sum(1 for ln in p.lines if len(ln.text) <= 30 and _FORM_FIELD.match(ln.text)) >= 3:
                for ln in weak:
                    del self.strength[id(ln)]

    def _plain_numbered(self, pages: Sequence[_RawPage], big: float, skip: set[int]) -> None:
        """Headings set in the body's own type, told apart only by their numbers and their
        short lines (Elsevier's "2. Methods", "2.1. Characterisation of flow regime", whose
        fonts report neither weight nor size). Taken only when at least two of them are known
        section names ("1. Introduction", "4. Discussion"), and then only lines numbered the
        same way (with or without the final dot) that end well short of the column's edge."""
        found: list[tuple[_Line, bool, bool]] = []  # line, a known section name, number ends with "."
        for p in pages:
            full = -1.0  # the page's typical full line width, measured when a candidate needs it
            for ln in p.lines:
                text = ln.text
                if not text[0].isdigit() or ln.bold or ln.size >= big or id(ln) in self.strength or id(ln) in skip:
                    continue
                m = _NUMBERED.match(text)
                if m is None or len(text) > 80 or text[-1] in ".,;:":
                    continue
                if full < 0:
                    widths = sorted(x.x1 - x.x0 for x in p.lines if len(x.text) >= 40)
                    full = widths[len(widths) // 2] if widths else 0.0
                if not full or ln.x1 - ln.x0 > 0.7 * full:
                    continue
                rest = m.group(1)
                if not rest[0].isupper() or len(rest.split()) > 10 or not _THREE_LETTERS.search(rest):
                    continue
                number = text[: m.start(1)].rstrip()
                key = rest.rstrip(":.").strip().lower()
                found.append((ln, key in _HEADING_WORDS or key in _HEADING_PHRASES, number.endswith(".")))
        for dotted in (True, False):
            same = [ln for ln, _, d in found if d == dotted]
            if sum(1 for _, known, d in found if known and d == dotted) >= 2:
                for ln in same:
                    self.strength[id(ln)] = 2

    def weak_ok(self, ln: _Line) -> bool:
        """Whether a line whose only heading trait is big type counts as a heading."""
        if self.styles:
            return _style(ln) in self.styles
        return ln.bold or ln.size >= 1.35 * self.body


# --- paragraphs ----------------------------------------------------------------------------

_CAPTION_START = frozenset("FTALS图表")
_BULLETS = frozenset("•◦▪‣●○■□➢✓")
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table|Algorithm|Listing|Scheme)\s*[A-Z]?\d+[.:]|^[图表]\s*\d+")


def _typical_gap(seqs: Sequence[Sequence[_Line]]) -> float:
    gaps: list[float] = []
    for seq in seqs:
        gaps += [
            g
            for a, b in pairwise(seq)
            if 0 < (g := a.y0 - b.y1) < 2.5 * a.size and -0.5 < a.size - b.size < 0.5
        ]
    if gaps:
        return float(statistics.median(gaps))
    return 0.3 * max((ln.size for s in seqs for ln in s), default=10.0)


class _Para:
    """A paragraph being assembled; ``kind`` is body, heading, caption or title."""

    __slots__ = (
        "col_left",
        "kind",
        "last",
        "left",
        "lines",
        "note",
        "right",
        "row_x0",
        "rows",
        "size",
        "sized",
        "text",
    )

    def __init__(self, kind: str, line: _Line, text: str, right: float, col_left: float = 0.0) -> None:
        self.kind = kind
        self.last = line
        self.text = text
        self.right = right
        self.col_left = col_left
        self.left = line.x0
        self.row_x0 = line.x0  # where the current visual row starts
        self.lines = 1
        self.size = line.size
        self.sized = len(text) >= 15
        self.note = line.note
        # The visual rows as printed, pieces of one row apart: a table keeps them.
        self.rows: list[list[str]] = [[text]]

    def add(
        self,
        line: _Line,
        text: str,
        compounds: frozenset[str],
        right: float,
        col_left: float = 0.0,
        same_row: bool = False,
    ) -> None:
        """Append a line (``same_row``: a further piece of the row already added last)."""
        prev = self.text
        last = prev[-1]
        if self.last.hyphen or last == "-" or (last >= "\u2e80" and text[0] >= "\u2e80"):
            self.text = join_lines(prev, text, self.last.hyphen, compounds)
        else:
            self.text = prev + " " + text
        if not self.sized and len(text) >= 15:
            # The first real line sets the size, not a footnote mark or a lone symbol.
            self.size = line.size
            self.sized = True
        if not same_row:
            if right != self.right or line.x0 < self.left:
                self.left = line.x0  # further out, or continued in another column
            self.row_x0 = line.x0
            self.lines += 1
            self.rows.append([text])
        else:
            self.rows[-1].append(text)
        self.last = line
        self.right = right
        self.col_left = col_left

    @property
    def heading(self) -> bool:
        return self.kind == "heading"

    def is_open(self, colw: float) -> bool:
        """Ends mid-sentence on a full line: the text probably goes on elsewhere."""
        return (
            self.kind == "body"
            and (self.last.hyphen or self.text[-1] not in _TERMINAL)
            and self.last.x1 >= self.right - 0.1 * colw
        )


def _paragraphs(
    seqs: list[list[_Line]], is_heading: _Headings, title: set[int], compounds: frozenset[str]
) -> list[_Para]:
    body = is_heading.body
    strength = is_heading.strength
    paras: list[_Para] = []
    gap_norm = _typical_gap(seqs)
    cur: _Para | None = None
    # A body paragraph cut off by a column break or a float (figure, caption, footnote)
    # that the next ordinary text line may resume.
    held: _Para | None = None
    prev_colw = 1.0
    for seq in seqs:
        # The column's left margin: nothing of substance starts further left (blocks such
        # as an indented abstract only start further right).
        starts = [ln.x0 for ln in seq if len(ln.text) >= 10]
        left = min(starts) if starts else min([ln.x0 for ln in seq])
        # The right margin: where most full lines end (a few may stick out a little).
        ends = sorted([ln.x1 for ln in seq])
        right = max(ends[(len(ends) * 3) // 4], ends[-1] - 4)
        colw = max(right - left, 1.0)
        # Ragged-right text has short lines everywhere; only in justified text does a
        # short line ending a sentence mark the end of a paragraph.
        edge = right - 0.03 * colw
        justified = len(ends) - bisect_left(ends, edge) >= 0.5 * len(seq)  # lines ending at the edge
        short_edge = right if justified else 0.0
        if cur is not None and cur.last.col != 0 and cur.is_open(prev_colw):
            held = cur  # column text running on into the next column
        cur = None
        for ln in seq:
            text = ln.text
            if cur is not None:
                last = cur.last
                # Another piece of the same visual row (a footnote mark, a split line).
                if (
                    ln.x0 >= last.x1 - 1
                    and ln.y1 > last.y0
                    and ln.y0 < last.y1
                    and _same_row(last, ln)
                    # A centred heading and the other column's line level with it are two things.
                    and (cur.kind != "heading" or ln.x0 - last.x1 < 3 * max(ln.size, 1.0))
                ):
                    cur.add(ln, text, compounds, right, left, same_row=True)
                    continue
            if title and id(ln) in title:
                if cur is not None and cur.kind == "title":
                    cur.add(ln, text, compounds, right, left)
                else:
                    cur = _Para("title", ln, text, right, left)
                    paras.append(cur)
                continue
            hs = strength.get(id(ln), 0)
            if hs and (hs == 2 or is_heading.weak_ok(ln)):
                held = None
                if cur is not None and cur.kind == "heading" and _heading_goes_on(cur.last, ln, text):
                    cur.add(ln, text, compounds, right, left)
                else:
                    cur = _Para("heading", ln, text, right, left)
                    paras.append(cur)
                continue
            if cur is not None and cur.kind == "heading":
                if ln.bold and _heading_goes_on(cur.last, ln, text):
                    cur.add(ln, text, compounds, right, left)
                    continue
                caption = False
            else:
                m = _CAPTION.match(text) if text[0] in _CAPTION_START else None
                # "Table 4. On average ..." may just be a sentence; "Table 4:" never is.
                caption = m is not None and (m.group(0)[-1] != "." or ln.size < body - 0.3)
                if cur is not None and not caption and cur.kind != "title":
                    a = cur.last
                    if a.hyphen or _continues(cur, a, ln, left, short_edge, colw, gap_norm):
                        prev = cur.text
                        tail = prev[-1]
                        if a.hyphen or tail == "-" or (tail >= "\u2e80" and text[0] >= "\u2e80"):
                            cur.add(ln, text, compounds, right, left)
                            continue
                        # The common case, inlined: running text on the next row.
                        cur.text = prev + " " + text
                        if not cur.sized and len(text) >= 15:
                            cur.size = ln.size
                            cur.sized = True
                        x0 = ln.x0
                        if right != cur.right or x0 < cur.left:
                            cur.left = x0
                        cur.row_x0 = x0
                        cur.lines += 1
                        cur.rows.append([text])
                        cur.last = ln
                        cur.right = right
                        cur.col_left = left
                        continue
            if (
                held is not None
                and not caption
                and (held.last.col != 0) == (ln.col != 0)
                and -0.3 <= held.size - ln.size <= 0.3
                # Same indent as the held paragraph's last line: none for running text,
                # a hanging indent inside a reference entry.
                and abs((ln.x0 - left) - (held.row_x0 - held.col_left)) < 0.6 * max(ln.size, 1.0)
            ):
                held.add(ln, text, compounds, right, left)
                cur, held = held, None
                continue
            if cur is not None and cur.is_open(colw) and (caption or abs(cur.size - ln.size) > 0.3):
                held = cur
            elif held is not None and not caption and abs(held.size - ln.size) <= 0.3:
                held = None  # ordinary text started elsewhere: the held paragraph has ended
            cur = _Para("caption" if caption else "body", ln, text, right, left)
            paras.append(cur)
        prev_colw = colw
    return paras


def _heading_goes_on(a: _Line, b: _Line, text: str) -> bool:
    """Whether ``b`` is the second line of the heading that ends with ``a``."""
    return (
        abs(a.size - b.size) < 0.6
        and a.bold == b.bold
        and -0.5 * b.size < a.y0 - b.y1 < 0.8 * b.size
        and len(text) <= 80
        and (text.isupper() or not a.text.isupper())  # a heading in capitals goes on in capitals
        and not _NUMBERED.match(text)
        and _strip_heading_number(text).lower().rstrip(":.") not in _HEADING_WORDS
    )


def _same_row(a: _Line, b: _Line) -> bool:
    if b.x0 < a.x1 - 1 or b.y1 <= a.y0 or b.y0 >= a.y1:
        return False
    h = min(a.y1 - a.y0, b.y1 - b.y0)
    return min(a.y1, b.y1) - max(a.y0, b.y0) >= 0.5 * (h if h > 0.5 else 0.5)


def _continues(
    para: _Para,
    a: _Line,
    b: _Line,
    left: float,
    right: float,
    colw: float,
    gap_norm: float,
) -> bool:
    """Whether line ``b`` (same sequence) continues ``para``, whose last line is ``a``."""
    if b.text[0] in _BULLETS:
        return False  # a list item starts a paragraph of its own
    size = para.size
    if b.size > size:
        size = b.size
    d = para.size - b.size
    if (d > 0.12 * size or d < -0.12 * size) and len(b.text) >= 15:
        return False
    gap = a.y0 - b.y1
    if gap > gap_norm + 0.45 * size or gap < -0.5 * size:
        return False
    # Indents are measured against the paragraph's own lines, since a column may also hold
    # narrower blocks (an indented abstract, a list). A first-line indent after a line at
    # the paragraph's margin starts a new paragraph; the lines after the first one of a
    # list item or reference entry hang indented, and going back out starts the next item.
    if para.lines >= 2:
        a_x0 = para.row_x0
        step = b.x0 - a_x0
        if step > 0.6 * size and a_x0 <= para.left + 1 and b.x0 - left < 0.3 * colw:
            return False
        if step < -0.6 * size and a_x0 > para.left + 0.6 * size:
            return False
    # ``right`` is 0 for ragged-right text, where line length says nothing.
    return not (a.x1 < right - 0.12 * colw and para.text[-1] in _TERMINAL)


# --- headers, footers, page numbers --------------------------------------------------------

# "12", "- 12 -", "Page 3 of 10", "3 / 10", "xiv", "第 3 页".
_PAGE_NUMBER = re.compile(
    r"^(?:page\s+|p\.\s*|第\s*)?[-–—]?\s*(?:\d{1,4}|(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3}))\s*[-–—]?"
    r"(?:\s*(?:of|/)\s*\d{1,4})?\s*页?$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")


def _edge_lines(lines: Sequence[_Line], rows: int = 3) -> list[_Line]:
    """Lines in the top and bottom ``rows`` rows of a page (fewer on a sparse page)."""
    if not lines:
        return []
    by_top = sorted(lines, key=_Y1, reverse=True)
    if len(by_top) > 40:
        # Only the rows at the two ends matter; do not group the whole page into rows.
        top, bottom = _rows(by_top[:15]), _rows(by_top[-15:])
        n_rows = 4 * rows
    else:
        top = bottom = _rows(by_top)
        n_rows = len(top)
    k = min(rows, max(1, n_rows // 4))
    picked = top[:k] + bottom[max(k, len(bottom) - k) if top is bottom else len(bottom) - k :]
    return [ln for row in picked for ln in row]


def _furniture(pages: Sequence[_RawPage]) -> set[int]:
    """ids of running headers, footers and page numbers to drop."""
    drop: set[int] = set()
    keys_per_page: list[dict[str, list[_Line]]] = []
    for p in pages:
        keys: dict[str, list[_Line]] = {}
        for ln in _edge_lines(p.lines):
            if _PAGE_NUMBER.match(ln.text):
                drop.add(id(ln))
                continue
            keys.setdefault(_DIGITS.sub("#", ln.text.lower()), []).append(ln)
        keys_per_page.append(keys)
    n = len(pages)
    if n < 3:
        return drop
    counts: Counter[str] = Counter()
    parity: list[Counter[str]] = [Counter(), Counter()]
    for i, keys in enumerate(keys_per_page):
        counts.update(keys.keys())
        parity[i % 2].update(keys.keys())
    repeated = {k for k, c in counts.items() if c >= max(2, math.ceil(0.5 * n))}
    if n >= 4:
        # Alternating headers: author names on even pages, the title on odd ones.
        for side, half in ((0, (n + 1) // 2), (1, n // 2)):
            repeated |= {k for k, c in parity[side].items() if c >= max(2, math.ceil(0.5 * half))}
    for p, keys in zip(pages, keys_per_page, strict=True):
        page_drop = {id(ln) for key, lns in keys.items() if key in repeated for ln in lns}
        # A header never stands alone: if nothing would be left, these are content lines
        # that merely look alike from page to page.
        if page_drop and any(id(ln) not in page_drop and id(ln) not in drop for ln in p.lines):
            drop |= page_drop
    return drop


# --- metadata ------------------------------------------------------------------------------

_DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+")
_ARXIV_NEW = re.compile(r"(?:arxiv\s*:\s*|arxiv\.org/(?:abs|pdf)/)(\d{4}\.\d{4,5})(?:v\d+)?", re.IGNORECASE)
# Compiled on first use (core.text.lazy), as are the by-line patterns below: most papers
# never need them (no old-style arXiv number; authors from the PDF's own fields).
_ARXIV_OLD = lazy_pattern(
    r"\b((?:hep-(?:th|ph|ex|lat)|astro-ph|cond-mat|gr-qc|math-ph|nucl-(?:th|ex)|quant-ph|nlin"
    r"|physics|math|cs|q-bio|q-fin|stat)(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
)
_SEVEN_DIGITS = re.compile(r"/\d{7}")
_YEAR = re.compile(r"(?<![\d.])(19\d\d|20[0-3]\d)(?![\d])")
_VENUE_CUE = re.compile(
    r"proceedings|conference|journal|transactions|workshop|symposium|copyright|©|\(c\)|"
    r"published|accepted|received|vol\.|volume|preprint|arxiv|会议|学报|期刊",
    re.IGNORECASE,
)
_VENUE = re.compile(
    r"((?:Proceedings of|Findings of|Transactions (?:of|on)|Journal of|Advances in|"
    r"Conference on|Workshop on|Symposium on)\b.*)",
)
_VENUE_CUT = re.compile(
    r",\s*(?:pages?|pp\.|vol\.|volume|no\.|\d|january|february|march|april|may|june|july|"
    r"august|september|october|november|december)|\.\s|\.$|\s\(",
    re.IGNORECASE,
)
_JUNK_TITLE = re.compile(
    r"^(?:microsoft\s+(?:word|powerpoint)\b|untitled|title|document\d*|slide\s*\d*|pii:|"
    r"doi:|arxiv:|none|null|unknown|template)|\.(?:docx?|pdf|tex|dvi|rtf|odt|pptx?|indd|qxd)$",
    re.IGNORECASE,
)
_JUNK_AUTHOR = re.compile(
    r"^(?:user|admin(?:istrator)?|owner|author|authors|unknown|none|null|test|default|"
    r"microsoft.*|.*@.*|\W*)$",
    re.IGNORECASE,
)
_AFFILIATION = lazy_pattern(
    r"universit|institut|college|school|department|dept\.|laborator|\blab\b|research|"
    r"academy|center|centre|inc\.|ltd|corporation|company|google|microsoft|meta\b|amazon|"
    r"allen|hospital|faculty|@|http|www\.|\.com|\.edu|\.org|大学|学院|研究所|研究院|实验室|公司",
    re.IGNORECASE,
)
_NAME_SEPARATORS = lazy_pattern(
    r"[^\w\s.'’\-]|[\d_\u00b2\u00b3\u00b9\u2070-\u209f]|[\u03b1-\u03c9]|\s+(?:and|&)\s+|\s{3,}|,|;|，|、|；",
    re.UNICODE,
)
_PARTICLES = _words("van von der de den da di del della la le du dos bin al el")


def _plausible_title(value: str) -> bool:
    """Whether the PDF's own Title field holds a real title (not "Microsoft Word - x.docx")."""
    v = value.strip()
    if len(v) < 4 or _JUNK_TITLE.search(v) or not any(c.isalpha() for c in v):
        return False
    # One word without spaces is usually a file name ("main", "paper_final").
    return " " in v or (max(v) >= "\u2e80" and _cjk_join().search(v) is not None)


def _split_authors(value: str) -> list[str]:
    parts = re.split(r"\s*(?:;|,|，|、|；|\band\b|&)\s*", value)
    names = [" ".join(p.split()) for p in parts if p.strip()]
    return [n for n in names if any(c.isalpha() for c in n)]


def _looks_like_name(text: str) -> bool:
    if not text or len(text) > 40:
        return False
    if _cjk(text[0]):
        return 2 <= len(text) <= 4 and all(map(_cjk, text))
    tokens = text.split()
    if not 2 <= len(tokens) <= 5:
        return False
    for t in tokens:
        if t.lower() in _PARTICLES:
            continue
        if not (t[0].isupper() and all(c.isalpha() or c in ".'’-" for c in t)):
            return False
    return True


def _authors_from_lines(lines: Sequence[str]) -> list[str]:
    names: list[str] = []
    for text in lines:
        if _AFFILIATION().search(text):
            continue
        pieces = [" ".join(p.split()) for p in _NAME_SEPARATORS().split(text)]
        pieces = [p for p in pieces if p and any(c.isalpha() for c in p)]
        if not pieces:
            continue
        good = [p for p in pieces if _looks_like_name(p)]
        if len(good) >= max(1, math.ceil(0.6 * len(pieces))):
            names.extend(g for g in good if g not in names)
    return names


def _clean_doi(doi: str) -> str:
    doi = doi.rstrip(".,;:'\"]}")
    while doi.endswith(")") and doi.count(")") > doi.count("("):
        doi = doi[:-1].rstrip(".,;:")
    return doi


def _find_year(cue_lines: Sequence[str], page1: str, arxiv_id: str, created: str) -> int | None:
    for text in cue_lines:
        m = _YEAR.search(text)
        if m and _VENUE_CUE.search(text):
            return int(m.group(1))
    m = re.match(r"(\d{2})(\d{2})\.", arxiv_id)
    if m and 1 <= int(m.group(2)) <= 12:
        return 2000 + int(m.group(1))
    years = [int(y) for y in _YEAR.findall(page1)]
    if years:
        return max(years)
    m = re.match(r"D?:?((?:19|20)\d\d)", created.strip())
    if m and 1900 <= int(m.group(1)) <= 2030:
        return int(m.group(1))
    return None


def _find_venue(lines: Sequence[str]) -> str:
    for text in lines:
        m = _VENUE.search(text)
        if not m:
            continue
        venue = m.group(1)
        cut = _VENUE_CUT.search(venue)
        if cut:
            venue = venue[: cut.start()]
        venue = venue.strip(" ,.;:")
        if len(venue.split()) >= 3:
            return venue
    return ""


def _abstract(paras: Sequence[_Para]) -> str:
    for i, p in enumerate(paras):
        key = p.text.strip().rstrip(":.").lower()
        if p.heading and key in ("abstract", "摘要", "摘 要"):
            body: list[str] = []
            for q in paras[i + 1 :]:
                if q.heading:
                    break
                body.append(q.text)
                if sum(len(b) for b in body) > 2500:
                    break
            return "\n\n".join(body)
    return ""


# --- putting it together -------------------------------------------------------------------

_INLINE_ABSTRACT = re.compile(r"^(Abstract|ABSTRACT|摘\s*要)\s*[:：.—–-]\s*(\S.*)$", re.DOTALL)
_ALNUM = re.compile(r"[^\W_]")
_AXIS_TICK = re.compile(r"[\d\s.,%+\-−–]{1,12}$")
_THREE_LETTERS = re.compile(r"[^\W\d_](?:.*?[^\W\d_]){2}")


def _body_size(pages: Sequence[_RawPage]) -> float:
    """The font size of most of the text (rounded to half points)."""
    # Characters per exact size first (a document has few sizes), then per rounded size, in
    # the order the rounded sizes first occur (which decides a tie).
    by_size: dict[float, int] = {}
    get = by_size.get
    for p in pages:
        for ln in p.lines:
            size = ln.size
            by_size[size] = get(size, 0) + len(ln.text)
    weights: dict[float, int] = {}
    for size, chars in by_size.items():
        key = round(size * 2) / 2
        weights[key] = weights.get(key, 0) + chars
    return max(weights, key=weights.__getitem__) if weights else 0.0


def _title_lines(page: _RawPage, drop: set[int], body: float) -> list[_Line]:
    """The biggest-type lines near the top of page 1 (the title, maybe over two lines)."""
    cands = [
        ln
        for ln in page.lines
        if id(ln) not in drop and ln.y1 > page.height * 0.45 and _THREE_LETTERS.search(ln.text)
    ]
    if not cands:
        return []
    biggest = max(ln.size for ln in cands)
    if body > 0 and biggest < body * 1.15:
        return []
    tops = _top_down(ln for ln in cands if ln.size >= biggest - 0.5)
    title = [tops[0]]
    for ln in tops[1:]:
        # Consecutive title lines sit within about one line height of each other.
        if title[-1].y0 - ln.y1 < 1.2 * ln.size and len(title) < 4:
            title.append(ln)
        else:
            break
    return title


@dataclass
class PdfScan:
    """A PDF whose text layer has been read, with the pages that still need OCR.

    Crosses the worker pipe: the importer has the pages read by OCR (``ocr.run_ocr``) and
    then calls ``finish_pdf``.
    """

    path: str
    meta: dict[str, str]
    pages: list[_RawPage]
    n_pages: int
    # Page 1's glyph lines for the by-line (empty when page 1 needs OCR).
    front: front_matter.Front = field(default_factory=front_matter.Front)

    @property
    def ocr_pages(self) -> list[int]:
        """1-based numbers of the pages without a usable text layer."""
        return [p.number for p in self.pages if p.ocr]


def scan_pdf(path: Path) -> PdfScan:
    """Read the text layer of every page and note which pages need OCR.

    Raises ``ImportFailure`` with code ``encrypted``, ``corrupt``, ``empty`` or ``unreadable``.
    """
    path = Path(path)
    if not path.is_file():
        raise ImportFailure(msg("import.not_found_named", name=path.name), "unreadable")
    meta, raw_pages, n_pages, front = _read_pdf(path)
    return PdfScan(str(path), meta, raw_pages, n_pages, front)


def _front_matter(
    path: Path, meta: dict[str, str], raw_pages: Sequence[_RawPage], front: front_matter.Front, extracted: Extracted
) -> None:
    """Title, authors and citation from every source (``core.extract.metadata``), with provenance."""
    early = [p for p in raw_pages if p.number <= 2]
    ordered_pages = [_top_down(p.lines) for p in early]
    front = _ocr_front(front, early, ordered_pages)
    page_lines = [[ln.text for ln in ordered] for ordered in ordered_pages]
    edges: list[str] = []
    for p, ordered in zip(early, ordered_pages, strict=True):
        edges += [ln.text for ln in ordered[:8]] + [ln.text for ln in ordered[-8:]]
        # The sideways arXiv stamp in the left margin.
        edges += [ln.text for ln in p.lines if ln.y1 - ln.y0 > 3 * (ln.x1 - ln.x0) and len(ln.text) > 8]
    later = "\n".join(pg.text for pg in extracted.pages if pg.number > 2)
    reading = "\n".join(pg.text for pg in extracted.pages if pg.number <= 2)
    rec = front_matter.pdf_metadata(path, meta, front, page_lines, edges, later, reading)
    front_matter.apply(rec, extracted.metadata)


_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")  # as the chunker splits a page


def _mark_title_block(extracted: Extracted) -> None:
    """Hint "title" on the paragraphs of page 1 that print the title the metadata chose.

    The chunk kind of a title block comes from this one decision (the metadata's reading of the
    page: type sizes, XMP, Info), not from a paragraph being short; the structure reader then
    takes the short paragraphs around it (masthead, by-line, affiliations) into the block. A page
    that prints no title (an inner page, a scan of one) gets no title block at all.
    """
    md = extracted.metadata
    if not md.title or md.sources.get("title") in (None, "filename") or not extracted.pages:
        return
    page = extracted.pages[0]
    paras = _PARAGRAPH_BREAK.split(page.text)
    if page.number != 1 or len(paras) != len(page.layout):
        return
    want = front_matter.key(md.title)
    if len(want) < 4:
        return
    matched: list[int] = []
    for i, para in enumerate(paras[:20]):
        k = front_matter.key(para.removeprefix("# "))
        if len(k) >= min(8, len(want)) and (k in want or (want in k and len(k) <= 1.3 * len(want))):
            matched.append(i)
        elif para.startswith("# ") and matched:
            break
    if not matched:
        return
    for i, (hint, size) in enumerate(page.layout):
        if i in matched and not paras[i].startswith("# "):
            page.layout[i] = ("title", size)
        elif hint == "title" and i not in matched:
            page.layout[i] = ("body", size)  # large type that is not the title (a banner, a logo)


def _glyph_line(ln: _Line) -> front_matter.GlyphLine:
    """An OCR line as the layout reader's glyph line: its characters, its box, its type size
    (see ``_use_ocr_lines``) as the line height, no raised marks (OCR reads a superscript as an
    ordinary character, if at all)."""
    return front_matter.GlyphLine(ln.text, (), ln.size, ln.x0, ln.x1, ln.y0, ln.y1)


def _ocr_front(
    front: front_matter.Front, early: Sequence[_RawPage], ordered: Sequence[list[_Line]]
) -> front_matter.Front:
    """The front page's lines for the layout reader when OCR read it.

    A scanned page has no characters for ``FrontReader``; its OCR lines, top-down, carry what
    the reader needs (text, position, a size proxy), so a scan's title and by-line are read by
    the same rules as a born-digital page's. The fields it gives are marked as read by OCR.
    """
    out = front
    for p, lines in zip(early, ordered, strict=True):
        if p.source != "ocr":
            continue
        glyph_lines = [_glyph_line(ln) for ln in lines if ln.text]
        body = statistics.median([g.height for g in glyph_lines]) if glyph_lines else 0.0
        if p.number == 1 and not front.lines:
            out = dataclasses.replace(out, lines=glyph_lines, height=p.height, body=body, ocr=True)
        elif p.number == 2 and not front.next_lines and sum(len(g.chars) for g in out.lines) < 700:
            # Page 2 only behind a short page 1 (a cover), as FrontReader does for a text layer.
            out = dataclasses.replace(out, next_lines=glyph_lines, next_height=p.height, next_body=body, ocr=True)
    return out


def extract_pdf(path: Path) -> Extracted:
    """Extract cleaned, reading-ordered text and metadata from the PDF at ``path``, without
    OCR (pages without a usable text layer are left out).

    Raises ``ImportFailure`` with code ``encrypted``, ``corrupt``, ``empty`` or ``no_text``
    (and ``unreadable`` when the file cannot be read at all).
    """
    return finish_pdf(scan_pdf(path), None)


def read_pdf_for_import(path: Path, ocr: bool, ocr_off: bool = False) -> Extracted | PdfScan:
    """The extraction worker's request: the finished ``Extracted``, or with ``ocr`` and pages
    that need it, the ``PdfScan`` for the importer to finish after OCR. ``ocr_off``: the
    settings turned OCR off (the failure of a scanned PDF says so)."""
    scan = scan_pdf(path)
    if ocr and scan.ocr_pages:
        return scan
    return finish_pdf(scan, None, ocr_off=ocr_off)


def finish_pdf(scan: PdfScan, ocr: dict[int, list[OcrLine]] | None, ocr_off: bool = False) -> Extracted:
    """Lay out the pages of ``scan``, with the lines OCR read for pages that needed it.

    ``ocr`` maps 1-based page numbers to their OCR lines (None: OCR did not run; ``ocr_off``
    says that was the user's setting). Raises ``ImportFailure("no_text")`` with the reason
    when no page has text.
    """
    pages = scan.pages
    needing = [p for p in pages if p.ocr]
    if ocr is not None:
        _use_ocr_lines(pages, ocr)
    if ocr is not None and needing:
        no_text = msg("import.no_text_even_ocr")
    elif needing and ocr_off:
        no_text = msg("import.scanned_ocr_off")
    elif needing:
        no_text = msg("import.scanned")
    else:
        no_text = msg("import.blank")
    extracted = _assemble(scan.meta, pages, scan.n_pages, no_text)
    # After OCR, so a scanned first page's OCR lines are what the layout sources read.
    _front_matter(Path(scan.path), scan.meta, pages, scan.front, extracted)
    _mark_title_block(extracted)
    # Here, in the extraction worker (or the importer's OCR step), not in the library's one
    # writer: reading the structure costs about as much as laying out the pages.
    extracted.structure = read_structure(extracted.pages)
    return extracted


def _use_ocr_lines(pages: Sequence[_RawPage], ocr: dict[int, list[OcrLine]]) -> None:
    """Give pages that needed OCR its lines, sized like text-layer lines.

    OCR knows a line's box, not its font size. Heading and footnote detection compare sizes with
    the document's body size, so each OCR page's typical line height is mapped onto the body
    size of the text-layer pages (10 pt when there are none): taller lines stay taller.
    """
    text_sizes = [ln.size for p in pages if not p.ocr for ln in p.lines if len(ln.text) >= 10]
    ref = statistics.median(text_sizes) if text_sizes else 10.0
    for p in pages:
        found = ocr.get(p.number)
        if not p.ocr or found is None:
            continue
        long_lines = [ln for ln in found if len(ln.text) >= 10] or list(found)
        typical_w = statistics.median((ln.x1 - ln.x0) / len(ln.text) for ln in long_lines) if long_lines else 1.0
        lines = []
        estimates: list[float] = []
        for ln in found:
            if not ln.text:
                continue
            # Not the box height: it varies by a fifth with the letters (capitals, descenders),
            # and the detector sometimes boxes two lines as one. Characters clearly wider than
            # the page's usual ones are a larger font (a title, a heading).
            est = ref * (ln.x1 - ln.x0) / len(ln.text) / typical_w
            size = round(est, 1) if est >= 1.2 * ref else ref
            lines.append(_Line(ln.text, ln.x0, ln.y0, ln.x1, ln.y1, size, False, False))
            estimates.append(est)
        _even_sizes(lines, estimates, ref)
        p.lines = lines
        p.source = "ocr"


def _even_sizes(lines: list[_Line], estimates: list[float], ref: float) -> None:
    """Give the lines of one large-type block (a title over two lines) one size.

    A size read from character widths varies by a fifth from line to line with the letters a
    line happens to have ("Drift of Brine in" is narrow), so one line of a two-line title can
    fall under the threshold that makes it large type, or under the size of the other line; the
    title reader would then keep only one of them. A line directly above or below a large-type
    line (less than a line apart, overlapping it sideways), itself wider than body type, joins
    its block when the two agree on either measure: character width within 15 % or box height
    within 10 % (boxes vary with capitals and descenders, widths with the letters; rarely both).
    """
    order = sorted(range(len(lines)), key=lambda i: -lines[i].y1)
    for k, i in enumerate(order):
        if lines[i].size <= ref:
            continue
        for step in (-1, 1):
            j = k + step
            while 0 <= j < len(order):
                ia, ib = order[j - step], order[j]
                a, b = lines[ia], lines[ib]
                upper, lower = (a, b) if a.y1 >= b.y1 else (b, a)
                ha, hb = a.y1 - a.y0, b.y1 - b.y0
                near = upper.y0 - lower.y1 < max(ha, hb) and a.x0 < b.x1 and b.x0 < a.x1
                widths = max(estimates[ia], estimates[ib]) <= 1.15 * min(estimates[ia], estimates[ib])
                heights = max(ha, hb) <= 1.1 * min(ha, hb)
                if not near or min(estimates[ia], estimates[ib]) < 1.1 * ref or not (widths or heights):
                    break
                a.size = b.size = max(a.size, b.size)
                j += step


def _clean_page_lines(page: _RawPage) -> None:
    """``clean_line`` on the lines that need it; lines left empty are dropped.

    One scan of the whole page finds them: the separator is not in ``_LINE_DIRTY`` and cannot
    pair with a space, so every match lies inside one line, and each line with a match has one.
    """
    texts = [ln.text for ln in page.lines]
    joined = "\x02".join(texts)
    # The first hit from its two halves: ``_LINE_DIRTY`` as a whole starts with an alternation,
    # which ``re`` tries at every position, while a pattern that starts with a character class
    # lets it skip ahead in C (most pages have nothing to clean).
    hit = _DIRTY_CHAR.search(joined)
    start = hit.start() if hit else len(joined)
    spaces = joined.find("  ", 0, start + 1)  # a double space before it
    if spaces >= 0:
        start = spaces
    elif hit is None:
        return
    ends = list(accumulate([len(t) + 1 for t in texts]))  # where each line's span ends
    i = last = -1
    for m in _LINE_DIRTY.finditer(joined, start):
        i = bisect_right(ends, m.start(), max(i, 0))
        if i != last:
            ln = page.lines[i]
            ln.text = clean_line(ln.text)
            last = i
    page.lines = [ln for ln in page.lines if ln.text]


def _assemble(
    meta: dict[str, str],
    raw_pages: list[_RawPage],
    n_pages: int,
    no_text: Message | None = None,
) -> Extracted:
    """Layout, clean-up and metadata: everything after PDFium has been read."""
    for p in raw_pages:
        _clean_page_lines(p)
    body = _body_size(raw_pages)
    drop = _furniture(raw_pages)
    for p in raw_pages:
        # The arXiv stamp in the left margin runs vertically; keep it out of the body text.
        for ln in p.lines:
            if ln.x1 < 0.12 * p.width and ln.y1 - ln.y0 > 3 * (ln.x1 - ln.x0) and len(ln.text) > 8:
                drop.add(id(ln))
    hyphenated = " ".join(ln.text for p in raw_pages for ln in p.lines if "-" in ln.text)
    # Only words with a hyphen in them can hold a compound (a space stands in for any break).
    hyphenated = " ".join(w for w in hyphenated.split() if "-" in w)
    compounds = frozenset(w.lower() for w in _COMPOUND.findall(hyphenated))

    first = raw_pages[0] if raw_pages and raw_pages[0].number == 1 else None
    title_lines = _title_lines(first, drop, body) if first else []
    title_ids = {id(ln) for ln in title_lines}

    is_heading = _Headings(raw_pages, body, drop | title_ids)
    pages: list[Page] = []
    all_paras: list[list[_Para]] = []
    letters = 0
    for p in raw_pages:
        kept = [ln for ln in p.lines if id(ln) not in drop]
        seqs = _reading_order(kept, p.width, body)
        paras = _paragraphs(seqs, is_heading, title_ids if p is first else set(), compounds)
        paras = _tidy(paras, p.number)
        layout = _layout(paras)
        text = "\n\n".join(
            "# " + q.text if q.heading else (_table_text(q) if hint == "table" else q.text)
            for q, (hint, _size) in zip(paras, layout, strict=True)
        )
        if _ALNUM.search(text):
            letters += len(text) - text.count(" ") - text.count("\n")
            pages.append(Page(p.number, text, source=p.source, layout=layout))
            all_paras.append(paras)
    if letters < max(12, 12 * n_pages):
        raise ImportFailure(no_text or msg("import.scanned"), "no_text")
    md = _metadata(meta, raw_pages, title_lines, pages, all_paras)
    return Extracted(pages=pages, metadata=md, kind="pdf")


_NUMERIC_CELL = re.compile(r"^[-+−–]?(?:\d[\d,.]*%?|\.\d+)[*†‡]?$|^[-–—✓✗×]$")
_TABLE_CAPTION = re.compile(r"^(?:Table|Tab\.)\s*[A-Z]?\d+|^表\s*\d+")


def _numeric_share(text: str) -> float:
    # Digits counted in C first: prose has few, and then no cell needs a look. In UTF-8 a digit
    # is one byte that no other character's bytes can be, and deleting them is one quick pass.
    raw = text.encode("utf-8", "surrogatepass")
    if (len(raw) - len(raw.translate(None, b"0123456789"))) * 12 < len(text):
        return 0.0
    cells = text.split()
    if not cells:
        return 0.0
    return len(list(filter(_NUMERIC_CELL.match, cells))) / len(cells)


def _row_shaped(q: _Para) -> bool:
    """Short rows (or one row split into cells), as a table's are; with enough numbers in them
    (``_tabular_share``) the paragraph is a table printed as text."""
    rows = q.rows
    if q.kind != "body" or (len(rows) < 2 and len(rows[0]) < 3):
        return False
    # The mean length of the rows printed with their pieces joined by one space.
    total = sum(map(len, chain.from_iterable(rows))) + sum(map(len, rows)) - len(rows)
    return total / len(rows) <= 70


def _tabular_share(q: _Para, share: float) -> bool:
    """Whether a row-shaped paragraph whose ``_numeric_share`` is ``share`` is a table: rows of
    number-heavy lines, or rows split into cells."""
    if share >= 0.3:
        return True
    return share >= 0.15 and sum(1 for r in q.rows if len(r) >= 2) * 2 >= len(q.rows)


def _layout(paras: Sequence[_Para]) -> list[tuple[str, float]]:
    """The layout hint of each paragraph for the chunker (see ``Page.layout``)."""
    out: list[tuple[str, float]] = []
    for i, q in enumerate(paras):
        kind = q.kind
        if kind == "body":
            share = -1.0  # the paragraph's _numeric_share, counted once when it is needed
            if q.note:
                kind = "footnote"
            elif _row_shaped(q) and _tabular_share(q, share := _numeric_share(q.text)):
                kind = "table"
            elif (
                len(q.text) <= 400
                and len(q.rows) >= 2
                and (share if share >= 0 else _numeric_share(q.text)) >= 0.12
            ):
                # Header rows and number rows around a "Table 3:" caption are its cells.
                near = [paras[j] for j in (i - 1, i + 1) if 0 <= j < len(paras)]
                if any(n.kind == "caption" and _TABLE_CAPTION.match(n.text) for n in near):
                    kind = "table"
        out.append((kind, round(q.size, 1)))
    return out


def _table_text(q: _Para) -> str:
    """A table paragraph as rows: one row per line, the pieces of a row separated by " | "."""
    return "\n".join(" | ".join(cell for cell in row if cell) for row in q.rows)


def _reads_as_prose(text: str) -> bool:
    """Whether a paragraph taken for a heading is really text: a sentence ends inside it, it
    is a long statement ending in a full stop (a bold contribution bullet), an address line,
    or rows of a table."""
    return (
        len(text) > 160
        or "\n" in text
        or "@" in text
        or bool(_SENTENCE_INSIDE.search(_strip_heading_number(text)))  # not "II. METHOD"
        or (text.endswith(".") and len(text.split()) > 8)
    )


def _tidy(paras: list[_Para], page_no: int) -> list[_Para]:
    """Split "Abstract—text" into heading and text, glue lone symbols to what follows, drop
    bare axis numbers and demote table-of-contents entries that looked like headings."""
    out: list[_Para] = []
    carry = ""
    for q in paras:
        if carry and q.kind in ("body", "caption"):
            q.text = carry + " " + q.text
            carry = ""
        if q.kind == "body" and len(q.text) <= 3 and not _ALNUM.search(q.text):
            carry = (carry + " " + q.text).strip()  # a footnote mark on its own line
            continue
        if q.kind == "body" and _AXIS_TICK.match(q.text):
            continue  # a bare number from a plot's axis: noise for search and chunks
        if q.kind == "heading" and _LEADER.search(q.text):
            q.kind = "body"  # a table-of-contents entry whose leader dots came on the same row
        elif q.kind == "heading" and _reads_as_prose(q.text):
            q.kind = "body"  # prose set in bold, or a sentence that starts like "A Proofs"
        m = _INLINE_ABSTRACT.match(q.text) if q.kind == "body" and page_no <= 2 else None
        if m:
            out.append(_Para("heading", q.last, m.group(1).replace(" ", ""), q.right))
            q.text = m.group(2)
        out.append(q)
    if carry:
        out.append(_Para("body", paras[-1].last, carry, paras[-1].right))
    return out


def _metadata(
    meta: dict[str, str],
    raw_pages: Sequence[_RawPage],
    title_lines: Sequence[_Line],
    pages: Sequence[Page],
    all_paras: Sequence[list[_Para]],
) -> Metadata:
    md = Metadata()
    page_title = " ".join(ln.text for ln in title_lines).strip()
    meta_title = " ".join(meta.get("Title", "").split())
    md.title = meta_title if _plausible_title(meta_title) else page_title

    author_field = meta.get("Author", "").strip()
    if author_field and not _JUNK_AUTHOR.match(author_field):
        md.authors = _split_authors(author_field)
    first = raw_pages[0] if raw_pages and raw_pages[0].number == 1 else None
    ordered = _top_down(first.lines) if first else []
    first_lines = [ln.text for ln in ordered]
    if not md.authors and first and title_lines:
        start = max(ordered.index(ln) for ln in title_lines) + 1 if title_lines[-1] in ordered else 0
        after: list[str] = []
        for ln in ordered[start : start + 10]:
            text = ln.text
            low = text.lower().rstrip(":.")
            if low.startswith(("abstract", "摘要", "摘 要")) or len(text.split()) > 16:
                break
            after.append(text)
        md.authors = _authors_from_lines(after)

    # Raw lines, not page text: they include the running headers and the sideways arXiv
    # stamp that the page text leaves out.
    early_text = "\n".join(ln.text for p in raw_pages[:2] for ln in p.lines)
    extra = meta.get("Subject", "") + " " + meta.get("Keywords", "")
    doi = _DOI.search(early_text) or _DOI.search(extra)
    md.doi = _clean_doi(doi.group(0)) if doi else ""
    arx = None
    if "arxiv" in early_text.lower():
        arx = _ARXIV_NEW.search(early_text)
    if arx is None and _SEVEN_DIGITS.search(early_text):
        arx = _ARXIV_OLD().search(early_text)
    md.arxiv_id = arx.group(1) if arx else ""
    page1_text = "\n".join(first_lines)
    # Venue and copyright lines sit at the top or bottom of page 1 (or in the sideways
    # arXiv stamp); look there before the body, whose citations also carry years.
    margins = [ln.text for ln in _edge_lines(first.lines)] if first else []
    margins += [ln.text for ln in (first.lines if first else []) if ln.y1 - ln.y0 > 3 * (ln.x1 - ln.x0)]
    md.year = _find_year(margins + first_lines, page1_text, md.arxiv_id, meta.get("CreationDate", ""))
    md.venue = _find_venue(margins + first_lines)
    for paras in all_paras[:2]:
        md.abstract = _abstract(paras)
        if md.abstract:
            break
    if not md.abstract and pages:
        m = re.search(r"^# (?:Abstract|摘要)\n\n(.+?)(?:\n\n# |\Z)", pages[0].text, re.DOTALL | re.MULTILINE)
        if m:
            md.abstract = m.group(1).strip()
    sample = "".join(pg.text[:600] for pg in pages[:3])
    md.language = detect_language(sample)
    return md
