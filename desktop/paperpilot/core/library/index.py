"""The Tantivy full-text index over chunks: derived from SQLite, rebuildable, bilingual."""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import tantivy

from ..errors import Damaged
from ..text.language import cjk_bigrams, cjk_index_text, has_cjk, query_terms
from .store import ChunkRow

# Bump when the schema or the analyzers change: a mismatch triggers a rebuild at start-up.
# 2: the chunk's kind (text.kinds.Kind) as a filter field.
INDEX_VERSION = 2
_VERSION_FILE = "paperpilot-index.json"
EN_TOKENIZER = "pp_en"
CJK_TOKENIZER = "pp_cjk"
TITLE_BOOST = 2.5
SECTION_BOOST = 1.3
# Words whose stems a search index keeps (a dict of short strings: ~3 MB when full).
_STEM_CACHE = 20_000
_LATIN_WORD = re.compile(r"[^\W_]+", re.UNICODE)


def _english_analyzer() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(64))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _cjk_analyzer() -> tantivy.TextAnalyzer:
    # The CJK fields hold bigrams already separated by spaces (see textutil.cjk_index_text).
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()


def _schema() -> tantivy.Schema:
    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("chunk_id", stored=True, indexed=True, fast=True)
    sb.add_integer_field("doc_id", stored=True, indexed=True, fast=True)
    sb.add_integer_field("year", indexed=True, fast=True)
    sb.add_text_field("title", tokenizer_name=EN_TOKENIZER, index_option="freq")
    sb.add_text_field("section", tokenizer_name=EN_TOKENIZER, index_option="freq")
    sb.add_text_field("body", tokenizer_name=EN_TOKENIZER, index_option="freq")
    sb.add_text_field("title_cjk", tokenizer_name=CJK_TOKENIZER, index_option="freq")
    sb.add_text_field("body_cjk", tokenizer_name=CJK_TOKENIZER, index_option="freq")
    # One untokenized term per chunk ("body", "references" …): a filter, never scored.
    sb.add_text_field("kind", tokenizer_name="raw", index_option="basic")
    return sb.build()


@dataclass
class IndexHit:
    chunk_id: int
    doc_id: int
    score: float


class IndexCorrupt(Damaged):
    """The index on disk cannot be used and must be rebuilt from SQLite."""


class SearchIndex:
    """Tantivy index of chunks. Only the library's serialized writer calls the write methods."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.en = _english_analyzer()
        self._stems: dict[str, tuple[str, ...]] = {}
        self.schema = _schema()
        self.index = self._open()
        self._searcher: tantivy.Searcher | None = None
        self._view_dir: Path | None = None

    @classmethod
    def read_only_view(cls, path: Path) -> SearchIndex:
        """Open an index in a folder this process may not write to (a read-only library).

        Tantivy takes a lock file even to read, so the index is opened through a private folder
        of symbolic links to its files (copies where links are not allowed); ``close`` removes it.
        """
        if not tantivy.Index.exists(str(path)):
            raise IndexCorrupt("no index")
        view = Path(tempfile.mkdtemp(prefix="paperpilot-index-"))
        try:
            for f in path.iterdir():
                if f.name.startswith(".tantivy-") and f.name.endswith(".lock"):
                    continue
                try:
                    os.symlink(f, view / f.name)
                except OSError:
                    shutil.copy2(f, view / f.name)
            index = cls(view)
        except BaseException:
            shutil.rmtree(view, ignore_errors=True)
            raise
        index._view_dir = view
        return index

    @classmethod
    def scratch(cls) -> SearchIndex:
        """An empty index in a private folder that ``close`` removes (stands in for one that
        cannot be read)."""
        view = Path(tempfile.mkdtemp(prefix="paperpilot-index-"))
        index = cls(view)
        index._view_dir = view
        return index

    def close(self) -> None:
        if self._view_dir is not None:
            self._searcher = None
            shutil.rmtree(self._view_dir, ignore_errors=True)
            self._view_dir = None

    # --- lifecycle --------------------------------------------------------------------------

    def _version_ok(self) -> bool:
        try:
            data = json.loads((self.path / _VERSION_FILE).read_text())
            return bool(data.get("version") == INDEX_VERSION)
        except (OSError, ValueError):
            return False

    def _open(self) -> tantivy.Index:
        self.path.mkdir(parents=True, exist_ok=True)
        fresh = not tantivy.Index.exists(str(self.path))
        if not fresh and not self._version_ok():
            raise IndexCorrupt("index written by another version")
        try:
            index = tantivy.Index(self.schema, path=str(self.path), reuse=True)
        except ValueError as e:
            raise IndexCorrupt(str(e)) from e
        # Custom tokenizers are not persisted: register them after every open.
        index.register_tokenizer(EN_TOKENIZER, self.en)
        index.register_tokenizer(CJK_TOKENIZER, _cjk_analyzer())
        if fresh:
            (self.path / _VERSION_FILE).write_text(json.dumps({"version": INDEX_VERSION}))
        return index

    @classmethod
    def recreate(cls, path: Path) -> SearchIndex:
        """Throw the index away and start an empty one (the caller re-adds from SQLite)."""
        shutil.rmtree(path, ignore_errors=True)
        return cls(path)

    def reload(self) -> None:
        self.index.reload()
        self._searcher = None

    @property
    def searcher(self) -> tantivy.Searcher:
        if self._searcher is None:
            self._searcher = self.index.searcher()
        return self._searcher

    def num_docs(self) -> int:
        return int(self.searcher.num_docs)

    def entries(self) -> list[tuple[int, int]]:
        """Every (chunk_id, doc_id) in the index, for the integrity check."""
        s = self.searcher
        n = int(s.num_docs)
        if not n:
            return []
        out: list[tuple[int, int]] = []
        for _score, addr in s.search(tantivy.Query.all_query(), limit=n, count=False).hits:
            d = s.doc(addr)
            out.append((int(d["chunk_id"][0]), int(d["doc_id"][0])))
        return out

    def healthy(self, expected_docs: int) -> bool:
        """Cheap start-up check: the document count matches and a stored document can be read."""
        try:
            if self.num_docs() != expected_docs:
                return False
            if expected_docs:
                hits = self.searcher.search(tantivy.Query.all_query(), 1).hits
                if not hits or not self.searcher.doc(hits[0][1])["chunk_id"]:
                    return False
            return True
        except (ValueError, OSError, KeyError):
            return False

    # --- writes (caller holds the library writer lock) ----------------------------------------

    def writer(self, threads: int = 0) -> tantivy.IndexWriter:
        """A writer with ``threads`` indexing threads (0: Tantivy's choice, one per core)."""
        return self.index.writer(heap_size=128_000_000, num_threads=threads)

    def add_chunks(self, writer: tantivy.IndexWriter, rows: Iterable[ChunkRow]) -> int:
        n = 0
        for r in rows:
            doc = tantivy.Document(
                chunk_id=r.chunk_id,
                doc_id=r.doc_id,
                year=r.year if r.year is not None else 0,
                title=r.title,
                section=r.section,
                body=r.text,
                kind=r.kind or "body",
            )
            if has_cjk(r.title):
                doc.add_text("title_cjk", cjk_index_text(r.title))
            if has_cjk(r.text) or has_cjk(r.section):
                doc.add_text("body_cjk", cjk_index_text(r.section + " " + r.text))
            writer.add_document(doc)
            n += 1
        return n

    @staticmethod
    def delete_doc(writer: tantivy.IndexWriter, doc_id: int) -> None:
        writer.delete_documents_by_term("doc_id", doc_id)

    # --- search -----------------------------------------------------------------------------

    def stems(self, text: str) -> list[str]:
        # Snippets stem every word of each hit's first sentences (~450 calls a hybrid search
        # of 6 hits, ~1 ms): the same words come back, so the answers are kept.
        got = self._stems.get(text)
        if got is None:
            got = tuple(self.en.analyze(text))
            if len(self._stems) >= _STEM_CACHE:
                self._stems.clear()
            self._stems[text] = got
        return list(got)

    def build_query(
        self,
        text: str,
        *,
        doc_ids: Sequence[int] | None = None,
        year_from: int | None = None,
        year_to: int | None = None,
        kinds: Sequence[str] | None = None,
    ) -> tantivy.Query | None:
        """A bag-of-words query over title/section/body plus CJK bigrams; ``None`` if empty.
        ``kinds``: only chunks of these kinds (text.kinds values).

        User text never reaches the query parser as syntax: it is reduced to plain words first,
        so quotes, colons, brackets, AND/OR and stray punctuation cannot raise or change meaning.
        """
        terms = query_terms(text)
        latin = " ".join(w.lower() for t in terms if not has_cjk(t) for w in _LATIN_WORD.findall(t))
        should: list[tuple[tantivy.Occur, tantivy.Query]] = []
        if latin:
            q, _errors = self.index.parse_query_lenient(
                latin,
                ["title", "section", "body"],
                field_boosts={"title": TITLE_BOOST, "section": SECTION_BOOST},
            )
            should.append((tantivy.Occur.Should, q))
        grams = list(dict.fromkeys(g for t in terms if has_cjk(t) for g in cjk_bigrams(t)))
        for g in grams:
            should.append((tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "body_cjk", g)))
            should.append(
                (
                    tantivy.Occur.Should,
                    tantivy.Query.boost_query(
                        tantivy.Query.term_query(self.schema, "title_cjk", g), TITLE_BOOST
                    ),
                )
            )
        if not should:
            return None
        text_q = tantivy.Query.boolean_query(should)
        must: list[tuple[tantivy.Occur, tantivy.Query]] = [(tantivy.Occur.Must, text_q)]
        if doc_ids is not None:
            must.append(
                (tantivy.Occur.Must, tantivy.Query.term_set_query(self.schema, "doc_id", list(doc_ids)))
            )
        if kinds is not None:
            either = [(tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "kind", k)) for k in kinds]
            must.append((tantivy.Occur.Must, tantivy.Query.boolean_query(either)))
        if year_from is not None or year_to is not None:
            must.append(
                (
                    tantivy.Occur.Must,
                    tantivy.Query.range_query(
                        self.schema, "year", tantivy.FieldType.Integer, year_from, year_to
                    ),
                )
            )
        return tantivy.Query.boolean_query(must) if len(must) > 1 else text_q

    def all_words_query(self, text: str, fuzzy: bool = False) -> tantivy.Query | None:
        """Chunks holding every content word of ``text`` (stemmed, in title, section or body;
        Chinese: every bigram). ``fuzzy``: a word of 6+ letters may be one edit away (a user's
        typo in a name: "Apatim" for "Apratim")."""
        must: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for term in query_terms(text):
            if has_cjk(term):
                for g in dict.fromkeys(cjk_bigrams(term)):
                    either = [
                        (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, f, g)) for f in ("body_cjk", "title_cjk")
                    ]
                    must.append((tantivy.Occur.Must, tantivy.Query.boolean_query(either)))
                continue
            for w in _LATIN_WORD.findall(term.lower()):
                for st in dict.fromkeys(self.en.analyze(w)):
                    either = [
                        (tantivy.Occur.Should, tantivy.Query.term_query(self.schema, f, st))
                        for f in ("title", "section", "body")
                    ]
                    if fuzzy and len(st) >= 6:
                        either += [
                            (tantivy.Occur.Should, tantivy.Query.fuzzy_term_query(self.schema, f, st, distance=1))
                            for f in ("title", "body")
                        ]
                    must.append((tantivy.Occur.Must, tantivy.Query.boolean_query(either)))
        return tantivy.Query.boolean_query(must) if must else None

    def count_by_doc(self, query: tantivy.Query) -> dict[int, int]:
        """Matching chunks per doc_id, counted in the index (a terms aggregation on the fast
        field), so that a common word in a large library costs no stored-document reads."""
        size = max(1, self.num_docs())
        result = self.searcher.aggregate(query, {"d": {"terms": {"field": "doc_id", "size": size}}})
        buckets = result.get("d", {}).get("buckets", []) if isinstance(result, dict) else []
        return {int(b["key"]): int(b["doc_count"]) for b in buckets}

    def search(self, query: tantivy.Query, k: int) -> list[IndexHit]:
        s = self.searcher
        out: list[IndexHit] = []
        for score, addr in s.search(query, limit=k, count=False).hits:
            d = s.doc(addr)
            out.append(
                IndexHit(chunk_id=int(d["chunk_id"][0]), doc_id=int(d["doc_id"][0]), score=float(score))
            )
        return out
