"""The PDF's XMP packet, read with pypdf: creators, title, journal, volume, issue, pages, DOI, date.

Publishers put the full creator list and the citation there (dc:creator, prism:*); LaTeX
templates put their defaults there too (acmart names "ACM Transactions on Graphics" 37(4) in
every paper), so the merge trusts a value only where the page does not contradict it.
"""

from __future__ import annotations

import io
import logging
import mmap
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

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


_PACKET_START = re.compile(rb"<x:xmpmeta|<rdf:RDF")
_PACKET_END = {b"<x:xmpmeta": b"</x:xmpmeta>", b"<rdf:RDF": b"</rdf:RDF>"}


def _plain_packets(data: Any) -> list[bytes]:
    """XMP packets stored uncompressed in the file (as the PDF standard recommends, so that they
    can be found without parsing the file): the document's, and perhaps those of its images."""
    out = []
    for start_tag, end_tag in _PACKET_END.items():
        pos = data.find(start_tag)  # bytes.find is far faster than a regex over megabytes
        while pos >= 0:
            end = data.find(end_tag, pos)
            if end < 0:
                break
            if end - pos < 1 << 20:
                out.append(bytes(data[pos : end + len(end_tag)]))
            pos = data.find(start_tag, end)
        if out:
            break  # x:xmpmeta wraps rdf:RDF: one kind is enough
    return out


_METADATA_STREAM = re.compile(rb"/Type\s*/Metadata\b")
_CATALOG_METADATA = re.compile(rb"/Metadata\s+(\d+)\s+\d+\s+R")


def _object_header(num: bytes) -> re.Pattern[bytes]:
    """``num 0 obj`` not preceded by a digit. Led by the number, with that test as a look-behind
    after it: led by the look-behind, re tried the pattern at every byte of the file (26 ms in a
    1.8 MB paper, more than the rest of its extraction)."""
    return re.compile(num + rb"(?<![0-9][0-9]{%d})\s+0\s+obj" % len(num))


def _catalog_packet(data: Any) -> bytes | None:
    """The packet the document catalog points to, when the catalog is stored uncompressed:
    embedded figures (a PDF inside a PDF) carry their own packets, so the first is not always ours.
    The caller has seen a /Metadata key in the file."""
    if data.find(b"/Catalog") < 0:  # (an mmap has no fast "in")
        return None
    for cat in re.finditer(rb"/Type\s*/Catalog", data):
        window = data[max(0, cat.start() - 2000) : cat.end() + 2000]
        ref = _CATALOG_METADATA.search(window)
        if not ref:
            continue
        objs = list(_object_header(ref.group(1)).finditer(data))
        if not objs:
            continue
        start = objs[-1].end()  # an incremental update appends the newer version
        m = _PACKET_START.search(data, start, start + 4096)
        if m:
            end = data.find(_PACKET_END[m.group(0)], m.end())
            if end > 0:
                return bytes(data[m.start() : end + len(_PACKET_END[m.group(0)])])
    return None


def read_packet(path: Path) -> bytes:
    """The XMP packet of the PDF at ``path``; b"" when there is none or it cannot be read.

    Most files keep it uncompressed, found by a scan of the bytes; only a file that references a
    /Metadata stream we could not see (a compressed packet) is opened with pypdf, whose parse of
    the cross-reference table costs more than all the rest of the metadata extraction.
    """
    try:
        with path.open("rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            return _packet_of(mm)
    except (OSError, ValueError):
        return b""


def _packet_of(data: Any) -> bytes:
    """The document's packet in the file's bytes (an mmap: nothing is copied for the scans).

    Every way to the packet starts at a /Metadata key, so a file without one (most LaTeX papers)
    costs one scan of its bytes instead of one per tag looked for.
    """
    if data.find(b"/Metadata") < 0:
        return b""
    found = _catalog_packet(data)
    if found is not None:
        return found
    packets = _plain_packets(data)
    if len(packets) == 1:
        return packets[0]
    # A metadata stream is never inside an object stream, so its dictionary is always readable.
    if _METADATA_STREAM.search(data) is None:
        return b""  # no metadata stream anywhere
    found = _packet_via_object_streams(data)
    if found is not None:
        return found
    try:
        from pypdf import PdfReader
    except ImportError:  # pragma: no cover - pypdf is a dependency; a broken install loses only XMP
        return b""
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # a damaged xref is our problem, not the log's
    try:
        reader = PdfReader(io.BytesIO(bytes(data)), strict=False)
        root: Any = reader.trailer["/Root"].get_object()
        meta = root.get("/Metadata")
        if meta is None:
            return b""
        return bytes(meta.get_object().get_data())
    except Exception:  # any damage in the file: XMP is optional
        return b""


_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm\b")
_FIRST = re.compile(rb"/First\s+(\d+)")
_LENGTH = re.compile(rb"/Length\s+(\d+)\b(?!\s+\d+\s+R)")  # a direct length, not a reference
_FILTER = re.compile(rb"/Filter\s*(?:\[\s*/(\w+)\s*\]|/(\w+))")  # one filter, bare or in an array
_CATALOG = re.compile(rb"/Type\s*/Catalog\b")
_INFLATED_MAX = 64 << 20  # an object stream inflating beyond this is no catalog's


def _stream(data: Any, inside: int) -> tuple[bytes, bytes] | None:
    """The dictionary and decoded data of the stream object whose dictionary holds ``inside``;
    None unless it is plain or FlateDecode alone, without parameters, of a direct length."""
    head = data.rfind(b" obj", max(0, inside - 4096), inside)
    keyword = data.find(b"stream", inside, inside + 4096)
    if head < 0 or keyword < 0:
        return None
    info = bytes(data[head:keyword])
    length = _LENGTH.search(info)
    filt = _FILTER.search(info)
    if length is None or b"/DecodeParms" in info or info.count(b"/Filter") != (filt is not None):
        return None
    if filt is not None and (filt.group(1) or filt.group(2)) != b"FlateDecode":
        return None
    start = keyword + 6
    start += 2 if data[start : start + 2] == b"\r\n" else 1 if data[start : start + 1] in (b"\n", b"\r") else 0
    raw = bytes(data[start : start + int(length.group(1))])
    if filt is None:
        return info, raw
    try:
        inflater = zlib.decompressobj()
        body = inflater.decompress(raw, _INFLATED_MAX)
    except zlib.error:
        return None
    return (info, body) if inflater.eof and not inflater.unconsumed_tail else None


def _packet_via_object_streams(data: Any) -> bytes | None:
    """The catalog's metadata stream when the catalog is stored in a compressed object stream
    (PDF 1.5 files from Acrobat, Word and many typesetters), read without parsing the file:
    b"" when that catalog has no /Metadata, None when this cannot tell (then pypdf reads it).
    pypdf's cross-reference parse costs tens of milliseconds in such a file, often to find that
    the /Metadata streams it has are its images' (4 MB Acta Automatica Sinica paper: 18 ms)."""
    catalog: bytes | None = None
    for found in _OBJECT_STREAM.finditer(data):
        stream = _stream(data, found.start())
        if stream is None:
            return None
        info, body = stream
        first = _FIRST.search(info)
        if first is None:
            return None
        table = body[: int(first.group(1))].split()
        offsets = [int(table[i]) for i in range(1, len(table), 2) if table[i].isdigit()]
        if len(offsets) * 2 != len(table):
            return None
        base = int(first.group(1))
        for k, off in enumerate(offsets):
            obj = body[base + off : base + offsets[k + 1] if k + 1 < len(offsets) else len(body)]
            if _CATALOG.search(obj):
                catalog = obj  # an incremental update appends the newer version
    if catalog is None:
        return None
    ref = _CATALOG_METADATA.search(catalog)
    if ref is None:
        return b""
    objs = list(_object_header(ref.group(1)).finditer(data))
    if not objs:
        return None
    stream = _stream(data, objs[-1].end())
    return None if stream is None else stream[1]


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
