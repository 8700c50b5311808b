"""Years named in words: the one parser for "近三年", "the last five years", "since 2023", "2020–2022",
"between 2020 and 2022", "in 2024", "2023年以来", read against ``clock.today()``.

``find_years`` returns the range with where it was said (so a question's topic can leave the words
out) and whether it was relative to the clock; ``parse_years`` only the range. Both the workflows
(a matrix or a draft over "近三年") and the agent (a synthesis question's scope) read years here.

Conventions, as researchers say them: "the last three years" / "近三年" are this year and the two
before it; "since 2020" / "2020年以来" run to this year; "after 2020" and "before 2020" leave 2020
out, "2020年以后" keeps it (that is how it is read in Chinese); "in 2024", "the 2023 papers", "2021年"
name one year. A year glued to a name ("BERT-2020", "GPT2020") is a name, never a year, and a bare
year in front of a singular noun ("the 2019 survey") names a paper, not a range.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from ..clock import today

_EN_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "a couple of": 2, "couple of": 2,
}  # fmt: skip
_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}

# A count of years: digits, English words, or a Chinese numeral up to 九十九 (三, 十, 十五, 二十).
_N = r"(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|(?:a\s+)?couple\s+of|[一二两三四五六七八九十]{1,3})"
# A year of the 20th or 21st century that is not part of a name or a longer number.
_Y = r"(?<![A-Za-z0-9_\-./])((?:19|20)\d{2})(?![0-9A-Za-z\-])"
_Y1 = r"(?<![A-Za-z0-9_\-./])((?:19|20)\d{2})(?!\d)"  # the first year of a range: a dash may follow
_Y2 = r"((?:19|20)\d{2})(?![0-9A-Za-z\-])"  # the second year of a range: after its separator
_PAPERS = r"(?:papers|studies|articles|publications|works|reviews|preprints|theses|ones)"

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("between", rf"\bbetween\s+{_Y}\s+and\s+{_Y2}"),
        ("range", rf"(?:\bfrom\s+)?{_Y1}\s*年?\s*(?:[–—~-]|to|until|through|至|到)\s*{_Y2}\s*年?(?:间|之间)?"),
        ("last_n", rf"(?:近|最近|过去|近来)\s*{_N}\s*年(?:来|间|内|中)?"
                   rf"|\b(?:in\s+|over\s+|during\s+|within\s+|from\s+)?(?:the\s+)?(?:last|past|recent|previous)\s+{_N}\s+years?\b"),
        ("decade", r"\b(?:in\s+|over\s+|from\s+)?(?:the\s+)?(?:last|past|previous)\s+decade\b"),
        ("decades", rf"\b(?:in\s+|over\s+|from\s+)?(?:the\s+)?(?:last|past|previous)\s+{_N}\s+decades\b"),
        ("the_s", r"(?:\bin\s+)?(?:the\s+)?(?<![\w\-])((?:19|20)\d0)s\b|((?:19|20)\d0)\s*年代"),
        ("since", rf"\bsince\s+{_Y}|\bfrom\s+{_Y}\s*(?:on(?:wards?)?|and\s+later)\b|{_Y}\s*(?:onwards?|and\s+later)\b"
                  rf"|{_Y}\s*年?\s*(?:以来|至今|起|之后|以后)"),
        ("after", rf"\bafter\s+{_Y}"),
        ("before", rf"\bbefore\s+{_Y}|{_Y}\s*年?\s*(?:以前|之前)"),
        ("until", rf"\b(?:until|up\s+to|through)\s+{_Y}"),
        ("this_year", r"\bthis\s+year\b|今年(?:以来)?"),
        ("last_year", r"\b(?:the\s+)?(?:last|past)\s+year\b|去年以来|近一年|最近一年"),
        ("prev_year", r"去年"),
        ("single", rf"\b(?:in|from|during|of)\s+{_Y}|{_Y}\s+{_PAPERS}\b|{_Y}\s*年(?!代)"),
    )
)


@dataclass(frozen=True)
class YearSpan:
    """A year range said in words: ``start``/``end`` (None: open), the words (``said``) and where
    they stand in the text (``begin``, ``stop``), and whether they were relative to the clock."""

    start: int | None
    end: int | None
    said: str
    begin: int
    stop: int
    relative: bool

    @property
    def years(self) -> tuple[int | None, int | None]:
        return (self.start, self.end)


def count(word: str) -> int:
    """A count of years as written: "3", "three", "三", "十五", "二十", "a couple of"."""
    w = " ".join(word.lower().split())
    if w.isdigit():
        return int(w)
    if w in _EN_NUMBERS:
        return _EN_NUMBERS[w]
    if "十" in w:
        tens, _, ones = w.partition("十")
        return (_ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0) if ones else 0)
    return _ZH_DIGITS[w]


def _first(m: re.Match[str]) -> str:
    return next(g for g in m.groups() if g)


def _years(name: str, m: re.Match[str], year: int) -> tuple[int | None, int | None, bool]:
    if name in ("between", "range"):
        a, b = (int(g) for g in m.groups() if g)
        return min(a, b), max(a, b), False
    if name == "last_n":
        return year - count(_first(m)) + 1, year, True
    if name == "decade":
        return year - 9, year, True
    if name == "decades":
        return year - 10 * count(_first(m)) + 1, year, True
    if name == "the_s":
        start = int(_first(m))
        return start, start + 9, False
    if name == "since":
        return int(_first(m)), year, False
    if name == "after":
        return int(_first(m)) + 1, year, False
    if name == "before":
        return None, int(_first(m)) - 1, False
    if name == "until":
        return None, int(_first(m)), False
    if name == "this_year":
        return year, year, True
    if name == "last_year":
        return year - 1, year, True
    if name == "prev_year":
        return year - 1, year - 1, True
    single = int(_first(m))
    return single, single, False


def find_years(text: str, now: date | None = None) -> YearSpan | None:
    """The year range ``text`` names and where, relative to ``now`` (default ``clock.today()``),
    or None. The first rule that matches wins: ranges, then counts back from now, decades, open
    ranges, this / last year, and a single year last."""
    year = (now or today()).year
    for name, rx in _RULES:
        m = rx.search(text)
        if m is None:
            continue
        start, end, relative = _years(name, m, year)
        return YearSpan(start, end, " ".join(m.group().split()), m.start(), m.end(), relative)
    return None


def parse_years(text: str, now: date | None = None) -> tuple[int | None, int | None] | None:
    """The year range ``text`` names, relative to ``now`` (default ``clock.today()``), or None.

    "近三年" and "the last three years" are the current year and the two before it (in 2026:
    2024–2026), as a researcher says it; "since 2020" runs to this year."""
    found = find_years(text, now)
    return found.years if found is not None else None


__all__ = ["YearSpan", "count", "find_years", "parse_years"]
