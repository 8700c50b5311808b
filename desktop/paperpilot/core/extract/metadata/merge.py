"""Merge what each source says into one record, field by field, and say where each value came from.

Trust, highest first: ``user`` (typed in the editor), ``bibliography`` (an imported .bib/.ris/
CSL-JSON entry), ``online`` (Crossref/arXiv, only when lookups are allowed), ``xmp``, ``layout``
(page 1's type sizes and by-line), ``ocr``
(the same read off a scanned page), ``masthead`` (mastheads, running heads, citation lines),
``arxiv`` (the arXiv stamp), ``page`` (weak page evidence: a © year), ``info`` (the PDF Info
dictionary). XMP is trusted only where the page does not contradict it: templates leave their
defaults in it. The confidence of a document is a weighted mean of its key fields' source
weights, raised when two sources agree; a document whose key fields are missing or come from
weak sources is flagged "check metadata".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from .first_page import Layout
from .info import Info
from .masthead import Masthead
from .names import Name, display
from .xmp import Xmp

FIELDS = ("title", "authors", "year", "container_title", "volume", "issue", "pages", "doi", "arxiv_id")
SOURCE_WEIGHT = {
    "user": 1.0, "bibliography": 1.0, "online": 0.95, "xmp": 0.9, "masthead": 0.9, "layout": 0.8,
    "arxiv": 0.85, "text": 0.8, "ocr": 0.7, "page": 0.5, "info": 0.4, "filename": 0.2,
}  # fmt: skip
# Sources a person chose: re-reading the file never replaces a field that came from one.
CHOSEN_SOURCES = frozenset({"user", "bibliography", "online"})
KEY_WEIGHTS = {"title": 0.4, "authors": 0.4, "year": 0.2}
CHECK_BELOW = 0.75
_VERSION = re.compile(r"v\d+$")


@dataclass
class Record:
    """The merged metadata of one file: values, their sources and the document's confidence."""

    title: str = ""
    authors: list[Name] = field(default_factory=list)
    year: int | None = None
    container_title: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    doi: str = ""
    arxiv_id: str = ""
    type: str = ""
    sources: dict[str, str] = field(default_factory=dict)
    agreed: set[str] = field(default_factory=set)
    confidence: float = 0.0
    check: bool = True


_NOT_ALNUM = re.compile(r"[\W_]+")


def key(text: str) -> str:
    """Comparison key: compatibility-normalised, case-folded letters and digits only."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", text).casefold())


def _same(a: str, b: str) -> bool:
    ka, kb = key(a), key(b)
    return bool(ka) and ka == kb


def _family_keys(names: list[Name]) -> list[str]:
    return [key(n.get("family") or n.get("literal", "")) for n in names]


def _on_page(value: str, page_key: str) -> bool:
    k = key(value)
    return bool(k) and k in page_key


def _printed(name: Name, page_key: str, byline: list[str]) -> bool:
    """Whether the page prints an XMP creator: its family name in the by-line the layout read,
    else its whole name on the page. A family name alone found somewhere on the page is not
    enough while there is a by-line: a template's "Jane Author" finds "author" in any page."""
    fam = key(name.get("family") or name.get("literal", ""))
    if not fam:
        return False
    if not byline:
        return fam in page_key
    if fam in byline:
        return True
    given = key(name.get("given", ""))
    return bool(given) and (given + fam in page_key or fam + given in page_key)


def merge(xmp: Xmp, layout: Layout, mast: Masthead, info: Info, page_text: str, *, thesis: bool = False) -> Record:
    rec = Record()
    # Only XMP's title, creators and journal are looked for on the page (most files have none).
    page_key = key(page_text) if xmp.title or xmp.authors or xmp.container_title else ""
    src = rec.sources

    # Title: XMP when the page agrees (or says nothing), then the layout, then Info.
    if xmp.title and (not layout.title or _same(xmp.title, layout.title) or _on_page(xmp.title, page_key)):
        rec.title, src["title"] = xmp.title, "xmp"
        if layout.title and _same(xmp.title, layout.title):
            rec.agreed.add("title")
    elif layout.title:
        rec.title, src["title"] = layout.title, "layout"
        lk, ik = key(layout.title), key(info.title)
        # The Info title typed by the author keeps capitals the page sets in small caps.
        if info.title and ik.startswith(lk) and len(lk) >= 0.8 * len(ik):
            rec.title = info.title
            rec.agreed.add("title")
    elif info.title:
        rec.title, src["title"] = info.title, "info"

    # Authors: XMP's creators when the page prints each of them, else the by-line.
    fams = _family_keys(xmp.authors)
    lay = _family_keys(layout.authors)
    # An XMP list that is a shorter part of the by-line ("Tully {et al.}") is incomplete.
    partial = len(lay) > len(fams) and lay[: len(fams)] == fams
    if xmp.authors and all(_printed(n, page_key, lay) for n in xmp.authors) and not partial:
        rec.authors, src["authors"] = xmp.authors, "xmp"
        if layout.authors and _family_keys(layout.authors) == fams:
            rec.agreed.add("authors")
    elif layout.authors:
        rec.authors, src["authors"] = layout.authors, "layout"
        if info.authors and _family_keys(info.authors) == _family_keys(layout.authors):
            rec.agreed.add("authors")
    elif mast.first_author_family:
        rec.authors, src["authors"] = [{"family": mast.first_author_family}], "masthead"
    elif info.authors:
        rec.authors, src["authors"] = info.authors, "info"

    # The citation: the masthead unless XMP's journal is printed on the page (or the page has none).
    use_xmp = bool(xmp.container_title) and (
        not mast.container_title or _on_page(xmp.container_title, page_key) or _same(xmp.container_title, mast.container_title)
    )
    for f in ("container_title", "volume", "issue", "pages"):
        xv, mv = getattr(xmp, f), getattr(mast, f)
        if use_xmp and xv and (not mv or f == "container_title" or _same(xv, mv) or xv in page_text):
            setattr(rec, f, xv)
            src[f] = "xmp"
            if mv and _same(xv, mv):
                rec.agreed.add(f)
        elif mv and (not use_xmp or f != "container_title"):
            setattr(rec, f, mv)
            src[f] = "masthead"

    # Year: a publication date or masthead, then XMP's cover date, then weaker page evidence.
    strong = mast.year_how in ("published", "masthead", "proceedings")
    if mast.year is not None and strong:
        rec.year, src["year"] = mast.year, "masthead"
        if xmp.year == mast.year:
            rec.agreed.add("year")
    elif xmp.year is not None:
        rec.year, src["year"] = xmp.year, "xmp"
    elif mast.year is not None:
        rec.year = mast.year
        src["year"] = {"arxiv": "arxiv", "cover": "layout"}.get(mast.year_how, "page")

    page_doi = mast.doi
    if xmp.doi and (not page_doi or xmp.doi.lower() == page_doi.lower() or xmp.doi.lower() in page_text.lower()):
        rec.doi, src["doi"] = xmp.doi, "xmp"
        if page_doi:
            rec.agreed.add("doi")
    elif page_doi:
        rec.doi, src["doi"] = page_doi, "masthead"
    elif info.doi:
        rec.doi, src["doi"] = info.doi, "info"
    if mast.arxiv_id:
        rec.arxiv_id, src["arxiv_id"] = mast.arxiv_id, "masthead"

    rec.type = guess_type(rec, thesis=thesis)
    rec.confidence, rec.check = confidence(src, rec.agreed)
    return rec


def guess_type(rec: Record, *, thesis: bool = False) -> str:
    if thesis:
        return "thesis"
    venue = rec.container_title
    if re.search(r"proceedings|conference|workshop|symposium|\b[A-Z]{3,}\s*'?\d{2,4}\b|会议|论文集", venue, re.IGNORECASE):
        return "paper-conference"
    if venue:
        return "article-journal"
    return "article"


def confidence(sources: dict[str, str], agreed: set[str] | frozenset[str] = frozenset()) -> tuple[float, bool]:
    """The document's metadata confidence (0–1) and whether it should be checked by a person."""
    total = 0.0
    for f, w in KEY_WEIGHTS.items():
        s = sources.get(f)
        if s is None:
            # A missing year may simply not be printed; a missing title or author list is a gap.
            total += w * (0.5 if f == "year" else 0.0)
            continue
        weight = SOURCE_WEIGHT.get(s, 0.5)
        if f in agreed:
            weight = min(1.0, weight + 0.1)
        total += w * weight
    conf = round(total, 2)
    weak = any(sources.get(f) in (None, "info", "page", "filename") for f in ("title", "authors"))
    return conf, weak or conf < CHECK_BELOW


def to_csl(rec: Record, *, abstract: str = "", language: str = "") -> dict[str, Any]:
    """The record as a CSL-JSON item (without id: the library gives one)."""
    data: dict[str, Any] = {"type": rec.type or "article", "title": rec.title}
    if rec.authors:
        data["author"] = [dict(n) for n in rec.authors]
    if rec.year:
        data["issued"] = {"date-parts": [[rec.year]]}
    for f, csl in (("container_title", "container-title"), ("volume", "volume"), ("issue", "issue"),
                   ("pages", "page"), ("doi", "DOI"), ("arxiv_id", "arxiv")):  # fmt: skip
        v = getattr(rec, f)
        if v:
            data[csl] = v
    if rec.arxiv_id and not rec.doi:
        data["URL"] = "https://arxiv.org/abs/" + _VERSION.sub("", rec.arxiv_id)
    if abstract:
        data["abstract"] = abstract
    if language:
        data["language"] = {"zh": "zh-CN", "en": "en-US"}.get(language, language)
    return data


def author_strings(rec: Record) -> list[str]:
    return [display(n) for n in rec.authors if display(n)]
