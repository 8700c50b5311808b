"""Turning a run's trace events into exports (JSON lines, a Markdown report) and references.

Pure functions over the typed events of ``events.py``, shared by the inspector's export, the
chat pane's "copy answer" and anything else that needs a readable account of a run.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel

from ..text.redaction import redact as _redact
from ..text.redaction import redacted_json
from .events import (
    ActionChosen,
    AnswerDrafted,
    Evidence,
    Finished,
    Info,
    Result,
    RoundStarted,
    RunStarted,
    Status,
    ToolResult,
    Warning,
)

STATUS_WORDS: dict[str, str] = {
    Status.ANSWERED.value: "Answered",
    Status.INSUFFICIENT.value: "Insufficient evidence",
    Status.TRUNCATED.value: "Truncated at the round limit",
    Status.CANCELLED.value: "Cancelled",
    Status.FAILED.value: "Failed",
}

_WS = re.compile(r"\s+")


def status_words(status: Status | str) -> str:
    value = status.value if isinstance(status, Status) else str(status)
    return STATUS_WORDS.get(value, value.replace("_", " ").capitalize())


def one_line(text: str, limit: int = 0) -> str:
    """Collapse whitespace (a list item must stay one line); cut at ``limit`` characters with …."""
    text = _WS.sub(" ", text).strip()
    if limit and len(text) > limit:
        return text[: max(1, limit - 1)].rstrip() + "…"
    return text


def describe_action(action: dict[str, Any]) -> str:
    """A short human label for an action dict as ``ActionChosen.action`` carries it (its tool's words)."""
    from .tools import registry  # the tools render hits with one_line: imported when used

    return registry.describe_action(action)


def format_reference(ev: Evidence) -> str:
    """``[1] Title, p. 3, §Section``: the plain reference line until citation styles exist."""
    parts = [f"[{ev.number}] {one_line(ev.title) or 'Untitled'}", f"p. {ev.page}"]
    if ev.section.strip():
        parts.append(f"§{one_line(ev.section)}")
    return ", ".join(parts)


def answer_with_references(result: Result) -> str:
    """The answer text followed by its numbered references, as plain text."""
    text = result.answer.strip()
    if result.evidence:
        text += "\n\nReferences\n" + "\n".join(format_reference(e) for e in result.evidence)
    return text + "\n"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with runs of ``secrets`` and of every registered key masked (``core.redaction``)."""
    return _redact(text, secrets)


def trace_to_jsonl(events: Iterable[BaseModel], secrets: Sequence[str] = ()) -> str:
    """One JSON object per event and line, in order; parses back with ``events.event_from_json``."""
    lines = [redacted_json(ev, secrets) for ev in events]
    return "".join(line + "\n" for line in lines)


def _quote_block(text: str) -> list[str]:
    return ["> " + line if line.strip() else ">" for line in text.strip().splitlines()] or [">"]


def _tokens(prompt: int, completion: int) -> str:
    return f"{prompt} in / {completion} out"


class _Round:
    def __init__(self, number: int) -> None:
        self.number = number
        self.action = ""
        self.lines: list[str] = []
        self.decide_ms = 0.0
        self.tool_ms = 0.0
        self.prompt_tokens = 0
        self.completion_tokens = 0


def trace_result(result: ToolResult) -> list[str]:
    """The Markdown lines for one tool's result, in its tool's words."""
    from .tools import registry

    return registry.trace_result(result)


def trace_to_markdown(events: Iterable[BaseModel], secrets: Sequence[str] = ()) -> str:
    """A readable report of one run: the question, each round's action and findings, the result."""
    head: list[str] = ["# PaperPilot research trace", ""]
    preamble: list[str] = []
    rounds: dict[int, _Round] = {}
    order: list[_Round] = []
    result: Result | None = None

    def round_for(n: int) -> _Round | None:
        if n <= 0:
            return None
        r = rounds.get(n)
        if r is None:
            r = rounds[n] = _Round(n)
            order.append(r)
        return r

    def add(n: int, line: str) -> None:
        r = round_for(n)
        (r.lines if r is not None else preamble).append(line)

    for ev in events:
        if isinstance(ev, RunStarted):
            head += [
                f"**Question:** {one_line(ev.question)}",
                "",
                f"Mode: {ev.mode} · policy: {ev.policy} · at most {ev.max_rounds} rounds",
                "",
            ]
        elif isinstance(ev, RoundStarted):
            round_for(ev.round)
        elif isinstance(ev, ActionChosen):
            r = round_for(ev.round)
            if r is not None:
                r.action = describe_action(ev.action)
                r.decide_ms += ev.decide_ms
                r.prompt_tokens += ev.usage.prompt_tokens
                r.completion_tokens += ev.usage.completion_tokens
            if ev.reasoning.strip():
                add(ev.round, f"- Thought: {one_line(ev.reasoning, 400)}")
        elif isinstance(ev, ToolResult):
            r = round_for(ev.round)
            if r is not None:
                r.tool_ms += ev.tool_ms
            for line in trace_result(ev):
                add(ev.round, line)
        elif isinstance(ev, Warning):
            add(ev.round, f"- ⚠ **Warning** ({ev.code}): {one_line(ev.message, 400)}")
        elif isinstance(ev, Info):
            add(ev.round, f"- Info ({ev.code}): {one_line(ev.message, 400)}")
        elif isinstance(ev, AnswerDrafted):
            forced = " (forced by a stop rule)" if ev.forced else ""
            add(ev.round, f"- Answer drafted{forced}, citing {', '.join(ev.evidence_ids) or 'nothing'}")
        elif isinstance(ev, Finished):
            result = ev.result

    out = list(head)
    if preamble:
        out += [*preamble, ""]
    for r in order:
        out.append(f"## Round {r.number}" + (f" — {r.action}" if r.action else ""))
        out.append("")
        out.append(
            f"- Timing: decide {r.decide_ms:.0f} ms, tool {r.tool_ms:.0f} ms; "
            f"tokens {_tokens(r.prompt_tokens, r.completion_tokens)}"
        )
        out += r.lines
        out.append("")
    if result is not None:
        out += _result_markdown(result)
    return redact("\n".join(out).rstrip() + "\n", secrets)


def _result_markdown(result: Result) -> list[str]:
    out = [
        "## Result",
        "",
        f"- Status: **{status_words(result.status)}**",
        f"- Confidence: {result.confidence:.0%}" + (f" ({'; '.join(result.confidence_notes)})" if result.confidence_notes else ""),
        f"- Rounds: {result.steps} · passages read: {result.passages_read}",
        f"- Tokens: {_tokens(result.usage.prompt_tokens, result.usage.completion_tokens)}",
        f"- Time: {result.seconds:.2f} s · mode: {result.mode} · policy: {result.policy}",
    ]
    if result.error:
        out.append(f"- Error: {one_line(result.error, 400)}")
    out += ["", "### Answer", "", result.answer.strip() or "(no answer)", ""]
    if result.evidence:
        out += ["### Evidence", ""]
        for e in result.evidence:
            state = "verified" if e.verified else "not verified"
            out += [f"**{format_reference(e)}** — {state}", "", *_quote_block(e.text), ""]
    if result.missing:
        out += ["### Still missing", "", *[f"- {one_line(m)}" for m in result.missing], ""]
    return out
