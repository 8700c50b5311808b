"""Search-hit snippets: the first two sentences of a chunk with the matched terms marked."""

from __future__ import annotations

import re
from collections.abc import Callable

from .language import cjk_bigrams, cjk_run, first_sentences, has_cjk, query_terms, split_sentences

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def make_snippet(
    text: str,
    query: str,
    query_stems: set[str],
    stem: Callable[[str], list[str]],
    max_chars: int = 320,
) -> tuple[str, list[str]]:
    """Return (snippet with **matched** words, the matched words).

    The snippet is the chunk's first two sentences; when no query term occurs there, the
    best-matching sentence is appended after an ellipsis so the user sees why it matched.
    """
    cjk_terms = [t for t in query_terms(query) if has_cjk(t)]
    grams = {g for t in cjk_terms for g in cjk_bigrams(t)}
    head = first_sentences(text, 2, max_chars)
    marked, found = _mark(head, query_stems, grams, stem)
    if not found and (query_stems or grams):
        best, best_n = "", 0
        for s in split_sentences(text)[2:]:
            _, f = _mark(s, query_stems, grams, stem)
            if len(f) > best_n:
                best, best_n = s, len(f)
        if best:
            tail = best if len(best) <= max_chars else best[:max_chars] + "…"
            tail_marked, found = _mark(tail, query_stems, grams, stem)
            marked = f"{marked} … {tail_marked}"
    return marked, found


def _mark(
    text: str, stems: set[str], grams: set[str], stem: Callable[[str], list[str]]
) -> tuple[str, list[str]]:
    found: dict[str, None] = {}
    spans: list[tuple[int, int]] = []
    if stems:
        for m in _TOKEN.finditer(text):
            w = m.group()
            if has_cjk(w):
                continue
            s = stem(w)
            if s and s[0] in stems:
                spans.append(m.span())
                found[w.lower()] = None
    if grams:
        for m in cjk_run().finditer(text):
            run, base = m.group(), m.start()
            i = 0
            while i < len(run) - 1:
                if run[i : i + 2] in grams:
                    j = i + 2
                    while j < len(run) and run[j - 1 : j + 1] in grams:
                        j += 1
                    spans.append((base + i, base + j))
                    found[run[i:j]] = None
                    i = j
                else:
                    i += 1
    if not spans:
        return text, []
    spans.sort()
    out: list[str] = []
    pos = 0
    for a, b in spans:
        if a < pos:
            continue
        out.append(text[pos:a])
        out.append(f"**{text[a:b]}**")
        pos = b
    out.append(text[pos:])
    return "".join(out), list(found)
