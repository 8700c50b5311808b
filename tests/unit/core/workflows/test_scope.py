"""Year ranges in words, read against the project's clock, and the scope's plain-data form."""

from __future__ import annotations

from datetime import date

import pytest

from paperpilot.core.app import Session
from paperpilot.core.clock import today
from paperpilot.core.errors import InvalidInput, NotFound
from paperpilot.core.workflows.matrix import column, create_matrix
from paperpilot.core.workflows.selection import PaperSelection, parse_years, resolve_scope, year_argument

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
    s = PaperSelection(doc_ids=[3, 1], query="dice", year_from=2020, year_to=None, tags=["to read"], collections=["thesis"])
    assert PaperSelection.from_json(s.to_json()) == s
    assert s.describe() == "documents 3, 1; matching 'dice'; years 2020–…; tagged to read; in thesis"


def test_collection_tag_years_and_query_narrow_the_same_papers(sample_session: Session) -> None:
    # The matrix's --collection once failed with "this library has no collections yet" for a
    # library that had them: a document does not carry its collections, the library does.
    s = sample_session
    ids = {d.title.split()[0]: d.doc_id for d in s.library.list_documents()}
    sparrow, tit, roofs, survey = ids["House"], ids["Traffic"], ids["Green"], ids["Marlow"]
    s.collection_add("Birds/Urban", [sparrow, tit])
    s.collection_add("Birds", [roofs])
    s.tag([sparrow, roofs, survey], add=["to read"])
    got = lambda **kw: [d.doc_id for d in resolve_scope(s.library, PaperSelection(**kw))]  # noqa: E731
    assert sorted(got(collections=["Birds"])) == sorted([sparrow, tit, roofs])  # with its sub-collection
    assert sorted(got(collections=["Birds/Urban"])) == sorted([sparrow, tit])
    assert sorted(got(collections=["Birds"], tags=["to read"])) == sorted([sparrow, roofs])
    assert got(collections=["Birds"], tags=["to read"], year_from=2022) == [sparrow]  # 2022; roofs are 2021
    assert got(collections=["Birds"], query="traffic noise song") == [tit]
    assert got(collections=["Birds"], tags=["to read"], query="traffic noise song") == []
    with pytest.raises(NotFound, match="no collection named 'Nope'"):
        resolve_scope(s.library, PaperSelection(collections=["Nope"]))
    # A matrix and a draft over a collection take its papers.
    m = create_matrix(s.workflows, s.library, PaperSelection(collections=["Birds/Urban"]), [column("Data")])
    assert sorted(r.doc_id for r in m.rows) == sorted([sparrow, tit])
