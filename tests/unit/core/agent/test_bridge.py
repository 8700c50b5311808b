"""Cross-language search terms offline: a question's words through the dictionary."""

from __future__ import annotations

from collections.abc import Sequence

from paperpilot.core.agent.analysis import analyze
from paperpilot.core.agent.bridge import WHY, bridge, in_library_first, zh_words
from paperpilot.core.agent.state import AgentState, dictionary_terms
from paperpilot.core.agent.support import Bridges, stems
from paperpilot.core.text.bilingual import dictionary


def test_latin_terms_are_kept_as_written() -> None:
    for q, names in (
        ("BRCA1突变与乳腺癌有什么关系？", ["BRCA1"]),
        ("p53 蛋白的功能是什么？", ["p53"]),
        ("BERT 和 LoopAgent 有什么区别？", ["BERT", "LoopAgent"]),
        ("S2ORC 包含多少篇论文？", ["S2ORC"]),
    ):
        b = bridge(analyze(q))
        assert all(n in b.as_written for n in names), (q, b.as_written)
        assert b.terms()[: len(names)] == b.as_written[: len(names)]


def test_chinese_concepts_become_ranked_english_terms() -> None:
    b = bridge(analyze("乳腺癌的基因突变与蛋白质有什么关系？"))
    words = dict(b.pairs)
    assert words["乳腺癌"][0] == "breast cancer" and words["蛋白质"][0] == "protein"
    assert "mutation" in " ".join(b.terms(2))
    assert ("蛋白质", "protein", WHY) in b.records()


def test_words_about_the_library_or_the_task_are_never_concepts() -> None:
    for q in ("S2ORC 包含多少篇论文？", "总结这些论文的研究方向", "库中关于BRCA1突变的研究有哪些进展？"):
        a = analyze(q)
        b = bridge(a)
        bridged = list(b.concept_of)  # (a counted "多少篇论文" is searched, but is no concept)
        for generic in ("论文", "研究", "库中", "这些", "进展", "方向", "总结"):
            assert generic not in a.concepts and generic not in bridged, (q, generic)
            assert all(generic not in str(p.why) for p in a.parts), (q, generic)
    assert analyze("总结这些论文的研究方向").key_concepts() == []
    assert zh_words("研究方向", dictionary()) == []


def test_english_question_bridges_to_chinese_without_task_words() -> None:
    b = bridge(analyze("What does the library say about corpus papers?"))
    assert all(w.lower() not in ("library", "papers", "paper") for w, _ in b.pairs)
    assert any("语料库" in alts for _, alts in b.pairs)


def test_dictionary_terms_take_each_words_first_sense_first() -> None:
    st = AgentState(question="x")
    st.bridge_terms += [("突变", "mutation", WHY), ("突变", "sudden change", WHY), ("蛋白质", "protein", WHY),
                        ("", "cue", "the column's cue phrase")]  # fmt: skip
    assert dictionary_terms(st) == ["mutation", "protein", "sudden change"]


def test_a_bridged_word_covers_the_chinese_concept_that_holds_it() -> None:
    b = Bridges()
    b.add("解析", "analysis", WHY)
    assert b.in_phrase("方法解析") == {"解析": b.alternatives("解析")}
    assert not b.in_phrase("方法") and not b.in_phrase("parsing")


def test_a_concept_of_several_words_needs_each_of_them() -> None:
    b = bridge(analyze("量子计算机的纠错方法有哪些？"))
    groups = b.groups("量子计算机")
    assert ["quantum"] in groups and any("computer" in g for g in groups)
    assert all("method" not in g for g in b.groups("纠错方法"))  # the generic word only alone


def test_the_counted_thing_is_searched_though_it_is_a_task_word() -> None:
    b = bridge(analyze("S2ORC 包含多少篇论文？"))
    assert ("论文", ["paper"]) in b.pairs and "论文" not in b.concept_of
    assert "paper" in b.terms()


def test_senses_the_library_uses_come_first() -> None:
    assert in_library_first(["bloom", "open", "be open"], {"open": 3, "bloom": 0}) == ["open", "bloom", "be open"]
    # None used: the dictionary's order stands (the library check then finds the concept absent).
    assert in_library_first(["bloom", "open"], {}) == ["bloom", "open"]


def test_the_library_picks_among_a_words_senses() -> None:
    a = analyze("S2ORC 的开放论文有全文吗？")
    assert dict(bridge(a).pairs)["开放"][0] == "bloom"  # the dictionary's first sense
    asked: list[list[str]] = []

    def present(terms: Sequence[str]) -> dict[str, int]:
        asked.append(list(terms))
        return {t: 5 for t in terms if t in ("open", "full text")}

    b = bridge(a, present=present)
    assert dict(b.pairs)["开放"][0] == "open" and dict(b.pairs)["全文"][0] == "full text"
    assert len(asked) == 1 and "bloom" in asked[0]  # one batched look-up over every candidate sense


def test_a_failing_count_leaves_the_dictionary_order() -> None:
    def broken(_terms: Sequence[str]) -> dict[str, int]:
        raise OSError("index damaged")

    a = analyze("S2ORC 的开放论文有全文吗？")
    assert bridge(a, present=broken).pairs == bridge(a).pairs


def test_asking_for_advice_is_the_task_not_a_concept() -> None:
    a = analyze("针对长篇摘要的人工评估，作者提出了哪些建议？")
    assert "建议" not in a.concepts and "建议" not in a.key_concepts()
    assert "建议" not in bridge(a).concept_of


def test_a_sense_of_several_words_is_held_only_whole() -> None:
    b = Bridges()
    b.add("内存", "random access memory", WHY)
    b.add("内存", "computer memory", WHY)
    b.add("蛋白质", "protein", WHY)
    open_access = set(stems("This article is open access, with full text online."))
    assert "access" in b.alternatives("内存")  # the stems still stand for it in a claim's words
    assert not b.held("内存", open_access)
    assert b.held("内存", set(stems("Lookups run on random access memory, not disk.")))
    assert b.held("蛋白质", set(stems("The protein repairs DNA.")))
    assert not b.held("蛋白质", open_access)


