"""Editing a document's metadata updates SQLite and re-indexes its chunks."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperpilot.core.citations.csl_record import clean_fields
from paperpilot.core.library import Library, LibraryError
from paperpilot.core.library.metadata import update_metadata
from paperpilot.core.settings.paths import app_paths


@pytest.fixture
def lib(tmp_path: Path) -> Library:
    library = Library(app_paths(tmp_path / "home"))
    paper = tmp_path / "owls.md"
    paper.write_text(
        "# Draft notes\n\n## Results\n\nBarn owls nested in 14 of the 20 church towers we checked, "
        "and each pair raised about four young.\n",
        encoding="utf-8",
    )
    library.import_paths([paper])
    return library


def test_title_change_is_searchable_and_old_title_gone(lib: Library) -> None:
    doc = lib.list_documents()[0]
    assert lib.search("draft notes", 3)[0].title == "Draft notes"
    new = update_metadata(lib, doc.doc_id, title="Barn Owls in Church Towers", year=2019)
    assert new.title == "Barn Owls in Church Towers" and new.year == 2019
    hits = lib.search("church towers", 3)
    assert hits and all(h.title == "Barn Owls in Church Towers" for h in hits)
    assert not [h for h in lib.search("draft", 3) if h.title == "Draft notes"]
    assert lib.list_documents()[0].title == "Barn Owls in Church Towers"  # catalogue cache dropped
    assert lib.search("owls", 3, year_from=2019, year_to=2019)  # the year filter sees the new year
    # The index holds exactly one copy of the document's chunks, and start-up finds it healthy.
    assert lib.index.num_docs() == lib.store.indexed_chunk_count() == doc.chunks
    lib.close()
    again = Library(lib.paths)
    assert again.recover() == [] and not again.index_rebuilt
    assert again.search("church towers", 1)[0].title == "Barn Owls in Church Towers"
    again.close()


def test_all_fields_are_cleaned_and_stored(lib: Library) -> None:
    doc_id = lib.list_documents()[0].doc_id
    new = update_metadata(
        lib,
        doc_id,
        authors="  Ana  Ruiz \n\nBo Chen\n",
        venue=" Owl   Quarterly ",
        doi="https://doi.org/10.1234/owl.77",
    )
    assert new.authors == ["Ana Ruiz", "Bo Chen"]
    assert new.venue == "Owl Quarterly" and new.doi == "10.1234/owl.77"
    assert new.title == "Draft notes"  # untouched fields stay as they were
    cleared = update_metadata(lib, doc_id, year=None, authors=[])
    assert cleared.year is None and cleared.authors == []
    lib.close()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"title": "  "}, "title"),
        ({"year": "soon"}, "number"),
        ({"year": 99}, "range"),
        ({"doi": "not a doi"}, "DOI"),
        ({"color": "red"}, "Unknown"),
    ],
)
def test_invalid_values_are_refused(lib: Library, fields: dict[str, object], message: str) -> None:
    doc = lib.list_documents()[0]
    with pytest.raises(ValueError, match=message):
        update_metadata(lib, doc.doc_id, **fields)
    assert lib.document(doc.doc_id) == doc
    lib.close()


def test_unknown_or_failed_documents_cannot_be_edited(lib: Library, tmp_path: Path) -> None:
    with pytest.raises(LibraryError):
        update_metadata(lib, 999, title="x")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    lib.import_paths([empty])
    failed = next(d for d in lib.all_documents() if d.status == "failed")
    with pytest.raises(LibraryError):
        update_metadata(lib, failed.doc_id, title="x")
    lib.close()


def test_clean_fields_without_changes() -> None:
    assert clean_fields({}) == {}
    assert clean_fields({"year": "2020"}) == {"year": 2020}
