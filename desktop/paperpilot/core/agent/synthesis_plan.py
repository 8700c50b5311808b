"""The first step of a synthesis plan: which papers of the scope are relevant to the question.

``papers_in_scope(pool, scope)`` keeps the documents the scope allows (years, collections, tags,
authors, venues, kinds); ``select_papers(request, pool)`` ranks them by document-level relevance to
the request's topic: its words in the title, the abstract and the keywords, and the library's own
search over the scope's passages (by meaning too, where the pool searches so). A question with no
topic ("What do the review articles conclude?") is about every paper in its scope.

Not wired into the loop's default path yet: the plan (facets per paper, reflection, the answer)
builds on it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..models import DocumentInfo, Hit
from ..text.language import STOPWORDS, has_cjk
from .analysis import topic_terms
from .state import DocumentPool
from .synthesis import Scope, SynthesisRequest

# More relevant papers than this and the answer covers the best ones and says how many more there are.
ANSWER_PAPERS = 12
# Passages one search over the scope returns: enough that each relevant paper shows up.
SCOPE_HITS = 60
# A paper is relevant when this share of the topic's words is in its title, abstract or best passages.
RELEVANT = 0.5

# A review says so in its title, or in its abstract in so many words ("a survey of 162 papers" in an
# abstract is a research paper's method, not a review).
_REVIEW_TITLE = re.compile(
    r"\b(?:a\s+(?:systematic\s+|literature\s+|critical\s+|narrative\s+)?review|systematic\s+review|literature\s+review|"
    r"review\s+of|a\s+survey\s+(?:of|on)|:\s*a\s+survey|meta-analysis|an\s+overview\s+of)\b|综述|研究进展",
    re.IGNORECASE,
)  # "Breeding Bird Survey" is a field survey
_REVIEW_ABSTRACT = re.compile(
    r"\b(?:systematic\s+review|scoping\s+review|narrative\s+review|this\s+review|we\s+review|meta-analysis)\b|本文综述|综述了",
    re.IGNORECASE,
)
_THESIS = re.compile(r"\b(?:thesis|dissertation)\b|学位论文|毕业论文|硕士|博士", re.IGNORECASE)
_CONFERENCE = re.compile(
    r"\b(?:proceedings|conference|symposium|workshop|meeting)\b|\b(?:ACL|EMNLP|NAACL|EACL|CHI|OSDI|NeurIPS|ICML|ICLR|CVPR|ICCV|AAAI)\b|会议",
    re.IGNORECASE,
)


def document_kinds(doc: DocumentInfo) -> set[str]:
    """What kind of document it is, as far as its metadata tells: review, thesis, conference,
    journal, preprint, and research (an article that is not a review or a thesis)."""
    kinds: set[str] = set()
    if _REVIEW_TITLE.search(doc.title) or _REVIEW_ABSTRACT.search(doc.abstract[:600]):
        kinds.add("review")
    if _THESIS.search(doc.title) or _THESIS.search(doc.venue):
        kinds.add("thesis")
    if doc.venue and _CONFERENCE.search(doc.venue):
        kinds.add("conference")
    elif doc.venue:
        kinds.add("journal")
    if doc.arxiv_id and not doc.venue:
        kinds.add("preprint")
    if not kinds & {"review", "thesis"}:
        kinds.add("research")
    return kinds


def _author_of(doc: DocumentInfo, wanted: str) -> bool:
    w = wanted.casefold()
    return any(a.casefold() == w or (" " not in w and a.split() and a.split()[-1].casefold() == w) for a in doc.authors)


def papers_in_scope(pool: DocumentPool, scope: Scope) -> list[DocumentInfo]:
    """The pool's documents the scope allows, in the pool's order. A collection the pool cannot
    list (no ``collection_tree``) or does not have leaves nothing: the scope is never widened."""
    docs = [d for d in pool.list_documents() if d.status in ("ready", "")]
    docs = [d for d in docs if scope.holds_year(d.year)]
    if scope.collections:
        members: set[int] = set()
        tree_of = getattr(pool, "collection_tree", None)
        if callable(tree_of):
            tree = tree_of()
            for name in scope.collections:
                try:
                    members |= set(tree.get(name).all_doc_ids())
                except Exception:  # an unknown collection: none of its papers, whatever the error type
                    continue
        docs = [d for d in docs if d.doc_id in members]
    if scope.tags:
        wanted = {t.casefold() for t in scope.tags}
        docs = [d for d in docs if wanted & {t.casefold() for t in d.tags}]
    if scope.authors:
        docs = [d for d in docs if any(_author_of(d, a) for a in scope.authors)]
    if scope.venues:
        venues = [v.casefold() for v in scope.venues]
        docs = [d for d in docs if d.venue and any(v in d.venue.casefold() for v in venues)]
    if scope.kinds:
        docs = [d for d in docs if document_kinds(d) & set(scope.kinds)]
    return docs


@dataclass(frozen=True)
class PaperChoice:
    """One paper of the scope and how relevant it is: ``score`` in [0, 1]; ``matched``: the topic's
    words found in its title, abstract or passages; ``passages``: its hits in the scope's search."""

    doc_id: int
    title: str
    year: int | None
    score: float
    matched: tuple[str, ...]
    passages: int


@dataclass(frozen=True)
class PaperPick:
    """The papers a synthesis answer draws on: the scope's papers (``in_scope``), the relevant ones
    best first (``chosen``, at most ``ANSWER_PAPERS``) and how many more are relevant (``more``)."""

    in_scope: tuple[int, ...]
    chosen: tuple[PaperChoice, ...]
    more: int
    terms: tuple[str, ...]

    def to_data(self) -> dict[str, Any]:
        return {
            "in_scope": len(self.in_scope),
            "chosen": [{"doc_id": c.doc_id, "title": c.title, "score": round(c.score, 3), "matched": list(c.matched)} for c in self.chosen],
            "more": self.more,
            "terms": list(self.terms),
        }


def _words(term: str) -> list[str]:
    if has_cjk(term):
        return [term]
    return [w for w in re.findall(r"[^\W_]+(?:[-'][^\W_]+)*", term.lower()) if w not in STOPWORDS]


def _found(word: str, text: str) -> bool:
    """``word`` in ``text`` (lower-case): a Chinese word as it is, an English one by its stem."""
    if has_cjk(word):
        return word in text or (len(word) >= 4 and all(word[i : i + 2] in text for i in range(0, len(word) - 1, 2)))
    stem = word[: max(4, len(word) - 2)] if len(word) > 4 else word
    return re.search(rf"(?<![^\W_]){re.escape(stem)}", text) is not None


def select_papers(
    request: SynthesisRequest, pool: DocumentPool, *, limit: int = ANSWER_PAPERS, hits: int = SCOPE_HITS
) -> PaperPick:
    """The relevant papers of the request's scope, best first (see the module's docstring)."""
    docs = papers_in_scope(pool, request.scope)
    ids = [d.doc_id for d in docs]
    terms = tuple(topic_terms(request.topic, request.language))
    words = list(dict.fromkeys(w for t in terms for w in _words(t)))
    if not docs:
        return PaperPick((), (), 0, terms)
    if not words:
        # No topic: every paper of the scope is asked about, the newest first.
        ordered = sorted(docs, key=lambda d: -(d.year or 0))
        chosen = tuple(PaperChoice(d.doc_id, d.title, d.year, 1.0, (), 0) for d in ordered)
        return PaperPick(tuple(ids), chosen[:limit], max(0, len(chosen) - limit), terms)
    found: list[Hit] = pool.search(" ".join(terms), hits, doc_ids=ids) if ids else []
    best: dict[int, float] = {}
    count: dict[int, int] = {}
    text_of: dict[int, str] = {}
    for h in found:
        best[h.doc_id] = max(best.get(h.doc_id, 0.0), h.score)
        count[h.doc_id] = count.get(h.doc_id, 0) + 1
        text_of[h.doc_id] = text_of.get(h.doc_id, "") + " " + " ".join([h.snippet, *h.terms]).lower()
    top = max(best.values(), default=0.0) or 1.0
    seen: dict[int, tuple[list[str], list[str]]] = {}
    for d in docs:
        head = f"{d.title} {d.abstract}".lower()
        in_head = [w for w in words if _found(w, head)]
        in_text = [w for w in words if w not in in_head and _found(w, text_of.get(d.doc_id, ""))]
        seen[d.doc_id] = (in_head, in_text)
    # A topic word no paper of the scope has ("threats") tells no paper from another: the share is
    # of the words the scope has at all.
    present = [w for w in words if any(w in a or w in b for a, b in seen.values())]
    choices: list[PaperChoice] = []
    for d in docs:
        in_head, in_text = seen[d.doc_id]
        cover = (len(in_head) + 0.7 * len(in_text)) / len(present) if present else 0.0
        score = 0.6 * min(1.0, cover) + 0.4 * (best.get(d.doc_id, 0.0) / top)
        if cover >= RELEVANT:
            choices.append(PaperChoice(d.doc_id, d.title, d.year, score, tuple(in_head + in_text), count.get(d.doc_id, 0)))
    choices.sort(key=lambda c: (-c.score, -(c.year or 0), c.doc_id))
    return PaperPick(tuple(ids), tuple(choices[:limit]), max(0, len(choices) - limit), terms)


def scope_ids(pool: DocumentPool, scope: Scope) -> Sequence[int]:
    """The ids of the scope's papers: what every search and read of the plan is limited to."""
    return [d.doc_id for d in papers_in_scope(pool, scope)]


__all__ = ["ANSWER_PAPERS", "PaperChoice", "PaperPick", "document_kinds", "papers_in_scope", "scope_ids", "select_papers"]
