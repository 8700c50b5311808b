"""Tests for PDF extraction: reading order, clean-up, headings, metadata and failure codes."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from paperpilot.core.extract.pdf import clean_line, extract_pdf, join_lines
from paperpilot.core.extract.pdfium_calls import PDFIUM_LOCK
from paperpilot.core.models import Extracted, ImportFailure
from tests.fixtures import pdfs


@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pdfs")


@pytest.fixture(scope="module")
def paper(fixture_dir: Path) -> Extracted:
    return extract_pdf(pdfs.make_paper_pdf(fixture_dir))


@pytest.fixture(scope="module")
def two_column(fixture_dir: Path) -> Extracted:
    return extract_pdf(pdfs.make_two_column_pdf(fixture_dir))


@pytest.fixture(scope="module")
def chinese(fixture_dir: Path) -> Extracted:
    return extract_pdf(pdfs.make_chinese_pdf(fixture_dir))


def paragraphs(text: str) -> list[str]:
    return text.split("\n\n")


def full_text(ex: Extracted) -> str:
    return "\n\n".join(p.text for p in ex.pages)


# --- the one-column paper ------------------------------------------------------------------


def test_paper_keeps_every_page_with_its_number(paper: Extracted) -> None:
    assert paper.kind == "pdf"
    assert [p.number for p in paper.pages] == [1, 2, 3, 4]
    assert "# 4 Results" in paper.pages[2].text
    assert "zebra crossing experiment" in paper.pages[2].text


def test_paper_text_follows_the_paragraph_contract(paper: Extracted) -> None:
    for page in paper.pages:
        assert "\r" not in page.text
        for para in paragraphs(page.text):
            assert para == para.strip() and para, repr(para)
            assert "\n" not in para, "lines of a paragraph must be joined"
    intro = paragraphs(paper.pages[0].text)
    assert (
        "Researchers keep large personal libraries of papers and need to find passages quickly. "
        "A local assistant can search" in intro[intro.index("# 1 Introduction") + 1]
    )


def test_running_header_and_page_numbers_are_removed(paper: Extracted) -> None:
    for page in paper.pages:
        assert pdfs.PAPER_HEADER not in page.text
        assert not any(re.fullmatch(r"\d+", para) for para in paragraphs(page.text))
        assert not page.text.rstrip().endswith(str(page.number))


def test_word_hyphenated_at_line_end_is_joined(paper: Extracted) -> None:
    text = paper.pages[0].text
    assert "stores information about each paper" in text
    assert "infor-" not in text and "infor mation" not in text


def test_ligatures_are_expanded(paper: Extracted) -> None:
    text = full_text(paper)
    assert "We find that the flat file layout is the simplest one to maintain." in text
    assert not re.search("[\ufb00-\ufb06]", text)


def test_headings_are_own_paragraphs_with_hash(paper: Extracted) -> None:
    heads = [p for page in paper.pages for p in paragraphs(page.text) if p.startswith("# ")]
    assert heads == [
        "# Abstract",
        "# 1 Introduction",
        "# 2 Related Work",
        "# 2.1 Earlier Systems",
        "# 3 Method",
        "# 4 Results",
        "# 5 Conclusion",
        "# Acknowledgments",
        "# References",
    ]


def test_title_is_not_a_heading(paper: Extracted) -> None:
    first = paragraphs(paper.pages[0].text)
    assert first[0] == pdfs.PAPER_TITLE  # kept as text (it is searchable), but no "# "
    assert not any(p.startswith("# Robust") for p in first)


def test_paper_metadata(paper: Extracted) -> None:
    md = paper.metadata
    assert md.title == pdfs.PAPER_TITLE
    assert md.authors == pdfs.PAPER_AUTHORS
    assert md.doi == pdfs.PAPER_DOI
    assert md.arxiv_id == pdfs.PAPER_ARXIV
    assert md.year == pdfs.PAPER_YEAR
    assert md.venue == "Journal of Tests"
    assert md.abstract.startswith("We describe a careful method for turning scholarly PDF files")
    assert md.abstract.endswith("hyphenated at line ends.")
    assert md.language == "en"


def test_metadata_from_the_first_page_when_the_pdf_has_none(fixture_dir: Path) -> None:
    md = extract_pdf(pdfs.make_paper_pdf(fixture_dir, with_info=False, name="bare.pdf")).metadata
    # The title is set over two lines in the biggest type; authors carry superscripts.
    assert md.title == pdfs.PAPER_TITLE
    assert md.authors == pdfs.PAPER_AUTHORS
    assert md.year == pdfs.PAPER_YEAR
    assert md.doi == pdfs.PAPER_DOI


# --- two columns ---------------------------------------------------------------------------


def test_two_columns_read_left_column_first(two_column: Extracted) -> None:
    text = two_column.pages[0].text
    left = [" ".join(p) for p in pdfs.TWO_COL_LEFT]
    right = [" ".join(p) for p in pdfs.TWO_COL_RIGHT]
    # Each column paragraph comes out whole (no interleaving with the other column) ...
    for para in left + right:
        assert para in paragraphs(text), para
    # ... and the whole left column precedes the right one.
    positions = [text.index(p) for p in left + right]
    assert positions == sorted(positions)
    assert pdfs.TWO_COL_RIGHT_PHRASE in text


def test_two_columns_full_width_blocks_stay_in_place(two_column: Extracted) -> None:
    paras = paragraphs(two_column.pages[0].text)
    assert paras[0] == pdfs.TWO_COL_TITLE
    assert paras[1].startswith("This abstract runs across the full width")
    assert paras[1].endswith("coastal birds.")
    assert paras[-1].startswith("Figure 1: A wide figure")
    assert two_column.metadata.title == pdfs.TWO_COL_TITLE


# --- Chinese -------------------------------------------------------------------------------


def test_chinese_lines_join_without_spaces(chinese: Extracted) -> None:
    text = full_text(chinese)
    assert "本公司全体员工均应遵守员工请假流程管理办法的各项规定。" in text
    assert "明确各级审批权限，保障员工合法权益" in text
    assert not re.search("[\u4e00-\u9fff，。] [\u4e00-\u9fff，。]", text)
    assert chinese.metadata.language == "zh"
    assert chinese.metadata.title == pdfs.ZH_TITLE


def test_chinese_headings(chinese: Extracted) -> None:
    assert [p.number for p in chinese.pages] == [1, 2]
    first = paragraphs(chinese.pages[0].text)
    assert first[0] == pdfs.ZH_TITLE
    assert "# 一、总则" in first and "# 二、请假类型" in first
    assert paragraphs(chinese.pages[1].text)[0] == "# 三、审批流程"


def test_chinese_fixture_requires_the_font(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(pdfs, "CJK_FONT", tmp_path / "missing.ttc")
    with pytest.raises(FileNotFoundError, match="apt-get install fonts-wqy-microhei"):
        pdfs.make_chinese_pdf(tmp_path)


# --- failures ------------------------------------------------------------------------------


def _failure(path: Path) -> ImportFailure:
    with pytest.raises(ImportFailure) as info:
        extract_pdf(path)
    return info.value


def test_encrypted_pdf(fixture_dir: Path) -> None:
    err = _failure(pdfs.make_encrypted_pdf(fixture_dir))
    assert err.code == "encrypted"
    assert "password" in err.reason


def test_truncated_pdf(fixture_dir: Path) -> None:
    err = _failure(pdfs.make_truncated_pdf(fixture_dir))
    assert err.code == "corrupt"
    assert "damaged" in err.reason


def test_text_file_named_pdf(fixture_dir: Path) -> None:
    assert _failure(pdfs.make_not_a_pdf(fixture_dir)).code == "corrupt"


def test_empty_bytes_named_pdf(tmp_path: Path) -> None:
    path = tmp_path / "zero.pdf"
    path.write_bytes(b"")
    assert _failure(path).code == "corrupt"


def test_image_only_pdf_needs_ocr(fixture_dir: Path) -> None:
    err = _failure(pdfs.make_image_only_pdf(fixture_dir))
    assert err.code == "no_text"
    assert "OCR" in err.reason


def test_pdf_without_pages(fixture_dir: Path) -> None:
    assert _failure(pdfs.make_empty_pdf(fixture_dir)).code == "empty"


def test_missing_file(tmp_path: Path) -> None:
    assert _failure(tmp_path / "nowhere.pdf").code == "unreadable"


def test_encrypted_then_empty_is_not_reported_as_encrypted(fixture_dir: Path) -> None:
    # PDFium's last-error code is global and not reset for a zero-page file.
    _failure(pdfs.make_encrypted_pdf(fixture_dir))
    assert _failure(pdfs.make_empty_pdf(fixture_dir)).code == "empty"


def test_pages_without_text_are_skipped_numbers_kept(fixture_dir: Path) -> None:
    ex = extract_pdf(pdfs.make_mixed_pdf(fixture_dir))
    assert [p.number for p in ex.pages] == [1, 3]
    assert "page number 3" in ex.pages[1].text


# --- helpers and thread safety ---------------------------------------------------------


def test_clean_line() -> None:
    assert clean_line("the \ufb01rst \ufb02ow, e\ufb03cient") == "the first flow, efficient"
    assert clean_line("co\u00adoperate\x02 ") == "cooperate"
    assert clean_line("  a\tb\r  c ") == "a b c"
    assert clean_line("Farber \u00a8 (2019)") == "Farber (2019)"


def test_join_lines() -> None:
    assert join_lines("stores infor-", "mation about") == "stores information about"
    assert join_lines("stores infor", "mation", hyphen_removed=True) == "stores information"
    assert join_lines("uses GPT-", "4 daily") == "uses GPT-4 daily"
    assert join_lines("end of line", "next line") == "end of line next line"
    assert join_lines("明确各级审批权", "限，保障") == "明确各级审批权限，保障"
    assert join_lines("中文", "English") == "中文 English"
    compounds = frozenset({"state-of-the-art", "publisher-provided"})
    assert join_lines("a state-of-the-", "art model", compounds=compounds) == ("a state-of-the-art model")
    assert join_lines("publisher", "provided data", True, compounds) == "publisher-provided data"


def test_concurrent_extractions_share_the_lock(fixture_dir: Path) -> None:
    assert isinstance(PDFIUM_LOCK, type(threading.Lock()))
    paths = [pdfs.make_paper_pdf(fixture_dir, name=f"t{i}.pdf") for i in range(2)]
    paths.append(pdfs.make_chinese_pdf(fixture_dir))
    results: list[Extracted] = []
    errors: list[BaseException] = []

    def work(path: Path) -> None:
        try:
            results.append(extract_pdf(path))
        except BaseException as exc:  # surfaced to the test thread below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(p,)) for p in paths * 2]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not errors
    assert len(results) == 6
    assert all(r.pages for r in results)


def _bold_prose_pdf(path: Path) -> Path:
    from fpdf import FPDF

    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    y = 30.0
    body = [
        "Our store keeps many tables for many projects, and each of them makes its own",
        "demands on size and latency. This section and the next describe the design.",
    ]
    pdf.set_font("Helvetica", "B", 18)
    pdf.text(20, 20, "A Store for Structured Data")
    for kind, lines in [
        ("h", ["1 Introduction"]),
        ("p", body),
        ("h", ["2 Data Model"]),
        # A definition set in bold that starts like an appendix heading ("A Proofs").
        (
            "b",
            [
                "A Widget is a sparse, distributed, persistent multi-",
                "dimensional sorted map. The map is indexed by a row key.",
            ],
        ),
        # A contribution bullet in bold: a numbered statement, not a section.
        ("b", ["1. We propose a store that scales to thousands of machines."]),
        ("p", body),
    ]:
        pdf.set_font("Helvetica", "B" if kind in "hb" else "", 12 if kind == "h" else 10)
        for line in lines:
            pdf.text(20, y, line)
            y += 5
        y += 4
    pdf.output(str(path))
    return path


def test_bold_prose_that_looks_like_a_heading_stays_text(tmp_path: Path) -> None:
    ex = extract_pdf(_bold_prose_pdf(tmp_path / "bold.pdf"))
    paras = paragraphs(ex.pages[0].text)
    heads = [p for p in paras if p.startswith("# ")]
    assert heads == ["# 1 Introduction", "# 2 Data Model"]
    assert any(p.startswith("A Widget is a sparse, distributed, persistent multidimensional") for p in paras)
    assert "1. We propose a store that scales to thousands of machines." in paras


def test_ieee_headings_in_plain_capitals_with_roman_numerals(tmp_path: Path) -> None:
    from fpdf import FPDF

    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 18)
    pdf.text(20, 20, "Stereo Matching in Real Time")
    pdf.set_font("Helvetica", "", 10)  # headings in the body's own type: only the capitals mark them
    y = 32.0
    for head in ("I. INTRODUCTION", "II. RELATED WORK"):
        pdf.text(80, y, head)
        # The other column's line, level with the centred heading, is not part of it.
        pdf.text(150, y, "work, local stereo algorithms")
        y += 6
        for line in (
            "Stereo matching is the process of identifying correspondences between pixels of two",
            "images taken from slightly different points of view, and it has a long history here.",
        ):
            pdf.text(20, y, line)
            y += 5
        y += 5
    pdf.output(str(tmp_path / "ieee.pdf"))
    ex = extract_pdf(tmp_path / "ieee.pdf")
    heads = [p for p in paragraphs(ex.pages[0].text) if p.startswith("# ")]
    assert heads == ["# I. INTRODUCTION", "# II. RELATED WORK"]
