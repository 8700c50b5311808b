"""Why a file was not imported (core's ImportFailure reasons, the import's steps), in the
interface language: what is left of the patterns that once translated all of core's English.

What the agent says (missing parts, confidence reasons, stops, warnings), the library check's
problems and repairs and a matrix's generated title now reach the windows as catalogued
messages (core/text/messages.py) and are rendered there. Import reasons are kept as words in
the library's database (a failed document's ``error``), so they still read through these
patterns until the import pipeline records its messages' codes as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .i18n import language

_FIXED_ZH: dict[str, str] = {}

# The reasons and steps of reading a file that only the importer reports; the reasons of the
# whole import are in _FIXED_ZH / _PATTERNS_ZH below.
_IMPORT_FIXED_ZH = {
    "The PDF is password-protected; unlock it (save an unprotected copy) first.":
        "该 PDF 受密码保护；请先解除保护（另存一份未加密的副本）。",
}  # fmt: skip
_IMPORT_PATTERNS_ZH: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (re.compile(r"^OCR page (?P<n>\d+) of (?P<m>\d+)$"), lambda m: f"OCR 识别第 {m['n']} 页（共 {m['m']} 页）"),
    (
        re.compile(r"^File is too large \((?P<s>\d+) MB; the limit is (?P<l>[\d.]+) MB, see the import settings\)\.$"),
        lambda m: f"文件过大（{m['s']} MB；上限为 {m['l']} MB，见导入设置）。",
    ),
]


def render_first(
    table: Sequence[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]], text: str
) -> str | None:
    """The rendering of the first pattern of ``table`` that matches ``text`` and renders it."""
    for pattern, render in table:
        m = pattern.match(text)
        if m is not None:
            out = render(m)
            if out is not None:
                return out
    return None


def import_text(text: str) -> str:
    """An import failure reason or import step from core (``ImportFailure`` messages, "OCR page
    3 of 12") in the interface language; file names and library errors inside stay as written."""
    if language() != "zh":
        return text
    fixed = _IMPORT_FIXED_ZH.get(text)
    if fixed is not None:
        return fixed
    rendered = render_first(_IMPORT_PATTERNS_ZH, text)
    return rendered if rendered is not None else translate_phrase(text)


def knows_import_text(text: str) -> bool:
    """Whether ``import_text`` has a Chinese rendering for this reason (the tests walk them)."""
    return text in _IMPORT_FIXED_ZH or any(p.match(text) for p, _r in _IMPORT_PATTERNS_ZH) or knows(text)

# Why a file was not imported (core's ImportFailure reasons), for the import log, the
# failure list and the library's status column.
_FIXED_ZH.update({
    "The file is damaged or is not a PDF.": "文件已损坏，或者不是 PDF。",
    "The file is empty.": "文件是空的。",
    "The PDF has no pages.": "这个 PDF 没有页面。",
    "The file could not be read from disk.": "无法从磁盘读取该文件。",
    "The file contains no text.": "文件中没有文字。",
    "The PDF could not be read: the text extractor crashed on it.": "无法读取这个 PDF：提取文字的程序在处理它时崩溃了。",
    "No text found on any page, even by OCR.": "所有页面都没有找到文字，OCR 也没有识别出文字。",
    "The PDF has no text layer (it looks scanned) and OCR is turned off in the settings.":
        "这个 PDF 没有文字层（看起来是扫描件），而设置中关闭了 OCR。",
    "The PDF has no text layer (it looks scanned); OCR would be needed to import it.":
        "这个 PDF 没有文字层（看起来是扫描件），需要 OCR 才能导入。",
    "No text found on any page: the pages are blank.": "所有页面都没有找到文字：页面是空白的。",
    "The file does not look like text: its bytes make no sense in any supported encoding "
    "(UTF-8, UTF-16, GB18030/GBK, Big5, Windows-1252).":
        "这个文件看起来不是文本：它的字节在任何支持的编码（UTF-8、UTF-16、GB18030/GBK、Big5、Windows-1252）下都无法解读。",
    "Its content does not match its name (it was changed or damaged).": "文件内容与其名称不符（已被改动或损坏）。",
    "Not a PaperPilot corpus: a .jsonl file needs one {\"id\", \"title\", \"text\"} object per line.":
        "不是 PaperPilot 语料文件：.jsonl 文件每行需要一个 {\"id\", \"title\", \"text\"} 对象。",
    "Cancelled.": "已取消。",
})

_Pattern = tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]

_PATTERNS_ZH: list[_Pattern] = [
    # import failures
    (re.compile(r"^(?P<n>.+) is empty\.$"), lambda m: f"{m['n']} 是空的。"),
    (re.compile(r"^(?P<n>.+) has no text besides its header\.$"), lambda m: f"{m['n']} 除了表头之外没有文字。"),
    (re.compile(r"^(?P<p>.+) does not exist\.$"), lambda m: f"{m['p']} 不存在。"),
    (re.compile(r"^(?P<p>.+) is not a regular file\.$"), lambda m: f"{m['p']} 不是普通文件。"),
    (re.compile(r"^The file (?P<n>.+) could not be found or read\.$"), lambda m: f"找不到或无法读取文件 {m['n']}。"),
    (re.compile(r"^The file cannot be read: (?P<e>.+?)\.?$"), lambda m: f"无法读取文件：{m['e']}。"),
    (re.compile(r"^Could not read (?P<n>.+?): (?P<e>.+?)\.?$"), lambda m: f"无法读取 {m['n']}：{m['e']}。"),
    (re.compile(r"^Unexpected error while reading the file: (?P<e>.+)$"), lambda m: f"读取文件时出现意外错误：{m['e']}"),
    (
        re.compile(r"^Unsupported file type '(?P<x>[^']*)': PaperPilot imports .+$"),
        lambda m: f"不支持的文件类型“{m['x']}”：PaperPilot 可导入 PDF、.txt、.md、.jsonl 语料文件，"
        "以及 .bib、.ris 和 CSL-JSON 书目。",
    ),
    (re.compile(r"^Not a kind of file PaperPilot stores \('(?P<x>[^']*)'\)\.$"), lambda m: f"PaperPilot 不保存这类文件（“{m['x']}”）。"),
    (
        re.compile(r"^Not a CSL-JSON bibliography: .+$"),
        lambda m: "不是 CSL-JSON 书目：.json 文件需要是 CSL-JSON 条目的数组。",
    ),
]


def translate_phrase(text: str) -> str:
    """``text`` (an import failure reason, a batch's stop) in the interface language."""
    if language() != "zh":
        return text
    flat = " ".join(text.split())
    fixed = _FIXED_ZH.get(flat)
    if fixed is not None:
        return fixed
    rendered = render_first(_PATTERNS_ZH, flat)
    return rendered if rendered is not None else text


def knows(text: str) -> bool:
    """Whether a Chinese rendering exists for this reason (the tests walk the importer's)."""
    flat = " ".join(text.split())
    if flat in _FIXED_ZH:
        return True
    return any((m := p.match(flat)) is not None and r(m) is not None for p, r in _PATTERNS_ZH)
