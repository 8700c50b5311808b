"""Citation and claim checks: an answer may cite only passages read in this run, quotes must be
real, and every sentence must be supported by what it cites (``support.check_claim``).

A sentence that fails the support check is removed and reported, whichever policy wrote it;
the program never attaches a citation to text it has not checked. A sentence that repeats
what an instruction planted in a document demands (``injection``) is rejected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text.language import has_cjk, query_terms, split_sentences
from ..text.messages import Message, msg
from .actions import Answer
from .events import Evidence, PassageView
from .injection import Instruction, obeys, without_instructions
from .support import Bridges, ClaimSupport, check_claim, citable_text, claim_text

# [P3], [P3, P5], [3], [1][2] — ids as the loop assigns them (P-prefixed) or bare numbers.
_CITE = re.compile(r"\[((?:P?\d+)(?:\s*[,;]\s*P?\d+)*)\]")
# Bibliography marks of the quoted paper itself: "the Paxos algorithm [9, 23]", "[4–6]", "[1], [2]".
_ONE_SOURCE_REF = r"\[\d+(?:\s*[,;–-]\s*\d+)*\]"
_SOURCE_REF = re.compile(rf"\s*{_ONE_SOURCE_REF}(?:\s*,\s*{_ONE_SOURCE_REF})*")
_QUOTE = re.compile(r"\"([^\"]{4,}?)\"|“([^”]{4,}?)”|「([^」]{2,}?)」")
_WS = re.compile(r"\s+")


def _norm(text: str) -> str:
    return _WS.sub("", text).lower()


def _canon(ref: str) -> str:
    ref = ref.strip()
    return ref if ref.startswith("P") else f"P{ref}"


_ONLY_CITES = re.compile(r"^(?:\s*\[[^\]]*\])+\s*[.。]?$")


def _sentences(para: str) -> list[str]:
    """Sentences of a paragraph, with a trailing "[P1]" kept on the sentence it follows."""
    out: list[str] = []
    for s in split_sentences(para) or [para]:
        if out and _ONLY_CITES.match(s):
            out[-1] = out[-1] + " " + s.strip()
        else:
            out.append(s)
    return out


def drop_source_refs(text: str) -> str:
    """Text that cites passages by their ids ([P3]) may still carry a quoted paper's own reference
    marks ("the Paxos algorithm [9, 23]"): they point into that paper's bibliography, not to the
    evidence, and would read as this answer's sources, so they go."""
    return _SOURCE_REF.sub("", text) if "[P" in text else text


def without_source_refs(sentence: str) -> str:
    """A quoted sentence without the paper's own numeric citations ("… is sweet [8]." → "… is
    sweet."): beside this answer's markers they would read as its sources."""
    return re.sub(r"\s+([.,;:])", r"\1", _SOURCE_REF.sub("", sentence)).strip()


def sentences_of(paragraph: str) -> list[str]:
    """The sentences of one paragraph of an answer, each with the citation markers that follow it."""
    return _sentences(paragraph)


def cited_ids(sentence: str) -> list[str]:
    """The evidence ids a sentence's markers cite, as the loop names them (P1, P2 …)."""
    return list(dict.fromkeys(_canon(r) for m in _CITE.finditer(sentence) for r in re.split(r"[,;]", m.group(1))))


@dataclass
class Claim:
    """An answer sentence that survived verification, with the passages it cites and its support."""

    text: str
    refs: list[str]  # evidence ids (P-numbers) it cites; empty for a supported uncited conclusion
    support: ClaimSupport


@dataclass
class Verified:
    text: str
    evidence: list[Evidence]
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (code, message)
    rejected_msgs: dict[tuple[str, str], Message] = field(default_factory=dict)  # each as a catalogued message
    unsupported_sentences: int = 0  # sentences removed because their cited text does not support them
    claims: list[Claim] = field(default_factory=list)
    obeyed: list[str] = field(default_factory=list)  # demanded outputs of planted instructions it repeated
    sentences: int = 0  # sentences in the draft (bullets and headings included)


# A sentence that says what is missing is not a claim and needs no citation.
_HEDGE = re.compile(
    r"\b(?:no|not|none|nothing|unknown|unclear|cannot|can't|could not|does not|do not|did not|isn't|aren't|"
    r"wasn't|weren't|neither|missing|insufficient)\b|没有|未(?:提|说|给|找)|不清楚|无法|缺少|不足",
    re.IGNORECASE,
)


def _is_hedge(sentence: str) -> bool:
    return _HEDGE.search(sentence) is not None and not _CITE.search(sentence)


def verify_answer(
    answer: Answer,
    passages: dict[str, PassageView],
    *,
    question: str = "",
    bridges: Bridges | None = None,
    instructions: list[Instruction] | None = None,
    check_support: bool = True,
) -> Verified:
    """Keep only supported sentences citing read passages whose quotes occur in them; renumber [1], [2] …

    A sentence's quoted spans must occur (whitespace-insensitive) in at least one of the
    passages the same sentence cites; a citation that fails is removed and reported. Then the
    sentence's content must be in what it still cites (``support.check_claim``), or it is
    removed. An answer with evidence listed but no inline marker has each sentence checked
    against each listed passage; only the passages that support a sentence are cited by it.
    An uncited sentence is kept only when it says what is missing, or when the answer's cited
    passages together support it (a conclusion drawn from them), and it gets no marker.
    """
    rejected = _Rejections()
    order: list[str] = []
    quotes_by_id: dict[str, str] = {}
    out_sentences: list[str] = []
    claims: list[Claim] = []
    obeyed: list[str] = []
    unsupported = 0
    n_sentences = 0
    text = drop_source_refs(answer.text)
    listed = [r for r in dict.fromkeys(_canon(x) for x in answer.evidence_ids)]
    unmarked = bool(listed) and bool(text.strip()) and not _CITE.search(text)
    cited_anywhere = [_canon(r) for m in _CITE.finditer(text) for r in re.split(r"[,;]", m.group(1))]
    pool_ids = [r for r in dict.fromkeys(cited_anywhere + listed) if r in passages]
    ctx = _Ctx(passages, question, bridges or Bridges(), instructions or [], check_support)
    said: set[str] = set()
    for para in text.split("\n"):
        if not para.strip():
            out_sentences.append(para)
            continue
        new_sents: list[str] = []
        for sent in _sentences(para):
            n_sentences += 1
            # An answer never says the same sentence twice (a passage that repeats itself, or the
            # same text in two documents): the first one stays, with its citations.
            key = " ".join(re.findall(r"\w+", claim_text(sent).lower()))
            if len(key.split()) >= 3 and key in said:
                _reject(rejected, "duplicate_sentence", msg("verify.duplicate", sentence=claim_text(sent)[:80]))
                continue
            said.add(key)
            if unmarked:
                sent = _attach_supporting(sent, listed, ctx)
            if ctx.instructions:
                demand = obeys(claim_text(sent), ctx.instructions, question, ctx.ordinary_text(pool_ids))
                if demand is not None:
                    obeyed.append(demand)
                    _reject(rejected, "injection_obeyed",
                            msg("verify.injection_obeyed", demand=demand[:40], sentence=claim_text(sent)[:80]))  # fmt: skip
                    continue
            if not _CITE.search(sent):
                kept = _check_uncited(sent, pool_ids, ctx, claims, rejected)
                if kept is not None:
                    new_sents.append(kept)
                elif claim_text(sent).strip():
                    unsupported += 1
                continue
            new_sent, lost = _check_sentence(sent, passages, order, quotes_by_id, rejected, ctx, claims)
            unsupported += lost
            if new_sent:
                new_sents.append(new_sent)
        if new_sents:
            out_sentences.append(_join(new_sents))
    for ref in answer.evidence_ids:
        ref = _canon(ref)
        if ref not in passages and not any(ref in m for _, m in rejected):
            _reject(rejected, "invented_citation", msg("verify.invented_id", ref=ref))
    evidence = [Evidence.of_passage(i + 1, passages[ref], quote=quotes_by_id.get(ref, "")) for i, ref in enumerate(order)]
    text = "\n".join(out_sentences).strip()
    # Renumbering happened as sentences were kept; drop bullets left without a sentence.
    text = re.sub(r"\n{3,}", "\n\n", text)
    return Verified(text=text, evidence=evidence, rejected=list(rejected), rejected_msgs=rejected.msgs,
                    unsupported_sentences=unsupported, claims=claims, obeyed=obeyed, sentences=n_sentences)  # fmt: skip


class _Rejections(list[tuple[str, str]]):
    """The (code, message) pairs of what verification rejected, with each message's code."""

    def __init__(self) -> None:
        super().__init__()
        self.msgs: dict[tuple[str, str], Message] = {}


def _reject(rejected: list[tuple[str, str]], code: str, message: Message) -> None:
    rejected.append((code, message.text()))
    if isinstance(rejected, _Rejections):
        rejected.msgs[(code, message.text())] = message


@dataclass
class _Ctx:
    passages: dict[str, PassageView]
    question: str
    bridges: Bridges
    instructions: list[Instruction]
    check_support: bool
    _citable: dict[str, str] = field(default_factory=dict)

    def citable(self, ref: str) -> str:
        if ref not in self._citable:
            self._citable[ref] = citable_text(self.passages[ref])
        return self._citable[ref]

    def support(self, sentence: str, refs: list[str]) -> ClaimSupport:
        return check_claim(sentence, [self.citable(r) for r in refs], question=self.question, bridges=self.bridges)

    def ordinary_text(self, refs: list[str]) -> str:
        return " ".join(without_instructions(self.passages[r].text) for r in refs if r in self.passages)


def _attach_supporting(sent: str, listed: list[str], ctx: _Ctx) -> str:
    """Cite, from the listed evidence of an unmarked answer, the passages that support ``sent``."""
    if not claim_text(sent).strip() or _is_hedge(sent):
        return sent
    read = [r for r in listed if r in ctx.passages]
    good = [r for r in read if ctx.support(sent, [r]).supported]
    if not good and read and ctx.support(sent, read).supported:
        good = read
    refs = good or listed  # unsupported: let the check below report and remove it
    body = sent.rstrip()
    end = _END_PUNCT.search(body)
    head, punct = (body[: end.start()], end.group()) if end else (body, "")
    return head + " [" + ", ".join(refs) + "]" + punct


def _check_uncited(
    sent: str, pool_ids: list[str], ctx: _Ctx, claims: list[Claim], rejected: list[tuple[str, str]]
) -> str | None:
    body = claim_text(sent)
    if not body.strip() or re.fullmatch(r"[\W\d_]*", body):
        return sent if body.strip() else None
    if _is_hedge(sent) or not ctx.check_support:
        return sent
    if pool_ids:
        sup = ctx.support(body, pool_ids)
        if sup.supported:
            claims.append(Claim(body, [], sup))
            return sent
        _reject(rejected, "unsupported_claim", msg("verify.unsupported_uncited", sentence=body[:80], why=sup.why))
    else:
        _reject(rejected, "uncited_claim", msg("verify.uncited", sentence=body[:80]))
    return None


def _check_sentence(
    sent: str,
    passages: dict[str, PassageView],
    order: list[str],
    quotes_by_id: dict[str, str],
    rejected: list[tuple[str, str]],
    ctx: _Ctx,
    claims: list[Claim],
) -> tuple[str, int]:
    """Check each clause's citations (a marker covers the text since the previous marker), then
    the sentence's support by the citations that survive.

    Returns the sentence with surviving markers renumbered ("" when it is removed), and 1 if
    it was removed for lack of support.
    """
    marks = list(_CITE.finditer(sent))
    if not marks:
        return sent, 0
    # First pass: which citations survive the read/quote checks, per marker.
    groups: list[list[str]] = []
    seen_q: dict[str, str] = {}
    pos = 0
    for i, m in enumerate(marks):
        clause = sent[pos : m.start()]
        scope = clause + (sent[m.end() :] if i == len(marks) - 1 else "")
        quotes = [q for qm in _QUOTE.finditer(scope) for q in qm.groups() if q]
        keep: list[str] = []
        for ref in dict.fromkeys(_canon(r) for r in re.split(r"[,;]", m.group(1))):
            if ref not in passages:
                _reject(rejected, "invented_citation", msg("verify.invented_citation", ref=ref))
                continue
            ptext = _norm(passages[ref].text)
            bad = [q for q in quotes if _norm(q) not in ptext]
            if bad:
                _reject(rejected, "quote_not_found",
                        msg("verify.quote_not_found", quote=bad[0][:60], ref=ref, title=passages[ref].title))  # fmt: skip
                continue
            keep.append(ref)
            if quotes and ref not in seen_q:
                seen_q[ref] = quotes[0]
        groups.append(keep)
        pos = m.end()
    all_refs = list(dict.fromkeys(r for g in groups for r in g))
    if not all_refs:
        return "", 1
    # Second pass: each clause (the text a marker covers) must be supported by its citations,
    # or by the sentence's other citations; a clause that is not is removed with its marker.
    clauses: list[str] = []
    pos = 0
    for i, m in enumerate(marks):
        clauses.append(sent[pos : m.start()] + (sent[m.end() :] if i == len(marks) - 1 else ""))
        pos = m.end()
    drop: set[int] = set()
    if ctx.check_support:
        whole = claim_text(sent)
        for i, clause in enumerate(clauses):
            body = claim_text(clause)
            if not groups[i]:
                if re.search(r"\w{3,}", body):
                    drop.add(i)
                continue
            if len(re.findall(r"\w+", body)) < 3:
                body = whole  # "… [1], and [2]": too short to check alone
            sup = ctx.support(body, groups[i])
            if not sup.supported and len(all_refs) > len(groups[i]):
                sup = ctx.support(body, all_refs)
            if not sup.supported:
                drop.add(i)
                titles = ", ".join(f"[{r}] {passages[r].title[:40]}" for r in groups[i])
                _reject(rejected, "unsupported_claim", msg("verify.unsupported", titles=titles, sentence=body[:80], why=sup.why))
                continue
            # A citation that adds nothing to the support of its clause is not kept.
            if len(groups[i]) > 1:
                own = [r for r in groups[i] if ctx.support(body, [r]).supported]
                if own:
                    groups[i] = own
            claims.append(Claim(body, list(groups[i]), sup))
        if len(drop) == len(clauses):
            return "", 1
        if drop:
            groups = [[] if i in drop else g for i, g in enumerate(groups)]
    for ref, q in seen_q.items():
        quotes_by_id.setdefault(ref, q)
    out: list[str] = []
    pos = 0
    kept_any = False
    for i, m in enumerate(marks):
        clause = sent[pos : m.start()]
        if i in drop:
            out.append("")  # the unsupported clause goes with its marker
            pos = m.end()
            continue
        keep = groups[i]
        for ref in keep:
            if ref not in order:
                order.append(ref)
        kept_any = kept_any or bool(keep)
        if keep:
            body = clause.rstrip()
            # "… tasks. [1]" reads better as "… tasks [1]." — markers go before the full stop.
            end = _END_PUNCT.search(body)
            head, punct = (body[: end.start()], end.group()) if end else (body, "")
            gap = "" if has_cjk(head[-1:]) else " "
            out.append(head + gap + "".join(f"[{order.index(r) + 1}]" for r in keep) + punct)
        else:
            out.append(clause)
        pos = m.end()
    out.append("" if len(marks) - 1 in drop else sent[pos:])
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", "".join(out))
    text = re.sub(r"(?:,|\s)+(?:and|but|while|whereas)?\s*$", "", text).rstrip(" ,;") if drop else text
    if drop:
        text = re.sub(r"^[\s;,:—–-]+", "", text)  # "; B: 1928 [1]" once the clause before it went
    if drop and text and not _END_PUNCT.search(text):
        text += "."
    return re.sub(r"[ \t]{2,}", " ", text).strip(), 0 if kept_any else 1


_END_PUNCT = re.compile(r"[.!?。！？]+$")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([.,;:!?。，；：！？])")


def _join(sents: list[str]) -> str:
    out = ""
    for s in sents:
        if not out:
            out = s
        elif has_cjk(out[-1:]) or has_cjk(s[:1]) or out.endswith(("。", "！", "？", "；")):
            out += s
        else:
            out += " " + s
    return out


def coverage(question: str, evidence: list[Evidence]) -> tuple[float, list[str]]:
    """Share of the question's content terms found in the evidence, and the terms not found."""
    terms = query_terms(question)
    if not terms:
        return 1.0, []
    blob = _norm(" ".join(e.title + " " + e.text for e in evidence))
    missing: list[str] = []
    for t in terms:
        t_norm = _norm(t)
        if has_cjk(t):
            grams = [t_norm[i : i + 2] for i in range(max(1, len(t_norm) - 1))]
            hit = sum(g in blob for g in grams) / len(grams) >= 0.5
        else:
            hit = t_norm[: max(4, len(t_norm) - 2)] in blob  # crude stemming: "studies" ~ "studied"
        if not hit:
            missing.append(t)
    return 1 - len(missing) / len(terms), missing
