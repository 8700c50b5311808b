"""Plain data types shared by the importer, the store, the index and the document pool."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from .errors import ImportFailed
from .text.messages import Message

if TYPE_CHECKING:
    from .library_records import DocumentInfo as DocumentInfo
    from .library_records import Hit as Hit
    from .library_records import Passage as Passage


class ImportFailure(ImportFailed):
    """A file could not be imported; ``reason`` is one human sentence for the user (English),
    ``msg`` the same as a catalogued message when it was given as one."""

    def __init__(self, reason: str | Message, code: str = "error") -> None:
        said = reason.text() if isinstance(reason, Message) else reason
        super().__init__(said)
        self.reason = said
        self.code = code
        self.msg = reason if isinstance(reason, Message) else None

    def __reduce__(self) -> tuple[type[ImportFailure], tuple[str | Message, str]]:
        # Keeps ``code`` and the message when the failure crosses a process boundary.
        return (ImportFailure, (self.msg or self.reason, self.code))


@dataclass
class Page:
    """Cleaned text of one page (1-based ``number``); text files are one page."""

    number: int
    text: str
    source: str = "text"  # "ocr": the page had no usable text layer and was read by OCR
    # What the layout says each paragraph of ``text`` is (paragraphs are separated by a blank
    # line): (hint, font size), the hint one of "body", "heading", "title", "caption",
    # "footnote", "table". Empty when the extractor knows no layout (text files); the
    # chunker then reads the structure from the text alone.
    layout: list[tuple[str, float]] = field(default_factory=list)


@dataclass
class Metadata:
    """What is known about a document's bibliographic record, and where each field came from."""

    title: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    venue: str = ""
    doi: str = ""
    arxiv_id: str = ""
    abstract: str = ""
    language: str = ""
    # The full citation as a CSL-JSON item (names split, volume, issue, page, type) when the
    # extractor knows more than the columns hold; {} otherwise.
    csl: dict[str, Any] = field(default_factory=dict)
    # Where each field came from ("xmp", "layout", "masthead", "info", "text", "user" …), the
    # document's metadata confidence (0–1) and whether a person should check it.
    sources: dict[str, str] = field(default_factory=dict)
    confidence: float | None = None
    check: bool = False


@dataclass
class Block:
    """One paragraph of a document with what the structure reader decided about it (see
    ``extract.structure.read_blocks``): its kind, heading and section path."""

    text: str
    page: int
    kind: str
    section: str = ""
    path: str = ""
    early: bool = False  # before the document's first heading
    ocr: bool = False  # its page was read by OCR


@dataclass
class Reference:
    """One entry of a paper's reference list (``citations.references`` reads them)."""

    text: str
    label: str = ""  # the printed number ("12" for "[12]"), "" in author-year lists
    authors: list[str] = field(default_factory=list)
    title: str = ""
    year: int | None = None
    venue: str = ""
    doi: str = ""
    arxiv_id: str = ""

    def to_json(self) -> dict[str, object]:
        return asdict(self)


_Rows = list[tuple[Any, ...]]


@dataclass
class Structure:
    """A document's paragraphs with their kinds, and its parsed reference list; computed where
    the file is extracted (a worker process), so the library's writer only merges chunks."""

    blocks: list[Block]
    references: list[Reference]

    def __reduce__(self) -> tuple[Callable[[_Rows, _Rows], Structure], tuple[_Rows, _Rows]]:
        # Each imported file's structure crosses from its worker process: as rows of their
        # fields, its blocks and entries pickle and load in about half the instructions they
        # take as objects (a class, a state dict and a build step each).
        blocks, references = list(map(_block_row, self.blocks)), list(map(_reference_row, self.references))
        return _structure_from_rows, (blocks, references)


# A block's or an entry's fields in the order its constructor takes them.
_block_row = attrgetter(*(f.name for f in fields(Block)))
_reference_row = attrgetter(*(f.name for f in fields(Reference)))


def _structure_from_rows(blocks: _Rows, references: _Rows) -> Structure:
    return Structure([Block(*row) for row in blocks], [Reference(*row) for row in references])


@dataclass
class Extracted:
    """What an extractor returns for one file: pages plus whatever metadata the file holds."""

    pages: list[Page]
    metadata: Metadata = field(default_factory=Metadata)
    kind: str = "text"  # "pdf" | "text" | "markdown" | "corpus"
    # Pages in the file, including pages without text (which are not in ``pages``).
    page_count: int = 0
    structure: Structure | None = None


@dataclass
class Chunk:
    """One piece of a document as the index stores it: its text, section, page and kind."""

    seq: int
    text: str
    section: str = ""  # the nearest heading
    page: int = 1
    source: str = "text"  # "ocr" when its page was read by OCR
    kind: str = ""  # a text.kinds.Kind value; "" when not known
    section_path: str = ""  # the headings above it, outermost first: "3 Method > 3.2 Training"


# The library's records are made on first use (core.records): an extraction worker never needs them.
_RECORDS = frozenset(("DocumentInfo", "Hit", "Passage"))


def __getattr__(name: str) -> Any:
    if name in _RECORDS:
        from . import library_records as records

        return getattr(records, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
