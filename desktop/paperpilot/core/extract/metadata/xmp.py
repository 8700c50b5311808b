"""The PDF's XMP packet: creators, title, journal, volume, issue, pages, DOI, date.

The packet is the stream the catalog's /Metadata names (never an embedded image's), read with
pypdf. Measured when this reader replaced a hand-written one (cross-reference tables and
streams, object streams): pypdf costs ~3 ms more per file and ~70 ms once per extraction worker,
under 1 % of a default import of the shared PDFs; not worth a PDF parser of our own that every
hostile file reaches.

Publishers put the full creator list and the citation there (dc:creator, prism:*); LaTeX
templates put their defaults there too (acmart names "ACM Transactions on Graphics" 37(4) in
every paper), so the merge trusts a value only where the page does not contradict it.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from ...citations.identifiers import doi_from_text
from ...text.lazy import lazy_pattern
from .info import plausible_title
from .names import Name, names_from_field

if TYPE_CHECKING:
    import xml.etree.ElementTree as ET

_NS = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "dc": "http://purl.org/dc/elements/1.1/",
}
# PRISM has had several namespace URIs; match the element by its local name and a prism URI.
_LOCAL = lazy_pattern(r"^\{(?P<ns>[^}]*)\}(?P<name>.+)$")
_YEAR = lazy_pattern(r"\b((?:1[89]|20)\d\d)\b")


@dataclass
class Xmp:
    title: str = ""
    authors: list[Name] = field(default_factory=list)
    container_title: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    doi: str = ""
    year: int | None = None


def read_packet(path: Path) -> bytes:
    """The XMP packet of the PDF at ``path``; b"" when there is none or it cannot be read."""
    try:
        with path.open("rb") as fh:
            return packet_of(fh)
    except (OSError, ValueError):
        return b""


def packet_of(data: bytes | BinaryIO) -> bytes:
    """The stream data the catalog's /Metadata names in a PDF's bytes (or open binary file);
    b"" when the catalog names none, and for any damage: XMP is optional, so nothing a broken
    or hostile file does here reaches the importer."""
    try:
        # Imported on first use: a worker that reads no PDF metadata never pays for pypdf.
        from pypdf import PdfReader
    except ImportError:  # pragma: no cover - pypdf is a dependency; a broken install loses only XMP
        return b""
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # a damaged xref is our problem, not the log's
    try:
        reader = PdfReader(io.BytesIO(data) if isinstance(data, bytes) else data, strict=False)
        root: Any = reader.trailer["/Root"].get_object()
        meta = root.get("/Metadata")
        if meta is None:
            return b""
        return bytes(meta.get_object().get_data())
    except Exception:  # any damage in the file (pypdf's errors, recursion, a bad filter): no XMP
        return b""


def _texts(el: ET.Element) -> list[str]:
    """The values of a property: rdf:Seq/Bag/Alt items, or its own text."""
    items = el.findall(".//rdf:li", _NS)
    if items:
        return [" ".join("".join(i.itertext()).split()) for i in items if "".join(i.itertext()).strip()]
    text = " ".join("".join(el.itertext()).split())
    return [text] if text else []


def parse_packet(packet: bytes) -> Xmp:
    """Read the fields PaperPilot uses from an XMP packet; an unreadable packet gives nothing."""
    out = Xmp()
    if not packet.strip():
        return out
    start = packet.find(b"<x:xmpmeta")
    if start < 0:
        start = packet.find(b"<rdf:RDF")
    end_tag = b"</x:xmpmeta>" if packet.find(b"</x:xmpmeta>") >= 0 else b"</rdf:RDF>"
    end = packet.find(end_tag)
    if start < 0 or end < 0:
        return out
    import xml.etree.ElementTree as ET  # only a file with a packet needs it (most have none)

    try:
        root = ET.fromstring(packet[start : end + len(end_tag)])
    except ET.ParseError:
        return out
    values: dict[str, list[str]] = {}
    for desc in root.iter(f"{{{_NS['rdf']}}}Description"):
        for key, val in desc.attrib.items():  # the short form: properties as attributes
            m = _LOCAL().match(key)
            if m and val.strip():
                values.setdefault(_key(m.group("ns"), m.group("name")), []).append(val.strip())
        for child in desc:
            m = _LOCAL().match(child.tag)
            if m:
                values.setdefault(_key(m.group("ns"), m.group("name")), []).extend(_texts(child))

    def first(*keys: str) -> str:
        for k in keys:
            for v in values.get(k, []):
                if v.strip():
                    return v.strip()
        return ""

    title = first("dc:title")
    # Typesetters' job names ("6489122611071476 1..10", "119_123.indd") are no titles.
    out.title = title if plausible_title(title) else ""
    creators = values.get("dc:creator", [])
    for c in creators:
        out.authors.extend(names_from_field(c) if len(creators) == 1 else names_from_field(c)[:1])
    out.container_title = first("prism:publicationName")
    out.volume = first("prism:volume")
    out.issue = first("prism:number", "prism:issueIdentifier")
    start_page, end_page = first("prism:startingPage"), first("prism:endingPage")
    out.pages = f"{start_page}-{end_page}" if start_page and end_page else start_page or first("prism:pageRange")
    for k in ("prism:doi", "pdfx:doi", "crossmark:DOI", "dc:identifier", "prism:url"):
        doi = doi_from_text(first(k))
        if doi:
            out.doi = doi
            break
    date = first("prism:coverDate", "prism:publicationDate", "prism:coverDisplayDate")
    m = _YEAR().search(date)
    if m:
        out.year = int(m.group(1))
    return out


def _key(ns: str, name: str) -> str:
    low = ns.lower()
    if "prismstandard.org" in low:
        return f"prism:{name}"
    if low == _NS["dc"]:
        return f"dc:{name}"
    if "crossref.org/crossmark" in low:
        return f"crossmark:{name}"
    if "ns.adobe.com/pdfx" in low:
        return f"pdfx:{name}"
    return f"{ns}:{name}"


def read_xmp(path: Path) -> Xmp:
    return parse_packet(read_packet(path))
