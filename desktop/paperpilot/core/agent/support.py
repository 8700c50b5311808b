"""Claim support: is what an answer sentence says actually in the passage(s) it cites?

``check_claim(claim, passages)`` compares the claim's content words with the cited text:
English words stemmed (the index's own analyzer, so "bordered" supports "borders"), Chinese by
character bigrams, numbers and names exactly. Words the question itself uses count half when
the passage lacks them (an answer restates the question: "The county that borders McDowell
County is …"). Only sentences that may supply an answer count as cited text: reference
entries, code, tables, author blocks (``core.textkinds``) and sentences addressed to an AI
(``injection``) are left out, so a claim built from them is unsupported.

``Bridges`` holds the equivalences the check accepts between a claim's word and the
documents' word: candidate keywords and profile synonyms recorded in the trace, and — for a
model — ``add_quoted``: an equivalence proposed by the model, accepted only with a quote that
occurs verbatim in a passage and contains the documents' word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import tantivy

from ..text.kinds import answer_sentences, answerable
from ..text.language import STOPWORDS, ZH_STOPWORDS, cjk_bigrams, has_cjk
from ..text.messages import Message, msg
from .analysis import names_in
from .events import PassageView
from .injection import is_instruction

# Share of a claim's content that must be found in the cited text.
SUPPORT_THRESHOLD = 0.7

_STEMMER = (
    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    .filter(tantivy.Filter.lowercase())
    .filter(tantivy.Filter.stemmer("english"))
    .build()
)
_CITE = re.compile(r"\[(?:P?\d+)(?:\s*[,;]\s*P?\d+)*\]")
# Words as the claim writes them ("S2ORC", "81.1M", "o'clock"); a number with its unit is
# checked exactly as a number, not as a word.
_LATIN = re.compile(r"[^\W_]+(?:[.'’][^\W_]+)*", re.UNICODE)
_NUMBER_WORD = re.compile(r"^\d[\d.,]*(?:[a-zA-Z%]{0,3}|st|nd|rd|th|s)$")
_NUM = re.compile(r"\d+(?:[.,]\d+)*")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]+")
_CJK_GLUE = re.compile(r"[的了是在和与及或吗呢吧啊把被对从向于将就也都而并之其这那个有为以等中上下]")
# Words that frame a sentence rather than claim anything.
_FRAME = frozenset(
    [
        "according",
        "passage",
        "passages",
        "paper",
        "papers",
        "document",
        "documents",
        "text",
        "source",
        "sources",
        "says",
        "say",
        "said",
        "states",
        "stated",
        "mentions",
        "mentioned",
        "reports",
        "reported",
        "describes",
        "described",
        "shows",
        "shown",
        "answer",
        "question",
        "also",
        "therefore",
        "thus",
        "however",
        "hence",
        "moreover",
        "overall",
        "summary",
        # a verdict ("Answer: yes — …") is what the values after it settle, not a claim of its own
        "yes",
    ]
)


# Irregular English verb forms the stemmer cannot join ("fell" is not "fall" to Porter): the
# past tense and participle of the most common irregular verbs, mapped to the base form.
_IRREGULAR = {
    f: base
    for base, forms in {
        "be": "was were been", "become": "became", "begin": "began begun", "bear": "born borne bore",
        "break": "broke broken", "bring": "brought", "build": "built", "buy": "bought", "catch": "caught",
        "choose": "chose chosen", "come": "came", "do": "did done", "draw": "drew drawn", "drive": "drove driven",
        "eat": "ate eaten", "fall": "fell fallen", "fight": "fought",
        "fly": "flew flown", "forget": "forgot forgotten", "get": "got gotten", "give": "gave given",
        "go": "went gone", "grow": "grew grown", "have": "had", "hear": "heard", "hold": "held", "keep": "kept",
        "know": "knew known", "lead": "led", "lose": "lost", "make": "made", "meet": "met",
        "pay": "paid", "ride": "rode ridden", "run": "ran", "say": "said", "see": "seen",
        "sell": "sold", "send": "sent", "sing": "sang sung", "sit": "sat", "speak": "spoke spoken",
        "spend": "spent", "stand": "stood", "steal": "stole stolen", "swim": "swam swum", "take": "took taken",
        "teach": "taught", "tell": "told", "think": "thought", "throw": "threw thrown", "win": "won",
        "write": "wrote written", "wear": "wore worn", "shoot": "shot", "sleep": "slept", "strike": "struck",
    }.items()
    for f in forms.split()
}  # fmt: skip


def stems(text: str) -> list[str]:
    """English stems of ``text`` (lower-cased, as the index sees them; irregular verbs joined to their base)."""
    out = []
    # The tokenizer keeps letters together, Chinese ones included: "LoopAgent不适合" would be
    # one token. Chinese runs are set apart so the Latin words in Chinese text are found.
    text = _CJK_RUN.sub(" ", text)
    for st in _STEMMER.analyze(text):
        out.append(_STEMMER.analyze(_IRREGULAR[st])[0] if st in _IRREGULAR else st)
    return out


def variants(stem: str) -> set[str]:
    """A stem and the verb its agent noun comes from: "founder" ~ "found", "director" ~ "direct"."""
    out = {stem}
    if len(stem) > 5 and stem.endswith(("er", "or")):
        out.add(stem[:-2])
    return out


def _numbers(text: str) -> set[str]:
    return {m.group().replace(",", "") for m in _NUM.finditer(text)}


def _norm_words(text: str) -> str:
    return " " + " ".join(w.lower() for w in re.findall(r"[^\W_]+", text)) + " "


@dataclass
class Bridges:
    """Accepted equivalences between a claim's words and the documents' words (stems).

    ``pairs[stem]`` are the stems that may stand for ``stem``; ``question_alternatives`` are
    the documents' words for the question's concepts (candidate keywords, profile terms),
    which may stand for any word the question uses. ``reasons`` says where each came from.
    """

    pairs: dict[str, set[str]] = field(default_factory=dict)
    question_alternatives: set[str] = field(default_factory=set)
    reasons: list[str] = field(default_factory=list)
    # The same alternatives kept whole, by the term's stem: a word's stem, or all the stems of a
    # phrase ("random access memory" stands for 内存 only where all three words are).
    wholes: dict[str, set[tuple[str, ...]]] = field(default_factory=dict)

    def add(self, term: str, alternative: str, why: str = "") -> None:
        whole = tuple(stems(alternative) or [alternative.lower()])
        for a in stems(term) or [term.lower()]:
            if whole != (a,):
                self.wholes.setdefault(a, set()).add(whole)
            for b in whole:
                if a != b:
                    self.pairs.setdefault(a, set()).add(b)
                    self.pairs.setdefault(b, set()).add(a)
        if why:
            self.reasons.append(f"{term} ~ {alternative} ({why})")

    def add_question_alternatives(self, terms: Iterable[str], why: str) -> None:
        added = [t for t in terms if t.strip()]
        for t in added:
            self.question_alternatives.update(stems(t) or [t.lower()])
        if added:
            self.reasons.append(f"{', '.join(added[:8])} ({why})")

    def add_quoted(self, term: str, alternative: str, quote: str, passages: Sequence[PassageView]) -> bool:
        """A model-proposed equivalence, accepted only when ``quote`` occurs verbatim (whitespace
        aside) in one of ``passages`` and contains ``alternative``. Returns whether it was accepted."""
        q = "".join(quote.split()).lower()
        if not q or "".join(alternative.split()).lower() not in q:
            return False
        if not any(q in "".join(p.text.split()).lower() for p in passages):
            return False
        self.add(term, alternative, f"model, quoting “{quote[:60]}”")
        return True

    def alternatives(self, stem: str) -> set[str]:
        return self.pairs.get(stem, set())

    def held(self, term: str, text_stems: set[str]) -> bool:
        """Does a text with these stems hold one of ``term``'s alternatives whole (every word of
        a phrase)? Terms added only the other way round fall back to any alternative stem."""
        wholes = self.wholes.get(term)
        if not wholes:
            return bool(self.alternatives(term) & text_stems)
        return any(all(w in text_stems for w in whole) for whole in wholes)

    def in_phrase(self, text: str) -> dict[str, set[str]]:
        """The alternatives of each Chinese word inside ``text`` (a concept "方法解析" holds the
        bridged word 解析): Chinese has no stems to key them by, so its words are found as substrings."""
        if not _CJK_RUN.search(text):
            return {}
        return {k: set(alts) for k, alts in self.pairs.items() if _CJK_RUN.search(k) and k in text}


@dataclass
class ClaimSupport:
    """The check of one claim against the text it cites."""

    claim: str
    supported: bool
    score: float  # weighted share of the claim's content found in the cited text
    missing_words: list[str] = field(default_factory=list)
    missing_numbers: list[str] = field(default_factory=list)
    missing_names: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        bits = []
        if self.missing_numbers:
            bits.append("numbers not in the passage: " + ", ".join(self.missing_numbers[:3]))
        if self.missing_names:
            bits.append("names not in the passage: " + ", ".join(self.missing_names[:3]))
        if self.missing_words:
            bits.append("words not in the passage: " + ", ".join(self.missing_words[:5]))
        return "; ".join(bits) or f"support {self.score:.0%}"

    @property
    def why(self) -> Message:
        """``reason`` as a catalogued message."""
        bits = []
        if self.missing_numbers:
            bits.append(msg("support.numbers", items=self.missing_numbers[:3]))
        if self.missing_names:
            bits.append(msg("support.names", items=self.missing_names[:3]))
        if self.missing_words:
            bits.append(msg("support.words", items=self.missing_words[:5]))
        return msg("support.gaps", parts=bits) if bits else msg("support.score", share=f"{self.score:.0%}")


def citable_text(passage: PassageView) -> str:
    """The part of a passage an answer may rest on: its title and its prose sentences, without
    reference entries, code, tables, author blocks or sentences addressed to an AI."""
    keep = [
        s
        for s, kind in answer_sentences(passage.text, passage.section, passage.kind)
        if answerable(kind) and not is_instruction(s)
    ]
    return passage.title + ". " + (passage.section + ". " if passage.section else "") + " ".join(keep)


def claim_text(sentence: str) -> str:
    """A sentence as a claim: without citation markers, list bullets and quotation marks."""
    s = _CITE.sub(" ", sentence)
    s = re.sub(r"^\s*[-*•]\s+", "", s)
    return " ".join(s.replace("“", " ").replace("”", " ").replace('"', " ").split())


def check_claim(
    claim: str,
    passages: Sequence[PassageView] | Sequence[str],
    *,
    question: str = "",
    bridges: Bridges | None = None,
    threshold: float = SUPPORT_THRESHOLD,
) -> ClaimSupport:
    """Is ``claim`` supported by ``passages`` (PassageViews, or plain citable texts)?

    Every number and every name in the claim must occur in the cited text; of the other
    content words, ``threshold`` (weighted: a word the question uses counts half when missing,
    a bridged word counts whole) must be found.
    """
    claim = claim_text(claim)
    texts = [p if isinstance(p, str) else citable_text(p) for p in passages]
    source = " ".join(texts)
    src_stems = set(stems(source))
    src_words = _norm_words(source)
    src_numbers = _numbers(source)
    q_stems = set(stems(question))
    bridges = bridges or Bridges()

    missing_numbers = sorted(
        n for n in _numbers(claim) if n not in src_numbers and n not in _numbers(question)
    )
    missing_names: list[str] = []
    for name in names_in(claim):
        if has_cjk(name):
            continue
        tokens = [w.lower() for w in re.findall(r"[^\W_]+", name)]
        in_source = all(f" {t} " in src_words or t in src_stems for t in tokens)
        if tokens and not in_source and not all(f" {t} " in _norm_words(question) for t in tokens):
            missing_names.append(name)

    found = 0.0
    total = 0.0
    missing_words: list[str] = []
    latin = [
        w
        for w in _LATIN.findall(claim)
        if w.lower() not in STOPWORDS and w.lower() not in _FRAME and not _NUMBER_WORD.match(w) and not has_cjk(w)
    ]
    for w in latin:
        st = stems(w)
        if not st:
            continue
        s0 = st[0]
        total += 1
        if variants(s0) & src_stems or bridges.alternatives(s0) & src_stems:
            found += 1
        elif s0 in q_stems and (bridges.question_alternatives & src_stems):
            found += 1  # the documents' own word for a question concept is there
        elif s0 in q_stems:
            found += 0.5
            missing_words.append(w)
        else:
            missing_words.append(w)
    if has_cjk(claim):
        grams = [g for g in cjk_bigrams(_CJK_GLUE.sub(" ", claim)) if len(g) == 2 and g not in ZH_STOPWORDS]
        src_grams = set(cjk_bigrams(source))
        q_grams = set(cjk_bigrams(question))
        for g in grams:
            total += 1
            if g in src_grams:
                found += 1
            elif g in q_grams:
                found += 0.5
        if grams and sum(g in src_grams for g in grams) / len(grams) < threshold:
            missing_words.extend(g for g in grams if g not in src_grams and g not in q_grams)
    if not total and _numbers(claim) and not missing_numbers and not missing_names:
        # "Answer: 81.1M papers": a value and the question's own words; the value is checked.
        return ClaimSupport(claim, True, 1.0, [], [], [])
    score = found / total if total else 0.0
    # Words the question does not use are what the claim adds: they must be in the passage (a
    # long claim may paraphrase one word in six).
    new_missing = [w for w in missing_words if not has_cjk(w) and (stems(w) or [w])[0] not in q_stems]
    allowed = max(0, (len(latin) - 4) // 6)
    supported = (
        bool(total) and score >= threshold and not missing_numbers and not missing_names and len(new_missing) <= allowed
    )
    return ClaimSupport(claim, supported, round(score, 3), missing_words[:8], missing_numbers, missing_names)


__all__ = [
    "SUPPORT_THRESHOLD",
    "Bridges",
    "ClaimSupport",
    "check_claim",
    "citable_text",
    "claim_text",
    "stems",
]
