"""Chunking: paragraph-level chunks that respect sentences, sections and pages."""

from __future__ import annotations

import random
import time

import pytest

from paperpilot.core.extract.chunker import chunk_pages, chunk_text, split_paragraph
from paperpilot.core.models import Chunk, Page
from paperpilot.core.text.language import split_sentences
from tests.timing import bound

EN_SENTENCES = [
    "Retrieval-augmented generation grounds a language model in documents it can cite.",
    "We index every paragraph of the library with a BM25 ranking function.",
    "The agent first skims the top hits and only then reads the most promising passages.",
    "A verifier checks that every quoted span occurs in a passage the agent actually read.",
    "When no evidence is found, the system says so instead of guessing.",
    "Our experiments use five hundred multi-hop questions with two supporting paragraphs each.",
    "Recall of both supporting paragraphs rises from 54.6 to 73.2 percent with six hits.",
    "Chinese text is indexed with overlapping character bigrams.",
    "This lets a query match a phrase even when the words are not separated by spaces.",
    "Why does a second search help so much?",
    "Because the first passage often names the entity that the question only describes!",
    "The candidate keywords extracted from read passages drive the next query.",
    "Latency stays below one second on a laptop with two cores.",
    "A malformed model reply becomes a fallback keyword search and a warning in the trace.",
    "Stop rules are code: a repeated query or a round without new evidence forces an answer.",
    "Every answer carries numbered citations that point to a document, a section and a page.",
    "We release the evaluation scripts together with the library.",
    "Larger models follow the action schema more reliably, but even a tiny one never crashes the loop.",
    "Tables and figures are not parsed yet, which limits questions about numbers in them.",
    "Future work includes citation graphs and a shared library for research groups.",
]
ZH_SENTENCES = [
    "检索增强生成让语言模型的回答有据可查。",
    "我们用 BM25 为文献库中的每个段落建立索引。",
    "智能体先浏览检索结果的前两句话，再决定精读哪些段落。",
    "校验器检查每一处引文是否真的出现在已读段落中。",
    "如果没有找到证据，系统会如实说明，而不是猜测答案。",
    "实验使用了五百个多跳问题，每个问题有两个支撑段落。",
    "为什么第二次检索如此有效？",
    "因为第一段往往给出了问题中只描述而未点名的实体！",
    "中文文本按重叠的二元字符切分后建立索引。",
    "这样即使词与词之间没有空格，查询也能匹配到短语。",
    "从已读段落中提取的候选关键词会驱动下一轮查询；",
    "重复的查询或没有新证据的一轮都会迫使系统作答。",
    "每个答案都带有编号引用，指向文献、章节和页码。",
    "表格和图片暂不解析，这限制了关于其中数字的问题。",
]
EN_ENDINGS = (".", "?", "!")
ZH_ENDINGS = ("。", "？", "！", "；")


def _paragraph(rng: random.Random, pool: list[str], joiner: str, low: int, high: int) -> str:
    return joiner.join(rng.choice(pool) for _ in range(rng.randint(low, high)))


def _paragraph_between(low: int, high: int, start: int = 0) -> str:
    """English sentences from the pool, in order, until the paragraph is at least ``low``."""
    parts: list[str] = []
    i = start
    while len(" ".join(parts)) < low:
        parts.append(EN_SENTENCES[i % len(EN_SENTENCES)])
        i += 1
    para = " ".join(parts)
    assert len(para) <= high
    return para


def _document(pool: list[str], joiner: str, seed: int) -> tuple[list[Page], dict[str, list[str]]]:
    """Pages with several sections; returns them and each section's paragraphs in order."""
    rng = random.Random(seed)
    sections: dict[str, list[str]] = {"": []}
    pages: list[Page] = []
    current = ""
    for number in range(1, 5):
        blocks: list[str] = []
        for _ in range(rng.randint(6, 10)):
            if rng.random() < 0.2:
                current = f"{len(sections)}. Section {number}-{len(blocks)}"
                sections[current] = []
                blocks.append("# " + current)
            para = _paragraph(rng, pool, joiner, 1, 14)
            sections[current].append(para)
            blocks.append(para)
        pages.append(Page(number=number, text="\n\n".join(blocks)))
    return pages, sections


def _check_structure(
    chunks: list[Chunk],
    sections: dict[str, list[str]],
    pool: list[str],
    joiner: str,
    endings: tuple[str, ...],
    min_chars: int,
    max_chars: int,
) -> None:
    assert [c.seq for c in chunks] == list(range(len(chunks)))
    sentences = set(pool)
    for i, chunk in enumerate(chunks):
        last_of_section = i + 1 == len(chunks) or chunks[i + 1].section != chunk.section
        assert len(chunk.text) <= (max_chars * 1.25 if last_of_section else max_chars)
        assert chunk.text.endswith(endings), chunk.text[-40:]
        # Whole sentences only: every sentence of a chunk is one of the originals.
        assert set(split_sentences(chunk.text)) <= sentences
        assert not chunk.text.startswith("#")
        if not last_of_section and len(chunk.text) < min_chars:
            # A short chunk is only left short when the next piece would not have fitted.
            assert len(chunk.text) + len(joiner) + len(chunks[i + 1].text) > max_chars
    # Nothing lost, nothing reordered, sections carried.
    for name, paragraphs in sections.items():
        mine = [c.text for c in chunks if c.section == name]
        assert joiner.join(mine) == joiner.join(paragraphs)
    assert [c.section for c in chunks] == sorted((c.section for c in chunks), key=list(sections).index)


def test_english_document() -> None:
    pages, sections = _document(EN_SENTENCES, " ", seed=1)
    chunks = chunk_pages(pages)
    assert len(chunks) > 20
    _check_structure(chunks, sections, EN_SENTENCES, " ", EN_ENDINGS, 300, 800)
    sizes = [len(c.text) for c in chunks]
    assert sum(300 <= n <= 800 for n in sizes) / len(sizes) > 0.7
    assert any(len(p) > 800 for ps in sections.values() for p in ps)  # splitting was exercised


def test_chinese_document() -> None:
    pages, sections = _document(ZH_SENTENCES, "", seed=2)
    chunks = chunk_pages(pages, min_chars=120, max_chars=300)
    assert len(chunks) > 20
    _check_structure(chunks, sections, ZH_SENTENCES, "", ZH_ENDINGS, 120, 300)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_other_sizes(seed: int) -> None:
    pages, sections = _document(EN_SENTENCES, " ", seed=seed)
    chunks = chunk_pages(pages, min_chars=150, max_chars=400)
    _check_structure(chunks, sections, EN_SENTENCES, " ", EN_ENDINGS, 150, 400)


def test_pages_are_the_page_where_a_chunk_starts() -> None:
    long_para = _paragraph_between(400, 600)
    fragment = "The evaluation covers three datasets."  # much shorter than min_chars
    continued = "They differ in domain and in question style, and all are public."
    big = _paragraph_between(720, 800, start=5)  # too big to join the two above
    pages = [
        Page(1, f"# Intro\n\n{long_para}\n\n{fragment}"),
        Page(2, f"{continued}\n\n{big}"),
        Page(3, "# Results\n\nShort results paragraph."),
    ]
    chunks = chunk_pages(pages)
    assert [(c.section, c.page) for c in chunks] == [
        ("Intro", 1),
        ("Intro", 1),  # the fragment from page 1 pulls in the start of page 2
        ("Intro", 2),
        ("Results", 3),
    ]
    assert chunks[0].text == long_para
    assert chunks[1].text == f"{fragment} {continued}"
    assert chunks[2].text == big


def test_a_full_paragraph_does_not_cross_a_page() -> None:
    first = _paragraph_between(300, 500)
    pages = [Page(1, first), Page(2, "A short one.\n\n" + "Another sentence here. " * 10)]
    chunks = chunk_pages(pages)
    assert [c.page for c in chunks] == [1, 2]
    assert chunks[0].text == first
    assert chunks[1].text.startswith("A short one. Another sentence here.")


def test_headings_start_chunks_and_are_not_text() -> None:
    text = (
        "Preface before any heading.\n\n"
        "# 1 Introduction\n\nShort intro.\n\n"
        "# 2 Empty Section\n\n"
        "# 3 Method\nGlued to its heading by one newline.\n\nSecond paragraph."
    )
    chunks = chunk_text(text)
    assert [(c.section, c.text) for c in chunks] == [
        ("", "Preface before any heading."),
        ("1 Introduction", "Short intro."),
        ("3 Method", "Glued to its heading by one newline. Second paragraph."),
    ]


def test_short_paragraphs_merge_up_to_min() -> None:
    paragraphs = [f"Paragraph number {i} says one short thing about retrieval." for i in range(30)]
    chunks = chunk_text("\n\n".join(paragraphs), min_chars=200, max_chars=400)
    assert len(chunks) < len(paragraphs)
    assert all(200 <= len(c.text) <= 400 for c in chunks[:-1])
    assert " ".join(c.text for c in chunks) == " ".join(paragraphs)


@pytest.mark.parametrize(
    ("min_chars", "tail", "expected_chunks"),
    [
        (300, 50, 1),  # 50 < 300/3 and 790 + 1 + 50 <= 1000: merged into the previous chunk
        (300, 150, 2),  # not tiny: stays on its own
        (780, 250, 2),  # tiny (< 260), but merging would exceed max_chars * 1.25
        (780, 200, 1),  # tiny, and 790 + 1 + 200 <= 1000
    ],
)
def test_tiny_tail_of_a_section(min_chars: int, tail: int, expected_chunks: int) -> None:
    body = "x" * 789 + "."
    last = "y" * (tail - 1) + "."
    chunks = chunk_text(f"# S\n\n{body}\n\n{last}\n\n# T\n\nNext.", min_chars, 800)
    assert len([c for c in chunks if c.section == "S"]) == expected_chunks
    assert chunks[-1].section == "T"


def test_one_long_english_sentence_is_cut_after_commas() -> None:
    clause = "the loop searches the library for passages that mention the entity, "
    sentence = (clause * 40).strip().rstrip(",") + "."
    pieces = split_paragraph(sentence, 300)
    assert len(pieces) > 1
    assert all(len(p) <= 300 for p in pieces)
    assert all(p.endswith(",") for p in pieces[:-1])
    assert " ".join(pieces) == sentence
    chunks = chunk_text(sentence, min_chars=100, max_chars=300)
    assert all(len(c.text) <= 300 for c in chunks)


def test_one_long_sentence_without_commas_is_cut_at_spaces() -> None:
    sentence = " ".join(f"word{i}" for i in range(400)) + "."
    pieces = split_paragraph(sentence, 250)
    assert all(len(p) <= 250 for p in pieces)
    assert " ".join(pieces) == sentence  # cut at spaces, so no word is broken


def test_chinese_run_without_punctuation_is_cut_anywhere() -> None:
    sentence = "检索增强生成让语言模型的回答有据可查" * 60
    pieces = split_paragraph(sentence, 200)
    assert all(len(p) <= 200 for p in pieces)
    assert "".join(pieces) == sentence


def test_chinese_long_sentence_prefers_commas() -> None:
    sentence = "，".join(["检索增强生成让语言模型的回答有据可查"] * 40) + "。"
    pieces = split_paragraph(sentence, 200)
    assert all(len(p) <= 200 for p in pieces)
    assert all(p.endswith("，") for p in pieces[:-1])


def test_long_paragraph_is_split_into_balanced_pieces() -> None:
    para = " ".join(EN_SENTENCES[:12])
    assert 850 < len(para) < 1600
    pieces = split_paragraph(para, 800)
    assert len(pieces) == 2
    assert all(len(p) <= 800 for p in pieces)
    assert abs(len(pieces[0]) - len(pieces[1])) < 300  # not 800 + a remainder


def test_text_dropped_by_the_sentence_splitter_is_kept() -> None:
    # split_sentences drops a closing quote after a full stop; the chunk text must not.
    para = 'He said "stop." ' * 30 + "Then he left."
    assert " ".join(split_paragraph(para, 100)) == para


def test_whitespace_is_normalised() -> None:
    chunks = chunk_text("  Many   spaces\tand\nnewlines   here.  \n\n检索 增强\n生成。 BERT 模型。")
    # Spaces go only between two CJK characters; a CJK–Latin space is the author's.
    assert [c.text for c in chunks] == ["Many spaces and newlines here. 检索增强生成。 BERT 模型。"]


def test_empty_inputs() -> None:
    assert chunk_pages([]) == []
    assert chunk_text("   \n\n  ") == []
    assert chunk_text("# Only a heading") == []


def test_bad_limits() -> None:
    with pytest.raises(ValueError):
        chunk_text("x", min_chars=500, max_chars=100)


def test_many_paragraphs_are_fast() -> None:
    rng = random.Random(11)
    blocks = []
    for i in range(20_000):
        if i % 500 == 0:
            blocks.append(f"# Part {i}")
        blocks.append(_paragraph(rng, EN_SENTENCES, " ", 1, 3))
    text = "\n\n".join(blocks)
    start = time.process_time()
    chunks = chunk_text(text)
    elapsed = time.process_time() - start
    # Every paragraph now gets a kind (text.kinds.paragraph_kind): about 0.9 s of CPU for these
    # 20,000 paragraphs on an idle machine, 0.2 s before kinds. The bound catches quadratic
    # work (minutes); CPU time, and scaled by the load, so a shared machine does not trip it
    # (wall time reached 8 s at load 16).
    assert elapsed < bound(6.0), elapsed
    assert len({c.section for c in chunks}) == 40


def test_collapsed_white_space_is_the_split_words_joined() -> None:
    from paperpilot.core.text import whitespace

    # Only " " is both white space and printable: a printable text has no other white space.
    assert [c for c in map(chr, range(0x110000)) if c.isspace() and c.isprintable()] == [" "]
    rng = random.Random(7)
    pieces = ["a", "Wort", "“x”", "–", "©", "\u00ad", "\u200b", "\ue000", "好", " ", " ", "\n", "\n", *whitespace._ODD_SPACE]
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        assert whitespace.collapse_whitespace(text) == " ".join(text.split()), repr(text)
