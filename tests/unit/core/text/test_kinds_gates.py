"""The classifier's cheap gates and counts give what the patterns and slow forms they spare give,
on generated text with the characters each gate turns on (brackets, dashes, digits of other
scripts, sentence marks, the Kelvin sign)."""

from __future__ import annotations

import random
import re

import pytest

from paperpilot.core.text import kinds, language

_ALPHABET = (
    "aeiou tnsrl AEITS KPJWC ,.;:()[]\"“”!?'’- _=<>{}#`$|\\ 0123456789 ١٢٣ ０１ 。！？；」） –"
    " et al. 19 20 Journal of Conference on pp. doi İıK 的是 \n\t"
)
_PIECES = [*_ALPHABET.split(" "), " ", " ", " "]


# The pieces of citations and bibliography marks, for text that the patterns match now and then.
_MARK_PIECES = [
    *"()[]", "Smith", "Lo", "et al.", "et al", "2019", "1999", "2020a", "12", "3", "–", "-", ", ", "; ", " ", " ",
    " ", "pages ", "Journal of ", "Workshop on", ").", ".", " and ", "see ", "e.g., ", "a", "١", "Proc. of ", "A.",
    "J. ", "pp. ", "vol. 3", "arXiv:", "doi:", "https://x", "In: ", "ISBN", "[J]", "Proceedings of ",
]  # fmt: skip


def _texts(n: int, seed: int, pieces: list[str] = _PIECES) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 40))) for _ in range(n)]


_CORPUS = [
    *_texts(3000, 1),
    *_texts(3000, 4, _MARK_PIECES),
    "Lo et al. (2020). Smith (2019) [12, 14] (Wang et al., 2020; Doe, 2017). pages 12–19.",
    "Journal of Things 12-19. Transactions on X. (1999).",
    "x = f(a); y = {b: c}; # note `code` $x | y \\ z <a> _b",
    "Table 1: 3.5, 12,000 and 35.6% of ١٢ K-means. It ends! Or? Yes。好的！",
]


def test_function_words_in_any_case_are_the_lowercased_ones() -> None:
    odd = [chr(c) for c in range(0x80, 0x110000) if chr(c).lower().isascii()]
    assert odd == ["\u212a"]  # the Kelvin sign lowercases to "k", which no function word has
    assert not any("k" in w for w in kinds._FUNCTION)
    rng = random.Random(2)
    for w in kinds._FUNCTION:
        spelt = "".join(c.upper() if rng.random() < 0.5 else c for c in w)
        assert spelt in kinds._FUNCTION_CASED
    for t in ["The", "THE", "tHe", "İn", "ın", "Theme", "", "K", *_CORPUS[:500]]:
        assert (t in kinds._FUNCTION_CASED) == (t.lower() in kinds._FUNCTION), t


def test_tokens_are_the_word_patterns_matches() -> None:
    for text in _CORPUS:
        assert sorted(kinds._tokens(text)) == sorted(kinds._WORD.findall(text)), text


def test_gated_marks_and_citations_are_the_patterns() -> None:
    found = 0
    for text in _CORPUS:
        if not kinds._weak_possible(text):
            assert kinds._REF_WEAK.findall(text) == [], text
        if not kinds._strong_possible(text):
            assert kinds._REF_STRONG.findall(text) == [], text
        assert kinds.strip_in_text_citations(text) == kinds._IN_TEXT.sub(" ", text), text
        found += len(kinds._REF_WEAK.findall(text)) + len(kinds._IN_TEXT.findall(text))
        found += len(kinds._REF_STRONG.findall(text))
    assert found > 100  # the texts exercise the patterns


def test_code_symbols_and_digits_are_counted_as_the_class_and_count_find_them() -> None:
    symbols = re.compile(r"[{}()\[\];=<>_#`$|\\]")
    for text in [*_CORPUS, "\ud800{x}"]:  # a lone surrogate too
        assert kinds._ascii_bytes_in(text, kinds._CODE_BYTES) == len(symbols.findall(text)), text
        assert kinds._ascii_bytes_in(text, kinds._DIGIT_BYTES) == sum(map(text.count, "0123456789")), text


def _plainly_prose_with_any_digit(text: str, low: str, cjk: bool) -> bool:
    # _plainly_prose as it was, with "\d" (any script's digits) for the ASCII digits' test.
    digit = re.search(r"\d", text) is not None
    if kinds._SUSPECT_INITIAL.search(text) or (digit and kinds._SUSPECT_YEAR.search(text)):
        return False
    if cjk:
        return kinds._plainly_prose(text, low, cjk)
    words = low.split(maxsplit=60)
    if len(words) < 8:
        return False
    head = words[:60]
    return sum(map(kinds._FUNCTION.__contains__, head)) >= 0.15 * len(head) and (
        not digit or sum(map(low.count, "0123456789")) < 0.1 * len(low)
    )


@pytest.mark.parametrize(
    "text",
    [
        "the model of the data is in the set and it is on the way to the end ١٢٣",
        "the model of the data is in the set and it is on the way to the end ٢٠١٩. The",
        "the model of the data is in the set and 1999. The way to the end of it",
        "the of and to in a is 12 34 56 78 90 12 34 56 78 90 12 34 56 ٣",
    ],
)
def test_plain_prose_needs_only_ascii_digits(text: str) -> None:
    for t in [text, *_texts(300, 3)]:
        low = t.lower()
        cjk = language.has_cjk(t)
        assert kinds._plainly_prose(t, low, cjk) == _plainly_prose_with_any_digit(t, low, cjk), t


def _split_sentences_in_full(text: str) -> list[str]:
    text = text.strip()
    if not text:
        return []
    boundary = language._en_boundary_han() if language.has_char_from_3000(text) else language._EN_BOUNDARY
    pieces = [p for part in language._split_zh(text) for p in language._split_en(part, boundary)]
    return [p.strip() for p in pieces if p.strip()]


def test_sentences_without_marks_are_split_as_in_full() -> None:
    for text in _CORPUS:
        assert language.split_sentences(text) == _split_sentences_in_full(text), text



def test_the_odd_letters_are_the_only_ones_beyond_ascii_that_match_an_ascii_letter() -> None:
    beyond = "".join(map(chr, range(0x80, 0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))
    matching = {c for letter in "abcdefghijklmnopqrstuvwxyz" for c in re.findall(letter, beyond, re.IGNORECASE)}
    assert matching == set(kinds._ODD_LETTERS)


def test_text_beyond_ascii_without_the_words_or_odd_letters_skips_the_patterns_rightly() -> None:
    pieces = ["We ", "thank ", "Thanks ", "the ", "reviewers", " are ", "grateful", "supported ", "by ", "–", "“", "”",
              "é", "©", "all ", "rights ", "resérved", "licensed ", "under ", "CC BY 4.0", "Creative Commons", "fictional",
              "data ", "is ", "ſupported", "x = f(y); ", "Smith, J. 2019. ", "0.5 0.7 ", "a b ", "Figure 2: ", ". ", ", "]  # fmt: skip
    rng = random.Random(5)
    checked = 0
    for _ in range(6000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 14))).strip()
        low = text.lower()
        if not text or text.isascii() or any(w in low for w in kinds._OTHER_KIND_WORDS):
            continue
        if any(c in text for c in kinds._ODD_LETTERS) or language.has_cjk(text):
            continue
        assert kinds._content_kind(text, unmarked=True) == kinds._content_kind(text), text
        checked += 1
    assert checked > 300
