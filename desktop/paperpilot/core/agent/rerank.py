"""Reranking a search's candidates before anything is read: a model scores each skim.

PaperQA2 scores every candidate passage's relevance before it answers; here the search tool
fetches more candidates than the policy asked for (``RERANK_CANDIDATES``), the policy's
reranker (the LLM policy's ``rerank``) scores their skims, and the search keeps the best ``k``
in that order. The model's reply is data, checked by code: only the ids of candidates shown
count, scores are clamped to the scale, and a reply that does not parse keeps the search's
own order (one trace line says so) — a rerank never fails a run.

Offline there is no separate rerank: the hybrid search already ranks by the stored vectors
(tests/bench/README.md, "Search by meaning": reranking BM25's candidates by their vectors is
worse than hybrid), and the trace shows each hit's keyword and dense scores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..llm.usage import Usage
from ..text.messages import Message
from .events import HitView

# How many candidates a reranked search looks at (the search keeps the policy's k of them).
# Eight skims of ~150 characters keep the rerank prompt near 600 tokens.
RERANK_CANDIDATES = 8
SCORE_MAX = 10


def candidate_id(i: int) -> str:
    """The id a candidate has in the rerank prompt: H1, H2 … (its place in the search's order)."""
    return f"H{i + 1}"


@dataclass
class Reranking:
    """A rerank's outcome: the candidates' order (indices into the search's hits, best first),
    the scores the model gave (by index; a candidate it did not score validly has none), who
    ordered them ("model", or "search" when the search's order was kept) and why it was kept."""

    order: list[int]
    scores: dict[int, float] = field(default_factory=dict)
    by: str = "model"
    usage: Usage = field(default_factory=Usage)
    problem: Message | None = None

    @classmethod
    def kept(cls, n: int, problem: Message | None = None, usage: Usage | None = None) -> Reranking:
        """The search's own order, unchanged."""
        return cls(list(range(n)), {}, "search", usage or Usage(), problem)


class Reranker(Protocol):
    """What the search tool calls to rerank (the LLM policy implements it)."""

    def __call__(self, question: str, hits: list[HitView], cancel: Any = None) -> Reranking: ...


def valid_scores(data: Any, n: int) -> dict[int, float] | None:
    """The scores of a parsed reply ``{"scores": [{"id": "H2", "score": 7}, …]}`` for ``n``
    candidates, by index: ids that name no candidate are dropped, as are scores that are not
    numbers; scores are clamped to 0..SCORE_MAX; a repeated id keeps its first score. None when
    the reply holds no usable score at all."""
    if isinstance(data, dict):
        data = data.get("scores", data.get("ranking"))
    if not isinstance(data, list):
        return None
    ids = {candidate_id(i): i for i in range(n)}
    out: dict[int, float] = {}
    for item in data:
        if not isinstance(item, dict):
            continue
        raw_id = item.get("id")
        i = ids.get(str(raw_id).strip().upper()) if raw_id is not None else None
        score = item.get("score")
        if i is None or i in out or isinstance(score, bool) or not isinstance(score, int | float):
            continue
        if not math.isfinite(score):
            continue
        out[i] = round(max(0.0, min(float(SCORE_MAX), float(score))), 2)
    return out or None


def order_by_scores(n: int, scores: dict[int, float]) -> list[int]:
    """Scored candidates by score (ties: the search's order), then the unscored ones in the
    search's order: a candidate the model skipped is never lost, only ranked last."""
    scored = sorted(scores, key=lambda i: (-scores[i], i))
    return scored + [i for i in range(n) if i not in scores]


def describe(reranking: Reranking, hits: list[HitView], kept: int) -> str:
    """The rerank for the trace: "by the model, 8 candidates, 3 kept: doc 3 seg 4 (9/10, was #5), …"."""
    parts = []
    for place, i in enumerate(reranking.order):
        h = hits[i]
        score = reranking.scores.get(i)
        s = f"{score:g}/{SCORE_MAX}" if score is not None else "no score"
        mark = "" if place < kept else " dropped"
        parts.append(f"doc {h.doc_id} seg {h.segment} ({s}, was #{i + 1}{mark})")
    who = "by the model" if reranking.by == "model" else "search order kept"
    return f"{who}, {len(hits)} candidates, {min(kept, len(hits))} kept: " + "; ".join(parts)


__all__ = [
    "RERANK_CANDIDATES",
    "SCORE_MAX",
    "Reranker",
    "Reranking",
    "candidate_id",
    "describe",
    "order_by_scores",
    "valid_scores",
]
