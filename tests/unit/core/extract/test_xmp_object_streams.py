"""The XMP packet of a PDF whose catalog sits in a compressed object stream, found without pypdf.

The files are written byte by byte (PDF 1.5: an object stream and a cross-reference stream), and
pypdf, reading the same files, is the oracle.
"""

from __future__ import annotations

import io
import zlib

import pypdf
import pytest

from paperpilot.core.extract.metadata import xmp

_PACKET = (
    b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
    b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
    b'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">'
    b"Object Streams in Practice</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF>"
    b'</x:xmpmeta><?xpacket end="w"?>'
)


def _stream_obj(num: int, entries: bytes, data: bytes) -> bytes:
    return b"%d 0 obj\n<<%s /Length %d>>\nstream\n" % (num, entries, len(data)) + data + b"\nendstream\nendobj\n"


def _pdf(catalog_metadata: bool, image_metadata: bool = True, objstm_data: bytes | None = None) -> bytes:
    """Catalog (1), pages (2) and page (3) compressed in object stream 6; a Flate-compressed
    metadata stream (5) for the document and one (4) for an image; a cross-reference stream (7)."""
    catalog = b"<< /Type /Catalog /Pages 2 0 R" + (b" /Metadata 5 0 R" if catalog_metadata else b"") + b" >>"
    objects = [catalog, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"]  # fmt: skip
    offsets, body = [], b""
    for o in objects:
        offsets.append(len(body))
        body += o + b" "
    table = b" ".join(b"%d %d" % (n, off) for n, off in zip((1, 2, 3), offsets, strict=True)) + b" "
    packed = zlib.compress(table + body) if objstm_data is None else objstm_data
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    where: dict[int, int] = {}
    image_packet = _PACKET.replace(b"Object Streams in Practice", b"An embedded figure")
    where[4] = len(out)
    out += _stream_obj(4, b" /Type /Metadata /Subtype /XML /Filter /FlateDecode", zlib.compress(image_packet if image_metadata else b""))  # fmt: skip
    where[5] = len(out)
    out += _stream_obj(5, b" /Type /Metadata /Subtype /XML /Filter /FlateDecode", zlib.compress(_PACKET))
    where[6] = len(out)
    out += _stream_obj(6, b" /Type /ObjStm /N 3 /First %d /Filter /FlateDecode" % len(table), packed)
    where[7] = len(out)
    rows = b"\x00\x00\x00\x00\x00\xff\xff"
    for n in range(1, 8):
        rows += b"\x02" + (6).to_bytes(4, "big") + (n - 1).to_bytes(2, "big") if n <= 3 else b"\x01" + where[n].to_bytes(4, "big") + b"\x00\x00"  # fmt: skip
    out += _stream_obj(7, b" /Type /XRef /Size 8 /W [1 4 2] /Root 1 0 R", rows)
    out += b"startxref\n%d\n%%%%EOF\n" % where[7]
    return bytes(out)


def _pypdf_packet(data: bytes) -> bytes:
    root = pypdf.PdfReader(io.BytesIO(data), strict=False).trailer["/Root"].get_object()
    meta = root.get("/Metadata")
    return b"" if meta is None else bytes(meta.get_object().get_data())


@pytest.fixture
def no_pypdf(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("pypdf was asked")

    monkeypatch.setattr(pypdf.PdfReader, "__init__", refuse)


def test_the_catalogs_packet_is_read_from_the_object_stream() -> None:
    data = _pdf(catalog_metadata=True)
    assert _pypdf_packet(data) == _PACKET  # the file is what it says
    assert xmp._packet_via_object_streams(data) == _PACKET


def test_without_pypdf(no_pypdf: None) -> None:
    assert xmp._packet_of(_pdf(catalog_metadata=True)) == _PACKET
    # The figure's metadata stream is not the paper's: a catalog without /Metadata has none.
    assert xmp._packet_of(_pdf(catalog_metadata=False)) == b""
    assert xmp.parse_packet(xmp._packet_of(_pdf(catalog_metadata=True))).title == "Object Streams in Practice"


def test_what_it_cannot_read_is_left_to_pypdf(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    real = pypdf.PdfReader.__init__

    def spy(self: pypdf.PdfReader, *args: object, **kwargs: object) -> None:
        asked.append(1)
        real(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pypdf.PdfReader, "__init__", spy)
    damaged = _pdf(catalog_metadata=True, objstm_data=b"x\x9c not deflate data at all")
    assert xmp._packet_via_object_streams(damaged) is None
    assert xmp._packet_of(damaged) == b"" and asked  # pypdf cannot find the catalog either
    # No object stream: undecided.
    assert xmp._packet_via_object_streams(b"%PDF-1.4\n1 0 obj\n<< /Type /Metadata >>\nendobj\n") is None
    # A file it can read never asks pypdf.
    asked.clear()
    assert xmp._packet_of(_pdf(catalog_metadata=True)) == _PACKET and not asked
