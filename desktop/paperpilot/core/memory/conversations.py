"""Saved conversations: every question, its standalone rewrite, result and trace, per user.

One SQLite file (``data_dir/conversations.sqlite3``, WAL), one connection per thread, like the
library's store. Conversation ids are short hex strings.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from ..agent import answer_status
from ..agent.events import Result, event_from_json
from ..clock import utc_now
from ..errors import PaperPilotError
from ..settings.paths import AppPaths
from ..text.redaction import redact, redacted_json
from .sqlite_store import ThreadLocalStore

if TYPE_CHECKING:
    from ..library import Library

CONVERSATIONS_FILE = "conversations.sqlite3"
CONVERSATIONS_SCHEMA_VERSION = 1
TITLE_CHARS = 80

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS conversations (
    id      TEXT PRIMARY KEY,
    title   TEXT NOT NULL DEFAULT '',
    created TEXT NOT NULL,
    updated TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS turns (
    conversation        TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    seq                 INTEGER NOT NULL,
    question            TEXT NOT NULL,
    standalone_question TEXT NOT NULL DEFAULT '',
    answer              TEXT NOT NULL DEFAULT '',
    result_json         TEXT NOT NULL,
    trace_jsonl         TEXT NOT NULL DEFAULT '',
    created             TEXT NOT NULL,
    PRIMARY KEY (conversation, seq)
);
CREATE INDEX IF NOT EXISTS conversations_updated ON conversations(updated);
"""


class ConversationError(PaperPilotError):
    """A conversation that does not exist, or a database that cannot be used."""


@dataclass
class Turn:
    conversation: str
    seq: int  # 1, 2, … in the order asked
    question: str  # as the user typed it
    standalone_question: str  # the follow-up rewritten to stand alone (== question otherwise)
    result: Result
    events: list[BaseModel] = field(default_factory=list)  # the trace, as agent events
    created: str = ""


@dataclass
class ConversationSummary:
    id: str
    title: str
    turns: int
    updated: str

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "title": self.title, "turns": self.turns, "updated": self.updated}


@dataclass
class Conversation:
    id: str
    title: str
    created: str
    updated: str
    turn_count: int = 0


def default_title(question: str) -> str:
    """The first question, on one line, cut at a word boundary."""
    flat = " ".join(question.split())
    if len(flat) <= TITLE_CHARS:
        return flat
    cut = flat[:TITLE_CHARS]
    sp = cut.rfind(" ")
    return (cut[:sp] if sp > TITLE_CHARS * 0.6 else cut) + "…"


class ConversationStore(ThreadLocalStore):
    """The conversations of one user. Safe to use from several threads (one connection each)."""

    SCHEMA = _SCHEMA
    SCHEMA_VERSION = CONVERSATIONS_SCHEMA_VERSION
    ERROR = ConversationError
    WHAT = "conversations"

    def __init__(self, paths: AppPaths, busy_timeout_ms: int = 10_000) -> None:
        super().__init__(paths.data_dir / CONVERSATIONS_FILE, busy_timeout_ms)

    def __enter__(self) -> ConversationStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- conversations ----------------------------------------------------------------------

    def create(self, title: str | None = None) -> Conversation:
        """A new, empty conversation. Without a title, the first question becomes its title."""
        now = utc_now("milliseconds")
        with self._tx() as c:
            while True:
                cid = uuid.uuid4().hex[:12]
                if c.execute("SELECT 1 FROM conversations WHERE id=?", (cid,)).fetchone() is None:
                    break
            c.execute(
                "INSERT INTO conversations(id, title, created, updated) VALUES (?,?,?,?)",
                (cid, default_title(title or ""), now, now),
            )
        return Conversation(id=cid, title=default_title(title or ""), created=now, updated=now)

    def get(self, conversation_id: str) -> Conversation | None:
        r = self.conn.execute(
            "SELECT c.id, c.title, c.created, c.updated, (SELECT COUNT(*) FROM turns t WHERE t.conversation=c.id)"
            " FROM conversations c WHERE c.id=?",
            (conversation_id,),
        ).fetchone()
        return (
            Conversation(id=r[0], title=r[1], created=r[2], updated=r[3], turn_count=int(r[4])) if r else None
        )

    def _require(self, conversation_id: str) -> Conversation:
        conv = self.get(conversation_id)
        if conv is None:
            raise ConversationError(f"No conversation with id {conversation_id!r}.")
        return conv

    def list(self, query: str | None = None) -> builtins.list[ConversationSummary]:
        """Conversations, most recently updated first; ``query`` keeps those whose title,
        questions or answers contain it (case-insensitive, every word)."""
        sql = (
            "SELECT c.id, c.title, c.updated, (SELECT COUNT(*) FROM turns t WHERE t.conversation=c.id)"
            " FROM conversations c"
        )
        params: builtins.list[str] = []
        words = (query or "").split()
        if words:
            conds = []
            for w in words:
                like = "%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
                conds.append(
                    "(c.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM turns t WHERE t.conversation=c.id AND"
                    " (t.question LIKE ? ESCAPE '\\' OR t.standalone_question LIKE ? ESCAPE '\\'"
                    " OR t.answer LIKE ? ESCAPE '\\')))"
                )
                params += [like] * 4
            sql += " WHERE " + " AND ".join(conds)
        sql += " ORDER BY c.updated DESC, c.rowid DESC"
        return [
            ConversationSummary(id=r[0], title=r[1], turns=int(r[3]), updated=r[2])
            for r in self.conn.execute(sql, params)
        ]

    def rename(self, conversation_id: str, title: str) -> None:
        title = default_title(title)
        if not title:
            raise ConversationError("A conversation title cannot be empty.")
        with self._tx() as c:
            cur = c.execute(
                "UPDATE conversations SET title=?, updated=? WHERE id=?", (title, utc_now("milliseconds"), conversation_id)
            )
            if cur.rowcount == 0:
                raise ConversationError(f"No conversation with id {conversation_id!r}.")

    def delete(self, conversation_id: str) -> None:
        with self._tx() as c:
            c.execute("DELETE FROM turns WHERE conversation=?", (conversation_id,))
            cur = c.execute("DELETE FROM conversations WHERE id=?", (conversation_id,))
            if cur.rowcount == 0:
                raise ConversationError(f"No conversation with id {conversation_id!r}.")

    # --- turns ------------------------------------------------------------------------------

    def add_turn(
        self,
        conversation_id: str,
        question: str,
        standalone: str | None,
        result: Result,
        events: Sequence[BaseModel] = (),
    ) -> Turn:
        """Append a turn; the first question titles a conversation created without a title.

        Everything stored is masked for API keys first: a failed run's error can quote one.
        """
        now = utc_now("milliseconds")
        question = redact(question)
        standalone = redact((standalone or "").strip()) or question.strip()
        trace = "\n".join(redacted_json(e) for e in events)
        with self._tx() as c:
            row = c.execute("SELECT title FROM conversations WHERE id=?", (conversation_id,)).fetchone()
            if row is None:
                raise ConversationError(f"No conversation with id {conversation_id!r}.")
            seq = int(
                c.execute(
                    "SELECT COALESCE(MAX(seq), 0) + 1 FROM turns WHERE conversation=?", (conversation_id,)
                ).fetchone()[0]
            )
            c.execute(
                "INSERT INTO turns(conversation, seq, question, standalone_question, answer, result_json,"
                " trace_jsonl, created) VALUES (?,?,?,?,?,?,?,?)",
                (
                    conversation_id,
                    seq,
                    question,
                    standalone,
                    redact(result.answer),
                    redacted_json(result),
                    trace,
                    now,
                ),
            )
            title = row[0] if row[0] else default_title(question)
            c.execute("UPDATE conversations SET title=?, updated=? WHERE id=?", (title, now, conversation_id))
        return Turn(conversation_id, seq, question, standalone, result, list(events), now)

    def turns(self, conversation_id: str, *, with_events: bool = True) -> builtins.list[Turn]:
        """The turns in order, results and traces re-parsed (a damaged trace line is skipped)."""
        self._require(conversation_id)
        rows = self.conn.execute(
            "SELECT seq, question, standalone_question, result_json, trace_jsonl, created FROM turns"
            " WHERE conversation=? ORDER BY seq",
            (conversation_id,),
        ).fetchall()
        out: builtins.list[Turn] = []
        for seq, question, standalone, result_json, trace, created in rows:
            try:
                result = Result.model_validate_json(result_json)
            except ValidationError:
                continue  # a damaged row must not hide the rest of the conversation
            events: builtins.list[BaseModel] = []
            if with_events:
                for line in str(trace).splitlines():
                    if line.strip():
                        try:
                            events.append(event_from_json(line))
                        except ValidationError:
                            continue
            out.append(Turn(conversation_id, int(seq), question, standalone, result, events, created))
        return out

    # --- export -----------------------------------------------------------------------------

    def export_markdown(
        self, conversation_id: str, library: Library | None = None, style: str = "apa"
    ) -> str:
        """The conversation as Markdown: each question (and its rewrite), the answer, and its
        references — formatted in ``style`` when a library is given, else titles and pages."""
        conv = self._require(conversation_id)
        lines = [
            f"# {conv.title or 'Conversation'}",
            "",
            f"_Exported from PaperPilot · {conv.updated[:10]}_",
            "",
        ]
        for t in self.turns(conversation_id, with_events=False):
            lines += [f"## Q{t.seq}. {t.question.strip()}", ""]
            if t.standalone_question and t.standalone_question.strip() != t.question.strip():
                lines += [f"_Understood as: {t.standalone_question.strip()}_", ""]
            r = t.result
            status = f"**Status:** {answer_status.status_label(r.status)} · confidence {r.confidence:.0%}"
            note = answer_status.status_note(r.status)
            lines += [status + (f" — {note}" if note else ""), ""]
            lines += [r.answer.strip() or "_(no answer)_", ""]
            missing = answer_status.missing_parts(r)
            if missing:
                lines += [f"**{answer_status.missing_heading(r)}:**", "", *(f"- {m}" for m in missing), ""]
            related = answer_status.related_passages(r)
            if related:
                # Found and verified, but not an answer: never listed as its evidence or references.
                lines += [f"**{answer_status.RELATED_HEADING}** ({answer_status.RELATED_NOTE})", ""]
                for e in related:
                    where = f"p. {e.page}" + (f", {e.section}" if e.section else "")
                    lines.append(f"{e.number}. {e.title} ({where}): “{answer_status.excerpt(e.text)}”")
                lines.append("")
            elif t.result.evidence:
                lines += ["**Evidence**", ""]
                for e in t.result.evidence:
                    where = f"p. {e.page}" + (f", {e.section}" if e.section else "")
                    lines.append(f"{e.number}. {e.title} ({where})")
                lines.append("")
                refs = self._references(t.result, library, style)
                if refs:
                    lines += ["**References**", ""] + [f"- {r}" for r in refs] + [""]
        return redact("\n".join(lines).rstrip() + "\n")

    @staticmethod
    def _references(result: Result, library: Library | None, style: str) -> builtins.list[str]:
        doc_ids = list(dict.fromkeys(e.doc_id for e in result.evidence))
        if library is not None:
            from ..library import LibraryError
            from ..library.metadata import format_references

            try:
                return [" ".join(r.text.split()) for r in format_references(library, doc_ids, style)]
            except (LibraryError, ValueError):
                pass  # a removed document or unknown style: fall back to titles
        titles: dict[int, str] = {}
        for e in result.evidence:
            titles.setdefault(e.doc_id, e.title)
        return [titles[d] for d in doc_ids]
