"""The answer tool: the policy's answer with the ids of the passages it cites; the loop verifies it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator

from .registry import register
from .tool import Texts, Tool, ToolArgs


class Answer(ToolArgs):
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


class AnswerTool(Tool):
    name = "answer"
    args = Answer
    terminal = True  # the loop verifies and finishes; nothing runs
    prompt = (
        '- answer {"action":"answer","text":"...","evidence_ids":["P1"],"missing":[],"confidence":0.7}: when the '
        "passages read suffice, or nothing more can be found."
    )
    prompt_order = 90
    guess_order = 0
    texts: ClassVar[Texts] = {
        "tool.answer.label": ("write the answer", "撰写答案"),
        "tool.answer.description": ("answer with citations of the passages read", "根据已读段落作答并注明出处"),
        "tool.answer.progress": ("Round {n} · writing the answer…", "第 {n} 轮 · 撰写答案…"),
    }

    def guess(self, args: Mapping[str, Any]) -> bool:
        return "text" in args or "evidence_ids" in args

    def label_params(self, action: Mapping[str, Any], lang: str) -> dict[str, Any]:
        return {}

    def cli_line(self, action: Mapping[str, Any], reasoning: str) -> str:
        return f"   {self.name}"


TOOL = register(AnswerTool())
