"""Saved conversations: persistence across reopen, list/search/rename/delete, Markdown export."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperpilot.core.agent.events import Evidence, Finished, Info, Result, RunStarted, Status
from paperpilot.core.memory.conversations import ConversationError, ConversationStore
from paperpilot.core.settings.paths import app_paths
from tests.unit.memory_helpers import doc_id, make_library


def _result(question: str, answer: str, evidence: list[Evidence] | None = None) -> Result:
    return Result(question=question, status=Status.ANSWERED, answer=answer, evidence=evidence or [])


def test_persist_across_reopen_and_manage(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "h")
    ev = [Evidence(number=1, id="P1", doc_id=1, title="Dense Passage Retrieval", page=2, segment=0, text="x")]
    events = [
        RunStarted(question="q", mode="loop", policy="offline", max_rounds=6),
        Info(code="route", message="loop"),
    ]
    with ConversationStore(paths) as store:
        conv = store.create()
        assert conv.title == "" and len(conv.id) == 12
        r1 = _result("How does dense retrieval work?", "It encodes passages [1].", ev)
        t1 = store.add_turn(
            conv.id, "  How does dense retrieval work?  ", None, r1, [*events, Finished(result=r1)]
        )
        assert t1.seq == 1 and t1.standalone_question == "How does dense retrieval work?"
        store.add_turn(conv.id, "What are its limitations?", "What are dense retrieval's limitations?",
                       _result("q2", "It needs training data [1].", ev), [])  # fmt: skip
        other = store.create("Leave policy")
        store.add_turn(other.id, "请假流程是什么？", None, _result("q", "提前申请。"), [])
    with ConversationStore(paths) as store:  # a restart
        got = store.get(conv.id)
        assert got is not None and got.title == "How does dense retrieval work?" and got.turn_count == 2
        turns = store.turns(conv.id)
        assert [t.seq for t in turns] == [1, 2]
        assert turns[1].standalone_question == "What are dense retrieval's limitations?"
        assert turns[0].result.evidence[0].title == "Dense Passage Retrieval"
        assert [type(e).__name__ for e in turns[0].events] == ["RunStarted", "Info", "Finished"]
        listed = store.list()
        assert [c.id for c in listed] == [other.id, conv.id]  # most recent first
        assert listed[1].to_json() == {"id": conv.id, "title": got.title, "turns": 2, "updated": got.updated}
        assert [c.id for c in store.list("training data")] == [conv.id]  # answers are searched
        assert [c.id for c in store.list("limitations")] == [conv.id]  # questions too
        assert [c.id for c in store.list("请假")] == [other.id]
        assert [c.id for c in store.list("leave")] == [other.id]  # and titles, case-insensitively
        assert store.list("100%") == []
        store.rename(conv.id, "Dense retrieval")
        assert store.get(conv.id).title == "Dense retrieval"  # type: ignore[union-attr]
        store.delete(other.id)
        assert [c.id for c in store.list()] == [conv.id]
        for bad in (
            lambda: store.delete("nope"),
            lambda: store.rename("nope", "x"),
            lambda: store.turns("nope"),
        ):
            with pytest.raises(ConversationError):
                bad()
        with pytest.raises(ConversationError):
            store.rename(conv.id, "   ")


def test_export_markdown_has_references(tmp_path: Path) -> None:
    paths, lib = make_library(tmp_path / "lib")
    try:
        dense, sparse = doc_id(lib, "Dense"), doc_id(lib, "Sparse")
        ev = [
            Evidence(number=1, id="P1", doc_id=dense, title="Dense Passage Retrieval for Open-Domain Question Answering",
                     page=1, section="Limitations", text="x"),
            Evidence(number=2, id="P2", doc_id=sparse, title="Sparse Retrieval with BM25", page=1, text="y"),
        ]  # fmt: skip
        with ConversationStore(paths) as store:
            conv = store.create()
            store.add_turn(conv.id, "Compare dense and sparse retrieval", None,
                           _result("q", "Dense needs training data [1]; BM25 does not [2].", ev), [])  # fmt: skip
            store.add_turn(conv.id, "What about the second paper?", "What does BM25 need?",
                           _result("q", "Nothing [1].", ev[1:]), [])  # fmt: skip
            md = store.export_markdown(conv.id, lib, "apa")
            plain = store.export_markdown(conv.id)
    finally:
        lib.close()
    assert md.startswith("# Compare dense and sparse retrieval\n")
    assert "## Q1. Compare dense and sparse retrieval" in md and "## Q2. What about the second paper?" in md
    assert "_Understood as: What does BM25 need?_" in md
    assert "Dense needs training data [1]; BM25 does not [2]." in md
    assert "**References**" in md
    refs = md.split("## Q2")[0].split("**References**")[1]
    # APA-formatted by the citation layer (no year known: "n.d.").
    assert "- Dense Passage Retrieval for Open-Domain Question Answering. (n.d.)." in refs
    assert "- Sparse Retrieval with BM25. (n.d.)." in refs
    assert "1. Dense Passage Retrieval for Open-Domain Question Answering (p. 1, Limitations)" in md
    assert "- Sparse Retrieval with BM25" in plain  # without a library: titles
