"""The notes tool: read the user's note on a document (citable), or write it when asked to remember."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field

from ...text.messages import msg
from ..events import Info, PassageView, ToolResult, Warning
from ..intent import asks_to_remember
from ..state import AgentState, note_pool
from .registry import register
from .tool import OBSERVATION_PASSAGE_CHARS, Texts, Tool, ToolArgs, ToolOutput, ToolRun

NOTE_SECTION = "Notes"
NOTE_SEGMENT = -1  # a note is not a segment of the document; evidence with this segment is a note


class Notes(ToolArgs):
    """Read the user's note on a document; with ``text``, write it (only when the user asked to remember)."""

    action: Literal["notes"] = "notes"
    doc_id: int
    text: str | None = Field(None, max_length=20000)


def add_note_passage(state: AgentState, doc_id: int, title: str, text: str) -> PassageView | None:
    """Put a document's note into the state as a citable passage (section "Notes")."""
    key = (doc_id, NOTE_SEGMENT)
    if key in state.read_keys or not text.strip():
        return None
    pid = f"P{len(state.passages) + 1}"
    view = PassageView(id=pid, doc_id=doc_id, segment=NOTE_SEGMENT, title=title, section=NOTE_SECTION, page=1,
                       text=text)  # fmt: skip
    state.passages[pid] = view
    state.read_keys[key] = pid
    return view


class NotesTool(Tool):
    name = "notes"
    args = Notes
    prompt = (
        '- notes {"action":"notes","doc_id":D}: the user\'s own note on a document; add "text" only when the user '
        "asks to remember or save something."
    )
    prompt_order = 40
    texts: ClassVar[Texts] = {
        "tool.notes.label": ("notes", "笔记"),
        "tool.notes.description": ("read the user's note on a document, or save one when asked to remember",
                                   "读取文献的笔记；用户要求记住时写入笔记"),
    }  # fmt: skip

    def cli_line(self, action: Mapping[str, Any], reasoning: str) -> str:
        return f"   {self.name}"

    def run(self, args: ToolArgs, run: ToolRun) -> ToolOutput:
        assert isinstance(args, Notes)
        a, st = args, run.state
        t = time.perf_counter()
        notes = note_pool(run.pool)
        extra: list[Warning | Info] = []
        read: list[PassageView] = []
        note = ""
        if notes is None:
            st.last_observation = "This library keeps no notes."
        elif not any(d.doc_id == a.doc_id for d in run.pool.list_documents()):
            said = msg("read.no_document", doc_id=a.doc_id)
            st.last_observation = said.text()
            extra.append(Warning(round=st.round, elapsed_ms=run.ms(), code="bad_notes", message=said.text(), msg=said))
        elif a.text is not None:
            if not asks_to_remember(st.question):
                said = msg("notes.refused")
                st.notices.append(said.text())
                st.last_observation = said.text()
                extra.append(Warning(round=st.round, elapsed_ms=run.ms(), code="notes_refused", message=said.text(),
                                     msg=said))  # fmt: skip
            else:
                old = notes.get_note(a.doc_id)
                text = a.text.strip()
                if not old.strip():
                    new = text
                elif text in old:
                    new = old
                else:
                    new = f"{old.rstrip()}\n\n{text}"
                notes.set_note(a.doc_id, new)
                st.last_observation = f"Saved a note on doc {a.doc_id}: {text[:200]}"
                extra.append(Info(round=st.round, elapsed_ms=run.ms(), code="note_saved",
                                  message=f"note saved on doc {a.doc_id} ({run.title(a.doc_id)})",
                                  data={"doc_id": a.doc_id}))  # fmt: skip
        else:
            note = notes.get_note(a.doc_id)
            if not note.strip():
                st.last_observation = f"There is no note on doc {a.doc_id}."
            else:
                view = add_note_passage(st, a.doc_id, run.title(a.doc_id), note)
                if view is not None:
                    read.append(view)
                    st.last_observation = (
                        f"[{view.id}] note on doc {a.doc_id} — {view.title}: {note[:OBSERVATION_PASSAGE_CHARS]}"
                    )
                else:
                    st.last_observation = f"The note on doc {a.doc_id} was read already."
        st.summary.append(f"R{st.round}: notes doc {a.doc_id}" + (" (write)" if a.text is not None else ""))
        return ToolOutput(
            ToolResult(round=st.round, elapsed_ms=run.ms(), tool="notes", passages=read,
                       new_items=len(read) + any(isinstance(e, Info) for e in extra),
                       tool_ms=(time.perf_counter() - t) * 1000,
                       note="written" if any(isinstance(e, Info) for e in extra) else ""),
            extra,
        )  # fmt: skip


TOOL = register(NotesTool())
