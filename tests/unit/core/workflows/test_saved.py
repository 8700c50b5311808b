"""Saved matrices and drafts: listed, reopened without a run, renamed, deleted; the store's
schema step 2 (drafts.title) on a schema-1 file; a collection scope."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from paperpilot.core.app import Session
from paperpilot.core.errors import InvalidInput, NotFound
from paperpilot.core.memory.workflow_store import WORKFLOWS_FILE, WorkflowStore
from paperpilot.core.settings.paths import app_paths
from paperpilot.core.workflows import draft as draft_mod
from paperpilot.core.workflows import saved
from paperpilot.core.workflows.draft import Draft, write_draft
from paperpilot.core.workflows.matrix import create_matrix, run_matrix
from paperpilot.core.workflows.selection import PaperSelection, resolve_scope
from paperpilot.core.workflows.templates import load_template

from .conftest import doc_id


def _refs(s: Session):  # type: ignore[no-untyped-def]
    return lambda ids: s.reference_entries(ids)


def test_saved_matrices_list_rename_and_delete(sample_session: Session) -> None:
    s = sample_session
    m = create_matrix(s.workflows, s.library, PaperSelection(doc_ids=[1]))
    for i, _p in enumerate(run_matrix(s.workflows, m, s.library)):
        if i == 3:
            break
    items = saved.saved_matrices(s.workflows)
    assert [(i.id, i.total) for i in items] == [(m.id, 6)] and 0 < items[0].done < 6 and not items[0].complete
    saved.rename_matrix(s.workflows, m.id, "  Sparrows \n matrix ")
    assert saved.saved_matrices(s.workflows)[0].title == "Sparrows matrix"
    with pytest.raises(InvalidInput):
        saved.rename_matrix(s.workflows, m.id, "   ")
    saved.delete_matrix(s.workflows, m.id)
    assert saved.saved_matrices(s.workflows) == []
    with pytest.raises(NotFound):
        saved.delete_matrix(s.workflows, m.id)


def test_a_draft_reopens_without_a_run_and_resumes_where_it_stopped(
    sample_session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = sample_session
    template = load_template("review-en")
    cancel = threading.Event()
    real = draft_mod.related_work_section

    def stop_after(*a, **k):  # type: ignore[no-untyped-def]
        out = real(*a, **k)
        cancel.set()  # the related-work section is dropped, background stays saved
        return out

    monkeypatch.setattr(draft_mod, "related_work_section", stop_after)
    last = None
    for ev in write_draft(s.workflows, s.library, "urban birds", template, PaperSelection(), references=_refs(s), cancel=cancel):
        last = ev
    assert isinstance(last, Draft) and last.status == "cancelled" and len(last.sections) == 1
    monkeypatch.setattr(draft_mod, "related_work_section", real)

    def no_run(*a, **k):  # type: ignore[no-untyped-def]
        raise AssertionError("reopening ran the agent")

    monkeypatch.setattr(draft_mod, "evidence_section", no_run)
    again = saved.open_draft(s.workflows, last.id, references=_refs(s))
    assert again.remaining == len(template.sections) - 1 and again.draft.status == "cancelled"
    assert again.title == "urban birds" and again.scope == PaperSelection()
    assert [n for n, _d, _t in again.draft.references] == list(range(1, len(again.draft.references) + 1))
    item = saved.saved_drafts(s.workflows)[0]
    assert (item.done, item.total, item.detail) == (1, len(template.sections), "review-en")
    # A rename names the draft in the list; its topic (what resuming gathers for) stays.
    saved.rename_draft(s.workflows, last.id, "Review for the lab")
    assert saved.saved_drafts(s.workflows)[0].title == "Review for the lab"
    assert s.workflows.draft(last.id)["topic"] == "urban birds"
    saved.delete_draft(s.workflows, last.id)
    assert saved.saved_drafts(s.workflows) == []
    with pytest.raises(NotFound):
        saved.open_draft(s.workflows, last.id, references=_refs(s))


def test_schema_1_file_gets_the_draft_title_column(paperpilot_home: Path) -> None:
    paths = app_paths(paperpilot_home).ensure()
    path = paths.data_dir / WORKFLOWS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as c:
        c.executescript(
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
            "INSERT INTO meta VALUES ('schema_version', '1');"
            "CREATE TABLE drafts (id TEXT PRIMARY KEY, topic TEXT NOT NULL, template TEXT NOT NULL,"
            " language TEXT NOT NULL DEFAULT '', policy TEXT NOT NULL DEFAULT 'offline',"
            " scope_json TEXT NOT NULL DEFAULT '{}', status TEXT NOT NULL DEFAULT 'running',"
            " created TEXT NOT NULL, updated TEXT NOT NULL);"
            "INSERT INTO drafts VALUES ('d1', 'old topic', 'review-en', 'en', 'offline', '{}', 'done', 't', 't');"
        )
    store = WorkflowStore(paths)
    try:
        cols = {r[1]: r for r in store.conn.execute("PRAGMA table_info(drafts)")}
        assert "title" in cols and cols["title"][2] == "TEXT" and cols["title"][3] == 1  # NOT NULL
        assert store.schema_version() == 2
        assert store.drafts()[0]["title"] == "" and saved.saved_drafts(store)[0].title == "old topic"
    finally:
        store.close()
    # Opening it again is a no-op (the step is idempotent).
    WorkflowStore(paths).close()


def test_a_collection_scope_holds_its_sub_collections(session: Session) -> None:
    a, b = doc_id(session, "Transformer"), doc_id(session, "Convolutional")
    session.collection_add("Thesis", [a])
    session.collection_add("Thesis/Chapter 2", [b])
    got = {d.doc_id for d in resolve_scope(session.library, PaperSelection(collections=["thesis"]))}
    assert got == {a, b}
    assert [d.doc_id for d in resolve_scope(session.library, PaperSelection(collections=["Thesis/Chapter 2"]))] == [b]
    with pytest.raises(NotFound):
        resolve_scope(session.library, PaperSelection(collections=["No such"]))


def test_a_draft_from_a_labs_template_file_reopens(sample_session: Session, tmp_path: Path) -> None:
    import json

    lab = tmp_path / "lab-review.json"
    lab.write_text(json.dumps({"name": "lab", "language": "en", "sections": [
        {"heading": "Motivation", "kind": "evidence", "question": "why {topic} matters"},
        {"heading": "Plan", "kind": "prompt", "prompt": "Your plan."}]}), encoding="utf-8")  # fmt: skip
    s = sample_session
    last = None
    for ev in write_draft(s.workflows, s.library, "urban birds", load_template(str(lab)), PaperSelection(), references=_refs(s)):
        last = ev
    assert isinstance(last, Draft)
    # Reopened by the file it was written from, not by the name inside it ("lab" is no template).
    again = saved.open_draft(s.workflows, last.id, references=_refs(s))
    assert [sec.heading for sec in again.draft.sections] == ["Motivation", "Plan"]
    assert saved.saved_drafts(s.workflows)[0].detail == "lab-review"
