"""Cross-language search terms without a model: a question's concepts through a bilingual
dictionary into the library's language.

A Chinese question over English papers is searched with (1) its own Latin-script terms as
written (BRCA1, p53, BERT, S2ORC, LoopAgent) and (2) the English senses CC-CEDICT gives for its
Chinese concepts, the likeliest first (short noun senses; no classifiers, surnames or
cross-references). An English question over Chinese papers goes the other way for its
concepts. Words about the library or the task itself (论文, 研究, 库中, library, paper …) are
never bridged: they are what the user wants done, not what the papers must be about.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text.bilingual import Dictionary, dictionary
from ..text.language import STOPWORDS, ZH_STOPWORDS, has_cjk
from .analysis import QuestionAnalysis
from .analysis_zh import is_task_phrase
from .lexicon import EN_TASK_WORDS, ZH_GENERIC, ZH_MEASURE, ZH_QUESTION_WORDS, ZH_TASK_WORDS

WHY = "dictionary"  # the reason recorded with each pair in ``AgentState.bridge_terms``
_PER_TERM = 3  # dictionary senses searched per Chinese word
_EN_PER_TERM = 6  # Chinese words per English word: the reverse lookup cannot tell the common one
# Senses that are grammar, not subject matter: a question word's "how many", "number".
_VAGUE = frozenset(
    ["number", "amount", "somewhat", "what number", "how much", "how many", "thing", "matter", "way"]
)
_COUNTED = re.compile(rf"(?:多少|几)[{ZH_MEASURE}]?([\u4e00-\u9fff]{{2,4}})")
_NOT_BRIDGED = ZH_TASK_WORDS | frozenset(ZH_QUESTION_WORDS) | ZH_STOPWORDS


@dataclass
class Bridged:
    """The cross-language search terms of one question."""

    # Terms of the question that are searched as written (Latin script in a Chinese question).
    as_written: list[str] = field(default_factory=list)
    # (the question's word, the documents' candidate words, likeliest first)
    pairs: list[tuple[str, list[str]]] = field(default_factory=list)
    # The concept each bridged word came from ("方法解析" for 解析): the coverage check's part.
    concept_of: dict[str, str] = field(default_factory=dict)
    unbridged: list[str] = field(default_factory=list)  # concepts the dictionary has no word for
    # English → Chinese candidates are many and unranked by use: a concept counts as present in
    # the library when any of its words is, never absent on the dictionary's guesswork.
    lenient: bool = False

    def terms(self, per_term: int = 1) -> list[str]:
        """Search terms: the as-written ones, then up to ``per_term`` senses of each bridged word
        (key concepts first — the order of ``pairs``)."""
        out = list(self.as_written)
        for _, alts in self.pairs:
            out.extend(a for a in alts[:per_term] if a not in out)
        return out

    def alternatives(self, concept: str) -> list[str]:
        """Every candidate word for ``concept`` (or for a word of it)."""
        return [a for group in self.groups(concept) for a in group]

    def groups(self, concept: str) -> list[list[str]]:
        """The candidates of each word of ``concept``: the concept is in a text when every group
        is (量子计算机 needs "quantum" and "computer", not either). A generic word (方法, 问题)
        counts only when the concept has nothing else."""
        words = [(w, alts) for w, alts in self.pairs if w == concept or self.concept_of.get(w) == concept]
        specific = [alts for w, alts in words if w not in ZH_GENERIC]
        groups = specific or [alts for _, alts in words]
        return [[a for g in groups for a in g]] if self.lenient and groups else groups

    def records(self) -> list[tuple[str, str, str]]:
        """The pairs as ``AgentState.bridge_terms`` entries: (question's word, documents' word, why)."""
        return [(w, a, WHY) for w, alts in self.pairs for a in alts]


def _senses(d: Dictionary, word: str) -> list[str]:
    return [s for s in d.english(word) if s.lower() not in _VAGUE and s.lower() not in STOPWORDS][:_PER_TERM]


def zh_words(concept: str, d: Dictionary) -> list[str]:
    """The dictionary words of a Chinese concept worth bridging: the whole concept when the
    dictionary knows it, else its longest-match words, without task, question and function words."""
    words = [concept] if concept in d.zh_en else d.segment(concept)
    return [w for w in words if w not in _NOT_BRIDGED and not is_task_phrase(w)]


def bridge_zh(analysis: QuestionAnalysis, d: Dictionary | None = None) -> Bridged:
    """English search terms for a Chinese question (``analysis.language == "zh"``)."""
    d = d if d is not None else dictionary()
    out = Bridged()
    for t in [*analysis.entities, *analysis.concepts]:
        if not has_cjk(t):
            if t not in out.as_written:
                out.as_written.append(t)
            continue
        # A Chinese concept that mixes in a Latin name (BRCA1突变) keeps the name too.
        for latin in re.findall(r"[A-Za-z][A-Za-z0-9\-]*[A-Za-z0-9]", t):
            if latin not in out.as_written:
                out.as_written.append(latin)
    # Key concepts first (generic ones — 方法, 问题 — last), so a short query keeps what matters.
    concepts = [c for c in analysis.concepts if has_cjk(c)]
    concepts.sort(key=lambda c: c in ZH_GENERIC)
    for c in concepts:
        found = False
        for w in zh_words(c, d):
            senses = _senses(d, w)
            if senses and w not in out.concept_of:
                out.pairs.append((w, senses))
                out.concept_of[w] = c
                found = True
        if not found:
            out.unbridged.append(c)
    # "多少篇论文": the counted thing is what the answer's number counts, even when it is a word
    # about the task: searched and accepted as a bridge, never a concept the library must hold.
    for m in _COUNTED.finditer(analysis.question):
        for w in d.segment(m.group(1))[:1]:
            senses = _senses(d, w)
            if senses and w not in out.concept_of and all(w != x for x, _ in out.pairs):
                out.pairs.append((w, senses[:1]))
    return out


def bridge_en(analysis: QuestionAnalysis, d: Dictionary | None = None) -> Bridged:
    """Chinese search terms for an English question over Chinese papers: names stay as written,
    each concept word (or the whole phrase) maps to the Chinese words whose first senses it is."""
    d = d if d is not None else dictionary()
    out = Bridged(as_written=list(analysis.entities), lenient=True)
    for c in analysis.concepts:
        words = [c] if d.chinese(c) else [w for w in c.split() if w.lower() not in STOPWORDS]
        found = False
        for w in words:
            if w.lower() in EN_TASK_WORDS or w in out.concept_of:
                continue
            zh = d.chinese(w)[:_EN_PER_TERM]
            if zh:
                out.pairs.append((w, zh))
                out.concept_of[w] = c
                found = True
        if not found and c.lower() not in EN_TASK_WORDS:
            out.unbridged.append(c)
    return out


def bridge(analysis: QuestionAnalysis, d: Dictionary | None = None) -> Bridged:
    """The cross-language terms of a question, whichever way it goes."""
    return bridge_zh(analysis, d) if analysis.language == "zh" else bridge_en(analysis, d)


__all__ = ["WHY", "Bridged", "bridge", "bridge_en", "bridge_zh", "zh_words"]
