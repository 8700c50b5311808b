"""Years said in words, read against a fixed clock: the one parser the workflows and the agent share."""

from __future__ import annotations

from datetime import date

import pytest

from paperpilot.core.clock import NOW_ENV, TODAY_ENV, today
from paperpilot.core.text.years import count, find_years, parse_years
from paperpilot.core.workflows import selection

NOW = date(2026, 6, 15)


@pytest.mark.parametrize(
    ("text", "years"),
    [
        # absolute ranges, with any dash, words, or Chinese 至/到 and 年
        ("papers from 2020–2022", (2020, 2022)),
        ("2020—2022", (2020, 2022)),
        ("2020-2022", (2020, 2022)),
        ("2022-2020", (2020, 2022)),
        ("from 2020 to 2022", (2020, 2022)),
        ("between 2020 and 2022", (2020, 2022)),
        ("2020年至2022年间的论文", (2020, 2022)),
        ("2020年到2022年", (2020, 2022)),
        ("2020~2022", (2020, 2022)),
        # counted back from today: this year and the ones before it
        ("近三年", (2024, 2026)),
        ("近五年的研究", (2022, 2026)),
        ("近十年", (2017, 2026)),
        ("近二十年", (2007, 2026)),
        ("近十五年", (2012, 2026)),
        ("近5年", (2022, 2026)),
        ("过去两年", (2025, 2026)),
        ("最近三年来", (2024, 2026)),
        ("the last five years", (2022, 2026)),
        ("in the past 3 years", (2024, 2026)),
        ("over the previous two years", (2025, 2026)),
        ("the last couple of years", (2025, 2026)),
        ("the last decade", (2017, 2026)),
        ("the past two decades", (2007, 2026)),
        ("this year", (2026, 2026)),
        ("今年", (2026, 2026)),
        ("the last year", (2025, 2026)),
        ("去年以来", (2025, 2026)),
        ("去年的论文", (2025, 2025)),
        # open ranges
        ("since 2023", (2023, 2026)),
        ("2023年以来", (2023, 2026)),
        ("2023年至今", (2023, 2026)),
        ("2020年以后", (2020, 2026)),
        ("from 2020 onwards", (2020, 2026)),
        ("2020 and later", (2020, 2026)),
        ("after 2020", (2021, 2026)),
        ("before 2015", (None, 2014)),
        ("2015年以前", (None, 2014)),
        ("up to 2015", (None, 2015)),
        # decades and single years
        ("in the 2010s", (2010, 2019)),
        ("2010年代", (2010, 2019)),
        ("in 2024", (2024, 2024)),
        ("papers from 2024", (2024, 2024)),
        ("the 2023 papers", (2023, 2023)),
        ("2021年发表的论文", (2021, 2021)),
        # no year range
        ("transformers for segmentation", None),
        ("the 2019 survey", None),
        ("BERT-2020 and GPT-2", None),
        ("GPT2020", None),
        ("ISO 20221", None),
        ("doi 10.1000/2020.123", None),
        ("近年来", None),
        ("比较2020年至2022年间", (2020, 2022)),
    ],
)
def test_year_ranges_in_words(text: str, years: tuple[int | None, int | None] | None) -> None:
    assert parse_years(text, NOW) == years


def test_where_the_years_were_said_and_whether_relative() -> None:
    q = "Compare the studies from the last three years on noise"
    found = find_years(q, NOW)
    assert found is not None and found.relative and found.years == (2024, 2026)
    assert q[found.begin : found.stop] == found.said == "from the last three years"
    absolute = find_years("比较2020年至2022年间库中论文", NOW)
    assert absolute is not None and not absolute.relative and absolute.said == "2020年至2022年间"


def test_counts_in_words_and_chinese_numerals() -> None:
    assert [count(w) for w in ["3", "three", "三", "两", "十", "十五", "二十", "二十五", "a couple of"]] == [
        3, 3, 3, 2, 10, 15, 20, 25, 2,
    ]


def test_the_workflows_use_the_same_parser() -> None:
    assert selection.parse_years is parse_years


def test_today_follows_paperpilot_now_when_today_is_not_fixed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TODAY_ENV, raising=False)
    monkeypatch.setenv(NOW_ENV, "2031-02-03T10:00:00+00:00")
    assert today() == date(2031, 2, 3)
    assert parse_years("近三年") == (2029, 2031)
    monkeypatch.setenv(TODAY_ENV, "2030-01-01")  # the more specific setting wins
    assert today() == date(2030, 1, 1)
    monkeypatch.delenv(TODAY_ENV)
    monkeypatch.setenv(NOW_ENV, "not a time")
    assert today() == date.today()
