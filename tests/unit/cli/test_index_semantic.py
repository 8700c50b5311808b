"""`paperpilot index --semantic` and `search --mode`: the real bundled model, resumable after kill -9."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from paperpilot import cli
from paperpilot.core.app import Session

TOPICS = [
    "The Eiffel Tower was completed in 1889 as the entrance arch to the World's Fair in Paris.",
    "Adults need about 0.8 grams of protein per kilogram of body weight each day.",
    "House sparrow numbers in European cities fell sharply since the 1980s.",
    "BRCA1 expression was reduced by half in breast tumour samples.",
    "The Great Wall of China stretches for thousands of kilometres across the north.",
    "Photosynthesis turns sunlight, water and carbon dioxide into sugar and oxygen.",
    "The transformer architecture replaced recurrence with self-attention in translation.",
    "Coral reefs bleach when warm water makes the corals expel their algae.",
    "Vaccines train the immune system to recognise a pathogen before an infection.",
    "The Amazon river carries more water than any other river on Earth.",
    "Honey bees communicate the direction of flowers through a waggle dance.",
    "Plate tectonics explains earthquakes along the boundaries of moving plates.",
]


def make_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    src = tmp_path / "papers"
    src.mkdir()
    for i, text in enumerate(TOPICS):
        (src / f"p{i:02}.md").write_text(f"# Paper {i}\n\n{text}\n", encoding="utf-8")
    with Session(home) as s:
        assert not s.import_paths([src]).failed
    return home


def run(capsys: pytest.CaptureFixture[str], home: Path, *argv: str) -> tuple[int, str, str]:
    code = cli.main(["--home", str(home), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_index_semantic_after_kill_9_embeds_only_what_is_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = make_home(tmp_path)
    env = {**os.environ, "PAPERPILOT_HOME": str(home)}
    cmd = [sys.executable, "-m", "paperpilot.cli", "index", "--semantic", "--threads", "1", "--batch-size", "2"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    try:
        done = 0
        while done < 4:  # not a terminal: one line per batch
            line = proc.stderr.readline()
            assert line, "the command ended before embedding two batches"
            if line.startswith("embedded "):
                done = int(line.split()[1].split("/")[0])
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    code, out, _ = run(capsys, home, "index", "--semantic", "--json", "--threads", "1")
    result = json.loads(out)
    assert code == 0 and result["complete"] and result["total"] == len(TOPICS)
    assert done <= result["done"] - result["embedded"] < len(TOPICS)  # what the killed run stored was kept
    code, out, _ = run(capsys, home, "index", "--semantic", "--json")
    assert json.loads(out)["embedded"] == 0

    # search shows which mode found each hit, with its scores
    code, out, _ = run(capsys, home, "search", "埃菲尔铁塔", "-k", "1", "--mode", "meaning")
    assert code == 0 and out.startswith("1. Paper 0") and "meaning 0." in out
    code, out, _ = run(capsys, home, "search", "bees dance", "-k", "2", "--json")
    hits = json.loads(out)["hits"]
    assert hits[0]["title"] == "Paper 10" and hits[0]["found_by"] == "both"
    assert hits[0]["bm25"] > 0 and 0 < hits[0]["dense"] <= 1 and hits[0]["fused"] == hits[0]["score"]
    code, out, _ = run(capsys, home, "search", "bees dance", "-k", "2", "--mode", "keyword")
    assert "keyword" in out and "cosine" not in out
    code, out, _ = run(capsys, home, "check")
    assert code == 0, out


def test_index_needs_a_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(capsys, tmp_path / "h", "index")
    assert code != 0 and "--semantic" in err


def test_search_by_meaning_before_embedding_says_it_searched_by_keywords(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = make_home(tmp_path)
    code, out, err = run(capsys, home, "search", "waggle dance", "--mode", "meaning")
    assert code == 0 and "Paper 10" in out
    assert "nothing is embedded yet" in err and "index --semantic" in err
    code, out, err = run(capsys, home, "search", "waggle dance", "--mode", "keyword")
    assert code == 0 and err == ""


def test_a_long_query_that_matches_nothing_is_not_echoed_whole(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = make_home(tmp_path)
    code, out, _ = run(capsys, home, "search", "zq" * 5000, "--mode", "keyword")
    assert code == 0 and out.startswith("No passages match") and len(out) < 200
