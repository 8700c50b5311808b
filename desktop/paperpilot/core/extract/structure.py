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

from paperpilot.core.text.kinds import Kind, classify_passage, is_equation, plainly_prose, section_kind

# How deep a numbered heading sits: "3" → 1, "3.2" → 2, "A.1" → 2, "IV." → 1, "一、" → 1,
# "（一）" → 2, "第1章" → 1, "第2节" → 2.
_DOTTED = re.compile(r"^\s*((?:\d{1,2}|[A-Z])(?:\.\d{1,2}){0,4})\.?(?:\s+|(?=[\u4e00-\u9fff]))\S")
_ROMAN = re.compile(r"^\s*[IVX]{1,5}\.\s+\S")
_ZH_TOP = re.compile(r"^\s*(?:[一二三四五六七八九十]+[、.．]|第[一二三四五六七八九十百\d]+[章部篇])")
_ZH_SUB = re.compile(r"^\s*(?:[（(][一二三四五六七八九十]+[）)]|第[一二三四五六七八九十百\d]+节)")
_LETTERED = re.compile(r"^\s*[A-Z](?:\.\d{1,2})*\.?\s+\S")
# Headings of the body proper; after the references they mean the paper goes on (methods
# printed after the reference list), not an appendix.
_BODY_NAMES = re.compile(
    r"^\s*(?:\d{1,2}\.?\s*)?(?:online\s+)?(?:methods?|materials and methods|results|discussion|conclusions?|introduction)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?。！？]\s*$")


def heading_level(heading: str) -> int | None:
    """The outline depth a heading's number gives it, or None when it has no number."""
    m = _DOTTED.match(heading)
    if m:
        return m.group(1).count(".") + 1
    if _ROMAN.match(heading) or _ZH_TOP.match(heading):
        return 1
    if _ZH_SUB.match(heading):
        return 2
    return None


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
    stack: list[_Open] = field(default_factory=list)
    seen_heading: bool = False
    seen_references: bool = False
    seen_abstract: bool = False
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

    def heading(self, text: str, size: float = 0.0) -> None:
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
        if zone == Kind.ABSTRACT:
            self.seen_abstract = True
        self.stack.append(_Open(level, text, zone))

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


def block_kind(outline: Outline, text: str, hint: str, page: int, section: str) -> Kind:
    """The kind of one paragraph, given the extractor's layout ``hint`` and where it stands."""
    if hint == "title":
        return Kind.TITLE
    if hint == "footnote":
        return Kind.FOOTNOTE
    if hint == "caption":
        return Kind.CAPTION
    if hint == "table":
        return Kind.EQUATION if is_equation(text) else Kind.TABLE
    zone = outline.zone
    if zone in (Kind.REFERENCES, Kind.ACKNOWLEDGEMENTS):
        return zone
    content = Kind.BODY if plainly_prose(text) else classify_passage(text)
    if content != Kind.BODY and content != Kind.REFERENCES and is_equation(text):
        return Kind.EQUATION
    # Before the first heading of a paper: its title, authors and affiliations (an abstract
    # printed without a heading is found afterwards, see mark_unheaded_abstract).
    if not outline.seen_heading and page <= 2 and content != Kind.BOILERPLATE and (
        content in (Kind.TITLE, Kind.FIGURE) or (len(text) < 200 and not _SENTENCE_END.search(text))
    ):
        return Kind.TITLE
    if content == Kind.BODY and not outline.seen_heading and page <= 2 and len(text) >= 200:
        return Kind.BODY  # prose before the first heading: an abstract without one, maybe
    if content == Kind.BODY and zone != Kind.BOILERPLATE and outline.seen_heading:
        return zone if zone in (Kind.ABSTRACT, Kind.APPENDIX) else Kind.BODY
    if content in (Kind.BOILERPLATE, Kind.CODE, Kind.TABLE, Kind.FIGURE, Kind.CAPTION):
        return content
    if zone == Kind.BOILERPLATE:
        return Kind.BOILERPLATE
    if is_equation(text):
        return Kind.EQUATION
    if content in (Kind.REFERENCES, Kind.ACKNOWLEDGEMENTS):
        return content
    if content == Kind.TITLE and page <= 1:
        return Kind.TITLE
    if zone in (Kind.ABSTRACT, Kind.APPENDIX):
        return zone
    return Kind.BODY


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
