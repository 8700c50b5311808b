"""The boilerplate rules of text.kinds: a sample document's licence and "fictional" disclaimer
never answer, while prose that merely mentions fiction or a licence stays prose."""

from __future__ import annotations

import pytest

from paperpilot.core.text.kinds import Kind, answer_sentences, classify_sentence, paragraph_kind


@pytest.mark.parametrize(
    "sentence",
    [
        "Sample paper written for PaperPilot and released under CC0.",
        "Marlow Bay, its people and all data in this paper are fictional.",
        "All names and events in this report are entirely fictitious.",
        "This document is distributed under a Creative Commons licence.",
        "本文是为 PaperPilot 编写的示例论文，以 CC0 方式发布。",
        "滨江市、作者及文中全部数据均为虚构。",
    ],
)
def test_disclaimers_are_boilerplate(sentence: str) -> None:
    assert classify_sentence(sentence) == Kind.BOILERPLATE


@pytest.mark.parametrize(
    "sentence",
    [
        "The novel is set in a fictional town whose people are poor.",
        "We released the corpus to other researchers after the survey in 2019.",
        "The population fell from 412 breeding pairs in 2009 to 176 pairs in 2021, a decline of 57%.",
        "滨江市 24 个公园共记录鸟类 87 种。",
    ],
)
def test_prose_that_mentions_fiction_or_release_stays_prose(sentence: str) -> None:
    assert classify_sentence(sentence) == Kind.BODY


def test_a_disclaimer_paragraph_is_boilerplate_at_import_and_inside_a_passage() -> None:
    disclaimer = ("Sample paper written for PaperPilot and released under CC0. "
                  "Marlow Bay, its people and all data in this paper are fictional.")  # fmt: skip
    assert paragraph_kind(disclaimer) == Kind.BOILERPLATE
    # Stored as the end of a body passage, its sentences still never answer.
    prose = ("The Old Town lost 57% of its house sparrows between 2009 and 2021. We recommend that the Warm "
             "Homes programme and similar schemes fit sparrow and swift bricks on every renovated terrace.")
    kinds = dict(answer_sentences(f"{prose} {disclaimer}", "5. Conclusions"))
    assert kinds["The Old Town lost 57% of its house sparrows between 2009 and 2021."] == Kind.BODY
    assert {k for s, k in kinds.items() if "CC0" in s or "fictional" in s} == {Kind.BOILERPLATE}
