"""One question asked of a few papers through the agent loop: a matrix cell, a draft section.

``ScopedPool`` narrows the library to some documents (the loop's searches carry their ids, so
the retrieval is the library's own search); ``GatherPolicy`` drives the loop's rounds with
the question's cue phrases (skim, read the passages that can answer), then answers: with a
model through the model's own policy (it sees only what was read), offline extractively — the
sentences chosen by section kind and cue phrases, never from reference lists or boilerplate.
Whatever answers, the loop verifies it (citations, claim support, coverage) before it is used.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, Field

from ..agent.actions import Answer, Decision, PassageRef, Read, Search, fit_query
from ..agent.events import Evidence, Finished, PassageView, Result, Status, Usage
from ..agent.events import Warning as TraceWarning
from ..agent.injection import is_instruction
from ..agent.loop import AgentOptions, run_agent
from ..agent.scoped import ScopedPool
from ..agent.state import AgentState, Policy, PolicyStep
from ..agent.verify import without_source_refs
from ..models import DocumentInfo
from ..text.kinds import Kind, answer_sentences, answerable, heading_names
from ..text.language import STOPWORDS, has_cjk, query_terms
from .passage_kind import hit_kind, passage_kind, stored_kind

# Words of a column's question that say what kind of thing is asked, not what to look for.
_FRAME = frozenset(
    ["what", "which", "who", "how", "does", "do", "did", "is", "are", "was", "were", "the", "paper", "papers", "study", "studies", "work", "article", "authors", "this", "that", "used", "use", "using", "main", "stated", "report", "reported", "any", "their", "its", "there"]
)
# Sentences the drafting and the matrix never take: too short to say anything, or a paragraph.
MIN_SENTENCE_CHARS = 25
MIN_SENTENCE_CHARS_ZH = 8
MAX_SENTENCE_CHARS = 420
# What one Read action may take: its segment and the six others ``Read.also`` allows.
READ_AT_ONCE = 7

# The section a heading names, as the cue sets speak of them.
_ROLES: list[tuple[str, re.Pattern[str]]] = [
    ("abstract", re.compile(r"abstract|summary|摘要", re.I)),
    ("introduction", re.compile(r"introduc|background|motivation|引言|绪论|背景|前言", re.I)),
    ("related", re.compile(r"related work|literature|previous work|prior work|相关工作|研究现状|文献综述", re.I)),
    ("method", re.compile(r"method|approach|model|framework|architecture|design|algorithm|system|方法|模型|框架|算法", re.I)),
    ("data", re.compile(r"data|corpus|corpora|material|participant|study area|sample|collection|数据|语料|材料|样本", re.I)),
    ("evaluation", re.compile(r"experiment|evaluat|setup|set-up|metric|benchmark|实验|评估|评价", re.I)),
    ("results", re.compile(r"result|finding|performance|analysis|结果|分析", re.I)),
    ("discussion", re.compile(r"discussion|limitation|future work|threats|讨论|局限|不足|展望", re.I)),
    ("conclusion", re.compile(r"conclu|recommend|结论|总结", re.I)),
]


def first_named(table: Sequence[tuple[str, re.Pattern[str]]], text: str, default: str = "") -> str:
    """The name of the first pattern of ``table`` that ``text`` matches (``default`` for none):
    section roles here, method families in the matrix."""
    return next((name for name, pattern in table if pattern.search(text)), default)


def section_role(section: str) -> str:
    """"abstract", "method", "results" … for a section heading ("3.2 Results on SQuAD"), or ""."""
    return first_named(_ROLES, section)


def _headings(obj: object) -> list[str]:
    """The headings a passage or hit sits under, deepest first ("2.2 Bird surveys", "2. Methods"),
    without their numbers."""
    return heading_names(str(getattr(obj, "section_path", "") or getattr(obj, "section", "") or ""))


def passage_role(obj: object) -> str:
    """The section role of a passage or hit: its own heading's, else its parent's ("Bird surveys"
    under "2. Methods" is method). "Abstract" counts only for text stored as the abstract: a
    paper whose headings the importer missed has its whole body under the first one it saw."""
    stored = stored_kind(obj)
    for h in _headings(obj):
        role = section_role(h)
        if role == "abstract" and stored is not None and stored != Kind.ABSTRACT:
            continue
        if role:
            return role
    return ""


def heading_vouches(ask: Ask, obj: object) -> list[str]:
    """The column's headings ("Limitations", "Data") that a passage's own or parent heading names."""
    for h in _headings(obj):
        found = cue_hits(ask.headings, h)
        if found:
            return found[:1]
    return []


def inline_heading(ask: Ask, sentence: str) -> str:
    """A column heading that opens ``sentence`` as a run-in heading the importer did not split
    off ("Data sets Daily streamflow data were …", "Evaluation Metrics We use …"), or ""."""
    head = sentence[:60]
    for h in ask.headings:
        if has_cjk(h):
            continue
        m = re.match(rf"^(?:[\dIVX]+\.?\s*)?(?:[A-Z][\w-]*\s+){{0,2}}?(?i:{re.escape(h)})s?\s+[A-Z]", head)
        if m:
            return h
    return ""


# A sentence that speaks of the paper's own work, not of the field's or of earlier work: what a
# column about the paper's own limitations or aims needs ("existing corpora are not without their
# limitations" is about others).
_OWN_WORK = re.compile(
    r"\b(?:we|our|us|this|these|the (?:present|current|proposed) \w+|the (?:study|work|paper|report|project|"
    r"analysis|method|model|approach|survey|system|tool|findings|results|data|sample))\b|本文|本研究|我们|该研究",
    re.I,
)


class Ask(BaseModel):
    """One question asked of the papers in scope, with what finds its answer offline."""

    question: str
    cues: list[str] = Field(default_factory=list)  # phrases an answering sentence tends to use
    sections: list[str] = Field(default_factory=list)  # roles of the sections that usually hold it
    # Section headings that by themselves say a sentence under them answers ("Limitations").
    headings: list[str] = Field(default_factory=list)
    numbers: bool = False  # prefer sentences with numbers (results)
    max_sentences: int = 2
    # Offline only: a sentence with no cue and little of the question is not an answer.
    min_overlap: float = 0.6
    keep_ratio: float = 0.7  # a further sentence must score this share of the best one
    per_doc: int = 2  # at most this many sentences from one paper
    bullets: bool = False  # one sentence a line ("- …"), for a draft's points
    # A draft draws on papers in both languages whatever its own: every cue counts.
    any_script: bool = False
    # The answer must be about the paper's own work (we, our, this study …) unless a heading
    # names the column: a paper's limitations, not the field's.
    own_work: bool = False

    def cues_for(self) -> list[str]:
        """The cues in the question's script: Chinese cues for a Chinese question, the others
        for the rest (a paper is asked in its own language)."""
        if self.any_script:
            return list(self.cues)
        zh = has_cjk(self.question)
        return [c for c in self.cues if has_cjk(c) == zh]


def _lower(text: str) -> str:
    return " ".join(text.lower().split())


def cue_hits(cues: Sequence[str], text: str) -> list[str]:
    """The cue phrases ``text`` uses (whole words for Latin cues, substrings for Chinese)."""
    low = _lower(text)
    out = []
    for c in cues:
        c0 = _lower(c)
        if not c0:
            continue
        if has_cjk(c0):
            if c0 in low.replace(" ", ""):
                out.append(c)
        elif re.search(rf"(?<![\w-]){re.escape(c0)}" if c0[0].isalnum() else re.escape(c0), low):
            out.append(c)
    return out


_FUNCTION_WORDS = frozenset(
    ["the", "a", "an", "of", "in", "on", "at", "to", "for", "from", "by", "with", "and", "or", "but", "is", "are", "was", "were", "be", "been", "that", "which", "this", "these", "it", "its", "as", "than", "we", "our", "they", "their", "not", "can", "may", "will", "has", "have", "had", "into", "over", "between"]
)


def reads_as_prose(sentence: str) -> bool:
    """A sentence with the function words prose has: table rows and figure text that the kind
    classifier let through ("Language model Training data ELMO 1BW (800M) …") have almost none."""
    if has_cjk(sentence):
        return True
    words = re.findall(r"[A-Za-z]+", sentence)
    return len(words) >= 4 and sum(w.lower() in _FUNCTION_WORDS for w in words) / len(words) >= 0.12


def content_terms(question: str) -> list[str]:
    return [t for t in query_terms(question) if t.lower() not in _FRAME and t.lower() not in STOPWORDS]


def _term_share(terms: Sequence[str], text: str) -> float:
    if not terms:
        return 0.0
    low = _lower(text)
    found = 0
    for t in terms:
        t0 = t.lower()
        if has_cjk(t0):
            found += t0 in low.replace(" ", "")
        else:
            found += t0[: max(4, len(t0) - 2)] in low
    return found / len(terms)


@dataclass
class Candidate:
    passage: PassageView
    index: int
    text: str
    score: float
    cues: list[str]


def candidates(ask: Ask, passages: Sequence[PassageView]) -> list[Candidate]:
    """The sentences of ``passages`` that may answer ``ask``, best first: answerable kinds only
    (no reference entries, boilerplate, code, tables, author blocks, planted instructions).

    A sentence is scored by the column's cue phrases in it, the share of the question's terms,
    the role of its section (its own heading or its parent's), a heading that names the column
    (its section's, or a run-in heading opening it), numbers where the column asks for them; a
    section of another role costs a little (a results sentence is no method)."""
    terms = content_terms(ask.question)
    cues = ask.cues_for()
    out: list[Candidate] = []
    for p in passages:
        if not answerable(passage_kind(p)):
            continue
        role = passage_role(p)
        # A heading that names what the column asks ("6 Limitations", "3 Data") vouches for
        # the sentences under it, whatever words they use.
        heading = heading_vouches(ask, p)
        for i, (s, kind) in enumerate(answer_sentences(p.text, p.section)):
            s = s.strip()
            if not answerable(kind) or is_instruction(s) or not reads_as_prose(s):
                continue
            if len(s) < (MIN_SENTENCE_CHARS_ZH if has_cjk(s) else MIN_SENTENCE_CHARS) or len(s) > MAX_SENTENCE_CHARS:
                continue
            run_in = inline_heading(ask, s)
            vouch = heading or ([run_in] if run_in else [])
            found = cue_hits(cues, s)
            share = _term_share(terms, s)
            if not found and not vouch and share < ask.min_overlap:
                continue
            if ask.own_work and not vouch and not _OWN_WORK.search(s):
                continue
            score = 2.0 * min(2, len(found)) + share + (1.5 if vouch and not found else 0.0)
            if role and role in ask.sections:
                score += 1.0 + 0.5 * (len(ask.sections) - ask.sections.index(role)) / max(1, len(ask.sections))
            elif role:
                score -= 0.5
            if ask.numbers and re.search(r"\d", s):
                score += 1.0
            if kind == Kind.CAPTION:
                score -= 1.0
            if s[0].islower() and not has_cjk(s[:1]):
                score -= 1.0  # most likely the tail of a sentence the PDF's columns cut apart
            score -= 0.001 * i  # earlier in its passage: usually the topic sentence
            out.append(Candidate(p, i, s, score, found + [f"§ {h}" for h in vouch[:1]]))
    out.sort(key=lambda c: -c.score)
    return out


# A paper's own numeric citations in a cell would read as citations of this run's passages.
own_markers_removed = without_source_refs


def extractive_answer(ask: Ask, state: AgentState) -> Answer:
    """The best one or two sentences of what was read, each citing its passage ("" when none)."""
    chosen: list[Candidate] = []
    said: set[str] = set()
    said_numbers: set[str] = set()
    per_doc: dict[int, int] = {}
    for c in candidates(ask, list(state.passages.values())):
        if len(chosen) >= ask.max_sentences:
            break
        key = " ".join(re.findall(r"\w+", c.text.lower()))
        if key in said or (chosen and c.score < ask.keep_ratio * chosen[0].score):
            continue
        words = set(key.split())
        if any(len(words & set(k.split())) >= 0.7 * max(1, min(len(words), len(k.split()))) for k in said):
            continue  # the same finding told twice (abstract and results)
        numbers = set(re.findall(r"\d+(?:[.,]\d+)?", c.text))
        if numbers and numbers <= said_numbers:
            continue  # the same numbers again: the abstract's finding in the results' words
        if per_doc.get(c.passage.doc_id, 0) >= ask.per_doc:
            continue
        if chosen and not ask.bullets and not any(not q.startswith("§ ") for q in c.cues):
            continue  # a second sentence of a cell must answer in its own words, not be a neighbour
        said.add(key)
        said_numbers |= numbers
        per_doc[c.passage.doc_id] = per_doc.get(c.passage.doc_id, 0) + 1
        chosen.append(c)
    for c in chosen:
        for cue in c.cues:
            if cue.startswith("§ "):
                continue
            # The documents' word for what the column asks: the coverage check accepts it.
            if ("", cue, "the column's cue phrase") not in state.bridge_terms:
                state.bridge_terms.append(("", cue, "the column's cue phrase"))
    sep = "\n" if ask.bullets else " "
    text = sep.join(("- " if ask.bullets else "") + f"{own_markers_removed(c.text)} [{c.passage.id}]" for c in chosen)
    return Answer(text=text, evidence_ids=list(dict.fromkeys(c.passage.id for c in chosen)),
                  missing=[] if chosen else [state.question], confidence=0.6 if chosen else 0.0)  # fmt: skip


class GatherPolicy:
    """Searches with the question and its cue phrases, reads the passages that can answer, then
    answers: through ``inner`` (a model's policy) when given, else extractively."""

    def __init__(self, ask: Ask, doc_ids: Sequence[int], inner: Policy | None = None, *, k: int = 8,
                 reads: int = 5, extractive: bool = True, reason: str = "") -> None:  # fmt: skip
        self.ask = ask
        self.doc_ids = list(doc_ids)
        self.inner = inner
        self.k = k
        self.reads = reads
        self.extractive = extractive
        self.reason = reason  # what the model is told when it writes (one or two sentences …)
        self.name = getattr(inner, "name", "offline") if inner is not None else "offline"
        self.client = getattr(inner, "client", None)

    def queries(self) -> list[str]:
        terms = content_terms(self.ask.question)
        cue_q = fit_query(" ".join(dict.fromkeys([*terms, *self.ask.cues_for()])))
        q_q = fit_query(" ".join(terms) or self.ask.question)
        return [q for q in dict.fromkeys([cue_q, q_q]) if q.strip()]

    def decide(self, state: AgentState) -> PolicyStep:
        for q in self.queries():
            if not state.tried(q):
                return PolicyStep(Decision(thought="skim the papers with the question and its cue phrases",
                                           action=Search(query=q, k=self.k, doc_ids=self.doc_ids)))  # fmt: skip
        unread = [h for h in state.unread_hits() if answerable(hit_kind(h))]
        if unread and len(state.passages) < self.reads:
            terms = content_terms(self.ask.question)

            def rank(h: object) -> float:
                snippet = getattr(h, "snippet", "")
                role = passage_role(h)
                named = bool(heading_vouches(self.ask, h))
                return (2.0 * (len(cue_hits(self.ask.cues_for(), snippet)) + named) + _term_share(terms, snippet)
                        + (1.0 if role in self.ask.sections else 0.0) + 0.1 * float(getattr(h, "score", 0.0)))  # fmt: skip

            # One read action takes at most READ_AT_ONCE passages; a draft's larger budget reads on
            # in the next round.
            pick = sorted(unread, key=rank, reverse=True)[: min(READ_AT_ONCE, self.reads - len(state.passages))]
            first, *rest = pick
            return PolicyStep(Decision(thought="read the passages that may answer",
                                       action=Read(doc_id=first.doc_id, segments=[first.segment],
                                                   also=[PassageRef(doc_id=h.doc_id, segment=h.segment) for h in rest])))  # fmt: skip
        return self.answer(state, "read what may answer")

    def answer(self, state: AgentState, reason: str) -> PolicyStep:
        if self.inner is not None and state.passages:
            return self.inner.answer(state, f"{reason}; {self.reason}" if self.reason else reason)
        action = extractive_answer(self.ask, state) if self.extractive else Answer(text="", evidence_ids=[])
        return PolicyStep(Decision(thought=f"answer extractively ({reason})", action=action))


@dataclass
class Asked:
    """What one scoped run gave: the verified text (markers [n] refer to ``evidence``), the run's
    status and its cost; ``unsupported`` counts sentences the checks removed."""

    result: Result
    text: str
    evidence: list[Evidence]
    unsupported: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.text.strip()) and bool(self.evidence) and self.result.status not in (
            Status.INSUFFICIENT, Status.FAILED, Status.CANCELLED
        )

    @property
    def usage(self) -> Usage:
        return self.result.usage


_DROPPED_CODES = frozenset({"unsupported_claim", "uncited_claim", "injection_obeyed"})
# The loop's frames in either language (messages "answer.partial_tail", "answer.related_head").
_PARTIAL_TAIL = re.compile(r"\n\n(?:Partial answer — not covered by the passages read|部分回答——读过的段落没有涉及).*$", re.S)
_RELATED_HEAD = re.compile(
    r"^(?:I could not find evidence that answers this question.*?Related passages:|没有找到能回答这个问题的证据.*?相关段落：)\n",
    re.S,
)


def verified_text(result: Result) -> str:
    """The answer's verified sentences, without the loop's notes around them (the partial-answer
    tail, the related-passages head); "" when nothing verified."""
    evidence = [e for e in result.evidence if e.verified]
    if not evidence:
        return ""
    text = _PARTIAL_TAIL.sub("", result.answer)
    text = _RELATED_HEAD.sub("", text)
    return text.strip()


def ask_papers(
    ask: Ask,
    pool: object,
    doc_ids: Sequence[int],
    *,
    model: Policy | None = None,
    documents: Sequence[DocumentInfo] | None = None,
    cancel: threading.Event | None = None,
    max_rounds: int = 6,
    question: str | None = None,
    k: int = 8,
    reads: int = 5,
    reason: str = "",
) -> Asked:
    """Ask ``ask`` of the papers ``doc_ids`` with one agent run; returns what the checks kept."""
    scoped = ScopedPool(pool, doc_ids, documents, cache_documents=True, languages=False)  # type: ignore[arg-type]
    policy = GatherPolicy(ask, scoped.doc_ids, model, k=k, reads=reads, reason=reason)
    result: Result | None = None
    unsupported = 0
    warnings: list[str] = []
    events: Iterator[object] = run_agent(question or ask.question, scoped, policy,
                                         AgentOptions(max_rounds=max_rounds, mode="loop"), cancel)  # fmt: skip
    for ev in events:
        if isinstance(ev, TraceWarning):
            if ev.code in _DROPPED_CODES:
                unsupported += 1
            warnings.append(f"{ev.code}: {ev.message}")
        elif isinstance(ev, Finished):
            result = ev.result
    assert result is not None  # run_agent always ends with one Finished
    text = verified_text(result)
    evidence = [e for e in result.evidence if e.verified] if text else []
    return Asked(result, text, evidence, unsupported, warnings)
