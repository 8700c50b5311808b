"""Generate first pages in the layouts of real publishers, with their truth, for a held-out metadata test.

The real truth set has none of the journals researchers drop in most (Nature Communications,
BMC / Genome Biology, EMBO Reports, ACL anthology papers, arXiv preprints, old Chinese journals).
This module draws first pages that follow what those publishers print — mastheads and running
heads, article-type labels, "Check for updates", author lists with superscript affiliation
numbers, "*", "†", "✉" and ORCID icons, date lines, abstracts, affiliation footnotes, licence
boxes — with invented names, titles and numbers, and varies fonts, sizes, column layouts and what
is embedded (a correct XMP packet, the Info dictionary only, or a junk Info title such as
"Microsoft Word - paper.docx").

    .venv/bin/python tests/bench/make_publisher_pdfs.py OUT_DIR

writes OUT_DIR/<family>_<n>.pdf and OUT_DIR/metadata_truth.json (field names as in
tests/bench/data/metadata_truth.json, plus ``family``, ``split`` and ``embedded``). The split into
``tune`` and ``held_out`` is fixed by ``SPLIT_SEED`` per family, before anything is measured:
tune on the first, report the second. Every paper is derived from ``SEED`` and its index, so a
run writes the same files. Needs fpdf2 and WenQuanYi Micro Hei (fonts-wqy-microhei). Standalone:
does not import paperpilot (the unit tests import ``build_paper``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html import escape
from pathlib import Path
from typing import Any

from fpdf import FPDF

SEED = 1212
SPLIT_SEED = 4969
FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
FIELDS = ["title", "authors", "year", "container_title", "volume", "issue", "pages", "doi", "arxiv_id"]
# Face name → (regular file, bold file): the families a page may be set in.
FACES = {
    "serif": ("DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf"),
    "sans": ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf"),
    "condensed": ("DejaVuSansCondensed.ttf", "DejaVuSansCondensed-Bold.ttf"),
    "serifcond": ("DejaVuSerifCondensed.ttf", "DejaVuSerifCondensed-Bold.ttf"),
    "mono": ("DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf"),
}
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]  # fmt: skip

# Invented people: (given, family as a citation prints it).
PEOPLE = [
    ("Amelia", "Hartwell"), ("Rohan", "Mehta"), ("Sofia", "Lindqvist"), ("Tomás", "Ruiz"), ("Ingrid", "Solberg"),
    ("Kwame", "Asante"), ("Lucía", "Fernández"), ("Mateusz", "Kowalczyk"), ("Hannah", "Becker"),
    ("Youssef", "Benali"), ("Claire", "Dubois"), ("Jan", "van der Berg"), ("Aroha", "Ngata"), ("Nikolai", "Orlov"),
    ("Priya", "Raman"), ("Olivia", "Grant"), ("Émile", "Laurent"), ("Sven", "Eriksson"), ("Marta", "Nowicka"),
    ("Daniel", "O'Connor"), ("Grace", "Whitfield"), ("Felix", "Hoffmann"), ("Leila", "Haddad"),
    ("Ravi", "Subramanian"), ("Anna", "Kovács"), ("Pedro", "Alves"), ("Ji-woo", "Park"), ("Hiroshi", "Tanaka"),
    ("Mei", "Ito"), ("Ming", "Zhou"), ("Xiaoyu", "Chen"), ("Jun", "Li"), ("Wen", "Yang"), ("Hao", "Wu"),
    ("Lin", "Zhang"), ("Sarah J.", "Miller"), ("María", "de la Cruz"), ("Thomas", "Smith-Jones"),
    ("Barış", "Yılmaz"), ("Chloé", "Marchand"), ("Oluwaseun", "Adeyemi"), ("Karl", "Weber"), ("Elena", "Rossi"),
    ("David A.", "Fischer"), ("Yuki", "Sato"), ("Siddharth", "Kapoor"), ("Noor", "Al-Hassan"), ("Lars", "Nyström"),
]  # fmt: skip
ZH_PEOPLE = ["张津", "王明远", "李华", "刘洋", "陈思琪", "赵文博", "周建国", "欧阳晓明", "黄志强", "吴敏", "孙立群", "郭振宇"]
ZH_PINYIN = {"张津": "Zhang Jin", "王明远": "Wang Mingyuan", "李华": "Li Hua", "刘洋": "Liu Yang",
             "陈思琪": "Chen Siqi", "赵文博": "Zhao Wenbo", "周建国": "Zhou Jianguo", "欧阳晓明": "Ouyang Xiaoming",
             "黄志强": "Huang Zhiqiang", "吴敏": "Wu Min", "孙立群": "Sun Liqun", "郭振宇": "Guo Zhenyu"}  # fmt: skip
BIO_TITLES = [
    "Single-cell atlas of the regenerating axolotl limb reveals a transient progenitor state",
    "Mitochondrial fission couples nutrient sensing to stem cell quiescence",
    "A conserved enhancer controls seasonal flowering across temperate grasses",
    "Gut microbial metabolites modulate neutrophil swarming in zebrafish larvae",
    "Phase separation of a ribosomal protein organises the nucleolar periphery",
    "Long-read sequencing resolves structural variation in wild tomato genomes",
    "Chromatin accessibility dynamics during honeybee caste differentiation",
    "Ancient gene duplications shaped the venom repertoire of cone snails",
    "Cryo-EM structure of a bacterial flagellar motor stator in two states",
    "Temperature-dependent splicing regulates circadian output in Drosophila",
    "Loss of a lysosomal transporter drives age-related decline in muscle repair",
    "Comparative proteomics of coral symbionts under heat stress",
    "An atlas of transposable element expression across human tissues",
    "Spatial transcriptomics maps immune niches in the developing thymus",
]  # fmt: skip
NLP_TITLES = [
    "Contrastive Pretraining for Open-Domain Table Retrieval",
    "Learning to Ask Clarifying Questions in Task-Oriented Dialogue",
    "Compositional Generalization in Multilingual Semantic Parsing",
    "Faithful Summarization of Long Scientific Documents with Evidence Graphs",
    "Sparse Mixture Models for Low-Resource Machine Translation",
    "Probing Pretrained Encoders for Discourse Structure",
    "Efficient Dense Passage Retrieval with Product Quantization",
    "Calibrated Uncertainty for Extractive Question Answering",
    "Cross-Lingual Transfer of Named Entity Recognizers via Code-Switching",
    "Retrieval-Augmented Generation for Citation Recommendation",
]  # fmt: skip
ZH_TITLES = [
    ("航空发动机数字式电子控制系统研究", "STUDY ON DIGITAL ELECTRONIC CONTROL SYSTEM FOR AERO-ENGINES"),
    ("涡轮叶片气膜冷却效率的实验研究", "EXPERIMENTAL INVESTIGATION OF FILM COOLING EFFECTIVENESS ON TURBINE BLADES"),
    ("基于模糊逻辑的压气机喘振检测方法", "A FUZZY LOGIC METHOD FOR COMPRESSOR SURGE DETECTION"),
    ("燃烧室出口温度场的数值模拟", "NUMERICAL SIMULATION OF COMBUSTOR EXIT TEMPERATURE FIELD"),
    ("一种改进的自适应滤波算法及其应用", "AN IMPROVED ADAPTIVE FILTERING ALGORITHM AND ITS APPLICATION"),
    ("齿轮传动系统非线性动力学分析", "NONLINEAR DYNAMIC ANALYSIS OF GEAR TRANSMISSION SYSTEMS"),
]
ZH_JOURNALS = [
    # (Chinese name, English name, ISSN-like code, affiliations)
    ("航空动力学报", "JOURNAL OF AEROSPACE POWER", "1000-8055", ["北京航空航天大学 动力系，北京 100083", "南京航空航天大学 能源与动力学院，南京 210016"]),
    ("机械工程学报", "CHINESE JOURNAL OF MECHANICAL ENGINEERING", "0577-6686", ["清华大学 精密仪器系，北京 100084", "西安交通大学 机械工程学院，西安 710049"]),
    ("自动化学报", "ACTA AUTOMATICA SINICA", "0254-4156", ["中国科学院自动化研究所，北京 100080", "东北大学 信息科学与工程学院，沈阳 110004"]),
    ("计算机学报", "CHINESE JOURNAL OF COMPUTERS", "0254-4164", ["浙江大学 计算机科学与技术学院，杭州 310027", "复旦大学 计算机科学系，上海 200433"]),
]  # fmt: skip
AFFILIATIONS = [
    "Department of Molecular Biology, University of Eastfield, Eastfield, UK",
    "Institute of Genome Sciences, Northbridge University, Northbridge, USA",
    "Centre for Developmental Biology, Lakeside Institute of Technology, Lakeside, Canada",
    "Max Delbrück Laboratory for Cell Dynamics, Berlin, Germany",
    "School of Life Sciences, Riverside University, Shanghai, China",
    "Department of Computer Science, University of Westmoor, Westmoor, Ireland",
    "Faculty of Medicine, University of Coimbra Sul, Coimbra, Portugal",
    "Laboratory of Structural Biology, Kyoto Research Institute, Kyoto, Japan",
]  # fmt: skip
NLP_ORGS = ["Facebook AI", "Google Research", "Allen Institute for AI", "Microsoft Research Asia",
            "University of Washington", "Princeton University", "Carnegie Mellon University",
            "University of Edinburgh", "Tsinghua University", "University of Amsterdam"]  # fmt: skip
BODY = (
    "Here we report measurements that were repeated across independent replicates, and we describe the "
    "experimental design, the statistical tests and the resources that accompany the paper. The sentences of "
    "this paragraph carry no bibliographic information; an extractor must leave them alone and take the "
    "title, the authors and the citation only from the parts of the page that print them. "
)
BODY_ZH = "本文给出了实验结果与分析方法。正文段落中不包含题名、作者、刊名或出版日期等信息，提取程序不应从这里读取元数据。"
LICENCE = (
    "© The Author(s) {y}. Open Access This article is licensed under a Creative Commons Attribution 4.0 "
    "International License, which permits use, sharing, adaptation, distribution and reproduction in any "
    "medium or format, as long as you give appropriate credit to the original author(s) and the source."
)


def P(given: str, family: str) -> dict[str, str]:
    return {"family": family, "given": given}


def L(literal: str) -> dict[str, str]:
    return {"literal": literal}


@dataclass
class Paper:
    name: str
    family: str
    layout: str
    truth: dict[str, Any]
    draw: Callable[[Doc], None]
    info: dict[str, str] = field(default_factory=dict)
    xmp: dict[str, Any] | None = None


class Doc(FPDF):
    """FPDF (mm, A4) with every face registered and helpers that place runs of text by hand."""

    def __init__(self) -> None:
        super().__init__(unit="mm", format="A4")
        self.set_auto_page_break(False)
        self.set_margins(0, 0, 0)
        self._known: set[tuple[str, str]] = set()
        # TeX writes no space characters: each word is placed on its own and a reader infers
        # the spaces from the gaps. ``tex`` draws the page's short lines that way.
        self.tex = False
        # Affiliations for a stacked by-line (``byline``); empty: the by-line is one run.
        self.stacked: list[str] = []
        self.add_page()

    def words(self, x: float, y: float, text: str) -> None:
        """Text at (x, y) in the current font, word by word when ``tex`` is set."""
        if not self.tex or " " not in text.strip():
            self.text(x, y, text)
            return
        space = self.get_string_width(" ")
        for w in text.split(" "):
            if w:
                self.text(x, y, w)
            x += self.get_string_width(w) + space

    def set_font(self, family: str | None = None, style: str = "", size: float = 0) -> None:  # type: ignore[override]
        # Parsing a font file costs fpdf2 a noticeable time: register each face on first use only.
        if family and (family, style) not in self._known:
            self._known.add((family, style))
            if family == "cjk":
                self.add_font("cjk", style, CJK_FONT, collection_font_number=0)
            else:
                self.add_font(family, style, FONT_DIR + FACES[family][1 if style == "B" else 0])
        super().set_font(family, style, size)

    def at(self, x: float, y: float, text: str, size: float, face: str = "serif", style: str = "",
           align: str = "L", grey: int = 0) -> float:  # fmt: skip
        """Text with its baseline at y; ``align`` R puts its right edge at x, C its centre. Returns its width."""
        self.set_font(face, style, size)
        w = self.get_string_width(text)
        left = x - w if align == "R" else x - w / 2 if align == "C" else x
        self.set_text_color(grey, grey, grey)
        self.words(left, y, text)
        self.set_text_color(0, 0, 0)
        return w

    def runs(self, x0: float, x1: float, y: float, units: list[list[tuple[str, str]]], size: float,
             face: str = "serif", style: str = "", lead: float = 1.45, align: str = "L") -> float:  # fmt: skip
        """Lay out atomic units (a name with its marks and separator) between x0 and x1 from baseline y,
        wrapping between units. A run is (text, kind): kind "" normal, "sup" a raised mark, "orcid" an
        icon drawn as a filled circle (no text, as on real pages). Returns the next baseline."""

        def width(run: tuple[str, str]) -> float:
            text, kind = run
            if kind == "orcid":
                return size * 0.3528 * 0.85
            self.set_font(face, style, size * (0.62 if kind == "sup" else 1.0))
            return float(self.get_string_width(text))

        lines: list[list[tuple[str, str]]] = [[]]
        used = 0.0
        for unit in units:
            w = sum(width(r) for r in unit)
            if lines[-1] and used + w > x1 - x0:
                # A separator's trailing space does not count at the end of a line.
                lines.append([])
                used = 0.0
            lines[-1].extend(unit)
            used += w
        step = size * 0.3528 * lead
        for line in lines:
            while line and line[-1][1] == "" and not line[-1][0].strip():
                line.pop()
            total = sum(width(r) for r in line)
            x = x0 if align == "L" else (x0 + x1 - total) / 2
            for text, kind in line:
                w = width((text, kind))
                if kind == "orcid":
                    self.set_fill_color(166, 206, 57)
                    d = size * 0.3528 * 0.7
                    self.ellipse(x + 0.3, y - d - size * 0.08, d, d, style="F")
                elif kind == "sup":
                    self.set_font(face, style, size * 0.62)
                    self.text(x, y - size * 0.3528 * 0.38, text)
                else:
                    self.set_font(face, style, size)
                    self.words(x, y, text)
                x += w
            y += step
        return y

    def byline(self, x0: float, x1: float, y: float, units: list[list[tuple[str, str]]], size: float,
               face: str = "serif", style: str = "", align: str = "L") -> float:  # fmt: skip
        """The by-line: ``runs`` on a line, or with ``stacked`` one author a line, each with an
        affiliation line under it (as IEEE and many Chinese journals set it)."""
        if not self.stacked:
            return self.runs(x0, x1, y, units, size, face, style, align=align)
        for i, unit in enumerate(units):
            own = [r for r in unit if r[1] or r[0].strip(" ,，&") not in ("", "and")]
            y = self.runs(x0, x1, y, [own], size, face, style, align=align)
            aff = self.stacked[i % len(self.stacked)]
            y = self.runs(x0, x1, y - size * 0.1, [[(aff, "")]], size * 0.75, "cjk" if face == "cjk" else face,
                          align=align) + 1  # fmt: skip
        return y

    def para(self, x: float, y: float, w: float, text: str, size: float, face: str = "serif",
             style: str = "", lead: float = 1.35) -> float:  # fmt: skip
        """A wrapped paragraph whose first line's top is at y; returns the y below it."""
        self.set_xy(x, y)
        self.set_font(face, style, size)
        self.multi_cell(w, size * 0.3528 * lead, text, align="L")
        return float(self.get_y())

    def box(self, x: float, y: float, w: float, h: float, grey: int) -> None:
        self.set_fill_color(grey, grey, grey)
        self.rect(x, y, w, h, style="F")


def xmp_packet(props: dict[str, Any]) -> str:
    """An <x:xmpmeta> packet: lists become rdf:Seq (dc:creator) or rdf:Bag, dc:title an rdf:Alt."""
    ns = {"dc": "http://purl.org/dc/elements/1.1/", "prism": "http://prismstandard.org/namespaces/basic/2.0/",
          "xmp": "http://ns.adobe.com/xap/1.0/", "pdf": "http://ns.adobe.com/pdf/1.3/"}  # fmt: skip
    body = []
    for key, value in props.items():
        if isinstance(value, list):
            kind = "Seq" if key == "dc:creator" else "Bag"
            items = "".join(f"<rdf:li>{escape(v)}</rdf:li>" for v in value)
            body.append(f"<{key}><rdf:{kind}>{items}</rdf:{kind}></{key}>")
        elif key in ("dc:title", "dc:description"):
            body.append(f'<{key}><rdf:Alt><rdf:li xml:lang="x-default">{escape(value)}</rdf:li></rdf:Alt></{key}>')
        else:
            body.append(f"<{key}>{escape(value)}</{key}>")
    decls = " ".join(f'xmlns:{p}="{u}"' for p, u in ns.items())
    return ('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">'
            f'<rdf:Description rdf:about="" {decls}>' + "".join(body) + "</rdf:Description></rdf:RDF></x:xmpmeta>")


# --------------------------------------------------------------------------- shared pieces
def _people(rng: random.Random, n: int) -> list[tuple[str, str]]:
    return rng.sample(PEOPLE, n)


def _date(rng: random.Random, year: int, short: bool = False, after: int = 0) -> tuple[str, int]:
    month = rng.randint(max(1, after), 12) if after <= 12 else 12
    day = rng.randint(1, 28)
    name = MONTHS[month - 1][:3] if short else MONTHS[month - 1]
    return f"{day} {name} {year}", month


def _embed(rng: random.Random, mode: str, truth: dict[str, Any], people: list[str]) -> tuple[dict[str, str], dict[str, Any] | None]:
    """Info and XMP for one paper: "xmp" (a publisher's packet, everything right), "info" (Info title
    and first author only, as a word processor leaves them) or "junk" (a junk Info title and user)."""
    if mode == "xmp":
        xmp: dict[str, Any] = {"dc:title": truth["title"], "dc:creator": people}
        if truth.get("container_title"):
            xmp["prism:publicationName"] = truth["container_title"]
        for f, key in (("volume", "prism:volume"), ("issue", "prism:number"), ("doi", "prism:doi")):
            if truth.get(f):
                xmp[key] = truth[f]
        if truth.get("doi"):
            xmp["dc:identifier"] = "doi:" + truth["doi"]
        if truth.get("pages"):
            xmp["prism:startingPage"] = truth["pages"].split("-")[0]
        if truth.get("year"):
            xmp["prism:coverDate"] = f"{truth['year']}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        return {"Title": truth["title"], "Author": "; ".join(people)}, xmp
    if mode == "info":
        return {"Title": truth["title"], "Author": people[0]}, None
    junk = rng.choice(["untitled", "Microsoft Word - paper.docx", "Microsoft Word - manuscript_final_v3.doc",
                       "main.dvi", "s41467-023-0001.indd"])  # fmt: skip
    return {"Title": junk, "Author": rng.choice(["Administrator", "user", "jdoe"])}, None


# The hazard of the paper being built (batch 3), -1 for the others; set by build_paper.
_HAZARD = {"now": -1}


def _marks(rng: random.Random, n: int, n_aff: int, extra: str = "") -> list[str]:
    out = []
    for _ in range(n):
        k = sorted(rng.sample(range(1, n_aff + 1), rng.choice([1, 1, 2]) if n_aff > 1 else 1))
        # Hazard 3: affiliation letters (a, b, c) as Elsevier sets them, not numbers.
        out.append(",".join("abcdefgh"[i - 1] if _HAZARD["now"] == 3 else str(i) for i in k))
    return out


def _pick_title(rng: random.Random, pool: list[str]) -> str:
    title = rng.choice(pool)
    # Hazard 0: a title set in capitals, as older journals and some conferences print it.
    return title.upper() if _HAZARD["now"] == 0 else title


# --------------------------------------------------------------------------- Nature Communications
def nature(rng: random.Random, k: int) -> Paper:
    year = rng.choice([2021, 2022, 2023, 2024])
    vol = year - 2009
    art = str(rng.randint(1000, 8999))
    variant = k % 4 if hard("nature", k) else -1
    n = 1 if variant == 1 else 13 if variant == 2 else rng.randint(3, 9)
    people = _people(rng, n)
    n_aff = rng.randint(2, 5)
    marks = _marks(rng, n, n_aff)
    corr = {n - 1} | ({0} if rng.random() < 0.5 else set())
    group = "the Coral Reef Genomics Consortium" if variant == 0 else ""
    orcid = {i for i in range(n) if rng.random() < 0.4}
    title = _pick_title(rng, BIO_TITLES)
    doi = f"10.1038/s41467-{year % 100:03d}-{rng.randint(10000, 49999)}-{rng.choice('0123456789xyz')}"
    # Received in the year before when the paper came out early in its year.
    rec_year = year - 1 if rng.random() < 0.6 else year
    received, _m1 = _date(rng, rec_year, short=True)
    accepted, m2 = _date(rng, year, short=True, after=1)
    published, _ = _date(rng, year, short=True, after=m2)
    face = rng.choice(["sans", "condensed"])
    tsize = rng.choice([19, 21, 23])
    baseline_env = rng.random() < 0.5
    masthead = f"Nature Communications | ({year}) {vol}:{art}"
    truth = {"title": title, "authors": [P(g, f) for g, f in people] + ([L(group[4:])] if group else []),
             "year": year, "container_title": "Nature Communications", "volume": str(vol), "pages": art, "doi": doi,
             "container_abbrev": ["Nat Commun"]}  # fmt: skip

    def draw(d: Doc) -> None:
        d.at(18, 16, "nature communications", 20, "sans", "B")
        d.at(18, 26, "Article", 9, face, "B")
        d.at(192, 26, f"https://doi.org/{doi}", 8, face, align="R")
        d.set_xy(18, 32)
        d.set_font(face, "B", tsize)
        d.multi_cell(174, tsize * 0.3528 * 1.15, title, align="L")
        top = d.get_y() + 6
        units = []
        for i, (g, f) in enumerate(people):
            u: list[tuple[str, str]] = [(f"{g} {f}", ""), (marks[i], "sup")]
            if i in orcid:
                u.append(("", "orcid"))
            if i in corr:
                u.append((" ✉", "" if baseline_env else "sup"))
            sep = " & " if i == n - 2 and not group else ", " if i < n - 1 else ""
            u.append((sep, ""))
            units.append(u)
        if group:
            units[-1].append((" & ", ""))
            units.append([(group, "")])
        y = d.byline(70, 192, top + 4, units, 10.5, face)
        y = d.para(70, y + 2, 122, BODY * 2, 9.5, face, "B")
        dy = top + 4
        for label, value in (("Received:", received), ("Accepted:", accepted), ("Published online:", published)):
            d.at(18, dy, f"{label} {value}", 7.5, face)
            dy += 4.2
        d.box(18, dy + 1, 4, 4, 120)
        d.at(24, dy + 4.3, "Check for updates", 7, face)
        d.para(18, y + 4, 174, BODY * 2, 9, "serif")
        foot = "; ".join(f"{i + 1}{AFFILIATIONS[i % len(AFFILIATIONS)]}" for i in range(n_aff))
        emails = ", ".join(f"{people[i][1].lower().replace(' ', '')}@example.org" for i in sorted(corr))
        d.para(18, 262, 174, foot + f".  ✉e-mail: {emails}", 6.5, face)
        d.at(18, 287, masthead, 7.5, face)
        d.at(192, 287, "1", 7.5, face, align="R")

    return Paper(f"nature_{k}", "nature", "Nature Communications 2021+: wordmark, Article label, DOI URL, title, "
                 "dates column with Check for updates beside authors (✉, ORCID icons), masthead footer",
                 truth, draw, *(_embed(rng, rng.choice(["xmp", "info", "junk"]), truth, [f"{g} {f}" for g, f in people])))


# --------------------------------------------------------------------------- BMC / Genome Biology
BMC_JOURNALS = [("BMC Biology", "s12915"), ("Genome Biology", "s13059"), ("BMC Genomics", "s12864"),
                ("BMC Ecology and Evolution", "s12862")]  # fmt: skip


def bmc(rng: random.Random, k: int) -> Paper:
    journal, code = BMC_JOURNALS[k % len(BMC_JOURNALS)]
    year = rng.choice([2014, 2019, 2022, 2023, 2024]) if k != 3 else 2015
    vol = {"BMC Biology": year - 2002, "Genome Biology": year - 1999, "BMC Genomics": year - 1999}.get(journal, year - 2000)
    art = str(rng.randint(10, 420))
    variant = k % 4 if hard("bmc", k) else -1
    n = 1 if variant == 0 else rng.choice([2, 3, 4, 6, 8]) if k != 1 else 2
    people = _people(rng, n)
    if variant == 3:
        people[0] = ("María", "de la Cruz")
        people[-1] = ("Sarah J.", "Miller")
    if variant == 2:
        year = 2013
    n_aff = rng.randint(1, 4)
    marks = _marks(rng, n, n_aff)
    corr = {n - 1} | ({0} if rng.random() < 0.4 else set())
    equal = {0, 1} if n > 2 and rng.random() < 0.6 else set()
    vol = {"BMC Biology": year - 2002, "Genome Biology": year - 1999, "BMC Genomics": year - 1999}.get(journal, year - 2000)
    fam0 = people[0][1]
    who = f"{fam0} et al." if n > 2 else f"{fam0} and {people[1][1]}" if n == 2 else fam0
    old = year < 2016
    head = f"{who} {journal} {year}, {vol}:{art}" if old else f"{who} {journal} ({year}) {vol}:{art}"
    doi = f"10.1186/{code}-{year % 100:03d}-{rng.randint(1000, 9999):05d}-{rng.randint(0, 9)}"
    title = _pick_title(rng, BIO_TITLES)
    label = rng.choice(["RESEARCH", "RESEARCH ARTICLE", "METHOD", "SOFTWARE"])
    face = rng.choice(["sans", "condensed", "serif"])
    tsize = rng.choice([17, 18.5, 20])
    truth = {"title": title, "authors": [P(g, f) for g, f in people], "year": year, "container_title": journal,
             "volume": str(vol), "pages": art, "doi": doi}  # fmt: skip

    def draw(d: Doc) -> None:
        d.at(18, 14, head, 7.5, face)
        d.at(18, 18, f"https://doi.org/{doi}" if not old else f"http://www.biomedcentral.com/{vol}/{art}", 7.5, face)
        if old:
            d.at(192, 14, f"Page 1 of {rng.randint(8, 20)}", 7.5, face, align="R")
        else:
            d.at(192, 17, journal, 12, "sans", "B", align="R")
        d.box(18, 24, 30 if len(label) < 10 else 40, 6, 60)
        d.set_text_color(255, 255, 255)
        d.set_font(face, "B", 8)
        d.text(20, 28.3, label)
        d.set_text_color(0, 0, 0)
        d.at(192, 28.3, "Open Access", 8.5, face, "B", align="R")
        d.set_xy(18, 36)
        d.set_font(face, "B", tsize)
        d.multi_cell(174, tsize * 0.3528 * 1.2, title, align="L")
        units = []
        for i, (g, f) in enumerate(people):
            m = marks[i] + ("†" if i in equal else "") + ("*" if i in corr else "")
            u = [(f"{g} {f}", ""), (m, "sup")]
            if i in corr and rng.random() < 0.5:
                u.append(("", "orcid"))
            u.append((" and " if i == n - 2 else ", " if i < n - 1 else "", ""))
            units.append(u)
        y = d.byline(18, 192, d.get_y() + 6, units, 10.5, face)
        d.at(18, y + 4, "Abstract", 11, face, "B")
        y = y + 7
        for part in ("Background:", "Results:", "Conclusions:"):
            y = d.para(18, y, 174, f"{part} {BODY}", 8.8, face) + 1.5
        d.para(18, y, 174, "Keywords: Gene regulation, Evolution, Single-cell sequencing, Chromatin", 8.8, face)
        fy = 240
        lines = ["*Correspondence: " + "; ".join(f"{people[i][1].lower().replace(' ', '')}@example.ac.uk" for i in sorted(corr))]
        if equal:
            lines.append(f"†{people[0][0]} {people[0][1]} and {people[1][0]} {people[1][1]} contributed equally to this work.")
        lines.append(f"1 {AFFILIATIONS[k % len(AFFILIATIONS)]}")
        lines.append("Full list of author information is available at the end of the article")
        if old or rng.random() < 0.5:
            r, _m = _date(rng, year - (1 if rng.random() < 0.5 else 0))
            a, _m = _date(rng, year)
            lines.insert(0, f"Received: {r}  Accepted: {a}")
        for ln in lines:
            d.at(18, fy, ln, 6.8, face)
            fy += 3.4
        d.para(18, fy + 2, 174, LICENCE.format(y=year), 6.2, face)

    info, xmp = _embed(rng, rng.choice(["xmp", "info", "junk"]), truth, [f"{g} {f}" for g, f in people])
    if old and xmp is None:
        truth["doi"] = None  # an old page prints the journal's URL, not the DOI
    return Paper(f"bmc_{k}", "bmc", "BMC / Genome Biology: running head with 'et al.' (or 'A and B' for two "
                 "authors; 'Journal 2014, 12:45' in old issues), RESEARCH box and Open Access, authors with † and *, "
                 "structured abstract, correspondence and licence footnotes", truth, draw, info, xmp)


# --------------------------------------------------------------------------- EMBO Reports
def embo(rng: random.Random, k: int) -> Paper:
    year = rng.choice([2019, 2020, 2021, 2022, 2023])
    vol = year - 1999
    num = f"e{rng.randint(47000, 56999)}"
    variant = k % 4 if hard("embo", k) else -1
    n = 1 if variant == 3 else 14 if variant == 2 else rng.randint(3, 8)
    people = _people(rng, n)
    n_aff = rng.randint(2, 5)
    marks = _marks(rng, n, n_aff)
    corr = {n - 1}
    equal = {0, 1} if rng.random() < 0.5 and n > 1 else set()
    doi = f"10.15252/embr.{year - 1}{num[1:]}"
    title = _pick_title(rng, BIO_TITLES)
    face = rng.choice(["sans", "condensed"])
    tsize = rng.choice([20, 22, 24])
    received, _m = _date(rng, year - 1)
    revised, _m = _date(rng, year, after=1)
    accepted, m3 = _date(rng, year, after=2)
    published, _m = _date(rng, year, after=m3)
    truth = {"title": title, "authors": [P(g, f) for g, f in people], "year": year, "container_title": "EMBO Reports",
             "container_abbrev": ["EMBO reports", "EMBO Rep"], "volume": str(vol), "pages": num, "doi": doi}  # fmt: skip

    def draw(d: Doc) -> None:
        d.box(18, 12, 3, 9, 200)
        d.at(23, 19, "Article", 12, face, "B")
        d.at(192, 19, "EMBO reports", 13, "sans", "B", align="R", grey=90)
        for i, badge in enumerate(["Source Data", "Transparent Process"][: rng.randint(1, 2)]):
            d.at(192, 26 + 4 * i, badge, 6.5, face, align="R", grey=100)
        d.set_xy(18, 34)
        d.set_font(face, "B", tsize)
        d.multi_cell(150, tsize * 0.3528 * 1.12, title, align="L")
        units = []
        for i, (g, f) in enumerate(people):
            m = marks[i] + (",†" if i in equal else "") + (",*" if i in corr else "")
            units.append([(f"{g} {f}", ""), (m, "sup"), (" & " if i == n - 2 else ", " if i < n - 1 else "", "")])
        y = d.byline(18, 170, d.get_y() + 7, units, 11, face)
        d.at(18, y + 3, "Abstract", 9, face, "B")
        y = d.para(18, y + 5, 120, BODY * 2, 8.8, face)
        y = d.para(18, y + 2, 120, "Keywords autophagy; lysosome; stem cells; ageing", 7.5, face)
        y = d.para(18, y + 1, 120, "Subject Categories Autophagy & Cell Death; Development", 7.5, face)
        dates = [f"DOI {doi}", f"Received {received}"]
        if rng.random() < 0.7:
            dates.append(f"Revised {revised}")
        dates += [f"Accepted {accepted}", f"Published online {published}"]
        y = d.para(18, y + 1, 120, " | ".join(dates), 7.5, face)
        if variant != 1:  # the 2019-2020 pages print the citation only in the footer
            d.at(18, y + 3.5, f"EMBO Reports ({year}) {vol}: {num}", 7.5, face)
        fy = 250
        for i in range(n_aff):
            d.at(18, fy, f"{i + 1}  {AFFILIATIONS[(i + k) % len(AFFILIATIONS)]}", 6.5, face)
            fy += 3.2
        d.at(18, fy, f"*Corresponding author. Tel: +49 30 {rng.randint(1000000, 9999999)}; E-mail: "
                     f"{people[n - 1][1].lower().replace(' ', '')}@example.de", 6.5, face)  # fmt: skip
        if equal:
            d.at(18, fy + 3.2, "†These authors contributed equally to this work", 6.5, face)
        d.at(18, 287, f"© {year} The Authors", 7, face)
        d.at(105, 287, f"EMBO reports {vol}: {num} | {year}", 7, face, align="C")
        d.at(192, 287, f"1 of {rng.randint(12, 24)}", 7, face, align="R")

    return Paper(f"embo_{k}", "embo", "EMBO Reports (EMBO Press/Wiley): Article label, wordmark, Source Data badge, "
                 "authors with numbers, † and * after commas, DOI | Received | Revised | Accepted | Published online, "
                 "citation line, © footer 'EMBO reports 23: e54321 | 2022'", truth, draw,
                 *(_embed(rng, rng.choice(["xmp", "info", "junk"]), truth, [f"{g} {f}" for g, f in people])))


# --------------------------------------------------------------------------- ACL anthology
ACL_VENUES = [
    ("Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics", "July 5 - 10, 2020", 2020, []),
    ("Proceedings of the 2020 Conference on Empirical Methods in Natural Language Processing", "November 16–20, 2020", 2020, []),
    ("Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational "
     "Linguistics: Human Language Technologies, Volume 1 (Long and Short Papers)", "Minneapolis, Minnesota, June 2 - June 7, 2019", 2019,
     ["Proceedings of the 2019 Conference of the North American Chapter of the Association for Computational "
      "Linguistics: Human Language Technologies"]),
    ("Findings of the Association for Computational Linguistics: EMNLP 2021", "November 7–11, 2021", 2021, []),
    ("Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)",
     "July 9-14, 2023", 2023, ["Proceedings of the 61st Annual Meeting of the Association for Computational Linguistics"]),
]  # fmt: skip


def acl(rng: random.Random, k: int) -> Paper:
    venue, dates, year, alts = ACL_VENUES[k % len(ACL_VENUES)]
    first = rng.randint(100, 7800)
    last = first + rng.randint(8, 15)
    variant = k % 4 if hard("acl", k) else -1
    n = 6 if variant == 0 else rng.choice([2, 3, 4, 5, 6])
    people = _people(rng, n)
    if variant == 1:
        people[0] = ("Noah A.", "Whitcombe")
        people[-1] = ("David A.", "Fischer")
    title = _pick_title(rng, NLP_TITLES)
    grid = variant == 0 or (rng.random() < 0.6 and n <= 4)
    face = rng.choice(["serif", "serifcond"])
    truth = {"title": title, "authors": [P(g, f) for g, f in people], "year": year, "container_title": venue,
             "container_abbrev": alts, "pages": f"{first}-{last}"}  # fmt: skip

    def draw(d: Doc) -> None:
        y = d.runs(25, 185, 30, [[(w + " ", "")] for w in title.split()], 15, face, "B", lead=1.25, align="C")
        y += 3
        orgs = rng.sample(NLP_ORGS, 3)
        if grid:
            # One column per author: name, affiliation, e-mail (two rows when there are four).
            per_row = 2 if n == 4 else 3 if n == 6 else n
            for r in range(0, n, per_row):
                row = people[r : r + per_row]
                width = 160 / len(row)
                for j, (g, f) in enumerate(row):
                    cx = 25 + width * (j + 0.5)
                    d.at(cx, y, f"{g} {f}", 12, face, "B", align="C")
                    d.at(cx, y + 5, orgs[(r + j) % 3], 11, face, align="C")
                    d.at(cx, y + 10, f"{g.split()[0].lower()}@{orgs[(r + j) % 3].split()[0].lower()}.edu", 9.5,
                         "mono", align="C")  # fmt: skip
                y += 17
        else:
            marks = ["∗" if i < 2 else "†" if i % 2 else "‡" for i in range(n)]
            seps = [" and " if variant == 1 and i == n - 2 else ", " if i < n - 1 else "" for i in range(n)]
            units = [[(f"{g} {f}", ""), (marks[i], "sup"), (seps[i], "")] for i, (g, f) in enumerate(people)]
            y = d.byline(25, 185, y, units, 12, face, "B", align="C")
            d.at(105, y, f"{orgs[0]}   †{orgs[1]}   ‡{orgs[2]}", 11, face, align="C")
            d.at(105, y + 5, "{" + ", ".join(g.split()[0].lower() for g, _f in people[:2]) + "}@example.com", 9.5,
                 "mono", align="C")  # fmt: skip
            y += 12
        d.at(62, y + 6, "Abstract", 12, face, "B", align="C")
        # The columns end above the footer (text over the footer is no real page).
        d.para(25, y + 9, 75, BODY * 2, 10, face)
        d.para(110, 75, 75, BODY * 3, 10, face)
        d.set_draw_color(0, 0, 0)
        if len(venue) < 110:
            d.at(105, 274, venue + f", pages {first}–{last}", 8.5, face, align="C")
        else:
            d.at(105, 270, venue + ",", 8.5, face, align="C")
            d.at(105, 274, f"pages {first}–{last},", 8.5, face, align="C")
        d.at(105, 278, f"{dates}. ©{year} Association for Computational Linguistics", 8.5, face, align="C")
        d.at(105, 286, str(first), 10, face, align="C")

    mode = rng.choice(["info", "junk", "info"])
    return Paper(f"acl_{k}", "acl", "ACL anthology: centred title, authors in a column grid (name, affiliation, "
                 "e-mail) or one line with ∗ † ‡ and affiliations below, proceedings footer with pages and dates",
                 truth, draw, *(_embed(rng, mode, truth, [f"{g} {f}" for g, f in people])))


# --------------------------------------------------------------------------- arXiv preprints
def arxiv(rng: random.Random, k: int) -> Paper:
    year = rng.choice([2018, 2019, 2020, 2021, 2022, 2023])
    month = rng.randint(1, 12)
    aid = f"{year % 100:02d}{month:02d}.{rng.randint(1000, 19999):05d}"
    ver = rng.randint(1, 3)
    cat = rng.choice(["cs.CL", "cs.LG", "cs.IR", "q-bio.GN"])
    day = rng.randint(1, 28)
    stamp_month = MONTHS[min(12, month + ver - 1) - 1][:3]
    stamp = f"arXiv:{aid}v{ver}  [{cat}]  {day} {stamp_month} {year}"
    if hard("arxiv", k) and k % 4 == 0:  # an old-style id: archive/YYMMNNN
        year, month = 2006, 11
        aid, cat = f"cs/0611{rng.randint(100, 999):03d}", "cs.IR"
        stamp = f"arXiv:{aid}v{ver}  [{cat}]  {day} Nov {year}"
    n = rng.choice([3, 4, 5, 6, 7])
    people = _people(rng, n)
    title = _pick_title(rng, NLP_TITLES)
    style = ["neurips", "dpr", "physics"][k % 3]
    face = rng.choice(["serif", "sans", "serifcond"])
    truth = {"title": title, "authors": [P(g, f) for g, f in people], "year": year, "arxiv_id": f"{aid}v{ver}"}

    def draw(d: Doc) -> None:
        with d.rotation(90, 12, 190):
            d.at(12, 190, stamp, 20, "serif", grey=128)
        if style == "neurips":
            d.set_fill_color(0, 0, 0)
            d.rect(25, 22, 160, 1.0, style="F")
            y = d.runs(25, 185, 33, [[(w + " ", "")] for w in title.split()], 17, face, "B", lead=1.2, align="C")
            d.rect(25, y - 3, 160, 0.3, style="F")
            y += 6
            per_row = 3
            orgs = rng.sample(NLP_ORGS, n)
            for r in range(0, n, per_row):
                row = people[r : r + per_row]
                w = 160 / len(row)
                for j, (g, f) in enumerate(row):
                    cx = 25 + w * (j + 0.5)
                    d.at(cx, y, f"{g} {f}" + ("∗" if r + j < 2 else ""), 10, face, "B", align="C")
                    d.at(cx, y + 4.5, orgs[r + j], 10, face, align="C")
                    d.at(cx, y + 9, f"{f.lower().replace(' ', '')}@example.org", 9, "mono", align="C")
                y += 15
            d.at(105, y + 4, "Abstract", 12, face, "B", align="C")
            d.para(40, y + 7, 130, BODY * 2, 10, face)
            d.at(25, 284, "Preprint. Under review.", 8, face)
            d.at(25, 280, "∗Equal contribution.", 8, face)
        elif style == "dpr":
            y = d.runs(25, 185, 30, [[(w + " ", "")] for w in title.split()], 15, face, "B", lead=1.25, align="C")
            marks = ["∗" if i < 2 else "†" if i % 2 else "‡" for i in range(n)]
            units = [[(f"{g} {f}", ""), (marks[i], "sup"), (", " if i < n - 1 else "", "")] for i, (g, f) in enumerate(people)]
            y = d.byline(25, 185, y + 3, units, 12, face, "B", align="C")
            orgs = rng.sample(NLP_ORGS, 3)
            d.at(105, y, f"{orgs[0]}   †{orgs[1]}   ‡{orgs[2]}", 11, face, align="C")
            d.at(105, y + 5, "{" + ", ".join(f.lower().replace(" ", "") for _g, f in people[:2]) + "}@example.com", 9.5,
                 "mono", align="C")  # fmt: skip
            d.at(62, y + 14, "Abstract", 12, face, "B", align="C")
            d.para(25, y + 17, 75, BODY * 2, 10, face)
            d.para(110, y + 10, 75, BODY * 2, 10, face)
            d.at(25, 284, f"∗Equal contribution. Code released in {year + 1}.", 8, face)
        else:
            y = d.runs(25, 185, 34, [[(w + " ", "")] for w in title.split()], 13, face, "B", lead=1.3, align="C")
            units = []
            for i, (g, f) in enumerate(people):
                m = f"{(i % 3) + 1}" + (",∗" if i == 0 else "")
                sep = ", and " if i == n - 2 else ", " if i < n - 1 else ""
                units.append([(f"{g} {f}", ""), (m, "sup"), (sep, "")])
            y = d.byline(30, 180, y + 3, units, 10, face, align="C")
            for i in range(3):
                d.at(105, y + 4.2 * i, f"{i + 1}{AFFILIATIONS[(i + k) % len(AFFILIATIONS)]}", 8.5, face, align="C")
            d.at(105, y + 16, f"(Dated: {MONTHS[month - 1]} {day}, {year})", 9, face, align="C")
            d.para(35, y + 22, 140, BODY * 2, 9.5, face)

    return Paper(f"arxiv_{k}", "arxiv", "arXiv preprint: rotated side stamp arXiv:YYMM.NNNNNvN [cat] date; NeurIPS-"
                 "style author grid, DPR-style marked by-line with organisation affiliations, or physics style with "
                 "'and' and (Dated: …)", truth, draw,
                 *(_embed(rng, rng.choice(["info", "junk", "junk"]), truth, [f"{g} {f}" for g, f in people])))


# --------------------------------------------------------------------------- old Chinese journals
def chinese(rng: random.Random, k: int) -> Paper:
    zh, en, issn, affs = ZH_JOURNALS[k % len(ZH_JOURNALS)]
    if k == 0:  # the paper the issue names: 航空动力学报, 1994, 第 9 卷第 4 期, 张津
        zh, en, issn, affs = ZH_JOURNALS[0]
        year, vol, issue, people = 1994, 9, 4, ["张津"]
        title, title_en = ZH_TITLES[0]
    else:
        year = rng.randint(1988, 2006)
        vol = year - rng.choice([1985, 1975, 1978])
        issue = rng.randint(1, 6)
        people = rng.sample(ZH_PEOPLE, rng.randint(1, 4))
        title, title_en = rng.choice(ZH_TITLES[1:])
    month = min(12, issue * 2)
    first = rng.randint(300, 600)
    spaced = rng.random() < 0.6
    one_line = k % 2 == 1
    with_code = year >= 1999 or k == 0
    spaced_names = rng.random() < 0.6
    variant = k % 4 if hard("chinese", k) else -1
    if variant in (1, 3):
        people = rng.sample(ZH_PEOPLE, 4 if variant == 3 else 2)
        spaced_names = variant == 3
    tight = variant == 0
    truth = {"title": title, "authors": [L(p) for p in people], "year": year, "container_title": zh,
             "container_abbrev": [en, en.title()], "volume": str(vol), "issue": str(issue)}  # fmt: skip

    def draw(d: Doc) -> None:
        jname = " ".join(zh) if spaced else zh
        if one_line:
            d.at(105, 15, f"{jname}    第 {vol} 卷 第 {issue} 期    {year} 年 {month} 月", 9, "cjk", align="C")
            d.at(105, 20, f"{en}    Vol. {vol} No. {issue}    {MONTHS[month - 1][:3]}. {year}", 7, "serif", align="C")
        else:
            d.at(20, 15, f"第{vol}卷第{issue}期" if tight else f"第 {vol} 卷 第 {issue} 期", 9, "cjk")
            d.at(105, 15, jname, 11, "cjk", "B", align="C")
            d.at(190, 15, f"Vol. {vol} No. {issue}", 8, "serif", align="R")
            d.at(20, 20, f"{year} 年 {month} 月", 9, "cjk")
            d.at(105, 20, en, 7.5, "serif", align="C")
            d.at(190, 20, f"{MONTHS[month - 1][:3]}. {year}", 8, "serif", align="R")
        d.set_fill_color(0, 0, 0)
        d.rect(20, 22.5, 170, 0.4, style="F")
        y = 32
        if with_code:
            d.at(20, 29, f"文章编号：{issn}({year}){issue:02d}-{first:04d}-0{rng.randint(4, 6)}", 7.5, "cjk")
            y = 36
        d.at(105, y + 6, title, rng.choice([16, 17, 18]), "cjk", "B", align="C")
        names = ["  ".join(p) if spaced_names and len(p) == 2 else p for p in people]
        if variant == 1 and len(people) > 1:
            units = [[(nm, ""), (str(1 + i % 2), "sup"), ("，" if i < len(names) - 1 else "", "")] for i, nm in enumerate(names)]
            d.byline(20, 190, y + 16, units, 12, "cjk", align="C")
            d.at(105, y + 22, f"（1. {affs[0]}；2. {affs[1]}）", 8.5, "cjk", align="C")
        elif len(people) > 1 and rng.random() < 0.5:
            units = [[(nm, ""), (str(1 + i % 2), "sup"), ("    " if i < len(names) - 1 else "", "")] for i, nm in enumerate(names)]
            d.byline(20, 190, y + 16, units, 12, "cjk", align="C")
            d.at(105, y + 22, f"（1. {affs[0]}；2. {affs[1]}）", 8.5, "cjk", align="C")
        else:
            d.at(105, y + 16, "    ".join(names), 12, "cjk", align="C")
            d.at(105, y + 22, f"（{affs[0]}）", 8.5, "cjk", align="C")
        yy = d.para(25, y + 28, 160, "摘要：" + BODY_ZH * 2, 9, "cjk")
        yy = d.para(25, yy + 1, 160, "关键词：航空发动机；控制系统；数值模拟；实验研究", 9, "cjk")
        yy = d.para(25, yy + 1, 160, "中图分类号：V233.7        文献标识码：A", 9, "cjk")
        yy = d.runs(25, 185, yy + 8, [[(w + " ", "")] for w in title_en.split()], 11, "serif", "B", align="C")
        d.at(105, yy + 1, "    ".join(ZH_PINYIN[p] for p in people), 10, "serif", align="C")
        d.at(105, yy + 6, "(Beijing University of Aeronautics and Astronautics, Beijing 100083, China)", 8.5, "serif", align="C")
        d.para(25, yy + 10, 160, "Abstract: " + BODY, 8.5, "serif")
        d.para(25, 200, 160, BODY_ZH * 4, 10, "cjk")
        d.rect(20, 268, 50, 0.3, style="F")
        received = f"{year - 1} 年 {rng.randint(1, 12)} 月收到" if year < 1999 else f"收稿日期：{year - 1}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        d.at(20, 273, received, 7.5, "cjk")
        d.at(20, 277, f"作者简介：{people[0]}（{year - rng.randint(28, 50)}-），男，博士，主要研究方向为航空发动机控制。", 7.5, "cjk")

    mode = rng.choice(["info", "junk", "xmp"]) if k else "junk"
    return Paper(f"chinese_{k}", "chinese", "old Chinese journal: 第 N 卷 第 N 期 / 刊名 (often letter-spaced) / Vol. N "
                 "No. N / YYYY 年 M 月 masthead (two rows or one), 文章编号, title, letter-spaced names with marks, "
                 "（单位）, 摘要/关键词/中图分类号, English block, 收到 date and 作者简介 birth year", truth, draw,
                 *(_embed(rng, mode, truth, people)))


# --------------------------------------------------------------------------- batch 4: other eras of the same journals
def nature2016(rng: random.Random, k: int) -> Paper:
    """Nature Communications before 2020: ARTICLE, a pipe-separated dates row, DOI and OPEN, and a
    footer in capitals without the year ("NATURE COMMUNICATIONS | 7:12154 | DOI: …")."""
    year = rng.choice([2014, 2015, 2016, 2017, 2018])
    vol = year - 2009
    art = str(rng.randint(10000, 16999))
    doi = f"10.1038/ncomms{art}"
    n = rng.randint(2, 8)
    people = _people(rng, n)
    marks = _marks(rng, n, rng.randint(2, 4))
    title = _pick_title(rng, BIO_TITLES)
    face = rng.choice(["sans", "condensed"])
    rec_year = year - 1 if rng.random() < 0.6 else year
    received, _m = _date(rng, rec_year, short=True)
    accepted, m2 = _date(rng, year, short=True, after=1)
    published, _m = _date(rng, year, short=True, after=m2)
    truth = {"title": title, "authors": [P(g, f) for g, f in people], "year": year,
             "container_title": "Nature Communications", "container_abbrev": ["NATURE COMMUNICATIONS", "Nat Commun"],
             "volume": str(vol), "pages": art, "doi": doi}  # fmt: skip

    def draw(d: Doc) -> None:
        d.at(18, 16, "ARTICLE", 11, face, "B")
        d.at(18, 22, f"Received {received} | Accepted {accepted} | Published {published}", 7, face)
        d.at(192, 22, f"DOI: {doi}", 7, face, align="R")
        d.box(180, 10, 12, 6, 60)
        d.set_text_color(255, 255, 255)
        d.set_font(face, "B", 8)
        d.text(182, 14.4, "OPEN")
        d.set_text_color(0, 0, 0)
        d.set_xy(18, 30)
        d.set_font(face, "B", rng.choice([18, 20]))
        d.multi_cell(174, 8, title, align="L")
        units = [[(f"{g} {f}", ""), (marks[i], "sup"), (" & " if i == n - 2 else ", " if i < n - 1 else "", "")]
                 for i, (g, f) in enumerate(people)]  # fmt: skip
        y = d.byline(18, 192, d.get_y() + 6, units, 10, face)
        y = d.para(18, y + 3, 174, BODY * 2, 9.5, face, "B")
        d.para(18, y + 4, 84, BODY * 2, 9, "serif")
        d.at(18, 262, f"1 {AFFILIATIONS[k % len(AFFILIATIONS)]}. Correspondence and requests for materials should be "
                      f"addressed to {people[0][0][0]}.{people[0][1][0]}. (email: x@example.org).", 6.5, face)  # fmt: skip
        d.at(18, 287, f"NATURE COMMUNICATIONS | {vol}:{art} | DOI: {doi} | www.nature.com/naturecommunications", 7, face)
        d.at(192, 287, "1", 7, face, align="R")

    return Paper(f"nature2016_{k}", "nature2016", "Nature Communications 2014-2018: ARTICLE, 'Received … | Accepted … | "
                 "Published …' row, DOI: … OPEN, footer in capitals with volume:article but no year", truth, draw,
                 *(_embed(rng, rng.choice(["xmp", "info", "junk"]), truth, [f"{g} {f}" for g, f in people])))


def embo2024(rng: random.Random, k: int) -> Paper:
    """EMBO Reports since its 2024 move: page ranges instead of e-numbers, a 10.1038/s44319 DOI,
    ✉ after the corresponding authors, "Received: …; Revised: …; Accepted: …" and "Published online"."""
    year = 2024 if k % 2 == 0 else 2025
    vol = year - 1999
    first = rng.randint(100, 5200)
    last = first + rng.randint(15, 35)
    doi = f"10.1038/s44319-{year % 100:03d}-{rng.randint(10, 999):05d}-{rng.randint(0, 9)}"
    n = rng.randint(2, 9)
    people = _people(rng, n)
    marks = _marks(rng, n, rng.randint(2, 5))
    title = _pick_title(rng, BIO_TITLES)
    face = rng.choice(["sans", "condensed"])  # the faces with a ✉ glyph
    received, _m = _date(rng, year - 1)
    revised, _m = _date(rng, year, after=1)
    accepted, m3 = _date(rng, year, after=2)
    published, _m = _date(rng, year, after=m3)
    truth = {"title": title, "authors": [P(g, f) for g, f in people], "year": year, "container_title": "EMBO Reports",
             "container_abbrev": ["EMBO reports", "EMBO Rep"], "volume": str(vol), "pages": f"{first}-{last}", "doi": doi}  # fmt: skip

    def draw(d: Doc) -> None:
        d.at(18, 16, "Article", 10, face, "B")
        d.at(192, 16, "EMBO Reports", 12, "sans", "B", align="R", grey=70)
        d.set_xy(18, 24)
        d.set_font(face, "B", rng.choice([19, 21]))
        d.multi_cell(174, 8.5, title, align="L")
        units = []
        for i, (g, f) in enumerate(people):
            u = [(f"{g} {f}", ""), (marks[i], "sup")]
            if i == n - 1 or (i == 0 and rng.random() < 0.4):
                u.append((" ✉", ""))
            u.append((" & " if i == n - 2 else ", " if i < n - 1 else "", ""))
            units.append(u)
        y = d.byline(18, 192, d.get_y() + 6, units, 10.5, face)
        d.at(18, y + 3, "Abstract", 9.5, face, "B")
        y = d.para(18, y + 5, 174, BODY * 2, 9, face)
        y = d.para(18, y + 2, 174, "Keywords Autophagy; Lysosome; Ageing; Stem Cells", 7.5, face)
        y = d.para(18, y + 1, 174, "Subject Categories Autophagy & Cell Death; Development", 7.5, face)
        y = d.para(18, y + 1, 174, f"https://doi.org/{doi}", 7.5, face)
        d.para(18, y + 1, 174, f"Received {received}; Revised {revised}; Accepted {accepted}", 7.5, face)
        d.at(18, 262, f"1{AFFILIATIONS[k % len(AFFILIATIONS)]}. ✉E-mail: {people[-1][1].lower().replace(' ', '')}"
                      "@example.de", 6.5, face)  # fmt: skip
        d.at(18, 287, f"EMBO Reports ({year}) {vol}: {first} – {last}", 7, face)
        d.at(105, 287, f"© The Author(s) {year}", 7, face, align="C")
        d.at(192, 287, str(first), 7, face, align="R")
        d.at(18, 283, f"Published online: {published}", 7, face)

    return Paper(f"embo2024_{k}", "embo2024", "EMBO Reports 2024+: Article, wordmark, ✉ marks, DOI 10.1038/s44319, "
                 "Received; Revised; Accepted and Published online lines, footer 'EMBO Reports (2024) 25: 2134 – 2158'",
                 truth, draw, *(_embed(rng, rng.choice(["xmp", "info", "junk"]), truth, [f"{g} {f}" for g, f in people])))


def acl2018(rng: random.Random, k: int) -> Paper:
    """ACL anthology papers of 2016-2018: a "(Long Papers)" / "(Volume 1: Long Papers)" part after
    the proceedings' name and the place before the dates."""
    venues = [
        ("Proceedings of the 56th Annual Meeting of the Association for Computational Linguistics", " (Long Papers)",
         "Melbourne, Australia, July 15 - 20, 2018", 2018),
        ("Proceedings of the 55th Annual Meeting of the Association for Computational Linguistics", " (Volume 1: Long Papers)",
         "Vancouver, Canada, July 30 - August 4, 2017", 2017),
        ("Proceedings of the 2016 Conference on Empirical Methods in Natural Language Processing", "",
         "Austin, Texas, November 1-5, 2016", 2016),
        ("Proceedings of the 2018 Conference on Empirical Methods in Natural Language Processing", "",
         "Brussels, Belgium, October 31 - November 4, 2018", 2018),
    ]  # fmt: skip
    venue, part, where, year = venues[k % len(venues)]
    first = rng.randint(1, 4000)
    last = first + rng.randint(9, 11)
    n = rng.choice([2, 3, 4])
    people = _people(rng, n)
    title = _pick_title(rng, NLP_TITLES)
    face = rng.choice(["serif", "serifcond"])
    truth = {"title": title, "authors": [P(g, f) for g, f in people], "year": year, "container_title": venue,
             "container_abbrev": [venue + part] if part else [], "pages": f"{first}-{last}"}  # fmt: skip

    def draw(d: Doc) -> None:
        y = d.runs(25, 185, 30, [[(w + " ", "")] for w in title.split()], 15, face, "B", lead=1.25, align="C")
        y += 4
        width = 160 / n
        orgs = rng.sample(NLP_ORGS, n)
        for j, (g, f) in enumerate(people):
            cx = 25 + width * (j + 0.5)
            d.at(cx, y, f"{g} {f}", 12, face, "B", align="C")
            d.at(cx, y + 5, orgs[j], 11, face, align="C")
            d.at(cx, y + 10, f"{f.lower().replace(' ', '')}@example.edu", 9.5, "mono", align="C")
        d.at(62, y + 20, "Abstract", 12, face, "B", align="C")
        d.para(25, y + 23, 75, BODY * 2, 10, face)
        d.para(110, y + 16, 75, BODY * 2, 10, face)
        d.at(105, 272, f"{venue}{part}, pages {first}–{last}", 8.5, face, align="C")
        d.at(105, 276, f"{where}. ©{year} Association for Computational Linguistics", 8.5, face, align="C")
        d.at(105, 286, str(first), 10, face, align="C")

    return Paper(f"acl2018_{k}", "acl2018", "ACL anthology 2016-2018: author grid, footer 'Proceedings of … (Long "
                 "Papers), pages 1–10' and 'Melbourne, Australia, July 15 - 20, 2018. ©2018 …'", truth, draw,
                 *(_embed(rng, rng.choice(["info", "junk"]), truth, [f"{g} {f}" for g, f in people])))


def chinese2005(rng: random.Random, k: int) -> Paper:
    """A Chinese journal around 2005: "Vol.20 No.3" without spaces, authors "张津¹，王明远²" with
    numbered affiliations, 收稿日期/修回日期, 基金项目 and 作者简介 in the footnote."""
    zh, en, issn, affs = ZH_JOURNALS[k % len(ZH_JOURNALS)]
    year = rng.randint(2003, 2008)
    vol = year - rng.choice([1985, 1975, 1978])
    issue = rng.randint(1, 6)
    people = rng.sample(ZH_PEOPLE, rng.randint(2, 4))
    title, title_en = rng.choice(ZH_TITLES)
    month = min(12, issue * 2)
    truth = {"title": title, "authors": [L(p) for p in people], "year": year, "container_title": zh,
             "container_abbrev": [en, en.title()], "volume": str(vol), "issue": str(issue)}  # fmt: skip

    def draw(d: Doc) -> None:
        d.at(20, 15, f"第{vol}卷 第{issue}期", 9, "cjk")
        d.at(105, 15, zh, 11, "cjk", "B", align="C")
        d.at(190, 15, f"Vol.{vol} No.{issue}", 8, "serif", align="R")
        d.at(20, 20, f"{year}年{month}月", 9, "cjk")
        d.at(105, 20, en.title(), 7.5, "serif", align="C")
        d.at(190, 20, f"{MONTHS[month - 1][:3]}. {year}", 8, "serif", align="R")
        d.set_fill_color(0, 0, 0)
        d.rect(20, 22.5, 170, 0.4, style="F")
        d.at(20, 29, f"文章编号：{issn}({year}){issue:02d}-{rng.randint(300, 900):04d}-0{rng.randint(4, 7)}", 7.5, "cjk")
        d.at(105, 42, title, 17, "cjk", "B", align="C")
        units = [[(nm, ""), (str(1 + i % 2), "sup"), ("，" if i < len(people) - 1 else "", "")] for i, nm in enumerate(people)]
        d.byline(20, 190, 52, units, 12, "cjk", align="C")
        d.at(105, 58, f"（1. {affs[0]}；2. {affs[1]}）", 8.5, "cjk", align="C")
        yy = d.para(25, 64, 160, "摘    要：" + BODY_ZH * 2, 9, "cjk")
        yy = d.para(25, yy + 1, 160, "关  键  词：航空发动机；控制系统；实验研究", 9, "cjk")
        yy = d.para(25, yy + 1, 160, "中图分类号：V233.7        文献标识码：A", 9, "cjk")
        yy = d.runs(25, 185, yy + 8, [[(w + " ", "")] for w in title_en.split()], 11, "serif", "B", align="C")
        d.at(105, yy + 1, ", ".join(ZH_PINYIN[p].upper() for p in people), 10, "serif", align="C")
        d.para(25, yy + 8, 160, "Abstract: " + BODY, 8.5, "serif")
        d.para(25, 200, 160, BODY_ZH * 4, 10, "cjk")
        d.rect(20, 266, 50, 0.3, style="F")
        d.at(20, 271, f"收稿日期：{year - 1}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}；"
                      f"修回日期：{year}-{rng.randint(1, 6):02d}-{rng.randint(1, 28):02d}", 7.5, "cjk")  # fmt: skip
        d.at(20, 275, f"基金项目：国家自然科学基金（{rng.randint(50000000, 59999999)}）", 7.5, "cjk")
        d.at(20, 279, f"作者简介：{people[0]}（{year - rng.randint(25, 45)}-），男，博士生，主要从事发动机控制研究。", 7.5, "cjk")

    return Paper(f"chinese2005_{k}", "chinese2005", "Chinese journal ~2005: 第20卷 第3期 / Vol.20 No.3 / 2005年6月, "
                 "authors with ¹² and full-width commas, numbered 单位, 收稿日期/修回日期/基金项目/作者简介", truth, draw,
                 *(_embed(rng, rng.choice(["info", "junk", "xmp"]), truth, people)))


# --------------------------------------------------------------------------- batch 5
def bmc2010(rng: random.Random, k: int) -> Paper:
    """BMC journals and Genome Biology of 2008-2012: "Smith et al. Genome Biology 2011, 12:R45" with
    the journal's URL under it, given names without full stops ("Chad G Ball"), "licensee
    BioMed Central Ltd." in the footnote."""
    journals = [("Genome Biology", "http://genomebiology.com/{y}/{v}/{i}/R{a}", "R"),
                ("BMC Evolutionary Biology", "http://www.biomedcentral.com/1471-2148/{v}/{a}", ""),
                ("BMC Biology", "http://www.biomedcentral.com/1741-7007/{v}/{a}", ""),
                ("BMC Bioinformatics", "http://www.biomedcentral.com/1471-2105/{v}/{a}", "")]  # fmt: skip
    journal, url, prefix = journals[k % len(journals)]
    year = rng.randint(2008, 2012)
    vol = year - (1999 if journal == "Genome Biology" else 2000 if "Bioinformatics" in journal else 2002)
    issue = rng.randint(1, 12)
    art = str(rng.randint(1, 260))
    n = rng.choice([2, 3, 5, 7])
    people = [(g.replace(".", ""), f) for g, f in _people(rng, n)]
    marks = _marks(rng, n, rng.randint(1, 3))
    title = _pick_title(rng, BIO_TITLES)
    face = rng.choice(["sans", "condensed"])
    fam0 = people[0][1]
    who = f"{fam0} et al." if n > 2 else f"{fam0} and {people[1][1]}"
    truth = {"title": title, "authors": [P(g, f) for g, f in people], "year": year, "container_title": journal,
             "volume": str(vol), "pages": prefix + art}  # fmt: skip

    def draw(d: Doc) -> None:
        d.at(18, 14, f"{who} {journal} {year}, {vol}:{prefix}{art}", 7.5, face)
        d.at(18, 18, url.format(y=year, v=vol, i=issue, a=art), 7.5, face)
        d.at(192, 16, journal, 11, "sans", "B", align="R", grey=60)
        d.at(18, 30, rng.choice(["RESEARCH", "RESEARCH ARTICLE", "METHOD", "SOFTWARE"]), 9, face, "B")
        d.at(192, 30, "Open Access", 9, face, "B", align="R")
        d.set_xy(18, 36)
        d.set_font(face, "B", rng.choice([16, 18]))
        d.multi_cell(174, 7.5, title, align="L")
        units = [[(f"{g} {f}", ""), (marks[i] + ("*" if i == n - 1 else ""), "sup"),
                  (" and " if i == n - 2 else ", " if i < n - 1 else "", "")] for i, (g, f) in enumerate(people)]  # fmt: skip
        y = d.byline(18, 192, d.get_y() + 6, units, 10, face)
        d.at(18, y + 4, "Abstract", 11, face, "B")
        y = y + 7
        for part in ("Background:", "Results:", "Conclusions:"):
            y = d.para(18, y, 174, f"{part} {BODY}", 8.8, face) + 1.5
        d.at(18, 258, f"* Correspondence: {people[-1][1].lower().replace(' ', '')}@example.ac.uk", 6.8, face)
        d.at(18, 261.5, f"1{AFFILIATIONS[k % len(AFFILIATIONS)]}", 6.8, face)
        d.at(18, 265, "Full list of author information is available at the end of the article", 6.8, face)
        d.para(18, 270, 174, f"© {year} {who.replace(' et al.', ' et al')}; licensee BioMed Central Ltd. This is an Open "
                             "Access article distributed under the terms of the Creative Commons Attribution License.",
               6.5, face)  # fmt: skip

    return Paper(f"bmc2010_{k}", "bmc2010", "BMC / Genome Biology 2008-2012: 'X et al. Genome Biology 2011, 12:R45' and "
                 "the journal URL, given names without stops, licensee BioMed Central footnote", truth, draw,
                 *(_embed(rng, rng.choice(["info", "junk", "xmp"]), truth, [f"{g} {f}" for g, f in people])))


def revtex(rng: random.Random, k: int) -> Paper:
    """A REVTeX preprint on arXiv: initials before family names, marks after commas
    ("A. B. Surname,1, ∗ C. D. Other,2 and E. F. Third1, 2"), affiliations, (Dated: …)."""
    year = rng.choice([2015, 2017, 2019, 2021, 2023])
    month = rng.randint(1, 12)
    aid = f"{year % 100:02d}{month:02d}.{rng.randint(1000, 19999):05d}"
    cat = rng.choice(["cond-mat.stat-mech", "physics.bio-ph", "quant-ph", "q-bio.PE"])
    n = rng.choice([2, 3, 4, 5])
    people = []
    for g, f in _people(rng, n):
        first = g.split()[0]
        initials = first[0] + "." + (" " + rng.choice("ABCDEFGHJKLMNPRST") + "." if rng.random() < 0.6 else "")
        people.append((initials, f))
    title = rng.choice(NLP_TITLES + BIO_TITLES)
    truth = {"title": title, "authors": [P(g, f) for g, f in people], "year": year, "arxiv_id": f"{aid}v1"}

    def draw(d: Doc) -> None:
        with d.rotation(90, 12, 190):
            d.at(12, 190, f"arXiv:{aid}v1  [{cat}]  {rng.randint(1, 28)} {MONTHS[month - 1][:3]} {year}", 20, "serif",
                 grey=128)  # fmt: skip
        y = d.runs(30, 180, 30, [[(w + " ", "")] for w in title.split()], 12, "serif", "B", lead=1.3, align="C")
        units = []
        for i, (g, f) in enumerate(people):
            m = f"{(i % 3) + 1}" + (", ∗" if i == 0 else "")
            units.append([(f"{g} {f},", "") if i < n - 1 and n > 2 else (f"{g} {f}", ""), (m, "sup"),
                          (" and " if i == n - 2 else " " if i < n - 1 else "", "")])  # fmt: skip
        y = d.byline(30, 180, y + 3, units, 10, "serif", align="C")
        for i in range(3):
            d.at(105, y + 4.2 * i, f"{i + 1}{AFFILIATIONS[(i + k) % len(AFFILIATIONS)]}", 8.5, "serif", align="C")
        d.at(105, y + 16, f"(Dated: {MONTHS[month - 1]} {rng.randint(1, 28)}, {year})", 9, "serif", align="C")
        d.para(35, y + 22, 140, BODY * 2, 9.5, "serif")
        d.at(25, 284, f"∗ {people[0][1].lower().replace(' ', '')}@example.edu", 8, "serif")

    return Paper(f"revtex_{k}", "revtex", "REVTeX preprint on arXiv: initials, marks after commas, 'and', "
                 "affiliations, (Dated: …), e-mail footnote", truth, draw,
                 *(_embed(rng, rng.choice(["info", "junk"]), truth, [f"{g} {f}" for g, f in people])))


FAMILIES: dict[str, tuple[Callable[[random.Random, int], Paper], int]] = {
    "nature": (nature, 5), "bmc": (bmc, 5), "embo": (embo, 4), "acl": (acl, 5), "arxiv": (arxiv, 6),
    "chinese": (chinese, 5),
    # Batch 4, added after batches 1-3 were measured: other eras of the same journals.
    "nature2016": (nature2016, 4), "embo2024": (embo2024, 4), "acl2018": (acl2018, 4), "chinese2005": (chinese2005, 4),
    # Batch 5, added after batch 4 was measured.
    "bmc2010": (bmc2010, 4), "revtex": (revtex, 4),
}  # fmt: skip
LATER = {"nature2016", "embo2024", "acl2018", "chinese2005", "bmc2010", "revtex"}
BATCH5 = {"bmc2010", "revtex"}


# Papers per family in batch 2 and in batch 3 (one per hazard).
HARD = 4
HAZARDS = 4


def split_of(family: str, k: int) -> str:
    """tune or held_out, fixed per family and batch by SPLIT_SEED (half of each, rounded down, held out).

    Batch 1 is the first ``count`` papers of a family, batch 2 (``HARD`` more, with the harder
    variations) was added after batch 1 had been measured; each batch was split before it was."""
    n = FAMILIES[family][1]
    if k < n:
        order = list(range(n))
        random.Random(f"{SPLIT_SEED}-{family}").shuffle(order)
        return "held_out" if k in order[: n // 2] else "tune"
    if k >= n + HARD:
        order = list(range(n + HARD, n + HARD + HAZARDS))
        random.Random(f"{SPLIT_SEED}-{family}-hazard").shuffle(order)
        return "held_out" if k in order[: HAZARDS // 2] else "tune"
    order = list(range(n, n + HARD))
    random.Random(f"{SPLIT_SEED}-{family}-hard").shuffle(order)
    return "held_out" if k in order[: HARD // 2] else "tune"


def hard(family: str, k: int) -> bool:
    """Batch 2 and 3: word-by-word (TeX) placement and the rarer variations of each family."""
    return k >= FAMILIES[family][1]


def hazard(family: str, k: int) -> int:
    """Batch 3's hazard for paper k (-1 before it): 0 a title in capitals, 1 a template's XMP and
    Info (wrong title, placeholder people, a default journal), 2 one author a line with an
    affiliation under each, 3 affiliation letters instead of numbers."""
    start = FAMILIES[family][1] + HARD
    return (k - start) % 4 if k >= start else -1


def build_paper(family: str, k: int) -> tuple[bytes, dict[str, Any]]:
    """The PDF bytes and the truth entry of paper ``k`` of ``family`` (deterministic)."""
    make = FAMILIES[family][0]
    rng = random.Random(f"{SEED}-{family}-{k}")
    hz = hazard(family, k)
    _HAZARD["now"] = hz
    try:
        paper = make(rng, k)
    finally:
        _HAZARD["now"] = -1
    d = Doc()
    d.tex = hard(family, k) and rng.random() < 0.7
    if hz == 1:
        # A template's XMP left in the file: another title, placeholder people, a default journal.
        paper.info = {"Title": "Instructions for the preparation of papers", "Author": "Author Name"}
        paper.xmp = {"dc:title": "Instructions for the preparation of papers", "dc:creator": ["Jane Author", "John Author"],
                     "prism:publicationName": "ACM Transactions on Graphics", "prism:volume": "37",
                     "prism:number": "4", "prism:coverDate": "2018-08-01"}  # fmt: skip
    if hz == 2:
        d.stacked = [a.split(",")[0] for a in AFFILIATIONS] if family != "chinese" else [ZH_JOURNALS[0][3][0]]
    paper.draw(d)
    if paper.info.get("Title"):
        d.set_title(paper.info["Title"])
    if paper.info.get("Author"):
        d.set_author(paper.info["Author"])
    d.set_creator("make_publisher_pdfs.py")
    d.set_creation_date(datetime(2024, 1, 1, tzinfo=UTC))
    if paper.xmp:
        d.set_xmp_metadata(xmp_packet(paper.xmp))
    truth: dict[str, Any] = dict.fromkeys(FIELDS)
    truth["authors"] = []
    truth.update(paper.truth)
    entry = {"file": f"{paper.name}.pdf", "family": family, "split": split_of(family, k),
             "batch": 5 if family in BATCH5 else 4 if family in LATER else 3 if hazard(family, k) >= 0 else 2 if hard(family, k) else 1, "hazard": hazard(family, k), "tex_spacing": d.tex, **truth,
             "not_printed": [f for f in FIELDS if truth.get(f) in (None, [], "")], "layout": paper.layout,
             "embedded": {"info": paper.info, "xmp": "full packet" if paper.xmp else None}}  # fmt: skip
    return bytes(d.output()), entry


def build(out: Path) -> list[dict[str, Any]]:
    out.mkdir(parents=True, exist_ok=True)
    entries = []
    for family, (_make, count) in FAMILIES.items():
        for k in range(count if family in LATER else count + HARD + HAZARDS):
            data, entry = build_paper(family, k)
            (out / entry["file"]).write_bytes(data)
            entries.append(entry)
    doc = {"comment": "Truth for the publisher-layout PDFs written by tests/bench/make_publisher_pdfs.py: what each "
                      "page prints. 'split' was fixed by SPLIT_SEED before any measurement.",
           "seed": SEED, "split_seed": SPLIT_SEED, "scored_fields": FIELDS, "entries": entries}  # fmt: skip
    (out / "metadata_truth.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return entries


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder to write the PDFs and metadata_truth.json into")
    args = ap.parse_args()
    if not Path(CJK_FONT).exists():
        print(f"missing CJK font {CJK_FONT} (apt-get install fonts-wqy-microhei)", file=sys.stderr)
        return 2
    entries = build(args.out)
    held = sum(e["split"] == "held_out" for e in entries)
    print(f"wrote {len(entries)} PDFs ({len(entries) - held} tune, {held} held out) and metadata_truth.json to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
