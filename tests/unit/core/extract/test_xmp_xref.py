"""The XMP packet found by following a PDF's cross-reference data to its catalog.

Files are written byte by byte (classic tables, incremental updates, cross-reference streams
with and without the PNG "Up" predictor); pypdf, reading the same files, is the oracle, and the
scan that read_packet falls back to must agree wherever the cross-reference way decides.
"""

from __future__ import annotations

import zlib

import pytest

from paperpilot.core.extract.metadata import xmp
from tests.unit.core.extract.test_xmp_object_streams import _pypdf_packet


def _packet(title: bytes) -> bytes:
    return (
        b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">'
        b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description '
        b'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">'
        + title
        + b"</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>"
        b'<?xpacket end="w"?>'
    )


def _obj(num: int, body: bytes) -> bytes:
    return b"%d 0 obj\n" % num + body + b"\nendobj\n"


def _stream(num: int, entries: bytes, data: bytes) -> bytes:
    return _obj(num, b"<<%s /Length %d>>\nstream\n" % (entries, len(data)) + data + b"\nendstream")


def _table(where: dict[int, int], size: int) -> bytes:
    """A classic cross-reference section for the objects in ``where`` (one subsection each run)."""
    out = b"xref\n"
    nums = sorted(where)
    runs: list[list[int]] = []
    for n in nums:
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    for run in runs:
        out += b"%d %d\n" % (run[0], len(run))
        for n in run:
            out += b"0000000000 65535 f\r\n" if n == 0 else b"%010d 00000 n\r\n" % where[n]
    return out


def _classic(metadata: bytes | None, image_packet: bool = True) -> bytes:
    """Catalog 1, pages 2, page 3, an image's metadata stream 4 (plain XMP), the document's 5."""
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    where: dict[int, int] = {0: 0}
    catalog = b"<< /Type /Catalog /Pages 2 0 R" + (b" /Metadata 5 0 R" if metadata is not None else b"") + b" >>"
    objects = {
        1: _obj(1, catalog),
        2: _obj(2, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>"),
        3: _obj(3, b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"),
        4: _stream(4, b" /Type /Metadata /Subtype /XML", _packet(b"An embedded figure") if image_packet else b""),
    }
    if metadata is not None:
        objects[5] = _stream(5, b" /Type /Metadata /Subtype /XML", metadata)
    for n, body in objects.items():
        where[n] = len(out)
        out += body
    start = len(out)
    out += _table(where, len(where)) + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(where), start)
    return bytes(out)


def _update(base: bytes, catalog: bytes, extra: dict[int, bytes]) -> bytes:
    """An incremental update: a new version of the catalog (1) and objects ``extra``, a new
    cross-reference section whose trailer points back to the previous one."""
    prev = int(base.rsplit(b"startxref", 1)[1].split()[0])
    out = bytearray(base)
    where: dict[int, int] = {}
    for n, body in {1: _obj(1, catalog), **extra}.items():
        where[n] = len(out)
        out += body
    start = len(out)
    size = max(6, *where) + 1
    out += _table(where, size) + b"trailer\n<< /Size %d /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (size, prev, start)
    return bytes(out)


def _xref_stream_file(predictor: bool, metadata: bool = True) -> bytes:
    """PDF 1.5: catalog, pages and page in object stream 6; the document's metadata stream 5,
    Flate-compressed; a cross-reference stream 7, its rows Up-predicted when ``predictor``."""
    catalog = b"<< /Type /Catalog /Pages 2 0 R" + (b" /Metadata 5 0 R" if metadata else b"") + b" >>"
    objects = [catalog, b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>", b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>"]  # fmt: skip
    offsets, body = [], b""
    for o in objects:
        offsets.append(len(body))
        body += o + b" "
    table = b" ".join(b"%d %d" % (n, off) for n, off in zip((1, 2, 3), offsets, strict=True)) + b" "
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    where: dict[int, int] = {}
    where[4] = len(out)
    out += _stream(4, b" /Type /Metadata /Subtype /XML", _packet(b"An embedded figure"))
    where[5] = len(out)
    out += _stream(5, b" /Type /Metadata /Subtype /XML /Filter /FlateDecode", zlib.compress(_packet(b"Streams All the Way")))
    where[6] = len(out)
    out += _stream(6, b" /Type /ObjStm /N 3 /First %d /Filter /FlateDecode" % len(table), zlib.compress(table + body))
    where[7] = len(out)
    rows = [b"\x00\x00\x00\x00\x00\xff\xff"]
    for n in range(1, 8):
        rows.append(b"\x02" + (6).to_bytes(4, "big") + (n - 1).to_bytes(2, "big") if n <= 3 else b"\x01" + where[n].to_bytes(4, "big") + b"\x00\x00")  # fmt: skip
    if predictor:
        coded, prev = b"", bytes(7)
        for row in rows:
            coded += b"\x02" + bytes((a - b) & 0xFF for a, b in zip(row, prev, strict=True))
            prev = row
        entries = b" /Type /XRef /Size 8 /W [1 4 2] /Root 1 0 R /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 7 >>"  # fmt: skip
        out += _stream(7, entries, zlib.compress(coded))
    else:
        out += _stream(7, b" /Type /XRef /Size 8 /W [1 4 2] /Root 1 0 R", b"".join(rows))
    out += b"startxref\n%d\n%%%%EOF\n" % where[7]
    return bytes(out)


def _title(packet: bytes) -> str:
    return xmp.parse_packet(packet).title


def test_a_classic_table_leads_to_the_catalogs_packet() -> None:
    data = _classic(_packet(b"Tables of Offsets"))
    assert _pypdf_packet(data) == _packet(b"Tables of Offsets")
    packet = _packet(b"Tables of Offsets")
    inner = packet[packet.find(b"<x:xmpmeta") : packet.find(b"</x:xmpmeta>") + len(b"</x:xmpmeta>")]
    assert xmp._packet_via_xref(data) == inner  # as the scan cuts it from a plain stream
    assert _title(xmp._packet_via_xref(data) or b"") == _title(xmp._packet_by_scan(data)) == "Tables of Offsets"


def test_a_catalog_without_metadata_has_none_whatever_else_the_file_holds() -> None:
    # The only packet in the file is an image's: the catalog names none, so the paper has none.
    data = _classic(None)
    assert _pypdf_packet(data) == b""
    assert xmp._packet_via_xref(data) == b""
    assert _title(xmp._packet_by_scan(data)) == "An embedded figure"  # what the scan alone would take


def test_an_incremental_update_is_read_newest_first() -> None:
    base = _classic(None, image_packet=False)
    added = _update(base, b"<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R >>",
                    {6: _stream(6, b" /Type /Metadata /Subtype /XML", _packet(b"Added Later"))})  # fmt: skip
    assert _title(_pypdf_packet(added)) == "Added Later"
    assert _title(xmp._packet_via_xref(added) or b"") == "Added Later"
    removed = _update(_classic(_packet(b"Taken Away")), b"<< /Type /Catalog /Pages 2 0 R >>", {})
    assert _pypdf_packet(removed) == b""
    assert xmp._packet_via_xref(removed) == b""
    # The old section still serves the objects the update left alone: a new catalog naming the
    # original metadata object finds it there.
    kept = _update(_classic(_packet(b"Kept From the First Version")), b"<< /Type /Catalog /Pages 2 0 R /Metadata 5 0 R /Lang (en) >>", {})
    assert _title(xmp._packet_via_xref(kept) or b"") == _title(_pypdf_packet(kept)) == "Kept From the First Version"


@pytest.mark.parametrize("predictor", [False, True])
def test_a_cross_reference_stream_leads_into_the_object_stream(predictor: bool) -> None:
    data = _xref_stream_file(predictor)
    assert _title(_pypdf_packet(data)) == "Streams All the Way"
    assert _title(xmp._packet_via_xref(data) or b"") == "Streams All the Way"
    assert xmp._packet_via_xref(_xref_stream_file(predictor, metadata=False)) == b""


def test_what_it_cannot_follow_is_left_to_the_scan() -> None:
    good = _classic(_packet(b"Found Anyway"))
    start = int(good.rsplit(b"startxref", 1)[1].split()[0])
    broken = [
        good.replace(b"startxref\n%d" % start, b"startxref\n%d" % (start + 7)),  # points into the table
        good.replace(b"startxref", b"startxrex"),  # no startxref
        good.replace(b"/Root 1 0 R", b"/Roots 1 0 R"),  # no root
        good[:start] + b"xref\n0 6\n0000000000 65535 f\r\n0000000999 00000 n\r\n" + good[start + 45 :],  # a wrong offset
        _xref_stream_file(True).replace(b"/Columns 7", b"/Columns 5"),
        _xref_stream_file(False).replace(b"/W [1 4 2]", b"/W [1 4 9]"),
    ]
    for data in broken:
        assert xmp._packet_via_xref(data) is None
        assert _title(xmp._packet_of(data)) in ("Found Anyway", "Streams All the Way", "An embedded figure")
    # A loop of /Prev pointers ends.
    looped = good.replace(b"/Root 1 0 R >>", b"/Root 1 0 R /Prev %d >>" % start)
    assert xmp._packet_via_xref(looped) is None
