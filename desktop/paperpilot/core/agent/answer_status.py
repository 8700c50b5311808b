"""An answer's status in plain words, for every place an answer leaves the app: copies, exports.

A copied or exported answer must say as plainly as the window does whether it answers the
question fully, partly or not at all, and what it leaves out; an insufficient-evidence
result's passages are *related* passages, never presented as an answer's sources. The
strings are English keys: the GUI passes its ``tr`` to get them in the interface language.
"""

from __future__ import annotations

from collections.abc import Callable

from .events import Evidence, Result, Status

Translate = Callable[[str], str]


def _same(text: str) -> str:
    return text


STATUS_LABELS: dict[str, str] = {
    Status.ANSWERED.value: "Answered",
    Status.PARTIAL.value: "Partial answer",
    Status.INSUFFICIENT.value: "Insufficient evidence",
    Status.TRUNCATED.value: "Truncated at the round limit",
    Status.CANCELLED.value: "Cancelled",
    Status.FAILED.value: "Failed",
}

STATUS_NOTES: dict[str, str] = {
    Status.PARTIAL.value: "Some parts of the question are not covered by the cited passages.",
    Status.INSUFFICIENT.value: "Your library does not hold enough evidence to answer this question.",
    Status.TRUNCATED.value: "The run reached its round limit; the answer may be incomplete.",
}

MISSING_HEADING = "Not covered by this answer"
NOT_FOUND_HEADING = "Not found in your library"
RELATED_HEADING = "Related passages"
RELATED_NOTE = "Found and verified in your library, but they do not answer the question."
REFERENCES_HEADING = "References"
EXCERPT_CHARS = 220


def status_label(status: Status | str) -> str:
    value = status.value if isinstance(status, Status) else str(status)
    return STATUS_LABELS.get(value, value.replace("_", " ").capitalize())


def status_note(status: Status | str) -> str:
    """One sentence on what the status means for the reader; empty for a full answer."""
    value = status.value if isinstance(status, Status) else str(status)
    return STATUS_NOTES.get(value, "")


def stopped(result: Result) -> bool:
    return result.status in (Status.CANCELLED, Status.FAILED)


def missing_parts(result: Result) -> list[str]:
    """What the answer leaves out, one part per item; nothing for a stopped run (whose
    "missing" is just its own question)."""
    if stopped(result):
        return []
    return [" ".join(m.split()) for m in result.missing if m.strip()]


def missing_heading(result: Result) -> str:
    return NOT_FOUND_HEADING if result.status == Status.INSUFFICIENT else MISSING_HEADING


def is_related(result: Result) -> bool:
    """Whether the result's passages are related passages rather than an answer's sources."""
    return result.status == Status.INSUFFICIENT and any(e.verified for e in result.evidence)


def related_passages(result: Result) -> list[Evidence]:
    return [e for e in result.evidence if e.verified] if is_related(result) else []


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit * 0.6 else cut).rstrip(" ,;:") + " …"


def status_line(result: Result, tr: Translate = _same) -> str:
    """``Status: Partial answer · confidence 55 %`` — the first line of a copied answer."""
    words = tr("Status: {status} · confidence {confidence}").format(
        status=tr(status_label(result.status)), confidence=f"{result.confidence:.0%}"
    )
    return words


def is_full_answer(result: Result) -> bool:
    return result.status == Status.ANSWERED and not missing_parts(result)


def header_lines(result: Result, tr: Translate = _same) -> list[str]:
    """The status line and what the status means, for any answer that is not a full one.

    A full answer copies as paste-ready text (answer, references): it is what a researcher
    puts into a manuscript. Anything less says so first, so a partial answer pasted elsewhere
    never passes for a full one.
    """
    if is_full_answer(result):
        return []
    lines = [status_line(result, tr)]
    note = status_note(result.status)
    if note:
        lines.append(tr(note))
    return lines


def missing_lines(result: Result, tr: Translate = _same) -> list[str]:
    """``Not covered by this answer`` and one ``- part`` line each; empty when nothing is missing."""
    parts = missing_parts(result)
    if not parts:
        return []
    return [tr(missing_heading(result)), *(f"- {p}" for p in parts)]


def related_lines(result: Result, tr: Translate = _same) -> list[str]:
    """The related passages of an insufficient result, labelled so nobody mistakes them for sources."""
    related = related_passages(result)
    if not related:
        return []
    lines = [f"{tr(RELATED_HEADING)} ({tr(RELATED_NOTE)})"]
    for e in related:
        where = ", ".join(x for x in (f"p. {e.page}", f"§{' '.join(e.section.split())}" if e.section.strip() else "") if x)
        lines.append(f"[{e.number}] {' '.join(e.title.split()) or 'Untitled'}, {where}: “{excerpt(e.text)}”")
    return lines


def plain_answer(result: Result, references: list[str] | None = None, tr: Translate = _same) -> str:
    """The whole answer as plain text: status, answer, what is missing, then its references
    (``references`` already formatted; by default ``[n] Title, p. 3``) or its related passages."""
    blocks = ["\n".join(header_lines(result, tr)), result.answer.strip()]  # no header: blank, dropped
    missing = missing_lines(result, tr)
    if missing:
        blocks.append("\n".join(missing))
    related = related_lines(result, tr)
    if related:
        blocks.append("\n".join(related))
    else:
        if references is None:
            references = [_reference(e) for e in result.evidence]
        if references:
            blocks.append(tr(REFERENCES_HEADING) + "\n" + "\n".join(references))
    return "\n\n".join(b for b in blocks if b) + "\n"


def _reference(e: Evidence) -> str:
    parts = [f"[{e.number}] {' '.join(e.title.split()) or 'Untitled'}", f"p. {e.page}"]
    if e.section.strip():
        parts.append(f"§{' '.join(e.section.split())}")
    return ", ".join(parts)
