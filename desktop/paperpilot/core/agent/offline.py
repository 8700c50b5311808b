"""The offline policy: no language model. Skim wide, read narrow, follow bridge entities, answer extractively."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal

from ..text.kinds import heading_names
from ..text.language import STOPWORDS, has_cjk
from .actions import Decision, Notes, PassageRef, Read, Search, fit_query
from .analysis import QuestionAnalysis, analyze
from .analysis import names_in as names_in  # where callers have always found it
from .events import HitView
from .extractive import (
    _COMPARE_WORDS,
    _INTRO_SECTION,
    _Context,
    _contexts,
    _mentions,
    _norm,
    _term_in,
    extractive_answer,
    question_terms,
    title_core,
)
from .intent import asks_to_remember  # the notes tool enforces the same rule
from .state import AgentState, PolicyStep, dictionary_terms, searchable_across

SearchMode = Literal["keyword", "meaning", "hybrid"]  # the search tool's modes

_MAX_QUERY_CHARS = 200  # well inside Search's limit; longer OR queries only add noise


def _fit(query: str) -> str:
    """``query`` shortened to what a Search action accepts (its keywords, cut at a word)."""
    return fit_query(query)


# --- notes ---------------------------------------------------------------------------------------

_DOC_REF = re.compile(
    r"\b(?:doc(?:ument)?|paper)\s*(?:#|no\.?\s*)?(\d+)\b|#(\d+)\b|(?:文献|文档|论文)\s*#?(\d+)", re.IGNORECASE
)
_NOTES_WORD = re.compile(r"\bnotes?\b|笔记|备注", re.IGNORECASE)
_REMEMBER_LEAD = re.compile(
    r"^\s*(?:please\s+)?(?:remember|memori[sz]e|save|note|keep in mind|write down)\s+(?:this|that)?\s*[:,]?\s*"
    r"|^\s*(?:请)?(?:记住|记下|保存)[：:，,]?\s*",
    re.IGNORECASE,
)


def named_document(question: str, state: AgentState | None = None) -> int | None:
    """The document a question names: "doc 3", "paper #3", "文献3", or a known title quoted in full."""
    m = _DOC_REF.search(question)
    if m:
        return int(next(g for g in m.groups() if g is not None))
    if state is not None and state.documents:
        low = _norm(question)
        for d in state.documents:
            core = title_core(d.title)
            if len(core) >= 8 and _mentions(core, low):
                return d.doc_id
    return None


# --- per-run memory ------------------------------------------------------------------------------


@dataclass
class _Search:
    query: str
    bridge: bool  # a bridge-entity search (not the question's own words)
    hits: list[HitView]
    after_reads: int = 0  # passages read when it was issued
    names: list[str] = field(default_factory=list)  # normalised names it looked up

    def relevance(self, key: tuple[int, int]) -> float:
        """Score relative to this search's best hit (0 when not among its hits)."""
        top = self.hits[0].score if self.hits and self.hits[0].score > 0 else 1.0
        for h in self.hits:
            if (h.doc_id, h.segment) == key:
                return max(0.0, h.score) / top
        return 0.0


@dataclass
class _Run:
    state: AgentState
    searches: list[_Search] = field(default_factory=list)
    pending: _Search | None = None  # issued; its hits arrive with the next decision
    # Sentences of what was read, recomputed only when something new was read.
    contexts: list[_Context] = field(default_factory=list)
    contexts_of: tuple[str, ...] = ()
    notes_done: bool = False  # the notes tool was used (or judged not needed) in this run
    start_passages: int = 0  # passages given at run start (a follow-up's reused evidence)
    sides_searched: set[str] = field(default_factory=set)
    intro_done: set[str] = field(default_factory=set)
    sections_done: set[tuple[int, int]] = field(default_factory=set)
    _analysis: QuestionAnalysis | None = None

    @property
    def analysis(self) -> QuestionAnalysis:
        if self._analysis is None:
            self._analysis = analyze(self.state.question)
        return self._analysis

    def sentences(self) -> list[_Context]:
        key = tuple(self.state.passages)
        if key != self.contexts_of:
            self.contexts, self.contexts_of = _contexts(self.state), key
        return self.contexts


# How much each signal adds to a hit's relative score in the question search (0..1) when
# choosing what to read. Tuned on HotpotQA (see tests/bench/bench_agent.py); the order of
# importance is robust: a relevant passage naming the hit's title, the title named in the
# question, then the bridge search's own ranking.
DEFAULT_WEIGHTS: dict[str, float] = {
    "mention": 1.0,  # × weight of the best sentence read that names the hit's title
    "in_question": 0.7,  # the hit's title is named in the question
    "b_mention": 0.3,  # × bridge-search relevance, for hits a read passage names
    "looked_up": 0.2,  # the hit's title is a name a bridge search looked up
    "b_rel": 0.1,  # × bridge-search relevance
}


class OfflinePolicy:
    """Deterministic research without a model.

    Reading is what costs (attention; tokens for a model), skimming is cheap: search the
    question's keywords and skim many hits; read the few best; then look up the bridge
    entities the question does not name — names in the sentences read that speak most about
    the question — with one or two searches, and spend the rest of the reading budget on the
    hits that are best overall: relevant to the question, named in the question, or titled by
    a name that a relevant passage mentions. With the default 6 rounds that is search, read 3,
    search, search, read 3, answer.

    The answer is extractive: the sentences that cover the question best, each cited, the
    passage a cited sentence points to next to it, one sentence per compared entity for a
    comparison, and the question's uncovered terms as missing.
    """

    name = "offline"

    def __init__(
        self,
        k: int = 10,
        read_budget: int = 6,
        answer_sentences: int = 3,
        *,
        first_reads: int = 3,
        bridge_names: int = 5,
        bridge_searches: int = 2,
        single_word: float = 0.5,
        weights: dict[str, float] | None = None,
        min_score: float = 0.2,
        side_searches: bool = True,
        intro_reads: bool = True,
    ) -> None:
        self.k = max(1, min(10, k))
        self.read_budget = read_budget
        self.answer_sentences = answer_sentences
        self.first_reads = first_reads
        self.bridge_names = bridge_names
        self.bridge_searches = bridge_searches
        self.single_word = single_word  # a one-word name is a weaker lead than a full name
        self.weights = {**DEFAULT_WEIGHTS, **(weights or {})}
        self.min_score = min_score
        self.side_searches = side_searches  # search each side of a comparison on its own
        self.intro_reads = intro_reads  # read the opening of the document a definition is about
        self._runs: OrderedDict[int, _Run] = OrderedDict()
        self._lock = threading.Lock()

    # --- per-run memory --------------------------------------------------------------------------

    def _run(self, state: AgentState) -> _Run:
        # The loop hands the same state object to every round of a run, but one policy may
        # serve many runs (a question after another in an evaluation, or side by side), and
        # the state keeps only the last search's hits: the ranking of each search is kept here.
        with self._lock:
            run = self._runs.get(id(state))
            if run is None or run.state is not state:
                run = _Run(state, start_passages=len(state.passages))
                self._runs[id(state)] = run
                while len(self._runs) > 32:
                    self._runs.popitem(last=False)
            else:
                self._runs.move_to_end(id(state))
        if run.pending is not None:
            # A refused (repeated) search leaves queries_tried as it was.
            if state.queries_tried and state.queries_tried[-1] == run.pending.query:
                run.pending.hits = list(state.last_hits)
                run.searches.append(run.pending)
            run.pending = None
        return run

    def _search(
        self, run: _Run, query: str, thought: str, names: list[str] | None = None, mode: SearchMode | None = None
    ) -> PolicyStep:
        action = Search(query=query, k=self.k) if mode is None else Search(query=query, k=self.k, mode=mode)
        bridge = names is not None
        run.pending = _Search(action.query, bridge, [], len(run.state.passages), names or [])
        infos = [("bridge_search", f"looking up {action.query!r}")] if bridge else []
        return PolicyStep(Decision(thought=thought, action=action), infos=infos)

    @staticmethod
    def _notes_step(state: AgentState) -> PolicyStep | None:
        """Write a note when the user asks to remember something about a named document;
        read one when the question is about the notes on a named document; else nothing."""

        doc_id = named_document(state.question, state)
        if doc_id is None:
            return None
        if asks_to_remember(state.question):
            text = _REMEMBER_LEAD.sub("", state.question, count=1).strip() or state.question
            return PolicyStep(
                Decision(thought=f"the user asks to remember this about doc {doc_id}: save a note",
                         action=Notes(doc_id=doc_id, text=text))
            )  # fmt: skip
        if _NOTES_WORD.search(state.question):
            return PolicyStep(
                Decision(thought=f"the question is about the notes on doc {doc_id}", action=Notes(doc_id=doc_id))
            )
        return None

    @staticmethod
    def _read(pick: list[HitView], thought: str) -> PolicyStep:
        action = Read(
            doc_id=pick[0].doc_id,
            segments=[pick[0].segment],
            also=[PassageRef(doc_id=h.doc_id, segment=h.segment) for h in pick[1:]],
        )
        return PolicyStep(Decision(thought=thought, action=action))

    # --- deciding ------------------------------------------------------------------------------

    def decide(self, state: AgentState) -> PolicyStep:
        run = self._run(state)
        if not run.notes_done:
            run.notes_done = True
            step = self._notes_step(state)
            if step is not None:
                return step
        extra = [t for t in state.extra_terms if t not in state.question_terms]
        terms = state.question_terms + extra
        if not state.queries_tried:
            if state.cross_language:
                # No model to translate the question: search what it writes in the library's script.
                a = run.analysis
                terms = [t for t in dict.fromkeys([*a.entities, *a.concepts]) if searchable_across(t, a.language)]
                # ... and the dictionary's words for the rest (the loop recorded them): the first
                # sense of each word, then the second, as the query's length allows.
                terms += [t for t in dictionary_terms(state) if t not in terms]
                if not terms:
                    return self.answer(state, "nothing in the question can be searched in the library's language")
            bridged = [] if state.cross_language else dictionary_terms(state)
            if bridged:
                # A mixed library (English papers and a few Chinese ones): the question's own words
                # for its Chinese papers, the dictionary's for the others.
                terms = terms + [t for t in bridged if t not in terms]
            q = _fit(" ".join(terms) or state.question)
            # The dictionary's candidate senses are keywords, not a sentence: embedded together
            # (wrong senses too) they find passages by a meaning the question does not have.
            mode: SearchMode | None = "keyword" if state.cross_language or bridged else None
            step = self._search(run, q, "search the question's keywords; skim many hits", mode=mode)
            if extra:
                step.infos.append(("profile", f"first query includes profile terms: {', '.join(extra)}"))
            return step
        budget = self.read_budget - len(state.passages)
        rounds_left = state.max_rounds - state.round + 1  # this one included
        if budget <= 0 or (rounds_left <= 1 and state.passages):
            return self.answer(state, "reading budget spent" if budget <= 0 else "last round: answering")
        # With nothing read yet, reading in the last round beats answering from nothing: the
        # loop then answers at its round limit with what was read.
        ranked = [(h, v) for h, v in self._rank_unread(state, run) if v >= self.min_score]
        intro = self._intro_read(state, run, budget)
        if intro is not None:
            return intro
        if len(state.passages) <= run.start_passages and ranked:
            # What the first passages mention decides where the rest of the budget goes; keep
            # that budget only while there are rounds to use it (search, read, answer).
            n = budget if rounds_left - 1 < 3 else min(budget, self.first_reads)
            pick = [h for h, _ in ranked[:n]]
            return self._read(pick, f"read the {len(pick)} best hit(s) first")
        opening = self._section_read(state, run, budget)
        if opening is not None:
            return opening
        side = self._side_search(state, run, rounds_left)
        if side is not None:
            return side
        chain = 0  # bridge searches since the last read
        for x in reversed(run.searches):
            if not x.bridge or x.after_reads != len(state.passages):
                break
            chain += 1
        if rounds_left >= 3 and chain < self.bridge_searches:
            found = self._bridge_query(state, run)
            if found is not None:
                query, names = found
                return self._search(run, query, "look up what the passages read point to", names)
        if ranked:
            pick = [h for h, _ in ranked[:budget]]
            return self._read(pick, f"read the {len(pick)} most promising unread hit(s)")
        return self.answer(state, "nothing more worth reading")

    def _intro_read(self, state: AgentState, run: _Run, budget: int) -> PolicyStep | None:
        """"What is X?" (or "how do X and Y differ?"): read the opening passages of the document
        titled X — its abstract says what X is, which a keyword search rarely ranks first."""
        a = run.analysis
        if not self.intro_reads:
            return None
        defining = "definition" in (a.sub_types or (a.answer_type,))
        generic_cmp = a.is_comparison and not [w for w in a.attribute if w not in _COMPARE_WORDS]
        if not (defining or generic_cmp) or budget < 2 or a.is_bridge:
            return None
        subjects = list(a.sides) if a.is_comparison else list(a.entities[:1] or a.concepts[:1])
        for subject in subjects:
            n = _norm(subject)
            if n in run.intro_done or not n:
                continue
            doc = next((h for h in state.hits.values() if title_core(h.title).startswith(n) or
                        _mentions(n, _norm(h.title.split(":")[0]))), None)  # fmt: skip
            if doc is None:
                continue
            run.intro_done.add(n)
            # The first segments, skipping any a hit showed to be in a later section.
            known = {h.segment: h.section for h in state.hits.values() if h.doc_id == doc.doc_id}
            segs = [
                s for s in range(4)
                if (doc.doc_id, s) not in state.read_keys and (s not in known or not known[s] or _INTRO_SECTION.search(known[s]))
            ][: min(3 if len(subjects) == 1 else 2, budget)]  # fmt: skip
            if segs:
                step = PolicyStep(Decision(thought=f"read the opening of {doc.title[:60]!r}: it says what {subject} is",
                                           action=Read(doc_id=doc.doc_id, segments=segs)))  # fmt: skip
                return step
        return None

    def _section_read(self, state: AgentState, run: _Run, budget: int) -> PolicyStep | None:
        """"What is the data model of Bigtable?": a hit lies in a section the question names
        ("2 Data Model"); the section's opening says what it is about, which a keyword search
        ranks below the later passages that repeat the words. Read that opening once."""
        a = run.analysis
        if not self.intro_reads or budget < 1 or a.is_bridge or a.is_comparison or not a.concepts:
            return None
        if a.answer_type in ("how", "why", "when", "how_many", "how_much", "yes_no"):
            return None  # the answer is a mechanism, a cause or a value, not what a part is
        wanted = {c for c in (_norm(x) for x in a.concepts) if len(c) >= 4}
        wanted |= {c + "s" for c in wanted} | {c[:-1] for c in wanted if c.endswith("s")}
        entity = _norm(a.entities[0]) if a.entities else ""
        for h in sorted(state.hits.values(), key=lambda h: -h.score):
            if h.section_start is None or (h.doc_id, h.section_start) in run.sections_done:
                continue
            names = heading_names(h.section_path)
            heading = _norm(names[0]) if names else ""
            if heading not in wanted:  # the section is what the question asks about, no more or less
                continue
            if entity and not (_mentions(entity, _norm(h.title)) or title_core(h.title).startswith(entity)):
                continue
            run.sections_done.add((h.doc_id, h.section_start))
            segs = [x for x in (h.section_start, h.section_start + 1) if (h.doc_id, x) not in state.read_keys][:budget]
            if segs:
                return PolicyStep(
                    Decision(
                        thought=f"read the opening of the section {h.section_path.split(' > ')[-1][:60]!r}: "
                        "the question names it",
                        action=Read(doc_id=h.doc_id, segments=segs),
                    )
                )
        return None

    def _side_search(self, state: AgentState, run: _Run, rounds_left: int) -> PolicyStep | None:
        """A comparison needs evidence on each side: search a side nothing read is about yet, on its own."""
        a = run.analysis
        if not self.side_searches or not a.is_comparison or rounds_left < 3:
            return None
        for side in a.sides:
            n = _norm(side)
            if n in run.sides_searched:
                continue
            about = any(
                title_core(p.title) == n or _mentions(n, _norm(p.title + " " + p.text)) for p in state.passages.values()
            )
            if about:
                continue
            run.sides_searched.add(n)
            attr = [w for w in a.attribute if w not in n.split()][:3]
            q = _fit(" ".join([side, *attr]))
            if not state.tried(q):
                step = self._search(run, q, f"search {side!r} on its own: a comparison needs both sides", [n])
                step.infos = [("side_search", f"searching the side {side!r} on its own")]
                return step
        return None

    # --- choosing what to read -----------------------------------------------------------------

    def _features(self, state: AgentState, run: _Run) -> list[tuple[HitView, dict[str, float]]]:
        contexts = run.sentences()
        read_docs = {p.doc_id for p in state.passages.values()}
        q_norm = _norm(state.question)
        looked_up = {n for x in run.searches for n in x.names}
        out: dict[tuple[int, int], tuple[HitView, dict[str, float]]] = {}
        for s in run.searches:
            for h in s.hits:
                key = (h.doc_id, h.segment)
                if key in state.read_keys or key in out:
                    continue
                core = title_core(h.title)
                usable = len(core) >= 3 and core not in STOPWORDS
                f = {
                    "q_rel": max((x.relevance(key) for x in run.searches if not x.bridge), default=0.0),
                    "b_rel": max((x.relevance(key) for x in run.searches if x.bridge), default=0.0),
                    "looked_up": float(core in looked_up),
                    "in_question": float(usable and _mentions(core, q_norm)),
                    "mention": 0.0,
                }
                # Another segment of a document already read names its own title: no lead.
                if usable and h.doc_id not in read_docs:
                    f["mention"] = max((c.weight for c in contexts if _mentions(core, c.norm)), default=0.0)
                out[key] = (h, f)
        return list(out.values())

    def _score(self, f: dict[str, float]) -> float:
        w = self.weights
        return (
            f["q_rel"]
            + w["mention"] * f["mention"]
            + w["in_question"] * f["in_question"]
            + w["b_mention"] * f["b_rel"] * (f["mention"] > 0)
            + w["looked_up"] * f["looked_up"]
            + w["b_rel"] * f["b_rel"]
        )

    def _rank_unread(self, state: AgentState, run: _Run) -> list[tuple[HitView, float]]:
        scored = [(h, self._score(f)) for h, f in self._features(state, run)]
        return sorted(scored, key=lambda x: -x[1])

    def _bridge_query(self, state: AgentState, run: _Run) -> tuple[str, list[str]] | None:
        """Names in relevant sentences that the question does not use and no hit is titled by.

        Returns the query and the normalised names it looks up; falls back to the question's
        uncovered terms, then to the candidate keywords (Chinese text has no capitals).
        """
        q_norm = _norm(state.question)
        known = {title_core(h.title) for s in run.searches for h in s.hits}
        known |= {title_core(p.title) for p in state.passages.values()}
        known_blob = " | ".join(known)
        used = {n for x in run.searches for n in x.names}
        score: dict[str, float] = {}
        shown: dict[str, str] = {}
        for c in run.sentences():
            for name in c.names:
                n = _norm(name)
                if not n or n in used or n in STOPWORDS or _mentions(n, q_norm) or _mentions(n, known_blob):
                    continue
                value = c.weight * (1.0 if " " in n or has_cjk(n) else self.single_word)
                # The best mention counts; repeats add a little (a name the passage keeps using).
                score[n] = max(score.get(n, 0.0), value) + (0.1 * value if n in score else 0.0)
                shown.setdefault(n, name)
        best: list[str] = []
        for n in sorted(score, key=lambda n: -score[n]):
            if len(best) >= self.bridge_names:
                break
            if len(" ".join(shown[x] for x in [*best, n])) <= _MAX_QUERY_CHARS:
                best.append(n)
        while best:
            q = " ".join(shown[n] for n in best)
            if not state.tried(q):
                return q, best
            best = best[:-1]
        read_text = " ".join(p.title + " " + p.text for p in state.passages.values()).lower()
        uncovered = [t for t in question_terms(state.question) if not _term_in(t, read_text)]
        # A long question leaves many terms uncovered: the query is their keywords, shortened.
        if uncovered and not state.tried(_fit(" ".join(uncovered))):
            return _fit(" ".join(uncovered)), []
        for cand in state.candidate_keywords:
            n = _norm(cand)
            if has_cjk(n) and len(n) > 8:
                continue  # a clause, not a keyword (Chinese has no spaces to stop at)
            if n and n not in known and n not in used and not state.tried(cand):
                return cand, [n]
        return None

    # --- answering -----------------------------------------------------------------------------

    def answer(self, state: AgentState, reason: str) -> PolicyStep:
        with self._lock:
            run = self._runs.pop(id(state), None)
        if run is None or run.state is not state:  # the quick path, or another policy's run
            run = _Run(state)
        return extractive_answer(state, reason, self.answer_sentences, contexts=run.sentences(), analysis=run.analysis)
