"""The plain-words phrases core writes into a result — what is missing, why the confidence is
what it is, why a run stopped — in the interface language.

Core writes these in English for an English question (and in Chinese for a Chinese one); the
answer text itself is the policy's and is never touched. Each phrase shape core produces has
one pattern here; the quoted words, numbers and names inside it are kept as they are. A phrase
no pattern knows stays as core wrote it (tests/ui/test_translations.py checks that every shape
core can produce is known).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .i18n import language

# confidence.explain: "<reason>: <value> (<±weight>)"
_CONFIDENCE_NAMES_ZH = {
    "every required part covered": "问题的每个必需部分都已覆盖",
    "some required parts covered": "覆盖了问题的部分必需内容",
    "share of required parts covered": "必需部分的覆盖比例",
    "share of the question's other words found": "问题中其他词语的找到比例",
    "the asked-for value (number, date, name …) found": "找到了所问的值（数字、日期、名称……）",
    "every hop of the question covered": "多跳问题的每一步都已覆盖",
    "both sides of the comparison covered": "比较的两方都已覆盖",
    "weakest claim's support": "最弱论断的支持度",
    "sentences removed as unsupported": "因缺乏支持而删除的句子",
    "citations rejected by verification": "核对时被拒绝的引用",
    "documents cited": "引用的文献数",
    "sources disagree on the asked value": "各来源对所问的值说法不一",
    "a multi-hop question": "多跳问题",
    "a comparison": "比较类问题",
    "supported sentences": "有支持的句子",
    "cited documents named by the question or by each other": "被问题或彼此提及的引用文献",
    "required parts covered from distinct passages": "必需部分由不同段落覆盖",
    "the asked value stated by two cited passages": "所问的值有两个引用段落同时给出",
}

_FIXED_ZH = {
    "the round limit forced the answer": "达到轮次上限，只得给出答案",
    "a full answer (the run was stopped)": "完整的答案（运行已被停止）",
    "a question": "一个问题",
    "answer rejected: it obeyed a planted instruction": "答案被拒绝：它听从了文中植入的指令",
    "Please ask a question.": "请提一个问题。",
    "Stopped before anything was read.": "在阅读任何内容之前就已停止。",
    "nothing more worth reading": "没有更多值得阅读的内容",
    "nothing in the question can be searched in the library's language": "问题中没有能用文献库语言检索的词",
    "The run failed.": "运行失败。",
    "The run ended without a result.": "运行结束，但没有结果。",
    "I could not find enough evidence in your library to answer this.": "在你的文献库中找不到足够的证据来回答这个问题。",
    "key concepts occur in no document (or only in reference lists)": "关键概念不出现在任何文献中（或只出现在参考文献列表里）",
    "the question's language is not the library's; no model to translate it": "问题所用的语言与文献库不同，且没有语言模型来翻译",
}

# Import failure reasons live in _FIXED_ZH / _PATTERNS_ZH with the other phrases; these are the
# reasons and steps of reading a file that only the importer reports.
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
    # the library check's progress (core/library/integrity.py)
    "Checking the library…": "正在检查文献库…",
    "Updating the search index…": "正在更新搜索索引…",
    "Setting the damaged database aside…": "正在把损坏的数据库移到一旁…",
})

# How a run was made (the Result tab's "mode · policy" line).
RUN_WORDS_ZH = {"quick": "快速", "loop": "深度循环", "auto": "自动", "offline": "离线", "llm": "语言模型"}


def run_word(word: str) -> str:
    return RUN_WORDS_ZH.get(word, word) if language() == "zh" else word

_SLOT_ZH = {
    "the person asked for": "所问的人",
    "the date asked for": "所问的日期",
    "the place asked for": "所问的地点",
    "the number asked for": "所问的数量",
    "the amount asked for": "所问的数值",
    "the answer": "答案",
    "a definition": "定义",
    "the reason": "原因",
    "an explanation": "解释",
}


def _scope_zh(scope: str) -> str:
    """scope.describe's "; "-joined parts ("documents 1, 2", "tagged x", "in Thesis") in Chinese."""
    if scope == "the whole library":
        return "整个文献库"
    out = []
    for bit in scope.split("; "):
        for head, zh in (("documents ", "文献 "), ("matching ", "匹配 "), ("years ", "年份 "), ("tagged ", "标签 "), ("in ", "位于 ")):
            if bit.startswith(head):
                bit = zh + bit[len(head):]
                break
        out.append(bit)
    return "；".join(out)


def _value_zh(value: str) -> str:
    return {"yes": "是"}.get(value, value)


def _confidence_zh(m: re.Match[str]) -> str | None:
    name = _CONFIDENCE_NAMES_ZH.get(m["name"])
    return None if name is None else f"{name}：{_value_zh(m['value'])}（{m['weight']}）"


_Pattern = tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]

_PATTERNS_ZH: list[_Pattern] = [
    (re.compile(r"^(?P<name>.+?): (?P<value>[^:()]+) \((?P<weight>[+−-]\d+\.\d+)\)$"), _confidence_zh),
    (
        re.compile(r"^the model's own estimate (?P<v>[\d.]+) \(weight (?P<w>[\d.]+)\)$"),
        lambda m: f"模型自己的估计 {m['v']}（权重 {m['w']}）",
    ),
    (
        re.compile(r"^stopped by the user: an extract of what was read, not a full answer \(×(?P<f>[\d.]+)\)$"),
        lambda m: f"被用户停止：只是已读内容的摘录，不是完整答案（×{m['f']}）",
    ),
    (re.compile(r"^[Nn]othing read mentions “(?P<t>.+)”$"), lambda m: f"读过的内容都没有提到“{m['t']}”"),
    (re.compile(r"^[Nn]o sentence mentions “(?P<t>.+)”$"), lambda m: f"没有句子提到“{m['t']}”"),
    (re.compile(r"^No passage read mentions “(?P<t>.+)”$"), lambda m: f"读过的段落都没有提到“{m['t']}”"),
    (re.compile(r"^No passage read mentions (?P<n>\S+)$"), lambda m: f"读过的段落都没有提到 {m['n']}"),
    (re.compile(r"^Nothing read says anything about “(?P<t>.+)”$"), lambda m: f"读过的内容都没有谈到“{m['t']}”"),
    (re.compile(r"^No passage says (?P<a>.+?) for “(?P<s>.+)”$"), lambda m: f"没有段落说明“{m['s']}”的{m['a']}"),
    (re.compile(r"^No passage identifies (?P<t>.+)$"), lambda m: f"没有段落指出{m['t']}"),
    (re.compile(r"^No passage answers the next step: (?P<t>.+)$"), lambda m: f"没有段落回答下一步：{m['t']}"),
    (
        re.compile(r"^The passages read do not settle yes or no: “(?P<t>.+)”$"),
        lambda m: f"读过的段落不能判定是或否：“{m['t']}”",
    ),
    (
        re.compile(r"^No passage gives (?P<what>.+?): “(?P<t>.+)”$"),
        lambda m: None if (w := _SLOT_ZH.get(m["what"])) is None else f"没有段落给出{w}：“{m['t']}”",
    ),
    (re.compile(r"^No passage about (?P<b>.+?) gives the (?P<r>.+) asked for$"), lambda m: f"没有关于{m['b']}的段落给出所问的{m['r']}"),
    (re.compile(r"^No passage says (?P<t>.+)$"), lambda m: f"没有段落说明：{m['t']}"),
    (re.compile(r"^Your library has nothing on (?P<t>.+?)\.?$"), lambda m: f"你的文献库里没有关于{m['t']}的内容"),
    (
        re.compile(r"^The run failed unexpectedly: (?P<e>.+?)\.?$"),
        lambda m: f"运行意外失败：{m['e']}。",
    ),
    # a matrix's generated title (core/workflows/matrix.py) and its scope (scope.describe)
    (
        re.compile(r"^(?P<n>\d+) papers × (?P<k>\d+) columns \((?P<scope>.+)\)$"),
        lambda m: f"{m['n']} 篇论文 × {m['k']} 列（{_scope_zh(m['scope'])}）",
    ),
    # the library check: its progress, its counts, the problems it finds
    (
        re.compile(r"^Re-importing stored file (?P<i>\d+) of (?P<n>\d+)…$"),
        lambda m: f"正在重新导入已保存的文件（第 {m['i']} 个，共 {m['n']} 个）…",
    ),
    (
        re.compile(r"^(?P<d>\d+) document\(s\), (?P<p>\d+) passage\(s\), (?P<i>\d+) index entries, "
                   r"(?P<f>\d+) stored file\(s\), (?P<n>\d+) note\(s\)$"),
        lambda m: f"{m['d']} 篇文献、{m['p']} 个段落、{m['i']} 条索引、{m['f']} 个已保存文件、{m['n']} 条笔记",
    ),
    (re.compile(r"^#(?P<id>\d+) (?P<t>.+): its removal was interrupted\.$"), lambda m: f"#{m['id']} {m['t']}：移除操作曾被中断。"),
    (
        re.compile(r"^#(?P<id>\d+) (?P<t>.+) has the same content as #(?P<k>\d+): stored twice\.$"),
        lambda m: f"#{m['id']} {m['t']} 与 #{m['k']} 内容相同：保存了两次。",
    ),
    (
        re.compile(r"^#(?P<id>\d+) (?P<t>.+): its stored copy (?P<f>\S+) is missing\.$"),
        lambda m: f"#{m['id']} {m['t']}：它的已保存副本 {m['f']} 不见了。",
    ),
    (
        re.compile(r"^#(?P<id>\d+) (?P<t>.+): its stored copy (?P<f>\S+) is missing and its original file is gone; "
                   r"it stays searchable\.$"),
        lambda m: f"#{m['id']} {m['t']}：它的已保存副本 {m['f']} 不见了，原始文件也已不在；它仍可被检索。",
    ),
    (
        re.compile(r"^(?P<f>.+): a stored file no document refers to \(the repair re-imports it\)\.$"),
        lambda m: f"{m['f']}：没有任何文献引用的已保存文件（修复时会重新导入）。",
    ),
    (re.compile(r"^(?P<f>.+): a copy whose import did not finish\.$"), lambda m: f"{m['f']}：导入未完成的副本。"),
    (re.compile(r"^#(?P<id>\d+) (?P<t>.+) is not in the search index yet\.$"), lambda m: f"#{m['id']} {m['t']} 尚未进入搜索索引。"),
    (
        re.compile(r"^#(?P<id>\d+) (?P<t>.*): (?P<n>\d+) passage\(s\) missing from the search index\.$"),
        lambda m: f"#{m['id']} {m['t']}：搜索索引中缺少 {m['n']} 个段落。",
    ),
    (
        re.compile(r"^A note on document #(?P<id>\d+) (?P<t>.+), which is not in the library\.$"),
        lambda m: f"文献 #{m['id']} {m['t']} 上的笔记，但这篇文献不在文献库中。",
    ),
    (
        re.compile(r"^#(?P<id>\d+) (?P<t>.+): the metadata kept beside its stored copy is (?P<w>missing|out of date)\.$"),
        lambda m: f"#{m['id']} {m['t']}：已保存副本旁的元数据" + ("缺失。" if m["w"] == "missing" else "已过时。"),
    ),
    (re.compile(r"^(?P<f>.+): metadata of a stored file that is gone\.$"), lambda m: f"{m['f']}：对应的已保存文件已不在的元数据。"),
    (
        re.compile(r"^The library database is damaged \((?P<why>.*)\); the repair sets it aside and rebuilds the library "
                   r"from the stored files\.$"),
        lambda m: f"文献库数据库已损坏（{m['why']}）；修复时会把它移到一旁，并用已保存的文件重建文献库。",
    ),
    # what the repair did
    (re.compile(r"^finished removing document #(?P<id>\d+)$"), lambda m: f"已完成文献 #{m['id']} 的移除"),
    (
        re.compile(r"^copied the original file of #(?P<id>\d+) back into the library$"),
        lambda m: f"已把 #{m['id']} 的原始文件复制回文献库",
    ),
    (
        re.compile(r"^removed #(?P<id>\d+), a second copy of #(?P<k>\d+) \(its note, if any, was kept\)$"),
        lambda m: f"已移除 #{m['id']}（#{m['k']} 的第二份副本；如有笔记已保留）",
    ),
    (re.compile(r"^stopped: cancelled \(run the repair again for the rest\)$"), lambda m: "已停止：被取消（再次运行修复以处理其余部分）"),
    (
        re.compile(r"^re-indexed (?P<d>\d+) document\(s\) \((?P<p>\d+) passage\(s\)\)$"),
        lambda m: f"已重新索引 {m['d']} 篇文献（{m['p']} 个段落）",
    ),
    (
        re.compile(r"^rewrote the metadata beside (?P<n>\d+) stored file\(s\)$"),
        lambda m: f"已重写 {m['n']} 个已保存文件旁的元数据",
    ),
    (re.compile(r"^re-imported (?P<f>\S+) as #(?P<id>\d+) (?P<t>.*)$"), lambda m: f"已重新导入 {m['f']}，成为 #{m['id']} {m['t']}"),
    (re.compile(r"^(?P<f>\S+): already in the library$"), lambda m: f"{m['f']}：已在文献库中"),
    (
        re.compile(r"^moved (?P<f>\S+) to (?P<d>\S+): (?P<why>.+)$"),
        lambda m: f"已把 {m['f']} 移到 {m['d']}：{translate_phrase(m['why'])}",
    ),
    (re.compile(r"^moved (?P<f>\S+) to (?P<d>\S+)$"), lambda m: f"已把 {m['f']} 移到 {m['d']}"),
    (
        re.compile(r"^kept (?P<n>\d+) note\(s\) of removed documents in (?P<f>\S+)$"),
        lambda m: f"已把已移除文献的 {m['n']} 条笔记保存在 {m['f']}",
    ),
    (
        re.compile(r"^set the old database aside as (?P<f>\S+) \(nothing was deleted\)$"),
        lambda m: f"已把旧数据库移到一旁，保存为 {m['f']}（没有删除任何内容）",
    ),
    (
        re.compile(r"^rebuilt the library from (?P<k>\d+) of (?P<n>\d+) stored file\(s\)$"),
        lambda m: f"已用 {m['n']} 个已保存文件中的 {m['k']} 个重建文献库",
    ),
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
    """``text`` (a missing part, a confidence note, a failure reason) in the interface language."""
    if language() != "zh":
        return text
    flat = " ".join(text.split())
    fixed = _FIXED_ZH.get(flat)
    if fixed is not None:
        return fixed
    rendered = render_first(_PATTERNS_ZH, flat)
    return rendered if rendered is not None else text


def knows(text: str) -> bool:
    """Whether a Chinese rendering exists for this phrase (the tests walk core's shapes)."""
    flat = " ".join(text.split())
    if flat in _FIXED_ZH:
        return True
    return any((m := p.match(flat)) is not None and r(m) is not None for p, r in _PATTERNS_ZH)
