"""Follow-up questions: offline rewriting, rewriting with a (scripted) model, evidence reuse in the loop."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paperpilot.core.agent.events import ActionChosen, Evidence, Info, Result, Status, ToolResult
from paperpilot.core.agent.followup import REWRITE_SYSTEM_PROMPT, is_followup, rewrite_followup
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.llm.client import LLMClient, LLMConfig
from tests.fakes.openai_server import ScriptedServer, http_error
from tests.unit.memory_helpers import doc_id, make_library

DENSE = "Dense Passage Retrieval for Open-Domain Question Answering"
SPARSE = "Sparse Retrieval with BM25"


@dataclass
class T:
    question: str
    standalone_question: str
    result: Result


def _history(question: str = "How does dense passage retrieval compare with BM25?") -> list[T]:
    ev = [
        Evidence(number=1, id="P1", doc_id=1, title=DENSE, segment=0, text="dense"),
        Evidence(number=2, id="P3", doc_id=2, title=SPARSE, segment=0, text="sparse"),
        Evidence(number=3, id="P2", doc_id=1, title=DENSE, segment=1, text="dense limits"),
    ]
    r = Result(
        question=question, status=Status.ANSWERED, answer="Dense is better [1][3]; BM25 [2].", evidence=ev
    )
    return [T(question, question, r)]


def test_detection() -> None:
    for q in ["What about the second paper?", "What are its limitations?", "Compare that with 2019 results",
              "那它的局限是什么？", "第二篇论文的结论是什么？", "How about ColBERT?", "What does [2] say?"]:  # fmt: skip
        assert is_followup(q), q
    for q in [
        "Which papers use transformers?",
        "papers that use attention",
        "其他方法有哪些？",
        "应该如何评估检索？",
    ]:
        assert not is_followup(q), q
    assert rewrite_followup("What are its limitations?", []).standalone == "What are its limitations?"
    r = rewrite_followup("Which papers use transformers?", _history())
    assert not r.is_followup and r.standalone == "Which papers use transformers?" and r.reused_evidence == []


def test_offline_rewrites() -> None:
    h = _history()
    second = rewrite_followup("what about the second paper?", h)
    assert second.is_followup and SPARSE in second.standalone
    assert [e.id for e in second.reused_evidence] == ["P3"] and "second paper" in second.how
    first = rewrite_followup("What is the main result of the first paper?", h)
    assert first.standalone == f"What is the main result of “{DENSE}”?"
    assert [e.id for e in first.reused_evidence] == ["P1", "P2"]  # every passage of that document
    its = rewrite_followup("What are its limitations?", h)
    assert its.standalone == "What are the limitations of dense passage retrieval?"
    assert len(its.reused_evidence) == 3
    assert rewrite_followup("Compare that with 2019 results", h).standalone == (
        "Compare dense passage retrieval with 2019 results"
    )
    about = rewrite_followup("What about ColBERT?", h)
    assert about.standalone == "How does ColBERT compare with BM25?" and about.reused_evidence == []
    zh = rewrite_followup("那它的局限是什么？", _history("稠密检索的原理是什么？"))
    assert zh.standalone == "稠密检索的局限是什么？" and len(zh.reused_evidence) == 3
    zh2 = rewrite_followup("第二篇论文的结论是什么？", h)
    assert zh2.standalone.startswith(f"“{SPARSE}”") and [e.id for e in zh2.reused_evidence] == ["P3"]
    missing = rewrite_followup("What about the fifth paper?", h)
    assert missing.is_followup and missing.reused_evidence == [] and "no cited document" in missing.how


def _client(server: ScriptedServer) -> LLMClient:
    return LLMClient(LLMConfig(base_url=server.url, model="scripted-model", max_retries=0, timeout_s=5))


def test_llm_rewrite_and_fallback(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([{"question": "What are the limitations of Sparse Retrieval with BM25?"}])
    with _client(scripted_llm) as client:
        r = rewrite_followup("And the second paper's limitations?", _history(), "llm", client)
    assert r.how == "llm" and r.standalone == "What are the limitations of Sparse Retrieval with BM25?"
    assert [e.id for e in r.reused_evidence] == ["P3"]
    prompt = scripted_llm.requests[0]["messages"]
    assert prompt[0]["content"] == REWRITE_SYSTEM_PROMPT
    assert (
        f"2. {SPARSE}" in prompt[1]["content"]
        and "FOLLOW-UP: And the second paper's limitations?" in prompt[1]["content"]
    )

    scripted_llm.set_script([http_error(500), "no json here"])
    with _client(scripted_llm) as client:
        failed = rewrite_followup("What are its limitations?", _history(), "llm", client)
        unparsed = rewrite_followup("What are its limitations?", _history(), "llm", client)
    assert failed.standalone == unparsed.standalone == "What are the limitations of dense passage retrieval?"
    assert "failed" in failed.how and "did not parse" in unparsed.how
    # The offline policy never calls the model.
    scripted_llm.set_script([])
    with _client(scripted_llm) as client:
        assert rewrite_followup("What are its limitations?", _history(), "offline", client).how.startswith(
            "offline"
        )


def test_loop_reuses_prior_evidence_and_shows_rewrite(tmp_path: Path) -> None:
    _paths, lib = make_library(tmp_path / "lib")
    try:
        dense = doc_id(lib, "Dense")
        seg = next(s for s in range(5) if "labelled training data" in lib.read(dense, s).text)
        prior = [Evidence(number=1, id="P4", doc_id=dense, title=DENSE, segment=seg, text="old copy")]
        events = list(
            run_agent(
                "What are the limitations of dense passage retrieval?",
                lib,
                OfflinePolicy(),
                AgentOptions(mode="loop", prior_evidence=prior, rewritten_from="What are its limitations?"),
            )
        )
    finally:
        lib.close()
    infos = {e.code: e for e in events if isinstance(e, Info)}
    assert infos["followup"].message == "rewritten as: What are the limitations of dense passage retrieval?"
    assert infos["followup"].data["original"] == "What are its limitations?"
    assert infos["reuse"].data["ids"] == ["P1"] and "reusing 1 passage" in infos["reuse"].message
    # The reused passage is not read again, and the answer may cite it.
    reads = [p for e in events if isinstance(e, ToolResult) and e.tool == "read" for p in e.passages]
    assert all((p.doc_id, p.segment) != (dense, seg) for p in reads)
    assert any(isinstance(e, ActionChosen) for e in events)
    result = events[-1].result  # type: ignore[attr-defined]
    assert any(e.doc_id == dense and e.segment == seg for e in result.evidence)


def test_what_about_keeps_the_verb() -> None:
    from paperpilot.core.agent.events import Result, Status
    from paperpilot.core.agent.followup import offline_rewrite

    class Prev:
        question = "Why did house sparrows decline in the Old Town?"
        standalone_question = None
        result = Result(question="q", status=Status.ANSWERED, answer="a")

    assert offline_rewrite("What about swifts?", Prev()).standalone == "Why did swifts decline in the Old Town?"



def test_stop_during_a_hung_llm_rewrite_falls_back_at_once(scripted_llm: ScriptedServer) -> None:
    import threading
    import time

    from tests.fakes.openai_server import hang
    from tests.unit.core.llm.test_cancel import STOP_BOUND_S, cancel_when

    scripted_llm.set_script([hang()])
    cancel = threading.Event()
    with LLMClient(LLMConfig(base_url=scripted_llm.url, model=scripted_llm.model, timeout_s=60)) as client:
        watcher, stamp = cancel_when(lambda: scripted_llm.stalls >= 1, cancel)
        r = rewrite_followup("And the second paper's limitations?", _history(), "llm", client, cancel=cancel)
        ended = time.monotonic()
        watcher.join()
    assert ended - stamp[0] < STOP_BOUND_S
    assert "the model's rewrite failed: LLMCancelled" in r.how and SPARSE in r.standalone
