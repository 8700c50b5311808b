"""Per-document notes: one Markdown text per document, in the library database (table ``notes``).

A note is deleted with its document (ON DELETE CASCADE). An empty text removes the note.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple

from ..text.language import query_terms

if TYPE_CHECKING:
    from .library import Library

SNIPPET_CHARS = 160


class NoteHit(NamedTuple):
    doc_id: int
    title: str
    snippet: str


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def get_note(library: Library, doc_id: int) -> str:
    """The note on ``doc_id`` ("" when there is none)."""
    row = library.store.conn.execute("SELECT text FROM notes WHERE doc_id=?", (doc_id,)).fetchone()
    return str(row[0]) if row else ""


def note_updated(library: Library, doc_id: int) -> str | None:
    """When the note was last saved (ISO 8601 UTC), or None."""
    row = library.store.conn.execute("SELECT updated FROM notes WHERE doc_id=?", (doc_id,)).fetchone()
    return str(row[0]) if row else None


def set_note(library: Library, doc_id: int, text: str) -> None:
    """Save the note on ``doc_id`` (an empty text deletes it).

    Raises ``LibraryError`` when no document has that id.
    """
    from .library import LibraryError, LibraryReadOnly

    if library.read_only:
        raise LibraryReadOnly(f"The library folder {library.paths.library_dir} is read-only: the note was not saved.")
    store = library.store
    with library.storage_errors(), store.transaction() as c:
        if c.execute("SELECT 1 FROM documents WHERE id=? AND status='ready'", (doc_id,)).fetchone() is None:
            raise LibraryError(f"No document with id {doc_id}.")
        if not text.strip():
            c.execute("DELETE FROM notes WHERE doc_id=?", (doc_id,))
        else:
            c.execute(
                "INSERT INTO notes(doc_id, text, updated) VALUES (?,?,?)"
                " ON CONFLICT(doc_id) DO UPDATE SET text=excluded.text, updated=excluded.updated",
                (doc_id, text, _now()),
            )
    # The sidecar keeps the note with the stored copy, for a rebuild if the database is lost.
    library.write_sidecar(doc_id)


def all_notes(library: Library) -> dict[int, str]:
    """Every note, by document id."""
    return {int(r[0]): str(r[1]) for r in library.store.conn.execute("SELECT doc_id, text FROM notes")}


def _snippet(text: str, terms: list[str]) -> str:
    flat = " ".join(text.split())
    low = flat.lower()
    pos = min((i for i in (low.find(t) for t in terms) if i >= 0), default=0)
    start = max(0, pos - SNIPPET_CHARS // 3)
    out = flat[start : start + SNIPPET_CHARS]
    return ("…" if start > 0 else "") + out + ("…" if start + SNIPPET_CHARS < len(flat) else "")


def search_notes(library: Library, query: str) -> list[NoteHit]:
    """Notes whose text (or document title) holds every word of ``query``; most recent first.

    An empty query lists every note.
    """
    terms = [t.lower() for t in query_terms(query)] if query.strip() else []
    rows = library.store.conn.execute(
        "SELECT n.doc_id, d.title, n.text FROM notes n JOIN documents d ON d.id = n.doc_id"
        " WHERE d.status='ready' ORDER BY n.updated DESC, n.doc_id"
    ).fetchall()
    out: list[NoteHit] = []
    for doc_id, title, text in rows:
        blob = f"{title}\n{text}".lower()
        if all(t in blob for t in terms):
            out.append(NoteHit(int(doc_id), str(title), _snippet(str(text), terms)))
    return out
