"""BibTeX/BibLaTeX export with stable cite keys, and a forgiving parser.

The export keeps accented letters as UTF-8 (biber and modern BibTeX read it) and escapes only
what LaTeX would misread. The parser follows BibTeX's own grammar (@string macros, ``#``
concatenation, braces inside quotes, junk between entries is a comment) and treats every entry
on its own: a malformed one becomes a line-numbered error and the next entry is still read.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from typing import Any

from ..text.language import has_cjk
from .formats import ParseError, ParseResult
from .identifiers import ARXIV_ID_PATTERN, is_arxiv_id
from .model import CslItem, CslName, item_from_csl

__all__ = ["cite_key", "cite_keys", "latex_to_unicode", "parse_bibtex", "to_bibtex"]

# --------------------------------------------------------------------------- shared tables

_MONTH_MACROS = (
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
)  # fmt: skip
_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip

_PERIODICAL = {"article-journal", "article-magazine", "article-newspaper"}

_CSL_TO_BIB = {
    "article-journal": "article",
    "article-magazine": "article",
    "article-newspaper": "article",
    "paper-conference": "inproceedings",
    "book": "book",
    "chapter": "incollection",
    "entry-encyclopedia": "incollection",
    "entry-dictionary": "incollection",
    "report": "techreport",
    "webpage": "online",
    "article": "misc",
    "manuscript": "unpublished",
    "patent": "patent",
    "dataset": "dataset",
    "software": "software",
    "standard": "standard",
}

_BIB_TO_CSL = {
    "article": "article-journal",
    "periodical": "article-journal",
    "inproceedings": "paper-conference",
    "conference": "paper-conference",
    "book": "book",
    "mvbook": "book",
    "collection": "book",
    "mvcollection": "book",
    "proceedings": "book",
    "mvproceedings": "book",
    "booklet": "book",
    "manual": "book",
    "reference": "book",
    "inbook": "chapter",
    "incollection": "chapter",
    "bookinbook": "chapter",
    "suppbook": "chapter",
    "suppcollection": "chapter",
    "inreference": "entry-encyclopedia",
    "phdthesis": "thesis",
    "mastersthesis": "thesis",
    "thesis": "thesis",
    "techreport": "report",
    "report": "report",
    "online": "webpage",
    "www": "webpage",
    "electronic": "webpage",
    "unpublished": "manuscript",
    "patent": "patent",
    "dataset": "dataset",
    "software": "software",
    "standard": "standard",
}

_MASTER = ("master", "m.s.", "m.a.", "msc", "m.sc", "mphil", "硕士")


def _is_master(genre: str) -> bool:
    g = genre.lower()
    return any(k in g for k in _MASTER)


def _extra(obj: CslItem | CslName, key: str) -> str:
    value = (obj.model_extra or {}).get(key)
    return str(value).strip() if value not in (None, "") else ""


# --------------------------------------------------------------------------- cite keys

_FOLD = str.maketrans({
    "ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L",
    "đ": "d", "Đ": "D", "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "ı": "i", "ŋ": "ng", "Ŋ": "Ng",
})  # fmt: skip
_STOPWORDS = frozenset({
    "a", "an", "the", "on", "of", "in", "for", "and", "to", "with", "at", "by", "from", "is", "are",
    "as", "via", "into", "using", "towards", "toward", "about",
})  # fmt: skip


def _ascii_fold(text: str) -> str:
    """Lower-case ASCII letters and digits only: "Łukasz" → "lukasz", "García-López" → "garcialopez"."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_FOLD))
    return "".join(c for c in decomposed if c.isascii() and c.isalnum()).lower()


def _key_name(item: CslItem) -> str:
    for name in (*item.author, *item.editor):
        if name.literal.strip():
            words = name.literal.split()
            return _ascii_fold(words[0]) if words else ""
        if name.family.strip():
            return _ascii_fold(name.family)
    return ""


def _key_word(title: str) -> str:
    for word in re.split(r"[\s\-–—:/]+", title):
        folded = _ascii_fold(word)
        if folded and folded not in _STOPWORDS:
            return folded
    return ""


def cite_key(item: CslItem) -> str:
    """family + year + first significant title word ("vaswani2017attention").

    Names or titles that fold to nothing in ASCII (Chinese, say) fall back to "item" and a hash
    of the title, so the key stays the same between exports without needing a pinyin table.
    """
    year = str(item.year or "")
    name = _key_name(item)
    title = item.title.strip()
    word = _key_word(title)
    digest = hashlib.sha1((title or item.id).encode("utf-8")).hexdigest()[:6]
    if not name:
        return f"item{year}{digest}"
    return f"{name}{year}{word or digest}"


def _letters(n: int) -> str:
    out = ""
    n += 1
    while n:
        n, r = divmod(n - 1, 26)
        out = chr(ord("a") + r) + out
    return out


def cite_keys(items: Sequence[CslItem]) -> list[str]:
    """Keys for an export: the first of equal keys stays plain, later ones get a, b, c …"""
    used: set[str] = set()
    out = []
    for item in items:
        base = cite_key(item)
        key, n = base, 0
        while key in used:
            key = base + _letters(n)
            n += 1
        used.add(key)
        out.append(key)
    return out


# --------------------------------------------------------------------------- export

_ESCAPES = {
    "\\": r"\textbackslash{}",
    # \{ and \} would still count towards BibTeX's brace balance, so a lone brace breaks a file.
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def _escape(text: str) -> str:
    return "".join(_ESCAPES.get(c, c) for c in text)


def _protect_title(title: str) -> str:
    """Escape, and brace words with inner capitals ("BERT", "iPhone") so styles can't lower-case them."""
    out = []
    for token in re.split(r"(\s+)", title):
        if not token or token.isspace():
            out.append(token)
            continue
        m = re.fullmatch(r"(\W*)(.*?)(\W*)", token)
        assert m is not None
        lead, core, trail = m.groups()
        if any(c.isupper() for c in core[1:]):
            out.append(f"{_escape(lead)}{{{_escape(core)}}}{_escape(trail)}")
        else:
            out.append(_escape(token))
    return "".join(out)


def _needs_braces(part: str) -> bool:
    # Spaces, commas or "and" would split the part; a lower-case start would read as "von".
    return bool(re.search(r"[\s,]", part)) or part[:1].islower()


def _bib_name(n: CslName) -> str:
    if n.literal.strip():
        return "{" + _escape(n.literal.strip()) + "}"
    family, given = _escape(n.family.strip()), _escape(n.given.strip())
    von = _escape(_extra(n, "non-dropping-particle") or _extra(n, "dropping-particle"))
    suffix = _escape(_extra(n, "suffix"))
    if family and _needs_braces(family):
        family = "{" + family + "}"
    if re.search(r"(^|\s)and(\s|$)|,", given, flags=re.I):
        given = "{" + given + "}"
    last = f"{von} {family}".strip() if von else family
    if suffix:
        return f"{last}, {suffix}, {given}"
    if given:
        return f"{last}, {given}" if last else given
    return last


def _bib_names(names: Sequence[CslName]) -> str:
    return " and ".join(s for s in (_bib_name(n) for n in names) if s)


def _date_parts(d: dict[str, Any] | None) -> list[int] | None:
    parts = (d or {}).get("date-parts")
    if not isinstance(parts, list) or not parts or not isinstance(parts[0], list):
        return None
    out = []
    for value in parts[0][:3]:
        try:
            out.append(int(value))
        except (TypeError, ValueError):
            break
    return out or None


def _iso(parts: Sequence[int]) -> str:
    return "-".join([f"{parts[0]:04d}", *(f"{p:02d}" for p in parts[1:])])


def _bib_type(item: CslItem) -> str:
    if item.type == "thesis":
        return "mastersthesis" if _is_master(item.genre) else "phdthesis"
    return _CSL_TO_BIB.get(item.type, "misc")


def _container_field(item: CslItem, kind: str) -> str:
    if item.type in _PERIODICAL:
        return "journal"
    return {"online": "organization", "misc": "howpublished"}.get(kind, "booktitle")


def _entry(item: CslItem, key: str) -> str:
    kind = _bib_type(item)
    fields: list[tuple[str, str]] = []

    def add(name: str, value: str, how: str = "text") -> None:
        value = value.strip()
        if not value:
            return
        if how == "raw":  # verbatim fields: url, doi, eprint (biber reads them as-is)
            fields.append((name, "{" + value + "}"))
        elif how == "bare":
            fields.append((name, value))
        elif how == "title":
            fields.append((name, "{" + _protect_title(value) + "}"))
        else:
            fields.append((name, "{" + _escape(re.sub(r"\s+", " ", value)) + "}"))

    if item.author:
        fields.append(("author", "{" + _bib_names(item.author) + "}"))
    if item.editor:
        fields.append(("editor", "{" + _bib_names(item.editor) + "}"))
    add("title", item.title, "title")
    add(_container_field(item, kind), item.container_title)
    if item.type == "article-magazine":
        add("entrysubtype", "magazine")
    elif item.type == "article-newspaper":
        add("entrysubtype", "newspaper")
    add("series", item.collection_title)
    add("eventtitle", item.event_title)

    parts = _date_parts(item.issued)
    if parts:
        add("year", str(parts[0]))
        if len(parts) > 1 and 1 <= parts[1] <= 12:
            add("month", _MONTH_MACROS[parts[1] - 1], "bare")
            if len(parts) > 2:
                add("date", _iso(parts))
    elif item.issued and (item.issued.get("literal") or item.issued.get("raw")):
        add("year", str(item.issued.get("literal") or item.issued.get("raw")))

    add("volume", item.volume)
    if item.type in _PERIODICAL:
        add("number", item.issue)
        add("eid", item.number)
    else:
        add("issue", item.issue)
        add("number", item.number)
    if item.page.strip():
        add("pages", re.sub(r"\s*(?:-{1,3}|–|—)\s*", "--", item.page.strip()))
    add("edition", item.edition)
    publisher_field = {"phdthesis": "school", "mastersthesis": "school", "techreport": "institution"}
    add(publisher_field.get(kind, "publisher"), item.publisher)
    add("address", item.publisher_place)
    add("type", item.genre)
    add("doi", re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", item.DOI.strip(), flags=re.I), "raw")
    add("url", item.URL, "raw")
    accessed = _date_parts(item.accessed)
    if accessed:
        add("urldate", _iso(accessed))
    add("isbn", item.ISBN)
    add("issn", item.ISSN)
    if item.arxiv.strip():
        add("eprint", re.sub(r"^arxiv:\s*", "", item.arxiv.strip(), flags=re.I), "raw")
        add("archivePrefix", "arXiv")
        primary = _extra(item, "primaryClass") or _extra(item, "primary-class")
        add("primaryClass", primary)
    elif item.type == "article":
        add("pubstate", "prepublished")  # tells our parser (and biblatex) it is a preprint
    add("language", item.language)
    add("keywords", item.keyword)
    add("abstract", item.abstract)
    add("note", item.note)

    body = ",\n".join(f"  {name} = {value}" for name, value in fields)
    return f"@{kind}{{{key},\n{body}\n}}\n" if body else f"@{kind}{{{key}\n}}\n"


def to_bibtex(items: Sequence[CslItem]) -> str:
    """The items as a .bib file (UTF-8), in the given order, with unique keys."""
    return "\n".join(_entry(item, key) for item, key in zip(items, cite_keys(items), strict=True))


# --------------------------------------------------------------------------- LaTeX → Unicode

_SYMBOL_ACCENTS = {
    '"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304", ".": "\u0307",
}  # fmt: skip
_LETTER_ACCENTS = {
    "u": "\u0306", "v": "\u030c", "H": "\u030b", "c": "\u0327", "k": "\u0328", "r": "\u030a",
    "d": "\u0323", "b": "\u0331", "t": "\u0361",
}  # fmt: skip
_SYMBOLS = {
    "ss": "ß", "o": "ø", "O": "Ø", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å",
    "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ", "dh": "ð", "DH": "Ð", "th": "þ", "TH": "Þ", "dj": "đ",
    "DJ": "Đ", "ng": "ŋ", "NG": "Ŋ", "SS": "SS",
    "textendash": "–", "textemdash": "—", "ldots": "…", "dots": "…", "textellipsis": "…",
    "textquoteleft": "‘", "textquoteright": "’", "textquotedblleft": "“", "textquotedblright": "”",
    "textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^", "textbraceleft": "{",
    "textbraceright": "}", "textunderscore": "_", "textdollar": "$", "textless": "<", "textgreater": ">",
    "textbar": "|", "textregistered": "®", "texttrademark": "™", "copyright": "©", "textcopyright": "©",
    "textdegree": "°", "S": "§", "P": "¶", "textsection": "§", "textparagraph": "¶", "pounds": "£",
    "textsterling": "£", "euro": "€", "texteuro": "€", "guillemotleft": "«", "guillemotright": "»",
    "textexclamdown": "¡", "textquestiondown": "¿", "textperiodcentered": "·", "textbullet": "•",
    "textdagger": "†", "dag": "†", "slash": "/", "textslash": "/", "LaTeX": "LaTeX", "TeX": "TeX",
    "BibTeX": "BibTeX", "relax": "",
    # Old-style font switches ("{\\em text}") carry no text of their own.
    "em": "", "it": "", "bf": "", "sc": "", "rm": "", "sf": "", "tt": "", "sl": "", "itshape": "",
    "bfseries": "", "scshape": "", "upshape": "", "normalfont": "", "protect": "",
}  # fmt: skip
# Commands whose argument is simply the text (formatting, case protection, links).
_TEXT_COMMANDS = frozenset({
    "emph", "textit", "textbf", "textsc", "textrm", "textsf", "texttt", "textup", "textsl", "textmd",
    "textnormal", "mbox", "hbox", "text", "url", "nocase", "NoCaseChange", "mkbibemph", "mkbibitalic",
    "mkbibbold", "textsuperscript", "textsubscript",
})  # fmt: skip
_QUOTE_COMMANDS = frozenset({"enquote", "mkbibquote"})


def _skip_spaces(s: str, i: int) -> int:
    while i < len(s) and s[i] in " \t\r\n":
        i += 1
    return i


def _find_group_end(s: str, i: int) -> int | None:
    """Index just past the brace group opening at s[i]; None if it is never closed."""
    depth = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _group_end(s: str, i: int) -> int:
    """Index just past the brace group opening at s[i] (or len(s) if unbalanced)."""
    end = _find_group_end(s, i)
    return len(s) if end is None else end


def _argument(s: str, i: int) -> tuple[str, int]:
    """A command's argument: a brace group, a control sequence or one character."""
    i = _skip_spaces(s, i)
    if i >= len(s):
        return "", i
    if s[i] == "{":
        end = _group_end(s, i)
        return _decode(s[i + 1 : end - 1] if s[end - 1 : end] == "}" else s[i + 1 : end]), end
    if s[i] == "\\":
        end, text = _command(s, i)
        return text, end
    return s[i], i + 1


def _accent(mark: str, arg: str) -> str:
    if not arg:
        return ""
    base = {"ı": "i", "ȷ": "j"}.get(arg[0], arg[0])
    return unicodedata.normalize("NFC", base + mark) + arg[1:]


def _command(s: str, i: int) -> tuple[int, str]:
    """Decode the control sequence at s[i] == "\\"; return (end index, text)."""
    j = i + 1
    if j >= len(s):
        return j, ""
    c = s[j]
    if not c.isalpha():
        if c in _SYMBOL_ACCENTS:
            arg, end = _argument(s, j + 1)
            return end, _accent(_SYMBOL_ACCENTS[c], arg)
        if c in "&%$#_{}":
            return j + 1, c
        if c in " \t\r\n,;:!\\":
            return j + 1, " "  # control space, thin spaces, line break
        if c in "-/@":
            return j + 1, ""  # discretionary hyphen, italic correction, space factor
        return j + 1, c
    k = j
    while k < len(s) and s[k].isalpha():
        k += 1
    name = s[j:k]
    after = _skip_spaces(s, k)  # TeX swallows the spaces after a control word
    if name in _LETTER_ACCENTS:
        arg, end = _argument(s, after)
        return end, _accent(_LETTER_ACCENTS[name], arg)
    if name in _SYMBOLS:
        # As in TeX, "Stra\ss e" is "Straße"; "\ldots{} and" keeps its space through the "{}".
        return (after + 2 if s.startswith("{}", after) else after), _SYMBOLS[name]
    if name in _TEXT_COMMANDS or name in _QUOTE_COMMANDS:
        arg, end = _argument(s, after)
        return end, f"“{arg}”" if name in _QUOTE_COMMANDS else arg
    if name == "href":
        _, end = _argument(s, after)
        arg, end = _argument(s, end)
        return end, arg
    if after < len(s) and s[after] == "{":
        arg, end = _argument(s, after)
        return end, arg  # an unknown command: its argument is the best guess at the text
    return k, "\\" + name


def _decode(s: str) -> str:
    out: list[str] = []
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == "\\":
            i, text = _command(s, i)
            out.append(text)
        elif c in "{}":
            i += 1  # grouping and case protection carry no text
        elif c == "~":
            out.append(" ")
            i += 1
        elif s.startswith("---", i):
            out.append("—")
            i += 3
        elif s.startswith("--", i):
            out.append("–")
            i += 2
        elif s.startswith("``", i):
            out.append("“")
            i += 2
        elif s.startswith("''", i):
            out.append("”")
            i += 2
        elif c == "$":
            end = s.find("$", i + 1)
            while end > 0 and s[end - 1] == "\\":
                end = s.find("$", end + 1)
            end = n if end < 0 else end + 1
            out.append(s[i:end])  # mathematics has no plain-text form: keep it as written
            i = end
        else:
            out.append(c)
            i += 1
    return "".join(out)


def latex_to_unicode(text: str) -> str:
    """BibTeX field text to plain Unicode: accents, escapes, dashes, quotes; braces dropped."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", _decode(text))).strip()


# --------------------------------------------------------------------------- names


def _split_top(s: str, sep: re.Pattern[str]) -> list[str]:
    """Split on ``sep`` only outside braces."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth = max(depth - 1, 0)
        elif depth == 0:
            m = sep.match(s, i)
            if m and m.end() > i:
                parts.append(s[start:i])
                start = i = m.end()
                continue
        i += 1
    parts.append(s[start:])
    return parts


_AND = re.compile(r"\s+and\s+", re.I)
_COMMA = re.compile(r",")
_SPACE = re.compile(r"[\s~]+")


def _is_von(token: str) -> bool:
    """BibTeX's "von" test: the word starts with a lower-case letter ("{\\'e}" counts as é)."""
    if token.startswith("{") and not token.startswith("{\\"):
        return False  # a braced word is protected: never "von"
    first = next((c for c in latex_to_unicode(token) if c.isalpha()), "")
    return first.islower()


def _tokens(s: str) -> list[str]:
    return [t for t in _split_top(s.strip(), _SPACE) if t]




def _parse_name(raw: str) -> CslName | None:
    raw = raw.strip()
    if not raw or raw.lower() == "others":
        return None  # "and others" is BibTeX's et al.
    if raw.startswith("{") and _group_end(raw, 0) == len(raw):
        return CslName(literal=latex_to_unicode(raw[1:-1]))
    pieces = [p.strip() for p in _split_top(raw, _COMMA)]
    suffix = ""
    if len(pieces) == 1:
        tokens = _tokens(raw)
        if len(tokens) == 1:
            text = latex_to_unicode(tokens[0])
            return CslName(literal=text) if has_cjk(text) else CslName(family=text)
        lower = [i for i, t in enumerate(tokens[:-1]) if _is_von(t)]
        if lower:
            first, von, last = tokens[: lower[0]], tokens[lower[0] : lower[-1] + 1], tokens[lower[-1] + 1 :]
        else:
            first, von, last = tokens[:-1], [], tokens[-1:]
    else:
        head = _tokens(pieces[0])
        given_raw = pieces[-1] if len(pieces) == 2 else ",".join(pieces[2:])
        if len(pieces) >= 3:
            suffix = latex_to_unicode(pieces[1])
        lower = [i for i, t in enumerate(head[:-1]) if _is_von(t)]
        cut = lower[-1] + 1 if lower and lower[0] == 0 else 0
        von, last, first = head[:cut], head[cut:], _tokens(given_raw)
    data: dict[str, str] = {
        "family": latex_to_unicode(" ".join(last)),
        "given": latex_to_unicode(" ".join(first)),
    }
    if von:
        data["non-dropping-particle"] = latex_to_unicode(" ".join(von))
    if suffix:
        data["suffix"] = suffix
    return CslName.model_validate(data)


def parse_names(raw: str) -> list[CslName]:
    """A BibTeX name list ("Family, Given and {Literal Org} and Given von Family")."""
    return [n for n in (_parse_name(p) for p in _split_top(raw, _AND)) if n is not None]


# --------------------------------------------------------------------------- parser


class _BibError(Exception):
    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos
        self.message = message


_ENTRY_START = re.compile(r"^[ \t]*@[ \t]*[A-Za-z]+[ \t]*[{(]", re.M)
_TYPE = re.compile(r"[A-Za-z]+")
_IDENT = re.compile(r"[^\s\"#%'(),={}]+")  # BibTeX's field and macro names
_KEY = re.compile(r"[^,\s{}()=\"#%]+")


class _Entry:
    """One chunk of the file, from its "@type{" to the next entry start."""

    def __init__(self, text: str, macros: dict[str, str]) -> None:
        self.s = text
        self.i = 0
        self.macros = macros
        self.warnings: list[tuple[int, str]] = []
        self.last_field: tuple[str, int, str] = ("", 0, "")  # name, offset, raw value

    def _not_closed(self, key: str, closer: str) -> _BibError:
        name, pos, raw = self.last_field
        if re.search(r"\n\s*[A-Za-z][\w-]*\s*=", raw):
            # A field that swallowed the next "name = value" lines is where a brace is missing.
            return _BibError(
                pos, f"unbalanced braces in field '{name}': its value runs on to the end of entry '{key}'"
            )
        return _BibError(0, f"entry '{key}' is not closed (missing '{closer}')")

    def _ws(self) -> None:
        s = self.s
        while self.i < len(s):
            if s[self.i] in " \t\r\n":
                self.i += 1
            elif s[self.i] == "%":  # a comment line inside an entry (biber allows it)
                nl = s.find("\n", self.i)
                self.i = len(s) if nl < 0 else nl + 1
            else:
                return

    def _peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def _expect(self, chars: str, what: str) -> str:
        self._ws()
        c = self._peek()
        if not c or c not in chars:
            found = f"found {c!r}" if c else "found the end of the entry"
            raise _BibError(self.i, f"expected {what}, {found}")
        self.i += 1
        return c

    def parse(self) -> tuple[str, str, dict[str, str]]:
        self._expect("@", "'@'")
        self._ws()
        m = _TYPE.match(self.s, self.i)
        kind = m.group(0).lower() if m else ""
        self.i = m.end() if m else self.i
        opener = self._expect("{(", "'{' or '(' after @" + kind)
        closer = "}" if opener == "{" else ")"
        if kind in ("comment", "preamble"):
            return kind, "", {}
        if kind == "string":
            self._ws()
            m = _IDENT.match(self.s, self.i)
            if not m:
                raise _BibError(self.i, "expected a macro name in @string")
            self.i = m.end()
            self._expect("=", f"'=' after @string name '{m.group(0)}'")
            value = self._value(m.group(0))
            self._expect(closer, f"'{closer}' to close @string")
            return kind, "", {m.group(0).lower(): value}
        self._ws()
        km = _KEY.match(self.s, self.i)
        if km is None or self.s[km.end() :].lstrip().startswith("="):
            raise _BibError(self.i, f"@{kind} entry has no cite key")
        key = km.group(0)
        self.i = km.end()
        fields: dict[str, str] = {}
        self._ws()
        if self._peek() == closer:
            return kind, key, fields
        self._expect(",", f"',' after the cite key '{key}'")
        while True:
            self._ws()
            c = self._peek()
            if not c:
                raise self._not_closed(key, closer)
            if c == closer:
                self.i += 1
                return kind, key, fields
            m = _IDENT.match(self.s, self.i)
            if not m:
                raise _BibError(self.i, f"expected a field name in entry '{key}', found {c!r}")
            name = m.group(0).lower()
            self.i = m.end()
            self._expect("=", f"'=' after field '{name}' in entry '{key}'")
            value_start = self.i
            value = self._value(name)
            self.last_field = (name, _skip_spaces(self.s, value_start), value)
            fields.setdefault(name, value)
            value_end = self.i
            self._ws()
            c = self._peek()
            if c == ",":
                self.i += 1
            elif c != closer:
                if not c:
                    raise self._not_closed(key, closer)
                # Reported where the comma is missing, not at the next field.
                raise _BibError(value_end, f"missing ',' after field '{name}' in entry '{key}'")

    def _value(self, field: str) -> str:
        parts: list[str] = []
        while True:
            self._ws()
            c = self._peek()
            start = self.i
            if c == "{":
                end = self._braced_end(field)
                parts.append(self.s[start + 1 : end - 1])
                self.i = end
            elif c == '"':
                end = self._quoted_end(field)
                parts.append(self.s[start + 1 : end - 1])
                self.i = end
            elif c.isdigit():
                m = re.compile(r"\d+").match(self.s, self.i)
                assert m is not None
                parts.append(m.group(0))
                self.i = m.end()
            else:
                m = _IDENT.match(self.s, self.i)
                if not m:
                    found = f"{c!r}" if c else "the end of the entry"
                    raise _BibError(self.i, f"expected a value for field '{field}', found {found}")
                name = m.group(0)
                self.i = m.end()
                if name.lower() in self.macros:
                    parts.append(self.macros[name.lower()])
                else:
                    self.warnings.append(
                        (start, f"unknown @string macro '{name}' in field '{field}' (kept as text)")
                    )
                    parts.append(name)
            part_end = self.i
            self._ws()
            if self._peek() != "#":
                self.i = part_end  # so a missing comma is reported on the value's own line
                return "".join(parts)
            self.i += 1

    def _braced_end(self, field: str) -> int:
        end = _find_group_end(self.s, self.i)
        if end is not None:
            return end
        raise _BibError(self.i, f"unbalanced braces in field '{field}' (the '{{' here is never closed)")

    def _quoted_end(self, field: str) -> int:
        s, i, depth = self.s, self.i + 1, 0
        while i < len(s):
            c = s[i]
            if c == "\\":
                i += 2
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            elif c == '"' and depth <= 0:
                return i + 1
            i += 1
        raise _BibError(
            self.i, f"unterminated quoted value in field '{field}' (the '\"' here is never closed)"
        )


def _chunks(text: str) -> list[tuple[int, str]]:
    """(offset, text) of every entry; text before the first "@" is a comment."""
    starts = [m.start() for m in _ENTRY_START.finditer(text)]
    ends = [*starts[1:], len(text)] if starts else []
    return [(a, text[a:b]) for a, b in zip(starts, ends, strict=True)]


def _field(fields: dict[str, str], *names: str) -> str:
    for name in names:
        value = fields.get(name, "")
        if value.strip():
            return latex_to_unicode(value)
    return ""


def _verbatim(value: str) -> str:
    """url/doi/eprint: undo the escapes people put in them anyway, keep everything else."""
    v = re.sub(r"\\(?:url|href)\s*\{([^{}]*)\}(?:\{[^{}]*\})?", r"\1", value.strip())
    v = re.sub(r"\\(?:textasciitilde|textunderscore)\{\}", lambda m: "~" if "tilde" in m.group(0) else "_", v)
    v = re.sub(r"\\([&%$#_~])", r"\1", v)
    return v.strip().strip("{}").strip()


def _month(text: str) -> int | None:
    t = text.strip().lower().rstrip(".")
    if t.isdigit():
        n = int(t)
        return n if 1 <= n <= 12 else None
    for i, name in enumerate(_MONTH_NAMES):
        if len(t) >= 3 and name.startswith(t):
            return i + 1
    return None


def _parse_date(text: str) -> dict[str, Any] | None:
    text = text.strip()
    if not text:
        return None
    m = re.match(r"(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?", text)
    if not m:
        return {"literal": text}
    parts = [int(g) for g in m.groups() if g]
    return {"date-parts": [parts]}


def _issued(fields: dict[str, str]) -> dict[str, Any] | None:
    date = _field(fields, "date")
    if date:
        return _parse_date(date)
    year = _field(fields, "year")
    if not year:
        return None
    m = re.search(r"\d{4}", year)
    if not m:
        return {"literal": year}
    parts = [int(m.group(0))]
    month = _month(_field(fields, "month"))
    if month:
        parts.append(month)
        day = _field(fields, "day")
        if day.isdigit() and 1 <= int(day) <= 31:
            parts.append(int(day))
    return {"date-parts": [parts]}


_PREPRINT_JOURNAL = re.compile(r"\s*(arxiv|biorxiv|medrxiv|chemrxiv|ssrn|research square|preprints)\b", re.I)
_ARXIV_IN_TEXT = re.compile(rf"arxiv[\s:]*(?:preprint)?[\s:]*(?:arxiv)?[\s:]*({ARXIV_ID_PATTERN})", re.I)

_THESIS_KINDS = {"phdthesis": "PhD thesis", "mathesis": "Master's thesis", "mastersthesis": "Master's thesis"}


def _to_item(kind: str, key: str, fields: dict[str, str]) -> CslItem:
    archive = _field(fields, "archiveprefix", "eprinttype").lower()
    eprint = _verbatim(fields.get("eprint", ""))
    journal = _field(fields, "journaltitle", "journal")
    howpublished_raw = fields.get("howpublished", "")
    url = _verbatim(fields.get("url", "")) or (
        _verbatim(howpublished_raw) if re.search(r"\\url|https?://", howpublished_raw) else ""
    )
    howpublished = "" if re.search(r"\\url|https?://", howpublished_raw) else _field(fields, "howpublished")
    pubstate = _field(fields, "pubstate").lower()

    csl_type = _BIB_TO_CSL.get(kind, "")
    if kind == "misc" or not csl_type:
        if eprint or archive or pubstate in {"prepublished", "preprint", "submitted"}:
            csl_type = "article"
        elif url and not _field(fields, "publisher"):
            csl_type = "webpage"
        else:
            csl_type = "manuscript"
    subtype = _field(fields, "entrysubtype").lower()
    if csl_type == "article-journal" and subtype in {"magazine", "newspaper"}:
        csl_type = f"article-{subtype}"

    arxiv = ""
    if eprint and (archive == "arxiv" or (not archive and is_arxiv_id(eprint))):
        arxiv = eprint
    container = journal or _field(fields, "booktitle")
    publisher = _field(fields, "publisher", "school", "institution")
    if csl_type == "article-journal" and journal and _PREPRINT_JOURNAL.match(journal):
        # Google Scholar's "@article{… journal={arXiv preprint arXiv:1706.03762}}".
        csl_type = "article"
        m = _ARXIV_IN_TEXT.search(journal)
        if m:
            arxiv = arxiv or m.group(1)
            container = ""
            publisher = publisher or "arXiv"
    if not container and csl_type == "webpage":
        container = _field(fields, "organization") or howpublished
    elif not container and kind == "misc":
        container = howpublished
    if not publisher and csl_type != "webpage":
        publisher = _field(fields, "organization")

    genre = _field(fields, "type")
    if csl_type == "thesis":
        genre = _THESIS_KINDS.get(genre.lower(), genre) or _THESIS_KINDS.get(kind, "")

    title = _field(fields, "title")
    subtitle = _field(fields, "subtitle")
    if subtitle:
        title = f"{title}: {subtitle}" if title else subtitle

    periodical = csl_type in {"article-journal", "article-magazine", "article-newspaper"}
    data: dict[str, Any] = {
        "id": key,
        "type": csl_type,
        "title": title,
        "author": [n.model_dump(exclude_defaults=True) for n in parse_names(fields.get("author", ""))],
        "editor": [n.model_dump(exclude_defaults=True) for n in parse_names(fields.get("editor", ""))],
        "container-title": container,
        "collection-title": _field(fields, "series"),
        "volume": _field(fields, "volume"),
        "issue": _field(fields, "number") if periodical else _field(fields, "issue"),
        "number": _field(fields, "eid") if periodical else _field(fields, "number"),
        "page": re.sub(r"\s*(?:-{1,3}|–|—)\s*", "-", _verbatim_pages(fields.get("pages", ""))),
        "edition": _field(fields, "edition"),
        "publisher": publisher,
        "publisher-place": _field(fields, "address", "location"),
        "event-title": _field(fields, "eventtitle"),
        "genre": genre,
        "DOI": re.sub(
            r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", _verbatim(fields.get("doi", "")), flags=re.I
        ),
        "URL": url,
        "ISBN": _field(fields, "isbn"),
        "ISSN": _field(fields, "issn"),
        "arxiv": arxiv,
        "language": _field(fields, "language", "langid"),
        "issued": _issued(fields),
        "accessed": _parse_date(_field(fields, "urldate")),
        "abstract": _field(fields, "abstract"),
        "note": _field(fields, "note"),
        "keyword": _field(fields, "keywords", "keyword"),
    }
    primary = _field(fields, "primaryclass", "eprintclass")
    if arxiv and primary:
        data["primaryClass"] = primary
    return item_from_csl({k: v for k, v in data.items() if v not in ("", None, [])})


def _verbatim_pages(value: str) -> str:
    return re.sub(r"[{}]", "", value).strip()


def parse_bibtex(text: str) -> ParseResult:
    """Every well-formed entry as a CslItem; each malformed one as a line-numbered error."""
    result = ParseResult()
    macros = {m: _MONTH_NAMES[i].capitalize() for i, m in enumerate(_MONTH_MACROS)}

    def line_of(offset: int) -> int:
        return text.count("\n", 0, offset) + 1

    for offset, chunk in _chunks(text):
        entry = _Entry(chunk, macros)
        try:
            kind, key, fields = entry.parse()
        except _BibError as e:
            # "Not closed" is reported where the entry starts: that is where the user must look.
            result.errors.append(ParseError(line_of(offset + e.pos), e.message))
            continue
        finally:
            for pos, message in entry.warnings:
                result.errors.append(ParseError(line_of(offset + pos), message))
        if kind == "string":
            macros.update(fields)
        elif kind not in ("comment", "preamble"):
            result.items.append(_to_item(kind, key, fields))
    result.errors.sort(key=lambda e: e.line)
    return result
