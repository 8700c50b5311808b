"""Search by meaning in a real library: the bundled model, real SQLite and Tantivy, small fixtures.

Modes and their scores, what trash / restore / undo / empty trash do to results, a missing
or damaged vector file, a change of model, and the trace's modes.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from paperpilot.core.agent.events import Finished, ToolResult
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.report import trace_to_markdown
from paperpilot.core.agent.state import AgentState, PolicyStep
from paperpilot.core.agent.tools.search import Search
from paperpilot.core.agent.tools.tool import Decision
from paperpilot.core.app import Session
from paperpilot.core.library.semantic import fuse
from paperpilot.core.retrieval.embedder import Embedder, Vectors, normalise

PAPERS = {
    "eiffel.md": (
        "# The Eiffel Tower\n\nThe Eiffel Tower was completed in 1889 as the entrance arch to the World's Fair "
        "in Paris. Gustave Eiffel's company designed and built the wrought-iron lattice tower on the Champ de Mars."
    ),
    "protein.md": (
        "# Dietary protein\n\nAdults need about 0.8 grams of protein per kilogram of body weight each day; "
        "athletes and older people may benefit from more, spread over several meals."
    ),
    "sparrows.md": (
        "# House sparrows\n\nHouse sparrow numbers in European cities fell sharply since the 1980s; a lack of "
        "insects for the nestlings and fewer nesting holes in modern buildings are the main suspects."
    ),
    "brca.md": (
        "# BRCA1 in tumours\n\nWe measured BRCA1 expression in 120 breast tumour samples and found it reduced "
        "by half compared with normal tissue, most strongly in triple-negative cancers."
    ),
}


def make_home(root: Path) -> Path:
    home = root / "home"
    src = root / "papers"
    src.mkdir()
    for name, text in PAPERS.items():
        (src / name).write_text(text, encoding="utf-8")
    with Session(home) as s:
        assert not s.import_paths([src]).failed
    return home


@pytest.fixture(scope="module")
def embedded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home whose four papers are embedded (copied by the tests that change it)."""
    root = tmp_path_factory.mktemp("semantic")
    home = make_home(root)
    with Session(home) as s:
        result = s.embed_library(threads=1)
        assert (result.total, result.embedded, result.done) == (4, 4, 4)
    return home


@pytest.fixture
def home(embedded: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(embedded, copy)
    return copy


def doc_of(s: Session, name: str) -> int:
    stem = PAPERS[name].split("\n")[0].lstrip("# ")
    return next(d.doc_id for d in s.library.list_documents() if d.title == stem)


def test_keyword_until_embedded_then_hybrid_by_default(tmp_path: Path) -> None:
    home = make_home(tmp_path)
    with Session(home) as s:
        # Import embeds nothing: the vector file does not even exist yet.
        assert not (s.library.paths.database.with_name("vectors.sqlite")).exists()
        hits = s.library.search("Eiffel tower", 3)
        assert hits and all(h.found_by == "keyword" and h.bm25 == h.score for h in hits)
        assert s.library.search("Eiffel tower", 3, mode="meaning")[0].found_by == "keyword"  # nothing to mean yet
        s.embed_library(threads=1, batch_size=2)
        hits = s.library.search("Eiffel tower", 3)
        assert hits[0].title == "The Eiffel Tower" and hits[0].found_by == "both"
        assert hits[0].bm25 is not None and hits[0].dense is not None and hits[0].fused == hits[0].score


def test_meaning_finds_what_keywords_cannot(embedded: Path) -> None:
    with Session(embedded) as s:
        lib = s.library
        question = "埃菲尔铁塔是哪一年建成的？"  # Chinese, over an English paper
        assert lib.search(question, 3, mode="keyword") == []
        hits = lib.search(question, 2, mode="meaning")
        assert hits[0].title == "The Eiffel Tower"
        assert hits[0].found_by == "meaning" and hits[0].bm25 is None and 0 < (hits[0].dense or 0) <= 1
        paraphrase = "why are there fewer small brown city birds"
        assert lib.search(paraphrase, 1, mode="hybrid")[0].title == "House sparrows"
        assert lib.search(paraphrase, 1, mode="meaning")[0].title == "House sparrows"
        # filters hold for meaning too
        sparrows = doc_of(s, "sparrows.md")
        only = lib.search(question, 4, mode="meaning", doc_ids=[sparrows])
        assert [h.doc_id for h in only] == [sparrows]
        assert lib.search(question, 2, mode="meaning", kinds=["references"]) == []
        assert lib.search(question, 1, mode="meaning", kinds=["body", "abstract"])[0].title == "The Eiffel Tower"


def test_trash_restore_undo_and_empty_trash_keep_results_consistent(home: Path) -> None:
    q = "how much protein should a grown-up eat"
    with Session(home) as s:
        protein = doc_of(s, "protein.md")
        assert s.library.search(q, 1, mode="meaning")[0].doc_id == protein
        s.remove([protein])
        for mode in ("meaning", "hybrid", "keyword"):
            assert protein not in {h.doc_id for h in s.library.search(q, 4, mode=mode)}
        s.restore([protein])
        assert s.library.search(q, 1, mode="meaning")[0].doc_id == protein
        assert s.embed_library(threads=1).embedded == 0  # restored without embedding again
        s.remove([protein])
        assert s.undo()
        assert s.library.search(q, 1, mode="hybrid")[0].doc_id == protein
        s.remove([protein])
        s.empty_trash()
        assert protein not in {h.doc_id for h in s.library.search(q, 4, mode="meaning")}
        assert s.library.semantic is not None and s.library.semantic.store.count() == 3  # pruned
        assert not s.check().problems


def test_vectors_of_passages_deleted_behind_the_session_are_found_by_the_check(home: Path) -> None:
    with Session(home) as s:
        protein = doc_of(s, "protein.md")
        s.remove([protein])
        s.library.empty_trash()  # as the start-up purge of an old trash does, without the session
        assert protein not in {h.doc_id for h in s.library.search("protein for adults", 4, mode="meaning")}
        assert [p.kind for p in s.check().problems] == ["vectors"]
        assert not s.check(repair=True).problems
        assert s.library.semantic is not None and s.library.semantic.store.count() == 3


def test_a_missing_or_damaged_vector_file_is_rebuilt(home: Path) -> None:
    with Session(home) as s:
        path = s.library.paths.database.with_name("vectors.sqlite")
    path.unlink()
    for extra in ("-wal", "-shm", ".index"):
        Path(str(path) + extra).unlink(missing_ok=True)
    with Session(home) as s:
        assert s.library.search("Eiffel tower", 1)[0].found_by == "keyword"  # keyword until embedded again
        assert s.embed_library(threads=1).embedded == 4
        assert s.library.search("Eiffel tower", 1)[0].found_by == "both"
    path.write_bytes(b"this is not a database" * 100)
    Path(str(path) + ".index").write_bytes(b"junk")
    with Session(home) as s:
        report = s.check()
        assert any("vector file was damaged" in r for r in report.recovered)
        assert s.embed_library(threads=1).embedded == 4
        assert s.library.search("当代欧洲城市里麻雀为什么变少", 1, mode="meaning")[0].title == "House sparrows"
    # a damaged search structure alone is rebuilt from SQLite on the next search
    Path(str(path) + ".index").write_bytes(b"PPVEC1\n{}\n")
    with Session(home) as s:
        assert s.library.search("Eiffel tower", 1, mode="meaning")[0].title == "The Eiffel Tower"
        assert s.library.semantic is not None and s.library.semantic.store.last_rebuild == "damaged"


class OtherModel(Embedder):
    """A different (deterministic) model: bag of characters."""

    @property
    def name(self) -> str:
        return "test/other-model"

    @property
    def version(self) -> str:
        return "1"

    @property
    def dim(self) -> int:
        return 64

    def _embed_batch(self, texts: Sequence[str], *, query: bool) -> Vectors:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            for ch in t.lower():
                out[i, ord(ch) % 64] += 1
        return normalise(out)


def test_a_change_of_model_embeds_everything_again(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(Session, "embedder", lambda self, threads=None: OtherModel())
    with Session(home) as s:
        semantic = s.library.semantic
        assert semantic is not None
        assert s.library.search("Eiffel tower", 1)[0].found_by == "keyword"  # the old vectors are not used
        assert any("another model" in p.message for p in s.check().problems)
        result = s.embed_library()
        assert result.embedded == 4
        assert semantic.store.count() == 4 and not semantic.store.model_changed()
        assert s.library.search("Eiffel tower", 1)[0].found_by == "both"


def test_the_trace_shows_which_mode_found_each_hit(embedded: Path) -> None:
    with Session(embedded) as s:
        events = list(s.ask("Why did house sparrows decline in European cities?", mode="loop", policy=s.make_policy("offline")))
    searches = [e for e in events if isinstance(e, ToolResult) and e.tool == "search" and e.hits]
    assert searches and all(h.found_by in ("keyword", "meaning", "both") for r in searches for h in r.hits)
    assert any(h.dense is not None for r in searches for h in r.hits)
    md = trace_to_markdown(events)
    assert "cosine" in md and "fused" in md


def test_fusion_weighs_the_two_rankings() -> None:
    kw = [(1, 9.0), (2, 5.0)]
    dense = [(3, 0.9), (1, 0.8)]
    fused = fuse(kw, dense, weight=0.5, c=1)
    assert [r.chunk_id for r in fused] == [1, 3, 2]
    assert [r.found_by for r in fused] == ["both", "meaning", "keyword"]
    assert fuse(kw, dense, weight=0.9, c=1)[0].chunk_id == 3
    assert [r.chunk_id for r in fuse(kw, dense, weight=0.1, c=1)][:2] == [1, 2]


def test_a_chinese_query_leans_on_the_bigram_index(embedded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chinese over Chinese, the character-bigram ranking is the better one (CMRC 2018): a query
    with Chinese in it is fused with the lower dense weight, an English one with the higher."""
    import paperpilot.core.library.library_base as base
    from paperpilot.core.library.semantic import HYBRID_DENSE_WEIGHT, HYBRID_DENSE_WEIGHT_CJK

    weights: list[float] = []

    def spy(kw: Sequence[tuple[int, float]], dense: Sequence[tuple[int, float]], *, weight: float) -> list[object]:
        weights.append(weight)
        return fuse(kw, dense, weight=weight)

    monkeypatch.setattr(base, "fuse", spy)
    with Session(embedded) as s:
        s.library.search("城市公园 鸟类", 2, mode="hybrid")
        s.library.search("why are there fewer sparrows", 2, mode="hybrid")
    assert weights == [HYBRID_DENSE_WEIGHT_CJK, HYBRID_DENSE_WEIGHT]
    assert HYBRID_DENSE_WEIGHT_CJK < HYBRID_DENSE_WEIGHT


class MeaningPolicy:
    """Searches by meaning once, then answers with what it read."""

    name = "scripted"

    def decide(self, state: AgentState) -> PolicyStep:
        if not state.queries_tried:
            return PolicyStep(Decision(action={"action": "search", "query": "iron landmark Paris finished", "mode": "meaning"}))
        if not state.passages:
            h = state.last_hits[0]
            return PolicyStep(Decision(action={"action": "read", "doc_id": h.doc_id, "segment": h.segment}))
        return PolicyStep(Decision(action={"action": "answer", "answer": "It was completed in 1889 [P1].", "citations": ["P1"]}))


def test_the_search_tool_takes_a_mode_and_a_hit_by_meaning_is_read_and_cited(embedded: Path) -> None:
    assert "mode" in Search.model_json_schema()["properties"]
    with Session(embedded) as s:
        events = list(run_agent("When was the big iron landmark of Paris finished?", s.library, MeaningPolicy(), AgentOptions(max_rounds=3)))
    search = next(e for e in events if isinstance(e, ToolResult) and e.tool == "search")
    assert search.hits[0].title == "The Eiffel Tower" and search.hits[0].found_by == "meaning"
    done = next(e for e in events if isinstance(e, Finished))
    assert done.result.evidence and done.result.evidence[0].title == "The Eiffel Tower"
