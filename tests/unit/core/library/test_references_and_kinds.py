"""The library keeps each chunk's kind and section path, each paper's reference list, and the
links between papers that cite each other."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from paperpilot.core.agent.events import Finished, Status
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.library import Library
from paperpilot.core.library.store import SCHEMA_VERSION
from paperpilot.core.settings.paths import app_paths
from tests.fixtures.pdfs import (
    CITING_TITLE,
    REFERENCE_ONLY_WORD,
    STRUCT_DOI,
    STRUCT_TITLE,
    make_citing_paper_pdf,
    make_structured_paper_pdf,
)


@pytest.fixture
def lib(tmp_path: Path) -> Library:
    src = tmp_path / "src"
    src.mkdir()
    library = Library(app_paths(tmp_path / "home"))
    report = library.import_paths([make_structured_paper_pdf(src), make_citing_paper_pdf(src)])
    assert not report.failed and len(report.imported) == 2
    yield library  # type: ignore[misc]
    library.close()


def _ids(lib: Library) -> tuple[int, int]:
    docs = {d.title: d.doc_id for d in lib.list_documents()}
    return docs[STRUCT_TITLE], docs[CITING_TITLE]


def test_chunks_are_stored_with_kind_and_section_path(lib: Library) -> None:
    conn = sqlite3.connect(lib.paths.database)
    try:
        cols = {r[1] for r in conn.execute("PRAGMA table_info(chunks)")}
        rows = conn.execute("SELECT kind, section_path, text FROM chunks").fetchall()
        ref_cols = {r[1] for r in conn.execute("PRAGMA table_info(doc_references)")}
    finally:
        conn.close()
    assert {"kind", "section_path"} <= cols
    assert {"doc_id", "seq", "label", "authors", "title", "year", "venue", "doi", "arxiv_id"} <= ref_cols
    kinds = {k for k, _p, _t in rows}
    assert {"title", "abstract", "body", "caption", "table", "footnote", "references", "appendix"} <= kinds
    assert ("body", "2 Method > 2.1 Training") in {(k, p) for k, p, _t in rows}
    struct, _ = _ids(lib)
    p = lib.read(struct, next(h.seq for h in lib.search("learning rate warm-up", 3) if h.doc_id == struct))
    assert p.kind == "body" and p.section_path == "2 Method > 2.1 Training"


def test_search_filters_by_kind(lib: Library) -> None:
    every = lib.search(REFERENCE_ONLY_WORD, 5)
    assert every and {h.kind for h in every} == {"references"}
    assert lib.search(REFERENCE_ONLY_WORD, 5, kinds=["body", "abstract", "caption"]) == []
    hits = lib.search("lattice anchor", 10, kinds=["caption"])
    assert hits and all(h.kind == "caption" for h in hits) and "Figure 1" in hits[0].snippet


def test_references_are_parsed_and_linked(lib: Library) -> None:
    struct, citing = _ids(lib)
    refs = lib.references(struct)
    assert [r.reference.label for r in refs] == ["1", "2", "3"]
    assert refs[2].reference.title.startswith(REFERENCE_ONLY_WORD) and refs[2].reference.year == 2018
    assert all(r.doc_id is None for r in refs)  # none of them is in the library
    cref = lib.references(citing)
    assert len(cref) == 2
    linked = [r for r in cref if r.doc_id is not None]
    assert [(r.reference.title, r.doc_id) for r in linked] == [(STRUCT_TITLE, struct)]
    assert json.loads(json.dumps(linked[0].to_json()))["doc_id"] == struct


def test_cited_by(lib: Library) -> None:
    struct, citing = _ids(lib)
    assert [d.doc_id for d in lib.cited_by(struct)] == [citing]
    assert lib.cited_by(citing) == []
    # Removing the citing paper removes its reference list too.
    lib.remove(citing)
    assert lib.cited_by(struct) == []
    assert lib.store.reference_count(citing) == 0


def test_cited_by_doi(tmp_path: Path, lib: Library) -> None:
    struct, _ = _ids(lib)
    assert lib.document(struct).doi == STRUCT_DOI  # type: ignore[union-attr]
    note = tmp_path / "src" / "survey.md"
    note.write_text(
        "# A survey\n\nLong inputs are a recurring topic of the field and of this survey.\n\n# References\n\n"
        f"[1] M. Quist, \"Anchors,\" Journal of Lattices, 2022. doi:{STRUCT_DOI}\n",
        encoding="utf-8",
    )
    lib.import_paths([note])
    assert "A survey" in {d.title for d in lib.cited_by(struct)}


def test_a_question_answered_only_by_a_reference_list_gets_no_answer_from_it(lib: Library) -> None:
    question = f"What is {REFERENCE_ONLY_WORD} marsupial gradient sampling?"
    events = list(run_agent(question, lib, OfflinePolicy(), AgentOptions(mode="loop")))
    assert isinstance(events[-1], Finished)
    result = events[-1].result
    assert result.status != Status.ANSWERED
    assert "Marsupial gradient sampling" not in result.answer and "Okoro" not in result.answer
    assert all(e.kind != "references" for e in result.evidence)


def test_old_library_is_migrated_and_its_chunks_classified(tmp_path: Path) -> None:
    home = tmp_path / "old"
    library = Library(app_paths(home))
    library.close()
    db = app_paths(home).database
    conn = sqlite3.connect(db)
    # A schema-3 library: chunks without kind or section path, no reference lists.
    conn.executescript(
        "DROP TABLE doc_references; ALTER TABLE chunks DROP COLUMN kind; ALTER TABLE chunks DROP COLUMN section_path;"
        "UPDATE meta SET value='3' WHERE key='schema_version';"
        "INSERT INTO documents (id, title, added, status, kind) VALUES (1, 'Old paper', '2020-01-01T00:00:00Z', 'ready', 'text');"
        "INSERT INTO chunks (doc_id, seq, section, text) VALUES (1, 0, 'Introduction', "
        "'We study how birds sing in cities and why the noise of traffic changes their songs.');"
        "INSERT INTO chunks (doc_id, seq, section, text) VALUES (1, 1, 'References', 'Doe, J. 2019. Birds. Journal of Birds 3:1-10.');"
    )
    conn.commit()
    conn.close()
    library = Library(app_paths(home))
    try:
        conn = sqlite3.connect(db)
        try:
            version = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
            rows = conn.execute("SELECT seq, kind, section_path FROM chunks ORDER BY seq").fetchall()
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        finally:
            conn.close()
        assert int(version) == SCHEMA_VERSION and "doc_references" in tables
        assert rows == [(0, "body", "Introduction"), (1, "references", "References")]
        assert library.references(1) == []
    finally:
        library.close()


def test_a_version_7_library_without_chunk_sources_gets_the_column(tmp_path: Path) -> None:
    # Main wrote version 7 before chunks.source joined that migration step.
    home = tmp_path / "v7"
    Library(app_paths(home)).close()
    db = app_paths(home).database
    conn = sqlite3.connect(db)
    conn.executescript(
        "ALTER TABLE chunks DROP COLUMN source;"
        "INSERT INTO documents (id, title, added, status, kind) VALUES (1, 'Old paper', '2020-01-01T00:00:00Z', 'ready', 'text');"
        "INSERT INTO chunks (doc_id, seq, section, text, kind) VALUES (1, 0, 'Introduction', 'Birds sing in cities.', 'body');"
    )
    conn.commit()
    conn.close()
    library = Library(app_paths(home))
    try:
        passage = library.store.passage(1, 0)
        assert passage is not None and passage.kind == "body" and passage.ocr is False
    finally:
        library.close()
