"""Extract PDF text for the importer: reading-ordered, cleaned page text plus front-matter metadata.

``extract_pdf(path)`` returns one ``Page`` per PDF page that has text (1-based page numbers
kept). Page text follows the chunker's contract: paragraphs are separated by a blank line,
the lines of a paragraph are joined into running text, and detected section headings are
paragraphs of their own that start with ``"# "``.

How it works, and why it is shaped this way:

* PDFium (via pypdfium2) gives the page text in content-stream order with ``\\r\\n`` between
  what it considers lines. Per *line* we ask PDFium for the text rectangles and the font size
  and weight of a few characters; we never loop over every character in Python, because
  extraction must stay close to the speed of a plain ``get_text_range()``.
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

import ctypes
import math
import re
import statistics
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from paperpilot.core.models import Extracted, ImportFailure, Metadata, Page
from paperpilot.core.textutil import detect_language

__all__ = ["PDFIUM_LOCK", "clean_line", "extract_pdf", "join_lines"]

# One lock for the whole process: PDFium keeps global state (including its last-error code).
PDFIUM_LOCK = threading.Lock()

# --- text clean-up -----------------------------------------------------------------------

# pypdfium2 marks a hyphen that PDFium removed at a line end with \x02 (older builds) or
# \ufffe (newer builds); U+00AD is a soft hyphen that some producers write explicitly.
_HYPHEN_MARKS = "\x02\ufffe"
_MARK_RE = re.compile("[\x02\ufffe]")
_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
# Only these ligatures are expanded: NFKC on the whole text would also rewrite full-width
# CJK punctuation, superscripts and math symbols that the reader expects to see unchanged.
_CLEAN_TABLE: dict[int, str | None] = {ord(k): v for k, v in _LIGATURES.items()}
for _c in range(32):
    _CLEAN_TABLE[_c] = " " if chr(_c) in "\t\n" else None
_CLEAN_TABLE.update({0x00AD: None, 0xFFFE: None, 0xFFFF: None, 0x7F: None, 0xA0: " "})

_CJK_JOIN = re.compile(
    "[\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]"
)
_TERMINAL = frozenset(".!?:。！？：”\"")


# Spacing accents that PDFium reports as separate glyphs next to the letter they belong on
# ("Farber ¨ (2019)"); without positions we cannot put them back, so they are dropped.
_STRAY_ACCENT = re.compile("(?<=\\S) [\u00a8\u00b4\u02c6\u02dc\u00b8\u02da\u02c7\u02d8](?= |$)")
_WORD_TAIL = re.compile(r"[A-Za-z]+$")
_WORD_HEAD = re.compile(r"^[A-Za-z]+")
_COMPOUND = re.compile(r"\b[A-Za-z]+(?:-[A-Za-z]+)+\b")


def clean_line(text: str) -> str:
    """One PDF line made presentable: controls, markers and soft hyphens gone, ligatures expanded."""
    text = text.translate(_CLEAN_TABLE)
    if "  " in text or text[:1] == " " or text[-1:] == " ":
        text = " ".join(text.split())
    if " " in text and _STRAY_ACCENT.search(text):
        text = _STRAY_ACCENT.sub("", text)
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
            tail = _WORD_TAIL.search(stem)
            head = _WORD_HEAD.match(nxt)
            if tail and head and f"{tail.group(0)}-{head.group(0)}".lower() in compounds:
                return stem + "-" + nxt
        return stem + nxt
    if last == "-" and len(prev) >= 2 and prev[-2].isalnum():
        # "GPT-" + "4", "ACL-" + "IJCNLP": the hyphen is real, the break is not a space.
        return prev + nxt
    if _CJK_JOIN.match(last) and _CJK_JOIN.match(first):
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

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass(slots=True)
class _RawPage:
    number: int
    width: float
    height: float
    lines: list[_Line]


class _PageReader:
    """Turns one PDFium text page into ``_Line`` objects with a few C calls per line."""

    def __init__(self, textpage: Any, page_width: float) -> None:
        self.tp = textpage.raw
        self.page_mid = page_width / 2
        self.mid_lo = 0.48 * page_width
        self.mid_hi = 0.52 * page_width
        self._box = pdfium_c.FS_RECTF()
        self._box_ptr = ctypes.pointer(self._box)
        self._l = ctypes.c_double()
        self._t = ctypes.c_double()
        self._r = ctypes.c_double()
        self._b = ctypes.c_double()
        self._font_buf = ctypes.create_string_buffer(128)
        self._font_flags = ctypes.c_int()
        self._bold_by_name: dict[bytes, bool] = {}

    def read(self, text: str, mapped: bool) -> list[_Line]:
        lines: list[_Line] = []
        pos = 0
        for seg in text.split("\r\n"):
            start = pos
            pos += len(seg) + 2
            if not seg or seg.isspace():
                continue
            if "\x02" in seg or "\ufffe" in seg:
                # PDFium glued a hyphenated line to the next one; cut them apart again so
                # each keeps its own box (the halves may even sit in different columns).
                a = 0
                for m in _MARK_RE.finditer(seg):
                    self._add(lines, start + a, seg[a : m.start()], True, mapped)
                    a = m.end()
                self._add(lines, start + a, seg[a:], False, mapped)
            else:
                self._add(lines, start, seg, seg.endswith("\u00ad"), mapped)
        return lines

    def _char_index(self, text_index: int, mapped: bool) -> int:
        if not mapped:
            return text_index
        return int(pdfium_c.FPDFText_GetCharIndexFromTextIndex(self.tp, text_index))

    def _rects(self, start: int, count: int) -> list[tuple[float, float, float, float]]:
        tp = self.tp
        n = pdfium_c.FPDFText_CountRects(tp, start, count)
        out = []
        left, top, right, bottom = self._l, self._t, self._r, self._b
        for k in range(n):
            if pdfium_c.FPDFText_GetRect(tp, k, left, top, right, bottom):
                out.append((left.value, bottom.value, right.value, top.value))
        return out

    def _add(self, lines: list[_Line], start: int, text: str, hyphen: bool, mapped: bool) -> None:
        n = len(text)
        text = text.lstrip()
        start += n - len(text)
        text = text.rstrip()
        n = len(text)
        if not n:
            return
        cstart = self._char_index(start, mapped)
        count = (self._char_index(start + n - 1, mapped) - cstart + 1) if mapped else n
        # Fast path: the loose boxes (font ascent to descent) of the first and last
        # character give the line box. Only a line that crosses the middle of the page
        # (it may span a column gutter) or that wraps to another row needs the slower
        # per-rectangle look.
        tp, box, ptr = self.tp, self._box, self._box_ptr
        if pdfium_c.FPDFText_GetLooseCharBox(tp, cstart, ptr):
            ax0, ay0, ax1, ay1 = box.left, box.bottom, box.right, box.top
            if count == 1 or pdfium_c.FPDFText_GetLooseCharBox(tp, cstart + count - 1, ptr):
                bx0, by0, bx1, by1 = box.left, box.bottom, box.right, box.top
                lo = ay0 if ay0 > by0 else by0
                hi = ay1 if ay1 < by1 else by1
                h = min(ay1 - ay0, by1 - by0)
                if (
                    hi - lo >= 0.3 * h
                    and h > 0
                    and bx1 >= ax0
                    and not (ax0 < self.mid_lo and bx1 > self.mid_hi)
                ):
                    y0 = ay0 if ay0 < by0 else by0
                    y1 = ay1 if ay1 > by1 else by1
                    self._emit(lines, cstart, text, ((ax0, y0, bx1, y1),), hyphen)
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
                if pdfium_c.FPDFText_CountRects(self.tp, cstart, mid) > first_rect:
                    hi = mid
                else:
                    lo = mid + 1
            cuts.append(max(lo - 1, cuts[-1] + 1))
        cuts.append(len(text))
        bounds = [*groups, len(rects)]
        for g in range(len(groups)):
            piece = text[cuts[g] : cuts[g + 1]]
            if not piece.strip():
                continue
            last = g == len(groups) - 1
            self._emit(lines, cstart + cuts[g], piece, rects[bounds[g] : bounds[g + 1]], hyphen and last)

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
        bold = n <= 120 and self._is_bold(cstart) and self._is_bold(cstart + n - 1)
        lines.append(_Line(text, x0, y0, x1, y1, size, bold, hyphen))

    def _size(self, cstart: int, text: str) -> float:
        """Median font size of three sample characters (one for a short line).

        One sample is not enough on a mixed line: the first character may be a footnote
        mark and a short word in small capitals can sit in the middle of the line.
        """
        n = len(text)
        positions = (n // 2,) if n < 12 else (n // 4, n // 2, (3 * n) // 4)
        sizes = []
        for pos in positions:
            while pos < n - 1 and text[pos] == " ":
                pos += 1
            s = float(pdfium_c.FPDFText_GetFontSize(self.tp, cstart + pos))
            if s > 1.0:  # generated characters (inserted spaces) report size 1
                sizes.append(s)
        if not sizes:
            return 0.0
        sizes.sort()
        return round(sizes[len(sizes) // 2], 2)

    def _is_bold(self, index: int) -> bool:
        weight = int(pdfium_c.FPDFText_GetFontWeight(self.tp, index))
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


def _load_failure(path: Path, exc: Exception) -> ImportFailure:
    """Explain why PDFium refused the file (its error code alone can be stale, so check bytes)."""
    code = getattr(exc, "err_code", None)
    try:
        with path.open("rb") as fh:
            head = fh.read(65536)
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - 65536))
            tail = fh.read()
    except OSError:
        return ImportFailure("The file could not be read from disk.", "unreadable")
    if b"%PDF-" not in head[:1024]:
        return ImportFailure("The file is damaged or is not a PDF.", "corrupt")
    if b"/Encrypt" in head or b"/Encrypt" in tail:
        if code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY) or code is None:
            return ImportFailure(
                "The PDF is password-protected; unlock it (save an unprotected copy) first.",
                "encrypted",
            )
    if size <= 1 << 20:
        data = path.read_bytes()
        has_page = re.search(rb"/Type\s*/Page(?![a-zA-Z])", data) is not None
        if not has_page and re.search(rb"/Count\s+0\b", data):
            return ImportFailure("The PDF has no pages.", "empty")
    return ImportFailure("The file is damaged or is not a PDF.", "corrupt")


def _read_pdf(path: Path) -> tuple[dict[str, str], list[_RawPage], int]:
    """Everything PDFium is needed for: metadata and the raw lines of every page."""
    with PDFIUM_LOCK:
        try:
            doc = pdfium.PdfDocument(str(path))
        except Exception as exc:  # any binding error on open means we cannot read it
            raise _load_failure(path, exc) from None
        try:
            n_pages = len(doc)
            if n_pages == 0:
                raise ImportFailure("The PDF has no pages.", "empty")
            try:
                meta = {k: str(v) for k, v in doc.get_metadata_dict(skip_empty=True).items()}
            except Exception:  # metadata is optional; a broken Info dict must not stop import
                meta = {}
            pages: list[_RawPage] = []
            failed = 0
            for i in range(n_pages):
                try:
                    pages.append(_read_page(doc, i))
                except Exception:  # one damaged page should not lose the rest of the paper
                    failed += 1
            if failed == n_pages:
                raise ImportFailure("The file is damaged or is not a PDF.", "corrupt")
            return meta, pages, n_pages
        except ImportFailure:
            raise
        except Exception:
            raise ImportFailure("The file is damaged or is not a PDF.", "corrupt") from None
        finally:
            doc.close()


def _read_page(doc: Any, index: int) -> _RawPage:
    page = doc[index]
    try:
        width, height = page.get_size()
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_range()
            mapped = len(text) != textpage.count_chars()
            lines = _PageReader(textpage, width).read(text, mapped) if text.strip() else []
        finally:
            textpage.close()
    finally:
        page.close()
    return _RawPage(index + 1, float(width), float(height), lines)


# --- page layout (no PDFium, no lock) ----------------------------------------------------


def _rows(lines: Sequence[_Line]) -> list[list[_Line]]:
    """Group lines (sorted top-down by the caller) into visual rows, each sorted left to right."""
    rows: list[list[_Line]] = []
    ref: _Line | None = None
    for ln in lines:
        if ref is not None:
            overlap = min(ref.y1, ln.y1) - max(ref.y0, ln.y0)
            if overlap >= 0.5 * max(min(ref.y1 - ref.y0, ln.y1 - ln.y0), 0.5):
                rows[-1].append(ln)
                continue
        rows.append([ln])
        ref = ln
    for row in rows:
        if len(row) > 1:
            row.sort(key=lambda ln: ln.x0)
    return rows


def _top_down(lines: Iterable[_Line]) -> list[_Line]:
    ordered = sorted(lines, key=lambda ln: -ln.y1)
    return [ln for row in _rows(ordered) for ln in row]


def _find_gutter(lines: Sequence[_Line], width: float, body: float) -> float | None:
    """The x of the vertical gap between two text columns, or None for a one-column page."""
    # Only lines of running text vote: text inside figures and footnote marks would
    # otherwise suggest gutters of their own.
    text_lines = [ln for ln in lines if ln.size >= 0.8 * body and len(ln.text) >= 10]
    if len(text_lines) < 6:
        return None
    lo, hi, step = 0.3 * width, 0.7 * width, 2.0
    nbins = int((hi - lo) / step) + 1
    diff = [0] * (nbins + 1)
    for ln in text_lines:
        if ln.x1 <= lo or ln.x0 >= hi:
            continue
        b0 = max(0, int((ln.x0 + 1 - lo) / step) + 1)
        b1 = min(nbins, int((ln.x1 - 1 - lo) / step) + 1)
        if b0 < b1:
            diff[b0] += 1
            diff[b1] -= 1
    cover = []
    acc = 0
    for b in range(nbins):
        acc += diff[b]
        cover.append(acc)
    least = min(cover)
    if least > 0.4 * len(text_lines):
        return None
    # The longest run of least-covered bins; among equals, the one nearest the middle.
    best_key: tuple[int, float] | None = None
    gutter = width / 2
    b = 0
    while b < nbins:
        if cover[b] != least:
            b += 1
            continue
        e = b
        while e + 1 < nbins and cover[e + 1] == least:
            e += 1
        centre = lo + step * (b + e) / 2
        key = (e - b, -abs(centre - width / 2))
        if best_key is None or key > best_key:
            best_key, gutter = key, centre
        b = e + 1
    left = [ln for ln in text_lines if ln.x1 <= gutter + 2]
    right = [ln for ln in text_lines if ln.x0 >= gutter - 2]
    if len(left) < 2 or len(right) < 2:
        return None
    # The two sides must be text columns standing next to each other.
    ltop, lbot = max(ln.y1 for ln in left), min(ln.y0 for ln in left)
    if sum(1 for ln in right if ln.y0 < ltop and ln.y1 > lbot) < 2:
        return None
    if not any(ln.x1 - ln.x0 > 0.2 * width for ln in left) or not any(
        ln.x1 - ln.x0 > 0.2 * width for ln in right
    ):
        return None
    return gutter


def _reading_order(lines: list[_Line], width: float, body: float) -> list[list[_Line]]:
    """Lines grouped into sequences in reading order; footnotes come last.

    A sequence is a run of lines read top-down: a full-width band, or one column of a
    two-column band. Paragraphs may continue from one sequence into the next.
    """
    if not lines:
        return []
    vertical = sum(1 for ln in lines if ln.y1 - ln.y0 > 2 * (ln.x1 - ln.x0) and len(ln.text) > 3)
    if vertical > len(lines) / 2:
        return [lines]  # rotated page (a landscape table): trust the content stream
    gutter = _find_gutter(lines, width, body)
    if gutter is None:
        body_part, notes = _split_footnotes(_top_down(lines), body)
        return [s for s in (body_part, notes) if s]
    tol = 0.02 * width
    for ln in lines:
        if ln.x0 < gutter - tol and ln.x1 > gutter + tol:
            ln.col = 0
        else:
            ln.col = 1 if (ln.x0 + ln.x1) / 2 < gutter else 2
    # Horizontal bands, top to bottom: full width or two columns.
    bands: list[tuple[bool, list[_Line]]] = []
    for ln in sorted(lines, key=lambda ln: -ln.y1):
        full = ln.col == 0
        if bands and bands[-1][0] == full:
            bands[-1][1].append(ln)
        else:
            bands.append((full, [ln]))
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
            seqs.append(_top_down(band))
            continue
        for col in (1, 2):
            part, foot = _split_footnotes(_top_down(ln for ln in band if ln.col == col), body)
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
    return seq[:k], seq[k:]


# --- headings ------------------------------------------------------------------------------

_HEADING_WORDS = frozenset(
    """abstract introduction background methods method methodology approach experiments
    experiment evaluation results discussion conclusion conclusions limitations references
    bibliography acknowledgments acknowledgements acknowledgment acknowledgement appendix
    appendices analysis preliminaries summary""".split()
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
_ZH_HEADING_WORDS = frozenset(
    "摘要 引言 前言 绪论 背景 相关工作 方法 实验 结果 讨论 结论 总结 致谢 参考文献 附录 结语".split()
)
_NUMBERED = re.compile(r"^(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[IVX]{1,5}\.|[A-H](?:\.\d{1,2}){0,2}\.?)\s+(\S.*)$")
_ZH_NUMBERED = re.compile(
    r"^(?:[一二三四五六七八九十百]+[、.．]|[（(][一二三四五六七八九十]+[）)]|第[一二三四五六七八九十百\d]+[章节部分篇条]"
    r"|\d{1,2}(?:\.\d{1,2}){0,3}\.?\s*(?=[\u4e00-\u9fff]))"
)
_ZH_SENTENCE_END = re.compile("[。；，！？]")


def _strip_heading_number(text: str) -> str:
    m = _NUMBERED.match(text)
    return m.group(1) if m else text


def _heading_strength(ln: _Line, text: str, body: float) -> int:
    """2: surely a section heading (numbered or a known name, set off by type);
    1: maybe one (only its big type says so); 0: not a heading."""
    n = len(text)
    if n < 2 or n > 100 or text[-1] in ",;":
        return 0
    bigger = ln.size >= body * 1.08 if body > 0 else False
    emphasised = ln.bold or bigger
    if not emphasised and (n > 30 or not (text[0].isupper() or _CJK_JOIN.match(text[0]))):
        return 0  # plain type: only a short, capitalised known name can be a heading
    if _CJK_JOIN.match(text[0]) or _ZH_NUMBERED.match(text):
        if n > 30 or _ZH_SENTENCE_END.search(text[:-1]) or text[-1] in "。，；":
            return 0
        if text.replace(" ", "") in _ZH_HEADING_WORDS or (_ZH_NUMBERED.match(text) and emphasised):
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
    m = _NUMBERED.match(text)
    if m and emphasised:
        rest = m.group(1)
        if (rest[0].isupper() or _CJK_JOIN.match(rest[0])) and len(rest.split()) <= 10:
            return 0 if rest.startswith(("http", "www")) else 2
    if body > 0 and ln.size >= body * 1.2 and sum(c.isalpha() for c in text) >= 3:
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
        for p in pages:
            for ln in p.lines:
                if len(ln.text) > 100 or id(ln) in skip:
                    continue
                strength = _heading_strength(ln, ln.text, body)
                if strength:
                    self.strength[id(ln)] = strength
                if strength == 2:
                    self.styles.add(_style(ln))

    def __call__(self, ln: _Line) -> bool:
        strength = self.strength.get(id(ln), 0)
        if strength != 1:
            return strength == 2
        if self.styles:
            return _style(ln) in self.styles
        return ln.bold or ln.size >= 1.35 * self.body


# --- paragraphs ----------------------------------------------------------------------------

_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table|Algorithm|Listing|Scheme)\s*[A-Z]?\d+[.:]|^[图表]\s*\d+")


def _margin(values: Iterable[float]) -> float:
    """The most common left (or right) edge: robust against indents and short lines."""
    counts = Counter(round(v) for v in values)
    return float(counts.most_common(1)[0][0])


def _typical_gap(seqs: Sequence[Sequence[_Line]]) -> float:
    gaps = []
    for seq in seqs:
        for a, b in zip(seq, seq[1:], strict=False):
            g = a.y0 - b.y1
            if 0 < g < 2.5 * max(a.size, 1.0) and abs(a.size - b.size) < 0.5:
                gaps.append(g)
    if gaps:
        return float(statistics.median(gaps))
    return 0.3 * max((ln.size for s in seqs for ln in s), default=10.0)


class _Para:
    """A paragraph being assembled; ``kind`` is body, heading, caption or title."""

    __slots__ = ("col_left", "kind", "last", "left", "lines", "right", "size", "sized", "text")

    def __init__(self, kind: str, line: _Line, text: str, right: float, col_left: float = 0.0) -> None:
        self.kind = kind
        self.last = line
        self.text = text
        self.right = right
        self.col_left = col_left
        self.left = line.x0
        self.lines = 1
        self.size = line.size
        self.sized = len(text) >= 15

    def add(
        self, line: _Line, text: str, compounds: frozenset[str], right: float, col_left: float = 0.0
    ) -> None:
        self.text = join_lines(self.text, text, self.last.hyphen, compounds)
        if not self.sized and len(text) >= 15:
            # The first real line sets the size, not a footnote mark or a lone symbol.
            self.size = line.size
            self.sized = True
        if right != self.right:
            self.left = line.x0  # continued in another column
        self.left = min(self.left, line.x0)
        self.lines += 1
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
        left = min((ln.x0 for ln in seq if len(ln.text) >= 10), default=min(ln.x0 for ln in seq))
        right = max(_margin(ln.x1 for ln in seq), max(ln.x1 for ln in seq) - 4)
        colw = max(right - left, 1.0)
        # Ragged-right text has short lines everywhere; only in justified text does a
        # short line ending a sentence mark the end of a paragraph.
        justified = sum(1 for ln in seq if ln.x1 >= right - 0.03 * colw) >= 0.5 * len(seq)
        if cur is not None and cur.last.col != 0 and cur.is_open(prev_colw):
            held = cur  # column text running on into the next column
        cur = None
        for ln in seq:
            text = ln.text
            if cur is not None and _same_row(cur.last, ln):
                cur.add(ln, text, compounds, right, left)
                continue
            if id(ln) in title:
                if cur is not None and cur.kind == "title":
                    cur.add(ln, text, compounds, right, left)
                else:
                    cur = _Para("title", ln, text, right, left)
                    paras.append(cur)
                continue
            if is_heading(ln):
                held = None
                if cur is not None and cur.heading and _heading_goes_on(cur.last, ln, text):
                    cur.add(ln, text, compounds, right, left)
                else:
                    cur = _Para("heading", ln, text, right, left)
                    paras.append(cur)
                continue
            if cur is not None and cur.heading and _heading_goes_on(cur.last, ln, text) and ln.bold:
                cur.add(ln, text, compounds, right, left)
                continue
            m = _CAPTION.match(text)
            # "Table 4. On average ..." may just be a sentence; "Table 4:" never is.
            caption = m is not None and (m.group(0)[-1] != "." or ln.size < body - 0.3)
            if (
                cur is not None
                and cur.kind in ("body", "caption")
                and not caption
                and _continues(cur, ln, text, left, right if justified else 0.0, colw, gap_norm)
            ):
                cur.add(ln, text, compounds, right, left)
                continue
            if (
                held is not None
                and not caption
                and (held.last.col != 0) == (ln.col != 0)
                and abs(held.size - ln.size) <= 0.3
                # Same indent as the held paragraph's last line: none for running text,
                # a hanging indent inside a reference entry.
                and abs((ln.x0 - left) - (held.last.x0 - held.col_left)) < 0.6 * max(ln.size, 1.0)
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
        and not _NUMBERED.match(text)
        and _strip_heading_number(text).lower().rstrip(":.") not in _HEADING_WORDS
    )


def _same_row(a: _Line, b: _Line) -> bool:
    overlap = min(a.y1, b.y1) - max(a.y0, b.y0)
    return overlap >= 0.5 * max(min(a.y1 - a.y0, b.y1 - b.y0), 0.5) and b.x0 >= a.x1 - 1


def _continues(
    para: _Para,
    b: _Line,
    b_text: str,
    left: float,
    right: float,
    colw: float,
    gap_norm: float,
) -> bool:
    """Whether line ``b`` (same sequence) continues the paragraph ``para``."""
    a = para.last
    if a.hyphen:
        return True
    size = max(para.size, b.size, 1.0)
    if len(b_text) >= 15 and abs(para.size - b.size) > 0.12 * size:
        return False
    gap = a.y0 - b.y1
    if gap > gap_norm + 0.45 * size or gap < -0.5 * size:
        return False
    # Indents are measured against the paragraph's own lines, since a column may also hold
    # narrower blocks (an indented abstract, a list). A first-line indent after a line at
    # the paragraph's margin starts a new paragraph; the lines after the first one of a
    # list item or reference entry hang indented, and going back out starts the next item.
    if para.lines >= 2:
        if b.x0 - a.x0 > 0.6 * size and a.x0 <= para.left + 1 and b.x0 - left < 0.3 * colw:
            return False
        if a.x0 - b.x0 > 0.6 * size and a.x0 > para.left + 0.6 * size:
            return False
    # ``right`` is 0 for ragged-right text, where line length says nothing.
    return not (para.text[-1] in _TERMINAL and a.x1 < right - 0.12 * colw)


# --- headers, footers, page numbers --------------------------------------------------------

_PAGE_NUMBER = re.compile(
    r"^(?:page\s+|p\.\s*|第\s*)?[-–—]?\s*(?:\d{1,4}|[ivxlc]{1,7})\s*[-–—]?"
    r"(?:\s*(?:of|/)\s*\d{1,4})?\s*页?$",
    re.IGNORECASE,
)
_DIGITS = re.compile(r"\d+")


def _edge_lines(lines: Sequence[_Line], rows: int = 3) -> list[_Line]:
    """Lines in the top and bottom ``rows`` rows of a page (fewer on a sparse page)."""
    if not lines:
        return []
    ordered = _rows(sorted(lines, key=lambda ln: -ln.y1))
    k = min(rows, max(1, len(ordered) // 4))
    picked = ordered[:k] + ordered[max(k, len(ordered) - k) :]
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
_ARXIV_OLD = re.compile(
    r"\b((?:hep-(?:th|ph|ex|lat)|astro-ph|cond-mat|gr-qc|math-ph|nucl-(?:th|ex)|quant-ph|nlin"
    r"|physics|math|cs|q-bio|q-fin|stat)(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?"
)
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
_AFFILIATION = re.compile(
    r"universit|institut|college|school|department|dept\.|laborator|\blab\b|research|"
    r"academy|center|centre|inc\.|ltd|corporation|company|google|microsoft|meta\b|amazon|"
    r"allen|hospital|faculty|@|http|www\.|\.com|\.edu|\.org|大学|学院|研究所|研究院|实验室|公司",
    re.IGNORECASE,
)
_NAME_SEPARATORS = re.compile(
    r"[^\w\s.'’\-]|[\d_]|[\u03b1-\u03c9]|\s+(?:and|&)\s+|\s{3,}|,|;|，|、|；",
    re.UNICODE,
)
_PARTICLES = frozenset("van von der de den da di del della la le du dos bin al el".split())


def _plausible_title(value: str) -> bool:
    v = value.strip()
    return len(v) >= 4 and not _JUNK_TITLE.search(v) and any(c.isalpha() for c in v) and " " in v


def _split_authors(value: str) -> list[str]:
    parts = re.split(r"\s*(?:;|,|，|、|；|\band\b|&)\s*", value)
    names = [" ".join(p.split()) for p in parts if p.strip()]
    return [n for n in names if any(c.isalpha() for c in n)]


def _looks_like_name(text: str) -> bool:
    if not text or len(text) > 40:
        return False
    if _CJK_JOIN.match(text[0]):
        return 2 <= len(text) <= 4 and all(_CJK_JOIN.match(c) for c in text)
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
        if _AFFILIATION.search(text):
            continue
        pieces = [" ".join(p.split()) for p in _NAME_SEPARATORS.split(text)]
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
        if _VENUE_CUE.search(text):
            m = _YEAR.search(text)
            if m:
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


def _body_size(pages: Sequence[_RawPage]) -> float:
    weights: Counter[float] = Counter()
    for p in pages:
        for ln in p.lines:
            weights[round(ln.size * 2) / 2] += len(ln.text)
    return weights.most_common(1)[0][0] if weights else 0.0


def _title_lines(page: _RawPage, drop: set[int], body: float) -> list[_Line]:
    """The biggest-type lines near the top of page 1 (the title, maybe over two lines)."""
    cands = [
        ln
        for ln in page.lines
        if id(ln) not in drop and ln.y1 > page.height * 0.45 and sum(c.isalpha() for c in ln.text) >= 3
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


def extract_pdf(path: Path) -> Extracted:
    """Extract cleaned, reading-ordered text and metadata from the PDF at ``path``.

    Raises ``ImportFailure`` with code ``encrypted``, ``corrupt``, ``empty`` or ``no_text``
    (and ``unreadable`` when the file cannot be read at all).
    """
    path = Path(path)
    if not path.is_file():
        raise ImportFailure(f"The file {path.name} could not be found or read.", "unreadable")
    meta, raw_pages, n_pages = _read_pdf(path)

    for p in raw_pages:
        for ln in p.lines:
            ln.text = clean_line(ln.text)
        p.lines = [ln for ln in p.lines if ln.text]
    body = _body_size(raw_pages)
    drop = _furniture(raw_pages)
    for p in raw_pages:
        # The arXiv stamp in the left margin runs vertically; keep it out of the body text.
        for ln in p.lines:
            if ln.x1 < 0.12 * p.width and ln.y1 - ln.y0 > 3 * (ln.x1 - ln.x0) and len(ln.text) > 8:
                drop.add(id(ln))
    compounds = frozenset(
        w.lower() for w in _COMPOUND.findall("\n".join(ln.text for p in raw_pages for ln in p.lines))
    )

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
        text = "\n\n".join("# " + q.text if q.heading else q.text for q in paras)
        if _ALNUM.search(text):
            letters += len(text) - text.count(" ") - text.count("\n")
            pages.append(Page(p.number, text))
            all_paras.append(paras)
    if letters < max(12, 12 * n_pages):
        raise ImportFailure(
            "The PDF has no text layer (it looks scanned); OCR would be needed to import it.",
            "no_text",
        )
    md = _metadata(meta, raw_pages, title_lines, pages, all_paras)
    return Extracted(pages=pages, metadata=md, kind="pdf")


_ALNUM = re.compile(r"[^\W_]")


def _tidy(paras: list[_Para], page_no: int) -> list[_Para]:
    """Split "Abstract—text" into heading and text; glue lone symbols to what follows."""
    out: list[_Para] = []
    carry = ""
    for q in paras:
        if carry and q.kind in ("body", "caption"):
            q.text = carry + " " + q.text
            carry = ""
        if q.kind == "body" and len(q.text) <= 3 and not _ALNUM.search(q.text):
            carry = (carry + " " + q.text).strip()  # a footnote mark on its own line
            continue
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
    page_title = " ".join(clean_line(ln.text) for ln in title_lines).strip()
    meta_title = " ".join(meta.get("Title", "").split())
    md.title = meta_title if _plausible_title(meta_title) else page_title

    author_field = meta.get("Author", "").strip()
    if author_field and not _JUNK_TITLE.search(author_field) and any(c.isalpha() for c in author_field):
        md.authors = _split_authors(author_field)
    first = raw_pages[0] if raw_pages and raw_pages[0].number == 1 else None
    first_lines: list[str] = []
    if first:
        first_lines = [clean_line(ln.text) for ln in _top_down(first.lines)]
    if not md.authors and first and title_lines:
        ordered = _top_down(first.lines)
        start = max(ordered.index(ln) for ln in title_lines) + 1 if title_lines[-1] in ordered else 0
        after: list[str] = []
        for ln in ordered[start : start + 10]:
            text = clean_line(ln.text)
            low = text.lower().rstrip(":.")
            if low.startswith(("abstract", "摘要", "摘 要")) or len(text.split()) > 16:
                break
            after.append(text)
        md.authors = _authors_from_lines(after)

    early = [ln for p in raw_pages[:2] for ln in p.lines]
    early_text = "\n".join(clean_line(ln.text) for ln in early)
    early_text += "\n" + "\n".join(pg.text for pg in pages[:2])
    doi = _DOI.search(early_text) or _DOI.search(meta.get("Subject", "") + " " + meta.get("Keywords", ""))
    md.doi = _clean_doi(doi.group(0)) if doi else ""
    arx = _ARXIV_NEW.search(early_text) or _ARXIV_OLD.search(early_text)
    md.arxiv_id = arx.group(1) if arx else ""
    page1_text = "\n".join(first_lines)
    md.year = _find_year(first_lines, page1_text, md.arxiv_id, meta.get("CreationDate", ""))
    md.venue = _find_venue(first_lines)
    for paras in all_paras[:2]:
        md.abstract = _abstract(paras)
        if md.abstract:
            break
    if not md.abstract and pages:
        m = re.search(r"^# (?:Abstract|摘要)\n\n(.+?)(?:\n\n# |\Z)", pages[0].text, re.DOTALL | re.MULTILINE)
        if m:
            md.abstract = m.group(1).strip()
    sample = "".join(pg.text[:3000] for pg in pages[:3])
    md.language = detect_language(sample)
    return md
