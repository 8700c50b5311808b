"""What the loop does when a policy step breaks: plain words for the user, and a way on.

A policy builds actions from model replies and library text; if one ever fails validation,
the user must see neither pydantic's text nor a failed run: the step becomes a warning in
plain words and a fallback (a search on the question's keywords not tried yet, or an
extractive answer from what was read). Details of unexpected errors go to the log.
"""

from __future__ import annotations

from pydantic import ValidationError

from ..text.messages import Message, msg
from .actions import Answer, Decision, PassageRef, Read, Search, fit_query
from .extractive import extractive_answer
from .state import AgentState, PolicyStep


def plain_error(e: BaseException) -> str:
    """One phrase for an unexpected error, safe to show: never a library's own message."""
    if isinstance(e, ValidationError):
        return f"an internal check failed ({e.title} got a value it does not accept)"
    return f"an internal error ({type(e).__name__})"


def fallback_step(state: AgentState, e: BaseException, k: int = 3) -> PolicyStep | None:
    """The step a policy without judgement would take: read the best unread hits of the last
    search, else search the question's keywords not tried yet; None when neither is left."""
    why = plain_error(e)
    unread = [h for h in state.last_hits if (h.doc_id, h.segment) not in state.read_keys][:k]
    if unread:
        first, rest = unread[0], unread[1:]
        action: Read | Search = Read(
            doc_id=first.doc_id,
            segments=[first.segment],
            also=[PassageRef(doc_id=h.doc_id, segment=h.segment) for h in rest],
        )
        warning: tuple[str, str | Message] = ("policy_error", msg("policy.fallback_read", why=why))
        return PolicyStep(Decision(thought="fallback: read the best hits", action=action), warnings=[warning])
    terms = state.question_terms
    tried: set[str] = set()
    for q in state.queries_tried:
        tried.update(q.lower().split())
    fresh = [t for t in terms if t not in tried]
    warning = ("policy_error", msg("policy.fallback_search", why=why))
    for words in (fresh[:8], terms[:8]):
        query = fit_query(" ".join(words))
        if query and not state.tried(query):
            action = Search(query=query, k=k)
            return PolicyStep(Decision(thought="fallback: search the question's keywords", action=action),
                              warnings=[warning])  # fmt: skip
    return None


def fallback_answer(state: AgentState, reason: str, e: BaseException) -> PolicyStep:
    """An extractive answer from the passages read (the offline policy's), when the policy's failed."""
    warning: tuple[str, str | Message] = ("policy_error", msg("policy.fallback_answer", why=plain_error(e)))
    try:
        step = extractive_answer(state, reason)
    except (ValidationError, ValueError, TypeError, KeyError):
        step = PolicyStep(
            Decision(
                thought=f"answer ({reason}): fallback",
                action=Answer(text="", evidence_ids=[], missing=[state.question], confidence=0.0),
            )
        )
    step.warnings.insert(0, warning)
    return step
