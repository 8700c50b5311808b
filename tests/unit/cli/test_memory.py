"""CLI contracts of the long-term memory: ask --conversation, conversations, profile, notes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from paperpilot.cli import main
from tests.fakes.openai_server import ScriptedServer
from tests.unit.memory_helpers import PAPERS


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


@pytest.fixture
def home(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    d = tmp_path / "papers"
    d.mkdir()
    for name, text in PAPERS.items():
        (d / f"{name}.md").write_text(text, encoding="utf-8")
    h = str(tmp_path / "h")
    assert len(run_json(capsys, "--home", h, "import", str(d))["imported"]) == 3
    return h


def test_ask_with_conversation_and_followup(
    capsys: pytest.CaptureFixture[str], home: str, tmp_path: Path
) -> None:
    first = run_json(capsys, "--home", home, "ask", "How does dense passage retrieval rank passages?",
                     "--conversation", "new", "--mode", "loop")  # fmt: skip
    cid = first["conversation_id"]
    assert (
        isinstance(cid, str)
        and first["standalone_question"] == "How does dense passage retrieval rank passages?"
    )
    assert first["status"] == "answered" and first["evidence"]
    trace = tmp_path / "t.jsonl"
    follow = run_json(capsys, "--home", home, "ask", "What are its limitations?", "--conversation", cid,
                      "--mode", "loop", "--trace", str(trace))  # fmt: skip
    assert follow["conversation_id"] == cid
    assert follow["standalone_question"] == "What are the limitations of dense passage retrieval?"
    events = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    codes = {e.get("code"): e for e in events if e["type"] == "info"}
    assert (
        codes["followup"]["message"] == "rewritten as: What are the limitations of dense passage retrieval?"
    )
    assert codes["reuse"]["data"]["ids"] == ["P1"]  # the previous turn's passage, not searched again
    assert follow["status"] == "answered" and follow["evidence"][0]["title"].startswith("Dense")
    # Without --conversation nothing is saved, and the JSON says so.
    plain = run_json(capsys, "--home", home, "ask", "What is BM25?")
    assert plain["conversation_id"] is None and plain["standalone_question"] == "What is BM25?"

    listed = run_json(capsys, "--home", home, "conversations")
    assert listed == {
        "conversations": [
            {"id": cid, "title": "How does dense passage retrieval rank passages?", "turns": 2,
             "updated": listed["conversations"][0]["updated"]}
        ]
    }  # fmt: skip
    assert (
        run_json(capsys, "--home", home, "conversations", "--search", "limitations")["conversations"][0]["id"]
        == cid
    )
    assert run_json(capsys, "--home", home, "conversations", "--search", "pelican") == {"conversations": []}
    code, out, err = run(capsys, "--home", home, "ask", "x", "--conversation", "nope")
    assert code == 1 and "no conversation" in err and out == ""

    md_file = tmp_path / "conv.md"
    assert run(capsys, "--home", home, "conversations", "--export", cid, "-o", str(md_file))[0] == 0
    md = md_file.read_text(encoding="utf-8")
    assert "## Q2. What are its limitations?" in md and "**References**" in md
    assert (
        "Dense Passage Retrieval for Open-Domain Question Answering. (n.d.)." in md
    )  # APA (profile default)
    run(capsys, "--home", home, "profile", "set", "citation_style", "ieee")
    md_ieee = run_json(capsys, "--home", home, "conversations", "--export", cid)
    assert md_ieee["style"] == "ieee" and "[1]" in md_ieee["markdown"].split("**References**")[1]

    assert run_json(capsys, "--home", home, "conversations", "--rename", cid, "DPR limits") == {
        "id": cid,
        "title": "DPR limits",
    }
    assert run_json(capsys, "--home", home, "conversations", "--delete", cid) == {"deleted": cid}
    assert run_json(capsys, "--home", home, "conversations") == {"conversations": []}
    code, _out, err = run(capsys, "--home", home, "conversations", "--delete", cid)
    assert code == 1 and "No conversation" in err


def test_profile_cli(capsys: pytest.CaptureFixture[str], home: str) -> None:
    shown = run_json(capsys, "--home", home, "profile", "show")
    assert shown["schema_version"] == 2 and shown["answer_language"] == "same" and shown["keywords"] == {}
    code, _out, _err = run(
        capsys, "--home", home, "profile", "set", "keywords", "segmentation=delineation,contouring"
    )
    assert code == 0
    run(capsys, "--home", home, "profile", "set", "fields_of_research", "medical imaging")
    assert (
        run_json(capsys, "--home", home, "profile", "set", "answer_language", "zh")["answer_language"] == "zh"
    )
    shown = run_json(capsys, "--home", home, "profile", "show")
    assert shown["keywords"] == {"segmentation": ["delineation", "contouring"]}
    assert shown["fields_of_research"] == ["medical imaging"]
    code, out, err = run(capsys, "--home", home, "profile", "set", "answer_language", "fr")
    assert code == 1 and out == "" and err.count("\n") == 1 and "answer_language must be one of" in err
    code, out, _ = run(capsys, "--home", home, "profile", "show")
    assert code == 0 and "segmentation = delineation, contouring" in out
    # ask uses the profile: the synonym goes into the first query and the trace says so.
    ans = run_json(capsys, "--home", home, "ask", "How is segmentation of cells done?", "--mode", "loop")
    assert any(e["title"].startswith("U-Net") for e in ans["evidence"])


def test_corrupt_profile_cli(capsys: pytest.CaptureFixture[str], home: str) -> None:
    cfg = Path(home) / "config"
    cfg.mkdir(parents=True, exist_ok=True)
    (cfg / "profile.json").write_text("{broken", encoding="utf-8")
    code, out, err = run(capsys, "--home", home, "profile", "show", "--json")
    assert code == 0 and "warning:" in err and "corrupt-" in err and json.loads(out)["tone"] == "neutral"
    assert len(list(cfg.glob("profile.json.corrupt-*"))) == 1
    assert len(run_json(capsys, "--home", home, "list")["documents"]) == 3


def test_notes_cli(capsys: pytest.CaptureFixture[str], home: str) -> None:
    assert run_json(capsys, "--home", home, "notes", "1")["text"] == ""
    saved = run_json(capsys, "--home", home, "notes", "1", "--set", "Key baseline for **chapter 3**.")
    assert saved["doc_id"] == 1 and saved["text"] == "Key baseline for **chapter 3**." and saved["updated"]
    code, out, _ = run(capsys, "--home", home, "notes", "1")
    assert code == 0 and out.strip() == "Key baseline for **chapter 3**."
    hits = run_json(capsys, "--home", home, "notes", "--search", "chapter")["notes"]
    assert [h["doc_id"] for h in hits] == [1]
    code, _, err = run(capsys, "--home", home, "notes", "99")
    assert code == 1 and "no document" in err


def test_ask_followup_with_scripted_model(
    capsys: pytest.CaptureFixture[str], home: str, scripted_llm: ScriptedServer
) -> None:
    standalone = "What are the limitations of dense passage retrieval?"

    def step(req: dict[str, Any]) -> Any:
        system = req["messages"][0]["content"]
        if system.startswith("You rewrite"):
            return {"question": standalone}
        # Cite the passage that says it (the answer is checked against what it cites).
        user = req["messages"][-1]["content"]
        m = re.search(r"\[(P\d+)\][^\n]*\n?[^\[]*labelled training data", user)
        pid = m.group(1) if m else "P1"
        answer = {"action": "answer", "text": f"It needs labelled training data [{pid}].", "evidence_ids": [pid],
                  "missing": [], "confidence": 0.8}  # fmt: skip
        if "writing the final answer" in system:
            return answer
        return {
            "thought": "the reused passage answers it",
            "relevant": True,
            "synonyms": [],
            "action": answer,
        }

    scripted_llm.set_script([step] * 12)
    llm = ["--policy", "llm", "--base-url", scripted_llm.url, "--model", "scripted-model", "--mode", "loop"]
    first = run_json(capsys, "--home", home, "ask", "How does dense passage retrieval rank passages?",
                     "--conversation", "new", "--policy", "offline", "--mode", "loop")  # fmt: skip
    cid = first["conversation_id"]
    dense_evidence = [e for e in first["evidence"] if e["title"].startswith("Dense")]
    assert dense_evidence
    code, out, err = run(
        capsys, "--home", home, "ask", "What are its limitations?", "--conversation", cid, *llm
    )
    assert code == 0, err
    assert f"(understood as: {standalone})" in out
    data = run_json(
        capsys, "--home", home, "ask", "And what are its limitations?", "--conversation", cid, *llm
    )
    assert data["standalone_question"] == standalone and data["policy"] == "llm"
    assert data["status"] == "answered" and data["evidence"][0]["title"].startswith("Dense"), data
    rewrite_calls = [
        r for r in scripted_llm.requests if r["messages"][0]["content"].startswith("You rewrite")
    ]
    assert (
        len(rewrite_calls) == 2
        and "FOLLOW-UP: What are its limitations?" in rewrite_calls[0]["messages"][1]["content"]
    )
    turns = run_json(capsys, "--home", home, "conversations")["conversations"][0]["turns"]
    assert turns == 3
