"""What kind of text a passage or sentence is: prose, or the parts of a paper that never answer.

Reference lists, acknowledgements, author/affiliation blocks, code listings, figure residue
(axis labels and stray glyphs a PDF extractor leaves behind), table number soup and publisher
boilerplate stay searchable and readable, but an answer sentence must never come from them:
a bibliography entry mentions everything and says nothing. The classifier is Qt-free and
imports nothing from the agent, so the import pipeline can store a kind per chunk later.

The signals are densities, not single keywords, so one "et al." in a sentence of prose does
not turn it into a reference: a reference entry is mostly author initials, years, venues and
page ranges; code is mostly operators and keywords; a table is mostly numbers.
"""

from __future__ import annotations

import re
from enum import StrEnum

from .language import cjk_ratio, has_cjk, split_sentences


class Kind(StrEnum):
    PROSE = "prose"
    CAPTION = "caption"  # "Table 1: …", "Figure 2. …": real text, but about something not shown
    REFERENCES = "references"
    ACKNOWLEDGEMENTS = "acknowledgements"
    AUTHORS = "authors"  # author lists, affiliations, e-mail addresses
    CODE = "code"
    FIGURE = "figure"  # figure residue: fragments, axis labels, glyph soup
    TABLE = "table"  # number soup from a table
    BOILERPLATE = "boilerplate"  # licences, copyright lines, running headers


# Kinds that may supply an answer sentence. A caption may, but prose is preferred (see rank).
ANSWER_KINDS = frozenset({Kind.PROSE, Kind.CAPTION})


def answerable(kind: Kind) -> bool:
    return kind in ANSWER_KINDS


# --- section headings ---------------------------------------------------------------------------

_SECTION_REFS = re.compile(r"^\s*(?:\d+\.?\s*)?(references|bibliography|works cited|literature cited|参考文献|引用文献)\b",
                           re.IGNORECASE)  # fmt: skip
_SECTION_ACK = re.compile(r"^\s*(?:\d+\.?\s*)?(acknowledge?ments?|致谢|鸣谢)", re.IGNORECASE)


def section_kind(section: str) -> Kind | None:
    """The kind a section heading implies ("References" → references), or None."""
    if _SECTION_REFS.search(section):
        return Kind.REFERENCES
    if _SECTION_ACK.search(section):
        return Kind.ACKNOWLEDGEMENTS
    return None


# --- sentence signals ---------------------------------------------------------------------------

# Marks of a bibliography entry. Strong ones are rare in running prose; weak ones (a year in
# brackets, "Journal of") are common in encyclopaedic prose too, so they count half.
_REF_STRONG = re.compile(
    r"\b(?:In\s+)?Proc(?:eedings|\.)\s+of\b|\barXiv(?::|\s+preprint)|\bdoi(?::|\.org)|\bpp\.\s*\d|\bvol\.\s*\d"
    r"|\bet al\.,?\s*\(?(?:19|20)\d{2}|\b[A-Z]\.\s?(?:[A-Z]\.\s?)?[A-Z][a-z]+,\s|\b[A-Z][a-z]+,\s+[A-Z]\.(?:\s?[A-Z]\.)?(?:,|\s+and\b|\s+\()"
    r"|\[(?:J|C|M|D|EB/OL)\]|\bURL\s+https?://|\bhttps?://\S+|\bISBN\b|\bIn:\s|\b(?:19|20)\d{2}[a-z]?\.\s+[A-Z]",
)
_REF_WEAK = re.compile(
    r"\b(?:Association for Computational Linguistics|Conference on|Workshop on|Journal of|Transactions on)\b"
    r"|\(\s*(?:19|20)\d{2}[a-z]?\s*\)\.|\bpages?\s+\d+\s*[–-]\s*\d+|\b\d{1,4}\s*[–-]\s*\d{1,4}\.(?:\s|$)|\bet al\.",
)
_ACK = re.compile(
    r"^\s*(?:we\s+(?:would\s+like\s+to\s+)?(?:thank|are\s+grateful|acknowledge|gratefully)|"
    r"(?:this|the)\s+(?:work|research|project|study)\s+(?:was|is|has been)\s+(?:partially\s+|partly\s+|in part\s+)?"
    r"(?:supported|funded|sponsored)|(?:our\s+)?(?:thanks|gratitude)\s+(?:go(?:es)?\s+)?to\s+(?:the\s+)?(?:anonymous\s+)?reviewers)"
    r"|感谢|致谢|(?:本|该)(?:研究|工作|项目)(?:得到|受到|由).{0,40}(?:资助|支持)",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+|\{[\w.,\s-]+\}@")
_AFFIL = re.compile(
    r"\b(?:University|Universit[éä]t|Institute|Department|Dept\.|Laboratory|Lab|College|School of|Inc\.|"
    r"Corporation|Research Center|Centre|Academy)\b|大学|学院|研究所|研究院|实验室|系\b",
)
_BOILER = re.compile(
    r"©|\ball rights reserved\b|\blicen[cs]ed under (?:a |the )?(?:creative commons|CC)\b|\bCC[- ]BY(?:[- ]\w\w)?\s+\d\.\d|"
    r"\bpermission to make digital\b|\bproceedings of the\b.{0,80}\bpages\s+\d+|\bpreprint\b.{0,40}\bunder review\b"
    r"|版权所有|未经许可",
    re.IGNORECASE,
)
_CAPTION = re.compile(r"^\s*(?:figure|fig\.|table|tab\.)\s*\d+[a-z]?\s*[:.|]|^\s*[图表]\s*\d+", re.IGNORECASE)
# Code keywords next to code syntax ("def f(", "import x", "return self.y"): a keyword alone is
# an English word ("class", "return", "import").
_CODE_KEYWORDS = re.compile(
    r"\b(?:def|class|lambda|elif|async|await|yield|function|var|let|const|void|fn|impl|struct)\s+\w+\s*[(:={<]"
    r"|\b(?:import|from)\s+[\w.]+(?:\s+import\b|\s*$|\s*;)|\breturn\b[^.]*?[(\[{.=]|\bprint\s*\(|\bself\.\w+"
    r"|\b(?:None|True|False|null|nullptr)\b|#include|std::|\bif\s+__name__|`{3}",
)
_CODE_TOKENS = re.compile(r"[=!<>]=|->|=>|::|\+\+|&&|\|\||[{};]|\w+\([^()]*\)|\w+\.\w+\(|\s=\s")
_CODE_CHARS = re.compile(r"[{}()\[\];=<>_#`$|\\]")
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+(?:[.,]\d+)*%?", re.UNICODE)
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*%?$")
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
_ZH_FUNCTION = re.compile(r"[的了是在和与及或就也都而被把对从向于将使让这那其该]")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text)


def _function_share(tokens: list[str]) -> float:
    if not tokens:
        return 0.0
    return sum(t.lower() in _FUNCTION for t in tokens) / len(tokens)


# In-text citations ("(Lo et al., 2020; Wang et al., 2020)", "Smith (2019)", "[12, 14]") are
# prose that cites, not a bibliography: they are removed before marks are counted.
_IN_TEXT = re.compile(
    r"\((?:[^()]*?\bet al\.?[^()]*|(?:(?:see\s+|e\.g\.,?\s+)?[A-Z][\w'’-]+(?:\s+(?:and|&)\s+[A-Z][\w'’-]+)?,?\s+"
    r"(?:19|20)\d{2}[a-z]?[;,]?\s*)+)\)|\b[A-Z][\w'’-]+\s+et al\.\s*\((?:19|20)\d{2}[a-z]?\)|\[\d+(?:\s*[,–-]\s*\d+)*\]"
)


def strip_in_text_citations(text: str) -> str:
    return _IN_TEXT.sub(" ", text)


def reference_marks(text: str) -> float:
    """How many bibliography marks (venues, initials, years, page ranges, DOIs …) ``text`` holds,
    in-text citations aside; a weak mark counts half."""
    text = strip_in_text_citations(text)
    return len(_REF_STRONG.findall(text)) + 0.5 * len(_REF_WEAK.findall(text))


def _is_code(text: str, tokens: list[str]) -> bool:
    if not text.strip():
        return False
    keywords = len(_CODE_KEYWORDS.findall(text))
    syntax = len(_CODE_TOKENS.findall(text))
    symbol_share = len(_CODE_CHARS.findall(text)) / max(1, len(text))
    words = max(1, len(tokens))
    if (
        keywords >= 1
        and keywords + syntax >= 3
        and symbol_share >= 0.04
        and (keywords + syntax) / words >= 0.1
    ):
        return True
    return keywords >= 2 and symbol_share >= 0.03


def _is_table(tokens: list[str]) -> bool:
    if len(tokens) < 6:
        return False
    numbers = sum(bool(_NUMBER.match(t)) for t in tokens)
    return numbers / len(tokens) >= 0.4 and _function_share(tokens) < 0.12


def _is_figure_residue(text: str, tokens: list[str]) -> bool:
    """Fragments of a figure: mostly one- or two-letter tokens and no sentence structure."""
    if has_cjk(text):
        return False
    if len(tokens) < 4:
        return len(text.strip()) < 25 and not text.strip().endswith((".", "?", "!"))
    short = sum(len(t) <= 2 and not _NUMBER.match(t) for t in tokens) / len(tokens)
    return short >= 0.45 and _function_share(tokens) < 0.1


def classify_sentence(sentence: str) -> Kind:
    """The kind of one sentence (or line) of text."""
    s = sentence.strip()
    if not s:
        return Kind.FIGURE
    tokens = _tokens(s)
    cjk = cjk_ratio(s) > 0.3
    if _ACK.search(s):
        return Kind.ACKNOWLEDGEMENTS
    if _BOILER.search(s):
        return Kind.BOILERPLATE
    if _is_code(s, tokens):
        return Kind.CODE
    if _EMAIL.search(s):
        return Kind.AUTHORS
    marks = reference_marks(s)
    fshare = _function_share(_tokens(strip_in_text_citations(s)))
    # A bibliography entry: several marks, dense for its length, few function words.
    if (marks >= 3 and fshare < 0.15) or (marks >= 2 and fshare < 0.1):
        return Kind.REFERENCES
    if _CAPTION.search(s):
        return Kind.CAPTION
    # "Kyle Lo, Lucy Lu Wang, Mark Neumann, and Daniel S. Weld.": a list of names and nothing else.
    words = [t for t in tokens if t.lower() not in ("and", "&")]
    lower = [t for t in words if not t[:1].isupper()]
    if len(words) >= 6 and s.count(",") >= 2 and not lower:
        return Kind.AUTHORS
    if _is_table(tokens):
        return Kind.TABLE
    if not cjk and len(_AFFIL.findall(s)) >= 2 and _function_share(tokens) < 0.12:
        return Kind.AUTHORS
    if cjk:
        if len(_AFFIL.findall(s)) >= 2 and not _ZH_FUNCTION.search(s):
            return Kind.AUTHORS
        return Kind.PROSE
    if _is_figure_residue(s, tokens):
        return Kind.FIGURE
    return Kind.PROSE


def classify_passage(text: str, section: str = "") -> Kind:
    """The kind of a whole passage: its section heading if that decides, else what most of it is.

    A passage is prose when at least half of its characters are in prose (or caption)
    sentences; otherwise it takes the kind that covers most of it.
    """
    by_section = section_kind(section)
    if by_section is not None:
        return by_section
    text = text.strip()
    if not text:
        return Kind.FIGURE
    tokens = _tokens(text)
    if _is_code(text, tokens):
        return Kind.CODE
    # A reference list chunk: marks everywhere, whatever the sentence splitter makes of it.
    marks = reference_marks(text)
    # Paper titles inside entries bring function words; dense marks decide.
    fshare = _function_share(_tokens(strip_in_text_citations(text)))
    if marks >= 4 and marks * 80 >= len(text) and fshare < 0.25:
        return Kind.REFERENCES
    weight: dict[Kind, int] = {}
    for sent in split_sentences(text) or [text]:
        k = classify_sentence(sent)
        weight[k] = weight.get(k, 0) + len(sent)
    prose = weight.get(Kind.PROSE, 0) + weight.get(Kind.CAPTION, 0)
    if prose * 2 >= sum(weight.values()):
        return Kind.PROSE
    return max(weight, key=lambda k: weight[k])


def answer_sentences(text: str, section: str = "") -> list[tuple[str, Kind]]:
    """The sentences of a passage with their kinds; every sentence is a non-answer kind when
    the passage as a whole is one (a reference list's lone prose-looking line stays a reference)."""
    passage = classify_passage(text, section)
    sents = split_sentences(text)
    if not answerable(passage):
        return [(s, passage) for s in sents]
    return [(s, classify_sentence(s)) for s in sents]


__all__ = [
    "ANSWER_KINDS",
    "Kind",
    "answer_sentences",
    "answerable",
    "classify_passage",
    "classify_sentence",
    "reference_marks",
    "section_kind",
]
