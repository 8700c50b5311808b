"""Research questions across the library: recognised, their scope read against a fixed clock, and
their words about the library and the task never taken for concepts."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from paperpilot.core.agent.analysis import analyze, content_terms
from paperpilot.core.agent.synthesis import LibraryFacts, Scope, is_synthesis, parse_synthesis, read_request
from paperpilot.core.clock import NOW_ENV, TODAY_ENV
from paperpilot.core.models import DocumentInfo

NOW = date(2026, 6, 15)

FACTS = LibraryFacts(
    collections=("Urban birds", "Urban birds/Marlow Bay", "NLP", "Clinical"),
    tags=("to-read", "视觉"),
    authors=("Elena Varga", "Tomasz Brenner", "李明"),
    venues=("Journal of Urban Ornithology", "Urban Bioacoustics", "城市生态学报"),
)


def years(q: str, facts: LibraryFacts | None = None) -> tuple[int | None, int | None] | None:
    r = parse_synthesis(q, facts, NOW)
    assert r is not None, q
    return (r.scope.year_from, r.scope.year_to) if r.scope.has_years else None


# --- recognition ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Which papers in my library are about urban birds, and what does each conclude?",
        "Which papers from 2024 study traffic noise, and what did each find?",
        "Compare the field studies in my library: what populations did they study and what did they conclude?",
        "Compare the research progress on transformers across these papers from the last three years, and suggest promising directions",
        "Summarise the findings of the papers on green roofs.",
        "What do the review articles in my library conclude?",
        "What open questions remain about bird collisions?",
        "Give me an overview of the research on hydrology.",
        "What have Elena Varga's papers found about sparrows?",
        "Across the Urban birds collection, how have populations changed?",
        "对比库中关于城市鸟类的论文所用的方法。",
        "帮我对比一下近三年Transformer在医学影像方向的研究进展并给出值得投稿的方向建议",
        "这些论文的局限性和未来研究方向有哪些？",
        "2021年发表的论文中，哪些研究了城市绿地对鸟类的影响？",
        "过去两年的鸟类研究有哪些主要发现？",
        "总结近五年库中关于患者护理的研究发现",
        "标签为“视觉”的论文分别提出了什么方法？",
    ],
)
def test_synthesis_questions_are_recognised(question: str) -> None:
    assert is_synthesis(question)
    assert parse_synthesis(question, now=NOW) is not None


@pytest.mark.parametrize(
    "question",
    [
        # a look-up with a year: the year names a paper or a fact, it filters nothing
        "What did the 2019 survey find about house sparrows?",
        "How many breeding pairs were counted in 2021?",
        "2019年滨江市公园调查记录了多少种鸟类？",
        "近三年滨江市公园的游客密度是多少？",
        # one paper, one fact, two named sides
        "Which paper introduced the BezierAlign layer?",
        "What does the LongEval paper recommend for human evaluation?",
        "How does BERT-2020 compare with GPT-2 on paraphrase generation?",
        "In my library, what is the sample size of the house sparrow census?",
        "What is the data model of Bigtable?",
        "How many papers does S2ORC contain?",
        "S2ORC 包含多少篇论文？",
        "Which papers does S2ORC cite for citation parsing?",
        # titles, subjects and stores that only look like the library's papers
        "Were The Bomb and Rolling Papers released in the same year?",
        "José Saramago and Ivo Andrić were recipients of what award in Literature?",
        "延康与黄初年间，河西诸郡叛乱，成公英做了哪些工作？",
        "S2ORC 语料库中有多少篇开放获取论文提供全文？",
    ],
)
def test_look_ups_are_not_synthesis_questions(question: str) -> None:
    assert not is_synthesis(question)
    assert parse_synthesis(question, now=NOW) is None


# --- years ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which papers since 2023 study noise?", (2023, 2026)),
        ("Which papers from 2020–2022 study noise?", (2020, 2022)),
        ("Which papers from 2020-2022 study noise?", (2020, 2022)),
        ("Compare the papers published between 2020 and 2022.", (2020, 2022)),
        ("Which papers in 2024 studied birds?", (2024, 2024)),
        ("Compare the 2023 papers in my library.", (2023, 2023)),
        ("Summarise the papers of the last five years.", (2022, 2026)),
        ("Summarise the papers of the past 3 years.", (2024, 2026)),
        ("Summarise the studies of the last decade.", (2017, 2026)),
        ("Compare the studies in my library before 2015.", (None, 2014)),
        ("对比近三年的论文", (2024, 2026)),
        ("对比近五年的论文", (2022, 2026)),
        ("对比近十年的论文", (2017, 2026)),
        ("对比近5年的论文", (2022, 2026)),
        ("过去两年的鸟类研究有哪些主要发现？", (2025, 2026)),
        ("2023年以来库中的论文有哪些进展？", (2023, 2026)),
        ("比较2020年至2022年间库中论文的数据集", (2020, 2022)),
        ("2021年发表的论文中，哪些研究了鸟类？", (2021, 2021)),
        ("Which papers in my library are about BERT-2020?", None),
        ("Which papers about GPT-3 and BERT are in my library?", None),
    ],
)
def test_years_absolute_and_relative(question: str, expected: tuple[int | None, int | None] | None) -> None:
    assert years(question) == expected


def test_relative_years_follow_paperpilot_now(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TODAY_ENV, raising=False)
    monkeypatch.setenv(NOW_ENV, "2030-03-01T08:00:00+00:00")
    r = parse_synthesis("Compare the papers of the last three years")
    assert r is not None and (r.scope.year_from, r.scope.year_to) == (2028, 2030) and r.scope.relative
    r = parse_synthesis("总结近三年库中的论文")
    assert r is not None and (r.scope.year_from, r.scope.year_to) == (2028, 2030)
    r = parse_synthesis("Compare the papers since 2023")
    assert r is not None and r.scope.year_to == 2030 and not r.scope.relative


def test_a_year_scope_holds_known_years_only() -> None:
    scope = Scope(year_from=2024, year_to=2026)
    assert [scope.holds_year(y) for y in (2023, 2024, 2026, 2027, None)] == [False, True, True, False, False]
    assert Scope().holds_year(None)


# --- collections, tags, authors, venues, kinds ---------------------------------------------------


def test_the_open_collection_scopes_the_question() -> None:
    facts = dataclasses.replace(FACTS, open_collection="Urban birds/Marlow Bay")
    r = parse_synthesis("Summarise what these papers say about traffic.", facts, NOW)
    assert r is not None and r.scope.collections == ("Urban birds/Marlow Bay",)
    r = parse_synthesis("这些论文的局限性有哪些？", LibraryFacts(open_tag="to-read"), NOW)
    assert r is not None and r.scope.tags == ("to-read",)


@pytest.mark.parametrize(
    ("question", "collections"),
    [
        ("In my Clinical collection, compare the designs of the papers.", ("Clinical",)),
        ("In my clinical collection, compare the designs of the papers.", ("Clinical",)),  # the library's spelling
        ("Across the Urban birds collection, which papers study noise?", ("Urban birds",)),
        ("Compare the papers in collection “Urban birds/Marlow Bay”.", ("Urban birds/Marlow Bay",)),
        ("对比文献集“NLP”中的论文的方法", ("NLP",)),
        # a collection's name that is the topic, not said as a collection
        ("Which papers in my library are about urban birds?", ()),
        ("What did the clinical studies in my library find?", ()),
    ],
)
def test_collections_named_in_the_question(question: str, collections: tuple[str, ...]) -> None:
    r = parse_synthesis(question, FACTS, NOW)
    assert r is not None and r.scope.collections == collections


@pytest.mark.parametrize(
    ("question", "tags"),
    [
        ("Which papers tagged to-read discuss limitations?", ("to-read",)),
        ('Which papers tagged "to read" discuss limitations?', ("to read",)),
        ("Summarise the papers with the tag to-read.", ("to-read",)),
        ("标签为“视觉”的论文分别提出了什么方法？", ("视觉",)),
    ],
)
def test_tags_named_in_the_question(question: str, tags: tuple[str, ...]) -> None:
    r = parse_synthesis(question, FACTS, NOW)
    assert r is not None and r.scope.tags == tags


def test_authors_and_venues() -> None:
    r = parse_synthesis("What have Elena Varga's papers found about house sparrows?", FACTS, NOW)
    assert r is not None and r.scope.authors == ("Elena Varga",)
    assert "Varga" not in r.topic and r.topic_words() == ["house sparrows"]
    r = parse_synthesis("Summarise the papers by Varga on sparrows.", FACTS, NOW)
    assert r is not None and r.scope.authors == ("Elena Varga",)
    r = parse_synthesis("Summarise the papers by Jane Doe on sparrows.", None, NOW)  # no library names
    assert r is not None and r.scope.authors == ("Jane Doe",)
    r = parse_synthesis("作者为李明的论文有哪些发现？", FACTS, NOW)
    assert r is not None and r.scope.authors == ("李明",)
    r = parse_synthesis("Compare the findings of the papers published in the Journal of Urban Ornithology.", FACTS, NOW)
    assert r is not None and r.scope.venues == ("Journal of Urban Ornithology",) and r.topic_words() == []
    r = parse_synthesis("Compare the papers published in the Journal of Applied Ecology.", None, NOW)
    assert r is not None and r.scope.venues == ("Journal of Applied Ecology",)


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("What do the review articles in my library conclude?", ("review",)),
        ("Summarise the systematic reviews in my library.", ("review",)),
        ("Summarise the methods of the research articles in my library.", ("research",)),
        ("Which conference papers in my library deal with citations?", ("conference",)),
        ("Summarize the preprints in my library.", ("preprint",)),
        ("库中的学位论文分别研究了什么问题？", ("thesis",)),
        ("库中的综述文章有哪些结论？", ("review",)),
        ("帮我综述一下库中关于鸟类的论文", ()),  # 综述一下 is the task, not a kind
        ("Which papers in my library are about the breeding bird survey?", ()),
    ],
)
def test_document_kinds(question: str, kinds: tuple[str, ...]) -> None:
    r = parse_synthesis(question, FACTS, NOW)
    assert r is not None and r.scope.kinds == kinds


# --- tasks and facets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "tasks", "facets"),
    [
        ("Which papers in my library are about noise, and what does each conclude?", {"which_papers", "summarise"}, {"finding"}),
        ("Compare the studies in my library: what populations did they study and what did they conclude?",
         {"compare"}, {"population", "finding"}),
        ("Compare the evaluation methods of the papers in my library.", {"compare"}, {"evaluation"}),
        ("Which papers from 2020–2022 propose a new method, and how were they evaluated?",
         {"which_papers", "summarise"}, {"method", "evaluation"}),
        ("What open questions and future research directions do the papers on summarization point to?",
         {"directions"}, {"future_work"}),
        ("What limitations do the papers in my library acknowledge, and what sample sizes did they use?",
         {"summarise"}, {"limitation", "sample_size"}),
        ("Which conference papers deal with citations, and what did each contribute?",
         {"which_papers", "summarise"}, {"contribution"}),
        ("Across the papers, how have bird populations changed?", {"summarise"}, set()),
        ("Give me an overview of the research on water.", {"survey"}, set()),
        ("帮我对比一下近三年Transformer在医学影像方向的研究进展并给出值得投稿的方向建议",
         {"compare", "survey", "directions"}, {"future_work"}),
        ("比较2020年至2022年间库中论文的数据集和评价指标。", {"compare"}, {"data", "evaluation"}),
        ("请比较近三年库中各篇论文的研究对象和主要结论", {"compare"}, {"population", "finding"}),
        ("这些论文的局限性和未来研究方向有哪些？", {"directions"}, {"limitation", "future_work"}),
    ],
)
def test_tasks_and_facets(question: str, tasks: set[str], facets: set[str]) -> None:
    r = parse_synthesis(question, FACTS, NOW)
    assert r is not None
    assert set(r.tasks) == tasks and set(r.facets) == facets


def test_the_main_task_comes_first() -> None:
    r = parse_synthesis("Compare the research progress across these papers and suggest directions", now=NOW)
    assert r is not None and r.task == "survey" and r.tasks == ("survey", "directions", "compare")


# --- the topic, and concepts ---------------------------------------------------------------------

# Words about the library, the papers as papers, the asking, the facets and the scope.
GENERIC = {
    "library", "collection", "paper", "papers", "study", "studies", "research", "progress", "compare", "directions",
    "direction", "suggest", "promising", "last", "three", "five", "years", "each", "conclude", "findings", "find",
    "methods", "method", "populations", "open", "questions", "future", "limitations", "across", "these", "summarise",
    "overview", "published", "库中", "这些论文", "论文", "进展", "方向", "建议", "研究", "近三年", "帮我", "对比",
    "一下", "方法", "局限性", "发现", "总结", "值得", "投稿", "方向建议", "研究进展",
}  # fmt: skip


@pytest.mark.parametrize(
    ("question", "concepts"),
    [
        ("Which papers in my library are about urban birds, and what does each conclude?", ["urban birds"]),
        ("Which papers from 2024 study urban noise, and what did each find?", ["urban noise"]),
        ("Compare the field studies in my library: what populations did they study and what did they conclude?", ["field"]),
        ("Compare the research progress on transformers across these papers from the last three years, and suggest promising directions",
         ["transformers"]),
        ("What open questions and future research directions do the papers on summarization point to?", ["summarization"]),
        ("What did the clinical studies in my library published between 2005 and 2010 find?", ["clinical"]),
        ("对比库中关于城市鸟类的论文所用的方法。", ["城市鸟类"]),
        ("帮我对比一下近三年Transformer在医学影像方向的研究进展并给出值得投稿的方向建议", ["Transformer", "医学影像"]),
        ("这些论文的局限性和未来研究方向有哪些？", []),
        ("总结这些论文中关于城市鸟类的主要发现", ["城市鸟类"]),
        ("帮我对比一下近五年关于学术论文阅读的研究进展", ["学术论文阅读"]),
        ("2023年以来库中的论文在人机交互和文献阅读方面有哪些进展？", ["人机交互", "文献阅读"]),
    ],
)
def test_library_and_task_words_are_never_concepts(question: str, concepts: list[str]) -> None:
    a = analyze(question)
    assert a.synthesis
    assert [*a.entities, *a.concepts] == concepts
    found = {p.text for p in a.parts} | {w for c in a.concepts for w in c.split()}
    assert not found & GENERIC, found & GENERIC
    assert all(p.kind in ("entity", "concept") for p in a.parts)  # no year, slot or side to fill
    assert not a.numbers and not a.sides
    assert not set(content_terms(question)) & GENERIC


def test_look_up_analysis_is_unchanged() -> None:
    a = analyze("What did the 2023 breeding bird survey find about swifts?")
    assert not a.synthesis and "2023" in a.numbers and "survey" in " ".join(a.concepts)
    b = analyze("How does BERT-2020 compare with GPT-2 on paraphrase generation?")
    assert not b.synthesis and b.sides == ("BERT-2020", "GPT-2")


# --- the result: typed, immutable, described in both languages ------------------------------------


def test_the_request_is_immutable_and_plain_data() -> None:
    r = parse_synthesis("Which papers from 2020–2022 propose a new method?", FACTS, NOW)
    assert r is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.tasks = ()  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.scope.year_from = 1999  # type: ignore[misc]
    data = r.to_data()
    assert data["scope"]["years"] == [2020, 2022] and data["tasks"] == ["which_papers", "summarise"]
    assert data["describe"] == "Scope: papers from 2020 to 2022"
    assert read_request("only the clinical ones", now=NOW).task == "summarise"  # a refinement read as one


def test_scope_described_in_english_and_chinese() -> None:
    facts = dataclasses.replace(FACTS, open_collection="NLP")
    r = parse_synthesis("Compare the review articles of the last three years by Varga.", facts, NOW)
    assert r is not None
    assert r.describe().text() == (
        "Scope: reviews from 2024 to 2026 (the last three years) in collection 'NLP' by Elena Varga"
    )
    assert r.describe().text("zh") == "范围：综述，2024–2026 年（the last three years），文献集 “NLP”，作者 Elena Varga"
    z = parse_synthesis("总结近三年标签为“视觉”的论文", FACTS, NOW)
    assert z is not None and z.describe().lang == "zh"
    assert z.describe().text() == "范围：论文，2024–2026 年（近三年），标签 “视觉”"
    assert z.describe().text("en") == "Scope: papers from 2024 to 2026 (近三年) tagged '视觉'"
    w = parse_synthesis("Compare the papers in my library", now=NOW)
    assert w is not None and w.scope.whole_library and w.describe().text() == "Scope: the whole library"
    assert w.describe().text("zh") == "范围：整个文献库"
    s = parse_synthesis("Compare the papers since 2023 in my library", now=NOW)
    assert s is not None and s.describe().text() == "Scope: papers from 2023 to 2026"
    u = parse_synthesis("Compare the papers in my library before 2015", now=NOW)
    assert u is not None and u.describe().text() == "Scope: papers up to 2014"
    assert u.describe().text("zh") == "范围：论文，2014 年及以前"


class _Pool:
    """A document pool with collections, as the library offers one."""

    def __init__(self) -> None:
        self.docs = [
            DocumentInfo(doc_id=1, title="A", authors=["Elena Varga"], year=2022, pages=1, chunks=1, status="ready",
                         venue="Journal of Urban Ornithology", tags=["to-read"]),
            DocumentInfo(doc_id=2, title="B", authors=["李明"], year=2021, pages=1, chunks=1, status="ready",
                         venue="城市生态学报"),
        ]  # fmt: skip

    def list_documents(self) -> list[DocumentInfo]:
        return list(self.docs)

    def collection_tree(self) -> object:
        node = type("Node", (), {"path": "Urban birds"})
        return type("Tree", (), {"by_id": {1: node}})


def test_library_facts_from_a_pool() -> None:
    facts = LibraryFacts.of(_Pool(), open_collection="Urban birds")  # type: ignore[arg-type]
    assert facts.collections == ("Urban birds",) and facts.tags == ("to-read",)
    assert facts.authors == ("Elena Varga", "李明") and facts.venues == ("Journal of Urban Ornithology", "城市生态学报")
    r = parse_synthesis("What did Varga's papers in Journal of Urban Ornithology find?", facts, NOW)
    assert r is not None and r.scope.authors == ("Elena Varga",) and r.scope.collections == ("Urban birds",)


def test_an_english_question_that_names_a_chinese_tag_stays_english() -> None:
    r = parse_synthesis('For the papers tagged "视觉", what limitations do the authors acknowledge?', FACTS, NOW)
    assert r is not None and r.language == "en" and r.scope.tags == ("视觉",) and r.facets == ("limitation",)


def test_how_research_has_progressed_is_a_survey() -> None:
    r = parse_synthesis("How has research on birds and buildings progressed since 2021?", FACTS, NOW)
    assert r is not None and "survey" in r.tasks and (r.scope.year_from, r.scope.year_to) == (2021, 2026)
    assert r.topic_words() == ["birds and buildings"]
    assert parse_synthesis("How has the sparrow population changed since 2009?", FACTS, NOW) is None


def test_two_venues_in_one_phrase_and_no_venue_from_a_number() -> None:
    facts = dataclasses.replace(FACTS, venues=(*FACTS.venues, "Urban Ecosystems Letters", "City Report 2024/3"))
    r = parse_synthesis(
        "How do the papers in Urban Bioacoustics and Urban Ecosystems Letters differ in their methods?", facts, NOW
    )
    assert r is not None and r.scope.venues == ("Urban Bioacoustics", "Urban Ecosystems Letters")
    r = parse_synthesis("Across the NLP collection, what was published in the last 3 years?", facts, NOW)
    assert r is not None and r.scope.venues == () and r.scope.collections == ("NLP",)


@pytest.mark.parametrize(
    ("question", "concepts"),
    [
        ("What limitations do the papers tagged to-read acknowledge?", []),
        ("What research gaps do the papers in my Urban birds collection identify?", []),
        ("Contrast the approaches taken by the conference papers in my library.", []),
        ("What open problems remain in document processing according to my library?", ["document processing"]),
        ("根据过去五年的文献，城市鸟类保护还有哪些值得研究的方向？", ["城市鸟类保护"]),
        ("最近十年库里关于深度学习的工作都用了哪些数据集？", ["深度学习"]),
        ("今年以来库中有没有关于鸟类的新研究？", ["鸟类"]),
    ],
)
def test_verbs_of_reporting_and_asking_are_never_concepts(question: str, concepts: list[str]) -> None:
    a = analyze(question)
    assert a.synthesis and [*a.entities, *a.concepts] == concepts


def test_kinds_years_and_author_lists() -> None:
    r = parse_synthesis("2015年以前发表的综述有哪些结论？", FACTS, NOW)  # 综述 are papers too
    assert r is not None and r.scope.kinds == ("review",) and (r.scope.year_from, r.scope.year_to) == (None, 2014)
    r = parse_synthesis("今年以来库中有没有关于鸟类的新研究？", FACTS, NOW)
    assert r is not None and (r.scope.year_from, r.scope.year_to) == (2026, 2026) and r.scope.years_said == "今年以来"
    q = "Which of my papers on birds were written by Aisha Rahman or Samuel Okafor, and what did they find?"
    r = parse_synthesis(q, None, NOW)
    assert r is not None and r.scope.authors == ("Aisha Rahman", "Samuel Okafor") and "which_papers" in r.tasks
    assert analyze(q).entities == ()  # the authors are the scope, not names the passages must carry
    r = parse_synthesis("Summarise the papers by Varga, Brenner and Dahl on sparrows.", None, NOW)
    assert r is not None and r.scope.authors == ("Varga", "Brenner", "Dahl") and r.topic_words() == ["sparrows"]


def test_follow_ups_refine_the_previous_request() -> None:
    from paperpilot.core.agent.synthesis import refine

    first = parse_synthesis("Compare the methods of the papers in my Urban birds collection on noise", FACTS, NOW)
    assert first is not None and first.facets == ("method",) and first.scope.collections == ("Urban birds",)
    years = refine(first, "只看2024年的", FACTS, NOW)
    assert (years.scope.year_from, years.scope.year_to) == (2024, 2024) and years.scope.collections == ("Urban birds",)
    assert years.facets == ("method",) and years.tasks == first.tasks and years.topic == first.topic
    narrower = refine(years, "only the clinical ones", FACTS, NOW)
    assert narrower.topic_words() == ["noise", "clinical"] and narrower.scope.year_to == 2024
    more = refine(narrower, "add the sample size", FACTS, NOW)
    assert more.facets == ("method", "sample_size")
    other = refine(more, "what about their limitations?", FACTS, NOW)
    assert other.facets == ("limitation",)
    zh = parse_synthesis("对比近五年库中关于城市鸟类的论文所用的方法", FACTS, NOW)
    assert zh is not None
    z2 = refine(zh, "再加上样本量，只看标签为“视觉”的", FACTS, NOW)
    assert z2.facets == ("method", "sample_size") and z2.scope.tags == ("视觉",) and z2.scope.year_from == 2022
    assert z2.topic_words() == ["城市鸟类"]


def test_a_family_name_that_opens_the_question_is_its_first_word() -> None:
    facts = dataclasses.replace(FACTS, authors=("John Field", "Elena Varga"))
    r = parse_synthesis("Field studies in my library: what did they find?", facts, NOW)
    assert r is not None and r.scope.authors == ()
    r = parse_synthesis("What did the papers by Field find?", facts, NOW)
    assert r is not None and r.scope.authors == ("John Field",)


@pytest.mark.parametrize(
    "question",
    [
        "How large is the corpus of scientific papers built from Semantic Scholar?",
        "What share of the collection of biomedical articles has full text?",
    ],
)
def test_a_corpus_of_papers_is_one_thing_not_the_papers_of_the_library(question: str) -> None:
    assert not is_synthesis(question)


@pytest.mark.parametrize(
    "question",
    [
        "What percentage of papers on long-form summarization do not perform any human evaluation?",
        "How many researchers tried CiteSee during their real literature reviews?",
        "S2ORC 用什么工具来解析每篇PDF？",
    ],
)
def test_a_count_or_a_share_is_a_look_up(question: str) -> None:
    assert not is_synthesis(question)
