"""Question analysis without a model: the parts an answer must cover, in English and Chinese.

``analyze(question)`` returns a ``QuestionAnalysis``: the named entities and quoted titles,
the concepts (technical terms, content noun phrases — for Chinese cut at function words,
question words, measure words and relation verbs, never into fragments like 相比传统), the
numbers and years, the answer type (who / when / where / how_many / how_much / which /
yes_no / definition / why / how / comparison / other), the sides of a comparison, the hops
of a bridge question ("the county in which X is located" → first X's county, then the
county bordering it), and the list of required ``Part``s, each with the plain words to show
when no passage covers it ("No passage says which county borders McDowell County").

Every rule here stands for a category of question, not for an item: relational nouns
("the director of …"), relative clauses ("the woman who portrayed …"), participial
descriptions ("a film starring …"), possessives ("X's father"), "A or B" choices with a
compared attribute, wh-words inside the sentence ("… founded in what year?").

The loop records the analysis in the trace (an Info event with code "analysis") and its
``finalize`` checks the parts against the cited evidence (``core.agent.sufficiency``).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from ..text.language import STOPWORDS, has_cjk, query_terms
from ..text.messages import Message, msg
from .analysis_en import (
    COMPARE,
    NUMBER,
    YES_NO_START,
    Hop,
    answer_type_en,
    concepts_en,
    entities_en,
    hops_en,
    names_in,
    sides_en,
    split_subquestions,
    split_words,
)
from .analysis_zh import answer_type_zh, sides_zh, zh_concepts
from .lexicon import ASPECTS, NOT_NAMES, ZH_GENERIC
from .synthesis import synthesis_topic

ANSWER_TYPES = (
    "who", "when", "where", "how_many", "how_much", "which", "yes_no", "definition", "why", "how",
    "comparison", "other",
)  # fmt: skip


# --- the data ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    """One thing an answer must cover.

    ``kind``: entity | concept | number | side | hop | slot. ``terms``: the words to look for
    (lower-case; a Chinese concept is one string, matched by its bigrams). ``key``: a concept
    that carries the question (entities, technical terms, sides, hops) — covering only
    non-key parts is not a partial answer. ``why``: what to tell the user when uncovered (a
    catalogued message; ``missing`` is its text in the question's language).
    """

    kind: str
    text: str
    terms: tuple[str, ...]
    why: Message
    key: bool = True
    hop: int = 0  # for kind "hop": 1 = the first hop; the last hop is the question's own ask

    @property
    def missing(self) -> str:
        return self.why.text()


@dataclass(frozen=True)
class QuestionAnalysis:
    question: str
    language: str  # "en" | "zh"
    answer_type: str
    entities: tuple[str, ...] = ()  # names and quoted titles
    concepts: tuple[str, ...] = ()  # content noun phrases / technical terms, not entities
    numbers: tuple[str, ...] = ()  # numbers, years, ranges in the question
    sides: tuple[str, ...] = ()  # the things compared
    attribute: tuple[str, ...] = ()  # what they are compared on ("older", "director born later")
    hops: tuple[Hop, ...] = ()
    sub_types: tuple[str, ...] = ()  # answer types of each sub-question of a multi-part question
    parts: tuple[Part, ...] = field(default_factory=tuple)
    # A question across the library (``agent.synthesis``): its concepts are its topic's only.
    synthesis: bool = False

    @property
    def is_bridge(self) -> bool:
        return len(self.hops) >= 2

    @property
    def is_comparison(self) -> bool:
        return len(self.sides) >= 2

    @property
    def is_multipart(self) -> bool:
        return len(self.sub_types) >= 2

    def key_concepts(self) -> list[str]:
        """What the library must mention at all for the question to be about it: the entities, or
        (without any) the concept phrases ("recommended dosage", "ibuprofen")."""
        if self.entities:
            return list(dict.fromkeys(self.entities))
        words = {p.text for p in self.parts if p.kind == "concept" and p.key}
        return [c for c in self.concepts if any(w in words for w in c.split()) or c in words]

    def to_data(self) -> dict[str, Any]:
        """Plain JSON data for the trace."""
        data = asdict(self)
        for part in data["parts"]:
            part["missing"] = str(part.pop("why"))  # the trace's data keeps the words
        data["bridge"] = self.is_bridge
        data["comparison"] = self.is_comparison
        # JSON-native (lists, not tuples), so the trace event survives a round trip unchanged.
        return dict(json.loads(json.dumps(data)))


# --- the parts -----------------------------------------------------------------------------------

_SLOT_WORDS = {
    "who": "who {focus}",
    "when": "when {focus}",
    "where": "where {focus}",
    "how_many": "how many {focus}",
    "how_much": "how much {focus}",
    "which": "which {focus}",
    "definition": "what {focus} is",
    "why": "why {focus}",
    "how": "how {focus}",
}


def _terms(text: str) -> tuple[str, ...]:
    if has_cjk(text):
        return tuple(t for t in [text] if t)
    return tuple(w.lower() for w in split_words(text) if w.lower() not in STOPWORDS) or (text.lower(),)


def _slot_missing(answer_type: str, focus: str, zh: bool) -> Message:
    if zh:
        asked = ("who", "when", "where", "how_many", "how_much", "definition", "why")
        return msg(f"missing.slot_zh.{answer_type if answer_type in asked else 'other'}", "zh", focus=focus)
    named = ("who", "when", "where", "how_many", "how_much", "which", "definition", "why", "how")
    return msg(f"missing.slot.{answer_type if answer_type in named else 'other'}", focus=focus)


def _focus(q: str) -> str:
    """The question as a clause for messages: "what county borders …" without the question mark."""
    q = " ".join(q.strip().rstrip("?？").split())
    return q[:1].lower() + q[1:] if q[:2].istitle() or (q[:1].isupper() and q[1:2].islower()) else q


def analyze(question: str) -> QuestionAnalysis:
    """The parts an answer to ``question`` must cover (no model; English and Chinese)."""
    q = " ".join(question.split())
    zh = has_cjk(q) and sum(bool(has_cjk(c)) for c in q) >= 0.2 * len(q.replace(" ", ""))
    request = synthesis_topic(q)
    if request is not None:
        return _analyze_synthesis(q, request.topic, zh)
    numbers = tuple(dict.fromkeys(m.group() for m in NUMBER.finditer(q)))
    if zh:
        return _analyze_zh(q, numbers)
    return _analyze_en(q, numbers)


def _analyze_synthesis(q: str, topic: str, zh: bool) -> QuestionAnalysis:
    """A question across the library: the parts are its topic's entities and concepts only. The
    words about the library ("my library", 库中, these papers), the task (compare, progress,
    directions, 进展, 建议), the facets asked of each paper (methods, findings, 局限性) and the
    scope (近三年, since 2023, a collection, an author) are what to do and where, never what
    the papers must mention; nor is there one slot, one number or two sides to fill."""
    a = _analyze_zh(topic, ()) if zh else _analyze_en(topic, ())
    parts = tuple(p for p in a.parts if p.kind in ("entity", "concept"))
    if zh:
        # A generic word left in the topic (方法, 问题) is not a concept of a synthesis question.
        parts = tuple(p for p in parts if p.text not in ZH_GENERIC)
    concepts = tuple(c for c in a.concepts if not (zh and c in ZH_GENERIC))
    return QuestionAnalysis(
        question=q, language="zh" if zh else "en", answer_type="other", entities=a.entities, concepts=concepts,
        parts=parts, synthesis=True,
    )  # fmt: skip


def _analyze_en(q: str, numbers: tuple[str, ...]) -> QuestionAnalysis:
    subs = split_subquestions(q)
    sub_types = tuple(answer_type_en(s)[0] for s in subs) if len(subs) > 1 else ()
    answer_type, _head = answer_type_en(q)
    entities = entities_en(q)
    sides, attribute = sides_en(q, entities)
    if sides:
        answer_type = "comparison" if answer_type not in ("yes_no",) or COMPARE.search(q) else answer_type
    hops = hops_en(q, entities) if not sides else []
    concepts = concepts_en(q, entities)
    parts: list[Part] = []
    for e in entities:
        bare = re.sub(r"^\d{4}(?:[–-]\d{2,4})?\s+", "", e)
        parts.append(Part("entity", e, _terms(e), msg("missing.entity", term=bare)))
    for c in concepts:
        if any(c in e.lower() for e in entities):
            continue
        # Each word of a concept phrase is a part: without a tagger, a phrase of adjacent content
        # words may join a noun and a verb ("sparrow numbers fall"). With named entities the names
        # carry the question and the other words may be phrased differently by the documents;
        # without any, the concepts are what it is about.
        for w in dict.fromkeys(c.split()):
            key = not entities and len(w) >= 3 and w not in ASPECTS
            if not any(p.text == w for p in parts):
                parts.append(Part("concept", w, (w,), msg("missing.concept", term=w), key=key))
    for n in numbers:
        if not any(n in e for e in entities):
            parts.append(Part("number", n, (n,), msg("missing.number", number=n), key=False))
    if sides:
        attr = " ".join(attribute) or "the compared attribute"
        for s in sides:
            parts.append(Part("side", s, _terms(s), msg("missing.side", attribute=attr, side=s)))
    if len(hops) >= 2:
        first = hops[0]
        parts.append(Part("hop", first.text, first.relation, msg("missing.hop_first", hop=first.text), hop=1))
        for i, h in enumerate(hops[1:], 2):
            parts.append(
                Part("hop", h.text, h.relation, msg("missing.hop_next", hop=h.text), hop=i)
            )
    types = sub_types or (answer_type,)
    if sides and YES_NO_START.match(q):
        # "Are A and B of the same nationality?": the answer is a yes or no that the two values settle.
        parts.append(Part("slot", "yes_no", (), msg("missing.yes_no", focus=_focus(q)), key=False))
    for i, t in enumerate(types):
        if t in ("other", "comparison", "yes_no"):
            continue
        focus = _focus(subs[i] if sub_types else q)
        parts.append(Part("slot", t, (), _slot_missing(t, focus, False), key=False))
    return QuestionAnalysis(
        question=q, language="en", answer_type=answer_type, entities=tuple(entities), concepts=tuple(concepts),
        numbers=numbers, sides=tuple(sides), attribute=tuple(attribute), hops=tuple(hops), sub_types=sub_types,
        parts=tuple(parts),
    )  # fmt: skip


def _analyze_zh(q: str, numbers: tuple[str, ...]) -> QuestionAnalysis:
    answer_type = answer_type_zh(q)
    titles = [t for t in names_in(q) if has_cjk(t)]
    concepts = zh_concepts(q)
    latin = [
        c
        for c in concepts
        if not has_cjk(c) and (c[:1].isupper() or any(ch.isdigit() for ch in c) or c.isupper())
    ]
    entities = list(dict.fromkeys(titles + latin))
    concepts = [c for c in concepts if c not in entities]
    sides = sides_zh(q, entities + concepts) if answer_type == "comparison" else []
    parts: list[Part] = []
    for e in entities:
        parts.append(Part("entity", e, _terms(e), msg("missing.entity", "zh", term=e)))
    for c in concepts:
        key = c not in ZH_GENERIC
        parts.append(Part("concept", c, _terms(c), msg("missing.concept_zh", "zh", term=c), key=key))
    for s in sides:
        parts.append(Part("side", s, _terms(s), msg("missing.side_zh", "zh", side=s)))
    if answer_type not in ("other", "comparison", "yes_no"):
        focus = "、".join([*entities, *concepts]) or _focus(q)
        parts.append(Part("slot", answer_type, (), _slot_missing(answer_type, focus, True), key=False))
    return QuestionAnalysis(
        question=q, language="zh", answer_type=answer_type, entities=tuple(entities), concepts=tuple(concepts),
        numbers=numbers, sides=tuple(sides), attribute=(), hops=(), sub_types=(), parts=tuple(parts),
    )  # fmt: skip


def topic_terms(topic: str, language: str) -> list[str]:
    """The entities and concepts of a synthesis request's topic (``SynthesisRequest.topic``): what
    the papers must be about, as the question analysis reads it."""
    if not topic.strip():
        return []
    a = _analyze_synthesis(topic, topic, language == "zh")
    return list(dict.fromkeys([*a.entities, *a.concepts]))


def content_terms(question: str) -> list[str]:
    """The question's content words as search terms (entities whole, then concepts)."""
    a = analyze(question)
    return list(dict.fromkeys([*a.entities, *a.concepts])) or query_terms(question)


__all__ = [
    "ANSWER_TYPES",
    "NOT_NAMES",
    "Hop",
    "Part",
    "QuestionAnalysis",
    "analyze",
    "content_terms",
    "names_in",
    "topic_terms",
    "zh_concepts",
]
