"""Where each metadata field came from: stored at import, "user" after an edit, kept by re-reading
the file, online records only when allowed (against a local fake Crossref), the schema step."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.cli import main
from paperpilot.core.app import Session
from paperpilot.core.errors import InvalidInput
from paperpilot.core.library import Library
from paperpilot.core.library.store import SCHEMA_VERSION, Store
from paperpilot.core.settings.paths import app_paths
from tests.fixtures import pdfs
from tests.unit.core.citations.test_lookup import FakeServer


@pytest.fixture
def server() -> Iterator[FakeServer]:
    s = FakeServer()
    yield s
    s.close()


def _session(home: Path) -> Session:
    return Session(home)


def _import_paper(s: Session, tmp_path: Path) -> int:
    path = pdfs.make_paper_pdf(tmp_path, with_info=False, name="paper.pdf")
    report = s.import_paths([path])
    assert not report.failed, report.failed
    return report.imported[0].doc_id


def test_import_stores_sources_confidence_and_the_full_citation(tmp_path: Path) -> None:
    with _session(tmp_path / "home") as s:
        doc_id = _import_paper(s, tmp_path)
        doc = s.ready_document(doc_id)
        assert doc.metadata_sources["title"] == "layout"
        assert doc.metadata_sources["authors"] == "layout"
        assert doc.metadata_sources["doi"] == "masthead"
        assert doc.metadata_confidence is not None and doc.metadata_confidence >= 0.75
        assert not doc.check_metadata
        item = s.metadata_item(doc_id)
        assert [n.family for n in item.author] == ["Zhang", "Müller", "Smith"]
        assert item.arxiv == pdfs.PAPER_ARXIV + "v2"  # as printed; the column drops the version
        assert doc.arxiv_id == pdfs.PAPER_ARXIV


def test_text_file_title_comes_from_its_heading_and_a_bare_file_is_flagged(tmp_path: Path) -> None:
    notes = tmp_path / "notes_2024.md"
    notes.write_text("# Field Notes on Owls\n\nBarn owls nested in the church towers we checked.\n", encoding="utf-8")
    bare = tmp_path / "scratch.txt"
    bare.write_text("barn owls nested in fourteen towers and each pair raised young in spring.\n", encoding="utf-8")
    with _session(tmp_path / "home") as s:
        report = s.import_paths([notes, bare])
        by_name = {Path(d.path).name: s.ready_document(d.doc_id) for d in report.imported}
    assert by_name["notes_2024.md"].title == "Field Notes on Owls"
    assert by_name["notes_2024.md"].metadata_sources["title"] == "text"
    assert by_name["scratch.txt"].check_metadata


def test_an_edit_becomes_user_and_survives_rereading_the_file(tmp_path: Path) -> None:
    with _session(tmp_path / "home") as s:
        doc_id = _import_paper(s, tmp_path)
        item = s.metadata_item(doc_id)
        item.title = "My Own Title"
        s.save_metadata(doc_id, item)
        doc = s.ready_document(doc_id)
        assert doc.metadata_sources["title"] == "user"
        assert doc.metadata_sources["authors"] == "layout"  # untouched fields keep their source
        [update] = s.reread_metadata([doc_id])
        assert update.kept == ["title"] and not update.skipped
        doc = s.ready_document(doc_id)
        assert doc.title == "My Own Title" and doc.metadata_sources["title"] == "user"
        assert doc.authors == pdfs.PAPER_AUTHORS


def test_lookups_never_run_while_the_setting_is_off(tmp_path: Path, server: FakeServer) -> None:
    with _session(tmp_path / "home") as s:
        settings = s.settings.model_copy(deep=True)
        settings.metadata.crossref_url = server.base + "/crossref"
        s.save_settings(settings)
        doc_id = _import_paper(s, tmp_path)
        assert not s.online_lookups_allowed  # off by default
        with pytest.raises(InvalidInput, match="lookups are off"):
            s.retrieve_metadata([doc_id])
    assert server.user_agents == []  # not one request reached the server


def test_retrieve_fills_from_crossref_and_keeps_user_fields(tmp_path: Path, server: FakeServer) -> None:
    with _session(tmp_path / "home") as s:
        settings = s.settings.model_copy(deep=True)
        settings.metadata.crossref_url = server.base + "/crossref"
        settings.metadata.allow_online_lookups = True
        s.save_settings(settings)
        doc_id = _import_paper(s, tmp_path)
        item = s.metadata_item(doc_id)
        item.DOI = "10.1038/nature14539"
        item.title = "Title I typed"
        s.save_metadata(doc_id, item)
        [update] = s.retrieve_metadata([doc_id])
        doc = s.ready_document(doc_id)
        got = s.metadata_item(doc_id)
    assert server.user_agents  # the lookup went to the local server
    assert doc.title == "Title I typed" and doc.metadata_sources["title"] == "user"
    assert got.container_title == "Nature" and got.volume == "521" and got.page == "436-444"
    assert doc.metadata_sources["container_title"] == "online" and "title" in update.kept
    assert doc.authors[0] == "Yann LeCun"


def test_cli_list_json_and_metadata_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    with _session(home) as s:
        doc_id = _import_paper(s, tmp_path)
    assert main(["--home", str(home), "list", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["documents"][0]
    assert doc["check_metadata"] is False and doc["metadata_confidence"] >= 0.75
    assert main(["--home", str(home), "metadata", str(doc_id)]) == 0
    out = capsys.readouterr().out
    assert f"{pdfs.PAPER_TITLE}  [layout]" in out
    assert main(["--home", str(home), "metadata", str(doc_id), "--retrieve"]) != 0
    assert "lookups are off" in capsys.readouterr().err
    assert main(["--home", str(home), "metadata", "--allow-lookups", "on"]) == 0
    with _session(home) as s:
        assert s.online_lookups_allowed


def test_schema_step_adds_provenance_and_keeps_old_metadata(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "old").ensure()
    with _session(tmp_path / "old") as s:
        doc_id = _import_paper(s, tmp_path)
    # Make it a schema-3 library: no provenance columns.
    conn = sqlite3.connect(paths.database)
    new = ("metadata_sources", "metadata_confidence", "check_metadata")
    old = [r[1] for r in conn.execute("PRAGMA table_info(documents)") if r[1] not in new]
    conn.execute(f"CREATE TABLE v3 AS SELECT {', '.join(old)} FROM documents")
    conn.execute("DROP TABLE documents")
    conn.execute("ALTER TABLE v3 RENAME TO documents")
    conn.execute("UPDATE meta SET value='3' WHERE key='schema_version'")
    conn.commit()
    conn.close()
    lib = Library(paths)
    try:
        doc = lib.document(doc_id)
        assert doc is not None and doc.title == pdfs.PAPER_TITLE
        assert doc.metadata_sources == {} and doc.metadata_confidence is None
    finally:
        lib.close()
    store = Store(paths.database)
    try:
        cols = {r[1] for r in store.conn.execute("PRAGMA table_info(documents)")}
        version = store.get_meta("schema_version")
    finally:
        store.close()
    assert {"metadata_sources", "metadata_confidence", "check_metadata"} <= cols
    assert version is not None and int(version) == SCHEMA_VERSION >= 4
    Library(paths).close()  # a second open adds nothing (no duplicate column)
