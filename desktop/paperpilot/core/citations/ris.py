"""RIS export and import ("TY  - JOUR" … "ER  - " records).

The parser is strict about the line shape ("XX  - value") because a line that is not a tag is
usually a sign of a damaged file; it drops only the record that contains it, reports its line,
and goes on with the next record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .formats import ParseError, ParseResult
from .model import CslItem, CslName, item_from_csl

__all__ = ["parse_ris", "to_ris"]

_CSL_TO_RIS = {
    "article-journal": "JOUR",
    "article-magazine": "MGZN",
    "article-newspaper": "NEWS",
    "paper-conference": "CPAPER",
    "book": "BOOK",
    "chapter": "CHAP",
    "thesis": "THES",
    "report": "RPRT",
    "webpage": "ELEC",
    "article": "UNPB",  # preprints: RIS has no type of their own
    "manuscript": "MANSCPT",
    "patent": "PAT",
    "dataset": "DATA",
    "software": "COMP",
    "standard": "STAND",
    "legislation": "STAT",
    "entry-encyclopedia": "ENCYC",
    "entry-dictionary": "DICT",
}

# Every type of the RIS specification, mapped to the closest CSL type PaperPilot offers.
_RIS_TO_CSL = {
    "JOUR": "article-journal", "JFULL": "article-journal", "EJOUR": "article-journal",
    "ABST": "article-journal", "INPR": "article-journal", "SER": "book",
    "MGZN": "article-magazine", "NEWS": "article-newspaper",
    "CPAPER": "paper-conference", "CONF": "paper-conference",
    "BOOK": "book", "EBOOK": "book", "EDBOOK": "book", "CTLG": "book", "PAMP": "book",
    "CLSWK": "book", "ANCIENT": "book",
    "CHAP": "chapter", "ECHAP": "chapter",
    "THES": "thesis", "RPRT": "report", "GOVDOC": "report", "GRANT": "report",
    "ELEC": "webpage", "WEB": "webpage", "BLOG": "webpage", "ICOMM": "webpage",
    "UNPB": "article", "MANSCPT": "manuscript", "GEN": "manuscript", "PCOMM": "manuscript",
    "SLIDE": "manuscript", "ART": "manuscript", "ADVS": "manuscript", "CHART": "manuscript",
    "EQUA": "manuscript", "FIGURE": "manuscript", "MAP": "manuscript", "MPCT": "manuscript",
    "MULTI": "manuscript", "MUSIC": "manuscript", "SOUND": "manuscript", "VIDEO": "manuscript",
    "PAT": "patent", "DATA": "dataset", "DBASE": "dataset", "AGGR": "dataset", "COMP": "software",
    "STAND": "standard", "STAT": "legislation", "BILL": "legislation", "UNBILL": "legislation",
    "CASE": "legislation", "HEAR": "legislation", "LEGAL": "legislation",
    "ENCYC": "entry-encyclopedia", "DICT": "entry-dictionary",
}  # fmt: skip

_PERIODICAL = {"article-journal", "article-magazine", "article-newspaper"}
_LINE = re.compile(r"([A-Z][A-Z0-9])  -(?: (.*))?")
_ISSN = re.compile(r"\d{4}-?\d{3}[\dXx]")


def _extra(obj: CslName, key: str) -> str:
    value = (obj.model_extra or {}).get(key)
    return str(value).strip() if value not in (None, "") else ""


# --------------------------------------------------------------------------- export


def _ris_name(n: CslName) -> str:
    if n.literal.strip():
        return n.literal.strip()
    family = " ".join(p for p in (_extra(n, "non-dropping-particle"), n.family.strip()) if p)
    given = " ".join(p for p in (n.given.strip(), _extra(n, "dropping-particle")) if p)
    suffix = _extra(n, "suffix")
    return ", ".join(p for p in (family, given, suffix) if p) if given or suffix else family


def _date_parts(d: dict[str, Any] | None) -> list[int]:
    parts = (d or {}).get("date-parts")
    out: list[int] = []
    if isinstance(parts, list) and parts and isinstance(parts[0], list):
        for value in parts[0][:3]:
            try:
                out.append(int(value))
            except (TypeError, ValueError):
                break
    return out


def _ris_date(parts: Sequence[int]) -> str:
    """RIS dates are "YYYY/MM/DD/other", empty parts left blank ("2017/06//")."""
    y = f"{parts[0]:04d}"
    m = f"{parts[1]:02d}" if len(parts) > 1 else ""
    d = f"{parts[2]:02d}" if len(parts) > 2 else ""
    return f"{y}/{m}/{d}/"


def _record(item: CslItem) -> str:
    lines: list[str] = []

    def tag(name: str, value: str) -> None:
        value = re.sub(r"\s+", " ", value).strip()  # a value cannot span lines
        if value:
            lines.append(f"{name}  - {value}")

    tag("TY", _CSL_TO_RIS.get(item.type, "GEN"))
    tag("ID", item.id)
    for n in item.author:
        tag("AU", _ris_name(n))
    for n in item.editor:
        tag("ED", _ris_name(n))
    tag("TI", item.title)
    tag("T2", item.container_title)
    if item.type in _PERIODICAL:
        tag("JO", item.container_title)
    tag("T3", item.collection_title)
    tag("VL", item.volume)
    tag("IS", item.issue)
    page = item.page.strip()
    bounds = re.split(r"\s*(?:-{1,3}|–|—)\s*", page)
    if len(bounds) == 2 and all(bounds):
        tag("SP", bounds[0])
        tag("EP", bounds[1])
    else:
        tag("SP", page)
    issued = _date_parts(item.issued)
    if issued:
        tag("PY", f"{issued[0]:04d}")
        if len(issued) > 1:
            tag("DA", _ris_date(issued))
    elif item.issued:
        tag("DA", str(item.issued.get("literal") or item.issued.get("raw") or ""))
    tag("ET", item.edition)
    tag("PB", item.publisher)
    tag("CY", item.publisher_place)
    tag("M3", item.genre)
    tag("M1", item.number)
    tag("C3", item.event_title)
    tag("DO", re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", item.DOI.strip(), flags=re.I))
    tag("UR", item.URL)
    tag("SN", item.ISBN)
    tag("SN", item.ISSN)
    if item.arxiv.strip():
        tag("AN", "arXiv:" + re.sub(r"^arxiv:\s*", "", item.arxiv.strip(), flags=re.I))
    tag("LA", item.language)
    tag("AB", item.abstract)
    tag("N1", item.note)
    for kw in item.keyword.replace(";", ",").split(","):
        tag("KW", kw.strip())  # one KW line per keyword, as reference managers write them
    accessed = _date_parts(item.accessed)
    if accessed:
        tag("Y2", _ris_date(accessed))
    lines.append("ER  - ")
    return "\n".join(lines) + "\n"


def to_ris(items: Sequence[CslItem]) -> str:
    """The items as RIS records, in order, separated by blank lines."""
    return "\n".join(_record(item) for item in items)


# --------------------------------------------------------------------------- import


def _parse_name(value: str) -> dict[str, str]:
    parts = [p.strip() for p in value.split(",")]
    if len(parts) == 1:
        return {"literal": value.strip()}  # organisations and names written without a comma (张伯伟)
    words = parts[0].split()
    lead = 0
    while lead < len(words) - 1 and words[lead][:1].islower():
        lead += 1  # "van der Berg, Pieter": the lower-case words are the particle, as in BibTeX
    out = {"family": " ".join(words[lead:]), "given": parts[1]}
    if lead:
        out["non-dropping-particle"] = " ".join(words[:lead])
    if len(parts) > 2 and parts[2]:
        out["suffix"] = ", ".join(parts[2:])
    return out


def _parse_date(value: str) -> dict[str, Any] | None:
    value = value.strip()
    if not value:
        return None
    m = re.match(r"(\d{4})(?:[/-](\d{1,2})?(?:[/-](\d{1,2})?)?)?", value)
    if not m:
        return {"literal": value}
    parts = [int(m.group(1))]
    if m.group(2) and 1 <= int(m.group(2)) <= 12:
        parts.append(int(m.group(2)))
        if m.group(3) and 1 <= int(m.group(3)) <= 31:
            parts.append(int(m.group(3)))
    return {"date-parts": [parts]}


def _to_item(ris_type: str, tags: dict[str, list[str]]) -> CslItem:
    def first(*names: str) -> str:
        for name in names:
            for value in tags.get(name, []):
                if value.strip():
                    return value.strip()
        return ""

    csl_type = _RIS_TO_CSL[ris_type]
    title = first("TI", "T1") or (first("BT") if csl_type == "book" else "")
    container = first("T2", "JF", "JO") or ("" if csl_type == "book" else first("BT")) or first("JA", "J2")
    sp, ep = first("SP"), first("EP")
    page = f"{sp}-{ep}" if sp and ep and sp != ep else sp or ep
    issued = _parse_date(first("DA")) if first("DA") else None
    if not issued or "literal" in issued:
        issued = _parse_date(first("PY", "Y1")) or issued
    isbn = issn = ""
    for sn in tags.get("SN", []):
        for value in re.split(r"[;\s]+(?=\S)", sn.strip()):
            if _ISSN.fullmatch(value.strip()) and not issn:
                issn = value.strip()
            elif value.strip() and not isbn:
                isbn = value.strip()
    arxiv = ""
    for an in tags.get("AN", []):
        m = re.match(r"\s*arxiv:\s*(\S+)", an, flags=re.I)
        if m:
            arxiv = m.group(1)
    data: dict[str, Any] = {
        "id": first("ID"),
        "type": csl_type,
        "title": title,
        "author": [_parse_name(v) for v in tags.get("AU", []) + tags.get("A1", []) if v.strip()],
        "editor": [_parse_name(v) for v in tags.get("ED", []) + tags.get("A2", []) if v.strip()],
        "container-title": container,
        "collection-title": first("T3"),
        "volume": first("VL"),
        "issue": first("IS"),
        "page": page,
        "number": first("M1"),
        "edition": first("ET"),
        "publisher": first("PB"),
        "publisher-place": first("CY"),
        "event-title": first("C3") if csl_type == "paper-conference" else "",
        "genre": first("M3"),
        "DOI": re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", first("DO"), flags=re.I),
        "URL": first("UR"),
        "ISBN": isbn,
        "ISSN": issn,
        "arxiv": arxiv,
        "language": first("LA"),
        "issued": issued,
        "accessed": _parse_date(first("Y2")),
        "abstract": first("AB", "N2"),
        "note": first("N1"),
        "keyword": ", ".join(v.strip() for v in tags.get("KW", []) if v.strip()),
    }
    return item_from_csl({k: v for k, v in data.items() if v not in ("", None, [])})


def parse_ris(text: str) -> ParseResult:
    """Every complete, well-formed record as a CslItem; the others as line-numbered errors."""
    result = ParseResult()
    start = 0  # line of the current record's TY (0: not in a record)
    ris_type = ""
    bad = False
    tags: dict[str, list[str]] = {}

    def unclosed() -> None:
        result.errors.append(
            ParseError(start, "the record starting here has no 'ER  - ' line (not imported)")
        )

    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.rstrip()
        if not line.strip():
            continue
        m = _LINE.fullmatch(line)
        if not m:
            result.errors.append(ParseError(number, f"not a RIS tag line ('XX  - value'): {line[:60]!r}"))
            bad = bad or bool(start)
            continue
        name, value = m.group(1), (m.group(2) or "").strip()
        if name == "TY":
            if start:
                unclosed()
            start, ris_type, tags = number, value.upper(), {}
            bad = ris_type not in _RIS_TO_CSL
            if bad:
                result.errors.append(
                    ParseError(number, f"unknown reference type 'TY  - {value}' (record skipped)")
                )
            continue
        if not start:
            result.errors.append(
                ParseError(number, f"'{name}' line outside a record (no 'TY  - ' before it)")
            )
            continue
        if name == "ER":
            if not bad:
                result.items.append(_to_item(ris_type, tags))
            start, bad = 0, False
            continue
        tags.setdefault(name, []).append(value)
    if start:
        unclosed()
    result.errors.sort(key=lambda e: e.line)
    return result
