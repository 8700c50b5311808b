"""Documents as CSL items: guesses, edits, bibliography import and export, schema migration."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.cli import main
from paperpilot.core.citations.csl_record import guess_type, title_key
from paperpilot.core.citations.model import CslName, item_from_csl
from paperpilot.core.library import Library, LibraryError
from paperpilot.core.library.metadata import (
    export_items,
    format_references,
    import_bibliography,
    in_text,
    is_metadata_only,
    item_for_document,
    save_item,
    update_metadata,
)
from paperpilot.core.library.store import SCHEMA_VERSION
from paperpilot.core.models import DocumentInfo
from paperpilot.core.settings.paths import app_paths


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    library = Library(app_paths(tmp_path / "home"))
    yield library
    library.close()


def add_text(lib: Library, folder: Path, name: str, title: str, body: str) -> int:
    folder.mkdir(parents=True, exist_ok=True)
    p = folder / name
    p.write_text(f"# {title}\n\n{body}\n", encoding="utf-8")
    report = lib.import_paths([p])
    assert not report.failed, report.failed
    return report.imported[0].doc_id


OWLS = "Barn owls nested in fourteen of the twenty church towers we checked, and each pair raised young."
GNN = "Message passing networks predict molecular properties from atoms and bonds in a graph."
ATTN = "Self-attention relates positions in a sequence and is computed in parallel across tokens."


def doc_info(**kw: object) -> DocumentInfo:
    base: dict[str, object] = {
        "doc_id": 1,
        "title": "T",
        "authors": [],
        "year": None,
        "pages": 1,
        "chunks": 1,
    }
    base.update(kw)
    base.setdefault("status", "ready")
    return DocumentInfo(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "kind", "expected"),
    [
        ({"venue": "Proceedings of the 58th Annual Meeting of the ACL"}, "pdf", "paper-conference"),
        ({"venue": "NeurIPS 2020"}, "pdf", "paper-conference"),
        ({"venue": "第十届全国计算语言学学术会议论文集"}, "pdf", "paper-conference"),
        ({"venue": "Nature"}, "pdf", "article-journal"),
        ({"venue": "arXiv preprint"}, "pdf", "article"),
        ({"arxiv_id": "1706.03762"}, "pdf", "article"),
        ({"doi": "10.1000/xyz"}, "pdf", "article-journal"),
        ({}, "pdf", "article"),
        ({}, "markdown", "manuscript"),
        ({}, "text", "manuscript"),
    ],
)
def test_guess_type(fields: dict[str, str], kind: str, expected: str) -> None:
    assert guess_type(doc_info(**fields), kind) == expected


def test_item_for_document_from_columns(lib: Library, tmp_path: Path) -> None:
    doc_id = add_text(lib, tmp_path / "p", "owls.md", "Barn Owls in Church Towers", OWLS)
    update_metadata(
        lib,
        doc_id,
        authors=["张伯伟", "Ana Ruiz", "Ludwig van Beethoven"],
        year=2019,
        venue="Journal of Owl Studies",
        doi="https://doi.org/10.1234/owl.77",
    )
    item = item_for_document(lib, doc_id)
    assert item.type == "article-journal"
    assert item.title == "Barn Owls in Church Towers"
    assert item.author == [
        CslName(literal="张伯伟"),
        CslName(family="Ruiz", given="Ana"),
        CslName(family="van Beethoven", given="Ludwig"),
    ]
    assert item.issued == {"date-parts": [[2019]]}
    assert item.container_title == "Journal of Owl Studies"
    assert item.DOI == "10.1234/owl.77"
    assert item.language == "en-US"
    assert item.id == f"doc{doc_id}"
    # Nothing was written: the guess is made on every read until an item is saved.
    assert lib.store.get_csl(doc_id) == {}
    with pytest.raises(LibraryError):
        item_for_document(lib, 999)


def test_chinese_document_language(lib: Library, tmp_path: Path) -> None:
    doc_id = add_text(
        lib,
        tmp_path / "p",
        "poetics.md",
        "唐代诗学研究",
        "唐代诗学的研究方法与文献整理。本文讨论诗格与诗学的关系。",
    )
    item = item_for_document(lib, doc_id)
    assert item.language == "zh-CN" and item.type == "manuscript"


def test_save_item_updates_columns_and_search(lib: Library, tmp_path: Path) -> None:
    doc_id = add_text(lib, tmp_path / "p", "owls.md", "Draft notes", OWLS)
    item = item_for_document(lib, doc_id)
    item.title = "  Nesting of Barn Owls   in Church Towers "
    item.type = "paper-conference"
    item.author = [CslName(family="Ruiz", given="Ana"), CslName(literal="王小明")]
    item.container_title = "Proceedings of the Owl Conference"
    item.volume, item.page = "3", "12-19"
    item.issued = {"date-parts": [[2021, 4]]}
    item.arxiv = "arXiv:2101.00001v2"
    item.DOI = "doi:10.1234/owl.1"
    doc = save_item(lib, doc_id, item)

    assert doc.title == "Nesting of Barn Owls in Church Towers"
    assert doc.authors == ["Ana Ruiz", "王小明"]
    assert (doc.year, doc.venue, doc.doi, doc.arxiv_id) == (
        2021,
        "Proceedings of the Owl Conference",
        "10.1234/owl.1",
        "2101.00001",
    )
    hits = lib.search("church towers", 3)
    assert hits and all(h.title == "Nesting of Barn Owls in Church Towers" for h in hits)
    assert not [h for h in lib.search("draft", 3) if h.title == "Draft notes"]
    assert lib.search("owls", 3, year_from=2021, year_to=2021)

    again = item_for_document(lib, doc_id)
    assert again.type == "paper-conference" and again.volume == "3" and again.page == "12-19"
    assert again.issued == {"date-parts": [[2021, 4]]}  # the full date survives, not just the year
    assert again.author == item.author
    # The index holds one copy of the chunks and start-up finds it healthy.
    assert lib.index.num_docs() == lib.store.indexed_chunk_count()
    lib.close()
    reopened = Library(lib.paths)
    assert reopened.recover() == [] and not reopened.index_rebuilt
    reopened.close()


@pytest.mark.parametrize(
    ("change", "message"),
    [({"title": " "}, "title"), ({"DOI": "nonsense"}, "DOI"), ({"issued": {"date-parts": [[99]]}}, "range")],
)
def test_save_item_refuses_bad_values(
    lib: Library, tmp_path: Path, change: dict[str, object], message: str
) -> None:
    doc_id = add_text(lib, tmp_path / "p", "owls.md", "Barn Owls", OWLS)
    data = item_for_document(lib, doc_id).to_csl()
    data.update(change)
    with pytest.raises(ValueError, match=message):
        save_item(lib, doc_id, item_from_csl(data))
    assert lib.store.get_csl(doc_id) == {}


def test_column_edit_after_save_wins_for_that_field(lib: Library, tmp_path: Path) -> None:
    doc_id = add_text(lib, tmp_path / "p", "owls.md", "Barn Owls", OWLS)
    item = item_for_document(lib, doc_id)
    item.volume = "7"
    item.author = [CslName(family="Ruiz", given="Ana")]
    item.issued = {"date-parts": [[2018, 3, 1]]}
    save_item(lib, doc_id, item)
    update_metadata(lib, doc_id, title="Owls of the Towers")  # the older column editor
    got = item_for_document(lib, doc_id)
    assert got.title == "Owls of the Towers"
    assert got.volume == "7" and got.author == [CslName(family="Ruiz", given="Ana")]
    assert got.issued == {"date-parts": [[2018, 3, 1]]}  # untouched columns keep the saved item
    update_metadata(lib, doc_id, year=2020, authors=["Bo Chen"])
    got = item_for_document(lib, doc_id)
    assert got.issued == {"date-parts": [[2020]]} and got.author == [CslName(family="Chen", given="Bo")]


def test_format_references_and_in_text_keep_the_given_order(lib: Library, tmp_path: Path) -> None:
    a = add_text(lib, tmp_path / "p", "owls.md", "Barn Owls in Church Towers", OWLS)
    b = add_text(lib, tmp_path / "p", "gnn.md", "Graph Networks for Molecules", GNN)
    update_metadata(lib, a, authors=["Ana Ruiz"], year=2019, venue="Owl Quarterly")
    update_metadata(lib, b, authors=["Bo Chen"], year=2020, venue="Chemistry Letters")
    refs = format_references(lib, [b, a], "ieee")
    assert refs[0].text.startswith("[1] ") and "Graph Networks" in refs[0].text
    assert refs[1].text.startswith("[2] ") and "Barn Owls" in refs[1].text
    assert "<i>" in refs[0].html
    assert "Chen" in in_text(lib, [b, a], "apa") and "2020" in in_text(lib, [b, a], "apa")
    assert in_text(lib, [b], "ieee", numbers=[4]) == "[4]"
    with pytest.raises(ValueError, match="unknown citation style"):
        format_references(lib, [a], "harvard")


# --- bibliography import ------------------------------------------------------------------------

BIB = r"""% A bibliography exported from a reference manager.
@article{ruiz2019owls,
  title   = {Barn Owls in Church Towers},
  author  = {Ruiz, Ana and Chen, Bo},
  journal = {Owl Quarterly},
  year    = {2019},
  volume  = {12},
  number  = {3},
  pages   = {45--67},
  doi     = {https://doi.org/10.1234/OWL.77}
}

@misc{vaswani2017attention,
  title         = {Attention Is All You Need},
  author        = {Vaswani, Ashish and Shazeer, Noam},
  year          = {2017},
  eprint        = {1706.03762},
  archivePrefix = {arXiv},
  primaryClass  = {cs.CL}
}

@inproceedings{chen2020graph,
  title     = {Graph Networks for Molecules!},
  author    = {Chen, Bo},
  booktitle = {Proceedings of the Chemistry Conference},
  year      = {2020}
}

@book{zhang2002,
  title     = {全唐五代诗格汇考},
  author    = {张伯伟},
  publisher = {江苏古籍出版社},
  address   = {南京},
  year      = {2002},
  language  = {zh-CN}
}

@article{other1999,
  title   = {Graph Networks for Molecules},
  author  = {Someone, Else},
  journal = {Old Journal},
  year    = {1999}
}
"""


@pytest.fixture
def three_docs(lib: Library, tmp_path: Path) -> dict[str, int]:
    owls = add_text(lib, tmp_path / "p", "owls.md", "Draft notes on owls", OWLS)
    update_metadata(lib, owls, doi="10.1234/owl.77")
    attn = add_text(lib, tmp_path / "p", "attn.md", "attention draft", ATTN)
    item = item_for_document(lib, attn)
    item.arxiv = "1706.03762"
    save_item(lib, attn, item)
    gnn = add_text(lib, tmp_path / "p", "gnn.md", "graph networks for molecules", GNN)
    update_metadata(lib, gnn, year=2020)
    return {"owls": owls, "attn": attn, "gnn": gnn}


def test_bib_import_matches_and_creates(lib: Library, tmp_path: Path, three_docs: dict[str, int]) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    before = {d.doc_id for d in lib.list_documents()}
    report = import_bibliography(lib, bib)
    assert not report.errors
    assert report.matched == [
        (three_docs["owls"], "doi"),
        (three_docs["attn"], "arxiv"),
        (three_docs["gnn"], "title"),
    ]
    assert len(report.created) == 2  # the Chinese book and the 1999 namesake (a year too far)

    owls = item_for_document(lib, three_docs["owls"])
    assert owls.title == "Barn Owls in Church Towers"  # the entry beats the guessed title
    assert (owls.volume, owls.issue, owls.container_title) == ("12", "3", "Owl Quarterly")
    assert owls.page.replace("–", "-") == "45-67"
    assert [a.family for a in owls.author] == ["Ruiz", "Chen"]
    assert lib.document(three_docs["owls"]).title == "Barn Owls in Church Towers"  # type: ignore[union-attr]
    assert lib.search("church towers", 1)[0].doc_id == three_docs["owls"]

    gnn = item_for_document(lib, three_docs["gnn"])
    assert gnn.type == "paper-conference" and gnn.container_title == "Proceedings of the Chemistry Conference"
    assert gnn.year == 2020  # kept
    assert lib.search("molecular properties", 1)[0].doc_id == three_docs["gnn"]  # text untouched

    attn = item_for_document(lib, three_docs["attn"])
    assert attn.title == "Attention Is All You Need" and attn.arxiv == "1706.03762"

    new = [d for d in lib.list_documents() if d.doc_id not in before]
    assert sorted(d.doc_id for d in new) == sorted(report.created)
    book = next(d for d in new if d.title == "全唐五代诗格汇考")
    assert is_metadata_only(lib, book.doc_id) and not is_metadata_only(lib, three_docs["owls"])
    assert (book.pages, book.chunks, book.stored_path, book.authors, book.year) == (
        0,
        1,
        "",
        ["张伯伟"],
        2002,
    )
    assert item_for_document(lib, book.doc_id).type == "book"
    assert item_for_document(lib, book.doc_id).publisher == "江苏古籍出版社"
    assert lib.search("诗格汇考", 1)[0].doc_id == book.doc_id  # the one chunk makes it findable
    old = next(d for d in new if d.year == 1999)
    assert old.title == "Graph Networks for Molecules" and old.venue == "Old Journal"


def test_entry_never_blanks_existing_values(lib: Library, tmp_path: Path) -> None:
    doc_id = add_text(lib, tmp_path / "p", "owls.md", "Barn Owls in Church Towers", OWLS)
    item = item_for_document(lib, doc_id)
    item.abstract, item.volume = "We counted owls.", "9"
    item.issued = {"date-parts": [[2019]]}
    save_item(lib, doc_id, item)
    bib = tmp_path / "one.bib"
    bib.write_text(
        "@article{x, title={Barn owls in church-towers}, journal={Owl Quarterly}}\n", encoding="utf-8"
    )
    report = import_bibliography(lib, bib)
    assert report.matched == [(doc_id, "title")] and not report.created
    got = item_for_document(lib, doc_id)
    assert (got.abstract, got.volume, got.year) == ("We counted owls.", "9", 2019)
    assert got.container_title == "Owl Quarterly"


def test_short_titles_match_only_with_something_behind_them(lib: Library, tmp_path: Path) -> None:
    bees = add_text(lib, tmp_path / "p", "bees.md", "Honey Bees", "Honey bees visit flowers for nectar.")
    intro = add_text(lib, tmp_path / "p", "intro.md", "Introduction", "An introduction to owls and towers.")
    wasps = add_text(lib, tmp_path / "p", "wasps.md", "Paper Wasps", "Paper wasps build nests from chewed wood.")
    update_metadata(lib, wasps, year=2019, authors=["Ana Ruiz"])
    bib = tmp_path / "short.bib"
    bib.write_text(
        "@article{a, title={Honey bees}, journal={Bee World}}\n"  # nothing to compare: two words will do
        "@article{b, title={Introduction}, journal={Owl Notes}}\n"  # one common word alone is not enough
        "@article{c, title={Paper Wasps}, author={Ruiz, Ana}, year={2019}, journal={Nests}}\n"
        "@article{d, title={Paper Wasps}, author={Okafor, Chidi}, year={2019}}\n",  # another author
        encoding="utf-8",
    )
    before = len(lib.list_documents())
    report = import_bibliography(lib, bib)
    assert (bees, "title") in report.matched and (wasps, "title") in report.matched
    assert all(doc != intro for doc, _ in report.matched)
    assert len(report.created) == 2 and len(lib.list_documents()) == before + 2
    assert item_for_document(lib, bees).container_title == "Bee World"
    assert item_for_document(lib, wasps).container_title == "Nests"
    assert item_for_document(lib, intro).container_title == ""


def test_title_key() -> None:
    assert title_key("Graph Networks for Molecules!") == title_key("graph  networks, for MOLECULES")
    assert title_key("ＡＢＣ：全角") == title_key("abc全角")  # NFKC folds full-width forms


def test_reimport_is_reported_as_duplicates(lib: Library, tmp_path: Path, three_docs: dict[str, int]) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(BIB, encoding="utf-8")
    first = lib.import_paths([bib])
    assert len(first.imported) == 2 and len(first.updated) == 3 and not first.failed
    assert all(d.pages == 0 and d.chunks == 1 for d in first.imported)
    count = len(lib.list_documents())
    second = lib.import_paths([bib])
    assert not second.imported and not second.updated and not second.failed
    assert len(second.duplicates) == 5
    assert len(lib.list_documents()) == count


MALFORMED = """@article{good1,
  title = {First Good Entry About Owls},
  author = {Ruiz, Ana},
  year = {2019},
  journal = {Owl Quarterly}
}

@article{broken,
  title = {This entry never closes its brace,
  year = {2020

@article{good2,
  title = {Second Good Entry About Bats},
  author = {Chen, Bo},
  year = {2021},
  journal = {Bat Letters}
}
"""


def test_malformed_bib_imports_the_rest_with_line_numbers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bib = tmp_path / "bad.bib"
    bib.write_text(MALFORMED, encoding="utf-8")
    home = str(tmp_path / "h")
    assert main(["--home", home, "import", str(bib), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"imported", "duplicates", "failed"}
    titles = sorted(d["title"] for d in data["imported"])
    assert "First Good Entry About Owls" in titles
    assert data["failed"], data
    for f in data["failed"]:
        path, _, line = f["path"].rpartition(":")
        assert Path(path) == bib.resolve() and f["reason"]
        assert 8 <= int(line) <= 17  # within or right after the broken entry
    listed = json.loads(_run(capsys, "--home", home, "list", "--json"))["documents"]
    assert {d["title"] for d in listed} >= {"First Good Entry About Owls"}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def test_ris_and_csl_json_import(lib: Library, tmp_path: Path) -> None:
    ris = tmp_path / "refs.ris"
    ris.write_text(
        "TY  - JOUR\nTI  - Echolocation in Fruit Bats\nAU  - Chen, Bo\nPY  - 2021\nJO  - Bat Letters\n"
        "VL  - 4\nDO  - 10.5555/bats.4\nER  - \n",
        encoding="utf-8",
    )
    csl = tmp_path / "refs.json"
    csl.write_text(
        json.dumps(
            [
                {
                    "id": "mole",
                    "type": "report",
                    "title": "Moles Under Lawns",
                    "author": [{"family": "Ruiz", "given": "Ana"}],
                    "publisher": "Garden Institute",
                    "issued": {"date-parts": [[2015]]},
                }
            ]
        ),
        encoding="utf-8",
    )
    not_csl = tmp_path / "config.json"
    not_csl.write_text('{"theme": "dark"}', encoding="utf-8")
    report = lib.import_paths([ris, csl])
    assert sorted(d.title for d in report.imported) == ["Echolocation in Fruit Bats", "Moles Under Lawns"]
    bat = next(d for d in lib.list_documents() if d.title == "Echolocation in Fruit Bats")
    assert bat.doi == "10.5555/bats.4" and bat.venue == "Bat Letters"
    assert item_for_document(lib, bat.doc_id).volume == "4"
    mole = next(d for d in lib.list_documents() if d.title == "Moles Under Lawns")
    assert item_for_document(lib, mole.doc_id).type == "report"
    # Named directly, a non-CSL .json is refused; in a folder it is skipped.
    assert "CSL-JSON" in lib.import_paths([not_csl]).failed[0][1]
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "config.json").write_text('{"a": 1}', encoding="utf-8")
    (folder / "more.json").write_text(
        json.dumps([{"type": "book", "title": "A Book on Hedgehogs", "issued": {"date-parts": [[2001]]}}]),
        encoding="utf-8",
    )
    folder_report = lib.import_paths([folder])
    assert [d.title for d in folder_report.imported] == ["A Book on Hedgehogs"] and not folder_report.failed


def test_save_item_on_a_metadata_only_document_rewrites_its_chunk(lib: Library, tmp_path: Path) -> None:
    csl = tmp_path / "one.json"
    csl.write_text(json.dumps([{"type": "book", "title": "Hedgehogs at Night"}]), encoding="utf-8")
    doc_id = import_bibliography(lib, csl).created[0]
    item = item_for_document(lib, doc_id)
    item.title = "Nocturnal Hedgehogs"
    item.abstract = "Hedgehogs forage for beetles after dark."
    save_item(lib, doc_id, item)
    assert lib.search("beetles", 1)[0].doc_id == doc_id
    assert not lib.search("hedgehogs at night", 3) or all(
        h.title == "Nocturnal Hedgehogs" for h in lib.search("hedgehogs at night", 3)
    )
    assert lib.read(doc_id, 0).text.startswith("Nocturnal Hedgehogs")


# --- export -------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["bibtex", "ris", "csl-json"])
def test_export_round_trip_through_the_library(tmp_path: Path, fmt: str) -> None:
    src = Library(app_paths(tmp_path / "a"))
    doc_id = add_text(src, tmp_path / "p", "owls.md", "Draft", OWLS)
    item = item_for_document(src, doc_id)
    item.title = "Barn Owls in Church Towers"
    item.type = "article-journal"
    item.author = [CslName(family="Ruiz", given="Ana"), CslName(family="Chen", given="Bo")]
    item.container_title = "Owl Quarterly"
    item.volume, item.issue, item.page = "12", "3", "45-67"
    item.issued = {"date-parts": [[2019]]}
    item.DOI = "10.1234/owl.77"
    save_item(src, doc_id, item)
    zh = add_text(src, tmp_path / "p", "zh.md", "唐代诗学研究", "唐代诗学的研究方法与文献整理。")
    update_metadata(src, zh, authors=["张伯伟"], year=2002, venue="中国社会科学")
    text = export_items(src, None, fmt)  # type: ignore[arg-type]
    assert export_items(src, [zh], fmt) != text  # a selection exports only that  # type: ignore[arg-type]
    src.close()

    suffix = {"bibtex": ".bib", "ris": ".ris", "csl-json": ".json"}[fmt]
    out = tmp_path / f"export{suffix}"
    out.write_text(text, encoding="utf-8")
    dst = Library(app_paths(tmp_path / "b"))
    report = import_bibliography(dst, out)
    assert not report.errors and len(report.created) == 2
    got = {item_for_document(dst, i).title: item_for_document(dst, i) for i in report.created}
    owls = got["Barn Owls in Church Towers"]
    assert owls.type == "article-journal"
    assert [(a.family, a.given) for a in owls.author] == [("Ruiz", "Ana"), ("Chen", "Bo")]
    assert (owls.container_title, owls.volume, owls.issue, owls.year) == ("Owl Quarterly", "12", "3", 2019)
    assert owls.page.replace("–", "-") == "45-67"
    assert owls.DOI.lower() == "10.1234/owl.77"
    poem = got["唐代诗学研究"]
    assert [a.display() for a in poem.author] == ["张伯伟"] and poem.container_title == "中国社会科学"
    dst.close()


def test_export_unknown_document(lib: Library) -> None:
    with pytest.raises(LibraryError):
        export_items(lib, [42], "bibtex")


# --- schema migration -------------------------------------------------------------------------

V1_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT, sha256 TEXT NOT NULL DEFAULT '',
    file_name TEXT NOT NULL DEFAULT '', source_path TEXT NOT NULL DEFAULT '',
    stored_path TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '',
    external_id TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '',
    authors TEXT NOT NULL DEFAULT '[]', year INTEGER, venue TEXT NOT NULL DEFAULT '',
    doi TEXT NOT NULL DEFAULT '', arxiv_id TEXT NOT NULL DEFAULT '', abstract TEXT NOT NULL DEFAULT '',
    language TEXT NOT NULL DEFAULT '', page_count INTEGER NOT NULL DEFAULT 0,
    chunk_count INTEGER NOT NULL DEFAULT 0, size_bytes INTEGER NOT NULL DEFAULT 0, added TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL CHECK (status IN ('ready', 'failed', 'deleting')),
    error TEXT NOT NULL DEFAULT '', error_code TEXT NOT NULL DEFAULT '', indexed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX documents_sha ON documents(sha256);
CREATE INDEX documents_source ON documents(source_path);
CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL, section TEXT NOT NULL DEFAULT '', page INTEGER NOT NULL DEFAULT 1,
    text TEXT NOT NULL, UNIQUE (doc_id, seq)
);
INSERT INTO meta VALUES ('schema_version', '1');
INSERT INTO documents (sha256, file_name, kind, title, authors, year, venue, doi, language, page_count,
    chunk_count, added, status, indexed)
VALUES ('abc', 'owls.md', 'markdown', 'Barn Owls in Church Towers', '["Ana Ruiz"]', 2019, 'Owl Quarterly',
    '10.1234/owl.77', 'en', 1, 1, '2024-01-01T00:00:00+00:00', 'ready', 1);
INSERT INTO chunks (doc_id, seq, section, page, text)
VALUES (1, 0, '', 1, 'Barn owls nested in fourteen of the twenty church towers we checked.');
"""


def test_schema_migration_v1_to_v2_keeps_documents(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "old").ensure()
    conn = sqlite3.connect(paths.database)
    conn.executescript(V1_SCHEMA)
    conn.close()

    lib = Library(paths)  # migrates on open; the index is rebuilt from SQLite
    try:
        docs = lib.list_documents()
        assert [(d.title, d.authors, d.year, d.doi) for d in docs] == [
            ("Barn Owls in Church Towers", ["Ana Ruiz"], 2019, "10.1234/owl.77")
        ]
        assert lib.search("church towers", 1)[0].doc_id == 1
        item = item_for_document(lib, 1)
        assert item.type == "article-journal" and item.container_title == "Owl Quarterly"
        item.volume = "12"
        save_item(lib, 1, item)
        assert item_for_document(lib, 1).volume == "12"
    finally:
        lib.close()
    conn = sqlite3.connect(paths.database)
    version = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0]
    cols = {r[1] for r in conn.execute("PRAGMA table_info(documents)")}
    conn.close()
    assert int(version) == SCHEMA_VERSION >= 2 and "csl" in cols
    # Opening again is a no-op (no second ALTER TABLE).
    Library(paths).close()
