"""Per-document notes: the store, the API, and the agent's notes tool (read freely, write when asked)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from paperpilot.core.agent.actions import Answer, Decision, Notes
from paperpilot.core.agent.events import Finished, Info, ToolResult, Warning
from paperpilot.core.agent.loop import NOTE_SEGMENT, AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.agent.state import AgentState, PolicyStep
from paperpilot.core.library import Library, LibraryError
from paperpilot.core.library.store import SCHEMA_VERSION
from tests.unit.memory_helpers import doc_id, make_library


@pytest.fixture
def lib(tmp_path: Path):  # type: ignore[no-untyped-def]
    _paths, library = make_library(tmp_path / "lib")
    yield library
    library.close()


def test_get_set_search(lib: Library) -> None:
    dense, sparse = doc_id(lib, "Dense"), doc_id(lib, "Sparse")
    assert lib.get_note(dense) == ""
    lib.set_note(dense, "# Reading note\n\nTwo BERT encoders; try for **our** QA project.")
    lib.set_note(sparse, "Strong baseline, no training data.")
    assert "BERT encoders" in lib.get_note(dense) and lib.note_updated(dense)
    hits = lib.search_notes("bert project")
    assert [(h.doc_id, h.title) for h in hits] == [
        (dense, "Dense Passage Retrieval for Open-Domain Question Answering")
    ]
    assert "BERT" in hits[0].snippet
    assert {h.doc_id for h in lib.search_notes("")} == {dense, sparse}
    assert lib.search_notes("BM25")[0].doc_id == sparse  # the title counts too
    lib.set_note(dense, "  ")  # an empty note is deleted
    assert lib.get_note(dense) == "" and [h.doc_id for h in lib.search_notes("")] == [sparse]
    with pytest.raises(LibraryError):
        lib.set_note(999, "nope")
    lib.remove(sparse)  # notes go with their document
    assert lib.search_notes("") == []


def test_schema_has_notes(lib: Library) -> None:
    conn = sqlite3.connect(lib.paths.database)
    try:
        version = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        conn.close()
    assert int(version) == SCHEMA_VERSION >= 3 and "notes" in tables


def test_v2_database_migrates_to_v3(tmp_path: Path) -> None:
    paths, library = make_library(tmp_path / "lib")
    library.close()
    conn = sqlite3.connect(paths.database)
    conn.execute("DROP TABLE notes")
    conn.execute("UPDATE meta SET value='2' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    with Library(paths) as again:
        first = again.list_documents()[0].doc_id
        again.set_note(first, "kept")
        assert again.get_note(first) == "kept" and len(again.list_documents()) == 3


def test_agent_reads_a_note_when_asked(lib: Library) -> None:
    dense = doc_id(lib, "Dense")
    lib.set_note(dense, "My note: the in-batch negatives trick made training stable in our replication.")
    events = list(run_agent(f"What do my notes on doc {dense} say about in-batch negatives?", lib, OfflinePolicy(),
                            AgentOptions(mode="loop")))  # fmt: skip
    read = [e for e in events if isinstance(e, ToolResult) and e.tool == "notes"]
    assert read and read[0].passages[0].section == "Notes" and read[0].passages[0].segment == NOTE_SEGMENT
    result = events[-1].result  # type: ignore[attr-defined]
    assert any(e.segment == NOTE_SEGMENT and e.section == "Notes" for e in result.evidence)
    assert lib.get_note(dense).startswith("My note")  # reading never writes


def test_agent_writes_a_note_only_when_asked_to_remember(lib: Library) -> None:
    dense = doc_id(lib, "Dense")
    events = list(
        run_agent(
            f"Remember that doc {dense} is the baseline for chapter 3",
            lib,
            OfflinePolicy(),
            AgentOptions(mode="loop"),
        )
    )
    assert any(isinstance(e, Info) and e.code == "note_saved" for e in events)
    assert "baseline for chapter 3" in lib.get_note(dense)

    class WritesAnyway:
        name = "scripted"

        def decide(self, state: AgentState) -> PolicyStep:
            if state.round == 1:
                return PolicyStep(Decision(action=Notes(doc_id=dense, text="overwritten!")))
            return self.answer(state, "done")

        def answer(self, state: AgentState, reason: str) -> PolicyStep:
            return PolicyStep(Decision(action=Answer(text="", evidence_ids=[])))

    events = list(run_agent("What is dense retrieval?", lib, WritesAnyway(), AgentOptions(mode="loop")))
    assert any(isinstance(e, Warning) and e.code == "notes_refused" for e in events)
    assert "overwritten" not in lib.get_note(dense)
    assert isinstance(events[-1], Finished)
    # An offline run that is not asked to remember never touches notes.
    before = lib.get_note(dense)
    events = list(
        run_agent("How are the dense encoders trained?", lib, OfflinePolicy(), AgentOptions(mode="loop"))
    )
    assert not any(isinstance(e, ToolResult) and e.tool == "notes" for e in events)
    assert lib.get_note(dense) == before
