"""Language helpers shared by the chunker, the index and the agent: CJK, sentences, terms."""

from __future__ import annotations

import re
from collections.abc import Iterable

from .lazy import has_char_from_3000, lazy_pattern

# Han ideographs (extension A, the unified block, the compatibility block and the supplementary
# planes' extensions B-H, which hold rare characters of Chinese and Japanese names), kana and
# hangul syllables: the one definition of "CJK" (the Yijing hexagram symbols between extension A
# and the unified block are not writing).
_CJK_CLASS = (
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f\U00030000-\U000323af"
    "\u3040-\u30ff\uac00-\ud7af"
)
# Compiled on first use (core.text.lazy), and asked only about text with a character from U+3000
# up (every character of the class is): English text, most of an import, never needs it.
_CJK_CHAR = lazy_pattern(f"[{_CJK_CLASS}]")
# Compiled on first use: an extraction worker never needs these two.
cjk_run = lazy_pattern(f"[{_CJK_CLASS}]+")
# A "word" for query purposes: Latin/digit runs (with inner hyphen/apostrophe/dot) or a CJK run.
_WORD = lazy_pattern(rf"[{_CJK_CLASS}]+|[^\W_]+(?:[-'.][^\W_]+)*", re.UNICODE)

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "did",
        "does",
        "tell",
        "give",
        "show",
        "find",
        "list",
        "explain",
        "describe",
        "please",
        "versus",
        "vs",
        "whose",
        "many",
        "much",
        "one",
        "two",
        "first",
        "second",
        "there's",
        "what's",
        "which's",
    ]
)
ZH_STOPWORDS = frozenset(
    [
        "的",
        "了",
        "是",
        "在",
        "和",
        "与",
        "及",
        "或",
        "吗",
        "呢",
        "吧",
        "啊",
        "什么",
        "怎么",
        "如何",
        "哪些",
        "哪个",
        "为什么",
        "请问",
        "一下",
        "有",
        "没有",
        "这个",
        "那个",
        "我",
        "你",
        "他",
        "们",
        "请",
        "告诉",
        "介绍",
        "关于",
        "对于",
        "以及",
        "一个",
        "这些",
        "那些",
        "多久",
        "多少",
        "多长",
        "哪里",
        "哪儿",
        "谁",
        "何时",
        "什么时候",
        "是否",
        "能否",
    ]
)


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Han, kana or hangul character."""
    # Most text the importer and the index see is English: ASCII (a flag lookup) or no character
    # from U+3000 up, where no character of the class can be.
    return has_char_from_3000(text) and _CJK_CHAR().search(text) is not None


def cjk_ratio(text: str) -> float:
    if not has_char_from_3000(text):  # no CJK character: 0 of the letters
        return 0.0
    letters = sum(map(str.isalnum, text))
    if not letters:
        return 0.0
    return len(_CJK_CHAR().findall(text)) / letters


def detect_language(text: str) -> str:
    """'zh' when CJK dominates the letters of ``text``, 'en' when Latin text does, else ''."""
    sample = text[:20000]
    if not any(c.isalnum() for c in sample):
        return ""
    return "zh" if cjk_ratio(sample) > 0.3 else "en"


def cjk_bigrams(text: str) -> list[str]:
    """Overlapping character bigrams of every CJK run (a lone character stands for itself).

    Bigrams make any two-character substring findable without a dictionary, which is what
    lets ``请假流程`` match ``员工请假流程管理办法``; see the README for the measurement
    against rjieba segmentation.
    """
    grams: list[str] = []
    for run in cjk_run().findall(text):
        if len(run) == 1:
            grams.append(run)
        else:
            grams.extend(run[i : i + 2] for i in range(len(run) - 1))
    return grams


def cjk_index_text(text: str) -> str:
    """The string stored in the CJK index field: bigrams separated by spaces."""
    return " ".join(cjk_bigrams(text))


def words(text: str) -> list[str]:
    return _WORD().findall(text)


def query_terms(text: str, keep_stopwords: bool = False) -> list[str]:
    """Content words of a query, lower-cased, de-duplicated, in order.

    Latin words are kept whole (the index stems them); CJK runs are kept whole too (the index
    splits them into bigrams). Stopwords are dropped unless nothing else is left.
    """
    out: list[str] = []
    seen: set[str] = set()
    all_terms: list[str] = []
    for w in words(text):
        t = w.lower().strip(".'-")
        if not t:
            continue
        all_terms.append(t)
        if not keep_stopwords and (t in STOPWORDS or t in ZH_STOPWORDS):
            continue
        # A CJK run loses its question words and may fall apart into several terms.
        for piece in _strip_zh_stopwords(t).split() if has_cjk(t) else [t]:
            if piece not in seen:
                seen.add(piece)
                out.append(piece)
    if not out and not keep_stopwords:
        return list(dict.fromkeys(all_terms))
    return out


_ZH_STOP_SORTED = sorted(ZH_STOPWORDS, key=len, reverse=True)


def _strip_zh_stopwords(run: str) -> str:
    # Chinese has no spaces, so question words sit inside the run: 什么是请假流程 -> 请假流程.
    for sw in _ZH_STOP_SORTED:
        if len(sw) >= 2:
            run = run.replace(sw, " ")
    # Single-character function words only at the edges, and only those that never end a
    # word: 的 in 目的 or 请 in 请假 must stay.
    parts = [p.strip("是吗呢吧啊了那它这") for p in run.split()]
    return " ".join(p for p in parts if p)


# Sentence boundaries. English: terminal punctuation followed by space and a capital/digit/quote,
# unless the word before is a known abbreviation. Chinese: after 。！？；… (optionally closing quotes).
_ABBREV = frozenset(
    [
        "e.g",
        "i.e",
        "etc",
        "al",
        "fig",
        "figs",
        "eq",
        "eqs",
        "ref",
        "refs",
        "sec",
        "vs",
        "cf",
        "dr",
        "mr",
        "mrs",
        "ms",
        "prof",
        "no",
        "vol",
        "pp",
        "inc",
        "ltd",
        "st",
        "jr",
        "sr",
        "approx",
        "resp",
        "tab",
    ]
)
# An English sentence ends at . ! ? (and closing quotes or brackets) before white space and a
# capital, a digit or a Han character.
_EN_BOUNDARY_FORM = r"(?<=[.!?])([\"'”’)\]]*)\s+(?=[\"'“‘(\[]?[A-Z0-9%s])"
# Text without a character from U+3000 up has no Han character: the form without them finds the
# same boundaries there. The one with them is compiled on first use (the class costs milliseconds).
_EN_BOUNDARY = re.compile(_EN_BOUNDARY_FORM % "")
_en_boundary_han = lazy_pattern(_EN_BOUNDARY_FORM % r"\u4e00-\u9fff")
_ZH_BOUNDARY = re.compile(r"(?<=[。！？；!?])[”’」』）)]*")
_ZH_MARKS = "。！？；!?"  # what _ZH_BOUNDARY's look-behind needs


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences, understanding English and Chinese punctuation."""
    text = text.strip()
    if not text:
        return []
    pieces: list[str] = []
    # Every boundary follows one of these marks: text without them (a table row, a heading, a
    # line of a figure) is split no further, which a few scans in C tell.
    parts: Iterable[str] = [text]
    if any(map(text.__contains__, _ZH_MARKS)):
        parts = _split_zh(text)
    elif "." not in text:
        return [text]
    boundary = _en_boundary_han() if has_char_from_3000(text) else _EN_BOUNDARY
    for part in parts:
        pieces.extend(_split_en(part, boundary))
    return [p.strip() for p in pieces if p.strip()]


def _split_zh(text: str) -> Iterable[str]:
    start = 0
    for m in _ZH_BOUNDARY.finditer(text):
        end = m.end()
        if end <= start:
            continue
        # An ASCII '!' or '?' inside English text is handled by the English splitter.
        ch = text[m.start() - 1] if m.start() > 0 else ""
        if ch in "!?" and not (m.start() >= 2 and has_cjk(text[m.start() - 2])):
            continue
        yield text[start:end]
        start = end
    if start < len(text):
        yield text[start:]


def _split_en(text: str, boundary: re.Pattern[str]) -> list[str]:
    out: list[str] = []
    start = 0
    for m in boundary.finditer(text):
        before = text[start : m.start()]
        # (Not all white space: what "before.split()" is not empty says, without splitting it.)
        last = before.rsplit(None, 1)[-1] if before and not before.isspace() else ""
        token = last.rstrip(".!?").lower()
        if last.endswith(".") and (
            token in _ABBREV or (len(token) == 1 and token.isalpha()) or ("." in token and len(token) <= 6)
        ):
            continue  # "et al. 2020", "Fig. 3", initials like "J. Smith", "U.S. Army"
        end = m.start() + len(m.group(1))  # closing quotes/brackets belong to the sentence
        out.append(text[start:end])
        start = m.end()
    out.append(text[start:])
    return out


def first_sentences(text: str, n: int = 2, max_chars: int = 320) -> str:
    sents = split_sentences(text)
    out = " ".join(sents[:n]) if sents else text
    if len(out) > max_chars:
        cut = out[:max_chars]
        sp = cut.rfind(" ")
        out = (cut[:sp] if sp > max_chars * 0.6 else cut) + "…"
    return out
