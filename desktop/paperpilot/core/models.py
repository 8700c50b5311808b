"""Plain data types shared by the importer, the store, the index and the document pool."""

from __future__ import annotations

from dataclasses import dataclass, field

from .errors import ImportFailed


class ImportFailure(ImportFailed):
    """A file could not be imported; ``reason`` is one human sentence for the user."""

    def __init__(self, reason: str, code: str = "error") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code

    def __reduce__(self) -> tuple[type[ImportFailure], tuple[str, str]]:
        # Keeps ``code`` when the failure crosses a process boundary (parallel extraction).
        return (ImportFailure, (self.reason, self.code))


@dataclass
class Page:
    """Cleaned text of one page (1-based ``number``); text files are one page."""

    number: int
    text: str
    source: str = "text"  # "ocr": the page had no usable text layer and was read by OCR


@dataclass
class Metadata:
    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str = ""
    doi: str = ""
    arxiv_id: str = ""
    abstract: str = ""
    language: str = ""


@dataclass
class Extracted:
    """What an extractor returns for one file: pages plus whatever metadata the file holds."""

    pages: list[Page]
    metadata: Metadata = field(default_factory=Metadata)
    kind: str = "text"  # "pdf" | "text" | "markdown" | "corpus"
    # Pages in the file, including pages without text (which are not in ``pages``).
    page_count: int = 0


@dataclass
class Chunk:
    seq: int
    text: str
    section: str = ""
    page: int = 1
    source: str = "text"  # "ocr" when its page was read by OCR


@dataclass
class DocumentInfo:
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
    external_id: str = ""


@dataclass
class Hit:
    doc_id: int
    chunk_id: int
    seq: int
    title: str
    section: str
    page: int
    score: float
    snippet: str
    terms: list[str] = field(default_factory=list)


@dataclass
class Passage:
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
