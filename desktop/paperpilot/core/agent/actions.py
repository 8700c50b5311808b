"""The agent's actions: structured, validated, never free text parsed by hope."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator


class _Action(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ListDocuments(_Action):
    action: Literal["list_documents"] = "list_documents"


class Search(_Action):
    action: Literal["search"] = "search"
    query: str = Field(min_length=1, max_length=300)
    k: int = Field(3, ge=1, le=10)
    year_from: int | None = None
    year_to: int | None = None
    doc_ids: list[int] | None = None

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
