"""Saved matrices and drafts as a researcher finds them again: listed, reopened, renamed, deleted.

Reopening runs no agent: a matrix comes back with every cell done so far, a draft with every
section written so far and its reference list, so a window shows either at once and offers to
resume what is left (``run_matrix`` / ``write_draft(draft_id=…)``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InvalidInput, PaperPilotError
from ..memory.workflow_store import WorkflowStore
from .draft import Draft, Section, citation_order
from .selection import PaperSelection
from .templates import load_template

MAX_TITLE = 200


@dataclass
class SavedItem:
    """One line of a list of saved matrices or drafts: ``done`` of ``total`` cells or sections
    (``total`` None when a draft's template file is gone)."""

    id: str
    title: str
    updated: str
    done: int
    total: int | None
    detail: str = ""  # a draft's template name; a matrix's policy

    @property
    def complete(self) -> bool:
        return self.total is not None and self.done >= self.total


@dataclass
class SavedDraft:
    """A reopened draft with what resuming it needs: its scope, title and the sections left."""

    draft: Draft
    scope: PaperSelection
    title: str
    remaining: int


def _title(text: str) -> str:
    title = " ".join(text.split())
    if not title:
        raise InvalidInput("a name cannot be empty")
    return title[:MAX_TITLE]


def saved_matrices(store: WorkflowStore) -> list[SavedItem]:
    """The saved matrices, the most recently changed first."""
    return [SavedItem(m["id"], m["title"], m["updated"], m["cells_done"], m["cells_total"], m["policy"])
            for m in store.matrices()]  # fmt: skip


def _sections_total(template: str, cache: dict[str, int | None]) -> int | None:
    if template not in cache:
        try:
            cache[template] = len(load_template(template).sections)
        except PaperPilotError:
            cache[template] = None
    return cache[template]


def saved_drafts(store: WorkflowStore) -> list[SavedItem]:
    """The saved drafts, the most recently changed first; a draft without a name of its own is
    listed by its topic."""
    totals: dict[str, int | None] = {}
    return [SavedItem(d["id"], d["title"] or d["topic"], d["updated"], d["sections_done"],
                      _sections_total(d["template"], totals), Path(d["template"]).stem) for d in store.drafts()]  # fmt: skip


def rename_matrix(store: WorkflowStore, matrix_id: str, title: str) -> None:
    store.update_matrix(matrix_id, title=_title(title))


def rename_draft(store: WorkflowStore, draft_id: str, title: str) -> None:
    store.rename_draft(draft_id, _title(title))


def delete_matrix(store: WorkflowStore, matrix_id: str) -> None:
    store.delete_matrix(matrix_id)


def delete_draft(store: WorkflowStore, draft_id: str) -> None:
    store.delete_draft(draft_id)


def open_draft(store: WorkflowStore, draft_id: str, *, references: Callable[[Sequence[int]], list[str]]) -> SavedDraft:
    """A saved draft as far as it was written, numbered and with its reference list
    (``references(doc_ids)`` renders the entries, as for ``write_draft``)."""
    saved = store.draft(draft_id)
    template = load_template(saved["template"])
    written = saved["sections"]
    sections = [Section(**written[i]) for i in sorted(written) if i < len(template.sections)]
    order = citation_order(sections)
    entries = references(order) if order else []
    refs = [(n, d, text) for n, (d, text) in enumerate(zip(order, entries, strict=True), 1)]
    remaining = len(template.sections) - len(sections)
    status = "done" if remaining == 0 else ("cancelled" if saved["status"] in ("running", "done") else saved["status"])
    seconds = round(sum(s.seconds for s in sections), 3)
    draft = Draft(id=saved["id"], topic=saved["topic"], template=template, language=saved["language"] or template.language,
                  policy=saved["policy"], sections=sections, references=refs, seconds=seconds, status=status)  # fmt: skip
    return SavedDraft(draft, PaperSelection.from_json(saved["scope"]), saved["title"] or saved["topic"], remaining)
