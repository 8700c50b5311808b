"""The CLI contract: JSON shapes, option placement, human output, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paperpilot.cli import main
from tests.fixtures import pdfs


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:  # type: ignore[type-arg]
    code, out, err = run(capsys, *argv)
    assert code == 0, err
    return json.loads(out)  # stdout is exactly one JSON document


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    d = tmp_path / "papers"
    d.mkdir()
    (d / "attention.md").write_text(
        "# Attention Is Useful\n\nSelf-attention relates positions in a sequence. It is computed in parallel.\n"
    )
    (d / "leave.txt").write_bytes(
        "员工请假流程管理办法\n\n员工请假应当提前申请。病假须提供证明。\n".encode("gb18030")
    )
    (d / "broken.pdf").write_bytes(b"%PDF-1.7\nthis is not really a pdf")
    pdfs.make_two_column_pdf(d)
    return d


def test_import_list_search_read_remove(
    capsys: pytest.CaptureFixture[str], corpus: Path, tmp_path: Path
) -> None:
    home = str(tmp_path / "h")
    data = run_json(capsys, "--home", home, "import", str(corpus), "--json")
    assert set(data) >= {"imported", "duplicates", "failed"}
    assert len(data["imported"]) == 3
    for d in data["imported"]:
        assert set(d) >= {"doc_id", "title", "pages", "chunks"}
        assert isinstance(d["doc_id"], int) and d["chunks"] >= 1
    assert [Path(f["path"]).name for f in data["failed"]] == ["broken.pdf"]
    assert data["failed"][0]["reason"]

    again = run_json(capsys, "import", str(corpus / "attention.md"), "--home", home, "--json")
    assert again["imported"] == [] and len(again["duplicates"]) == 1
    assert set(again["duplicates"][0]) == {"path", "doc_id"}

    listed = run_json(capsys, "list", "--json", "--home", home)["documents"]
    assert {d["status"] for d in listed} == {"ready", "failed"}
    for d in listed:
        assert set(d) >= {"doc_id", "title", "authors", "year", "pages", "chunks", "status"}

    hits = run_json(capsys, "--json", "--home", home, "search", "请假流程", "-k", "2")["hits"]
    assert hits and hits[0]["title"] == "员工请假流程管理办法"
    for h in hits:
        assert set(h) >= {"doc_id", "chunk_id", "title", "section", "page", "score", "snippet"}

    hit = run_json(capsys, "--home", home, "search", "pelican", "migration", "--json")["hits"][0]
    seg = hit["segment"]
    passage = run_json(capsys, "--home", home, "read", str(hit["doc_id"]), str(seg), "--json")
    assert set(passage) >= {"doc_id", "chunk_id", "section", "page", "text", "prev", "next"}
    assert passage["chunk_id"] == hit["chunk_id"]
    assert "pelican" in passage["text"]

    removed = run_json(capsys, "--home", home, "remove", str(hit["doc_id"]), "--json")
    assert removed["removed"][0]["doc_id"] == hit["doc_id"]
    assert run_json(capsys, "--home", home, "search", "pelican", "--json")["hits"] == []

    re = run_json(capsys, "reindex", "--home", home, "--json")
    assert re["documents"] == 2


def test_home_env_and_option_agree(
    capsys: pytest.CaptureFixture[str], corpus: Path, paperpilot_home: Path
) -> None:
    run_json(capsys, "import", str(corpus / "attention.md"), "--json")
    assert (paperpilot_home / "data" / "library" / "library.sqlite3").exists()
    listed = run_json(capsys, "--home", str(paperpilot_home), "list", "--json")
    assert len(listed["documents"]) == 1


def test_human_output(capsys: pytest.CaptureFixture[str], corpus: Path) -> None:
    code, out, _ = run(capsys, "import", str(corpus))
    assert code == 0 and "3 imported, 0 duplicate(s), 1 failed." in out
    code, out, _ = run(capsys, "list")
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["ID", "TITLE", "AUTHORS"]
    assert any("Attention Is Useful" in line for line in lines)
    code, out, _ = run(capsys, "search", "self attention")
    assert out.startswith("1. Attention Is Useful")
    code, out, _ = run(capsys, "search", "nothingmatchesthis")
    assert "No passages match" in out


def test_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "read", "42", "0", "--json")
    assert code != 0 and out == ""
    assert err.strip().count("\n") == 0 and "No document with id 42" in err
    code, _, err = run(capsys, "remove", "7")
    assert code != 0 and "Traceback" not in err


def test_console_script_no_traceback(tmp_path: Path) -> None:
    env = {**os.environ, "PAPERPILOT_HOME": str(tmp_path / "h")}
    r = subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "read", "1", "0"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 1
    assert "Traceback" not in r.stderr and r.stderr.startswith("paperpilot: ")
    r = subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "search", "x", "-k", "notanumber"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert r.returncode == 2 and "must be a whole number, not 'notanumber'" in r.stderr
    assert r.stderr.count("\n") == 1  # one line, no usage block


def test_every_status_has_words_in_the_cli() -> None:
    """The first line of `paperpilot ask` names the status in words, never the raw enum value."""
    from paperpilot.cli.ask import _STATUS_WORDS
    from paperpilot.core.agent.events import Status

    for status in Status:
        words = _STATUS_WORDS.get(status.value, "")
        assert words and words != status.value and words[0].isupper(), status
