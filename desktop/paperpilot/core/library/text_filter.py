"""The library pane's full-text filter, by search mode: which documents match, how many of their
passages, and a snippet of the best — keyword, meaning or hybrid, as ``paperpilot search --mode``.

A filter keeps documents, where ``paperpilot search`` ranks passages, so the modes read:

- keyword: documents with a passage holding every word (Tantivy); the count is those passages;
- meaning: documents with a passage nearly as near the words by meaning as the nearest one
  (cosine within ``MEANING_MARGIN`` of it, among the ``MEANING_DEPTH`` nearest); the count is
  those passages;
- hybrid: either — a document with a passage holding every word counts those, one found by
  meaning only counts its passages among the nearest.

The default (None) is hybrid once anything is embedded, else keyword, as for the search; a
mode by meaning with nothing embedded searches by keyword (``mode`` in the result says which).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .library import Library

# Every passage is near something by meaning, so a filter by meaning keeps the passages about
# as near as the nearest. The bundled model's cosines crowd together (0.72-0.88 over four short
# bird papers: "insects above roofs" 0.878 for the swifts, 0.824 for the next; "voles" 0.841,
# 0.835, 0.830 for the three papers that mention voles, 0.794 for the one that does not), so
# the margin is small; a query about nothing in the library still keeps its nearest passages.
MEANING_MARGIN = 0.03
MEANING_DEPTH = 50
# Snippets made with the filter (for the documents with most passages); the others on hover.
SNIPPETS_AHEAD = 20


@dataclass(frozen=True)
class TextMatches:
    """What the full-text filter found for ``text``: passages per document and snippets."""

    text: str
    mode: str  # the mode searched: keyword | meaning | hybrid
    counts: dict[int, int] = field(default_factory=dict)
    snippets: dict[int, str] = field(default_factory=dict)
    # Whether anything is embedded: the pane offers "meaning" only then.
    has_vectors: bool = False


def text_matches(library: Library, text: str, mode: str | None = None, *, ahead: int = SNIPPETS_AHEAD) -> TextMatches:
    """The documents matching ``text`` in ``mode`` (see the module's docstring), with snippets
    for the ``ahead`` documents with most passages."""
    embedded = library.has_vectors()
    used = library.search_mode(mode)
    counts: dict[int, int] = {}
    snippets: dict[int, str] = {}
    if used in ("keyword", "hybrid"):
        counts = library.fulltext_counts(text)
    if used in ("meaning", "hybrid"):
        near: dict[int, int] = {}
        hits = library.search(text, MEANING_DEPTH, mode="meaning")
        top = max((h.dense for h in hits if h.dense is not None), default=0.0)
        for h in hits:
            if h.dense is None or h.dense < top - MEANING_MARGIN:
                continue
            near[h.doc_id] = near.get(h.doc_id, 0) + 1
            if h.doc_id not in counts:
                snippets.setdefault(h.doc_id, h.snippet)  # the nearest passage's (hits come best first)
        for doc_id, n in near.items():
            counts.setdefault(doc_id, n)
    best = [d for d in sorted(counts, key=lambda d: -counts[d]) if d not in snippets][:ahead]
    if best:
        snippets.update(library.fulltext_snippets(text, best))
    return TextMatches(text, used, counts, snippets, embedded)


__all__ = ["MEANING_DEPTH", "MEANING_MARGIN", "SNIPPETS_AHEAD", "TextMatches", "text_matches"]
