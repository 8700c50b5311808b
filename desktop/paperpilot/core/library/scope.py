"""A library narrowed to some of its documents: what a question scoped to a collection or a
tag sees (the agent's searches, reads, document list and concept counts stay inside it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import DocumentNotFound
from ..models import DocumentInfo, Hit, Passage

if TYPE_CHECKING:
    from .library import Library


@dataclass(frozen=True)
class Scope:
    """Ask (or draft, or build a matrix) over a collection (its path) or a tag only."""

    kind: str  # "collection" | "tag"
    name: str

    def label(self) -> str:
        return f"{self.kind}: {self.name}"


class ScopedLibrary:
    """``library`` limited to ``doc_ids``; implements the agent's DocumentPool (and the optional
    concept, note and language parts) and passes everything else through."""

    def __init__(self, library: Library, doc_ids: Sequence[int], scope: Scope) -> None:
        self.library = library
        self.scope = scope
        self.doc_ids = sorted(set(doc_ids))
        self._ids = set(self.doc_ids)

    def __getattr__(self, name: str) -> object:
        return getattr(self.library, name)

    def list_documents(self) -> list[DocumentInfo]:
        return [d for d in self.library.list_documents() if d.doc_id in self._ids]

    def search(
        self,
        query: str,
        k: int = 3,
        *,
        doc_ids: Sequence[int] | None = None,
        year_from: int | None = None,
        year_to: int | None = None,
        kinds: Sequence[str] | None = None,
    ) -> list[Hit]:
        ids = self.doc_ids if doc_ids is None else [i for i in doc_ids if i in self._ids]
        if not ids:
            return []
        return self.library.search(query, k, doc_ids=ids, year_from=year_from, year_to=year_to, kinds=kinds)

    def read(self, doc_id: int, segment: int) -> Passage:
        if doc_id not in self._ids:
            raise DocumentNotFound(f"Document {doc_id} is outside the question's scope ({self.scope.label()}).")
        return self.library.read(doc_id, segment)

    def concept_stats(self, terms: Sequence[str], sample: int = 40, fuzzy: bool = True) -> dict[str, int]:
        return self.library.concept_stats(terms, sample, fuzzy, doc_ids=self.doc_ids)

    def language_mix(self) -> dict[str, float]:
        langs = [d.language for d in self.list_documents() if d.language]
        return {lang: langs.count(lang) / len(langs) for lang in dict.fromkeys(langs)} if langs else {}

    def get_note(self, doc_id: int) -> str:
        return self.library.get_note(doc_id) if doc_id in self._ids else ""

    def set_note(self, doc_id: int, text: str) -> None:
        if doc_id not in self._ids:
            raise DocumentNotFound(f"Document {doc_id} is outside the question's scope ({self.scope.label()}).")
        self.library.set_note(doc_id, text)

    def all_notes(self) -> dict[int, str]:
        return {d: t for d, t in self.library.all_notes().items() if d in self._ids}
