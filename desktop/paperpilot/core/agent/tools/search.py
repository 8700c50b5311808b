"""The search tool: the best passages for a few keywords, cheap to look at (title, segment, snippet)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field, field_validator

from ...text.kinds import SEARCH_KINDS, parse_kinds
from ...text.language import query_terms
from ...text.messages import msg
from ..events import HitView, Info, ToolResult, Warning
from ..report import one_line
from ..rerank import RERANK_CANDIDATES, SCORE_MAX, Reranker, Reranking, describe
from ..state import AgentState, SectionPool, section_pool
from .registry import register
from .tool import Texts, Tool, ToolArgs, ToolOutput, ToolRun

# A search query is keywords; the schema tells a model so, and fit_query makes any text fit.
MAX_QUERY_CHARS = 300


def fit_query(text: str, limit: int = MAX_QUERY_CHARS) -> str:
    """``text`` as a search query of at most ``limit`` characters.

    Short text is kept as it is (whitespace collapsed). Longer text — a whole question, the
    uncovered terms of a long one — keeps its keywords (stopwords and repeats dropped, in
    order), cut at a word boundary: a long question must shorten its searches, never fail them.
    """
    flat = " ".join(str(text).split())
    if len(flat) <= limit:
        return flat
    terms = query_terms(flat)
    short = " ".join(terms) if terms else flat
    if len(short) <= limit:
        return short
    cut = short[:limit]
    space = cut.rfind(" ")
    # Chinese has no spaces: a hard cut is all there is.
    return cut[:space] if space > limit // 2 else cut


class Search(ToolArgs):
    action: Literal["search"] = "search"
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int = Field(3, ge=1, le=10)
    year_from: int | None = None
    year_to: int | None = None
    doc_ids: list[int] | None = None
    # Kinds of passage to search (text.kinds values). None: the body, abstract, captions and
    # appendices; a policy asks for ["references"] when the question is about what is cited.
    kinds: list[str] | None = None
    # keyword: the words themselves (BM25); meaning: passages that say the same in other words
    # or another language (embeddings); hybrid: both, fused. None: hybrid once the library is
    # embedded, else keyword.
    mode: Literal["keyword", "meaning", "hybrid"] | None = None

    @field_validator("kinds")
    @classmethod
    def _known_kinds(cls, v: list[str] | None) -> list[str] | None:
        if v is None:
            return None
        known = [k.value for k in parse_kinds(v)]  # ValueError names an unknown kind
        return known or None

    @field_validator("query", mode="before")
    @classmethod
    def _fit(cls, v: Any) -> Any:
        # Before the length check: a query built from a long question (or a model's long
        # query) is shortened to its keywords instead of failing validation.
        return fit_query(v) if isinstance(v, str) else v

    @field_validator("query")
    @classmethod
    def _strip(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v:
            raise ValueError("empty query")
        return v


class SearchTool(Tool):
    name = "search"
    args = Search
    prompt = (
        '- search {"action":"search","query":"2-4 keywords","k":3}: keywords, not a sentence; never repeat a '
        "tried query. It searches body text, abstracts and captions; add \"kinds\":[\"references\"] only when the "
        "question is about what a paper cites."
    )
    prompt_order = 10
    guess_order = 1
    texts: ClassVar[Texts] = {
        "tool.search.label": ("search “{query}”", "检索“{query}”"),
        "tool.search.description": (
            "search the library's passages by keywords or by meaning",
            "按关键词或语义检索文献库中的段落",
        ),
        "tool.search.progress": ("Round {n} · searching “{query}”…", "第 {n} 轮 · 搜索“{query}”…"),
        "tool.search.done": ("Round {n} · {k} hit(s) for “{query}”", "第 {n} 轮 · “{query}”命中 {k} 条"),
    }

    def guess(self, args: Mapping[str, Any]) -> bool:
        return "query" in args

    def label_params(self, action: Mapping[str, Any], lang: str) -> dict[str, Any]:
        return {"query": one_line(str(action.get("query", "")), 80)}

    def progress(self, action: Mapping[str, Any], round_: int, lang: str) -> str:
        return self.text("progress", lang, n=round_, query=one_line(str(action.get("query", "")), 60))

    def cli_line(self, action: Mapping[str, Any], reasoning: str) -> str:
        return f"   search {action['query']!r}" + (f"  ({reasoning})" if reasoning else "")

    def done(self, result: ToolResult, lang: str) -> str:
        return self.text("done", lang, n=result.round, k=len(result.hits), query=one_line(result.query, 60))

    def trace_result(self, result: ToolResult) -> list[str]:
        label = f"- Search “{one_line(result.query, 120)}”: {len(result.hits)} hit(s), {result.new_items} new"
        lines = [label + (f" ({result.note})" if result.note else "")]
        for i, h in enumerate(result.hits, 1):
            sec = f" § {one_line(h.section, 60)}" if h.section else ""
            lines.append(
                f"  {i}. *{one_line(h.title, 100)}*{sec} (doc {h.doc_id}, seg {h.segment}, p. {h.page};"
                f" {hit_scores(h)}) — {one_line(h.snippet, 240)}"
            )
        return lines

    def run(self, args: ToolArgs, run: ToolRun) -> ToolOutput:
        assert isinstance(args, Search)
        a, st = args, run.state
        if st.tried(a.query):
            said = msg("search.repeated", query=a.query)
            st.notices.append(said.text())
            st.last_observation = said.text()
            st.summary.append(f"R{st.round}: repeated query {a.query!r} refused")
            return ToolOutput(
                ToolResult(round=st.round, elapsed_ms=run.ms(), tool="search", query=a.query, note="refused: repeated query"),
                [Warning(round=st.round, elapsed_ms=run.ms(), code="repeated_query", message=said.text(), msg=said)],
            )
        t = time.perf_counter()
        st.queries_tried.append(a.query)
        kinds = a.kinds if a.kinds is not None else sorted(SEARCH_KINDS)
        # Only when asked for: a pool that knows no modes (a test's, an old one) still searches.
        more = {"mode": a.mode} if a.mode is not None else {}
        # A policy that reranks (a model scores the skims) sees more candidates than it keeps.
        reranker: Reranker | None = getattr(run, "reranker", None)
        depth = max(a.k, RERANK_CANDIDATES) if reranker is not None else a.k
        hits = run.pool.search(
            a.query, depth, doc_ids=a.doc_ids, year_from=a.year_from, year_to=a.year_to, kinds=kinds, **more
        )
        sections = section_pool(run.pool)
        views = [self._view(h, st, sections) for h in hits]
        events: list[Warning | Info] = []
        if reranker is not None and len(views) > 1:
            views, events = self._rerank(reranker, views, a.k, run)
        views = views[: a.k]
        # Hits seen before gave their words already.
        unseen = [v for v in views if (v.doc_id, v.segment) not in st.hits]
        new = 0
        for view in views:
            key = (view.doc_id, view.segment)
            new += key not in st.hits and key not in st.read_keys
            st.hits[key] = view
            if view.dense is not None:
                st.best_cosine[key] = max(view.dense, st.best_cosine.get(key, -1.0))
            if view.found_by != "meaning":
                st.keyword_found.add(key)
        st.last_hits = views
        words = st.add_meaning_terms(unseen)
        if words:
            events.append(Info(round=st.round, elapsed_ms=run.ms(), code="meaning_keywords",
                               message="the documents' words, from passages found by meaning: " + ", ".join(words),
                               data={"terms": words}))  # fmt: skip
        if views:
            lines = [
                f"- doc {v.doc_id} seg {v.segment}{'' if v.new else ' (already read)'}: {v.title}"
                + (f" § {v.section}" if v.section else "")
                + f" — {v.snippet[:240]}"
                for v in views
            ]
            st.last_observation = f"Search {a.query!r} → {len(views)} hits:\n" + "\n".join(lines)
        else:
            st.last_observation = f"Search {a.query!r} → no hits. Try other words."
        st.summary.append(f"R{st.round}: search {a.query!r} → {len(views)} hits, {new} new")
        return ToolOutput(
            ToolResult(
                round=st.round,
                elapsed_ms=run.ms(),
                tool="search",
                query=a.query,
                hits=views,
                new_items=new,
                tool_ms=(time.perf_counter() - t) * 1000,
                note=self._rerank_note(views),
            ),
            events,
        )

    @staticmethod
    def _view(h: Any, st: AgentState, sections: SectionPool | None) -> HitView:
        return HitView(
            doc_id=h.doc_id,
            segment=h.seq,
            title=h.title,
            section=h.section,
            page=h.page,
            score=h.score,
            snippet=h.snippet,
            new=(h.doc_id, h.seq) not in st.read_keys,
            kind=h.kind,
            section_path=h.section_path,
            section_start=_section_start(sections, h.doc_id, h.seq) if h.section_path else None,
            found_by=getattr(h, "found_by", "keyword"),
            bm25=getattr(h, "bm25", None),
            dense=getattr(h, "dense", None),
            fused=getattr(h, "fused", None),
        )

    @staticmethod
    def _rerank(
        reranker: Reranker, views: list[HitView], k: int, run: ToolRun
    ) -> tuple[list[HitView], list[Warning | Info]]:
        """The candidates in the reranker's order, each with its score and its place in the
        search's order; a trace line with the whole order (and a warning when the search's own
        order was kept). The rerank's tokens count in the run's usage."""
        st = run.state
        try:
            ranking = reranker(st.question, views, st.cancel)
        except Exception as e:  # a reranker's bug must not lose the search: keep its order
            ranking = Reranking.kept(len(views), msg("rerank.failed", error=f"{type(e).__name__}: {e}"))
        if sorted(ranking.order) != list(range(len(views))):  # each candidate once, none made up
            ranking = Reranking.kept(len(views), msg("rerank.failed", error="not an order of the candidates"),
                                     ranking.usage)  # fmt: skip
        st.usage.add(ranking.usage)
        ordered = [
            views[i].model_copy(update={"rerank": ranking.scores.get(i), "search_rank": i + 1}) for i in ranking.order
        ]
        events: list[Warning | Info] = []
        if ranking.problem is not None:
            said = ranking.problem
            events.append(Warning(round=st.round, elapsed_ms=run.ms(), code="rerank", message=said.text(), msg=said))
        text = describe(ranking, views, k)
        events.append(
            Info(
                round=st.round, elapsed_ms=run.ms(), code="rerank", message=text,
                data={
                    "by": ranking.by,
                    "kept": min(k, len(views)),
                    "order": [
                        {"doc_id": views[i].doc_id, "segment": views[i].segment, "search_rank": i + 1,
                         "score": ranking.scores.get(i)}
                        for i in ranking.order
                    ],
                    "usage": ranking.usage.model_dump(),
                },
            )
        )  # fmt: skip
        return ordered, events

    @staticmethod
    def _rerank_note(views: list[HitView]) -> str:
        if not views or views[0].search_rank is None:
            return ""
        if all(v.rerank is None for v in views):
            return "search order kept"
        return "reranked by the model"


def hit_scores(h: HitView) -> str:
    """Which search found a hit and its scores, for the trace: "keyword, bm25 7.31",
    "both, bm25 7.31, cosine 0.842, fused 0.0625"."""
    parts = [h.found_by]
    if h.bm25 is not None:
        parts.append(f"bm25 {h.bm25:.2f}")
    if h.dense is not None:
        parts.append(f"cosine {h.dense:.3f}")
    if h.fused is not None:
        parts.append(f"fused {h.fused:.4f}")
    if len(parts) == 1:
        parts.append(f"score {h.score:.2f}")
    if h.search_rank is not None:  # a reranked search: the model's score, the search's place
        parts.append(("model " + (f"{h.rerank:g}/{SCORE_MAX}" if h.rerank is not None else "no score"))
                     + f", search #{h.search_rank}")  # fmt: skip
    return ", ".join(parts)


def _section_start(pool: SectionPool | None, doc_id: int, segment: int) -> int | None:
    if pool is None:
        return None
    try:
        return pool.section_opening(doc_id, segment)
    except Exception:  # a damaged or busy library: the hit is still a hit
        return None


TOOL = register(SearchTool())
