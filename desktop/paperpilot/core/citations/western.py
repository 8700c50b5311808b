"""APA 7th, MLA 9th, IEEE and Chicago 17th author-date, written from the style manuals.

Every renderer builds its entry from small pieces that are dropped when the item lacks the
field, so a missing year or volume never leaves stray punctuation behind. Titles are kept as
the user entered them: automatic sentence/title casing mangles acronyms, names and non-English
titles, and a journal editor would rather see the title as published.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from ..text.language import has_cjk
from .model import CslItem, CslName
from .styles import Rendered, register

# --------------------------------------------------------------------------- rich text


class _R:
    """Text with italic runs, rendered once as plain text and once as escaped HTML."""

    __slots__ = ("parts",)

    def __init__(self, *items: str | _R) -> None:
        self.parts: list[tuple[str, bool]] = []
        for item in items:
            self.add(item)

    def add(self, item: str | _R, italic: bool = False) -> _R:
        if isinstance(item, _R):
            self.parts.extend(item.parts)
        elif item:
            self.parts.append((item, italic))
        return self

    def __add__(self, other: str | _R) -> _R:
        return _R(self, other)

    def __radd__(self, other: str) -> _R:
        return _R(other, self)

    def __bool__(self) -> bool:
        return bool(self.text.strip())

    @property
    def text(self) -> str:
        return "".join(s for s, _ in self.parts)

    @property
    def html(self) -> str:
        out: list[str] = []
        open_i = False
        for s, italic in self.parts:
            if italic != open_i:
                out.append("<i>" if italic else "</i>")
                open_i = italic
            out.append(html.escape(s, quote=False))
        if open_i:
            out.append("</i>")
        return "".join(out)

    def close(self, punct: str = ".") -> _R:
        """Append ``punct`` unless the text already ends a sentence (no "Title?." or "ed..")."""
        return self + _punct_after(self.text, punct)

    def rendered(self) -> Rendered:
        return Rendered(self.text, self.html)


def _it(s: str) -> _R:
    return _R().add(s, italic=True)


def _punct_after(text: str, punct: str) -> str:
    t = text.rstrip()
    if not t or not punct:
        return ""
    if t[-1] in "?!":
        return ""
    if t[-1] in '”’"' and len(t) > 1 and t[-2] in ".,?!":
        return ""  # American quotation already put the punctuation inside: “Title,” / “Title.”
    if t[-1] in ".…" and punct.startswith("."):
        return punct[1:]
    return punct


def _join(items: Iterable[_R | str], sep: str) -> _R:
    out = _R()
    first = True
    for item in items:
        if not (item.strip() if isinstance(item, str) else item):
            continue
        if not first:
            out.add(sep)
        out.add(item)
        first = False
    return out


def _sentences(items: Iterable[_R | str]) -> _R:
    """Join blocks as sentences: each block closed with a period, separated by a space."""
    blocks = [b if isinstance(b, _R) else _R(b) for b in items]
    return _join([b.close(".") for b in blocks if b], " ")


_DOUBLE_QUOTES = re.compile(r'"([^"]*)"|“([^”]*)”')


def _quote(title: str, punct: str) -> _R:
    """American quotation: closing punctuation goes inside; inner double quotes become single."""
    inner = _DOUBLE_QUOTES.sub(lambda m: f"‘{m.group(1) or m.group(2) or ''}’", title)
    return _R(f"“{inner}{_punct_after(inner, punct)}”")


def _cap_first(s: str) -> str:
    return s[:1].upper() + s[1:]


# --------------------------------------------------------------------------- names



def _extra(obj: CslName | CslItem, key: str) -> str:
    value = (obj.model_extra or {}).get(key)
    return str(value).strip() if value not in (None, "") else ""


@dataclass(frozen=True)
class _Name:
    whole: str  # a literal (organisation, 张伯伟) or a CJK family+given: never inverted or initialled
    family: str  # with its non-dropping particle ("van Gogh")
    given: str
    particle: str  # dropping particle ("van" in Ludwig van Beethoven)
    suffix: str

    @property
    def short(self) -> str:
        return self.whole or self.family or self.given


def _name(n: CslName) -> _Name:
    if n.literal.strip():
        return _Name(n.literal.strip(), "", "", "", "")
    family, given = n.family.strip(), n.given.strip()
    if has_cjk(family + given):
        # Chinese, Japanese and Korean names are written family-first with no comma or initials.
        return _Name(family + given, "", "", "", "")
    ndp = _extra(n, "non-dropping-particle")
    family = f"{ndp} {family}".strip() if ndp else family
    return _Name("", family, given, _extra(n, "dropping-particle"), _extra(n, "suffix"))


def _names(names: Sequence[CslName]) -> list[_Name]:
    return [nm for nm in (_name(n) for n in names) if nm.short]


def _initials(given: str) -> str:
    """Initials: "Geoffrey E." → "G. E.", "Jean-Paul" → "J.-P.", "J.R.R." → "J. R. R."."""
    out = []
    for token in given.replace(".", ". ").split():
        pieces = []
        for piece in token.split("-"):
            letter = next((c for c in piece if c.isalpha()), "")
            if letter:
                pieces.append(letter.upper() + ".")
        if pieces:
            out.append("-".join(pieces))
    return " ".join(out)


def _inverted(n: _Name, initials: bool, suffix_comma: bool = True) -> str:
    """Inverted: "Family, Given" (MLA, Chicago) or "Family, G." (APA)."""
    if n.whole:
        return n.whole
    given = _initials(n.given) if initials else n.given
    given = " ".join(p for p in (given, n.particle) if p)
    s = f"{n.family}, {given}" if given and n.family else (n.family or given)
    if n.suffix:
        s += f", {n.suffix}" if suffix_comma else f" {n.suffix}"
    return s


def _natural(n: _Name, initials: bool) -> str:
    """Natural order: "Given Family" (MLA, Chicago) or "G. Family" (APA editors, IEEE)."""
    if n.whole:
        return n.whole
    given = _initials(n.given) if initials else n.given
    s = " ".join(p for p in (given, n.particle, n.family) if p)
    return f"{s} {n.suffix}" if n.suffix else s


def _serial(parts: Sequence[str], conj: str, pair_comma: bool) -> str:
    """Lists: "A and B" / "A, B, and C" (serial comma); ``pair_comma`` gives APA's "A, & B"."""
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    if len(parts) == 2:
        return f"{parts[0]}{',' if pair_comma else ''} {conj} {parts[1]}"
    return f"{', '.join(parts[:-1])}, {conj} {parts[-1]}"


# --------------------------------------------------------------------------- dates, numbers, ids

_MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
# MLA 9 and IEEE abbreviate months the same way (four-letter months are written out).
_MONTHS_ABBR = (
    "Jan.", "Feb.", "Mar.", "Apr.", "May", "June", "July", "Aug.", "Sept.", "Oct.", "Nov.", "Dec.",
)  # fmt: skip


@dataclass(frozen=True)
class _Date:
    year: str
    month: int | None = None
    day: int | None = None


def _int_in(value: Any, low: int, high: int) -> int | None:
    try:
        n = int(str(value).strip())
    except (TypeError, ValueError):
        return None
    return n if low <= n <= high else None


def _date(d: dict[str, Any] | None) -> _Date | None:
    if not d:
        return None
    parts = d.get("date-parts")
    if isinstance(parts, list) and parts and isinstance(parts[0], list) and parts[0]:
        first = parts[0]
        year = str(first[0]).strip()
        if year:
            month = _int_in(first[1], 1, 12) if len(first) > 1 else None  # 13–16 are seasons
            day = _int_in(first[2], 1, 31) if len(first) > 2 and month else None
            return _Date(year, month, day)
    for key in ("raw", "literal"):
        raw = str(d.get(key) or "").strip()
        if not raw:
            continue
        m = re.fullmatch(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?", raw)
        if m and key == "raw":
            month = _int_in(m.group(2), 1, 12) if m.group(2) else None
            day = _int_in(m.group(3), 1, 31) if m.group(3) and month else None
            return _Date(m.group(1), month, day)
        return _Date(raw)
    return None


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _edition(ed: str) -> str:
    """Edition: "2" / "2nd" / "2nd edition" → "2nd ed."; a first edition is never mentioned."""
    e = re.sub(r"\s*(?:edition|edn\.?|ed\.?)$", "", ed.strip(), flags=re.I).strip()
    if not e or e.lower() in {"1", "1st", "first"}:
        return ""
    if e.isdigit():
        e = _ordinal(int(e))
    return f"{e} ed."


def _doi(item: CslItem) -> str:
    return re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", item.DOI.strip(), flags=re.I)


def _arxiv(item: CslItem) -> str:
    return re.sub(r"^arxiv:\s*", "", item.arxiv.strip(), flags=re.I)


def _web_link(item: CslItem, *, arxiv: bool) -> str:
    """The DOI as a link, else the URL, else (when ``arxiv``) the arXiv abstract page."""
    doi = _doi(item)
    if doi:
        return f"https://doi.org/{doi}"
    if item.URL.strip():
        return item.URL.strip()
    return f"https://arxiv.org/abs/{_arxiv(item)}" if arxiv and _arxiv(item) else ""


PageFormat = Literal["expanded", "minimal-two", "chicago"]
_RANGE_SEP = re.compile(r"\s*(?:-{1,3}|–|—)\s*")


def _condense(first: str, last: str, fmt: PageFormat) -> str:
    if fmt == "expanded" or len(first) != len(last) or int(first) < 100:
        return last
    common = 0
    while common < len(first) and first[common] == last[common]:
        common += 1
    changed = len(last) - common
    if fmt == "minimal-two":
        # MLA 9: beyond 99 give only the last two digits of the second number, more if needed.
        return last[-max(changed, 2) :]
    # Chicago 17 §9.61.
    rest = int(first) % 100
    if rest == 0:
        return last
    if rest < 10:
        return last[-max(changed, 1) :]
    if len(first) == 4 and changed >= 3:
        return last
    return last[-max(changed, 2) :]


def _pages(page: str, fmt: PageFormat) -> tuple[str, bool]:
    """The page field with en dashes (condensed per ``fmt``) and whether it is more than one page."""
    page = page.strip()
    if not page:
        return "", False
    out = []
    for chunk in (c.strip() for c in page.split(",")):
        bounds = _RANGE_SEP.split(chunk)
        if len(bounds) == 2 and all(bounds):
            first, last = bounds
            if first.isdigit() and last.isdigit():
                if len(last) < len(first):
                    # The source already abbreviated the range ("321-28", "398-02"): restore it.
                    k = len(first) - len(last)
                    full = int(first[:k] + last)
                    last = str(full if full >= int(first) else full + 10 ** len(last))
                last = _condense(first, last, fmt)
            out.append(f"{first}–{last}")
        elif chunk:
            out.append(chunk)
    text = ", ".join(out)
    return text, ("–" in text or "," in text or "+" in text)


def _pp(page: str, fmt: PageFormat) -> str:
    text, many = _pages(page, fmt)
    return f"{'pp.' if many else 'p.'} {text}" if text else ""


_DOCTORAL = ("phd", "ph.d", "ph. d", "doctor", "dr.", "博士")
_MASTER = ("master", "m.s.", "m.a.", "msc", "m.sc", "mphil", "硕士")


def _degree(genre: str) -> Literal["doctoral", "master", ""]:
    g = genre.lower()
    if any(k in g for k in _MASTER):
        return "master"
    if any(k in g for k in _DOCTORAL) or "dissertation" in g:
        return "doctoral"
    return ""


def _archive(item: CslItem) -> str:
    """Where a preprint lives: "arXiv" and the like."""
    return item.container_title.strip() or item.publisher.strip() or ("arXiv" if _arxiv(item) else "")


# Types that stand alone (italic titles) in the author-date styles; the rest sit in a container.
_STANDALONE = {
    "book", "thesis", "report", "dataset", "software", "manuscript", "standard", "patent",
    "legislation",
}  # fmt: skip
_PERIODICAL = {"article-journal", "article-magazine", "article-newspaper"}


def _is_presentation(item: CslItem) -> bool:
    return item.type == "paper-conference" and not item.container_title.strip()


def _locator(item: CslItem) -> str:
    return _extra(item, "locator")


def _short_title(item: CslItem, quoted: bool) -> str:
    title = item.title.strip()
    if not title:
        return ""
    words = title.split(":")[0].split()
    short = " ".join(words[:4]) if len(words) > 4 else " ".join(words)
    return f"“{short}”" if quoted else short


# --------------------------------------------------------------------------- APA 7


class ApaStyle:
    name = "apa"
    label = "APA 7th edition"
    numeric = False

    # Dated to the day: works whose date is part of their identity (APA 7, date element).
    _FULL_DATE: ClassVar[frozenset[str]] = frozenset(
        {"webpage", "article-newspaper", "article-magazine", "paper-conference"}
    )

    def _date(self, item: CslItem) -> str:
        d = _date(item.issued)
        if not d:
            return "(n.d.)"
        full = item.type in self._FULL_DATE and (item.type != "paper-conference" or _is_presentation(item))
        if full and d.month:
            md = _MONTHS[d.month - 1] + (f" {d.day}" if d.day else "")
            return f"({d.year}, {md})"
        return f"({d.year})"

    @staticmethod
    def _authors(names: Sequence[_Name]) -> str:
        forms = [_inverted(n, initials=True) for n in names]
        if len(forms) >= 21:
            # APA 7 §9.8: the first 19, an ellipsis (no ampersand), then the final author.
            return ", ".join(forms[:19]) + ", … " + forms[-1]
        return _serial(forms, "&", pair_comma=True)

    @staticmethod
    def _editors(names: Sequence[_Name]) -> str:
        forms = [_natural(n, initials=True) for n in names]
        if not forms:
            return ""
        return f"{_serial(forms, '&', pair_comma=False)} ({'Ed.' if len(forms) == 1 else 'Eds.'})"

    def _bracket(self, item: CslItem) -> str:
        t = item.type
        if t == "thesis":
            kind = {"doctoral": "Doctoral dissertation", "master": "Master’s thesis"}.get(
                _degree(item.genre), item.genre.strip() or "Thesis"
            )
            school = item.publisher.strip()
            return f"[{kind}, {school}]" if school else f"[{kind}]"
        if t == "article":
            return "[Preprint]"
        if _is_presentation(item):
            return f"[{item.genre.strip() or 'Paper presentation'}]"
        if t == "dataset":
            return "[Data set]"
        if t == "software":
            return "[Computer software]"
        return ""

    def _title(self, item: CslItem) -> _R:
        title = item.title.strip()
        t = item.type
        italic = t in _STANDALONE or t in {"article", "webpage"} or _is_presentation(item)
        out = _it(title) if italic else _R(title)
        paren: list[str] = []
        if t in {"book", "report", "dataset", "software", "standard"}:
            paren.append(_edition(item.edition))
            if t == "book" and item.volume.strip():
                paren.append(f"Vol. {item.volume.strip()}")
            if t == "report" and item.number.strip():
                paren.append(f"{item.genre.strip() or 'Report'} No. {item.number.strip()}")
        paren = [p for p in paren if p]
        if paren:
            out = _join([out, f"({', '.join(paren)})"], " ")
        return _join([out, self._bracket(item)], " ")

    def _source(self, item: CslItem, authors: Sequence[_Name]) -> list[_R]:
        t = item.type
        container = item.container_title.strip()
        publisher = item.publisher.strip()
        if any(publisher == a.whole for a in authors):
            publisher = ""  # APA 7: a publisher that is also the group author is not repeated
        if t in _PERIODICAL:
            vol, issue = item.volume.strip(), item.issue.strip()
            numbering = _R()
            if vol:
                numbering.add(vol, italic=True)
            if issue:
                numbering.add(f"({issue})")
            pages = _pages(item.page, "expanded")[0]
            if not pages and item.number.strip():
                pages = f"Article {item.number.strip()}"
            return [_join([_it(container) if container else _R(), numbering, pages], ", ")]
        if t in {"chapter", "paper-conference", "entry-encyclopedia", "entry-dictionary"} and container:
            eds = self._editors(_names(item.editor))
            paren = [
                _edition(item.edition),
                f"Vol. {item.volume.strip()}" if item.volume.strip() else "",
                _pp(item.page, "expanded"),
            ]
            paren = [p for p in paren if p]
            book = _it(container) + (f" ({', '.join(paren)})" if paren else "")
            lead = f"In {eds}," if eds else "In"
            return [_join([lead, book], " "), _R(publisher)]
        if _is_presentation(item):
            return [_R(_join([item.event_title.strip(), item.publisher_place.strip()], ", "))]
        if t == "thesis":
            return [_R(container)]  # the archive or database; the university is in the brackets
        if t == "article":
            return [_R(_archive(item))]
        if t == "webpage":
            site = container or publisher
            return [_R("" if any(site == a.whole for a in authors) else site)]
        return [_R(container) if t not in _STANDALONE else _R(), _R(publisher)]

    @staticmethod
    def _link(item: CslItem) -> str:
        # APA links an arXiv id only for preprints; a published version has its own DOI or URL.
        return _web_link(item, arxiv=item.type == "article")

    def entry(self, item: CslItem) -> Rendered:
        authors = _names(item.author)
        editors = _names(item.editor)
        title = self._title(item)
        date = self._date(item)
        if authors:
            head = [_R(self._authors(authors)), _R(date), title]
        elif editors and item.type in _STANDALONE:
            head = [
                _R(f"{self._authors(editors)} ({'Ed.' if len(editors) == 1 else 'Eds.'})"),
                _R(date),
                title,
            ]
        else:
            # APA 7: with no author the title moves into the author position.
            head = [title, _R(date)]
        body = _sentences([*head, *self._source(item, authors)])
        return _join([body, self._link(item)], " ").rendered()

    def _cite_names(self, item: CslItem) -> str:
        names = _names(item.author) or (_names(item.editor) if item.type in _STANDALONE else [])
        if not names:
            return _short_title(item, quoted=item.type not in _STANDALONE and item.type != "article")
        if len(names) == 1:
            return names[0].short
        if len(names) == 2:
            return f"{names[0].short} & {names[1].short}"
        return f"{names[0].short} et al."

    def in_text(self, items: Sequence[CslItem], numbers: Sequence[int]) -> str:
        cites = [(self._cite_names(it), self._date(it)[1:-1]) for it in items]
        # APA 7 §8.12: several works in one parenthesis are ordered as in the reference list.
        cites.sort(key=lambda c: c[0].casefold())
        return _author_date_marker(cites, name_year_sep=", ")


def _author_date_marker(cites: Sequence[tuple[str, str]], name_year_sep: str) -> str:
    if not cites:
        return ""
    groups: list[tuple[str, list[str]]] = []
    for who, year in cites:
        if groups and groups[-1][0] == who:
            groups[-1][1].append(year)
        else:
            groups.append((who, [year]))
    parts = []
    for who, years in groups:
        when = ", ".join(years)
        if who.endswith("”") and name_year_sep.startswith(","):
            parts.append(f"{who[:-1]},” {when}")  # American quotation: (“Short Title,” 2019)
        else:
            parts.append(_join([who, when], name_year_sep).text)
    return "(" + "; ".join(parts) + ")"


# --------------------------------------------------------------------------- MLA 9


def _mla_publisher(name: str) -> str:
    # MLA 9: academic presses shorten "University" and "Press" to U, P and UP, and
    # business words (Inc., Ltd.) are dropped.
    s = re.sub(r"\bUniversity Press\b", "UP", name)
    s = re.sub(r"\bUniversity\b", "U", s)
    s = re.sub(r"\bPress\b", "P", s)
    return re.sub(r",?\s+(?:Inc|Ltd|Co|Corp|LLC)\.?$", "", s).strip()


def _mla_date(d: _Date | None) -> str:
    if not d:
        return ""
    if d.month and d.day:
        return f"{d.day} {_MONTHS_ABBR[d.month - 1]} {d.year}"
    if d.month:
        return f"{_MONTHS_ABBR[d.month - 1]} {d.year}"
    return d.year


def _strip_scheme(url: str) -> str:
    return re.sub(r"^https?://", "", url.strip())


def _mla_authors(item: CslItem) -> list[_Name]:
    names = _names(item.author)
    publishers = {item.publisher.strip()}
    if item.type == "webpage":
        publishers.add(item.container_title.strip())
    if len(names) == 1 and names[0].whole and names[0].whole in publishers:
        # MLA 9: an organisation that is both author and publisher is given only as publisher.
        return []
    return names


class MlaStyle:
    name = "mla"
    label = "MLA 9th edition"
    numeric = False

    @staticmethod
    def _authors(names: Sequence[_Name], role: str = "") -> str:
        if not names:
            return ""
        first = _inverted(names[0], initials=False)
        if len(names) == 1:
            s = first
        elif len(names) == 2:
            s = f"{first}, and {_natural(names[1], initials=False)}"
        else:
            s = f"{first}, et al."
        if role:
            s += f", {role}{'s' if len(names) > 1 else ''}"
        return s

    @staticmethod
    def _edited_by(names: Sequence[_Name]) -> str:
        forms = [_natural(n, initials=False) for n in names]
        if not forms:
            return ""
        if len(forms) > 2:
            return f"edited by {forms[0]} et al."
        return "edited by " + " and ".join(forms)

    @staticmethod
    def _link(item: CslItem) -> str:
        doi = _doi(item)
        if doi:
            return f"https://doi.org/{doi}"  # MLA 9 writes DOIs as https://doi.org/ links
        if item.URL.strip():
            return _strip_scheme(item.URL)  # ... and drops the scheme from other URLs
        return f"arxiv.org/abs/{_arxiv(item)}" if _arxiv(item) else ""

    def entry(self, item: CslItem) -> Rendered:
        t = item.type
        authors = _mla_authors(item)
        editors = _names(item.editor)
        standalone = t in _STANDALONE
        head = _R(self._authors(authors)) if authors else _R()
        editors_lead = not authors and bool(editors) and t in _STANDALONE
        if editors_lead:
            head = _R(self._authors(editors, role="editor"))
        title = item.title.strip()
        title_r: _R = (_it(title) if standalone else _quote(title, ".")) if title else _R()
        if standalone and title:
            title_r = title_r.close(".")
        date = _mla_date(_date(item.issued))
        link = self._link(item)
        publisher = _mla_publisher(item.publisher.strip())
        container = item.container_title.strip()

        if t == "thesis":
            # MLA 9 dissertations: Title. Year. Institution, type of thesis.
            kind = {"doctoral": "PhD dissertation", "master": "Master’s thesis"}.get(
                _degree(item.genre), item.genre.strip() or "Thesis"
            )
            tail = [_R(date), _R(_join([publisher, kind], ", ")), _R(link)]
            return _join([head.close(".") if head else _R(), title_r, _sentences(tail)], " ").rendered()

        elems: list[_R] = []
        if t in _STANDALONE:
            if editors and not editors_lead:
                elems.append(_R(_cap_first(self._edited_by(editors))))
            elems += [_R(_edition(item.edition))]
            if item.volume.strip():
                elems.append(_R(f"vol. {item.volume.strip()}"))
            if t == "report" and item.number.strip():
                elems.append(_R(f"{item.genre.strip() or 'Report'} no. {item.number.strip()}"))
            elems += [_R(publisher), _R(date), _R(link)]
        else:
            if t == "article":
                container = container or _archive(item)
            elif t == "webpage":
                container = container or publisher
                publisher = "" if _mla_publisher(container) == publisher else publisher
            elif _is_presentation(item):
                container = ""
            if container:
                elems.append(_it(container))
            if t in {"chapter", "paper-conference", "entry-encyclopedia", "entry-dictionary"}:
                elems.append(_R(self._edited_by(editors)))
                elems.append(_R(_edition(item.edition)))
            if item.volume.strip():
                elems.append(_R(f"vol. {item.volume.strip()}"))
            if item.issue.strip():
                elems.append(_R(f"no. {item.issue.strip()}"))
            if t not in _PERIODICAL and t != "article":
                elems.append(_R(publisher))
            if _is_presentation(item):
                elems.append(_R(item.event_title.strip()))
            elems.append(_R(date))
            if _is_presentation(item):
                elems.append(_R(item.publisher_place.strip()))
            elems.append(_R(_pp(item.page, "minimal-two")))
            elems.append(_R(link))
        elems = [e for e in elems if e]
        if elems and re.match(r"(?:edited by|vol\.|no\.|pp?\.) ", elems[0].text):
            elems[0] = _R(_cap_first(elems[0].text))  # our own lower-case term now opens a sentence
        body = _join(elems, ", ")
        accessed = ""
        if not date and _date(item.accessed) and (item.URL.strip() or t == "webpage"):
            # MLA 9: an undated online work gets its access date.
            accessed = f"Accessed {_mla_date(_date(item.accessed))}"
        parts: list[_R] = [head.close(".") if head else _R(), title_r]
        if body:
            parts.append(body.close("."))
        if accessed:
            parts.append(_R(accessed + "."))
        return _join(parts, " ").rendered()

    def in_text(self, items: Sequence[CslItem], numbers: Sequence[int]) -> str:
        cites = []
        for item in items:
            names = _mla_authors(item) or (_names(item.editor) if item.type in _STANDALONE else [])
            if not names:
                who = _short_title(item, quoted=item.type not in _STANDALONE)
            elif len(names) == 1:
                who = names[0].short
            elif len(names) == 2:
                who = f"{names[0].short} and {names[1].short}"
            else:
                who = f"{names[0].short} et al."
            cites.append(_join([who, _locator(item)], " ").text)
        cites = [c for c in cites if c]
        return f"({'; '.join(cites)})" if cites else ""


# --------------------------------------------------------------------------- IEEE


def _with_the(event: str) -> str:
    return event if event.lower().startswith("the ") else f"the {event}"


def _ieee_org(name: str) -> str:
    return re.sub(r"\bUniversity\b", "Univ.", name)


def _ieee_container(name: str) -> str:
    return re.sub(r"^Proceedings of (?:the )?", "Proc. ", name.strip())


class IeeeStyle:
    name = "ieee"
    label = "IEEE"
    numeric = True

    @staticmethod
    def _names(names: Sequence[_Name]) -> str:
        forms = [_natural(n, initials=True) for n in names]
        if len(forms) > 6:
            # IEEE Reference Guide: more than six names → the first author and "et al."
            return f"{forms[0]} et al."
        return _serial(forms, "and", pair_comma=False)

    @staticmethod
    def _periodical_date(item: CslItem) -> str:
        d = _date(item.issued)
        if not d:
            return ""
        return f"{_MONTHS_ABBR[d.month - 1]} {d.year}" if d.month else d.year

    @staticmethod
    def _year(item: CslItem) -> str:
        d = _date(item.issued)
        return d.year if d else ""

    @staticmethod
    def _place_publisher(item: CslItem) -> str:
        place, pub = item.publisher_place.strip(), _ieee_org(item.publisher.strip())
        if place and pub:
            return f"{place}: {pub}"
        return place or pub

    def entry(self, item: CslItem) -> Rendered:
        t = item.type
        authors = _names(item.author)
        editors = _names(item.editor)
        who = self._names(authors)
        if not who and editors and t in _STANDALONE:
            who = f"{self._names(editors)}, {'Ed.' if len(editors) == 1 else 'Eds.'}"
        title = item.title.strip()
        doi = _doi(item)
        url = item.URL.strip()
        pages = _pp(item.page, "expanded")

        if t == "webpage":
            # IEEE Reference Guide, websites: Author. "Page title." Site. URL (accessed Mon. Day, Year).
            acc = _date(item.accessed)
            when = ""
            if acc and acc.month:
                when = (
                    f"(accessed {_MONTHS_ABBR[acc.month - 1]} {f'{acc.day}, ' if acc.day else ''}{acc.year})"
                )
            elif acc:
                when = f"(accessed {acc.year})"
            site = item.container_title.strip() or item.publisher.strip()
            blocks: list[_R] = []
            if who:
                blocks.append(_R(who).close("."))
            if title:
                blocks.append(_quote(title, "."))
            if site:
                blocks.append(_R(site).close("."))
            if url:
                blocks.append(_R(_join([url, when], " ").text + ("." if when else "")))
            elif when:
                blocks.append(_R(_cap_first(when[1:-1]) + "."))
            return _join(blocks, " ").rendered()

        lead: list[_R] = []  # the elements before the source, comma-separated
        if who:
            lead.append(_R(who))
        if t == "book":
            # IEEE: A. Author, Title, 2nd ed. City: Publisher, Year.
            head = _join([*lead, _it(title) if title else _R(), _edition(item.edition),
                          f"vol. {item.volume.strip()}" if item.volume.strip() else ""], ", ")  # fmt: skip
            where = self._place_publisher(item)
            tail = _join([where, self._year(item)], ", ")
            out = _join([head.close(".") if where else head, tail], " " if where else ", ")
            return self._finish(out, doi, url)

        quoted_title = bool(title)
        rest: list[_R | str] = []
        if t in _PERIODICAL:
            rest = [_it(item.container_title.strip()) if item.container_title.strip() else _R(),
                    f"vol. {item.volume.strip()}" if item.volume.strip() else "",
                    f"no. {item.issue.strip()}" if item.issue.strip() else "",
                    pages or (f"Art. no. {item.number.strip()}" if item.number.strip() else ""),
                    self._periodical_date(item)]  # fmt: skip
        elif t in {"chapter", "paper-conference", "entry-encyclopedia", "entry-dictionary"} and (
            item.container_title.strip()
        ):
            container = item.container_title.strip()
            if t == "paper-conference":
                inside = _R("in ") + _it(_ieee_container(container))
                vol = f"vol. {item.volume.strip()}" if item.volume.strip() else ""
                rest = [inside, vol, item.publisher_place.strip(), self._year(item), pages]
            else:
                eds = self._names(editors)
                book = _join([_R("in ") + _it(container), _edition(item.edition),
                              f"vol. {item.volume.strip()}" if item.volume.strip() else "",
                              f"{eds}, {'Ed.' if len(editors) == 1 else 'Eds.'}" if eds else ""], ", ")  # fmt: skip
                where = self._place_publisher(item)
                if where:
                    book = _join([book.close("."), where], " ")
                rest = [book, self._year(item), pages]
        elif _is_presentation(item):
            event = item.event_title.strip()
            rest = [
                f"presented at {_with_the(event)}" if event else "",
                item.publisher_place.strip(),
                self._year(item),
            ]
        elif t == "thesis":
            kind = {"doctoral": "Ph.D. dissertation", "master": "M.S. thesis"}.get(
                _degree(item.genre), item.genre.strip() or "Thesis"
            )
            rest = [kind, _ieee_org(item.publisher.strip()), item.publisher_place.strip(), self._year(item)]
        elif t == "report":
            number = item.number.strip()
            kind = item.genre.strip() or "Tech. Rep."
            rest = [_ieee_org(item.publisher.strip()), item.publisher_place.strip(),
                    f"{kind} {number}" if number else kind, self._periodical_date(item)]  # fmt: skip
        elif t == "article":
            arxiv = _arxiv(item)
            rest = [self._year(item), f"arXiv:{arxiv}"] if arxiv else [_archive(item), self._year(item)]
        else:
            rest = [_it(item.container_title.strip()) if item.container_title.strip() else _R(),
                    _ieee_org(item.publisher.strip()), self._year(item), pages]  # fmt: skip
            quoted_title = t not in _STANDALONE and bool(title)
            if not quoted_title and title:
                lead.append(_it(title))
        rest_r = _join(rest, ", ")
        if quoted_title:
            before = _join(lead, ", ")
            title_r = _quote(title, "," if rest_r or doi else ".")
            out = _join([before.close(",") if before else _R(), title_r, rest_r], " ")
        else:
            out = _join([*lead, rest_r], ", ")
        return self._finish(out, doi, url)

    @staticmethod
    def _finish(out: _R, doi: str, url: str) -> Rendered:
        if doi:
            # "doi: 10.xxx." — IEEE ends every reference with a period, except after a bare URL.
            return (
                (_join([out.close(","), f"doi: {doi}"], " ") + ".").rendered()
                if out
                else _R(f"doi: {doi}.").rendered()
            )
        if url:
            return _join([out.close("."), f"[Online]. Available: {url}"], " ").rendered()
        return out.close(".").rendered()

    def in_text(self, items: Sequence[CslItem], numbers: Sequence[int]) -> str:
        # IEEE Reference Guide: every number written out, "[1], [2], [3]" (no "[1]–[3]" ranges).
        return ", ".join(f"[{n}]" for n in sorted(set(numbers)))


# --------------------------------------------------------------------------- Chicago author-date


class ChicagoAuthorDateStyle:
    name = "chicago-author-date"
    label = "Chicago Manual of Style 17th edition (author-date)"
    numeric = False

    @staticmethod
    def _names(names: Sequence[_Name]) -> str:
        if not names:
            return ""
        forms = [_inverted(names[0], initials=False)] + [_natural(n, initials=False) for n in names[1:]]
        if len(forms) > 10:
            # CMOS 17 reference lists: more than ten authors → the first seven, then "et al."
            return ", ".join(forms[:7]) + ", et al."
        return _serial(forms, "and", pair_comma=True)

    @staticmethod
    def _edited_by(names: Sequence[_Name]) -> str:
        forms = [_natural(n, initials=False) for n in names]
        if len(forms) > 10:
            return "edited by " + ", ".join(forms[:7]) + ", et al."
        return f"edited by {_serial(forms, 'and', pair_comma=False)}" if forms else ""

    @staticmethod
    def _year(item: CslItem) -> str:
        d = _date(item.issued)
        return d.year if d else "n.d."

    @staticmethod
    def _place_publisher(item: CslItem) -> str:
        place, pub = item.publisher_place.strip(), item.publisher.strip()
        return f"{place}: {pub}" if place and pub else (place or pub)

    @staticmethod
    def _link(item: CslItem) -> str:
        return _web_link(item, arxiv=True)

    def entry(self, item: CslItem) -> Rendered:
        t = item.type
        authors = _names(item.author)
        editors = _names(item.editor)
        title = item.title.strip()
        italic_title = t in _STANDALONE and t != "thesis"  # CMOS 17: thesis titles are quoted
        title_r = (_it(title).close(".") if italic_title else _quote(title, ".")) if title else _R()
        year = self._year(item)
        who = self._names(authors)
        if not who and editors and t in _STANDALONE:
            who = f"{self._names(editors)}, {'ed.' if len(editors) == 1 else 'eds.'}"
        # CMOS 17: the title leads when there is no author.
        head = [_R(who), _R(year), title_r] if who else [title_r, _R(year)]

        body: list[_R] = []
        container = item.container_title.strip()
        if t in _PERIODICAL:
            vol, issue = item.volume.strip(), item.issue.strip()
            pages = _pages(item.page, "chicago")[0]
            numbering = vol + (f" ({issue})" if vol and issue else "")
            src = _it(container) if container else _R()
            if numbering:
                src = _join([src, numbering], " ")
            elif issue:
                src = _join([src, f"no. {issue}"], ", ")
            if pages:
                src = src + (f": {pages}" if numbering else f", {pages}") if src else _R(pages)
            d = _date(item.issued)
            if t != "article-journal" and d and d.month:
                src = _join([src, _MONTHS[d.month - 1] + (f" {d.day}" if d.day else "")], ", ")
            body.append(src)
        elif t in {"chapter", "paper-conference", "entry-encyclopedia", "entry-dictionary"} and container:
            in_book = _join([_R("In ") + _it(container),
                             f"vol. {item.volume.strip()}" if item.volume.strip() else "",
                             self._edited_by(editors), _edition(item.edition),
                             _pages(item.page, "chicago")[0]], ", ")  # fmt: skip
            body += [in_book, _R(self._place_publisher(item))]
        elif _is_presentation(item):
            event = item.event_title.strip()
            where = [f"Paper presented at {_with_the(event)}" if event else "", item.publisher_place.strip()]
            body.append(_join(where, ", "))
        elif t == "thesis":
            kind = {"doctoral": "PhD diss.", "master": "Master’s thesis"}.get(
                _degree(item.genre), item.genre.strip() or "Thesis"
            )
            body.append(_R(_join([kind, item.publisher.strip()], ", ")))
        elif t == "article":
            archive = _archive(item)
            body.append(_R(_join(["Preprint", archive], ", ")))
        elif t == "webpage":
            site = container or item.publisher.strip()
            body.append(_R(site))
            d = _date(item.issued)
            if d and d.month:
                body.append(_R(_MONTHS[d.month - 1] + (f" {d.day}, " if d.day else " ") + d.year))
        else:
            if t in _STANDALONE and editors and authors:
                body.append(_R(_cap_first(self._edited_by(editors))))
            body.append(_R(_edition(item.edition)))
            if item.volume.strip():
                body.append(_R(f"Vol. {item.volume.strip()}"))
            if t == "report" and item.number.strip():
                body.append(_R(f"{item.genre.strip() or 'Report'} {item.number.strip()}"))
            if t not in _STANDALONE and container:
                body.append(_it(container))
            body.append(_R(self._place_publisher(item)))
        acc = _date(item.accessed)
        if not _date(item.issued) and acc and acc.month and (item.URL.strip() or t == "webpage"):
            # CMOS 17: an undated online source gets its access date.
            body.append(
                _R(f"Accessed {_MONTHS[acc.month - 1]}{f' {acc.day},' if acc.day else ''} {acc.year}")
            )
        link = self._link(item)
        if link:
            body.append(_R(link))  # CMOS ends a URL with a period like any other element
        return _sentences([*head, *body]).rendered()

    def in_text(self, items: Sequence[CslItem], numbers: Sequence[int]) -> str:
        cites = []
        for item in items:
            names = _names(item.author) or (_names(item.editor) if item.type in _STANDALONE else [])
            shorts = [n.short for n in names]
            if not shorts:
                who = _short_title(item, quoted=not (item.type in _STANDALONE and item.type != "thesis"))
            elif len(shorts) >= 4:
                # CMOS 17 author-date: four or more authors → the first and "et al." in the text.
                who = f"{shorts[0]} et al."
            else:
                who = _serial(shorts, "and", pair_comma=False)
            cites.append((who, self._year(item)))
        return _author_date_marker(cites, name_year_sep=" ")


APA = register(ApaStyle())
MLA = register(MlaStyle())
IEEE = register(IeeeStyle())
CHICAGO_AUTHOR_DATE = register(ChicagoAuthorDateStyle())
