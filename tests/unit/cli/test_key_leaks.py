"""No fragment of the API key anywhere: real CLI processes, a real HTTP server, every output and file.

Each case runs `paperpilot ask` with the key in an environment variable (as from a CRLF .env
file) against the scripted OpenAI-compatible server, saves the conversation and the trace,
exports it, and then greps the whole home folder (SQLite files and their WAL as bytes), stdout,
stderr, the trace file and the export for every 6-character run of the key.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import ScriptedServer, http_error
from tests.unit.memory_helpers import make_library

KEY = "sk-proj-SECRET-0123456789abcdefX"
QUESTION = "How does dense passage retrieval rank passages?"


def fragments(key: str) -> set[str]:
    key = key.strip()
    return {key[i : i + 6] for i in range(len(key) - 5)}


def leaked(data: bytes, key: str) -> list[str]:
    return sorted(f for f in fragments(key) if f.encode() in data)


def cli(home: Path, key: str, *argv: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "MYKEY": key, "PAPERPILOT_HOME": str(home)}
    env.pop("PAPERPILOT_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "--home", str(home), *argv],
        capture_output=True,
        env=env,
        timeout=120,
    )


def answer_step(req: dict[str, Any]) -> Any:
    answer = {"action": "answer", "text": "It ranks passages by the inner product of their vectors [P1].",
              "evidence_ids": ["P1"], "missing": [], "confidence": 0.8}  # fmt: skip
    if "writing the final answer" in req["messages"][0]["content"]:
        return answer
    return {"thought": "P1 answers it", "relevant": True, "synonyms": [], "action": answer}


# Which outputs each case produces (every process is a real interpreter, so only as many as
# the case needs): J = `ask --json` with --trace and a saved conversation, E = its Markdown
# export to a file, H = `ask` with human output (errors on stderr).
CASES: dict[str, tuple[str, Any, str, str]] = {
    # name: (the variable's value, what the server does, how the run ends, outputs)
    "crlf-key-works": (KEY + "\r\n", answer_step, "answered", "JE"),
    "crlf-key-401-echoes-it": (
        KEY + "\r",
        http_error(401, {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}}),
        "failed",
        "JEH",
    ),
    "500-body-quotes-part-of-it": (
        KEY,
        http_error(500, {"error": {"message": f"internal error while checking key {KEY[4:]} (quota)"}}),
        "failed",
        "J",  # retried with back-off: one process is enough
    ),
    "400-plain-text-body-with-it": (KEY, http_error(400, f"request from Bearer {KEY}\r is invalid"), "failed", "J"),
    "line-break-inside-the-key": ("sk-proj-SECRET\r\n-0123456789abcdefX", answer_step, "refused", "J"),
    "non-ascii-key": ("sk-proj-SECRET-0123456789abcdéfX", answer_step, "refused", "H"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_no_key_fragment_in_any_output_or_file(tmp_path: Path, scripted_llm: ScriptedServer, case: str) -> None:
    key, step, outcome, runs = CASES[case]
    paths, lib = make_library(tmp_path / "lib")
    lib.close()
    home = paths.data_dir.parent
    scripted_llm.set_script([step] * 40)
    trace = tmp_path / "trace.jsonl"
    export = tmp_path / "conversation.md"
    llm = ["--policy", "llm", "--base-url", scripted_llm.url, "--model", "scripted-model",
           "--api-key-env", "MYKEY", "--mode", "loop"]  # fmt: skip
    outputs: list[bytes] = []

    if "J" in runs:
        run = cli(home, key, "ask", QUESTION, *llm, "--trace", str(trace), "--conversation", "new", "--json")
        outputs += [run.stdout, run.stderr]
        assert b"Traceback" not in run.stderr
        if outcome == "refused":
            # A key no header can carry: one plain line, nothing sent, nothing saved.
            assert run.returncode == 1 and run.stdout == b""
            line = run.stderr.decode()
            assert line.count("\n") == 1 and "MYKEY" in line and "contains a line break" in line
        else:
            data = json.loads(run.stdout)
            assert data["status"] == outcome, data
            assert run.returncode == (0 if outcome == "answered" else 1)
            if outcome == "failed":
                assert data["error"] and "***" in data["error"]
            outputs.append(trace.read_bytes())
            assert trace.read_bytes().count(b"\n") >= 3
            if "E" in runs:
                exported = cli(home, key, "conversations", "--export", data["conversation_id"], "-o", str(export))
                assert exported.returncode == 0
                outputs += [exported.stdout, exported.stderr, export.read_bytes()]
    if "H" in runs:
        human = cli(home, key, "ask", QUESTION, *llm)  # human output: the error line goes to stderr
        outputs += [human.stdout, human.stderr]
        assert b"Traceback" not in human.stderr and human.returncode == 1
        if outcome == "refused":
            assert human.stderr.decode().count("\n") == 1 and "non-ASCII" in human.stderr.decode()
        else:
            assert b"error: " in human.stderr
    if outcome == "refused":
        assert scripted_llm.requests == []
    else:
        # The key went out stripped of the CRLF the .env file left on it.
        assert {h.get("authorization") for h in scripted_llm.headers} == {f"Bearer {KEY}"}

    for i, data in enumerate(outputs):
        assert not leaked(data, key), (case, i, data[:400])
    files = [f for f in home.rglob("*") if f.is_file()]
    assert any(f.name.startswith("conversations.sqlite3") for f in files) or outcome == "refused"
    for f in files:
        assert not leaked(f.read_bytes(), key), f
