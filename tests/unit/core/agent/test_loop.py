"""The loop's rules with a scripted in-process policy, over a real library or, where a tiny
pool is enough, the in-memory one (tests/fakes/memory_pool.py: no index needed)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.core.agent.actions import Answer, Decision, ListDocuments, Read, Search
from paperpilot.core.agent.events import Finished, Status, event_from_json
from paperpilot.core.agent.loop import AgentOptions, run_agent, run_to_result
from paperpilot.core.agent.router import route
from paperpilot.core.agent.state import AgentState, DocumentPool, PolicyFailure, PolicyStep
from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths
from tests.fakes.memory_pool import MemoryPool

PAPERS = {
    "sparrows.md": "# Urban Sparrows\n\nHouse sparrows nest in city walls. Their population fell by half since 1990.\n",
    "bridges.md": "# Bridge Design\n\nSuspension bridges carry loads through cables. The Golden Gate opened in 1937.\n",
    "diet.md": "# Sparrow Diet\n\nSparrows eat seeds and insects. Chicks are fed insects almost exclusively.\n",
}


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    for name, text in PAPERS.items():
        (tmp_path / name).write_text(text)
    library = Library(app_paths())
    library.import_paths([tmp_path])
    yield library
    library.close()


@pytest.fixture
def pool() -> MemoryPool:
    """The same papers in memory: each paragraph after the title is a segment, as in the library."""
    return MemoryPool.from_markdown(PAPERS)


class Script:
    """A policy that plays back decisions; ``answer`` plays ``final``."""

    name = "script"

    def __init__(self, steps: list[object], final: Answer | None = None) -> None:
        self.steps = list(steps)
        self.final = final or Answer(text="", evidence_ids=[], confidence=0.0)
        self.answer_reasons: list[str] = []
        self.seen_notices: list[str] = []

    def decide(self, state: AgentState) -> PolicyStep:
        self.seen_notices.extend(state.notices)
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return PolicyStep(Decision(thought="scripted", action=step))  # type: ignore[arg-type]

    def answer(self, state: AgentState, reason: str) -> PolicyStep:
        self.answer_reasons.append(reason)
        return PolicyStep(Decision(action=self.final))


def doc_id(lib: DocumentPool, title: str) -> int:
    return next(d.doc_id for d in lib.list_documents() if d.title == title)


def events(lib: DocumentPool, policy: Script, question: str = "Why did sparrow numbers fall?", **opts: object) -> list:  # type: ignore[type-arg]
    return list(run_agent(question, lib, policy, AgentOptions(mode="loop", **opts)))  # type: ignore[arg-type]


def test_search_read_answer_verified(pool: MemoryPool) -> None:
    sid = doc_id(pool, "Urban Sparrows")
    script = Script(
        [
            Search(query="sparrow population"),
            Read(doc_id=sid, segments=[0]),
            Answer(text='House sparrows "fell by half since 1990" [P1].', evidence_ids=["P1"], confidence=0.8),
        ]
    )
    evs = events(pool, script)
    types = [e.type for e in evs]
    assert types[0] == "run_started" and types[-1] == "finished"
    assert types.count("round_started") == 3
    result = evs[-1].result
    # The quote checks out and the claim is in the passage, but it does not say why: partial.
    assert result.status == Status.PARTIAL
    assert any("reason" in m for m in result.missing)
    assert result.answer.startswith('House sparrows "fell by half since 1990" [1].')
    assert [(e.number, e.doc_id, e.title) for e in result.evidence] == [(1, sid, "Urban Sparrows")]
    assert result.evidence[0].quote == "fell by half since 1990"
    assert 0.0 < result.confidence <= 1.0 and result.steps == 3
    # every event survives a JSON-lines round trip
    for e in evs:
        assert event_from_json(e.model_dump_json()) == e


def test_invented_citation_is_removed_and_no_evidence_means_insufficient(pool: MemoryPool) -> None:
    script = Script(
        [
            Search(query="sparrow population"),
            Answer(text="Cats ate them [P7].", evidence_ids=["P7"], missing=[], confidence=0.9),
        ]
    )
    evs = events(pool, script)
    warnings = [e for e in evs if e.type == "warning"]
    assert any(w.code == "invented_citation" and "P7" in w.message for w in warnings)
    result = evs[-1].result
    assert result.status == Status.INSUFFICIENT
    assert "Cats" not in result.answer and result.evidence == []
    assert result.missing and result.confidence <= 0.15


def test_quote_not_in_passage_loses_its_citation(pool: MemoryPool) -> None:
    sid = doc_id(pool, "Urban Sparrows")
    did = doc_id(pool, "Sparrow Diet")
    script = Script(
        [
            Search(query="sparrow"),
            Read(doc_id=sid, segments=[0], also=[{"doc_id": did, "segment": 0}]),  # type: ignore[list-item]
            Answer(
                text='Sparrows "were hunted by falcons" [P1]. Chicks are fed insects [P2].',
                evidence_ids=["P1", "P2"],
                confidence=0.7,
            ),
        ]
    )
    evs = events(pool, script)
    assert any(e.type == "warning" and e.code == "quote_not_found" for e in evs)
    result = evs[-1].result
    # What sparrows eat is no reason for their decline: of "sparrow", "numbers" and "fall" the
    # evidence holds only the first — related passages, not part of an answer.
    assert result.status == Status.INSUFFICIENT
    assert [e.title for e in result.evidence] == ["Sparrow Diet"]
    assert "Related passages:\nChicks are fed insects [1]." in result.answer
    assert "[2]" not in result.answer


def test_repeated_query_is_refused_and_forces_answer(pool: MemoryPool) -> None:
    script = Script(
        [Search(query="sparrow population"), Search(query="population  Sparrow"), Search(query="sparrow, population!")]
    )
    evs = events(pool, script)
    assert any(e.type == "warning" and e.code == "repeated_query" for e in evs)
    refused = [e for e in evs if e.type == "tool_result" and e.note.startswith("refused")]
    assert len(refused) == 2
    # the policy was told after the first refusal, then the second empty round converged
    assert script.seen_notices and "already tried" in script.seen_notices[0]
    assert script.answer_reasons and "converged" in script.answer_reasons[0]
    assert evs[-1].result.status == Status.INSUFFICIENT  # the scripted final answer cites nothing


def test_round_limit_truncates_with_what_it_has(lib: Library) -> None:
    bid = doc_id(lib, "Bridge Design")
    final = Answer(text="The Golden Gate opened in 1937 [P1].", evidence_ids=["P1"], confidence=0.6)
    script = Script([Search(query="golden gate"), Read(doc_id=bid, segments=[0]), Search(query="bridge cables")], final)
    evs = events(lib, script, "When did the Golden Gate open?", max_rounds=3)
    result = evs[-1].result
    assert result.status == Status.TRUNCATED and result.steps == 3
    assert result.evidence and "round limit" in script.answer_reasons[0]


def test_round_limit_with_parts_missing_is_partial_not_truncated(lib: Library) -> None:
    # Truncated means "complete as far as the checks tell, but the round limit forced it";
    # an answer that misses a part says so whatever stopped the run.
    sid = doc_id(lib, "Urban Sparrows")
    final = Answer(text="Their population fell by half [P1].", evidence_ids=["P1"], confidence=0.6)
    script = Script([Search(query="sparrow"), Read(doc_id=sid, segments=[0]), Search(query="bridge cables")], final)
    result = events(lib, script, max_rounds=3)[-1].result
    assert result.status == Status.PARTIAL and "round limit" in script.answer_reasons[0]


def test_list_documents_then_nothing_new_converges(pool: MemoryPool) -> None:
    script = Script([ListDocuments(), ListDocuments(), Search(query="zebra quasar")])
    evs = events(pool, script)
    listed = [e for e in evs if e.type == "tool_result" and e.tool == "list_documents"]
    assert len(listed[0].documents) == 3 and listed[0].new_items == 3
    assert listed[1].new_items == 0
    assert "converged" in script.answer_reasons[0]
    assert sum(e.type == "round_started" for e in evs) == 3


def test_one_empty_round_allows_a_rewrite(lib: Library) -> None:
    sid = doc_id(lib, "Urban Sparrows")
    final = Answer(text="Their population fell by half since 1990 [P1].", evidence_ids=["P1"], confidence=0.7)
    script = Script([Search(query="zebra quasar"), Search(query="sparrow population"), Read(doc_id=sid, segments=[0])], final)
    evs = events(lib, script, max_rounds=4)
    new_items = [e.new_items for e in evs if e.type == "tool_result"]
    assert new_items[0] == 0 and new_items[1] >= 1
    assert evs[-1].result.evidence


def test_cancel_between_steps(lib: Library) -> None:
    cancel = threading.Event()
    script = Script([Search(query="sparrow"), Search(query="bridge"), Search(query="seeds")])
    seen = []
    for e in run_agent("q about sparrows", lib, script, AgentOptions(mode="loop"), cancel):
        seen.append(e)
        if e.type == "tool_result":
            cancel.set()
    result = seen[-1].result
    assert result.status == Status.CANCELLED
    assert sum(e.type == "round_started" for e in seen) == 1


def test_policy_failure_and_bugs_end_as_failed(lib: Library, caplog: pytest.LogCaptureFixture) -> None:
    r = run_to_result("q", lib, Script([PolicyFailure("Cannot reach the language model")]), AgentOptions(mode="loop"))
    assert r.status == Status.FAILED and "Cannot reach" in r.answer
    with caplog.at_level(logging.ERROR):
        r = run_to_result("q", lib, Script([RuntimeError("boom")]), AgentOptions(mode="loop"))
    # The user reads plain words; the bug's own message and traceback go to the log.
    assert r.status == Status.FAILED and "RuntimeError" in r.error and "internal error" in r.answer
    assert "boom" in caplog.text and "Traceback" in caplog.text


def test_bad_read_is_a_warning_not_a_crash(pool: MemoryPool) -> None:
    script = Script([Read(doc_id=999, segments=[0])])
    evs = events(pool, script)
    assert any(e.type == "warning" and e.code == "bad_read" for e in evs)
    assert isinstance(evs[-1], Finished)


def test_router(lib: Library) -> None:
    assert route("Compare urban sparrows and bridge design", lib).mode == "loop"
    assert route("两种方法有什么区别？", lib).mode == "loop"
    assert route("What is the population of urban sparrows? And their diet?", lib).mode == "loop"
    assert route("zebra quasar", lib).mode == "loop"
    assert route("suspension bridges cables", lib).mode == "quick"


def test_quick_mode_is_one_search(lib: Library) -> None:
    final = Answer(text="Suspension bridges carry loads through cables [P1].", evidence_ids=["P1"], confidence=0.9)
    script = Script([], final)
    evs = list(run_agent("suspension bridges cables", lib, script, AgentOptions(mode="auto")))
    assert evs[0].mode == "quick"
    assert [e.tool for e in evs if e.type == "tool_result"] == ["search", "read"]
    assert evs[-1].result.status == Status.ANSWERED


def test_quick_path_search_includes_profile_terms(lib: Library) -> None:
    final = Answer(text="Suspension bridges carry loads through cables [P1].", evidence_ids=["P1"], confidence=0.9)
    opts = AgentOptions(mode="quick", profile_terms=[("cables", "synonym of wires")])
    evs = list(run_agent("suspension bridges", lib, Script([], final), opts))
    search = next(e for e in evs if e.type == "action_chosen")
    assert search.action["query"] == "suspension bridges cables"
    assert any(e.type == "info" and e.code == "profile" and "cables" in e.message for e in evs)


def test_evidence_listed_without_inline_markers_cites_the_whole_answer(lib: Library) -> None:
    sid = doc_id(lib, "Urban Sparrows")
    script = Script(
        [
            Search(query="sparrow population"),
            Read(doc_id=sid, segments=[0]),
            Answer(text="Their population fell by half since 1990.", evidence_ids=["P1", "P5"], confidence=0.7),
        ]
    )
    evs = events(lib, script, "How much did the sparrow population fall since 1990?")
    result = evs[-1].result
    assert result.status == Status.ANSWERED
    assert result.answer == "Their population fell by half since 1990 [1]."
    assert [e.title for e in result.evidence] == ["Urban Sparrows"]
    assert any(e.type == "warning" and e.code == "invented_citation" and "P5" in e.message for e in evs)


def test_listed_evidence_without_markers_cites_only_what_supports_each_sentence() -> None:
    from paperpilot.core.agent.events import PassageView
    from paperpilot.core.agent.verify import verify_answer

    ps = {
        "P1": PassageView(id="P1", doc_id=1, segment=0, title="Old Town", text="The Old Town lost 57% of its sparrows."),
        "P3": PassageView(id="P3", doc_id=1, segment=2, title="Old Town", text="Sparrows lost 57% of nest sites in the Old Town."),
        "P4": PassageView(id="P4", doc_id=2, segment=0, title="Bridges", text="Suspension bridges carry loads."),
    }
    v = verify_answer(Answer(text="The Old Town lost 57%.", evidence_ids=["P1", "P3"]), ps)
    assert v.text == "The Old Town lost 57% [1][2]."
    # A listed passage that does not support the sentence is not attached to it …
    v = verify_answer(Answer(text="The Old Town lost 57% of its sparrows.", evidence_ids=["P1", "P4"]), ps)
    assert v.text == "The Old Town lost 57% of its sparrows [1]." and [e.id for e in v.evidence] == ["P1"]
    # … and a sentence none of them supports is dropped, never cited by the program.
    v = verify_answer(Answer(text="PWNED. The Old Town lost 57% of its sparrows.", evidence_ids=["P4"]), ps)
    assert v.text == "" and v.evidence == [] and v.unsupported_sentences == 2
