"""The synthesis plan's first step: the scope's papers, and the relevant ones among them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from paperpilot.core.agent.synthesis import LibraryFacts, parse_synthesis
from paperpilot.core.agent.synthesis_plan import document_kinds, papers_in_scope, select_papers
from paperpilot.core.models import DocumentInfo, Hit, Passage

NOW = date(2026, 6, 15)


def doc(i: int, title: str, year: int | None, abstract: str = "", **kw: object) -> DocumentInfo:
    return DocumentInfo(doc_id=i, title=title, authors=list(kw.pop("authors", [])), year=year, pages=1, chunks=1,  # type: ignore[call-overload]
                        status="ready", abstract=abstract, **kw)  # fmt: skip


DOCS = [
    doc(1, "House Sparrow Decline in the Old Town", 2022, "The house sparrow population of the old town fell by 57%.",
        authors=["Elena Varga", "Tomasz Brenner"], venue="Journal of Urban Ornithology", tags=["to-read"]),
    doc(2, "Traffic Noise Raises the Song Pitch of Great Tits", 2020, "Great tits sing higher near the road.",
        venue="Urban Bioacoustics"),
    doc(3, "Green Roofs as Foraging Habitat for Urban Birds", 2021, "Birds fed on green roofs.",
        venue="Urban Ecosystems Letters"),
    doc(4, "Marlow Bay Breeding Bird Survey: Changes between 2019 and 2023", 2024,
        "The house sparrow declined by 18%.", authors=["Aisha Rahman", "Elena Varga"]),
    doc(5, "Complications of thrombosis prophylaxis in trauma: a systematic review of the literature", 2010,
        "A systematic review of DVT prophylaxis.", venue="Journal of Trauma Management & Outcomes"),
    doc(6, "S2ORC: The Semantic Scholar Open Research Corpus", 2020, "A corpus of 81.1M academic papers.",
        venue="Proceedings of the 58th Annual Meeting of the ACL"),
    doc(7, "Novelty Controlled Paraphrase Generation", 2022, "Paraphrase generation with prompt tuning.", arxiv_id="2202.00535"),
    doc(8, "中国科学院大学学位论文模板", 2014, "学位论文的排版说明。"),
    doc(9, "PaperMage: a toolkit for scientific documents", None, "Processing visually-rich scientific documents."),
]  # fmt: skip

# The body text each paper's passages hold (what the pool's search finds).
BODY = {
    1: "sparrows nested under the eaves; insulation sealed the nest sites of sparrows",
    2: "traffic noise masks song; birds near the road",
    3: "green roofs held more birds and invertebrates than gravel roofs",
    4: "the house sparrow and the swift declined; black redstarts on green roofs",
    5: "heparin and compression devices in trauma patients",
    6: "citation parsing of academic papers",
    7: "retrieval augmented prompt tuning",
    8: "模板 使用 说明",
    9: "scientific document processing toolkit",
}


class Pool:
    """A document pool whose search finds a paper when its text holds one of the query's words."""

    def __init__(self, collections: dict[str, list[int]] | None = None) -> None:
        self.collections = collections or {}
        self.searches: list[tuple[str, list[int] | None]] = []

    def list_documents(self) -> list[DocumentInfo]:
        return list(DOCS)

    def search(self, query: str, k: int = 3, *, doc_ids: Sequence[int] | None = None, **_: object) -> list[Hit]:
        self.searches.append((query, list(doc_ids) if doc_ids is not None else None))
        words = [w for w in query.lower().split() if len(w) > 2]
        hits = []
        for d in DOCS:
            if doc_ids is not None and d.doc_id not in doc_ids:
                continue
            text = BODY[d.doc_id]
            n = sum(w[:5] in text for w in words)
            if n:
                hits.append(Hit(doc_id=d.doc_id, chunk_id=d.doc_id * 10, seq=1, title=d.title, section="", page=1,
                                score=float(n), snippet=text, terms=[w for w in words if w[:5] in text], kind="body"))  # fmt: skip
        return sorted(hits, key=lambda h: -h.score)[:k]

    def read(self, doc_id: int, segment: int) -> Passage:  # pragma: no cover - not read here
        raise NotImplementedError

    def collection_tree(self) -> object:
        pool = self

        class Node:
            def __init__(self, ids: list[int]) -> None:
                self.ids = ids

            def all_doc_ids(self) -> list[int]:
                return self.ids

        class Tree:
            def __init__(self) -> None:
                self.by_id: dict[int, object] = {}

            def get(self, name: str) -> Node:
                if name not in pool.collections:
                    raise KeyError(name)
                return Node(pool.collections[name])

        return Tree()


def request(question: str, **facts: object) -> object:
    r = parse_synthesis(question, LibraryFacts(**facts), NOW)  # type: ignore[arg-type]
    assert r is not None, question
    return r


def ids(question: str, pool: Pool | None = None, **facts: object) -> list[int]:
    pick = select_papers(request(question, **facts), pool or Pool())  # type: ignore[arg-type]
    return [c.doc_id for c in pick.chosen]


def test_document_kinds_from_metadata() -> None:
    kinds = {d.doc_id: document_kinds(d) for d in DOCS}
    assert "review" in kinds[5] and "research" not in kinds[5] and "journal" in kinds[5]
    assert kinds[6] >= {"conference", "research"} and kinds[7] >= {"preprint", "research"}
    assert "thesis" in kinds[8] and "journal" in kinds[1]


def test_the_scope_narrows_and_is_never_widened() -> None:
    pool = Pool({"Urban birds": [1, 2, 3, 4]})
    scoped = lambda q, **f: [d.doc_id for d in papers_in_scope(pool, request(q, **f).scope)]  # type: ignore[attr-defined]  # noqa: E731
    assert scoped("Compare the papers of the last five years") == [1, 4, 7]  # 2022–2026; an unknown year is out
    assert scoped("Which papers in my Urban birds collection study noise?") == [1, 2, 3, 4]
    assert scoped("Which papers in my Nope collection study noise?") == []
    assert scoped("Which papers tagged to-read study noise?") == [1]
    assert scoped("What have Elena Varga's papers found?", authors=("Elena Varga",)) == [1, 4]
    assert scoped("Compare the papers published in the Journal of Urban Ornithology.") == [1]
    assert scoped("What do the review articles in my library conclude?") == [5]
    assert scoped("Which conference papers in my library deal with citations?") == [6]
    assert scoped("库中的学位论文分别研究了什么问题？") == [8]


def test_relevant_papers_by_title_abstract_and_passages() -> None:
    assert sorted(ids("Which papers in my library are about house sparrows, and what does each conclude?")) == [1, 4]
    assert ids("Which papers in my library are about green roofs?")[0] == 3  # title and abstract first
    assert sorted(ids("Which papers in my library are about green roofs?")) == [3, 4]  # 4 only in a passage
    assert ids("Which papers from 2020–2022 are about green roofs?") == [3]  # 4 is from 2024
    assert ids("Which papers in my library are about quantum gravity?") == []


def test_a_question_without_a_topic_is_about_every_paper_in_scope() -> None:
    assert ids("What do the review articles in my library conclude?") == [5]
    assert ids("Compare the papers of the last five years") == [4, 1, 7]  # the newest first


def test_searches_stay_inside_the_scope_and_large_scopes_say_how_many_more() -> None:
    pool = Pool()
    pick = select_papers(request("Which papers from 2020–2022 are about birds or sparrows?"), pool, limit=1)  # type: ignore[arg-type]
    assert pool.searches and all(set(ids_ or []) <= {1, 2, 3, 6, 7} for _, ids_ in pool.searches)
    assert len(pick.chosen) == 1 and pick.more >= 1 and set(pick.in_scope) == {1, 2, 3, 6, 7}
    assert pick.to_data()["more"] == pick.more and pick.terms


def test_a_review_says_so() -> None:
    survey = doc(20, "Breeding Bird Survey: Changes between 2019 and 2023", 2024, "We compare two surveys.")
    method = doc(21, "LongEval: guidelines for human evaluation", 2023, "Through a survey of 162 papers, we find …")
    review = doc(22, "Deep learning for medical imaging: a survey", 2024, "")
    zh = doc(23, "Transformer在医学影像中的研究进展", 2024, "")
    abstract = doc(24, "Thrombosis prophylaxis complications", 2010, "A systematic review was completed using PRISMA.")
    assert [("review" in document_kinds(d)) for d in (survey, method, review, zh, abstract)] == [False, False, True, True, True]
