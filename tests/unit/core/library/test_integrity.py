"""The integrity check (core.integrity, ``paperpilot check``): each kind of damage is made for
real in a real library, found, and repaired without losing a stored file or a note."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.core.library import Library
from paperpilot.core.library.index import SearchIndex
from paperpilot.core.library.integrity import Kind, check_library
from paperpilot.core.library.store import ChunkRow
from paperpilot.core.models import Chunk, Metadata
from paperpilot.core.settings.paths import app_paths
from tests.unit.safety_helpers import assert_clean, cli, make_folder, stored_files


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    library = Library(app_paths())
    library.import_paths([make_folder(tmp_path / "papers", 2, 3)])
    yield library
    library.close()


def kinds(lib: Library) -> list[Kind]:
    return sorted(p.kind for p in check_library(lib).problems)


def repair(lib: Library) -> list[str]:
    report = check_library(lib, repair=True)
    assert report.clean, [p.message for p in report.problems]
    return report.repaired


def everything_kept(home: Path) -> set[str]:
    """Stored copies plus whatever was set aside: a repair may move a file, never lose it."""
    paths = app_paths(home)
    q = {p.name for p in paths.quarantine_dir.rglob("*") if p.is_file()} if paths.quarantine_dir.is_dir() else set()
    return {Path(f).name for f in stored_files(home)} | q


def test_a_fresh_library_is_clean(lib: Library) -> None:
    report = check_library(lib)
    assert report.clean and report.counts.documents == 5 and report.counts.stored_files == 5
    assert report.counts.index_entries == report.counts.chunks


def test_a_document_stored_twice_is_merged_and_its_note_kept(lib: Library, paperpilot_home: Path) -> None:
    first = lib.list_documents()[0]
    # A second row for the same content, as two racing imports used to make.
    with lib.exclusive():
        twin = lib.store.add_document(
            sha256=first.sha256, file_name="twin.pdf", source_path="/elsewhere/twin.pdf",
            stored_path=first.stored_path, kind="pdf", external_id="", metadata=_meta(first.title),
            page_count=first.pages, size_bytes=1, chunks=_chunks(lib, first.doc_id),
        )  # fmt: skip
    lib.set_note(twin, "Written on the second copy.")
    assert Kind.DUPLICATE in kinds(lib)
    done = repair(lib)
    assert any(f"removed #{twin}" in line for line in done)
    assert lib.document(twin) is None
    assert lib.get_note(first.doc_id) == "Written on the second copy."
    assert (lib.paths.library_dir / first.stored_path).is_file()  # the shared copy stays


def test_a_stored_file_nothing_refers_to_is_reimported_and_a_foreign_one_set_aside(
    lib: Library, tmp_path: Path, paperpilot_home: Path
) -> None:
    doc = next(d for d in lib.list_documents() if d.file_name == "t001.txt")
    with sqlite3.connect(lib.paths.database) as c:  # the row is lost, the copy stays
        c.execute("PRAGMA foreign_keys=ON")
        c.execute("DELETE FROM documents WHERE id=?", (doc.doc_id,))
    lib.reindex()
    foreign = lib.paths.files_dir / "ab" / ("ab" + "0" * 62 + ".txt")
    foreign.parent.mkdir(exist_ok=True)
    foreign.write_text("Not what its name says.")
    before = everything_kept(paperpilot_home)
    assert kinds(lib) == [Kind.ORPHAN_FILE, Kind.ORPHAN_FILE]
    done = repair(lib)
    assert everything_kept(paperpilot_home) == before
    again = lib.document(doc.doc_id)  # the sidecar brought back its id, name and date
    assert again is not None and again.file_name == "t001.txt" and again.added == doc.added
    assert not foreign.exists()
    assert any("quarantine" in line and foreign.name in line for line in done)


def test_a_missing_stored_copy_is_copied_back_from_its_original(lib: Library, tmp_path: Path) -> None:
    doc = next(d for d in lib.list_documents() if d.file_name == "p000.pdf")
    copy = lib.paths.library_dir / doc.stored_path
    original = copy.read_bytes()
    copy.unlink()
    assert kinds(lib) == [Kind.STORED_FILE_MISSING]
    repair(lib)
    assert copy.read_bytes() == original


def test_a_missing_copy_whose_original_is_gone_is_reported_as_unrepairable(lib: Library, tmp_path: Path) -> None:
    doc = next(d for d in lib.list_documents() if d.file_name == "p001.pdf")
    (lib.paths.library_dir / doc.stored_path).unlink()
    Path(doc.source_path).unlink()
    report = check_library(lib, repair=True)
    assert [(p.kind, p.fixable) for p in report.problems] == [(Kind.STORED_FILE_MISSING, False)]
    assert lib.document(doc.doc_id) is not None  # the document is kept: its text is still searchable
    assert lib.search("zebra crossing", k=1)


def test_index_entries_missing_or_left_over_are_put_right(lib: Library) -> None:
    docs = lib.list_documents()
    with lib.exclusive():
        w = lib.index.writer()
        SearchIndex.delete_doc(w, docs[0].doc_id)  # its passages vanish from the index
        lib.index.add_chunks(w, [ChunkRow(99_999, 4_242, 0, "", 1, "ghost text", "Ghost", None)])
        w.commit()
        w.wait_merging_threads()
        lib.index.reload()
    assert kinds(lib) == [Kind.CHUNKS_NOT_INDEXED, Kind.INDEX_ORPHANS]
    repair(lib)
    assert lib.search("ghost", k=1) == []
    assert lib.index.num_docs() == lib.store.indexed_chunk_count()


def test_half_finished_imports_and_removals_are_finished(lib: Library) -> None:
    docs = lib.list_documents()
    with sqlite3.connect(lib.paths.database) as c:
        c.execute("UPDATE documents SET status='deleting' WHERE id=?", (docs[0].doc_id,))
        c.execute("UPDATE documents SET indexed=0 WHERE id=?", (docs[1].doc_id,))
    part = lib.paths.library_dir / (docs[2].stored_path + ".part")
    part.write_bytes(b"half a copy")
    assert {Kind.HALF_REMOVED, Kind.UNINDEXED, Kind.PARTIAL_FILE} <= set(kinds(lib))
    repair(lib)
    assert lib.document(docs[0].doc_id) is None and not part.exists()
    assert lib.search("topic1", k=1)


def test_notes_of_documents_that_are_gone_are_kept_in_the_quarantine(lib: Library) -> None:
    with sqlite3.connect(lib.paths.database) as c:  # foreign keys off: no cascade
        c.execute("INSERT INTO notes(doc_id, text, updated) VALUES (777, 'An orphaned thought.', '2024-01-01')")
    assert kinds(lib) == [Kind.ORPHAN_NOTE]
    done = repair(lib)
    kept = list(lib.paths.quarantine_dir.glob("notes-*.md"))
    assert kept and "An orphaned thought." in kept[0].read_text() and any("note" in line for line in done)


def test_sidecars_missing_outdated_or_stale_are_rewritten_or_set_aside(lib: Library) -> None:
    docs = lib.list_documents()
    side = lib.paths.sidecar_dir
    sidecars = sorted(side.glob("*/*.json"))
    assert len(sidecars) == 5  # one per stored copy, written at import
    sidecars[0].unlink()
    data = json.loads(sidecars[1].read_text())
    data["title"] = "stale title"
    sidecars[1].write_text(json.dumps(data))
    stale = side / "zz" / ("zz" + "1" * 62 + ".pdf.json")
    stale.parent.mkdir()
    stale.write_text(json.dumps({"version": 1}))
    assert kinds(lib) == [Kind.SIDECAR_OUTDATED, Kind.SIDECAR_OUTDATED, Kind.STALE_SIDECAR]
    repair(lib)
    assert not stale.exists() and len(list(lib.paths.quarantine_dir.rglob("*.pdf.json"))) == 1
    assert len(docs) == 5


def test_cli_check_reports_in_plain_lines_and_json(lib: Library, paperpilot_home: Path) -> None:
    doc = lib.list_documents()[0]
    (lib.paths.library_dir / doc.stored_path).unlink()
    lib.close()
    r = cli(paperpilot_home, "check")
    assert r.returncode == 1
    assert "problem    " in r.stdout and "is missing" in r.stdout and "check --repair` fixes 1" in r.stdout
    r = cli(paperpilot_home, "check", "--json")
    data = json.loads(r.stdout)
    assert data["clean"] is False and data["problems"][0]["kind"] == "stored_file_missing"
    r = cli(paperpilot_home, "check", "--repair", "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["clean"] is True
    r = cli(paperpilot_home, "check")
    assert r.returncode == 0 and "No problems found." in r.stdout
    assert_clean(paperpilot_home)


def test_an_old_library_without_sidecars_gets_them_once(lib: Library, paperpilot_home: Path) -> None:
    lib.close()
    shutil.rmtree(app_paths().sidecar_dir)
    with sqlite3.connect(app_paths().database) as c:
        c.execute("DELETE FROM meta WHERE key='sidecars'")
    with Library(app_paths()) as again:
        assert any("sidecar" in n for n in again.recovery_notes)
    assert len(list(app_paths().sidecar_dir.glob("*/*.json"))) == 5
    assert_clean(paperpilot_home)


def _meta(title: str) -> Metadata:
    return Metadata(title=title)


def _chunks(lib: Library, doc_id: int) -> list[Chunk]:
    return [Chunk(seq=r.seq, text=r.text, section=r.section, page=r.page) for r in lib.store.iter_chunks_for_index([doc_id])]
