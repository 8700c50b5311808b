"""The front-page metadata's fast paths give what the plain code they replaced gave.

The shared PDFs do not print dotless i's, Chinese publication dates or every arXiv spelling;
these inputs do, mixed with the text around them.
"""

from __future__ import annotations

import random
import re

import pytest

from paperpilot.core.extract.metadata import masthead as mh
from paperpilot.core.extract.metadata.masthead import Masthead


def _identifiers_plain(out: Masthead, page_text: str) -> None:
    """The arXiv part of ``_identifiers`` before its fast path."""
    low = page_text.lower()
    m = mh._ARXIV_NEW.search(page_text) if "arxiv" in low else None
    if m:
        out.arxiv_id = m.group(1)
    elif "arx" in low and re.search(r"arxiv", page_text, re.IGNORECASE) and mh._SEVEN_DIGITS.search(page_text):
        m2 = mh._ARXIV_OLD().search(page_text)
        if m2:
            out.arxiv_id = m2.group(1)


def _search_published_plain(text: str) -> re.Match[str] | None:
    return mh._PUBLISHED.search(text)


def _published_year_plain(out: Masthead, page_text: str, later_text: str) -> None:
    """``_published_year`` before its fast paths."""
    for text in (page_text, later_text):
        if not any(g in text for g in ("Published", "ublication", "出版日期", "发表日期")):
            continue
        m = mh._PUBLISHED.search(text)
        if m:
            out.year, out.year_how = int(m.group("y")), "published"
            return
    if out.year is not None:
        return
    y = mh.arxiv_year(out.arxiv_id)
    if y:
        out.year, out.year_how = y, "arxiv"
        return
    squeezed = "".join(page_text.split()) if "年" in page_text else ""
    for m in mh._ZH_DATE().finditer(squeezed) if squeezed else ():
        ctx = squeezed[max(0, m.start() - 6) : m.end() + 8]
        if not mh._NOT_PUBLISHED().search(ctx):
            out.year, out.year_how = int(m.group("y")), "cover"
            return
    for line in page_text.splitlines()[:40]:
        m = mh._DATE_LINE().match(line.strip())
        if m:
            out.year, out.year_how = int(m.group("y")), "cover"
            return
    for line in page_text.splitlines():
        if "©" not in line and "opyright" not in line and "(c)" not in line and "(C)" not in line:
            continue
        m = mh._COPYRIGHT().search(line)
        if m and not mh._NOT_PUBLISHED().search(line):
            out.year, out.year_how = int(m.group("y") or m.group("y2")), "copyright"
            return


_PIECES = [
    "arXiv:2004.04906", "ARXIV : 1912.00001v2", "arxıv:2101.12345", "arXİv:2101.12345", "arxiv.org/abs/1706.03762",
    "ArXiv.org/pdf/1810.04805v1", "arXiv preprint", "arx", "ARX", "aRxIv", "arxi", "arXiv hep-th/9901001",
    "cs.CL/0101001", "math/0701234v3", "arxiv", "Published: 12 March 2021", "Published online 2019",
    "Publication date: Jan. 2020", "Date of publication 2018", "出版日期：2017", "发表日期 2016", "日期", "期",
    "出版日期", "1994 年 10 月", "Public domain", "Received 2015; Accepted 2016", "March 2019", "June, 2014", "12 May 2001",
    "Sept 1999", "© 2020 The Authors", "Copyright 2012", "(c) 2011", "(C) 2010 received 2009", "©", "2023",
    "Στα ΑΣ", "\u0130\u0131", " ", "\n", "\r\n", "\u2028", "\x0c", "  ", "\t", "10.1000/xyz", "Findings", ".",
]


def _texts(seed: int, n: int) -> list[str]:
    rnd = random.Random(seed)
    return ["".join(rnd.choice(_PIECES) + rnd.choice(["", " ", "\n", ":"]) for _ in range(rnd.randint(1, 14)))
            for _ in range(n)]  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_arxiv_fast_path_equals_plain(seed: int) -> None:
    for text in _texts(seed, 1500):
        fast, plain = Masthead(), Masthead()
        mh._identifiers(fast, text, "", text.splitlines())
        _identifiers_plain(plain, text)
        assert fast.arxiv_id == plain.arxiv_id, text


@pytest.mark.parametrize("seed", range(4))
def test_published_fast_path_equals_plain(seed: int) -> None:
    for text in _texts(100 + seed, 1500):
        fast, plain = mh._search_published(text), _search_published_plain(text)
        assert (fast and (fast.span(), fast.group("y"))) == (plain and (plain.span(), plain.group("y"))), text


@pytest.mark.parametrize("seed", range(4))
def test_published_year_equals_plain(seed: int) -> None:
    texts = _texts(200 + seed, 3000)
    for text, later in zip(texts[::2], texts[1::2], strict=True):
        fast, plain = Masthead(), Masthead()
        _identifiers_plain(plain, text)
        fast.arxiv_id = plain.arxiv_id
        mh._published_year(fast, text, later, text.splitlines())
        _published_year_plain(plain, text, later)
        assert (fast.year, fast.year_how) == (plain.year, plain.year_how), (text, later)


def test_an_object_header_is_found_where_the_look_behind_led_pattern_found_it() -> None:
    from paperpilot.core.extract.metadata.xmp import _object_header

    rng = random.Random(3)
    tokens = [b"1", b"12", b"7", b" ", b"\n", b"0", b" 0 obj", b"obj", b"x", b"R", b"9 0 obj", b"\r\n"]
    for num in (b"1", b"7", b"12", b"120"):
        old = re.compile(rb"(?<![0-9])" + num + rb"\s+0\s+obj")
        for _ in range(20000):
            data = b"".join(rng.choice(tokens) for _ in range(rng.randint(0, 10)))
            assert [m.span() for m in _object_header(num).finditer(data)] == [m.span() for m in old.finditer(data)], data
