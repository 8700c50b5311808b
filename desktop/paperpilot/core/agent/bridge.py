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
from collections.abc import Callable, Mapping, Sequence
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


# Documents mentioning each term (``DocumentPool.concept_stats``): how the library's own words
# pick among a Chinese word's senses.
Present = Callable[[Sequence[str]], Mapping[str, int]]


def _all_senses(d: Dictionary, word: str) -> list[str]:
    return [s for s in d.english(word) if s.lower() not in _VAGUE and s.lower() not in STOPWORDS]


def _senses(d: Dictionary, word: str) -> list[str]:
    return _all_senses(d, word)[:_PER_TERM]


def in_library_first(senses: list[str], counts: Mapping[str, int]) -> list[str]:
    """A word's senses with those the library's documents use first (the dictionary's order
    otherwise): 开放 is "open" in papers about open access, not "bloom". When the library uses
    none of them, the dictionary's order stands (the concept is absent; the library check says so)."""
    used = [s for s in senses if counts.get(s, 0) > 0]
    return used + [s for s in senses if s not in used]


def zh_words(concept: str, d: Dictionary) -> list[str]:
    """The dictionary words of a Chinese concept worth bridging: the whole concept when the
    dictionary knows it, else its longest-match words, without task, question and function words."""
    words = [concept] if concept in d.zh_en else d.segment(concept)
    return [w for w in words if w not in _NOT_BRIDGED and not is_task_phrase(w)]


def bridge_zh(analysis: QuestionAnalysis, d: Dictionary | None = None, present: Present | None = None) -> Bridged:
    """English search terms for a Chinese question (``analysis.language == "zh"``). ``present``:
    the library's document counts, to prefer the senses its documents use (one batched call)."""
    d = d if d is not None else dictionary()
    out = Bridged()
    senses_of = _ranker(d, present, analysis)
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
            senses = senses_of(w)
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
            senses = senses_of(w)
            if senses and w not in out.concept_of and all(w != x for x, _ in out.pairs):
                out.pairs.append((w, senses[:1]))
    return out


def _ranker(d: Dictionary, present: Present | None, analysis: QuestionAnalysis) -> Callable[[str], list[str]]:
    """The senses to search for a word: the dictionary's first ones, or, given the library's
    counts, the first ones among those its documents use."""
    if present is None:
        return lambda w: _senses(d, w)
    words = [w for c in analysis.concepts if has_cjk(c) for w in zh_words(c, d)]
    words += [w for m in _COUNTED.finditer(analysis.question) for w in d.segment(m.group(1))[:1]]
    candidates = {w: _all_senses(d, w) for w in dict.fromkeys(words)}
    try:
        counts = present(list(dict.fromkeys(s for ss in candidates.values() for s in ss)))
    except Exception:  # a damaged index is the search's problem: the dictionary's order stands
        counts = {}
    ranked = {w: in_library_first(ss, counts)[:_PER_TERM] for w, ss in candidates.items()}
    return lambda w: ranked[w] if w in ranked else _senses(d, w)


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


def bridge(analysis: QuestionAnalysis, d: Dictionary | None = None, present: Present | None = None) -> Bridged:
    """The cross-language terms of a question, whichever way it goes (``present``: see bridge_zh)."""
    return bridge_zh(analysis, d, present) if analysis.language == "zh" else bridge_en(analysis, d)


__all__ = ["WHY", "Bridged", "Present", "bridge", "bridge_en", "bridge_zh", "in_library_first", "zh_words"]
