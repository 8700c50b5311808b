"""A Stop during a hung model call ends the run ``cancelled`` at once and keeps what was read.

Real HTTP to the scripted server on 127.0.0.1 and a real Library; the cancel event is set from
another thread while the server hangs, as the GUI's Stop button does.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from paperpilot.core.agent.events import Finished, Info, Status, ToolResult
from paperpilot.core.agent.llm_policy import LLMPolicy
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths
from tests.fakes.openai_server import ScriptedServer

from ..llm.test_cancel import HANGS, STOP_BOUND_S, cancel_when, client_for

PAPER = (
    "# Urban Sparrow Decline\n\n## Causes\n\n"
    "House sparrow numbers in European cities fell because insect prey for nestlings became scarce. "
    "Chick starvation was the main driver of the decline in London suburbs.\n\n## Predation\n\n"
    "Cats and sparrowhawks took some birds, but predation mattered less than food shortage.\n"
)


@pytest.fixture
def lib(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    root = tmp_path_factory.mktemp("cancel-papers")
    (root / "sparrows.md").write_text(PAPER, encoding="utf-8")
    library = Library(app_paths(root / "home"))
    assert not library.import_paths([root / "sparrows.md"]).failed
    yield library
    library.close()


@pytest.mark.parametrize("behaviour", list(HANGS))
def test_stop_during_a_hung_model_call_keeps_what_was_read(
    lib: Library, scripted_llm: ScriptedServer, behaviour: str
) -> None:
    # Economy: round 1 searches and round 2 reads without the model; round 3 asks the model,
    # and the server hangs.
    scripted_llm.add(HANGS[behaviour]())
    cancel = threading.Event()
    events = []
    with client_for(scripted_llm.url) as client:
        policy = LLMPolicy(client, cancel=cancel)
        watcher, stamp = cancel_when(lambda: scripted_llm.stalls >= 1, cancel)
        question = "Why did house sparrows decline in European cities?"
        for ev in run_agent(question, lib, policy, AgentOptions(mode="loop"), cancel):
            events.append(ev)
        ended = time.monotonic()
        watcher.join()
    assert ended - stamp[0] < STOP_BOUND_S, f"{behaviour}: stop took {ended - stamp[0]:.2f} s"
    read = [p for e in events if isinstance(e, ToolResult) and e.tool == "read" for p in e.passages]
    assert read, "the economy rounds should have read passages before the model call"
    result = events[-1].result if isinstance(events[-1], Finished) else None
    assert result is not None and result.status is Status.CANCELLED
    # Every passage read is in the result, and the trace says the run was stopped and where.
    assert {e.id for e in result.evidence} == {p.id for p in read}
    assert result.passages_read == len(read)
    stops = [e for e in events if isinstance(e, Info) and e.code == "cancelled"]
    assert len(stops) == 1 and "while the model was deciding" in stops[0].message
    assert f"keeping the {len(read)} passage(s)" in stops[0].message
    # The extract from what was read is verified like any answer: its markers cite real evidence.
    assert result.answer.startswith("Stopped before the answer was finished")
    assert "[1]" in result.answer and result.evidence[0].verified
    assert result.evidence[0].text in PAPER.replace("\n\n", "\n") or "insect prey" in result.evidence[0].text
    assert result.confidence <= 0.5


def test_stop_before_anything_was_read_says_so(lib: Library, scripted_llm: ScriptedServer) -> None:
    cancel = threading.Event()
    cancel.set()
    with client_for(scripted_llm.url) as client:
        events = list(run_agent("Why did sparrows decline?", lib, LLMPolicy(client), AgentOptions(mode="loop"), cancel))
    result = events[-1].result  # type: ignore[union-attr]
    assert result.status is Status.CANCELLED and result.evidence == []
    assert result.answer == "Stopped before anything was read."
    assert any(isinstance(e, Info) and e.code == "cancelled" for e in events)
