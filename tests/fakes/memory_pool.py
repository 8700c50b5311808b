"""An in-memory DocumentPool for agent tests: documents and passages in lists, no Tantivy, no SQLite.

Search is plain term overlap (the question's keywords, lower case, a trailing plural "s"
dropped), so a test of the loop can say which passage a query finds without an index. Notes
are kept when the pool is built with ``notes=True`` (the loop's notes tool needs a NotePool).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from paperpilot.core.errors import LibraryError
from paperpilot.core.library_records import DocumentInfo, Hit, Passage
from paperpilot.core.text.language import query_terms


@dataclass
class MemoryDocument:
    title: str
    passages: list[str]
    year: int | None = None
    authors: list[str] = field(default_factory=list)
    language: str = "en"
    sections: list[str] = field(default_factory=list)  # one per passage ("" when shorter)
    kinds: list[str] = field(default_factory=list)  # text.kinds values, one per passage ("body" when shorter)


def _terms(text: str) -> set[str]:
    return {t[:-1] if len(t) > 3 and t.endswith("s") else t for t in query_terms(text.lower())}


def _snippet(text: str) -> str:
    sentences = re.split(r"(?<=[.!?。！？])\s+", " ".join(text.split()))
    return " ".join(sentences[:2])


class MemoryPool:
    """The agent's DocumentPool over documents held in memory; document ids start at 1."""

    def __init__(self, documents: Iterable[MemoryDocument], *, notes: bool = False) -> None:
        self.documents = list(documents)
        self.notes: dict[int, str] | None = {} if notes else None
        self.searches: list[str] = []  # every query, for tests that check what was searched
        if notes:
            # Only a pool with notes offers the NotePool methods (note_pool() looks for them).
            self.get_note = self._get_note
            self.set_note = self._set_note

    @classmethod
    def from_markdown(cls, papers: Mapping[str, str], *, notes: bool = False) -> MemoryPool:
        """One document per text: its ``# Title`` line names it, each paragraph is a passage."""
        docs = []
        for name, text in papers.items():
            paras = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
            title = name
            if paras and paras[0].startswith("# "):
                title = paras.pop(0)[2:].strip()
            docs.append(MemoryDocument(title=title, passages=paras))
        return cls(docs, notes=notes)

    def _doc(self, doc_id: int) -> MemoryDocument:
        if not 1 <= doc_id <= len(self.documents):
            raise LibraryError(f"No document with id {doc_id}.")
        return self.documents[doc_id - 1]

    def list_documents(self) -> list[DocumentInfo]:
        return [
            DocumentInfo(doc_id=i, title=d.title, authors=list(d.authors), year=d.year, pages=1,
                         chunks=len(d.passages), status="ok", language=d.language)
            for i, d in enumerate(self.documents, 1)
        ]  # fmt: skip

    def _passage(self, doc_id: int, seq: int) -> tuple[MemoryDocument, str, str, str]:
        doc = self._doc(doc_id)
        if not 0 <= seq < len(doc.passages):
            raise LibraryError(f"Document {doc_id} has no segment {seq}.")
        section = doc.sections[seq] if seq < len(doc.sections) else ""
        kind = doc.kinds[seq] if seq < len(doc.kinds) else "body"
        return doc, doc.passages[seq], section, kind

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
        self.searches.append(query)
        wanted = _terms(query)
        scored: list[tuple[float, int, int]] = []
        for doc_id, doc in enumerate(self.documents, 1):
            if doc_ids is not None and doc_id not in doc_ids:
                continue
            if (year_from is not None or year_to is not None) and doc.year is None:
                continue
            if doc.year is not None and ((year_from and doc.year < year_from) or (year_to and doc.year > year_to)):
                continue
            for seq in range(len(doc.passages)):
                _, text, _, kind = self._passage(doc_id, seq)
                if kinds is not None and kind not in kinds:
                    continue
                score = len(wanted & _terms(doc.title + " " + text))
                if score:
                    scored.append((float(score), doc_id, seq))
        scored.sort(key=lambda s: (-s[0], s[1], s[2]))
        hits = []
        for score, doc_id, seq in scored[:k]:
            doc, text, section, kind = self._passage(doc_id, seq)
            hits.append(Hit(doc_id=doc_id, chunk_id=doc_id * 1000 + seq, seq=seq, title=doc.title, section=section,
                            page=1, score=score, snippet=_snippet(text), kind=kind))  # fmt: skip
        return hits

    def read(self, doc_id: int, segment: int) -> Passage:
        doc, text, section, kind = self._passage(doc_id, segment)
        return Passage(
            doc_id=doc_id, chunk_id=doc_id * 1000 + segment, seq=segment, title=doc.title, section=section, page=1,
            text=text, prev=segment - 1 if segment > 0 else None,
            next=segment + 1 if segment + 1 < len(doc.passages) else None, kind=kind,
        )  # fmt: skip

    def _get_note(self, doc_id: int) -> str:
        assert self.notes is not None
        self._doc(doc_id)
        return self.notes.get(doc_id, "")

    def _set_note(self, doc_id: int, text: str) -> None:
        assert self.notes is not None
        self._doc(doc_id)
        self.notes[doc_id] = text
