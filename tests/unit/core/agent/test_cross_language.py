"""Chinese questions over an English library, offline: bridged through the dictionary end to end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.core.agent.events import Finished, Info, Result, Status, ToolResult
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths

PAPERS = {
    "brca.txt": "BRCA1 mutations and breast cancer risk\n\nCarriers of a BRCA1 mutation have a lifetime breast "
                "cancer risk of about 70 percent. The BRCA1 protein repairs double-strand DNA breaks by "
                "homologous recombination.\n",
    "corpus.txt": "S2ORC: a corpus of scholarly papers\n\nS2ORC contains 81.1 million English-language academic "
                  "papers spanning many academic disciplines. The corpus provides full text for 8.1 million open "
                  "access papers.\n",
    "loop.txt": "LoopAgent: an agent loop for retrieval\n\nLoopAgent replaces a fixed retrieval pipeline with a loop "
                "that searches, reads and answers. A limitation of LoopAgent is that every round costs a model "
                "call, so long questions are slower than with a fixed pipeline.\n",
}  # fmt: skip


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    root = tmp_path_factory.mktemp("english")
    for name, text in PAPERS.items():
        (root / name).write_text(text, encoding="utf-8")
    lib = Library(app_paths(root / "home"))
    assert not lib.import_paths(sorted(root.glob("*.txt"))).failed
    assert lib.language_mix() == {"en": 1.0}
    yield lib
    lib.close()


def ask(lib: Library, question: str) -> tuple[Result, list[object]]:
    events = list(run_agent(question, lib, OfflinePolicy(), AgentOptions(mode="loop")))
    last = events[-1]
    assert isinstance(last, Finished)
    assert "language model" not in last.result.answer and "语言模型" not in last.result.answer
    return last.result, events


@pytest.mark.parametrize(
    ("question", "key"),
    [
        ("BRCA1突变携带者的乳腺癌风险是多少？", "lifetime breast cancer risk"),
        ("乳腺癌的终生风险有多高？", "lifetime breast cancer risk"),  # no Latin-script term at all
        ("S2ORC 包含多少篇论文？", "81.1 million"),
        ("LoopAgent的局限是什么？", "A limitation of LoopAgent"),
    ],
)
def test_chinese_question_cites_the_english_passage(library: Library, question: str, key: str) -> None:
    r, events = ask(library, question)
    assert r.status in (Status.ANSWERED, Status.PARTIAL), r.answer
    assert any(key in e.text for e in r.evidence)
    assert r.answer.startswith("以下引自英文文献：")
    assert not any("论文" in m for m in r.missing)  # a word about the task is never missing
    searches = [e.query for e in events if isinstance(e, ToolResult) and e.tool == "search"]
    assert searches and not any("\u4e00" <= ch <= "\u9fff" for ch in searches[0])  # searched in English
    bridge = next(e for e in events if isinstance(e, Info) and e.code == "bridge")
    assert bridge.data["terms"]


def test_bridged_pairs_are_recorded_as_dictionary_bridge_terms(library: Library) -> None:
    _, events = ask(library, "乳腺癌的终生风险有多高？")
    bridge = next(e for e in events if isinstance(e, Info) and e.code == "bridge")
    assert ["乳腺癌", ["breast cancer"]] in bridge.data["pairs"]


def test_chinese_question_about_a_subject_the_library_lacks_says_so_in_chinese(library: Library) -> None:
    r, events = ask(library, "量子计算机的纠错方法是什么？")
    assert r.status == Status.INSUFFICIENT
    assert r.answer.startswith("你的文献库里没有关于")
    assert not r.evidence
    check = next(e for e in events if isinstance(e, Info) and e.code == "library_check")
    assert check.data["absent"]


def test_chinese_question_on_the_subject_but_not_the_fact_is_not_answered(library: Library) -> None:
    r, _ = ask(library, "S2ORC 的作者来自哪个国家？")
    assert r.status != Status.ANSWERED


def test_english_question_over_chinese_papers_searches_chinese_words(tmp_path: Path) -> None:
    (tmp_path / "bird.txt").write_text(
        "城市公园植被结构与鸟类多样性\n\n城市公园的乔木层盖度越高，鸟类多样性越高。灌木层为鸟类提供了筑巢的场所。\n",
        encoding="utf-8",
    )
    lib = Library(app_paths(tmp_path / "home"))
    try:
        assert not lib.import_paths([tmp_path / "bird.txt"]).failed
        r, events = ask(lib, "How does vegetation structure affect bird diversity in urban parks?")
    finally:
        lib.close()
    searches = [e.query for e in events if isinstance(e, ToolResult) and e.tool == "search"]
    assert "植被" in searches[0] and "公园" in searches[0]
    assert r.status in (Status.ANSWERED, Status.PARTIAL)
    assert r.answer.startswith("Quoted from Chinese papers:")
    assert any("乔木层盖度" in e.text for e in r.evidence)


def test_a_chinese_partial_answer_is_framed_in_chinese(library: Library) -> None:
    r, _ = ask(library, "S2ORC 的作者来自哪个国家？")
    assert r.status == Status.PARTIAL, r.answer
    assert "Partial answer" not in r.answer and "I could not find" not in r.answer
    assert "部分回答——读过的段落没有涉及：" in r.answer and "“国家”" in r.answer


def test_the_library_picks_the_bridged_sense(library: Library) -> None:
    """开放 is "bloom" first in the dictionary; the library writes "open" (access)."""
    _, events = ask(library, "S2ORC 的开放论文有全文吗？")
    bridge = next(e for e in events if isinstance(e, Info) and e.code == "bridge")
    assert dict((w, alts) for w, alts in bridge.data["pairs"])["开放"][0] == "open"


def test_one_word_of_a_phrase_sense_does_not_cover_a_concept(library: Library) -> None:
    """内存 is "random access memory" among its senses; "open access" holds none of its meaning."""
    r, _ = ask(library, "S2ORC 的开放获取论文需要多少内存？")
    assert r.status != Status.ANSWERED, r.answer
    assert any("内存" in m for m in r.missing)


def test_the_dictionarys_words_are_searched_as_keywords(library: Library) -> None:
    """Embedded together, a bag of candidate senses (wrong ones too) finds passages by a meaning
    the question does not have: the bridged first search is a keyword search; English is not."""
    from paperpilot.core.agent.events import ActionChosen

    def first_search(events: list[object]) -> dict[str, object]:
        return next(e.action for e in events if isinstance(e, ActionChosen) and e.action.get("action") == "search")

    _, events = ask(library, "乳腺癌的终生风险有多高？")
    assert first_search(events)["mode"] == "keyword"
    english = list(run_agent("What is the lifetime breast cancer risk?", library, OfflinePolicy(), AgentOptions(mode="loop")))
    assert first_search(english).get("mode") is None


CHINESE_PAPER = (
    "深度学习在遥感影像分类中的应用\n\n本文提出一种卷积神经网络方法，用于高分辨率遥感影像的地物分类。"
    "在两个公开数据集上，该方法的总体精度达到百分之九十二。\n"
)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """Mostly English papers and one Chinese one: the question's language is in the library, but
    the answer is in an English paper (the usual library of a Chinese researcher)."""
    root = tmp_path_factory.mktemp("mixed")
    for name, text in PAPERS.items():
        (root / name).write_text(text, encoding="utf-8")
    (root / "zh.txt").write_text(CHINESE_PAPER, encoding="utf-8")
    lib = Library(app_paths(root / "home"))
    assert not lib.import_paths(sorted(root.glob("*.txt"))).failed
    assert lib.language_mix() == {"en": 0.75, "zh": 0.25}
    yield lib
    lib.close()


@pytest.mark.parametrize(
    ("question", "key"),
    [
        ("乳腺癌的终生风险有多高？", "lifetime breast cancer risk"),
        ("S2ORC 包含多少篇论文？", "81.1 million"),
    ],
)
def test_mixed_library_chinese_question_finds_the_english_paper(mixed: Library, question: str, key: str) -> None:
    r, events = ask(mixed, question)
    assert r.status in (Status.ANSWERED, Status.PARTIAL), r.answer
    assert any(key in e.text for e in r.evidence)
    assert r.answer.startswith("以下引自英文文献：")  # every quote is English
    bridge = next(e for e in events if isinstance(e, Info) and e.code == "bridge")
    assert bridge.data["terms"]
    check = next(e for e in events if isinstance(e, Info) and e.code == "library_check")
    assert not check.data["absent"]


def test_mixed_library_chinese_question_about_the_chinese_paper_quotes_it_as_it_is(mixed: Library) -> None:
    r, _ = ask(mixed, "遥感影像分类方法的总体精度是多少？")
    assert r.status in (Status.ANSWERED, Status.PARTIAL), r.answer
    assert any("总体精度" in e.text for e in r.evidence)
    assert not r.answer.startswith("以下引自英文文献")


def test_mixed_library_subject_nowhere_in_either_language_stops(mixed: Library) -> None:
    r, _ = ask(mixed, "量子计算机的纠错方法是什么？")
    assert r.status == Status.INSUFFICIENT
    assert not r.evidence


def test_related_english_passages_come_after_the_chinese_not_found_line(library: Library) -> None:
    r, _ = ask(library, "S2ORC 的论文来自哪些出版商？")
    assert r.status == Status.INSUFFICIENT
    first, second = r.answer.splitlines()[:2]
    assert first.startswith("没有找到") and second == "以下引自英文文献："
