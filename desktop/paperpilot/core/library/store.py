"""The library's source of truth: documents and chunks in one SQLite file (WAL)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..citations.identifiers import normalize_doi
from ..citations.references import title_key
from ..clock import utc_now
from ..errors import Damaged, PaperPilotError
from ..models import Chunk, DocumentInfo, Metadata, Passage, Reference
from ..text.kinds import classify_passage
from ..text.messages import Message

# 2: documents.csl (the CSL-JSON item) and metadata-only documents (kind='metadata').
# 3: notes (one Markdown note per document, see library.notes).
# 4: metadata provenance: documents.metadata_sources ({field: source}), metadata_confidence, check_metadata.
# 5: chunks.kind and chunks.section_path (the structure of a paper, see extract.structure),
#    doc_references (each document's parsed reference list).
# 7: the trash (documents.trashed), collections and their members, tag colours (library.organize);
#    chunks.source, "ocr" for text read by OCR from a page without a usable text layer (a
#    branch numbered this 6; its libraries get the other steps, the others get this one).
# 8: undo_journal (the last removals, tag, collection and metadata edits with their inverse, so
#    that an undo works after a restart and from another process; see library.undo).
SCHEMA_VERSION = 8

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    sha256      TEXT NOT NULL DEFAULT '',
    file_name   TEXT NOT NULL DEFAULT '',
    source_path TEXT NOT NULL DEFAULT '',
    stored_path TEXT NOT NULL DEFAULT '',
    -- pdf | text | markdown | corpus | metadata (a bibliography entry without a file: no stored
    -- file, no pages, one chunk holding its title, authors and abstract).
    kind        TEXT NOT NULL DEFAULT '',
    external_id TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL DEFAULT '',
    authors     TEXT NOT NULL DEFAULT '[]',
    year        INTEGER,
    venue       TEXT NOT NULL DEFAULT '',
    doi         TEXT NOT NULL DEFAULT '',
    arxiv_id    TEXT NOT NULL DEFAULT '',
    abstract    TEXT NOT NULL DEFAULT '',
    language    TEXT NOT NULL DEFAULT '',
    page_count  INTEGER NOT NULL DEFAULT 0,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    size_bytes  INTEGER NOT NULL DEFAULT 0,
    added       TEXT NOT NULL,
    tags        TEXT NOT NULL DEFAULT '[]',
    -- ready: searchable; failed: import failed, kept with its reason so the user can retry;
    -- deleting: removal started and must be finished by recovery.
    status      TEXT NOT NULL CHECK (status IN ('ready', 'failed', 'deleting')),
    error       TEXT NOT NULL DEFAULT '',
    error_code  TEXT NOT NULL DEFAULT '',
    -- 0 until the chunks are committed to the Tantivy index; recovery re-indexes the rest.
    indexed     INTEGER NOT NULL DEFAULT 0,
    -- The CSL-JSON item as last saved by the citation layer; '{}' until then (the citation
    -- layer derives one from the columns above, which stay the source for search and listing).
    csl         TEXT NOT NULL DEFAULT '{}',
    -- Where each metadata field came from ({"title": "layout", "authors": "user", …}; '{}' for
    -- documents imported before provenance was kept), the document's metadata confidence (0–1,
    -- NULL when unknown) and 1 when a person should check its metadata.
    metadata_sources    TEXT NOT NULL DEFAULT '{}',
    metadata_confidence REAL,
    check_metadata      INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS documents_sha ON documents(sha256);
CREATE INDEX IF NOT EXISTS documents_source ON documents(source_path);
CREATE TABLE IF NOT EXISTS chunks (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    doc_id  INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    section TEXT NOT NULL DEFAULT '',
    page    INTEGER NOT NULL DEFAULT 1,
    text    TEXT NOT NULL,
    -- text: from the PDF's text layer or the file; ocr: read by OCR from the page image.
    source  TEXT NOT NULL DEFAULT 'text',
    -- a text.kinds.Kind value (body, abstract, references, caption, table …)
    kind    TEXT NOT NULL DEFAULT '',
    -- the headings above the chunk, outermost first, joined by " > "
    section_path TEXT NOT NULL DEFAULT '',
    UNIQUE (doc_id, seq)
);
CREATE TABLE IF NOT EXISTS notes (
    doc_id  INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    text    TEXT NOT NULL DEFAULT '',
    updated TEXT NOT NULL
);
-- A failed import's reason as a catalogued message (JSON), so that a window says it in its own
-- language; created on open, so a library of any version gets it without a schema step.
CREATE TABLE IF NOT EXISTS import_messages (
    doc_id  INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    message TEXT NOT NULL
);
"""

# Step 5's tables (also run by the migration, so the step does not depend on the script).
_REFERENCES_SCHEMA = """
CREATE TABLE IF NOT EXISTS doc_references (
    doc_id    INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL,
    label     TEXT NOT NULL DEFAULT '',
    text      TEXT NOT NULL,
    authors   TEXT NOT NULL DEFAULT '[]',
    title     TEXT NOT NULL DEFAULT '',
    year      INTEGER,
    venue     TEXT NOT NULL DEFAULT '',
    doi       TEXT NOT NULL DEFAULT '',
    arxiv_id  TEXT NOT NULL DEFAULT '',
    -- lower-case keys to match library documents on (citations.references.title_key)
    doi_key   TEXT NOT NULL DEFAULT '',
    title_key TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (doc_id, seq)
);
CREATE INDEX IF NOT EXISTS doc_references_doi ON doc_references(doi_key);
CREATE INDEX IF NOT EXISTS doc_references_arxiv ON doc_references(arxiv_id);
CREATE INDEX IF NOT EXISTS doc_references_title ON doc_references(title_key);
"""

_DOC_COLUMNS = (
    "id, title, authors, year, page_count, chunk_count, status, sha256, file_name, source_path, "
    "stored_path, venue, doi, arxiv_id, abstract, language, tags, added, error, external_id, trashed, "
    "metadata_sources, metadata_confidence, check_metadata"
)

# A document that is searchable and offered to the agent: ready and not in the trash. A trashed
# document keeps status 'ready' (its rows, chunks and stored copy stay until the trash is emptied).
_LIVE = "status='ready' AND trashed=''"

_PROVENANCE_COLUMNS = (
    ("metadata_sources", "TEXT NOT NULL DEFAULT '{}'"),
    ("metadata_confidence", "REAL"),
    ("check_metadata", "INTEGER NOT NULL DEFAULT 0"),
)


def _sources(raw: str | None) -> dict[str, str]:
    try:
        data = json.loads(raw or "{}")
    except ValueError:
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

# Columns the citation layer keeps in step with a document's CSL item (see Store.set_csl).
_CSL_SYNCED_COLUMNS = frozenset(
    {"title", "authors", "year", "venue", "doi", "arxiv_id", "abstract", "language"}
)


def _migrate_organize(c: sqlite3.Connection) -> None:
    """Step 7: the trash, collections and tag colours. Idempotent and independent of the other
    steps (it looks at the actual table shape), so steps may be merged in any order."""
    cols = {r[1] for r in c.execute("PRAGMA table_info(documents)")}
    if "trashed" not in cols:
        # When the document was moved to the trash (ISO 8601 UTC); '' when it is not there.
        c.execute("ALTER TABLE documents ADD COLUMN trashed TEXT NOT NULL DEFAULT ''")
    c.execute(
        "CREATE TABLE IF NOT EXISTS collections (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,"
        " parent_id INTEGER REFERENCES collections(id) ON DELETE CASCADE, created TEXT NOT NULL)"
    )
    c.execute("CREATE INDEX IF NOT EXISTS collections_parent ON collections(parent_id)")
    c.execute(
        "CREATE TABLE IF NOT EXISTS collection_items (collection_id INTEGER NOT NULL REFERENCES collections(id)"
        " ON DELETE CASCADE, doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,"
        " added TEXT NOT NULL, PRIMARY KEY (collection_id, doc_id))"
    )
    c.execute("CREATE INDEX IF NOT EXISTS collection_items_doc ON collection_items(doc_id)")
    c.execute("CREATE TABLE IF NOT EXISTS tag_colors (name TEXT PRIMARY KEY COLLATE NOCASE, color TEXT NOT NULL)")


def _migrate_undo(c: sqlite3.Connection) -> None:
    """Step 8: the undo journal. Idempotent and independent of the other steps."""
    # action: what undoing does (library.undo.Action); payload: its JSON arguments; label, n and
    # name: what the menu says ("Remove 3 documents"), kept apart so that a window can translate it.
    c.execute(
        "CREATE TABLE IF NOT EXISTS undo_journal (id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL,"
        " action TEXT NOT NULL, label TEXT NOT NULL, n INTEGER NOT NULL DEFAULT 0, name TEXT NOT NULL DEFAULT '',"
        " payload TEXT NOT NULL DEFAULT '{}')"
    )


def _provenance_columns(provenance: tuple[dict[str, str], float | None, bool] | None) -> dict[str, Any]:
    if provenance is None:
        return {}
    sources, conf, check = provenance
    return {
        "metadata_sources": json.dumps(sources, ensure_ascii=False),
        "metadata_confidence": conf,
        "check_metadata": int(check),
    }


class StoreError(PaperPilotError):
    """The library database cannot be used (busy, corrupt, newer schema)."""


class StoreDamaged(StoreError, Damaged):
    """The file is not a readable SQLite database (overwritten, truncated, corrupt)."""


class StoreMissing(StoreError, Damaged):
    """The file is missing, empty or holds no library tables."""


# SQLite primary result codes (sqlite3 exposes them only from Python 3.11 on, by name).
_SQLITE_CORRUPT, _SQLITE_NOTADB, _SQLITE_FULL = 11, 26, 13


def _is_busy(e: sqlite3.OperationalError) -> bool:
    text = str(e).lower()
    return "locked" in text or "busy" in text


def _store_error(path: Path, e: sqlite3.DatabaseError) -> StoreError:
    code = getattr(e, "sqlite_errorcode", None)
    if code is not None and code & 0xFF in (_SQLITE_CORRUPT, _SQLITE_NOTADB):
        return StoreDamaged(f"The library database {path} is damaged: {e}")
    if isinstance(e, sqlite3.OperationalError) and _is_busy(e):
        return StoreError("The library is busy: another PaperPilot is writing to it. Try again in a moment.")
    return StoreError(f"The library database {path} cannot be opened: {e}")


def is_disk_full(e: BaseException) -> bool:
    """SQLite's "database or disk is full" (SQLITE_FULL)."""
    code = getattr(e, "sqlite_errorcode", None)
    return isinstance(e, sqlite3.OperationalError) and (
        (code is not None and code & 0xFF == _SQLITE_FULL) or "disk is full" in str(e)
    )


@dataclass
class ChunkRow:
    chunk_id: int
    doc_id: int
    seq: int
    section: str
    page: int
    text: str
    title: str
    year: int | None
    kind: str = ""
    section_path: str = ""


def _doc_from_row(r: Sequence[Any]) -> DocumentInfo:
    return DocumentInfo(
        doc_id=r[0],
        title=r[1],
        authors=json.loads(r[2]),
        year=r[3],
        pages=r[4],
        chunks=r[5],
        # A trashed document reads as status 'trashed': whatever looks for 'ready' leaves it alone.
        status="trashed" if r[20] and r[6] == "ready" else r[6],
        sha256=r[7],
        file_name=r[8],
        source_path=r[9],
        stored_path=r[10],
        venue=r[11],
        doi=r[12],
        arxiv_id=r[13],
        abstract=r[14],
        language=r[15],
        tags=json.loads(r[16]),
        added=r[17],
        error=r[18],
        external_id=r[19],
        trashed=r[20] or "",
        metadata_sources=_sources(r[21]),
        metadata_confidence=r[22],
        check_metadata=bool(r[23]),
    )


def _error_msg(raw: str) -> Message | None:
    try:
        return Message.from_json(raw)
    except ValueError:  # written by another version: the words in ``error`` stand
        return None


class Store:
    """One connection to the library database.

    Readers never block writers (WAL). Writes are short ``BEGIN IMMEDIATE`` transactions; the
    cross-process writer lock lives in :mod:`library`, SQLite's busy timeout is the last resort.
    """

    def __init__(
        self, path: Path, busy_timeout_ms: int = 10_000, *, read_only: bool = False, must_exist: bool = False
    ) -> None:
        """Open (or create) the database.

        ``must_exist``: raise StoreMissing instead of creating the tables in a missing or empty
        file, so that a library whose database was lost is noticed rather than quietly replaced.
        ``read_only``: never write, not even the WAL set-up (a read-only library folder).
        """
        self.path = path
        self.read_only = read_only
        self.seen_version: int | None = None  # last PRAGMA data_version the library looked at
        try:
            self.conn = self._connect(path, busy_timeout_ms)
        except sqlite3.DatabaseError as e:
            raise _store_error(path, e) from e
        # Two processes opening a library that does not exist yet race to create it; SQLite
        # answers some of the set-up statements (the journal-mode switch, the first schema
        # write) with "database is locked" at once instead of waiting its busy timeout, so the
        # set-up is retried until that timeout has passed.
        deadline = time.monotonic() + busy_timeout_ms / 1000
        while True:
            try:
                self._set_up(must_exist)
                return
            except sqlite3.OperationalError as e:
                if _is_busy(e) and time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                self.conn.close()
                raise _store_error(path, e) from e
            except sqlite3.DatabaseError as e:
                self.conn.close()
                raise _store_error(path, e) from e
            except StoreError:
                self.conn.close()
                raise

    def _set_up(self, must_exist: bool) -> None:
        has_tables = self.conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='documents'").fetchone()
        if has_tables is None and (must_exist or self.read_only):
            raise StoreMissing(f"The library database {self.path} holds no library.")
        if self.read_only:
            self._check_version(migrate=False)
            return
        if str(self.conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
            self.conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL in WAL mode: a crash never corrupts; a power cut may lose the last commit.
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.conn.executescript(_SCHEMA)
        self._check_version()
        self.conn.executescript(_REFERENCES_SCHEMA)

    def _connect(self, path: Path, busy_timeout_ms: int) -> sqlite3.Connection:
        timeout = busy_timeout_ms / 1000
        if not self.read_only:
            return sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=timeout)
        uri = path.resolve().as_uri()
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, check_same_thread=False,
                               timeout=timeout)  # fmt: skip
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            # A WAL database needs its -shm file, which a read-only folder cannot get; nobody can
            # write there either, so reading the file as immutable is safe.
            conn.close()
        return sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None, check_same_thread=False,
                               timeout=timeout)  # fmt: skip

    def _check_version(self, migrate: bool = True) -> None:
        row = self.conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is not None and int(row[0]) > SCHEMA_VERSION:
            raise StoreError(
                f"The library was written by a newer PaperPilot (schema {row[0]}); please upgrade."
            )
        # A library main wrote at version 7 before chunks.source joined that step lacks the
        # column; the steps are idempotent, so running them again gives it.
        stale = row is None or int(row[0]) < SCHEMA_VERSION
        if not stale:
            stale = "source" not in {r[1] for r in self.conn.execute("PRAGMA table_info(chunks)")}
        if not stale:
            stale = not self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name='undo_journal'"
            ).fetchone()
        if stale:
            if not migrate:
                raise StoreError(
                    "The library was written by an older PaperPilot and its folder is read-only: "
                    "open it once with write access so that it can be upgraded."
                )
            self._migrate()

    def _migrate(self) -> None:
        """Bring an older database up to SCHEMA_VERSION in one transaction.

        Steps test the actual table shape rather than trusting the version number, and run
        under BEGIN IMMEDIATE, so two processes opening an old library at once cannot both
        add the same column.
        """
        with self.transaction() as c:
            cols = {r[1] for r in c.execute("PRAGMA table_info(documents)")}
            if "csl" not in cols:  # v1 → v2
                c.execute("ALTER TABLE documents ADD COLUMN csl TEXT NOT NULL DEFAULT '{}'")
            # v2 → v3: per-document notes (the schema script creates the table on open too;
            # this keeps the step explicit for databases opened by a migration-only path).
            c.execute(
                "CREATE TABLE IF NOT EXISTS notes (doc_id INTEGER PRIMARY KEY REFERENCES documents(id)"
                " ON DELETE CASCADE, text TEXT NOT NULL DEFAULT '', updated TEXT NOT NULL)"
            )
            # v3 → v4: metadata provenance. Each column is added only when missing, so this step
            # runs in any order with other steps and twice without harm. Existing rows keep their
            # metadata; their provenance stays unknown ('{}') until the file is re-read.
            cols = {r[1] for r in c.execute("PRAGMA table_info(documents)")}
            for name, decl in _PROVENANCE_COLUMNS:
                if name not in cols:
                    c.execute(f"ALTER TABLE documents ADD COLUMN {name} {decl}")
            _migrate_organize(c)
            _migrate_undo(c)
            # v4 → v5 (independent of other steps): chunk kinds and section paths, reference
            # lists. Old chunks get the kind the classifier gives them; their section path is
            # their heading (the outline above it was not kept).
            chunk_cols = {r[1] for r in c.execute("PRAGMA table_info(chunks)")}
            if "kind" not in chunk_cols:
                c.execute("ALTER TABLE chunks ADD COLUMN kind TEXT NOT NULL DEFAULT ''")
            if "section_path" not in chunk_cols:
                c.execute("ALTER TABLE chunks ADD COLUMN section_path TEXT NOT NULL DEFAULT ''")
            for stmt in _REFERENCES_SCHEMA.split(";"):
                if stmt.strip():
                    c.execute(stmt)
            rows = c.execute("SELECT id, text, section FROM chunks WHERE kind=''").fetchall()
            c.executemany(
                "UPDATE chunks SET kind=?, section_path=? WHERE id=?",
                ((classify_passage(text, section).value, section, cid) for cid, text, section in rows),
            )
            # Where a chunk's text came from (independent of the other steps, like them).
            if "source" not in chunk_cols:
                c.execute("ALTER TABLE chunks ADD COLUMN source TEXT NOT NULL DEFAULT 'text'")
            c.execute(
                "INSERT INTO meta(key, value) VALUES ('schema_version', ?)"
                " ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (str(SCHEMA_VERSION),),
            )

    def close(self) -> None:
        self.conn.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
            # Inside the try: a COMMIT that fails (a full disk) must roll back too, or the
            # connection stays in the transaction and every later write fails.
            self.conn.execute("COMMIT")
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise

    def data_version(self) -> int:
        """Changes whenever another connection (another process) commits."""
        return int(self.conn.execute("PRAGMA data_version").fetchone()[0])

    # --- writes -----------------------------------------------------------------------------

    def add_document(
        self,
        *,
        sha256: str,
        file_name: str,
        source_path: str,
        stored_path: str,
        kind: str,
        external_id: str,
        metadata: Metadata,
        page_count: int,
        size_bytes: int,
        chunks: Sequence[Chunk],
        added: str | None = None,
        csl: str = "{}",
        tags: Sequence[str] = (),
        doc_id: int | None = None,
        references: Sequence[Reference] = (),
    ) -> int:
        """Insert a ready document with its chunks (and reference list) in one transaction;
        returns its id.

        A failed-import record for the same source is replaced: the retry succeeded. ``added``,
        ``csl``, ``tags`` and ``doc_id`` (kept when that id is free, so that saved conversations
        still cite the right document) are given when a document is rebuilt from its stored copy.
        """
        with self.transaction() as c:
            if source_path:
                c.execute("DELETE FROM documents WHERE status='failed' AND source_path=?", (source_path,))
            if doc_id is not None and c.execute("SELECT 1 FROM documents WHERE id=?", (doc_id,)).fetchone():
                doc_id = None
            cur = c.execute(
                "INSERT INTO documents (id, sha256, file_name, source_path, stored_path, kind, external_id,"
                " title, authors, year, venue, doi, arxiv_id, abstract, language, page_count,"
                " chunk_count, size_bytes, added, csl, tags, metadata_sources, metadata_confidence,"
                " check_metadata, status)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,'ready')",
                (
                    doc_id,
                    sha256, file_name, source_path, stored_path, kind, external_id,
                    metadata.title, json.dumps(metadata.authors, ensure_ascii=False), metadata.year,
                    metadata.venue, metadata.doi, metadata.arxiv_id, metadata.abstract,
                    metadata.language, page_count, len(chunks), size_bytes, added or utc_now(), csl,
                    json.dumps(list(tags), ensure_ascii=False),
                    json.dumps(metadata.sources, ensure_ascii=False), metadata.confidence, int(metadata.check),
                ),
            )  # fmt: skip
            new_id = int(cur.lastrowid or 0)
            c.executemany(
                "INSERT INTO chunks (doc_id, seq, section, page, text, kind, section_path, source)"
                " VALUES (?,?,?,?,?,?,?,?)",
                ((new_id, ch.seq, ch.section, ch.page, ch.text, ch.kind, ch.section_path, ch.source) for ch in chunks),
            )
            _insert_references(c, new_id, references)
        return new_id

    def record_failure(
        self, *, source_path: str, file_name: str, sha256: str, reason: str, code: str, said: Message | None = None
    ) -> int:
        """Remember a failed import (one row per source path) so the user can see and retry it.
        ``said``: the reason as a catalogued message (kept beside the row, so that a window can
        say it in its own language)."""
        with self.transaction() as c:
            row = c.execute(
                "SELECT id FROM documents WHERE status='failed' AND source_path=?", (source_path,)
            ).fetchone()
            if row:
                c.execute(
                    "UPDATE documents SET error=?, error_code=?, sha256=?, added=? WHERE id=?",
                    (reason, code, sha256, utc_now(), row[0]),
                )
                doc_id = int(row[0])
            else:
                cur = c.execute(
                    "INSERT INTO documents (sha256, file_name, source_path, title, added, status, error,"
                    " error_code) VALUES (?,?,?,?,?,'failed',?,?)",
                    (sha256, file_name, source_path, file_name, utc_now(), reason, code),
                )
                doc_id = int(cur.lastrowid or 0)
            if said is None:
                c.execute("DELETE FROM import_messages WHERE doc_id=?", (doc_id,))
            else:
                c.execute(
                    "INSERT INTO import_messages (doc_id, message) VALUES (?, ?)"
                    " ON CONFLICT(doc_id) DO UPDATE SET message=excluded.message",
                    (doc_id, said.to_json()),
                )
            return doc_id

    def _with_failure_messages(self, docs: list[DocumentInfo]) -> list[DocumentInfo]:
        """``docs`` with each failed import's reason as a catalogued message, where one was kept."""
        failed = [d.doc_id for d in docs if d.status == "failed"]
        if not failed:
            return docs
        try:
            rows = self.conn.execute(
                f"SELECT doc_id, message FROM import_messages WHERE doc_id IN ({','.join('?' * len(failed))})", failed
            ).fetchall()
        except sqlite3.OperationalError:  # an older library opened read-only has no such table
            return docs
        said = {int(i): _error_msg(str(m)) for i, m in rows}
        return [replace(d, error_msg=said[d.doc_id]) if d.doc_id in said else d for d in docs]

    def mark_indexed(self, doc_ids: Iterable[int]) -> None:
        ids = list(doc_ids)
        if not ids:
            return
        with self.transaction() as c:
            c.executemany("UPDATE documents SET indexed=1 WHERE id=?", ((i,) for i in ids))

    def mark_all_unindexed(self) -> None:
        with self.transaction() as c:
            c.execute("UPDATE documents SET indexed=0")

    def mark_deleting(self, doc_id: int) -> bool:
        with self.transaction() as c:
            cur = c.execute("UPDATE documents SET status='deleting' WHERE id=?", (doc_id,))
            return cur.rowcount > 0

    def restore_note(self, doc_id: int, text: str, updated: str | None) -> None:
        """Put back a note kept in a sidecar (rebuilding a document from its stored copy)."""
        if not text.strip():
            return
        with self.transaction() as c:
            c.execute(
                "INSERT INTO notes(doc_id, text, updated) VALUES (?,?,?)"
                " ON CONFLICT(doc_id) DO UPDATE SET text=excluded.text, updated=excluded.updated",
                (doc_id, text, updated or utc_now()),
            )

    def set_note(self, doc_id: int, text: str) -> bool:
        """Save the note on a ready document (an empty text deletes it); False for an unknown id."""
        with self.transaction() as c:
            if c.execute("SELECT 1 FROM documents WHERE id=? AND status='ready'", (doc_id,)).fetchone() is None:
                return False
            if not text.strip():
                c.execute("DELETE FROM notes WHERE doc_id=?", (doc_id,))
            else:
                c.execute(
                    "INSERT INTO notes(doc_id, text, updated) VALUES (?,?,?)"
                    " ON CONFLICT(doc_id) DO UPDATE SET text=excluded.text, updated=excluded.updated",
                    (doc_id, text, utc_now()),
                )
        return True

    def delete_notes(self, doc_ids: Sequence[int]) -> None:
        marks = ",".join("?" * len(doc_ids))
        with self.transaction() as c:
            c.execute(f"DELETE FROM notes WHERE doc_id IN ({marks})", list(doc_ids))

    def update_columns(
        self, doc_id: int, values: dict[str, Any], provenance: tuple[dict[str, str], float | None, bool] | None = None
    ) -> bool:
        """Write edited metadata columns of a ready document, marking it unindexed in the same
        transaction (a crash before the index commit is repaired by recovery); False when no
        ready document has that id. ``provenance``: (sources, confidence, check) written with them."""
        unknown = set(values) - _CSL_SYNCED_COLUMNS
        if unknown:
            raise ValueError(f"not a metadata column: {sorted(unknown)}")
        values = {**values, **_provenance_columns(provenance)}
        sets = ", ".join(f"{k}=?" for k in values)
        with self.transaction() as c:
            cur = c.execute(
                f"UPDATE documents SET {sets}, indexed=0 WHERE id=? AND {_LIVE}", (*values.values(), doc_id)
            )
            return cur.rowcount > 0

    def set_meta(self, key: str, value: str) -> None:
        with self.transaction() as c:
            c.execute(
                "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                (key, value),
            )

    def get_meta(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return str(row[0]) if row else None

    def delete_document(self, doc_id: int) -> None:
        with self.transaction() as c:
            c.execute("DELETE FROM documents WHERE id=?", (doc_id,))

    def add_metadata_document(
        self,
        *,
        sha256: str,
        source_path: str,
        file_name: str,
        metadata: Metadata,
        csl: str,
        chunks: Sequence[Chunk],
    ) -> int:
        """Insert a metadata-only document (kind 'metadata', no file, 0 pages) in one transaction."""
        with self.transaction() as c:
            cur = c.execute(
                "INSERT INTO documents (sha256, file_name, source_path, kind, title, authors, year, venue,"
                " doi, arxiv_id, abstract, language, page_count, chunk_count, added, status, csl)"
                " VALUES (?,?,?,'metadata',?,?,?,?,?,?,?,?,0,?,?,'ready',?)",
                (
                    sha256, file_name, source_path, metadata.title,
                    json.dumps(metadata.authors, ensure_ascii=False), metadata.year, metadata.venue,
                    metadata.doi, metadata.arxiv_id, metadata.abstract, metadata.language, len(chunks),
                    utc_now(), csl,
                ),
            )  # fmt: skip
            doc_id = int(cur.lastrowid or 0)
            c.executemany(
                "INSERT INTO chunks (doc_id, seq, section, page, text, kind, section_path, source)"
                " VALUES (?,?,?,?,?,?,?,?)",
                ((doc_id, ch.seq, ch.section, ch.page, ch.text, ch.kind, ch.section_path, ch.source) for ch in chunks),
            )
        return doc_id

    def set_csl(
        self,
        doc_id: int,
        csl: str,
        columns: dict[str, Any] | None = None,
        replace_chunks: Sequence[Chunk] | None = None,
        provenance: tuple[dict[str, str], float | None, bool] | None = None,
    ) -> bool:
        """Store a document's CSL-JSON and, in the same transaction, its derived columns.

        ``columns`` (title, authors as JSON, year, venue, doi, arxiv_id, abstract, language)
        are written too, and the document is marked unindexed so that a crash before the
        index commit is repaired by recovery. ``replace_chunks`` replaces all chunks (for
        metadata-only documents, whose one chunk is made from the metadata). Returns False
        when no ready document has that id.
        """
        cols = dict(columns or {})
        unknown = set(cols) - _CSL_SYNCED_COLUMNS
        if unknown:
            raise ValueError(f"not a metadata column: {sorted(unknown)}")
        cols.update(_provenance_columns(provenance))
        sets = "".join(f", {k}=?" for k in cols)
        with self.transaction() as c:
            cur = c.execute(
                f"UPDATE documents SET csl=?{sets}, indexed=0 WHERE id=? AND {_LIVE}",
                (csl, *cols.values(), doc_id),
            )
            if cur.rowcount == 0:
                return False
            if replace_chunks is not None:
                c.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))
                c.executemany(
                    "INSERT INTO chunks (doc_id, seq, section, page, text, kind, section_path, source)"
                    " VALUES (?,?,?,?,?,?,?,?)",
                    (
                        (doc_id, ch.seq, ch.section, ch.page, ch.text, ch.kind, ch.section_path, ch.source)
                        for ch in replace_chunks
                    ),
                )
                c.execute("UPDATE documents SET chunk_count=? WHERE id=?", (len(replace_chunks), doc_id))
        return True

    # --- reads ------------------------------------------------------------------------------

    def note(self, doc_id: int) -> tuple[str, str] | None:
        """(text, updated) of the note on ``doc_id``, or None."""
        row = self.conn.execute("SELECT text, updated FROM notes WHERE doc_id=?", (doc_id,)).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def notes(self, doc_ids: Sequence[int] | None = None) -> list[tuple[int, str, str]]:
        """(doc_id, text, updated) of every note, or of the notes on ``doc_ids``."""
        if doc_ids is None:
            rows = self.conn.execute("SELECT doc_id, text, updated FROM notes").fetchall()
        else:
            marks = ",".join("?" * len(doc_ids))
            rows = self.conn.execute(
                f"SELECT doc_id, text, updated FROM notes WHERE doc_id IN ({marks})", list(doc_ids)
            ).fetchall()
        return [(int(d), str(t), str(u)) for d, t, u in rows]

    def notes_of_ready_documents(self) -> list[tuple[int, str, str]]:
        """(doc_id, title, text) of the notes on ready documents, most recently saved first."""
        rows = self.conn.execute(
            "SELECT n.doc_id, d.title, n.text FROM notes n JOIN documents d ON d.id = n.doc_id"
            " WHERE d.status='ready' AND d.trashed='' ORDER BY n.updated DESC, n.doc_id"
        ).fetchall()
        return [(int(d), str(ti), str(te)) for d, ti, te in rows]

    def get_csl(self, doc_id: int) -> dict[str, Any]:
        """The stored CSL-JSON item of a document ({} when none was saved or the id is unknown)."""
        row = self.conn.execute("SELECT csl FROM documents WHERE id=?", (doc_id,)).fetchone()
        if row is None:
            return {}
        try:
            data = json.loads(row[0] or "{}")
        except ValueError:  # hand-edited or damaged: fall back to the columns, never crash
            return {}
        return data if isinstance(data, dict) else {}

    def kind(self, doc_id: int) -> str:
        """'pdf', 'text', 'markdown', 'corpus', 'metadata' (no file) … or '' for an unknown id."""
        row = self.conn.execute("SELECT kind FROM documents WHERE id=?", (doc_id,)).fetchone()
        return str(row[0]) if row else ""

    def find_ready_by_sha(self, sha256: str) -> int | None:
        row = self.conn.execute(
            "SELECT id FROM documents WHERE sha256=? AND status IN ('ready', 'deleting') LIMIT 1",
            (sha256,),
        ).fetchone()
        return int(row[0]) if row else None

    def documents(self, statuses: Sequence[str] = ("ready", "failed")) -> list[DocumentInfo]:
        """Documents with these statuses ('ready' means not in the trash; 'trashed': in it)."""
        plain = [s for s in statuses if s != "trashed"]
        where = []
        if plain:
            where.append(f"(status IN ({','.join('?' * len(plain))}) AND trashed='')")
        if "trashed" in statuses:
            where.append("(status='ready' AND trashed!='')")
        if not where:
            return []
        rows = self.conn.execute(
            f"SELECT {_DOC_COLUMNS} FROM documents WHERE {' OR '.join(where)} ORDER BY id", tuple(plain)
        ).fetchall()
        return self._with_failure_messages([_doc_from_row(r) for r in rows])

    def ready_ids(self) -> set[int]:
        """The ids of the ready documents not in the trash (``documents(("ready",))`` without
        building each record)."""
        return {int(r[0]) for r in self.conn.execute("SELECT id FROM documents WHERE status='ready' AND trashed=''")}

    def document(self, doc_id: int) -> DocumentInfo | None:
        r = self.conn.execute(f"SELECT {_DOC_COLUMNS} FROM documents WHERE id=?", (doc_id,)).fetchone()
        return self._with_failure_messages([_doc_from_row(r)])[0] if r else None

    def doc_ids_with_status(self, status: str) -> list[int]:
        return [r[0] for r in self.conn.execute("SELECT id FROM documents WHERE status=?", (status,))]

    def unindexed_ready(self) -> list[int]:
        return [
            r[0] for r in self.conn.execute(f"SELECT id FROM documents WHERE {_LIVE} AND indexed=0")
        ]

    def indexed_chunk_count(self) -> int:
        row = self.conn.execute(
            f"SELECT COALESCE(SUM(chunk_count), 0) FROM documents WHERE {_LIVE} AND indexed=1"
        ).fetchone()
        return int(row[0])

    def sidecar_data(self, doc_id: int) -> dict[str, Any] | None:
        """What a sidecar keeps of a ready document with a stored copy (see library.sidecar)."""
        r = self.conn.execute(
            "SELECT sha256, stored_path, file_name, source_path, kind, added, title, authors, year, venue,"
            " doi, arxiv_id, abstract, language, tags, csl, trashed, metadata_sources FROM documents"
            " WHERE id=? AND status='ready' AND stored_path != ''",
            (doc_id,),
        ).fetchone()
        if r is None:
            return None
        note = self.conn.execute("SELECT text, updated FROM notes WHERE doc_id=?", (doc_id,)).fetchone()
        collections = self.collection_paths_of(doc_id)
        try:
            csl = json.loads(r[15] or "{}")
        except ValueError:
            csl = {}
        return {
            "doc_id": doc_id, "sha256": r[0], "stored_path": r[1], "file_name": r[2], "source_path": r[3], "kind": r[4],
            "added": r[5], "title": r[6], "authors": json.loads(r[7]), "year": r[8], "venue": r[9],
            "doi": r[10], "arxiv_id": r[11], "abstract": r[12], "language": r[13], "tags": json.loads(r[14]),
            "csl": csl if isinstance(csl, dict) else {}, "metadata_sources": _sources(r[17]),
            "note": note[0] if note else "", "note_updated": note[1] if note else None,
            # Only when set: the sidecars written before the trash existed stay in step.
            **({"trashed": r[16]} if r[16] else {}),
            # Likewise: the collections it is in, by path, so that a rebuild files it again.
            **({"collections": collections} if collections else {}),
        }  # fmt: skip

    def stored_paths(self) -> set[str]:
        return {r[0] for r in self.conn.execute("SELECT stored_path FROM documents WHERE stored_path != ''")}

    def counts(self) -> tuple[int, int]:
        row = self.conn.execute(
            f"SELECT COUNT(*), COALESCE(SUM(chunk_count), 0) FROM documents WHERE {_LIVE}"
        ).fetchone()
        return int(row[0]), int(row[1])

    def iter_chunks_for_index(self, doc_ids: Sequence[int] | None = None) -> Iterator[ChunkRow]:
        sql = (
            "SELECT c.id, c.doc_id, c.seq, c.section, c.page, c.text, d.title, d.year, c.kind, c.section_path"
            " FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.status='ready' AND d.trashed=''"
        )
        if doc_ids is None:
            cur = self.conn.execute(sql + " ORDER BY c.id")
            for r in cur:
                yield ChunkRow(*r)
            return
        for start in range(0, len(doc_ids), 500):
            part = doc_ids[start : start + 500]
            cur = self.conn.execute(
                sql + f" AND c.doc_id IN ({','.join('?' * len(part))}) ORDER BY c.id", tuple(part)
            )
            for r in cur:
                yield ChunkRow(*r)

    def iter_chunks_for_embedding(self) -> Iterator[tuple[int, str, str, str]]:
        """(chunk id, title, text, kind) of every ready document's chunks, trashed ones too (a
        restored document is then searchable by meaning without embedding it again)."""
        cur = self.conn.execute(
            "SELECT c.id, d.title, c.text, c.kind FROM chunks c JOIN documents d ON d.id = c.doc_id"
            " WHERE d.status='ready' ORDER BY c.id"
        )
        while page := cur.fetchmany(5000):
            yield from page

    def live_chunk_ids(
        self,
        doc_ids: Sequence[int] | None = None,
        year_from: int | None = None,
        year_to: int | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[int]:
        """Ids of the searchable chunks (ready, not trashed) that pass these filters."""
        sql = "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.status='ready' AND d.trashed=''"
        args: list[Any] = []
        if year_from is not None:
            sql += " AND d.year >= ?"
            args.append(year_from)
        if year_to is not None:
            sql += " AND d.year <= ?"
            args.append(year_to)
        if kinds is not None:
            sql += f" AND c.kind IN ({','.join('?' * len(kinds))})"
            args.extend(kinds)
        if doc_ids is None:
            return [int(r[0]) for r in self.conn.execute(sql, args)]
        out: list[int] = []
        ids = list(doc_ids)
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            q = sql + f" AND c.doc_id IN ({','.join('?' * len(part))})"
            out.extend(int(r[0]) for r in self.conn.execute(q, [*args, *part]))
        return out

    def chunks_by_ids(self, chunk_ids: Sequence[int]) -> dict[int, ChunkRow]:
        if not chunk_ids:
            return {}
        rows = self.conn.execute(
            "SELECT c.id, c.doc_id, c.seq, c.section, c.page, c.text, d.title, d.year, c.kind, c.section_path"
            " FROM chunks c JOIN documents d ON d.id = c.doc_id"
            # A trashed document's index entries may outlive a crash: they never become hits.
            f" WHERE d.trashed='' AND c.id IN ({','.join('?' * len(chunk_ids))})",
            tuple(chunk_ids),
        ).fetchall()
        return {r[0]: ChunkRow(*r) for r in rows}

    def passage(self, doc_id: int, seq: int) -> Passage | None:
        r = self.conn.execute(
            "SELECT c.id, c.section, c.page, c.text, d.title, d.chunk_count, c.kind, c.section_path, c.source"
            " FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.doc_id=? AND c.seq=? AND d.status='ready'"
            " AND d.trashed=''",
            (doc_id, seq),
        ).fetchone()
        if r is None:
            return None
        return Passage(
            doc_id=doc_id,
            chunk_id=r[0],
            seq=seq,
            title=r[4],
            section=r[1],
            page=r[2],
            text=r[3],
            prev=seq - 1 if seq > 0 else None,
            next=seq + 1 if seq + 1 < r[5] else None,
            kind=r[6],
            section_path=r[7],
            ocr=r[8] == "ocr",
        )

    def section_opening(self, doc_id: int, seq: int) -> int | None:
        """The first segment of the section that segment ``seq`` is in: walking back while the
        segments carry the same heading path ("2 Data Model"; a subsection is a section of its
        own). None when ``seq`` has no section."""
        rows = self.conn.execute(
            "SELECT c.seq, c.section_path FROM chunks c JOIN documents d ON d.id = c.doc_id"
            " WHERE c.doc_id=? AND c.seq<=? AND d.status='ready' AND d.trashed='' ORDER BY c.seq DESC",
            (doc_id, seq),
        )
        first, path = next(rows, (-1, ""))
        if not path:
            return None
        for r_seq, r_path in rows:  # read back only as far as the section goes
            if r_path != path:
                break
            first = r_seq
        return int(first)

    # --- organizing: the trash, tags, collections (schema step 7; see library.organize) -------

    def set_trashed(self, doc_ids: Sequence[int], when: str) -> list[int]:
        """Move ready documents to the trash (``when``) or, with ``when`` '', out of it; returns
        the ids that changed. Either way the document is unindexed here: leaving the trash, it is
        indexed again by the caller (recovery does it after a crash); entering it, the caller
        deletes its index entries."""
        if not doc_ids:
            return []
        marks = ",".join("?" * len(doc_ids))
        state = "trashed=''" if when else "trashed!=''"
        with self.transaction() as c:
            ids = [
                int(r[0])
                for r in c.execute(
                    f"SELECT id FROM documents WHERE status='ready' AND {state} AND id IN ({marks})", list(doc_ids)
                )
            ]
            c.executemany("UPDATE documents SET trashed=?, indexed=0 WHERE id=?", ((when, i) for i in ids))
        return ids

    def trashed_before(self, cutoff: str) -> list[int]:
        """Documents moved to the trash before ``cutoff`` (ISO 8601 UTC)."""
        return [
            int(r[0])
            for r in self.conn.execute(
                "SELECT id FROM documents WHERE status='ready' AND trashed!='' AND trashed < ? ORDER BY id", (cutoff,)
            )
        ]

    def set_tags(self, changes: dict[int, list[str]]) -> list[int]:
        """Replace the tags of documents (not failed imports) in one transaction; the ids changed."""
        done: list[int] = []
        with self.transaction() as c:
            for doc_id, tags in changes.items():
                cur = c.execute(
                    "UPDATE documents SET tags=? WHERE id=? AND status='ready'",
                    (json.dumps(list(tags), ensure_ascii=False), doc_id),
                )
                if cur.rowcount:
                    done.append(doc_id)
        return done

    def tag_colors(self) -> dict[str, str]:
        return {str(n): str(c) for n, c in self.conn.execute("SELECT name, color FROM tag_colors")}

    def set_tag_color(self, name: str, color: str) -> None:
        with self.transaction() as c:
            if color:
                c.execute(
                    "INSERT INTO tag_colors(name, color) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET color=excluded.color",
                    (name, color),
                )
            else:
                c.execute("DELETE FROM tag_colors WHERE name=?", (name,))

    def collections(self) -> list[tuple[int, str, int | None]]:
        """(id, name, parent id) of every collection."""
        return [
            (int(i), str(n), int(p) if p is not None else None)
            for i, n, p in self.conn.execute("SELECT id, name, parent_id FROM collections ORDER BY id")
        ]

    def add_collection(self, name: str, parent_id: int | None, created: str | None = None) -> int:
        with self.transaction() as c:
            cur = c.execute(
                "INSERT INTO collections(name, parent_id, created) VALUES (?,?,?)",
                (name, parent_id, created or utc_now()),
            )
            return int(cur.lastrowid or 0)

    def update_collection(self, collection_id: int, name: str, parent_id: int | None) -> None:
        with self.transaction() as c:
            c.execute("UPDATE collections SET name=?, parent_id=? WHERE id=?", (name, parent_id, collection_id))

    def delete_collection(self, collection_id: int) -> None:
        """Delete a collection and its sub-collections (their documents stay in the library)."""
        with self.transaction() as c:
            c.execute("DELETE FROM collections WHERE id=?", (collection_id,))

    def collection_paths_of(self, doc_id: int) -> list[str]:
        """The paths ("Thesis/Chapter 2") of the collections a document is in, sorted."""
        rows = self.conn.execute(
            "WITH RECURSIVE up(path, parent) AS ("
            " SELECT c.name, c.parent_id FROM collection_items i JOIN collections c ON c.id = i.collection_id"
            " WHERE i.doc_id = ?"
            " UNION ALL SELECT p.name || '/' || up.path, p.parent_id FROM up JOIN collections p ON p.id = up.parent)"
            " SELECT path FROM up WHERE parent IS NULL",
            (doc_id,),
        ).fetchall()
        return sorted({str(r[0]) for r in rows}, key=str.casefold)

    def collection_created(self) -> dict[int, str]:
        """Collection id → when it was made."""
        return {int(i): str(t) for i, t in self.conn.execute("SELECT id, created FROM collections")}

    def collection_members(self) -> dict[int, set[int]]:
        """Collection id → the ids of the documents in it."""
        out: dict[int, set[int]] = {}
        for cid, did in self.conn.execute("SELECT collection_id, doc_id FROM collection_items"):
            out.setdefault(int(cid), set()).add(int(did))
        return out

    def set_membership(self, collection_id: int, doc_ids: Sequence[int], member: bool) -> list[int]:
        """Put documents into a collection (``member``) or take them out; the ids that changed."""
        done: list[int] = []
        with self.transaction() as c:
            for doc_id in doc_ids:
                if member:
                    if c.execute("SELECT 1 FROM documents WHERE id=? AND status='ready'", (doc_id,)).fetchone() is None:
                        continue
                    cur = c.execute(
                        "INSERT OR IGNORE INTO collection_items(collection_id, doc_id, added) VALUES (?,?,?)",
                        (collection_id, doc_id, utc_now()),
                    )
                else:
                    cur = c.execute(
                        "DELETE FROM collection_items WHERE collection_id=? AND doc_id=?", (collection_id, doc_id)
                    )
                if cur.rowcount:
                    done.append(doc_id)
        return done

    # --- the undo journal (schema step 8; see library.undo) ----------------------------------

    def push_undo(self, action: str, label: str, n: int, name: str, payload: dict[str, Any], keep: int) -> int:
        """Append an entry and drop all but the newest ``keep``; its id."""
        with self.transaction() as c:
            cur = c.execute(
                "INSERT INTO undo_journal(created, action, label, n, name, payload) VALUES (?,?,?,?,?,?)",
                (utc_now(), action, label, n, name, json.dumps(payload, ensure_ascii=False)),
            )
            new = int(cur.lastrowid or 0)
            c.execute("DELETE FROM undo_journal WHERE id <= ?", (new - keep,))
            return new

    def undo_entries(self, limit: int = 1) -> list[tuple[int, str, str, str, int, str, str]]:
        """The newest entries first: (id, created, action, label, n, name, payload)."""
        return [
            (int(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4]), str(r[5]), str(r[6]))
            for r in self.conn.execute(
                "SELECT id, created, action, label, n, name, payload FROM undo_journal ORDER BY id DESC LIMIT ?",
                (limit,),
            )
        ]

    def take_undo(self, entry_id: int) -> bool:
        """Remove an entry; False when it was gone already (another process undid it first)."""
        with self.transaction() as c:
            return c.execute("DELETE FROM undo_journal WHERE id=?", (entry_id,)).rowcount == 1

    def put_back_undo(self, row: tuple[int, str, str, str, int, str, str]) -> None:
        """Put a taken entry back where it was (its undo failed and may be tried again)."""
        with self.transaction() as c:
            c.execute(
                "INSERT OR IGNORE INTO undo_journal(id, created, action, label, n, name, payload)"
                " VALUES (?,?,?,?,?,?,?)",
                row,
            )

    def note_doc_ids(self) -> set[int]:
        """Documents with a (non-empty) note."""
        return {int(r[0]) for r in self.conn.execute("SELECT doc_id FROM notes WHERE trim(text) != ''")}

    # --- reference lists ----------------------------------------------------------------------

    def references(self, doc_id: int) -> list[Reference]:
        """A document's reference list, in printed order."""
        rows = self.conn.execute(
            "SELECT text, label, authors, title, year, venue, doi, arxiv_id FROM doc_references"
            " WHERE doc_id=? ORDER BY seq",
            (doc_id,),
        ).fetchall()
        return [
            Reference(text=r[0], label=r[1], authors=json.loads(r[2]), title=r[3], year=r[4], venue=r[5],
                      doi=r[6], arxiv_id=r[7])
            for r in rows
        ]  # fmt: skip

    def reference_count(self, doc_id: int) -> int:
        row = self.conn.execute("SELECT COUNT(*) FROM doc_references WHERE doc_id=?", (doc_id,)).fetchone()
        return int(row[0])

    def citing_references(self, doi: str, arxiv_id: str, title: str) -> list[tuple[int, int, int | None, bool]]:
        """(doc_id, seq, year, by identifier) of every stored reference that names this DOI,
        arXiv id or title, in ready documents."""
        keys: list[str] = []
        args: list[str] = []
        if doi:
            keys.append("r.doi_key=?")
            args.append(normalize_doi(doi))
        if arxiv_id:
            keys.append("r.arxiv_id=?")
            args.append(arxiv_id)
        tk = title_key(title)
        if len(tk) >= 12:
            keys.append("r.title_key=?")
            args.append(tk)
        if not keys:
            return []
        ids = " OR ".join(k for k in keys if not k.startswith("r.title_key")) or "0"
        rows = self.conn.execute(
            f"SELECT r.doc_id, r.seq, r.year, ({ids}) FROM doc_references r JOIN documents d ON d.id=r.doc_id"
            f" WHERE d.status='ready' AND ({' OR '.join(keys)}) ORDER BY r.doc_id, r.seq",
            tuple(args[: len(keys) - (1 if len(tk) >= 12 else 0)]) + tuple(args),
        ).fetchall()
        return [(int(a), int(b), c, bool(d)) for a, b, c, d in rows]

    def set_references(self, doc_id: int, references: Sequence[Reference]) -> None:
        """Replace a document's reference list (re-reading it from the stored file)."""
        with self.transaction() as c:
            c.execute("DELETE FROM doc_references WHERE doc_id=?", (doc_id,))
            _insert_references(c, doc_id, references)


def _insert_references(c: sqlite3.Connection, doc_id: int, references: Sequence[Reference]) -> None:
    c.executemany(
        "INSERT INTO doc_references (doc_id, seq, label, text, authors, title, year, venue, doi, arxiv_id,"
        " doi_key, title_key) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            (doc_id, i, r.label, r.text, json.dumps(r.authors, ensure_ascii=False), r.title, r.year, r.venue,
             r.doi, r.arxiv_id, normalize_doi(r.doi) if r.doi else "", title_key(r.title))
            for i, r in enumerate(references)
        ),
    )  # fmt: skip
