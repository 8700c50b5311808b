"""Metadata read off first pages drawn in real publishers' layouts (tests/bench/make_publisher_pdfs.py).

Each test builds one paper of the benchmark's tune half in the test (the generator is
deterministic), imports it with the real extractor and checks every field its page prints
against the generator's truth; the rules under them are checked on their own below.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paperpilot.core.extract.metadata.masthead import arxiv_year, read_mastheads, without_authors
from paperpilot.core.extract.metadata.names import group_author, persons_in_line
from paperpilot.core.extract.pdf import extract_pdf
from tests.bench.make_publisher_pdfs import build_paper
from tests.fixtures.pdfs import CJK_FONT


def _read(tmp_path: Path, family: str, k: int) -> tuple[dict[str, Any], dict[str, Any]]:
    if not CJK_FONT.is_file():
        pytest.fail(f"{CJK_FONT} is missing (apt-get install fonts-wqy-microhei)")
    data, truth = build_paper(family, k)
    assert truth["split"] == "tune"  # the held-out half is never used to build or check rules
    path = tmp_path / truth["file"]
    path.write_bytes(data)
    md = extract_pdf(path).metadata
    got = {"title": md.title, "authors": md.csl.get("author", []), "year": md.year,
           "container_title": md.csl.get("container-title"), "volume": md.csl.get("volume"),
           "issue": md.csl.get("issue"), "pages": md.csl.get("page"), "doi": md.doi or None,
           "arxiv_id": md.csl.get("arxiv")}  # fmt: skip
    return got, truth


def _names(names: list[dict[str, str]]) -> list[tuple[str, str]]:
    return [(n["literal"], "") if n.get("literal") else (n["family"], n.get("given", "")) for n in names]


def _check(got: dict[str, Any], truth: dict[str, Any]) -> None:
    assert got["title"] == truth["title"]
    assert _names(got["authors"]) == _names(truth["authors"])
    for f in ("year", "container_title", "volume", "issue", "pages", "doi", "arxiv_id"):
        if f not in truth["not_printed"]:
            assert got[f] == truth[f], f


def test_nature_communications_year_is_published_not_received(tmp_path: Path) -> None:
    got, truth = _read(tmp_path, "nature", 0)
    _check(got, truth)
    assert truth["year"] == 2023 and got["pages"] == "5180"  # "Nature Communications | (2023) 14:5180"


def test_nature_communications_template_xmp_does_not_replace_the_byline(tmp_path: Path) -> None:
    got, truth = _read(tmp_path, "nature", 10)
    assert truth["hazard"] == 1  # XMP creators "Jane Author", "John Author" from a template
    _check(got, truth)
    assert len(got["authors"]) == 13


def test_two_author_running_head_gives_the_journal_without_the_names(tmp_path: Path) -> None:
    got, truth = _read(tmp_path, "bmc", 1)  # "Alves and Smith-Jones Genome Biology (2022) 23:395"
    _check(got, truth)
    assert got["container_title"] == "Genome Biology"


def test_acl_proceedings_footer_with_words_placed_one_by_one(tmp_path: Path) -> None:
    got, truth = _read(tmp_path, "acl", 5)
    assert truth["tex_spacing"]  # no space characters in the file: PDFium infers them
    _check(got, truth)


def test_old_style_arxiv_id_gives_its_year(tmp_path: Path) -> None:
    got, truth = _read(tmp_path, "arxiv", 8)  # arXiv:cs/0611608v2 in the side stamp
    _check(got, truth)
    assert (got["year"], got["arxiv_id"]) == (2006, "cs/0611608v2")


def test_old_chinese_journal_masthead_in_one_row(tmp_path: Path) -> None:
    got, truth = _read(tmp_path, "chinese", 1)  # 机 械 工 程 学 报  第 4 卷 第 5 期  1989 年 10 月
    _check(got, truth)
    assert got["authors"] == [{"literal": "孙立群"}]


def test_running_head_author_names_are_taken_off_the_journal() -> None:
    assert without_authors("Alves and Smith-Jones Genome Biology", ["Alves", "Smith-Jones"]) == "Genome Biology"
    assert without_authors("Yang & Chen BMC Biology", ["Yang", "Chen"]) == "BMC Biology"
    assert without_authors("Yang BMC Biology", ["Yang"]) == "BMC Biology"
    # A journal that merely starts with a word like a name keeps it unless the by-line says so.
    assert without_authors("Nature Communications", ["Nature"]) == "Nature Communications"
    assert without_authors("Cell Reports", ["Cell", "Smith", "Jones"]) == "Cell Reports"
    assert without_authors("Genome Biology", []) == "Genome Biology"


def test_masthead_then_authors_strip_end_to_end() -> None:
    mast = read_mastheads(["Alves and Smith-Jones Genome Biology (2022) 23:395"], "")
    assert (mast.container_title, mast.volume, mast.pages, mast.year) == ("Alves and Smith-Jones Genome Biology", "23", "395", 2022)
    assert without_authors(mast.container_title, ["Alves", "Smith-Jones"]) == "Genome Biology"


def test_arxiv_ids_give_their_years() -> None:
    assert arxiv_year("2004.04906v3") == 2020
    assert arxiv_year("cs/0611608v2") == 2006
    assert arxiv_year("hep-th/9711200") == 1997
    assert arxiv_year("math.AG/0309136") == 2003
    assert arxiv_year("cs/0613001") is None  # month 13 is no month


def test_group_authors_stay_in_the_byline_and_affiliations_do_not() -> None:
    assert persons_in_line("Ana Souza|, Karl Weber| & the Coral Reef Genomics Consortium") == [
        "Ana Souza", "Karl Weber", "Coral Reef Genomics Consortium"]  # fmt: skip
    assert group_author("the ENCODE Project Consortium") == "ENCODE Project Consortium"
    assert group_author("Department of Genomics Research Network") == ""
    assert group_author("Facebook AI") == ""
    # A line of groups alone is an affiliation list, not a by-line.
    assert persons_in_line("Tara Oceans Consortium, Genomics Network") is None


def test_nature_communications_2016_footer_without_year(tmp_path: Path) -> None:
    got, truth = _read(tmp_path, "nature2016", 0)  # "NATURE COMMUNICATIONS | 9:13624 | DOI: …"
    _check(got, truth)
    assert got["container_title"] == "Nature Communications"  # cited as named, not in capitals


def test_masthead_in_capitals_is_cited_in_title_case_with_acronyms_kept() -> None:
    mast = read_mastheads(["IEEE TRANSACTIONS ON PATTERN ANALYSIS | 12:345 | DOI: 10.1109/x"], "")
    assert (mast.container_title, mast.volume, mast.pages, mast.year) == (
        "IEEE Transactions on Pattern Analysis", "12", "345", None)  # fmt: skip


def test_old_bmc_running_head_with_two_authors_and_a_comma_after_the_year(tmp_path: Path) -> None:
    got, truth = _read(tmp_path, "bmc2010", 1)  # "Smith-Jones and Grant BMC Evolutionary Biology 2008, 6:102"
    _check(got, truth)
    assert (got["container_title"], got["volume"], got["pages"]) == ("BMC Evolutionary Biology", "6", "102")
    mast = read_mastheads(["Genome Biology 2011, 12:R45"], "")
    assert (mast.container_title, mast.year, mast.volume, mast.pages) == ("Genome Biology", 2011, "12", "R45")
