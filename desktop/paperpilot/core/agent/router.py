"""The router: a confident, simple question takes the quick path; the rest go into the loop."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.language import has_cjk, query_terms
from .actions import Decision, PassageRef, Read, Search
from .analysis import analyze
from .state import AgentState, DocumentPool, Policy, PolicyStep

_COMPARE_EN = re.compile(
    r"\b(compare[sd]?|comparison|differen(?:ce|ces|t)|differ|versus|vs\.?|contrast|similarit(?:y|ies)|"
    r"both|either|neither|same|whereas|relationship between|"
    r"which (?:\w+ ){0,4}(?:more|less|first|earlier|later|older|younger|larger|smaller|better|worse|higher|lower)|"
    r"(?:more|less|\w+er)\b[^?]*,[^?]*\bor\b)\b",
    re.IGNORECASE,
)
_COMPARE_ZH = re.compile(r"对比|比较|区别|差异|异同|相比|不同|哪个更|哪一个|分别|两者|二者")


@dataclass
class Route:
    mode: str  # "quick" | "loop"
    reason: str


def is_complex(question: str) -> str | None:
    """Why ``question`` needs the loop (comparison, bridge, several parts), or None."""
    if _COMPARE_EN.search(question) or _COMPARE_ZH.search(question):
        return "comparison question"
    a = analyze(question)
    if a.is_comparison:
        return "comparison question"
    if a.is_bridge:
        # "the county in which X is located": one search finds X, not what X leads to.
        return "bridge question: " + " → ".join(h.text for h in a.hops)[:120]
    if a.is_multipart:
        return "several questions in one"
    marks = len(re.findall(r"[?？]", question))
    if marks > 1 or re.search(r"[;；]", question.strip().rstrip("?？;；")):
        return "several questions in one"
    if len(query_terms(question)) > 9:
        return "long, multi-part question"
    return None


def _covers(term: str, matched: list[str]) -> bool:
    if has_cjk(term):
        return any(m in term or term in m for m in matched)
    stem = term[: max(4, len(term) - 2)]
    return any(m.startswith(stem) or stem.startswith(m[: max(4, len(m) - 2)]) for m in matched)


def route(question: str, pool: DocumentPool) -> Route:
    why = is_complex(question)
    if why:
        return Route("loop", f"loop: {why}")
    terms = query_terms(question)
    hits = pool.search(question, 3)
    if not hits:
        return Route("loop", "loop: one search found nothing; rephrasing needed")
    covered = sum(_covers(t, hits[0].terms) for t in terms) / max(1, len(terms))
    margin = hits[0].score / hits[1].score if len(hits) > 1 and hits[1].score > 0 else 2.0
    if covered >= 0.6 and margin >= 1.15:
        return Route("quick", f"quick: a direct hit covers {covered:.0%} of the question (score margin ×{margin:.2f})")
    return Route("loop", f"loop: low-confidence first search (covers {covered:.0%}, margin ×{margin:.2f})")


class QuickPolicy:
    """The quick path: one search, read the best hits, answer with the wrapped policy."""

    def __init__(self, inner: Policy, k: int = 3) -> None:
        self.inner = inner
        self.k = k
        self.name = getattr(inner, "name", "?")

    def decide(self, state: AgentState) -> PolicyStep:
        if not state.queries_tried:
            q = " ".join(query_terms(state.question)) or state.question
            # The user's profile terms (synonyms they care about) join the one search too.
            extra = [t for t in state.extra_terms if t.lower() not in q.lower()]
            infos = [("profile", f"first query includes profile terms: {', '.join(extra)}")] if extra else []
            q = " ".join([q, *extra])[:300]
            return PolicyStep(
                Decision(thought="quick path: one search", action=Search(query=q, k=self.k)), infos=infos
            )
        unread = [h for h in state.last_hits if (h.doc_id, h.segment) not in state.read_keys]
        if unread and not state.passages:
            first, rest = unread[0], unread[1:]
            action = Read(
                doc_id=first.doc_id,
                segments=[first.segment],
                also=[PassageRef(doc_id=h.doc_id, segment=h.segment) for h in rest],
            )
            return PolicyStep(Decision(thought="quick path: read the best hits", action=action))
        return self.inner.answer(state, "quick path")

    def answer(self, state: AgentState, reason: str) -> PolicyStep:
        return self.inner.answer(state, reason)
