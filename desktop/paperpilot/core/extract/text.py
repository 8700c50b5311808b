"""Import plain-text and Markdown files: detect the encoding, clean the text, mark headings.

The output is one ``Page`` whose paragraphs are separated by blank lines; a paragraph that
starts with ``"# "`` is a section heading for the chunker.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from paperpilot.core.models import Extracted, ImportFailure, Metadata, Page
from paperpilot.core.text.language import detect_language
from paperpilot.core.text.messages import msg

# Roughly the 580 most frequent characters of modern Chinese text (general plus academic
# vocabulary), simplified and traditional. They decide between GB18030 and Big5: each
# encoding happily decodes the other's bytes, but into characters that are rarely used.
_COMMON_SIMPLIFIED = (
    "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之"
    "年过发后作里用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理"
    "心她本前开但因只从想实日军者意无力它与长把机十民第公此已工使情明性知全三又关点正业外将两高"
    "间由问很最重并物手应战向头文体政美相见被利什二等产或新己制身果加西斯月话合回特代内信表化老"
    "给世位次度门任常先海通教儿原东声提立及比员解水名真论处走义各入几口认条平系气题活尔更别打女"
    "变四神总何电数安少报才结反受目太量再感建务做接必场件计管期市直德资命山金指克许统区保至队形"
    "社便空决治展马科司五基眼书非则听白却界达光放强即像难且权思王象完设式色路记南品住告类求据程"
    "北边死张该交规万取拉格望觉术领共确传师观清今切院让识候带导争运笑飞风步改收根干造言联持组每"
    "济车亲极林服快办议往元英士证近失转夫令准布始怎呢存未远叫台单影具罗字爱击流备兵连调深商算质"
    "团集百需价花党华城石级整府离况亚请技际约示复病息究线似官火断精满支视消越器容照须九增研写称"
    "企八功吗包片史委乎查轻易早曾除农找装广显吧阿李标谈吃图念六引历首医局突专费号尽另周较注语仅"
    "考落青随选列武红响虽推势参希古众构房半节土投某案黑维革划敌致陈律足态护七兴派孩验责营星够章"
    "音跟志底站严巴例防族供效续施留讲型料终答紧估摘献综述匹框架输码测损函频词检索优础练征析络"
)
_COMMON_TRADITIONAL = (
    "的一是不了在人有我他這個們中來上大為和國地到以說時要就出會可也你對生能而子那得於著下自之"
    "年過發後作裡用道行所然家種事成方多經麼去法學如都同現當沒動面起看定天分還進好小部其些主樣理"
    "心她本前開但因只從想實日軍者意無力它與長把機十民第公此已工使情明性知全三又關點正業外將兩高"
    "間由問很最重並物手應戰向頭文體政美相見被利什二等產或新己制身果加西斯月話合回特代內信表化老"
    "給世位次度門任常先海通教兒原東聲提立及比員解水名真論處走義各入幾口認條平系氣題活爾更別打女"
    "變四神總何電數安少報才結反受目太量再感建務做接必場件計管期市直德資命山金指克許統區保至隊形"
    "社便空決治展馬科司五基眼書非則聽白卻界達光放強即像難且權思王象完設式色路記南品住告類求據程"
    "北邊死張該交規萬取拉格望覺術領共確傳師觀清今切院讓識候帶導爭運笑飛風步改收根幹造言聯持組每"
    "濟車親極林服快辦議往元英士證近失轉夫令準布始怎呢存未遠叫台單影具羅字愛擊流備兵連調深商算質"
    "團集百需價花黨華城石級整府離況亞請技際約示復病息究線似官火斷精滿支視消越器容照須九增研寫稱"
    "企八功嗎包片史委乎查輕易早曾除農找裝廣顯吧阿李標談吃圖念六引歷首醫局突專費號盡另周較注語僅"
    "考落青隨選列武紅響雖推勢參希古眾構房半節土投某案黑維革劃敵致陳律足態護七興派孩驗責營星夠章"
    "音跟志底站嚴巴例防族供效續施留講型料終答緊估摘獻綜述匹框架輸碼測損函頻詞檢索優礎練徵析絡"
    "裏臺係製複乾"
)
_COMMON_HAN = frozenset(_COMMON_SIMPLIFIED + _COMMON_TRADITIONAL)
_CJK_PUNCT = frozenset("，。、；：？！“”‘’（）《》〈〉【】「」『』〔〕—…·～　")
_LATIN_TYPOGRAPHY = frozenset("‘’“”‚„–—…•€™«»°§©®±·×£¥¢µ¶†‡‰")
_BAD_CATEGORIES = frozenset({"Cc", "Co", "Cn", "Cs"})

# A result scoring at least this much is trusted without asking charset-normalizer.
_CONFIDENT = 0.5
# Share of unprintable characters above which a decoding is considered binary garbage.
_MAX_BAD_SHARE = 0.02
# Below this, a decoding that charset-normalizer cannot confirm is treated as noise.
_PLAUSIBLE = 0.2
_SCORE_SAMPLE = 30_000

_UNDECODABLE = msg("import.undecodable")


# ---------------------------------------------------------------------------------------------
# Encoding detection


def decode_bytes(data: bytes) -> tuple[str, str]:
    """Decode a text file's bytes; returns the cleaned text and the encoding that was used.

    Raises ``ImportFailure`` with code ``"undecodable"`` when the bytes are not text.
    """
    raw, encoding = _decode_raw(data)
    return clean_text(raw), encoding


_BOMS: tuple[tuple[bytes, str, str], ...] = (
    # UTF-32 first: its little-endian BOM begins with the UTF-16 one.
    (b"\xff\xfe\x00\x00", "utf-32-le", "utf-32-le"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "utf-32-be"),
    (b"\xef\xbb\xbf", "utf-8", "utf-8-sig"),
    (b"\xff\xfe", "utf-16-le", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be", "utf-16-be"),
)


def _decode_raw(data: bytes) -> tuple[str, str]:
    if not data:
        return "", "utf-8"
    for bom, codec, name in _BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom) :].decode(codec), name
            except UnicodeDecodeError:
                if codec.startswith("utf-32"):
                    continue  # probably UTF-16 text starting with U+0000; rare, try on
                # A BOM is strong evidence; a few broken bytes (a truncated file) are not.
                text = data[len(bom) :].decode(codec, errors="replace")
                return text.replace("\ufffd", ""), name

    utf16 = _utf16_by_nul_pattern(data)
    if utf16 is not None:
        return utf16

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if _garbled(text):
            raise ImportFailure(_UNDECODABLE, "undecodable")
        return _unless_short_cjk(data, text)
    mostly_utf8 = _mostly_utf8(data)
    if mostly_utf8 is not None:
        return mostly_utf8, "utf-8"

    candidates = _candidates(data)
    candidates.sort(key=lambda c: c.score, reverse=True)
    best = candidates[0] if candidates else None

    if best is not None and best.score >= _CONFIDENT:
        runner_up = candidates[1] if len(candidates) > 1 else None
        if runner_up is not None and best.score - runner_up.score < 0.05:
            # Too close to call on character frequencies alone: let charset-normalizer vote.
            guess = _charset_normalizer_guess(data)
            if guess is not None and _same_codec(guess[1], runner_up.encoding):
                return runner_up.text, runner_up.encoding
        return best.text, best.encoding

    guess = _charset_normalizer_guess(data)
    if guess is not None:
        return guess
    if best is not None and best.score >= _PLAUSIBLE:
        return best.text, best.encoding
    raise ImportFailure(_UNDECODABLE, "undecodable")


def _unless_short_cjk(data: bytes, text: str) -> tuple[str, str]:
    """Strict UTF-8 wins, except for a few characters that a CJK code page explains better.

    Two GBK characters can form valid UTF-8 by accident ("摘要" reads as Armenian "ժ" plus
    Cyrillic "Ҫ"); a real UTF-8 file rarely mixes a handful of such letters and nothing else.
    """
    high = [ch for ch in text if ord(ch) > 0x7F]
    if not high or len(high) > 16 or any(not 0x370 <= ord(ch) < 0x800 for ch in high):
        return text, "utf-8"
    for codec in ("gb18030", "big5"):
        try:
            other = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if _score_cjk(other) >= 0.9:
            return other, codec
    return text, "utf-8"


def _utf16_by_nul_pattern(data: bytes) -> tuple[str, str] | None:
    """UTF-16 without a BOM: ASCII characters leave a NUL in every other byte."""
    sample = data[:8192]
    pairs = len(sample) // 2
    if pairs < 2:
        return None
    even_nuls = sample[0 : pairs * 2 : 2].count(0)
    odd_nuls = sample[1 : pairs * 2 : 2].count(0)
    high, low = max(even_nuls, odd_nuls), min(even_nuls, odd_nuls)
    # Chinese UTF-16 has NULs only for spaces, digits and newlines, so a modest share is enough;
    # binary files have NULs at both parities.
    if high < max(2, pairs // 20) or low > high // 10:
        return None
    codec = "utf-16-be" if even_nuls > odd_nuls else "utf-16-le"
    try:
        text = data[: len(data) // 2 * 2].decode(codec)
    except UnicodeDecodeError:
        return None
    if _garbled(text):
        return None
    return text, codec


def _mostly_utf8(data: bytes) -> str | None:
    """UTF-8 text with a few broken bytes (truncated file, one stray byte) is still UTF-8."""
    text = data.decode("utf-8", errors="replace")
    broken = text.count("\ufffd")
    multibyte = sum(1 for ch in text[:200_000] if ord(ch) > 0x7F) - broken
    if multibyte >= 20 and multibyte >= 20 * broken:
        return text.replace("\ufffd", "")
    return None


@dataclass
class _Candidate:
    encoding: str
    text: str
    score: float


def _candidates(data: bytes) -> list[_Candidate]:
    out: list[_Candidate] = []

    def attempt(codecs: tuple[str, ...], scorer: Callable[[str], float]) -> None:
        for codec in codecs:
            try:
                text = data.decode(codec)
            except UnicodeDecodeError:
                continue
            if not _garbled(text):
                out.append(_Candidate(codec, text, scorer(text[:_SCORE_SAMPLE])))
            return  # later codecs of a family are fallbacks, not rivals

    attempt(("gb18030",), _score_cjk)
    # Plain big5 first; cp950 (Windows) and HKSCS add characters that plain big5 lacks.
    attempt(("big5", "cp950", "big5hkscs"), _score_cjk)
    if len(data) % 2 == 0:
        # Pure-CJK UTF-16 has no NULs to give it away; frequency scoring still recognises it.
        attempt(("utf-16-le",), _score_cjk)
        attempt(("utf-16-be",), _score_cjk)
    attempt(("cp1252", "latin-1"), _score_latin)
    return out


def _score_cjk(text: str) -> float:
    """How much ``text`` looks like real Chinese: near 1 for prose, low or negative for mojibake."""
    total = 0
    score = 0.0
    for ch in text:
        code = ord(ch)
        if code < 0x80:
            continue
        total += 1
        if ch in _COMMON_HAN:
            score += 1.0
        elif 0x4E00 <= code <= 0x9FFF:
            score += 0.25  # a real but less frequent character
        elif ch in _CJK_PUNCT or 0xFF01 <= code <= 0xFF5E:
            score += 0.8
        elif 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x3FFFF:
            score += 0.0  # extension ideographs: legitimate, but typical of a wrong guess
        elif unicodedata.category(ch) in _BAD_CATEGORIES:
            score -= 1.0
        else:
            score -= 0.3  # box drawing, Cyrillic, kana, hangul … from the wrong code page
    return score / total if total else 0.0


def _score_latin(text: str) -> float:
    """How much ``text`` looks like Western prose with occasional accented letters."""
    total = 0
    score = 0.0
    last = len(text) - 1
    for i, ch in enumerate(text):
        code = ord(ch)
        if code < 0x80:
            continue
        total += 1
        if ch in _LATIN_TYPOGRAPHY:
            score += 0.8
        elif ch.isalpha() and code <= 0x17F:
            prev = text[i - 1] if i > 0 else " "
            nxt = text[i + 1] if i < last else " "
            prev_high = ord(prev) > 0x7F and prev.isalpha()
            next_high = ord(nxt) > 0x7F and nxt.isalpha()
            if prev_high and next_high:
                score -= 0.5  # three accented letters in a row: CJK bytes seen as Latin-1
            elif (prev.isascii() and prev.isalpha()) or (nxt.isascii() and nxt.isalpha()):
                score += 1.0
            else:
                score += 0.2
        elif unicodedata.category(ch) in _BAD_CATEGORIES:
            score -= 1.0
        else:
            score -= 0.5  # ¤ ¦ ¨ ¯ ´ ¸ ¹ ¼ …: rare in prose, common in mojibake
    if not total:
        return 0.0
    visible = len(text) - text.count(" ")
    density = total / visible if visible else 0.0
    # Accented letters are a minority even in French or Icelandic; noise is half non-ASCII.
    penalty = max(0.0, density - 0.3) * 4 if visible >= 40 else 0.0
    return score / total - penalty


def _garbled(text: str) -> bool:
    """Too many control, private-use or unassigned characters to be text (a binary file)."""
    sample = text[:_SCORE_SAMPLE]
    bad = sum(
        1
        for ch in sample
        if (ch < " " and ch not in "\t\n\r\f\v")
        or (ord(ch) >= 0x7F and unicodedata.category(ch) in _BAD_CATEGORIES)
    )
    # A few stray NULs or escapes in a real text file must not make it "binary".
    return bad > max(4, len(sample) * _MAX_BAD_SHARE)


def _charset_normalizer_guess(data: bytes) -> tuple[str, str] | None:
    """A second opinion for what frequency scoring cannot place (Shift-JIS, Cyrillic …)."""
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # pragma: no cover - it is a declared dependency
        return None
    match = from_bytes(data[:200_000]).best()
    if match is None or match.chaos > 0.1:
        return None
    codec = str(match.encoding)
    if codec.lower().replace("-", "_").startswith(("utf_16", "utf_32")):
        # Handled above by BOM, NUL pattern and frequency; here it is a guess about noise.
        return None
    try:
        text = data.decode(codec)
    except (UnicodeDecodeError, LookupError):
        return None
    if _garbled(text):
        return None
    return text, codec


def _same_codec(a: str, b: str) -> bool:
    def norm(name: str) -> str:
        return name.lower().replace("_", "-")

    return norm(a) == norm(b)


# ---------------------------------------------------------------------------------------------
# Cleaning

# C0 controls except tab and newline, DEL, C1 controls, zero-width space, BOM, soft hyphen.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\u200b\ufeff\u00ad]")
_LINE_BREAKS = re.compile("\r\n?|[\u2028\x0b\x85]")
_PARA_BREAKS = re.compile("[\u2029\x0c]")


def clean_text(text: str) -> str:
    """Normalise newlines to ``\\n`` and drop NULs and other invisible control characters."""
    text = _LINE_BREAKS.sub("\n", text)
    text = _PARA_BREAKS.sub("\n\n", text)  # form feed = page break: at least a paragraph break
    return _CONTROL.sub("", text)


# ---------------------------------------------------------------------------------------------
# Files


def extract_text_file(path: Path) -> Extracted:
    """Read a ``.txt`` or ``.md`` file into one cleaned page with heading paragraphs marked."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ImportFailure(msg("import.could_not_read", name=path.name, error=str(exc.strerror or exc)), "unreadable") from exc
    if not data.strip(b" \t\r\n\x00\x0c\x0b"):
        raise ImportFailure(msg("import.empty_named", name=path.name), "empty")
    text, _encoding = decode_bytes(data)
    if not text.strip():
        raise ImportFailure(msg("import.empty_named", name=path.name), "empty")

    is_markdown = path.suffix.lower() in {".md", ".markdown", ".mdown", ".mkd"}
    metadata = Metadata()
    if is_markdown:
        paragraphs, front = markdown_paragraphs(text)
        metadata.title = front.get("title", "") or _first_heading(paragraphs)
        metadata.authors = _front_matter_authors(front)
        metadata.year = _front_matter_year(front)
    else:
        paragraphs = plain_paragraphs(text)
        metadata.title = _first_short_line(text)
    # The title comes from the text (first heading or line); the file name is only the fallback,
    # which the library records as source "filename".
    if metadata.title:
        metadata.sources["title"] = "text"
    if metadata.authors:
        metadata.sources["authors"] = "text"
    if metadata.year:
        metadata.sources["year"] = "text"
    metadata.title = metadata.title or path.stem
    body = "\n\n".join(paragraphs)
    if not body.strip():
        raise ImportFailure(msg("import.header_only", name=path.name), "empty")
    metadata.language = detect_language(body)
    return Extracted(
        pages=[Page(number=1, text=body)],
        metadata=metadata,
        kind="markdown" if is_markdown else "text",
    )


# ---------------------------------------------------------------------------------------------
# Joining hard-wrapped lines

_CJKISH = re.compile("[\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def _is_cjkish(ch: str) -> bool:
    return _CJKISH.match(ch) is not None


def join_lines(lines: list[str]) -> str:
    """Join the lines of one hard-wrapped paragraph into a single line."""
    parts: list[str] = []
    prev = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not parts:
            parts.append(line)
        elif prev.endswith("-") and len(prev) >= 2 and prev[-2].isalnum():
            word = prev.rsplit(None, 1)[-1]
            if line[0].islower() and "-" not in word[:-1]:
                parts[-1] = parts[-1][:-1]  # "infor-" + "mation"
            # else "state-of-the-" + "art", "GPT-" + "4": the hyphen belongs to the word
            parts.append(line)
        elif _is_cjkish(prev[-1]) and _is_cjkish(line[0]):
            parts.append(line)  # Chinese wraps mid-word; a space would split the word
        else:
            parts.append(" ")
            parts.append(line)
        prev = line
    return "".join(parts)


# ---------------------------------------------------------------------------------------------
# Markdown

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_QUOTE = re.compile(r"^ {0,3}>[ \t]?")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def markdown_paragraphs(text: str) -> tuple[list[str], dict[str, str]]:
    """Paragraphs of a Markdown document (headings as ``"# ..."``) and its front matter."""
    text = _HTML_COMMENT.sub("", text)
    lines = text.split("\n")
    front, lines = _split_front_matter(lines)
    paragraphs: list[str] = []
    current: list[str] = []

    def flush() -> None:
        if current:
            unquoted = [_QUOTE.sub("", line) for line in current]
            para = _markdown_inline(_join_markdown(unquoted))
            if para.strip():
                paragraphs.append(para)
            current.clear()

    fence = ""
    code: list[str] = []
    for line in lines:
        if fence:
            code.append(line)
            if line.strip().startswith(fence):
                # Blank lines dropped so the block stays one paragraph; the fence line first
                # means a "# comment" inside code can never pass for a heading.
                paragraphs.append("\n".join(c for c in code if c.strip()))
                fence, code = "", []
            continue
        fence_match = _FENCE.match(line)
        if fence_match:
            flush()
            fence = fence_match.group(1)
            code = [line.strip()]
            continue
        if not line.strip():
            flush()
            continue
        atx = _ATX.match(line)
        if atx:
            flush()
            heading = _markdown_inline((atx.group(2) or "").strip())
            if heading:
                paragraphs.append("# " + " ".join(heading.split()))
            continue
        if current and _SETEXT.match(line) and not _in_container(current):
            heading = _markdown_inline(join_lines(current))
            current.clear()
            if heading:
                paragraphs.append("# " + " ".join(heading.split()))
            continue
        if _RULE.match(line):
            flush()
            continue
        current.append(line)
    flush()
    if code:  # unterminated fence: keep what was there
        paragraphs.append("\n".join(c for c in code if c.strip()))
    return paragraphs, front


def _in_container(lines: list[str]) -> bool:
    """A list item or block quote cannot be underlined into a heading (CommonMark)."""
    return any(_LIST_ITEM.match(line) or _QUOTE.match(line) for line in lines)


def _join_markdown(lines: list[str]) -> str:
    """Join soft-wrapped lines, but keep list items and table rows on lines of their own."""
    groups: list[list[str]] = []
    for line in lines:
        if not groups or _LIST_ITEM.match(line) or line.lstrip().startswith("|"):
            groups.append([line])
        else:
            groups[-1].append(line)
    return "\n".join(join_lines(g) for g in groups)


def _markdown_inline(text: str) -> str:
    text = _IMAGE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    return _STRONG.sub(r"\2", text)


def _split_front_matter(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    if not lines or lines[0].strip() != "---":
        return {}, lines
    for end in range(1, min(len(lines), 300)):
        if lines[end].strip() in {"---", "..."}:
            break
    else:
        return {}, lines
    front: dict[str, str] = {}
    key = ""
    for line in lines[1:end]:
        item = re.match(r"^\s+-\s+(.*)$", line)
        if item and key:
            # YAML block list ("authors:\n  - A\n  - B"): collected as a bracketed list.
            previous = front.get(key, "")
            value = _yaml_scalar(item.group(1))
            front[key] = (previous[:-1] + ", " if previous else "[") + value + "]"
            continue
        pair = re.match(r"^([A-Za-z_][\w-]*)\s*:\s*(.*)$", line)
        if pair:
            key = pair.group(1).lower()
            front[key] = _yaml_scalar(pair.group(2))
    return front, lines[end + 1 :]


def _yaml_scalar(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1].strip()
    return value


def _front_matter_authors(front: dict[str, str]) -> list[str]:
    raw = front.get("authors") or front.get("author") or ""
    raw = raw.strip()
    if raw.startswith("[") and raw.endswith("]"):
        names = raw[1:-1].split(",")
    elif ";" in raw:
        names = raw.split(";")
    else:
        names = [raw]
    return [_yaml_scalar(n) for n in names if _yaml_scalar(n)]


def _front_matter_year(front: dict[str, str]) -> int | None:
    for key in ("year", "date"):
        match = re.search(r"\b(1[5-9]\d\d|20\d\d)\b", front.get(key, ""))
        if match:
            return int(match.group(1))
    return None


def _first_heading(paragraphs: list[str]) -> str:
    for para in paragraphs:
        if para.startswith("# "):
            return para[2:].strip()
    return ""


# ---------------------------------------------------------------------------------------------
# Plain text

_TERMINAL = ".。!！?？;；:：,，、…"
_SENTENCE_END = '.。!！?？;；…"”’）)」』'
_NUMBERED_HEADING = re.compile(
    r"^(?:"
    r"\d{1,2}(?:\.\d{1,2}){0,3}\.?\s+(?=[A-Z\u4e00-\u9fff])"  # 1. Introduction / 2.3 Results
    r"|[IVX]{1,6}\.\s+(?=[A-Z])"  # II. Related Work
    r"|第[一二三四五六七八九十百零〇两\d]{1,4}[章节部篇编条卷]"  # 第一章 总则
    r"|[一二三四五六七八九十]{1,3}[、．.]\s*(?=\S)"  # 一、背景
    r"|[（(][一二三四五六七八九十\d]{1,3}[）)]\s*(?=\S)"  # （二）方法
    r"|\d{1,2}[、．]\s*(?=\S)"  # 1、引言
    r"|(?:Chapter|Section|Part|Appendix)\s+[\dIVXA-Z]{1,4}\b"
    r")"
)
_BULLET = re.compile(r"^(?:[-*•·▪◦]\s+|\(?[a-z0-9]\)\s+)")
_SECTION_NAME_WORDS = """abstract introduction background methods method methodology approach
    experiments experiment evaluation results discussion conclusion conclusions references
    bibliography
    acknowledgements acknowledgments acknowledgement appendix limitations summary preface
    contents overview 摘要 引言 前言 绪论 緒論 背景 方法 实验 實驗 结果 結果 讨论 討論 结论 結論
    总结 總結 参考文献 參考文獻 致谢 致謝 附录 附錄 目录 目錄 相关工作 相關工作 研究背景"""
_SECTION_NAMES = frozenset(_SECTION_NAME_WORDS.split()) | frozenset(
    {"related work", "future work", "experimental setup", "conclusion and future work"}
)


def _width(line: str) -> int:
    """Display width: a CJK character is as wide as two Latin ones."""
    return len(line) + len(_CJKISH.findall(line))


def _is_section_name(line: str) -> bool:
    key = line.strip().rstrip(".").lower()
    if _CJKISH.search(key):
        key = re.sub(r"\s+", "", key)  # "摘  要" is spaced out for typesetting
    return key in _SECTION_NAMES


def _heading_shape(line: str) -> bool:
    """Short and without end punctuation: the shape every heading has."""
    if not line or line[-1] in _TERMINAL or line.endswith("-"):
        return False
    if _CJKISH.search(line):
        return len(line) <= 40 and not re.search("[。；！？]", line)
    return len(line) <= 100 and len(line.split()) <= 14


def _title_like(line: str) -> bool:
    """An unnumbered line that could be a heading when it stands alone."""
    if not _heading_shape(line) or re.search("[,;，；@]", line):
        return False
    if _CJKISH.match(line):
        return len(line) <= 24
    return line[0].isupper() and len(line.split()) <= 8 and any(c.isalpha() for c in line)


def _wrap_width(lines: list[str]) -> int | None:
    """The width the text was hard-wrapped at, or None when each line is a whole paragraph."""
    widths = sorted(_width(line) for line in lines if line.strip())
    if len(widths) < 3:
        return None
    wrap = widths[int(len(widths) * 0.9)]
    if wrap > 200:
        return None
    long_lines = [line.strip() for line in lines if _width(line.strip()) >= wrap * 0.5]
    # Wrapped prose breaks mid-sentence; one-paragraph-per-line text ends lines at sentences.
    open_ended = sum(1 for line in long_lines if line[-1] not in _SENTENCE_END)
    if long_lines and open_ended < 0.3 * len(long_lines):
        return None
    return wrap


def plain_paragraphs(text: str) -> list[str]:
    """Paragraphs of a plain-text document, hard wraps joined, heading lines as ``"# ..."``."""
    lines = [line.rstrip() for line in text.split("\n")]
    wrap = _wrap_width(lines)
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    blocks = [b for b in blocks if b]

    paragraphs: list[str] = []
    first_line_seen = False
    for b_index, block in enumerate(blocks):
        more_blocks = b_index + 1 < len(blocks)
        current: list[str] = []
        for i, line in enumerate(block):
            stripped = line.strip()
            last_in_block = i + 1 == len(block)
            starts_paragraph = not current or _starts_paragraph(line, current[-1], wrap)
            is_first_line = not first_line_seen
            first_line_seen = True
            if starts_paragraph and (more_blocks or not last_in_block):
                alone = last_in_block or wrap is None
                if _is_heading(stripped, alone=alone, first=is_first_line, wrap=wrap):
                    if current:
                        paragraphs.append(join_lines(current))
                        current = []
                    paragraphs.append("# " + " ".join(stripped.split()))
                    continue
            if starts_paragraph and current:
                paragraphs.append(join_lines(current))
                current = []
            current.append(line)
        if current:
            paragraphs.append(join_lines(current))
    return paragraphs


def _starts_paragraph(line: str, previous: str, wrap: int | None) -> bool:
    if wrap is None:
        return True
    if line.startswith(("\u3000", "\t", "  ")) and not previous.startswith(("\u3000", "\t", "  ")):
        return True  # first-line indent
    prev = previous.strip()
    if _BULLET.match(line.strip()):
        return True
    # A sentence that ends well short of the wrap width ends its paragraph.
    return prev[-1] in _SENTENCE_END and _width(prev) < wrap * 0.8


def _is_heading(line: str, *, alone: bool, first: bool, wrap: int | None) -> bool:
    if _is_section_name(line):
        return True
    if _NUMBERED_HEADING.match(line) and _heading_shape(line):
        # A numbered heading followed directly by its text must be visibly shorter than a
        # wrapped line; otherwise it is a paragraph that happens to start with a number.
        return alone or wrap is None or _width(line) < wrap * 0.7
    # The first line of a document is its title, kept as text rather than a section.
    return alone and not first and _title_like(line)


def _first_short_line(text: str) -> str:
    """The first short line that reads like a title, among the first five."""
    seen = 0
    for line in text.split("\n"):
        line = " ".join(line.split())
        if not line:
            continue
        seen += 1
        if seen > 5:
            break
        # A line ending like a sentence is the first paragraph, and "1. Introduction" or
        # "Abstract" open a section: none of them is the document's title.
        if (
            len(line) <= 200
            and line[-1] not in ".。!！…;；,，"
            and not _is_section_name(line)
            and not _NUMBERED_HEADING.match(line)
        ):
            return line.lstrip("#").strip() if line.startswith("# ") else line
    return ""
