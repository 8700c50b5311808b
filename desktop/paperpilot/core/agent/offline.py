"""The offline policy: no language model. Keyword search, expansion with what was read, extractive answer."""

from __future__ import annotations

from ..textutil import has_cjk, split_sentences
from .actions import Answer, Decision, PassageRef, Read, Search
from .events import PassageView
from .state import AgentState, PolicyStep


def _term_in(term: str, text_lower: str) -> bool:
    if has_cjk(term):
        grams = [term[i : i + 2] for i in range(max(1, len(term) - 1))]
        return sum(g in text_lower for g in grams) / len(grams) >= 0.5
    return term[: max(4, len(term) - 2)] in text_lower


class OfflinePolicy:
    """Deterministic research without a model.

    Round by round: search the question's keywords; read the best unread hits; then search
    again with a bridge entity or a term the documents use (candidate keywords) next to the
    question terms still uncovered; answer when the reading budget is spent or nothing new
    turns up. The answer is extractive: the most relevant sentences, each cited.
    """

    name = "offline"

    def __init__(self, k: int = 3, read_budget: int = 6, answer_sentences: int = 3) -> None:
        self.k = k
        self.read_budget = read_budget
        self.answer_sentences = answer_sentences

    # --- deciding ------------------------------------------------------------------------------

    def decide(self, state: AgentState) -> PolicyStep:
        terms = state.question_terms + [t for t in state.extra_terms if t not in state.question_terms]
        if not state.queries_tried:
            q = " ".join(terms) or state.question
            return PolicyStep(Decision(thought="search the question's keywords", action=Search(query=q, k=self.k)))
        budget = self.read_budget - len(state.passages)
        unread = [h for h in state.last_hits if (h.doc_id, h.segment) not in state.read_keys]
        if unread and budget > 0:
            pick = unread[:budget]
            return PolicyStep(
                Decision(
                    thought=f"read the {len(pick)} best unread hit(s)",
                    action=Read(
                        doc_id=pick[0].doc_id,
                        segments=[pick[0].segment],
                        also=[PassageRef(doc_id=h.doc_id, segment=h.segment) for h in pick[1:]],
                    ),
                )
            )
        if budget > 0:
            expansion = self._expansion_query(state)
            if expansion:
                return PolicyStep(
                    Decision(thought="expand with terms the documents use", action=Search(query=expansion, k=self.k)),
                    infos=[("expansion", f"candidate keywords → {expansion!r}")],
                )
        return self.answer(state, "reading budget spent" if budget <= 0 else "no new query to try")

    def _expansion_query(self, state: AgentState) -> str | None:
        read_text = " ".join(p.title + " " + p.text for p in state.passages.values()).lower()
        uncovered = [t for t in state.question_terms if not _term_in(t, read_text)]
        titles = {p.title.lower() for p in state.passages.values()}
        for cand in state.candidate_keywords:
            if cand.lower() in titles:
                continue
            q = " ".join([cand, *uncovered[:2]]) if uncovered else cand
            if not state.tried(q):
                return q
        if uncovered:
            q = " ".join(uncovered)
            if not state.tried(q):
                return q
        return None

    # --- answering -----------------------------------------------------------------------------

    def answer(self, state: AgentState, reason: str) -> PolicyStep:
        terms = state.question_terms
        scored: list[tuple[float, int, str, PassageView]] = []
        order = 0
        for p in state.passages.values():
            for s in split_sentences(p.text):
                low = s.lower()
                hits = sum(_term_in(t, low) for t in terms)
                if hits == 0:
                    continue
                # Prefer sentences that match many question terms, then earlier ones.
                scored.append((hits / max(1, len(terms)) + 0.1 * (p.title.lower() in state.question.lower()), -order, s, p))
                order += 1
        scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
        chosen = scored[: self.answer_sentences]
        if not chosen:
            return PolicyStep(
                Decision(
                    thought=f"answer ({reason}): nothing read matches the question",
                    action=Answer(text="", evidence_ids=[], missing=[state.question], confidence=0.0),
                )
            )
        # Keep document order inside the answer so the extract reads naturally.
        chosen.sort(key=lambda x: (list(state.passages).index(x[3].id), -x[1]))
        parts = [f"{s.rstrip()} [{p.id}]" for _, _, s, p in chosen]
        text = "\n".join(f"- {part}" for part in parts)
        all_read = " ".join(p.text for _, _, _, p in chosen).lower()
        missing = [t for t in terms if not _term_in(t, all_read)]
        conf = sum(x[0] for x in chosen) / len(chosen)
        return PolicyStep(
            Decision(
                thought=f"answer ({reason}): {len(chosen)} extracted sentence(s)",
                action=Answer(
                    text=text,
                    evidence_ids=list(dict.fromkeys(p.id for _, _, _, p in chosen)),
                    missing=[f"no sentence mentions “{t}”" for t in missing],
                    confidence=round(min(0.9, conf), 2),
                ),
            )
        )
