"""The undo journal: the last removals, tag edits, collection changes and metadata edits of a
library, each stored with the step that puts it back (Ctrl+Z in the window, ``paperpilot undo``).

The journal is a table of the library's SQLite file (schema step 8), not a list in memory: an
undo works after a restart, and the window and the command line share one history (a tag added
by a script is undone by Ctrl+Z). Each entry holds its inverse as data (an action and its JSON
arguments), never a closure. Undoing takes the newest entry out of the table first, so two
processes pressing undo at once undo two different entries; an undo that fails puts its entry
back, except when what it would bring back is gone for good (purged from the trash), which it
says in one line.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..errors import InvalidInput, NotFound, PaperPilotError
from ..text.messages import Message, msg

if TYPE_CHECKING:
    from ..citations.model import CslItem
    from .library import Library

# Entries kept; older ones fall off (an undo history, not an audit log).
MAX_STEPS = 50


class Action(StrEnum):
    """What undoing an entry does."""

    RESTORE = "restore"  # a removal: take the documents out of the trash
    SET_TAGS = "set_tags"  # a tag edit: put each document's tags back
    FILE = "file"  # taken out of a collection: put them back in (the collection is made again if gone)
    UNFILE = "unfile"  # put into a collection: take them out
    METADATA = "metadata"  # a metadata edit: save the earlier CSL item
    RECREATE = "recreate"  # a deleted collection: make it (and its sub-collections) again, filled
    RENAME = "rename"  # a renamed collection: give it its old name back


class NothingToUndo(NotFound):
    """What an undo would bring back no longer exists (deleted from the trash for good)."""


@dataclass(frozen=True)
class UndoEntry:
    entry_id: int
    created: str  # ISO 8601 UTC
    action: Action
    label: str  # what is undone, in English ("Remove 3 documents"): the menu and the CLI say it
    n: int  # how many documents (for a translated label)
    name: str  # the collection or document the label names ("" when none)
    payload: dict[str, Any]

    def said(self) -> Message | str:
        """The label as a catalogued message a window says in its own language; the stored
        words when they are not what this version would write (another version's entry)."""
        one = "_one" if self.n == 1 else ""
        m = {
            Action.RESTORE: lambda: msg(f"undo.label.remove{one}", n=self.n),
            Action.SET_TAGS: lambda: msg(f"undo.label.tag{one}", n=self.n),
            Action.UNFILE: lambda: msg(f"undo.label.add{one}", n=self.n, name=self.name),
            Action.FILE: lambda: msg(f"undo.label.take_out{one}", n=self.n, name=self.name),
            Action.RECREATE: lambda: msg("undo.label.delete_collection", name=self.name),
            Action.RENAME: lambda: msg(
                "undo.label.rename_collection", name=self.name, new=str(self.payload.get("path") or "").rsplit("/", 1)[-1]
            ),
            Action.METADATA: lambda: msg("undo.label.metadata", name=self.name) if self.name
            else msg("undo.label.metadata_untitled"),
        }[self.action]()
        return m if m.text() == self.label else self.label

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.entry_id,
            "created": self.created,
            "action": self.action.value,
            "label": self.label,
            "n": self.n,
            "name": self.name,
        }


_Row = tuple[int, str, str, str, int, str, str]


def _entry(row: _Row) -> UndoEntry | None:
    try:
        payload = json.loads(row[6])
        action = Action(row[2])
    except ValueError:  # written by a newer version, or damaged: not something to run
        return None
    return UndoEntry(
        row[0], row[1], action, row[3], row[4], row[5], payload if isinstance(payload, dict) else {}
    )


def documents_label(verb: str, n: int, rest: str = "") -> str:
    """ "Remove 3 documents", "Tag 1 document", "Add 2 documents to Thesis"."""
    return f"{verb} {n} document{'' if n == 1 else 's'}{rest}"


def _gone_for_good(gone: Sequence[int], *, trash: bool = False) -> Message:
    """ "documents #3, #4 were deleted (from the trash) for good since"."""
    kind = "undo.trashed_for_good" if trash else "undo.deleted_for_good"
    ids = [f"#{i}" for i in gone[:5]]
    if len(gone) > 5:
        return msg(f"{kind}_more", ids=ids, more=len(gone) - 5)
    return msg(kind + ("_one" if len(gone) == 1 else ""), ids=ids)


def _cannot(e: UndoEntry, why: Message) -> NothingToUndo:
    return NothingToUndo.said(msg("undo.cannot", label=e.said(), why=why))


class UndoJournal:
    """The journal of one library (``library`` is called when it is needed: the session opens
    its library lazily). Safe from any thread: every call reads or writes SQLite through the
    library, and writes go through its serialized writer."""

    def __init__(self, library: Callable[[], Library], limit: int = MAX_STEPS) -> None:
        self._library = library
        self.limit = limit
        # What the last ``undo`` did, as a message a window says in its language ("" for nothing).
        self.last_said: Message | str = ""

    # --- reading -----------------------------------------------------------------------------

    def entries(self, limit: int = MAX_STEPS) -> list[UndoEntry]:
        """The newest first ([] when the library cannot be read: nothing to offer)."""
        try:
            rows = self._library().store.undo_entries(limit)
        except (PaperPilotError, sqlite3.Error):
            return []
        return [e for e in (_entry(r) for r in rows) if e is not None]

    def last(self) -> UndoEntry | None:
        got = self.entries(1)
        return got[0] if got else None

    def label(self) -> str:
        """What ``undo`` would undo ("" when nothing)."""
        last = self.last()
        return last.label if last is not None else ""

    def __len__(self) -> int:
        return len(self.entries())

    # --- writing -----------------------------------------------------------------------------

    def record(
        self, action: Action, label: str, payload: dict[str, Any], *, n: int = 0, name: str = ""
    ) -> None:
        """Add an entry (after the change it undoes was made)."""
        lib = self._library()
        with lib.writing():
            lib.store.push_undo(action.value, label, n, name, payload, self.limit)

    def record_removal(self, doc_ids: Sequence[int]) -> None:
        ids = sorted(doc_ids)
        self.record(Action.RESTORE, documents_label("Remove", len(ids)), {"doc_ids": ids}, n=len(ids))

    def record_tags(self, before: dict[int, list[str]]) -> None:
        self.record(
            Action.SET_TAGS,
            documents_label("Tag", len(before)),
            {"tags": {str(i): t for i, t in before.items()}},
            n=len(before),
        )

    def record_filing(self, collection_id: int, path: str, doc_ids: Sequence[int], *, added: bool) -> None:
        """Documents were put into (``added``) or taken out of the collection at ``path``."""
        ids = sorted(doc_ids)
        label = (
            documents_label("Add", len(ids), f" to {path}")
            if added
            else documents_label("Remove", len(ids), f" from {path}")
        )
        payload = {"collection_id": collection_id, "path": path, "doc_ids": ids}
        self.record(Action.UNFILE if added else Action.FILE, label, payload, n=len(ids), name=path)

    def record_deleted_collection(self, path: str, subtree: list[dict[str, Any]]) -> None:
        """``subtree``: the collection and those below it, parents first, each
        {"path", "created", "doc_ids"}, as they were before the deletion."""
        n = len({i for c in subtree for i in c["doc_ids"]})
        self.record(Action.RECREATE, f"Delete collection {path}", {"collections": subtree}, n=n, name=path)

    def record_renamed_collection(self, collection_id: int, old_path: str, new_path: str) -> None:
        self.record(
            Action.RENAME,
            f"Rename collection {old_path} to {new_path.rsplit('/', 1)[-1]}",
            {"collection_id": collection_id, "old_name": old_path.rsplit("/", 1)[-1], "path": new_path},
            name=old_path,
        )

    def record_metadata(self, doc_id: int, title: str, before: CslItem) -> None:
        self.record(
            Action.METADATA,
            f"Edit metadata of “{title}”" if title else "Edit metadata",
            {"doc_id": doc_id, "item": before.to_csl()},
            n=1,
            name=title,
        )

    def undo(self) -> str:
        """Undo the newest entry; what was undone ("" when there was nothing), with a note when
        part of it could not be (some documents were deleted for good since).

        Raises NothingToUndo (its entry dropped) when nothing of it can come back, and the
        library's errors (busy, read-only …) with the entry kept for another try.
        """
        lib = self._library()
        self.last_said = ""
        while True:
            rows = lib.store.undo_entries(1)
            if not rows:
                return ""
            row = rows[0]
            with lib.writing():
                if lib.store.take_undo(row[0]):
                    break
            # Another process undid that one in between: look again.
        entry = _entry(row)
        if entry is None:
            raise NothingToUndo.said(msg("undo.other_version", label=row[3]))
        try:
            note = _apply(lib, entry)
        except NothingToUndo:
            raise
        except BaseException:
            with lib.writing():
                lib.store.put_back_undo(row)
            raise
        self.last_said = msg("undo.done_in_part", label=entry.said(), note=note) if note else entry.said()
        return str(self.last_said)


def _split(lib: Library, ids: Iterable[int]) -> tuple[list[int], list[int]]:
    """(ids of documents still in the library or its trash, ids of those deleted for good)."""
    here: list[int] = []
    gone: list[int] = []
    for i in ids:
        d = lib.document(int(i))
        (here if d is not None and d.status in ("ready", "trashed") else gone).append(int(i))
    return here, gone


def _apply(lib: Library, e: UndoEntry) -> Message | None:
    """Undo ``e``; a note when part of it could not be done (None when all of it was)."""
    p = e.payload
    if e.action is Action.RESTORE:
        here, gone = _split(lib, p.get("doc_ids") or [])
        if not here:
            raise _cannot(e, _gone_for_good(gone, trash=True))
        trashed = {d.doc_id for d in lib.trashed_documents()}
        back = lib.restore([i for i in here if i in trashed])
        if gone:
            return _gone_for_good(gone, trash=True)
        return None if back else msg("undo.already_restored")
    if e.action is Action.SET_TAGS:
        tags = {int(k): [str(t) for t in v] for k, v in (p.get("tags") or {}).items()}
        here, gone = _split(lib, tags)
        if not here:
            raise _cannot(e, _gone_for_good(gone))
        lib.set_tags({i: tags[i] for i in here})
        return _gone_for_good(gone) if gone else None
    if e.action in (Action.FILE, Action.UNFILE):
        path = str(p.get("path") or "")
        here, gone = _split(lib, p.get("doc_ids") or [])
        if not here:
            raise _cannot(e, _gone_for_good(gone))
        tree = lib.collection_tree()
        c = tree.by_id.get(int(p.get("collection_id") or 0))
        if c is None and path:
            c = tree.find(path)
        if e.action is Action.UNFILE:
            if c is None:
                raise _cannot(e, msg("undo.collection_gone", path=path))
            lib.file_documents(c.collection_id, here, False)
        else:
            cid = c.collection_id if c is not None else lib.create_collection(path)
            lib.file_documents(cid, here, True)
        return _gone_for_good(gone) if gone else None
    if e.action is Action.RECREATE:
        subtree = [
            c for c in p.get("collections") or [] if isinstance(c, dict) and isinstance(c.get("path"), str)
        ]
        members = {int(i) for item in subtree for i in item.get("doc_ids") or []}
        _here, gone = _split(lib, members)
        for item in subtree:
            cid = lib.create_collection(item["path"], created=str(item.get("created") or "") or None)
            ids, _gone = _split(lib, item.get("doc_ids") or [])
            if ids:
                lib.file_documents(cid, ids, True)
        return _gone_for_good(sorted(gone)) if gone else None
    if e.action is Action.RENAME:
        renamed = lib.collection_tree().by_id.get(int(p.get("collection_id") or 0))
        if renamed is None:
            raise _cannot(e, msg("undo.collection_gone", path=str(p.get("path"))))
        lib.rename_collection(renamed.collection_id, str(p.get("old_name") or renamed.name))
        return None
    # METADATA
    from ..citations.model import item_from_csl
    from .metadata import save_item

    doc_id = int(p.get("doc_id") or 0)
    here, gone = _split(lib, [doc_id])
    if not here:
        raise _cannot(e, _gone_for_good([doc_id]))
    doc = lib.document(doc_id)
    if doc is not None and doc.status == "trashed":
        raise InvalidInput.said(msg("undo.cannot_yet", label=e.said(), why=msg("undo.in_trash", id=doc_id)))
    save_item(lib, doc_id, item_from_csl(dict(p.get("item") or {})))
    return None
