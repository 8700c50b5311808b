"""The extractive answer: sentences of the passages read that cover the question, each cited.

No model is asked. The offline policy answers this way; the loop (a stopped run's extract),
the guard (a policy step that broke) and the LLM policy (a model answer that did not parse or
cited nothing) fall back on the same function.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..text.kinds import Kind, answer_sentences, answerable
from ..text.language import has_cjk, query_terms
from .actions import Answer, Decision
from .analysis import QuestionAnalysis, analyze, names_in
from .compare import Comparison, Value, comparison, is_demonym, side_value, verdict
from .events import PassageView
from .injection import is_instruction
from .router import is_complex
from .state import AgentState, PolicyStep, dictionary_terms
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


def answer_terms(state: AgentState) -> list[str]:
    """The question's terms as the passages may write them: across languages (the loop bridged
    the question through the dictionary), its Chinese words give way to their English senses."""
    terms = question_terms(state.question)
    bridged = dictionary_terms(state)
    if not bridged:
        return terms
    if not state.cross_language:  # a mixed library: its Chinese papers use the question's own words
        return terms + [t.lower() for t in bridged if t.lower() not in terms]
    return [t for t in terms if not has_cjk(t)] + [t.lower() for t in bridged]


def asked_text(state: AgentState) -> str:
    """The question with the dictionary's words for it: what a counted noun is matched against
    ("多少篇论文" counts "papers")."""
    return " ".join([state.question, *dictionary_terms(state)])


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


def _norm(text: str) -> str:
    """Lower-case words only: the form in which names and titles are compared."""
    words = _NONWORD.sub(" ", text.lower()).split()
    if words and words[0] in ("the", "a", "an"):
        words = words[1:]
    return " ".join(words)


def title_core(title: str) -> str:
    """A title as running text would name it: "Kiss and Tell (1945 film)" → "kiss and tell"."""
    return _norm(_PAREN.sub("", title))


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
    terms = answer_terms(state)
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


def extractive_answer(
    state: AgentState,
    reason: str,
    sentences: int = 3,
    *,
    contexts: list[_Context] | None = None,
    analysis: QuestionAnalysis | None = None,
) -> PolicyStep:
    """An answer extracted from the passages read, with no model: the sentences that cover the
    question best, each cited, one per compared entity for a comparison, and the question's
    uncovered terms as missing. The offline policy answers so; the loop, the guard and the LLM
    policy fall back on it. ``contexts`` and ``analysis`` may come from a caller that has them.
    """
    if contexts is None:
        contexts = _contexts(state)
    a = analysis if analysis is not None else analyze(state.question)
    terms = answer_terms(state)
    # A sentence addressed to an AI ("ignore previous instructions …") is not evidence of
    # anything the question asks; quoting it would pass the injection on to the reader.
    contexts = [c for c in contexts if c.text.strip()]
    # The same sentence in several passages (or twice in one) is said once: where it weighs most.
    by_text: dict[str, _Context] = {}
    for c in contexts:
        if c.norm not in by_text or c.weight > by_text[c.norm].weight:
            by_text[c.norm] = c
    contexts = [c for c in contexts if by_text[c.norm] is c]
    chosen: list[_Context] = []
    q_norm = _norm(state.question)
    # The sentence that fills the asked slot (a definition, a count, a date) leads.
    slots = _slot_sentences(a, contexts, asked_text(state))
    for c in slots:
        if c not in chosen:
            chosen.append(c)
    # A comparison needs each side: one sentence per compared entity first — for a yes/no
    # comparison the one that gives the side's value of the compared attribute.
    entities = list(a.sides) or _compared(state.question)
    comp = comparison(a)
    if entities:
        names = " ".join(_norm(e) for e in entities)
        attribute = [t for t in terms if not _term_in(t, names) and t not in _COMPARE_WORDS]
        when = bool(_WHEN.search(state.question))
        for entity in entities:
            best = _best_about(entity, attribute, when, contexts, chosen, comp)
            if best is not None:
                chosen.append(best)
    # A comparison with a sentence for each side is complete; more would only blur it.
    limit = sentences if not entities or len(chosen) < len(entities) else len(chosen)
    while len(chosen) < limit:
        best_c, best_s = None, 0.0
        said = " ".join(x.passage.title + " " + x.text for x in chosen).lower()
        for c in contexts:
            if c in chosen:
                continue
            g = _gain(c, chosen, said, terms, q_norm)
            if g > best_s:
                best_c, best_s = c, g
        if best_c is None:
            break
        chosen.append(best_c)
    if chosen and not entities and len(chosen) < sentences:
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
        chosen.extend(extra[: sentences - len(chosen)])
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
    direct = _direct_line(a, chosen, state, slots)
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

def _compared(question: str) -> list[str]:
    """The entities a comparison question names ("… older, Annie Morton or Terry Richardson?")."""
    names = list(dict.fromkeys(n for n in names_in(question) if len(_norm(n)) >= 2))
    if len(names) < 2:
        return []
    if is_complex(question) == "comparison question" or _CHOICE.search(question):
        return names[:3]
    return []

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


def _slot_sentences(a: QuestionAnalysis, contexts: list[_Context], asked: str = "") -> list[_Context]:
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
                ok = any(_with_counted_noun(m.group().split()[0], c.text[m.start() :], asked or a.question, a.entities)
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
    # Not after a comma or colon glued to a word: "S2ORC,1 a large corpus" is a footnote mark.
    r"(?<![\w.])(?<![\w][,;:])\d[\d,]*(?:\.\d+)?\s*(?:%|[KMB]\b|million|billion|thousand|hundred|percent)?"
    r"(?:\s+(?!(?:and|or|of|in|on|at|to|the|a|an|for|by|with|from|as)\b)[A-Za-z][\w-]*){0,2}"
    r"|[一二两三四五六七八九十百千万\d]+[个篇种位名项条件次日天月年周]"
)
_SIZE_WORDS = frozenset(["large", "big", "many", "much", "long", "high", "size", "number", "amount", "count"])
_EARLY = frozenset(["first", "earlier", "earliest", "older", "oldest", "before", "sooner"])
_LATE = frozenset(["later", "latest", "younger", "youngest", "after", "newer", "recent", "last"])


def _with_counted_noun(number: str, text: str, question: str, names: Sequence[str] = ()) -> str:
    """"81.1M English-language academic papers": the number up to the noun the question counts.
    ``names``: the question's named entities — what is counted is never the subject itself
    ("31k using 15% of the S2ORC" does not count S2ORCs)."""
    words = text.split()[1:6]
    named = {t for n in names for t in question_terms(n)}
    # "How large is the corpus …": the size words ask for the number, they are not what it counts.
    q = set(question_terms(question)) - named - _SIZE_WORDS
    for i, w in enumerate(words):
        if any(ch.isdigit() for ch in w):
            return ""  # another number comes first: the noun belongs to it
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
                    span = _with_counted_noun(v.split()[0], c.text[m.start() :], asked_text(state), a.entities)
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
