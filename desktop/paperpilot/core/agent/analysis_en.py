"""English question analysis: proper names and quoted titles, answer types, entities, concepts,
the sides of a comparison and the hops of a bridge question (see ``agent.analysis``).

``names_in`` is shared with the Chinese analysis (quoted titles) and the offline policy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..text.language import STOPWORDS
from .lexicon import (
    ASPECTS,
    AUX,
    COMPASS,
    COUNT_NOUNS,
    ENTITY_STOP,
    GENERIC,
    MEASURE_NOUNS,
    MONTHS,
    NOT_NAMES,
    NOT_NAMES_LOWER,
    OPENING_VERBS,
    PERSON_NOUNS,
    PLACE_NOUNS,
    PREPOSITIONS,
    TIME_NOUNS,
)

# --- names -------------------------------------------------------------------------------------

# Shirley, O'Brien, F., U.S., WINNER, and the abbreviations that sit inside names (Ken St. Andre).
_CAP = r"(?:(?:St|Mt|Ft|Dr|Jr|Sr|Mr|Mrs|Ms|Prof|Gen|Col|Lt|Sgt|Rev)\.|[A-Z][\w'’.\-]*[\w’]|[A-Z]\.|[A-Z])"


# Words that may sit inside a name ("University of Kansas", "Ludwig van Beethoven"); "and",
# "for" and friends usually join two names ("Howard Ashman and Alan Menken"), so they split.
_LINK = r"(?:of|the|de|del|der|van|von|da|di|du|la|le|al|bin|ibn)"


_NAME = re.compile(rf"\b{_CAP}(?:\s+(?:{_LINK}\s+)*{_CAP})*")


# Quoted titles, English and Chinese: "Kiss and Tell", 《红楼梦》, 「请假流程」.
_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]|《([^》]{1,40})》|「([^」]{1,40})」|『([^』]{1,40})』")


_POSSESSIVE = re.compile(r"['’]s?$")


_LINK_RE = re.compile(_LINK)


def names_in(sentence: str) -> list[str]:
    """Proper names and quoted titles in one sentence, in order of appearance (repeats kept).

    A lone capitalised word opening the sentence is usually just the sentence's first word.
    """
    found: list[tuple[int, str]] = []
    quoted: list[tuple[int, int]] = []
    for m in _QUOTED.finditer(sentence):
        i = next(i for i in range(1, 5) if m.group(i) is not None)
        found.append((m.start(i), m.group(i).strip()))
        quoted.append(m.span())
    for m in _NAME.finditer(sentence):
        if any(a <= m.start() < b for a, b in quoted):
            continue  # part of a quoted title, which counts whole
        words = m.group().split()
        while words and words[0].lower() in NOT_NAMES:
            words = words[1:]
        opening = not sentence[: m.start()].strip(" \"“'‘([") or sentence[: m.start()].rstrip().endswith((":", ";"))
        while len(words) > 1 and opening and words[0].lower() in OPENING_VERBS:
            words = words[1:]
        while words and (words[-1].lower() in NOT_NAMES or _LINK_RE.fullmatch(words[-1])):
            words = words[:-1]
        if words:
            words[-1] = _POSSESSIVE.sub("", words[-1])
        name = " ".join(words).rstrip(".")
        if len(name) < 2 or name.lower() in STOPWORDS:
            continue
        if (
            len(words) == 1
            and m.group().split()[0] == words[0]
            and not sentence[: m.start()].strip(" \"“'‘([")
        ):
            continue
        found.append((m.start(), name))
    found.sort()
    return [n for _, n in found]


@dataclass(frozen=True)
class Hop:
    """One step of a bridge question: find ``relation`` of ``anchor`` (or of the previous hop's answer)."""

    text: str  # the description as the question words it
    anchor: str  # the entity it starts from; "" when it starts from the previous hop's answer
    relation: tuple[str, ...]  # the relation's content words ("county", "located")


# --- questions ---------------------------------------------------------------------------------

_WH = re.compile(
    r"\b(how\s+many|how\s+much|how\s+(?:old|long|far|tall|big|large|high|deep|wide|heavy|often)|"
    r"who|whom|whose|when|where|why|how|which|what)\b",
    re.IGNORECASE,
)


YES_NO_START = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|shall|may)\b", re.IGNORECASE
)


_DEFINE = re.compile(
    r"^\s*(?:what\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?(?P<x>[^?]{1,60}?)\s*\??\s*$"
    r"|(?:define|definition of|meaning of)\s+(?P<y>[^?]{1,60})|what\s+does\s+(?P<z>[^?]{1,60}?)\s+(?:mean|stand for|contain|include|comprise|consist of|cover|offer|provide)\b"
    r"|what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<w>[^?]{1,60}?)\s+about\s*\??\s*$)",
    re.IGNORECASE,
)


# "A or B" choice with the compared attribute, and other comparison cues.
_CHOICE = re.compile(r",?\s*(?P<a>[^,?]+?)\s+or\s+(?P<b>[^,?]+?)\s*\??\s*$")


COMPARE = re.compile(
    r"\b(?:compare[sd]?|comparison|differ(?:ence|ences|ent|s)?|versus|vs\.?|contrast|similarit(?:y|ies)|"
    r"both|same|either|neither|common|share)\b",
    re.IGNORECASE,
)


_COMPARATIVE = re.compile(
    r"\b(?:\w+er|more|less|first|earlier|earliest|later|latest|last|older|oldest|younger|youngest|"
    r"longer|shorter|higher|lower|larger|smaller|bigger|greater|fewer|most|least|best|worst)\b",
    re.IGNORECASE,
)


_AND_PAIR = re.compile(
    r"\b(?:between\s+)?(?P<a>[A-Z\"“][^,?]*?)\s+(?:and|&)\s+(?P<b>[A-Z\"“][^,?]*?)(?=\s+(?:both|have|had|share|"
    r"differ|are|were|is|was|of|in|from|located|born|the)\b|\s*\?|$)"
)


# Relational descriptions that make a bridge question.
_REL_PRONOUN = r"(?:who|whom|whose|that|which|where|when|in\s+which|at\s+which|on\s+which|of\s+which|by\s+which|from\s+which|for\s+which|to\s+which|with\s+which|under\s+which)"


# A noun-phrase word: anything but a function word, so "a border with the county in which"
# yields "the county in which", not "a border with the county".
_NPW = r"(?!(?:the|a|an|of|with|in|on|at|to|for|by|from|and|or|as|is|was|are|were|who|which|that|where)\b)[\w'’-]+"


_DESC_REL = re.compile(rf"\b(?:the|a|an)\s+((?:{_NPW}\s+){{0,3}}?{_NPW})\s+{_REL_PRONOUN}\s+", re.IGNORECASE)


_DESC_OF = re.compile(
    rf"\b(?:the|a|an)\s+((?:{_NPW}\s+){{0,2}}?(?-i:[a-z])[\w'’-]*)\s+of\s+(?=the\s|a\s|an\s|[A-Z\"“])",
    re.IGNORECASE,
)


_PARTICIPLE = (
    r"starring|directed\s+by|written\s+by|founded\s+by|formed\s+by|created\s+by|produced\s+by|designed\s+by|"
    r"owned\s+by|named\s+after|based\s+on|located\s+in|portrayed\s+by|played\s+by|featuring|developed\s+by|"
    r"published\s+by|released\s+by|composed\s+by|built\s+by|hosted\s+by|led\s+by|known\s+as|born\s+in"
)


_DESC_PART = re.compile(
    rf"\b(?:the|a|an)\s+((?:{_NPW}\s+){{0,3}}?{_NPW})\s+(?:{_PARTICIPLE})\b", re.IGNORECASE
)


_POSS = re.compile(r"\b([A-Z][\w.\-]*(?:\s+[A-Z][\w.\-]*)*)['’]s\s+([a-z][\w-]*)")


NUMBER = re.compile(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+(?:\.\d+)?(?:[–-]\d+)?%?|\b\d{4}s\b")


def split_words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:[-'’.][^\W_]+)*", text)


def _content(text: str) -> list[str]:
    out = []
    for w in split_words(text):
        lw = w.lower().strip(".'’-")
        if lw and lw not in STOPWORDS and lw not in NOT_NAMES_LOWER and not lw.isdigit():
            out.append(lw)
    return out


def _question_wh(q: str) -> re.Match[str] | None:
    """The interrogative wh-word: "how many/much" anywhere, else one opening the question, after
    a preposition ("in what year", "by whom") or closing it ("formed by who?"); a wh-word right
    after a noun ("the arena where …", "the woman who …") opens a relative clause instead."""
    found = list(_WH.finditer(q))
    if not found:
        return None
    for m in found:
        if m.group(1).lower().startswith(("how many", "how much")):
            return m
    for m in found:
        before = q[: m.start()].split()
        if not before or before[-1].lower().strip(",") in PREPOSITIONS or not q[m.end() :].strip(" ?"):
            return m
        if before[-1].endswith(","):
            return m  # "…, which film came out first"
        after = q[m.end() :].split()
        if (
            after
            and after[0].lower() in ("is", "was", "are", "were", "did", "does", "do")
            and before[-1].lower() in ("and",)
        ):
            return m
    if YES_NO_START.match(q):
        return None
    # Only relative clauses? The first wh-word that is not right after a noun-like word.
    for m in found:
        prev = q[: m.start()].split()[-1].lower()
        if prev in STOPWORDS or prev in PREPOSITIONS:
            return m
    return None


def answer_type_en(q: str) -> tuple[str, str]:
    """(answer type, head noun) from the interrogative wh-word, wherever it stands."""
    m = _question_wh(q)
    if m is None:
        if YES_NO_START.match(q):
            return "yes_no", ""
        return "other", ""
    wh = " ".join(m.group(1).lower().split())
    rest = q[m.end() :]
    head_m = re.match(
        r"\s+(?:(?:the|a|an|kind\s+of|type\s+of|sort\s+of)\s+)?([\w-]+)(?:\s+([\w-]+))?(?:\s+([\w-]+))?", rest
    )
    heads = [(g or "").lower() for g in head_m.groups()] if head_m else [""]
    if heads[0] in AUX:
        heads = [""]  # "what was the father …": "what" is the object, not a determiner
    head = heads[0]
    if wh.startswith("how many"):
        return "how_many", head
    if wh.startswith("how much") or (wh.startswith("how ") and wh != "how"):
        return "how_much", head
    if wh in ("who", "whom", "whose"):
        return "who", ""
    if wh == "when":
        return "when", ""
    if wh == "where":
        return "where", ""
    if wh == "why":
        return "why", ""
    if wh == "how":
        return "how", ""
    # which / what + head noun
    for h in heads:
        if h in TIME_NOUNS:
            return "when", h
        if h in PLACE_NOUNS:
            return "where", h
        if h in PERSON_NOUNS:
            return "who", h
        if h in COUNT_NOUNS:
            return "how_many", h
        if h in MEASURE_NOUNS:
            return "how_much", h
    d = _DEFINE.match(q)
    if wh == "what" and d:
        x = next((g for g in d.groups() if g), "")
        # "What is S2ORC?", "What is a transformer?"; not "What is the effect of X on Y?".
        if len(x.split()) <= 5 and not re.search(
            r"\b(?:of|on|in|for|with|by|between|to|from|that|which|who)\b", x
        ):
            return "definition", ""
        return "other", ""
    if wh == "what" and not head:
        # "What does S2ORC contain?", "What did the authors find?": the wh-word is the object of a
        # verb, and the answer is a description, not one name to pick out of a passage.
        return "other", ""
    return "which", head


def split_subquestions(q: str) -> list[str]:
    """A multi-part question's parts: "What is S2ORC and how many papers does it contain?"."""
    pieces = [p.strip() for p in re.split(r"[?？;；]\s*", q) if p.strip()]
    out: list[str] = []
    for p in pieces:
        out.extend(
            s.strip()
            for s in re.split(
                r",?\s+and\s+(?=(?:how|what|when|where|who|why|which)\b)", p, flags=re.IGNORECASE
            )
            if s.strip()
        )
    return out


# "American film director", "British-born actor": a nationality adjective before a common noun
# describes; it does not name what the question is about.
_DEMONYM = re.compile(r"^[A-Z][a-z]+(?:an|ian|ese|ish|ic|i|ch)$")


def _join_titles(q: str, names: list[str]) -> list[str]:
    """Names a title splits at a small word: "Truth in Science", "the Star and Dagger bass player"."""
    out = list(names)
    k = 0
    while k + 1 < len(out):
        a, b = out[k], out[k + 1]
        m = re.search(rf"{re.escape(a)}\s+(in|on|for|at|to|with|by)\s+{re.escape(b)}", q)
        if m:
            out[k : k + 2] = [m.group(0)]
        else:
            k += 1
    for m in re.finditer(r"\bthe\s+([A-Z][\w'’-]*)\s+(and|&)\s+([A-Z][\w'’-]*)\s+(?=[a-z])", q):
        a, b = m.group(1), m.group(3)
        if a in out and b in out:
            out[out.index(a)] = f"{a} {m.group(2)} {b}"
            out.remove(b)
    return out


def entities_en(q: str) -> list[str]:
    out: list[str] = []
    for n in _join_titles(q, names_in(q)):
        if n.lower() in ENTITY_STOP or n.lower() in NOT_NAMES_LOWER or n.lower() in COMPASS:
            continue
        if " " not in n and _DEMONYM.match(n) and re.search(rf"\b{re.escape(n)}(?:-born)?\s+[a-z]", q):
            continue
        out.append(n)
    # A year or number right before a name belongs to it ("2022 World Cup", "2011–12 VCU Rams",
    # "888 7th Avenue").
    merged: list[str] = []
    for n in out:
        m = re.search(rf"(?<![\w,.])((?:\d+(?:st|nd|rd|th)?(?:[–-]\d{{2,4}})?\s+)+){re.escape(n)}", q)
        merged.append(f"{' '.join(m.group(1).split())} {n}" if m else n)
    return _split_demonym(q, _comma_titles(q, list(dict.fromkeys(merged))))


def _comma_titles(q: str, names: list[str]) -> list[str]:
    """Titles with a comma: "Circe, the Enchantress" is one name, not "Circe" and "Enchantress".

    Joined when the text between two names is ", the " (or ", a ") and the second name ends the
    question or a list item — a descriptive apposition ("Gimme Shelter, the 1970 Rolling Stones
    documentary") goes on in lower case and is not joined.
    """
    out = list(names)
    k = 0
    while k + 1 < len(out):
        a, b = out[k], out[k + 1]
        m = re.search(rf"{re.escape(a)},\s+((?:the|a|an)\s+{re.escape(b)})(?=\s*(?:[?,;:]|$|\s+(?:or|and)\b))", q)
        if m:
            out[k : k + 2] = [f"{a}, {m.group(1)}"]
        else:
            k += 1
    return out


def _split_demonym(q: str, names: list[str]) -> list[str]:
    """"Are both Jim McBride and Neil Jordan American?": the nationality asked about is not part of
    the name it follows (a name of two words or more before it)."""
    out: list[str] = []
    for n in names:
        words = n.split()
        if len(words) >= 3 and _DEMONYM.match(words[-1]) and re.search(rf"{re.escape(n)}\s*[?.!]*\s*$", q):
            out.append(" ".join(words[:-1]))
        else:
            out.append(n)
    return list(dict.fromkeys(out))


def _strip_entities(text: str, entities: list[str]) -> str:
    for e in sorted(entities, key=len, reverse=True):
        text = re.sub(re.escape(e), " ", text)
    return text


def concepts_en(q: str, entities: list[str]) -> list[str]:
    """Content noun phrases outside the entities: runs of content words between function words."""
    rest = _strip_entities(q, entities)
    rest = re.sub(r"[\"“”]", " ", rest)
    phrases: list[str] = []
    current: list[str] = []
    for tok in re.findall(r"[^\W_]+(?:[-'’.][^\W_]+)*|[^\w\s]", rest):
        lw = tok.lower().strip(".'’-")
        if (
            not lw
            or lw in STOPWORDS
            or lw in NOT_NAMES_LOWER
            or lw in MONTHS
            or not re.match(r"\w", tok)
            or lw.isdigit()
        ):
            if current:
                phrases.append(" ".join(current))
            current = []
            continue
        current.append(lw)
    if current:
        phrases.append(" ".join(current))
    out: list[str] = []
    for ph in phrases:
        words = [w for w in ph.split() if w not in GENERIC]
        if words:
            out.append(" ".join(words[:4]))
        out.extend(w for w in ph.split() if w in ASPECTS)
    return list(dict.fromkeys(out))


def _choice(body: str, entities: list[str]) -> tuple[str, str, int, int] | None:
    """"…, A or B" with commas allowed inside a side that is a name: (a, b, start of a, end of b).

    A side is the comma-separated segment next to " or "; a segment that is one of the question's
    entities keeps its commas ("Circe, the Enchantress"); the choice may sit in the middle of the
    question ("Which novelist, J. G. Farrell or Louis Aragon, wrote …").
    """
    for m in re.finditer(r"\s+or\s+", body):
        left, right = body[: m.start()], body[m.end() :]
        a_start = left.rfind(",") + 1
        for e in entities:  # a side with a comma of its own
            i = left.rfind(e)
            if i >= 0 and i + len(e) == len(left.rstrip()) and "," in e:
                a_start = min(a_start, i)
        b_end = len(right)
        comma = right.find(",")
        if comma >= 0:
            b_end = comma
            for e in entities:
                if right.startswith(e) and "," in e:
                    b_end = max(b_end, len(e))
        a, b = left[a_start:].strip(" ,"), right[:b_end].strip(" ,")
        if a and b and len(a) <= 80 and len(b) <= 80:
            return a, b, a_start, m.end() + b_end
    return None


def sides_en(q: str, entities: list[str]) -> tuple[list[str], list[str]]:
    """The compared things and the compared attribute, or ([], [])."""
    body = q.strip().rstrip("?？").strip()
    ch = _choice(body, entities) if ("," in body or _COMPARATIVE.search(body)) else None
    m = _CHOICE.search(body)
    if ch is not None or (m and ("," in body or _COMPARATIVE.search(body[: m.start()] or body))):
        if ch is not None:
            a, b, a_start, b_end = ch
            head = body[:a_start] + " " + body[b_end:]
        else:
            assert m is not None
            a, b = m.group("a").strip(" ,"), m.group("b").strip(" ,")
            head = body[: m.start()] if "," in body[: m.end()] else body
        # "Who is older, Annie Morton or Terry Richardson" / "Is A or B older": the sides are the
        # entities in the choice; the attribute is what stands before it.
        ents_a = [e for e in entities if e in a]
        ents_b = [e for e in entities if e in b]
        side_a = ents_a[-1] if ents_a else a
        side_b = ents_b[0] if ents_b else b
        attribute = [
            w
            for w in _content(_strip_entities(head, entities))
            if w not in GENERIC or w in ("first", "later")
        ]
        if len(side_a) <= 80 and len(side_b) <= 80 and side_a.lower() != side_b.lower():
            return [side_a, side_b], attribute
    than = re.search(r"\b(?:\w+er|more\s+\w+|less\s+\w+|older|younger|earlier|later)\s+than\s+", body)
    if than and len(entities) >= 2:
        # "Is A older than B?", "Was A released earlier than B?"
        before = [e for e in entities if body.find(e) < than.start()]
        after = [e for e in entities if body.find(e) >= than.end()]
        if before and after:
            return [before[-1], after[0]], [w for w in _content(than.group()) if w != "than"]
    if COMPARE.search(body) and len(entities) >= 2:
        m2 = _AND_PAIR.search(body)
        if m2:
            a, b = m2.group("a"), m2.group("b")
            side_a = next((e for e in entities if e in a), a.strip())
            # The pattern stops B at a function word ("In the Realm of the Hackers" → "In"): B is
            # then the first entity that starts there.
            after_b = [e for e in entities if body.find(e, m2.start("b")) == m2.start("b") or e in b]
            side_b = after_b[0] if after_b else next(
                (e for e in entities if body.find(e) >= m2.start("b") and e != side_a), b.strip()
            )
            # A name that is not a side is part of what is compared ("both located in Michigan").
            attribute = [w for w in _content(_strip_entities(body, [side_a, side_b])) if w not in GENERIC]
            return [side_a, side_b], attribute
        return entities[:2], [w for w in _content(_strip_entities(body, entities)) if w not in GENERIC]
    return [], []


def hops_en(q: str, entities: list[str]) -> list[Hop]:
    """The hops of a bridge question, innermost (the one starting from a named entity) first."""
    descs: list[tuple[int, int, str, bool]] = []  # (start, end, relational noun phrase, relative clause)
    body = q.rstrip("?").strip()
    for rx in (_DESC_REL, _DESC_OF, _DESC_PART):
        for m in rx.finditer(body):
            noun = m.group(1).lower()
            if noun.split()[-1] in STOPWORDS or noun.split()[0] in ("first", "same", "only", "end", "rest"):
                continue
            descs.append((m.start(), m.end(), noun, rx is _DESC_REL))
    for m in _POSS.finditer(body):
        if any(m.group(1) in e or e in m.group(1) for e in entities):
            descs.append((m.start(), m.end(), m.group(2).lower(), False))
    if not descs:
        return []
    descs.sort()
    # Each description with what follows it up to the next one: its anchor is the named entity
    # inside that stretch; the last description's anchor is the question's entity after it.
    hops: list[Hop] = []
    for i, (start, _end, _noun, relative) in enumerate(descs):
        stop = descs[i + 1][0] if i + 1 < len(descs) else len(body)
        stretch = body[start:stop]
        anchor = next((e for e in entities if e in stretch), "")
        stretch = _cut_description(stretch, anchor, relative)
        rel = [w for w in _content(_strip_entities(stretch, entities)) if w not in ("the",)]
        hops.append(
            Hop(text=" ".join(stretch.split()), anchor=anchor, relation=tuple(dict.fromkeys(rel))[:6])
        )
    # The innermost hop is the one whose anchor is named; outer ones start from its answer.
    hops.sort(key=lambda h: (h.anchor == "", -body.find(h.text)))
    inner = [h for h in hops if h.anchor]
    if not inner:
        return []
    chain = [inner[0]] + [Hop(h.text, "", h.relation) for h in hops if h is not inner[0] and not h.anchor]
    # The question's own ask (the main predicate outside the descriptions) is the last hop.
    main = body
    for h in chain:
        main = main.replace(h.text, " ")
    main_rel = [w for w in _content(_strip_entities(main, entities)) if w not in GENERIC]
    # "What is the data model of Bigtable?": the ask outside the description ("What is") adds
    # no relation, so the question has one hop, not a second one nothing could ever answer.
    if main_rel:
        chain.append(Hop(text=" ".join(main.split()), anchor="", relation=tuple(dict.fromkeys(main_rel))[:6]))
    return chain if len(chain) >= 2 else []


def _cut_description(stretch: str, anchor: str, relative: bool) -> str:
    """End a description where the main clause resumes: "the father of Kasper Schmeichel | voted
    to be …", "the arena where X played their home games | can seat …". A relative clause keeps
    its own verb ("… in which Johnnycake, West Virginia is located")."""
    if not anchor or anchor not in stretch:
        return stretch.strip()
    head_end = stretch.index(anchor) + len(anchor)
    words = list(re.finditer(r"\S+", stretch[head_end:]))
    own_verb = relative
    for i, m in enumerate(words):
        w = m.group().lower().strip(",")
        nxt = words[i + 1].group().lower() if i + 1 < len(words) else ""
        if w in AUX or (w.endswith("ed") and not relative) or _WH.fullmatch(w):
            if own_verb and w in AUX and (nxt.endswith(("ed", "en")) or nxt in ("in", "on", "at", "by")):
                own_verb = False  # the clause's own "is located": keep it
                continue
            if own_verb and w in AUX and not words[i + 1 :]:
                break
            return stretch[: head_end + m.start()].strip(" ,")
        if own_verb and relative and not w.endswith("ed"):
            continue
        own_verb = False
    return stretch.strip()
