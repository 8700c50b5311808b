"""Split a document's pages into paragraph-level chunks that keep their section and page.

A paragraph is text between blank lines; a paragraph starting with ``"# "`` is a section
heading. A page may carry a layout hint per paragraph (``Page.layout``: caption, footnote,
table, title); with ``extract.structure`` they decide each chunk's kind and section path. Chunks are what the index stores and what the agent reads, so they follow the
author's structure: short paragraphs are merged, long ones are split between sentences.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from paperpilot.core.models import Block, Chunk, Page
from paperpilot.core.text.kinds import Kind
from paperpilot.core.text.language import split_sentences
from paperpilot.core.text.lazy import has_char_from_3000, lazy_pattern
from paperpilot.core.text.whitespace import collapse_whitespace

from .structure import Outline, block_kind, looks_like_entry, mark_above_title, mark_unheaded_abstract

_CJKISH_CLASS = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"


# The class spans tens of thousands of code points, which takes ``re`` milliseconds to compile
# in every process (each extraction worker); English text never needs it, so it is compiled on
# first use and asked only about text that holds a character from U+3000 up.
_cjkish = lazy_pattern(f"[{_CJKISH_CLASS}]")
_cjk_gap = lazy_pattern(f"(?<=[{_CJKISH_CLASS}]) (?=[{_CJKISH_CLASS}])")

_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")
# Where an over-long sentence may be cut, best first: after a clause mark, then at a space.
_CLAUSE_MARKS = frozenset(",，、;；:：")


def normalise_whitespace(text: str) -> str:
    """Collapse whitespace to single spaces, and drop spaces between CJK characters."""
    text = collapse_whitespace(text)
    if has_char_from_3000(text) and _cjkish().search(text):
        # Hard-wrapped Chinese gains spaces where lines were joined; they are not in the text.
        text = _cjk_gap().sub("", text)
    return text


def _separator(left: str, right: str) -> str:
    """What goes between two pieces of text: nothing between CJK characters, else a space."""
    a, b = left[-1], right[0]
    if a >= "\u3000" and b >= "\u3000" and _cjkish().match(a) and _cjkish().match(b):
        return ""
    return " "


@dataclass(slots=True)
class _Piece:
    text: str
    page: int
    kind: Kind = Kind.BODY
    section: str = ""
    path: str = ""
    ocr: bool = False  # from a page read by OCR


def chunk_text(text: str, min_chars: int = 300, max_chars: int = 800) -> list[Chunk]:
    """Chunk a single page of text (page number 1)."""
    return chunk_pages([Page(number=1, text=text)], min_chars=min_chars, max_chars=max_chars)


def chunk_pages(pages: list[Page], min_chars: int = 300, max_chars: int = 800) -> list[Chunk]:
    """Paragraph-level chunks of about ``min_chars``..``max_chars`` characters, in order.

    Each chunk holds paragraphs of one kind (body, caption, table, references …) under one
    heading, so a caption or a reference list never dilutes the body text around it.
    """
    return chunk_document(pages, min_chars, max_chars)[0]


def chunk_document(
    pages: list[Page], min_chars: int = 300, max_chars: int = 800, blocks: list[Block] | None = None
) -> tuple[list[Chunk], list[str]]:
    """``chunk_pages``, plus the paragraphs of the reference list in order (for its entries).

    ``blocks``: the document's structure as ``read_blocks`` found it already (in the process
    that extracted the file), so only the merging into chunks is left to do here."""
    if max_chars < 1 or min_chars > max_chars:
        raise ValueError(f"need 0 < min_chars <= max_chars, got {min_chars}..{max_chars}")
    if blocks is None:
        blocks = read_blocks(pages)
    references = [b.text for b in blocks if b.kind == Kind.REFERENCES]
    pieces: list[_Piece] = []
    for b in blocks:
        kind = Kind(b.kind)
        if len(b.text) <= max_chars:
            parts = [b.text]
        elif kind == Kind.TABLE and "\n" in b.text:
            parts = _split_rows(b.text, max_chars)
        else:
            parts = split_paragraph(b.text, max_chars)
        pieces.extend(_Piece(t, b.page, kind, b.section, b.path, b.ocr) for t in parts)
    chunks: list[Chunk] = []
    run: list[_Piece] = []
    for piece in pieces:
        if run and (piece.kind != run[0].kind or piece.section != run[0].section or piece.path != run[0].path):
            _emit_section(run, min_chars, max_chars, chunks)
            run = []
        run.append(piece)
    _emit_section(run, min_chars, max_chars, chunks)
    return chunks, references


def read_blocks(pages: list[Page]) -> list[Block]:
    """Every paragraph of the document with its kind, heading and section path, in order."""
    outline = Outline(
        sizes=[size for p in pages for hint, size in p.layout if hint == "heading"], paper=any(p.layout for p in pages)
    )
    section = ""
    path = ""  # outline.path, which only a heading changes
    out: list[Block] = []
    kinds: list[Kind] = []
    first_title = -1
    for page in pages:
        paras = _PARAGRAPH_BREAK.split(page.text)
        layout = page.layout if len(page.layout) == len(paras) else []
        for i, block in enumerate(paras):
            block = block.strip()
            if not block:
                continue
            hint, size = layout[i] if layout else ("", 0.0)
            if block.startswith("# ") or block == "#":
                # A heading glued to its first paragraph by a single newline still leads it.
                heading, _, rest = block.partition("\n")
                title = normalise_whitespace(heading[1:])
                if outline.zone == Kind.REFERENCES and looks_like_entry(title):
                    # An entry set in bold or capitals inside the reference list, not a heading.
                    block = title + ("\n" + rest if rest else "")
                else:
                    block = rest
                    section = title
                    outline.heading(section, size, page.number)
                    path = outline.path
                hint = ""
            if hint == "table":
                text = "\n".join(t for t in (normalise_whitespace(r) for r in block.split("\n")) if t)
            else:
                text = normalise_whitespace(block)
            if not text:
                continue
            kind = block_kind(outline, text, hint, page.number, section)
            if hint == "title" and first_title < 0 and page.number <= 1:
                first_title = len(out)
            if kind == Kind.BODY:
                outline.seen_body = True
            kinds.append(kind)
            out.append(
                Block(text, page.number, _VALUE[kind], section, path, not outline.seen_heading, page.source == "ocr")
            )
    if first_title >= 0:
        mark_above_title(kinds, [b.text for b in out], first_title)
    if outline.paper:
        mark_unheaded_abstract(kinds, [b.text for b in out], [b.early for b in out])
    for b, k in zip(out, kinds, strict=True):
        b.kind = _VALUE[k]
    return out


# Each kind's stored value, looked up without the enum's descriptor.
_VALUE: dict[Kind, str] = {k: k.value for k in Kind}


def _split_rows(text: str, max_chars: int) -> list[str]:
    """A long table cut between rows, each part at most ``max_chars`` when its rows allow."""
    out: list[str] = []
    cur = ""
    for row in text.split("\n"):
        if cur and len(cur) + 1 + len(row) > max_chars:
            out.append(cur)
            cur = row
        else:
            cur = f"{cur}\n{row}" if cur else row
    if cur:
        out.append(cur)
    return out


def _emit_section(pieces: list[_Piece], min_chars: int, max_chars: int, out: list[Chunk]) -> None:
    """Merge one run of pieces (one section, one kind) into chunks and append them to ``out``."""
    if not pieces:
        return
    first = pieces[0]
    # Table rows stay rows; everything else is running text.
    joiner = "\n" if first.kind == Kind.TABLE else None
    merged: list[tuple[list[str], int, int, bool]] = []  # (parts, length, page, any part from OCR)
    parts: list[str] = []
    length = 0
    page = first.page
    ocr = False
    for piece in pieces:
        if parts:
            sep = joiner or _separator(parts[-1], piece.text)
            # Only a chunk still short of min_chars takes more; this is also what lets a
            # paragraph that continues on the next page join its first half.
            if length < min_chars and length + len(sep) + len(piece.text) <= max_chars:
                if sep:
                    parts.append(sep)
                parts.append(piece.text)
                length += len(sep) + len(piece.text)
                ocr = ocr or piece.ocr
                continue
            merged.append((parts, length, page, ocr))
        parts = [piece.text]
        length = len(piece.text)
        page = piece.page
        ocr = piece.ocr
    merged.append((parts, length, page, ocr))

    if len(merged) >= 2:
        tail_parts, tail_length, _, tail_ocr = merged[-1]
        prev_parts, prev_length, prev_page, prev_ocr = merged[-2]
        sep = joiner or _separator(prev_parts[-1], tail_parts[0])
        joined = prev_length + len(sep) + tail_length
        if tail_length < min_chars / 3 and joined <= max_chars * 1.25:
            merged[-2:] = [([*prev_parts, sep, *tail_parts], joined, prev_page, prev_ocr or tail_ocr)]

    for chunk_parts, _length, chunk_page, chunk_ocr in merged:
        out.append(
            Chunk(
                seq=len(out),
                text="".join(chunk_parts),
                section=first.section,
                page=chunk_page,
                source="ocr" if chunk_ocr else "text",
                kind=first.kind.value,
                section_path=first.path,
            )
        )


def split_paragraph(text: str, max_chars: int) -> list[str]:
    """Split a long paragraph into pieces of at most ``max_chars``, between sentences.

    Pieces are balanced (a 1,000-character paragraph becomes two of ~500, not 800 + 200) and
    are exact substrings of ``text``, so quotes from a chunk can be found in the source.
    """
    spans: list[tuple[int, int]] = []
    for start, end in _sentence_spans(text):
        if end - start > max_chars:
            spans.extend(_split_sentence(text, start, end, max_chars))
        else:
            spans.append((start, end))
    if not spans:
        return []

    target = len(text) / math.ceil(len(text) / max_chars)
    out: list[str] = []
    group_start, group_end = spans[0]
    for start, end in spans[1:]:
        current = group_end - group_start
        extended = end - group_start
        # Stop when the next sentence would not fit, or when stopping here lands nearer the
        # balanced size than taking it would.
        if extended > max_chars or (current >= target * 0.5 and extended - target > target - current):
            out.append(text[group_start:group_end])
            group_start = start
        group_end = end
    out.append(text[group_start:group_end])
    return out


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of ``text``, covering every character of it.

    Each sentence runs to where the next one starts: the splitter strips pieces and may drop
    characters between them (a closing quote after a full stop), and a chunk must not.
    """
    starts: list[int] = []
    pos = 0
    for sentence in split_sentences(text):
        start = text.find(sentence, pos)
        if start < 0:
            break  # not a substring: keep the rest with the previous sentence
        starts.append(start)
        pos = start + len(sentence)
    if not starts:
        return [(0, len(text))] if text else []
    starts[0] = 0
    spans: list[tuple[int, int]] = []
    for start, next_start in zip(starts, [*starts[1:], len(text)], strict=True):
        end = next_start
        while end > start and text[end - 1].isspace():
            end -= 1
        spans.append((start, end))
    return spans


def _split_sentence(text: str, start: int, end: int, max_chars: int) -> Iterator[tuple[int, int]]:
    """Cut one over-long sentence into spans of at most ``max_chars``."""
    while end - start > max_chars:
        limit = start + max_chars
        floor = start + max_chars // 2
        cut = -1
        for i in range(limit - 1, floor - 1, -1):
            if text[i] in _CLAUSE_MARKS:
                cut = i + 1
                break
        if cut < 0:
            space = text.rfind(" ", floor, limit + 1)
            # No clause mark and no space (Chinese, or a URL): any character boundary will do.
            cut = space if space > start else limit
        yield start, cut
        start = cut
        while start < end and text[start] == " ":
            start += 1
    if start < end:
        yield start, end
