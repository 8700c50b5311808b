"""Bibliographic metadata of an imported file, each field with the source it came from.

``extract.pdf`` reads page 1 character by character (``FrontReader``, under PDFium's lock) and
hands the rest to ``pdf_metadata``: XMP (pypdf), the first page's layout, mastheads and citation
lines, the Info dictionary, merged by ``merge`` in order of trust. Text and Markdown files get
their title from their first heading or line (``extract.text``), with source "text".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...citations.identifiers import normalize_arxiv
from ...models import Metadata
from .first_page import _BANNER, body_height, read_layout
from .glyphs import GlyphLine, read_lines
from .info import read_info
from .masthead import read_mastheads, without_authors
from .merge import (
    CHOSEN_SOURCES,
    FIELDS,
    SOURCE_WEIGHT,
    Record,
    author_strings,
    confidence,
    key,
    merge,
    to_csl,
)
from .xmp import read_xmp

__all__ = [
    "CHOSEN_SOURCES",
    "FIELDS",
    "SOURCE_WEIGHT",
    "Front",
    "FrontReader",
    "GlyphLine",
    "Record",
    "confidence",
    "key",
    "pdf_metadata",
]

# Page 1's by-line and title sit in its upper part, above the abstract; the rest of the page is
# read as text only (mastheads, footers).
_TOP = 0.55


@dataclass
class Front:
    """Page 1 (and page 2 behind a cover page) as glyph lines, with the page heights."""

    lines: list[GlyphLine] = field(default_factory=list)
    height: float = 0.0
    next_lines: list[GlyphLine] = field(default_factory=list)
    next_height: float = 0.0
    # The body text's line height on each page (from every line, not only the ones read).
    body: float = 0.0
    next_body: float = 0.0
    # The lines were read by OCR from a scanned page, not from a text layer.
    ocr: bool = False


class FrontReader:
    """Collects the front page's glyph lines while ``extract.pdf`` reads each page (under its lock)."""

    def __init__(self) -> None:
        self.front = Front()

    def wants(self, index: int) -> bool:
        if index == 0:
            return True
        if index != 1:
            return False
        # Page 2 only behind a publisher's cover page (IOP's "To cite this article"), which is short.
        lines = self.front.lines
        return sum(len(ln.chars) for ln in lines) < 700 or any(
            "cite this article" in ln.text().lower() for ln in lines
        )

    def take(
        self,
        index: int,
        textpage: Any,
        height: float,
        spans: list[tuple[int, int, float, float]],
        text: str | None = None,
    ) -> None:
        """Read the characters of the page's lines (``spans``: first character, count, top,
        bottom) in the upper part of the page, where the title and by-line are; a sparse page
        (a thesis cover, whose date sits at the bottom) whole. The body's type size comes from
        every line's box. ``text``: the page's text when it maps one to one onto its characters."""
        try:
            sparse = sum(n for _s, n, _t, _b in spans) < 1500
            floor = -1.0 if sparse else height * (1.0 - _TOP)
            wanted = [(s, n) for s, n, top, _b in spans if top >= floor and s >= 0]
            lines = read_lines(textpage, wanted, text)
            weights: dict[float, int] = {}
            for _s, n, top, bottom in spans:
                h = round((top - bottom) * 2) / 2
                weights[h] = weights.get(h, 0) + n
            body = max(weights, key=weights.__getitem__) if weights else 0.0
            if sparse and lines:
                # Every line was read: the body's height in the same measure as the lines'
                # (loose glyph boxes are taller than line boxes, by a fifth in Helvetica), or
                # a page of one type size would find its first line bigger than its body.
                body = body_height(lines)
        except Exception:  # the by-line is optional: a page PDFium cannot give boxes for is no failure
            lines, body = [], 0.0
        if index == 0:
            self.front.lines, self.front.height, self.front.body = lines, height, body
        else:
            self.front.next_lines, self.front.next_height, self.front.next_body = lines, height, body


def pdf_metadata(
    path: Path,
    info: dict[str, str],
    front: Front,
    page_lines: list[list[str]],
    edge_lines: list[str],
    later_text: str,
    reading_text: str = "",
) -> Record:
    """Merge every source for the PDF at ``path``.

    ``page_lines``: the raw text lines of pages 1 and 2 (top-down), ``edge_lines``: the top and
    bottom rows of page 1 then page 2 (where mastheads and running heads sit), ``later_text``:
    the other pages' text (for "Published:" and the DOI above "Cite this article as"),
    ``reading_text``: pages 1 and 2 in reading order.
    """
    page_text = "\n".join(page_lines[0]) if page_lines else ""
    glyph_text = "\n".join(ln.text() for ln in front.lines)
    both = "\n".join("\n".join(p) for p in page_lines) + "\n" + glyph_text
    mast = read_mastheads(edge_lines, both, later_text, reading_text)
    layout = read_layout(front.lines, front.height, front.next_lines, front.next_height, mast.container_title,
                         body=front.body, next_body=front.next_body)  # fmt: skip
    families = [n.get("family", "") for n in layout.authors]
    journal = without_authors(mast.container_title, families)
    if journal != mast.container_title:
        mast.container_title = journal
        mast.first_author_family = mast.first_author_family or families[0]
    thesis = any(_BANNER.match(ln.text(False)) and "论文" in ln.text() for ln in front.lines[:12])
    rec = merge(read_xmp(path), layout, mast, read_info(info), page_text + "\n" + glyph_text, thesis=thesis)
    if front.ocr:
        _read_by_ocr(rec)
    return rec


# Sources that read the page itself: on a scanned page, OCR is what read them.
_PAGE_SOURCES = frozenset({"layout", "masthead", "arxiv", "page"})


def _read_by_ocr(rec: Record) -> None:
    """Mark the fields read off a scanned front page as read by OCR: a misread letter in a name
    or a title is likelier than in a text layer, and the confidence says so."""
    for f, s in rec.sources.items():
        if s in _PAGE_SOURCES:
            rec.sources[f] = "ocr"
    rec.agreed.difference_update(f for f, s in rec.sources.items() if s == "ocr")
    rec.confidence, rec.check = confidence(rec.sources, rec.agreed)


def apply(rec: Record, md: Metadata) -> None:
    """Put a merged record into the extractor's Metadata (columns, CSL item, provenance)."""
    md.title = rec.title
    md.authors = author_strings(rec)
    md.year = rec.year
    md.venue = rec.container_title
    md.doi = rec.doi
    # The column holds the id without its version (what matching and links use); the CSL item
    # keeps it as printed.
    md.arxiv_id = normalize_arxiv(rec.arxiv_id) if rec.arxiv_id else ""
    md.sources = dict(rec.sources)
    md.confidence = rec.confidence
    md.check = rec.check
    md.csl = to_csl(rec, abstract=md.abstract, language=md.language)
