"""Split a document's pages into paragraph-level chunks that keep their section and page.

A paragraph is text between blank lines; a paragraph starting with ``"# "`` is a section
heading. Chunks are what the index stores and what the agent reads, so they follow the
author's structure: short paragraphs are merged, long ones are split between sentences.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass

from paperpilot.core.models import Chunk, Page
from paperpilot.core.text.language import split_sentences

_CJKISH_CLASS = "\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJKISH = re.compile(f"[{_CJKISH_CLASS}]")
_CJK_GAP = re.compile(f"(?<=[{_CJKISH_CLASS}]) (?=[{_CJKISH_CLASS}])")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")
# Where an over-long sentence may be cut, best first: after a clause mark, then at a space.
_CLAUSE_MARKS = frozenset(",，、;；:：")


def normalise_whitespace(text: str) -> str:
    """Collapse whitespace to single spaces, and drop spaces between CJK characters."""
    text = " ".join(text.split())  # C speed; a regex substitution per space is 5x slower
    if _CJKISH.search(text):
        # Hard-wrapped Chinese gains spaces where lines were joined; they are not in the text.
        text = _CJK_GAP.sub("", text)
    return text


def _separator(left: str, right: str) -> str:
    """What goes between two pieces of text: nothing between CJK characters, else a space."""
    if _CJKISH.match(left[-1]) and _CJKISH.match(right[0]):
        return ""
    return " "


@dataclass(slots=True)
class _Piece:
    text: str
    page: int
    ocr: bool = False  # from a page read by OCR


def chunk_text(text: str, min_chars: int = 300, max_chars: int = 800) -> list[Chunk]:
    """Chunk a single page of text (page number 1)."""
    return chunk_pages([Page(number=1, text=text)], min_chars=min_chars, max_chars=max_chars)


def chunk_pages(pages: list[Page], min_chars: int = 300, max_chars: int = 800) -> list[Chunk]:
    """Paragraph-level chunks of about ``min_chars``..``max_chars`` characters, in order."""
    if max_chars < 1 or min_chars > max_chars:
        raise ValueError(f"need 0 < min_chars <= max_chars, got {min_chars}..{max_chars}")
    chunks: list[Chunk] = []
    section = ""
    pieces: list[_Piece] = []
    for page in pages:
        for block in _PARAGRAPH_BREAK.split(page.text):
            block = block.strip()
            if not block:
                continue
            if block.startswith("# ") or block == "#":
                _emit_section(pieces, section, min_chars, max_chars, chunks)
                pieces = []
                # A heading glued to its first paragraph by a single newline still leads it.
                heading, _, block = block.partition("\n")
                section = normalise_whitespace(heading[1:])
            text = normalise_whitespace(block)
            if not text:
                continue
            ocr = page.source == "ocr"
            if len(text) <= max_chars:
                pieces.append(_Piece(text, page.number, ocr))
            else:
                pieces.extend(_Piece(t, page.number, ocr) for t in split_paragraph(text, max_chars))
    _emit_section(pieces, section, min_chars, max_chars, chunks)
    return chunks


def _emit_section(
    pieces: list[_Piece], section: str, min_chars: int, max_chars: int, out: list[Chunk]
) -> None:
    """Merge one section's pieces into chunks and append them to ``out``."""
    if not pieces:
        return
    merged: list[tuple[list[str], int, int, bool]] = []  # (parts, length, page, any part from OCR)
    parts: list[str] = []
    length = 0
    page = pieces[0].page
    ocr = False
    for piece in pieces:
        if parts:
            sep = _separator(parts[-1], piece.text)
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
        sep = _separator(prev_parts[-1], tail_parts[0])
        joined = prev_length + len(sep) + tail_length
        if tail_length < min_chars / 3 and joined <= max_chars * 1.25:
            merged[-2:] = [([*prev_parts, sep, *tail_parts], joined, prev_page, prev_ocr or tail_ocr)]

    for chunk_parts, _length, chunk_page, chunk_ocr in merged:
        out.append(
            Chunk(
                seq=len(out),
                text="".join(chunk_parts),
                section=section,
                page=chunk_page,
                source="ocr" if chunk_ocr else "text",
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
