"""What the agent knows during a run, and the interfaces a policy and a document pool provide."""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..errors import PaperPilotError
from ..models import DocumentInfo, Hit, Passage
from ..text.language import STOPWORDS, has_cjk, query_terms
from ..text.messages import Message
from .events import HitView, PassageView, Usage
from .tools.tool import Decision


class DocumentPool(Protocol):
    """The library as the agent sees it (``core.library.Library`` implements it)."""

    def list_documents(self) -> list[DocumentInfo]: ...

    def search(
        self,
        query: str,
        k: int = 3,
        *,
        doc_ids: Sequence[int] | None = None,
        year_from: int | None = None,
        year_to: int | None = None,
        kinds: Sequence[str] | None = None,
        mode: str | None = None,
    ) -> list[Hit]:
        """Best chunks for ``query``; ``kinds``: only chunks of these kinds (text.kinds values);
        ``mode``: keyword, meaning or hybrid (None: the pool's default)."""
        ...

    def read(self, doc_id: int, segment: int) -> Passage: ...


class ConceptPool(Protocol):
    """Optional part of a pool: how many documents mention each concept (``core.library.Library``)."""

    def concept_stats(self, terms: Sequence[str]) -> dict[str, int]:
        """For each term (a word, a name or a Chinese concept): the number of documents with a
        passage that is not a reference list and contains all of the term's words."""
        ...


def concept_pool(pool: object) -> ConceptPool | None:
    """``pool`` when it can count concepts, else None (a pool need not implement it)."""
    if callable(getattr(pool, "concept_stats", None)):
        return pool  # type: ignore[return-value]
    return None


class SectionPool(Protocol):
    """Optional part of a pool: where a section begins (``core.library.Library`` implements it)."""

    def section_opening(self, doc_id: int, segment: int) -> int | None:
        """The first segment of the section that ``segment`` is in; None when it has none."""
        ...


def section_pool(pool: object) -> SectionPool | None:
    """``pool`` when it can say where sections begin, else None (a pool need not implement it)."""
    if callable(getattr(pool, "section_opening", None)):
        return pool  # type: ignore[return-value]
    return None


class LanguagePool(Protocol):
    """Optional part of a pool: the library's language mix (``core.library.Library`` implements it)."""

    def language_mix(self) -> dict[str, float]:
        """Share of the library's documents in each language ("en", "zh" …), summing to 1."""
        ...


LANGUAGE_NAMES = {"en": "English", "zh": "Chinese"}
LANGUAGE_NAMES_ZH = {"en": "英文", "zh": "中文"}


def language_mix(pool: object) -> dict[str, float]:
    """The library's language mix: from the pool's own count when it has one, else from the
    languages of its document list (a pool need not implement either; {} when unknown)."""
    try:
        if callable(getattr(pool, "language_mix", None)):
            return dict(pool.language_mix())  # type: ignore[attr-defined]
        docs = pool.list_documents() if callable(getattr(pool, "list_documents", None)) else []  # type: ignore[attr-defined]
    except Exception:  # a damaged library is the search's problem, not this summary's
        return {}
    langs = [getattr(d, "language", "") for d in docs]
    known = [x for x in langs if x]
    return {x: known.count(x) / len(known) for x in dict.fromkeys(known)} if known else {}


def describe_languages(mix: dict[str, float], zh: bool = False) -> str:
    """ "English 92 %, Chinese 8 %" (largest first); "英文 92 %、中文 8 %" with ``zh``."""
    names = LANGUAGE_NAMES_ZH if zh else LANGUAGE_NAMES
    return ("、" if zh else ", ").join(
        f"{names.get(lang, lang)} {round(100 * share)} %" for lang, share in sorted(mix.items(), key=lambda x: -x[1])
    )


def cross_language(question_language: str, mix: dict[str, float]) -> bool:
    """The question is in a language none of the library's documents is written in."""
    return bool(mix) and bool(question_language) and mix.get(question_language, 0.0) == 0.0


# A language holding at least this share of the library's documents is searched too: a Chinese
# question over a library of English papers with a few Chinese ones is looked up in both.
MIXED_SHARE = 0.2


def bridge_needed(question_language: str, mix: dict[str, float]) -> bool:
    """Offline, the question goes through the bilingual dictionary as well: its language is absent
    from the library, or another language holds a real share of it."""
    if not mix or not question_language:
        return False
    return cross_language(question_language, mix) or any(
        lang != question_language and share >= MIXED_SHARE for lang, share in mix.items()
    )


def searchable_across(term: str, question_language: str) -> bool:
    """Can ``term`` of the question be found in documents of another language as it is written?
    A Latin-script term of a Chinese question (LoopAgent, RAG) can; of an English question only
    a name (capitalised) can."""
    if has_cjk(term):
        return False
    return question_language == "zh" or term[:1].isupper() or any(c.isdigit() for c in term)


def dictionary_terms(state: AgentState, per_word: int = 2) -> list[str]:
    """The documents' words the dictionary gave for the question's words (``bridge_terms`` with
    why "dictionary"), round by round: every word's first sense, then every word's second."""
    by_word: dict[str, list[str]] = {}
    for term, alt, why in state.bridge_terms:
        if why == "dictionary" and term:
            by_word.setdefault(term, []).append(alt)
    out: list[str] = []
    for i in range(per_word):
        out.extend(alts[i] for alts in by_word.values() if i < len(alts) and alts[i] not in out)
    return out


class NotePool(Protocol):
    """Optional part of a pool: per-document notes (``core.library.Library`` implements it)."""

    def get_note(self, doc_id: int) -> str: ...

    def set_note(self, doc_id: int, text: str) -> None: ...


def note_pool(pool: object) -> NotePool | None:
    """``pool`` when it keeps notes, else None (a pool need not implement notes)."""
    if callable(getattr(pool, "get_note", None)) and callable(getattr(pool, "set_note", None)):
        return pool  # type: ignore[return-value]
    return None


@dataclass
class PolicyStep:
    """A policy's output for one round."""

    decision: Decision
    usage: Usage = field(default_factory=Usage)
    # (code, message); a catalogued message where the windows show it in their language
    warnings: list[tuple[str, str | Message]] = field(default_factory=list)
    infos: list[tuple[str, str]] = field(default_factory=list)


class PolicyFailure(PaperPilotError):
    """The policy cannot go on (the model server is unreachable …); the run ends as failed."""


class Policy(Protocol):
    name: str

    def decide(self, state: AgentState) -> PolicyStep:
        """Choose the next action."""
        ...

    def answer(self, state: AgentState, reason: str) -> PolicyStep:
        """Write the answer now from what was read (the loop forces this at its stop rules)."""
        ...


def normalise_query(q: str) -> str:
    """Two queries are "the same" when their content words are the same, in any order."""
    return " ".join(sorted(query_terms(q)))


_NAME = re.compile(r"\b(?:[A-Z][\w'’\-]+(?:\s+(?:of|the|de|van|von|and|&)?\s*[A-Z][\w'’\-]+)*)")
_NUMERIC = re.compile(r"[\d.,%]+")
_CAP_STOP = frozenset({"The", "A", "An", "In", "On", "It", "This", "That", "He", "She", "They", "We", "His", "Her"})


# A skim is two sentences: a few of its terms, so that one search does not crowd out the
# keywords of the passages read (a model is shown the newest few).
MEANING_TERMS_PER_HIT = 3


def candidate_terms(text: str, known: set[str], limit: int = 12) -> list[str]:
    """Names and frequent content words in ``text`` that the question did not use.

    These are how the documents actually name things (the seeds' 缺勤申报 vs 请假流程), and
    bridge entities for multi-hop questions (a person named in the first paragraph whose own
    paragraph holds the answer).
    """
    counts: Counter[str] = Counter()
    for m in _NAME.finditer(text):
        name = m.group().strip()
        words = name.split()
        while words and words[0] in _CAP_STOP:
            words = words[1:]
        name = " ".join(words)
        if len(name) < 3 or name.lower() in known or name.lower() in STOPWORDS:
            continue
        counts[name] += 2 if len(words) > 1 else 1
    for t in query_terms(text):
        if (len(t) < 4 and not has_cjk(t)) or _NUMERIC.fullmatch(t):
            continue
        if t in known:
            continue
        counts[t] += 1 if not has_cjk(t) else 0
    return [t for t, _ in counts.most_common(limit)]


@dataclass
class AgentState:
    question: str
    max_rounds: int = 6
    round: int = 0
    plan: list[str] = field(default_factory=list)  # sub-questions, when the policy plans
    queries_tried: list[str] = field(default_factory=list)
    candidate_keywords: list[str] = field(default_factory=list)
    hits: dict[tuple[int, int], HitView] = field(default_factory=dict)  # every hit seen
    last_hits: list[HitView] = field(default_factory=list)
    passages: dict[str, PassageView] = field(default_factory=dict)  # read, by evidence id
    read_keys: dict[tuple[int, int], str] = field(default_factory=dict)  # (doc, seg) -> id
    documents: list[DocumentInfo] | None = None
    summary: list[str] = field(default_factory=list)  # one short line per round
    last_observation: str = ""
    notices: list[str] = field(default_factory=list)  # refusals the policy must see next round
    stale_rounds: int = 0
    usage: Usage = field(default_factory=Usage)
    extra_terms: list[str] = field(default_factory=list)  # from the user's research profile
    # (question's word, documents' word, why): equivalences a policy vouches for (a model's
    # synonym backed by a quote …); the support check accepts them as bridging terms.
    bridge_terms: list[tuple[str, str, str]] = field(default_factory=list)
    cancel: threading.Event | None = None  # set by the user's Stop; policies pass it to slow calls
    # The library's language mix ({"en": 0.92, "zh": 0.08}), computed once per run by the loop.
    library_languages: dict[str, float] = field(default_factory=dict)
    question_language: str = ""  # "en" | "zh", from the question analysis
    # Per (doc, seg) hit, over all searches of the run: the best cosine any search by meaning
    # gave it, and whether a keyword search found it at all (``hits`` keeps only the last view).
    # The status and the confidence weigh evidence that only a nearest-neighbour search found.
    best_cosine: dict[tuple[int, int], float] = field(default_factory=dict)
    keyword_found: set[tuple[int, int]] = field(default_factory=set)

    @property
    def cross_language(self) -> bool:
        """The question's language is absent from the library (a Chinese question, English papers)."""
        return cross_language(self.question_language, self.library_languages)

    @property
    def bridge_needed(self) -> bool:
        """The question is looked up through the dictionary too (absent or minority language)."""
        return bridge_needed(self.question_language, self.library_languages)

    @property
    def question_terms(self) -> list[str]:
        return query_terms(self.question)

    def tried(self, query: str) -> bool:
        n = normalise_query(query)
        return any(normalise_query(q) == n for q in self.queries_tried)

    def unread_hits(self) -> list[HitView]:
        return [h for h in self.hits.values() if (h.doc_id, h.segment) not in self.read_keys]

    def add_passage(self, p: Passage) -> PassageView | None:
        key = (p.doc_id, p.seq)
        if key in self.read_keys:
            return None
        pid = f"P{len(self.passages) + 1}"
        view = PassageView(
            id=pid, doc_id=p.doc_id, segment=p.seq, title=p.title, section=p.section, page=p.page, text=p.text,
            kind=p.kind, section_path=p.section_path, ocr=p.ocr,
        )  # fmt: skip
        self.passages[pid] = view
        self.read_keys[key] = pid
        if key in self.hits:
            self.hits[key].new = False
        self._add_candidates(p.title + ". " + p.text)
        return view

    def _add_candidates(self, text: str, limit: int = 12) -> list[str]:
        """Terms of ``text`` the question and the queries did not use, added to the candidate
        keywords; returns those added."""
        known = {t.lower() for t in self.question_terms} | {k.lower() for k in self.candidate_keywords}
        for q in self.queries_tried:
            known.update(query_terms(q))
        added: list[str] = []
        for term in candidate_terms(text, known, limit):
            if term.lower() not in {k.lower() for k in self.candidate_keywords}:
                self.candidate_keywords.append(term)
                added.append(term)
        return added

    def add_meaning_terms(self, hits: Sequence[HitView], per_hit: int = MEANING_TERMS_PER_HIT) -> list[str]:
        """Candidate keywords from the skims of hits only the search by meaning found (no
        keyword of the query matched them): they say what the question asks in the documents'
        own words (the seeds' 缺勤申报 for 请假流程), before anything is read. Returns the terms added."""
        added: list[str] = []
        for h in hits:
            if h.found_by == "meaning":
                added += self._add_candidates(h.title + ". " + h.snippet.replace("**", ""), per_hit)
        return added
