"""A library narrowed to some of its documents: what a question scoped to a collection or a
tag sees (the agent's searches, reads, document list, concept counts and notes stay inside it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..agent.scoped import ScopedPool
from ..text.messages import msg

if TYPE_CHECKING:
    from .library import Library


@dataclass(frozen=True)
class CollectionScope:
    """Ask (or draft, or build a matrix) over a collection (its path) or a tag only."""

    kind: str  # "collection" | "tag"
    name: str

    def label(self) -> str:
        return f"{self.kind}: {self.name}"


class ScopedLibrary(ScopedPool):
    """``library`` limited to ``doc_ids``: the agent's scoped DocumentPool (``agent.scoped``) plus
    the library's optional concept and note parts, inside the scope; everything else passes through."""

    def __init__(self, library: Library, doc_ids: Sequence[int], scope: CollectionScope) -> None:
        super().__init__(library, sorted(set(doc_ids)),
                         outside=msg("read.out_of_scope", doc_id=0, scope=scope.label()))  # fmt: skip
        self.library = library
        self.scope = scope

    def __getattr__(self, name: str) -> object:
        return getattr(self.library, name)

    def concept_stats(self, terms: Sequence[str], sample: int = 40, fuzzy: bool = True) -> dict[str, int]:
        return self.library.concept_stats(terms, sample, fuzzy, doc_ids=self.doc_ids)

    def get_note(self, doc_id: int) -> str:
        return self.library.get_note(doc_id) if doc_id in self._ids else ""

    def set_note(self, doc_id: int, text: str) -> None:
        if doc_id not in self._ids:
            raise self.outside(doc_id)
        self.library.set_note(doc_id, text)

    def all_notes(self) -> dict[int, str]:
        return {d: t for d, t in self.library.all_notes().items() if d in self._ids}
