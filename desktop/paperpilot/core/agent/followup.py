"""Follow-up questions: rewrite "what about the second paper?" into a question that stands alone.

Offline, the rewrite is a few explainable substitutions against the previous turn:

- "the first/second/third paper" (第一篇/第二篇 …) → the title of the N-th distinct document the
  previous answer cited, and that document's evidence is reused;
- pronouns (it, its, they, this …; 它, 其, 该 …) → the previous question's subject (its main entity
  or concept, as ``analysis`` finds them: the one it names first), and the previous evidence is
  reused;
- "what about X?" (X呢？) → the previous question with its subject replaced by X.

With a language model, one small call writes the standalone question; any failure falls back
to the offline rewrite. Which evidence is reused is decided offline in both cases.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..text.language import STOPWORDS, has_cjk
from .events import Evidence, Result

if TYPE_CHECKING:
    from ..llm.client import LLMClient


class TurnLike(Protocol):
    """What a rewrite needs of a previous turn (``core.conversations.Turn`` has it)."""

    @property
    def question(self) -> str: ...

    @property
    def standalone_question(self) -> str: ...

    @property
    def result(self) -> Result: ...


@dataclass
class Rewrite:
    standalone: str  # the question to run (the original when it is not a follow-up)
    reused_evidence: list[Evidence] = field(default_factory=list)
    how: str = "not a follow-up"
    is_followup: bool = False
    subject: str = ""  # what the follow-up's pronouns were resolved to (offline), if anything


_ORD_EN = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
           "fifth": 5, "5th": 5, "last": -1}  # fmt: skip
_ORD_ZH = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5}
_DOC_NOUN = r"(?:paper|one|document|doc|study|article|source|reference|work|result)s?"
_ORDINAL_EN = re.compile(
    rf"\b(?:the\s+)?({'|'.join(_ORD_EN)})\s+{_DOC_NOUN}\b|\b(?:source|reference|citation)\s*\[?(\d)\]?|\[(\d)\]",
    re.IGNORECASE,
)
_ORDINAL_ZH = re.compile(r"第\s*([一二两三四五12345])\s*(?:篇|个|份|项|条)(?:论文|文章|文献|文档|研究|来源)?")
_WHAT_ABOUT = re.compile(r"^\s*(?:and\s+)?(?:what|how)\s+about\s+(.+?)\s*[?？.!]*\s*$", re.IGNORECASE)
_ZH_WHAT_ABOUT = re.compile(r"^\s*(?:那|那么)?\s*(.+?)\s*(?:呢|怎么样|如何)\s*[?？。]*\s*$")
_PRONOUN_EN = re.compile(
    r"\b(its|their|theirs|it|they|them|these|those|this|that)\b(\s+(?:paper|method|approach|model|study|work|"
    r"one|ones|result|results|finding|findings|technique|system|papers|methods|models|studies))?",
    re.IGNORECASE,
)
# "that" introduces a clause far more often than it points back; only these uses count.
_THAT_REFERS = re.compile(
    r"\b(?:compare|contrast|about|with|is|was|does|did|of)\s+(?:that|this|it|them|those|these)\b"
    r"|\b(?:that|this|these|those)\s+(?:paper|method|approach|model|study|work|one|ones|result|results|finding|"
    r"findings|technique|system|papers|methods|models|studies)\b"
    r"|\b(?:that|this)\s*[?？.]?\s*$",
    re.IGNORECASE,
)
_PRONOUN_ZH = re.compile(
    r"它们|它的|它|(?<![尤极])其(?![他它中次实余])|(?<!应)该(?:方法|论文|文章|研究|模型|系统)?|"
    r"这(?:篇|个|些|种)(?:论文|文章|方法|研究|模型)?|那(?:篇|个|些|种)(?:论文|文章|方法|研究|模型)?|"
    r"上面|前面|上述"
)
_POSSESSIVE_NOUN = re.compile(
    r"\b(its|their)\s+([\w\-]+(?:\s+[\w\-]+)?)(?=\s*(?:[?？.,;!]|$|\b(?:in|on|for|with|compared|when)\b))",
    re.IGNORECASE,
)
_LEADING_ZH = re.compile(r"^\s*(?:那么|那|所以|还有)\s*(?=它|其|这|那|该)")
_WORD = re.compile(r"[\w'’\-]+")

REWRITE_SYSTEM_PROMPT = """\
You rewrite a researcher's follow-up question so that it can be understood without the conversation: \
replace pronouns and references such as "the second paper" with what they refer to (use the paper \
titles listed), keep the researcher's language and intent, do not answer it.
Reply with JSON only: {"question": "..."}"""


def _cited_documents(result: Result) -> list[tuple[int, str]]:
    """Distinct documents the answer cited, in citation order: (doc_id, title)."""
    seen: dict[int, str] = {}
    for e in sorted(result.evidence, key=lambda e: e.number):
        seen.setdefault(e.doc_id, e.title)
    return list(seen.items())


def _evidence_of(result: Result, doc_ids: set[int]) -> list[Evidence]:
    return [e for e in result.evidence if e.doc_id in doc_ids]


def _subject(question: str, titles: Sequence[str] = ()) -> str:
    """The previous question's subject: its main entity or concept (``analysis``), the one it
    names first — "LoopAgent" in "LoopAgent相比传统RAG有什么优势？", "dense passage retrieval" in
    "How does dense passage retrieval compare with BM25?"."""
    from .analysis import analyze

    a = analyze(question)
    if a.language == "zh":
        key = {p.text for p in a.parts if p.key}
        candidates = [*a.entities, *[c for c in a.concepts if c in key]]
    else:
        run = _longest_run(question, titles)
        candidates = [*a.entities, *([run] if run else [])]
    found = [(question.find(c), -len(c), c) for c in candidates if c and question.find(c) >= 0]
    if found:
        return min(found)[2]
    return _longest_run(question, titles)


def _longest_run(question: str, titles: Sequence[str] = ()) -> str:
    """The longest run of consecutive content words of an English question.

    When the previous answer cited documents, the longest part of a run that their titles
    name is preferred ("dense passage retrieval", not "dense passage retrieval rank passages").
    """
    runs: list[list[str]] = []
    cur: list[str] = []
    for m in _WORD.finditer(question):
        w = m.group()
        if w.lower() in STOPWORDS or w.lower() in _QUESTION_WORDS:
            if cur:
                runs.append(cur)
            cur = []
        else:
            cur.append(w)
    if cur:
        runs.append(cur)
    if not runs:
        return ""
    title_words = {w.lower().rstrip("s") for t in titles for w in _WORD.findall(t)}
    named: list[list[str]] = []
    for r in runs:
        cur = []
        for w in r:
            if w.lower().rstrip("s") in title_words:
                cur.append(w)
            else:
                if cur:
                    named.append(cur)
                cur = []
        if cur:
            named.append(cur)
    pool = named or runs
    best = max(pool, key=lambda r: (len(r), -pool.index(r)))
    return " ".join(best)


def _noun_part(subject: str) -> str:
    """The noun phrase of a subject run: up to its last plural noun.

    "house sparrows decline" → "house sparrows", so "what about swifts?" after "Why did house
    sparrows decline …?" asks why swifts declined instead of dropping the verb. A run with no
    plural is kept whole.
    """
    words = subject.split()
    plural = [i for i, w in enumerate(words) if len(w) > 3 and w.lower().endswith("s") and not w.lower().endswith("ss")]
    return " ".join(words[: plural[-1] + 1]) if plural and plural[-1] < len(words) - 1 else subject


_QUESTION_WORDS_TEXT = (
    "what which who whom whose why how when where does do did is are was were can could should would "
    "tell explain describe compare summarize summarise list give show main key limitations limitation "
    "advantages disadvantages results result findings"
)
_QUESTION_WORDS = frozenset(_QUESTION_WORDS_TEXT.split())


def _ordinal_ref(question: str) -> tuple[re.Match[str], int] | None:
    m = _ORDINAL_EN.search(question)
    if m:
        if m.group(1):
            return m, _ORD_EN[m.group(1).lower()]
        return m, int(m.group(2) or m.group(3))
    z = _ORDINAL_ZH.search(question)
    if z:
        return z, _ORD_ZH[z.group(1)]
    return None


def is_followup(question: str) -> bool:
    """Does ``question`` lean on an earlier turn (a pronoun, "the second paper", "what about X")?"""
    q = question.strip()
    if not q:
        return False
    if _ordinal_ref(q) or _WHAT_ABOUT.match(q):
        return True
    if has_cjk(q):
        return bool(_PRONOUN_ZH.search(q) or (len(q) <= 20 and _ZH_WHAT_ABOUT.match(q) and "呢" in q))
    for m in _PRONOUN_EN.finditer(q):
        word = m.group(1).lower()
        if word in ("that", "this", "these", "those"):
            if _THAT_REFERS.search(q):
                return True
            continue
        return True
    return False


def _possessive(subject: str) -> str:
    return subject + ("’" if subject.endswith("s") else "’s") if not has_cjk(subject) else subject + "的"


def offline_rewrite(question: str, previous: TurnLike) -> Rewrite:
    """The offline rewrite of ``question`` against the previous turn (see the module doc)."""
    q = question.strip()
    prev_q = (previous.standalone_question or previous.question).strip()
    docs = _cited_documents(previous.result)
    subject = _subject(prev_q, [title for _d, title in docs]) or (docs[0][1] if docs else "")
    if not is_followup(q) or not prev_q:
        return Rewrite(standalone=q)

    # "the second paper" → the second document cited last time.
    ref = _ordinal_ref(q)
    if ref is not None:
        m, n = ref
        if docs and -len(docs) <= (n - 1 if n > 0 else n) < len(docs):
            doc_id, title = docs[n - 1 if n > 0 else n]
            what = m.group(0).strip()
            about = _WHAT_ABOUT.match(q) or (_ZH_WHAT_ABOUT.match(q) if has_cjk(q) else None)
            if about is not None and about.group(1).strip() == what:
                # "what about the second paper?": the previous question, asked of that paper.
                standalone = f"{prev_q.rstrip('?？。. ')} — according to “{title}”?"
            else:
                standalone = q[: m.start()] + f"“{title}”" + q[m.end() :]
                standalone = _replace_pronouns(standalone, f"“{title}”")
            return Rewrite(
                standalone=" ".join(standalone.split()),
                reused_evidence=_evidence_of(previous.result, {doc_id}),
                how=f"offline: {what!r} → the document cited as number {docs.index((doc_id, title)) + 1} "
                f"last time ({title})",
                is_followup=True,
            )
        return Rewrite(
            standalone=q, how=f"offline: {m.group(0)!r} refers to no cited document", is_followup=True
        )

    # "what about X?" → the previous question about X.
    about = _WHAT_ABOUT.match(q)
    if about is None and has_cjk(q) and "呢" in q and not _PRONOUN_ZH.search(q):
        about = _ZH_WHAT_ABOUT.match(q)
    if about is not None and subject:
        target = about.group(1).strip()
        subject = _noun_part(subject)
        standalone = _replace_subject(prev_q, subject, target)
        return Rewrite(
            standalone=standalone,
            how=f"offline: the previous question with {subject!r} replaced by {target!r}",
            is_followup=True,
        )

    # Pronouns → the previous subject; the follow-up is about the same documents.
    if not subject:
        return Rewrite(standalone=q, how="offline: no subject in the previous question", is_followup=True)
    standalone = _replace_pronouns(_LEADING_ZH.sub("", q), subject)
    return Rewrite(
        standalone=standalone,
        reused_evidence=list(previous.result.evidence),
        how=f"offline: pronouns → {subject!r}",
        is_followup=True,
        subject=subject,
    )


def _replace_subject(prev_q: str, subject: str, target: str) -> str:
    if subject and subject in prev_q:
        return prev_q.replace(subject, target, 1)
    return f"{prev_q.rstrip('?？ ')} — {target}?"


def _replace_pronouns(q: str, subject: str) -> str:
    if has_cjk(q) and _PRONOUN_ZH.search(q):

        def zh(m: re.Match[str]) -> str:
            tok = m.group(0)
            if tok in ("它的", "其"):
                return _possessive(subject) if has_cjk(subject) else subject + " 的"
            return subject

        return _PRONOUN_ZH.sub(zh, q, count=1)

    poss = _POSSESSIVE_NOUN.search(q)
    first = _PRONOUN_EN.search(q)
    if poss is not None and first is not None and first.start() == poss.start():
        # "its limitations" → "the limitations of dense retrieval" (a query without a stray "s").
        return q[: poss.start()] + f"the {poss.group(2)} of {subject}" + q[poss.end() :]

    done = False

    def en(m: re.Match[str]) -> str:
        nonlocal done
        word = m.group(1).lower()
        if done:
            return m.group(0)
        if word in ("that", "this", "these", "those") and not m.group(2) and not _THAT_REFERS.search(q):
            return m.group(0)
        done = True
        if word in ("its", "their", "theirs"):
            return _possessive(subject) + (m.group(2) or "")
        return subject  # "that paper" / "it" / "they" → the subject itself

    return _PRONOUN_EN.sub(en, q)


def _llm_rewrite(
    question: str, history: Sequence[TurnLike], client: LLMClient, cancel: threading.Event | None = None
) -> str | None:
    from .llm_policy import parse_json_object

    lines: list[str] = []
    for t in list(history)[-2:]:
        lines.append(f"Researcher: {(t.standalone_question or t.question).strip()}")
        answer = " ".join(t.result.answer.split())
        lines.append(f"Assistant: {answer[:600]}" + ("…" if len(answer) > 600 else ""))
        docs = _cited_documents(t.result)
        if docs:
            lines.append(
                "Papers cited, in order: "
                + "; ".join(f"{i}. {title}" for i, (_d, title) in enumerate(docs, 1))
            )
    last = history[-1]
    docs = _cited_documents(last.result)
    subject = _subject((last.standalone_question or last.question).strip(), [t for _d, t in docs])
    hint = f"\nSUBJECT OF THE PREVIOUS QUESTION (what its pronouns refer to): {subject}" if subject else ""
    messages: list[Any] = [
        {"role": "system", "content": REWRITE_SYSTEM_PROMPT},
        {"role": "user", "content": "CONVERSATION:\n" + "\n".join(lines) + hint + f"\n\nFOLLOW-UP: {question}"},
    ]
    schema = {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}
    reply = client.chat(messages, schema, "rewrite", cancel=cancel, max_tokens=200)
    data = parse_json_object(reply.content)
    if not data or not isinstance(data.get("question"), str):
        return None
    text = " ".join(data["question"].split())
    return text if 0 < len(text) <= 500 else None


def rewrite_followup(
    question: str,
    history: Sequence[TurnLike],
    policy_kind: str = "offline",
    llm_client: LLMClient | None = None,
    cancel: threading.Event | None = None,
) -> Rewrite:
    """Rewrite ``question`` to stand alone, given the conversation so far (oldest turn first).

    A question that is not a follow-up (or has no history) comes back unchanged with
    ``is_followup`` False. With ``policy_kind == "llm"`` and a client, a model writes the
    standalone question; on any error (or a Stop: ``cancel`` set) the offline rewrite is used.
    """
    q = " ".join(question.split())
    if not history or not is_followup(q):
        return Rewrite(standalone=q)
    offline = offline_rewrite(q, history[-1])
    if policy_kind != "llm" or llm_client is None:
        return offline
    try:
        text = _llm_rewrite(q, history, llm_client, cancel)
    except Exception as e:  # the model is optional here: any failure → the offline rewrite
        offline.how = f"{offline.how} (the model's rewrite failed: {type(e).__name__})"
        return offline
    if text is None:
        offline.how = f"{offline.how} (the model's rewrite did not parse)"
        return offline
    subject = offline.subject
    if subject and subject.lower() not in text.lower() and subject.lower() not in q.lower():
        # The pronoun pointed at the previous subject; a rewrite about something else lost it.
        offline.how = f"{offline.how} (the model's rewrite dropped the subject {subject!r}: {text!r})"
        return offline
    return Rewrite(standalone=text, reused_evidence=offline.reused_evidence, how="llm", is_followup=True)
