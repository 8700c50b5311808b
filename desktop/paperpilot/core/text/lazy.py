"""Regular expressions compiled when first needed, and the test in C that often makes them unneeded.

An extraction worker is a fresh process per import, and Python compiles a regular expression in
Python code: a class over a CJK block alone costs a few milliseconds (one step per code point).
Patterns for text that a document may not have (Han characters in an English paper, OCR lines
on a born-digital page) are therefore compiled on first use, and ``has_char_from`` rules a
script out before such a pattern must run at all (``has_char_from_3000`` for Chinese, Japanese
and Korean in text of any length).
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["has_char_from", "has_char_from_3000", "lazy_pattern"]


def lazy_pattern(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A function that returns ``re.compile(pattern, flags)``, compiled on its first call."""
    compiled: list[re.Pattern[str]] = []

    def get() -> re.Pattern[str]:
        if not compiled:
            compiled.append(re.compile(pattern, flags))
        return compiled[0]

    return get


def has_char_from(text: str, lowest: str) -> bool:
    """Whether ``text`` has a character at code point ``lowest`` (not ASCII) or above.

    False means that no character class from ``lowest`` upwards can match anywhere in it; an
    ASCII string is known as such without a scan, any other costs one pass of ``max``. That pass
    is slower per character than a compiled class's search, so this is for short strings (a name,
    a line, a reference's authors), where it saves compiling the class, not for paragraphs.
    """
    return not text.isascii() and max(text) >= lowest


# The UTF-8 bytes that start a character from U+3000 up: three-byte forms of U+3000-U+FFFF start
# with E3-EF (0xE0 | code point >> 12), four-byte forms with F0-F4. Every other byte is lower
# (ASCII, two-byte leads C2-DF, the leads E0-E2 of U+0800-U+2FFF, continuation bytes 80-BF), so
# deleting every byte below E3 leaves something exactly when the text has a character from U+3000
# up (lone surrogates too, encoded with "surrogatepass" as ED xx xx).
_BELOW_E3 = bytes(range(0xE3))


def has_char_from_3000(text: str) -> bool:
    """``has_char_from(text, "\\u3000")`` for text of any length: every CJK character (Han, kana,
    hangul, CJK punctuation, full-width forms) is from U+3000 up. The test runs over the text's
    UTF-8 bytes because a str class reaching U+FFFF takes re milliseconds to compile (it visits
    every code point of the range), and it is several times faster than ``max``; the deletion in
    C is twice as fast as a bytes class's search."""
    return not text.isascii() and bool(text.encode("utf-8", "surrogatepass").translate(None, _BELOW_E3))
