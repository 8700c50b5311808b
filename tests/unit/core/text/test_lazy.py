"""Patterns compiled on first use, and the script test that makes most of them unneeded."""

from __future__ import annotations

import re

from paperpilot.core.extract.metadata.names import (
    has_cjk,
    is_cjk_char,
    looks_like_person,
    persons_in_line,
    to_name,
)
from paperpilot.core.text.lazy import has_char_from, lazy_pattern


def test_a_lazy_pattern_is_compiled_once_on_first_use() -> None:
    get = lazy_pattern(r"[\u4e00-\u9fff]+", re.IGNORECASE)
    rx = get()
    assert rx is get() and rx.flags & re.IGNORECASE
    assert rx.findall("ab 汉字 cd 中") == ["汉字", "中"]


def test_has_char_from_rules_out_a_script_exactly() -> None:
    assert not has_char_from("", "\u3400") and not has_char_from("plain ASCII", "\u3400")
    assert not has_char_from("naïve – “quoted” ≤ 3", "\u3400")  # not ASCII, yet nothing that high
    assert has_char_from("a ﬁ ligature", "\u3400")  # (U+FB01 is above: then the pattern decides)
    assert has_char_from("x 㐀", "\u3400") and has_char_from("\uffff", "\u3400") and not has_char_from("\u33ff", "\u3400")


def test_han_characters_are_told_as_before() -> None:
    for ch in ("\u3400", "\u4dbf", "\u4e00", "汉", "\u9fff", "\uf900", "\ufaff"):
        assert is_cjk_char(ch) and has_cjk(f"a{ch}b")
    for ch in ("a", "\u33ff", "\u4dc0", "\ua000", "\uf8ff", "\ufb00", "。", "ア"):
        assert not is_cjk_char(ch) and not has_cjk(f"a{ch}b")
    assert looks_like_person("张 三") and not looks_like_person("第二章")
    assert to_name("王 明远") == {"literal": "王明远"}
    assert persons_in_line("张 津  王明远") == ["张津", "王明远"]
    assert persons_in_line("Kyle Lo, Lucy Lu Wang") == ["Kyle Lo", "Lucy Lu Wang"]


def test_cjk_text_is_found_whatever_else_is_above_the_class_start() -> None:
    from paperpilot.core.text.language import cjk_ratio, has_cjk

    for cjk in ("\u3040", "カ", "한", "汉", "\U00020000", "\U000323af"):
        assert has_cjk(f"x{cjk}") and cjk_ratio(f"ab{cjk}") > 0
    for other in ("plain", "naïve ≤", "\u303f", "\ue000 bullet", "ﬁ", "\ufffd", "\U0001f600"):
        assert not has_cjk(other) and cjk_ratio(other) == 0.0


def test_the_test_for_characters_from_u3000_is_has_char_from() -> None:
    from paperpilot.core.text.lazy import has_char_from_3000

    for c in range(0x110000):  # every code point, lone surrogates too
        ch = chr(c)
        assert has_char_from_3000(f"é{ch}") == (ch >= "\u3000"), hex(c)
    assert not has_char_from_3000("") and not has_char_from_3000("ASCII only")
