"""The structure of a paper at import: section paths from headings, and a kind for every block.

The chunker walks a document's paragraphs in order; this module tells it, for each heading,
where it sits in the outline ("3 Method > 3.2 Training") and which part of the paper it opens
(the abstract, the body, the references, an appendix …), and for each paragraph what it is.
Three sources, most specific first: the extractor's layout hint (a caption, a footnote, a
table, the title set in big type), the part of the paper the paragraph is in, and what the
text itself looks like (``text.kinds``: a bibliography entry, code, licence boilerplate,
equations). Kind names live in ``text.kinds``; nothing here invents one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from paperpilot.core.text.kinds import (
    Kind,
    is_equation,
    paragraph_kind,
    reference_marks,
    section_kind,
)
from paperpilot.core.text.lazy import has_char_from, lazy_pattern

# How deep a numbered heading sits: "3" → 1, "3.2" → 2, "A.1" → 2, "IV." → 1, "一、" → 1,
# "（一）" → 2, "第1章" → 1, "第2节" → 2.
# A dotted number ends before white space or, in a Chinese heading ("1.1引言"), before a Han
# character. Only the greedy reading of the number can be followed by either (a shorter one is
# followed by a digit or ".digit"), so the two patterns read the same number that one pattern
# with both endings would; the Han one (a class that costs a millisecond to compile, see
# core.text.lazy) is needed only for a heading with a character from U+4E00 up. So are the
# Chinese numbering patterns: every match holds a Chinese numeral or 第.
_DOTTED = re.compile(r"^\s*((?:\d{1,2}|[A-Z])(?:\.\d{1,2}){0,4})\.?\s+\S")
_DOTTED_HAN = lazy_pattern(r"^\s*((?:\d{1,2}|[A-Z])(?:\.\d{1,2}){0,4})\.?[\u4e00-\u9fff]")
_ROMAN = re.compile(r"^\s*[IVX]{1,5}\.\s+\S")
_ZH_TOP = lazy_pattern(r"^\s*(?:[一二三四五六七八九十]+[、.．]|第[一二三四五六七八九十百\d]+[章部篇])")
_ZH_SUB = lazy_pattern(r"^\s*(?:[（(][一二三四五六七八九十]+[）)]|第[一二三四五六七八九十百\d]+节)")
_LETTERED = re.compile(r"^\s*[A-Z](?:\.\d{1,2})*\.?\s+\S")
# Headings of the body proper; after the references they mean the paper goes on (methods
# printed after the reference list), not an appendix.
_BODY_NAMES = re.compile(
    r"^\s*(?:\d{1,2}\.?\s*)?(?:online\s+)?(?:methods?|materials and methods|results|discussion|conclusions?|introduction)\b",
    re.IGNORECASE,
)
# What ends a sentence, when it is the last character but white space (as "[.!?。！？]\s*$").
_SENTENCE_END = (".", "!", "?", "。", "！", "？")
_ENTRY_LABEL = re.compile(r"^\s*(?:\[\d{1,4}\]|\d{1,4}\.\s)")
# Longer than any abstract a journal allows (structured abstracts included), in characters.
_ABSTRACT_MAX = 3500
# "Figure 2. Mass fraction of …" in body type: a caption the layout did not set apart.
_CAPTION_START = re.compile(r"^(?:Figure|Fig\.|Table|Tab\.)\s*[A-Z]?\d+[a-z]?\s*[.:|]\s|^[图表]\s*\d+(?:[-.]\d+)?\s")


def heading_level(heading: str) -> int | None:
    """The outline depth a heading's number gives it, or None when it has no number."""
    han = has_char_from(heading, "\u4e00")
    m = _DOTTED.match(heading) or (_DOTTED_HAN().match(heading) if han else None)
    if m:
        return m.group(1).count(".") + 1
    if _ROMAN.match(heading) or (han and _ZH_TOP().match(heading)):
        return 1
    if han and _ZH_SUB().match(heading):
        return 2
    return None


def _ends_sentence(text: str) -> bool:
    """Whether ``text`` ends a sentence: its last character but white space is a full stop,
    "!" or "?" (\\s is str.isspace for a str pattern, and rstrip strips exactly that)."""
    return text.rstrip().endswith(_SENTENCE_END)


@dataclass
class _Open:
    level: int
    text: str
    zone: Kind


@dataclass
class Outline:
    """The headings seen so far in one document, and the part of the paper they put us in.

    ``sizes`` are the font sizes of the document's headings (when the layout gave them), so an
    unnumbered heading in smaller type is read as a subsection of the one before it.
    """

    sizes: Sequence[float] = ()
    # A laid-out paper (a PDF): what precedes its first heading is its title block. Text files
    # and corpus records have no such front matter.
    paper: bool = False
    seen_body: bool = False  # running text has begun: the title block is over
    # The layout set a title in large type on page 1: the short paragraphs under it, up to the
    # running text, are its by-line and affiliations. Without one, nothing is a title by position.
    seen_title: bool = False
    stack: list[_Open] = field(default_factory=list)
    seen_heading: bool = False
    seen_references: bool = False
    seen_abstract: bool = False
    abstract_page: int = 0
    abstract_chars: int = 0
    _size_levels: dict[float, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ranked = sorted({round(s * 2) / 2 for s in self.sizes if s > 0}, reverse=True)
        self._size_levels = {s: i + 1 for i, s in enumerate(ranked)}

    @property
    def zone(self) -> Kind:
        return self.stack[-1].zone if self.stack else Kind.BODY

    @property
    def path(self) -> str:
        return " > ".join(o.text for o in self.stack)

    def heading(self, text: str, size: float = 0.0, page: int = 1) -> None:
        """Enter the section a heading opens."""
        self.seen_heading = True
        named = section_kind(text)
        level = heading_level(text)
        if named is not None and named != Kind.BOILERPLATE and level is None:
            level = 1  # "References", "Acknowledgements", "Appendix", "摘要" start a part
        if level is None:
            level = self._level_by_size(size)
        while self.stack and self.stack[-1].level >= level:
            self.stack.pop()
        zone = self._zone(text, named, level)
        if zone == Kind.REFERENCES:
            self.seen_references = True
        if zone == Kind.ABSTRACT and not self.seen_abstract:
            self.seen_abstract = True
            self.abstract_page = page
        self.stack.append(_Open(level, text, zone))

    def in_abstract(self, page: int, chars: int) -> bool:
        """Whether a paragraph under an "Abstract" heading is still the abstract. An abstract
        is short: when the next heading was missed (set in a style the extractor did not
        recognise), the text after it is the body, not more abstract."""
        if self.zone != Kind.ABSTRACT:
            return False
        self.abstract_chars += chars
        return page <= self.abstract_page + 1 and self.abstract_chars <= _ABSTRACT_MAX

    def _level_by_size(self, size: float) -> int:
        if size > 0 and self._size_levels:
            key = round(size * 2) / 2
            if key in self._size_levels:
                return self._size_levels[key]
            bigger = sum(1 for s in self._size_levels if s > key)
            return bigger + 1
        # Without type sizes an unnumbered heading is a sibling of the one before it.
        return self.stack[-1].level if self.stack else 1

    def _zone(self, text: str, named: Kind | None, level: int) -> Kind:
        if named is not None:
            return named
        parent = self.stack[-1].zone if self.stack else None
        if parent is not None and parent != Kind.BODY:
            return parent  # a subsection of an appendix (or of the references) stays in it
        # "A Background & Terminology" after the reference list: the appendices.
        if self.seen_references and not _BODY_NAMES.match(text) and (_LETTERED.match(text) or level == 1):
            return Kind.APPENDIX
        return Kind.BODY


def looks_like_entry(heading: str) -> bool:
    """A "heading" inside a reference list that is really an entry (or a piece of one)."""
    return section_kind(heading) is None and (
        reference_marks(heading) >= 1 or _ends_sentence(heading) or "," in heading
    )


def block_kind(outline: Outline, text: str, hint: str, page: int, section: str) -> Kind:
    """The kind of one paragraph, given the extractor's layout ``hint`` and where it stands."""
    if hint == "title":
        # What came before the title on its page is its masthead (see mark_above_title), not
        # running text: the by-line under the title still belongs to the block.
        outline.seen_title = True
        outline.seen_body = False
        return Kind.TITLE
    if hint == "footnote":
        # Reference lists are small print too: at the foot of a column they are still entries.
        if outline.zone == Kind.REFERENCES and (_ENTRY_LABEL.match(text) or reference_marks(text) >= 2):
            return Kind.REFERENCES
        return Kind.FOOTNOTE
    if hint == "caption":
        return Kind.CAPTION
    if hint == "table":
        return Kind.EQUATION if is_equation(text) else Kind.TABLE
    zone = outline.zone
    if zone in (Kind.REFERENCES, Kind.ACKNOWLEDGEMENTS):
        return zone
    content = paragraph_kind(text)
    if content != Kind.BODY and content != Kind.REFERENCES and is_equation(text):
        return Kind.EQUATION
    # Under the title, before the first heading: its authors and affiliations (an abstract
    # printed without a heading is found afterwards, see mark_unheaded_abstract). A short
    # paragraph alone is no title block: the first lines of an inner page or of a scan
    # ("The parameters used were: …") are text the agent must find.
    if outline.seen_title and not outline.seen_heading and not outline.seen_body and page <= 1 and content != Kind.BOILERPLATE and (
        content in (Kind.TITLE, Kind.FIGURE) or (len(text) < 200 and not _ends_sentence(text))
    ):
        return Kind.TITLE
    if content == Kind.BODY and not outline.seen_heading and page <= 2 and len(text) >= 200:
        return Kind.BODY  # prose before the first heading: an abstract without one, maybe
    if zone == Kind.ABSTRACT:
        return Kind.ABSTRACT if outline.in_abstract(page, len(text)) else Kind.BODY
    if content == Kind.BODY and zone != Kind.BOILERPLATE and outline.seen_heading:
        return Kind.APPENDIX if zone == Kind.APPENDIX else Kind.BODY
    if content in (Kind.BOILERPLATE, Kind.CODE, Kind.TABLE, Kind.FIGURE, Kind.CAPTION):
        return content
    if len(text) < 400 and _CAPTION_START.match(text):
        return Kind.CAPTION
    if zone == Kind.BOILERPLATE:
        return Kind.BOILERPLATE
    if is_equation(text):
        return Kind.EQUATION
    if content in (Kind.REFERENCES, Kind.ACKNOWLEDGEMENTS):
        return content
    if content == Kind.TITLE and page <= 1 and outline.paper:
        return Kind.TITLE
    if zone == Kind.APPENDIX:
        return zone
    return Kind.BODY


def mark_above_title(kinds: list[Kind], texts: Sequence[str], first_title: int) -> None:
    """The short lines printed above a paper's title (a masthead, "Research Article", a
    journal's name) belong to its title block; ``first_title``: the index of the title's first
    paragraph, -1 when the page has none (then nothing is)."""
    for i in range(max(first_title, 0)):
        if kinds[i] in (Kind.BODY, Kind.FIGURE) and len(texts[i]) < 200 and not _ends_sentence(texts[i]):
            kinds[i] = Kind.TITLE


def mark_unheaded_abstract(kinds: list[Kind], texts: Sequence[str], before_heading: Sequence[bool]) -> None:
    """A paper with no "Abstract" heading: its first long paragraph before the first heading is
    the abstract (it is where every journal puts it)."""
    if Kind.ABSTRACT in kinds:
        return
    for i, (kind, text, early) in enumerate(zip(kinds, texts, before_heading, strict=True)):
        if not early:
            return
        if kind == Kind.BODY and len(text) >= 250:
            kinds[i] = Kind.ABSTRACT
            return
