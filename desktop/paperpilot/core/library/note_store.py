"""Per-document notes: one Markdown text per document, in the library database (table ``notes``).

A note is deleted with its document (ON DELETE CASCADE). An empty text removes the note. The
library reads and writes them (``Library.get_note``, ``LibraryWriter.set_note``, through the
one writer); this module holds the search over them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from ..text.language import query_terms

SNIPPET_CHARS = 160


class NoteHit(NamedTuple):
    doc_id: int
    title: str
    snippet: str


def _snippet(text: str, terms: list[str]) -> str:
    flat = " ".join(text.split())
    low = flat.lower()
    pos = min((i for i in (low.find(t) for t in terms) if i >= 0), default=0)
    start = max(0, pos - SNIPPET_CHARS // 3)
    out = flat[start : start + SNIPPET_CHARS]
    return ("…" if start > 0 else "") + out + ("…" if start + SNIPPET_CHARS < len(flat) else "")


def search_notes(rows: Iterable[tuple[int, str, str]], query: str) -> list[NoteHit]:
    """The notes of ``rows`` (doc_id, title, text), in their order, whose text or title holds
    every word of ``query``; an empty query keeps every note."""
    terms = [t.lower() for t in query_terms(query)] if query.strip() else []
    out: list[NoteHit] = []
    for doc_id, title, text in rows:
        blob = f"{title}\n{text}".lower()
        if all(t in blob for t in terms):
            out.append(NoteHit(int(doc_id), str(title), _snippet(str(text), terms)))
    return out
