"""``paperpilot matrix`` and ``paperpilot draft``: the JSON contracts, exports, and a kill -9 mid-run."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from paperpilot.cli import main
from tests.fakes.openai_server import Reply, ScriptedServer, reply
from tests.fixtures.papers import make_papers


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def papers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("cli-papers")
    make_papers(d)
    return d


@pytest.fixture
def home(tmp_path: Path, papers: Path, capsys: pytest.CaptureFixture[str]) -> str:
    h = str(tmp_path / "home")
    code, _out, err = run(capsys, "--home", h, "import", str(papers))
    assert code == 0, err
    return h


def _ids(capsys: pytest.CaptureFixture[str], home: str) -> dict[str, int]:
    docs = run_json(capsys, "--home", home, "list")["documents"]
    return {d["title"].split()[0]: d["doc_id"] for d in docs}


def test_matrix_json_contract(capsys: pytest.CaptureFixture[str], home: str) -> None:
    ids = _ids(capsys, home)
    data = run_json(capsys, "--home", home, "matrix", str(ids["Transformer"]), str(ids["Convolutional"]),
                    "--column", "Datasets=Which datasets were used?", "--column", "Limitations")  # fmt: skip
    assert data["columns"] == [{"name": "Datasets", "question": "Which datasets were used?"},
                               {"name": "Limitations", "question": "What limitations do the authors state?"}]  # fmt: skip
    assert [r["doc_id"] for r in data["rows"]] == [ids["Transformer"], ids["Convolutional"]]
    seg, silent = data["rows"]
    assert set(seg) >= {"doc_id", "title", "year", "cells"} and seg["year"] == 2024
    for row in data["rows"]:
        for cell in row["cells"]:
            assert set(cell) == {"column", "text", "status", "evidence"} and cell["status"] in ("found", "not_stated")
            for e in cell["evidence"]:
                assert set(e) == {"doc_id", "segment", "page", "text"} and e["doc_id"] == row["doc_id"]
    assert seg["cells"][0]["status"] == "found" and "LiTS" in seg["cells"][0]["text"]
    assert seg["cells"][0]["evidence"][0]["page"] == 2
    assert silent["cells"][1] == {"column": "Limitations", "text": "not stated in this paper", "status": "not_stated",
                                  "evidence": []}  # fmt: skip
    assert [r["n"] for r in data["references"]] == [1, 2]


def test_matrix_exports_and_years(capsys: pytest.CaptureFixture[str], home: str, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("PAPERPILOT_TODAY", "2024-02-01")
    out = tmp_path / "m.xlsx"
    code, text, err = run(capsys, "--home", home, "matrix", "--years", "the last two years", "-o", str(out))
    assert code == 0, err and text.startswith("wrote ")
    from openpyxl import load_workbook

    ws = load_workbook(out)["Matrix"]
    titles = [ws.cell(row=i, column=1).value for i in range(2, ws.max_row + 1)]
    assert len(titles) == 2 and all(re.match(r"\[\d\] (Transformer|Diffusion)", t) for t in titles)
    code, md, err = run(capsys, "--home", home, "matrix", "--query", "retinal vessels", "--format", "md",
                        "--group-by", "year")  # fmt: skip
    assert code == 0, err
    assert "### 2021 (1)" in md and "Convolutional Networks for Retinal Vessel Segmentation" in md
    assert "## References" in md
    code, csv_text, err = run(capsys, "--home", home, "matrix", "1", "--format", "csv")
    assert code == 0 and csv_text.startswith("Paper,Year,Research question,")
    listed = run_json(capsys, "--home", home, "matrix", "--list")["matrices"]
    assert len(listed) == 3 and all(m["cells_done"] == m["cells_total"] for m in listed)


def test_matrix_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], home: str) -> None:
    for argv, needle in [
        (["matrix", "99"], "no document with id 99"),
        (["matrix", "--years", "someday"], "cannot read the year range"),
        (["matrix", "--column", "=What?"], "NAME=QUESTION"),
        (["matrix", "--open", "nope"], "no matrix with id 'nope'"),
        (["matrix", "--query", "Zeppelin"], "no papers in the library match"),
        (["matrix", "--format", "xlsx"], "needs -o"),
        (["draft", "x", "--template", "thesis"], "unknown template"),
        (["draft"], "give the draft's topic"),
    ]:
        code, out, err = run(capsys, "--home", home, *argv)
        assert code != 0 and out == "", argv
        assert len(err.strip().splitlines()) == 1 and needle in err and "Traceback" not in err, (argv, err)


def test_column_edit_on_a_saved_matrix_reruns_that_column(capsys: pytest.CaptureFixture[str], home: str) -> None:
    first = run_json(capsys, "--home", home, "matrix", "--column", "Data=Which data were used?", "--column", "Results")
    mid = first["id"]
    again = run_json(capsys, "--home", home, "matrix", "--open", mid, "--column", "Data=Which datasets were used?",
                     "--column", "Results")  # fmt: skip
    assert again["columns"][0]["question"] == "Which datasets were used?"
    assert [r["cells"][1] for r in again["rows"]] == [r["cells"][1] for r in first["rows"]]
    db = sqlite3.connect(str(next(Path(home).rglob("workflows.sqlite3"))))
    questions = {q for (q,) in db.execute("SELECT question FROM matrix_cells WHERE matrix=? AND column_key='data'", (mid,))}
    db.close()
    assert questions == {"Which datasets were used?"}


def test_draft_json_contract_and_files(capsys: pytest.CaptureFixture[str], home: str, tmp_path: Path) -> None:
    out = tmp_path / "review.docx"
    data = run_json(capsys, "--home", home, "draft", "medical image analysis", "--template", "review-en",
                    "-o", str(out), "--appendix")  # fmt: skip
    assert set(data) >= {"sections", "references", "dropped_sentences", "usage", "seconds"}
    assert [s["heading"] for s in data["sections"]] == ["Background", "Related work by theme", "Gaps", "Directions",
                                                        "References"]  # fmt: skip
    for s in data["sections"]:
        for p in s["paragraphs"]:
            assert {"text", "citations", "status"} <= set(p) and p["status"] in ("supported", "prompt")
    assert all(set(r) == {"n", "doc_id", "text"} for r in data["references"])
    assert data["dropped_sentences"] == 0 and isinstance(data["seconds"], float)
    from docx import Document

    doc = Document(str(out))
    assert [p.text for p in doc.paragraphs if p.style.name == "Heading 1"][:2] == ["Background", "Related work by theme"]
    md = tmp_path / "draft.md"
    code, _text, err = run(capsys, "--home", home, "draft", "医学影像", str(1), "-o", str(md))
    assert code == 0, err
    body = md.read_text(encoding="utf-8")
    assert body.startswith("# 开题报告：医学影像") and "## 参考文献" in body and "[1] " in body
    drafts = run_json(capsys, "--home", home, "draft", "--list")["drafts"]
    assert len(drafts) == 2 and {d["status"] for d in drafts} == {"done"}


def _slow_answer(req: dict[str, Any]) -> Reply:
    user = req["messages"][-1]["content"]
    m = re.search(r"\[(P\d+)\][^\n]*\(p\. \d+\):\n(.+)", user)
    pid, text = (m.group(1), m.group(2)) if m else ("P1", "nothing")
    sentence = re.split(r"(?<=[.!?])\s", text.strip())[0].rstrip("…").rstrip(".")
    answer = {"action": "answer", "text": f"{sentence} [{pid}].", "evidence_ids": [pid], "missing": [], "confidence": 0.7}
    return Reply(delay=0.25, then=reply(answer))


def _cells(db_path: Path) -> int:
    if not db_path.exists():
        return 0
    try:
        with sqlite3.connect(str(db_path), timeout=5) as c:
            return int(c.execute("SELECT COUNT(*) FROM matrix_cells").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_matrix_resumes_after_kill_9(home: str, scripted_llm: ScriptedServer, capsys: pytest.CaptureFixture[str]) -> None:
    scripted_llm.set_script([_slow_answer] * 60)
    llm = ["--policy", "llm", "--base-url", scripted_llm.url, "--model", "scripted-model"]
    env = {**os.environ, "PAPERPILOT_HOME": home}
    db = next(iter(Path(home).rglob("library.sqlite3"))).parent.parent / "workflows.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "paperpilot.cli", "matrix", "--json", *llm], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while _cells(db) < 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=10)
    assert proc.returncode == -signal.SIGKILL
    saved = _cells(db)
    assert 3 <= saved < 18
    before = len(scripted_llm.requests)
    with sqlite3.connect(str(db)) as c:
        kept = set(c.execute("SELECT doc_id, column_key, updated FROM matrix_cells"))
    listed = run_json(capsys, "--home", home, "matrix", "--list")["matrices"]
    assert listed[0]["cells_done"] == saved and listed[0]["cells_total"] == 18
    data = run_json(capsys, "--home", home, "matrix", "--open", listed[0]["id"], *llm)
    # Only the cells not saved before the kill ran again (at most one model call each; a cell
    # whose paper has nothing to read asks no model); the saved ones were not touched.
    assert 0 < len(scripted_llm.requests) - before <= 18 - saved
    assert _cells(db) == 18
    with sqlite3.connect(str(db)) as c:
        after = set(c.execute("SELECT doc_id, column_key, updated FROM matrix_cells"))
    assert kept <= after and len(after - kept) == 18 - saved
    assert all(c["status"] in ("found", "not_stated") for r in data["rows"] for c in r["cells"])
    found = [c for r in data["rows"] for c in r["cells"] if c["status"] == "found"]
    assert found and all(c["evidence"] for c in found)


def test_matrix_and_draft_by_collection_with_a_tag(capsys: pytest.CaptureFixture[str], home: str) -> None:
    ids = _ids(capsys, home)
    seg, vessels = ids["Transformer"], ids["Convolutional"]
    assert run(capsys, "--home", home, "collection", "add", "Thesis/Chapter 2", str(seg), str(vessels))[0] == 0
    assert run(capsys, "--home", home, "tag", str(seg), "--add", "core")[0] == 0
    data = run_json(capsys, "--home", home, "matrix", "--collection", "Thesis", "--column", "Data")
    assert sorted(r["doc_id"] for r in data["rows"]) == sorted([seg, vessels])
    data = run_json(capsys, "--home", home, "matrix", "--collection", "Thesis", "--tag", "core", "--column", "Data")
    assert [r["doc_id"] for r in data["rows"]] == [seg]
    draft = run_json(capsys, "--home", home, "draft", "segmentation", "--template", "review-en", "--collection", "Thesis")
    assert {r["doc_id"] for r in draft["references"]} <= {seg, vessels} and draft["references"]
    code, out, err = run(capsys, "--home", home, "matrix", "--collection", "Nope")
    assert code != 0 and out == "" and err.strip() == "paperpilot: no collection named 'Nope' (see: paperpilot collection list)"
