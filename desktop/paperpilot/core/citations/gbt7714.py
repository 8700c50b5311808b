"""GB/T 7714-2015 reference lists: the numeric (顺序编码制) and author-date (著者-出版年制) systems.

Bilingual as Chinese journals print it: items in English use "et al.", "Anon", "4th ed.",
"trans."; every other item uses the Chinese terms (等, 佚名, 2 版, 译). The punctuation
between elements is the standard's ASCII ". ", ": ", ", " and "//" in both languages.

Where the standard leaves a choice, the rules follow its worked examples as rendered in the
reference expectations (``tests/data/citations``); the type codes are those of its Annex B.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..text.language import has_cjk
from .model import CslItem
from .styles import Rendered, register

__all__ = [
    "AUTHOR_DATE",
    "NUMERIC",
    "GbtAuthorDate",
    "GbtNumeric",
    "assign_year_suffixes",
    "type_code",
]

_MARKUP = re.compile(r"</?(?:i|b|em|strong|sup|sub|sc|span)(?:\s[^>]*)?>", re.IGNORECASE)
_SPACE_RUN = re.compile(r" {2,}")
_YEAR_SUFFIX = "year-suffix"  # citeproc's name for the disambiguating letter

# Document type codes (文献类型标识) per CSL type; anything unlisted is "other" [Z].
_TYPE_CODES: dict[str, str] = {
    "article": "EB",  # preprints are electronic bulletins in the 2015 standard
    "article-journal": "J",
    "article-magazine": "J",
    "periodical": "J",
    "article-newspaper": "N",
    "bill": "A",
    "collection": "A",
    "hearing": "A",
    "legal_case": "A",
    "legislation": "A",
    "personal_communication": "A",
    "regulation": "A",
    "treaty": "A",
    "book": "M",
    "chapter": "M",
    "classic": "M",
    "entry-dictionary": "M",
    "entry-encyclopedia": "M",
    "dataset": "DS",
    "map": "CM",
    "paper-conference": "C",
    "patent": "P",
    "post": "EB",
    "post-weblog": "EB",
    "webpage": "EB",
    "report": "R",
    "software": "CP",
    "standard": "S",
    "thesis": "D",
}
_CARRIERS = frozenset({"MT", "DK", "CD", "OL"})  # magnetic tape, disk, CD-ROM, online
_SERIALS = frozenset({"article", "article-journal", "article-magazine", "article-newspaper", "periodical"})
_ANALYTICS = frozenset({"chapter", "entry-dictionary", "entry-encyclopedia", "paper-conference"})
_ELECTRONIC = frozenset({"dataset", "post", "post-weblog", "software", "webpage"})
# Types whose publication statement is "place: publisher, year" even when those are unknown.
_PUBLISHED = frozenset({"book", "chapter", "paper-conference", "periodical", "thesis"})

# Zotero stores fields a CSL type lacks as "variable: value" lines in the note (CSL "cheater
# syntax"); these are the ones the entry can print.
_NOTE_TEXT_VARS = frozenset({
    "archive", "archive-place", "archive_location", "container-title", "DOI", "edition",
    "event-title", "issue", "medium", "number", "page", "publisher", "publisher-place",
    "title", "URL", "volume", "volume-title",
})  # fmt: skip
_NOTE_DATE_VARS = frozenset({"issued", "accessed"})
_CSL_TYPES = frozenset(_TYPE_CODES) | {
    "broadcast", "document", "event", "figure", "graphic", "interview", "manuscript",
    "motion_picture", "musical_score", "pamphlet", "performance", "review", "review-book",
    "song", "speech",
}  # fmt: skip
_NOTE_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z_-]*)\s*:\s*(.*?)\s*$")


@dataclass(frozen=True)
class _Terms:
    english: bool
    et_al: str
    anonymous: str
    translator: str
    volume: str
    edition: str


_ZH = _Terms(english=False, et_al="等", anonymous="佚名", translator="译", volume="卷", edition="版")
_EN = _Terms(
    english=True, et_al="et al.", anonymous="Anon", translator="trans.", volume="Vol.", edition="ed."
)


def _keep_spaces(m: re.Match[str]) -> str:
    return "\u00a0" * (len(m.group(0)) - 1) + " "


def _clean(text: Any) -> str:
    # CSL-JSON rich text (<i>, <span class="nocase">) is for case/italics; GB/T prints neither.
    # A deliberate double space (standards' titles: "信息技术  中文编码字符集") must survive
    # HTML, so all but the last space of a run become no-break spaces.
    if text is None:
        return ""
    return _SPACE_RUN.sub(_keep_spaces, _MARKUP.sub("", str(text)))


def _join(parts: Iterable[str], delimiter: str) -> str:
    """Join the non-empty parts; a "." delimiter after a final "." (or ? !) is not doubled."""
    out = ""
    for part in parts:
        if not part:
            continue
        if not out:
            out = part
        elif delimiter.startswith(".") and out[-1] in ".?!":
            out += delimiter[1:] + part
        else:
            out += delimiter + part
    return out


def _finish(text: str) -> str:
    return text if not text or text[-1] in ".?!" else text + "."


# --------------------------------------------------------------------------- item access


def _note_fields(note: str) -> tuple[dict[str, str], dict[str, str]]:
    """(text variables, date variables) carried in the note, first occurrence wins."""
    texts: dict[str, str] = {}
    dates: dict[str, str] = {}
    for line in note.splitlines():
        m = _NOTE_LINE.match(line)
        if not m or not m.group(2):
            continue
        key, value = m.group(1), m.group(2)
        if key in _NOTE_TEXT_VARS or key == "type":
            texts.setdefault(key, value)
        elif key in _NOTE_DATE_VARS:
            dates.setdefault(key, value)
    return texts, dates


def _parse_date_text(text: str) -> dict[str, Any] | None:
    # Only the leading numeric date counts: "1865（清同治四年）" is the year 1865.
    m = re.match(r"\s*(\d{3,4})(?:[-/.](\d{1,2})(?:[-/.](\d{1,2}))?)?", text)
    if not m:
        return None
    return {"date-parts": [[int(g) for g in m.groups() if g]]}


def _date_parts(date: Any) -> list[list[int]]:
    """The date's [[y, m, d], [y, m, d]] parts as ints (CSL-JSON allows strings and "raw")."""
    if not isinstance(date, dict):
        return []
    parts = date.get("date-parts")
    if not parts and isinstance(date.get("raw"), str):
        parsed = _parse_date_text(date["raw"])
        parts = parsed["date-parts"] if parsed else None
    out: list[list[int]] = []
    for part in parts or []:
        nums: list[int] = []
        for value in part if isinstance(part, list) else []:
            try:
                nums.append(int(value))
            except (TypeError, ValueError):
                break
        if nums:
            out.append(nums[:3])
    return out


class _Item:
    """One item as CSL variables (extras and note variables included) plus its language terms."""

    def __init__(self, item: CslItem) -> None:
        self.data: dict[str, Any] = item.to_csl()
        note_texts, note_dates = _note_fields(item.note)
        note_type = note_texts.pop("type", "")
        self.type = note_type if note_type in _CSL_TYPES else item.type
        for key, value in note_texts.items():
            if not self.data.get(key):
                self.data[key] = value
        for key, value in note_dates.items():
            if not _date_parts(self.data.get(key)):
                parsed = _parse_date_text(value)
                if parsed:
                    self.data[key] = parsed
        self.terms = _EN if self._english() else _ZH
        self.year_suffix = str(self.data.get(_YEAR_SUFFIX, "") or "")

    def _english(self) -> bool:
        # An explicit language decides (the bilingual convention prints 等/佚名 for every
        # non-English item, French included); without one, Chinese script means Chinese.
        language = str(self.data.get("language", "")).strip().lower()
        if language:
            return language.startswith("en")
        names = " ".join(
            f"{n.get('literal', '')}{n.get('family', '')}{n.get('given', '')}" for n in self.names("author")
        )
        return not has_cjk(f"{self.text('title')} {names} {self.text('container-title')}")

    def text(self, var: str) -> str:
        value = self.data.get(var)
        if value is None or isinstance(value, dict | list):
            return ""
        if var in ("URL", "DOI"):
            return str(value).strip()
        return _clean(value)

    def names(self, var: str) -> list[dict[str, Any]]:
        value = self.data.get(var)
        if not isinstance(value, list):
            return []
        return [
            n for n in value if isinstance(n, dict) and any(n.get(k) for k in ("literal", "family", "given"))
        ]

    def dates(self, var: str) -> list[list[int]]:
        return _date_parts(self.data.get(var))

    def circa(self) -> bool:
        issued = self.data.get("issued")
        return isinstance(issued, dict) and bool(issued.get("circa"))

    @property
    def online(self) -> bool:
        return bool(self.text("URL") or self.text("DOI"))


# --------------------------------------------------------------------------- names


def _initials(given: str) -> str:
    # GB/T: given names as capital initials without full stops ("Jung-Ran" -> "J R").
    pieces = [p for p in re.split(r"[\s.\-\u2010]+", given) if p]
    return " ".join(p[0].upper() for p in pieces if p[0].isalpha())


def _is_cjk_name(name: dict[str, Any]) -> bool:
    return has_cjk(f"{name.get('family', '')}{name.get('given', '')}")


def _full_name(name: dict[str, Any]) -> str:
    """A name in a reference list: "张伯伟", "VASWANI A", "VEEN P H van der", "PEEBLES P Z Jr"."""
    literal = str(name.get("literal", "") or "").strip()
    if literal:
        return literal
    family = str(name.get("family", "") or "").strip()
    given = str(name.get("given", "") or "").strip()
    if _is_cjk_name(name):
        return f"{family}{given}"
    particle = str(name.get("non-dropping-particle", "") or "").strip()
    dropping = str(name.get("dropping-particle", "") or "").strip()
    suffix = str(name.get("suffix", "") or "").replace(".", "").strip()
    surname = _join([particle, family], " ").upper()
    if not surname:
        return _join([given, suffix], " ")
    return _join([surname, _initials(given), dropping, suffix], " ")


def _short_name(name: dict[str, Any]) -> str:
    """A name in running text: the surname for Western authors, the full name for Chinese ones."""
    literal = str(name.get("literal", "") or "").strip()
    if literal:
        return literal
    family = str(name.get("family", "") or "").strip()
    if _is_cjk_name(name):
        return f"{family}{name.get('given', '') or ''}".strip()
    particle = str(name.get("non-dropping-particle", "") or "").strip()
    return _join([particle, family], " ") or str(name.get("given", "") or "").strip()


def _name_list(names: list[dict[str, Any]], terms: _Terms) -> str:
    # At most three names, then ", 等" / ", et al." (GB/T 7714-2015 §8.1).
    if len(names) > 3:
        return _join([*(_full_name(n) for n in names[:3]), terms.et_al], ", ")
    return _join((_full_name(n) for n in names), ", ")


def _creators(item: _Item) -> list[dict[str, Any]]:
    """The main responsibility: authors, else composer/illustrator/director, else editors.

    Editors stand in only when there is no containing work: a chapter's editors belong to the
    book after "//", not in front of the chapter title.
    """
    for var in ("author", "composer", "illustrator", "director"):
        names = item.names(var)
        if names:
            return names
    return [] if item.text("container-title") else item.names("editor")


# --------------------------------------------------------------------------- numbers and dates


def _is_numeric(value: str) -> bool:
    return bool(re.fullmatch(r"\d+(?:\s*[-–&,]\s*\d+)*", value.strip()))


def _ordinal(n: int) -> str:
    ending = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{ending}"


def _pages(page: str) -> str:
    """Page ranges with a hyphen and in full: "321–28" -> "321-328"; "1.1-1.36" is kept."""
    page = re.sub(r"\s*[–‒−]\s*", "-", page)

    def expand(m: re.Match[str]) -> str:
        first, last = m.group(1), m.group(2)
        if len(last) < len(first) and int(first[-len(last) :]) < int(last):
            last = first[: len(first) - len(last)] + last
        return f"{first}-{last}"

    return re.sub(r"(?<![\d.])(\d+)\s*-\s*(\d+)(?![\d.])", expand, page)


def _format_date(parts: list[int]) -> str:
    y, *rest = parts
    return "-".join([str(y), *(f"{p:02d}" for p in rest)])


def _date(item: _Item, var: str) -> str:
    """A full numeric date, "2022-08-16"; a range as "2022-08-16/2022-08-18"."""
    dates = item.dates(var)
    if not dates:
        return ""
    first = _format_date(dates[0])
    if len(dates) > 1 and dates[1] != dates[0]:
        return f"{first}/{_format_date(dates[1])}"
    return first


def _has_day(item: _Item) -> bool:
    dates = item.dates("issued")
    return bool(dates) and len(dates[0]) >= 3


def _year(item: _Item, suffix: str = "") -> str:
    """The publication year; an uncertain or (for undated online items) the access year in []."""
    issued = item.dates("issued")
    if issued:
        year = str(issued[0][0])
        if len(issued) > 1 and issued[1][0] != issued[0][0]:
            year = f"{year}/{issued[1][0]}"
        year += suffix
        return f"[{year}]" if item.circa() else year
    literal = item.data.get("issued")
    if isinstance(literal, dict) and literal.get("literal"):
        return _clean(literal["literal"]) + suffix
    accessed = item.dates("accessed")
    return f"[{accessed[0][0]}{suffix}]" if accessed else ""


def _accessed(item: _Item) -> str:
    # The citation date "[2024-05-01]" belongs to online resources only.
    if not item.online:
        return ""
    date = _date(item, "accessed")
    return f"[{date}]" if date else ""


# --------------------------------------------------------------------------- entry parts


def type_code(item: CslItem) -> str:
    """The bracketed code without brackets: "J", "M/OL", "EB/OL" …"""
    return _type_code(_Item(item))


def _type_code(item: _Item) -> str:
    code = _TYPE_CODES.get(item.type, "Z")
    medium = item.text("medium").strip()
    # Only GB/T's own carrier codes are printed; a free-text medium ("Blu-ray") is not a code.
    if medium in _CARRIERS:
        return f"{code}/{medium}"
    return f"{code}/OL" if item.online else code


def _volume(item: _Item) -> str:
    """A book's volume: "卷 1" / "Vol. 1" for numbers, "第1册" as given."""
    if item.type in _SERIALS:
        return ""
    volume = item.text("volume").strip()
    if volume and _is_numeric(volume):
        return f"{item.terms.volume} {volume}"
    return volume


def _title(item: _Item) -> str:
    """Title, then ": " and the volume / report or standard number, then the type code."""
    extras: list[str] = []
    if not item.text("container-title") and item.type not in _ANALYTICS:
        extras += [_volume(item), item.text("volume-title")]
    if item.type not in ("article", "article-journal"):
        extras.append(item.text("number"))
    if item.type in ("collection", "manuscript", "personal_communication"):
        extras.append(item.text("archive_location"))
    title = _join([item.text("title"), _join(extras, "\u2003")], ": ")
    return f"{title}[{_type_code(item)}]"


def _translators(item: _Item) -> str:
    names = item.names("translator")
    return f"{_name_list(names, item.terms)}, {item.terms.translator}" if names else ""


def _edition(item: _Item) -> str:
    edition = item.text("edition").strip()
    m = re.fullmatch(r"(\d+)(?:st|nd|rd|th)?", edition)
    if not m:
        return edition
    n = int(m.group(1))
    if n <= 1:
        return ""  # GB/T 7714-2015 §8.3: a first edition is not recorded
    return f"{_ordinal(n)} {item.terms.edition}" if item.terms.english else f"{n} {item.terms.edition}"


def _container_book(item: _Item) -> str:
    """After "//": the book's editors, then its title and volume (or the conference's name)."""
    editors: list[dict[str, Any]] = []
    for var in ("editor", "editorial-director", "collection-editor", "container-author"):
        editors = item.names(var)
        if editors:
            break
    container = item.text("container-title")
    if container:
        book = _join([container, _volume(item)], ": ")
    elif item.type == "paper-conference":
        book = item.text("event-title")  # proceedings without a title: the conference itself
    else:
        book = ""
    return _join([_name_list(editors, item.terms), book], ". ")


def _page_or_number(item: _Item) -> str:
    page = item.text("page")
    return _pages(page) if page else item.text("number")


class _Renderer:
    """Builds one entry. The two systems differ only in where the year goes: after the author
    (author-date) or in the publication statement and journal source (numeric)."""

    def __init__(self, item: _Item, author_date: bool) -> None:
        self.item = item
        self.author_date = author_date

    def year(self) -> str:
        return _year(self.item, self.item.year_suffix if self.author_date else "")

    def entry(self) -> str:
        item = self.item
        head = _name_list(_creators(item), item.terms)
        if self.author_date:
            head = _join([head or item.terms.anonymous, self.year()], ", ")
        kind = item.type
        body: list[str]
        if kind == "periodical":
            body = [_title(item), self.year_volume_issue(), self.publication()]
        elif kind in ("article-journal", "article-magazine", "article-newspaper"):
            body = [_title(item), self.serial_source()]
        elif kind == "patent" or kind in _ELECTRONIC:
            body = [_title(item), self.publication()]
        elif kind in _ANALYTICS or item.text("container-title"):
            part = _join([_title(item), _translators(item)], ". ")
            body = [_join([part, _container_book(item)], "//"), _edition(item), self.publication()]
        else:
            body = [_title(item), _translators(item), _edition(item), self.publication()]
        access = _join([item.text("URL"), f"DOI:{item.text('DOI')}" if item.text("DOI") else ""], ". ")
        return _finish(_join([head, *body, access], ". "))

    def year_volume_issue(self) -> str:
        # A whole serial: "1984, 1(1)-" — the starting year stays in both systems.
        item = self.item
        issue = item.text("issue")
        return _join([_year(item), item.text("volume")], ", ") + (f"({issue})" if issue else "")

    def serial_source(self) -> str:
        """The source of a serial article: "Journal, 2010, 4(3): 225-228[2014-06-09]", "人民日报, 2022-08-16(17)"."""
        item = self.item
        if item.type == "article-newspaper":
            page = item.text("page")
            source = _join([item.text("container-title"), _date(item, "issued")], ", ")
            source += f"({_pages(page)})" if page else ""
        else:
            year = "" if self.author_date else _year(item)
            issue = item.text("issue")
            source = _join([item.text("container-title"), year, item.text("volume")], ", ")
            source += f"({issue})" if issue else ""
            source = _join([source, _page_or_number(item)], ": ")
        return source + _accessed(item)

    def publication(self) -> str:
        """The publication statement: "place: publisher, year: pages[accessed]" and its variants."""
        item = self.item
        if item.type == "patent":
            return _date(item, "issued") + _accessed(item)
        keys = ("archive", "archive-place", "publisher", "publisher-place", "page")
        if item.type in _PUBLISHED or any(item.text(k) for k in keys):
            if item.text("publisher") or item.text("publisher-place"):
                who = _join([item.text("publisher-place"), item.text("publisher")], ": ")
            else:  # archives: repository place and holding institution
                who = _join([item.text("archive-place"), item.text("archive")], ": ")
            if not self.author_date:
                who = _join([who, _year(item)], ", ")
            return _join([who, _pages(item.text("page"))], ": ") + _accessed(item)
        if item.online:
            # Purely online: "(update date)[citation date]"; a bare year without a day.
            if _has_day(item):
                dated = f"({_date(item, 'issued')})"
            else:
                dated = "" if self.author_date or not item.dates("issued") else _year(item)
            return dated + _accessed(item)
        return "" if self.author_date else _year(item)


# --------------------------------------------------------------------------- in-text markers


def _cite_author(item: _Item) -> str:
    """The author in running text: "张伯伟", "张群 等", "Vaswani", "Vaswani et al."."""
    names = _creators(item)
    if not names:
        return item.terms.anonymous
    first = _short_name(names[0])
    # §10.2: a multi-author work is cited by its first author followed by "et al." / 等.
    return f"{first} {item.terms.et_al}" if len(names) > 1 else first


def _suffix_letters() -> Iterator[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    yield from letters
    for first in letters:
        for second in letters:
            yield first + second


def assign_year_suffixes(items: Sequence[CslItem]) -> list[CslItem]:
    """Copies of ``items`` (a whole reference list, in its order) with "2024a", "2024b" letters.

    Author-date references that would be cited identically — same in-text author and year — get
    a, b, … in list order (GB/T 7714-2015 §9.3). The letter is stored as the item's
    ``year-suffix`` variable, which ``entry``, ``in_text`` and ``narrative`` print; keep these
    copies for rendering only (they are not the library's metadata).
    """
    views = [_Item(item) for item in items]
    groups: dict[tuple[str, str], list[int]] = {}
    for i, view in enumerate(views):
        year = _year(view)
        if year:
            groups.setdefault((_cite_author(view), year), []).append(i)
    suffixes: dict[int, str] = {}
    for members in groups.values():
        if len(members) > 1:
            suffixes.update(zip(members, _suffix_letters(), strict=False))
    out: list[CslItem] = []
    for i, item in enumerate(items):
        current = (item.model_extra or {}).get(_YEAR_SUFFIX)
        if i in suffixes:
            out.append(item.model_copy(update={_YEAR_SUFFIX: suffixes[i]}))
        elif current:
            data = item.to_csl()
            data.pop(_YEAR_SUFFIX, None)
            out.append(CslItem.model_validate(data))
        else:
            out.append(item)
    return out


def _number_ranges(numbers: Sequence[int]) -> str:
    """1,2,3,5,6 -> "1-3, 5, 6": three or more consecutive numbers collapse into a range."""
    ordered = sorted(set(numbers))
    groups: list[list[int]] = []
    for n in ordered:
        if groups and n == groups[-1][-1] + 1:
            groups[-1].append(n)
        else:
            groups.append([n])
    parts: list[str] = []
    for g in groups:
        if len(g) >= 3:
            parts.append(f"{g[0]}-{g[-1]}")
        else:
            parts.extend(str(n) for n in g)
    return ", ".join(parts)


# --------------------------------------------------------------------------- the styles


def _rendered(text: str) -> Rendered:
    # GB/T prints no italics, so the HTML is the escaped plain text.
    return Rendered(text, html.escape(text, quote=False))


class _GbtStyle:
    name: str
    label: str
    numeric: bool

    def entry(self, item: CslItem) -> Rendered:
        """The reference-list entry for one item, without its "[n] " label."""
        return _rendered(_Renderer(_Item(item), author_date=not self.numeric).entry())

    def entries(self, items: Sequence[CslItem]) -> list[Rendered]:
        """Entries for a whole reference list in the given order (author-date: with 2024a/b)."""
        return [self.entry(item) for item in items]


class GbtNumeric(_GbtStyle):
    """GB/T 7714-2015 顺序编码制: references numbered in order of first citation."""

    def __init__(self) -> None:
        self.name = "gbt7714-2015-numeric"
        self.label = "GB/T 7714-2015 顺序编码制 (numeric)"
        self.numeric = True

    def in_text(self, items: Sequence[CslItem], numbers: Sequence[int]) -> str:
        """The marker "[1]", "[1, 3]", "[1-3]" (superscript is left to the caller's formatting)."""
        if any(n < 1 for n in numbers):
            raise ValueError(f"reference numbers start at 1, got {list(numbers)}")
        return f"[{_number_ranges(numbers)}]" if numbers else ""


class GbtAuthorDate(_GbtStyle):
    """GB/T 7714-2015 著者-出版年制: "(Vaswani et al., 2017)", "(张伯伟, 2002)"."""

    def __init__(self) -> None:
        self.name = "gbt7714-2015-author-date"
        self.label = "GB/T 7714-2015 著者-出版年制 (author-date)"
        self.numeric = False

    def entries(self, items: Sequence[CslItem]) -> list[Rendered]:
        return [self.entry(item) for item in assign_year_suffixes(items)]

    def in_text(self, items: Sequence[CslItem], numbers: Sequence[int]) -> str:
        """The parenthetical marker, "(Smith, 2001, 2003; 张伯伟, 2002)": consecutive works by the
        same author share one name. ``numbers`` is unused in this system."""
        groups: list[tuple[str, list[str]]] = []
        for item in items:
            view = _Item(item)
            author, year = _cite_author(view), _year(view, view.year_suffix)
            if groups and groups[-1][0] == author:
                groups[-1][1].append(year)
            else:
                groups.append((author, [year]))
        cites = [_join([author, *years], ", ") for author, years in groups]
        return f"({'; '.join(cites)})" if cites else ""

    def narrative(self, item: CslItem) -> str:
        """The author as part of the sentence, year in parentheses: "张伯伟 (2002)"."""
        view = _Item(item)
        year = _year(view, view.year_suffix)
        author = _cite_author(view)
        return f"{author} ({year})" if year else author


NUMERIC = GbtNumeric()
AUTHOR_DATE = GbtAuthorDate()
register(NUMERIC)
register(AUTHOR_DATE)
