"""The library's records: a document, a search hit, a passage (``core.models`` gives them too).

They are apart from the extractor's types because an extraction worker imports ``core.models``
and never needs them: each dataclass costs Python about a millisecond to create. (A class
without a docstring costs more: dataclass writes one from its signature.)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .text.messages import Message


@dataclass
class DocumentInfo:
    """One document of the library as the store lists it."""

    doc_id: int
    title: str
    authors: list[str]
    year: int | None
    pages: int
    chunks: int
    status: str
    sha256: str = ""
    file_name: str = ""
    source_path: str = ""
    stored_path: str = ""
    venue: str = ""
    doi: str = ""
    arxiv_id: str = ""
    abstract: str = ""
    language: str = ""
    tags: list[str] = field(default_factory=list)
    added: str = ""
    error: str = ""
    # ``error`` as a catalogued message (None for a failure recorded before messages had codes).
    error_msg: Message | None = None
    external_id: str = ""
    # When the document went to the trash (ISO 8601 UTC; its status then reads 'trashed').
    trashed: str = ""
    # Where each metadata field came from ({} when unknown: imported before provenance was kept),
    # the metadata confidence (0–1, None when unknown) and the "check metadata" flag.
    metadata_sources: dict[str, str] = field(default_factory=dict)
    metadata_confidence: float | None = None
    check_metadata: bool = False


@dataclass
class Hit:
    """One search result: a chunk of a document with its score and snippet."""

    doc_id: int
    chunk_id: int
    seq: int
    title: str
    section: str
    page: int
    score: float
    snippet: str
    terms: list[str] = field(default_factory=list)
    kind: str = ""
    section_path: str = ""
    # Which search found it ("keyword", "meaning", or "both" for a hybrid hit in both lists)
    # and its scores there (None: not in that list; ``fused`` only for hybrid search).
    found_by: str = "keyword"
    bm25: float | None = None
    dense: float | None = None
    fused: float | None = None


@dataclass
class Passage:
    """A chunk read in full, with the sequence numbers of the chunks before and after it."""

    doc_id: int
    chunk_id: int
    seq: int
    title: str
    section: str
    page: int
    text: str
    prev: int | None
    next: int | None
    ocr: bool = False  # the text was read by OCR (a scanned page): recognition errors are possible
    kind: str = ""
    section_path: str = ""
