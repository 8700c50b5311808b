"""An answer's status and missing parts travel with it: plain-text copies and Markdown exports."""

from __future__ import annotations

from pathlib import Path

from paperpilot.core.agent import answer_status
from paperpilot.core.agent.events import Evidence, Result, Status
from paperpilot.core.memory.conversations import ConversationStore
from paperpilot.core.settings.paths import app_paths

MISSING = "No passage says which county borders McDowell County"
COUNTY = "Johnnycake is an unincorporated community in McDowell County, West Virginia."
RIVER = (
    "The Tug Fork river forms part of the border between West Virginia and Kentucky, and its valley was "
    "mined for coal for more than a century before the last of the deep mines finally closed down in the nineties. "
    "Since then the river has slowly recovered, and anglers now fish for bass where coal barges once moored."
)


def result(status: Status, answer: str, evidence: list[Evidence], missing: list[str], confidence: float) -> Result:
    return Result(question="q", status=status, answer=answer, evidence=evidence, missing=missing, confidence=confidence)


def partial() -> Result:
    ev = [Evidence(number=1, id="P1", doc_id=1, title="Places of McDowell County", page=4, section="Geography", text=COUNTY)]
    return result(Status.PARTIAL, "Johnnycake is in McDowell County [1].", ev, [MISSING], 0.48)


def insufficient() -> Result:
    ev = [Evidence(number=1, id="P9", doc_id=2, title="The Tug Fork", page=2, text=RIVER)]
    return result(Status.INSUFFICIENT, "Your library has nothing on “World Cup”.", ev, ["No passage mentions the World Cup"], 0.05)


def test_plain_answer_of_a_partial_result() -> None:
    text = answer_status.plain_answer(partial())
    assert text.splitlines()[:2] == [
        "Status: Partial answer · confidence 48%",
        "Some parts of the question are not covered by the cited passages.",
    ]
    blocks = text.strip().split("\n\n")
    assert blocks[1] == "Johnnycake is in McDowell County [1]."
    assert blocks[2] == f"Not covered by this answer\n- {MISSING}"
    assert blocks[3] == "References\n[1] Places of McDowell County, p. 4, §Geography"


def test_plain_answer_of_an_insufficient_result_lists_related_passages() -> None:
    text = answer_status.plain_answer(insufficient(), ["should not appear"])
    assert "Not found in your library\n- No passage mentions the World Cup" in text
    assert "References" not in text and "should not appear" not in text
    related = text.strip().split("\n\n")[-1].splitlines()
    assert related[0].startswith("Related passages (")
    assert related[1].startswith("[1] The Tug Fork, p. 2: “The Tug Fork river forms part")
    assert related[1].endswith(" …”") and len(related[1]) < 300  # an excerpt, not the whole passage


def test_full_answer_copies_as_paste_ready_text() -> None:
    r = result(Status.ANSWERED, "Yes [1].", partial().evidence, [], 0.9)
    assert answer_status.header_lines(r) == []
    assert answer_status.plain_answer(r) == "Yes [1].\n\nReferences\n[1] Places of McDowell County, p. 4, §Geography\n"
    # An "answered" result that still lists a missing part is not a full answer: it says so.
    gap = result(Status.ANSWERED, "Yes [1].", partial().evidence, ["the year"], 0.9)
    assert answer_status.header_lines(gap) == ["Status: Answered · confidence 90%"]
    assert answer_status.missing_lines(gap) == ["Not covered by this answer", "- the year"]
    assert not answer_status.is_related(r)


def test_stopped_runs_do_not_list_their_question_as_missing() -> None:
    r = result(Status.CANCELLED, "Stopped.", [], ["q"], 0.0)
    assert answer_status.missing_parts(r) == []
    assert answer_status.status_label("some_new_status") == "Some new status"


def test_unverified_passages_of_an_insufficient_result_are_not_related() -> None:
    r = insufficient()
    r.evidence[0].verified = False
    assert not answer_status.is_related(r)
    assert answer_status.related_passages(r) == []


def test_translated_copy() -> None:
    table = {"Status: {status} · confidence {confidence}": "状态：{status} · 置信度 {confidence}", "Partial answer": "部分回答"}
    lines = answer_status.header_lines(partial(), lambda s: table.get(s, s))
    assert lines[0] == "状态：部分回答 · 置信度 48%"


def test_conversation_export_carries_status_missing_and_related(tmp_path: Path) -> None:
    with ConversationStore(app_paths(tmp_path / "home").ensure()) as store:
        conv = store.create()
        store.add_turn(conv.id, "Which county borders Johnnycake's county?", None, partial(), [])
        store.add_turn(conv.id, "Who won the 2022 World Cup?", None, insufficient(), [])
        md = store.export_markdown(conv.id)
    q1, q2 = md.split("## Q2.")
    assert "**Status:** Partial answer · confidence 48% — Some parts of the question are not covered" in q1
    assert f"**Not covered by this answer:**\n\n- {MISSING}\n" in q1
    assert q1.index("**Status:**") < q1.index("Johnnycake is in McDowell County [1].") < q1.index(MISSING)
    assert "**Evidence**" in q1 and "**References**" in q1
    assert "**Status:** Insufficient evidence · confidence 5%" in q2
    assert "**Not found in your library:**\n\n- No passage mentions the World Cup" in q2
    assert "**Related passages** (Found and verified in your library, but they do not answer the question.)" in q2
    assert "1. The Tug Fork (p. 2): “The Tug Fork river forms part" in q2
    # Related passages are not the answer's evidence, and are not offered as references.
    assert "**Evidence**" not in q2 and "**References**" not in q2
