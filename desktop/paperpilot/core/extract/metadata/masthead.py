"""Journal, volume, issue, pages and year from mastheads, running heads and citation lines.

Each pattern is a category of masthead that publishers share, not one journal:

* ``pipe``: "Nature Communications | (2023) 14:5133", and without the year
  "NATURE COMMUNICATIONS | 7:12154 | DOI: …" (2014-2019 footers)
* ``running_head``: "Yang et al. BMC Biology (2024) 22:106", "Datta et al. Journal … 2010, 4:1"
* ``year_comma_volume``: "Smith and Grant BMC Evolutionary Biology 2008, 6:102" (authors dropped later)
* ``volume_year_pages``: "Journal of Hydrology 310 (2005) 253–265"
* ``volume_issue_pages``: "Annals of Synthetic Geology 41(6):877-893"
* ``volume_article_id``: "Volume 2010, Article ID 157939" under the journal's name
* ``named_parts``: "Environmental Sensing Letters, Volume 5, Issue 2, Article 0217"
* ``proceedings``: "Proceedings of the 58th Annual Meeting …, pages 4969–4983" (footers)
* ``acm_reference``: "In Proceedings of … (CHI '23), April 23–28, 2023, … Article 111"
* ``to_appear``: "To appear in OSDI 2006"
* ``cite_as``: "To cite this article: V V Kazina et al 2021 IOP Conf. Ser.: … 640 022090",
  "How to cite this article Webb et al. (2017), Title. PeerJ Comput. Sci. 3:e118"
* ``chinese``: "第 9 卷 第 4 期 航空动力学报 … 1994 年 10 月", "Vol. 34 No. 5"

and the publication year from "Published:" lines (never "Received:"/"Accepted:"), the arXiv
stamp, a Chinese cover date, and — weakest — a © line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ...citations.identifiers import doi_from_text
from ...text.lazy import lazy_pattern

_J = r"[A-Z][\w&.,:'’()/ -]{2,90}?"
_PAGES = r"[A-Za-z]?\d+(?:\s*[–—-]\s*[A-Za-z]?\d+)?"
_Y = r"(?:1[89]|20)\d\d"

# Compiled when a line first passes the pattern's gate (core.text.lazy): most papers need few.
PATTERNS: list[tuple[str, Callable[[], re.Pattern[str]]]] = [
    ("pipe", lazy_pattern(rf"^(?P<j>{_J})\s*\|\s*\(?(?P<y>{_Y})\)?\s*(?P<v>\d{{1,4}})\s*:\s*(?P<p>[A-Za-z]?\d+)\b")),
    ("pipe", lazy_pattern(rf"^(?P<j>{_J})\s*\|\s*(?P<v>\d{{1,4}})\s*:\s*(?P<p>[A-Za-z]?\d+)\s*(?:\||$)")),
    ("running_head", lazy_pattern(
        rf"(?P<a>[^\W\d_][\w'’-]+)\s+et\s+al\.?\s+(?P<j>[A-Z][\w&.,:'’ -]{{2,90}}?)\s*,?\s+\(?(?P<y>{_Y})\)?,?\s+"
        r"(?P<v>\d{1,4})\s*:\s*(?P<p>[A-Za-z]?\d+)\b")),
    # "EMBO Reports (2021) 22: e52185", "Genome Biology (2023) 24:100"
    ("year_volume_article", lazy_pattern(
        rf"^(?P<j>{_J})\s+\((?P<y>{_Y})\)\s*(?P<v>\d{{1,4}})\s*:\s*(?P<p>e?\d+(?:\s*[–-]\s*\d+)?)\b")),
    # "Smith and Grant BMC Evolutionary Biology 2008, 6:102", "Genome Biology 2011, 12:R45" (BMC
    # before 2016; the names before the journal go once the by-line is known)
    ("year_comma_volume", lazy_pattern(
        rf"^(?P<j>{_J})\s+(?P<y>{_Y}),\s*(?P<v>\d{{1,4}})\s*:\s*(?P<p>[A-Za-z]?\d+)\b")),
    # "EMBO reports 22: e52185 | 2021" (a footer after the copyright line)
    ("volume_article_year", lazy_pattern(
        rf"(?:^|The Authors\s+)(?P<j>[A-Z][\w&.:' -]{{2,60}}?)\s+(?P<v>\d{{1,4}})\s*:\s*(?P<p>e?\d+)\s*\|\s*(?P<y>{_Y})\b")),
    ("volume_issue_pages", lazy_pattern(
        rf"^(?P<j>{_J}),?\s+(?:(?P<y>{_Y}),\s*)?(?P<v>\d{{1,4}})\s*\((?P<i>\d{{1,4}})\)\s*:\s*(?P<p>{_PAGES})\b")),
    ("volume_year_pages", lazy_pattern(rf"^(?P<j>{_J})\s+(?P<v>\d{{1,4}})\s*\((?P<y>{_Y})\)\s*(?P<p>{_PAGES})\s*$")),
    ("named_parts", lazy_pattern(
        rf"^(?:In:\s*)?(?P<j>{_J}),\s*Vol(?:ume|\.)\s*(?P<v>\d+)\s*,\s*(?:(?:Issue|No\.?|Number)\s*(?P<i>\d+)\s*,\s*)?"
        r"(?:Article(?:\s+(?:ID|No\.?))?|pp?\.|pages?)\s*(?P<p>[\w]+(?:\s*[–-]\s*\w+)?)")),
]
_NAMED_VENUE = lazy_pattern(
    r"^(?P<j>(?:Journal|Transactions|Annals|Advances|Letters|Bulletin|Reviews?|Proceedings|Archives?)\s+(?:of|on|in)"
    r"\s+[A-Z][^,\d|]{2,80}?)\s*(?:,\s*Vol(?:ume|\.)\s*(?P<v>\d{1,4}))?\s*$"
)
# The words a named venue starts with (_NAMED_VENUE's first group).
_VENUE_STARTS = ("Journal", "Transactions", "Annals", "Advances", "Letters", "Bulletin", "Review", "Proceedings", "Archive")
# A literal each pattern needs: lines without it are not tried (Python's re scans slowly).
_GATES = {"pipe": "|", "running_head": " et al", "year_comma_volume": ":", "volume_issue_pages": "(", "volume_year_pages": "(",
          "year_volume_article": "(", "volume_article_year": "|", "named_parts": "Vol"}  # fmt: skip
_FLAT_GATES = {"proceedings": ("Proceedings of", "Findings of"), "acm_reference": ("Article ",)}
# A word of each pattern read on the flattened front pages (_FLAT_GATES, the citation lines, _TO_APPEAR).
_FLAT_WORDS = ("Proceedings", "Findings", "Article", "cite", "ppear", "ccepted")
_VOLUME_ID = lazy_pattern(r"^Volume\s+(?P<v>\d{1,4}),\s*Article\s+ID\s+(?P<p>\d+)")
_PUBLISHER_LINE = lazy_pattern(r"publish|corporation|press\b|verlag|elsevier|springer|wiley|hindawi|www\.|http",
                             re.IGNORECASE)  # fmt: skip
_PROCEEDINGS = lazy_pattern(
    r"(?:In:?\s+)?(?P<j>(?:Proceedings|Findings) of (?:the )?[^,]{8,200}?)(?:\s*\((?P<abbr>[^)]{2,30})\))?"
    r",\s*(?:pages|pp\.)\s*(?P<p>\d+\s*[–-]\s*\d+)"
)
_ACM = lazy_pattern(
    r"In (?P<j>Proceedings of (?:the )?.+?)\s*\((?P<abbr>[^)]{2,30})\),[^.]*?(?P<y>" + _Y + r")\b.*?"
    r"Article (?P<p>\d+)"
)
_TO_APPEAR = lazy_pattern(r"\b(?:To appear in|Appeared in|Accepted (?:at|to|by))\s+(?:the\s+)?(?P<j>[A-Z][A-Za-z]{1,12}\s*'?(?P<y>" + _Y + r"))")
_CITE_IOP = lazy_pattern(
    r"To cite this article:\s*(?P<a>.+?)\s+et al\.?\s+(?P<y>" + _Y + r")\s+(?P<j>.+?)\s+(?P<v>\d{1,4})\s+(?P<p>[A-Za-z]?\d+)\b"
)
_CITE_HOW = lazy_pattern(
    r"How to cite this article:?\s*(?P<a>.+?)\s+et al\.?\s*\((?P<y>" + _Y + r")\)[,.]\s*(?P<t>.+?)\.\s+"
    r"(?P<j>[A-Z][\w.:& ]+?)\s+(?P<v>\d{1,4})\s*:\s*(?P<p>[A-Za-z]?\d+)"
)
# The volume patterns start with their literal (第, Vol): lines without it are not tried.
_ZH_VOL = lazy_pattern(r"第\s*(?P<v>\d{1,4})\s*卷\s*(?:第\s*(?P<i>\d{1,3})\s*期)?")
_ZH_VOL_ANY = lazy_pattern(r"第\s*\S{1,4}\s*卷")
_ZH_VOL_ANY_ISSUE = lazy_pattern(r"第\s*\S{1,4}\s*卷\s*(?:第\s*\S{1,3}\s*期)?")
_EN_VOL_ANY = lazy_pattern(r"\bVol\.?\s*\S{1,4}\s*,?\s*No\.?\s*\S{1,3}\b")
_EN_VOL = lazy_pattern(r"\bVol\.?\s*(?P<v>\d{1,4})\s*,?\s*No\.?\s*(?P<i>\d{1,3})\b")
_ZH_JOURNAL = lazy_pattern(r"(学报|杂志|学刊|期刊|通报|通讯|研究|科学|技术|工程|评论|汇刊)$")
_ZH_DATE = lazy_pattern(r"(?P<y>(?:19|20)\d\d)\s*年\s*(?P<m>\d{1,2})\s*月(?!\s*\d{1,2}\s*日\s*(?:收|修|录))")
_PUBLISHED = re.compile(
    r"\b(?:Published(?:[ \t]+online)?|Publication date|Date of publication|出版日期|发表日期)[ \t]*[:：]?[ \t]*"
    r"(?:(?:\d{1,2}[ \t]+)?[A-Z][a-z]+\.?[ \t]+(?:\d{1,2},?[ \t]+)?)?(?P<y>" + _Y + r")"
)
# Where a _PUBLISHED match can start. Its leading \b makes the regex engine try it at every
# character of a paper's text; these are found with str.find (none overlaps another), the
# Chinese ones by their last character (one character is found by memchr, a phrase of them by
# a far slower scan).
_PUBLISHED_AT = ("Publi", "Date of publication")
_PUBLISHED_AT_ZH = ("出版日期", "发表日期")


def _search_published(text: str) -> re.Match[str] | None:
    """``_PUBLISHED.search(text)``, tried only where one of its phrases starts."""
    starts: list[int] = []
    for phrase in _PUBLISHED_AT:
        at = text.find(phrase)
        while at >= 0:
            starts.append(at)
            at = text.find(phrase, at + len(phrase))
    at = text.find("期")
    while at >= 0:
        if at >= 3 and text.startswith(_PUBLISHED_AT_ZH, at - 3):
            starts.append(at - 3)
        at = text.find("期", at + 1)
    for at in sorted(starts):
        m = _PUBLISHED.match(text, at)
        if m:
            return m
    return None


_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"
# A line that is only a date: a report's or thesis cover's "March 2019", "June, 2014".
_DATE_LINE = lazy_pattern(rf"^(?:\d{{1,2}}\s+)?{_MONTH}\s*(?:\d{{1,2}},)?\s*,?\s*(?P<y>{_Y})$")
_NOT_PUBLISHED = lazy_pattern(r"\b(?:received|accepted|revised|submitted)\b|收稿|修回|录用", re.IGNORECASE)
_COPYRIGHT = lazy_pattern(r"(?:©|\(c\)|copyright)\s*(?:©\s*)?(?P<y>" + _Y + r")|(?:©|copyright).{0,60}?(?P<y2>" + _Y + ")",
                        re.IGNORECASE)  # fmt: skip
_ARXIV_NEW = re.compile(r"(?:arxiv\s*:\s*|arxiv\.org/(?:abs|pdf)/)(\d{4}\.\d{4,5}(?:v\d+)?)", re.IGNORECASE)
_ARXIV_OLD = lazy_pattern(
    r"\b((?:hep-(?:th|ph|ex|lat)|astro-ph|cond-mat|gr-qc|math-ph|nucl-(?:th|ex)|quant-ph|nlin"
    r"|physics|math|cs|q-bio|q-fin|stat)(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)"
)
# What an old-style id needs: found fast (a literal first), it spares _ARXIV_OLD's scan.
_SEVEN_DIGITS = re.compile(r"/\d{7}")
_PLACEHOLDER_DOI = lazy_pattern(r"x{3,}|X{3,}|\.{3}")
_CITE_AS_DOI = lazy_pattern(r"(?:doi:\s*|https?://doi\.org/)(10\.\d{4,9}/\S+)(?=[\s\S]{0,300}?Cite this article)",
                          re.IGNORECASE)  # fmt: skip


@dataclass
class Masthead:
    """What mastheads and citation lines say, with the category that matched each field."""

    container_title: str = ""
    container_abbrev: str = ""
    volume: str = ""
    issue: str = ""
    pages: str = ""
    year: int | None = None
    year_how: str = ""  # published | masthead | proceedings | arxiv | cover | copyright
    doi: str = ""
    arxiv_id: str = ""
    first_author_family: str = ""
    matched: list[str] = field(default_factory=list)


def _pages(p: str) -> str:
    return re.sub(r"\s*[–—-]\s*", "-", p.strip())


_SMALL_WORDS = frozenset({"of", "and", "the", "in", "on", "for", "to", "a", "an", "at", "de"})


def _title_case(j: str) -> str:
    """A journal name a masthead sets in capitals ("NATURE COMMUNICATIONS") as it is cited;
    short words stay capitals, as they are mostly acronyms (IEEE, BMC, EMBO)."""
    words = []
    for i, w in enumerate(j.split()):
        if i and w.lower() in _SMALL_WORDS:
            words.append(w.lower())
        elif len(w) > 4 and w.isalpha():
            words.append(w.capitalize())
        else:
            words.append(w)
    return " ".join(words)


def _journal(j: str) -> str:
    j = " ".join(j.split()).strip(" ,;:|")
    if j.isupper() and " " in j and sum(c.isalpha() for c in j) > 8:
        j = _title_case(j)
    # A final full stop ends the sentence, unless it ends an abbreviation ("PeerJ Comput. Sci.").
    last = j.rsplit(" ", 1)[-1]
    if j.endswith(".") and (len(last) > 6 or " " not in j):
        j = j[:-1]
    return re.sub(r"^(?:In:?\s+)", "", j)


def arxiv_year(arxiv_id: str) -> int | None:
    """The year of an arXiv id: YYMM.NNNNN → 20YY (DPR's 2004.04906 is from 2020); an old-style
    archive/YYMMNNN id (1991–2007) → 19YY or 20YY."""
    m = re.match(r"(\d{2})(\d{2})\.\d{4,5}", arxiv_id)
    if m and 1 <= int(m.group(2)) <= 12 and int(m.group(1)) >= 7:
        return 2000 + int(m.group(1))
    m = re.search(r"/(\d{2})(\d{2})\d{3}", arxiv_id)
    if m and 1 <= int(m.group(2)) <= 12 and (int(m.group(1)) >= 91 or int(m.group(1)) <= 7):
        yy = int(m.group(1))
        return (1900 if yy >= 91 else 2000) + yy
    return None


def without_authors(journal: str, families: list[str]) -> str:
    """A running head's journal without the author names printed before it: "Alves and
    Smith-Jones Genome Biology" → "Genome Biology", "Yang BMC Biology" → "BMC Biology"
    (``families``: the by-line's family names, in order)."""
    if not journal or not families:
        return journal
    first = families[0]
    if not first or not journal.startswith(first + " "):
        return journal
    rest = journal[len(first) + 1 :]
    if len(families) > 1 and families[1]:
        m = re.match(rf"(?:and|&)\s+{re.escape(families[1])}\s+(?=\S)", rest)
        if m:
            return rest[m.end() :]
    # One author: only when a journal of two words or more is left, so that a by-line of one
    # "Nature" leaves "Nature Communications" whole (one-word journals then keep the name).
    if len(families) == 1 and re.match(r"[A-Z]", rest) and " " in rest:
        return rest
    return journal


def _set(out: Masthead, how: str, j: str = "", v: str | None = "", i: str | None = "", p: str | None = "",
         y: str | None = "") -> None:  # fmt: skip
    if out.matched:
        return  # the first (top-most) masthead wins; later ones only fill the year below
    out.matched.append(how)
    out.container_title = _journal(j)
    out.volume = v or ""
    out.issue = i or ""
    out.pages = _pages(p) if p else ""
    if y and out.year is None:
        out.year, out.year_how = int(y), "masthead"


def read_mastheads(edge_lines: list[str], page_text: str, later_text: str = "", reading: str = "") -> Masthead:
    """Mastheads among ``edge_lines`` (top and bottom rows of page 1, then of page 2) and citation
    lines in ``page_text`` (page 1 with its line breaks); ``later_text``: the rest of the paper,
    read only for "Published:" and the DOI above "Cite this article as"; ``reading``: the front
    pages in reading order, where a citation line that wraps in a column stays whole."""
    out = Masthead()
    # Reading order keeps a wrapped citation line whole; the raw lines keep page furniture
    # (a boxed "To appear in" footer) that reading order drops.
    raw = reading + "\n" + page_text
    # (only a text with one of the flat patterns' words is worth flattening)
    flat = " ".join(raw.split()) if any(w in raw for w in _FLAT_WORDS) else ""
    for k, line in enumerate(edge_lines):
        text = " ".join(line.split())
        for how, pattern in PATTERNS:
            gate = _GATES.get(how)
            if gate is not None and gate not in text:
                continue  # a substring test is far cheaper than the pattern
            m = pattern().search(text)
            if m:
                g = m.groupdict()
                _set(out, how, g.get("j") or "", g.get("v"), g.get("i"), g.get("p"), g.get("y"))
                if how == "running_head":
                    out.first_author_family = g.get("a") or ""
                break
        m = _VOLUME_ID().search(text) if text.startswith("Volume") else None  # (the pattern's ^Volume)
        if m and not out.matched:
            journal = next((x for x in reversed(edge_lines[max(0, k - 2) : k]) if not _PUBLISHER_LINE().search(x)
                            and not re.search(r"\d", x)), "")  # fmt: skip
            if journal:
                _set(out, "volume_article_id", journal, m.group("v"), "", m.group("p"))
                if out.year is None and re.fullmatch(_Y, m.group("v")):
                    out.year, out.year_how = int(m.group("v")), "masthead"
    _chinese(out, edge_lines)
    if not out.matched:
        # Weakest: a running head that only names the venue ("Journal of Tests, Vol. 1").
        for line in edge_lines:
            text = " ".join(line.split())
            m = _NAMED_VENUE().search(text) if text.startswith(_VENUE_STARTS) else None
            if m:
                _set(out, "named_venue", m.group("j"), m.group("v"))
                break
    for how, pat in (("proceedings", _PROCEEDINGS), ("acm_reference", _ACM)):
        at = [k for k in (flat.find(g) for g in _FLAT_GATES[how]) if k >= 0]
        if not at:
            continue
        # A match starts at its phrase, or at the "In: " before it.
        m = pat().search(flat, max(0, min(at) - 4)) if how == "proceedings" else pat().search(flat)
        if m and (not out.matched or (how == "acm_reference" and out.matched == ["to_appear"])):
            out.matched = []
            _set(out, how, m.group("j"), "", "", m.group("p"))
            out.container_abbrev = m.groupdict().get("abbr") or ""
            y = m.groupdict().get("y")
            if not y:
                ym = re.search(rf"\b{_Y}\b", m.string[m.start() : m.end() + 200])
                y = ym.group(0) if ym else None
            if y and out.year is None:
                out.year, out.year_how = int(y), "proceedings"
    for gate, pat in (("To cite this article", _CITE_IOP), ("How to cite this article", _CITE_HOW)):
        how = "cite_as"
        m = pat().search(flat) if gate in flat else None
        if m:
            if not out.matched:
                _set(out, how, m.group("j"), m.group("v"), "", m.group("p"), m.group("y"))
            elif not out.volume and out.container_title:
                out.volume, out.pages = m.group("v"), _pages(m.group("p"))
            out.container_abbrev = out.container_abbrev or _journal(m.group("j"))
            if out.year is None:
                out.year, out.year_how = int(m.group("y")), "masthead"
    at = [k for k in (flat.find(g) for g in ("To appear in", "Appeared in", "Accepted ")) if k >= 0]
    m = _TO_APPEAR().search(flat, min(at)) if at else None  # (a match starts at one of these)
    if m and not out.matched:
        _set(out, "to_appear", m.group("j"))
        if out.year is None:
            out.year, out.year_how = int(m.group("y")), "proceedings"
    lines = page_text.splitlines()  # (once, for both)
    _identifiers(out, page_text, later_text, lines)
    _published_year(out, page_text, later_text, lines)
    return out


def _chinese(out: Masthead, edge_lines: list[str]) -> None:
    seen = False
    for line in edge_lines[:8]:
        # A template prints "第 XX 卷 第 X 期": the masthead is there, its numbers are not.
        zh, en = "第" in line, "Vol" in line
        if (zh and _ZH_VOL_ANY().search(line)) or (en and _EN_VOL_ANY().search(line)):
            seen = True
        m = (_ZH_VOL().search(line) if zh else None) or (_EN_VOL().search(line) if en else None)
        if m:
            if not out.volume:
                out.volume, out.issue = m.group("v"), m.group("i") or ""
            break
    if not seen:
        return
    for line in edge_lines[:8]:
        # The volume and the date may share the journal's line: take them out first.
        rest = _ZH_DATE().sub("  ", _ZH_VOL_ANY_ISSUE().sub("  ", line.strip()))
        parts = []
        for chunk in re.split(r"\s{2,}|\s(?=[A-Z(（])", rest):
            parts.append(re.sub(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])", "", chunk.strip()))
        for p in parts:
            if re.fullmatch(r"[\u3400-\u9fff《》]{3,20}", p) and _ZH_JOURNAL().search(p) and not _ZH_VOL().search(p):
                if not out.matched or out.matched == ["chinese"]:
                    out.container_title = p.strip("《》")
                    out.matched = ["chinese"]
                break
        if out.container_title:
            break
    for line in edge_lines[:8]:
        m = _ZH_DATE().search(line) or re.search(r"\b[A-Z][a-z]{2,8}\.?,?\s+(?P<y>" + _Y + r")\b", line)
        if m and out.year is None and out.volume:
            out.year, out.year_how = int(m.group("y")), "masthead"
            break


def _identifiers(out: Masthead, page_text: str, later_text: str, lines: list[str]) -> None:
    if "10." in page_text:
        for line in lines:
            if "10." not in line:
                continue
            doi = doi_from_text(line)
            if doi and not _PLACEHOLDER_DOI().search(doi):
                out.doi = doi
                break
    if not out.doi and "Cite this article" in later_text:
        m = _CITE_AS_DOI().search(later_text)
        if m:
            out.doi = doi_from_text(m.group(1))
    # Every arXiv test needs "arx" in some case (the only strings that lower to "arx", the only
    # ones the case-blind patterns' "arx" matches): the page is neither lowered nor scanned by
    # the patterns (slow, being case-blind), only tried where one starts.
    arx = _arx_starts(page_text)
    # ("arxiv" in page_text.lower(): "arx", then two characters that lower to "iv")
    if any(page_text[k + 3 : k + 5].lower() == "iv" for k in arx):
        m = next(filter(None, (_ARXIV_NEW.match(page_text, k) for k in arx)), None)
        if m:
            out.arxiv_id = m.group(1)
            return
    # ("arx": what the case-blind "arxiv" needs; the pattern also takes a dotless i)
    if any(page_text[k + 3 : k + 4] in _CASE_BLIND_I and page_text[k + 4 : k + 5] in ("v", "V") for k in arx) and (
        _SEVEN_DIGITS.search(page_text)
    ):
        m2 = _ARXIV_OLD().search(page_text)
        if m2:
            out.arxiv_id = m2.group(1)


_ARX = tuple(a + r + x for a in "aA" for r in "rR" for x in "xX")
# What a case-blind "i" matches (the dotless and the dotted i too).
_CASE_BLIND_I = frozenset("iIıİ")


def _arx_starts(text: str) -> list[int]:
    """Where "arx" starts in ``text``, in any case, in order."""
    out: list[int] = []
    # Found by its x (one character is found by memchr, three by a far slower scan; an x is rare).
    for x in "xX":
        k = text.find(x, 2)
        while k >= 0:
            if text.startswith(_ARX, k - 2):
                out.append(k - 2)
            k = text.find(x, k + 1)
    return sorted(out)


def _published_year(out: Masthead, page_text: str, later_text: str, lines: list[str]) -> None:
    # One scan of each text (the later pages are long): the pattern stays within a line, and
    # _search_published only tries it where one of its phrases starts.
    for text in (page_text, later_text):
        m = _search_published(text)
        if m:
            out.year, out.year_how = int(m.group("y")), "published"
            return
    if out.year is not None:
        return
    y = arxiv_year(out.arxiv_id)
    if y:
        out.year, out.year_how = y, "arxiv"
        return
    # A cover's date may come in pieces ("201" / "4 年 6 月"): read it with every space and break gone.
    squeezed = "".join(page_text.split()) if "年" in page_text else ""
    for m in _ZH_DATE().finditer(squeezed) if squeezed else ():
        ctx = squeezed[max(0, m.start() - 6) : m.end() + 8]
        if not _NOT_PUBLISHED().search(ctx):
            out.year, out.year_how = int(m.group("y")), "cover"
            return
    for line in lines[:40]:
        s = line.strip()
        # (what _DATE_LINE needs: a digit or a month's capital first, the year's digit last)
        if not s or not s[-1].isdecimal() or not (s[0] in "JFMASOND" or s[0].isdecimal()):
            continue
        m = _DATE_LINE().match(s)
        if m:
            out.year, out.year_how = int(m.group("y")), "cover"
            return
    # (a line is only read for a mark the page prints at all; most print one at most)
    marks = [g for g in ("©", "opyright", "(c)", "(C)") if g in page_text]
    for line in lines if marks else ():
        if not any(g in line for g in marks):
            continue
        m = _COPYRIGHT().search(line)
        if m and not _NOT_PUBLISHED().search(line):
            out.year, out.year_how = int(m.group("y") or m.group("y2")), "copyright"
            return
