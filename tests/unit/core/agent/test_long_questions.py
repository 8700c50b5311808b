"""Questions of any length run: long ones shorten their searches; no validation text reaches a user."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.cli import main
from paperpilot.core.agent.actions import (
    MAX_QUERY_CHARS,
    MAX_QUESTION_CHARS,
    Answer,
    Decision,
    Read,
    Search,
    fit_query,
)
from paperpilot.core.agent.events import Status, event_to_json
from paperpilot.core.agent.llm_policy import LLMPolicy
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.agent.state import AgentState, PolicyStep
from paperpilot.core.library import Library
from paperpilot.core.llm.client import LLMClient, LLMConfig
from paperpilot.core.settings.paths import app_paths
from tests.fakes.openai_server import ScriptedServer

PAPERS = {
    "bert.md": "# BERT pre-training\n\nBERT is pre-trained with masked language modelling on BooksCorpus and "
    "English Wikipedia. It uses a bidirectional Transformer encoder with 340M parameters.\n",
    "gpt.md": "# GPT language models\n\nGPT is trained left to right as an autoregressive language model on "
    "WebText. The largest GPT-2 model has 1.5B parameters and uses a Transformer decoder.\n",
    "t5.md": "# T5 text-to-text\n\nT5 casts every task as text to text and is pre-trained with span corruption "
    "on the C4 corpus.\n",
}
# A realistic comparison question of 452 characters: its terms the papers do not cover add up to
# far more than a search query may hold (this ended `failed` with pydantic's text before).
LONG_QUESTION = (
    "Comparing BERT and GPT-2: how do their pretraining objectives, tokenisation vocabularies, optimisation "
    "schedules, regularisation techniques, evaluation benchmarks, computational requirements, hardware "
    "accelerators, reproducibility practices, licensing arrangements, multilingual extensions, distillation "
    "variants, robustness characteristics, calibration properties and interpretability findings really "
    "differ, according to the papers in my own library?"
)
LIBRARY_TEXT = ("pydantic", "validation error", "String should have", "errors.pydantic.dev", "type=")


def no_library_text(text: str) -> None:
    for word in LIBRARY_TEXT:
        assert word not in text, (word, text[:300])


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    for name, text in PAPERS.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    library = Library(app_paths())
    assert not library.import_paths([tmp_path]).failed
    yield library
    library.close()


def test_the_question_is_as_long_as_reported() -> None:
    assert len(LONG_QUESTION) == 452


def test_fit_query_keeps_keywords_within_the_limit() -> None:
    assert fit_query("  a   short query ") == "a short query"
    long = " ".join(["the", "tokenisation", "of", "the", "vocabularies", "and"] * 40)
    fitted = fit_query(long)
    assert fitted == "tokenisation vocabularies"  # stopwords and repeats go first
    words = " ".join(f"term{i:03d}" for i in range(200))
    fitted = fit_query(words)
    assert len(fitted) <= MAX_QUERY_CHARS and fitted.startswith("term000 term001") and not fitted.endswith(" ")
    assert fitted.split()[-1].startswith("term")  # cut at a word boundary
    chinese = "请假流程" * 200
    assert len(fit_query(chinese)) == MAX_QUERY_CHARS
    # The action itself fits what it is given: no validation error for length, ever.
    assert len(Search(query=words).query) <= MAX_QUERY_CHARS


@pytest.mark.parametrize("mode", ["loop", "quick", "auto"])
def test_a_long_comparison_question_runs_offline(lib: Library, mode: str) -> None:
    events = list(run_agent(LONG_QUESTION, lib, OfflinePolicy(), AgentOptions(mode=mode)))
    result = events[-1].result  # type: ignore[attr-defined]
    assert result.status is not Status.FAILED, result.answer
    assert result.evidence and not result.error
    for ev in events:
        no_library_text(event_to_json(ev))


def test_a_model_asking_for_a_long_query_gets_it_shortened(lib: Library, scripted_llm: ScriptedServer) -> None:
    long_query = " ".join(f"pretraining objective number{i}" for i in range(40))
    assert len(long_query) > MAX_QUERY_CHARS
    search = {"action": "search", "query": long_query}
    answer = {"action": "answer", "text": "BERT uses masked LM [P1].", "evidence_ids": ["P1"], "confidence": 0.6}
    scripted_llm.set_script(
        [{"thought": "search everything", "relevant": True, "synonyms": [], "action": search}]
        + [{"thought": "done", "action": answer}] * 4
    )
    client = LLMClient(LLMConfig(base_url=scripted_llm.url, model="scripted-model", max_retries=0))
    try:
        events = list(run_agent(LONG_QUESTION, lib, LLMPolicy(client, plan=False), AgentOptions(mode="loop")))
    finally:
        client.close()
    searches = [e.action["query"] for e in events if e.type == "action_chosen" and e.action["action"] == "search"]
    assert len(searches) >= 2 and all(len(q) <= MAX_QUERY_CHARS for q in searches)
    assert not [e for e in events if e.type == "warning" and e.code == "malformed_reply"]
    assert events[-1].result.status is not Status.FAILED  # type: ignore[attr-defined]
    for ev in events:
        no_library_text(event_to_json(ev))


class BrokenPolicy:
    """A policy whose every step fails validation, as a bug in building an action would."""

    name = "broken"

    def decide(self, state: AgentState) -> PolicyStep:
        return PolicyStep(Decision(action=Read(doc_id=1, segments=[])))

    def answer(self, state: AgentState, reason: str) -> PolicyStep:
        return PolicyStep(Decision(action=Answer(text="x", confidence="very")))  # type: ignore[arg-type]


def test_validation_errors_in_a_policy_become_plain_warnings_and_a_fallback(lib: Library) -> None:
    events = list(run_agent("How is BERT pre-trained?", lib, BrokenPolicy(), AgentOptions(mode="loop")))
    result = events[-1].result  # type: ignore[attr-defined]
    assert result.status is not Status.FAILED
    # The fallback searched the question's keywords, and the answer came from what was read.
    assert any(e.type == "action_chosen" and e.action["action"] == "search" for e in events)
    assert "masked language modelling" in result.answer
    warnings = [e for e in events if e.type == "warning" and e.code == "policy_error"]
    assert warnings and all("internal check failed" in w.message for w in warnings)
    for ev in events:
        no_library_text(event_to_json(ev))


def test_question_length_limit_is_a_plain_message(lib: Library) -> None:
    ok = " ".join(["masked language modelling BERT"] * 600)[: MAX_QUESTION_CHARS - 10]
    result = list(run_agent(ok, lib, OfflinePolicy()))[-1].result  # type: ignore[attr-defined]
    assert result.status is not Status.FAILED
    too_long = "why " * (MAX_QUESTION_CHARS // 4 + 1)
    result = list(run_agent(too_long, lib, OfflinePolicy()))[-1].result  # type: ignore[attr-defined]
    assert result.status is Status.FAILED
    assert "the limit is 20,000" in result.answer and result.answer.count("\n") == 0
    no_library_text(result.answer)


def test_cli_runs_the_long_question_and_refuses_an_endless_one(
    lib: Library, capsys: pytest.CaptureFixture[str]
) -> None:
    lib.close()
    assert main(["ask", LONG_QUESTION, "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["status"] != "failed" and data["evidence"]
    no_library_text(out + err)
    assert main(["ask", "x" * (MAX_QUESTION_CHARS + 1)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "20,001 characters long; the limit is 20,000" in err
