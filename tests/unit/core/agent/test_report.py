"""Trace exports (JSON lines, Markdown) and plain references, from a real offline run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from paperpilot.core.agent.events import (
    Evidence,
    Finished,
    Info,
    Result,
    RoundStarted,
    RunStarted,
    Status,
    Warning,
    event_from_json,
)
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.agent.report import (
    answer_with_references,
    describe_action,
    format_reference,
    one_line,
    status_words,
    trace_to_jsonl,
    trace_to_markdown,
)
from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths

PAPERS = {
    "sparrows.md": "# Urban Sparrows\n\n## Decline\n\nHouse sparrows nest in city walls. Their population fell by half since 1990 because chicks starved.\n",
    "diet.md": "# Sparrow Diet\n\n## Food\n\nSparrows eat seeds and insects. Chicks are fed insects almost exclusively.\n",
}


@pytest.fixture
def events(tmp_path: Path) -> Iterator[list[BaseModel]]:
    for name, text in PAPERS.items():
        (tmp_path / name).write_text(text)
    lib = Library(app_paths())
    lib.import_paths([tmp_path])
    try:
        yield list(run_agent("Why did house sparrows decline?", lib, OfflinePolicy(), AgentOptions(mode="loop")))
    finally:
        lib.close()


def test_jsonl_parses_back_to_the_same_events(events: list[BaseModel]) -> None:
    text = trace_to_jsonl(events)
    lines = text.splitlines()
    assert len(lines) == len(events)
    assert text.endswith("\n")
    back = [event_from_json(line) for line in lines]
    assert back == events
    assert json.loads(lines[0])["type"] == "run_started"
    assert json.loads(lines[-1])["type"] == "finished"


def test_markdown_report_has_question_rounds_and_result(events: list[BaseModel]) -> None:
    md = trace_to_markdown(events)
    assert md.startswith("# PaperPilot research trace")
    assert "**Question:** Why did house sparrows decline?" in md
    assert "## Round 1 — search" in md
    assert "- Timing: decide" in md
    assert "## Result" in md
    assert "### Evidence" in md
    result = next(e for e in events if isinstance(e, Finished)).result
    assert result.status is Status.ANSWERED
    assert f"**{format_reference(result.evidence[0])}** — verified" in md
    assert "> " in md  # passages quoted


def test_warnings_and_infos_are_reported() -> None:
    evs: list[BaseModel] = [
        RunStarted(question="q", mode="loop", policy="x", max_rounds=3),
        Info(code="route", message="complex question"),
        RoundStarted(round=1),
        Warning(round=1, code="repeated_query", message="the query\nwas tried"),
    ]
    md = trace_to_markdown(evs)
    assert "- Info (route): complex question" in md
    assert "- ⚠ **Warning** (repeated_query): the query was tried" in md


def test_secrets_are_redacted() -> None:
    secret = "sk-very-secret-123"
    evs: list[BaseModel] = [Warning(round=1, code="llm", message=f"server echoed {secret}")]
    assert secret not in trace_to_jsonl(evs, secrets=[secret])
    assert secret not in trace_to_markdown(evs, secrets=[secret])
    assert "***" in trace_to_jsonl(evs, secrets=[secret])


def test_reference_format() -> None:
    e = Evidence(number=2, id="P1", doc_id=1, title="Urban  Sparrows", section="Decline", page=3, text="t")
    assert format_reference(e) == "[2] Urban Sparrows, p. 3, §Decline"
    e2 = e.model_copy(update={"section": ""})
    assert format_reference(e2) == "[2] Urban Sparrows, p. 3"
    r = Result(question="q", status=Status.ANSWERED, answer="Because [2].", evidence=[e])
    assert answer_with_references(r) == "Because [2].\n\nReferences\n[2] Urban Sparrows, p. 3, §Decline\n"


def test_small_helpers() -> None:
    assert status_words(Status.INSUFFICIENT) == "Insufficient evidence"
    assert status_words("cancelled") == "Cancelled"
    assert one_line("a\n  b", 0) == "a b"
    assert one_line("abcdef", 4) == "abc…"
    assert describe_action({"action": "search", "query": "x y"}) == "search “x y”"
    assert describe_action({"action": "read", "doc_id": 3, "segments": [1, 2]}) == "read 2 passages (doc 3 seg 1, doc 3 seg 2)"
    assert describe_action({"action": "answer", "text": "t"}) == "write the answer"
