"""A question across papers with a scope: the run reads and cites only the scope's papers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from paperpilot.core.agent.events import Finished, Info, Result, Status
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths

PAPERS = {
    2019: ("Sparrow nest sites in old towns", "House sparrows nested in the eaves of old houses; renovation sealed "
           "the eaves and the number of breeding pairs fell by half."),
    2022: ("Green roofs and urban sparrows", "Sparrows foraged on green roofs twice as often as on gravel roofs; "
           "insects on sedum roofs fed the chicks."),
    2025: ("Window collisions of sparrows", "Sparrows struck glass facades most often in spring; bird-safe glass "
           "with visible dots cut the collisions by two thirds."),
}  # fmt: skip


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    root = tmp_path_factory.mktemp("years")
    for year, (title, text) in PAPERS.items():
        (root / f"p{year}.md").write_text(
            f"---\ntitle: {title}\nauthors: [Ana Ruiz]\nyear: {year}\n---\n\n# {title}\n\n{text}\n", encoding="utf-8"
        )
    lib = Library(app_paths(root / "home"))
    assert not lib.import_paths(sorted(root.glob("*.md"))).failed
    yield lib
    lib.close()


def ask(lib: Library, question: str, monkeypatch: pytest.MonkeyPatch) -> tuple[Result, list[object]]:
    monkeypatch.setenv("PAPERPILOT_NOW", "2026-06-01T12:00:00")
    events = list(run_agent(question, lib, OfflinePolicy(), AgentOptions(mode="loop")))
    last = events[-1]
    assert isinstance(last, Finished)
    return last.result, events


def years_cited(lib: Library, r: Result) -> set[int]:
    by_id = {d.doc_id: d.year for d in lib.list_documents()}
    return {y for e in r.evidence if (y := by_id.get(e.doc_id)) is not None}


@pytest.mark.parametrize(
    ("question", "allowed"),
    [
        ("Which papers since 2021 studied sparrows, and what did each find?", {2022, 2025}),
        ("近三年关于麻雀的研究有哪些发现？", {2025}),
        ("Which papers from 2019 studied sparrows?", {2019}),
    ],
)
def test_nothing_outside_the_scope_is_cited(
    library: Library, monkeypatch: pytest.MonkeyPatch, question: str, allowed: set[int]
) -> None:
    r, events = ask(library, question, monkeypatch)
    assert r.status in (Status.ANSWERED, Status.PARTIAL), r.answer
    assert r.evidence and years_cited(library, r) <= allowed
    scope = next(e for e in events if isinstance(e, Info) and e.code == "scope")
    assert scope.data["papers"] == len(allowed)
    assert scope.msg is not None and r.answer.splitlines()[0] == scope.msg.text()  # said with the answer


def test_a_scope_no_paper_is_in_says_which_scope(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    r, _ = ask(library, "Which papers from 2010 studied sparrows?", monkeypatch)
    assert r.status == Status.INSUFFICIENT and not r.evidence
    assert "scope" in r.answer and "2010" in r.answer


def test_a_look_up_question_with_a_year_is_not_scoped(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    r, events = ask(library, "By how much did bird-safe glass cut the collisions in 2025?", monkeypatch)
    assert not any(isinstance(e, Info) and e.code == "scope" for e in events)
    assert not r.answer.startswith("Scope")


def test_answered_only_when_every_relevant_paper_is_cited(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    r, _ = ask(library, "Which papers studied sparrows, and what did each find?", monkeypatch)
    titles = {d.doc_id: d.title for d in library.list_documents()}
    uncited = [t for i, t in titles.items() if i not in {e.doc_id for e in r.evidence}]
    assert r.evidence
    if uncited:
        assert r.status == Status.PARTIAL
        for t in uncited:
            assert any(t in m for m in r.missing), (t, r.missing)
    else:
        assert r.status == Status.ANSWERED


def test_a_paper_left_out_makes_a_synthesis_answer_partial(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    # The window-collision paper is relevant ("sparrows") but says nothing of roofs: an answer
    # drawn from the roof paper alone cannot be a full answer to "which papers".
    r, _ = ask(library, "Which papers since 2021 studied sparrows on roofs and glass, and what did each find?", monkeypatch)
    cited = {e.doc_id for e in r.evidence}
    by_title = {d.title: d.doc_id for d in library.list_documents()}
    assert by_title["Sparrow nest sites in old towns"] not in cited  # 2019: outside the scope
    if not {by_title["Green roofs and urban sparrows"], by_title["Window collisions of sparrows"]} <= cited:
        assert r.status == Status.PARTIAL
