"""Generate PDFs with known metadata (page layout, Info dictionary and XMP) for the metadata benchmark.

The real truth set (tests/bench/data/metadata_truth.json) lacks some layouts an extractor must
handle; these synthetic papers cover them, each with its truth written next to it:

    .venv/bin/python tests/bench/make_metadata_pdfs.py OUT_DIR

writes OUT_DIR/syn01_*.pdf … and OUT_DIR/metadata_truth.json (same field names as the real truth
set, plus ``embedded``: what was put in the Info dictionary and the XMP packet, and ``layout``:
what the case is about). All names, journals and DOIs are invented; DOIs use the 10.5555 prefix,
which is set aside for examples. Needs fpdf2; the CJK cases need WenQuanYi Micro Hei
(fonts-wqy-microhei). Standalone: does not import paperpilot, and never writes into the repo
unless told to.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from fpdf import FPDF

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
SERIF_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
SANS = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
CJK = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
FIELDS = ["title", "authors", "year", "container_title", "volume", "issue", "pages", "doi", "arxiv_id"]

BODY_EN = (
    "This synthetic paper exists only to test how bibliographic metadata is read from a first page. "
    "Its body text is ordinary prose so that a layout analyser sees the usual mixture of a large "
    "title, a line of author names, affiliations in a smaller font and then paragraphs. None of the "
    "sentences here carry metadata, and an extractor should not take anything from them."
)
BODY_ZH = (
    "本文是为测试首页元数据提取而生成的样例。正文只是普通的段落文字，不包含任何题名、作者或刊名信息，"
    "提取程序不应从这里读取元数据。"
)


def P(family: str, given: str, **kw: Any) -> dict[str, Any]:
    return {"family": family, "given": given, **kw}


def L(literal: str, **kw: Any) -> dict[str, Any]:
    return {"literal": literal, **kw}


@dataclass
class Case:
    name: str
    layout: str
    truth: dict[str, Any]
    draw: Callable[[Doc, Case], None]
    info: dict[str, str] = field(default_factory=dict)
    xmp: dict[str, Any] | None = None


class Doc(FPDF):
    """FPDF with the fonts used here and a few drawing helpers (mm units, A4)."""

    def __init__(self) -> None:
        super().__init__(unit="mm", format="A4")
        self.set_auto_page_break(False)
        self.add_font("serif", "", SERIF)
        self.add_font("serif", "B", SERIF_BOLD)
        self.add_font("sans", "", SANS)
        if Path(CJK).exists():
            self.add_font("cjk", "", CJK, collection_font_number=0)
        self.add_page()

    def centred(self, y: float, text: str, size: float, family: str = "serif", style: str = "") -> None:
        self.set_font(family, style, size)
        self.text((self.w - self.get_string_width(text)) / 2, y, text)

    def names_with_marks(self, y: float, names: list[tuple[str, str]], size: float = 11,
                         sep: str = ", ", family: str = "serif") -> None:
        """One centred line of names, each followed by a raised superscript mark."""
        def width() -> float:
            total = 0.0
            for i, (n, m) in enumerate(names):
                self.set_font(family, "", size)
                total += self.get_string_width(n + (sep if i < len(names) - 1 else ""))
                self.set_font(family, "", size * 0.6)
                total += self.get_string_width(m)
            return total

        x = (self.w - width()) / 2
        for i, (n, m) in enumerate(names):
            self.set_font(family, "", size)
            self.text(x, y, n)
            x += self.get_string_width(n)
            self.set_font(family, "", size * 0.6)
            self.text(x, y - size * 0.13, m)
            x += self.get_string_width(m)
            if i < len(names) - 1:
                self.set_font(family, "", size)
                self.text(x, y, sep)
                x += self.get_string_width(sep)

    def body(self, y: float, text: str = BODY_EN, family: str = "serif", size: float = 10) -> None:
        self.set_xy(20, y)
        self.set_font(family, "", size)
        self.multi_cell(self.w - 40, size * 0.5, text)


# --------------------------------------------------------------------------- XMP
def xmp_packet(props: dict[str, Any]) -> str:
    """Build an <x:xmpmeta> packet: lists become rdf:Seq (dc:creator) or rdf:Bag, dc:title an rdf:Alt."""
    ns = {
        "dc": "http://purl.org/dc/elements/1.1/",
        "prism": "http://prismstandard.org/namespaces/basic/2.0/",
        "xmp": "http://ns.adobe.com/xap/1.0/",
        "pdf": "http://ns.adobe.com/pdf/1.3/",
    }
    body = []
    for key, value in props.items():
        if isinstance(value, list):
            kind = "Seq" if key == "dc:creator" else "Bag"
            items = "".join(f"<rdf:li>{escape(v)}</rdf:li>" for v in value)
            body.append(f"<{key}><rdf:{kind}>{items}</rdf:{kind}></{key}>")
        elif key in ("dc:title", "dc:description", "dc:rights"):
            body.append(f'<{key}><rdf:Alt><rdf:li xml:lang="x-default">{escape(value)}</rdf:li></rdf:Alt></{key}>')
        else:
            body.append(f"<{key}>{escape(value)}</{key}>")
    decls = " ".join(f'xmlns:{p}="{u}"' for p, u in ns.items())
    return ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            f'<rdf:Description rdf:about="" {decls}>' + "".join(body) +
            "</rdf:Description></rdf:RDF></x:xmpmeta>")


# --------------------------------------------------------------------------- cases
def draw_superscripts(d: Doc, c: Case) -> None:
    d.centred(40, "Sparse Attention for Very Long Clinical Notes", 17, style="B")
    d.names_with_marks(52, [("Amelia Hartwell", "1,*"), ("Rohan Mehta", "2"), ("Sofia Lindqvist", "1,3")])
    d.set_font("serif", "", 8.5)
    for i, aff in enumerate(["1 Department of Informatics, University of Eastfield, Eastfield, UK",
                             "2 Institute for Health Data, Northbridge, India",
                             "3 Centre for Language Technology, Uppsala, Sweden",
                             "* Correspondence: a.hartwell@eastfield.example"]):
        d.centred(60 + i * 4.5, aff, 8.5)
    d.centred(84, "Journal of Synthetic Medicine 7 (2022) 101-118", 9)
    d.body(95)


def draw_many_authors(d: Doc, c: Case) -> None:
    d.centred(34, "A Shared Benchmark for Cross-Lingual Retrieval", 17, style="B")
    line1 = [("Ana Souza", "1"), ("Benedikt Krause", "2"), ("Chen Wei", "3"), ("Dmitri Volkov", "1"),
             ("Elif Yıldız", "4"), ("Farah Haddad", "2"), ("Gustavo Pereira", "5")]
    line2 = [("Hanna Nowak", "3"), ("Ikechukwu Obi", "6"), ("Jonas de Vries", "1"), ("Kaito Tanaka", "4"),
             ("Laila Rahman", "2"), ("Mateo García-López", "5"), ("Nadia Petrova", "6")]
    d.names_with_marks(46, line1, size=9, sep=",  ")
    d.names_with_marks(52, line2, size=9, sep=",  ")
    d.centred(60, "1 Univ. A   2 Univ. B   3 Univ. C   4 Univ. D   5 Univ. E   6 Univ. F", 8)
    d.centred(70, "Proceedings of the 9th Workshop on Synthetic Benchmarks, pages 55-67", 8.5)
    d.centred(74.5, "Lisbon, Portugal, 4-6 October 2022", 8.5)
    d.body(84)


def draw_organisation(d: Doc, c: Case) -> None:
    d.set_font("sans", "", 9)
    d.text(20, 20, "Technical Report TR-2019-04")
    d.centred(45, "Guidelines for Archiving Research Software", 18, style="B")
    d.centred(58, "Open Science Working Group", 12)
    d.centred(64, "European Consortium for Research Infrastructure", 10)
    d.centred(72, "March 2019", 10)
    d.body(85)


def draw_chinese_article(d: Doc, c: Case) -> None:
    d.set_font("cjk", "", 9)
    d.text(20, 16, "第 12 卷 第 3 期")
    d.text(20, 21, "2019 年 6 月")
    d.centred(16, "计 算 机 研 究 学 报", 11, family="cjk")
    d.centred(21, "JOURNAL OF SYNTHETIC COMPUTING RESEARCH", 8, family="sans")
    d.set_font("sans", "", 8)
    d.text(d.w - 20 - d.get_string_width("Vol. 12 No. 3"), 16, "Vol. 12 No. 3")
    d.text(d.w - 20 - d.get_string_width("Jun. 2019"), 21, "Jun. 2019")
    d.line(20, 24, d.w - 20, 24)
    d.centred(40, "基于图神经网络的文献引用推荐方法", 16, family="cjk")
    d.names_with_marks(50, [("王明远", "1)"), ("陈思琪", "1)"), ("刘  洋", "2)")], size=11, sep="   ", family="cjk")
    d.centred(57, "1)(清华大学计算机科学与技术系, 北京 100084)", 8.5, family="cjk")
    d.centred(62, "2)(中国科学院计算技术研究所, 北京 100190)", 8.5, family="cjk")
    d.set_font("cjk", "", 9)
    d.text(20, 72, "摘  要  本文提出一种引用推荐方法。")
    d.text(20, 77, "关键词  引用推荐; 图神经网络; 文献检索")
    d.text(20, 82, "中图分类号  TP391        DOI: 10.5555/jscr.2019.03.007")
    d.centred(92, "Citation Recommendation with Graph Neural Networks", 11, family="serif", style="B")
    d.centred(98, "WANG Ming-Yuan1)  CHEN Si-Qi1)  LIU Yang2)", 9)
    d.body(106, BODY_ZH, family="cjk", size=9)
    d.set_font("cjk", "", 7.5)
    d.text(20, 280, "收稿日期: 2018-11-02; 修回日期: 2019-01-15")


def draw_masthead_pipe(d: Doc, c: Case) -> None:
    d.set_font("sans", "", 8.5)
    d.text(20, 15, "Journal of Synthetic Results | (2023) 14:5133")
    d.text(d.w - 20 - d.get_string_width("https://doi.org/10.5555/jsr.2023.5133"), 15,
           "https://doi.org/10.5555/jsr.2023.5133")
    d.set_font("sans", "", 9)
    d.text(20, 30, "Article")
    d.set_xy(20, 34)
    d.set_font("serif", "B", 18)
    d.multi_cell(d.w - 40, 8, "Coastal wetlands store more carbon than their area suggests", align="L")
    d.set_xy(20, 54)
    d.set_font("serif", "", 10.5)
    d.multi_cell(d.w - 40, 5, "Ines Carvalho 1, Tomasz Wiśniewski 2 & Grace O'Donnell 1,3", align="L")
    d.set_font("sans", "", 8)
    for i, t in enumerate(["Received: 9 January 2023", "Accepted: 2 August 2023",
                           "Published online: 23 August 2023"]):
        d.text(20, 70 + 4 * i, t)
    d.body(90)


def draw_published_vs_received(d: Doc, c: Case) -> None:
    d.centred(35, "Seasonal Drift in Urban Air Quality Sensors", 17, style="B")
    d.centred(46, "Priya Raman and Lucas Moreau", 11)
    d.centred(52, "Department of Environmental Engineering, Riverside Institute of Technology", 8.5)
    d.centred(62, "Received: 3 November 2020 / Revised: 20 January 2021 / Accepted: 8 February 2021", 8.5)
    d.centred(67, "Published: 12 March 2021", 8.5)
    d.centred(72, "Environmental Sensing Letters, Volume 5, Issue 2, Article 0217", 8.5)
    d.centred(76.5, "doi:10.5555/esl.2021.0217", 8.5)
    d.body(86)
    d.set_font("serif", "", 7.5)
    d.text(20, 285, "© 2020 The Authors. Submitted to Environmental Sensing Letters.")


def draw_arxiv_margin(d: Doc, c: Case) -> None:
    d.centred(36, "Retrieval-Augmented Decoding Without Retraining", 17, style="B")
    d.centred(47, "Martin Okafor*    Yuki Sato*    Helena Brandt", 11)
    d.centred(53, "Northlake University        Seaside Labs", 9)
    d.centred(58, "{mokafor, ysato}@northlake.example   helena@seaside.example", 8.5)
    d.centred(66, "Preprint. Under review.", 9)
    d.set_font("serif", "", 18)
    with d.rotation(90, 12, 200):
        d.set_text_color(120, 120, 120)
        d.text(12, 200, "arXiv:2305.01234v2  [cs.CL]  14 May 2023")
        d.set_text_color(0, 0, 0)
    d.body(76)
    d.set_font("serif", "", 7.5)
    d.text(20, 285, "* Equal contribution. Code will be released upon publication in 2024.")


def draw_xmp_full(d: Doc, c: Case) -> None:
    d.set_font("sans", "", 8.5)
    d.text(20, 15, "Annals of Synthetic Geology 41(6):877-893")
    d.centred(38, "Fault Creep Measured by Fibre-Optic Strain Cables", 16, style="B")
    d.centred(49, "Olga Ivanova, Pedro Alves, Mei Lin, Kwame Mensah and Sarah O'Neill", 10.5)
    d.centred(55, "Geophysics Laboratory, Highland University", 8.5)
    d.centred(61, "DOI: 10.5555/asg.41.6.877", 8.5)
    d.body(72)


def draw_info_wrong(d: Doc, c: Case) -> None:
    d.centred(38, "Weak Supervision for Table Question Answering", 17, style="B")
    d.centred(49, "Laura Bianchi, Omar Farouk, Ji-woo Park and Thomas Müller", 11)
    d.centred(55, "Institute for Data Science, Lakeside University", 8.5)
    d.centred(63, "In: Proceedings of the Conference on Synthetic Data (CSD 2020), pp. 210-219", 8.5)
    d.body(72)


def draw_running_head(d: Doc, c: Case) -> None:
    d.set_font("sans", "", 8)
    d.text(20, 14, "Yang et al. Synthetic Biology Reports (2024) 22:106")
    d.text(d.w - 20 - d.get_string_width("Page 1 of 12"), 14, "Page 1 of 12")
    d.set_font("sans", "", 9)
    d.text(20, 26, "RESEARCH ARTICLE")
    d.set_xy(20, 30)
    d.set_font("sans", "", 18)
    d.multi_cell(d.w - 40, 8, "Gene regulatory circuits in a minimal cell: a comparative analysis", align="L")
    d.set_xy(20, 50)
    d.set_font("sans", "", 10)
    d.multi_cell(d.w - 40, 5, "Wen Yang 1*, Marie-Claire Dubois 2, Jan van der Berg 1 and Aroha Ngata 3", align="L")
    d.body(66)
    d.set_font("sans", "", 7.5)
    d.text(20, 280, "*Correspondence: wen.yang@example.org")


def draw_zh_thesis(d: Doc, c: Case) -> None:
    d.centred(60, "硕士学位论文", 26, family="cjk")
    d.centred(95, "面向中文科技文献的术语抽取研究", 18, family="cjk")
    rows = [("作者姓名：", "赵文博"), ("指导教师：", "孙立群 教授"), ("学科专业：", "计算机应用技术"),
            ("培养单位：", "东江大学信息学院")]
    for i, (k, v) in enumerate(rows):
        d.set_font("cjk", "", 13)
        d.text(45, 140 + 12 * i, k)
        d.text(80, 140 + 12 * i, v)
    d.centred(230, "2018 年 5 月", 13, family="cjk")


CASES = [
    Case("syn01_single_column_superscripts", "single-column title; author line with superscript affiliation marks "
         "(1,* / 2 / 1,3); affiliations and an email below; journal line with volume/year/pages; Info has a "
         "file-name title",
         {"title": "Sparse Attention for Very Long Clinical Notes",
          "authors": [P("Hartwell", "Amelia"), P("Mehta", "Rohan"), P("Lindqvist", "Sofia")],
          "year": 2022, "container_title": "Journal of Synthetic Medicine", "volume": "7", "pages": "101-118",
          "language": "en", "type": "article-journal"},
         draw_superscripts, info={"Title": "clinical_notes_final_v3.docx", "Author": "ahartwell"}),
    Case("syn02_many_authors_two_lines", "14 authors over two lines with superscripts, diacritics (Yıldız, "
         "García-López) and a particle (de Vries); proceedings footer with pages",
         {"title": "A Shared Benchmark for Cross-Lingual Retrieval",
          "authors": [P("Souza", "Ana"), P("Krause", "Benedikt"), P("Wei", "Chen"), P("Volkov", "Dmitri"),
                      P("Yıldız", "Elif"), P("Haddad", "Farah"), P("Pereira", "Gustavo"), P("Nowak", "Hanna"),
                      P("Obi", "Ikechukwu"), P("de Vries", "Jonas", particle="de"), P("Tanaka", "Kaito"),
                      P("Rahman", "Laila"), P("García-López", "Mateo"), P("Petrova", "Nadia")],
          "year": 2022, "container_title": "Proceedings of the 9th Workshop on Synthetic Benchmarks",
          "pages": "55-67", "language": "en", "type": "paper-conference",
          "notes": "'Chen Wei' is printed given-first like the others, so family='Wei'."},
         draw_many_authors, info={"Author": "Ana Souza"}),
    Case("syn03_organisation_author", "a report whose author is an organisation (working group) with a parent "
         "organisation line; month-year date",
         {"title": "Guidelines for Archiving Research Software",
          "authors": [L("Open Science Working Group", organisation=True)],
          "year": 2019, "language": "en", "type": "report",
          "notes": "The second line 'European Consortium for Research Infrastructure' is the publisher/parent "
                   "body, not a second author. Report number TR-2019-04."},
         draw_organisation, info={"Author": "Open Science Working Group"}),
    Case("syn04_chinese_article", "Chinese journal article: 卷期 masthead (第 12 卷 第 3 期 / 2019 年 6 月), "
         "title, authors with 1) 2) marks, 单位 lines, 摘要/关键词, DOI line, English title and names, 收稿日期",
         {"title": "基于图神经网络的文献引用推荐方法",
          "title_en": "Citation Recommendation with Graph Neural Networks",
          "authors": [L("王明远"), L("陈思琪"), L("刘洋")],
          "authors_en": [P("Wang", "Ming-Yuan"), P("Chen", "Si-Qi"), P("Liu", "Yang")],
          "year": 2019, "container_title": "计算机研究学报",
          "container_abbrev": ["JOURNAL OF SYNTHETIC COMPUTING RESEARCH"], "volume": "12", "issue": "3",
          "doi": "10.5555/jscr.2019.03.007", "language": "zh", "type": "article-journal",
          "notes": "The journal name is letter-spaced ('计 算 机 研 究 学 报'); the third name is printed '刘  洋' "
                   "(two spaces); both are literals without spaces. 收稿日期 2018 is not the year."},
         draw_chinese_article),
    Case("syn05_masthead_pipe", "masthead 'Journal of Synthetic Results | (2023) 14:5133' with a DOI URL; "
         "left-aligned title over two lines; '&' before the last author; Received/Accepted/Published online",
         {"title": "Coastal wetlands store more carbon than their area suggests",
          "authors": [P("Carvalho", "Ines"), P("Wiśniewski", "Tomasz"), P("O'Donnell", "Grace")],
          "year": 2023, "container_title": "Journal of Synthetic Results", "volume": "14", "pages": "5133",
          "doi": "10.5555/jsr.2023.5133", "language": "en", "type": "article-journal",
          "notes": "The affiliation numbers follow the names on the baseline ('Ines Carvalho 1'); pages is the "
                   "article number."},
         draw_masthead_pipe, info={"Title": "s41467-023-05133", "Author": "Ines Carvalho"}),
    Case("syn06_published_vs_received", "Received 2020 / Revised / Accepted / Published 2021 line and a "
         "'© 2020' footer: the year is the Published one",
         {"title": "Seasonal Drift in Urban Air Quality Sensors",
          "authors": [P("Raman", "Priya"), P("Moreau", "Lucas")],
          "year": 2021, "container_title": "Environmental Sensing Letters", "volume": "5", "issue": "2",
          "pages": "0217", "doi": "10.5555/esl.2021.0217", "language": "en", "type": "article-journal"},
         draw_published_vs_received),
    Case("syn07_arxiv_margin", "arXiv id rotated in the left margin ('arXiv:2305.01234v2 [cs.CL] 14 May 2023'); "
         "equal-contribution stars; emails; a footnote mentioning 2024",
         {"title": "Retrieval-Augmented Decoding Without Retraining",
          "authors": [P("Okafor", "Martin"), P("Sato", "Yuki"), P("Brandt", "Helena")],
          "year": 2023, "arxiv_id": "2305.01234v2", "language": "en", "type": "preprint",
          "notes": "Year from the arXiv id/stamp (2305 -> 2023), not from the footnote's 2024."},
         draw_arxiv_margin),
    Case("syn08_xmp_full", "XMP carries the full dc:creator Seq, dc:title, prism:publicationName/volume/number/"
         "startingPage/endingPage/doi/coverDate; the page prints the same; Info has only the first author",
         {"title": "Fault Creep Measured by Fibre-Optic Strain Cables",
          "authors": [P("Ivanova", "Olga"), P("Alves", "Pedro"), P("Lin", "Mei"), P("Mensah", "Kwame"),
                      P("O'Neill", "Sarah")],
          "year": 2021, "container_title": "Annals of Synthetic Geology", "volume": "41", "issue": "6",
          "pages": "877-893", "doi": "10.5555/asg.41.6.877", "language": "en", "type": "article-journal",
          "notes": "The year is printed nowhere on the page; only XMP (prism:coverDate 2021-11-15) gives it."},
         draw_xmp_full, info={"Author": "Olga Ivanova", "Title": "Fault Creep Measured by Fibre-Optic Strain Cables"},
         xmp={"dc:title": "Fault Creep Measured by Fibre-Optic Strain Cables",
              "dc:creator": ["Olga Ivanova", "Pedro Alves", "Mei Lin", "Kwame Mensah", "Sarah O'Neill"],
              "dc:identifier": "doi:10.5555/asg.41.6.877",
              "prism:publicationName": "Annals of Synthetic Geology", "prism:volume": "41", "prism:number": "6",
              "prism:startingPage": "877", "prism:endingPage": "893", "prism:doi": "10.5555/asg.41.6.877",
              "prism:coverDate": "2021-11-15"}),
    Case("syn09_info_wrong_xmp_right", "Info dictionary is wrong (a Word file name as title, first author "
         "only); XMP has the right title and all creators; the page prints the proceedings line",
         {"title": "Weak Supervision for Table Question Answering",
          "authors": [P("Bianchi", "Laura"), P("Farouk", "Omar"), P("Park", "Ji-woo"), P("Müller", "Thomas")],
          "year": 2020, "container_title": "Proceedings of the Conference on Synthetic Data",
          "container_abbrev": ["CSD 2020"], "pages": "210-219", "language": "en", "type": "paper-conference"},
         draw_info_wrong, info={"Title": "Microsoft Word - draft7.docx", "Author": "Laura Bianchi"},
         xmp={"dc:title": "Weak Supervision for Table Question Answering",
              "dc:creator": ["Laura Bianchi", "Omar Farouk", "Ji-woo Park", "Thomas Müller"]}),
    Case("syn10_running_head", "BMC-style running head 'Yang et al. Synthetic Biology Reports (2024) 22:106' and "
         "'Page 1 of 12'; article type banner; hyphenated given name and the particle 'van der'",
         {"title": "Gene regulatory circuits in a minimal cell: a comparative analysis",
          "authors": [P("Yang", "Wen"), P("Dubois", "Marie-Claire"), P("van der Berg", "Jan", particle="van der"),
                      P("Ngata", "Aroha")],
          "year": 2024, "container_title": "Synthetic Biology Reports", "volume": "22", "pages": "106",
          "language": "en", "type": "article-journal"},
         draw_running_head),
    Case("syn11_zh_thesis_cover", "Chinese master's thesis cover: 硕士学位论文, title, 作者姓名, 指导教师 "
         "(a supervisor, not an author), 学科专业, 培养单位, 2018 年 5 月",
         {"title": "面向中文科技文献的术语抽取研究", "authors": [L("赵文博")], "year": 2018,
          "publisher": "东江大学信息学院", "language": "zh", "type": "thesis",
          "notes": "孙立群 is the supervisor (指导教师), not an author."},
         draw_zh_thesis),
]


def build(out: Path) -> list[dict[str, Any]]:
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for case in CASES:
        d = Doc()
        case.draw(d, case)
        if "Title" in case.info:
            d.set_title(case.info["Title"])
        if "Author" in case.info:
            d.set_author(case.info["Author"])
        d.set_creator("make_metadata_pdfs.py")
        # A fixed date keeps the output byte-identical between runs.
        d.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))
        if case.xmp:
            d.set_xmp_metadata(xmp_packet(case.xmp))
        path = out / f"{case.name}.pdf"
        d.output(str(path))
        truth = {k: None for k in FIELDS}
        truth.update({"authors": [], "language": None, "type": None})
        truth.update(case.truth)
        entry = {"file": path.name, **truth,
                 "not_printed": [f for f in FIELDS if truth.get(f) in (None, [])
                                 and not (case.xmp and f == "year" and "prism:coverDate" in case.xmp)],
                 "layout": case.layout,
                 "embedded": {"info": {"Creator": "make_metadata_pdfs.py", **case.info}, "xmp": case.xmp}}
        entries.append(entry)
    doc = {"comment": "Truth for the synthetic PDFs written by tests/bench/make_metadata_pdfs.py: the values "
                      "are what each page prints (and, where noted, what only the XMP gives). Field names as "
                      "in tests/bench/data/metadata_truth.json; 'embedded' records the Info and XMP written "
                      "into the file. All names, journals and DOIs (prefix 10.5555) are invented.",
           "scored_fields": FIELDS, "entries": entries}
    (out / "metadata_truth.json").write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return entries


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder to write the PDFs and metadata_truth.json into")
    args = ap.parse_args()
    if not Path(CJK).exists():
        print(f"missing CJK font {CJK} (apt-get install fonts-wqy-microhei)", file=sys.stderr)
        return 2
    entries = build(args.out)
    print(f"wrote {len(entries)} PDFs and metadata_truth.json to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
