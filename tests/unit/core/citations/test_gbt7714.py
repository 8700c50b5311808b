"""GB/T 7714-2015 numeric and author-date references.

The reference expectations in ``tests/data/citations`` (copied from the shared citation data,
CC BY-SA 3.0, see LICENSE there) are the standard's worked examples as CSL-JSON with the entry a
journal editor expects. Each file is one reference list: the author-date file's "2024a"/"2024b"
letters exist only because both items are in the same list, so entries are rendered for the
whole file at once (``entries``); the standalone ``entry`` rate is checked as well.
"""

from __future__ import annotations

import functools
import html
import json
from pathlib import Path
from typing import Any

import pytest

from paperpilot.core.citations.gbt7714 import (
    AUTHOR_DATE,
    NUMERIC,
    GbtAuthorDate,
    GbtNumeric,
    assign_year_suffixes,
)
from paperpilot.core.citations.model import CslItem, item_from_csl
from paperpilot.core.citations.styles import STYLES

DATA = Path(__file__).resolve().parents[3] / "data" / "citations"
STYLE_OBJECTS: dict[str, GbtNumeric | GbtAuthorDate] = {NUMERIC.name: NUMERIC, AUTHOR_DATE.name: AUTHOR_DATE}

# Both letters come from partners that are not among the file's 93 examples (the list skips
# [105] and [109], which held the other anonymous 2023 and anonymous [2020] items), so no renderer
# given this list can know them.
KNOWN_MISSES = {
    ("gbt7714-2015-author-date", "gbt7714.b.10:6"): "year-suffix partner (佚名, 2023b) is not in the file",
    ("gbt7714-2015-author-date", "gbt7714.b.10:9"): "year-suffix partner (Anon, [2020b]) is not in the file",
}


@functools.cache
def _rows(style_name: str) -> tuple[dict[str, Any], ...]:
    path = DATA / f"{style_name}.expected.jsonl"
    return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def _expected(row: dict[str, Any]) -> str:
    """The expected entry without its leading "[n] " label; nothing else is normalised."""
    text: str = row["expected"]
    label = row.get("label")
    if label and text.startswith(f"{label} "):
        text = text[len(label) + 1 :]
    return text


@functools.cache
def _items(style_name: str) -> tuple[CslItem, ...]:
    return tuple(item_from_csl(row["item"]) for row in _rows(style_name))


@functools.cache
def _as_list(style_name: str) -> dict[str, str]:
    rendered = STYLE_OBJECTS[style_name].entries(list(_items(style_name)))
    return {row["id"]: r.text for row, r in zip(_rows(style_name), rendered, strict=True)}


def _cases() -> list[Any]:
    params = []
    for style_name in STYLE_OBJECTS:
        for row in _rows(style_name):
            marks = []
            reason = KNOWN_MISSES.get((style_name, row["id"]))
            if reason:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            params.append(pytest.param(style_name, row["id"], id=f"{style_name}:{row['id']}", marks=marks))
    return params


def test_reference_files_have_93_examples_each() -> None:
    for style_name in STYLE_OBJECTS:
        assert len(_rows(style_name)) == 93


@pytest.mark.parametrize(("style_name", "case_id"), _cases())
def test_reference_entry(style_name: str, case_id: str) -> None:
    row = next(r for r in _rows(style_name) if r["id"] == case_id)
    assert _as_list(style_name)[case_id] == _expected(row)


@pytest.mark.parametrize("style_name", list(STYLE_OBJECTS))
def test_reference_match_rate_at_least_95_percent(style_name: str) -> None:
    style = STYLE_OBJECTS[style_name]
    rows = _rows(style_name)
    listed = _as_list(style_name)
    list_hits = sum(listed[row["id"]] == _expected(row) for row in rows)
    single_hits = sum(
        style.entry(item).text == _expected(row) for row, item in zip(rows, _items(style_name), strict=True)
    )
    assert list_hits / len(rows) >= 0.95, f"{list_hits}/{len(rows)}"
    assert single_hits / len(rows) >= 0.95, f"{single_hits}/{len(rows)}"


@pytest.mark.parametrize("style_name", list(STYLE_OBJECTS))
def test_html_is_the_escaped_text(style_name: str) -> None:
    style = STYLE_OBJECTS[style_name]
    for item in _items(style_name):
        r = style.entry(item)
        assert r.html == html.escape(r.text, quote=False)
    r = style.entry(item_from_csl({"type": "book", "title": "AI & <banking>", "author": [{"literal": "X"}]}))
    assert "AI &amp; &lt;banking&gt;" in r.html and "<i>" not in r.html


def test_both_styles_are_registered() -> None:
    assert STYLES["gbt7714-2015-numeric"] is NUMERIC and NUMERIC.numeric
    assert STYLES["gbt7714-2015-author-date"] is AUTHOR_DATE and not AUTHOR_DATE.numeric


# --------------------------------------------------------------------------- hand-checked cases

_VASWANI = [
    ("Vaswani", "Ashish"), ("Shazeer", "Noam"), ("Parmar", "Niki"), ("Uszkoreit", "Jakob"),
    ("Jones", "Llion"), ("Gomez", "Aidan N."), ("Kaiser", "Łukasz"), ("Polosukhin", "Illia"),
]  # fmt: skip

SHANNON = {
    "type": "article-journal",
    "title": "A mathematical theory of communication",
    "author": [{"family": "Shannon", "given": "Claude E."}],
    "container-title": "Bell System Technical Journal",
    "volume": 27,
    "issue": 3,
    "page": "379–423",
    "issued": {"date-parts": [[1948, 7]]},
}
WATSON_CRICK = {
    "type": "article-journal",
    "language": "en",
    "title": "Molecular structure of nucleic acids: a structure for deoxyribose nucleic acid",
    "author": [{"family": "Watson", "given": "J. D."}, {"family": "Crick", "given": "F. H. C."}],
    "container-title": "Nature",
    "volume": "171",
    "issue": "4356",
    "page": "737-8",
    "issued": {"date-parts": [[1953, 4, 25]]},
}
LECUN = {
    "type": "article-journal",
    "title": "Deep learning",
    "author": [
        {"family": "LeCun", "given": "Yann"},
        {"family": "Bengio", "given": "Yoshua"},
        {"family": "Hinton", "given": "Geoffrey"},
    ],
    "container-title": "Nature",
    "volume": "521",
    "issue": "7553",
    "page": "436-444",
    "DOI": "10.1038/nature14539",
    "issued": {"date-parts": [[2015]]},
}
VASWANI = {
    "type": "article-journal",
    "title": "Attention is all you need",
    "author": [{"family": f, "given": g} for f, g in _VASWANI],
    "container-title": "Advances in Neural Information Processing Systems",
    "volume": "30",
    "page": "5998-6008",
    "issued": {"date-parts": [[2017]]},
}
THESIS = {  # the standard's own thesis example, with the author split into family/given
    "type": "thesis",
    "title": "人类活动影响下海河流域典型区水循环变化分析",
    "author": [{"family": "马", "given": "欢"}],
    "genre": "博士学位论文",
    "publisher": "清华大学",
    "publisher-place": "北京",
    "page": "27",
    "issued": {"date-parts": [[2011]]},
}
WEBPAGE = {  # the standard's [EB/OL] example; no language field, so the script decides
    "type": "webpage",
    "title": "出版业信息化迈入快车道",
    "author": [{"literal": "萧钰"}],
    "URL": "http://www.creader.com/news/20011219/200112190019.html",
    "issued": {"date-parts": [[2001, 12, 19]]},
    "accessed": {"date-parts": [[2002, 4, 15]]},
}
ZHANG = {
    "type": "book",
    "title": "禅与诗学",
    "author": [{"literal": "张伯伟"}],
    "publisher": "人民文学出版社",
    "publisher-place": "北京",
    "issued": {"date-parts": [[2002]]},
}


@pytest.mark.parametrize(
    ("data", "numeric", "author_date"),
    [
        pytest.param(
            SHANNON,
            "SHANNON C E. A mathematical theory of communication[J]. Bell System Technical Journal, "
            "1948, 27(3): 379-423.",
            "SHANNON C E, 1948. A mathematical theory of communication[J]. Bell System Technical Journal, "
            "27(3): 379-423.",
            id="journal-1-author",
        ),
        pytest.param(
            WATSON_CRICK,
            "WATSON J D, CRICK F H C. Molecular structure of nucleic acids: a structure for deoxyribose "
            "nucleic acid[J]. Nature, 1953, 171(4356): 737-738.",
            "WATSON J D, CRICK F H C, 1953. Molecular structure of nucleic acids: a structure for "
            "deoxyribose nucleic acid[J]. Nature, 171(4356): 737-738.",
            id="journal-2-authors",
        ),
        pytest.param(
            LECUN,
            "LECUN Y, BENGIO Y, HINTON G. Deep learning[J/OL]. Nature, 2015, 521(7553): 436-444. "
            "DOI:10.1038/nature14539.",
            "LECUN Y, BENGIO Y, HINTON G, 2015. Deep learning[J/OL]. Nature, 521(7553): 436-444. "
            "DOI:10.1038/nature14539.",
            id="journal-3-authors-doi",
        ),
        pytest.param(
            VASWANI,
            "VASWANI A, SHAZEER N, PARMAR N, et al. Attention is all you need[J]. Advances in Neural "
            "Information Processing Systems, 2017, 30: 5998-6008.",
            "VASWANI A, SHAZEER N, PARMAR N, et al., 2017. Attention is all you need[J]. Advances in "
            "Neural Information Processing Systems, 30: 5998-6008.",
            id="journal-8-authors",
        ),
        pytest.param(
            THESIS,
            "马欢. 人类活动影响下海河流域典型区水循环变化分析[D]. 北京: 清华大学, 2011: 27.",
            "马欢, 2011. 人类活动影响下海河流域典型区水循环变化分析[D]. 北京: 清华大学: 27.",
            id="chinese-thesis",
        ),
        pytest.param(
            WEBPAGE,
            "萧钰. 出版业信息化迈入快车道[EB/OL]. (2001-12-19)[2002-04-15]. "
            "http://www.creader.com/news/20011219/200112190019.html.",
            "萧钰, 2001. 出版业信息化迈入快车道[EB/OL]. (2001-12-19)[2002-04-15]. "
            "http://www.creader.com/news/20011219/200112190019.html.",
            id="webpage-access-date",
        ),
        pytest.param(
            {
                "type": "webpage",
                "title": "Python 3.12 documentation",
                "author": [{"literal": "Python Software Foundation"}],
                "URL": "https://docs.python.org/3.12/",
                "accessed": {"date-parts": [[2024, 5, 1]]},
            },
            "Python Software Foundation. Python 3.12 documentation[EB/OL]. [2024-05-01]. "
            "https://docs.python.org/3.12/.",
            # No date of its own: the access year stands in, bracketed as an estimate.
            "Python Software Foundation, [2024]. Python 3.12 documentation[EB/OL]. [2024-05-01]. "
            "https://docs.python.org/3.12/.",
            id="webpage-undated",
        ),
        pytest.param(
            {
                "type": "book",
                "title": "The general theory of employment, interest and money",
                "author": [{"family": "Keynes", "given": "John Maynard"}],
                "publisher": "Macmillan",
                "publisher-place": "London",
                "edition": "2",
            },
            # §8.4.3 gives no placeholder for an unknown year ("n.d." is not GB/T): it is left out.
            "KEYNES J M. The general theory of employment, interest and money[M]. 2nd ed. London: Macmillan.",
            "KEYNES J M. The general theory of employment, interest and money[M]. 2nd ed. London: Macmillan.",
            id="missing-year",
        ),
        pytest.param(
            {
                "type": "book",
                "title": "The general theory of employment, interest and money",
                "author": [{"family": "Keynes", "given": "John Maynard"}],
                "publisher": "Macmillan",
                "publisher-place": "London",
                "issued": {"date-parts": [[1936]], "circa": True},
            },
            "KEYNES J M. The general theory of employment, interest and money[M]. London: Macmillan, [1936].",
            "KEYNES J M, [1936]. The general theory of employment, interest and money[M]. London: Macmillan.",
            id="estimated-year-bracketed",
        ),
        pytest.param(
            {**ZHANG, "edition": "1", "translator": [{"literal": "李四"}]},
            "张伯伟. 禅与诗学[M]. 李四, 译. 北京: 人民文学出版社, 2002.",  # a 1st edition is not stated
            "张伯伟, 2002. 禅与诗学[M]. 李四, 译. 北京: 人民文学出版社.",
            id="chinese-book-translator",
        ),
        pytest.param(
            {
                "type": "article-journal",
                "title": "自然语言处理研究",
                "author": [{"literal": n} for n in ("甲", "乙", "丙", "丁")],
                "container-title": "中文信息学报",
                "volume": "30",
                "issue": "1",
                "page": "1-10",
                "issued": {"date-parts": [[2016]]},
            },
            "甲, 乙, 丙, 等. 自然语言处理研究[J]. 中文信息学报, 2016, 30(1): 1-10.",
            "甲, 乙, 丙, 等, 2016. 自然语言处理研究[J]. 中文信息学报, 30(1): 1-10.",
            id="chinese-4-authors-deng",
        ),
    ],
)
def test_hand_checked_entry(data: dict[str, Any], numeric: str, author_date: str) -> None:
    item = item_from_csl(data)
    assert NUMERIC.entry(item).text == numeric
    assert AUTHOR_DATE.entry(item).text == author_date


def test_numeric_in_text_markers() -> None:
    item = item_from_csl(SHANNON)
    assert NUMERIC.in_text([item], [1]) == "[1]"
    assert NUMERIC.in_text([item, item], [3, 1]) == "[1, 3]"
    assert NUMERIC.in_text([item, item], [1, 2]) == "[1, 2]"
    assert NUMERIC.in_text([item] * 3, [2, 1, 3]) == "[1-3]"
    assert NUMERIC.in_text([item] * 6, [5, 1, 2, 3, 7, 8]) == "[1-3, 5, 7, 8]"
    with pytest.raises(ValueError):
        NUMERIC.in_text([item], [0])


def test_author_date_in_text_markers() -> None:
    vaswani, zhang, shannon = item_from_csl(VASWANI), item_from_csl(ZHANG), item_from_csl(SHANNON)
    watson = item_from_csl(WATSON_CRICK)
    assert AUTHOR_DATE.in_text([vaswani], [1]) == "(Vaswani et al., 2017)"
    assert AUTHOR_DATE.in_text([zhang], [1]) == "(张伯伟, 2002)"
    # §10.2: any multi-author work is cited by the first author and "et al." / 等.
    assert AUTHOR_DATE.in_text([watson], [1]) == "(Watson et al., 1953)"
    assert AUTHOR_DATE.in_text(
        [item_from_csl({**ZHANG, "author": [{"literal": "张伯伟"}, {"literal": "王某"}]})], [1]
    ) == ("(张伯伟 等, 2002)")
    assert AUTHOR_DATE.in_text([shannon, zhang], [1, 2]) == "(Shannon, 1948; 张伯伟, 2002)"
    later = item_from_csl({**SHANNON, "issued": {"date-parts": [[1949]]}})
    assert AUTHOR_DATE.in_text([shannon, later], [1, 2]) == "(Shannon, 1948, 1949)"
    assert (
        AUTHOR_DATE.in_text([item_from_csl({"type": "webpage", "title": "x", "language": "en"})], [1])
        == "(Anon)"
    )
    assert AUTHOR_DATE.narrative(zhang) == "张伯伟 (2002)"
    assert AUTHOR_DATE.narrative(vaswani) == "Vaswani et al. (2017)"


def test_year_suffixes_for_same_author_and_year() -> None:
    first = item_from_csl({**ZHANG, "title": "甲"})
    second = item_from_csl({**ZHANG, "title": "乙"})
    other = item_from_csl(SHANNON)
    suffixed = assign_year_suffixes([first, other, second])
    assert [AUTHOR_DATE.in_text([i], [1]) for i in suffixed] == [
        "(张伯伟, 2002a)",
        "(Shannon, 1948)",
        "(张伯伟, 2002b)",
    ]
    assert [r.text.split(".")[0] for r in AUTHOR_DATE.entries([first, other, second])] == [
        "张伯伟, 2002a",
        "SHANNON C E, 1948",
        "张伯伟, 2002b",
    ]
    assert "year-suffix" not in first.to_csl()  # the library's items are not changed
    # A list where the clash is gone drops a stale letter.
    assert AUTHOR_DATE.entry(assign_year_suffixes([suffixed[0]])[0]).text.startswith("张伯伟, 2002.")
    # Numbered lists need no letters.
    assert NUMERIC.entries([first, second])[0].text == "张伯伟. 甲[M]. 北京: 人民文学出版社, 2002."


SPARSE_TYPES = (
    "article-journal", "book", "chapter", "paper-conference", "thesis", "report", "webpage", "article",
    "patent", "standard", "dataset", "article-newspaper", "manuscript", "software", "legislation",
    "entry-encyclopedia", "motion_picture", "map", "periodical",
)  # fmt: skip


@pytest.mark.parametrize("kind", SPARSE_TYPES)
def test_sparse_items_still_render(kind: str) -> None:
    variants: list[dict[str, Any]] = [
        {"type": kind},
        {"type": kind, "title": "T", "issued": {"raw": "2020-05"}, "URL": "https://x.org/"},
        {"type": kind, "title": "T", "issued": {"date-parts": [[]]}, "author": [{"given": "Ann"}]},
    ]
    for data in variants:
        item = item_from_csl(data)
        for style in (NUMERIC, AUTHOR_DATE):
            text = style.entry(item).text
            assert text.endswith(".") and "[" in text and ".." not in text
        assert AUTHOR_DATE.in_text([item], [1]).startswith("(")
