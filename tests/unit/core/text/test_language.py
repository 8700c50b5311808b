from __future__ import annotations

from paperpilot.core.text.language import (
    cjk_bigrams,
    detect_language,
    first_sentences,
    query_terms,
    split_sentences,
)


def test_sentences_english_keeps_abbreviations() -> None:
    s = split_sentences("We follow Smith et al. 2020 closely. Fig. 3 shows it! Does it? Yes, e.g. here.")
    assert s == ["We follow Smith et al. 2020 closely.", "Fig. 3 shows it!", "Does it?", "Yes, e.g. here."]


def test_sentences_chinese_punctuation() -> None:
    s = split_sentences("我们提出了一种方法。它有效吗？有效！但有局限；需要更多数据。")
    assert s == ["我们提出了一种方法。", "它有效吗？", "有效！", "但有局限；", "需要更多数据。"]


def test_sentences_mixed() -> None:
    s = split_sentences("BERT 是一种模型。It uses attention. 结果很好。")
    assert s == ["BERT 是一种模型。", "It uses attention.", "结果很好。"]


def test_query_terms_drop_stopwords_and_syntax() -> None:
    assert query_terms('What is the difference between "AND" (BERT) and GPT-2?') == [
        "difference",
        "bert",
        "gpt-2",
    ]
    assert query_terms("什么是请假流程？") == ["请假流程"]
    # Only stopwords: keep them rather than return nothing.
    assert query_terms("what is it") == ["what", "is", "it"]


def test_cjk_bigrams() -> None:
    assert cjk_bigrams("请假流程 and 好") == ["请假", "假流", "流程", "好"]


def test_detect_language() -> None:
    assert detect_language("This is an English sentence about transformers.") == "en"
    assert detect_language("这是一个关于注意力机制的中文句子，包含 BERT 一词。") == "zh"
    assert detect_language("  ... ") == ""


def test_first_sentences_truncates() -> None:
    text = "One short sentence. " + "word " * 200
    out = first_sentences(text, 2, max_chars=100)
    assert out.startswith("One short sentence.")
    assert len(out) <= 101 and out.endswith("…")


def test_sentences_keep_closing_quotes() -> None:
    assert split_sentences('He said "stop." Then he left.') == ['He said "stop."', "Then he left."]
    assert split_sentences("He said “stop.” Then he left.") == ["He said “stop.”", "Then he left."]
    assert split_sentences("We thank the U.S. Army. It helped.") == ["We thank the U.S. Army.", "It helped."]


def test_has_cjk_is_the_one_cjk_rule() -> None:
    """Han of every block (extension B holds characters of real names), kana and hangul are CJK;
    the Yijing hexagrams between extension A and the unified block, and Latin, are not."""
    from paperpilot.core.citations.lookup import name_from_string
    from paperpilot.core.text.language import has_cjk

    for text in ("中文", "㐀", "豈", "𠮷野", "\U00030000", "かな", "カナ", "한국어"):
        assert has_cjk(text), text
    for text in ("䷀", "Ωmega", "naïve café", "", "2024"):
        assert not has_cjk(text), text
    # The citation rules use the same one: a name with an extension-B character stays whole.
    assert name_from_string("𠮷田 太郎").literal == "𠮷田 太郎"
    assert name_from_string("䷀ Smith").family == "Smith"
