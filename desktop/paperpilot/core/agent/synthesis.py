"""Research questions across the library ("synthesis"): recognise one, and read what it asks of
which papers — its scope, its tasks and the facets wanted of each paper.

"Which papers in my library are about X, and what does each conclude?", "对比近三年 Transformer 在
医学影像方向的研究进展并给出方向建议", "What open questions do these papers leave?": the answer draws
on every relevant paper, not on one or two passages. ``parse_synthesis(question)`` returns a
``SynthesisRequest`` (None for a look-up question): the tasks (which_papers, survey, directions,
compare, summarise), the facets (method, finding, population, data, evaluation, limitation,
future_work, contribution, sample_size), the ``Scope`` (years absolute or relative to
``clock.today()``, the open collection or tag and those named, authors, venues, document kinds)
and the topic: the question without its scope, task and facet words and without the words about
the library itself ("my library", "these papers", 库中, 这些论文), which are never concepts.

A look-up that names a year ("what did the 2019 survey find about X?") is no synthesis question,
so its year is no filter; "BERT-2020" is a name, not a year (``text.years``).

Names of collections, tags, authors and venues are read best against the library's own
(``LibraryFacts.of(pool)``); without them, the usual phrasings are read ("in my X collection",
"tagged X", "Varga's papers", "published in the Journal of …", 标签为“X”, 作者为X).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ..clock import today
from ..text.language import STOPWORDS, has_cjk
from ..text.messages import Language, Message, msg
from ..text.years import YearSpan, find_years
from .lexicon import SYNTH_GENERIC_EN, SYNTH_GENERIC_ZH, ZH_GENERIC
from .state import DocumentPool

# In the order a plan takes them: the papers first, then what it makes of them.
TASKS = ("which_papers", "survey", "directions", "compare", "summarise")
FACETS = (
    "method", "finding", "population", "data", "evaluation", "limitation", "future_work", "contribution", "sample_size",
)  # fmt: skip
KINDS = ("review", "research", "conference", "journal", "thesis", "preprint")

# Lower case: "Rolling Papers" is a title, "in Literature" a subject, not the papers of the library.
# "their literature reviews" is what the researchers did, not the papers reviewed.
_DOCS = r"(?-i:papers|studies|articles|publications|(?<!literature )reviews|theses|dissertations|preprints)"
_Q = r"[\"“‘'「『]"
_UNQ = r"[\"”’'」』]"


def _rx(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


# --- recognising a question across papers ------------------------------------------------------

# Several papers, named as such: "which papers", "the studies in my library", "Varga's papers",
# "across these papers"; a singular ("which paper", "the LongEval paper") asks for one.
_ACROSS_EN = _rx(
    rf"\b(?:which|what)\s+(?:[\w-]+\s+){{0,2}}{_DOCS}\b",
    # Not through a preposition: "the corpus of scientific papers" is one corpus, not the papers.
    rf"\b(?:the|these|those|my|our|all|each|every|their|such|other|relevant|related|several|recent|published|included|\d{{4}})\s+(?:(?!(?:of|from|by|in|on|for|with|about)\b)[\w-]+\s+){{0,3}}{_DOCS}\b",
    rf"['’]s\s+(?:[\w-]+\s+)?{_DOCS}\b",
    r"\bacross\s+(?:the|these|those|my|our|all)\b",
    rf"\b{_DOCS}\s+(?:[\w-]+\s+){{0,2}}in\s+(?:my|the|this|our)\s+(?:library|collection)\b",
    r"\beach\s+(?:paper|study|article)\b",
)
# The task alone makes it one: progress, an overview of the research, open questions, directions.
_SURVEY_EN = _rx(
    r"\b(?:research\s+)?progress\s+(?:on|in|of)\b",
    r"\bresearch\s+(?:progress|gaps?|directions|trends|landscape)\b",
    r"\boverview\s+of\s+(?:the\s+)?(?:research|literature|work|studies|papers)\b",
    r"\bstate\s+of\s+the\s+art\b",
    r"\b(?:open|unanswered|unresolved)\s+(?:questions|problems|issues)\b",
    r"\b(?:future|promising|new)\s+(?:research\s+)?directions\b",
    r"\b(?-i:the\s+literature)\b",
    r"\bhow\s+(?:has|have)\s+(?:the\s+)?(?:research|work|studies|literature|understanding)\b[^?]*\b(?:progressed|evolved|developed|changed|advanced)\b",
)
_NOT_ACROSS_EN = _rx(
    rf"\bhow\s+many\s+{_DOCS}\b(?!.*\b(?:my|this|our)\s+(?:library|collection)\b)",
    # A count or a share is one number, also of a survey's papers: "what percentage of papers on
    # X …", "how many researchers tried CiteSee".
    r"\b(?:what|which)\s+(?:percentage|percent|share|fraction|proportion|number|ratio)\s+of\b",
    rf"\bhow\s+many\s+(?!{_DOCS}\b)",
    rf"\b(?:which|what)\s+{_DOCS}\s+(?:does|did|do)\s+.*\bcit(?:e|es|ed)\b",
)
_DOCS_ZH = r"(?:论文|文献|文章|研究|综述|预印本)"
# The library itself, not a corpus's or a database's store (语料库中, 数据库里).
_LIBRARY_ZH = r"(?<!语料)(?<!数据)(?<!知识)(?<!题)(?<!词)(?<!代码)(?<!仓)库[中里]|文献库|这些"
_ACROSS_ZH = _rx(
    rf"哪些{_DOCS_ZH}",
    r"(?:论文|文献|文章)[^。？?]{0,12}哪些",
    rf"(?<!语料)(?<!数据)(?<!知识)(?<!题)(?<!词)(?<!代码)(?<!仓)库[中里]|文献库|这些{_DOCS_ZH}|那些{_DOCS_ZH}|各篇|每篇(?!\s*(?:PDF|pdf|文件|文档))|所有(?:论文|文献)|(?:论文|文献|文章)分别|分别(?:提出|研究|采用|使用)",
    r"研究进展|进展|研究现状|发展趋势|研究方向|未来.{0,4}方向|方向建议|值得.{0,8}方向|展望|综述一下",
    rf"(?:对比|比较|总结|归纳|梳理|概括)[^。？?]{{0,30}}{_DOCS_ZH}",
    r"标签(?:为|是)|文献集|收藏夹",
)
_NOT_ACROSS_ZH = _rx(r"多少篇")


def _is_zh(q: str) -> bool:
    """Chinese when a fifth of its characters are (an English question may name a tag “视觉”)."""
    return has_cjk(q) and sum(has_cjk(c) for c in q) >= 0.2 * len(q.replace(" ", ""))


def is_synthesis(question: str) -> bool:
    """Whether ``question`` asks across papers (which papers, compare them, their findings, the
    progress of a field, open questions, directions) rather than for one fact or one paper."""
    q = " ".join(question.split())
    if _is_zh(q):
        if _NOT_ACROSS_ZH.search(q) and not re.search(_LIBRARY_ZH, q):
            return False
        if _ACROSS_ZH.search(q):
            return True
        years = find_years(q)
        return years is not None and (years.relative or years.start != years.end) and re.search(_DOCS_ZH, q) is not None
    if _NOT_ACROSS_EN.search(q):
        return False
    return bool(_ACROSS_EN.search(q) or _SURVEY_EN.search(q))


# --- tasks, facets and kinds ---------------------------------------------------------------------

# Words between "which" and "papers" that make it "what do the papers …", not "which papers".
_NOT_KIND = r"(?:do|does|did|have|has|had|are|were|is|was|these|those|the|my|our|all|can|could|would)"
_TASKS_EN: dict[str, re.Pattern[str]] = {
    "which_papers": _rx(rf"\b(?:which|what)\s+(?:(?!{_NOT_KIND}\b)[\w-]+\s+){{0,2}}{_DOCS}\b", rf"\blist\s+(?:the|all)\s+{_DOCS}",
                        rf"\bwhich\s+of\s+(?:my|the|these|our)\s+(?:[\w-]+\s+)?{_DOCS}\b"),
    "survey": _rx(r"\boverview\b", r"\bprogress(?:ed)?\b", r"\b(?:has|have)\s+[^?]*\bevolved\b", r"\bstate\s+of\s+the\s+art\b", r"\badvances\b", r"\btrends?\b",
                  r"\blandscape\b", r"\bsurvey\s+(?:the|of|recent)\b"),
    "directions": _rx(r"\bdirections?\b", r"\b(?:open|unanswered|unresolved)\s+(?:questions|problems|issues)\b",
                      r"\bresearch\s+gaps?\b", r"\bfuture\s+(?:work|research)\b", r"\bsuggest\w*", r"\bworth\s+pursuing\b"),
    "compare": _rx(r"\bcompar(?:e|es|ed|ing|ison)\b", r"\bcontrast(?:ing)?\b", r"\bdiffer(?:ences?)?\b", r"\bversus\b"),
    "summarise": _rx(r"\bsummar(?:i[sz]e|i[sz]ing|y)\b", r"\bsynthesi[sz]e\b", r"\bsay\s+about\b"),
}  # fmt: skip
_TASKS_ZH: dict[str, re.Pattern[str]] = {
    "which_papers": _rx(rf"哪些{_DOCS_ZH}", r"(?<=论文中|文献中)[，,]?\s*哪些", r"(?<=论文|文献)[，,]\s*哪些"),
    "survey": _rx(r"进展", r"现状", r"趋势", r"综述一下", r"概况"),
    "directions": _rx(r"方向", r"建议", r"展望", r"值得", r"未来", r"空白", r"(?:待|尚未)解决"),
    "compare": _rx(r"对比", r"比较", r"异同", r"区别", r"差异"),
    "summarise": _rx(r"总结", r"归纳", r"概括", r"梳理", r"汇总"),
}

# The facets asked of each paper. "evaluation methods" is one facet, so it is read before "method";
# "bird populations" is a topic, "the populations of the papers" a facet.
_FACETS_EN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("evaluation", _rx(r"\bevaluation\s+(?:methods?|metrics?|measures?|protocols?|settings?)\b", r"\bevaluat\w*",
                       r"\bmetrics?\b", r"\bbenchmarks?\b")),
    ("sample_size", _rx(r"\bsample\s+sizes?\b", r"\bhow\s+many\s+(?:participants|subjects|patients|birds|samples)\b")),
    ("future_work", _rx(r"\bfuture\s+(?:research\s+)?(?:work|research|directions?)\b", r"\b(?:research\s+)?directions?\b",
                        r"\b(?:open|unanswered|unresolved)\s+(?:questions|problems|issues)\b", r"\bresearch\s+gaps?\b")),
    ("method", _rx(r"\b(?:study\s+)?designs?\b", r"\bmethod(?:s|ology|ologies)?\b", r"\bapproach(?:es)?\b",
                   r"\btechniques?\b")),
    ("finding", _rx(r"\bfindings?\b", r"\bfind\b", r"\bfound\b", r"\bconclu(?:de|ded|des|sions?)\b", r"\bresults?\b",
                    r"\boutcomes?\b")),
    ("population", _rx(r"\b(?:what|which|the|their|study|and)\s+(?:populations?|participants|subjects|cohorts?|samples?)\b")),
    ("data", _rx(r"\bdata\s*sets?\b", r"\bcorpora\b", r"\b(?:what|which|the|their)\s+data\b")),
    ("limitation", _rx(r"\blimitations?\b", r"\bweakness(?:es)?\b", r"\bshortcomings?\b", r"\bdrawbacks?\b", r"\bcaveats?\b")),
    ("contribution", _rx(r"\bcontribut\w*")),
)  # fmt: skip
_FACETS_ZH: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("evaluation", _rx(r"评价指标", r"评估指标", r"评价方法", r"评估方法", r"评价", r"评估", r"指标")),
    ("sample_size", _rx(r"样本量", r"样本数")),
    ("future_work", _rx(r"未来.{0,4}方向", r"研究方向", r"方向建议", r"方向", r"展望", r"未来")),
    ("method", _rx(r"研究方法", r"方法", r"技术路线", r"研究设计")),
    ("finding", _rx(r"研究发现", r"主要发现", r"发现", r"结论", r"结果")),
    ("population", _rx(r"研究对象", r"人群", r"受试者", r"样本")),
    ("data", _rx(r"数据集", r"语料", r"数据")),
    ("limitation", _rx(r"局限性", r"局限", r"不足", r"缺点", r"缺陷")),
    ("contribution", _rx(r"贡献", r"创新点")),
)

_KINDS_EN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("review", _rx(r"\b(?:systematic|literature|narrative)\s+reviews?\b", r"\breview\s+(?:articles?|papers?)\b",
                   r"\bsurvey\s+(?:articles?|papers?)\b", r"\bmeta-analys[ie]s\b", r"(?<!peer\s)(?<!peer-)\breviews\b")),
    ("research", _rx(r"\bresearch\s+(?:articles?|papers?)\b", r"\boriginal\s+(?:research|articles?)\b",
                     r"\bempirical\s+(?:studies|papers)\b", r"\bprimary\s+studies\b")),
    ("conference", _rx(r"\bconference\s+(?:papers?|articles?|proceedings)\b", r"\bproceedings\s+papers?\b")),
    ("journal", _rx(r"\bjournal\s+(?:papers?|articles?)\b")),
    ("thesis", _rx(r"\btheses\b", r"\bthesis\b", r"\bdissertations?\b")),
    ("preprint", _rx(r"\bpreprints?\b", r"\barxiv\s+papers?\b")),
)  # fmt: skip
_KINDS_ZH: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("review", _rx(r"综述(?:文章|论文|类文献|性文章|类)", r"(?<=[的些篇])综述(?!一下)")),
    ("research", _rx(r"研究型?论文", r"原创研究")),
    ("conference", _rx(r"会议论文")),
    ("journal", _rx(r"期刊论文")),
    ("thesis", _rx(r"学位论文", r"毕业论文", r"硕士论文", r"博士论文")),
    ("preprint", _rx(r"预印本")),
)


# --- collections, tags, authors, venues ----------------------------------------------------------

_COLLECTION_PHRASES = (
    re.compile(rf"\b(?:in|from|across|within|of)\s+(?:my|the|our)\s+{_Q}?(?P<n>[\w][\w\- /&]{{0,40}}?){_UNQ}?\s+collection\b", re.I),
    re.compile(rf"\bcollection\s+{_Q}(?P<n>[^\"”’'」』]{{1,60}}){_UNQ}", re.I),
    re.compile(r"\bin\s+(?:the\s+)?collection\s+(?P<n>[\w\-/]+)", re.I),
    re.compile(rf"(?:文献集|收藏夹|文件夹|分类)\s*{_Q}(?P<n>[^\"”’'」』]{{1,40}}){_UNQ}"),
    re.compile(rf"{_Q}(?P<n>[^\"”’'」』]{{1,40}}){_UNQ}\s*(?:文献集|收藏夹|文件夹|分类)"),
)
_TAG_PHRASES = (
    re.compile(rf"\btagged\s+(?:as\s+|with\s+)?{_Q}(?P<n>[^\"”’'」』]{{1,40}}){_UNQ}", re.I),
    re.compile(r"\btagged\s+(?:as\s+|with\s+)?(?P<n>[\w][\w\-]*)", re.I),
    re.compile(rf"\bwith\s+the\s+tag\s+{_Q}?(?P<n>[\w][\w\- ]{{0,30}}?){_UNQ}?(?=[\s,.?;]|$)", re.I),
    re.compile(rf"标签(?:为|是)?\s*{_Q}(?P<n>[^\"”’'」』]{{1,40}}){_UNQ}"),
    re.compile(rf"带有?\s*{_Q}(?P<n>[^\"”’'」』]{{1,40}}){_UNQ}\s*标签"),
)
_NAME = r"[A-Z][\w'’\-]+(?:\s+[A-Z][\w'’\-]+){0,2}"
_AUTHOR_PHRASES = (
    re.compile(rf"\b(?:written\s+)?by\s+(?P<n>{_NAME}(?:(?:\s*,\s*|\s+(?:and|or|&)\s+){_NAME})*)"),
    re.compile(rf"(?P<n>{_NAME})['’]s\s+(?:[\w-]+\s+)?(?:papers|work|studies|articles|publications)\b"),
    re.compile(r"作者(?:为|是)\s*(?P<n>[\u4e00-\u9fff]{2,4}?(?=的|等|发表|[，,。？?、\s]|$)|[A-Z][\w\-]+(?:\s+[A-Z][\w\-]+){0,2})"),
)
_VENUE_PHRASES = (
    re.compile(r"\b(?:published\s+)?in\s+(?:the\s+)?(?P<n>(?:Journal|Proceedings|Transactions|Annals|Bulletin)\s+of(?:\s+(?:the|and|&|[A-Z][\w&\-]*))+)"),
    re.compile(r"\b(?:published\s+)?in\s+(?P<n>[A-Z][\w&\-]*(?:\s+(?:[A-Z][\w&\-]*|of|and|&))*\s+(?:Journal|Letters|Review|Proceedings))\b"),
    re.compile(r"(?:发表(?:在|于)|刊登(?:在|于))\s*《(?P<n>[^》]{1,40})》"),
    re.compile(r"《(?P<n>[^》]{1,40})》\s*(?:上|期刊|杂志)"),
)


@dataclass(frozen=True)
class LibraryFacts:
    """The names a question may use for parts of the library, and what is open in the window."""

    collections: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    venues: tuple[str, ...] = ()
    open_collection: str | None = None
    open_tag: str | None = None

    @classmethod
    def of(cls, pool: DocumentPool, *, open_collection: str | None = None, open_tag: str | None = None) -> LibraryFacts:
        """The facts of a document pool: its documents' tags, authors and venues, and the paths of
        its collections when it can list them (``collection_tree``)."""
        docs = pool.list_documents()
        tree_of = getattr(pool, "collection_tree", None)
        paths: list[str] = []
        if callable(tree_of):
            tree = tree_of()
            paths = [str(c.path) for c in getattr(tree, "by_id", {}).values()]
        return cls(
            collections=tuple(dict.fromkeys(paths)),
            tags=tuple(dict.fromkeys(t for d in docs for t in d.tags)),
            authors=tuple(dict.fromkeys(a for d in docs for a in d.authors if a)),
            venues=tuple(dict.fromkeys(d.venue for d in docs if d.venue)),
            open_collection=open_collection,
            open_tag=open_tag,
        )


# --- the result ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """Which papers a synthesis answer may draw on. Empty fields do not narrow; all given ones must
    hold. ``years_said``: the words the years were given in ("近三年"), ``relative``: read against
    the clock."""

    year_from: int | None = None
    year_to: int | None = None
    years_said: str = ""
    relative: bool = False
    collections: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    authors: tuple[str, ...] = ()
    venues: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    @property
    def whole_library(self) -> bool:
        return not (self.has_years or self.collections or self.tags or self.authors or self.venues or self.kinds)

    @property
    def has_years(self) -> bool:
        return self.year_from is not None or self.year_to is not None

    def holds_year(self, year: int | None) -> bool:
        """Whether a paper of ``year`` is inside the years (an unknown year is not, once any are given)."""
        if not self.has_years:
            return True
        if year is None:
            return False
        return (self.year_from is None or year >= self.year_from) and (self.year_to is None or year <= self.year_to)

    def describe(self, lang: Language = "en") -> Message:
        """One line for the trace and the answer: "Scope: papers from 2024 to 2026 in collection 'X'"."""
        if self.whole_library:
            return msg("synthesis.scope.whole", lang)
        kind: Message = msg("synthesis.kind.papers", lang)
        for i, k in enumerate(self.kinds):
            one = msg(f"synthesis.kind.{k}", lang)
            kind = one if i == 0 else msg("synthesis.and", lang, first=kind, second=one)
        parts: list[Message] = []
        if self.has_years:
            parts.append(self._years_msg(lang))
        if self.collections:
            parts.append(msg("synthesis.collections", lang, names=list(self.collections)))
        if self.tags:
            parts.append(msg("synthesis.tags", lang, names=list(self.tags)))
        if self.authors:
            parts.append(msg("synthesis.authors", lang, names=list(self.authors)))
        if self.venues:
            parts.append(msg("synthesis.venues", lang, names=list(self.venues)))
        if not parts:
            return msg("synthesis.scope.kind", lang, kind=kind)
        return msg("synthesis.scope", lang, kind=kind, parts=parts)

    def _years_msg(self, lang: Language) -> Message:
        a, b = self.year_from, self.year_to
        if a is not None and b is not None:
            if a == b:
                return msg("synthesis.years.one", lang, year=str(a))
            if self.relative:
                return msg("synthesis.years.relative", lang, start=str(a), end=str(b), said=self.years_said)
            return msg("synthesis.years.range", lang, start=str(a), end=str(b))
        if a is not None:
            return msg("synthesis.years.since", lang, start=str(a))
        return msg("synthesis.years.until", lang, end=str(b))

    def to_data(self) -> dict[str, Any]:
        return {
            "years": [self.year_from, self.year_to] if self.has_years else None,
            "years_said": self.years_said,
            "relative": self.relative,
            "collections": list(self.collections),
            "tags": list(self.tags),
            "authors": list(self.authors),
            "venues": list(self.venues),
            "kinds": list(self.kinds),
        }


@dataclass(frozen=True)
class SynthesisRequest:
    """A research question across the library, read: what to do (``tasks``, the first is the
    main one), what to gather of each paper (``facets``), from which papers (``scope``), and what
    the papers must be about (``topic``: the question's own words without scope, task, facet and
    library words; pieces that did not belong together are separated by commas)."""

    question: str
    language: Language
    tasks: tuple[str, ...]
    facets: tuple[str, ...]
    scope: Scope
    topic: str
    cut: tuple[str, ...] = field(default=())  # the scope words taken out of the topic, for the trace

    @property
    def task(self) -> str:
        return self.tasks[0]

    def topic_words(self) -> list[str]:
        """The topic's pieces, in order ("urban bird conservation", "医学影像")."""
        sep = r"[，,。；;、？?！!：:]+" if self.language == "zh" else r"[,;?!:]+"
        return [p.strip() for p in re.split(sep, self.topic) if p.strip()]

    def describe(self) -> Message:
        """The scope, in the question's language, as one line."""
        return self.scope.describe(self.language)

    def to_data(self) -> dict[str, Any]:
        return {
            "tasks": list(self.tasks),
            "facets": list(self.facets),
            "scope": self.scope.to_data(),
            "topic": self.topic_words(),
            "describe": self.describe().text(),
        }


# --- reading a question --------------------------------------------------------------------------


def _known(text: str, names: Iterable[str], *, min_len: int = 2) -> list[tuple[str, int, int]]:
    """Known names that the text mentions (longest first, whole words, any case): (name, start, end)."""
    found: list[tuple[str, int, int]] = []
    for name in sorted({n for n in names if len(n.strip()) >= min_len}, key=len, reverse=True):
        m = re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.IGNORECASE)
        if m and not any(a <= m.start() < b for _, a, b in found):
            found.append((name, m.start(), m.end()))
    return found


def _phrases(text: str, patterns: Sequence[re.Pattern[str]]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    for rx in patterns:
        for m in rx.finditer(text):
            if not any(a <= m.start() < b for _, a, b in out):
                out.append((m.group("n").strip(), m.start(), m.end()))
    return out


def _family_names(text: str, authors: Iterable[str]) -> list[tuple[str, int, int]]:
    """Authors named by their family name only ("Varga's papers"), as written (capitalised)."""
    out: list[tuple[str, int, int]] = []
    for a in authors:
        family = a.split()[-1] if " " in a else ""
        if len(family) >= 3:
            m = re.search(rf"(?<![\w-]){re.escape(family)}(?![\w-])", text)
            # A family name opening the question may be its first word ("Field studies …").
            if m and text[: m.start()].strip():
                out.append((a, m.start(), m.end()))
    return out


def _spans_of(text: str, table: Sequence[tuple[str, re.Pattern[str]]]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    for name, rx in table:
        for m in rx.finditer(text):
            if not any(a <= m.start() < b or a < m.end() <= b for _, a, b in out):
                out.append((name, m.start(), m.end()))
    return out


def _scope_names(
    q: str, facts: LibraryFacts
) -> tuple[list[str], list[str], list[str], list[str], list[tuple[int, int]]]:
    """Collections, tags, authors and venues the question names, with where they were said."""
    cut: list[tuple[int, int]] = []

    def take(found: list[tuple[str, int, int]], phrases: list[tuple[str, int, int]], known: Sequence[str]) -> list[str]:
        names: list[str] = []
        for n, a, b in phrases:
            # A phrase's name is the library's spelling of it when the library has one.
            match = next((k for k in known if k.casefold() in (n.casefold(), n.casefold().strip("/"))), None)
            # a collection's leaf ("Marlow Bay"), an author's family name ("Varga")
            match = match or next((k for k in known if k.rsplit("/", 1)[-1].casefold() == n.casefold()), None)
            match = match or next((k for k in known if " " in k and k.split()[-1].casefold() == n.casefold()), None)
            # "in Urban Bioacoustics and Urban Ecosystems Letters": two of the library's venues
            inside = [k for k in known if len(k) >= 4 and re.search(rf"(?<![\w-]){re.escape(k)}(?![\w-])", n, re.I)]
            names.extend([match] if match else inside or [n])
            cut.append((a, b))
        for n, a, b in found:
            if not any(x <= a < y for x, y in cut):
                names.append(n)
                cut.append((a, b))
        return list(dict.fromkeys(names))

    # A collection's name alone is often the topic too ("about urban birds" beside a collection
    # "Urban birds"): only a phrase that says "collection" names one.
    collections = take([], _phrases(q, _COLLECTION_PHRASES), facts.collections)
    tags = take([], _phrases(q, _TAG_PHRASES), facts.tags)
    author_phrases = [
        (name, a, b)
        for n, a, b in _phrases(q, _AUTHOR_PHRASES)
        for name in re.split(r"\s*,\s*|\s+(?:and|or|&)\s+", n)
        if name
    ]
    authors = take(_known(q, facts.authors, min_len=4) + _family_names(q, facts.authors), author_phrases, facts.authors)
    venues = take(_known(q, facts.venues, min_len=6), _phrases(q, _VENUE_PHRASES), facts.venues)
    # A collection or a tag that is open in the window scopes the question too.
    if facts.open_collection and facts.open_collection not in collections:
        collections.insert(0, facts.open_collection)
    if facts.open_tag and facts.open_tag not in tags:
        tags.insert(0, facts.open_tag)
    return collections, tags, authors, venues, cut


def _tasks(q: str, zh: bool, facets: Sequence[str]) -> tuple[str, ...]:
    table = _TASKS_ZH if zh else _TASKS_EN
    found = [t for t in TASKS if table[t].search(q)]
    # "Which papers …, and what does each conclude?" and "What did they find?" ask for a summary
    # of each paper; a question that names no task asks for one too.
    if "finding" in facets and "compare" not in found and "summarise" not in found:
        found.append("summarise")
    if "which_papers" in found and facets and "summarise" not in found and len(found) == 1:
        found.append("summarise")
    if zh and "directions" in found and not re.search(r"方向|建议|展望|值得|空白|解决", q):
        found.remove("directions")
    return tuple(t for t in TASKS if t in found) or ("summarise",)


def _topic(q: str, cuts: Sequence[tuple[int, int]], zh: bool) -> str:
    """The question without the cut spans and the words about the library or the asking."""
    text = q
    for a, b in sorted(set(cuts), reverse=True):
        text = text[:a] + (" ， " if zh else " , ") + text[b:]
    if zh:
        # 论文 / 文献 / 文章 where they stand for the papers: before a glue character or the end,
        # or after 的 / 些 / 篇 (关于城市鸟类的论文所用的方法; not 学术论文阅读 or 文献阅读).
        text = re.sub(r"(?:论文|文献|文章)(?=[的中里内所分各有在和与及、，。？！?!,.\s]|$)|(?<=[的些篇])(?:论文|文献|文章)", "，", text)
        for w in sorted(SYNTH_GENERIC_ZH, key=len, reverse=True):
            text = text.replace(w, "，")
        pieces = re.split(r"[，,。；;、？?！!：:\s]+", text)
        # Glue left at a piece's edge once its neighbours are cut (城市鸟类的, 并).
        pieces = [re.sub(r"^[的了和与及或并在对从将把被向还都]+|[的了和与及或并在对从将把被向还都]+$", "", p) for p in pieces]
        return "，".join(p for p in pieces if len(p) >= 2)
    words = re.findall(r"[^\W_]+(?:[-'’.][^\W_]+)*|[^\w\s]", text)
    kept = ["," if w.lower() in SYNTH_GENERIC_EN else w for w in words]
    out = " ".join(kept)
    out = re.sub(r"(?:\s*,\s*)+", " , ", out)
    # Function words alone between separators carry nothing.
    pieces = []
    for piece in out.split(","):
        words = [w for w in piece.split() if w.isalnum() or re.match(r"\w", w)]
        # Function words at a piece's edge ("on urban bird conservation", "birds in") carry nothing.
        while words and words[0].lower() in STOPWORDS:
            words.pop(0)
        while words and words[-1].lower() in STOPWORDS:
            words.pop()
        if words:
            pieces.append(" ".join(words))
    return " , ".join(pieces)


def parse_synthesis(
    question: str, facts: LibraryFacts | None = None, now: date | None = None
) -> SynthesisRequest | None:
    """The synthesis request ``question`` makes, or None for a look-up question.

    ``facts``: the library's names and the open collection or tag (``LibraryFacts.of(pool)``);
    ``now``: the day relative years are read against (default ``clock.today()``)."""
    q = " ".join(question.split())
    if not q or not is_synthesis(q):
        return None
    return read_request(q, facts, now)


def read_request(question: str, facts: LibraryFacts | None = None, now: date | None = None) -> SynthesisRequest:
    """``question`` read as a synthesis request, whether or not it looks like one (a follow-up
    that refines a previous synthesis question, or a caller that already knows)."""
    q = " ".join(question.split())
    zh = _is_zh(q)
    facts = facts or LibraryFacts()
    years: YearSpan | None = find_years(q, now)
    cuts: list[tuple[int, int]] = [(years.begin, years.stop)] if years else []
    collections, tags, authors, venues, named = _scope_names(q, facts)
    cuts += named
    kinds = _spans_of(q, _KINDS_ZH if zh else _KINDS_EN)
    cuts += [(a, b) for _, a, b in kinds]
    facet_spans = [
        f for f in _spans_of(q, _FACETS_ZH if zh else _FACETS_EN) if not any(a <= f[1] < b for a, b in cuts)
    ]
    facets = tuple(f for f in FACETS if any(name == f for name, _, _ in facet_spans))
    cuts += [(a, b) for _, a, b in facet_spans]
    tasks = _tasks(q, zh, facets)
    table = _TASKS_ZH if zh else _TASKS_EN
    cuts += [(m.start(), m.end()) for t in TASKS for m in table[t].finditer(q)]
    scope = Scope(
        year_from=years.start if years else None,
        year_to=years.end if years else None,
        years_said=re.sub(r"^(?:from|in|over|during|within|of)\s+", "", years.said, flags=re.I) if years else "",
        relative=years.relative if years else False,
        collections=tuple(collections),
        tags=tuple(tags),
        authors=tuple(authors),
        venues=tuple(venues),
        kinds=tuple(k for k in KINDS if any(name == k for name, _, _ in kinds)),
    )
    topic = _topic(q, _merge(cuts), zh)
    if zh:
        topic = "，".join(p for p in topic.split("，") if p not in ZH_GENERIC)
    said = tuple(dict.fromkeys(q[a:b].strip() for a, b in _merge(cuts) if q[a:b].strip()))
    return SynthesisRequest(
        question=q, language="zh" if zh else "en", tasks=tasks, facets=facets, scope=scope, topic=topic, cut=said
    )


# A follow-up that adds to what is asked ("add the sample size", "also the limitations", 再加上样本量)
# rather than replacing it.
_ADDING = re.compile(r"\b(?:add|also|as\s+well|too|plus|include)\b|加上|再加|还要|另外|也", re.IGNORECASE)


def refine(
    previous: SynthesisRequest, followup: str, facts: LibraryFacts | None = None, now: date | None = None
) -> SynthesisRequest:
    """``previous`` narrowed or extended by a follow-up ("只看2024年的", "only the clinical ones",
    "add the sample size"): what the follow-up states replaces that part of the scope (its years,
    collections, tags, authors, venues, kinds), its topic words narrow the topic, and its facets
    replace the asked ones or, with "add" / "also" / 加上, join them. The tasks stay."""
    f = read_request(followup, facts, now)
    old, new = previous.scope, f.scope
    scope = Scope(
        year_from=new.year_from if new.has_years else old.year_from,
        year_to=new.year_to if new.has_years else old.year_to,
        years_said=new.years_said if new.has_years else old.years_said,
        relative=new.relative if new.has_years else old.relative,
        collections=new.collections or old.collections,
        tags=new.tags or old.tags,
        authors=new.authors or old.authors,
        venues=new.venues or old.venues,
        kinds=new.kinds or old.kinds,
    )
    if not f.facets:
        facets = previous.facets
    elif _ADDING.search(followup):
        facets = tuple(x for x in FACETS if x in previous.facets or x in f.facets)
    else:
        facets = f.facets
    sep = "，" if previous.language == "zh" else " , "
    topic = sep.join(p for p in (previous.topic, f.topic) if p)
    return SynthesisRequest(
        question=previous.question, language=previous.language, tasks=previous.tasks, facets=facets, scope=scope,
        topic=topic, cut=previous.cut + f.cut,
    )  # fmt: skip


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def synthesis_topic(question: str) -> SynthesisRequest | None:
    """For the question analysis: the request of a synthesis question read without the library's
    names (None for a look-up question). Kept per question and day: the loop analyses one
    question many times."""
    return _topic_of(" ".join(question.split()), today())


@functools.lru_cache(maxsize=256)
def _topic_of(question: str, day: date) -> SynthesisRequest | None:
    return parse_synthesis(question, None, day)


__all__ = [
    "FACETS",
    "KINDS",
    "TASKS",
    "LibraryFacts",
    "Scope",
    "SynthesisRequest",
    "is_synthesis",
    "parse_synthesis",
    "read_request",
    "refine",
    "synthesis_topic",
]
