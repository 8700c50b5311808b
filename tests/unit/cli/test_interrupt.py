"""Ctrl+C on `paperpilot ask --policy llm` while the model server hangs: the command ends at
once, cancelled, with one plain line on stderr and what it had read on stdout.

A real subprocess gets a real SIGINT while it waits on a real HTTP server (127.0.0.1) that
took the model request and never answers.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths
from tests.fakes.openai_server import ScriptedServer, hang
from tests.timing import bound

STOP_BOUND_S = bound(2.0)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")

PAPER = (
    "# Urban Sparrow Decline\n\n## Causes\n\n"
    "House sparrow numbers in European cities fell because insect prey for nestlings became scarce.\n\n"
    "## Predation\n\nCats and sparrowhawks took some birds, but predation mattered less than food shortage.\n"
)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    (tmp_path / "sparrows.md").write_text(PAPER, encoding="utf-8")
    with Library(app_paths(home)) as lib:
        assert not lib.import_paths([tmp_path / "sparrows.md"]).failed
    return home


def interrupt_ask(home: Path, server: ScriptedServer, *extra: str) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "PAPERPILOT_HOME": str(home)}
    cmd = [sys.executable, "-m", "paperpilot.cli", "ask", "--policy", "llm", "--base-url", server.url,
           "--model", server.model, "--mode", "loop", *extra, "Why did house sparrows decline?"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while server.stalls < 1 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert server.stalls >= 1, "the run never reached the model call"
        time.sleep(0.3)  # the command is blocked inside the request
        t0 = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        elapsed = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err), elapsed


def test_ctrl_c_ends_a_hung_ask_at_once_and_prints_what_was_read(home: Path, scripted_llm: ScriptedServer) -> None:
    scripted_llm.add(hang())
    r, elapsed = interrupt_ask(home, scripted_llm)
    assert elapsed < STOP_BOUND_S, f"Ctrl+C took {elapsed:.2f} s"
    assert r.returncode == 130
    assert r.stderr.strip().splitlines() == ["paperpilot: stopping (press Ctrl+C again to quit at once)"]
    assert "Traceback" not in r.stdout + r.stderr
    assert r.stdout.startswith("Cancelled")
    assert "Read before the stop:" in r.stdout and "Urban Sparrow Decline" in r.stdout
    assert "insect prey" in r.stdout  # the extract from the passages read


def test_ctrl_c_with_json_gives_a_cancelled_result_with_the_evidence(home: Path, scripted_llm: ScriptedServer) -> None:
    scripted_llm.add(hang())
    r, elapsed = interrupt_ask(home, scripted_llm, "--json")
    assert elapsed < STOP_BOUND_S and r.returncode == 130
    data = json.loads(r.stdout)
    assert data["status"] == "cancelled"
    assert data["evidence"] and all(e["title"] == "Urban Sparrow Decline" for e in data["evidence"])
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
