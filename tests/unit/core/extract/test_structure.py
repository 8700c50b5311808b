"""The structure of a paper at import: a kind and a section path for every chunk."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from paperpilot.core.extract.chunker import chunk_document, chunk_text
from paperpilot.core.extract.pdf import extract_pdf
from paperpilot.core.extract.structure import Outline, heading_level
from paperpilot.core.models import Chunk
from paperpilot.core.text.kinds import Kind, classify_passage, is_equation, parse_kinds, section_kind
from tests.fixtures.pdfs import (
    CJK_FONT,
    REFERENCE_ONLY_WORD,
    STRUCT_TITLE,
    make_chinese_structured_pdf,
    make_structured_paper_pdf,
)


def _chunks(path: Path) -> tuple[list[Chunk], list[str]]:
    return chunk_document(extract_pdf(path).pages)


def _kind_of(chunks: list[Chunk], needle: str) -> str:
    found = [c for c in chunks if needle in c.text]
    assert found, needle
    return found[0].kind


def test_every_kind_of_a_paper_is_detected(tmp_path: Path) -> None:
    chunks, refs = _chunks(make_structured_paper_pdf(tmp_path))
    assert _kind_of(chunks, STRUCT_TITLE) == "title"
    assert _kind_of(chunks, "Mara Quist") == "title"
    assert _kind_of(chunks, "We present sparse lattice attention") == "abstract"
    assert _kind_of(chunks, "exceed the context") == "body"
    assert _kind_of(chunks, "Code and data are available") == "footnote"
    assert _kind_of(chunks, "z = y × y + c") == "equation"
    assert _kind_of(chunks, "Figure 1: The lattice") == "caption"
    assert _kind_of(chunks, "Table 1: Accuracy") == "caption"
    assert _kind_of(chunks, "Lattice | 81.0") == "table"
    assert _kind_of(chunks, "We thank the reviewers") == "acknowledgements"
    assert _kind_of(chunks, REFERENCE_ONLY_WORD) == "references"
    assert _kind_of(chunks, "sixty-four anchors per row") == "appendix"
    # Captions, footnotes and table cells never sit inside a body chunk.
    for c in chunks:
        if c.kind == "body":
            assert "Figure 1:" not in c.text and "Code and data" not in c.text and "81.0" not in c.text
    assert len(refs) == 3 and refs[0].startswith("[1] I. Beltagy")


def test_tables_keep_their_rows(tmp_path: Path) -> None:
    chunks, _ = _chunks(make_structured_paper_pdf(tmp_path))
    table = next(c for c in chunks if c.kind == "table")
    assert table.text.split("\n") == [
        "Model | Accuracy | Memory | Speed",
        "Dense | 81.2 | 40.1 | 1.0",
        "Window | 78.4 | 6.3 | 3.1",
        "Lattice | 81.0 | 4.2 | 4.4",
    ]


def test_section_paths_follow_the_numbering(tmp_path: Path) -> None:
    chunks, _ = _chunks(make_structured_paper_pdf(tmp_path))
    by_text = {c.text[:30]: c for c in chunks}
    training = next(c for t, c in by_text.items() if t.startswith("We train the lattice"))
    assert training.section_path == "2 Method > 2.1 Training" and training.section == "2.1 Training"
    results = next(c for t, c in by_text.items() if t.startswith("Sparse lattice attention keeps"))
    assert results.section_path == "3 Results"


def test_chinese_paper_structure(tmp_path: Path) -> None:
    chunks, refs = _chunks(make_chinese_structured_pdf(tmp_path))
    assert _kind_of(chunks, "本文提出一种格注意力方法") == "abstract"
    assert _kind_of(chunks, "长文档超出了") == "body"
    assert next(c for c in chunks if "长文档超出了" in c.text).section_path == "一、引言"
    assert _kind_of(chunks, "感谢实验室") == "acknowledgements"
    assert _kind_of(chunks, "张三, 李四") == "references"
    assert any("[2] 王五" in r for r in refs)


def test_markdown_headings_give_kinds_and_paths() -> None:
    text = (
        "# 1 Method\n\nWe train the model on the corpus of papers for three days on two machines.\n\n"
        "# 1.1 Data\n\nThe data come from the public archive and were cleaned by hand before use.\n\n"
        "# References\n\nDoe, J. and Roe, R. 2019. Reading PDF files by machine. Journal of Tests 3:1-10.\n\n"
        "# Appendix A Proofs\n\nThe proof of the first lemma follows from the definition of the lattice."
    )
    chunks = chunk_text(text)
    assert [(c.kind, c.section_path) for c in chunks] == [
        ("body", "1 Method"),
        ("body", "1 Method > 1.1 Data"),
        ("references", "References"),
        ("appendix", "Appendix A Proofs"),
    ]


def test_lettered_sections_after_the_references_are_appendices() -> None:
    o = Outline()
    o.heading("1 Introduction")
    assert o.zone == Kind.BODY
    o.heading("References")
    assert o.zone == Kind.REFERENCES
    o.heading("A Background and Terminology")
    assert o.zone == Kind.APPENDIX and o.path == "A Background and Terminology"
    o.heading("A.1 Definitions")
    assert o.zone == Kind.APPENDIX and o.path == "A Background and Terminology > A.1 Definitions"


def test_heading_sizes_nest_unnumbered_headings() -> None:
    o = Outline(sizes=[14.0, 12.0])
    o.heading("Background", 14.0)
    o.heading("Data collection", 12.0)
    assert o.path == "Background > Data collection"
    o.heading("Results", 14.0)
    assert o.path == "Results"


@pytest.mark.parametrize(
    ("heading", "level"),
    [("3 Method", 1), ("3.2 Training", 2), ("A.1 Proofs", 2), ("IV. Results", 1), ("一、引言", 1),
     ("（二）数据", 2), ("第1章 绪论", 1), ("第2节 方法", 2), ("2.1实验设置", 2), ("Introduction", None)],
)  # fmt: skip
def test_heading_levels(heading: str, level: int | None) -> None:
    assert heading_level(heading) == level


def test_section_names_in_english_and_chinese() -> None:
    assert section_kind("7 References") == section_kind("参考文献") == section_kind("Bibliography") == Kind.REFERENCES
    assert section_kind("Acknowledgements") == section_kind("致谢") == Kind.ACKNOWLEDGEMENTS
    assert section_kind("Appendix B") == section_kind("附录") == Kind.APPENDIX
    assert section_kind("Abstract") == section_kind("摘 要") == section_kind("关键词") == Kind.ABSTRACT
    assert section_kind("Competing interests") == Kind.BOILERPLATE
    assert section_kind("3 Method") is None and section_kind("引言") is None


def test_kind_vocabulary() -> None:
    # The stored names are a contract: the old classifier names are the same members.
    assert Kind.PROSE is Kind.BODY and Kind.AUTHORS is Kind.TITLE
    assert {k.value for k in Kind} >= {
        "title", "abstract", "body", "caption", "table", "equation", "code", "footnote",
        "acknowledgements", "references", "appendix", "boilerplate",
    }  # fmt: skip
    assert parse_kinds("body, abstract") == [Kind.BODY, Kind.ABSTRACT]
    with pytest.raises(ValueError, match="unknown kind 'bodies'"):
        parse_kinds(["bodies"])
    assert classify_passage("The abstract says what we did.", "Abstract") == Kind.ABSTRACT
    assert is_equation("|N1 ∩ N2| J = |N1 ∪ N2|") and not is_equation("We show that x = 3 holds in all cases we study.")


def test_small_print_in_a_reference_list_is_still_references() -> None:
    from paperpilot.core.extract.structure import block_kind

    o = Outline()
    o.heading("References")
    entry = "[5] Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A Pretrained Language Model. In EMNLP."
    assert block_kind(o, entry, "footnote", 9, "References") == Kind.REFERENCES
    o2 = Outline()
    o2.heading("2 Method")
    assert block_kind(o2, "3 Code is available on request.", "footnote", 2, "2 Method") == Kind.FOOTNOTE


# --- the title block comes from the layout's one title decision ---------------------------------


def _block_kinds(paras: list[tuple[str, str]]) -> list[str]:
    from paperpilot.core.extract.chunker import read_blocks
    from paperpilot.core.models import Page

    page = Page(1, "\n\n".join(t for t, _h in paras), layout=[(h, 10.0) for _t, h in paras])
    return [b.kind for b in read_blocks([page])]


def test_a_short_first_paragraph_without_a_title_above_it_is_body() -> None:
    # An inner page: no line in large type, so nothing on it is a title block.
    kinds = _block_kinds([
        ("- 17 -", "body"),
        ("The kiln was held at 1180 degrees for every firing, unless a test says otherwise:", "body"),
        ("These settings were kept through the whole series of tests so that the glaze samples "
         "could be compared with each other, and each sample was weighed before and after.", "body"),
    ])  # fmt: skip
    assert "title" not in kinds
    assert kinds[1] in {k.value for k in (Kind.BODY, Kind.ABSTRACT)}


def test_the_title_block_is_the_title_with_its_masthead_and_by_line() -> None:
    kinds = _block_kinds([
        ("Annals of Imaginary Geology 12 (2021) 1-9", "body"),
        ("Capillary Drift of Brine in Layered Sandstone Cores", "title"),
        ("Mara Ellison, Tobias Renner, Ines Kowalczyk", "body"),
        ("Department of Geology, University of Halden", "body"),
        ("Brine rises through layered sandstone by capillary drift, and the rate depends on the grain "
         "size of each layer. We measured the drift in twelve cores and found that fine layers slow it "
         "down, while coarse layers let it pass almost freely through the core.", "body"),
    ])  # fmt: skip
    assert kinds[:4] == ["title"] * 4
    assert kinds[4] != "title"


def test_a_thesis_cover_of_form_fields_has_no_headings(tmp_path: Path) -> None:
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(False)
    pdf.add_font("wqy", "", str(CJK_FONT), collection_font_number=0)
    pdf.add_page()
    pdf.set_font("wqy", "", 26)
    pdf.text(70, 50, "硕士学位论文")
    pdf.set_font("wqy", "", 18)
    pdf.text(40, 80, "城市绿地中鸟类群落的季节变化研究")
    pdf.set_font("wqy", "", 14)
    for i, (label, value) in enumerate(
        [("作者姓名", "张晓明"), ("指导教师", "李华 研究员"), ("学科专业", "生态学"), ("培养单位", "中国科学院动物研究所")]
    ):
        pdf.text(40, 170 + 12 * i, f"{label}：{value}")
    pdf.text(55, 170 + 12 * 4, "研究员 中国科学院动物研究所")  # a value run onto a line of its own
    pdf.text(80, 260, "2014 年 6 月")
    pdf.add_page()
    pdf.set_font("wqy", "", 14)
    pdf.text(20, 30, "第1章 引言")
    pdf.set_font("wqy", "", 12)
    pdf.set_xy(20, 38)
    pdf.multi_cell(170, 7, "城市绿地为鸟类提供了栖息和觅食的场所，本研究在三个季节调查了十二块绿地中的鸟类群落。" * 6)
    path = tmp_path / "cover.pdf"
    pdf.output(str(path))
    chunks, _ = chunk_document(extract_pdf(path).pages)
    paths = {c.section_path for c in chunks}
    assert not any("：" in p or "研究所" in p for p in paths), paths
    assert any(c.section_path.replace(" ", "") == "第1章引言" and "鸟类群落" in c.text for c in chunks)
