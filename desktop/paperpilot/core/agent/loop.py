"""The agent loop: policy.decide(state) → action → tool → observation → state, as a generator.

Stop rules are code: a round limit, refusal of repeated queries, convergence when a round
brings nothing new, and verification of every citation before anything is returned.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from pydantic import ValidationError

from ..errors import LibraryError
from ..text.language import has_cjk
from ..text.messages import Language, Message, msg
from . import confidence as confidence_model
from .actions import Answer, question_too_long
from .analysis import QuestionAnalysis, analyze
from .bridge import Bridged, bridge
from .events import (
    ActionChosen,
    AnswerDrafted,
    Event,
    Evidence,
    Finished,
    Info,
    PartStatus,
    PassageView,
    Result,
    RoundStarted,
    RunStarted,
    Status,
    Usage,
    Warning,
)
from .extractive import extractive_answer
from .guard import fallback_answer, fallback_step, plain_error
from .injection import Instruction, find_instructions
from .intent import asks_to_remember
from .rerank import Reranker
from .router import QuickPolicy, route
from .scoped import ScopedPool
from .state import (
    AgentState,
    DocumentPool,
    Policy,
    PolicyFailure,
    PolicyStep,
    concept_pool,
    describe_languages,
    language_mix,
    note_pool,
    searchable_across,
)
from .sufficiency import Assessment, assess
from .support import Bridges
from .synthesis import LibraryFacts, SynthesisRequest, is_synthesis, read_request
from .synthesis_plan import PaperPick, papers_in_scope, select_papers
from .tools import tool_for
from .tools.notes import NOTE_SEGMENT, add_note_passage
from .verify import Verified, coverage, verify_answer

log = logging.getLogger(__name__)

CONVERGENCE_ROUNDS = 2
# Words of a title that name nothing ("The", "of", "film") when checking who names a document.
_TITLE_STOP = frozenset(["the", "a", "an", "of", "and", "in", "on", "for", "to", "with", "at", "by", "from"])

def _zh_probe(concept: str) -> str:
    """A Chinese concept as the library check looks it up: a compound cut without a dictionary
    (出差报销) is usually two-character words (出差 报销) that a passage may use apart."""
    if len(concept) >= 4 and not any(c.isascii() for c in concept):
        return " ".join(concept[i : i + 2] for i in range(0, len(concept) - 1, 2))
    return concept


def _bridged_stat(groups: list[list[str]], raw: dict[str, int]) -> int:
    """How many documents hold a concept bridged word by word (each group: one word's senses):
    every word for two or fewer, most of them for a longer phrase (as the coverage check)."""
    counts = sorted((max(raw.get(x, 0) for x in g) for g in groups), reverse=True)
    if not counts:
        return 0
    need = len(counts) if len(counts) <= 2 else len(counts) // 2 + 1
    return counts[need - 1]


# A passage only a search by meaning found is evidence of relevance from this cosine up (the
# bundled multilingual-e5-small; an endpoint model's cosines run lower, so its meaning-only hits
# count only through keywords — the safe side). Chosen on HotpotQA's even lines with vectors
# (tests/bench/bench_confidence.py): of the 25 answers citing a meaning-only passage with the
# cited passages' mean cosine below 0.835, none was right and fully supported.
WEAK_COSINE = 0.83

_NAMES_A_DOCUMENT = re.compile(
    r"\b(?:doc(?:ument)?|paper)\s*(?:#|no\.?\s*)?\d+\b|#\d+\b|\bnotes?\b|笔记|备注|(?:文献|文档|论文)\s*#?\d+",
    re.IGNORECASE,
)


@dataclass
class AgentOptions:
    max_rounds: int = 6
    mode: str = "auto"  # auto | quick | loop
    k: int = 3
    # (term, why) from the user's research profile (core.profile.expansion_terms): added to
    # the first query and shown in the trace.
    profile_terms: list[tuple[str, str]] = field(default_factory=list)
    # Evidence of the previous turn a follow-up is about: read again at run start, so the
    # agent may answer from it (it still searches when the policy wants).
    prior_evidence: list[Evidence] = field(default_factory=list)
    # The question as the user typed it, when ``question`` is its standalone rewrite.
    rewritten_from: str | None = None


class _Run:
    """One run's bookkeeping; ``run_agent`` drives it."""

    def __init__(
        self,
        question: str,
        pool: DocumentPool,
        policy: Policy,
        options: AgentOptions,
        cancel: threading.Event | None,
    ) -> None:
        self.pool = pool
        self.policy = policy
        self.options = options
        self.cancel = cancel
        self.t0 = time.perf_counter()
        self.state = AgentState(question=question.strip(), max_rounds=max(1, options.max_rounds), cancel=cancel)
        self.mode = options.mode
        self.analysis: QuestionAnalysis = analyze(self.state.question)
        self.state.question_language = self.analysis.language
        self.state.library_languages = language_mix(pool) if self.state.question else {}
        self.instructions: dict[str, list[Instruction]] = {}  # evidence id -> instructions found in it
        self.library_gaps: list[Message] = []  # key concepts no document mentions
        self.stats_info: Info | None = None
        self.scope_line: Message | None = None  # a question's scope across papers, said with its answer
        self.pick: PaperPick | None = None  # a question across papers: the papers its answer must draw on
        # Offline, a question in a language the library lacks: its terms through the dictionary.
        self.bridged: Bridged | None = None

    def ms(self) -> float:
        return round((time.perf_counter() - self.t0) * 1000, 2)

    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def flag_instructions(self, view: PassageView) -> list[Warning]:
        """Sentences of a passage addressed to an AI: recorded, flagged, never evidence."""
        found = find_instructions(view.text)
        if not found:
            return []
        self.instructions[view.id] = found
        flagged = [msg("trace.injection", id=view.id, title=view.title[:60], sentence=i.sentence[:120]) for i in found]
        return [Warning(round=self.state.round, elapsed_ms=self.ms(), code="injection", message=m.text(), msg=m)
                for m in flagged]  # fmt: skip

    @property
    def reranker(self) -> Reranker | None:
        """The policy's reranker when it reranks a search's candidates (the LLM policy with
        reranking on; also behind the quick path), else None: the search tool asks for it."""
        get = getattr(self.policy, "reranker", None)
        return get() if callable(get) else None

    def title(self, doc_id: int) -> str:
        docs = self.state.documents if self.state.documents is not None else self.pool.list_documents()
        return next((d.title for d in docs if d.doc_id == doc_id), f"document {doc_id}")

    def start_events(self) -> Iterator[Info]:
        """Profile terms and reused evidence go into the state before the first round."""
        st, opts = self.state, self.options
        if opts.profile_terms:
            for term, _why in opts.profile_terms:
                if term not in st.extra_terms:
                    st.extra_terms.append(term)
            yield Info(elapsed_ms=self.ms(), code="profile",
                       message="profile added: " + ", ".join(f"{t} ({why})" for t, why in opts.profile_terms),
                       data={"terms": [t for t, _ in opts.profile_terms]})  # fmt: skip
        if opts.prior_evidence:
            reused: list[PassageView] = []
            notes = note_pool(self.pool)
            for e in opts.prior_evidence:
                view: PassageView | None = None
                if e.segment == NOTE_SEGMENT:
                    if notes is not None:
                        view = add_note_passage(st, e.doc_id, e.title, notes.get_note(e.doc_id))
                else:
                    try:
                        view = st.add_passage(self.pool.read(e.doc_id, e.segment))
                    except LibraryError:
                        continue
                if view is not None:
                    reused.append(view)
            if reused:
                yield Info(elapsed_ms=self.ms(), code="reuse",
                           message=f"reusing {len(reused)} passage(s) from the previous turn: "
                           + ", ".join(f"{v.id} {v.title[:40]}" for v in reused),
                           data={"ids": [v.id for v in reused]})  # fmt: skip

    # --- results -----------------------------------------------------------------------------

    def step_events(self, step: PolicyStep) -> Iterator[Event]:
        self.state.usage.add(step.usage)
        for code, message in step.infos:
            yield Info(round=self.state.round, elapsed_ms=self.ms(), code=code, message=message)
        for code, said in step.warnings:
            yield Warning(round=self.state.round, elapsed_ms=self.ms(), code=code, message=str(said),
                          msg=said if isinstance(said, Message) else None)  # fmt: skip

    def finish(self, status: Status, answer: str, *, evidence: list[Evidence] | None = None,
               missing: list[Message] | None = None, confidence: float = 0.0, notes: list[Message] | None = None,
               error: str = "", parts: list[PartStatus] | None = None, stop: Message | None = None) -> Finished:  # fmt: skip
        """The run's one ``Finished``: what is missing and why the confidence is what it is come as
        catalogued messages, written out in the language core chose for each."""
        if self.scope_line is not None and answer:
            answer = f"{self.scope_line.text()}\n{answer}"
        result = Result(
            question=self.state.question,
            status=status,
            answer=answer,
            evidence=evidence or [],
            missing=[m.text() for m in missing or []],
            steps=self.state.round,
            confidence=round(max(0.0, min(1.0, confidence)), 3),
            confidence_notes=[m.text() for m in notes or []],
            usage=Usage(**self.state.usage.model_dump()),
            seconds=round(time.perf_counter() - self.t0, 4),
            mode=self.mode,
            policy=getattr(self.policy, "name", "?"),
            passages_read=len(self.state.passages),
            error=error,
            parts=parts or [],
            answer_type=self.analysis.answer_type,
            missing_codes=missing or [],
            confidence_reasons=notes or [],
            stop=stop,
        )
        return Finished(round=self.state.round, elapsed_ms=self.ms(), result=result)

    def _unverified(self, passages: list[PassageView], first: int) -> list[Evidence]:
        return [Evidence.of_passage(first + i, p, verified=False) for i, p in enumerate(passages)]

    def partial(self, status: Status, message: Message, error: str = "") -> Finished:
        """Finish without an answer (failed), keeping what was read as evidence."""
        ev = self._unverified(list(self.state.passages.values()), 1)
        return self.finish(status, message.text(), evidence=ev, missing=[self.asked()], error=error, stop=message)

    def asked(self) -> Message:
        """The question itself as what is missing (a run that has nothing to say about its parts)."""
        return msg("missing.question", question=self.state.question)

    def stopped(self, during: Message) -> Iterator[Event]:
        """The user's Stop: say so in the trace and end ``cancelled``, keeping every passage read.

        When something was read, an extract from it (the extractive answer, no
        model call, verified like any answer) says what the passages hold; it stays a cancelled
        run with a low confidence, never an answer.
        """
        st = self.state
        n = len(st.passages)
        said = msg("trace.cancelled", during=during, n=n) if n else msg("trace.cancelled_empty", during=during)
        yield Info(round=st.round, elapsed_ms=self.ms(), code="cancelled", message=said.text(), data={"passages": n},
                   msg=said)  # fmt: skip
        if not n:
            stop = msg("stop.nothing_read")
            yield self.finish(Status.CANCELLED, stop.text(), missing=[self.asked()], stop=stop)
            return
        cited: list[Evidence] = []
        text = ""
        try:
            draft = extractive_answer(st, "stopped by the user").decision.action
            if isinstance(draft, Answer) and draft.text.strip():
                instructions = [i for found in self.instructions.values() for i in found]
                verified = verify_answer(draft, st.passages, question=st.question, bridges=self.bridges(),
                                         instructions=instructions)  # fmt: skip
                cited, text = verified.evidence, verified.text
        except Exception as e:  # an extract is a courtesy; the passages are what must not be lost
            why = msg("trace.extract_failed", error=f"{type(e).__name__}: {e}")
            yield Warning(round=st.round, elapsed_ms=self.ms(), code="extract_failed", message=why.text(), msg=why)
            cited, text = [], ""
        cited_ids = {e.id for e in cited}
        rest = [p for p in st.passages.values() if p.id not in cited_ids]
        evidence = cited + self._unverified(rest, len(cited) + 1)
        if cited and text:
            cov, uncovered = coverage(st.question, cited)
            missing = [msg("missing.not_mentioned", term=t) for t in uncovered] or [msg("missing.full_answer")]
            docs = {e.doc_id for e in cited}
            conf = 0.5 * (0.6 * cov + 0.4 * min(1.0, (len(cited) + len(docs) - 1) / 3))
            notes = [msg("confidence.stopped_extract", factor="0.5"),
                     msg("confidence.terms_covered", share=f"{cov:.0%}")]  # fmt: skip
            answer = (
                f"Stopped before the answer was finished. What the {n} passage(s) read so far say "
                f"(an extract, not a full answer):\n\n{text}"
            )
            yield self.finish(Status.CANCELLED, answer, evidence=evidence, missing=missing, confidence=conf,
                              notes=notes, stop=msg("stop.extract", n=n))  # fmt: skip
            return
        stop = msg("stop.no_answer", n=n)
        yield self.finish(Status.CANCELLED, stop.text(), evidence=evidence, missing=[self.asked()], stop=stop)

    def bridges(self) -> Bridges:
        """The equivalences the support check accepts: profile terms and what the policy vouched for."""
        b = Bridges()
        for term, of in self.synonyms():
            b.add(of, term, "profile synonym")
        for term, alt, why in self.state.bridge_terms:
            if term:
                b.add(term, alt, why)
            else:  # the documents' word for some concept of the question
                b.add_question_alternatives([alt], why)
        return b

    def synonyms(self) -> list[tuple[str, str]]:
        """(synonym, the question's word) pairs from the research profile ("synonym of segmentation")."""
        out = []
        for term, why in self.options.profile_terms:
            m = re.match(r"synonym of (.+)", why)
            if m:
                out.append((term, m.group(1).strip()))
        return out

    def finalize(self, answer: Answer, forced_reason: str | None, truncated: bool) -> Iterator[Event]:
        """Verify, check support and coverage, and finish with a status decided here, not by the policy.

        ``truncated`` (the round limit forced the answer) is reported only when the coverage check
        would have said ``answered``: a partial or insufficient answer says so whatever stopped it.
        """
        st = self.state
        yield AnswerDrafted(
            round=st.round,
            elapsed_ms=self.ms(),
            text=answer.text,
            evidence_ids=answer.evidence_ids,
            confidence=answer.confidence,
            forced=forced_reason is not None,
        )
        for view in st.passages.values():  # passages given at run start were not flagged yet
            if view.id not in self.instructions:
                yield from self.flag_instructions(view)
                self.instructions.setdefault(view.id, [])
        instructions = [i for found in self.instructions.values() for i in found]
        bridges = self.bridges()
        v = verify_answer(answer, st.passages, question=st.question, bridges=bridges, instructions=instructions)
        for code, message in v.rejected:
            yield Warning(round=st.round, elapsed_ms=self.ms(), code=code, message=message,
                          msg=v.rejected_msgs.get((code, message)))  # fmt: skip
        model = getattr(self.policy, "name", "") == "llm"  # the model's estimate counts only with a model
        if v.obeyed:
            # The draft repeats what a planted instruction demands: the whole draft is suspect.
            stop = msg("stop.obeyed")
            yield self.finish(Status.INSUFFICIENT, stop.text(), missing=[self.asked()], confidence=0.02,
                              notes=[msg("confidence.obeyed")], parts=[], stop=stop)  # fmt: skip
            return
        a = assess(self.analysis, v, st.passages, bridges)
        weak = self.weak_passages()
        if weak and a.status == Status.PARTIAL:
            # A partial answer must rest on a passage that is evidence of relevance: found by
            # keywords, or a close neighbour by meaning. (A complete answer stands: a weak
            # neighbour covering every part of the question is not a coincidence.)
            strong = assess(self.analysis, v, st.passages, bridges, weak=weak)
            if strong.status == Status.INSUFFICIENT:
                a = strong
        yield Info(round=st.round, elapsed_ms=self.ms(), code="coverage",
                   message=f"{a.status.value}: " + ", ".join(
                       f"{p.part.kind} {p.part.text[:40]!r} {'✓' if p.covered else '✗'}" for p in a.parts),
                   data={"status": a.status.value, "bridge_entities": a.bridge_entities,
                         "parts": [{"kind": p.part.kind, "text": p.part.text, "covered": p.covered} for p in a.parts]})  # fmt: skip
        missing = list(a.why)
        for m in answer.missing:  # what the model says is missing, in its words
            if m.strip() and m.strip() != st.question and m not in [x.text() for x in missing] and model:
                missing.append(msg("missing.model", text=m.strip()))
        missing.extend(m for m in self.library_gaps if m not in missing)
        # Offline, a question in a language the library lacks is said to be so, plainly, first.
        cross = self.cross_language_note() if st.cross_language and not model and self.bridged is None else None
        cross_note = cross.text() if cross is not None else ""
        # "以下引自英文文献：" when every quote is in the other language (always, for a library without
        # the question's language; in a mixed library, when the cited passages happen to be).
        other = [has_cjk(e.text) != (self.analysis.language == "zh") for e in v.evidence]
        quoted_across = st.cross_language or (bool(other) and all(other))
        quotes = self.quotes_note() if quoted_across and not model and self.bridged is not None else None
        feats = self.features(a, v)
        conf = confidence_model.probability(feats, answer.confidence if model else None)
        yield Info(round=st.round, elapsed_ms=self.ms(), code="confidence", message=f"confidence {conf:.2f}",
                   data={"features": feats, "model_estimate": answer.confidence if model else None})  # fmt: skip
        notes = confidence_model.reasons(feats, answer.confidence if model else None)
        status = a.status
        unread = self.papers_not_cited(v)
        if unread and status in (Status.ANSWERED, Status.TRUNCATED):
            # A question across papers is answered only when every relevant paper of its scope
            # speaks in the answer; until then it is partial and says which are missing.
            status = Status.PARTIAL
            missing = [*unread, *missing]
        if status == Status.ANSWERED and truncated:
            status = Status.TRUNCATED
            notes.append(msg("confidence.round_limit"))
        text = v.text
        # The frame around the answer is said in the question's language (the quotes stay in theirs).
        lang: Language = "zh" if self.analysis.language == "zh" else "en"
        if not v.evidence or not v.claims:
            text = msg("answer.not_enough", lang).text()
            if answer.text.strip() and answer.evidence_ids and v.rejected:
                text += msg("answer.draft_withheld", lang).text()
            elif answer.text.strip() and not answer.evidence_ids and not v.evidence:
                text += msg("answer.draft_uncited", lang).text()
            if cross is not None:
                text, missing = f"{cross_note}\n\n{text}", [cross, *missing]
            elif quotes is not None and self.bridged is not None:
                b = self.bridged
                said = msg("library.bridge_not_found", quotes.lang,
                           terms=[*b.as_written, *(w for w, _ in b.pairs)] or [st.question], searched=b.terms())  # fmt: skip
                text, missing = f"{said.text()}\n\n{text}", [said, *missing]
            yield self.finish(Status.INSUFFICIENT, text, missing=missing or [self.asked()],
                              confidence=min(conf, 0.1), notes=notes or [msg("confidence.no_evidence")], parts=self.parts(a, v))  # fmt: skip
            return
        sep = "；" if lang == "zh" else "; "
        if status == Status.PARTIAL:
            gaps = sep.join(m.text() for m in missing[:4])
            tail = msg("answer.partial_tail", lang, gaps=gaps) if gaps else msg("answer.partial_tail_vague", lang)
            text = f"{text}\n\n{tail.text()}"
        elif status == Status.INSUFFICIENT:
            gaps = sep.join(m.text() for m in missing[:4])
            head = msg("answer.related_head", lang, gaps=gaps) if gaps else msg("answer.related_head_plain", lang)
            # "No evidence … Related passages:" first; the quotes' language right above the quotes.
            above = f"{quotes.text()}\n" if quotes is not None and cross is None else ""
            text = f"{head.text()}\n{above}{text}"
            quotes = None if above else quotes
        if cross is not None:
            text, missing = f"{cross_note}\n\n{text}", [cross, *missing]
        elif quotes is not None:
            text = f"{quotes.text()}\n{text}"
        yield self.finish(status, text, evidence=v.evidence, missing=missing, confidence=conf, notes=notes,
                          parts=self.parts(a, v))  # fmt: skip

    def features(self, a: Assessment, v: Verified) -> dict[str, float]:
        supports = [c.support.score for c in v.claims]
        docs = {e.doc_id for e in v.evidence}
        f = dict(a.features)
        f.update(
            answered=float(a.status == Status.ANSWERED),
            partial=float(a.status == Status.PARTIAL),
            support_min=min(supports) if supports else 0.0,
            dropped_share=v.unsupported_sentences / max(1, v.sentences),
            rejected=float(min(3, sum(code != "duplicate_sentence" for code, _ in v.rejected))),
            docs=float(min(3, len(docs))) / 3,
            conflict=self.conflict(v),
            claims_n=min(3, len(v.claims)) / 3,
            chain=self.chain(v),
            q_coverage=coverage(self.state.question, v.evidence)[0] if v.evidence else 0.0,
        )
        f.update(self.dense_features(v))
        # With vectors the loop reads more of the right passages, and a chain of cited documents
        # is then a surer sign of a right answer than the keyword-only fit gives it.
        f["hybrid_chain"] = f["chain"] * f["vectors"]
        return f

    def weak_passages(self) -> frozenset[str]:
        """Passages read that only a search by meaning found, with a cosine below ``WEAK_COSINE``:
        the nearest neighbours of a question the library has nothing on, no evidence of relevance
        (a keyword search finding a passage too is; so is a close neighbour)."""
        st = self.state
        weak = set()
        for key, pid in st.read_keys.items():
            cos = st.best_cosine.get(key)
            if cos is not None and cos < WEAK_COSINE and key not in st.keyword_found:
                weak.add(pid)
        return frozenset(weak)

    def dense_features(self, v: Verified) -> dict[str, float]:
        """What search by meaning says about the cited evidence (all 0 when nothing was searched by
        meaning: a keyword-only library keeps the keyword-only calibration)."""
        st = self.state
        if not st.best_cosine:
            return {"vectors": 0.0, "cosine": 0.0, "meaning_only": 0.0, "top_cosine": 0.0}
        keys = list(dict.fromkeys((e.doc_id, e.segment) for e in v.evidence))
        cos = [st.best_cosine[k] for k in keys if k in st.best_cosine]
        only = sum(k in st.best_cosine and k not in st.keyword_found for k in keys)
        return {
            "vectors": 1.0,
            "cosine": sum(cos) / len(cos) if cos else 0.0,
            "meaning_only": only / len(keys) if keys else 0.0,
            "top_cosine": max(st.best_cosine.values()),
        }

    def chain(self, v: Verified) -> float:
        """Share of the cited documents that the question or another cited passage names: by its
        title (its head before a colon or bracket: "PaperMage", "Ed Wood"), or — for a long title —
        by most of its words. Evidence that forms a chain, not a scatter of passages that merely
        share words with the question."""
        docs: dict[int, Evidence] = {}
        for e in v.evidence:
            docs.setdefault(e.doc_id, e)
        if not docs:
            return 0.0
        q_words = _words(self.state.question)
        linked = 0
        for doc_id, e in docs.items():
            head = _words(re.split(r"[:(（：]", e.title)[0])
            if head[:1] == ["the"]:
                head = head[1:]
            if not head:
                continue
            others = _words(" ".join(o.text for o in v.evidence if o.doc_id != doc_id))
            named = any(_has_run(head, ws) for ws in (q_words, others))
            content = [w for w in head if w not in _TITLE_STOP]
            if not named and len(content) >= 4:
                pool = set(q_words) | set(others)
                named = sum(w in pool for w in content) >= 0.6 * len(content)
            linked += named
        return linked / len(docs)

    def conflict(self, v: Verified) -> float:
        """1 when cited documents give different values of the asked type (two years for "when",
        two numbers for "how many"): the sources disagree, or the answer mixes up entities."""
        t = self.analysis.answer_type
        pattern = {"when": r"\b1[0-9]{3}\b|\b20[0-9]{2}\b", "how_many": r"\b\d[\d,.]*\b", "how_much": r"\b\d[\d,.]*\b"}.get(t)
        if pattern is None or self.analysis.is_comparison:
            return 0.0
        asked = set(re.findall(pattern, self.state.question))
        by_doc: dict[int, set[str]] = {}
        for c in v.claims:
            vals = set(re.findall(pattern, c.text)) - asked
            for r in c.refs:
                if r in self.state.passages and vals:
                    by_doc.setdefault(self.state.passages[r].doc_id, set()).update(vals)
        sets = list(by_doc.values())
        return float(len(sets) >= 2 and not set.intersection(*sets))

    def parts(self, a: Assessment, v: Verified) -> list[PartStatus]:
        number = {e.id: e.number for e in v.evidence}
        return [
            PartStatus(kind=p.part.kind, text=p.part.text, covered=p.covered, key=p.part.key,
                       evidence=[number[r] for r in p.refs if r in number], missing=p.missing,
                       why=p.why)
            for p in a.parts
        ]  # fmt: skip

    def library_check(self) -> Finished | None:
        """Stop at once when the library has nothing on the question's key concepts."""
        pool = concept_pool(self.pool)
        a = self.analysis
        self.library_gaps = []
        if pool is None or self.options.prior_evidence or asks_to_remember(self.state.question):
            return None
        if _NAMES_A_DOCUMENT.search(self.state.question):
            return None  # "my notes on doc 3 …": about a document the user names, not the library at large
        key = a.key_concepts()
        across: dict[str, list[list[str]]] = {}  # a key concept → its words' candidates, word by word
        either: dict[str, list[list[str]]] = {}  # mixed library: also found through these words
        if self.state.cross_language:
            # Words in a language the library is not written in occur in no document whatever it
            # holds: what the question writes in the library's script is looked up as written,
            # the rest through the dictionary (offline) — with a model, the policy translates.
            b = self.bridged
            if b is not None:
                across = {k: b.groups(k) for k in key if not searchable_across(k, a.language)}
                across = {k: v for k, v in across.items() if v}
            key = [k for k in key if searchable_across(k, a.language) or k in across]
            if not key and b is not None and not b.terms():
                note = self.cross_language_note()
                return self.finish(Status.INSUFFICIENT, note.text(), missing=[note], confidence=0.01,
                                   notes=[msg("confidence.cross_language")], stop=note)  # fmt: skip
        elif self.bridged is not None:
            # A mixed library: a Chinese concept is there when its words are, as written or as the
            # dictionary gives them (乳腺癌 in a Chinese paper, "breast cancer" in an English one).
            b = self.bridged
            either = {k: b.groups(k) for k in key if has_cjk(k)}
            either = {k: v for k, v in either.items() if v}
        if not key:
            return None
        # A name must occur whole (all its words in one passage); a concept phrase of ordinary
        # words ("sparrow numbers fall") is there when any of its words is, since documents
        # phrase things their own way.
        entities = set(a.entities)
        probe = list(dict.fromkeys(
            [_zh_probe(k) if has_cjk(k) else k for k in key if (k in entities or has_cjk(k)) and k not in across]
            + [w for k in key if k not in entities and not has_cjk(k) for w in k.split()]
            + [x for k in key for group in across.get(k, ()) for x in group]
            + [x for k in key for group in either.get(k, ()) for x in group]
        ))  # fmt: skip
        try:
            raw = pool.concept_stats(probe)
        except Exception:  # a damaged index is the search's problem, not this check's
            return None
        stats = {
            k: _bridged_stat(across[k], raw) if k in across
            else raw.get(_zh_probe(k), 0) if has_cjk(k) else raw.get(k, 0) if k in entities
            else max(raw.get(w, 0) for w in k.split())
            for k in key
        }  # fmt: skip
        for k, groups in either.items():
            stats[k] = max(stats.get(k, 0), _bridged_stat(groups, raw))
        # The user's own synonyms count: "segmentation" is there when "delineation" is.
        syn = [(t, of) for t, of in self.synonyms() if any(of.lower() in k.lower() for k in key)]
        if syn:
            extra = pool.concept_stats([t for t, _ in syn])
            for t, of in syn:
                for k in key:
                    if of.lower() in k.lower():
                        stats[k] = max(stats[k], extra.get(t, 0))
        absent = [k for k in key if stats.get(k, 0) == 0]
        # A long name may be misremembered by a word ("Livesey Hal War Memorial"), and "A and B"
        # may be two names: a name is there when all but one of its words are, or each part is.
        relaxed: dict[str, list[str]] = {}
        for k in absent:
            if k not in entities or has_cjk(k) or re.search(rf"[\"“]{re.escape(k)}[\"”]", self.state.question):
                continue  # a quoted title is exact: "Tunnels and Trolls" is not "Tunnels" and "Trolls"
            words = [w for w in k.split() if w.lower() not in ("and", "&", "of", "the", "in", "on", "for")]
            alts = [" ".join(words[:i] + words[i + 1 :]) for i in range(len(words))] if len(words) >= 3 else []
            parts = [p.strip() for p in re.split(r"\s+(?:and|&)\s+", k) if p.strip()]
            relaxed[k] = alts + (parts if len(parts) > 1 else [])
        probe2 = list(dict.fromkeys(x for xs in relaxed.values() for x in xs))
        if probe2:
            more = pool.concept_stats(probe2)
            for k, xs in relaxed.items():
                parts = [p.strip() for p in re.split(r"\s+(?:and|&)\s+", k) if p.strip()]
                if any(more.get(x, 0) for x in xs if x not in parts) or (len(parts) > 1 and all(more.get(p, 0) for p in parts)):
                    stats[k] = 1
            absent = [k for k in key if stats.get(k, 0) == 0]
        self.stats_info = Info(elapsed_ms=self.ms(), code="library_check",
                               message="documents mentioning the key concepts: "
                               + ", ".join(f"{k!r} {stats.get(k, 0)}" for k in key),
                               data={"stats": stats, "absent": absent})  # fmt: skip
        if not absent:
            return None
        nothing_on = msg("library.nothing_on", "zh" if a.language == "zh" else "en", terms=absent)
        # A multi-word name is specific: when every one the question has is absent, so is its
        # subject. Single words ("Beaver", "Discovery") are ambiguous: half of them must be absent.
        multi = [k for k in key if k in entities and (" " in k or has_cjk(k))]
        nothing = all(k in absent for k in multi) if multi else len(absent) * 2 >= len(key)
        if nothing and across and all(k in across for k in absent):
            # Said in the question's language, with the words actually searched.
            said = msg("library.bridge_not_found", nothing_on.lang, terms=absent,
                       searched=[x for k in absent for group in across[k] for x in group])  # fmt: skip
            return self.finish(Status.INSUFFICIENT, said.text(), missing=[said], confidence=0.01,
                               notes=[msg("confidence.key_absent")], stop=said)  # fmt: skip
        if nothing:
            said = msg("stop.nothing_on", nothing_on.lang, terms=absent)
            return self.finish(Status.INSUFFICIENT, said.text(), missing=[said], confidence=0.01,
                               notes=[msg("confidence.key_absent")], stop=said)  # fmt: skip
        self.library_gaps = [nothing_on]
        return None

    def scope_step(self) -> tuple[Info | None, Finished | None]:
        """A question across papers that names a scope ("since 2023", "近三年", "in collection X",
        "reviews by Varga"): the run's pool becomes the scope's papers, so nothing outside it is
        searched, read or cited; the scope is said in the trace and with the answer. A scope no
        paper is in ends the run, saying which scope."""
        q = self.state.question
        if self.options.prior_evidence or not is_synthesis(q):
            return None, None
        try:
            req = read_request(q, LibraryFacts.of(self.pool))
        except Exception:  # a pool that cannot list its documents: the question runs unscoped
            return None, None
        if req.scope.whole_library:
            self.pick = self.choose_papers(req)
            return None, None
        docs = papers_in_scope(self.pool, req.scope)
        ids = [d.doc_id for d in docs]
        lang: Language = "zh" if self.analysis.language == "zh" else "en"
        said = req.scope.describe(lang)
        info = Info(elapsed_ms=self.ms(), code="scope", message=said.text("en"), msg=said,
                    data={"scope": req.scope.to_data(), "papers": len(ids)})  # fmt: skip
        if not ids:
            stop = msg("stop.scope_empty", lang, scope=said)
            return info, self.finish(Status.INSUFFICIENT, stop.text(), missing=[stop], confidence=0.01,
                                     notes=[msg("confidence.key_absent")], stop=stop)  # fmt: skip
        # The scope's documents are known: the plan and the language mix need not list them again.
        self.pool = ScopedPool(self.pool, ids, docs)
        self.scope_line = said
        self.state.library_languages = language_mix(self.pool)
        self.pick = self.choose_papers(req)
        return info, None

    def choose_papers(self, req: SynthesisRequest) -> PaperPick | None:
        """The relevant papers of the scope (plan step one); None when the pool cannot say."""
        try:
            return select_papers(req, self.pool)
        except Exception:  # a pool without search filters: no plan, the loop runs as for a look-up
            return None

    def papers_not_cited(self, v: Verified) -> list[Message]:
        """For a question across papers: the relevant papers of its scope (the plan's choice, at
        most a dozen) that no cited passage comes from, as missing parts (the first four, then
        how many more)."""
        pick = self.pick
        if pick is None or not pick.chosen:
            return []
        cited = {e.doc_id for e in v.evidence}
        left = [c for c in pick.chosen if c.doc_id not in cited]
        lang: Language = "zh" if self.analysis.language == "zh" else "en"
        out = [msg("missing.paper", lang, title=c.title, year=c.year or "") for c in left[:4]]
        if len(left) > 4:
            out.append(msg("missing.papers_more", lang, n=len(left) - 4))
        return out

    def bridge_question(self) -> Iterator[Event]:
        """Offline, for a question in a language the library lacks: the question's words in the
        library's language through the bilingual dictionary, recorded as bridge terms (the
        support check accepts them; the offline policy searches them)."""
        counter = concept_pool(self.pool)
        try:
            b = bridge(self.analysis, present=counter.concept_stats if counter is not None else None)
        except Exception as e:  # a damaged dictionary install: search the Latin-script words only
            yield Warning(elapsed_ms=self.ms(), code="bridge", message=f"{type(e).__name__}: {e}")
            return
        self.bridged = b
        for rec in b.records():
            if rec not in self.state.bridge_terms:
                self.state.bridge_terms.append(rec)
        lang: Language = "zh" if self.analysis.language == "zh" else "en"
        said = msg("library.bridged", lang, terms=[f"{w} → {' / '.join(alts)}" for w, alts in b.pairs] + b.as_written)
        yield Info(elapsed_ms=self.ms(), code="bridge", message=said.text("en"), msg=said,
                   data={"pairs": [[w, alts] for w, alts in b.pairs], "as_written": b.as_written,
                         "unbridged": b.unbridged, "terms": b.terms()})  # fmt: skip

    def uses_model(self) -> bool:
        return getattr(self.policy, "name", "") == "llm"

    def cross_language_note(self) -> Message:
        """Plain words for a question in a language the library lacks, with no model to translate it."""
        st = self.state
        shares = [f"{lang} {round(100 * share)}" for lang, share in sorted(st.library_languages.items(), key=lambda x: -x[1])]
        terms = [k for k in dict.fromkeys([*self.analysis.entities, *self.analysis.concepts])
                 if searchable_across(k, self.analysis.language)]  # fmt: skip
        lang: Language = "zh" if self.analysis.language == "zh" else "en"
        b = self.bridged
        if b is not None and not b.terms():
            return msg("library.unbridged", lang, languages=shares,
                       terms=b.unbridged or [*self.analysis.entities, *self.analysis.concepts] or [st.question])  # fmt: skip
        code = f"library.cross_language.{lang}" + ("" if terms else "_none")
        return msg(code, lang, languages=shares, terms=terms) if terms else msg(code, lang, languages=shares)

    def quotes_note(self) -> Message:
        """The line before an extract in another language than the question's: "以下引自英文文献："."""
        lang: Language = "zh" if self.analysis.language == "zh" else "en"
        return msg("answer.quotes_english" if lang == "zh" else "answer.quotes_chinese", lang)

    def forced_answer(self, why: Message, truncated: bool) -> Iterator[Event]:
        st = self.state
        if self.cancelled():
            yield from self.stopped(msg("during.before_answer"))
            return
        reason = why.text()  # the policy is told in English, as its prompts are
        yield Info(round=st.round, elapsed_ms=self.ms(), code="force_answer", message=reason, msg=why)
        try:
            step = self.policy.answer(st, reason)
        except PolicyFailure as e:
            if self.cancelled():
                yield from self.stopped(msg("during.writing_answer"))
            else:
                yield self.partial(Status.FAILED, msg("stop.failed", error=str(e)), error=str(e))
            return
        except ValidationError as e:
            step = fallback_answer(st, reason, e)
        yield from self.step_events(step)
        action = step.decision.action
        if not isinstance(action, Answer):
            said = msg("trace.not_an_answer")
            yield Warning(round=st.round, elapsed_ms=self.ms(), code="not_an_answer", message=said.text(), msg=said)
            action = Answer(text="", evidence_ids=[], missing=[st.question], confidence=0.0)
        yield from self.finalize(action, reason, truncated)


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text.lower())


def _has_run(run: list[str], words: list[str]) -> bool:
    n = len(run)
    return any(words[i : i + n] == run for i in range(len(words) - n + 1))


def _policy_word(policy: Policy) -> str:
    return "model" if getattr(policy, "name", "") == "llm" else "policy"


def run_agent(
    question: str,
    pool: DocumentPool,
    policy: Policy,
    options: AgentOptions | None = None,
    cancel: threading.Event | None = None,
) -> Iterator[Event]:
    """Run the agent; yields trace events and always ends with exactly one ``Finished``."""
    opts = options or AgentOptions()
    run = _Run(question, pool, policy, opts, cancel)
    st = run.state
    active: Policy = policy
    route_info: Info | None = None
    if opts.mode not in ("auto", "quick", "loop"):
        raise ValueError(f"unknown mode {opts.mode!r}")
    too_long = question_too_long(st.question)
    if opts.mode == "auto" and not too_long:
        decision = route(st.question, pool)
        run.mode = decision.mode
        route_info = Info(code="route", message=decision.reason, data={"mode": decision.mode})
    if run.mode == "quick":
        active = QuickPolicy(policy, k=opts.k)
        st.max_rounds = min(st.max_rounds, 3)
    yield RunStarted(question=st.question, mode=run.mode, policy=getattr(policy, "name", "?"), max_rounds=st.max_rounds)
    if opts.rewritten_from and opts.rewritten_from.strip() != st.question:
        yield Info(elapsed_ms=run.ms(), code="followup", message=f"rewritten as: {st.question}",
                   data={"original": opts.rewritten_from, "standalone": st.question})  # fmt: skip
    if route_info is not None:
        route_info.elapsed_ms = run.ms()
        yield route_info
    if st.question:
        try:
            yield from run.start_events()
        except Exception as e:  # a broken note store must not stop the question
            yield Warning(elapsed_ms=run.ms(), code="start", message=f"{type(e).__name__}: {e}")
    if not st.question:
        empty = msg("stop.empty_question")
        yield run.finish(Status.INSUFFICIENT, empty.text(), missing=[msg("missing.a_question")], stop=empty)
        return
    if too_long:
        yield run.finish(Status.FAILED, too_long, error=too_long, stop=msg("stop.too_long", text=too_long))
        return
    a = run.analysis
    yield Info(elapsed_ms=run.ms(), code="analysis",
               message=f"{a.answer_type} question; " + "; ".join(p.text[:50] for p in a.parts if p.kind != "slot"),
               data=a.to_data())  # fmt: skip
    scope_info, scope_stop = run.scope_step()
    if scope_info is not None:
        yield scope_info
    if scope_stop is not None:
        yield scope_stop
        return
    if st.library_languages:
        yield Info(elapsed_ms=run.ms(), code="languages",
                   message=f"library: {describe_languages(st.library_languages)}; question: "
                   + {"zh": "Chinese", "en": "English"}.get(a.language, a.language)
                   + (" — not a language of the library" if st.cross_language else ""),
                   data={"library": st.library_languages, "question": a.language, "cross_language": st.cross_language})  # fmt: skip
    if st.bridge_needed and not run.uses_model():
        yield from run.bridge_question()
    stop = run.library_check()
    if run.stats_info is not None:
        yield run.stats_info
    if stop is not None:
        yield stop
        return
    try:
        while st.round < st.max_rounds:
            if run.cancelled():
                yield from run.stopped(msg("during.before_round", n=st.round + 1))
                return
            st.round += 1
            yield RoundStarted(round=st.round, elapsed_ms=run.ms())
            t = time.perf_counter()
            try:
                step = active.decide(st)
            except PolicyFailure as e:
                if run.cancelled():
                    yield from run.stopped(msg(f"during.deciding.{_policy_word(active)}", n=st.round))
                else:
                    yield run.partial(Status.FAILED, msg("stop.failed", error=str(e)), error=str(e))
                return
            except ValidationError as e:
                fallback = fallback_step(st, e, opts.k)
                if fallback is None:
                    yield from run.forced_answer(msg("force.no_next_step", error=plain_error(e)), truncated=False)
                    return
                step = fallback
            decide_ms = (time.perf_counter() - t) * 1000
            yield from run.step_events(step)
            action = step.decision.action
            yield ActionChosen(
                round=st.round,
                elapsed_ms=run.ms(),
                action=action.model_dump(),
                reasoning=step.decision.thought,
                usage=step.usage,
                decide_ms=round(decide_ms, 2),
            )
            st.notices.clear()
            if run.cancelled():
                yield from run.stopped(msg("during.before_action", n=st.round, action=action.action))
                return
            tool = tool_for(action)
            if tool.terminal:
                assert isinstance(action, Answer)
                yield from run.finalize(action, None, truncated=False)
                return
            out = tool.run(action, run)
            yield from out.events
            result = out.result
            yield result
            if result.new_items == 0:
                st.stale_rounds += 1
                # One empty round is a hint (the policy sees the notice and may rewrite the
                # query); a second in a row is convergence.
                if st.stale_rounds >= CONVERGENCE_ROUNDS:
                    yield from run.forced_answer(msg("force.converged"), truncated=False)
                    return
            else:
                st.stale_rounds = 0
        if run.cancelled():
            yield from run.stopped(msg("during.after_last_round"))
            return
        yield from run.forced_answer(msg("force.round_limit", n=st.max_rounds), truncated=True)
    except Exception as e:  # the loop never crashes its caller: a bug becomes a failed run
        # The user gets plain words; the traceback goes to the log, where a bug stays visible.
        log.error("the agent run failed: %s", plain_error(e), exc_info=True)
        message = plain_error(e)
        yield run.partial(Status.FAILED, msg("stop.failed_unexpectedly", error=message), error=message)


def run_to_result(
    question: str,
    pool: DocumentPool,
    policy: Policy,
    options: AgentOptions | None = None,
    cancel: threading.Event | None = None,
) -> Result:
    result: Result | None = None
    for ev in run_agent(question, pool, policy, options, cancel):
        if isinstance(ev, Finished):
            result = ev.result
    assert result is not None
    return result

