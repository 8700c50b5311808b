"""A paper's reference list read into entries: authors, title, year, venue, DOI, arXiv id.

The importer hands over the paragraphs of the references section in order. Entries are cut
from them by their printed labels ("[12]", "12.") when the list is numbered, else one entry
per paragraph (the extractor keeps a hanging-indent entry together), with a paragraph that
cannot start an entry (lower case, a page break inside an entry) joined to the one before.
Each entry is then read by the shape of its style:

* author-year ("Devlin, J., Chang, M. 2019. BERT: … In Proceedings of …", APA "(2019).")
* numbered IEEE (``[3] A. Vaswani et al., "Attention is all you need," in NeurIPS, 2017.``)
* numbered Vancouver / Springer ("1. Smith J, Doe A. Title. Journal. 2019;3:1–10.")
* Chinese GB/T 7714 ("[1] 张三, 李四. 题名[J]. 期刊, 2020, 3(2): 1-10.")

Fields that cannot be read stay empty: an entry is always kept with its full text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ..models import Reference
from ..text.lazy import has_char_from, lazy_pattern
from ..text.whitespace import collapse_whitespace
from .identifiers import ARXIV_ID_PATTERN, DOI_IN_TEXT, doi_or_empty, normalize_arxiv

__all__ = ["Reference", "parse_references", "split_entries", "title_key"]


_BRACKET_LABEL = re.compile(r"^\s*\[(\d{1,4})\]\s*")
_DOT_LABEL = re.compile(r"^\s*(\d{1,4})\.\s+(?=\S)")
# A "[n]" at the start or after white space: led by its "[" (the look-behind after it turns away one
# after anything else), re goes from "[" to "[" instead of trying every position of the list.
_BRACKETS_INSIDE = re.compile(r"\[(?<!\S\[)(\d{1,4})\]\s+")
# Compiled when first needed (core.text.lazy): a Han class costs milliseconds to compile.
# (Led by the white space, with the test of the character before it as a look-behind after it: a
# leading look-behind had re try every position of the list.)
_DOTS_INSIDE = lazy_pattern(r"\s(?<=[.\s]\s)(\d{1,4})\.\s+(?=[A-Z\u4e00-\u9fff])")
# A year not inside a longer number. The lookbehind follows the century (it checks the
# character before it) so that the pattern starts with a literal and is searched for quickly.
_YEAR = re.compile(r"((?:19|20)(?<![\d/.]..)\d{2})[a-z]?(?![\d])")
_ARXIV_IN_TEXT = re.compile(
    rf"(?:arxiv\s*(?:preprint\s*)?(?:arxiv\s*)?:?\s*|arxiv\.org/(?:abs|pdf)/)({ARXIV_ID_PATTERN})", re.IGNORECASE
)
_GBT_TYPE = re.compile(r"\[(?:J|C|M|D|N|P|R|S|Z|A|EB/OL|DB/OL|CP/OL|J/OL|M/OL|C/OL|G)\]")
_CJK = lazy_pattern(r"[\u4e00-\u9fff]")
# An author block that starts an entry: "Smith, J.", "J. Smith", "Smith J", "van der Berg",
# "Kyle Lo,", an organisation in capitals, or a Chinese name (a Han character first: tested in
# Python, see split_entries; as a class it costs a millisecond to compile).
_ENTRY_START = re.compile(
    r"^(?:[A-Z][\w'’\-]+,?\s+(?:[A-Z]\.|[A-Z]{1,3}\b|[A-Z][a-z])|[A-Z]\.\s?(?:[A-Z]\.\s?)?[A-Z]|"
    r"(?:van|von|de|der|da|di|le|la|del)\s+[A-Z]|[A-Z]{2,})"
)
# Every character _COLON_AUTHORS allows before its colon is in this class: the first one that
# is not must be that colon, or the pattern cannot match.
_NOT_IN_COLON_AUTHORS = re.compile(r"[^\w'’\-\s,]")
_COLON_AUTHORS = lazy_pattern(  # (BioMed Central style only)
    r"^((?:[A-Z][\w'’\-]+(?:\s[A-Z][\w'’\-]+)*\s[A-Z]{1,3}|[A-Z]{2,})(?:,\s(?:[A-Z][\w'’\-]+(?:\s[A-Z][\w'’\-]+)*\s[A-Z]{1,3}|et al))*)"
    r":\s+(.+)$"
)
_QUOTED_TITLE = re.compile(r"[\"“”]([^\"“”]{8,}?)[,.]?[\"“”]")
# "Authors[.,] (2019). Rest": the authors are what comes before the first place where the rest
# of the pattern matches (a lazy "^(.+?)" in front of _AFTER_AUTHORS). That place is searched
# for from where the year can be at the earliest (_YEAR_MARK), not tried at every character.
_AUTHOR_YEAR = lazy_pattern(r"^(?P<authors>.+?)[.,]?\s*\(?(?P<year>(?:19|20)\d{2})[a-z]?\)?[.,:]\s+(?P<rest>.+)$")
_AFTER_AUTHORS = re.compile(r"[.,]?\s*\(?(?P<year>(?:19|20)\d{2})[a-z]?\)?[.,:]\s+(?P<rest>.+)$")
_YEAR_MARK = re.compile(r"(?:19|20)\d{2}[a-z]?\)?[.,:]\s")
# Where names are split (by _split_names, which tries it only where it can match).
_NAME_SPLIT = re.compile(r"\s*(?:,\s*(?:and|&)\s+|\s+and\s+|\s*&\s*|;\s*|，|、)\s*")
# Every separator _NAME_SPLIT matches holds one of these, after the white space and commas it
# starts with.
_NAME_SEPARATORS = ("and", "&", ";", "，", "、")
_ET_AL = re.compile(r",?\s*(?:et al\.?|等)\s*$")
_VANCOUVER = re.compile(
    r"^((?:[A-Z][\w'’\-]+(?:\s[A-Z][\w'’\-]+)*\s[A-Z]{1,3},\s)*[A-Z][\w'’\-]+(?:\s[A-Z][\w'’\-]+)*\s[A-Z]{1,3}"
    r"(?:,?\s*et al)?)\.\s+(.+)$"
)
# What _strip_trailing removes (\s is str.isspace for a str pattern).
_TRAILING_PUNCT = ".,;:"
# Compiled once: an entry is read with each of these, and a paper has hundreds of entries.
_CJK_NAME_SPLIT = lazy_pattern(r"[,，、;；]")  # (for Chinese names only)
_GIVEN = re.compile(r"(?:[A-Z]\.?\s?-?){1,4}|[A-Z][a-z]+(?:\s[A-Z]\.?)*")
_STOP = re.compile(r"[.?!](?=\s+|$)")
_IN_PREFIX = re.compile(r"^(?:in:?\s+)", re.IGNORECASE)
# Where a venue's name ends: ", pages", "3(2)", ", 3:", " 3:1", ". 2019" (the white space before a
# number is left out of the match, as the venue is stripped after the cut). The first character
# is matched by a class and the alternatives tell by a look-behind which one it was: re searches
# for a leading class quickly, whereas a leading look-ahead made it try every position. The class
# is ",", ".", ";", 0-9 or any character past ASCII (where the other digits are): a bitmap, not
# the slower \d category, and the look-behinds turn away what is no digit.
_VENUE_END = re.compile(
    r"[^\x00-\x2b\x2d\x2f\x3a\x3c-\x7f](?:(?<=,)\s*(?:pages|pp\.|vol\.|volume)\b|(?<=,)\s*\d+\s*[:(]|(?<=[,.;])\s*(?:19|20)\d{2}\b|"
    r"(?<=\d)\d*\s*\(\d+\)|(?<=\s\d)\d*:\d)"
)
# A year that ends a venue; what _venue cuts is it with the white space and comma before it (as
# ",?\s*" in front: led by those, the pattern would be tried at every position).
_VENUE_YEAR = re.compile(r"(?:19|20)\d{2}[a-z]?$")
_GBT_VENUE_END = lazy_pattern(r"[,，]\s*(?:19|20)\d{2}|:\s*\d")
_SENTENCE_IN_AUTHORS = re.compile(r"[.?!]\s+[A-Z][a-z]+\s+[a-z]")
_NOT_SENTENCE_END = frozenset(("al", "vs", "pp", "Vol", "vol", "no", "No", "St", "Jr", "eds", "ed"))


def _label(text: str) -> tuple[str, str]:
    first = text[:1]
    # A label pattern is tried only where its first character can start it (\d is isdecimal).
    m = _BRACKET_LABEL.match(text) if first == "[" or first.isspace() else None
    if m is None and (first.isdecimal() or first.isspace()):
        m = _DOT_LABEL.match(text)
    return (m.group(1), text[m.end() :]) if m else ("", text)


def _split_numbered(text: str, rx: re.Pattern[str], start: int, every: bool) -> list[tuple[int, str]]:
    """Cut a run of text at labels that count up from ``start`` ("3. … 4. …"); ``every``:
    at every label (a bracketed "[n]" starts an entry wherever it stands, even when a
    two-column list came out of order)."""
    cuts: list[tuple[int, int]] = []  # (label, position)
    expected = start
    for m in rx.finditer(text):
        n = int(m.group(1))
        # A label the extractor garbled ("20." lost in a line break) must not end the list.
        if every or expected <= n <= expected + 2:
            cuts.append((n, m.start()))
            expected = n + 1
    if not cuts:
        return []
    out = []
    for (n, pos), nxt in zip(cuts, [c[1] for c in cuts[1:]] + [len(text)], strict=True):
        out.append((n, text[pos:nxt].strip()))
    return out


def split_entries(paragraphs: Sequence[str]) -> list[str]:
    """The entries of a reference list, from its paragraphs in order; each is whitespace-normalised
    (``" ".join(entry.split()) == entry``), which the readers of its fields rely on."""
    paras = [p for p in map(collapse_whitespace, paragraphs) if p]
    if not paras:
        return []
    # (A normalised paragraph starts with no white space: a label with "[" or a digit.)
    labelled = sum(
        1 for p in paras if (p[0] == "[" or p[0].isdecimal()) and (_BRACKET_LABEL.match(p) or _DOT_LABEL.match(p))
    )
    if labelled and labelled >= len(paras) // 3:
        # A numbered list: cut wherever the next number is printed (entries the extractor
        # ran together, or an entry broken over a page, come out right either way).
        bracket = sum(1 for p in paras if _BRACKET_LABEL.match(p)) >= sum(1 for p in paras if _DOT_LABEL.match(p))
        rx = _BRACKETS_INSIDE if bracket else _DOTS_INSIDE()
        whole = " " + " ".join(paras)
        first = _BRACKET_LABEL.match(paras[0]) if bracket else _DOT_LABEL.match(paras[0])
        start = int(first.group(1)) if first else 1
        if not bracket:
            whole = " " + whole
        entries = _split_numbered(whole, rx, start, every=bracket)
        if entries:
            return [e for _n, e in entries]
    out: list[str] = []
    for p in paras:
        if out and not (_ENTRY_START.match(p) or "\u4e00" <= p[0] <= "\u9fff"):  # (a new entry's start)
            out[-1] = out[-1] + " " + p  # the rest of an entry (a column or page break inside it)
        else:
            out.append(p)
    return out


def _strip_trailing(text: str) -> str:
    """``text`` without its trailing run of white space and ``.,;:`` (as ``[\\s.,;:]+$``)."""
    while True:
        stripped = text.rstrip().rstrip(_TRAILING_PUNCT)
        # Ending in neither white space nor those marks, it is what another round would leave.
        if stripped == text or not stripped[-1:].isspace():
            return stripped
        text = stripped


def _clean(text: str) -> str:
    """``text`` (a piece of a whitespace-normalised entry) without trailing stops and quotes."""
    # (The text's white space is single spaces: " ".join(text.split()) would only drop one at
    # either end, which the two strips drop anyway.)
    return _strip_trailing(text).strip(" \"“”")


def _split_names(block: str, literals: list[str]) -> list[str]:
    """``_NAME_SPLIT.split(block)``, the pattern tried only in front of a separator's literal;
    ``literals``: those of _NAME_SEPARATORS that are in ``block``."""
    # A match starts in the run of white space and commas before its literal: str.find reaches
    # the literals many times faster than the pattern's search goes through the names.
    parts: list[str] = []
    last = pos = 0  # where the current part starts; where the next literal is looked for
    while True:
        if len(literals) == 1:
            at = block.find(literals[0], pos)
        else:
            at = min((i for i in (block.find(sep, pos) for sep in literals) if i >= 0), default=-1)
        if at < 0:
            break
        start = at
        while start > last and (block[start - 1] == "," or block[start - 1].isspace()):
            start -= 1
        pos = at + 1
        for p in range(start, pos):
            m = _NAME_SPLIT.match(block, p)
            if m:
                parts.append(block[last:p])
                last = pos = m.end()
                break
    parts.append(block[last:])
    return parts


def _authors(block: str) -> list[str]:
    """The names in an author block (whitespace-normalised, as every piece of an entry)."""
    block = _strip_trailing(block.strip())
    if "et al" in block or "等" in block:  # (what _ET_AL needs, checked first: it is slow to miss)
        block = _strip_trailing(_ET_AL.sub("", block))
    if not block:
        return []
    if has_char_from(block, "\u4e00") and _CJK().search(block):
        return [n.strip() for n in _CJK_NAME_SPLIT().split(block) if n.strip()]
    literals = [sep for sep in _NAME_SEPARATORS if sep in block]
    parts = _split_names(block, literals) if literals else [block]
    names: list[str] = []
    for part in parts:
        pieces = [x for x in map(str.strip, part.split(",")) if x]
        # "Smith, J., Doe, A." (family, initials pairs) vs "Kyle Lo, Lucy Wang" (whole names).
        i, n = 0, len(pieces)
        while i < n:
            name = pieces[i]
            if " " not in name and i + 1 < n and _GIVEN.fullmatch(pieces[i + 1]):
                name = f"{name}, {pieces[i + 1]}"
                i += 2
            else:
                i += 1
            name = _clean(name)
            if name and len(name) <= 80:
                names.append(name)
    return names


def _first_sentence(text: str) -> tuple[str, str]:
    """Split at the first full stop that ends a sentence (not an initial, not "et al.")."""
    m = _STOP.search(text)  # (search by search: the first stop mostly ends it, no iterator needed)
    while m:
        end = m.start()
        length = end - text.rfind(" ", 0, end) - 1  # of the word before the stop
        # (No word in _NOT_SENTENCE_END is longer than three letters.)
        if length > 3 or (length > 1 and text[end - length : end] not in _NOT_SENTENCE_END):
            # The stop is one character: a "?" stays with the sentence.
            return text[: end + 1 if text[end] == "?" else end], text[end + 1 :].strip()
        m = _STOP.search(text, end + 1)
    return text, ""


def _without_year(venue: str) -> str:
    """``venue`` without the year that ends it and the white space and comma before that year."""
    year = _VENUE_YEAR.search(venue)
    if year is None:
        return venue
    head = venue[: year.start()].rstrip()
    return (head[:-1] if head.endswith(",") else head) + venue[year.end() :]


def _venue(rest: str) -> str:
    rest = rest.strip()
    if rest[:1] in "iIıİ":  # (the letters re.IGNORECASE matches with the "i" of _IN_PREFIX)
        prefix = _IN_PREFIX.match(rest)
        if prefix:
            rest = rest[prefix.end() :]
    venue, _ = _first_sentence(rest)
    end = _VENUE_END.search(venue)  # (what split(venue)[0] keeps: no match is empty)
    venue = (venue[: end.start()] if end else venue).strip()
    if venue[-1:].isdigit() or venue[-2:-1].isdigit():  # _VENUE_YEAR ends in a digit and perhaps a letter
        venue = _without_year(venue)
    return _clean(venue)[:200]


def _author_year(body: str) -> tuple[str, str, str] | None:
    """The authors, year and rest of an author-year entry, as ``_AUTHOR_YEAR`` reads them."""
    if "\n" in body:  # never from split_entries; "." stops at a line break
        m = _AUTHOR_YEAR().match(body)
        return (m.group("authors"), m.group("year"), m.group("rest")) if m else None
    mark = _YEAR_MARK.search(body, 1)  # the authors take one character at least
    if mark is None:
        return None
    # The rest of the pattern starts at the year or at the run of "[.,]?\s*\(?" before it; a
    # later year cannot start it earlier (the digits of this one are in the way).
    start = mark.start()
    while start > 1 and (body[start - 1] in ".,(" or body[start - 1].isspace()):
        start -= 1
    m = _AFTER_AUTHORS.search(body, start)
    return (body[: m.start()], m.group("year"), m.group("rest")) if m else None


def _parse_gbt(ref: Reference, body: str, m: re.Match[str]) -> None:
    head = body[: m.start()]
    authors, _, title = head.partition(". ") if ". " in head else head.partition("．")
    if not title:
        authors, title = "", head
    ref.authors = _authors(authors)
    ref.title = _clean(title)
    tail = body[m.end() :].lstrip(" .．")
    end = _GBT_VENUE_END().search(tail)
    ref.venue = _clean(tail[: end.start()] if end else tail)[:200]


def _first_year(body: str, doi: bool, arxiv: bool) -> int | None:
    """The first year in an entry, not the digits of an identifier it has ("arXiv:2004.05150" is
    no year 2004)."""
    plain = DOI_IN_TEXT.sub(" ", body) if doi else body
    if doi or arxiv:
        plain = _ARXIV_IN_TEXT.sub(" ", plain)
    year = _YEAR.search(plain)
    return int(year.group(1)) if year else None


def _parse_entry(text: str) -> Reference:
    """One entry as split_entries gives it: whitespace-normalised, as _clean and _authors need."""
    label, body = _label(text)
    ref = Reference(text=text, label=label)
    # The literal each pattern needs is looked for first: most entries have neither identifier.
    doi = DOI_IN_TEXT.search(body) if "10." in body else None
    if doi:
        ref.doi = doi_or_empty(doi.group(1).rstrip(".,;)]"))
    # (re.IGNORECASE folds only R and X onto r and x: no lower() of the whole entry.)
    arx = _ARXIV_IN_TEXT.search(body) if "rX" in body or "rx" in body or "RX" in body or "Rx" in body else None
    if arx:
        ref.arxiv_id = normalize_arxiv(arx.group(1))
    ids = (doi is not None, arx is not None)  # (for _first_year, which the author-year style does without)
    gbt = _GBT_TYPE.search(body) if "[" in body else None
    if gbt:
        _parse_gbt(ref, body, gbt)
        year = _YEAR.search(body[gbt.end() :])
        ref.year = int(year.group(1)) if year else _first_year(body, *ids)
        return ref
    quoted = _QUOTED_TITLE.search(body) if '"' in body or "“" in body or "”" in body else None
    if quoted:  # IEEE: authors, "Title," in Venue, year.
        ref.year = _first_year(body, *ids)
        ref.authors = _authors(body[: quoted.start()])
        ref.title = _clean(quoted.group(1))
        ref.venue = _venue(body[quoted.end() :].lstrip(" ,."))
        return ref
    other = _NOT_IN_COLON_AUTHORS.search(body) if ":" in body else None
    colon = _COLON_AUTHORS().match(body) if other is not None and other.group() == ":" else None
    if colon:  # BioMed Central: "Smith J, Doe A: Title. Journal 2019, 3:1–10."
        ref.year = _first_year(body, *ids)
        ref.authors = _authors(colon.group(1))
        ref.title, rest = _first_sentence(colon.group(2))
        ref.title = _clean(ref.title)
        ref.venue = _venue(rest)
        return ref
    ay = _author_year(body)
    if ay and len(ay[0]) <= 400 and not _SENTENCE_IN_AUTHORS.search(ay[0]):
        ref.authors = _authors(ay[0])
        ref.year = int(ay[1])
        ref.title, rest = _first_sentence(ay[2])
        ref.title = _clean(ref.title)
        ref.venue = _venue(rest)
        return ref
    # Vancouver: "Smith J, Doe A. Title. Journal. 2019;3:1–10."
    ref.year = _first_year(body, *ids)
    v = _VANCOUVER.match(body)
    authors, rest = (v.group(1), v.group(2)) if v else _first_sentence(body)
    ref.authors = _authors(authors)
    ref.title, rest = _first_sentence(rest)
    ref.title = _clean(ref.title)
    ref.venue = _venue(rest)
    return ref


def parse_references(paragraphs: Sequence[str]) -> list[Reference]:
    """The entries of a reference list, each read into fields."""
    return [_parse_entry(e) for e in split_entries(paragraphs) if len(e) >= 12]


_KEY_DROP = lazy_pattern(r"[^\w\u4e00-\u9fff]+")


def title_key(title: str) -> str:
    """A title reduced to what matching needs: letters and digits, lower case, single spaces."""
    t = unicodedata.normalize("NFKC", title).lower()
    return " ".join(_KEY_DROP().sub(" ", t).split())
