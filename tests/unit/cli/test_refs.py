"""paperpilot refs and search --kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperpilot.cli import main
from tests.fixtures import pdfs


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    src = tmp_path / "src"
    src.mkdir()
    pdfs.make_structured_paper_pdf(src)
    pdfs.make_citing_paper_pdf(src)
    h = str(tmp_path / "h")
    code, _out, err = run(capsys, "--home", h, "import", str(src))
    assert code == 0, err
    return h


def _doc_ids(capsys: pytest.CaptureFixture[str], home: str) -> dict[str, int]:
    code, out, _ = run(capsys, "--home", home, "list", "--json")
    assert code == 0
    return {d["title"]: d["doc_id"] for d in json.loads(out)["documents"]}


def test_refs_and_cited_by(capsys: pytest.CaptureFixture[str], home: str) -> None:
    ids = _doc_ids(capsys, home)
    struct, citing = ids[pdfs.STRUCT_TITLE], ids[pdfs.CITING_TITLE]
    code, out, _ = run(capsys, "--home", home, "refs", str(citing), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["doc_id"] == citing and len(data["references"]) == 2
    linked = [r for r in data["references"] if r["doc_id"] is not None]
    assert [(r["title"], r["year"], r["doc_id"]) for r in linked] == [(pdfs.STRUCT_TITLE, pdfs.STRUCT_YEAR, struct)]
    code, out, _ = run(capsys, "--home", home, "refs", str(struct), "--cited-by", "--json")
    assert [(d["doc_id"], d["title"]) for d in json.loads(out)["cited_by"]] == [(citing, pdfs.CITING_TITLE)]
    code, out, _ = run(capsys, "--home", home, "refs", str(struct))
    assert code == 0 and "3 references" in out and "[3] T. Okoro" in out
    code, out, _ = run(capsys, "--home", home, "refs", str(citing))
    assert f"in library: #{struct}" in out
    code, out, _ = run(capsys, "--home", home, "refs", str(struct), "--cited-by")
    assert f"#{citing}" in out and pdfs.CITING_TITLE in out


def test_refs_of_an_unknown_document_is_one_line(capsys: pytest.CaptureFixture[str], home: str) -> None:
    code, out, err = run(capsys, "--home", home, "refs", "999")
    assert code != 0 and out == "" and err.strip().count("\n") == 0 and "999" in err


def test_search_by_kind(capsys: pytest.CaptureFixture[str], home: str) -> None:
    code, out, _ = run(capsys, "--home", home, "search", pdfs.REFERENCE_ONLY_WORD, "--json")
    hits = json.loads(out)["hits"]
    assert hits and {h["kind"] for h in hits} == {"references"}
    code, out, _ = run(capsys, "--home", home, "search", pdfs.REFERENCE_ONLY_WORD, "--kind", "body", "--json")
    assert code == 0 and json.loads(out)["hits"] == []
    code, out, _ = run(capsys, "--home", home, "search", "learning rate", "--kind", "body,abstract", "--json")
    hits = json.loads(out)["hits"]
    assert hits and hits[0]["section_path"] == "2 Method > 2.1 Training"
    code, out, err = run(capsys, "--home", home, "search", "x", "--kind", "bodies")
    assert code != 0 and "unknown kind 'bodies'" in err and "Traceback" not in err
