"""Year ranges in words, read against the project's clock, and the scope's plain-data form."""

from __future__ import annotations

from datetime import date

import pytest

from paperpilot.core.clock import today
from paperpilot.core.errors import InvalidInput
from paperpilot.core.workflows.scope import Scope, parse_years, year_argument

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("对比近三年 Transformer 在医学影像分割方向的研究进展", (2024, 2026)),
        ("近5年的研究", (2022, 2026)),
        ("papers from the last three years", (2024, 2026)),
        ("the past 2 years", (2025, 2026)),
        ("since 2020", (2020, 2026)),
        ("2019–2023", (2019, 2023)),
        ("2023-2019", (2019, 2023)),
        ("2018年以来的工作", (2018, 2026)),
        ("the last year", (2025, 2026)),
        ("transformers for segmentation", None),
    ],
)
def test_year_ranges_in_words(text: str, years: tuple[int, int] | None) -> None:
    assert parse_years(text, TODAY) == years


def test_relative_years_follow_the_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERPILOT_TODAY", "2021-03-04")
    assert today() == date(2021, 3, 4)
    assert parse_years("近三年") == (2019, 2021)
    monkeypatch.setenv("PAPERPILOT_TODAY", "not a date")
    assert today() == date.today()


def test_year_argument() -> None:
    assert year_argument("2020", TODAY) == (2020, 2020)
    assert year_argument("近三年", TODAY) == (2024, 2026)
    with pytest.raises(InvalidInput, match="cannot read the year range"):
        year_argument("someday", TODAY)


def test_scope_round_trips_as_data() -> None:
    s = Scope(doc_ids=[3, 1], query="dice", year_from=2020, year_to=None, tags=["to read"], collections=["thesis"])
    assert Scope.from_json(s.to_json()) == s
    assert s.describe() == "documents 3, 1; matching 'dice'; years 2020–…; tagged to read; in thesis"
