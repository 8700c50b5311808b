"""Each metadata source on PDFs generated here (fpdf2, XMP included), and the rules under them."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from html import escape
from pathlib import Path

import pytest
from fpdf import FPDF

from paperpilot.core.extract.metadata.info import read_info
from paperpilot.core.extract.metadata.masthead import arxiv_year, read_mastheads
from paperpilot.core.extract.metadata.merge import confidence
from paperpilot.core.extract.metadata.names import names_from_field, persons_in_line, to_name
from paperpilot.core.extract.metadata.xmp import parse_packet, read_xmp
from paperpilot.core.extract.pdf import extract_pdf
from paperpilot.core.models import Metadata
from tests.fixtures.pdfs import CJK_FONT

BODY = (
    "This generated paper exists to test how bibliographic metadata is read from a first page. Its body "
    "is ordinary prose, set in the body size, so that a layout analyser sees a title, a by-line and text. "
) * 3


def xmp_packet(props: dict[str, str | list[str]]) -> str:
    body = []
    for k, v in props.items():
        if isinstance(v, list):
            kind = "Seq" if k == "dc:creator" else "Bag"
            body.append(f"<{k}><rdf:{kind}>" + "".join(f"<rdf:li>{escape(x)}</rdf:li>" for x in v) + f"</rdf:{kind}></{k}>")
        elif k == "dc:title":
            body.append(f'<{k}><rdf:Alt><rdf:li xml:lang="x-default">{escape(v)}</rdf:li></rdf:Alt></{k}>')
        else:
            body.append(f"<{k}>{escape(v)}</{k}>")
    return (
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
        '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" '
        'xmlns:prism="http://prismstandard.org/namespaces/basic/2.0/">' + "".join(body) +
        "</rdf:Description></rdf:RDF></x:xmpmeta>"
    )  # fmt: skip


def make_pdf(path: Path, draw: Callable[[FPDF], None], *, info: dict[str, str] | None = None,
             xmp: dict[str, str | list[str]] | None = None, cjk: bool = False) -> Path:  # fmt: skip
    pdf = FPDF(format="A4", unit="mm")
    pdf.set_auto_page_break(False)
    pdf.set_creation_date(dt.datetime(2024, 1, 1, tzinfo=dt.UTC))
    if cjk:
        pdf.add_font("wqy", "", str(CJK_FONT), collection_font_number=0)
    pdf.add_page()
    draw(pdf)
    pdf.set_font("Helvetica", "", 10)
    pdf.set_xy(20, 150)
    pdf.multi_cell(170, 5, BODY)
    for k, v in (info or {}).items():
        getattr(pdf, f"set_{k.lower()}")(v)
    if xmp:
        pdf.set_xmp_metadata(xmp_packet(xmp))
    pdf.output(str(path))
    return path


def centred(pdf: FPDF, y: float, text: str, size: float, style: str = "", family: str = "Helvetica") -> None:
    pdf.set_font(family, style, size)
    pdf.text((pdf.w - pdf.get_string_width(text)) / 2, y, text)


def marked_names(pdf: FPDF, y: float, names: list[tuple[str, str]], size: float = 11) -> None:
    """Names each followed by a raised, smaller affiliation mark (as LaTeX sets \\textsuperscript)."""
    x = 40.0
    for i, (name, mark) in enumerate(names):
        pdf.set_font("Helvetica", "", size)
        pdf.text(x, y, name)
        x += pdf.get_string_width(name)
        pdf.set_font("Helvetica", "", size * 0.6)
        pdf.text(x, y - size * 0.14, mark)
        x += pdf.get_string_width(mark)
        if i < len(names) - 1:
            pdf.set_font("Helvetica", "", size)
            pdf.text(x, y, ", ")
            x += pdf.get_string_width(", ")


# --- the layout of page 1 --------------------------------------------------------------------


def test_byline_with_raised_marks_gives_every_author_in_order(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        centred(pdf, 40, "Sparse Attention for Long Notes", 18, "B")
        marked_names(pdf, 52, [("Patrick Lane", "a,c,*"), ("Alice Best", "b"), ("Jan van der Berg", "1,2")])
        centred(pdf, 60, "a Department of Informatics, University of Eastfield", 8)
        centred(pdf, 64, "b Institute for Health Data, Northbridge", 8)

    md = extract_pdf(make_pdf(tmp_path / "marks.pdf", draw, info={"Author": "plane"})).metadata
    assert md.title == "Sparse Attention for Long Notes"
    assert md.authors == ["Patrick Lane", "Alice Best", "Jan van der Berg"]
    assert md.csl["author"][2] == {"family": "van der Berg", "given": "Jan"}
    assert md.sources["title"] == "layout" and md.sources["authors"] == "layout"


def test_an_organisation_is_an_author_never_split_into_a_person(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        centred(pdf, 45, "Guidelines for Archiving Research Software", 18, "B")
        centred(pdf, 58, "Open Science Working Group", 12)
        centred(pdf, 72, "March 2019", 10)

    md = extract_pdf(make_pdf(tmp_path / "org.pdf", draw)).metadata
    assert md.csl["author"] == [{"literal": "Open Science Working Group"}]
    assert md.year == 2019
    assert names_from_field("Facebook AI") == [{"literal": "Facebook AI"}]


@pytest.mark.skipif(not CJK_FONT.is_file(), reason="needs fonts-wqy-microhei")
def test_chinese_article_masthead_title_and_literal_names(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        pdf.set_font("wqy", "", 9)
        pdf.text(20, 16, "第 9 卷 第 4 期")
        pdf.text(20, 21, "1994 年 10 月")
        centred(pdf, 16, "航 空 动 力 学 报", 11, family="wqy")
        centred(pdf, 40, "航空发动机控制系统研究", 16, family="wqy")
        centred(pdf, 50, "张  津    王明远", 11, family="wqy")
        centred(pdf, 57, "(北京航空航天大学, 北京 100083)", 8, family="wqy")
        pdf.text(20, 120, "收稿日期: 1993-11-02")

    md = extract_pdf(make_pdf(tmp_path / "zh.pdf", draw, cjk=True)).metadata
    assert md.title == "航空发动机控制系统研究"
    assert md.csl["author"] == [{"literal": "张津"}, {"literal": "王明远"}]
    assert (md.venue, md.csl["volume"], md.csl["issue"], md.year) == ("航空动力学报", "9", "4", 1994)


# --- XMP and Info ------------------------------------------------------------------------------


def test_xmp_gives_the_full_citation_when_the_page_agrees(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        centred(pdf, 38, "Fault Creep Measured by Strain Cables", 16, "B")
        centred(pdf, 49, "Olga Ivanova, Pedro Alves and Mei Lin", 10.5)
        pdf.set_font("Helvetica", "", 8)
        pdf.text(20, 15, "Annals of Synthetic Geology 41(6):877-893")

    xmp = {
        "dc:title": "Fault Creep Measured by Strain Cables", "dc:creator": ["Olga Ivanova", "Pedro Alves", "Mei Lin"],
        "prism:publicationName": "Annals of Synthetic Geology", "prism:volume": "41", "prism:number": "6",
        "prism:startingPage": "877", "prism:endingPage": "893", "prism:doi": "10.5555/asg.41.6.877",
        "prism:coverDate": "2021-11-15",
    }  # fmt: skip
    path = make_pdf(tmp_path / "xmp.pdf", draw, info={"Author": "Olga Ivanova"}, xmp=xmp)
    x = read_xmp(path)
    assert [n["family"] for n in x.authors] == ["Ivanova", "Alves", "Lin"]
    assert (x.container_title, x.volume, x.issue, x.pages, x.doi, x.year) == (
        "Annals of Synthetic Geology", "41", "6", "877-893", "10.5555/asg.41.6.877", 2021)  # fmt: skip
    md = extract_pdf(path).metadata
    assert md.sources["authors"] == "xmp" and md.sources["container_title"] == "xmp"
    assert md.year == 2021 and md.sources["year"] == "xmp"  # printed nowhere on the page
    assert md.doi == "10.5555/asg.41.6.877"


def test_a_template_default_in_xmp_loses_to_the_page(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        centred(pdf, 38, "Citation Context for Readers", 16, "B")
        centred(pdf, 49, "Joseph Chang and Amy Zhang", 11)
        pdf.set_font("Helvetica", "", 8)
        pdf.text(20, 280, "Proceedings of the 2023 Conference on Reading Systems, pages 12-20, 2023.")

    xmp = {"prism:publicationName": "ACM Transactions on Graphics", "prism:volume": "37", "prism:number": "4"}
    md = extract_pdf(make_pdf(tmp_path / "acm.pdf", draw, xmp=xmp)).metadata
    assert md.venue == "Proceedings of the 2023 Conference on Reading Systems"
    assert md.csl["page"] == "12-20" and "volume" not in md.csl
    assert md.sources["container_title"] == "masthead"


def test_info_junk_is_ignored_and_a_real_info_title_is_the_last_resort() -> None:
    assert read_info({"Title": "6489122611071476 1..10", "Author": "nicolebleich"}).title == ""
    assert read_info({"Title": "119_123.indd"}).title == ""
    assert read_info({"Title": "doi:10.1016/j.jhydrol.2005.01.006"}).doi == "10.1016/j.jhydrol.2005.01.006"
    info = read_info({"Title": "A Real Title Here", "Author": "Nuala E. Tully {et al.}"})
    assert info.title == "A Real Title Here"
    assert info.authors == [{"family": "Tully", "given": "Nuala E."}] and not info.authors_complete


def test_an_unreadable_xmp_packet_gives_nothing() -> None:
    assert parse_packet(b"<x:xmpmeta><broken").title == ""
    assert parse_packet(b"").authors == []


def test_the_packet_is_the_one_a_metadata_key_points_to() -> None:
    from paperpilot.core.extract.metadata.xmp import _packet_of

    packet = xmp_packet({"dc:title": "A Study of Brine"}).encode()
    # An image's packet in a file whose catalog names no /Metadata stream is not the document's.
    assert _packet_of(b"%PDF-1.7\n1 0 obj <</Type /XObject>> stream\n" + packet + b"\nendstream") == b""
    # The document's packet, found from the uncompressed catalog's /Metadata reference.
    doc = (b"%PDF-1.7\n1 0 obj <</Type /Catalog /Pages 2 0 R /Metadata 5 0 R>> endobj\n"
           b"5 0 obj <</Type /Metadata /Subtype /XML>> stream\n" + packet + b"\nendstream endobj\n")  # fmt: skip
    assert parse_packet(_packet_of(doc)).title == "A Study of Brine"
    # One plain packet and a /Metadata key somewhere (the catalog in an object stream).
    assert _packet_of(b"%PDF-1.7\n/Metadata\n" + packet) == packet
    assert _packet_of(b"%PDF-1.7\n") == b""


# --- mastheads, by category ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "journal", "volume", "issue", "pages", "year"),
    [
        ("Nature Communications | (2023) 14:5133", "Nature Communications", "14", "", "5133", 2023),
        ("Yang et al. BMC Biology (2024) 22:106", "BMC Biology", "22", "", "106", 2024),
        ("Datta et al. Journal of Trauma Management & Outcomes 2010, 4:1",
         "Journal of Trauma Management & Outcomes", "4", "", "1", 2010),
        ("Journal of Hydrology 310 (2005) 253–265", "Journal of Hydrology", "310", "", "253-265", 2005),
        ("Annals of Synthetic Geology 41(6):877-893", "Annals of Synthetic Geology", "41", "6", "877-893", None),
        ("Environmental Sensing Letters, Volume 5, Issue 2, Article 0217",
         "Environmental Sensing Letters", "5", "2", "0217", None),
    ],
)  # fmt: skip
def test_masthead_categories(line: str, journal: str, volume: str, issue: str, pages: str, year: int | None) -> None:
    m = read_mastheads([line], line)
    assert (m.container_title, m.volume, m.issue, m.pages, m.year) == (journal, volume, issue, pages, year)


def test_chinese_masthead_and_its_placeholders() -> None:
    m = read_mastheads(["第 9 卷 第 4 期  航 空 动 力 学 报  1994 年 10 月"], "")
    assert (m.container_title, m.volume, m.issue, m.year) == ("航空动力学报", "9", "4", 1994)
    template = read_mastheads(["第 XX 卷 第 X 期", "自 动 化 学 报", "202X 年 X 月"], "DOI 10.16383/j.aas.cxxxxxx")
    assert (template.container_title, template.volume, template.year, template.doi) == ("自动化学报", "", None, "")


def test_footer_and_citation_lines() -> None:
    acl = "Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics, pages 4969–4983 July 5 - 10, 2020."
    m = read_mastheads([], "", reading=acl)
    assert (m.container_title, m.pages, m.year) == (acl.split(",")[0], "4969-4983", 2020)
    iop = "To cite this article: V V Kazina et al 2021 IOP Conf. Ser.: Earth Environ. Sci. 640 022090"
    m = read_mastheads([], iop)
    assert (m.volume, m.pages, m.year) == ("640", "022090", 2021)
    assert read_mastheads([], "To appear in OSDI 2006").container_title == "OSDI 2006"


# --- year rules ----------------------------------------------------------------------------------


def test_published_beats_received_and_accepted() -> None:
    text = "Received: 3 November 2020 / Accepted: 8 February 2021\nPublished: 12 March 2021\n© 2020 The Authors"
    assert read_mastheads([], text).year == 2021
    # The phrase is found in the later pages' text too, as a word of its own only.
    assert read_mastheads([], "no year here", "RePublished 1999.\nThe publication of it. Published online 4 May 2018").year == 2018
    assert read_mastheads([], "", "出版日期：2012年").year == 2012


def test_arxiv_ids_give_20yy() -> None:
    assert arxiv_year("2004.04906") == 2020  # DPR: not 2004
    assert arxiv_year("1706.03762v5") == 2017
    m = read_mastheads(["arXiv:2004.04906v3 [cs.CL] 30 Sep 2020"], "arXiv:2004.04906v3 [cs.CL] 30 Sep 2020")
    assert (m.arxiv_id, m.year, m.year_how) == ("2004.04906v3", 2020, "arxiv")


def test_copyright_is_only_a_weak_fallback() -> None:
    m = read_mastheads([], "Some text\nCopyright © 2013 IEEE")
    assert (m.year, m.year_how) == (2013, "copyright")
    assert read_mastheads([], "本文 2006 年 1 月 9 日收到.").year is None


# --- names ---------------------------------------------------------------------------------------


def test_names_split_right() -> None:
    assert persons_in_line("J˛edrzej Kowalczuk, Eric T. Psota, and Lance C. Pérez") == [
        "Jędrzej Kowalczuk", "Eric T. Psota", "Lance C. Pérez"]  # fmt: skip
    assert persons_in_line("Ines Carvalho 1, Tomasz Wiśniewski 2 & Grace O'Donnell 1,3") == [
        "Ines Carvalho", "Tomasz Wiśniewski", "Grace O'Donnell"]  # fmt: skip
    assert to_name("Ludwig von Beethoven") == {"family": "von Beethoven", "given": "Ludwig"}
    assert to_name("SHANG Shu-Lin") == {"family": "Shang", "given": "Shu-Lin"}
    assert persons_in_line("王明远1)   陈思琪1)   刘  洋2)") == ["王明远", "陈思琪", "刘洋"]


def test_affiliations_emails_and_placeholders_are_not_people() -> None:
    assert persons_in_line("Department of Electrical Engineering, University of Nebraska-Lincoln") is None
    assert persons_in_line("{kylel, lucyw}@allenai.org") is None
    assert persons_in_line("Google, Inc.") is None
    assert persons_in_line("作者姓名") is None
    assert persons_in_line("第二章 第三章") is None


# --- provenance and confidence -------------------------------------------------------------------


def test_confidence_and_the_check_flag() -> None:
    strong, check = confidence({"title": "layout", "authors": "xmp", "year": "masthead"}, {"authors"})
    assert strong >= 0.85 and not check
    weak, check = confidence({"title": "info", "authors": "info"})
    assert weak < 0.5 and check
    assert confidence({"title": "user", "authors": "user", "year": "user"}) == (1.0, False)
    assert Metadata().sources == {}


def test_a_journal_logo_set_bigger_than_the_title_is_not_the_title(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        pdf.set_font("Helvetica", "B", 26)
        pdf.text(20, 20, "EMBO Reports")
        pdf.set_font("Helvetica", "", 8)
        pdf.text(20, 280, "EMBO Reports (2021) 22: e52185")
        centred(pdf, 45, "Kinase Signalling in Resting Cells", 17, "B")
        centred(pdf, 56, "Vladimir Karpukhin, Barlas Oguz and Wen-tau Yih", 11)
        centred(pdf, 62, "Facebook AI", 10)

    md = extract_pdf(make_pdf(tmp_path / "logo.pdf", draw)).metadata
    assert md.title == "Kinase Signalling in Resting Cells"
    assert md.authors == ["Vladimir Karpukhin", "Barlas Oguz", "Wen-tau Yih"]  # "Facebook AI" is no person
    assert (md.venue, md.csl["volume"], md.csl["page"], md.year) == ("EMBO Reports", "22", "e52185", 2021)


@pytest.mark.parametrize("label_first", [False, True])
def test_a_supplement_is_titled_with_its_paper_not_its_label(tmp_path: Path, label_first: bool) -> None:
    """A supplement's label is set biggest ("Supplementary Material"); the paper's title beside it
    (above it, or below it) is what a citation needs."""
    label, title = ("Supporting Information", "Kinase Signalling in Resting Cells") if label_first else (
        "Supplementary Material", "TableFormer: Table Structure Understanding with Transformers")

    def draw(pdf: FPDF) -> None:
        if label_first:
            centred(pdf, 40, label, 18, "B")
            centred(pdf, 50, title, 14, "B")
            centred(pdf, 60, "Ana Ruiz and Chidi Okafor", 11)
        else:
            centred(pdf, 40, title, 14, "B")
            centred(pdf, 49, label, 17)
        pdf.set_font("Helvetica", "B", 11)
        pdf.text(20, 80, "1. Details on the datasets")

    md = extract_pdf(make_pdf(tmp_path / "supp.pdf", draw)).metadata
    assert md.title == (f"{label} {title}" if label_first else f"{title} {label}")
    if label_first:
        assert md.authors == ["Ana Ruiz", "Chidi Okafor"]
