"""How an offline cell picks its sentence: section roles from the heading path, run-in headings,
the paper's own limitations, no citation markers of the paper, one finding told once."""

from __future__ import annotations

from paperpilot.core.agent.events import PassageView
from paperpilot.core.workflows.cells import (
    candidates,
    extractive_answer,
    inline_heading,
    own_markers_removed,
    passage_role,
)
from paperpilot.core.workflows.matrix import default_columns


def _col(key: str):  # type: ignore[no-untyped-def]
    return next(c for c in default_columns() if c.key == key)


def _p(pid: str, text: str, path: str, kind: str = "body") -> PassageView:
    section = path.split(" > ")[-1]
    return PassageView(id=pid, doc_id=1, segment=int(pid[1:]), title="T", section=section, text=text, kind=kind,
                       section_path=path)  # fmt: skip


def test_roles_come_from_the_heading_path() -> None:
    assert passage_role(_p("P1", "x", "2. Methods > 2.2 Bird surveys")) == "method"
    assert passage_role(_p("P1", "x", "I. INTRODUCTION")) == "introduction"
    assert passage_role(_p("P1", "x", "1 Introduction > Validation")) == "introduction"
    # A paper whose headings the importer missed has its body under "Abstract": not the abstract.
    assert passage_role(_p("P1", "x", "Abstract", kind="body")) == ""
    assert passage_role(_p("P1", "x", "Abstract", kind="abstract")) == "abstract"


def test_a_method_cell_prefers_the_methods_section_to_a_results_sentence() -> None:
    method = _p("P1", "An observer watched the roof for 20 minutes and noted every bird that landed on it.",
                "2. Methods > 2.2 Bird surveys")  # fmt: skip
    results = _p("P2", "We recorded 1,093 bird visits of 17 species on the roofs in the summer.", "3. Results > 3.1 Birds")
    best = candidates(_col("method"), [results, method])[0]
    assert best.passage.id == "P1"


def test_run_in_headings_vouch_for_their_sentence() -> None:
    data = _col("data")
    assert inline_heading(data, "Data sets Daily streamflow data were obtained from 10 catchments.") == "data sets"
    assert inline_heading(data, "The data sets were large and came from ten catchments in three countries.") == ""


def test_limitations_are_the_papers_own() -> None:
    col = _col("limitations")
    field = _p("P1", "Yet, existing corpora are not without their limitations for text mining research.", "1 Introduction")
    own = _p("P2", "The comparison is limited because this study was not designed to test the effect of roofs.",
             "4 Discussion")  # fmt: skip
    assert [c.passage.id for c in candidates(col, [field, own])] == ["P2"]


def test_cell_text_drops_the_papers_own_citation_markers() -> None:
    assert own_markers_removed("The taste is sweet [8].") == "The taste is sweet."
    assert own_markers_removed("as shown in [1], [2, 3] and later work") == "as shown in and later work"
    assert own_markers_removed("a range of [1–4] studies") == "a range of studies"


def test_one_finding_is_told_once() -> None:
    from paperpilot.core.agent.state import AgentState

    col = _col("results")
    abstract = _p("P1", "On the LiTS benchmark it reaches a Dice score of 0.912, ahead of the baseline at 0.874.",
                  "Abstract", kind="abstract")  # fmt: skip
    results = _p("P2", "Results show a Dice score of 0.912 on the test scans, against 0.874 for the U-Net baseline.",
                 "5 Results")  # fmt: skip
    state = AgentState(question=col.question)
    state.passages = {"P1": abstract, "P2": results}
    answer = extractive_answer(col, state)
    assert answer.text.count("0.912") == 1, answer.text


def test_verified_text_drops_the_loops_frames_in_either_language() -> None:
    from paperpilot.core.agent.events import Evidence, Result, Status
    from paperpilot.core.workflows.cells import verified_text

    ev = [Evidence(id="P1", number=1, doc_id=1, title="T", segment=0, page=1, text="x", verified=True)]
    for answer in (
        "A fact [1].\n\nPartial answer — not covered by the passages read: 'y'.",
        "A fact [1].\n\n部分回答——读过的段落没有涉及：读过的段落都没有谈到“国家”。",
        "I could not find evidence that answers this question ('y'). Related passages:\nA fact [1].",
        "没有找到能回答这个问题的证据（读过的段落都没有谈到“国家”）。相关段落：\nA fact [1].",
    ):
        assert verified_text(Result(question="q", answer=answer, status=Status.PARTIAL, evidence=ev)) == "A fact [1].", answer
