"""Typed trace events the agent loop yields, and the run's result; all serialise to JSON lines."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from ..llm.usage import Usage as Usage  # re-exported: the trace events carry it
from ..text.messages import Message
from ..text.redaction import redacted_json


class Status(StrEnum):
    """How a run ended. ``answered``: every required part of the question is supported by cited
    evidence; ``partial``: some are and the answer says which are missing; ``insufficient_evidence``:
    none of the key parts is (what was found is shown as related passages); ``truncated``: the round
    limit forced the answer, which covers every part as far as the checks can tell."""

    ANSWERED = "answered"
    PARTIAL = "partial"
    INSUFFICIENT = "insufficient_evidence"
    TRUNCATED = "truncated"
    CANCELLED = "cancelled"
    FAILED = "failed"


class HitView(BaseModel):
    """What the agent sees of a search hit: cheap to look at."""

    doc_id: int
    segment: int
    title: str
    section: str = ""
    page: int = 1
    score: float = 0.0
    snippet: str = ""
    new: bool = True  # not read yet in this run
    kind: str = ""  # text.kinds value stored at import ("" for an old chunk)
    section_path: str = ""
    section_start: int | None = None  # the segment its section opens with, when the pool knows
    # Which search found it (keyword / meaning / both) and its scores there (see models.Hit).
    found_by: str = "keyword"
    bm25: float | None = None
    dense: float | None = None
    fused: float | None = None
    # A reranked search (agent.rerank): the model's relevance score (0..10; None: not scored)
    # and the hit's place in the search's own order (1 = its first hit).
    rerank: float | None = None
    search_rank: int | None = None


class PassageView(BaseModel):
    """A passage the agent read in full; ``id`` is what an answer cites."""

    id: str
    doc_id: int
    segment: int
    title: str
    section: str = ""
    page: int = 1
    text: str
    ocr: bool = False  # read by OCR from a scanned page
    kind: str = ""
    section_path: str = ""


# The only thing an answer may cite: a passage of the user's library read in this run. What a
# tool finds elsewhere is a ``tools.Candidate``, which has no document or segment to cite.
LibraryPassage = PassageView


class Evidence(BaseModel):
    """A verified citation in the result; ``number`` is the [n] used in the answer text.

    Built only from a ``LibraryPassage`` (``Evidence.of_passage``): citations point into the library.
    """

    number: int
    id: str
    doc_id: int
    title: str
    section: str = ""
    page: int = 1
    segment: int = 0
    text: str
    quote: str = ""
    verified: bool = True
    ocr: bool = False  # the passage's text was read by OCR (the inspector says so)
    kind: str = ""  # the passage's kind and section path, as stored at import
    section_path: str = ""

    @classmethod
    def of_passage(cls, number: int, passage: LibraryPassage, *, quote: str = "", verified: bool = True) -> Evidence:
        """The evidence [``number``] for a library passage read in this run; nothing else is citable."""
        if not isinstance(passage, PassageView):
            raise TypeError(f"only a passage of the library can be cited, not a {type(passage).__name__}")
        p = passage
        return cls(number=number, id=p.id, doc_id=p.doc_id, title=p.title, section=p.section, page=p.page,
                   segment=p.segment, text=p.text, quote=quote, verified=verified, ocr=p.ocr, kind=p.kind,
                   section_path=p.section_path)  # fmt: skip


class PartStatus(BaseModel):
    """One required part of the question (``analysis.Part``) and whether the cited evidence covers it."""

    kind: str  # entity | concept | number | side | hop | slot
    text: str
    covered: bool
    key: bool = True
    evidence: list[int] = Field(default_factory=list)  # the [n] numbers that cover it
    missing: str = ""  # plain words, when not covered
    why: Message | None = None  # the same as a catalogued message


class Result(BaseModel):
    question: str
    status: Status
    answer: str
    evidence: list[Evidence] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)
    steps: int = 0
    confidence: float = 0.0
    confidence_notes: list[str] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    seconds: float = 0.0
    mode: str = "loop"
    policy: str = "offline"
    passages_read: int = 0
    error: str = ""
    parts: list[PartStatus] = Field(default_factory=list)
    answer_type: str = ""
    # The plain-text fields above are in the question's language (what the CLI and JSON show);
    # a window renders these catalogued messages in its own language instead.
    missing_codes: list[Message] = Field(default_factory=list)  # one per ``missing`` item
    confidence_reasons: list[Message] = Field(default_factory=list)  # one per ``confidence_notes`` item
    stop: Message | None = None  # why a run ended without an answer (cancelled, failed, refused)

    def to_cli_json(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "answer": self.answer,
            "evidence": [
                {
                    "id": e.number,
                    "doc_id": e.doc_id,
                    "title": e.title,
                    "section": e.section,
                    "page": e.page,
                    "segment": e.segment,
                    "text": e.text,
                    "kind": e.kind,
                    "section_path": e.section_path,
                }
                for e in self.evidence
            ],
            "missing": self.missing,
            "steps": self.steps,
            "confidence": round(self.confidence, 3),
            "usage": self.usage.model_dump(),
            "seconds": round(self.seconds, 3),
            "mode": self.mode,
            "policy": self.policy,
            "parts": [p.model_dump() for p in self.parts],
            **({"error": self.error} if self.error else {}),
        }


class _Event(BaseModel):
    round: int = 0
    elapsed_ms: float = 0.0


class RunStarted(_Event):
    type: Literal["run_started"] = "run_started"
    question: str
    mode: str
    policy: str
    max_rounds: int


class RoundStarted(_Event):
    type: Literal["round_started"] = "round_started"


class ActionChosen(_Event):
    type: Literal["action_chosen"] = "action_chosen"
    action: dict[str, Any]
    reasoning: str = ""
    usage: Usage = Field(default_factory=Usage)
    decide_ms: float = 0.0


class ToolResult(_Event):
    type: Literal["tool_result"] = "tool_result"
    tool: str
    query: str = ""
    hits: list[HitView] = Field(default_factory=list)
    passages: list[PassageView] = Field(default_factory=list)
    documents: list[dict[str, Any]] = Field(default_factory=list)
    # What a tool found outside the library (tools.Candidate as a dict): shown, never cited.
    candidates: list[dict[str, Any]] = Field(default_factory=list)
    new_items: int = 0
    tool_ms: float = 0.0
    note: str = ""


class Warning(_Event):
    type: Literal["warning"] = "warning"
    code: str
    message: str
    msg: Message | None = None  # ``message`` as a catalogued message, when the windows show it


class Info(_Event):
    """Something worth showing in the trace that is not a problem (a rewritten query, a plan …)."""

    type: Literal["info"] = "info"
    code: str
    message: str
    data: dict[str, Any] = Field(default_factory=dict)
    msg: Message | None = None  # ``message`` as a catalogued message, when the windows show it


class AnswerDrafted(_Event):
    type: Literal["answer_drafted"] = "answer_drafted"
    text: str
    evidence_ids: list[str] = Field(default_factory=list)
    confidence: float = 0.0
    forced: bool = False


class Finished(_Event):
    type: Literal["finished"] = "finished"
    result: Result


Event = Annotated[
    RunStarted | RoundStarted | ActionChosen | ToolResult | Warning | Info | AnswerDrafted | Finished,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[
    RunStarted | RoundStarted | ActionChosen | ToolResult | Warning | Info | AnswerDrafted | Finished
] = TypeAdapter(Event)


def event_to_json(event: BaseModel) -> str:
    """One event as a JSON line, with any registered API key masked."""
    return redacted_json(event)


def event_from_json(line: str) -> BaseModel:
    return EVENT_ADAPTER.validate_json(line)
