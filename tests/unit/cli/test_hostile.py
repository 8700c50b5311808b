"""The CLI under hostile and clumsy input: one plain line each, a right exit code, nothing lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from paperpilot import cli
from paperpilot.cli import main
from paperpilot.core.library import importer as importer_module
from paperpilot.core.settings.paths import app_paths

USAGE, ERROR = 2, 1


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    assert "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("paperpilot"), err
    return err


@pytest.fixture
def home(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """A library of five text documents (ids 1-5)."""
    papers = tmp_path / "papers"
    papers.mkdir()
    for i in range(1, 6):
        (papers / f"paper{i}.md").write_text(f"# Paper {i}\n\nThis paper {i} is about topic{i} and sparrows.\n")
    h = str(tmp_path / "h")
    code, _, err = run(capsys, "--home", h, "import", str(papers), "--json")
    assert code == 0, err
    return h


def doc_ids(capsys: pytest.CaptureFixture[str], home: str) -> list[int]:
    code, out, _ = run(capsys, "--home", home, "list", "--json")
    assert code == 0
    return [d["doc_id"] for d in json.loads(out)["documents"]]


# --- remove -------------------------------------------------------------------------------------


@pytest.mark.parametrize("ids", [["5", "999", "4"], ["7", "7"], ["999", "1"]])
def test_remove_with_a_bad_id_removes_nothing(capsys: pytest.CaptureFixture[str], home: str, ids: list[str]) -> None:
    code, out, err = run(capsys, "--home", home, "remove", *ids)
    assert code == ERROR and out == ""
    assert "nothing was removed" in one_line(err)
    assert doc_ids(capsys, home) == [1, 2, 3, 4, 5]
    code, out, err = run(capsys, "--home", home, "remove", *ids, "--json")
    assert code == ERROR
    data = json.loads(out)
    assert data["removed"] == [] and "nothing was removed" in data["error"]
    assert doc_ids(capsys, home) == [1, 2, 3, 4, 5]


def test_remove_repeated_ids_once(capsys: pytest.CaptureFixture[str], home: str) -> None:
    code, out, err = run(capsys, "--home", home, "remove", "2", "4", "2", "--json")
    assert code == 0, err
    assert [r["doc_id"] for r in json.loads(out)["removed"]] == [2, 4]
    assert doc_ids(capsys, home) == [1, 3, 5]


# --- wrong-typed and out-of-range arguments -----------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "code", "words"),
    [
        (["read", "1", "x"], USAGE, "a segment number must be a whole number, not 'x'"),
        (["read", "x", "0"], USAGE, "a document id must be a whole number, not 'x'"),
        (["read", "1", "-5"], USAGE, "a segment number must be 0 or more, not -5"),
        (["read", "999", "0"], ERROR, "No document with id 999"),
        (["read", "1", "999"], ERROR, "has no segment 999"),
        (["search", ""], USAGE, "the search query is empty"),
        (["search", "  "], USAGE, "the search query is empty"),
        (["search", "sparrows", "-k", "0"], USAGE, "the number of hits must be between 1 and 100, not 0"),
        (["search", "sparrows", "-k", "100000"], USAGE, "between 1 and 100"),
        (["search", "sparrows", "--doc", "0"], USAGE, "a document id must be 1 or more"),
        (["search", "sparrows", "--year-from", "soon"], USAGE, "a year must be a whole number"),
        (["cite", "999"], ERROR, "No document with id 999"),
        (["cite", "1", "abc"], USAGE, "a document id must be a whole number, not 'abc'"),
        (["export", "999"], ERROR, "No document with id 999"),
        (["notes", "999"], ERROR, "no document with id 999"),
        (["notes", "0"], USAGE, "a document id must be 1 or more"),
        (["ask", "sparrows", "--max-rounds", "0"], USAGE, "the number of rounds must be between 1 and 30, not 0"),
        (["ask", "sparrows", "--max-rounds", "-1"], USAGE, "between 1 and 30, not -1"),
        (["ask", "sparrows", "--max-rounds", "1000"], USAGE, "between 1 and 30, not 1000"),
        (["ask", "sparrows", "--max-rounds", "many"], USAGE, "must be a whole number, not 'many'"),
        (["eval", "/nonexistent.jsonl", "--limit", "0"], USAGE, "the number must be 1 or more"),
        (["conversations", "--export", "nope"], ERROR, "No conversation with id 'nope'"),
    ],
)
def test_bad_arguments_get_one_plain_line(
    capsys: pytest.CaptureFixture[str], home: str, argv: list[str], code: int, words: str
) -> None:
    got, out, err = run(capsys, "--home", home, *argv)
    assert got == code and out == ""
    assert words in one_line(err)
    assert "usage:" not in err


def test_max_rounds_accepts_the_settings_range(capsys: pytest.CaptureFixture[str], home: str) -> None:
    for n in ("1", "30"):
        code, out, err = run(capsys, "--home", home, "ask", "What is paper 3 about?", "--max-rounds", n, "--json")
        assert code == 0, err
        assert json.loads(out)["steps"] <= int(n)


# --- homes and trace files ----------------------------------------------------------------------


def test_home_that_is_a_file_or_empty(capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "afile"
    f.write_text("not a folder")
    code, _, err = run(capsys, "--home", str(f), "list")
    assert code == USAGE and f"--home {f} is a file, not a folder" in one_line(err)
    code, _, err = run(capsys, "--home", str(f / "inside"), "list")
    assert code == USAGE and f"{f} is a file, not a folder" in one_line(err)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "--home", "", "list")
    assert code == USAGE and "--home is empty" in one_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # nothing made in the current folder
    monkeypatch.setenv("PAPERPILOT_HOME", str(f))
    code, _, err = run(capsys, "list")
    assert code == USAGE and "PAPERPILOT_HOME" in one_line(err) and "is a file" in err
    assert f.read_text() == "not a folder"


def test_trace_that_is_a_folder_or_cannot_be_written(
    capsys: pytest.CaptureFixture[str], home: str, tmp_path: Path
) -> None:
    code, _, err = run(capsys, "--home", home, "ask", "sparrows", "--trace", str(tmp_path))
    assert code == USAGE and "is a folder; give a file name" in one_line(err)
    code, _, err = run(capsys, "--home", home, "ask", "sparrows", "--trace", str(tmp_path / "no" / "t.jsonl"))
    assert code == USAGE and "does not exist" in one_line(err)
    # /proc refuses new files even to root, so this is an unwritable place on any Linux.
    if Path("/proc/self").is_dir():
        code, _, err = run(capsys, "--home", home, "ask", "sparrows", "--trace", "/proc/self/trace.jsonl")
        assert code in (USAGE, ERROR) and "trace" in one_line(err)
    code, _, err = run(capsys, "--home", home, "ask", "sparrows", "--trace", str(tmp_path / "t.jsonl"), "--json")
    assert code == 0, err
    assert (tmp_path / "t.jsonl").read_text().count("\n") >= 3


# --- invalid UTF-8 in arguments -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["search", "pre\udcfftraining"], "the search query 'pre\\xfftraining' is not valid UTF-8"),
        (["ask", "what is \udcff"], "the question 'what is \\xff' is not valid UTF-8"),
        (["notes", "1", "--set", "note \udcfe"], "the note 'note \\xfe' is not valid UTF-8"),
        (["conversations", "--rename", "abc", "t\udcff"], "the title"),
        (["profile", "set", "topics", "a\udcffb"], "the value"),
    ],
)
def test_text_that_is_not_utf8_is_refused(
    capsys: pytest.CaptureFixture[str], home: str, argv: list[str], words: str
) -> None:
    code, out, err = run(capsys, "--home", home, *argv)
    assert code == USAGE and out == ""
    assert words in one_line(err)


def test_invalid_utf8_argv_in_a_real_process(tmp_path: Path) -> None:
    if os.name != "posix":
        pytest.skip("argv bytes are a POSIX notion")
    bad = tmp_path.as_posix().encode() + b"/caf\xe9.txt"
    with open(bad, "wb") as f:  # a real file whose name is Latin-1, not UTF-8
        f.write(b"hello\n")
    env = {**os.environ, "PAPERPILOT_HOME": str(tmp_path / "h")}
    for argv in ([b"search", b"pre\xfftraining"], [b"import", bad], [b"ask", b"\xff\xfe"]):
        r = subprocess.run([sys.executable, "-m", "paperpilot.cli", *argv], capture_output=True, env=env, timeout=60)
        err = r.stderr.decode("utf-8", "replace")
        assert r.returncode == USAGE and r.stdout == b""
        assert "Traceback" not in err and err.count("\n") == 1 and "not valid UTF-8" in err


# --- the last line of defence -------------------------------------------------------------------


def test_an_unexpected_error_is_one_line_and_its_traceback_goes_to_the_log(
    capsys: pytest.CaptureFixture[str], home: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(args: object) -> int:
        raise KeyError("a bug deep inside")

    monkeypatch.setitem(cli.COMMANDS, "list", broken)
    monkeypatch.delenv("PAPERPILOT_DEBUG", raising=False)
    code, out, err = run(capsys, "--home", home, "list")
    log = app_paths(home).log_dir / "paperpilot.log"
    assert code == ERROR and out == ""
    assert "(KeyError); this is a bug: the details are in" in one_line(err) and str(log) in err
    text = log.read_text(encoding="utf-8")
    assert "Traceback" in text and "a bug deep inside" in text
    monkeypatch.setenv("PAPERPILOT_DEBUG", "1")
    with pytest.raises(KeyError):
        main(["--home", home, "list"])


def test_file_system_errors_are_one_line(capsys: pytest.CaptureFixture[str], home: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(args: object) -> int:
        raise PermissionError(13, "Permission denied", "/somewhere/library.sqlite3")

    monkeypatch.setitem(cli.COMMANDS, "list", refused)
    code, _, err = run(capsys, "--home", home, "list")
    assert code == ERROR and "/somewhere/library.sqlite3: Permission denied" in one_line(err)


def test_a_logged_traceback_stays_in_the_log_file(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*a: object, **k: object) -> object:
        raise RuntimeError("chunker bug")

    monkeypatch.setattr(importer_module, "chunk_document", explode)
    (tmp_path / "a.md").write_text("# A\n\ntext\n")
    home = str(tmp_path / "h")
    _, _, err = run(capsys, "--home", home, "import", str(tmp_path / "a.md"))
    assert "Traceback" not in err and "chunker bug" not in err
    log = app_paths(home).log_dir / "paperpilot.log"
    assert f"(details in {log})" in err
    assert "Traceback" in log.read_text() and "chunker bug" in log.read_text()


def test_ask_json_exit_code_follows_the_status(
    capsys: pytest.CaptureFixture[str], home: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PP_EMPTY", "")
    # A failed run (nothing listens on this port) exits non-zero with --json as without it.
    code, out, _ = run(capsys, "--home", home, "ask", "sparrows", "--policy", "llm", "--base-url",
                       "http://127.0.0.1:9/v1", "--model", "m", "--json")  # fmt: skip
    assert code == ERROR and json.loads(out)["status"] == "failed"
