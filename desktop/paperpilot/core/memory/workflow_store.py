"""Saved research workflows: literature matrices (columns, rows, every cell with its evidence),
column sets, and drafts (sections with their evidence), per user.

One SQLite file (``data_dir/workflows.sqlite3``, WAL) with its own schema version, beside the
conversations and apart from the library database. A cell or a draft section is written the
moment it is done, in its own transaction, so a run killed half-way resumes where it stopped.
The store keeps JSON documents; ``core.workflows`` owns their shape.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
import uuid
from collections.abc import Sequence
from typing import Any

from ..clock import utc_now
from ..errors import NotFound, PaperPilotError
from ..settings.paths import AppPaths
from .sqlite_store import ThreadLocalStore

WORKFLOWS_FILE = "workflows.sqlite3"
# 2: drafts get a title of their own (a rename must not change the topic the sections were gathered for).
WORKFLOWS_SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matrices (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL DEFAULT '',
    policy      TEXT NOT NULL DEFAULT 'offline',
    scope_json  TEXT NOT NULL DEFAULT '{}',
    columns_json TEXT NOT NULL DEFAULT '[]',
    rows_json   TEXT NOT NULL DEFAULT '[]',
    created     TEXT NOT NULL,
    updated     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matrix_cells (
    matrix      TEXT NOT NULL REFERENCES matrices(id) ON DELETE CASCADE,
    doc_id      INTEGER NOT NULL,
    column_key  TEXT NOT NULL,
    question    TEXT NOT NULL,
    cell_json   TEXT NOT NULL,
    updated     TEXT NOT NULL,
    PRIMARY KEY (matrix, doc_id, column_key)
);
CREATE TABLE IF NOT EXISTS column_sets (
    name         TEXT PRIMARY KEY,
    columns_json TEXT NOT NULL,
    updated      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS drafts (
    id          TEXT PRIMARY KEY,
    topic       TEXT NOT NULL,
    template    TEXT NOT NULL,
    language    TEXT NOT NULL DEFAULT '',
    policy      TEXT NOT NULL DEFAULT 'offline',
    scope_json  TEXT NOT NULL DEFAULT '{}',
    status      TEXT NOT NULL DEFAULT 'running',
    created     TEXT NOT NULL,
    updated     TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS draft_sections (
    draft        TEXT NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
    position     INTEGER NOT NULL,
    section_json TEXT NOT NULL,
    updated      TEXT NOT NULL,
    PRIMARY KEY (draft, position)
);
CREATE INDEX IF NOT EXISTS matrices_updated ON matrices(updated);
CREATE INDEX IF NOT EXISTS drafts_updated ON drafts(updated);
"""


class WorkflowError(PaperPilotError):
    """The workflows database cannot be used."""


class WorkflowNotFound(WorkflowError, NotFound):
    """No saved matrix or draft has that id."""


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


class WorkflowStore(ThreadLocalStore):
    """Matrices, column sets and drafts of one user; one connection per thread."""

    SCHEMA = _SCHEMA
    SCHEMA_VERSION = WORKFLOWS_SCHEMA_VERSION
    ERROR = WorkflowError
    WHAT = "workflows"

    def __init__(self, paths: AppPaths, busy_timeout_ms: int = 10_000) -> None:
        super().__init__(paths.data_dir / WORKFLOWS_FILE, busy_timeout_ms)
        self._migrate()

    def _migrate(self) -> None:
        """Schema 2: ``drafts.title``; added when missing, so a file from schema 1 opens as it is."""
        with self._tx() as c:
            have = {r[1] for r in c.execute("PRAGMA table_info(drafts)")}
            if "title" not in have:
                c.execute("ALTER TABLE drafts ADD COLUMN title TEXT NOT NULL DEFAULT ''")
            c.execute("UPDATE meta SET value=? WHERE key='schema_version' AND CAST(value AS INTEGER) < ?",
                      (str(WORKFLOWS_SCHEMA_VERSION), WORKFLOWS_SCHEMA_VERSION))  # fmt: skip

    def schema_version(self) -> int:
        r = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(r[0]) if r else 0

    def _new_id(self, c: sqlite3.Connection, table: str) -> str:
        while True:
            i = uuid.uuid4().hex[:10]
            if c.execute(f"SELECT 1 FROM {table} WHERE id=?", (i,)).fetchone() is None:
                return i

    # --- matrices ---------------------------------------------------------------------------

    def create_matrix(self, title: str, policy: str, scope: dict[str, Any], columns: list[dict[str, Any]],
                      rows: list[dict[str, Any]]) -> str:  # fmt: skip
        now = utc_now("milliseconds")
        with self._tx() as c:
            mid = self._new_id(c, "matrices")
            c.execute(
                "INSERT INTO matrices(id, title, policy, scope_json, columns_json, rows_json, created, updated)"
                " VALUES (?,?,?,?,?,?,?,?)",
                (mid, title, policy, _dumps(scope), _dumps(columns), _dumps(rows), now, now),
            )
        return mid

    def matrix(self, matrix_id: str) -> dict[str, Any]:
        r = self.conn.execute(
            "SELECT id, title, policy, scope_json, columns_json, rows_json, created, updated FROM matrices WHERE id=?",
            (matrix_id,),
        ).fetchone()
        if r is None:
            raise WorkflowNotFound(f"no matrix with id {matrix_id!r} (see: paperpilot matrix --list)")
        cells = {
            (int(d), str(k)): json.loads(j)
            for d, k, j in self.conn.execute(
                "SELECT doc_id, column_key, cell_json FROM matrix_cells WHERE matrix=?", (matrix_id,)
            )
        }
        return {"id": r[0], "title": r[1], "policy": r[2], "scope": json.loads(r[3]), "columns": json.loads(r[4]),
                "rows": json.loads(r[5]), "created": r[6], "updated": r[7], "cells": cells}  # fmt: skip

    def update_matrix(self, matrix_id: str, *, columns: list[dict[str, Any]] | None = None,
                      rows: list[dict[str, Any]] | None = None, policy: str | None = None,
                      drop_columns: Sequence[str] = (), drop_docs: Sequence[int] = (),
                      title: str | None = None) -> None:  # fmt: skip
        """Change the column definitions (and forget the cells of ``drop_columns``, whose
        question changed or which were removed), the rows, the policy or the title; one transaction."""
        now = utc_now("milliseconds")
        with self._tx() as c:
            if c.execute("SELECT 1 FROM matrices WHERE id=?", (matrix_id,)).fetchone() is None:
                raise WorkflowNotFound(f"no matrix with id {matrix_id!r}")
            if columns is not None:
                c.execute("UPDATE matrices SET columns_json=? WHERE id=?", (_dumps(columns), matrix_id))
            if rows is not None:
                c.execute("UPDATE matrices SET rows_json=? WHERE id=?", (_dumps(rows), matrix_id))
            if policy is not None:
                c.execute("UPDATE matrices SET policy=? WHERE id=?", (policy, matrix_id))
            if title is not None:
                c.execute("UPDATE matrices SET title=? WHERE id=?", (title, matrix_id))
            for key in drop_columns:
                c.execute("DELETE FROM matrix_cells WHERE matrix=? AND column_key=?", (matrix_id, key))
            for doc_id in drop_docs:
                c.execute("DELETE FROM matrix_cells WHERE matrix=? AND doc_id=?", (matrix_id, doc_id))
            c.execute("UPDATE matrices SET updated=? WHERE id=?", (now, matrix_id))

    def save_cell(self, matrix_id: str, doc_id: int, column_key: str, question: str, cell: dict[str, Any]) -> None:
        now = utc_now("milliseconds")
        with self._tx() as c:
            c.execute(
                "INSERT OR REPLACE INTO matrix_cells(matrix, doc_id, column_key, question, cell_json, updated)"
                " VALUES (?,?,?,?,?,?)",
                (matrix_id, doc_id, column_key, question, _dumps(cell), now),
            )
            c.execute("UPDATE matrices SET updated=? WHERE id=?", (now, matrix_id))

    def cell_count(self, matrix_id: str) -> int:
        r = self.conn.execute("SELECT COUNT(*) FROM matrix_cells WHERE matrix=?", (matrix_id,)).fetchone()
        return int(r[0])

    def matrices(self) -> builtins.list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT m.id, m.title, m.policy, m.updated, m.columns_json, m.rows_json,"
            " (SELECT COUNT(*) FROM matrix_cells c WHERE c.matrix=m.id) FROM matrices m ORDER BY m.updated DESC"
        ).fetchall()
        return [{"id": r[0], "title": r[1], "policy": r[2], "updated": r[3],
                 "cells_total": len(json.loads(r[4])) * len(json.loads(r[5])), "cells_done": int(r[6])}
                for r in rows]  # fmt: skip

    def delete_matrix(self, matrix_id: str) -> None:
        with self._tx() as c:
            if c.execute("DELETE FROM matrices WHERE id=?", (matrix_id,)).rowcount == 0:
                raise WorkflowNotFound(f"no matrix with id {matrix_id!r}")

    # --- column sets ------------------------------------------------------------------------

    def save_column_set(self, name: str, columns: list[dict[str, Any]]) -> None:
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO column_sets(name, columns_json, updated) VALUES (?,?,?)",
                      (name, _dumps(columns), utc_now()))  # fmt: skip

    def column_set(self, name: str) -> builtins.list[dict[str, Any]] | None:
        r = self.conn.execute("SELECT columns_json FROM column_sets WHERE name=?", (name,)).fetchone()
        return json.loads(r[0]) if r else None

    def column_sets(self) -> builtins.list[str]:
        return [r[0] for r in self.conn.execute("SELECT name FROM column_sets ORDER BY name")]

    # --- drafts -----------------------------------------------------------------------------

    def create_draft(self, topic: str, template: str, language: str, policy: str, scope: dict[str, Any]) -> str:
        now = utc_now("milliseconds")
        with self._tx() as c:
            did = self._new_id(c, "drafts")
            c.execute(
                "INSERT INTO drafts(id, topic, template, language, policy, scope_json, status, created, updated)"
                " VALUES (?,?,?,?,?,?, 'running', ?, ?)",
                (did, topic, template, language, policy, _dumps(scope), now, now),
            )
        return did

    def save_section(self, draft_id: str, position: int, section: dict[str, Any]) -> None:
        now = utc_now("milliseconds")
        with self._tx() as c:
            c.execute("INSERT OR REPLACE INTO draft_sections(draft, position, section_json, updated) VALUES (?,?,?,?)",
                      (draft_id, position, _dumps(section), now))  # fmt: skip
            c.execute("UPDATE drafts SET updated=? WHERE id=?", (now, draft_id))

    def finish_draft(self, draft_id: str, status: str) -> None:
        with self._tx() as c:
            c.execute("UPDATE drafts SET status=?, updated=? WHERE id=?", (status, utc_now("milliseconds"), draft_id))

    def draft(self, draft_id: str) -> dict[str, Any]:
        r = self.conn.execute(
            "SELECT id, topic, template, language, policy, scope_json, status, created, updated, title"
            " FROM drafts WHERE id=?",
            (draft_id,),
        ).fetchone()
        if r is None:
            raise WorkflowNotFound(f"no draft with id {draft_id!r} (see: paperpilot draft --list)")
        sections = {
            int(p): json.loads(j)
            for p, j in self.conn.execute(
                "SELECT position, section_json FROM draft_sections WHERE draft=? ORDER BY position", (draft_id,)
            )
        }
        return {"id": r[0], "topic": r[1], "template": r[2], "language": r[3], "policy": r[4],
                "scope": json.loads(r[5]), "status": r[6], "created": r[7], "updated": r[8], "title": r[9],
                "sections": sections}  # fmt: skip

    def drafts(self) -> builtins.list[dict[str, Any]]:
        return [{"id": r[0], "topic": r[1], "template": r[2], "status": r[3], "updated": r[4], "title": r[5],
                 "sections_done": int(r[6])}
                for r in self.conn.execute(
                    "SELECT d.id, d.topic, d.template, d.status, d.updated, d.title,"
                    " (SELECT COUNT(*) FROM draft_sections s WHERE s.draft=d.id)"
                    " FROM drafts d ORDER BY d.updated DESC")]  # fmt: skip

    def rename_draft(self, draft_id: str, title: str) -> None:
        """The name the draft is listed under; its topic (what its sections were gathered for) stays."""
        with self._tx() as c:
            if c.execute("UPDATE drafts SET title=? WHERE id=?", (title, draft_id)).rowcount == 0:
                raise WorkflowNotFound(f"no draft with id {draft_id!r}")

    def delete_draft(self, draft_id: str) -> None:
        with self._tx() as c:
            if c.execute("DELETE FROM drafts WHERE id=?", (draft_id,)).rowcount == 0:
                raise WorkflowNotFound(f"no draft with id {draft_id!r}")
