"""Text-file import: encoding detection, cleaning, heading marks, metadata."""

from __future__ import annotations

import codecs
import random
from pathlib import Path

import pytest

from paperpilot.core.extract.chunker import chunk_pages
from paperpilot.core.extract.text import decode_bytes, extract_text_file, join_lines
from paperpilot.core.models import ImportFailure

ZH_SIMPLIFIED = (
    "本文提出了一种基于检索增强的问答方法。我们在多个数据集上进行了实验，"
    "结果表明该方法能够显著提高答案的准确率。此外，我们还分析了模型在不同任务中的表现，"
    "并讨论了未来的研究方向。\n"
)
ZH_TRADITIONAL = (
    "本文提出了一種基於檢索增強的問答方法。我們在多個資料集上進行了實驗，"
    "結果表明該方法能夠顯著提高答案的準確率。此外，我們還分析了模型在不同任務中的表現，"
    "並討論了未來的研究方向。\n"
)
FRENCH = (
    "Le café était très bon, mais la crème brûlée était trop sucrée.\n"
    "Ça m’a rappelé l’été à Genève — « formidable », disait-il.\n"
)
ENGLISH = "Retrieval helps question answering.\nIt finds the evidence first.\n"


# --- encodings ---------------------------------------------------------------------------------


def test_utf8_chinese_and_english() -> None:
    text = "BERT 模型的表现很好。" + ENGLISH
    assert decode_bytes(text.encode("utf-8")) == (text, "utf-8")


def test_utf8_bom_is_removed() -> None:
    decoded, encoding = decode_bytes(codecs.BOM_UTF8 + ZH_SIMPLIFIED.encode("utf-8"))
    assert decoded == ZH_SIMPLIFIED
    assert not decoded.startswith("\ufeff")
    assert encoding == "utf-8-sig"


@pytest.mark.parametrize(
    ("bom", "codec"),
    [(codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")],
)
@pytest.mark.parametrize("text", [ENGLISH, ZH_SIMPLIFIED])
def test_utf16_with_bom(bom: bytes, codec: str, text: str) -> None:
    assert decode_bytes(bom + text.encode(codec)) == (text, codec)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", [ENGLISH, ZH_SIMPLIFIED, "摘要与引言检索增强的问答方法"])
def test_utf16_without_bom(codec: str, text: str) -> None:
    # English and Chinese-with-newlines have NUL bytes; the last one is pure CJK with none.
    assert decode_bytes(text.encode(codec)) == (text, codec)


def test_gbk_chinese() -> None:
    assert decode_bytes(ZH_SIMPLIFIED.encode("gbk")) == (ZH_SIMPLIFIED, "gb18030")


def test_gb18030_four_byte_characters() -> None:
    # 𠀀 (CJK extension B) and € need GB18030's four-byte forms; GBK cannot encode them.
    text = ZH_SIMPLIFIED + "罕见字𠀀，价格 20€。\n"
    data = text.encode("gb18030")
    with pytest.raises(UnicodeEncodeError):
        text.encode("gbk")
    assert decode_bytes(data) == (text, "gb18030")


@pytest.mark.parametrize("codec", ["big5", "cp950"])
def test_big5_traditional_chinese(codec: str) -> None:
    decoded, encoding = decode_bytes(ZH_TRADITIONAL.encode(codec))
    assert decoded == ZH_TRADITIONAL
    assert encoding in {"big5", "cp950", "big5hkscs"}


@pytest.mark.parametrize(
    ("text", "codec", "family"),
    [
        ("摘要", "gbk", "gb18030"),  # these four bytes are also valid UTF-8 (Armenian + Cyrillic)
        ("中文", "gbk", "gb18030"),
        ("研究方法。", "gbk", "gb18030"),
        ("中文", "big5", "big5"),
        ("參考文獻", "big5", "big5"),
        ("研究方法。", "big5", "big5"),
    ],
)
def test_short_chinese_is_told_apart(text: str, codec: str, family: str) -> None:
    decoded, encoding = decode_bytes(text.encode(codec))
    assert decoded == text
    assert encoding.startswith(family)


def test_big5_bytes_are_not_taken_for_gbk() -> None:
    # Nearly every Big5 byte pair is also a valid GBK pair: only plausibility can decide.
    data = ZH_TRADITIONAL.encode("big5")
    data.decode("gb18030")  # decodes without error, into nonsense
    assert decode_bytes(data)[1].startswith("big5")


def test_cp1252_accents_and_typography() -> None:
    assert decode_bytes(FRENCH.encode("cp1252")) == (FRENCH, "cp1252")


@pytest.mark.parametrize("text", ["Die Größe der Stichprobe war ausreichend.", "naïve résumé café"])
def test_latin1_western_text(text: str) -> None:
    # Latin-1 and cp1252 agree on letters; the German one also decodes (wrongly) as GB18030.
    assert decode_bytes(text.encode("latin-1"))[0] == text


def test_utf8_with_one_stray_byte_stays_utf8() -> None:
    good = (ZH_SIMPLIFIED * 3).encode("utf-8")
    decoded, encoding = decode_bytes(good[:30] + b"\xff" + good[30:])
    assert encoding == "utf-8"
    assert decoded == ZH_SIMPLIFIED * 3


def test_random_bytes_are_undecodable() -> None:
    data = random.Random(7).randbytes(4096)
    with pytest.raises(ImportFailure) as info:
        decode_bytes(data)
    assert info.value.code == "undecodable"
    assert "text" in info.value.reason


def test_valid_utf8_made_of_control_bytes_is_undecodable() -> None:
    with pytest.raises(ImportFailure) as info:
        decode_bytes(bytes(range(1, 32)) * 40 + b"some text")
    assert info.value.code == "undecodable"


def test_newlines_and_control_characters_are_cleaned() -> None:
    decoded, _ = decode_bytes(b"one\r\ntwo\rthree\x00\x07 four\tfive\x0csix\xc2\xad!")
    assert decoded == "one\ntwo\nthree four\tfive\n\nsix!"


# --- files -------------------------------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"  \r\n\t\n  ", codecs.BOM_UTF8 + b"\n\n"])
def test_empty_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.txt"
    path.write_bytes(content)
    with pytest.raises(ImportFailure) as info:
        extract_text_file(path)
    assert info.value.code == "empty"
    assert "empty.txt" in info.value.reason


def test_binary_file_is_undecodable(tmp_path: Path) -> None:
    path = tmp_path / "image.txt"
    path.write_bytes(random.Random(3).randbytes(2048))
    with pytest.raises(ImportFailure) as info:
        extract_text_file(path)
    assert info.value.code == "undecodable"


def test_missing_file_is_an_import_failure(tmp_path: Path) -> None:
    with pytest.raises(ImportFailure) as info:
        extract_text_file(tmp_path / "gone.txt")
    assert info.value.code == "unreadable"


MARKDOWN = """\
---
title: "Retrieval for Research Papers"
authors:
  - Jane Doe
  - Li Wei
date: 2023-04-01
---

# Overview

PaperPilot answers questions from a local
library of papers. See [the guide](https://example.org) for **details**.

## Method ##

```python
# load the index: a comment, not a heading
index = open_index()
```

Evaluation
----------

- recall of supporting passages
- answer accuracy

### 方法

我们提出一种
循环式的智能体。
"""


def test_markdown_front_matter_and_headings(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(MARKDOWN, encoding="utf-8")
    result = extract_text_file(path)
    assert result.kind == "markdown"
    assert result.metadata.title == "Retrieval for Research Papers"
    assert result.metadata.authors == ["Jane Doe", "Li Wei"]
    assert result.metadata.year == 2023
    assert result.metadata.language == "en"
    assert [p.number for p in result.pages] == [1]
    paragraphs = result.pages[0].text.split("\n\n")
    assert "title:" not in result.pages[0].text
    assert [p for p in paragraphs if p.startswith("# ")] == [
        "# Overview",
        "# Method",
        "# Evaluation",
        "# 方法",
    ]
    assert paragraphs[1] == (
        "PaperPilot answers questions from a local library of papers. See the guide for details."
    )
    assert paragraphs[-1] == "我们提出一种循环式的智能体。"
    code = next(p for p in paragraphs if "open_index" in p)
    assert code.startswith("```")


def test_markdown_title_from_first_heading(tmp_path: Path) -> None:
    path = tmp_path / "readme.md"
    path.write_text("Intro line without heading.\n\n# Real Title\n\nBody text here.\n")
    assert extract_text_file(path).metadata.title == "Real Title"


def test_markdown_quote_underlined_by_rule_is_not_a_heading(tmp_path: Path) -> None:
    path = tmp_path / "q.md"
    path.write_text("# Top\n\n> a quoted remark\n---\n\nAfter the rule.\n")
    paragraphs = extract_text_file(path).pages[0].text.split("\n\n")
    assert paragraphs == ["# Top", "a quoted remark", "After the rule."]


PLAIN_ENGLISH = """\
Retrieval-Augmented Question Answering over Papers

Jane Doe, Li Wei

Abstract

We study how retrieval helps question answering over scientific
papers. Our method retrieves passages and reads them with infor-
mation from a state-of-the-
art reader. It works well.

1. Introduction
Question answering over papers is hard because the relevant
evidence is scattered across sections and pages. We propose a loop
that searches, reads and checks before it answers.

2.3 Results

Table 1 shows the results on three datasets. The loop improves
recall by twelve points over a single search.
"""


def test_plain_text_headings_and_hard_wraps(tmp_path: Path) -> None:
    path = tmp_path / "paper.txt"
    path.write_bytes(PLAIN_ENGLISH.replace("\n", "\r\n").encode("utf-8"))
    result = extract_text_file(path)
    assert result.kind == "text"
    assert result.metadata.title == "Retrieval-Augmented Question Answering over Papers"
    assert result.metadata.language == "en"
    assert result.pages[0].text.split("\n\n") == [
        "Retrieval-Augmented Question Answering over Papers",
        "Jane Doe, Li Wei",
        "# Abstract",
        "We study how retrieval helps question answering over scientific papers. Our method "
        "retrieves passages and reads them with information from a state-of-the-art reader. "
        "It works well.",
        "# 1. Introduction",
        "Question answering over papers is hard because the relevant evidence is scattered "
        "across sections and pages. We propose a loop that searches, reads and checks before "
        "it answers.",
        "# 2.3 Results",
        "Table 1 shows the results on three datasets. The loop improves recall by twelve points "
        "over a single search.",
    ]


PLAIN_CHINESE = """\
基于检索增强的问答系统研究

第一章 总则

本文研究了检索增强的问答方法，该方法在多个数据集
上取得了良好的效果。实验表明检索能够显著提高准确率，
并且减少了模型的幻觉。

一、背景
随着大语言模型的发展，问答系统受到了广泛关注。然而模型
容易产生幻觉，需要检索外部知识作为依据。

（二）方法

我们提出一种循环式的智能体，它先检索，再阅读，最后回答。
"""


@pytest.mark.parametrize("codec", ["gbk", "utf-8"])
def test_plain_chinese_headings_join_without_spaces(tmp_path: Path, codec: str) -> None:
    path = tmp_path / "论文.txt"
    path.write_bytes(PLAIN_CHINESE.encode(codec))
    result = extract_text_file(path)
    assert result.metadata.title == "基于检索增强的问答系统研究"
    assert result.metadata.language == "zh"
    assert result.pages[0].text.split("\n\n") == [
        "基于检索增强的问答系统研究",
        "# 第一章 总则",
        "本文研究了检索增强的问答方法，该方法在多个数据集上取得了良好的效果。"
        "实验表明检索能够显著提高准确率，并且减少了模型的幻觉。",
        "# 一、背景",
        "随着大语言模型的发展，问答系统受到了广泛关注。然而模型容易产生幻觉，需要检索外部知识作为依据。",
        "# （二）方法",
        "我们提出一种循环式的智能体，它先检索，再阅读，最后回答。",
    ]


def test_one_paragraph_per_line_chinese(tmp_path: Path) -> None:
    # Notepad-style: no hard wraps, no blank lines; each line is a paragraph or a heading.
    text = (
        "检索增强问答综述\n"
        "摘要\n"
        "本文综述了检索增强的问答方法，并比较了它们在多个数据集上的表现。我们发现检索质量决定了答案质量。\n"
        "1 引言\n"
        "　　随着大语言模型的发展，问答系统受到了广泛关注，但模型容易产生幻觉。\n"
        "　　因此需要检索外部知识作为依据，并在回答中给出引用。\n"
    )
    path = tmp_path / "survey.txt"
    path.write_bytes(text.encode("gb18030"))
    paragraphs = extract_text_file(path).pages[0].text.split("\n\n")
    assert paragraphs == [
        "检索增强问答综述",
        "# 摘要",
        "本文综述了检索增强的问答方法，并比较了它们在多个数据集上的表现。我们发现检索质量决定了答案质量。",
        "# 1 引言",
        "随着大语言模型的发展，问答系统受到了广泛关注，但模型容易产生幻觉。",
        "因此需要检索外部知识作为依据，并在回答中给出引用。",
    ]


def test_numbered_list_items_are_not_headings(tmp_path: Path) -> None:
    text = (
        "Setup notes\n\n"
        "We use the following steps in every experiment that we report in this paper, in order:\n"
        "1. We collect all papers from the library and extract their text.\n"
        "2. We split them into chunks of a few hundred characters each.\n\n"
        "That is all.\n"
    )
    path = tmp_path / "steps.txt"
    path.write_text(text)
    page = extract_text_file(path).pages[0].text
    assert "# " not in page
    assert "1. We collect all papers" in page


def test_wrapped_paragraph_starting_with_a_number_is_not_a_heading(tmp_path: Path) -> None:
    text = (
        "Notes on the comparison\n\n"
        "We ran every configuration with the same budget and the same seeds\n"
        "so that the numbers below can be compared directly with each other.\n\n"
        "2 Transformers were compared against recurrent baselines in the\n"
        "same setting, with identical budgets for every single run we did.\n"
    )
    path = tmp_path / "notes.txt"
    path.write_text(text)
    paragraphs = extract_text_file(path).pages[0].text.split("\n\n")
    assert paragraphs[-1] == (
        "2 Transformers were compared against recurrent baselines in the same setting, "
        "with identical budgets for every single run we did."
    )


def test_title_falls_back_past_long_first_line(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text("x" * 300 + ".\n\nShort Title Line\n\nBody text.\n")
    assert extract_text_file(path).metadata.title == "Short Title Line"


def test_a_sentence_is_not_a_title(tmp_path: Path) -> None:
    # Blog posts often open with prose: a long paragraph, then a short one; neither is a title.
    path = tmp_path / "post-name.txt"
    path.write_text("这是第一段，" * 50 + "结束。\n\n这是一个较短的第二段。\n\n1. 引言\n\n正文。\n")
    assert extract_text_file(path).metadata.title == "post-name"


@pytest.mark.parametrize(
    ("lines", "joined"),
    [
        (["infor-", "mation retrieval"], "information retrieval"),
        (["state-of-the-", "art models"], "state-of-the-art models"),
        (["GPT-", "4 is large"], "GPT-4 is large"),
        (["Retrieval-", "Augmented Generation"], "Retrieval-Augmented Generation"),
        (["a list:", "- item"], "a list: - item"),
        (["检索增强", "生成"], "检索增强生成"),
        (["使用", "BERT 模型"], "使用 BERT 模型"),
        (["end of line", "next line"], "end of line next line"),
    ],
)
def test_join_lines(lines: list[str], joined: str) -> None:
    assert join_lines(lines) == joined


def test_extracted_text_chunks_by_section(tmp_path: Path) -> None:
    path = tmp_path / "paper.txt"
    path.write_text(PLAIN_ENGLISH)
    chunks = chunk_pages(extract_text_file(path).pages, min_chars=50, max_chars=400)
    by_section = {c.section for c in chunks}
    assert by_section == {"", "Abstract", "1. Introduction", "2.3 Results"}
    assert all("# " not in c.text for c in chunks)
