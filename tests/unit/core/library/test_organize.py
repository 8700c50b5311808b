"""Collections, tags, the trash and undo in the core: Session and Library against a real
SQLite file and a real Tantivy index."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.core.app import Session
from paperpilot.core.errors import InvalidInput, NotFound
from paperpilot.core.library import Library
from paperpilot.core.library.organize import CollectionNotFound, merge_tags, normalize_tag, split_keywords
from paperpilot.core.library.query import filter_documents, parse_query
from paperpilot.core.library.scoped_library import CollectionScope
from paperpilot.core.library.store import Store
from paperpilot.core.settings.paths import app_paths

DOCS = {
    "attention.md": "# Attention in Sequence Models\n\nTransformers rely on self-attention to relate positions. "
    "Attention weights come from queries and keys.\n\n# Results\n\nAttention improved translation quality "
    "by two BLEU points on the benchmark used in this study of attention.",
    "birds.md": "# Urban Birds\n\nUrban birds sing louder in cities because traffic noise masks their songs. "
    "Great tits raise the pitch of their songs near busy roads.",
    "bees.md": "# Bees and Flowers\n\nHoney bees visit flowers for nectar. Pollination by bees supports crops "
    "and wild plants alike in most regions of the world.",
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    d = tmp_path / "papers"
    d.mkdir()
    for name, text in DOCS.items():
        (d / name).write_text(text, encoding="utf-8")
    return d


@pytest.fixture
def session(folder: Path) -> Iterator[Session]:
    s = Session()
    report = s.import_paths([folder])
    assert len(report.imported) == 3
    yield s
    s.close()


def ids_by_title(s: Session) -> dict[str, int]:
    return {d.title.split()[0].lower(): d.doc_id for d in s.documents()}


def test_tag_normalization_and_merge() -> None:
    assert normalize_tag("  deep   learning ") == "deep learning"
    with pytest.raises(InvalidInput):
        normalize_tag("a, b")
    with pytest.raises(InvalidInput):
        normalize_tag("   ")
    assert merge_tags(["ML", "x"], add=["ml", "new"], remove=["X"]) == ["ML", "new"]
    assert split_keywords("a, b; A ,c") == ["a", "b", "c"]


def test_query_language() -> None:
    q = parse_query('author:ruiz year:2020-2023 tag:"deep learning" collection:Thesis/Ch1 noise')
    assert q.authors == ["ruiz"] and (q.year_from, q.year_to) == (2020, 2023)
    assert q.tags == ["deep learning"] and q.collections == ["Thesis/Ch1"] and q.words == ["noise"]
    assert (parse_query("year:2021").year_from, parse_query("year:2021").year_to) == (2021, 2021)
    assert parse_query("year:2019-").year_to is None
    bad = parse_query("year:soon birds")
    assert bad.problems and bad.words == ["birds"]
    # An unknown prefix is a plain word; an unclosed quote does not raise.
    assert parse_query("http://x.org").words == ["http://x.org"]
    assert parse_query('tag:"open').tags == ["open"]


def test_tags_add_remove_filter_and_undo(session: Session) -> None:
    ids = ids_by_title(session)
    changed = session.tag([ids["urban"], ids["bees"]], add=["ecology", "Field work"])
    assert {d.doc_id for d in changed} == {ids["urban"], ids["bees"]}
    assert {d.doc_id for d in session.documents(tag="ECOLOGY")} == {ids["urban"], ids["bees"]}
    session.tag([ids["bees"]], remove=["ecology"])
    assert [d.doc_id for d in session.documents(tag="ecology")] == [ids["urban"]]
    # Tags are in the sidecar too (a rebuild from the stored copies keeps them).
    assert session.library.store.sidecar_data(ids["urban"])["tags"] == ["ecology", "Field work"]
    assert session.undo() == "Tag 1 document"
    assert {d.doc_id for d in session.documents(tag="ecology")} == {ids["urban"], ids["bees"]}
    # A wrong id changes nothing.
    with pytest.raises(NotFound):
        session.tag([ids["bees"], 999], add=["never"])
    assert not session.documents(tag="never")


def test_nested_collections_membership_and_filter(session: Session) -> None:
    ids = ids_by_title(session)
    cid, added = session.collection_add("Thesis/Chapter 2", [ids["urban"]])
    assert added == [ids["urban"]]
    session.collection_add("thesis", [ids["attention"]])  # the same collection, whatever the case
    session.collection_add("Reading", [ids["urban"], ids["bees"]])  # a document in several
    tree = session.collections()
    assert [c.path for c in tree.walk()] == ["Reading", "Thesis", "Thesis/Chapter 2"]
    assert tree.get("Thesis/Chapter 2").collection_id == cid
    # A collection shows its sub-collections' documents too.
    assert {d.doc_id for d in session.documents(collection="Thesis")} == {ids["urban"], ids["attention"]}
    assert tree.paths_of(ids["urban"]) == ["Reading", "Thesis/Chapter 2"]
    with pytest.raises(CollectionNotFound):
        session.documents(collection="Nope")
    session.collection_remove("Reading", [ids["bees"]])
    assert {d.doc_id for d in session.documents(collection="Reading")} == {ids["urban"]}
    session.undo()
    assert {d.doc_id for d in session.documents(collection="Reading")} == {ids["urban"], ids["bees"]}
    session.collection_rename("Thesis/Chapter 2", "Ch2")
    assert session.collections().find("Thesis/Ch2") is not None
    with pytest.raises(InvalidInput):
        session.collection_rename("Reading", "Thesis")  # a sibling of that name exists
    lib = session.library
    thesis = session.collections().get("Thesis").collection_id
    with pytest.raises(InvalidInput):
        lib.rename_collection(thesis, move=True, parent_id=session.collections().get("Thesis/Ch2").collection_id)
    session.collection_delete("Thesis")
    assert [c.path for c in session.collections().walk()] == ["Reading"]
    assert len(session.documents()) == 3  # the documents stay


def test_trash_restore_search_and_undo(session: Session) -> None:
    ids = ids_by_title(session)
    doc = ids["attention"]
    session.tag([doc], add=["keep me"])
    session.collection_add("Thesis", [doc])
    session.set_note(doc, "my note on attention")
    assert any(h.doc_id == doc for h in session.library.search("attention"))
    removed = session.remove([doc])
    assert [d.doc_id for d in removed] == [doc]
    # Not listed, not searchable, not readable by the agent; in the trash with everything kept.
    assert doc not in {d.doc_id for d in session.documents()}
    assert not session.library.search("attention")
    assert doc not in {d.doc_id for d in session.library.list_documents()}
    with pytest.raises(Exception, match="in the trash"):
        session.library.read(doc, 0)
    trash = session.documents(trash=True)
    assert [d.doc_id for d in trash] == [doc] and trash[0].status == "trashed" and trash[0].trashed
    assert session.library.counts()[0] == 2
    # Undo (Ctrl+Z) restores it, searchable at once, with its tag, collection and note.
    assert session.undo() == "Remove 1 document"
    hits = session.library.search("attention")
    assert hits and hits[0].doc_id == doc
    back = session.library.document(doc)
    assert back is not None and back.status == "ready" and back.tags == ["keep me"]
    assert session.collections().get("Thesis").doc_ids == {doc}
    assert session.library.get_note(doc) == "my note on attention"
    # restore / empty_trash validate first.
    with pytest.raises(NotFound, match="in the trash"):
        session.restore([doc])
    session.remove([doc])
    assert [d.doc_id for d in session.restore([doc])] == [doc]
    assert session.library.search("attention")[0].doc_id == doc


def test_empty_trash_deletes_for_good_and_check_stays_clean(session: Session) -> None:
    ids = ids_by_title(session)
    lib = session.library
    stored = lib.paths.library_dir / lib.document(ids["bees"]).stored_path
    session.remove([ids["bees"], ids["urban"]])
    assert session.check().clean, session.check().problems
    session.restore([ids["urban"]])
    assert session.check().clean
    assert stored.exists()  # in the trash the copy stays
    gone = session.empty_trash()
    assert [d.doc_id for d in gone] == [ids["bees"]]
    assert not stored.exists()
    assert lib.document(ids["bees"]) is None and not session.documents(trash=True)
    assert session.check().clean
    assert lib.search("honey bees") == []


def test_trash_older_than_30_days_is_emptied_at_start_up(session: Session) -> None:
    ids = ids_by_title(session)
    session.remove([ids["bees"], ids["urban"]])
    db = session.library.paths.database
    session.close()
    with sqlite3.connect(db) as c:
        c.execute("UPDATE documents SET trashed='2000-01-01T00:00:00+00:00' WHERE id=?", (ids["bees"],))
    lib = Library(app_paths())
    try:
        assert lib.document(ids["bees"]) is None
        assert [d.doc_id for d in lib.trashed_documents()] == [ids["urban"]]
        assert any("trash" in n for n in lib.recovery_notes)
    finally:
        lib.close()


def test_crash_between_trash_and_index_commit_hides_the_hits_and_check_repairs(session: Session) -> None:
    """The row says trashed but the index still has the passages (a crash before the index
    commit): they never come back as hits, and the check finds and repairs the stray entries."""
    ids = ids_by_title(session)
    lib = session.library
    lib.store.set_trashed([ids["urban"]], "2030-01-01T00:00:00+00:00")
    lib._changed()
    assert lib.search("urban birds") == []
    report = session.check()
    assert not report.clean
    assert session.check(repair=True).clean


def test_scoped_ask_sees_only_the_scope(session: Session) -> None:
    ids = ids_by_title(session)
    session.tag([ids["bees"]], add=["pollination"])
    run = session.ask("Why do urban birds sing louder?", scope=CollectionScope("tag", "pollination"))
    events = list(run)
    assert events[0].type == "info" and events[0].code == "scope"
    assert events[0].data["doc_ids"] == [ids["bees"]]
    assert run.result is not None
    assert all(e.doc_id == ids["bees"] for e in run.result.evidence)
    whole = session.ask("Why do urban birds sing louder?")
    list(whole)
    assert whole.result is not None and any(e.doc_id == ids["urban"] for e in whole.result.evidence)
    with pytest.raises(CollectionNotFound):
        session.ask("x", scope=CollectionScope("collection", "Nope"))


def test_fulltext_counts_per_document(session: Session) -> None:
    ids = ids_by_title(session)
    counts = session.library.fulltext_counts("attention")
    assert set(counts) == {ids["attention"]} and counts[ids["attention"]] >= 1
    snippets = session.library.fulltext_snippets("songs traffic", [ids["urban"]])
    assert "**traffic**" in snippets[ids["urban"]]
    assert session.library.store.ready_ids() == {d.doc_id for d in session.library.list_documents()}
    session.remove([ids["attention"]])
    assert session.library.fulltext_counts("attention") == {}
    assert ids["attention"] not in session.library.store.ready_ids()  # in the trash: not live


def test_filter_documents_with_fields(session: Session) -> None:
    ids = ids_by_title(session)
    session.tag([ids["bees"], ids["urban"]], add=["ecology"])
    session.collection_add("Reading/Now", [ids["bees"]])
    docs = session.documents()
    tree = session.collections()
    assert filter_documents(docs, parse_query("tag:ecology"), tree) == sorted([ids["bees"], ids["urban"]])
    assert filter_documents(docs, parse_query("tag:ecology collection:Reading"), tree) == [ids["bees"]]
    assert filter_documents(docs, parse_query("birds tag:ecology"), tree) == [ids["urban"]]
    q = parse_query("collection:Missing")
    assert filter_documents(docs, q, tree) == [] and q.problems


def test_keywords_round_trip_through_bibtex_and_ris(session: Session, tmp_path: Path) -> None:
    ids = ids_by_title(session)
    session.tag([ids["urban"]], add=["noise", "bird song"])
    bib, _n = session.export([ids["urban"]], "bibtex")
    assert "keywords = {noise, bird song}" in bib
    ris, _n = session.export([ids["urban"]], "ris")
    assert "KW  - noise\nKW  - bird song" in ris
    # Keywords of imported entries become tags (new documents and matched ones alike).
    (tmp_path / "refs.bib").write_text(
        "@article{x, title={A Paper Only Listed}, author={Ruiz, Ana}, year={2021}, keywords={survey, birds}}\n"
        "@article{y, title={Urban Birds}, keywords={cities}}\n",
        encoding="utf-8",
    )
    report = session.import_paths([tmp_path / "refs.bib"])
    assert len(report.imported) == 1
    new = session.library.document(report.imported[0].doc_id)
    assert new is not None and new.tags == ["survey", "birds"]
    urban = session.library.document(ids["urban"])
    assert urban is not None and urban.tags == ["noise", "bird song", "cities"]
    (tmp_path / "refs.ris").write_text(
        "TY  - JOUR\nTI  - Listed in RIS\nKW  - alpha\nKW  - beta\nER  - \n", encoding="utf-8"
    )
    report = session.import_paths([tmp_path / "refs.ris"])
    ris_doc = session.library.document(report.imported[0].doc_id)
    assert ris_doc is not None and ris_doc.tags == ["alpha", "beta"]


def test_schema_step_7_on_an_old_database(tmp_path: Path) -> None:
    """A version-3 database gains the trash column and the collection tables; twice is harmless."""
    db = tmp_path / "library.sqlite3"
    store = Store(db)
    store.close()
    with sqlite3.connect(db) as c:
        c.execute("DROP TABLE collection_items")
        c.execute("DROP TABLE collections")
        c.execute("DROP TABLE tag_colors")
        c.execute("ALTER TABLE documents DROP COLUMN trashed")
        c.execute("UPDATE meta SET value='3' WHERE key='schema_version'")
    for _ in range(2):
        store = Store(db)
        cols = {r[1] for r in store.conn.execute("PRAGMA table_info(documents)")}
        tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        store.close()
        assert "trashed" in cols
        assert {"collections", "collection_items", "tag_colors"} <= tables


def test_remove_to_trash_while_another_process_searches(session: Session) -> None:
    """One process moves documents to the trash and back while another searches the same
    library: the searcher never crashes and ends up seeing the final state."""
    ids = ids_by_title(session)
    home = session.paths_root()
    script = textwrap.dedent(
        f"""
        import sys, time
        from paperpilot.core.library import Library
        from paperpilot.core.settings.paths import app_paths
        lib = Library(app_paths({str(home)!r}))
        seen = set()
        end = time.monotonic() + 2.0
        while time.monotonic() < end:
            seen.add(len(lib.search("urban birds traffic")))
        time.sleep(0.5)
        print(sorted(seen), len(lib.search("urban birds traffic")), flush=True)
        lib.close()
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(5):
        session.remove([ids["urban"]])
        session.restore([ids["urban"]])
    session.remove([ids["urban"]])
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    seen, final = out.rsplit(" ", 1)
    assert set(json.loads(seen)) <= {0, 1}  # never a hit twice, never a crash
    assert final.strip() == "0"
    assert session.check().clean


def test_a_lost_database_is_rebuilt_with_the_trash_and_tags(session: Session) -> None:
    """The sidecars keep tags and the trash: a rebuild from the stored copies puts a trashed
    document back in the trash (unsearchable), and the check is clean afterwards."""
    ids = ids_by_title(session)
    session.tag([ids["urban"]], add=["kept tag"])
    session.remove([ids["bees"]])
    db = session.library.paths.database
    session.close()
    db.unlink()
    for extra in ("-wal", "-shm"):
        db.with_name(db.name + extra).unlink(missing_ok=True)
    s = Session()
    try:
        report = s.check(repair=True)
        assert report.clean, report.problems
        titles = {d.title: d for d in s.documents()}
        assert titles["Urban Birds"].tags == ["kept tag"]
        assert [d.title for d in s.documents(trash=True)] == ["Bees and Flowers"]
        assert s.library.search("honey bees nectar") == []
    finally:
        s.close()
