"""The library filter's little language: plain words plus field prefixes.

``author:smith year:2020-2023 tag:"deep learning" collection:Thesis/Ch2 transformer`` keeps
the documents by an author whose name holds "smith", from 2020 to 2023, tagged "deep learning",
in that collection (or one of its sub-collections), whose title, authors or year hold
"transformer" — or, in full-text mode, whose text does (the Tantivy index). Every part must
match. A word with an unknown prefix ("http://…") is a plain word; a malformed year is
reported in one line and otherwise ignored, so typing never breaks the filter.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..models import DocumentInfo
from .organize import CollectionTree, parse_path

FIELDS = ("author", "year", "tag", "collection", "title")
_YEAR = re.compile(r"^(\d{4})?\s*(-|–|\.\.)?\s*(\d{4})?$")


@dataclass
class LibraryQuery:
    words: list[str] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    year_from: int | None = None
    year_to: int | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def has_fields(self) -> bool:
        return bool(
            self.authors or self.titles or self.tags or self.collections
            or self.year_from is not None or self.year_to is not None
        )  # fmt: skip

    @property
    def empty(self) -> bool:
        return not self.words and not self.has_fields

    def text(self) -> str:
        """The plain words, for a full-text search."""
        return " ".join(self.words)


def _split(text: str) -> list[str]:
    for closing in ("", '"', "'"):  # an unclosed quote while typing: close it
        try:
            return shlex.split(text + closing)
        except ValueError:
            continue
    return text.replace('"', " ").replace("'", " ").split()


def parse_query(text: str) -> LibraryQuery:
    q = LibraryQuery()
    for token in _split(text):
        name, sep, value = token.partition(":")
        key = name.casefold()
        if not sep or key not in FIELDS:
            q.words.append(token)
            continue
        value = value.strip()
        if not value:
            continue  # "tag:" while the user is still typing
        if key == "author":
            q.authors.append(value.casefold())
        elif key == "title":
            q.titles.append(value.casefold())
        elif key == "tag":
            q.tags.append(value.casefold())
        elif key == "collection":
            q.collections.append(value)
        else:
            m = _YEAR.match(value)
            if m is None or not (m.group(1) or m.group(3)):
                q.problems.append(f"year:{value} is not a year or a range (e.g. year:2020-2023)")
                continue
            lo = int(m.group(1)) if m.group(1) else None
            hi = int(m.group(3)) if m.group(3) else None
            if not m.group(2):
                hi = lo
            if lo is not None and hi is not None and lo > hi:
                lo, hi = hi, lo
            q.year_from, q.year_to = lo, hi
    return q


def haystack(doc: DocumentInfo) -> str:
    """What plain words are looked for in without full text: title, authors, year."""
    return " ".join([doc.title, *doc.authors, str(doc.year or "")]).casefold()


def collection_ids(query: LibraryQuery, tree: CollectionTree | None) -> set[int] | None:
    """The documents the query's ``collection:`` parts allow (None: no such part). An unknown
    collection allows nothing and says so in ``problems``."""
    if not query.collections:
        return None
    allowed: set[int] | None = None
    for path in query.collections:
        try:
            found = tree.find(path) if tree is not None else None
        except ValueError:
            found = None
        if found is None:
            try:
                parse_path(path)
                query.problems.append(f"no collection named {path!r}")
            except ValueError as e:
                query.problems.append(str(e))
            return set()
        ids = found.all_doc_ids()
        allowed = ids if allowed is None else allowed & ids
    return allowed


def matches_fields(doc: DocumentInfo, q: LibraryQuery, lowered_tags: Sequence[str] | None = None) -> bool:
    """Whether ``doc`` passes the query's field parts (not its plain words)."""
    if q.year_from is not None and (doc.year is None or doc.year < q.year_from):
        return False
    if q.year_to is not None and (doc.year is None or doc.year > q.year_to):
        return False
    if q.authors:
        names = " ".join(doc.authors).casefold()
        if not all(a in names for a in q.authors):
            return False
    if q.titles:
        title = doc.title.casefold()
        if not all(t in title for t in q.titles):
            return False
    if q.tags:
        tags = lowered_tags if lowered_tags is not None else [t.casefold() for t in doc.tags]
        if not all(t in tags for t in q.tags):
            return False
    return True


class DocumentFilter:
    """The filter over one list of documents, for as-you-type use: what every keystroke would
    recompute (the lowered title/authors/year, the tags) is computed once, and a query that
    only extends the previous one ("no" → "not") looks only at the previous matches."""

    def __init__(self, docs: Sequence[DocumentInfo]) -> None:
        self.docs = list(docs)
        self._hay = [haystack(d) for d in self.docs]
        self._tags = [[t.casefold() for t in d.tags] for d in self.docs]
        self._last_text = ""
        self._last_rows: list[int] | None = None

    def ids(self, q: LibraryQuery, tree: CollectionTree | None = None, *, words: bool = True) -> list[int]:
        """Ids of the documents that pass every part of ``q``; ``words``: also match the plain
        words against title, authors and year (False in full-text mode, where the index does)."""
        needles = [w.casefold() for w in q.words] if words else []
        rows: Iterable[int] = range(len(self.docs))
        text = " ".join(needles)
        plain = not q.has_fields and not q.collections
        if plain and self._last_rows is not None and self._last_text and text.startswith(self._last_text):
            rows = self._last_rows  # every match of the longer query matched the shorter one
        allowed = collection_ids(q, tree)
        fields = q.has_fields
        hay, tags, docs = self._hay, self._tags, self.docs
        kept: list[int] = []
        if plain:  # the common case while typing: comprehensions, no per-document branches
            if len(needles) == 1:
                (n,) = needles
                kept = [i for i in rows if n in hay[i]]
            elif needles:
                kept = [i for i in rows if all(n in hay[i] for n in needles)]
            else:
                kept = list(rows)
            rows = ()
        for i in rows:
            d = docs[i]
            if allowed is not None and d.doc_id not in allowed:
                continue
            if fields and not matches_fields(d, q, tags[i]):
                continue
            if needles:
                h = hay[i]
                if not all(n in h for n in needles):
                    continue
            kept.append(i)
        if plain:
            self._last_text, self._last_rows = text, kept
        else:
            self._last_text, self._last_rows = "", None
        return [docs[i].doc_id for i in kept]


def filter_documents(
    docs: Iterable[DocumentInfo],
    q: LibraryQuery,
    tree: CollectionTree | None = None,
    *,
    words: bool = True,
) -> list[int]:
    """Ids of the documents that pass every part of ``q`` (see DocumentFilter.ids)."""
    return DocumentFilter(list(docs)).ids(q, tree, words=words)
