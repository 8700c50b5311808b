"""Reranking a search's candidates with the model (agent.rerank), against a scripted server.

Real HTTP to a scripted OpenAI-compatible server on 127.0.0.1 and a real Library: the search
fetches more candidates than it keeps, the "model" scores their skims, code keeps only scores
of candidates that exist, and a reply that does not parse keeps the search's order with one
warning — never a failed run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from paperpilot.core.agent.events import Finished, HitView, Info, Result, ToolResult, Warning
from paperpilot.core.agent.llm_policy import RERANK_SYSTEM_PROMPT, LLMPolicy
from paperpilot.core.agent.loop import AgentOptions, Event, run_agent
from paperpilot.core.agent.report import trace_to_markdown
from paperpilot.core.agent.rerank import RERANK_CANDIDATES, order_by_scores, valid_scores
from paperpilot.core.agent.tools.search import hit_scores
from paperpilot.core.library import Library
from paperpilot.core.llm.client import LLMClient, LLMConfig
from paperpilot.core.settings.paths import app_paths
from tests.fakes.openai_server import ScriptedServer, http_error

QUESTION = "How do staff report a sick day?"
KEY = "absence form in the HR portal"

DISTRACTOR = (
    "# Staff Wellbeing Survey {i}\n\n"
    "Staff were asked how a sick day affects the team, how often staff take a sick day, and whether a "
    "sick day is reported honestly. Staff answers about the sick day varied; staff report {extra}.\n"
)
KEY_PAPER = (
    "# Absence Procedure\n\n"
    "Employees who cannot come to work file an absence form in the HR portal before 9 am. "
    "The line manager approves the form within one working day, and the payroll office is told of "
    "every absence longer than a week; a doctor's note is needed after three days. The portal keeps a "
    "record of each report for the annual review of attendance.\n"
)


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    root = tmp_path_factory.mktemp("rerank-papers")
    files = [root / "key.md"]
    files[0].write_text(KEY_PAPER, encoding="utf-8")
    for i in range(1, 8):
        # Different lengths: no BM25 ties, so the search's order is the same every run.
        extra = " ".join(["tiredness"] * i)
        files.append(root / f"survey{i}.md")
        files[-1].write_text(DISTRACTOR.format(i=i, extra=extra), encoding="utf-8")
    library = Library(app_paths(root / "home"))
    assert not library.import_paths(files).failed
    yield library
    library.close()


def client_for(server: ScriptedServer) -> LLMClient:
    return LLMClient(LLMConfig(base_url=server.url, model="scripted-model", timeout_s=2.0, connect_timeout_s=1.0,
                               max_retries=0))  # fmt: skip


def is_rerank(request: dict[str, Any]) -> bool:
    return request["messages"][0]["content"] == RERANK_SYSTEM_PROMPT


def candidates(request: dict[str, Any]) -> dict[str, str]:
    """The rerank prompt's candidates: id -> its line."""
    user = request["messages"][-1]["content"]
    return dict(re.findall(r"^\[(H\d+)\] (.*)$", user, flags=re.MULTILINE))


def scores_for_key(request: dict[str, Any]) -> dict[str, Any]:
    """A "model" that knows the answer: the absence form 9, every other candidate 1."""
    assert is_rerank(request)
    return {"scores": [{"id": h, "score": 9 if "absence form" in line else 1} for h, line in candidates(request).items()]}


def answer_p(request: dict[str, Any]) -> dict[str, Any]:
    """The decision after the automatic read: answer from the passage about the absence form."""
    user = request["messages"][-1]["content"]
    pid = re.search(r"^\[(P\d+)\] doc \d+ seg \d+ — Absence Procedure", user, flags=re.MULTILINE)
    ids = [pid.group(1)] if pid else ["P1"]
    text = f"Employees file an absence form in the HR portal before 9 am [{ids[0]}]."
    return {"thought": "enough", "action": {"action": "answer", "text": text, "evidence_ids": ids, "missing": [],
                                            "confidence": 0.8}}  # fmt: skip


def run(lib: Library, server: ScriptedServer, *, rerank: bool = True) -> tuple[list[Event], Result]:
    with client_for(server) as client:
        policy = LLMPolicy(client, plan=False, rerank=rerank)
        events = list(run_agent(QUESTION, lib, policy, AgentOptions(max_rounds=4, mode="loop")))
    finished = [e for e in events if isinstance(e, Finished)]
    assert len(finished) == 1
    return events, finished[0].result


def searches(events: list[Event]) -> list[ToolResult]:
    return [e for e in events if isinstance(e, ToolResult) and e.tool == "search"]


def test_without_rerank_the_key_passage_is_not_in_the_first_hits(lib: Library, scripted_llm: ScriptedServer) -> None:
    # The set-up the next tests rely on: the search alone ranks the key passage below k = 3.
    hits = lib.search("staff report sick day", RERANK_CANDIDATES)
    places = [i for i, h in enumerate(hits) if KEY in h.snippet or h.title.startswith("Absence")]
    assert places and 3 <= places[0] < RERANK_CANDIDATES
    scripted_llm.set_script([answer_p])
    events, _ = run(lib, scripted_llm, rerank=False)
    assert len(scripted_llm.requests) == 1  # only the decision: no rerank call
    (search,) = searches(events)
    assert len(search.hits) == 3 and all(h.search_rank is None and h.rerank is None for h in search.hits)
    assert not any(h.title.startswith("Absence") for h in search.hits)


def test_the_model_reranks_the_candidates_and_the_best_are_read(lib: Library, scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([scores_for_key, answer_p])
    events, result = run(lib, scripted_llm)
    assert scripted_llm.remaining == 0 and not scripted_llm.unexpected
    rerank_request = scripted_llm.requests[0]
    assert is_rerank(rerank_request)
    shown = candidates(rerank_request)
    assert len(shown) == RERANK_CANDIDATES  # more candidates than the search keeps
    # Library text travels inside the data block, as in every other prompt.
    user = rerank_request["messages"][-1]["content"]
    assert user.index("<documents>") < user.index("[H1]") < user.index("</documents>")
    (search,) = searches(events)
    top = search.hits[0]
    assert top.title.startswith("Absence") and top.rerank == 9 and top.search_rank is not None and top.search_rank > 3
    assert [h.rerank for h in search.hits] == [9, 1, 1] and search.note == "reranked by the model"
    # The trace's rerank line: the whole order with the scores, the dropped ones marked.
    (info,) = [e for e in events if isinstance(e, Info) and e.code == "rerank"]
    assert info.data["by"] == "model" and info.data["kept"] == 3 and len(info.data["order"]) == RERANK_CANDIDATES
    assert info.data["order"][0]["search_rank"] == top.search_rank and info.data["order"][0]["score"] == 9
    assert "dropped" in info.message and f"was #{top.search_rank}" in info.message
    # The key passage was read and cited, and the rerank's tokens count in the run's usage.
    assert any(e.title.startswith("Absence") and e.verified for e in result.evidence)
    assert result.usage.prompt_tokens == sum(p for p, _ in scripted_llm.usage_sent)
    assert info.data["usage"]["prompt_tokens"] == scripted_llm.usage_sent[0][0] > 0
    # The Markdown trace and the CLI's hit scores show the model's score and the search's place.
    md = trace_to_markdown(events)
    assert f"model 9/10, search #{top.search_rank}" in md and "Info (rerank): by the model" in md
    assert hit_scores(top).endswith(f"model 9/10, search #{top.search_rank}")


def test_a_reply_that_does_not_parse_keeps_the_search_order(lib: Library, scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script(["I think H5 is best, then H2", answer_p])
    events, result = run(lib, scripted_llm)
    (search,) = searches(events)
    plain = lib.search("staff report sick day", 3)
    assert [(h.doc_id, h.segment) for h in search.hits] == [(h.doc_id, h.seq) for h in plain]
    assert [h.search_rank for h in search.hits] == [1, 2, 3] and all(h.rerank is None for h in search.hits)
    assert search.note == "search order kept"
    bad = [e for e in events if isinstance(e, Warning) and e.code == "rerank"]
    assert len(bad) == 1 and "did not parse" in bad[0].message and bad[0].msg is not None
    assert bad[0].msg.text("zh")  # said in both languages
    assert result.status.value != "failed"


def test_only_ids_of_candidates_shown_count(lib: Library, scripted_llm: ScriptedServer) -> None:
    def made_up(request: dict[str, Any]) -> dict[str, Any]:
        return {"scores": [{"id": "H99", "score": 10}, {"id": "doc 3", "score": 10}, {"id": "h3", "score": 42},
                           {"id": "H2", "score": "high"}, {"id": "H3", "score": 1}]}  # fmt: skip

    scripted_llm.set_script([made_up, answer_p])
    events, _ = run(lib, scripted_llm)
    (search,) = searches(events)
    # H3 (case aside) scored 42 → clamped to 10, ranked first; its repeat is ignored; the
    # unscored candidates follow in the search's order.
    assert [h.search_rank for h in search.hits] == [3, 1, 2]
    assert [h.rerank for h in search.hits] == [10, None, None]
    assert not [e for e in events if isinstance(e, Warning) and e.code == "rerank"]


def test_a_failed_rerank_call_keeps_the_search_order_and_the_run_goes_on(
    lib: Library, scripted_llm: ScriptedServer
) -> None:
    scripted_llm.set_script([http_error(500), answer_p])
    events, result = run(lib, scripted_llm)
    (search,) = searches(events)
    assert [h.search_rank for h in search.hits] == [1, 2, 3]
    (bad,) = [e for e in events if isinstance(e, Warning) and e.code == "rerank"]
    assert "could not score" in bad.message
    assert result.status.value != "failed"


def test_the_quick_path_reranks_too(lib: Library, scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([scores_for_key, answer_p])
    with client_for(scripted_llm) as client:
        policy = LLMPolicy(client, plan=False, rerank=True)
        events = list(run_agent(QUESTION, lib, policy, AgentOptions(mode="quick")))
    (search,) = searches(events)
    assert search.hits[0].title.startswith("Absence")
    read = [e for e in events if isinstance(e, ToolResult) and e.tool == "read"]
    assert read and read[0].passages[0].title.startswith("Absence")


# --- the checks in code, without a server ----------------------------------------------------------


def test_valid_scores_keep_only_known_ids_and_numbers() -> None:
    assert valid_scores(None, 3) is None
    assert valid_scores({"scores": "H1"}, 3) is None
    assert valid_scores({"scores": [{"id": "H4", "score": 5}]}, 3) is None  # no candidate H4
    got = valid_scores({"scores": [{"id": " h2 ", "score": -3}, {"id": "H1", "score": True},
                                   {"id": "H1", "score": float("nan")}, {"id": "H3", "score": 7.5}]}, 3)  # fmt: skip
    assert got == {1: 0.0, 2: 7.5}
    assert valid_scores({"ranking": [{"id": "H1", "score": 3}]}, 1) == {0: 3.0}


def test_order_by_scores_puts_unscored_candidates_last_in_search_order() -> None:
    assert order_by_scores(5, {3: 8.0, 1: 8.0, 4: 2.0}) == [1, 3, 4, 0, 2]
    assert order_by_scores(3, {}) == [0, 1, 2]


def test_hit_scores_name_a_candidate_the_model_did_not_score() -> None:
    h = HitView(doc_id=1, segment=0, title="t", score=1.0, search_rank=4)
    assert hit_scores(h).endswith("model no score, search #4")
    assert json.loads(h.model_dump_json())["search_rank"] == 4



@pytest.mark.parametrize("broken", ["made up", "raises"])
def test_a_reranker_that_breaks_its_contract_keeps_the_search_order(lib: Library, broken: str) -> None:
    from paperpilot.core.agent.offline import OfflinePolicy
    from paperpilot.core.agent.rerank import Reranking

    def rerank(question: str, hits: list[HitView], cancel: Any = None) -> Reranking:
        if broken == "raises":
            raise RuntimeError("boom")
        return Reranking([0, 0, 99], {0: 5.0})  # a repeat and an index no candidate has

    class Policy(OfflinePolicy):
        def reranker(self) -> Any:
            return rerank

    events = list(run_agent(QUESTION, lib, Policy(k=3), AgentOptions(max_rounds=2, mode="loop")))
    search = searches(events)[0]
    assert [h.search_rank for h in search.hits] == [1, 2, 3] and all(h.rerank is None for h in search.hits)
    (bad,) = [e for e in events if isinstance(e, Warning) and e.code == "rerank"]
    assert ("boom" if broken == "raises" else "not an order") in bad.message
    assert isinstance(events[-1], Finished) and events[-1].result.status.value != "failed"


def test_the_cli_trace_shows_the_rerank(lib: Library, scripted_llm: ScriptedServer) -> None:
    from paperpilot.cli.ask import _trace_line

    scripted_llm.set_script([scores_for_key, answer_p])
    events, _ = run(lib, scripted_llm)
    lines = [line for ev in events if (line := _trace_line(ev))]
    assert any(line.startswith("   · by the model, 8 candidates, 3 kept: doc ") for line in lines), lines
    assert any(line.startswith("   → 3 hits") and line.endswith("(reranked by the model)") for line in lines), lines
