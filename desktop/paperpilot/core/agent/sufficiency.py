"""Sufficiency: which required parts of the question the verified answer covers, and the status.

``assess(analysis, verified, passages)`` checks each ``analysis.Part`` against the supported
claims and the passages they cite, and decides the status in code:

- ``answered``: every key part is covered, the answer-type slot is filled (a number for
  how-many, a date for when, a name for who/where/which, both sides for a comparison, the
  last hop for a bridge question) and at least half of the other concept words are found;
- ``partial``: at least one key part (an entity, a side, a hop, a key concept) is covered
  and something required is not — the answer says which, plainly;
- ``insufficient_evidence``: no supported claim covers any key part; what was found is shown
  as related passages.

The loop's ``finalize`` calls this for both policies (the status is never a policy's opinion).
The features it returns feed the confidence model (``confidence.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text.language import cjk_bigrams, has_cjk
from ..text.messages import Message, msg
from .analysis import Part, QuestionAnalysis, names_in
from .compare import Comparison, Value, comparison, is_demonym, side_value, stated_verdict, verdict
from .events import PassageView, Status
from .lexicon import ZH_GENERIC
from .support import Bridges, stems, variants
from .verify import Claim, Verified

_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})s?\b|\d{4}\s*年|\d{1,2}\s*月|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\b|\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2}\b", re.IGNORECASE)  # fmt: skip
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*\s*(?:%|[KMB]\b|million|billion|thousand|hundred|万|亿|千|百)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|million|billion|dozens?|half|quarter|third|twice|double|triple)\b|[一二两三四五六七八九十百千万亿]+[个篇种位名项条件次日天月年周]", re.IGNORECASE)  # fmt: skip
_DEFINING = re.compile(
    r"\b(?:is|are|was|were)\s+(?:an?|the|one of)\b|^[^,]{2,60},\d{0,2}\s+(?:an?|the)\s+\w+|\b(?:refers? to|stands? for|is defined as|means|denotes|"
    r"is called|are called|is known as)\b|(?:是|指|即|称为|被称为|定义为)",
    re.IGNORECASE,
)
CAUSE = re.compile(
    r"\b(?:because|due to|caused?|causes|as a result|led to|leads? to|owing to|driven by|so that|therefore|thus|"
    r"(?:main |major |key )?(?:drivers?|reasons?|factors?)\b|explains?|attributed to|responsible for|contribut\w+ to|"
    r"results? in|in order to|allows?|enables?)\b|因为|由于|导致|造成|所以|因此|使得",
    re.IGNORECASE,
)
# Comparisons decided by a date need a date for each side.
_DATE_ATTRIBUTE = frozenset(
    [
        "older",
        "oldest",
        "younger",
        "youngest",
        "first",
        "earlier",
        "earliest",
        "later",
        "latest",
        "before",
        "after",
        "born",
        "founded",
        "established",
        "formed",
        "released",
        "opened",
        "built",
        "published",
        "came",
        "died",
        "started",
        "began",
    ]
)


# Words of a hop's relation that only say what kind of thing is asked for.
_GENERIC_RELATION = frozenset(["what", "which", "who", "is", "was", "the"])


@dataclass
class PartCoverage:
    part: Part
    covered: bool
    refs: list[str] = field(default_factory=list)  # evidence ids that cover it
    why: Message | None = None  # what to tell the user, when not covered

    @property
    def missing(self) -> str:
        return self.why.text() if self.why is not None else ""


@dataclass
class Assessment:
    status: Status
    parts: list[PartCoverage]
    why: list[Message]  # what the answer leaves out, one message each
    bridge_entities: list[str] = field(default_factory=list)
    features: dict[str, float] = field(default_factory=dict)

    @property
    def missing(self) -> list[str]:
        return [m.text() for m in self.why]

    def covered(self) -> list[PartCoverage]:
        return [p for p in self.parts if p.covered]

    def uncovered(self) -> list[PartCoverage]:
        return [p for p in self.parts if not p.covered]


def _tokens(text: str) -> list[str]:
    return [w.lower() for w in re.findall(r"[^\W_]+", text)]


def mentions(term: str, text: str) -> bool:
    """Does ``text`` mention ``term`` (a name, title or concept)? Stemmed words for English, every
    word of a name; Chinese by substring or most of its bigrams."""
    if not term.strip():
        return False
    if has_cjk(term):
        t = "".join(term.split())
        flat = "".join(text.split())
        if t in flat:
            return True
        grams = [g for g in cjk_bigrams(t) if len(g) == 2]
        have = set(cjk_bigrams(flat))
        return bool(grams) and sum(g in have for g in grams) / len(grams) >= 0.6
    want = stems(term) or _tokens(term)
    have = set(stems(text)) | set(_tokens(text))
    return all(variants(w) & have for w in want)


def _claim_source(c: Claim, passages: dict[str, PassageView]) -> str:
    return (
        c.text + " " + " ".join(passages[r].title + ". " + passages[r].text for r in c.refs if r in passages)
    )


def typed_values(answer_type: str, text: str, question: str, entity_words: set[str],
                 exclude: tuple[str, ...] = ()) -> list[str]:  # fmt: skip
    """The spans of the asked type in ``text`` that the question does not already give: years for
    "when", numbers for how-many/how-much, new names for who/where/which (not a nationality
    adjective for who/where, not the bridge entities in ``exclude``)."""
    q_low = question.lower()
    if answer_type == "when":
        return [m.group() for m in _YEAR.finditer(text) if m.group().lower() not in q_low]
    if answer_type in ("how_many", "how_much"):
        return [m.group().strip() for m in _NUMBER.finditer(text) if m.group().strip() and m.group().strip().lower() not in q_low]
    if answer_type in ("who", "where", "which") and not has_cjk(question):
        skip = {x.lower() for x in exclude}
        skip_words = [set(_tokens(x)) for x in exclude]
        return [
            n for n in names_in(text)
            if not set(_tokens(n)) <= entity_words and n.lower() not in q_low and n.lower() not in skip
            and not any(set(_tokens(n)) <= w for w in skip_words)  # "Leonard's" is Robert Z. Leonard
            and not (answer_type in ("who", "where") and is_demonym(n))
        ]  # fmt: skip
    return []


def _is_typed(answer_type: str, text: str, question: str, entity_words: set[str], exclude: tuple[str, ...] = ()) -> bool:
    """Does ``text`` hold a span of the asked type that the question does not already give?"""
    if answer_type in ("when", "how_many", "how_much"):
        return bool(typed_values(answer_type, text, question, entity_words, exclude))
    if answer_type in ("who", "where", "which"):
        if has_cjk(question):
            return True  # Chinese has no capitals to find names by; the concept checks carry it
        new = typed_values(answer_type, text, question, entity_words, exclude)
        if new or answer_type != "which":
            return bool(new)
        # "Which" may ask for a thing, not a name ("keyboard function keys"): a value or a few
        # content words the question does not use.
        q_words = set(stems(question))
        fresh = [w for w in stems(text) if w not in q_words and len(w) > 2]
        return bool(_NUMBER.search(text)) or len(fresh) >= 3
    if answer_type == "definition":
        # Chinese regulations and papers define by describing; the concept checks carry it.
        return has_cjk(question) or _DEFINING.search(text) is not None
    if answer_type == "why":
        return CAUSE.search(text) is not None
    return True


def assess(
    analysis: QuestionAnalysis,
    verified: Verified,
    passages: dict[str, PassageView],
    bridges: Bridges | None = None,
    weak: frozenset[str] = frozenset(),
) -> Assessment:
    """The coverage of each required part by the verified answer, and the status it implies.

    A concept also counts as covered when the cited text uses a bridging term the trace
    recorded for the question's concepts (profile synonyms, a model's synonym). ``weak``: ids
    of passages that are no evidence of relevance (only a search by meaning found them, and not
    closely — a nearest neighbour always exists): a claim citing only those covers nothing."""
    alternatives = bridges.question_alternatives if bridges is not None else set()
    claims = [c for c in verified.claims if c.support.supported and not (c.refs and set(c.refs) <= weak)]
    cited_ids = [e.id for e in verified.evidence if e.id not in weak]
    cited_text = " ".join(
        passages[i].title + ". " + passages[i].section + ". " + passages[i].text
        for i in cited_ids
        if i in passages
    )
    all_text = cited_text + " " + " ".join(c.text for c in claims)
    q = analysis.question
    entity_words = {w for e in analysis.entities for w in _tokens(e)}
    results: list[PartCoverage] = []
    comp = comparison(analysis)
    computed: str | None = None
    if comp is not None and comp.yes_no:
        computed = verdict(comp, [_best_value(comp, side, claims, passages) for side in analysis.sides])

    # Bridge entities: names the first-hop evidence gives that the question does not.
    bridge: list[str] = []
    first_hop_claims: list[Claim] = []
    if analysis.is_bridge:
        anchor = analysis.hops[0].anchor
        # (A word the last hop asks for too — "county" in "the county bordering the county in
        # which …" — tells the hops apart in no sentence.)
        last_rel = set(analysis.hops[-1].relation)
        first_rel = [w for w in analysis.hops[0].relation if w not in _GENERIC_RELATION and w not in last_rel]
        for c in claims:
            src = _claim_source(c, passages)
            if anchor and mentions(anchor, src):
                first_hop_claims.append(c)
        # The bridge entity fills the first hop's relation: "directed by Robert Z. Leonard" for
        # "the director of …" — not every name of the first-hop passage (the film's star is the
        # next hop's answer when one passage holds both hops).
        relational = [c for c in first_hop_claims if any(has_relation(w, c.text) for w in first_rel)]
        for c in relational or first_hop_claims:
            for n in names_in(c.text):
                if (not set(_tokens(n)) <= entity_words and n.lower() not in q.lower() and n not in bridge
                        and not is_demonym(n)):  # fmt: skip
                    bridge.append(n)
    for part in analysis.parts:
        cov = False
        refs: list[str] = []
        if part.kind in ("entity", "side"):
            hits = [c for c in claims if mentions(part.text, _claim_source(c, passages))]
            cov = bool(hits)
            if cov and part.kind == "side" and comp is not None and comp.kind != "other":
                # The side's value of the compared attribute (its nationality, date, family …)
                # must be in a claim about it, not only its name.
                valued = [c for c in hits if _side_value(comp, part.text, c, passages) is not None]
                cov, hits = bool(valued), valued
            elif cov and part.kind == "side" and set(analysis.attribute) & _DATE_ATTRIBUTE:
                cov = any(_YEAR.search(c.text) for c in hits)  # the claim itself gives the date
            refs = [r for c in hits for r in c.refs]
        elif part.kind == "concept":
            words = part.text.split()
            found = (
                sum(mentions(w, all_text) for w in words) if not has_cjk(part.text) and len(words) > 1 else 0
            )
            # A phrase of ordinary words is covered when most of its words are found; one found
            # word still makes the evidence related (partial at best).
            cov = mentions(part.text, all_text) or (len(words) > 1 and found * 2 > len(words))
            if not cov and bridges is not None:
                text_stems = set(stems(all_text))
                alt = set(alternatives)
                for w in stems(part.text):
                    alt |= bridges.alternatives(w)
                # (A Chinese word for an English concept has no stem: it is found as written.)
                cov = bool(alt & text_stems) or any(has_cjk(x) and x in all_text for x in alt)
                # A Chinese concept through the dictionary: its words must be there — both of
                # two (量子计算机 is not covered by "computer" alone), most of a longer phrase, as
                # for an English one; a generic word (方法) counts only alone.
                zh = bridges.in_phrase(part.text)
                specific = [w for w in zh if w not in ZH_GENERIC] or list(zh)
                if specific:
                    # A sense of several words counts where all of them are: "random access
                    # memory" is not 内存 in a passage that only says "open access".
                    held = sum(bridges.held(w, text_stems) for w in specific)
                    cov = cov or held == len(specific) or (len(specific) >= 3 and held * 2 > len(specific))

        elif part.kind == "number":
            cov = part.text.replace(",", "") in all_text.replace(",", "")
        elif part.kind == "hop":
            if part.hop == 1:
                cov = bool(first_hop_claims) and bool(bridge)
                refs = [r for c in first_hop_claims for r in c.refs]
            else:
                # The last hop is about what the first one found; its value is not that bridge
                # entity itself ("Oskar Brandtner" does not answer "in which town"), and its
                # relation words are in what it cites, not anywhere in the answer.
                bx = tuple(bridge)
                later = [
                    c
                    for c in claims
                    if any(mentions(b, _claim_source(c, passages)) for b in bridge)
                    and (c not in first_hop_claims or _is_typed(analysis.answer_type, c.text, q, entity_words, bx))
                ]
                later_src = " ".join(_claim_source(c, passages) for c in later)
                rel = [w for w in part.terms if w not in _GENERIC_RELATION]
                rel_ok = not rel or sum(mentions(w, later_src) for w in rel) * 2 >= len(rel)
                cov = bool(later) and rel_ok and _is_typed(
                    analysis.answer_type, " ".join(c.text for c in later), q, entity_words, bx
                )
                refs = [r for c in later for r in c.refs]
        elif part.kind == "slot" and part.text == "yes_no":
            # A yes or no is stated, and it is the one the sides' values give (when they give one).
            stated = stated_verdict(verified.text)
            cov = stated is not None and (computed is None or stated == computed)
        elif part.kind == "slot":
            bx = tuple(bridge) if analysis.is_bridge else ()
            cov = any(_is_typed(part.text, c.text, q, entity_words, bx) for c in claims)
        results.append(
            PartCoverage(part, cov, list(dict.fromkeys(refs)), None if cov else _missing(part, bridge))
        )

    if comp is not None and comp.kind != "other" and analysis.sides:
        # What is compared ("nationality", "family") is covered by the values the sides' claims give.
        sides_ok = all(r.covered for r in results if r.part.kind == "side")
        attribute = set(analysis.attribute) | {"nationality", "country", "citizenship"} | set(comp.words)
        for r in results:
            if sides_ok and not r.covered and r.part.kind == "concept" and r.part.text in attribute:
                r.covered, r.why = True, None
    key = [r for r in results if r.part.key and r.part.kind != "slot"]
    soft = [r for r in results if r.part.kind == "concept" and not r.part.key]
    hard_ok = all(r.covered for r in results if r.part.key or r.part.kind in ("slot", "hop", "side", "number"))
    # The other words of the question (its relation words: "won", "portrayed") must be found too,
    # through the documents' own words where the trace recorded them; one may be missing in a
    # long question, since documents phrase relations their own way.
    soft_ok = not soft or len(soft) - sum(r.covered for r in soft) <= (1 if len(soft) >= 4 else 0)
    # A question naming no entity is about its key concepts: evidence holding fewer than half of
    # them is about something else, however a generic word ("structure") or a slot no check can
    # fail ("how") matches — as the library check stops when half of them are in no document.
    key_concepts = [r for r in key if r.part.kind == "concept"]
    off_subject = (
        bool(key_concepts)
        and not any(r.part.kind in ("entity", "side", "hop") for r in results)
        and sum(r.covered for r in key_concepts) * 2 < len(key_concepts)
    )
    if not claims or off_subject:
        status = Status.INSUFFICIENT
    elif hard_ok and soft_ok:
        status = Status.ANSWERED
    elif ((any(r.covered for r in key) or not key) and any(
        r.covered for r in results if r.part.kind in ("slot", "hop", "side") or (r.part.kind == "concept" and not r.part.key)
    )) or (not soft and any(r.covered for r in key if r.part.kind == "concept")):
        # Partial: the evidence says something the question asks (a filled slot, a hop, a side,
        # a relation word), not only that its subject exists; mentions alone are related passages.
        status = Status.PARTIAL
    else:
        status = Status.INSUFFICIENT
    missing: list[Message] = []
    for r in results:
        if r.covered or r.why is None:
            continue
        if r.part.key or r.part.kind in ("slot", "hop", "side", "entity") or not soft_ok:
            missing.append(r.why)
    required = [r for r in results if r.part.key or r.part.kind in ("slot", "hop", "side")]
    # The claim that fills the asked slot: how well it is supported, and whether its value is
    # corroborated by a second cited passage.
    bx = tuple(bridge) if analysis.is_bridge else ()
    slot_types = [r.part.text for r in results if r.part.kind == "slot" and r.part.text != "yes_no"]
    fillers = [(c, t) for c in claims for t in slot_types if _is_typed(t, c.text, q, entity_words, bx)]
    values = {v.lower() for c, t in fillers[:1] for v in typed_values(t, c.text, q, entity_words, bx)}
    cited = [passages[i] for i in cited_ids if i in passages]
    corroborated = bool(values) and any(
        sum(v in (p.title + " " + p.text).lower() for p in cited) >= 2 for v in values
    )
    # Required parts covered from distinct passages: a bridge or a comparison rests on two.
    spread = {ref for r in results if r.covered and r.part.kind in ("entity", "side", "hop") for ref in r.refs}
    need = 2 if (analysis.is_bridge or analysis.is_comparison) else 1
    features = {
        "coverage": sum(r.covered for r in required) / len(required) if required else 1.0,
        "soft_coverage": sum(r.covered for r in soft) / len(soft) if soft else 1.0,
        "slot": float(all(r.covered for r in results if r.part.kind == "slot")),
        "key_missing": float(any(not r.covered for r in key)),
        "bridge_ok": float(all(r.covered for r in results if r.part.kind == "hop"))
        if analysis.is_bridge
        else 1.0,
        "sides_ok": float(all(r.covered for r in results if r.part.kind == "side"))
        if analysis.is_comparison
        else 1.0,
        "claims": float(len(claims)),
        "slot_support": max((c.support.score for c, _ in fillers), default=0.0) if slot_types else 1.0,
        "corroborated": float(corroborated),
        "spread": min(1.0, len(spread) / need),
        "is_bridge": float(analysis.is_bridge),
        "is_comparison": float(analysis.is_comparison),
    }
    return Assessment(status, results, list(dict.fromkeys(missing)), bridge, features)


def has_relation(word: str, text: str) -> bool:
    """Does ``text`` use the relation ``word`` ("director" ~ "directed", "wife" ~ "then-wife")?"""
    have = set(stems(text))
    return any(variants(st) & have or any(v.startswith(st) for v in have if len(st) >= 5) for st in stems(word))


def _side_value(comp: Comparison, side: str, c: Claim, passages: dict[str, PassageView]) -> Value | None:
    titles = [passages[r].title for r in c.refs if r in passages] or [""]
    return next((v for t in titles if (v := side_value(comp, side, c.text, t)) is not None), None)


def _best_value(comp: Comparison, side: str, claims: list[Claim], passages: dict[str, PassageView]) -> Value | None:
    """The side's value from the claims: a confirmed category beats a sentence that only says what it is."""
    values = [v for c in claims if (v := _side_value(comp, side, c, passages)) is not None]
    return next((v for v in values if v.has), values[0] if values else None)


def _missing(part: Part, bridge: list[str]) -> Message:
    if part.kind == "hop" and part.hop >= 2 and bridge:
        # The next step in words, with the entity the first hop found:
        # "No passage says what county shares a border with McDowell County".
        text = part.text.rstrip(" ?")
        if text.endswith((" of", " with", " by", " to", " in", " from")):
            return msg("missing.hop_says", step=text[:1].lower() + text[1:], entity=bridge[0])
        rel = " ".join(w for w in part.terms if w not in _GENERIC_RELATION)
        if not rel:
            return msg("missing.hop_unnamed", entity=bridge[0])
        return msg("missing.hop_relation", entity=bridge[0], relation=rel)
    return part.why


__all__ = ["CAUSE", "Assessment", "PartCoverage", "assess", "has_relation", "mentions", "typed_values"]
