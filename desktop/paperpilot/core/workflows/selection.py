"""Which papers a matrix or a draft draws on: ids, a query, a year range, tags or collections.

A ``PaperSelection`` is plain data (saved with the matrix or draft); ``resolve_scope`` turns it into the
documents, in a stable order. Year ranges may be said in words ("近三年", "the last three
years", "since 2020", "2019–2023"): ``text.years`` reads them against ``clock.today()``.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from ..agent.state import DocumentPool
from ..errors import InvalidInput, NotFound
from ..models import DocumentInfo
from ..text.kinds import answerable
from ..text.messages import Message, msg
from ..text.years import parse_years as parse_years  # the one year parser, re-exported
from .passage_kind import hit_kind

# How many passages a query scope looks at: enough that every paper mentioning it has one.
QUERY_SCOPE_HITS = 400


# The papers a scope draws on are the agent's pool (the library, or a part of it); a pool that
# can also list its collections (``collection_tree``) can be scoped by them.
ScopePool = DocumentPool


@dataclass
class PaperSelection:
    """The papers to draw on. Empty fields do not filter; all given ones must hold."""

    doc_ids: list[int] = field(default_factory=list)
    query: str = ""
    year_from: int | None = None
    year_to: int | None = None
    tags: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PaperSelection:
        return cls(
            doc_ids=[int(x) for x in data.get("doc_ids") or []],
            query=str(data.get("query") or ""),
            year_from=data.get("year_from"),
            year_to=data.get("year_to"),
            tags=[str(x) for x in data.get("tags") or []],
            collections=[str(x) for x in data.get("collections") or []],
        )

    def describe(self) -> str:
        bits = []
        if self.doc_ids:
            bits.append("documents " + ", ".join(str(i) for i in self.doc_ids))
        if self.query:
            bits.append(f"matching {self.query!r}")
        if self.year_from is not None or self.year_to is not None:
            bits.append(f"years {self.year_from or '…'}–{self.year_to or '…'}")
        if self.tags:
            bits.append("tagged " + ", ".join(self.tags))
        if self.collections:
            bits.append("in " + ", ".join(self.collections))
        return "; ".join(bits) or "the whole library"

    def describe_msg(self) -> Message:
        """``describe`` as a catalogued message (the parts as ``scope.*`` messages)."""
        bits = []
        if self.doc_ids:
            bits.append(msg("scope.documents", ids=[str(i) for i in self.doc_ids]))
        if self.query:
            bits.append(msg("scope.matching", query=self.query))
        if self.year_from is not None or self.year_to is not None:
            bits.append(msg("scope.years", start=str(self.year_from or "…"), end=str(self.year_to or "…")))
        if self.tags:
            bits.append(msg("scope.tagged", tags=list(self.tags)))
        if self.collections:
            bits.append(msg("scope.in", collections=list(self.collections)))
        return msg("scope.parts", parts=bits) if bits else msg("scope.whole_library")


def year_argument(text: str, now: date | None = None) -> tuple[int | None, int | None]:
    """A ``--years`` value: "2019-2023", "2020" (that year), or words ("近三年", "since 2020")."""
    t = text.strip()
    if re.fullmatch(r"(?:19|20)\d{2}", t):
        return (int(t), int(t))
    parsed = parse_years(t, now)
    if parsed is None:
        raise InvalidInput(f"cannot read the year range {text!r} (try 2019-2023, since 2020 or 近三年)")
    return parsed


def resolve_scope(pool: ScopePool, scope: PaperSelection) -> list[DocumentInfo]:
    """The ready documents the scope names, in its order (ids as given; a query's best first;
    otherwise the library's order). Ids, tags, collections, years and the query all narrow the
    same set. Raises NotFound for an id or a collection that is not in the library."""
    docs = pool.list_documents()
    by_id = {d.doc_id: d for d in docs}
    if scope.doc_ids:
        missing = [i for i in scope.doc_ids if i not in by_id]
        if missing:
            raise NotFound(
                f"no document with id {', '.join(str(i) for i in missing)} (see: paperpilot list)"
            )
        chosen = [by_id[i] for i in dict.fromkeys(scope.doc_ids)]
    else:
        chosen = list(docs)
    if scope.tags:
        wanted = {t.casefold() for t in scope.tags}
        chosen = [d for d in chosen if wanted & {t.casefold() for t in d.tags}]
    if scope.collections:
        # A collection's papers are those filed in it or in any of its sub-collections; the
        # library knows them (its collection tree), a document does not carry them.
        tree_of = getattr(pool, "collection_tree", None)
        if not callable(tree_of):
            raise InvalidInput("these papers have no collections; choose documents, a tag or a query")
        tree = tree_of()
        members: set[int] = set()
        for name in scope.collections:
            members |= set(tree.get(name).all_doc_ids())  # CollectionNotFound names the unknown one
        chosen = [d for d in chosen if d.doc_id in members]
    if scope.year_from is not None or scope.year_to is not None:
        lo = scope.year_from if scope.year_from is not None else -10_000
        hi = scope.year_to if scope.year_to is not None else 10_000
        chosen = [d for d in chosen if d.year is not None and lo <= d.year <= hi]
    if scope.query.strip():
        ids = [d.doc_id for d in chosen]
        hits = pool.search(scope.query, QUERY_SCOPE_HITS, doc_ids=ids) if ids else []
        # A paper is in the scope when one of its passages that can answer (not its reference
        # list) matches: a bibliography entry mentions everything.
        order: dict[int, float] = {}
        for h in hits:
            if answerable(hit_kind(h)) and h.doc_id not in order:
                order[h.doc_id] = h.score
        keep = {d.doc_id: d for d in chosen}
        chosen = [keep[i] for i in order if i in keep]
    return chosen
