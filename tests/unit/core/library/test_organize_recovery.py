"""The user's organisation survives every recovery: collections (nested, empty ones too),
membership, tags and their colours, notes and the trash come back when library.sqlite3 is
deleted, truncated or overwritten with garbage and ``check --repair`` rebuilds the library
from the stored copies; the undo journal outlives a restart and is shared between processes;
the trash is emptied after 30 days by a clock the test sets. Real SQLite, real Tantivy, real
subprocesses."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from paperpilot.core.app import Session
from paperpilot.core.clock import NOW_ENV
from paperpilot.core.library import Library
from paperpilot.core.library.integrity import Kind
from paperpilot.core.library.store import SCHEMA_VERSION, Store
from paperpilot.core.library.undo import MAX_STEPS, NothingToUndo
from paperpilot.core.settings.paths import app_paths

DOCS = {
    "attention.md": "# Attention in Sequence Models\n\nTransformers rely on self-attention to relate positions. "
    "Attention weights come from queries and keys.",
    "birds.md": "# Urban Birds\n\nUrban birds sing louder in cities because traffic noise masks their songs.",
    "bees.md": "# Bees and Flowers\n\nHoney bees visit flowers for nectar. Pollination by bees supports crops.",
    "moss.md": "# Moss on Stones\n\nMosses colonise bare stone surfaces and hold water after the rain stops.",
}


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    d = tmp_path / "papers"
    d.mkdir()
    for name, text in DOCS.items():
        (d / name).write_text(text, encoding="utf-8")
    s = Session()
    assert len(s.import_paths([d]).imported) == len(DOCS)
    yield s
    s.close()


def ids(s: Session, trash: bool = False) -> dict[str, int]:
    return {d.title.split()[0].lower(): d.doc_id for d in s.documents(trash=trash)}


def organisation(s: Session) -> dict[str, Any]:
    """What the user organised, by title (ids may change in a rebuild; they should not)."""
    docs = {d.doc_id: d for d in s.documents()} | {d.doc_id: d for d in s.documents(trash=True)}
    tree = s.collections()
    return {
        "collections": [c.path for c in tree.walk()],
        "members": {c.path: sorted(docs[i].title for i in c.doc_ids) for c in tree.walk()},
        "tags": {d.title: d.tags for d in docs.values()},
        "colours": s.library.tag_colors(),
        "notes": {docs[i].title: t for i, t in s.library.all_notes().items()},
        "trash": sorted(d.title for d in s.documents(trash=True)),
        "ids": {d.title: d.doc_id for d in docs.values()},
    }


def organise(s: Session) -> dict[str, int]:
    i = ids(s)
    s.collection_add("Thesis/Chapter 1/Methods", [i["attention"], i["urban"]])
    s.collection_add("Thesis/Chapter 2", [i["urban"]])
    s.collection_add("Reading list", [i["urban"], i["bees"], i["moss"]])
    s.collection_add("Someday/Maybe", [])  # an empty nested collection is organisation too
    s.tag([i["attention"], i["bees"]], add=["to read"])
    s.tag([i["moss"]], add=["field work"])
    s.set_tag_color("to read", "red")
    s.set_tag_color("field work", "green")
    s.set_note(i["bees"], "Check the pollination numbers.")
    s.remove([i["moss"]])  # in the trash, and still in "Reading list"
    return i


def damage(db: Path, how: str) -> None:
    for extra in ("-wal", "-shm"):
        db.with_name(db.name + extra).unlink(missing_ok=True)
    if how == "delete":
        db.unlink()
    elif how == "truncate":
        db.write_bytes(b"")
    else:  # garbage over the header and the first pages
        with open(db, "r+b") as f:
            f.write(os.urandom(8192))


@pytest.mark.parametrize("how", ["delete", "truncate", "corrupt"])
def test_collections_tags_colours_notes_and_trash_survive_a_rebuild(session: Session, how: str) -> None:
    organise(session)
    before = organisation(session)
    assert before["members"]["Thesis/Chapter 1/Methods"] == ["Attention in Sequence Models", "Urban Birds"]
    db = session.library.paths.database
    session.close()
    damage(db, how)

    s = Session()
    try:
        report = s.check(repair=True)
        assert report.clean, report.problems
        assert organisation(s) == before
        # The trashed document is back in the trash (unsearchable), the others searchable.
        assert s.library.search("mosses colonise bare stone") == []
        assert s.library.search("urban birds traffic noise")
        assert s.documents(collection="Thesis") and {d.title for d in s.documents(collection="Thesis")} == {
            "Attention in Sequence Models",
            "Urban Birds",
        }
    finally:
        s.close()


def test_collections_come_back_from_the_sidecars_alone(session: Session) -> None:
    """meta/library.json lost as well: the collections a document is in are rebuilt from its
    own sidecar (only empty collections and colours need the library-wide file)."""
    organise(session)
    before = organisation(session)
    paths = session.library.paths
    session.close()
    damage(paths.database, "delete")
    (paths.sidecar_dir / "library.json").unlink()

    s = Session()
    try:
        assert s.check(repair=True).clean
        after = organisation(s)
        assert after["collections"] == [p for p in before["collections"] if not p.startswith("Someday")]
        assert {k: v for k, v in after["members"].items()} == {
            k: v for k, v in before["members"].items() if not k.startswith("Someday")
        }
        assert after["colours"] == {}
        assert after["tags"] == before["tags"]
    finally:
        s.close()


def test_renaming_and_deleting_collections_keep_the_sidecars_in_step(session: Session) -> None:
    i = organise(session)
    session.collection_rename("Thesis", "Dissertation")
    session.collection_delete("Reading list")
    store = session.library.store
    side = session.library.read_sidecar(store.document(i["urban"]).stored_path)  # type: ignore[union-attr]
    assert side is not None
    assert side["collections"] == ["Dissertation/Chapter 1/Methods", "Dissertation/Chapter 2"]
    bees = session.library.read_sidecar(store.document(i["bees"]).stored_path)  # type: ignore[union-attr]
    assert bees is not None and "collections" not in bees
    kept = json.loads((session.library.paths.sidecar_dir / "library.json").read_text(encoding="utf-8"))
    assert [c["path"] for c in kept["collections"]] == [
        "Dissertation", "Dissertation/Chapter 1", "Dissertation/Chapter 1/Methods", "Dissertation/Chapter 2",
        "Someday", "Someday/Maybe",
    ]  # fmt: skip
    assert kept["tag_colors"] == {"field work": "#2e7d32", "to read": "#d32f2f"}
    assert session.check().clean


def test_the_check_finds_and_rewrites_an_outdated_library_file(session: Session) -> None:
    organise(session)
    f = session.library.paths.sidecar_dir / "library.json"
    f.write_text(json.dumps({"version": 1, "collections": [], "tag_colors": {}}), encoding="utf-8")
    report = session.check()
    assert [p.kind for p in report.problems] == [Kind.ORGANIZE_OUTDATED]
    assert session.check(repair=True).clean
    assert len(json.loads(f.read_text(encoding="utf-8"))["collections"]) == 7


def test_remove_trash_restore_keeps_tags_collections_notes_and_metadata(session: Session) -> None:
    from paperpilot.core.library.metadata import item_for_document

    i = organise(session)
    item = item_for_document(session.library, i["bees"])
    item.title = "Bees and Flowers, Revised"
    session.save_metadata(i["bees"], item)
    session.remove([i["bees"]])
    assert session.library.search("honey bees nectar") == []
    assert "Bees and Flowers, Revised" in organisation(session)["trash"]
    restored = session.restore([i["bees"]])
    assert [d.title for d in restored] == ["Bees and Flowers, Revised"]
    doc = session.library.document(i["bees"])
    assert doc is not None and doc.tags == ["to read"]
    assert session.library.get_note(i["bees"]) == "Check the pollination numbers."
    assert i["bees"] in session.collections().get("Reading list").doc_ids
    hits = session.library.search("honey bees nectar")  # searchable at once, through the index
    assert hits and hits[0].doc_id == i["bees"] and hits[0].title == "Bees and Flowers, Revised"


# --- the undo journal -----------------------------------------------------------------------------


def test_schema_step_8_makes_the_undo_journal_on_an_old_database(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    Store(db).close()
    with sqlite3.connect(db) as c:
        c.execute("DROP TABLE undo_journal")
        c.execute("UPDATE meta SET value='7' WHERE key='schema_version'")
    store = Store(db, must_exist=True)
    try:
        cols = [r[1] for r in store.conn.execute("PRAGMA table_info(undo_journal)")]
        assert cols == ["id", "created", "action", "label", "n", "name", "payload"]
        assert store.get_meta("schema_version") == str(SCHEMA_VERSION) == "8"
    finally:
        store.close()
    # Idempotent: a database already at 8 (or opened twice) is left as it is.
    Store(db, must_exist=True).close()


def test_undo_works_after_a_restart_for_each_kind_of_change(session: Session) -> None:
    from paperpilot.core.library.metadata import item_for_document

    i = ids(session)
    session.tag([i["urban"]], add=["cities"])
    session.collection_add("Ecology", [i["urban"], i["bees"]])
    session.collection_remove("Ecology", [i["bees"]])
    item = item_for_document(session.library, i["moss"])
    item.title = "Moss, Edited"
    session.save_metadata(i["moss"], item)
    session.remove([i["attention"], i["bees"], i["moss"]])
    assert session.undo_stack.label() == "Remove 3 documents"
    session.close()

    s = Session()  # a restart
    try:
        labels = [e.label for e in s.undo_stack.entries()]
        assert labels == [
            "Remove 3 documents",
            "Edit metadata of “Moss on Stones”",
            "Remove 1 document from Ecology",
            "Add 2 documents to Ecology",
            "Tag 1 document",
        ]
        assert s.undo() == "Remove 3 documents"
        assert s.documents(trash=True) == []
        assert s.library.search("mosses colonise bare stone")
        assert s.undo() == "Edit metadata of “Moss on Stones”"
        assert s.library.document(i["moss"]).title == "Moss on Stones"  # type: ignore[union-attr]
        assert s.undo() == "Remove 1 document from Ecology"
        assert s.collections().get("Ecology").doc_ids == {i["urban"], i["bees"]}
        assert s.undo() == "Add 2 documents to Ecology"
        assert s.collections().get("Ecology").doc_ids == set()
        assert s.undo() == "Tag 1 document"
        assert s.library.document(i["urban"]).tags == []  # type: ignore[union-attr]
        assert s.undo() == ""
        assert s.check().clean
    finally:
        s.close()


def test_undo_of_a_removal_whose_documents_were_purged_says_so(session: Session) -> None:
    i = ids(session)
    session.remove([i["bees"]])
    session.empty_trash()
    with pytest.raises(NothingToUndo) as e:
        session.undo()
    assert str(e.value) == (
        f"Cannot undo “Remove 1 document”: document #{i['bees']} was deleted from the trash for good since."
    )
    assert "\n" not in str(e.value)
    assert session.undo_stack.label() == ""  # dropped: it can never be undone
    # Part of it purged: the rest comes back, and the answer says what did not.
    session.remove([i["urban"], i["moss"]])
    session.empty_trash([i["moss"]])
    assert (
        session.undo()
        == f"Remove 2 documents (document #{i['moss']} was deleted from the trash for good since)"
    )
    assert [d.doc_id for d in session.documents() if d.doc_id == i["urban"]] == [i["urban"]]


def test_the_journal_is_bounded(session: Session) -> None:
    i = ids(session)
    for n in range(MAX_STEPS + 7):
        session.tag([i["urban"]], add=[f"t{n}"])
    entries = session.undo_stack.entries(MAX_STEPS * 2)
    assert len(entries) == MAX_STEPS
    rows = session.library.store.conn.execute("SELECT COUNT(*) FROM undo_journal").fetchone()[0]
    assert rows == MAX_STEPS


def test_a_failed_undo_keeps_its_entry(session: Session) -> None:
    from paperpilot.core.errors import LibraryReadOnly

    i = ids(session)
    session.tag([i["urban"]], add=["x"])
    lib = session.library
    real = lib.set_tags

    def refuse(_changes: dict[int, list[str]]) -> list[int]:
        raise LibraryReadOnly("read-only for this test")

    lib.set_tags = refuse  # type: ignore[method-assign]
    with pytest.raises(LibraryReadOnly):
        session.undo()
    lib.set_tags = real  # type: ignore[method-assign]
    assert session.undo_stack.label() == "Tag 1 document"
    assert session.undo() == "Tag 1 document"


CLI = [sys.executable, "-m", "paperpilot.cli"]


def cli(home: str, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "--home", home, *argv], capture_output=True, text=True, timeout=120,
        env={**os.environ, **(env or {})},
    )  # fmt: skip


def test_the_window_and_the_cli_share_one_undo_history(session: Session) -> None:
    """A session (the window's) records; another process undoes it with `paperpilot undo`; the
    session's Edit menu then offers the change before; and the other way round."""
    i = ids(session)
    home = os.environ["PAPERPILOT_HOME"]
    session.tag([i["urban"]], add=["gui tag"])
    session.remove([i["bees"]])
    assert session.undo_stack.label() == "Remove 1 document"

    out = cli(home, "undo", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"undone": "Remove 1 document"}
    assert session.library.document(i["bees"]).status == "ready"  # type: ignore[union-attr]
    assert session.library.search("honey bees nectar")
    assert session.undo_stack.label() == "Tag 1 document"

    out = cli(home, "tag", str(i["moss"]), "--add", "cli tag")
    assert out.returncode == 0, out.stderr
    assert session.undo_stack.label() == "Tag 1 document"
    listed = cli(home, "undo", "--list", "--json")
    assert [e["label"] for e in json.loads(listed.stdout)["undo"]] == ["Tag 1 document", "Tag 1 document"]
    assert session.undo() == "Tag 1 document"
    assert session.library.document(i["moss"]).tags == []  # type: ignore[union-attr]
    assert session.library.document(i["urban"]).tags == ["gui tag"]  # type: ignore[union-attr]

    out = cli(home, "undo")
    assert (out.returncode, out.stdout.strip()) == (0, "undone: Tag 1 document")
    out = cli(home, "undo")
    assert (out.returncode, out.stdout.strip()) == (0, "Nothing to undo.")


# --- the 30-day trash, with a clock the test sets --------------------------------------------------


def test_the_trash_is_emptied_after_30_days_by_the_clock(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    i = ids(session)
    home = os.environ["PAPERPILOT_HOME"]
    monkeypatch.setenv(NOW_ENV, "2030-03-01T12:00:00+00:00")
    session.remove([i["bees"]])
    monkeypatch.setenv(NOW_ENV, "2030-03-05T12:00:00")
    session.remove([i["urban"]])
    assert session.library.document(i["bees"]).trashed == "2030-03-01T12:00:00+00:00"  # type: ignore[union-attr]
    session.close()

    # 29 days and 23 hours later: start-up keeps both.
    monkeypatch.setenv(NOW_ENV, "2030-03-31T11:00:00+00:00")
    lib = Library(app_paths())
    try:
        assert sorted(d.doc_id for d in lib.trashed_documents()) == sorted([i["bees"], i["urban"]])
    finally:
        lib.close()
    # Just over 30 days after the first removal, in another process (`paperpilot trash` opens
    # the library, whose start-up empties what is older): only the second is left.
    out = cli(home, "trash", "--json", env={NOW_ENV: "2030-03-31T12:00:01+00:00"})
    assert out.returncode == 0, out.stderr
    assert [d["doc_id"] for d in json.loads(out.stdout)["trash"]] == [i["urban"]]
    lib = Library(app_paths())
    try:
        assert lib.document(i["bees"]) is None
        assert Path(lib.paths.library_dir / lib.store.document(i["urban"]).stored_path).is_file()  # type: ignore[union-attr]
    finally:
        lib.close()
    # The undo of the purged removal says so.
    s = Session()
    try:
        assert s.undo_stack.label() == "Remove 1 document"
        assert s.undo() == "Remove 1 document"  # the second removal: still in the trash
        with pytest.raises(NothingToUndo, match="deleted from the trash for good"):
            s.undo()
    finally:
        s.close()


def test_deleting_or_renaming_a_collection_is_undone_with_its_documents(session: Session) -> None:
    i = organise(session)
    before = organisation(session)
    created = session.library.store.collection_created()
    session.collection_delete("Thesis")
    assert [c.path for c in session.collections().walk()] == ["Reading list", "Someday", "Someday/Maybe"]
    session.close()
    s = Session()  # after a restart
    try:
        assert s.undo_stack.label() == "Delete collection Thesis"
        assert s.undo() == "Delete collection Thesis"
        assert organisation(s) == before
        # The collections come back with the dates they were made on.
        again = s.library.store.collection_created()
        assert sorted(again.values()) == sorted(created.values())
        s.collection_rename("Thesis/Chapter 2", "Results")
        assert s.undo_stack.label() == "Rename collection Thesis/Chapter 2 to Results"
        assert s.undo() == "Rename collection Thesis/Chapter 2 to Results"
        assert organisation(s) == before
        side = s.library.read_sidecar(s.library.document(i["urban"]).stored_path)  # type: ignore[union-attr]
        assert side is not None and side["collections"] == [
            "Reading list",
            "Thesis/Chapter 1/Methods",
            "Thesis/Chapter 2",
        ]
        assert s.check().clean
    finally:
        s.close()


def test_a_library_organised_before_this_step_gets_its_sidecars_written_once(session: Session) -> None:
    """A library from main (collections in SQLite only): the first start that can write puts
    them into the sidecars and meta/library.json, and the check is clean without a repair."""
    i = organise(session)
    paths = session.library.paths
    birds = session.library.document(i["urban"]).stored_path  # type: ignore[union-attr]
    session.close()
    (paths.sidecar_dir / "library.json").unlink()
    side = paths.sidecar_dir / Path(birds).parent.name / (Path(birds).name + ".json")
    data = json.loads(side.read_text(encoding="utf-8"))
    del data["collections"]
    side.write_text(json.dumps(data), encoding="utf-8")
    with sqlite3.connect(paths.database) as c:
        c.execute("DELETE FROM meta WHERE key='sidecars_collections'")
    s = Session()
    try:
        assert any("collections" in n for n in s.library.recovery_notes)
        assert json.loads(side.read_text(encoding="utf-8"))["collections"] == [
            "Reading list", "Thesis/Chapter 1/Methods", "Thesis/Chapter 2",
        ]  # fmt: skip
        assert (paths.sidecar_dir / "library.json").is_file()
        assert s.check().clean
    finally:
        s.close()
