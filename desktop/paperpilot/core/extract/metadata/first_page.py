"""Title and authors from the layout of a paper's first page (largest type, the by-line below it).

The title is the biggest type near the top that is not an article-type banner ("Research
Article", "硕士学位论文"); the by-line is what follows it down to the abstract: lines whose pieces
are names, at the size of the first such line, affiliation and footnote marks removed (they are
raised and smaller), e-mails and affiliations skipped. A thesis cover names its author by label
(作者姓名：…), and a report may be written by an organisation. A publisher's cover page (IOP's
"To cite this article") sends the by-line search to the next page.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from dataclasses import dataclass, field

from ...text.lazy import lazy_pattern
from .glyphs import GlyphLine
from .names import Name, has_cjk, is_cjk_char, is_organisation, persons_in_line, to_name

_BANNER = re.compile(
    r"^(?:(?:original\s+|review\s+|short\s+|brief\s+)?(?:research\s+)?(?:article|paper|review|letter|"
    r"communication|report|commentary|editorial|perspective|methodology|software|case\s+report)s?"
    r"(?:\s+open\s+access)?|open\s+access|paper\s*•\s*open\s+access|technical\s+report.*|preprint.*|"
    r"(?:硕士|博士|学士)?学位论文|(?:本科)?毕业(?:论文|设计)|研究论文|综述|论著|标准\s*参考\s*样\s*例)$",
    re.IGNORECASE,
)
_STOP = re.compile(
    r"^(?:abstract|summary|keywords?|key\s*words|index\s+terms|introduction|1\.?\s+introduction|"
    r"background|摘\s*要|关键词|引\s*言|ccs\s+concepts|a\s*b\s*s\s*t\s*r\s*a\s*c\s*t)\b",
    re.IGNORECASE,
)
# A supplement's or appendix's own heading, set biggest on its first page: the paper's title
# is printed next to it, usually in the line above ("TableFormer: …" / "Supplementary Material").
_PART_LABEL = re.compile(
    r"(?:supplementary|supplemental|supporting)\s+(?:materials?|information|data|text|appendix)|"
    r"(?:online\s+)?(?:supplement|appendix|appendices)|electronic\s+supplementary\s+material|补充材料|附\s*录|支撑材料",
    re.IGNORECASE,
)
_LETTERS = re.compile(r"[^\W\d_](?:.*?[^\W\d_]){2}")
_COVER = re.compile(r"to cite this article|view the article online|this content was downloaded", re.IGNORECASE)
_AUTHOR_LABEL = lazy_pattern(r"^(?:作者姓名|作\s*者|姓\s*名|研究生|学生姓名|论文作者)\s*[:：]\s*(\S.*)$")
# The characters an author label starts with (its first word's).
_LABEL_STARTS = ("作", "姓", "研", "学", "论")
_GROUP = lazy_pattern(
    r"\b(?:Group|Team|Consortium|Committee|Collaboration|Council|Association|Society|Initiative|Project|"
    r"Task\s+Force|Working|AI)\b"
)
_AFFILIATION_WORD = lazy_pattern(r"\b(?:University|Department|Institute|School|College|Faculty|Hospital)\b")


@dataclass
class Layout:
    """What page 1's layout says; empty fields when it does not say."""

    title: str = ""
    authors: list[Name] = field(default_factory=list)
    title_lines: list[GlyphLine] = field(default_factory=list)


def body_height(lines: list[GlyphLine]) -> float:
    weights: dict[float, int] = {}
    for ln in lines:
        key = round(ln.height * 2) / 2
        weights[key] = weights.get(key, 0) + len(ln.chars)
    return max(weights, key=weights.__getitem__) if weights else 0.0


def _join_title(parts: list[str]) -> str:
    out = ""
    for p in parts:
        if not out:
            out = p
        # A hyphen at a line's end breaks a word; a dash after a space ends a phrase ("a-Si:H -").
        elif (out.endswith("-") and not out.endswith(" -")) or (is_cjk_char(out[-1]) and is_cjk_char(p[0])):
            out += p
        else:
            out += " " + p
    return unicodedata.normalize("NFC", " ".join(out.split()))


def _key(text: str) -> str:
    return "".join(filter(str.isalnum, unicodedata.normalize("NFKC", text).casefold()))


def find_title(lines: list[GlyphLine], page_height: float, journal: str = "", body: float = 0.0) -> list[GlyphLine]:
    """The title's lines; ``journal``: the journal's name, which a logo may set bigger than the
    title; ``body``: the body text's line height (else measured on ``lines``)."""
    body = body or body_height(lines)
    jkey = _key(journal)

    def candidate(ln: GlyphLine) -> bool:
        return bool(
            ln.y1 > page_height * 0.4
            and not (jkey and _key(ln.text(False)) == jkey)
            and _LETTERS.search(ln.text(False))
            and not _BANNER.match(ln.text(False).strip(" .:"))
            and "@" not in ln.text()
            and not _COVER.search(ln.text())
        )

    # Only the candidates in the biggest type make the title: the lines are tried from the biggest
    # type down, and the trial stops below 0.96 of the first candidate's (the biggest candidate).
    biggest = 0.0
    picked: list[int] = []
    for k in sorted(range(len(lines)), key=lambda k: -lines[k].height):
        ln = lines[k]
        if picked and ln.height < biggest * 0.96:
            break
        if candidate(ln):
            if not picked:
                biggest = ln.height
            picked.append(k)
    if not picked:
        return []
    if body > 0 and biggest < body * 1.12:
        return []
    # (in page order before the sort by height on the page, as the stable sort keeps ties)
    tops = sorted((lines[k] for k in sorted(picked)), key=lambda ln: -ln.y1)
    title = [tops[0]]
    for ln in tops[1:]:
        if title[-1].y0 - ln.y1 < 0.9 * ln.height and len(title) < 5:
            title.append(ln)
        else:
            break
    if _PART_LABEL.fullmatch(_join_title([ln.text(False) for ln in title]).strip(" .:")):
        title = _with_paper_title(title, [ln for ln in lines if candidate(ln)], body)
    # Pieces of one title row come out as separate lines (an inline mark, a change of font).
    rows: list[GlyphLine] = []
    for ln in sorted(title, key=lambda ln: (-round(ln.y1), ln.x0)):
        rows.append(ln)
    return rows


def _with_paper_title(label: list[GlyphLine], cands: list[GlyphLine], body: float) -> list[GlyphLine]:
    """A supplement's label with the paper's title set beside it: the lines right above it in
    type bigger than the body's (else the ones right below), up to three of them."""
    top = max(label, key=lambda ln: ln.y1)
    bottom = min(label, key=lambda ln: ln.y0)
    # Title type: bigger than the body's, as find_title asks of a title.
    floor = body * 1.12 if body > 0 else 0.0
    others = [
        ln
        for ln in cands
        if ln not in label and ln.height >= floor and not _PART_LABEL.fullmatch(ln.text(False).strip(" .:"))
    ]

    def run(edge: GlyphLine, upwards: bool) -> list[GlyphLine]:
        side = (ln for ln in others if (ln.y0 >= edge.y1 - 1 if upwards else ln.y1 <= edge.y0 + 1))
        got: list[GlyphLine] = []
        for ln in sorted(side, key=lambda ln: ln.y0 if upwards else -ln.y1):
            gap = ln.y0 - edge.y1 if upwards else edge.y0 - ln.y1
            same_type = not got or 0.9 * got[0].height <= ln.height <= 1.1 * got[0].height
            if gap >= 1.5 * max(ln.height, edge.height) or not same_type or len(got) == 3:
                break
            got.append(ln)
            edge = ln
        return got

    above = run(top, upwards=True)
    return [*above, *label] if above else [*label, *run(bottom, upwards=False)]


def _rows(lines: list[GlyphLine]) -> list[list[GlyphLine]]:
    """Lines sharing a baseline, left to right, top to bottom."""
    rows: list[list[GlyphLine]] = []
    for ln in sorted(lines, key=lambda ln: (-ln.y0, ln.x0)):
        if rows and abs(rows[-1][0].y0 - ln.y0) < 0.35 * max(ln.height, 1.0):
            rows[-1].append(ln)
        else:
            rows.append([ln])
    for r in rows:
        r.sort(key=lambda ln: ln.x0)
    return rows


def _labelled_author(lines: list[GlyphLine]) -> list[Name]:
    # A row's text starts with its first line's: without a line that starts like a label, no row does.
    if not any(ln.text(False).startswith(_LABEL_STARTS) for ln in lines):
        return []
    for row in _rows(lines):
        text = " ".join(ln.text(False) for ln in row)
        m = _AUTHOR_LABEL().search(text) if text.startswith(_LABEL_STARTS) else None
        if m:
            value = m.group(1).split()[0] if has_cjk(m.group(1)) else m.group(1)
            people = persons_in_line(value)
            if people:
                return [to_name(people[0])]
    return []


def find_authors(lines: list[GlyphLine], below: float, page_height: float,
                 span: tuple[float, float] | None = None) -> list[Name]:  # fmt: skip
    """The by-line(s) under ``below`` (the title's bottom), in the order the page prints them.

    ``span``: the title's left and right edge; a by-line sits under the title, not in a side
    column beside it (PeerJ's "Corresponding author", "Academic editor").
    """
    labelled = _labelled_author(lines)
    if labelled:
        return labelled
    zone = [ln for ln in lines if ln.y1 <= below + 1 and ln.y1 > page_height * 0.25]
    if span is not None:
        zone = [ln for ln in zone if ln.x1 > span[0] + 2 and ln.x0 < span[1] - 2]
    names: list[str] = []
    height = 0.0
    skipped = 0
    first_line: GlyphLine | None = None
    for ln in zone:  # content order: the order the by-line was typeset in
        raw = ln.text()
        text = ln.text(False, "|")
        plain = text.replace("|", " ").strip()
        if _STOP.match(plain) or (names and len(plain.split()) > 18):
            break
        if first_line is None:
            first_line = ln
        people = persons_in_line(text)
        if people and (not height or 0.85 * height <= ln.height <= 1.18 * height):
            height = height or ln.height
            names.extend(p for p in people if p not in names)
            skipped = 0
            continue
        if names and "@" not in raw:
            skipped += 1
            if skipped > 12:
                break
    if names:
        return [to_name(n) for n in names]
    # No person: a report by an organisation names it right under the title.
    if first_line is not None:
        t = first_line.text(False).strip(" ,")
        if _GROUP().search(t) and not _AFFILIATION_WORD().search(t) and len(t.split()) <= 8 and is_organisation(t):
            return [{"literal": t}]
    return []


def read_layout(lines: list[GlyphLine], page_height: float, next_page: list[GlyphLine] | None = None,
                next_height: float = 0.0, journal: str = "", *, body: float = 0.0,
                next_body: float = 0.0) -> Layout:  # fmt: skip
    """Title and authors from page 1's lines (``next_page``: page 2, used behind a cover page;
    ``journal``: the journal named by the masthead, never the title)."""
    out = Layout()
    title_lines = find_title(lines, page_height, journal, body)
    if title_lines:
        out.title_lines = title_lines
        out.title = _join_title([ln.text(False) for ln in title_lines])
        below = min(ln.y0 for ln in title_lines)
        span = (min(ln.x0 for ln in title_lines), max(ln.x1 for ln in title_lines))
        out.authors = find_authors(lines, below, page_height, span)
    else:
        out.authors = _labelled_author(lines)
    page_text = " ".join(ln.text() for ln in lines)
    if not out.authors and next_page and (_COVER.search(page_text) or sum(len(ln.chars) for ln in lines) < 700):
        nxt = find_title(next_page, next_height, journal, next_body)
        below = min(ln.y0 for ln in nxt) if nxt else next_height * 0.8
        out.authors = find_authors(next_page, below, next_height)
        if not out.title and nxt:
            out.title = _join_title([ln.text(False) for ln in nxt])
    return out


def median_height(lines: list[GlyphLine]) -> float:
    return statistics.median([ln.height for ln in lines]) if lines else 0.0
