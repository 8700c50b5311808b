"""What kind of text a passage or sentence is: prose, or the parts of a paper that never answer.

Reference lists, acknowledgements, author/affiliation blocks, code listings, figure residue
(axis labels and stray glyphs a PDF extractor leaves behind), table number soup and publisher
boilerplate stay searchable and readable, but an answer sentence must never come from them:
a bibliography entry mentions everything and says nothing. The classifier is Qt-free and
imports nothing from the agent, so the import pipeline can store a kind per chunk later.

The signals are densities, not single keywords, so one "et al." in a sentence of prose does
not turn it into a reference: a reference entry is mostly author initials, years, venues and
page ranges; code is mostly operators and keywords; a table is mostly numbers.

``Kind`` is also the vocabulary the importer stores per chunk (``chunks.kind``, the index's
``kind`` field, ``paperpilot search --kind``): its values are a contract other features rely
on, so they only ever gain members. The importer decides a chunk's kind from the paper's
structure (headings, layout, position; see ``extract.structure``) and falls back to the
classifier here; chunks stored before kinds existed are classified by it on migration.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from enum import StrEnum
from functools import cache
from itertools import chain, filterfalse, product, repeat

from .language import cjk_ratio, has_cjk, split_sentences
from .lazy import has_char_from, has_char_from_3000, lazy_pattern


class Kind(StrEnum):
    """What a passage is. The values are stored (chunks.kind) and typed by users (--kind)."""

    BODY = "body"  # running text of the paper; ``section_path`` says where
    CAPTION = "caption"  # "Table 1: …", "Figure 2. …": real text, but about something not shown
    REFERENCES = "references"
    ACKNOWLEDGEMENTS = "acknowledgements"
    TITLE = "title"  # the title/author block: title, author lists, affiliations, e-mail addresses
    CODE = "code"
    FIGURE = "figure"  # figure residue: fragments, axis labels, glyph soup
    TABLE = "table"  # a table's rows ("cell | cell", one row per line), or number soup from one
    BOILERPLATE = "boilerplate"  # front/back matter: licences, copyright, "Open Access", furniture
    ABSTRACT = "abstract"  # the abstract (and its keywords line)
    EQUATION = "equation"  # equation-heavy text: symbols and one-letter variables, few words
    FOOTNOTE = "footnote"  # small print at the foot of a page or column
    APPENDIX = "appendix"  # running text after the references, under "Appendix A …"
    # Names the classifier used before kinds were stored; the same members.
    PROSE = "body"
    AUTHORS = "title"


# Kinds that may supply an answer sentence. A caption may, but prose is preferred (see rank).
ANSWER_KINDS = frozenset({Kind.BODY, Kind.CAPTION, Kind.ABSTRACT, Kind.APPENDIX})
# What the agent searches unless an action asks for other kinds (references, for a question
# about what a paper cites).
SEARCH_KINDS = frozenset({Kind.BODY, Kind.ABSTRACT, Kind.CAPTION, Kind.APPENDIX})
# Every stored kind, in the order a listing shows them.
ALL_KINDS: tuple[Kind, ...] = tuple(Kind)


def answerable(kind: Kind) -> bool:
    return kind in ANSWER_KINDS


def parse_kinds(values: str | list[str] | tuple[str, ...]) -> list[Kind]:
    """Kinds from user text ("body,abstract" or a list); ValueError names the unknown one."""
    items = values.split(",") if isinstance(values, str) else [v for x in values for v in str(x).split(",")]
    out: list[Kind] = []
    for raw in items:
        name = raw.strip().lower()
        if not name:
            continue
        try:
            out.append(Kind(name))
        except ValueError:
            raise ValueError(
                f"unknown kind {raw.strip()!r}; kinds are: {', '.join(k.value for k in ALL_KINDS)}"
            ) from None
    return list(dict.fromkeys(out))


# --- section headings ---------------------------------------------------------------------------

# An optional number before the name: "7 References", "A. Appendix", "五、参考文献", "第6章 结论".
_NUM_FORMS = r"(?:\d{1,2}(?:\.\d{1,2})*|[A-Z]|[IVX]{1,5})\.?\s*|[一二三四五六七八九十]+[、.．]\s*"
_NUM = rf"^\s*(?:{_NUM_FORMS}|第[一二三四五六七八九十\d]+[章节]\s*)?"
# The reference list is never a numbered chapter of a Chinese thesis (第六章参考文献 is a
# chapter about references: the norms say so, and a template's own text says it again).
_NUM_NO_CHAPTER = rf"^\s*(?:{_NUM_FORMS})?"
# What each kind of section is called (in Latin script, in Chinese), what may follow the name,
# and whether a chapter number may come before it. Back matter is neither the paper's findings
# nor its references: declarations a journal requires, notes from the publisher, author lists
# with addresses.
_SECTION_NAMES: tuple[tuple[Kind, str, str, str, bool], ...] = (
    (Kind.REFERENCES, r"references|bibliography|works cited|literature cited|reference list", r"参考文献|引用文献",
     r"\b", False),
    (Kind.ACKNOWLEDGEMENTS, r"acknowledge?ments?", r"致\s*谢|鸣谢", "", True),
    (Kind.APPENDIX, r"appendix|appendices|supplementary (?:material|information|materials)|supplemental material",
     r"附\s*录", "", True),
    (Kind.ABSTRACT, r"abstract|keywords?|key\s+words|index terms", r"摘\s*要|关键词|关键字", r"\s*[:：]?\s*$", True),
    (Kind.BOILERPLATE,
     r"funding(?: information)?|author(?:s'|s’)? contributions?|contributions|competing interests?|"
     r"conflicts? of interests?|declaration of (?:competing )?interests?|declarations?|ethics (?:approval|statement|declarations?)"
     r"|consent for publication|(?:availability of data(?: and materials?)?|data (?:and code )?availability(?: statement)?)"
     r"|publisher[’']s note|author (?:details|information)|additional information|open access|rights and permissions"
     r"|reprints and permissions|about this article|cite this article",
     r"作者简介|基金项目", r"\b", True),
)  # fmt: skip
# Case-insensitive, [A-Z] and [IVX] also match four letters beyond ASCII ("İ", "ı", "ſ", the
# Kelvin sign), which makes each of them a class of all Unicode to compile, and the Chinese
# numbers and names are classes of Han characters: the full patterns cost 1–2 ms each. A heading
# without a Han character (every Chinese number and name starts with one) and without those
# four letters is tested with the Latin names and number forms alone, the letters spelled out
# case-sensitively; that matches what the full pattern matches, and the full ones are compiled
# for the first heading that needs them.
_ODD_LETTERS = "\u0130\u0131\u017f\u212a"
_NUM_LATIN = r"^\s*(?:(?:\d{1,2}(?:\.\d{1,2})*|(?-i:[A-Za-z])|(?-i:[IVXivx]){1,5})\.?\s*)?"
_SECTIONS_LATIN = tuple(
    (kind, re.compile(f"{_NUM_LATIN}({latin}){end}", re.IGNORECASE)) for kind, latin, _zh, end, _ in _SECTION_NAMES
)


@cache  # compiled for the first heading that needs them
def _sections_full() -> tuple[tuple[Kind, re.Pattern[str]], ...]:
    return tuple(
        (kind, re.compile(f"{_NUM if chapter else _NUM_NO_CHAPTER}({latin}|{zh}){end}", re.IGNORECASE))
        for kind, latin, zh, end, chapter in _SECTION_NAMES
    )


# "2.2 ", "3. ", "IV. ": a heading's number (a Roman one only with its dot: "Introduction" keeps its I).
_HEADING_NUMBER = lazy_pattern(r"^\s*(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s*")  # (not needed at import)


def heading_names(path: str) -> list[str]:
    """The headings of a section path, deepest first and without their numbers
    ("2. Methods > 2.2 Bird surveys" → ["Bird surveys", "Methods"])."""
    return [_HEADING_NUMBER().sub("", h).strip() for h in reversed(path.split(" > ")) if h.strip()]


def section_kind(section: str) -> Kind | None:
    """The kind a section heading implies ("References" → references, "附录" → appendix), or None
    for an ordinary section of the body."""
    full = has_char_from(section, "\u4e00") or (not section.isascii() and _holds_any(section, _ODD_LETTERS))
    for kind, rx in _sections_full() if full else _SECTIONS_LATIN:
        if rx.search(section):
            return kind
    return None


# --- sentence signals ---------------------------------------------------------------------------


def _starting_with(first: str, pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``pattern`` behind a look-ahead for the characters its matches can start with
    (``first``, a character class body). The matches are the same; the engine then tries the
    many alternatives only where one can begin, which makes these scans, run over every
    paragraph that is not plainly prose at import, two to three times faster."""
    return re.compile(f"(?=[{first}])(?:{pattern})", flags)


# Marks of a bibliography entry. Strong ones are rare in running prose; weak ones (a year in
# brackets, "Journal of") are common in encyclopaedic prose too, so they count half.
# The marks that start a word share one ``\b``, tested once: inside a word (where "a", "e",
# "p" … pass the look-ahead) the alternatives are not tried one by one. The bracketed ones
# start with a character no other alternative can, so their place in the order changes nothing.
_REF_STRONG = _starting_with(
    r"A-Z\[adpvhe12",
    r"\b(?:(?:In\s+)?Proc(?:eedings|\.)\s+of\b|arXiv(?::|\s+preprint)|doi(?::|\.org)|pp\.\s*\d|vol\.\s*\d"
    r"|et al\.,?\s*\(?(?:19|20)\d{2}|[A-Z]\.\s?(?:[A-Z]\.\s?)?[A-Z][a-z]+,\s|[A-Z][a-z]+,\s+[A-Z]\.(?:\s?[A-Z]\.)?(?:,|\s+and\b|\s+\()"
    r"|URL\s+https?://|https?://\S+|ISBN\b|In:\s|(?:19|20)\d{2}[a-z]?\.\s+[A-Z])|\[(?:J|C|M|D|EB/OL)\]",
)
_REF_WEAK = _starting_with(
    r"ACWJT(p\de",
    r"\b(?:(?:Association for Computational Linguistics|Conference on|Workshop on|Journal of|Transactions on)\b"
    r"|pages?\s+\d+\s*[–-]\s*\d+|\d{1,4}\s*[–-]\s*\d{1,4}\.(?:\s|$)|et al\.)|\(\s*(?:19|20)\d{2}[a-z]?\s*\)\.",
)
_ACK = re.compile(
    r"^\s*(?:we\s+(?:would\s+like\s+to\s+)?(?:thank|are\s+grateful|acknowledge|gratefully)|"
    r"(?:this|the)\s+(?:work|research|project|study)\s+(?:was|is|has been)\s+(?:partially\s+|partly\s+|in part\s+)?"
    r"(?:supported|funded|sponsored)|(?:our\s+)?(?:thanks|gratitude)\s+(?:go(?:es)?\s+)?to\s+(?:the\s+)?(?:anonymous\s+)?reviewers)"
    r"|感谢|致谢|(?:本|该)(?:研究|工作|项目)(?:得到|受到|由).{0,40}(?:资助|支持)",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+|\{[\w.,\s-]+\}@")
_AFFIL = _starting_with(
    "UIDLCSRA大学研实系",
    r"\b(?:University|Universit[éä]t|Institute|Department|Dept\.|Laboratory|Lab|College|School of|Inc\.|"
    r"Corporation|Research Center|Centre|Academy)\b|大学|学院|研究所|研究院|实验室|系\b",
)
# In the two below, the alternatives that start a word share one "\b" (see _REF_STRONG); the
# others start with a character none of those can, so their place in the order changes nothing.
_BOILER = _starting_with(
    "©alcp版未rdnpe以均纯",
    r"©|版权所有|未经许可|以\s*CC0\s*方式发布|均为虚构|纯属虚构"
    r"|\b(?:all rights reserved\b|licen[cs]ed under (?:a |the )?(?:creative commons|CC)\b|CC[- ]BY(?:[- ]\w\w)?\s+\d\.\d|"
    r"permission to make digital\b|proceedings of the\b.{0,80}\bpages\s+\d+|preprint\b.{0,40}\bunder review\b"
    # A sample or template document's disclaimer: the licence it is released under, and that
    # its people and data are invented ("… released under CC0. … all data in this paper are
    # fictional."); it says nothing about the study.
    r"|released (?:in)?to the public domain\b|(?:released|distributed|published|available) under (?:the |a )?(?:CC0|CC[- ]BY|creative commons)"
    r"|(?:data|names|people|persons|places|events|characters)\b[^.]{0,60}\b(?:are|is|were) (?:all )?(?:entirely |purely |wholly )?(?:fictional|fictitious)\b)",
    re.IGNORECASE,
)
# (Both forms are anchored at the start: ``match`` finds what ``search`` would, without trying
# every other position.)
_CAPTION = re.compile(r"^\s*(?:figure|fig\.|table|tab\.)\s*\d+[a-z]?\s*[:.|]|^\s*[图表]\s*\d+", re.IGNORECASE)
# Code keywords next to code syntax ("def f(", "import x", "return self.y"): a keyword alone is
# an English word ("class", "return", "import").
_CODE_KEYWORDS = _starting_with(
    r"dcleayfvsirpNTFn#`",
    r"\b(?:(?:def|class|lambda|elif|async|await|yield|function|var|let|const|void|fn|impl|struct)\s+\w+\s*[(:={<]"
    r"|(?:import|from)\s+[\w.]+(?:\s+import\b|\s*$|\s*;)|return\b[^.]*?[(\[{.=]|print\s*\(|self\.\w+"
    r"|(?:None|True|False|null|nullptr)\b|if\s+__name__)|#include|std::|`{3}",
)
# (A match never ends inside a word, so one that starts with a word starts with all of it: "\b"
# spares trying "\w+" again from each of a word's characters.)
_CODE_TOKENS = re.compile(r"[=!<>]=|->|=>|::|\+\+|&&|\|\||[{};]|\b\w+\([^()]*\)|\b\w+\.\w+\(|\s=\s")
# The characters of code syntax. They are ASCII, and an ASCII byte of UTF-8 is an ASCII character:
# deleting them from the encoded text counts them in C, where the class's findall builds a list.
_CODE_BYTES = b"{}()[];=<>_#`$|\\"
_DIGIT_BYTES = b"0123456789"


def _ascii_bytes_in(text: str, chars: bytes) -> int:
    """How many of ``text``'s characters are among the ASCII ``chars``: each is one byte of the
    UTF-8, and no other character's bytes are ASCII. One deletion in C, where a class's findall
    builds a list and ``str.count`` takes a pass per character."""
    encoded = text.encode("utf-8", "surrogatepass")
    return len(encoded) - len(encoded.translate(None, chars))
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+(?:[.,]\d+)*%?", re.UNICODE)
# A token of _WORD is a number (``\d+(?:[.,]\d+)*%?``, all of it) exactly when it starts with a
# digit, as a word token starts with a letter: its first character is what is tested.
_first = operator.itemgetter(0)
# Function words: prose has plenty, lists of names, numbers and code have few.
_FUNCTION = frozenset(
    [
        "the",
        "a",
        "an",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "that",
        "which",
        "who",
        "this",
        "these",
        "those",
        "it",
        "its",
        "as",
        "than",
        "then",
        "there",
        "their",
        "they",
        "we",
        "our",
        "he",
        "she",
        "his",
        "her",
        "not",
        "no",
        "can",
        "may",
        "will",
        "would",
        "should",
        "could",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "into",
        "over",
        "under",
        "between",
        "about",
        "after",
        "before",
        "while",
    ]
)
# Every spelling of the function words in upper and lower case: ``t in _FUNCTION_CASED`` is
# ``t.lower() in _FUNCTION`` for any str, without making a lowercased copy of every token. (The
# only character beyond ASCII that lowercases to an ASCII letter is the Kelvin sign, to "k",
# which no function word has; a test keeps it so.)
_FUNCTION_CASED = frozenset(
    chain.from_iterable(map("".join, product(*((c, c.upper()) for c in w))) for w in _FUNCTION)
)
# (Asked only of text with Han characters: compiled when first needed, see core.text.lazy.)
_ZH_FUNCTION = lazy_pattern(r"[的了是在和与及或就也都而被把对从向于将使让这那其该]")


# Never part of a token and never joining two (as "'", "’", "-" and a number's "." do between
# characters): stripped from a whitespace-separated word's ends before it is tokenised.
_EDGE_PUNCT = ".,;:()[]\"“”!?"
_ASCII_DIGITS = "0123456789"


def _holds_any(text: str, words: str | tuple[str, ...]) -> bool:
    """``any(map(text.__contains__, words))``: the loop's ``in`` spares a call of the method
    wrapper per word, a fifth of the cost of these scans over a paragraph."""
    for w in words:  # noqa: SIM110 (a generator costs what the wrapper does)
        if w in text:
            return True
    return False


def _tokens(text: str) -> list[str]:
    """The tokens of ``_WORD.findall(text)``, not in their order: what is asked of them (how
    many, how many are function words, numbers, short) does not depend on it.

    No token spans white space, and a word of letters only (most words, once a comma or a
    bracket is stripped) is one token as it is: those are sorted out in C, and the pattern
    runs once over the few other words."""
    words = text.split()
    out = list(filter(str.isalpha, words))  # every letter is in [^\W\d_]
    if len(out) < len(words):
        # A word of letters has no _EDGE_PUNCT to strip: only the others are stripped.
        cores = list(map(str.strip, filterfalse(str.isalpha, words), repeat(_EDGE_PUNCT)))
        letters = len(out)
        out += filter(str.isalpha, cores)
        if len(out) - letters < len(cores):
            out += _WORD.findall(" ".join(filterfalse(str.isalpha, cores)))
    return out


def _function_share(tokens: list[str]) -> float:
    if not tokens:
        return 0.0
    return sum(map(_FUNCTION_CASED.__contains__, tokens)) / len(tokens)


# In-text citations ("(Lo et al., 2020; Wang et al., 2020)", "Smith (2019)", "[12, 14]") are
# prose that cites, not a bibliography: they are removed before marks are counted.
_IN_TEXT = _starting_with(
    r"(\[A-Z",
    r"\((?:[^()]*?\bet al\.?[^()]*|(?:(?:see\s+|e\.g\.,?\s+)?[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+)?,?\s+"
    r"(?:19|20)\d{2}[a-z]?[;,]?\s*)+)\)|\b[A-Z][\w'’-]+\s+et al\.\s*\((?:19|20)\d{2}[a-z]?\)|\[\d+(?:\s*[,–-]\s*\d+)*\]"
)


def strip_in_text_citations(text: str) -> str:
    # Each form needs its brackets, and a bracketed name-and-year one its "et al" or a year's
    # "19" or "20": a few scans in C spare the pattern's slow scan of most text without one.
    if ("(" in text and ")" in text and ("et al" in text or "19" in text or "20" in text)) or (
        "[" in text and "]" in text
    ):
        return _IN_TEXT.sub(" ", text)
    return text


def reference_marks(text: str) -> float:
    """How many bibliography marks (venues, initials, years, page ranges, DOIs …) ``text`` holds,
    in-text citations aside; a weak mark counts half."""
    return _marks(strip_in_text_citations(text))


def _marks(stripped: str) -> float:
    strong = len(_REF_STRONG.findall(stripped)) if _strong_possible(stripped) else 0
    weak = len(_REF_WEAK.findall(stripped)) if _weak_possible(stripped) else 0
    return strong + 0.5 * weak


def _strong_possible(text: str) -> bool:
    """False when ``_REF_STRONG`` cannot match: an alternative needs one of these words, or a
    full stop with a comma (an initial by a name) or a year's "19" or "20" (a year ending a
    sentence, "et al. 2019"); short lines without them are spared the pattern."""
    return _holds_any(text, _STRONG_WORDS) or (
        "." in text and ("," in text or "19" in text or "20" in text)
    )


_STRONG_WORDS = ("Proc", "arXiv", "doi", "pp.", "vol.", "URL", "http", "ISBN", "In:", "[")


def _weak_possible(text: str) -> bool:
    """False when ``_REF_WEAK`` cannot match: each of its alternatives needs one of these words,
    or a dash after a digit (a page range); a few scans in C spare the pattern most short lines."""
    return (
        "et al." in text
        or ")." in text
        or _holds_any(text, _WEAK_WORDS)
        or (("-" in text or "–" in text) and (not text.isascii() or _holds_any(text, _ASCII_DIGITS)))
    )


# A word every other alternative of _REF_WEAK needs ("\d" is any digit, hence the non-ASCII case).
_WEAK_WORDS = ("Association for Computational Linguistics", "Conference on", "Workshop on", "Journal of",
               "Transactions on")  # fmt: skip


class _Signals:
    """The measures of one text that several tests ask for, each computed once.

    The importer asks ``paragraph_kind`` about every paragraph; one that is not plainly prose
    goes on to the passage test and then, sentence by sentence, to the sentence test, which
    tokenise the same text and count the same marks again (most such paragraphs are one short
    line: a table row, an axis label). The results are those of computing each one afresh.
    """

    __slots__ = ("_code", "_fshare", "_marks", "_shares", "_table", "_tokens", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._tokens: list[str] | None = None
        self._shares: float | None = None
        self._code: bool | None = None
        self._table: bool | None = None
        self._marks: float = 0.0
        self._fshare: float | None = None

    @property
    def tokens(self) -> list[str]:
        if self._tokens is None:
            self._tokens = _tokens(self.text)
        return self._tokens

    def share(self) -> float:
        """The function-word share of the tokens."""
        if self._shares is None:
            self._shares = _function_share(self.tokens)
        return self._shares

    def code(self) -> bool:
        if self._code is None:
            self._code = _is_code(self.text, self.tokens)
        return self._code

    def table(self) -> bool:
        if self._table is None:
            self._table = _is_table(self.tokens, self.share)
        return self._table

    def references(self) -> tuple[float, float]:
        """Bibliography marks and the function-word share, in-text citations removed."""
        if self._fshare is None:
            text = self.text
            # Every in-text citation is bracketed: without a bracket nothing is removed, and
            # when nothing was removed (a table's "(35.6%)") the tokens and their share are the
            # ones already counted for the text itself.
            stripped = strip_in_text_citations(text) if "(" in text or "[" in text else text
            self._marks = _marks(stripped)
            self._fshare = self.share() if stripped == text else _function_share(_tokens(stripped))
        return self._marks, self._fshare


def _is_code(text: str, tokens: list[str]) -> bool:
    if not text.strip():
        return False
    symbol_share = _ascii_bytes_in(text, _CODE_BYTES) / max(1, len(text))
    if symbol_share < 0.03:
        return False  # both tests below need this much syntax; the keyword scan is the slow part
    keywords = len(_CODE_KEYWORDS.findall(text))
    if not keywords:
        return False  # both tests below need a keyword
    syntax = len(_CODE_TOKENS.findall(text))
    words = max(1, len(tokens))
    if keywords + syntax >= 3 and symbol_share >= 0.04 and (keywords + syntax) / words >= 0.1:
        return True
    return keywords >= 2  # (symbol_share >= 0.03 holds here)


def _is_table(tokens: list[str], share: Callable[[], float] | None = None) -> bool:
    if len(tokens) < 6:
        return False
    numbers = sum(map(str.isdecimal, map(_first, tokens)))  # the numbers
    return numbers / len(tokens) >= 0.4 and (share() if share is not None else _function_share(tokens)) < 0.12


def _is_figure_residue(text: str, tokens: list[str], share: Callable[[], float] | None = None) -> bool:
    """Fragments of a figure: mostly one- or two-letter tokens and no sentence structure."""
    if has_cjk(text):
        return False
    if len(tokens) < 4:
        return len(text.strip()) < 25 and not text.strip().endswith((".", "?", "!"))
    short = sum(1 for t in tokens if len(t) <= 2 and not t[0].isdecimal()) / len(tokens)  # not a number
    return short >= 0.45 and (share() if share is not None else _function_share(tokens)) < 0.1


def classify_sentence(sentence: str) -> Kind:
    """The kind of one sentence (or line) of text."""
    return _sentence_kind(_Signals(sentence.strip()))


def _sentence_kind(sig: _Signals, unmarked: bool = False) -> Kind:
    """``unmarked``: the text is known to hold none of ``_OTHER_KIND_WORDS`` (and is ASCII or
    without ``_ODD_LETTERS``, where lowercasing and the patterns' case-insensitive matching
    agree: those four are the only characters beyond ASCII that match an ASCII letter), so that the
    acknowledgement, boilerplate and e-mail patterns cannot match and are not tried. A text
    not known to be is tested for those words here, which is cheaper than the patterns."""
    s = sig.text
    if not s:
        return Kind.FIGURE
    if not unmarked and s.isascii() and not _holds_any(s.lower(), _OTHER_LATIN):
        unmarked = True  # a few substring tests in C, where the three patterns scan the text
    if not unmarked:
        if _ACK.search(s):
            return Kind.ACKNOWLEDGEMENTS
        if _BOILER.search(s):
            return Kind.BOILERPLATE
    if sig.code():
        return Kind.CODE
    if not unmarked and "@" in s and _EMAIL.search(s):  # both of its forms need the "@"
        return Kind.AUTHORS
    marks, fshare = sig.references()
    # A bibliography entry: several marks, dense for its length, few function words.
    if (marks >= 3 and fshare < 0.15) or (marks >= 2 and fshare < 0.1):
        return Kind.REFERENCES
    if _CAPTION.match(s):
        return Kind.CAPTION
    # "Kyle Lo, Lucy Lu Wang, Mark Neumann, and Daniel S. Weld.": a list of names and nothing else.
    tokens = sig.tokens
    if s.count(",") >= 2:
        words = [t for t in tokens if t.lower() not in ("and", "&")]
        if len(words) >= 6 and not any(not t[:1].isupper() for t in words):
            return Kind.AUTHORS
    if sig.table():
        return Kind.TABLE
    cjk = cjk_ratio(s) > 0.3
    if not cjk and sig.share() < 0.12 and len(_AFFIL.findall(s)) >= 2:  # the share is known already, mostly
        return Kind.AUTHORS
    if cjk:
        if len(_AFFIL.findall(s)) >= 2 and not _ZH_FUNCTION().search(s):
            return Kind.AUTHORS
        return Kind.PROSE
    if _is_figure_residue(s, tokens, sig.share):
        return Kind.FIGURE
    return Kind.PROSE


# Anything that might make a passage other than prose: a passage with none of these and with
# the function words of running text is prose, decided without the sentence-level tests (the
# importer classifies every paragraph, and most paragraphs are plain prose).
_SUSPECT_WORDS = (
    "©", "@", "et al", "doi", "http", "www.", "in:", "pp.", "vol.", "proc", "arxiv", "isbn", "[j]", "[c]", "[m]",
    "licen", "rights reserved", "permission", "copyright", "open access", "preprint", "thank", "grateful",
    "acknowledg", "supported", "funded", "sponsor", "{", "}", ";", "`", "#", "$", "\\", "::", "=", "->",
    "self.", "def ", "import ", "print(", "感谢", "致谢", "资助", "版权", "基金", "cc0", "fictional", "fictitious",
    "虚构",
)  # fmt: skip
# The same words in groups, each tested only when the text holds the group's character (one
# character is found by memchr, where each word costs a pass of its own over the paragraph): the
# Han words only in text with CJK, those with a rare character only in text with that character.
# A word of these lists is Chinese when it has a character from U+3000 up (they have no other
# such word; a test keeps it so): has_cjk would compile the CJK class at import in every worker.
_chinese = has_char_from_3000
_SUSPECT_HAN = tuple(w for w in _SUSPECT_WORDS if _chinese(w))
_SUSPECT_GATED = tuple(
    (c, tuple(w for w in _SUSPECT_WORDS if c in w and len(w) > 1 and not _chinese(w))) for c in "[:>("
)
_SUSPECT_OTHERS = tuple(
    w for w in _SUSPECT_WORDS if not _chinese(w) and (len(w) == 1 or not any(c in w for c, _ in _SUSPECT_GATED))
)


def _has_suspect_word(low: str, cjk: bool) -> bool:
    """``any(map(low.__contains__, _SUSPECT_WORDS))``; ``cjk``: ``has_cjk(low)``."""
    if _holds_any(low, _SUSPECT_OTHERS):
        return True
    for c, words in _SUSPECT_GATED:
        if c in low and _holds_any(low, words):
            return True
    return cjk and _holds_any(low, _SUSPECT_HAN)


_SUSPECT_INITIAL = re.compile(r", [A-Z]\.")
_SUSPECT_YEAR = re.compile(r"[12][09]\d\d[a-z]?\. [A-Z]")


def plainly_prose(text: str) -> bool:
    """Whether ``text`` is surely running prose: function words as prose has them, nothing that
    any other kind needs. False means "classify it properly", not "not prose"."""
    low = text.lower()
    cjk = has_cjk(text)
    return not _has_suspect_word(low, cjk) and _plainly_prose(text, low, cjk)


def _plainly_prose(text: str, low: str, cjk: bool) -> bool:
    """``plainly_prose`` once the lowercased ``low`` is known to hold none of the suspect words;
    ``cjk``: ``has_cjk(text)``."""
    # An ASCII digit, found by memchr: what it gates below needs one ("[12]" and the digits
    # counted are ASCII), and a text with only other digits takes the same path as one without.
    digit = _holds_any(text, _ASCII_DIGITS)
    if cjk:
        if _SUSPECT_INITIAL.search(text) or (digit and _SUSPECT_YEAR.search(text)):
            return False
        return cjk_ratio(text) > 0.5 and len(_ZH_FUNCTION().findall(text)) * 25 >= len(text)
    # The first 60 words (and the rest in one piece, which only counts towards "at least 8").
    # The tests are all required: the cheap ones come first, the patterns last.
    words = low.split(maxsplit=60)
    if len(words) < 8:
        return False
    head = words[:60]
    return (
        sum(map(_FUNCTION.__contains__, head)) >= 0.15 * len(head)
        and (not digit or _ascii_bytes_in(low, _DIGIT_BYTES) < 0.1 * len(low))
        and not _SUSPECT_INITIAL.search(text)
        and not (digit and _SUSPECT_YEAR.search(text))
    )


# Words without which neither _ACK, _BOILER nor _EMAIL can match.
_OTHER_KIND_WORDS = (
    "@", "©", "thank", "grateful", "acknowledg", "supported", "funded", "sponsored", "gratitude", "reserved",
    "licen", "cc by", "cc-by", "permission to", "proceedings of the", "under review", "感谢", "致谢", "资助",
    "支持", "版权", "未经", "cc0", "creative commons", "public domain", "fictional", "fictitious", "虚构",
)  # fmt: skip
# Those of them that hold none of the suspect words: a text without any suspect word can only
# have these (a text without "thank" has no "thank" either).
_OTHER_UNSUSPECTED = tuple(w for w in _OTHER_KIND_WORDS if not any(s in w for s in _SUSPECT_WORDS))
# Those without Han characters, for text without CJK.
_OTHER_LATIN = tuple(w for w in _OTHER_KIND_WORDS if not _chinese(w))
_OTHER_LATIN_UNSUSPECTED = tuple(w for w in _OTHER_UNSUSPECTED if not _chinese(w))


def paragraph_kind(text: str) -> Kind:
    """``classify_passage`` for one paragraph at import, with the sentence-by-sentence test
    kept for the paragraphs that need it: prose that cites ("(Lo et al., 2020)", "[12]") and
    quotes numbers is decided from the whole paragraph's signals, which is most of a paper."""
    low = text.lower()
    cjk = has_cjk(text)
    suspect = _has_suspect_word(low, cjk)
    if not suspect and _plainly_prose(text, low, cjk):
        return Kind.BODY
    if cjk:
        return classify_passage(text)
    others = _OTHER_LATIN if suspect else _OTHER_LATIN_UNSUSPECTED
    if _holds_any(low, others) or _CAPTION.match(text[:12]):
        return classify_passage(text)
    code_like = "def " in text or "import " in text or "#include" in text or (
        "(" in text and ("=" in text or "{" in text or ";" in text)
    )
    words = low.split()
    if not code_like and words and sum(map(_FUNCTION.__contains__, words)) >= 0.25 * len(words):
        return Kind.BODY  # counted on whitespace words, in C: most prose that cites ends here
    sig = _Signals(text)
    if code_like and sig.code():
        return Kind.CODE
    # Citations and names only lower the share of function words: prose that has enough of
    # them with its citations in is prose without them too.
    if sig.share() >= 0.25:
        return Kind.BODY
    marks, fshare = sig.references()
    if marks >= 4 and marks * 80 >= len(text) and fshare < 0.25:
        return Kind.REFERENCES
    if fshare >= 0.2 and marks * 120 < len(text) and not sig.table():
        return Kind.BODY
    # classify_passage without a section heading: the content decides. None of the words the
    # acknowledgement, boilerplate and e-mail patterns need is in the text (tested above), and
    # no Han character of theirs (it has no CJK).
    unmarked = text.isascii() or not _holds_any(text, _ODD_LETTERS)
    return _content_kind(text, sig, unmarked=unmarked)


def classify_passage(text: str, section: str = "") -> Kind:
    """The kind of a whole passage: its section heading if that decides, else what most of it is.

    A passage is prose when at least half of its characters are in prose (or caption)
    sentences; otherwise it takes the kind that covers most of it.
    """
    by_section = section_kind(section)
    if by_section is not None and not answerable(by_section):
        return by_section
    content = _content_kind(text)
    # An abstract or an appendix is what its heading says, unless its text is something else.
    return by_section if by_section is not None and content == Kind.BODY else content


def _content_kind(text: str, sig: _Signals | None = None, unmarked: bool = False) -> Kind:
    text = text.strip()
    if not text:
        return Kind.FIGURE
    if sig is None or sig.text != text:
        sig = _Signals(text)
    if sig.code():
        return Kind.CODE
    # A reference list chunk: marks everywhere, whatever the sentence splitter makes of it.
    # Paper titles inside entries bring function words; dense marks decide.
    marks, fshare = sig.references()
    if marks >= 4 and marks * 80 >= len(text) and fshare < 0.25:
        return Kind.REFERENCES
    weight: dict[Kind, int] = {}
    sentences = split_sentences(text) or [text]
    total = sum(map(len, sentences))
    prose = 0
    for sent in sentences:
        # A one-sentence passage (most that get here) is measured once, not twice.
        k = _sentence_kind(sig if sent == text else _Signals(sent), unmarked)
        weight[k] = weight.get(k, 0) + len(sent)
        if k == Kind.PROSE or k == Kind.CAPTION:
            prose += len(sent)
            if prose * 2 >= total:
                return Kind.PROSE  # half of it is prose already: the rest cannot change that
    return max(weight, key=weight.__getitem__)


def stored_kind(kind: str) -> Kind | None:
    """The Kind a stored value names; None for an empty or unknown value (an old chunk)."""
    try:
        return Kind(kind) if kind else None
    except ValueError:
        return None


def answer_sentences(text: str, section: str = "", kind: str = "") -> list[tuple[str, Kind]]:
    """The sentences of a passage with their kinds; every sentence is a non-answer kind when
    the passage as a whole is one (a reference list's lone prose-looking line stays a reference).

    ``kind``: the kind stored at import, which knows the paper's structure (a reference list
    without a heading, a table's rows); without one the passage is classified here."""
    passage = stored_kind(kind) or classify_passage(text, section)
    sents = split_sentences(text)
    if not answerable(passage):
        return [(s, passage) for s in sents]
    return [(s, classify_sentence(s)) for s in sents]


# --- equations ----------------------------------------------------------------------------------

_MATH = re.compile(r"[=+−×÷∑∏∫∂√≤≥≈≠∈∉∀∃∝∞∇⊂⊆∪∩→←↦·∗⋅^_|αβγδεζηθικλμνξπρστυφχψωΓΔΘΛΞΠΣΦΨΩ]")


def is_equation(text: str) -> bool:
    """Equation-heavy text: maths symbols and one-letter variables, few words of prose."""
    s = text.strip()
    if not s or len(s) > 600 or has_cjk(s):
        return False
    symbols = len(_MATH.findall(s))
    if symbols < 2:
        return False
    tokens = _tokens(s)
    if not tokens:
        return True
    letters = [t for t in tokens if not t[0].isdecimal()]  # not a number (see _first)
    short = sum(len(t) <= 2 for t in letters)
    long_words = sum(len(t) >= 4 and t not in _FUNCTION_CASED for t in letters)
    return (
        _function_share(tokens) < 0.15
        and short >= max(2, 0.4 * len(letters))
        and long_words <= 4
        and symbols / max(1, len(tokens)) >= 0.2
    )


__all__ = [
    "ALL_KINDS",
    "ANSWER_KINDS",
    "SEARCH_KINDS",
    "Kind",
    "answer_sentences",
    "answerable",
    "classify_passage",
    "classify_sentence",
    "is_equation",
    "paragraph_kind",
    "parse_kinds",
    "plainly_prose",
    "reference_marks",
    "section_kind",
    "stored_kind",
]
