"""The agent's actions: structured, validated, never free text parsed by hope."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from ..text.kinds import parse_kinds
from ..text.language import query_terms

# A search query is keywords; the schema tells a model so, and fit_query makes any text fit.
MAX_QUERY_CHARS = 300
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


def fit_query(text: str, limit: int = MAX_QUERY_CHARS) -> str:
    """``text`` as a search query of at most ``limit`` characters.

    Short text is kept as it is (whitespace collapsed). Longer text — a whole question, the
    uncovered terms of a long one — keeps its keywords (stopwords and repeats dropped, in
    order), cut at a word boundary: a long question must shorten its searches, never fail them.
    """
    flat = " ".join(str(text).split())
    if len(flat) <= limit:
        return flat
    terms = query_terms(flat)
    short = " ".join(terms) if terms else flat
    if len(short) <= limit:
        return short
    cut = short[:limit]
    space = cut.rfind(" ")
    # Chinese has no spaces: a hard cut is all there is.
    return cut[:space] if space > limit // 2 else cut


class _Action(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ListDocuments(_Action):
    action: Literal["list_documents"] = "list_documents"


class Search(_Action):
    action: Literal["search"] = "search"
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int = Field(3, ge=1, le=10)
    year_from: int | None = None
    year_to: int | None = None
    doc_ids: list[int] | None = None
    # Kinds of passage to search (text.kinds values). None: the body, abstract, captions and
    # appendices; a policy asks for ["references"] when the question is about what is cited.
    kinds: list[str] | None = None

    @field_validator("kinds")
    @classmethod
    def _known_kinds(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return None
        known = [k.value for k in parse_kinds(v)]  # ValueError names an unknown kind
        return known or None

    @field_validator("query", mode="before")
    @classmethod
    def _fit(cls, v: Any) -> Any:
        # Before the length check: a query built from a long question (or a model's long
        # query) is shortened to its keywords instead of failing validation.
        return fit_query(v) if isinstance(v, str) else v

    @field_validator("query")
    @classmethod
    def _strip(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v:
            raise ValueError("empty query")
        return v


class PassageRef(BaseModel):
    doc_id: int
    segment: int


class Read(_Action):
    """Read segments of one document in full; ``also`` reads segments of other documents too."""

    action: Literal["read"] = "read"
    doc_id: int
    segments: list[int] = Field(min_length=1, max_length=6)
    also: list[PassageRef] = Field(default_factory=list, max_length=6)

    def refs(self) -> list[tuple[int, int]]:
        out = [(self.doc_id, s) for s in self.segments] + [(r.doc_id, r.segment) for r in self.also]
        return list(dict.fromkeys(out))


class Answer(_Action):
    action: Literal["answer"] = "answer"
    text: str
    evidence_ids: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    confidence: float = Field(0.5, ge=0.0, le=1.0)

    @field_validator("confidence", mode="before")
    @classmethod
    def _clamp(cls, v: Any) -> Any:
        if isinstance(v, int | float):
            return min(1.0, max(0.0, float(v)))
        return v


class Notes(_Action):
    """Read the user's note on a document; with ``text``, write it (only when the user asked to remember)."""

    action: Literal["notes"] = "notes"
    doc_id: int
    text: str | None = Field(None, max_length=20000)


Action = Annotated[ListDocuments | Search | Read | Notes | Answer, Field(discriminator="action")]


class Decision(BaseModel):
    """What a policy returns for one round: an action and, optionally, why."""

    model_config = ConfigDict(extra="ignore")

    thought: str = ""
    action: Action


ACTION_ADAPTER: TypeAdapter[ListDocuments | Search | Read | Notes | Answer] = TypeAdapter(Action)


def decision_json_schema() -> dict[str, Any]:
    """JSON schema of a Decision, for ``response_format`` / tool calling."""
    return Decision.model_json_schema()
