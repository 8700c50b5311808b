"""A document pool narrowed to some of its documents: what a question scoped to a collection or
a tag, or one workflow cell over a few papers, sees — the document list, the searches (which
carry the ids, so the retrieval is the pool's own) and the reads stay inside them."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import DocumentNotFound
from ..models import DocumentInfo, Hit, Passage
from ..text.messages import Message, msg
from .state import DocumentPool


class ScopedPool:
    """``pool`` limited to ``doc_ids``; implements the agent's DocumentPool.

    ``documents``: the scope's document list when the caller has it; ``cache_documents`` keeps
    the list after its first reading (a workflow run asks many cells of the same papers);
    ``outside`` is the message (code, or a message with its parameters) of a read outside the scope; ``languages`` False reports no
    language mix (a workflow asks each paper in its own language, so the loop's cross-language
    note would only mislead).
    """

    def __init__(
        self,
        pool: DocumentPool,
        doc_ids: Sequence[int],
        documents: Sequence[DocumentInfo] | None = None,
        *,
        cache_documents: bool = False,
        outside: Message | str = "read.not_in_run",
        languages: bool = True,
    ) -> None:
        self.pool = pool
        self.doc_ids = list(dict.fromkeys(doc_ids))
        self._ids = set(self.doc_ids)
        self._documents = list(documents) if documents is not None else None
        self._cache_documents = cache_documents
        self._outside = outside
        self._languages = languages

    def outside(self, doc_id: int) -> DocumentNotFound:
        code, params = (self._outside.code, self._outside.params) if isinstance(self._outside, Message) else (self._outside, {})
        return DocumentNotFound.said(msg(code, **{**params, "doc_id": doc_id}))

    def list_documents(self) -> list[DocumentInfo]:
        if self._documents is not None:
            return list(self._documents)
        docs = [d for d in self.pool.list_documents() if d.doc_id in self._ids]
        if self._cache_documents:
            self._documents = docs
            return list(docs)
        return docs

    def search(
        self,
        query: str,
        k: int = 3,
        *,
        doc_ids: Sequence[int] | None = None,
        year_from: int | None = None,
        year_to: int | None = None,
        kinds: Sequence[str] | None = None,
        mode: str | None = None,
    ) -> list[Hit]:
        ids = self.doc_ids if doc_ids is None else [i for i in doc_ids if i in self._ids]
        if not ids:
            return []
        more = {"mode": mode} if mode is not None else {}
        return self.pool.search(query, k, doc_ids=ids, year_from=year_from, year_to=year_to, kinds=kinds, **more)

    def read(self, doc_id: int, segment: int) -> Passage:
        if doc_id not in self._ids:
            raise self.outside(doc_id)
        return self.pool.read(doc_id, segment)

    def language_mix(self) -> dict[str, float]:
        if not self._languages:
            return {}
        langs = [d.language for d in self.list_documents() if d.language]
        return {lang: langs.count(lang) / len(langs) for lang in dict.fromkeys(langs)} if langs else {}
