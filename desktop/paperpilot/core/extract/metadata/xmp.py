"""The PDF's XMP packet, read with pypdf: creators, title, journal, volume, issue, pages, DOI, date.

Publishers put the full creator list and the citation there (dc:creator, prism:*); LaTeX
templates put their defaults there too (acmart names "ACM Transactions on Graphics" 37(4) in
every paper), so the merge trusts a value only where the page does not contradict it.
"""

from __future__ import annotations

import logging
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...citations.identifiers import doi_from_text
from .names import Name, names_from_field

_NS = {
    "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
    "dc": "http://purl.org/dc/elements/1.1/",
}
# PRISM has had several namespace URIs; match the element by its local name and a prism URI.
_LOCAL = re.compile(r"^\{(?P<ns>[^}]*)\}(?P<name>.+)$")
_YEAR = re.compile(r"\b((?:1[89]|20)\d\d)\b")


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
    """The raw XMP packet of the PDF at ``path``; b"" when there is none or it cannot be read."""
    try:
        from pypdf import PdfReader
    except ImportError:  # pragma: no cover - pypdf is a dependency; a broken install loses only XMP
        return b""
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # a damaged xref is our problem, not the log's
    try:
        reader = PdfReader(str(path), strict=False)
        root: Any = reader.trailer["/Root"].get_object()
        meta = root.get("/Metadata")
        if meta is None:
            return b""
        return bytes(meta.get_object().get_data())
    except Exception:  # any damage in the file: XMP is optional
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
    try:
        root = ET.fromstring(packet[start : end + len(end_tag)])
    except ET.ParseError:
        return out
    values: dict[str, list[str]] = {}
    for desc in root.iter(f"{{{_NS['rdf']}}}Description"):
        for key, val in desc.attrib.items():  # the short form: properties as attributes
            m = _LOCAL.match(key)
            if m and val.strip():
                values.setdefault(_key(m.group("ns"), m.group("name")), []).append(val.strip())
        for child in desc:
            m = _LOCAL.match(child.tag)
            if m:
                values.setdefault(_key(m.group("ns"), m.group("name")), []).extend(_texts(child))

    def first(*keys: str) -> str:
        for k in keys:
            for v in values.get(k, []):
                if v.strip():
                    return v.strip()
        return ""

    out.title = first("dc:title")
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
    m = _YEAR.search(date)
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
