"""OCR feasibility study: RapidOCR on scanned pages, CER and speed against render scale.

Answers the questions issue 12 leaves open before OCR goes into the extraction workers:
which pypdfium2 render scale to use, what character error rate (CER) RapidOCR reaches on clean
English and Chinese pages, how long a page takes on 1 and 2 cores (threads vs. processes), how
much memory a worker needs, and how to put RapidOCR's boxes in reading order (two columns too)
and join Chinese without spaces.

    .venv/bin/python tests/bench/ocr_study.py OUT_DIR            # full study (~15-20 min on 2 cores)
    .venv/bin/python tests/bench/ocr_study.py OUT_DIR --quick    # one scale, smoke run
    .venv/bin/python tests/bench/ocr_study.py OUT_DIR --phases small,fit   # some phases only (adds to OUT_DIR's results)

OUT_DIR receives the generated pages (PNG + image-only PDF), results.json and report.md.
Needs rapidocr + onnxruntime (``.venv/bin/pip install rapidocr onnxruntime``); reads the scanned
PDFs of /work/shared/data/pdfs_dev (or PAPERPILOT_DATA). Standalone: does not import paperpilot.

Every measured part runs in a fresh child process, so the peak RSS reported is that of one OCR
worker at one scale, and model loading is timed apart from the pages.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import random
import re
import statistics
import sys
import time
import unicodedata
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

# shared/data sits beside the main checkout; a git worktree is one or more levels further down.
DATA = Path(os.environ.get("PAPERPILOT_DATA") or next(
    (p / "shared" / "data" for p in Path(__file__).resolve().parents if (p / "shared" / "data").is_dir()),
    "/work/shared/data"))
FONT_EN = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
FONT_EN_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
FONT_ZH = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"
DPI = 300
A4_PX = (2480, 3508)  # 210 x 297 mm at 300 dpi

# --------------------------------------------------------------------------- known text
# Written for this study (not copied from anywhere) so that the reference is exact.
EN_TITLE = "Measuring Reading Errors on Generated Pages"
EN_PARAS = [
    "A scanned page carries no text layer, so every word a researcher wants to search must be "
    "recovered from pixels. This page was typeset from a known string and rendered at three hundred "
    "dots per inch, which lets us count each substituted, missing or extra character exactly.",
    "The recogniser sees the page after it has been rasterised again at a chosen scale. A small scale "
    "is fast but blurs the serifs of a ten point font; a large scale keeps them sharp but multiplies "
    "the pixels the detector has to visit. Somewhere between the two lies a setting that is good "
    "enough for search and quotation, and cheap enough to run on an ordinary laptop.",
    "Numbers matter as much as words: a table of 12.5 kg, 0.031 s and 1,024 samples, a year such as "
    "1994 or 2021, and a reference like [17] must survive the trip. So must punctuation, quotes "
    "(\"like these\"), hyphenated compounds such as real-time and two-column, and the difference "
    "between the letter O and the digit 0.",
    "Finally, the text must come back in the order a person reads it. On a two-column page the left "
    "column is read from top to bottom before the right one begins, while a heading that spans both "
    "columns is read first. Sorting boxes by their vertical position alone would interleave the "
    "columns line by line and ruin every sentence.",
]
EN2_LEFT = [
    "Two columns change the problem. The detector returns one box per printed line, and each box "
    "knows only where it sits on the page. Nothing in the output says which column a line belongs "
    "to, so the reader has to infer it from the geometry.",
    "A simple rule works for most papers: split the page at its middle, treat any line that crosses "
    "the middle as spanning both columns, and cut the page into bands at such lines and at wide "
    "vertical gaps. Inside a band, the left column comes first.",
]
EN2_RIGHT = [
    "The right column then follows in the same way, from its first line to its last. Captions and "
    "titles that run across the full width stay where they are, between the bands they separate.",
    "This ordering is cheap, needs no model, and can be checked against pages whose text is known, "
    "which is exactly what this study does before the rule is trusted with real scans of old "
    "conference papers and theses.",
]
ZH_TITLE = "扫描页面文字识别的误差测量"
ZH_PARAS = [
    "许多较早的论文和学位论文只有扫描版本，页面上没有文字层，研究者无法检索其中的任何一个词。"
    "为了让这些文献也能被搜索和引用，软件需要先用光学字符识别把图像还原成文字，再把文字切分成段落并建立索引。",
    "本页的文字是事先写好的，按照每英寸三百点的分辨率排版成图像，因此可以逐字比较识别结果与原文，"
    "统计被替换、遗漏或多出的字符数，从而得到字符错误率。中文句子中字与字之间没有空格，"
    "拼接识别结果时也不应插入空格，否则检索和引文核对都会出错。",
    "渲染比例越大，笔画越清晰，但检测和识别所需的时间和内存也越多。我们在一点五倍到四点一七倍之间选取若干比例，"
    "分别记录错误率、每页耗时和峰值内存，再根据这些数据推荐一个适合普通笔记本电脑的设置。",
    "数字和标点同样重要，例如第9卷第4期、1994年10月、页码第123至130页，以及“引号”、括号（如本句）和顿号、分号；"
    "这些内容都必须准确地保留下来。",
]
ZH2_LEFT = [
    "双栏排版的中文期刊十分常见。检测模型为每一行文字返回一个矩形框，但并不知道这一行属于左栏还是右栏，"
    "因此需要根据框的位置推断阅读顺序。",
    "做法是以页面中线为界，把跨越中线的行视为通栏，并在通栏行和较大的空白处把页面切成若干横带。",
]
ZH2_RIGHT = [
    "在每一条横带内，先自上而下读完左栏，再读右栏。这样得到的文字顺序与人的阅读习惯一致。",
    "这一规则不依赖任何模型，运行开销很小，并且可以先在已知文字的页面上验证，再用于真实的扫描文献。",
]

# First ~300 characters of each real scanned page, transcribed by reading the page image
# (line-end hyphens removed, reading order: top to bottom, left column before right).
REAL_SCANS: list[dict[str, Any]] = [
    {"file": "pdfs_dev/scanned_en_arxiv_supplementary_page.pdf", "page": 0, "lang": "en",
     "ref": "TableFormer: Table Structure Understanding with Transformers Supplementary Material "
            "1. Details on the datasets 1.1. Data preparation As a first step of our data preparation "
            "process, we have calculated statistics over the datasets across the following dimensions: "
            "(1) table size measured in the number of rows and columns, (2) complexity of the table, "
            "(3) strictness of the provided HTML structure and (4) completeness (i.e. no omitted "
            "bounding boxes). A table is considered to be simple if it does not contain row spans or "
            "column spans."},
    {"file": "pdfs_dev/scanned_en_bmc_journal_page.pdf", "page": 0, "lang": "en",
     "ref": "Kurbasic et al. Clinical Proteomics (2015) 12:13 Page 6 of 14 tumour and metastases, by "
            "fold change >2 and statistical significance (p < 0.01). Further analysis of the changes "
            "occurring between glycoprotein expression in the primary tumour and the lymph node "
            "metastases is shown in Figure 4(a). Principal component analysis (PCA) of the changes "
            "occurring in glycoprotein expression between primary and LNM pairs was performed to show "
            "patterns of similarity between tumours."},
    {"file": "pdfs_dev/scanned_en_conference_abstract_page.pdf", "page": 0, "lang": "en",
     "ref": "Hydrogen incorporation in a-Si:H - growth studies on an Expanding Thermal Plasma "
            "R.J. Severens, F. van de Pas, J. Bastiaanssen, W.M.M. Kessels, L.J. van IJzendoorn, "
            "M.C.M. van de Sanden, D.C. Schram Eindhoven University of Technology, Department of "
            "Applied Physics P.O. Box 513, 5600 MB Eindhoven, The Netherlands"},
    {"file": "pdfs_dev/scanned_en_typewritten_report_page.pdf", "page": 0, "lang": "en",
     "ref": "- 42 - The parameters used for all theoretical graphs were, unless stated otherwise: "
            "Gap (h) = 0.1 mm Wire Radius (R) = 0.825 mm Wire Yield Stress (Y) = 245 MN/m2 "
            "Tube Length (L) = 60 mm Polymer Viscosity (n) = 50 Ns/m2 Critical Shear Stress (Tc) = "
            "0.6 x 106 N/m2 These values can be considered 'typical' and were also used when "
            "estimating the experimental error (see Chapter 6.01)."},
    {"file": "pdfs_dev/mixed_en_arxiv_page_plus_scanned_page.pdf", "page": 1, "lang": "en",
     "ref": "Defending Ukraine: Early Lessons from the Cyber War The Evolution of Offensive "
            "Cyberattacks and Defensive Cybersecurity Operations 2 Innovation in offensive and "
            "defensive military technologies and tactics has been a constant, especially during the "
            "past two centuries. Wars put these innovations to new tests. While the \"fog of war\" "
            "makes it more difficult to assess the relative strength of offensive and defensive "
            "capabilities, it also creates greater urgency for doing so."},
]


# --------------------------------------------------------------------------- page generation
@dataclass
class SynthPage:
    name: str
    lang: str
    layout: str
    ref: str
    png: str = ""


def _wrap(text: str, font: Any, width: int, cjk: bool) -> list[str]:
    """Greedy line breaking: by word for English, by character for Chinese."""
    units = list(text) if cjk else text.split(" ")
    sep = "" if cjk else " "
    lines: list[str] = []
    cur = ""
    for u in units:
        trial = u if not cur else cur + sep + u
        if font.getlength(trial) <= width:
            cur = trial
        else:
            lines.append(cur)
            cur = u
    if cur:
        lines.append(cur)
    return lines


def _draw_block(draw: Any, x: int, y: int, width: int, paras: list[str], font: Any, cjk: bool,
                line_h: int) -> int:
    indent = font.getlength("中中") if cjk else font.getlength("    ")
    for p in paras:
        # The first-line indent is drawn as a real offset (not spaces) so the reference stays exact.
        first = _wrap(p, font, int(width - indent), cjk)[0]
        rest_text = p[len(first):].lstrip(" ")
        lines = [first, *(_wrap(rest_text, font, width, cjk) if rest_text else [])]
        for i, line in enumerate(lines):
            draw.text((x + (indent if i == 0 else 0), y), line, font=font, fill=0)
            y += line_h
        y += line_h // 2
    return y


def make_pages(out: Path) -> list[SynthPage]:
    from PIL import Image, ImageDraw, ImageFont

    pt = DPI / 72
    en = ImageFont.truetype(FONT_EN, int(10.5 * pt))
    en_small = ImageFont.truetype(FONT_EN, int(9.5 * pt))
    en_title = ImageFont.truetype(FONT_EN_BOLD, int(16 * pt))
    zh = ImageFont.truetype(FONT_ZH, int(10.5 * pt))
    zh_small = ImageFont.truetype(FONT_ZH, int(9.5 * pt))
    zh_title = ImageFont.truetype(FONT_ZH, int(16 * pt))
    W = A4_PX[0]
    margin = 300
    pages: list[SynthPage] = []

    def new() -> tuple[Any, Any]:
        img = Image.new("L", A4_PX, 255)
        return img, ImageDraw.Draw(img)

    def title(draw: Any, text: str, font: Any) -> int:
        w = font.getlength(text)
        draw.text(((W - w) / 2, margin), text, font=font, fill=0)
        return margin + int(font.size * 2.2)

    # English, one column
    img, d = new()
    y = title(d, EN_TITLE, en_title)
    _draw_block(d, margin, y, W - 2 * margin, EN_PARAS, en, False, int(en.size * 1.45))
    pages.append(SynthPage("en_1col", "en", "one-column", " ".join([EN_TITLE, *EN_PARAS])))
    img.save(out / "en_1col.png", dpi=(DPI, DPI))
    # English, two columns under a full-width title
    img, d = new()
    y = title(d, "Reading Order on Two-Column Pages", en_title)
    colw = (W - 2 * margin - 120) // 2
    _draw_block(d, margin, y, colw, EN2_LEFT, en_small, False, int(en_small.size * 1.4))
    _draw_block(d, margin + colw + 120, y, colw, EN2_RIGHT, en_small, False, int(en_small.size * 1.4))
    pages.append(SynthPage("en_2col", "en", "two-column",
                           " ".join(["Reading Order on Two-Column Pages", *EN2_LEFT, *EN2_RIGHT])))
    img.save(out / "en_2col.png", dpi=(DPI, DPI))
    # Chinese, one column
    img, d = new()
    y = title(d, ZH_TITLE, zh_title)
    _draw_block(d, margin, y, W - 2 * margin, ZH_PARAS, zh, True, int(zh.size * 1.6))
    pages.append(SynthPage("zh_1col", "zh", "one-column", "".join([ZH_TITLE, *ZH_PARAS])))
    img.save(out / "zh_1col.png", dpi=(DPI, DPI))
    # Chinese, two columns
    img, d = new()
    y = title(d, "双栏页面的阅读顺序", zh_title)
    _draw_block(d, margin, y, colw, ZH2_LEFT, zh_small, True, int(zh_small.size * 1.6))
    _draw_block(d, margin + colw + 120, y, colw, ZH2_RIGHT, zh_small, True, int(zh_small.size * 1.6))
    pages.append(SynthPage("zh_2col", "zh", "two-column", "".join(["双栏页面的阅读顺序", *ZH2_LEFT, *ZH2_RIGHT])))
    img.save(out / "zh_2col.png", dpi=(DPI, DPI))

    for p in pages:
        p.png = str(out / f"{p.name}.png")
    _image_pdf([Path(p.png) for p in pages], out / "synthetic_clean.pdf")
    # A "scanned" variant: slight rotation, blur, grain and JPEG, as a flatbed scan would add.
    import numpy as np
    from PIL import ImageFilter

    rnd = random.Random(12)
    grain = np.random.default_rng(12)
    scans = []
    for p in pages:
        im = Image.open(p.png).rotate(rnd.uniform(-0.6, 0.6), resample=Image.BICUBIC, fillcolor=255)
        arr = np.asarray(im.filter(ImageFilter.GaussianBlur(0.8)), dtype=np.float32)
        arr = np.clip(arr + grain.normal(0, 14, arr.shape), 0, 255).astype(np.uint8)
        path = out / f"{p.name}_scan.jpg"
        Image.fromarray(arr, "L").save(path, quality=70, dpi=(DPI, DPI))
        scans.append(path)
    _image_pdf(scans, out / "synthetic_scan.pdf")
    return pages


def make_small_pages(out: Path) -> list[SynthPage]:
    """Footnote-sized text (7 pt), where a low render scale is expected to fail first."""
    from PIL import Image, ImageDraw, ImageFont

    pt = DPI / 72
    pages = []
    for lang, font_path, paras in (("en", FONT_EN, EN_PARAS), ("zh", FONT_ZH, ZH_PARAS)):
        font = ImageFont.truetype(font_path, int(7 * pt))
        img = Image.new("L", A4_PX, 255)
        _draw_block(ImageDraw.Draw(img), 300, 300, A4_PX[0] - 600, paras, font, lang == "zh",
                    int(font.size * 1.4))
        name = f"{lang}_small"
        img.save(out / f"{name}.png", dpi=(DPI, DPI))
        pages.append(SynthPage(name, lang, "one-column 7 pt", (" " if lang == "en" else "").join(paras),
                               str(out / f"{name}.png")))
    _image_pdf([Path(p.png) for p in pages], out / "synthetic_small.pdf")
    return pages


def _image_pdf(images: list[Path], dest: Path) -> None:
    """One image per A4 page, no text layer: what a scanner produces."""
    from fpdf import FPDF

    pdf = FPDF(unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    for img in images:
        pdf.add_page()
        pdf.image(str(img), x=0, y=0, w=210, h=297)
    pdf.output(str(dest))


# --------------------------------------------------------------------------- reading order
CJK_RE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def _is_cjk(ch: str) -> bool:
    return bool(CJK_RE.match(ch))


def join_pieces(a: str, b: str) -> str:
    """Join two text pieces: no space between CJK characters, de-hyphenate English line ends."""
    if not a:
        return b
    if not b:
        return a
    if _is_cjk(a[-1]) or _is_cjk(b[0]):
        # CJK next to CJK, or CJK punctuation next to anything: Chinese sets no spaces there.
        if _is_cjk(a[-1]) and _is_cjk(b[0]):
            return a + b
        if (_is_cjk(a[-1]) and not a[-1].isalnum()) or (_is_cjk(b[0]) and not b[0].isalnum()):
            return a + b
    if a.endswith("-") and len(a) > 1 and a[-2].isalpha() and b[0].islower():
        return a[:-1] + b
    return a + " " + b


@dataclass
class Box:
    x0: float
    y0: float
    x1: float
    y1: float
    cy: float  # centre height of the text line
    th: float  # height of the line itself: on a skewed scan the axis-aligned box is much taller
    text: str

    @property
    def h(self) -> float:
        return self.y1 - self.y0


def _boxes(raw_boxes: Any, txts: Any) -> list[Box]:
    out = []
    for quad, t in zip(raw_boxes if raw_boxes is not None else [], txts or [], strict=True):
        xs = [float(p[0]) for p in quad]
        ys = [float(p[1]) for p in quad]
        # RapidOCR quads run top-left, top-right, bottom-right, bottom-left.
        th = (abs(float(quad[3][1]) - float(quad[0][1])) + abs(float(quad[2][1]) - float(quad[1][1]))) / 2
        out.append(Box(min(xs), min(ys), max(xs), max(ys), sum(ys) / 4, max(th, 1.0), t))
    return out


def _same_row(a: Box, b: Box) -> bool:
    return abs(a.cy - b.cy) < 0.5 * min(a.th, b.th)


def _lines(boxes: list[Box], mid: float) -> list[Box]:
    """Merge boxes that sit on one printed line and are close horizontally, never across the
    page middle (two boxes either side of a narrow gutter are two columns, not one line)."""
    boxes = sorted(boxes, key=lambda b: (b.cy, b.x0))
    lines: list[list[Box]] = []
    for b in boxes:
        for line in lines:
            last = line[-1]
            gap = b.x0 - last.x1
            if _same_row(last, b) and 0 <= gap < 1.5 * max(last.th, b.th) and not (last.x1 <= mid <= b.x0):
                line.append(b)
                break
        else:
            lines.append([b])
    merged = []
    for line in lines:
        line.sort(key=lambda b: b.x0)
        text = ""
        for b in line:
            text = join_pieces(text, b.text)
        merged.append(Box(min(b.x0 for b in line), min(b.y0 for b in line), max(b.x1 for b in line),
                          max(b.y1 for b in line), statistics.mean(b.cy for b in line),
                          max(b.th for b in line), text))
    return merged


def _rows(lines: list[Box]) -> list[Box]:
    """Top-to-bottom, and left-to-right among lines that share a row (a table row split in boxes)."""
    rows: list[list[Box]] = []
    for b in sorted(lines, key=lambda b: b.cy):
        if rows and _same_row(rows[-1][0], b):
            rows[-1].append(b)
        else:
            rows.append([b])
    return [b for row in rows for b in sorted(row, key=lambda b: b.x0)]


def reading_order(raw_boxes: Any, txts: Any, page_width: float) -> list[str]:
    """RapidOCR boxes -> line texts in reading order (one or two columns).

    A page is treated as two-column when few of its lines cross the vertical middle. Then it is
    cut into horizontal bands at lines that do cross the middle (titles, full-width captions) and
    at vertical gaps wider than two line heights (running heads); inside a band the left column
    is read before the right one.
    """
    mid = page_width / 2
    lines = _lines(_boxes(raw_boxes, txts), mid)
    if not lines:
        return []
    margin = 0.02 * page_width

    def spans(b: Box) -> bool:
        return b.x0 < mid - margin and b.x1 > mid + margin

    long_lines = [b for b in lines if (b.x1 - b.x0) > 0.25 * page_width]
    crossing = sum(1 for b in long_lines if spans(b))
    if not long_lines or crossing > 0.4 * len(long_lines):
        return [b.text for b in _rows(lines)]

    median_h = statistics.median(b.th for b in lines)
    ordered: list[str] = []
    band: list[Box] = []

    def flush() -> None:
        left = _rows([b for b in band if (b.x0 + b.x1) / 2 < mid])
        right = _rows([b for b in band if (b.x0 + b.x1) / 2 >= mid])
        ordered.extend(b.text for b in left + right)
        band.clear()

    bottom = None
    for b in sorted(lines, key=lambda b: b.cy):
        if spans(b):
            flush()
            ordered.append(b.text)
            bottom = b.y1
            continue
        if bottom is not None and b.y0 - bottom > 2 * median_h:
            flush()
        band.append(b)
        bottom = b.y1 if bottom is None else max(bottom, b.y1)
    flush()
    return ordered


def page_text(lines: list[str]) -> str:
    text = ""
    for line in lines:
        text = join_pieces(text, line)
    return text


# --------------------------------------------------------------------------- CER
QUOTES = str.maketrans({"“": '"', "”": '"', "‘": "'", "’": "'", "—": "-", "–": "-", "−": "-"})


def normalise(s: str, lang: str) -> str:
    s = unicodedata.normalize("NFKC", s).translate(QUOTES)
    if lang == "zh":
        return re.sub(r"\s+", "", s)
    return re.sub(r"\s+", " ", s).strip()


def edit_distance(ref: str, hyp: str, free_hyp_ends: bool = False) -> int:
    """Levenshtein distance; with free_hyp_ends, the best match of ref inside hyp (extra text
    before/after the transcribed stretch is not counted)."""
    n = len(ref)
    prev = [0] * (len(hyp) + 1) if free_hyp_ends else list(range(len(hyp) + 1))
    for i in range(1, n + 1):
        cur = [i] + [0] * len(hyp)
        rc = ref[i - 1]
        for j in range(1, len(hyp) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (rc != hyp[j - 1]))
        prev = cur
    return min(prev) if free_hyp_ends else prev[-1]


# --------------------------------------------------------------------------- workers
@dataclass
class Job:
    key: str
    source: str  # PDF path or PNG path
    page: int
    scale: float  # 0 = feed the PNG directly
    fit_px: int = 0  # if set, the scale that makes the page's long side this many pixels


@dataclass
class JobResult:
    key: str
    seconds: float
    render_seconds: float
    size: tuple[int, int]
    scale: float
    cpu_seconds: float  # CPU time of the whole worker for this page: unlike wall time, not
    # inflated when other processes compete for the cores
    lines: list[str] = field(default_factory=list)


def _worker(jobs: list[Job], threads: int, max_side: int, use_cls: bool, conn: Any) -> None:
    import resource

    import numpy as np

    t0 = time.perf_counter()
    import cv2
    import pypdfium2 as pdfium
    from PIL import Image
    from rapidocr import RapidOCR

    cv2.setNumThreads(threads)
    engine = RapidOCR(params={
        "Global.log_level": "warning",  # silences the INFO lines (model paths) on stderr
        "Global.max_side_len": max_side,
        "Global.use_cls": use_cls,
        "EngineConfig.onnxruntime.intra_op_num_threads": threads,
        "EngineConfig.onnxruntime.inter_op_num_threads": 1,
    })
    # Models load lazily on the first call; warm up on a tiny image so page timings are pure.
    from PIL import ImageDraw

    warm = Image.new("RGB", (400, 64), "white")
    ImageDraw.Draw(warm).text((10, 20), "warm up 123", fill="black")
    engine(np.array(warm))
    init_s = time.perf_counter() - t0
    results = []
    docs: dict[str, Any] = {}
    for job in jobs:
        t = time.perf_counter()
        c = time.process_time()
        scale = job.scale
        if job.scale or job.fit_px:
            doc = docs.setdefault(job.source, pdfium.PdfDocument(job.source))
            page = doc[job.page]
            if job.fit_px:
                scale = job.fit_px / max(page.get_size())
            img = page.render(scale=scale).to_pil().convert("RGB")
        else:
            img = Image.open(job.source).convert("RGB")
        arr = np.array(img)
        tr = time.perf_counter() - t
        out = engine(arr)
        secs = time.perf_counter() - t
        cpu = time.process_time() - c
        lines = reading_order(out.boxes, out.txts, arr.shape[1]) if out.txts else []
        results.append(JobResult(job.key, secs, tr, (arr.shape[1], arr.shape[0]), scale, cpu, lines))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    conn.send({"init_s": init_s, "rss_mb": rss_mb, "results": [asdict(r) for r in results]})
    conn.close()


def run_workers(jobs: list[Job], workers: int, threads: int, max_side: int,
                use_cls: bool = False) -> dict[str, Any]:
    """Run jobs split over `workers` fresh processes; wall time measured after model load."""
    ctx = mp.get_context("spawn")
    shares = [jobs[i::workers] for i in range(workers)]
    procs, pipes = [], []
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    for share in shares:
        parent, child = ctx.Pipe(duplex=False)
        p = ctx.Process(target=_worker, args=(share, threads, max_side, use_cls, child))
        p.start()
        procs.append(p)
        pipes.append(parent)
    outs = [c.recv() for c in pipes]
    wall = time.perf_counter() - t0
    for p in procs:
        p.join()
    results = [r for o in outs for r in o["results"]]
    init = max(o["init_s"] for o in outs)
    return {
        "workers": workers, "threads": threads, "max_side": max_side, "use_cls": use_cls,
        "wall_s": wall, "init_s": init,
        # throughput after model load: wall minus the slowest worker's start-up
        "pages_per_s": len(jobs) / max(wall - init, 1e-9),
        "s_per_page_mean": statistics.mean(r["seconds"] for r in results),
        "cpu_s_per_page_mean": statistics.mean(r["cpu_seconds"] for r in results),
        # 1-minute load average before and after: on a shared machine, wall times mean little
        # without it (2 cores; a load above 2 means other work competed for them)
        "load": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "render_s_mean": statistics.mean(r["render_seconds"] for r in results),
        "rss_mb_max": max(o["rss_mb"] for o in outs),
        "results": results,
    }


def cer_of(results: list[dict[str, Any]], refs: dict[str, tuple[str, str]], free_ends: bool) -> dict[str, float]:
    """Per-language CER: total edits / total reference characters."""
    edits: dict[str, int] = {}
    total: dict[str, int] = {}
    for r in results:
        lang, ref = refs[r["key"]]
        hyp = normalise(page_text(r["lines"]), lang)
        refn = normalise(ref, lang)
        e = edit_distance(refn, hyp, free_hyp_ends=free_ends)
        r["cer"] = e / max(len(refn), 1)
        edits[lang] = edits.get(lang, 0) + e
        total[lang] = total.get(lang, 0) + len(refn)
    return {lang: edits[lang] / total[lang] for lang in edits}


# --------------------------------------------------------------------------- study
PHASES = ("synthetic", "threads", "scan", "small", "real", "fit")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="folder for generated pages and results")
    ap.add_argument("--scales", default="1.5,2,2.5,3,4.17")
    ap.add_argument("--phases", default=",".join(PHASES), help=f"comma-separated subset of {PHASES}")
    ap.add_argument("--quick", action="store_true", help="scale 2 only, synthetic and real pages")
    args = ap.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    scales = [2.0] if args.quick else [float(s) for s in args.scales.split(",")]
    phases = {"synthetic", "real"} if args.quick else set(args.phases.split(","))
    no_cap = 100000  # effectively disables RapidOCR's default downscaling to 2000 px

    pages = make_pages(out)
    small = make_small_pages(out)
    clean_pdf, scan_pdf = str(out / "synthetic_clean.pdf"), str(out / "synthetic_scan.pdf")
    small_pdf = str(out / "synthetic_small.pdf")
    refs = {f"{p.name}": (p.lang, p.ref) for p in pages + small}
    for p in pages:
        refs[f"{p.name}_scan"] = (p.lang, p.ref)
        refs[f"{p.name}_direct"] = (p.lang, p.ref)
    for r in REAL_SCANS:
        refs[f"real:{Path(r['file']).name}"] = (r["lang"], r["ref"])
    report: dict[str, Any] = {"pages": [asdict(p) for p in pages + small], "runs": []}
    results_path = out / "results.json"
    if results_path.exists():  # a run of other phases into the same folder adds to the report
        report["runs"] = [r for r in json.loads(results_path.read_text())["runs"]]

    def record(kind: str, scale: float | str, run: dict[str, Any], free_ends: bool = False) -> None:
        run["kind"], run["scale"] = kind, scale
        run["cer"] = cer_of(run["results"], refs, free_ends)
        report["runs"] = [r for r in report["runs"] if not (
            r["kind"] == kind and r["scale"] == scale and r["workers"] == run["workers"]
            and r["threads"] == run["threads"])] + [run]
        print(f"{kind:12s} scale={scale!s:<7} w={run['workers']} t={run['threads']} cap={run['max_side']:<6} "
              f"cls={run['use_cls']} "
              f"cer={ {k: round(v * 100, 2) for k, v in run['cer'].items()} } "
              f"s/page={run['s_per_page_mean']:.2f} cpu-s/page={run.get('cpu_s_per_page_mean', 0):.2f} "
              f"pages/s={run['pages_per_s']:.3f} load={run.get('load')} "
              f"rss={run['rss_mb_max']:.0f}MB init={run['init_s']:.1f}s", flush=True)
        results_path.write_text(json.dumps(report, ensure_ascii=False, indent=1))

    def jobs_of(pdf: str, names: list[str], scale: float, fit_px: int = 0, suffix: str = "") -> list[Job]:
        return [Job(f"{n}{suffix}", pdf, i, scale, fit_px) for i, n in enumerate(names)]

    names = [p.name for p in pages]
    real_jobs = lambda s, fit=0: [  # noqa: E731
        Job(f"real:{Path(r['file']).name}", str(DATA / r["file"]), r["page"], s, fit) for r in REAL_SCANS]

    if "synthetic" in phases:
        # 1. CER and time per scale on clean renders, 1 process x 2 threads, no downscaling cap.
        for s in scales:
            record("clean", s, run_workers(jobs_of(clean_pdf, names, s), 1, 2, no_cap))
        if not args.quick:
            # 1b. RapidOCR's default cap (Global.max_side_len 2000) silently downsizes big renders.
            for s in [x for x in scales if x * 842 > 2000]:
                record("clean-cap2000", s, run_workers(jobs_of(clean_pdf, names, s), 1, 2, 2000))
            # 1c. The text-line orientation classifier (on by default) flips some upright lines by
            # 180 degrees and reads them as garbage; measured against it being off.
            for s in [x for x in scales if x in (2.0, 3.0)]:
                record("clean-cls", s, run_workers(jobs_of(clean_pdf, names, s), 1, 2, no_cap, use_cls=True))
        # 1d. The 300-dpi PNGs fed directly (no PDF round trip).
        direct = [Job(f"{p.name}_direct", p.png, 0, 0) for p in pages]
        record("direct-png", 4.17, run_workers(direct, 1, 2, no_cap))
    if "threads" in phases:
        # 2. Threads vs processes on 2 cores (the 1x2 numbers are the "clean" runs).
        for s in [x for x in scales if 2.0 <= x <= 3.0]:
            record("clean-1w1t", s, run_workers(jobs_of(clean_pdf, names, s), 1, 1, no_cap))
            record("clean-2w1t", s, run_workers(jobs_of(clean_pdf, names, s) * 2, 2, 1, no_cap))
    if "scan" in phases:
        # 3. Scan-like synthetic pages (rotation, blur, grain, JPEG).
        for s in [x for x in scales if 2.0 <= x <= 3.0]:
            record("scan-like", s, run_workers(jobs_of(scan_pdf, names, s, suffix="_scan"), 1, 2, no_cap))
    if "small" in phases:
        # 4. Footnote-sized (7 pt) text.
        for s in [x for x in scales if x in (1.5, 2.0, 2.5, 3.0)]:
            record("small-7pt", s, run_workers(jobs_of(small_pdf, [p.name for p in small], s), 1, 2, no_cap))
    if "real" in phases:
        # 5. Real scanned pages: rough CER against the transcription of their first ~300 chars.
        for s in ([2.0] if args.quick else [x for x in scales if x in (1.5, 2.0, 3.0, 4.17)]):
            record("real-scans", s, run_workers(real_jobs(s), 1, 2, no_cap), free_ends=True)
    if "fit" in phases:
        # 6. Scale chosen per page so that its long side has a fixed number of pixels: the real
        # pages differ in size (the typewritten one is 1729 pt tall), glyph size is what counts.
        for px in (1400, 1700, 2000, 2400):
            record("real-fit", f"fit{px}", run_workers(real_jobs(0, px), 1, 2, no_cap), free_ends=True)
            record("clean-fit", f"fit{px}", run_workers(jobs_of(clean_pdf, names, 0, px), 1, 2, no_cap))

    _write_report(out, report)
    return 0


def _write_report(out: Path, report: dict[str, Any]) -> None:
    rows = ["| run | scale | workers x threads | cap | cls | CER en | CER zh | s/page | CPU s/page | pages/s "
            "| peak RSS MB | load before/after |",
            "|---|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    kinds = ["clean", "clean-cap2000", "clean-cls", "direct-png", "clean-1w1t", "clean-2w1t", "scan-like",
             "small-7pt", "clean-fit", "real-scans", "real-fit"]

    def order(r: dict[str, Any]) -> tuple[int, float]:
        sc = r["scale"]
        return (kinds.index(r["kind"]) if r["kind"] in kinds else len(kinds),
                float(sc[3:]) if isinstance(sc, str) else float(sc))

    report["runs"].sort(key=order)
    for r in report["runs"]:
        c = r["cer"]
        rows.append(f"| {r['kind']} | {r['scale']} | {r['workers']}x{r['threads']} | {r['max_side']} | "
                    f"{'on' if r['use_cls'] else 'off'} | "
                    f"{c.get('en', float('nan')) * 100:.2f} % | "
                    + (f"{c['zh'] * 100:.2f} %" if "zh" in c else "-")
                    + f" | {r['s_per_page_mean']:.2f} | "
                    + (f"{r['cpu_s_per_page_mean']:.2f}" if "cpu_s_per_page_mean" in r else "-")
                    + f" | {r['pages_per_s']:.3f} | {r['rss_mb_max']:.0f} | "
                    + ("/".join(str(x) for x in r["load"]) if "load" in r else "-") + " |")
    per_real = ["", "Real scans, per page (CER of the transcribed stretch):", "",
                "| scale | file | CER | size px |", "|---:|---|---:|---|"]
    for r in report["runs"]:
        if r["kind"] in ("real-scans", "real-fit"):
            for j in r["results"]:
                per_real.append(f"| {r['scale']} | {j['key'][5:]} | {j['cer'] * 100:.1f} % | "
                                f"{j['size'][0]}x{j['size'][1]} |")
    (out / "report.md").write_text("\n".join(rows + per_real) + "\n", encoding="utf-8")
    print("\n".join(rows + per_real))


if __name__ == "__main__":
    sys.exit(main())
