"""OCR of PDF pages that have no usable text layer: which pages need it, and reading them.

Three parts, used in different processes:

* ``text_layer_problem`` (any process, cheap): whether a page's text layer is usable, missing
  or garbage (a broken font encoding, private-use glyphs, one glyph repeated, letter strings
  no language spells). It must stay cheap: every page of every born-digital PDF goes through it.
* ``ocr_pdf_page`` (an extraction worker process): renders one page with pypdfium2 so that its
  long side has ``RENDER_LONG_SIDE_PX`` pixels and reads it with RapidOCR (PP-OCR detection and
  recognition ONNX models, shipped in the ``rapidocr`` wheel: nothing is downloaded). Returns the
  recognised lines in PDF points, pieces of one printed line merged, for the PDF layout code
  (pdf.py), which puts them in reading order and joins them like text-layer lines.
* ``run_ocr`` (the importing process): sends a document's pages to the worker pool one page per
  worker at a time, reports "OCR page 3 of 12", and stops within a page on cancel by ending the
  workers.

The render size and engine settings were chosen by measurement (tests/bench/ocr_study.py): a
2000 px long side (A4 at scale 2.37) gives 0 % CER on clean 300-dpi English and Chinese pages,
RapidOCR caps larger inputs at 2000 px anyway, and the text-line orientation classifier is off
because it flipped upright lines and raised the CER to 2.6-16 %.
"""

from __future__ import annotations

import math
import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future
from dataclasses import dataclass
from typing import Any, Protocol

from ..text.lazy import lazy_pattern
from .pdfium_calls import PDFIUM_LOCK

__all__ = [
    "RENDER_LONG_SIDE_PX",
    "LocalOcrPool",
    "OcrCancelled",
    "OcrLine",
    "OcrPool",
    "OcrUnavailable",
    "image_cover",
    "ocr_available",
    "ocr_pdf_page",
    "run_ocr",
    "text_layer_problem",
]

RENDER_LONG_SIDE_PX = 2000
# Small pages (a slide, a receipt) would otherwise be rendered above 300 dpi for nothing.
_MAX_SCALE = 300 / 72
# Lines the recogniser is unsure of are mostly texture read as letters (photos, halftones).
_MIN_SCORE = 0.5
# A page with fewer letters than this in its text layer counts as having none (a page number,
# a scanner's stamp) when an image covers it.
_MIN_LETTERS = 20
_MIN_IMAGE_COVER = 0.3


class OcrUnavailable(Exception):
    """RapidOCR or onnxruntime cannot be loaded in this installation."""


class OcrCancelled(Exception):
    """The user cancelled while pages were being read."""


@dataclass(slots=True, frozen=True)
class OcrLine:
    """One recognised line in PDF points, origin bottom-left (like pdf.py's lines)."""

    text: str
    x0: float
    y0: float  # bottom
    x1: float
    y1: float  # top


# --- is the text layer usable? -------------------------------------------------------------

# A word of three or more Latin letters (a whole \w run: \b on both sides). The lookbehind
# follows the first letter so that the pattern starts with a character set, which the regex
# engine skips to in C instead of trying the pattern at every character.
_LATIN_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ](?<!\w[A-Za-zÀ-ÖØ-öø-ÿ])[A-Za-zÀ-ÖØ-öø-ÿ]{2,}\b")
# A word of three or more letters without a vowel that is not an acronym (CNN, HTTP): one of
# the Latin words, all consonants, not all capitals. Six or more consonants in a row are a
# consonant run wherever they stand.
_CONSONANTS = "bcdfghjklmnpqrstvwxzBCDFGHJKLMNPQRSTVWXZ"
_ENOUGH_LETTERS = re.compile(r"(?:[\W_]*[^\W_]){20}")
_VOWELS = frozenset("aeiouyàáâãäåèéêëìíîïòóôõöùúûüýÿæœAEIOUYÀÁÂÃÄÅÈÉÊËÌÍÎÏÒÓÔÕÖÙÚÛÜÝ")
# Leader dots of a table of contents and rules drawn with dashes repeat one glyph legitimately.
_REPEAT_OK = frozenset(".-_·…=*⋅•．。")
_SPACE = frozenset(" \n\r\t\u3000")
_SAMPLE = 1000
_WORD_SAMPLE = 600
# The sample's ASCII characters are counted by kind, each kind deleted (bytes.translate, one C
# pass) from what the kinds before it left: spaces, leader glyphs, vowels, consonants, digits,
# controls; punctuation is what remains. The letters are split into groups none of which holds
# 30 % of running text, so that a glyph over that share (the repeated-glyph test) can only be
# in a group over it, and only such a group is counted glyph by glyph.
_ASCII_SPACES = b" \n\r\t"
_ASCII_LEADERS = b".-_=*"  # the ASCII ones of _REPEAT_OK
_VOWEL_GROUPS = (b"ea", b"oiuyAEIOUY")
_CONSONANT_GROUPS = (b"tn", b"shr", b"dlcm", b"bfgjkpqvwxz", b"BCDFGHJKLMNPQRSTVWXZ")
_DIGIT_GROUP = b"0123456789"
_CONTROLS = bytes(c for c in range(32) if c not in b"\t\n\r")  # what _junk takes in ASCII
_GLYPH_KINDS = (*_VOWEL_GROUPS, *_CONSONANT_GROUPS, _DIGIT_GROUP, _CONTROLS)
_ASCII_KINDS = (_ASCII_SPACES, _ASCII_LEADERS, *_GLYPH_KINDS)
_ASCII_BYTES = bytes(range(128))


def _byte_table(default: bytes, groups: dict[bytes, bytes]) -> bytes:
    """A bytes.translate table: each group's bytes to its byte, every other byte to ``default``."""
    table = bytearray(default * 256)
    for chars, to in groups.items():
        for c in chars:
            table[c] = to[0]
    return bytes(table)


# For the consonant runs: the consonants to "c", every other byte (a non-ASCII character's
# UTF-8 bytes too) to a space.
_CONSONANT_MAP = _byte_table(b" ", {_CONSONANTS.encode(): b"c"})
# For the words without a vowel: lowercase consonants to "c", capital ones to "C", the space
# between the words kept, every other byte to "v".
_WORD_MAP = _byte_table(b"v", {_CONSONANTS[:20].encode(): b"c", _CONSONANTS[20:].encode(): b"C", b" ": b" "})
_LOWER_AS_OTHER = bytes.maketrans(b"c", b"v")


def _junk(c: str) -> bool:
    o = ord(c)
    return 0xE000 <= o <= 0xF8FF or o >= 0xF0000 or c == "\ufffd" or (o < 32 and c not in "\t\n\r")


def _cjk(c: str) -> bool:
    o = ord(c)
    return 0x3040 <= o <= 0x30FF or 0x3400 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF


def text_layer_problem(text: str) -> str:
    """``""`` when the page's text layer reads as text; ``"garbage"`` when it does not.

    Wordlist-free, so it works for any language: the share of private-use, control and
    replacement characters; one glyph repeated over a page; letters and digits too rare among
    the glyphs; Latin words without vowels or with long consonant runs, or a vowel share no
    European language has. Too little text to judge is not garbage (the caller decides by
    the amount of text whether a page needs OCR anyway). Every page of every born-digital PDF
    comes through here, so the ASCII characters are counted by kind in C passes (see
    ``_ASCII_KINDS``) and only the others one by one, as distinct characters.
    """
    sample = text[:_SAMPLE]
    ascii_chars = sample.encode("ascii", "ignore")
    rest = ascii_chars
    kinds = []
    for chars in _ASCII_KINDS:
        left = rest.translate(None, chars)
        kinds.append(len(rest) - len(left))
        rest = left  # ends as the ASCII punctuation and symbols
    spaces, leaders, *groups, digits, junk = kinds
    others: Counter[str] = Counter()
    if len(ascii_chars) < len(sample):
        # UTF-8 holds no ASCII byte inside a longer character: deleting the ASCII bytes leaves
        # exactly the other characters.
        wide = sample.encode("utf-8", "surrogatepass").translate(None, _ASCII_BYTES)
        others = Counter(wide.decode("utf-8", "surrogatepass"))
        spaces += others["\u3000"]
    n = len(sample) - spaces
    if n < _MIN_LETTERS:
        return ""
    vowels = groups[0] + groups[1]
    letters = sum(groups)
    alnum = letters + digits
    cjk = top_n = 0
    for c, k in others.items():
        if c in _SPACE:
            continue
        if c in _REPEAT_OK:
            leaders += k
            continue
        if k > top_n:
            top_n = k
        if c.isalnum():
            alnum += k
            if _cjk(c):
                cjk += k
            elif c.isalpha() and ord(c) < 0x250:  # Latin letters
                letters += k
                if c in _VOWELS:
                    vowels += k
        elif _junk(c):
            junk += k
    limit = 0.3 * n
    if n >= 40 and top_n <= limit:
        # The most frequent ASCII glyph matters only in a kind holding more than the limit.
        for chars, k in zip((*_GLYPH_KINDS, rest), (*kinds[2:], len(rest)), strict=True):
            if k > limit:
                top_n = max(top_n, *map(ascii_chars.count, set(chars)))
    if junk > 0.2 * n or (top_n > limit and n >= 40):
        return "garbage"
    if alnum < 0.45 * (n - leaders):
        return "garbage"
    if cjk > 0.3 * n:
        return ""  # Chinese or Japanese text: the Latin checks below do not apply
    if letters >= 150 and not 0.22 <= vowels / letters <= 0.65:
        return "garbage"
    words_text = sample[:_WORD_SAMPLE]
    latin = _LATIN_WORD.findall(words_text)
    words = len(latin)
    if words >= 15:
        # A word without a vowel is all consonants: the words left non-empty with the
        # consonants deleted are the others, and those left non-empty with only the capitals
        # deleted are also the ones without a vowel that are not all capitals.
        shapes = (" " + " ".join(latin)).encode("utf-8", "surrogatepass").translate(_WORD_MAP)
        other = shapes.translate(None, b"cC").count(b" v")
        no_vowel = shapes.translate(_LOWER_AS_OTHER, b"C").count(b" v") - other
        # Each run of six or more consonants starts after a non-consonant (or at the start).
        consonants = words_text.encode("utf-8", "surrogatepass").translate(_CONSONANT_MAP)
        runs = (b" " + consonants).count(b" cccccc")
        if no_vowel + runs > 0.3 * words:
            return "garbage"
    return ""


def has_text(text: str) -> bool:
    """At least a few words' worth of letters or digits (a page number alone is not text)."""
    return _ENOUGH_LETTERS.match(text) is not None


def image_cover(page: Any, width: float, height: float) -> float:
    """Share of the page (0..1) covered by its largest image: a scan is one page-sized image.

    ``page`` is a pypdfium2 page; the caller holds the PDFium lock.
    """
    import pypdfium2.raw as pdfium_c

    area = max(width * height, 1.0)
    best = 0.0
    try:
        for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=2):
            left, bottom, right, top = obj.get_pos()
            w = min(right, width) - max(left, 0.0)
            h = min(top, height) - max(bottom, 0.0)
            if w > 0 and h > 0:
                best = max(best, w * h / area)
    except Exception:  # a damaged object list: assume an image, OCR finds out
        return 1.0
    return min(best, 1.0)


def needs_ocr(text: str, cover: Callable[[], float]) -> str:
    """Why a page must be read by OCR: ``"no_text"``, ``"garbage"``, or ``""`` (it need not).

    ``cover`` is asked only for pages with too little text, so born-digital pages pay nothing.
    """
    if not has_text(text):
        return "no_text" if cover() >= _MIN_IMAGE_COVER else ""
    return text_layer_problem(text)


# --- reading one page (in a worker process) ------------------------------------------------

_engine: Any = None
_engine_lock = threading.Lock()
_open_doc: tuple[str, Any] | None = None


def ocr_available() -> bool:
    """Whether RapidOCR and onnxruntime are installed (cheap: does not load them)."""
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("rapidocr", "onnxruntime"))


def _get_engine() -> Any:
    global _engine
    with _engine_lock:
        if _engine is None:
            try:
                import cv2
                from rapidocr import RapidOCR
            except ImportError as e:
                raise OcrUnavailable(f"OCR is not installed ({e.name or e})") from None
            # Two worker processes use the two cores; threads inside one would compete with them.
            cv2.setNumThreads(1)
            _engine = RapidOCR(
                params={
                    "Global.log_level": "error",  # "detection result is empty" on blank pages
                    "Global.use_cls": False,
                    "Global.max_side_len": RENDER_LONG_SIDE_PX,
                    "EngineConfig.onnxruntime.intra_op_num_threads": 1,
                    "EngineConfig.onnxruntime.inter_op_num_threads": 1,
                }
            )
        return _engine


def _document(path: str) -> Any:
    """The open PDF, kept between the pages of one document (a worker reads them in a row)."""
    global _open_doc
    import pypdfium2 as pdfium

    if _open_doc is not None and _open_doc[0] == path:
        return _open_doc[1]
    if _open_doc is not None:
        _open_doc[1].close()
        _open_doc = None
    doc = pdfium.PdfDocument(path)
    _open_doc = (path, doc)
    return doc


def render_page(path: str, index: int) -> tuple[Any, float, float]:
    """Page ``index`` (0-based) as an RGB array, with the render scale and the page height."""
    import numpy as np

    with PDFIUM_LOCK:
        page = _document(path)[index]
        try:
            width, height = page.get_size()
            scale = min(RENDER_LONG_SIDE_PX / max(width, height, 1.0), _MAX_SCALE)
            bitmap = page.render(scale=scale)
            image = np.array(bitmap.to_pil().convert("RGB"))
            bitmap.close()
        finally:
            page.close()
    return image, scale, float(height)


def recognise(image: Any) -> list[tuple[list[tuple[float, float]], str]]:
    """RapidOCR's lines on an RGB array: (four corner points in pixels, text)."""
    out = _get_engine()(image)
    boxes = getattr(out, "boxes", None)
    txts = getattr(out, "txts", None)
    if boxes is None or not txts:
        return []
    scores = getattr(out, "scores", None) or [1.0] * len(txts)
    return [
        ([(float(x), float(y)) for x, y in box], str(t))
        for box, t, s in zip(boxes, txts, scores, strict=False)
        if s >= _MIN_SCORE and str(t).strip()
    ]


def ocr_pdf_page(path: str, index: int) -> list[OcrLine]:
    """Read page ``index`` (0-based) of the PDF at ``path`` by OCR."""
    image, scale, height = render_page(path, index)
    pieces = []
    for box, text in recognise(image):
        xs = [x for x, _ in box]
        # The box of a slightly rotated line (a photo, a skewed scan) is a tilted quadrilateral:
        # its upright bounding box would be taller than the line and overlap its neighbours.
        # The line's own height is the mean length of the quad's left and right sides.
        (ax, ay), (bx, by), (cx, cy), (dx, dy) = box[:4]
        line_h = (math.hypot(dx - ax, dy - ay) + math.hypot(cx - bx, cy - by)) / 2
        mid = (ay + by + cy + dy) / 4
        pieces.append(
            OcrLine(
                text=tidy_line(text),
                x0=min(xs) / scale,
                y0=height - (mid + line_h / 2) / scale,
                x1=max(xs) / scale,
                y1=height - (mid - line_h / 2) / scale,
            )
        )
    del image
    return merge_row_pieces(pieces)


# --- lines from pieces ---------------------------------------------------------------------

# Compiled on first use (core.text.lazy): only OCR lines need them, never a text layer.
_CJK_SPACE = lazy_pattern(
    "(?<=[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]) +(?=[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef])"
)
_CJK_END = lazy_pattern("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")


# The recogniser drops the space after a closing bracket more often than any other:
# "(2015)12:13", "(blue)have". Latin text only: CJK text has no spaces to restore.
_CLOSE_GLUED = lazy_pattern(r"(?<=[A-Za-z0-9][)\]])(?=[A-Za-z0-9])")
# It reads an italic "l" ending a word as a slash ("Clinica/ Proteomics"); a real slash ends a
# word only at a line's end ("and/" before "or" on the next line), never before a space.
_SLASH_L = lazy_pattern(r"(?<=[a-z]{3})/(?= )")


def tidy_line(text: str) -> str:
    """One recognised line: spaces collapsed, none between CJK characters (the recogniser
    sometimes puts one at a wide glyph gap), one after a closing bracket glued to a word, and
    the slash it reads for a word's italic final "l"."""
    text = " ".join(text.split())
    text = _CLOSE_GLUED().sub(" ", text)
    text = _SLASH_L().sub("l", text)
    return _CJK_SPACE().sub("", text)


def _join(a: str, b: str) -> str:
    if a and b and _CJK_END().match(a[-1]) and _CJK_END().match(b[0]):
        return a + b
    return a + " " + b


def merge_row_pieces(pieces: Sequence[OcrLine]) -> list[OcrLine]:
    """Merge pieces of one printed line (the detector splits a line at wide word gaps) into
    one line; pieces further apart than about a line height stay apart (a column gutter)."""
    if not pieces:
        return []
    ordered = sorted(pieces, key=lambda p: -(p.y0 + p.y1))
    rows: list[list[OcrLine]] = []
    for p in ordered:
        h = p.y1 - p.y0
        if rows:
            r = rows[-1]
            ry0 = min(q.y0 for q in r)
            ry1 = max(q.y1 for q in r)
            overlap = min(p.y1, ry1) - max(p.y0, ry0)
            if overlap >= 0.5 * min(h, ry1 - ry0):
                r.append(p)
                continue
        rows.append([p])
    out: list[OcrLine] = []
    for r in rows:
        r.sort(key=lambda q: q.x0)
        cur = r[0]
        for q in r[1:]:
            height = max(cur.y1 - cur.y0, q.y1 - q.y0)
            if q.x0 - cur.x1 < 0.6 * height:
                cur = OcrLine(
                    _join(cur.text, q.text), cur.x0, min(cur.y0, q.y0), max(cur.x1, q.x1), max(cur.y1, q.y1)
                )
            else:
                out.append(cur)
                cur = q
        out.append(cur)
    return out


# --- a document's pages over the worker pool (in the importing process) ---------------------


class OcrPool(Protocol):
    """What ``run_ocr`` needs of a pool: workers.ExtractionPool, or LocalOcrPool."""

    @property
    def size(self) -> int: ...

    def submit_ocr(self, path: str, index: int) -> Future[list[OcrLine]]: ...

    def maintain(self) -> None: ...

    def kill(self) -> None: ...

    def close(self, timeout: float = 2.0) -> None: ...


class LocalOcrPool:
    """OCR in this process, one page per call: for a frozen application, which has no
    ``python -c`` to start workers with. Cancel then waits for the page in hand."""

    size = 1

    def submit_ocr(self, path: str, index: int) -> Future[list[OcrLine]]:
        future: Future[list[OcrLine]] = Future()
        try:
            future.set_result(ocr_pdf_page(path, index))
        except Exception as e:  # reported per page by run_ocr
            future.set_exception(e)
        return future

    def maintain(self) -> None:
        pass

    def kill(self) -> None:
        pass

    def close(self, timeout: float = 2.0) -> None:
        pass


def run_ocr(
    pool: OcrPool,
    path: str,
    pages: Sequence[int],
    on_page: Callable[[int, int], None] | None = None,
    idle: Callable[[], bool] | None = None,
    wait_s: float = 0.1,
) -> dict[int, list[OcrLine]]:
    """OCR the given 1-based ``pages`` of ``path`` on the pool's workers.

    Each worker has one page at a time in hand (memory stays that of one page per worker, however
    long the scan). ``on_page(done, total)`` is called before each page starts and ``idle`` while
    waiting; when ``idle`` returns True the workers are ended and ``OcrCancelled`` is raised.
    A page the recogniser fails on gets no lines; ``OcrUnavailable`` when it cannot load at all.
    """
    total = len(pages)
    results: dict[int, list[OcrLine]] = {}
    queue = list(pages)
    in_flight: dict[int, Future[Any]] = {}
    window = max(1, pool.size)
    started = 0
    unavailable: str = ""
    while queue or in_flight:
        while queue and len(in_flight) < window:
            number = queue.pop(0)
            started += 1
            if on_page is not None:
                on_page(started, total)
            in_flight[number] = pool.submit_ocr(path, number - 1)
        for number, fut in list(in_flight.items()):
            if not fut.done():
                continue
            del in_flight[number]
            try:
                results[number] = fut.result()
            except OcrUnavailable as e:
                unavailable = str(e)
                results[number] = []
            except (CancelledError, Exception):  # one unreadable page must not lose the others
                results[number] = []
        if unavailable:
            for fut in in_flight.values():
                fut.cancel()
            raise OcrUnavailable(unavailable)
        if in_flight and not any(f.done() for f in in_flight.values()):
            _wait_any(list(in_flight.values()), wait_s)
            pool.maintain()
        if idle is not None and idle():
            # A page takes seconds: ending the workers is what makes cancel end within one.
            pool.kill()
            raise OcrCancelled()
    return results


def _wait_any(futures: list[Future[Any]], timeout: float) -> None:
    from concurrent.futures import FIRST_COMPLETED, wait

    wait(futures, timeout=timeout, return_when=FIRST_COMPLETED)
