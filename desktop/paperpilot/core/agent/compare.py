"""Comparison questions: what is compared, each side's value in a sentence, and the verdict.

"Are A and B of the same nationality?", "Are A and B both film directors?", "Is A older than
B?", "Were both A and B formed before 2010?", "Are A and B in the same family?" ask for one
value per side and a yes/no that follows from the two values. ``comparison(analysis)`` reads
the question's form: what kind of value is compared (a date, a nationality, a shared named
value such as a family or a director, or membership in a category) and how the verdict
follows from the values. ``side_value`` finds a side's value in one sentence; ``verdict``
says yes or no only when both sides' values are found and comparable — otherwise None, and
the answer is partial, naming the side whose value is missing.

Used by the offline policy (to pick one sentence per side and write "Answer: no — …") and by
the sufficiency check (a side is covered only by a claim that carries its value, for either
policy; a stated yes/no must agree with the values the claims carry).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .analysis import QuestionAnalysis, names_in
from .support import stems, variants

_YES_NO_START = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would)\b", re.IGNORECASE
)
_YEAR = re.compile(r"(?<![\d.])(1[0-9]{3}|20[0-9]{2})(?![\d.])")
_CENTURY = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\s+century\b", re.IGNORECASE)
_EARLY = frozenset(["first", "earlier", "earliest", "older", "oldest", "before", "sooner", "elder"])
_LATE = frozenset(["later", "latest", "younger", "youngest", "after", "newer", "recent", "recently", "last"])
_DATED = frozenset(
    ["older", "oldest", "younger", "youngest", "first", "earlier", "earliest", "later", "latest", "before", "after",
     "born", "founded", "established", "formed", "released", "opened", "built", "published", "recent", "recently",
     "newer", "elder", "created", "started", "began", "came"]
)  # fmt: skip
# Nationality adjectives: a capitalised word with a demonym ending, or one of the irregular ones.
_DEMONYM = re.compile(
    r"\b(?:[A-Z][a-z]+(?:an|ian|ese|ish|ic)|French|Dutch|Greek|Swiss|Thai|Welsh|Czech|Israeli|Pakistani|Iraqi|"
    r"Saudi|Kuwaiti|Qatari|Bangladeshi|Nepali|Somali|Yemeni|Omani|Filipino|Argentine)\b"
)
# Capitalised words with a demonym ending that are not nationalities.
_NOT_DEMONYM = frozenset(
    ["Republican", "Christian", "Victorian", "Elizabethan", "Olympic", "Olympian", "Catholic", "Anglican", "Titanic",
     "Atlantic", "Pacific", "Arctic", "Baltic", "Gothic", "Classic", "Electric", "Magic", "Music", "Comic", "Academic",
     "Public", "Hispanic", "Islamic", "Arabic", "Latin", "Human", "Woman", "German-born", "Guardian", "Librarian",
     "Vatican", "Oregonian", "Texan", "Californian"]
)  # fmt: skip
# A country named in a sentence stands for its nationality: the common forms that share no stem.
_COUNTRY_ADJ = {
    "united states": "american", "usa": "american", "u.s.": "american", "america": "american",
    "united kingdom": "british", "britain": "british", "england": "english", "scotland": "scottish",
    "wales": "welsh", "france": "french", "netherlands": "dutch", "holland": "dutch", "greece": "greek",
    "switzerland": "swiss", "thailand": "thai", "spain": "spanish", "sweden": "swedish", "denmark": "danish",
    "finland": "finnish", "poland": "polish", "ireland": "irish", "turkey": "turkish", "china": "chinese",
    "japan": "japanese", "portugal": "portuguese", "israel": "israeli", "pakistan": "pakistani", "iraq": "iraqi",
    "philippines": "filipino", "argentina": "argentine", "peru": "peruvian", "czech republic": "czech",
}  # fmt: skip
# Words of a "both X" attribute that say nothing about X ("both types of plant" is "both plants").
_HOLLOW = frozenset(
    ["type", "types", "kind", "kinds", "sort", "considered", "described", "classified", "known", "regarded", "both",
     "used", "also", "each", "well", "famous", "still", "any", "common", "called", "involved", "part", "connected",
     "associated", "related", "linked", "affiliated"]
)  # fmt: skip


@dataclass(frozen=True)
class Comparison:
    """What a comparison question compares.

    ``kind``: "date" | "nationality" | "same" (a shared named value: a family, a director …) |
    "category" ("both X") | "other". ``yes_no``: the question asks yes or no (else it asks to
    choose a side). ``polarity``: "earlier" / "later" for dates ("older than", "came out first");
    "same" / "different" for shared values; "both" for categories and thresholds.
    ``words``: the attribute's words (a category, or the shared value's noun). ``target``: a
    nationality or year the question names ("both American", "before 2010"), or the names among
    a category's words ("located in Michigan"), which a sentence can confirm but not refute.
    ``century``: for "both in the 19th century".
    """

    kind: str
    yes_no: bool
    polarity: str = ""
    words: tuple[str, ...] = ()
    target: str = ""
    century: int = 0


def comparison(a: QuestionAnalysis) -> Comparison | None:
    """The comparison a question asks for, or None when it is not one (or is Chinese)."""
    if not a.is_comparison or a.language != "en":
        return None
    q = a.question
    # The sides' own words say nothing about what is compared ("500 Years Later").
    rest = q
    for side in a.sides:
        rest = rest.replace(side, " it ")
    low = rest.lower()
    words = set(re.findall(r"[a-z]+", low))
    yes_no = _YES_NO_START.match(q) is not None
    attr = [w for w in a.attribute if w not in _HOLLOW]
    same = re.search(r"\b(same|different|differ)\s+((?:(?!(?:as|in|on|at|and|or|than|with|by|for|from|to)\b)[a-z-]+\s*){1,3})", low)
    if "nationality" in words or "citizenship" in words or re.search(r"\b(?:same|different)\s+country\b", low):
        return Comparison("nationality", yes_no, "different" if "different" in words else "same")
    demonyms = _demonyms(rest)
    if yes_no and demonyms and "both" in words and len(attr) <= 1:
        return Comparison("nationality", True, "both", target=demonyms[0].lower())
    if words & _DATED:
        early, late = bool(words & _EARLY), bool(words & _LATE)
        year = _YEAR.search(q)
        if yes_no:
            if year and (early or late) and not re.search(r"\bthan\b", low):
                return Comparison("date", True, "earlier" if early else "later", target=year.group(1))
            if re.search(r"\bthan\b", low) and early != late:
                return Comparison("date", True, "earlier" if early else "later")
        elif early != late:
            return Comparison("date", False, "earlier" if early else "later")
    if yes_no and re.search(r"\b(?:in|during)\s+the\s+\d{1,2}(?:st|nd|rd|th)\s+century\b", low):
        c = _CENTURY.search(q)
        assert c is not None
        return Comparison("date", True, "both", century=int(c.group(1)))
    if yes_no and same:
        noun = [w for w in same.group(2).split() if w not in _HOLLOW and w not in ("of", "the", "a")]
        if noun:
            return Comparison("same", True, "same" if same.group(1) == "same" else "different", words=tuple(noun[-1:]))
    if yes_no and ("both" in words or re.search(r"\b(?:are|were|is|was)\b.*\band\b", low)) and attr:
        # A named place or organisation ("located in Michigan", "connected with Disney") can be
        # confirmed by a sentence but not refuted by its absence: the sentence may name a part
        # of it (a city of the state) — ``side_value`` then finds no value instead of "no".
        named = tuple(w for w in attr if re.search(rf"\b{re.escape(w)}\b", rest, re.IGNORECASE)
                      and re.search(rf"\b{re.escape(w.title())}\b", rest))  # fmt: skip
        return Comparison("category", True, "both", words=tuple(attr[:4]), target=" ".join(named))
    return Comparison("other", yes_no)


def _years(text: str) -> list[int]:
    return [int(y) for y in _YEAR.findall(text)]


def _demonyms(text: str) -> list[str]:
    """Nationality adjectives as adjectives: "an Israeli actress", "is American." — not a word of a
    name ("Neil Jordan", "American Beauty") nor a place after a preposition ("in Michigan")."""
    out: list[str] = []
    for m in _DEMONYM.finditer(text):
        w = m.group()
        before = text[: m.start()].rstrip()
        prev = before.split()[-1] if before.split() else ""
        after = text[m.end() :]
        nxt = after.split()[0] if after.split() else ""
        if w in _NOT_DEMONYM or prev.lower() in ("in", "at", "from", "of", "to", "near"):
            continue
        if prev[:1].isupper() and not before.endswith((",", ".", "(", ";", ":")) and prev.lower() not in (
            "an", "a", "the", "is", "was", "are", "were", "both"
        ):
            continue  # "Neil Jordan": the end of a name
        if after.startswith(":"):
            continue  # "(Turkish: Laleli Camii)": a language gloss
        if nxt[:1].isupper() and not after.startswith(("-", ",", ".", ")")):
            continue  # "American Beauty": the start of a name
        out.append(w)
    return out


def is_demonym(word: str) -> bool:
    """Is ``word`` (a "name" found by capitals) a nationality adjective ("American", "Israeli")?"""
    return _DEMONYM.fullmatch(word) is not None and word not in _NOT_DEMONYM


def nationalities(text: str) -> set[str]:
    """The nationalities a sentence gives: demonyms ("an Israeli actress") and country names."""
    out = {w.lower() for w in _demonyms(text)}
    low = text.lower()
    for country, adj in _COUNTRY_ADJ.items():
        if re.search(rf"(?<![\w.]){re.escape(country)}(?!\w)", low):
            out.add(adj)
    return out


def _same_nationality(a: set[str], b: set[str]) -> bool:
    # "Italian" ~ "Italy" ~ "Italians": a shared stem of five letters is the same nationality.
    return bool(a & b) or any(x[:5] == y[:5] and len(x) >= 5 and len(y) >= 5 for x in a for y in b)


def _has_words(words: tuple[str, ...], text: str) -> bool:
    have = set(stems(text))
    want = [stems(w)[0] for w in words if stems(w)]
    return bool(want) and all(variants(w) & have or any(h.startswith(w) for h in have if len(w) >= 5) for w in want)


def defines(side: str, sentence: str, title: str = "") -> bool:
    """Does ``sentence`` say what ``side`` is ("X is an English musician", "He was a …" in X's
    own passage, "X: a genus of …")?"""
    x = re.escape(side)
    last = re.escape(side.split()[-1]) if side.split() else x
    own = bool(title) and _norm(title).startswith(_norm(side))
    subject = rf"(?:{x}|{last})" + (r"|he|she|it|they|the\s+\w+" if own else "")
    return re.search(
        rf"(?:^|[.;]\s+)(?:the\s+)?(?:[A-Z][\w'’.-]*\s+){{0,3}}(?:{subject})\b[^.;]{{0,120}}?\b(?:is|was|are|were)\s+(?:an?|the|one)\b"
        rf"|(?:^|\W){x}\s*(?:\([^)]*\))?\s*[:,]\s+(?:an?|the)\b",
        sentence,
        re.IGNORECASE,
    ) is not None


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


@dataclass(frozen=True)
class Value:
    """A side's value as one sentence gives it: ``shown`` is how the answer line states it."""

    kind: str
    years: tuple[int, ...] = ()
    names: frozenset[str] = frozenset()
    has: bool | None = None
    shown: str = ""


def side_value(c: Comparison, side: str, sentence: str, title: str = "") -> Value | None:
    """The value of the compared attribute that ``sentence`` gives for ``side`` (None: it gives none).

    The sentence must be about the side: it names it, or it is in the side's own passage.
    """
    about = _mentions_side(side, sentence) or (bool(title) and _norm(title).startswith(_norm(side)))
    if not about:
        return None
    if c.kind == "date":
        ys = _years(sentence)
        return Value("date", years=(ys[0],), shown=str(ys[0])) if ys else None
    if c.kind == "nationality":
        nat = nationalities(sentence)
        if not nat:
            return None
        shown = next(iter(_demonyms(sentence)), "")
        return Value("nationality", names=frozenset(nat), shown=shown or sorted(nat)[0].title())
    if c.kind == "same":
        names = _names_near(c.words, sentence, side)
        return Value("same", names=frozenset(n.lower() for n in names), shown=names[0]) if names else None
    if c.kind == "category":
        if _has_words(c.words, sentence):
            return Value("category", has=True, shown=" ".join(c.words))
        if defines(side, sentence, title) and not c.target:
            return Value("category", has=False, shown=_defining_phrase(sentence) or "")
        return None
    return None


def _mentions_side(side: str, sentence: str) -> bool:
    s, t = _norm(side), _norm(sentence)
    return bool(s) and f" {s} " in f" {t} "


def _names_near(words: tuple[str, ...], sentence: str, side: str) -> list[str]:
    """Names right after (or before) the attribute's noun: "the family Cucurbitaceae", "directed by X"."""
    if not words:
        return []
    stem = stems(words[0])[0] if stems(words[0]) else words[0]
    toks = list(re.finditer(r"[\w'’.-]+", sentence))
    at = [m.start() for m in toks if any(v in (stems(m.group()) or [""])[0] for v in variants(stem)) or
          (stems(m.group()) or [""])[0].startswith(stem[:5])]  # fmt: skip
    if not at:
        return []
    side_low = _norm(side)
    found: list[tuple[int, str]] = []
    for n in names_in(sentence):
        if _norm(n) in side_low or side_low in _norm(n):
            continue
        i = sentence.find(n)
        d = min(abs(i - a) for a in at)
        if d <= 60:
            found.append((d + (0 if i > at[0] else 20), n))
    return [n for _, n in sorted(found)]


def _defining_phrase(sentence: str) -> str:
    m = re.search(r"\b(?:is|was|are|were)\s+((?:an?|the|one of the)\s+[^.,;()]{3,60})", sentence)
    return " ".join(m.group(1).split()[:8]) if m else ""


def verdict(c: Comparison, values: list[Value | None]) -> str | None:
    """"yes" / "no" from the two sides' values, or None when a value is missing or they cannot be compared."""
    if not c.yes_no or len(values) < 2 or any(v is None for v in values):
        return None
    vs = [v for v in values if v is not None]
    if c.kind == "date":
        ys = [v.years[0] for v in vs]
        if c.century:
            inside = [(c.century - 1) * 100 < y <= c.century * 100 for y in ys]
            return "yes" if all(inside) else "no"
        if c.target:
            t = int(c.target)
            ok = [y < t if c.polarity == "earlier" else y > t for y in ys]
            return "yes" if all(ok) else "no"
        if ys[0] == ys[1]:
            return None
        first_earlier = ys[0] < ys[1]
        return "yes" if first_earlier == (c.polarity == "earlier") else "no"
    if c.kind == "nationality":
        if c.target:
            return "yes" if all(_same_nationality({c.target}, set(v.names)) for v in vs) else "no"
        same = _same_nationality(set(vs[0].names), set(vs[1].names))
        return "yes" if same == (c.polarity == "same") else "no"
    if c.kind == "same":
        same = bool(vs[0].names & vs[1].names)
        return "yes" if same == (c.polarity == "same") else "no"
    if c.kind == "category":
        return "yes" if all(v.has for v in vs) else "no"
    return None


_STATED = re.compile(r"(?:^|\n)\s*(?:[-*•]\s*)?(?:answer\s*:\s*)?(yes|no)\b", re.IGNORECASE)


def stated_verdict(text: str) -> str | None:
    """The yes / no an answer states (its first line or a sentence opening with it), if any."""
    m = _STATED.search(text)
    return m.group(1).lower() if m else None


__all__ = ["Comparison", "Value", "comparison", "defines", "is_demonym", "nationalities", "side_value", "stated_verdict", "verdict"]
