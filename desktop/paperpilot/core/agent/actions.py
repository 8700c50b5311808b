"""The agent's actions: structured, validated, never free text parsed by hope.

Each action is a tool's argument model (``core/agent/tools/``); this module keeps the names
the rest of the code imports, and the question's length limit.
"""

from __future__ import annotations

from typing import Any, TypeAlias

from pydantic import TypeAdapter

from .tools import registry
from .tools.answer import Answer
from .tools.list_documents import ListDocuments
from .tools.notes import Notes
from .tools.read import PassageRef, Read
from .tools.search import MAX_QUERY_CHARS, Search, fit_query
from .tools.tool import Decision, ToolArgs

# Any registered tool's arguments; the discriminated union itself is ``registry.action_union()``,
# rebuilt when a tool registers.
Action: TypeAlias = ToolArgs

# Questions are welcome at any length a person types or pastes; past this, it is not a question.
MAX_QUESTION_CHARS = 20_000


def question_too_long(question: str) -> str | None:
    """A plain sentence when ``question`` is over the limit, else None."""
    n = len(question.strip())
    if n <= MAX_QUESTION_CHARS:
        return None
    return (
        f"The question is {n:,} characters long; the limit is {MAX_QUESTION_CHARS:,}. "
        "Shorten it, or ask about one part at a time."
    )


def action_adapter() -> TypeAdapter[Any]:
    """Validates an action dict against every registered tool (see ``registry.action_adapter``)."""
    return registry.action_adapter()


def decision_json_schema() -> dict[str, Any]:
    """JSON schema of a Decision, for ``response_format`` / tool calling."""
    return registry.decision_json_schema()


__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_QUESTION_CHARS",
    "Action",
    "Answer",
    "Decision",
    "ListDocuments",
    "Notes",
    "PassageRef",
    "Read",
    "Search",
    "action_adapter",
    "decision_json_schema",
    "fit_query",
    "question_too_long",
]
