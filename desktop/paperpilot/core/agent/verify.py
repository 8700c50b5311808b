"""Citation checks: an answer may cite only passages read in this run, and quotes must be real."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..textutil import has_cjk, query_terms, split_sentences
from .actions import Answer
from .events import Evidence, PassageView

# [P3], [P3, P5], [3], [1][2] — ids as the loop assigns them (P-prefixed) or bare numbers.
_CITE = re.compile(r"\[((?:P?\d+)(?:\s*[,;]\s*P?\d+)*)\]")
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


@dataclass
class Verified:
    text: str
    evidence: list[Evidence]
    rejected: list[tuple[str, str]] = field(default_factory=list)  # (code, message)
    unsupported_sentences: int = 0


def verify_answer(answer: Answer, passages: dict[str, PassageView]) -> Verified:
    """Keep only citations of read passages whose quotes occur in them; renumber them [1], [2] …

    A sentence's quoted spans must occur (whitespace-insensitive) in at least one of the
    passages the same sentence cites; a citation that fails is removed and reported.
    """
    rejected: list[tuple[str, str]] = []
    order: list[str] = []
    quotes_by_id: dict[str, str] = {}
    out_sentences: list[str] = []
    unsupported = 0
    text = answer.text
    if answer.evidence_ids and text.strip() and not _CITE.search(text):
        # Evidence listed but no inline marker (weak models do this): the listed passages
        # cite the answer as a whole, from its last sentence, and are checked like any other.
        text = text.rstrip() + " [" + ", ".join(_canon(r) for r in dict.fromkeys(answer.evidence_ids)) + "]"
    for para in text.split("\n"):
        if not para.strip():
            out_sentences.append(para)
            continue
        new_sents: list[str] = []
        for sent in _sentences(para):
            new_sent, lost = _check_sentence(sent, passages, order, quotes_by_id, rejected)
            unsupported += lost
            new_sents.append(new_sent)
        out_sentences.append(_join(new_sents))
    for ref in answer.evidence_ids:
        ref = _canon(ref)
        if ref not in passages and not any(ref in m for _, m in rejected):
            rejected.append(("invented_citation", f"evidence id {ref} was never read in this run"))
    evidence = [
        Evidence(
            number=i + 1,
            id=ref,
            doc_id=passages[ref].doc_id,
            title=passages[ref].title,
            section=passages[ref].section,
            page=passages[ref].page,
            segment=passages[ref].segment,
            text=passages[ref].text,
            quote=quotes_by_id.get(ref, ""),
        )
        for i, ref in enumerate(order)
    ]
    text = "\n".join(out_sentences).strip()
    return Verified(text=text, evidence=evidence, rejected=rejected, unsupported_sentences=unsupported)


def _check_sentence(
    sent: str,
    passages: dict[str, PassageView],
    order: list[str],
    quotes_by_id: dict[str, str],
    rejected: list[tuple[str, str]],
) -> tuple[str, int]:
    """Check each clause's citations: a marker covers the text since the previous marker.

    Returns the sentence with surviving markers renumbered, and 1 if it lost all its citations.
    """
    marks = list(_CITE.finditer(sent))
    if not marks:
        return sent, 0
    out: list[str] = []
    pos = 0
    kept_any = False
    for i, m in enumerate(marks):
        clause = sent[pos : m.start()]
        scope = clause + (sent[m.end() :] if i == len(marks) - 1 else "")
        quotes = [q for qm in _QUOTE.finditer(scope) for q in qm.groups() if q]
        keep: list[str] = []
        for ref in dict.fromkeys(_canon(r) for r in re.split(r"[,;]", m.group(1))):
            if ref not in passages:
                rejected.append(("invented_citation", f"[{ref}] was never read in this run"))
                continue
            text = _norm(passages[ref].text)
            bad = [q for q in quotes if _norm(q) not in text]
            if bad:
                rejected.append(
                    ("quote_not_found", f"quote {bad[0][:60]!r} does not occur in [{ref}] ({passages[ref].title})")
                )
                continue
            keep.append(ref)
            if quotes and ref not in quotes_by_id:
                quotes_by_id[ref] = quotes[0]
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
    out.append(sent[pos:])
    text = _SPACE_BEFORE_PUNCT.sub(r"\1", "".join(out))
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
