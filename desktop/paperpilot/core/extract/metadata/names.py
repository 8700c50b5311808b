"""Author names as printed on a paper: split a by-line into people, tell organisations apart.

Rules, not lists of people: a by-line is cut at commas, "and", "&", semicolons and the places
where an affiliation or footnote mark stood; each piece must look like a person's name (capitalised
words, initials, name particles) or, for CJK, two to four Han characters; an e-mail, an
affiliation or a piece with an organisation word is never a person. Names become CSL names:
``{"family", "given"}`` with Dutch/German/French particles kept in the family name
("Jan van der Berg" → family "van der Berg"), ``{"literal"}`` for Chinese names and organisations.
"""

from __future__ import annotations

import re
import unicodedata

from ...text.lazy import has_char_from, lazy_pattern

Name = dict[str, str]

# Han characters. The patterns over them are compiled only for text that has some (see
# core.text.lazy): most papers have none, and each costs milliseconds to compile.
_CJK = lazy_pattern("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_CJK_SPACE = lazy_pattern(r"(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")


def has_cjk(text: str) -> bool:
    """Whether ``text`` has a Han character."""
    return has_char_from(text, "\u3400") and _CJK().search(text) is not None


def is_cjk_char(ch: str) -> bool:
    """Whether the character ``ch`` is a Han character (the class of ``has_cjk``)."""
    return "\u3400" <= ch <= "\u4dbf" or "\u4e00" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"

# Words that make a piece an organisation (a company, a lab, a group), never a person.
ORG_WORD = re.compile(
    r"\b(?:AI|Inc\.?|Ltd\.?|LLC|GmbH|Corp\.?|Corporation|Company|Group|Team|Consortium|Committee|Council|"
    r"Association|Society|Foundation|Institute|Institution|University|Univ\.?|College|School|Department|Dept\.?|"
    r"Laborator(?:y|ies)|Lab|Labs|Research|Centre|Center|Academy|Hospital|Faculty|Agency|Ministry|Office|"
    r"Bureau|Organi[sz]ation|Network|Project|Initiative|Collaboration|Working|Federation|Union|Board|"
    r"Google|Microsoft|Facebook|Meta|Amazon|IBM|Intel|Nvidia|NVIDIA|Apple|Baidu|Alibaba|Tencent|Huawei|"
    r"OpenAI|DeepMind)\b"
    r"|大学|学院|研究所|研究院|研究中心|实验室|公司|集团|委员会|协会|学会|中心|医院|编辑部",
)
_AFFILIATION_HINT = re.compile(
    r"@|https?://|www\.|\.(?:com|edu|org|net|ac\.\w+)\b|\b(?:Street|St\.|Road|Avenue|Box|USA|UK|China|"
    r"Germany|Canada|Australia|Ireland|Japan|France|Italy|Spain|India|Korea|Switzerland|Netherlands|Sweden)\b"
    r"|\b\d{5,6}\b",
)
# The common Chinese surnames (single characters, then the compound ones).
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈"
    "姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
    "常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕单季"
    "裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄"
    "窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池"
    "查麻苑迟邝封钦奚郁郜鞠蔺於冀练都晁荆井宿岳揭"
)
_COMPOUND_SURNAMES = frozenset(
    ["欧阳", "司马", "上官", "诸葛", "东方", "皇甫", "尉迟", "公孙", "慕容", "长孙", "宇文", "司徒", "夏侯", "轩辕", "令狐", "端木", "独孤", "南宫", "万俟", "闻人", "钟离", "呼延", "西门", "百里", "东郭", "申屠", "太史"]
)
# Words that start with a surname character but are not names on a title page.
_NOT_NAMES = frozenset(["关键", "摘要", "文章", "方法", "研究", "时间", "单位", "学号", "专业", "作者", "姓名", "年月", "成果", "程序", "高等", "全文", "安全"])
PARTICLES = frozenset(
    ["van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "dos", "das", "le", "la", "bin", "ibn", "al", "el", "ter", "ten", "zu", "vom"]
)
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})
# What separates the names of a by-line once marks are replaced by "|".
_SPLIT = re.compile(
    r"\s*(?:\||,|;|，|、|；|\band\b|&|\s{2,}|[*∗†‡§¶#♠♢♡♣♥♦✉⁎•·\u00b2\u00b3\u00b9\u2070-\u209f\u1d43-\u1dbf]+|(?<=[^\W\d_])\d[\d,]*|\(\d[\d,]*\)|\d+\))\s*"
)
# Affiliation numbers printed on the baseline after a name ("Ines Carvalho 1, Tomasz …").
# Affiliation numbers printed on the baseline after a name ("Ines Carvalho 1, Tomasz …").
_BASELINE_MARK = re.compile(r"\s*(?<=[^\W\d_]|\s)\d[\d,]*\)?\*?(?=[\s,&;|]|$)")
# "刘  洋", "何 穗": a two-character name set with letter-spacing (single Han characters apart).
_LETTER_SPACED_CJK = lazy_pattern(r"(?<![\u3400-\u9fff])([\u3400-\u9fff])\s+(?=[\u3400-\u9fff](?![\u3400-\u9fff]))")
_WORD = re.compile(r"^(?:[A-Z][a-z]?\.(?:-?[A-Z][a-z]?\.)*|[^\W\d_][^\W\d_'’.-]*(?:['’-][^\W\d_]+)*\.?)$")
_PLACEHOLDER = re.compile(r"^(?:作者姓名|作者|姓名|您的姓名|author(?:\s*name)?s?|your name|name surname|firstname lastname)$",
                          re.IGNORECASE)  # fmt: skip


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", " ".join(text.split()))


# Spacing accents and the combining marks they stand for.
_SPACING_ACCENTS = {"\u02db": "\u0328", "\u00b4": "\u0301", "\u02c7": "\u030c", "\u00a8": "\u0308",
                    "\u02dd": "\u030b", "\u02d9": "\u0307", "\u02c6": "\u0302", "\u02dc": "\u0303", "`": "\u0300"}  # fmt: skip


def fix_accents(text: str) -> str:
    """Put spacing accents PDFium reports before their letter back on it ("J˛edrzej" → "Jędrzej")."""
    spacing = _SPACING_ACCENTS
    # (of the accents only the grave is ASCII: an ASCII text without one has none)
    if (text.isascii() and "`" not in text) or not any(c in text for c in spacing):
        return text
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c in spacing and i + 1 < len(text) and text[i + 1].isalpha():
            # The accent glyph precedes its base letter in PDFium's order.
            out.append(unicodedata.normalize("NFC", text[i + 1] + spacing[c]))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def is_organisation(text: str) -> bool:
    return ORG_WORD.search(text) is not None


def looks_like_person(text: str) -> bool:
    """Capitalised words and initials (two to five of them), or a CJK name of two to four Han characters."""
    t = text.strip()
    if not t or len(t) > 48 or _PLACEHOLDER.match(t):
        return False
    if has_cjk(t):
        t = _CJK_SPACE().sub("", t)
        if not (2 <= len(t) <= 4 and all(is_cjk_char(c) for c in t)):
            return False
        # A Chinese name opens with a surname; this keeps "第二章" and "摘要" out of by-lines.
        return t[:2] in _COMPOUND_SURNAMES or (t[0] in _SURNAMES and t[:2] not in _NOT_NAMES)
    words = t.split()
    # (the word count first: it is the cheapest of these tests, and any one failing is a no)
    if not 2 <= len(words) <= 5 or is_organisation(t) or _AFFILIATION_HINT.search(t):
        return False
    capital = 0
    for w in words:
        if w.lower() in PARTICLES:
            continue
        if not _WORD.match(w):
            return False
        if w[0].isupper():
            capital += 1
        else:
            return False
    # "V V Kazina": initials without full stops are fine, but a name needs one real word.
    return capital >= 1 and any(len(w.strip(".")) > 1 for w in words)


def split_byline(text: str) -> list[str]:
    """The pieces of one by-line (marks already replaced by "|"), people or not."""
    pieces = [" ".join(p.split()).strip(" .,") if not p.endswith(".") or len(p.split()[-1]) > 2 else
              " ".join(p.split()).strip(" ,") for p in _SPLIT.split(text)]  # fmt: skip
    return [p for p in pieces if p and any(c.isalpha() for c in p)]


# A group that signs a paper with its people ("… & the ENCODE Project Consortium"): an author,
# kept as a literal; an affiliation never is one.
_GROUP_AUTHOR = lazy_pattern(
    r"^(?:the\s+)?(?P<g>(?:[A-Z][\w'’-]*\s+){1,6}(?:Consortium|Collaboration|Working\s+Group|Study\s+Group|"
    r"Investigators|Network))$"
)
# The words a group author ends with (the last of each of _GROUP_AUTHOR's alternatives).
_GROUP_ENDS = ("Consortium", "Collaboration", "Group", "Investigators", "Network")
_NOT_GROUP = lazy_pattern(r"\b(?:University|Department|Institute|School|College|Faculty|Hospital|Centre|Center)\b")


def group_author(piece: str) -> str:
    """The group's name when a by-line piece is a group author, else ""."""
    stripped = piece.strip()
    m = _GROUP_AUTHOR().match(stripped) if stripped.endswith(_GROUP_ENDS) else None
    return m.group("g") if m and not _NOT_GROUP().search(piece) else ""


def persons_in_line(text: str) -> list[str] | None:
    """The people of a by-line, or None when the line is not one (most pieces are not names)."""
    if "@" in text:
        return None
    text = _BASELINE_MARK.sub("|", fix_accents(text))
    if has_char_from(text, "\u3400"):
        text = _LETTER_SPACED_CJK().sub(r"\1", text)
    pieces = split_byline(text)
    # Chinese by-lines separate names by spaces alone ("张津  王明远").
    pieces = [q for p in pieces for q in (p.split() if has_cjk(p) and not re.search("[A-Za-z]", p) else [p])]
    if not pieces:
        return None
    good = [p if looks_like_person(p) else group_author(p) for p in pieces]
    good = [p for p in good if p]
    if not good or len(good) < max(1, round(0.6 * len(pieces))) or all(group_author(p) for p in good):
        return None
    return good


def to_name(text: str, *, organisation: bool = False) -> Name:
    """A CSL name from a printed name ("Given Family", "Family, Given", CJK → literal)."""
    name = nfc(fix_accents(text))
    if organisation or is_organisation(name):
        return {"literal": name}
    if has_cjk(name):
        return {"literal": _CJK_SPACE().sub("", name)}
    if "," in name:
        family, _, given = name.partition(",")
        if given.strip().lower() not in _SUFFIXES:
            return {"family": family.strip(), "given": given.strip()}
        name = family + " " + given
    words = name.split()
    suffix = ""
    if len(words) > 2 and words[-1].lower() in _SUFFIXES:
        suffix = " " + words.pop()
    if len(words) == 1:
        return {"family": words[0]}
    # "SHANG Shu-Lin": a family name printed in capitals comes first.
    if words[0].isalpha() and words[0].isupper() and len(words[0]) > 1 and not words[1].isupper():
        return {"family": words[0].title(), "given": " ".join(words[1:])}
    i = len(words) - 1
    while i > 1 and words[i - 1].lower() in PARTICLES:
        i -= 1
    return {"family": " ".join(words[i:]) + suffix, "given": " ".join(words[:i])}


def display(name: Name) -> str:
    if name.get("literal"):
        return name["literal"]
    return f"{name.get('given', '')} {name.get('family', '')}".strip()


def names_from_field(value: str) -> list[Name]:
    """People from a metadata field (Info /Author, XMP dc:creator item): "A; B", "A, B and C",
    "Family, Given" for one person, "X {et al.}" cut at the et al."""
    v = re.sub(r"\{?\bet\s+al\.?\}?.*$", "", value, flags=re.IGNORECASE).strip(" ,;")
    if not v:
        return []
    if is_organisation(v) and not re.search(r"[;,]", v):
        return [{"literal": nfc(v)}]
    if ";" in v or "；" in v:
        parts = re.split(r"\s*[;；]\s*", v)
    elif re.fullmatch(r"[^,]+,\s*[^,]+", v) and len(v.split(",")[0].split()) == 1 and " and " not in v:
        parts = [v]  # "Vaswani, Ashish": one person, family first
    else:
        parts = re.split(r"\s*(?:,|，|、|\band\b|&)\s*", v)
    out = []
    for p in parts:
        p = p.strip()
        if p and any(c.isalpha() for c in p):
            out.append(to_name(p))
    return out
