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

from ..text.language import STOPWORDS, ZH_STOPWORDS, has_cjk, query_terms
from ..text.messages import Message, msg

ANSWER_TYPES = (
    "who", "when", "where", "how_many", "how_much", "which", "yes_no", "definition", "why", "how",
    "comparison", "other",
)  # fmt: skip

# --- names (shared with the offline policy) ------------------------------------------------------

# Shirley, O'Brien, F., U.S., WINNER, and the abbreviations that sit inside names (Ken St. Andre).
_CAP = r"(?:(?:St|Mt|Ft|Dr|Jr|Sr|Mr|Mrs|Ms|Prof|Gen|Col|Lt|Sgt|Rev)\.|[A-Z][\w'’.\-]*[\w’]|[A-Z]\.|[A-Z])"
# Words that may sit inside a name ("University of Kansas", "Ludwig van Beethoven"); "and",
# "for" and friends usually join two names ("Howard Ashman and Alan Menken"), so they split.
_LINK = r"(?:of|the|de|del|der|van|von|da|di|du|la|le|al|bin|ibn)"
_NAME = re.compile(rf"\b{_CAP}(?:\s+(?:{_LINK}\s+)*{_CAP})*")
# Quoted titles, English and Chinese: "Kiss and Tell", 《红楼梦》, 「请假流程」.
_QUOTED = re.compile(r"[\"“]([^\"”]{2,80})[\"”]|《([^》]{1,40})》|「([^」]{1,40})」|『([^』]{1,40})』")
_POSSESSIVE = re.compile(r"['’]s?$")
# Capitalised at a sentence start or as a function word, not because they are names.
_NOT_NAME_WORDS = (
    "the a an in on at it its this that these those he she they we his her their there here "
    "as after before during since while when where what which who whom whose how although "
    "however but and or if for from by with to of also both each other some many most "
    "several is are was were be been do does did has have had can could will would should "
    "might january february march april may june july august september october november "
    "december monday tuesday wednesday thursday friday saturday sunday aside besides "
)
NOT_NAMES = frozenset(_NOT_NAME_WORDS.split())
_LINK_RE = re.compile(_LINK)
# Instruction verbs that open a request ("Comparing BERT and GPT-2: …", "Explain ELMo"): capitalised
# because they start the sentence, not part of the name that follows them.
_OPENING_VERBS = frozenset(
    ["compare", "comparing", "contrast", "contrasting", "describe", "describing", "explain", "explaining", "list", "listing", "summarise", "summarize", "summarising", "summarizing", "tell", "give", "name", "define", "discuss", "discussing", "outline", "evaluate", "evaluating", "identify", "show", "find", "using", "use", "given", "based", "considering", "regarding", "assuming", "suppose", "supposing", "according", "looking", "focusing", "please"]
)


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
        while len(words) > 1 and opening and words[0].lower() in _OPENING_VERBS:
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
class Hop:
    """One step of a bridge question: find ``relation`` of ``anchor`` (or of the previous hop's answer)."""

    text: str  # the description as the question words it
    anchor: str  # the entity it starts from; "" when it starts from the previous hop's answer
    relation: tuple[str, ...]  # the relation's content words ("county", "located")


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


# --- English ------------------------------------------------------------------------------------

_WH = re.compile(
    r"\b(how\s+many|how\s+much|how\s+(?:old|long|far|tall|big|large|high|deep|wide|heavy|often)|"
    r"who|whom|whose|when|where|why|how|which|what)\b",
    re.IGNORECASE,
)
_YES_NO_START = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should|shall|may)\b", re.IGNORECASE
)
# The head noun after which/what says what kind of thing is asked for.
_TIME_NOUNS = frozenset(
    [
        "year",
        "years",
        "date",
        "day",
        "month",
        "decade",
        "century",
        "time",
        "timeframe",
        "period",
        "era",
        "season",
        "age",
    ]
)
_PLACE_NOUNS = frozenset(
    [
        "city",
        "town",
        "village",
        "country",
        "county",
        "state",
        "province",
        "region",
        "place",
        "location",
        "area",
        "island",
        "continent",
        "capital",
        "district",
        "municipality",
        "neighborhood",
        "neighbourhood",
        "borough",
        "street",
        "river",
        "mountain",
        "lake",
        "nation",
        "headquarters",
        "birthplace",
    ]
)
_PERSON_NOUNS = frozenset(
    [
        "person",
        "man",
        "woman",
        "actor",
        "actress",
        "director",
        "writer",
        "author",
        "singer",
        "musician",
        "player",
        "composer",
        "producer",
        "politician",
        "president",
        "king",
        "queen",
        "leader",
        "founder",
        "creator",
        "artist",
        "poet",
        "novelist",
        "screenwriter",
        "manager",
        "coach",
        "scientist",
        "physicist",
        "chemist",
        "inventor",
        "designer",
        "architect",
        "painter",
        "rapper",
        "drummer",
        "guitarist",
        "member",
        "wife",
        "husband",
        "son",
        "daughter",
        "father",
        "mother",
        "brother",
        "sister",
        "spouse",
        "child",
        "boy",
        "girl",
        "people",
        "philosopher",
        "economist",
        "journalist",
        "presenter",
        "host",
        "comedian",
        "dancer",
        "model",
        "pilot",
    ]
)
_COUNT_NOUNS = frozenset(["number", "amount", "population", "count", "total", "size"])
# Measured quantities: "what accuracy …", "what percentage …" ask for a value.
_MEASURE_NOUNS = frozenset(
    ["accuracy", "score", "rate", "percentage", "percent", "ratio", "speed", "cost", "price", "length", "height",
     "weight", "capacity", "temperature", "value", "f1", "precision", "recall", "depth", "area", "distance",
     "duration", "budget", "revenue", "salary", "age", "elevation"]
)  # fmt: skip
_DEFINE = re.compile(
    r"^\s*(?:what\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?(?P<x>[^?]{1,60}?)\s*\??\s*$"
    r"|(?:define|definition of|meaning of)\s+(?P<y>[^?]{1,60})|what\s+does\s+(?P<z>[^?]{1,60}?)\s+(?:mean|stand for|contain|include|comprise|consist of|cover|offer|provide)\b"
    r"|what\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?P<w>[^?]{1,60}?)\s+about\s*\??\s*$)",
    re.IGNORECASE,
)
# "A or B" choice with the compared attribute, and other comparison cues.
_CHOICE = re.compile(r",?\s*(?P<a>[^,?]+?)\s+or\s+(?P<b>[^,?]+?)\s*\??\s*$")
_COMPARE = re.compile(
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
_NUMBER = re.compile(r"\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b|\b\d+(?:\.\d+)?(?:[–-]\d+)?%?|\b\d{4}s\b")
# Aspect nouns: what is asked about a topic, not the topic ("the limitations of X"). They are
# soft parts: required for "answered", but no sign that the library is about the question.
_ASPECTS = frozenset(
    [
        "limitation",
        "limitations",
        "advantage",
        "advantages",
        "disadvantage",
        "disadvantages",
        "drawback",
        "drawbacks",
        "benefit",
        "benefits",
        "challenge",
        "challenges",
        "application",
        "applications",
        "strength",
        "strengths",
        "weakness",
        "weaknesses",
        "contribution",
        "contributions",
        "idea",
        "ideas",
        "goal",
        "goals",
        "problem",
        "problems",
        "solution",
        "solutions",
        "difference",
        "differences",
        "similarity",
        "similarities",
        "pros",
        "cons",
        "overview",
        "summary",
        "details",
        "definition",
        "meaning",
    ]
)
_GENERIC = frozenset(
    [
        "name",
        "names",
        "type",
        "kind",
        "sort",
        "thing",
        "things",
        "one",
        "ones",
        "part",
        "parts",
        "way",
        "ways",
        "something",
        "someone",
        "also",
        "known",
        "called",
        "used",
        "use",
        "uses",
        "based",
        "located",
        "held",
        "made",
        "make",
        "makes",
        "take",
        "takes",
        "give",
        "gives",
        "get",
        "gets",
        "go",
        "goes",
        "come",
        "came",
        "become",
        "became",
        "well",
        "many",
        "much",
        "new",
        "other",
        "another",
        "same",
        "different",
        "effect",
        "effects",
        "impact",
        "role",
        "purpose",
        "method",
        "methods",
        "result",
        "results",
        "approach",
        "paper",
        "papers",
        "study",
        "studies",
        "work",
        "works",
        "article",
        "question",
        "questions",
        "answer",
        "information",
        "example",
        "examples",
        "main",
        "important",
        "aspect",
        "aspects",
        "feature",
        "features",
        "current",
        "currently",
        "originally",
        "formerly",
        "later",
        "first",
        "second",
        "third",
        "include",
        "includes",
        "including",
        "besides",
        "aside",
        "around",
        "often",
        "still",
        "like",
        "number",
        "year",
        "years",
        "date",
        "time",
        *list(_ASPECTS),
        # light and containment verbs: "shares a border" is "borders", "contains N papers" is "N papers"
        *["share", "shares", "shared", "sharing", "contain", "contains", "contained", "consist", "consists"],
        *["comprise", "comprises", "feature", "features", "featured", "have", "has", "had", "hold", "holds"],
        # the comparison itself ("how do A and B differ") is the question's form, not a concept
        *["differ", "differs", "differed", "compare", "compared", "contrast", "versus"],
    ]
)
_ENTITY_STOP = frozenset({"ai", "i", "ok"})


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+(?:[-'’.][^\W_]+)*", text)


def _content(text: str) -> list[str]:
    out = []
    for w in _words(text):
        lw = w.lower().strip(".'’-")
        if lw and lw not in STOPWORDS and lw not in _NOT_NAMES_LOWER and not lw.isdigit():
            out.append(lw)
    return out


_MONTHS = frozenset(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
)
_NOT_NAMES_LOWER = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"})


_AUX = frozenset(
    [
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "has",
        "have",
        "had",
        "does",
        "did",
        "do",
    ]
)
_PREPOSITIONS = frozenset(
    [
        "in",
        "on",
        "at",
        "by",
        "of",
        "for",
        "from",
        "to",
        "with",
        "since",
        "during",
        "until",
        "under",
        "into",
        "as",
        "than",
    ]
)


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
        if not before or before[-1].lower().strip(",") in _PREPOSITIONS or not q[m.end() :].strip(" ?"):
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
    if _YES_NO_START.match(q):
        return None
    # Only relative clauses? The first wh-word that is not right after a noun-like word.
    for m in found:
        prev = q[: m.start()].split()[-1].lower()
        if prev in STOPWORDS or prev in _PREPOSITIONS:
            return m
    return None


def _answer_type_en(q: str) -> tuple[str, str]:
    """(answer type, head noun) from the interrogative wh-word, wherever it stands."""
    m = _question_wh(q)
    if m is None:
        if _YES_NO_START.match(q):
            return "yes_no", ""
        return "other", ""
    wh = " ".join(m.group(1).lower().split())
    rest = q[m.end() :]
    head_m = re.match(
        r"\s+(?:(?:the|a|an|kind\s+of|type\s+of|sort\s+of)\s+)?([\w-]+)(?:\s+([\w-]+))?(?:\s+([\w-]+))?", rest
    )
    heads = [(g or "").lower() for g in head_m.groups()] if head_m else [""]
    if heads[0] in _AUX:
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
        if h in _TIME_NOUNS:
            return "when", h
        if h in _PLACE_NOUNS:
            return "where", h
        if h in _PERSON_NOUNS:
            return "who", h
        if h in _COUNT_NOUNS:
            return "how_many", h
        if h in _MEASURE_NOUNS:
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


def _split_subquestions(q: str) -> list[str]:
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
_COMPASS = frozenset(["north", "south", "east", "west", "northern", "southern", "eastern", "western"])


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


def _entities_en(q: str) -> list[str]:
    out: list[str] = []
    for n in _join_titles(q, names_in(q)):
        if n.lower() in _ENTITY_STOP or n.lower() in _NOT_NAMES_LOWER or n.lower() in _COMPASS:
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


def _concepts_en(q: str, entities: list[str]) -> list[str]:
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
            or lw in _NOT_NAMES_LOWER
            or lw in _MONTHS
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
        words = [w for w in ph.split() if w not in _GENERIC]
        if words:
            out.append(" ".join(words[:4]))
        out.extend(w for w in ph.split() if w in _ASPECTS)
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


def _sides(q: str, entities: list[str]) -> tuple[list[str], list[str]]:
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
            if w not in _GENERIC or w in ("first", "later")
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
    if _COMPARE.search(body) and len(entities) >= 2:
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
            attribute = [w for w in _content(_strip_entities(body, [side_a, side_b])) if w not in _GENERIC]
            return [side_a, side_b], attribute
        return entities[:2], [w for w in _content(_strip_entities(body, entities)) if w not in _GENERIC]
    return [], []


def _hops_en(q: str, entities: list[str]) -> list[Hop]:
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
    main_rel = [w for w in _content(_strip_entities(main, entities)) if w not in _GENERIC]
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
        if w in _AUX or (w.endswith("ed") and not relative) or _WH.fullmatch(w):
            if own_verb and w in _AUX and (nxt.endswith(("ed", "en")) or nxt in ("in", "on", "at", "by")):
                own_verb = False  # the clause's own "is located": keep it
                continue
            if own_verb and w in _AUX and not words[i + 1 :]:
                break
            return stretch[: head_end + m.start()].strip(" ,")
        if own_verb and relative and not w.endswith("ed"):
            continue
        own_verb = False
    return stretch.strip()


# --- Chinese ------------------------------------------------------------------------------------

# A concept is what is left of a run of Chinese characters once the words that only glue the
# sentence together are cut out: particles and conjunctions, question words, demonstratives
# and numerals with their measure word (这篇, 几个, 多少篇), prepositions and a small set of
# relation verbs (包含, 相比, 属于 …) that link concepts instead of being one.
_ZH_QUESTION_WORDS = (
    "多少篇", "多少个", "多少种", "多少位", "多少项", "多少次", "多少年",
    "为什么", "什么时候", "怎么样", "是不是", "有没有", "什么", "哪些", "哪个", "哪一", "哪种", "哪里", "哪儿", "哪年",
    "多少", "多久", "多长", "多大", "多高", "多远", "多重", "如何", "怎么", "怎样", "为何", "何时", "何地", "是否",
    "能否", "可否", "请问", "谁",
)  # fmt: skip
_ZH_VERBS = (
    "包含", "包括", "相比", "相较", "比较", "对比", "区别", "属于", "成为", "位于", "具有", "拥有", "采用", "使用", "利用",
    "提出", "进行", "通过", "基于", "根据", "关于", "对于", "以及", "还是", "或者", "并且", "而且", "但是", "因为",
    "所以", "如果", "可以", "能够", "应该", "需要", "已经", "主要", "一般", "通常", "分别", "其中", "之间", "之后",
    "之前", "以来", "以后", "以前", "出现", "发生", "开始", "结束", "介绍", "告诉", "说明", "解释", "描述", "称为",
    "叫做", "被称为", "作为", "来自", "存在", "有关", "相关", "涉及", "得到", "获得", "导致", "造成", "引起", "表示",
    "认为", "发现", "提到", "指出", "是指", "指的是", "意思", "含义", "定义", "参与", "现在", "体现在", "体现",
)  # fmt: skip
_ZH_DEMONSTRATIVE = "这那哪每各该本此其"
_ZH_NUMERAL = "一二两三四五六七八九十百千万几第"
_ZH_MEASURE = "个篇种位名项条件次年月天日本部只张章节类份届座所家门首台股处路区派国批支"
_ZH_PARTICLES = "的了是在和与及或吗呢吧啊把被对从向于将就也而并之给让使由比跟同以为有"
# Words that hold a glue character but are words (参与 is not 参 + 与, 目的 not 目 + 的).
_ZH_PROTECTED = (
    "给予", "目的", "的确", "对象", "对手", "对方", "将军", "将来", "从而", "和平", "和谐", "及时", "在于",
    "存在", "实在", "由于", "把握", "就业", "也许", "而是", "并且", "并非", "为止", "以为", "认为",
    "成为", "作为", "因为", "比赛", "比例", "比较", "同时", "同学", "同样", "以后", "以前", "以来", "所以", "可以",
    "有关", "有限", "有效", "所有", "没有", "具有", "拥有", "使用", "使得", "跟随", "向量", "方向",
)  # fmt: skip
_ZH_GENERIC = frozenset(
    ["论文", "文章", "本文", "研究", "方法", "问题", "内容", "作者", "文献", "东西", "方面", "情况", "部分",
     "特点", "作用", "影响", "意义", "结果", "时候", "地方", "原因", "目的", "主要", "优势", "不同", "区别", "关系",
     # modifiers rather than concepts of their own
     "传统", "现有", "常见", "一般", "普通", "经典", "新型", "主流", "目前", "现在", "以往"]
)  # fmt: skip
_ZH_GLUE = re.compile(
    "|".join(sorted((re.escape(w) for w in (*_ZH_QUESTION_WORDS, *_ZH_VERBS)), key=len, reverse=True))
    + f"|(?:多少|哪|[{_ZH_DEMONSTRATIVE}{_ZH_NUMERAL}]+)[{_ZH_MEASURE}]|[{_ZH_PARTICLES}]"
)
_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9+#.\-]*[A-Za-z0-9+#]|[A-Za-z]")


def zh_concepts(text: str) -> list[str]:
    """The concepts of a Chinese question: 'LoopAgent相比传统RAG有什么优势' → LoopAgent, 传统, RAG, 优势.

    Latin-script terms count whole (LoopAgent, RAG, S2ORC); each Chinese run is cut at function
    words, question words, demonstrative/numeral + measure words and relation verbs; what is
    left and is at least two characters long is a concept. Generic words (论文, 方法, 问题 …)
    are kept but marked non-key by ``analyze``.
    """
    out: list[str] = []
    spans: list[tuple[int, str]] = []
    for m in _LATIN_RUN.finditer(text):
        w = m.group().strip(".-")
        if len(w) >= 2 and w.lower() not in STOPWORDS:
            spans.append((m.start(), w))
    for m in _CJK_RUN.finditer(text):
        run = m.group()
        pos = 0
        # "2000年桃花源小厨": a measure character right after digits belongs to the number.
        if m.start() > 0 and text[m.start() - 1].isdigit() and run[:1] in _ZH_MEASURE:
            pos = 1
        protected = [(p.start(), p.end()) for w in _ZH_PROTECTED for p in re.finditer(w, run)]
        for g in _ZH_GLUE.finditer(run):
            inside = any(a <= g.start() < b or a < g.end() <= b for a, b in protected)
            if g.start() < pos or inside:
                continue
            piece = run[pos : g.start()]
            if len(piece) >= 2:
                spans.append((m.start() + pos, piece))
            pos = g.end()
        piece = run[pos:]
        if len(piece) >= 2:
            spans.append((m.start() + pos, piece))
    spans.sort()
    for _, w in spans:
        w = w.strip()
        if w and w not in ZH_STOPWORDS and w not in out:
            out.append(w)
    return out


# Chinese question words → answer type, the first that matches wins (a comparison is tested first).
_ZH_TYPES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), kind)
    for pattern, kind in (
        (r"为什么|为何|原因|何故", "why"),
        (r"什么时候|何时|哪一?年|哪天|几月|几号|年份|日期|时间", "when"),
        (r"哪里|哪儿|在哪|什么地方|何地|哪个(?:国家|城市|省|地区|地方)|位于", "where"),
        (r"多少钱|多大|多高|多长|多重|多远|多久", "how_much"),
        (r"多少|几[个位名种篇项条次年]|数量|人数", "how_many"),
        (r"谁|哪位|哪个人|作者是", "who"),
        (r"如何|怎么|怎样", "how"),
        (r"什么是|是什么|指什么|是指|含义|定义|意思", "definition"),
        (r"是否|是不是|有没有|能不能|可不可以|[吗么][？?]?$", "yes_no"),
        (r"哪些|哪个|哪一|哪种|什么", "which"),
    )
)


def _answer_type_zh(q: str) -> str:
    if re.search(r"对比|比较|区别|差异|异同|相比|不同|哪个更|谁更|更早|更晚|更多|更少|还是", q) and re.search(
        r"[和与跟同及、]|还是|相比", q
    ):
        return "comparison"
    return next((kind for pattern, kind in _ZH_TYPES if pattern.search(q)), "other")


def _sides_zh(q: str, concepts: list[str]) -> list[str]:
    m = re.search(
        r"(?P<a>[A-Za-z0-9\u4e00-\u9fff]+?)(?:和|与|跟|同|及|、|还是|相比)(?P<b>[A-Za-z0-9\u4e00-\u9fff]+?)(?:相比|之间|的|有|在|哪|谁|[？?，,]|$)",
        q,
    )
    if not m:
        return []
    a = next((c for c in reversed(concepts) if c in m.group("a")), "")
    b = next((c for c in concepts if c in m.group("b")), "")
    return [a, b] if a and b and a != b else []


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
    return tuple(w.lower() for w in _words(text) if w.lower() not in STOPWORDS) or (text.lower(),)


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
    numbers = tuple(dict.fromkeys(m.group() for m in _NUMBER.finditer(q)))
    if zh:
        return _analyze_zh(q, numbers)
    return _analyze_en(q, numbers)


def _analyze_en(q: str, numbers: tuple[str, ...]) -> QuestionAnalysis:
    subs = _split_subquestions(q)
    sub_types = tuple(_answer_type_en(s)[0] for s in subs) if len(subs) > 1 else ()
    answer_type, _head = _answer_type_en(q)
    entities = _entities_en(q)
    sides, attribute = _sides(q, entities)
    if sides:
        answer_type = "comparison" if answer_type not in ("yes_no",) or _COMPARE.search(q) else answer_type
    hops = _hops_en(q, entities) if not sides else []
    concepts = _concepts_en(q, entities)
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
            key = not entities and len(w) >= 3 and w not in _ASPECTS
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
    if sides and _YES_NO_START.match(q):
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
    answer_type = _answer_type_zh(q)
    titles = [t for t in names_in(q) if has_cjk(t)]
    concepts = zh_concepts(q)
    latin = [
        c
        for c in concepts
        if not has_cjk(c) and (c[:1].isupper() or any(ch.isdigit() for ch in c) or c.isupper())
    ]
    entities = list(dict.fromkeys(titles + latin))
    concepts = [c for c in concepts if c not in entities]
    sides = _sides_zh(q, entities + concepts) if answer_type == "comparison" else []
    parts: list[Part] = []
    for e in entities:
        parts.append(Part("entity", e, _terms(e), msg("missing.entity", "zh", term=e)))
    for c in concepts:
        key = c not in _ZH_GENERIC
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
    "zh_concepts",
]
