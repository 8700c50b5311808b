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
from collections.abc import Callable
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
        packet = _plain_packet(data, objs[-1].end())  # an incremental update appends the newer version
        if packet is not None:
            return packet
    return None


def _plain_packet(data: Any, start: int) -> bytes | None:
    """The uncompressed packet that a stream object's data starting near ``start`` holds."""
    m = _PACKET_START.search(data, start, start + 4096)
    if m is None:
        return None
    end = data.find(_PACKET_END[m.group(0)], m.end())
    return bytes(data[m.start() : end + len(_PACKET_END[m.group(0)])]) if end > 0 else None


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

    First through the cross-reference data, which leads to the catalog in a few small reads;
    when that cannot be followed (a damaged or unusual file), by scanning: every way to the
    packet starts at a /Metadata key, so a file without one costs one scan of its bytes instead
    of one per tag looked for.
    """
    found = _packet_via_xref(data)
    return found if found is not None else _packet_by_scan(data)


def _packet_by_scan(data: Any) -> bytes:
    """``_packet_of`` without the cross-reference data: the packet found by scanning the bytes."""
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


# --- the catalog through the cross-reference data ------------------------------------------------

_STARTXREF = re.compile(rb"startxref\s+(\d+)")
_XREF_ROW = re.compile(rb"(\d{10})[ ](\d{5})[ ]([nf])")
_SUBSECTION = re.compile(rb"[ \t\r\n]*(\d+)[ \t]+(\d+)[ \t]*\r?\n?")
_ROOT = re.compile(rb"/Root\s+(\d+)\s+\d+\s+R")
_PREV = re.compile(rb"/Prev\s+(\d+)\b(?!\s+\d+\s+R)")
_XREFSTM = re.compile(rb"/XRefStm\s+(\d+)\b(?!\s+\d+\s+R)")
_SIZE = re.compile(rb"/Size\s+(\d+)\b")
_W = re.compile(rb"/W\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s*\]")
_INDEX = re.compile(rb"/Index\s*\[([\d\s]*)\]")
_PREDICTOR = re.compile(rb"/Predictor\s+(\d+)")
_COLUMNS = re.compile(rb"/Columns\s+(\d+)")
_OBJ_HEAD = re.compile(rb"\s*(\d+)\s+(\d+)\s+obj\b")
_MAX_SECTIONS = 64
# An entry: (1, offset, 0) for an object stored in the file, (2, object stream, index) for one
# compressed into an object stream, (0, 0, 0) for a free one.
_Entry = tuple[int, int, int]


class _Table:
    """One classic cross-reference section: its subsections, rows read only when asked for."""

    def __init__(self, data: Any, pos: int) -> None:
        end = data.find(b"trailer", pos)
        if end < 0:
            raise ValueError("no trailer")
        self.rows = bytes(data[pos + 4 : end])
        self.parts: list[tuple[int, int, int]] = []  # (first number, count, where its rows start)
        at = 0
        while self.rows[at:].strip():
            head = _SUBSECTION.match(self.rows, at)
            if head is None:
                raise ValueError("not a cross-reference subsection")
            first, count = int(head.group(1)), int(head.group(2))
            self.parts.append((first, count, head.end()))
            at = head.end() + 20 * count  # rows are 20 bytes each (checked when one is read)
        open_ = data.find(b"<<", end, end + 64)
        if open_ < 0:
            raise ValueError("no trailer dictionary")
        self.info = bytes(data[open_ : _dict_end(data, open_)])

    def find(self, num: int) -> _Entry | None:
        for first, count, start in self.parts:
            if first <= num < first + count:
                row = _XREF_ROW.match(self.rows, start + 20 * (num - first))
                if row is None:
                    raise ValueError("a cross-reference row out of place")
                return (1, int(row.group(1)), 0) if row.group(3) == b"n" else (0, 0, 0)
        return None


class _XrefStream:
    """One cross-reference stream: decoded once, its entries read only when asked for."""

    def __init__(self, data: Any, pos: int) -> None:
        head = _OBJ_HEAD.match(bytes(data[pos : pos + 64]))
        open_ = data.find(b"<<", pos + head.end(), pos + head.end() + 64) if head else -1
        if open_ < 0:
            raise ValueError("not an object")
        self.info = bytes(data[open_ : _dict_end(data, open_)])
        w, size = _W.search(self.info), _SIZE.search(self.info)
        if b"/XRef" not in self.info or w is None or size is None:
            raise ValueError("not a cross-reference stream")
        self.widths = [int(w.group(i)) for i in (1, 2, 3)]
        self.row = sum(self.widths)
        stream = _stream(data, open_ + 2, predictor_ok=True)
        if stream is None or not self.row:
            raise ValueError("a stream this reader cannot decode")
        self.body = stream[1]
        predictor = _PREDICTOR.search(self.info)
        self.png = predictor is not None and int(predictor.group(1)) >= 10
        if predictor is not None and not self.png and int(predictor.group(1)) != 1:
            raise ValueError("a TIFF predictor")
        if self.png:
            columns = _COLUMNS.search(self.info)
            if columns is None or int(columns.group(1)) != self.row:
                raise ValueError("predictor columns unlike the rows")
            filters = self.body[:: self.row + 1]
            # Every row "Up" (what writers use) lets a field be summed down its column in C.
            if filters.count(2) != len(filters):
                raise ValueError("PNG filters other than Up")
        index = _INDEX.search(self.info)
        numbers = [int(x) for x in index.group(1).split()] if index else [0, int(size.group(1))]
        if len(numbers) % 2:
            raise ValueError("an odd /Index")
        self.parts = list(zip(numbers[::2], numbers[1::2], strict=True))

    def find(self, num: int) -> _Entry | None:
        k = 0  # the entry's row among all the stream's rows
        for first, count in self.parts:
            if first <= num < first + count:
                k += num - first
                break
            k += count
        else:
            return None
        fields = []
        at = 0
        for width in self.widths:
            value = 0
            for b in range(at, at + width):
                value = (value << 8) | self._byte(k, b)
            fields.append(value if width else -1)
            at += width
        kind = fields[0] if self.widths[0] else 1  # no type field: every entry is type 1
        return (kind, fields[1], max(fields[2], 0))

    def _byte(self, k: int, column: int) -> int:
        if not self.png:
            at = k * self.row + column
            if at >= len(self.body):
                raise ValueError("a row past the stream's end")
            return self.body[at]
        stride = self.row + 1
        if (k + 1) * stride > len(self.body):
            raise ValueError("a row past the stream's end")
        return sum(self.body[1 + column : (k + 1) * stride : stride]) & 0xFF


def _dict_end(data: Any, start: int) -> int:
    """The end of the dictionary that opens at ``start`` (nested ones included)."""
    depth = 0
    at = start
    limit = min(len(data), start + (1 << 16))
    while at < limit:
        opens: int = data.find(b"<<", at, limit)
        closes: int = data.find(b">>", at, limit)
        if closes < 0:
            break
        if 0 <= opens < closes:
            depth += 1
            at = opens + 2
        else:
            depth -= 1
            at = closes + 2
            if depth == 0:
                return at
    raise ValueError("unterminated dictionary")


def _packet_via_xref(data: Any) -> bytes | None:
    """The packet the catalog's /Metadata names, found by following the file's cross-reference
    tables or streams from ``startxref``: b"" when the catalog has no /Metadata, None when the
    way there cannot be followed (then the scan decides)."""
    try:
        tail = bytes(data[max(0, len(data) - 4096) :])
        starts = list(_STARTXREF.finditer(tail))
        if not starts:
            return None
        sections: list[_Table | _XrefStream] = []
        pending = [int(starts[-1].group(1))]
        while pending:
            pos = pending.pop(0)
            if len(sections) >= _MAX_SECTIONS or not 0 <= pos < len(data):
                return None
            section = _Table(data, pos) if bytes(data[pos : pos + 4]) == b"xref" else _XrefStream(data, pos)
            sections.append(section)
            # A hybrid file's stream lists what its table leaves out (compressed objects): it is
            # read after that table and before the older sections.
            hybrid, prev = _XREFSTM.search(section.info), _PREV.search(section.info)
            if hybrid:
                pending.insert(0, int(hybrid.group(1)))
            if prev:
                pending.append(int(prev.group(1)))
        root = _ROOT.search(sections[0].info)
        if root is None:
            return None

        def entry(num: int) -> _Entry | None:
            for section in sections:  # newest first: the first that has it is current
                found = section.find(num)
                if found is not None:
                    return found
            return None

        catalog = _object_body(data, int(root.group(1)), entry)
        if catalog is None or b"/Catalog" not in catalog:
            return None
        meta = _CATALOG_METADATA.search(catalog)
        if meta is None:
            return b""
        where = entry(int(meta.group(1)))
        if where is None or where[0] != 1:
            return None  # a metadata stream is never compressed into an object stream
        start = _object_start(data, where[1], int(meta.group(1)))
        if start is None:
            return None
        packet = _plain_packet(data, start)
        if packet is not None:
            return packet
        stream = _stream(data, start)
        return None if stream is None else stream[1]
    except (ValueError, IndexError, OverflowError, zlib.error):
        return None


def _object_body(data: Any, num: int, entry: Callable[[int], _Entry | None]) -> bytes | None:
    """The text of object ``num`` (its dictionary and what follows it up to endobj), in the
    file or in its object stream; None when it cannot be found. ``entry``: its place."""
    where = entry(num)
    if where is None:
        return None
    if where[0] == 1:
        start = _object_start(data, where[1], num)
        end = data.find(b"endobj", start, start + (1 << 16)) if start is not None else -1
        return bytes(data[start:end]) if start is not None and end > 0 else None
    holder = entry(where[1]) if where[0] == 2 else None
    inside = _object_start(data, holder[1], where[1]) if holder is not None and holder[0] == 1 else None
    if inside is None:
        return None
    objects = _object_stream(data, inside)
    k = where[2]
    if objects is None or k >= len(objects) or objects[k][0] != num:
        return None
    return objects[k][1]


def _object_start(data: Any, offset: int, num: int) -> int | None:
    """Where the body of object ``num`` starts, after its "num gen obj" at ``offset``; None when
    the cross-reference data sent us somewhere else."""
    head = _OBJ_HEAD.match(bytes(data[offset : offset + 64]))
    return offset + head.end() if head is not None and int(head.group(1)) == num else None


def _object_stream(data: Any, inside: int) -> list[tuple[int, bytes]] | None:
    """The (number, text) of each object in the object stream whose dictionary holds ``inside``;
    None when it cannot be read."""
    stream = _stream(data, inside)
    if stream is None:
        return None
    info, body = stream
    first = _FIRST.search(info)
    if first is None:
        return None
    base = int(first.group(1))
    table = body[:base].split()
    if len(table) % 2 or not all(t.isdigit() for t in table):
        return None
    nums, offsets = [int(t) for t in table[::2]], [int(t) for t in table[1::2]]
    ends = [*offsets[1:], len(body) - base]
    return [(n, body[base + a : base + b]) for n, a, b in zip(nums, offsets, ends, strict=True)]


_OBJECT_STREAM = re.compile(rb"/Type\s*/ObjStm\b")
_FIRST = re.compile(rb"/First\s+(\d+)")
_LENGTH = re.compile(rb"/Length\s+(\d+)\b(?!\s+\d+\s+R)")  # a direct length, not a reference
_FILTER = re.compile(rb"/Filter\s*(?:\[\s*/(\w+)\s*\]|/(\w+))")  # one filter, bare or in an array
_CATALOG = re.compile(rb"/Type\s*/Catalog\b")
_INFLATED_MAX = 64 << 20  # an object stream inflating beyond this is no catalog's


def _stream(data: Any, inside: int, predictor_ok: bool = False) -> tuple[bytes, bytes] | None:
    """The dictionary and decoded data of the stream object whose dictionary holds ``inside``;
    None unless it is plain or FlateDecode alone, of a direct length, and without parameters
    (``predictor_ok``: the caller undoes a predictor the parameters name)."""
    head = data.rfind(b" obj", max(0, inside - 4096), inside)
    keyword = data.find(b"stream", inside, inside + 4096)
    if head < 0 or keyword < 0:
        return None
    info = bytes(data[head:keyword])
    length = _LENGTH.search(info)
    filt = _FILTER.search(info)
    params = b"/DecodeParms" in info and not predictor_ok
    if length is None or params or info.count(b"/Filter") != (filt is not None):
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
        objects = _object_stream(data, found.start())
        if objects is None:
            return None
        for _num, obj in objects:
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
