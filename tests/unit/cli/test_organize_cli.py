"""The CLI contract of tag, collection, list filters, remove (to the trash), restore and trash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperpilot.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def home(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    d = tmp_path / "papers"
    d.mkdir()
    (d / "birds.md").write_text("# Urban Birds\n\nUrban birds sing louder because traffic noise masks songs.\n")
    (d / "bees.md").write_text("# Honey Bees\n\nHoney bees visit flowers for nectar and pollinate crops.\n")
    h = str(tmp_path / "home")
    report = run_json(capsys, "--home", h, "import", str(d))
    assert len(report["imported"]) == 2
    return h


def ids(capsys: pytest.CaptureFixture[str], home: str, *extra: str) -> dict[str, int]:
    docs = run_json(capsys, "--home", home, "list", *extra)["documents"]
    return {d["title"]: d["doc_id"] for d in docs}


def test_tag_add_remove_and_list_by_tag(capsys: pytest.CaptureFixture[str], home: str) -> None:
    known = ids(capsys, home)
    birds, bees = known["Urban Birds"], known["Honey Bees"]
    out = run_json(capsys, "--home", home, "tag", str(birds), str(bees), "--add", "ecology", "--add", "to read")
    assert [t["doc_id"] for t in out["tagged"]] == [birds, bees]
    assert out["tagged"][0]["tags"] == ["ecology", "to read"]
    out = run_json(capsys, "--home", home, "tag", str(bees), "--remove", "to read")
    assert out["tagged"][0]["tags"] == ["ecology"] and out["unchanged"] == []
    assert set(ids(capsys, home, "--tag", "to read").values()) == {birds}
    listed = run_json(capsys, "--home", home, "list")["documents"]
    assert {d["doc_id"]: d["tags"] for d in listed}[bees] == ["ecology"]
    # Ids are checked first: a wrong one changes nothing, in one line.
    code, _out, err = run(capsys, "--home", home, "tag", str(bees), "999", "--add", "x")
    assert code == 1 and err.count("\n") == 1 and "999" in err and "Traceback" not in err
    assert ids(capsys, home, "--tag", "x") == {}
    code, _out, err = run(capsys, "--home", home, "tag", str(bees))
    assert code == 2 and "--add" in err
    code, _out, err = run(capsys, "--home", home, "tag", str(bees), "--add", "a,b")
    assert code == 1 and "comma" in err


def test_collections_add_list_and_filter(capsys: pytest.CaptureFixture[str], home: str) -> None:
    known = ids(capsys, home)
    birds, bees = known["Urban Birds"], known["Honey Bees"]
    out = run_json(capsys, "--home", home, "collection", "add", "Thesis/Chapter 2", str(birds))
    assert out["collection"]["path"] == "Thesis/Chapter 2" and out["added"] == [birds]
    run_json(capsys, "--home", home, "collection", "add", "Reading", str(birds), str(bees))
    listed = run_json(capsys, "--home", home, "collection", "list")["collections"]
    assert [(c["path"], c["count"], c["depth"]) for c in listed] == [
        ("Reading", 2, 0),
        ("Thesis", 0, 0),
        ("Thesis/Chapter 2", 1, 1),
    ]
    assert set(ids(capsys, home, "--collection", "Thesis").values()) == {birds}
    docs = run_json(capsys, "--home", home, "list")["documents"]
    assert {d["doc_id"]: d["collections"] for d in docs}[birds] == ["Reading", "Thesis/Chapter 2"]
    code, out, _err = run(capsys, "--home", home, "collection", "list")
    assert code == 0 and "  Chapter 2  (1)" in out
    code, _out, err = run(capsys, "--home", home, "list", "--collection", "Nope")
    assert code == 1 and "no collection named 'Nope'" in err
    code, _out, err = run(capsys, "--home", home, "collection", "add", "A//B", str(bees))
    assert code == 1 and "empty part" in err


def test_remove_trashes_restore_brings_back_and_empty_deletes(
    capsys: pytest.CaptureFixture[str], home: str
) -> None:
    known = ids(capsys, home)
    birds = known["Urban Birds"]
    assert run_json(capsys, "--home", home, "search", "traffic", "noise")["hits"]
    out = run_json(capsys, "--home", home, "remove", str(birds))
    assert out == {"trashed": [{"doc_id": birds, "title": "Urban Birds"}], "removed": [{"doc_id": birds, "title": "Urban Birds"}]}
    assert birds not in ids(capsys, home).values()
    assert run_json(capsys, "--home", home, "search", "traffic", "noise")["hits"] == []
    trash = run_json(capsys, "--home", home, "list", "--trash")["documents"]
    assert [(d["doc_id"], d["status"]) for d in trash] == [(birds, "trashed")] and trash[0]["trashed"]
    assert [d["doc_id"] for d in run_json(capsys, "--home", home, "trash")["trash"]] == [birds]
    code, _out, err = run(capsys, "--home", home, "restore", str(birds), "999")
    assert code == 1 and "999" in err and "nothing was restored" in err
    assert run_json(capsys, "--home", home, "restore", str(birds)) == {"restored": [{"doc_id": birds, "title": "Urban Birds"}]}
    # Searchable again at once, by a new process.
    hits = run_json(capsys, "--home", home, "search", "traffic", "noise")["hits"]
    assert hits and hits[0]["doc_id"] == birds
    run_json(capsys, "--home", home, "remove", str(birds))
    assert run_json(capsys, "--home", home, "check")["clean"]
    assert run_json(capsys, "--home", home, "trash", "--empty") == {"deleted": [{"doc_id": birds, "title": "Urban Birds"}]}
    assert run_json(capsys, "--home", home, "trash")["trash"] == []
    code, _out, err = run(capsys, "--home", home, "restore", str(birds))
    assert code == 1 and "in the trash" in err
    assert run_json(capsys, "--home", home, "check")["clean"]
    code, out, _err = run(capsys, "--home", home, "remove", str(known["Honey Bees"]))
    assert code == 0 and "moved to the trash" in out and f"paperpilot restore {known['Honey Bees']}" in out


def test_undo_command_lists_and_undoes_across_runs(capsys: pytest.CaptureFixture[str], home: str) -> None:
    by_title = ids(capsys, home)
    birds, bees = by_title["Urban Birds"], by_title["Honey Bees"]
    assert run(capsys, "--home", home, "undo")[1].strip() == "Nothing to undo."
    run_json(capsys, "--home", home, "tag", str(birds), "--add", "cities")
    run_json(capsys, "--home", home, "collection", "add", "A/B/C", str(birds), str(bees))
    run_json(capsys, "--home", home, "remove", str(bees))
    listed = run_json(capsys, "--home", home, "undo", "--list")["undo"]
    assert [e["label"] for e in listed] == ["Remove 1 document", "Add 2 documents to A/B/C", "Tag 1 document"]
    assert [e["action"] for e in listed] == ["restore", "unfile", "set_tags"]
    code, out, _err = run(capsys, "--home", home, "undo")
    assert (code, out.strip()) == (0, "undone: Remove 1 document")
    assert ids(capsys, home, "--trash") == {}
    assert run_json(capsys, "--home", home, "undo") == {"undone": "Add 2 documents to A/B/C"}
    assert run_json(capsys, "--home", home, "list", "--collection", "A")["documents"] == []
    assert run_json(capsys, "--home", home, "undo") == {"undone": "Tag 1 document"}
    assert run_json(capsys, "--home", home, "undo") == {"undone": None}
    # A removal whose document was deleted for good since: one line, exit 1, nothing else changes.
    run_json(capsys, "--home", home, "remove", str(bees))
    run_json(capsys, "--home", home, "trash", "--empty")
    code, out, err = run(capsys, "--home", home, "undo")
    assert code == 1 and out == ""
    assert err == f"paperpilot: Cannot undo “Remove 1 document”: document #{bees} was deleted from the trash for good since.\n"
    assert list(ids(capsys, home)) == ["Urban Birds"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["tag", "1", "--add", "x" * 10_000], "is longer than 64 characters"),
        (["tag", "1", "--add", "  "], "a tag cannot be empty"),
        (["tag", "1", "--add", "\x1b[31mred"], "the tag holds a control character (U+001B)"),
        (["tag", "1", "--add", "abc\u202eevil"], "the tag holds a control character (U+202E)"),
        (["tag", "77", "--add", "x"], "no document with id 77 in the library; nothing was tagged"),
        (["collection", "add", "", "1"], "has an empty part"),
        (["collection", "add", "A//C", "1"], "has an empty part"),
        (["collection", "add", "c" * 10_000, "1"], "is longer than 120 characters"),
        (["collection", "add", "x\x07y", "1"], "the collection name holds a control character (U+0007)"),
        (["collection", "add", "Fine", "77"], "no document with id 77 in the library; nothing was filed"),
        (["list", "--collection", "Nowhere"], "no collection named 'Nowhere'"),
        (["restore", "1"], "no document with id 1 in the trash; nothing was restored"),
        (["restore", "77"], "no document with id 77 in the trash"),
        (["remove", "77"], "no document with id 77 in the library; nothing was removed"),
        (["collection", "rename", "Nowhere", "x"], "no collection named 'Nowhere'"),
    ],
)
def test_hostile_input_gets_one_line_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], home: str, argv: list[str], message: str
) -> None:
    before = run_json(capsys, "--home", home, "list")
    code, out, err = run(capsys, "--home", home, *argv)
    assert code in (1, 2) and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err
    assert run_json(capsys, "--home", home, "list") == before
    assert run_json(capsys, "--home", home, "collection", "list")["collections"] == []


def test_names_with_newlines_rtl_and_emoji_are_kept(capsys: pytest.CaptureFixture[str], home: str) -> None:
    by_title = ids(capsys, home)
    birds = by_title["Urban Birds"]
    tagged = run_json(capsys, "--home", home, "tag", str(birds), "--add", "line one\nline two", "--add", "مقالات",
                      "--add", "👩‍🔬 lab")["tagged"]  # fmt: skip
    assert tagged[0]["tags"] == ["line one line two", "مقالات", "👩‍🔬 lab"]
    run_json(capsys, "--home", home, "collection", "add", "مجموعة/🐝 Bees\nand more", str(birds))
    listed = run_json(capsys, "--home", home, "collection", "list")["collections"]
    assert [(c["path"], c["depth"], c["count_with_subcollections"]) for c in listed] == [
        ("مجموعة", 0, 1), ("مجموعة/🐝 Bees and more", 1, 1),
    ]  # fmt: skip
    assert list(ids(capsys, home, "--tag", "👩‍🔬 lab")) == ["Urban Birds"]
    assert list(ids(capsys, home, "--collection", "مجموعة")) == ["Urban Birds"]
    # A tag from before the control-character rule stays removable.
    code, _out, err = run(capsys, "--home", home, "tag", str(birds), "--remove", "\x1b[31mred")
    assert code == 0, err
