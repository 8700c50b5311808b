"""Organizing a library: tag names, collection paths and trees, the views beside the table.

Tags live in ``documents.tags`` (a JSON list, also kept in the sidecars); collections are rows
of their own (``collections``, nested by ``parent_id``) with their members in
``collection_items``; a document may be in any number of them. A collection is named by its
path from the top, parts joined by "/" ("Thesis/Chapter 2"). Nothing here touches the database:
the library's writer does (library.Library.set_tags, create_collection …).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from ..clock import now as clock_now
from ..errors import InvalidInput, NotFound
from ..models import DocumentInfo

SEPARATOR = "/"
MAX_TAG = 64
MAX_NAME = 120
# A few colours a tag may carry in the table (name → hex); the GUI offers them by name.
TAG_COLORS = {
    "red": "#d32f2f",
    "orange": "#ef6c00",
    "yellow": "#f9a825",
    "green": "#2e7d32",
    "blue": "#1565c0",
    "purple": "#6a1b9a",
    "grey": "#616161",
}
# "Recently added": documents added within this many days.
RECENT_DAYS = 14


class CollectionNotFound(NotFound):
    """No collection has that name (path)."""


# Bidirectional embeddings, overrides and isolates: inside a name they reorder what follows
# (a tag that reads as another in the table and the terminal). Right-to-left text itself is fine.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _refuse_controls(text: str, what: str) -> None:
    """InvalidInput for a control character (an escape sequence, a bidi override) in a name."""
    for ch in text:
        if unicodedata.category(ch) == "Cc" or ch in _BIDI_CONTROLS:
            raise InvalidInput(f"the {what} holds a control character (U+{ord(ch):04X}); type it without")


def normalize_tag(text: str, *, new: bool = True) -> str:
    """A tag as stored: inner whitespace collapsed; InvalidInput for an empty or unusable one.

    Commas and semicolons are refused because BibTeX ``keywords`` and RIS readers split on them:
    a tag must come back as the same tag after an export and an import. ``new`` False: a tag
    to look for or take off, which only has to be non-empty (a library may hold tags from
    before a rule, and they must stay removable).
    """
    tag = " ".join(str(text).split())
    if not tag:
        raise InvalidInput("a tag cannot be empty")
    if not new:
        return tag
    _refuse_controls(tag, "tag")
    if any(c in tag for c in ",;"):
        raise InvalidInput(f"the tag {tag!r} holds a comma or semicolon; bibliographies split keywords there")
    if len(tag) > MAX_TAG:
        raise InvalidInput(f"the tag {tag[:20]!r}… is longer than {MAX_TAG} characters")
    return tag


def split_keywords(value: str) -> list[str]:
    """Tags from a bibliography's keyword field ("a, b; c" → a, b, c), without repeats."""
    out: list[str] = []
    for part in value.replace(";", ",").split(","):
        # A bibliography is someone else's text: control characters are dropped, not refused.
        part = "".join(c for c in part if unicodedata.category(c) != "Cc" and c not in _BIDI_CONTROLS)
        tag = " ".join(part.split())[:MAX_TAG]
        if tag and tag.casefold() not in {t.casefold() for t in out}:
            out.append(tag)
    return out


def merge_tags(current: Sequence[str], add: Iterable[str] = (), remove: Iterable[str] = ()) -> list[str]:
    """``current`` with ``add`` appended and ``remove`` taken out, compared without case (the
    spelling already there is kept)."""
    gone = {t.casefold() for t in remove}
    out = [t for t in current if t.casefold() not in gone]
    have = {t.casefold() for t in out}
    for t in add:
        if t.casefold() not in have and t.casefold() not in gone:
            out.append(t)
            have.add(t.casefold())
    return out


def all_tags(docs: Iterable[DocumentInfo]) -> list[tuple[str, int]]:
    """(tag, number of documents) over ``docs``, by name without case."""
    counts: dict[str, int] = {}
    spelling: dict[str, str] = {}
    for d in docs:
        for t in {t.casefold(): t for t in d.tags}.values():
            key = t.casefold()
            spelling.setdefault(key, t)
            counts[key] = counts.get(key, 0) + 1
    return sorted(((spelling[k], n) for k, n in counts.items()), key=lambda x: x[0].casefold())


def parse_path(path: str) -> list[str]:
    """"Thesis / Chapter 2" → ["Thesis", "Chapter 2"]; InvalidInput for an empty part."""
    parts = [" ".join(p.split()) for p in str(path).split(SEPARATOR)]
    if not parts or any(not p for p in parts):
        raise InvalidInput(f"the collection name {path!r} has an empty part (use Parent/Child for nesting)")
    for p in parts:
        _refuse_controls(p, "collection name")
        if len(p) > MAX_NAME:
            raise InvalidInput(f"the collection name {p[:20]!r}… is longer than {MAX_NAME} characters")
    return parts


@dataclass
class Collection:
    collection_id: int
    name: str
    parent_id: int | None
    path: str = ""
    doc_ids: set[int] = field(default_factory=set)
    children: list[Collection] = field(default_factory=list)

    def all_doc_ids(self) -> set[int]:
        """Its documents and those of every sub-collection (what a filter on it shows)."""
        out = set(self.doc_ids)
        for c in self.children:
            out |= c.all_doc_ids()
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "collection_id": self.collection_id,
            "name": self.name,
            "path": self.path,
            "parent_id": self.parent_id,
            "doc_ids": sorted(self.doc_ids),
            "children": [c.to_json() for c in self.children],
        }


class CollectionTree:
    """The collections of a library, nested, with their members (a snapshot)."""

    def __init__(self, rows: Sequence[tuple[int, str, int | None]], members: dict[int, set[int]]) -> None:
        self.by_id: dict[int, Collection] = {
            cid: Collection(cid, name, parent, doc_ids=set(members.get(cid, set()))) for cid, name, parent in rows
        }
        self.roots: list[Collection] = []
        for c in self.by_id.values():
            parent = self.by_id.get(c.parent_id) if c.parent_id is not None else None
            (parent.children if parent is not None else self.roots).append(c)
        key = lambda c: c.name.casefold()  # noqa: E731 - a sort key
        self.roots.sort(key=key)

        def fill(c: Collection, prefix: str) -> None:
            c.path = f"{prefix}{SEPARATOR}{c.name}" if prefix else c.name
            c.children.sort(key=key)
            for ch in c.children:
                fill(ch, c.path)

        for r in self.roots:
            fill(r, "")

    def walk(self) -> list[Collection]:
        """Every collection, parents before their children, siblings by name."""
        out: list[Collection] = []

        def visit(c: Collection) -> None:
            out.append(c)
            for ch in c.children:
                visit(ch)

        for r in self.roots:
            visit(r)
        return out

    def child(self, parent_id: int | None, name: str) -> Collection | None:
        siblings = self.roots if parent_id is None else self.by_id[parent_id].children
        want = name.casefold()
        return next((c for c in siblings if c.name.casefold() == want), None)

    def find(self, path: str) -> Collection | None:
        """The collection at ``path`` (without case), or None."""
        parent: int | None = None
        found: Collection | None = None
        for part in parse_path(path):
            found = self.child(parent, part)
            if found is None:
                return None
            parent = found.collection_id
        return found

    def get(self, path: str) -> Collection:
        found = self.find(path)
        if found is None:
            raise CollectionNotFound(f"no collection named {path!r} (see: paperpilot collection list)")
        return found

    def filed(self) -> set[int]:
        """Documents in at least one collection."""
        out: set[int] = set()
        for c in self.by_id.values():
            out |= c.doc_ids
        return out

    def paths_of(self, doc_id: int) -> list[str]:
        return sorted(c.path for c in self.by_id.values() if doc_id in c.doc_ids)


def recently_added(docs: Iterable[DocumentInfo], days: int = RECENT_DAYS, now: datetime | None = None) -> list[int]:
    """Ids of the documents added within ``days`` of ``now``, newest first."""
    cutoff = (now or clock_now()) - timedelta(days=days)
    out: list[tuple[str, int]] = []
    for d in docs:
        try:
            when = datetime.fromisoformat(d.added)
        except ValueError:
            continue
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        if when >= cutoff:
            out.append((d.added, d.doc_id))
    return [i for _a, i in sorted(out, reverse=True)]
