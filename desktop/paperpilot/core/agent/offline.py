"""The offline policy: no language model. Skim wide, read narrow, follow bridge entities, answer extractively."""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..text.kinds import Kind, answer_sentences, answerable, heading_names
from ..text.language import STOPWORDS, has_cjk, query_terms
from .actions import Answer, Decision, Notes, PassageRef, Read, Search, fit_query
from .analysis import QuestionAnalysis, analyze, names_in
from .compare import Comparison, Value, comparison, is_demonym, side_value, verdict
from .events import HitView, PassageView
from .injection import is_instruction
from .intent import asks_to_remember  # the notes tool enforces the same rule
from .router import is_complex
from .state import AgentState, PolicyStep, searchable_across
from .sufficiency import CAUSE, has_relation


def _term_in(term: str, text_lower: str) -> bool:
    if has_cjk(term):
        grams = [term[i : i + 2] for i in range(max(1, len(term) - 1))]
        return sum(g in text_lower for g in grams) / len(grams) >= 0.5
    return term[: max(4, len(term) - 2)] in text_lower  # crude stemming: "studies" ~ "studied"


# Chinese function characters and question words that glue content words into one run:
# 出差报销的期限是多久 → 出差报销, 期限.
_ZH_GLUE = re.compile(r"多久|多少|哪里|哪儿|何时|是否|怎样|为何|[的是了在和与及或吗呢吧啊把被对从向于将几谁]")


def question_terms(question: str) -> list[str]:
    """The question's content words, with Chinese runs cut at function characters.

    Matching a long Chinese run by its bigrams fails on every bigram that straddles a function
    character, so 出差报销的期限是多久 would match a passage about 出差报销 and 期限 poorly.
    """
    out: list[str] = []
    for term in query_terms(question):
        for part in term.split():
            pieces = [x for x in _ZH_GLUE.split(part) if x.strip()] if has_cjk(part) else [part]
            out.extend(x for x in pieces if x not in out and (len(x) > 1 or not has_cjk(x)))
    return out or query_terms(question)


def _share(terms: list[str], text_lower: str) -> float:
    return sum(_term_in(t, text_lower) for t in terms) / max(1, len(terms))


# --- names: the bridge entities of multi-hop questions ------------------------------------------

_NONWORD = re.compile(r"[^\w]+")
_WORD = re.compile(r"[^\W\d_]{2,}|[\u3400-\u9fff]")  # a word of two letters, or one Han character
_PAREN = re.compile(r"\s*\([^)]*\)\s*$")
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b|\d{4}年")
# Comparisons decided by a date: prefer the sentence that gives one.
_WHEN = re.compile(
    r"\b(older|oldest|younger|youngest|first|earlier|earliest|later|latest|before|after|born|founded|"
    r"established|formed|released|opened|built|longer|since)\b|早|晚|先|后|年",
    re.IGNORECASE,
)
# "Who is older, A or B?", "Are A and B both …?", "Were A and B of the same nationality?"
_CHOICE = re.compile(r"\b(\w+er|more|less|same|both)\b.*\bor\b|\b(both|same|either|neither)\b", re.IGNORECASE)
_MAX_QUERY_CHARS = 200  # well inside Search's limit; longer OR queries only add noise


def _norm(text: str) -> str:
    """Lower-case words only: the form in which names and titles are compared."""
    words = _NONWORD.sub(" ", text.lower()).split()
    if words and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


def title_core(title: str) -> str:
    """A title as running text would name it: "Kiss and Tell (1945 film)" → "kiss and tell"."""
    return _norm(_PAREN.sub("", title))


def _fit(query: str) -> str:
    """``query`` shortened to what a Search action accepts (its keywords, cut at a word)."""
    return fit_query(query)


def _mentions(core: str, text_norm: str) -> bool:
    if not core:
        return False
    if has_cjk(core):
        return core in text_norm  # no spaces between Chinese words
    return f" {core} " in f" {text_norm} "


_WHY = re.compile(r"\b(why|how come|reason|cause[sd]?)\b|为什么|为何|原因", re.IGNORECASE)
_CAUSE = re.compile(
    r"\b(because|due to|caused?|after|when|since|as a result|led to|owing to|driven by)\b|因为|由于|导致|造成|之后",
    re.IGNORECASE,
)


@dataclass(eq=False)  # identity: the same words may occur twice in a passage
class _Context:
    """One sentence of a read passage and how strongly it speaks about the question."""

    passage: PassageView
    index: int  # position of the sentence in its passage
    text: str
    norm: str
    names: list[str]
    overlap: float  # share of the question's terms in the sentence (with its passage title)
    weight: float
    caption: bool = False  # a figure or table caption: an answer sentence only when nothing else will do


def _contexts(state: AgentState) -> list[_Context]:
    """Sentences of what was read, weighted by passage relevance × sentence relevance.

    A bridge entity sits in a relevant sentence of a relevant passage ("… starring Shirley
    Temple as Corliss Archer" for a question about Corliss Archer). The passage title counts
    as part of each sentence because it is usually the sentence's implied subject.
    """
    terms = question_terms(state.question)
    out: list[_Context] = []
    for p in state.passages.values():
        # The section heading is part of what a sentence is about ("Limitations", "Results").
        title_low = (p.title + " " + p.section).lower()
        w_passage = _share(terms, title_low + " " + p.text.lower())
        # Reference entries, code, tables, author blocks and text addressed to an AI stay
        # readable but never become answer sentences; a caption only when nothing else will do.
        for i, (sent, kind) in enumerate(answer_sentences(p.text, p.section, p.kind)):
            if not answerable(kind) or is_instruction(sent) or len(_WORD.findall(sent)) < 2:
                continue  # (a diagram's "..." or a lone label says nothing)
            overlap = _share(terms, title_low + " " + sent.lower())
            caption = kind == Kind.CAPTION
            weight = w_passage * (0.25 + overlap) * (0.5 if caption else 1.0)
            out.append(_Context(p, i, sent, _norm(sent), names_in(sent), overlap, weight, caption))
    return out


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

    def _search(self, run: _Run, query: str, thought: str, names: list[str] | None = None) -> PolicyStep:
        action = Search(query=query, k=self.k)
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
                if not terms:
                    return self.answer(state, "nothing in the question can be searched in the library's language")
            q = _fit(" ".join(terms) or state.question)
            step = self._search(run, q, "search the question's keywords; skim many hits")
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
        terms = question_terms(state.question)
        # A sentence addressed to an AI ("ignore previous instructions …") is not evidence of
        # anything the question asks; quoting it would pass the injection on to the reader.
        contexts = [c for c in run.sentences() if c.text.strip()]
        # The same sentence in several passages (or twice in one) is said once: where it weighs most.
        by_text: dict[str, _Context] = {}
        for c in contexts:
            if c.norm not in by_text or c.weight > by_text[c.norm].weight:
                by_text[c.norm] = c
        contexts = [c for c in contexts if by_text[c.norm] is c]
        chosen: list[_Context] = []
        q_norm = _norm(state.question)
        # The sentence that fills the asked slot (a definition, a count, a date) leads.
        slots = _slot_sentences(run.analysis, contexts)
        for c in slots:
            if c not in chosen:
                chosen.append(c)
        # A comparison needs each side: one sentence per compared entity first — for a yes/no
        # comparison the one that gives the side's value of the compared attribute.
        entities = list(run.analysis.sides) or self._compared(state.question)
        comp = comparison(run.analysis)
        if entities:
            names = " ".join(_norm(e) for e in entities)
            attribute = [t for t in terms if not _term_in(t, names) and t not in _COMPARE_WORDS]
            when = bool(_WHEN.search(state.question))
            for entity in entities:
                best = self._best_about(entity, attribute, when, contexts, chosen, comp)
                if best is not None:
                    chosen.append(best)
        # A comparison with a sentence for each side is complete; more would only blur it.
        limit = self.answer_sentences if not entities or len(chosen) < len(entities) else len(chosen)
        while len(chosen) < limit:
            best_c, best_s = None, 0.0
            said = " ".join(x.passage.title + " " + x.text for x in chosen).lower()
            for c in contexts:
                if c in chosen:
                    continue
                g = self._gain(c, chosen, said, terms, q_norm)
                if g > best_s:
                    best_c, best_s = c, g
            if best_c is None:
                break
            chosen.append(best_c)
        if chosen and not entities and len(chosen) < self.answer_sentences:
            # Coverage is reached, but one sentence rarely explains a "why" or "how": add the
            # strongest other sentences of the same passages, causes first when asked why.
            why = bool(_WHY.search(state.question))
            ids = {x.passage.id for x in chosen}
            # The explanation often runs on into the next chunks of the same section.
            sections = {(x.passage.doc_id, x.passage.section) for x in chosen if x.passage.section}
            extra = [
                c for c in contexts
                if c not in chosen and c.overlap > 0
                and (c.passage.id in ids or (c.passage.doc_id, c.passage.section) in sections)
            ]  # fmt: skip
            extra.sort(
                key=lambda c: (
                    -(c.overlap + (0.5 if why and _CAUSE.search(c.text) else 0.0)) * (0.5 if c.caption else 1.0),
                    c.passage.id not in ids,
                    c.index,
                )
            )
            chosen.extend(extra[: self.answer_sentences - len(chosen)])
        if not chosen:
            return PolicyStep(
                Decision(
                    thought=f"answer ({reason}): nothing read matches the question",
                    action=Answer(text="", evidence_ids=[], missing=[state.question], confidence=0.0),
                )
            )
        # In reading order, so the extract reads naturally: papers in the order they were first
        # read, and within one paper in the order it prints them.
        order = list(state.passages)
        first_read: dict[int, int] = {}
        for pid in order:
            first_read.setdefault(state.passages[pid].doc_id, len(first_read))
        chosen.sort(key=lambda c: (first_read.get(c.passage.doc_id, 0), c.passage.segment, c.index))
        text = "\n".join(f"- {c.text.rstrip()} [{c.passage.id}]" for c in chosen)
        direct = _direct_line(run.analysis, chosen, state, slots)
        if direct:
            text = direct + "\n" + text
        said = " ".join(c.passage.title + " " + c.text for c in chosen).lower()
        missing = [t for t in terms if not _term_in(t, said)]
        coverage = 1 - len(missing) / max(1, len(terms))
        confidence = min(0.9, 0.6 * coverage + 0.3 * max(c.overlap for c in chosen))
        return PolicyStep(
            Decision(
                thought=f"answer ({reason}): {len(chosen)} extracted sentence(s)",
                action=Answer(
                    text=text,
                    evidence_ids=list(dict.fromkeys(c.passage.id for c in chosen)),
                    missing=[f"no sentence mentions “{t}”" for t in missing],
                    confidence=round(confidence, 2),
                ),
            )
        )

    @staticmethod
    def _gain(c: _Context, chosen: list[_Context], said: str, terms: list[str], q_norm: str) -> float:
        """What adding sentence ``c`` brings: question terms not yet covered, or the next hop.

        A sentence of a passage that a chosen sentence names ("… starring Shirley Temple")
        continues the chain of a multi-hop answer even when it shares no word with the question.
        A sentence that only repeats what is covered brings nothing.
        """
        # A sentence speaks for its paper and for its section: under "2 Data Model" it is about
        # the data model even when it only says "A Bigtable is a sparse … sorted map".
        section = (c.passage.section or "").lower()
        own = c.passage.title.lower() + " " + section + " " + c.text.lower()
        in_text = any(_term_in(t, c.text.lower()) for t in terms)
        new = sum(_term_in(t, own) and not _term_in(t, said) for t in terms) if in_text else 0
        gain = new / max(1, len(terms))
        if gain:
            gain += 0.3 * c.overlap
            if section and any(_term_in(t, section) and not _term_in(t, c.text.lower()) for t in terms):
                # The section the question names opens with what it is about.
                gain += max(0.0, 0.15 - 0.05 * c.index)
        if c.passage.id not in {x.passage.id for x in chosen}:
            core = title_core(c.passage.title)
            hop = len(core) >= 3 and not _mentions(core, q_norm)  # not the question's own entity
            if hop and any(_mentions(core, x.norm) for x in chosen):
                # Its opening sentences say what the named entity is.
                gain += max(0.0, 0.3 - 0.05 * c.index) + 0.1 * c.overlap
        elif gain:
            gain -= 0.05  # prefer spreading the citations over the passages
        # A caption names what a figure shows ("Figure 4: Tablet location hierarchy"); the text
        # around it says it. It covers the question's words as well, so it must not win on them.
        return gain * 0.5 if c.caption else gain

    @staticmethod
    def _compared(question: str) -> list[str]:
        """The entities a comparison question names ("… older, Annie Morton or Terry Richardson?")."""
        names = list(dict.fromkeys(n for n in names_in(question) if len(_norm(n)) >= 2))
        if len(names) < 2:
            return []
        if is_complex(question) == "comparison question" or _CHOICE.search(question):
            return names[:3]
        return []

    @staticmethod
    def _best_about(
        entity: str, attribute: list[str], when: bool, contexts: list[_Context], chosen: list[_Context],
        comp: Comparison | None = None,
    ) -> _Context | None:
        """The sentence that best states ``attribute`` (the question minus the names) about ``entity``."""
        n = _norm(entity)
        said = {c.norm for c in chosen}
        about = [
            c
            for c in contexts
            if c not in chosen and c.norm not in said and (title_core(c.passage.title) == n or _mentions(n, c.norm))
        ]
        if not about:
            return None
        if comp is not None and comp.kind != "other":
            # The sentence that gives the side's value; for "both X", one that confirms X if any does.
            valued = [(c, v) for c in about if (v := side_value(comp, entity, c.text, c.passage.title)) is not None]
            if valued:
                confirmed = [c for c, v in valued if v.has is not False]
                own = [c for c in (confirmed or [c for c, _ in valued]) if title_core(c.passage.title) == n]
                if confirmed:
                    return max(own or confirmed, key=lambda c: (c.overlap, -c.index))
                # What the side is instead: the opening of its own passage says it best.
                return min(own or [c for c, _ in valued], key=lambda c: (c.index, -c.overlap))

        def value(c: _Context) -> float:
            own = title_core(c.passage.title) == n
            # "Ed Wood" before "Ed Wood (film)": the unqualified title is the entity itself.
            qualified = c.passage.title.rstrip().endswith(")")
            v = _share(attribute, c.text.lower()) + (0.5 if own and not qualified else 0.45 if own else 0.0)
            if not attribute:
                # "How do A and B differ?": what each side is, is the sentence that defines it.
                v += 0.6 * _defines(entity, c) + 0.2 * bool(_INTRO_SECTION.search(c.passage.section or ""))
            # A comparison decided by dates is decided by the sentence that gives the date.
            v += 0.8 * bool(when and _YEAR.search(c.text)) + 0.1 * (c.index == 0)
            return v

        return max(about, key=value)


# --- the slot sentence ---------------------------------------------------------------------------

_COMPARE_WORDS = frozenset(
    ["differ", "differs", "difference", "differences", "different", "compare", "compared", "comparison",
     "similar", "similarity", "similarities", "contrast", "versus", "vs"]
)  # fmt: skip
_INTRO_SECTION = re.compile(r"abstract|introduction|overview|摘要|引言|简介|概述", re.IGNORECASE)


def _defines(subject: str, c: _Context) -> bool:
    """Does sentence ``c`` say what ``subject`` is ("X is a …", "We introduce X, a …", "X是…")?"""
    x = re.escape(subject)
    pattern = (
        rf"^(?:the\s+)?{x}\s*(?:\([^)]*\)\s*)?(?:is|are|was|were|refers to|stands for|denotes)\b"
        rf"|\b(?:introduce[sd]?|present[sd]?|propose[sd]?|describe[sd]?)\s+{x}\d{{0,2}}\s*(?:\([^)]*\))?,?\d{{0,2}}\s+(?:a|an|the)\b"
        rf"|^{x}\s*,\s+(?:a|an|the)\b|{x}(?:是|指|即)"
    )
    return re.search(pattern, c.text, re.IGNORECASE) is not None


def _slot_sentences(a: QuestionAnalysis, contexts: list[_Context]) -> list[_Context]:
    """The best sentence for each typed slot of the question: a defining sentence about the
    subject for "what is X", a number next to the counted noun for "how many", a date for "when"."""
    subject = a.entities[0] if a.entities else (a.concepts[0] if a.concepts else "")
    if a.answer_type == "why" and not a.entities and a.concepts:
        subject = a.concepts[0].split()[-1]  # "house sparrows decline": the sentence names the decline
    if not subject or a.is_comparison or a.is_bridge:
        return []
    n = _norm(subject)
    # The sentence itself names the subject, or opens the subject's own passage: one whose title
    # is the subject's name ("Johnnycake, West Virginia") — not any chunk of a paper whose long
    # title starts with it ("S2ORC: The Semantic Scholar …", whose chunks are about much else).
    def own_passage(c: _Context) -> bool:
        title = title_core(c.passage.title)
        return title.startswith(n) and len(title.split()) <= len(n.split()) + 3

    about = [
        c for c in contexts
        if _mentions(n, c.norm) or (has_cjk(n) and n in c.text) or (c.index == 0 and own_passage(c))
    ]  # fmt: skip
    out: list[_Context] = []
    for t in a.sub_types or (a.answer_type,):
        best: tuple[float, _Context] | None = None
        for c in about:
            if t == "definition":
                ok = _defines(subject, c)
            elif t in ("how_many", "how_much"):
                ok = any(_with_counted_noun(m.group().split()[0], c.text[m.start() :], a.question, a.entities)
                         for m in _QUANTITY.finditer(c.text) if m.group().strip())  # fmt: skip
            elif t == "when":
                ok = _DATE.search(c.text) is not None
            elif t == "why":
                ok = CAUSE.search(c.text) is not None and not re.search(r"\b(?:not|no|neither|nor)\b", c.text)
            else:
                ok = False
            if not ok:
                continue
            v = c.overlap + 0.2 * bool(_INTRO_SECTION.search(c.passage.section or "")) + 0.1 * (c.index == 0)
            if best is None or v > best[0]:
                best = (v, c)
        if best is not None and best[1] not in out:
            out.append(best[1])
    return out


# --- the direct answer line ----------------------------------------------------------------------


def _verdict_line(comp: Comparison, a: QuestionAnalysis, chosen: list[_Context]) -> str:
    """"Answer: no — Gal Gadot: Israeli [P1]; Roberta Vinci: Italian [P2]": a yes or no only when
    each side's value is in a chosen sentence and the values can be compared; else nothing (the
    sufficiency check then says which side's value is missing)."""
    found: list[tuple[str, Value, str]] = []
    for side in a.sides:
        best: tuple[Value, str] | None = None
        for c in chosen:
            v = side_value(comp, side, c.text, c.passage.title)
            if v is not None and (best is None or (v.has and not best[0].has)):
                best = (v, c.passage.id)
        if best is None:
            return ""
        found.append((side, best[0], best[1]))
    says = verdict(comp, [v for _, v, _ in found])
    if says is None:
        return ""
    shown = "; ".join(f"{side}: {v.shown} [{pid}]" if v.shown else f"{side} [{pid}]" for side, v, pid in found)
    return f"Answer: {says} — {shown}"


_DATE = re.compile(
    r"\b(?:(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2},\s+)?"
    r"(?:1[0-9]{3}|20[0-9]{2})\b|\b\d{1,2}\s+(?:January|February|March|April|May|June|July|August|September|October|"
    r"November|December)\s+(?:1[0-9]{3}|20[0-9]{2})\b|\d{4}年(?:\d{1,2}月)?(?:\d{1,2}日)?"
)
_QUANTITY = re.compile(
    r"(?<![\w.])\d[\d,]*(?:\.\d+)?\s*(?:%|[KMB]\b|million|billion|thousand|hundred|percent)?"
    r"(?:\s+(?!(?:and|or|of|in|on|at|to|the|a|an|for|by|with|from|as)\b)[A-Za-z][\w-]*){0,2}"
    r"|[一二两三四五六七八九十百千万\d]+[个篇种位名项条件次日天月年周]"
)
_EARLY = frozenset(["first", "earlier", "earliest", "older", "oldest", "before", "sooner"])
_LATE = frozenset(["later", "latest", "younger", "youngest", "after", "newer", "recent", "last"])


def _with_counted_noun(number: str, text: str, question: str, names: Sequence[str] = ()) -> str:
    """"81.1M English-language academic papers": the number up to the noun the question counts.
    ``names``: the question's named entities — what is counted is never the subject itself
    ("31k using 15% of the S2ORC" does not count S2ORCs)."""
    words = text.split()[1:6]
    named = {t for n in names for t in question_terms(n)}
    q = set(question_terms(question)) - named
    for i, w in enumerate(words):
        w = w.strip(",.;:()").lower()
        if len(w) >= 3 and any(t == w or (len(t) >= 3 and w.startswith(t[: max(3, len(t) - 2)])) for t in q):
            return " ".join([number, *words[: i + 1]]).rstrip(",.;:")
    return ""


def _direct_line(a: QuestionAnalysis, chosen: list[_Context], state: AgentState, slots: list[_Context] | None = None) -> str:
    """"Answer: … [P2]": the typed value the question asks for, when a chosen sentence gives one.

    Built only from words of the cited sentence (the support check holds it to that): a number
    with its noun for how-many/how-much, a date for when, a new name for who/where/which (from
    the last hop's passage for a bridge question), and for a comparison decided by dates the
    side with the earlier or later date.
    """
    if not chosen:
        return ""
    q_low = a.question.lower()
    comp = comparison(a)
    if comp is not None and comp.yes_no:
        return _verdict_line(comp, a, chosen)
    if a.is_comparison:
        attr = set(a.attribute) | set(re.findall(r"[a-z]+", a.question.lower()))
        early, late = bool(attr & _EARLY), bool(attr & _LATE)
        if comp is not None and comp.kind == "date":
            early, late = comp.polarity == "earlier", comp.polarity == "later"
        if early == late:
            return ""
        dated: list[tuple[int, str, str]] = []
        for side in a.sides:
            n = _norm(side)
            for c in chosen:
                if title_core(c.passage.title) == n or _mentions(n, c.norm):
                    m = _DATE.search(c.text)
                    year = re.search(r"1[0-9]{3}|20[0-9]{2}", m.group()) if m else None
                    if year:
                        dated.append((int(year.group()), side, c.passage.id))
                        break
        if len(dated) != len(a.sides) or len({y for y, _, _ in dated}) < 2:
            return ""
        dated.sort()
        win = dated[0] if early else dated[-1]
        rest = "; ".join(f"{s} {y}" for y, s, _ in dated if s != win[1])
        refs = ", ".join(dict.fromkeys(pid for _, _, pid in dated))
        return f"Answer: {win[1]} ({win[0]}; {rest}) [{refs}]"
    t = a.answer_type
    if t not in ("how_many", "how_much", "when", "who", "where", "which"):
        return ""
    # The sentence that answers: the one covering the question best, from the last hop's passage
    # when the question is a bridge (the first hop only names where to look).
    pool = list(chosen)
    bridge_words: list[set[str]] = []
    last_rel: list[str] = []
    if a.is_bridge and len({c.passage.id for c in chosen}) > 1:
        anchor = _norm(a.hops[0].anchor)
        later = [c for c in chosen if not (title_core(c.passage.title) == anchor or _mentions(anchor, c.norm))]
        pool = later or pool
    first_hop_names = {n.lower() for c in chosen if c not in pool for n in c.names}
    if a.is_bridge:
        # The bridge entity fills the first hop's relation ("directed by Robert Z. Leonard"); the
        # answer is another name, in a sentence with the last hop's relation ("then-wife Mae
        # Murray") — also when one passage holds both hops.
        last_rel = [w for w in a.hops[-1].relation if w not in ("what", "which", "who")]
        first_rel = [w for w in a.hops[0].relation if w not in ("what", "which", "who") and w not in last_rel]
        for c in chosen:
            if any(has_relation(w, c.text) for w in first_rel):
                for n in c.names:
                    if _norm(n) not in _norm(a.question) and not is_demonym(n):
                        first_hop_names.add(n.lower())
                        bridge_words.append(set(_norm(n).split()))
    ordered = [c for c in slots or [] if c in pool] + sorted(
        (c for c in pool if c not in (slots or [])),
        key=lambda c: (-any(has_relation(w, c.text) for w in last_rel), -c.overlap),
    )
    for c in ordered:
        span = ""
        if t in ("how_many", "how_much"):
            plain = ""
            for m in _QUANTITY.finditer(c.text):
                v = m.group().strip()
                if v and v.split()[0] not in q_low and not re.fullmatch(r"(?:1[0-9]{3}|20[0-9]{2})[,.;:]?", v.split()[0]):
                    # A number with the noun the question counts beats a bare one (a footnote mark).
                    span = _with_counted_noun(v.split()[0], c.text[m.start() :], a.question, a.entities)
                    if span:
                        break
                    plain = plain or v
            # A bare number leads only when the question's counted noun could have been looked
            # for: a Chinese question over an English passage cannot name it ("31" of "31k").
            span = span or ("" if has_cjk(a.question) and not has_cjk(c.text) else plain)
        elif t == "when":
            m = next((m for m in _DATE.finditer(c.text) if m.group() not in a.question), None)
            span = m.group() if m else ""
        else:
            if has_cjk(a.question):
                return ""
            for n in c.names:
                low = n.lower()
                if low in q_low or low in first_hop_names or _norm(n) in _norm(a.question):
                    continue
                if any(set(_norm(n).split()) <= w for w in bridge_words) or (t in ("who", "where") and is_demonym(n)):
                    continue  # "Leonard's" is the bridge entity again; "American" is no person, "Finnish" no place
                span = n
                break
        if span:
            return f"Answer: {span} [{c.passage.id}]"
    return ""
