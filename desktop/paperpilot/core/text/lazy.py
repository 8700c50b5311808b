"""Regular expressions compiled when first needed, and the test in C that often makes them unneeded.

An extraction worker is a fresh process per import, and Python compiles a regular expression in
Python code: a class over a CJK block alone costs a few milliseconds (one step per code point).
Patterns for text that a document may not have (Han characters in an English paper, OCR lines
on a born-digital page) are therefore compiled on first use, and ``has_char_from`` rules a
script out before such a pattern must run at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["has_char_from", "lazy_pattern"]


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
