"""The library's documents as CSL items: read, edit, import from bibliographies, export, format.

A document's citation metadata lives in two places that this module keeps in step:

* the ``csl`` column holds the full CSL-JSON item once one has been saved (by an edit, a
  bibliography import or an online lookup); until then the item is guessed from the columns,
  so importing a PDF costs nothing extra;
* the columns (title, authors, year, venue, DOI, arXiv id, abstract, language) stay the source
  for search, listing and the agent. Every save writes both in one transaction.

The columns can still be edited on their own (``metadata_edit.update_metadata``, the older
edit dialog). ``item_for_document`` notices that because a column no longer equals what the
stored item would write into it, and then the column wins for that field only.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from ..citations.formats import ParseError, ParseResult
from ..citations.lookup import has_cjk, name_from_string, normalize_arxiv, normalize_doi
from ..citations.model import CslItem, item_from_csl
from ..citations.styles import Rendered, bibliography, get_style, in_list_order
from ..errors import LibraryError
from ..models import Chunk, DocumentInfo, ImportFailure, Metadata
from .library import Library, LibraryWriter
from .metadata_edit import MAX_YEAR, MIN_YEAR, clean_fields

ExportFormat = Literal["bibtex", "ris", "csl-json"]
EXPORT_FORMATS: tuple[str, ...] = ("bibtex", "ris", "csl-json")
BIBLIOGRAPHY_EXT = frozenset({".bib", ".ris", ".json"})
METADATA_KIND = "metadata"
# The section name of a metadata-only document's one chunk: search hits and the agent's
# evidence then say plainly that the text is a bibliographic record, not the paper.
RECORD_SECTION = "Bibliographic record"

_DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_CONFERENCE = re.compile(
    r"\b(?:proceedings|proc\.|conference|conf\.|workshop|symposium|congress|colloquium|meeting)\b"
    r"|会议|论文集|研讨会",
    re.IGNORECASE,
)
# Conference series people write without "Proceedings of" (case-sensitive on purpose).
_CONFERENCE_SERIES = re.compile(
    r"\b(?:ACL|EMNLP|NAACL|EACL|COLING|NeurIPS|NIPS|ICML|ICLR|CVPR|ICCV|ECCV|AAAI|IJCAI|KDD|SIGIR|SIGMOD|"
    r"VLDB|WWW|CHI|UIST|ICRA|IROS|INTERSPEECH|ICASSP)\b|Neural Information Processing Systems"
)
_PREPRINT_VENUE = re.compile(r"\b(?:arxiv|biorxiv|medrxiv|chemrxiv|ssrn|preprint)\b", re.IGNORECASE)
# Title matching below this many letters/digits is too likely to be a coincidence
# ("Introduction"), unless the title has CJK characters, which carry more per character.
_MIN_TITLE_KEY = 10
_MIN_CJK_TITLE_KEY = 4


@dataclass
class BibImportReport:
    """What importing one bibliography file did.

    ``matched``: (doc_id, how) for entries merged into an existing document, how being
    "doi", "arxiv", "title" or "content" (the same entry); ``created``: ids of new metadata-only documents; ``errors``:
    entries that could not be read, with their line numbers; ``unchanged``: the matched
    documents the entry added nothing to (a re-import), a subset of ``matched``'s ids.
    """

    matched: list[tuple[int, str]] = field(default_factory=list)
    created: list[int] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)
    cancelled: bool = False


# --- documents → items ------------------------------------------------------------------------


def csl_language(code: str, title: str = "") -> str:
    """A CSL locale for a column language ('zh' → 'zh-CN'); guessed from the title when empty."""
    code = code.strip()
    if not code:
        if not title:
            return ""
        return "zh-CN" if has_cjk(title) else "en-US"
    return {"zh": "zh-CN", "en": "en-US"}.get(code.lower(), code)


def column_language(language: str) -> str:
    """The short code the ``language`` column uses ('zh-CN' → 'zh', 'English' → 'en')."""
    low = language.strip().lower()
    if not low:
        return ""
    if low in ("chinese", "中文", "汉语", "zh") or low.startswith(("zh-", "zh_")):
        return "zh"
    if low in ("english", "英文", "英语", "en") or low.startswith(("en-", "en_")):
        return "en"
    return re.split(r"[-_\s]", low)[0][:12]


def guess_type(doc: DocumentInfo, kind: str) -> str:
    """The CSL type of a document nobody has typed yet, from its venue, identifiers and kind."""
    venue = doc.venue.strip()
    if venue:
        if _CONFERENCE.search(venue) or _CONFERENCE_SERIES.search(venue):
            return "paper-conference"
        if _PREPRINT_VENUE.search(venue):
            return "article"
        return "article-journal"
    if doc.arxiv_id:
        return "article"  # CSL's type for preprints
    if doc.doi:
        return "article-journal"  # most DOIs without a known venue are journal articles
    if kind in ("text", "markdown", "corpus"):
        # Local notes, drafts and text clips: unpublished, with no publisher to name, which is
        # what CSL's "manuscript" means ("report" would promise an issuing institution).
        return "manuscript"
    # A PDF with no venue and no identifier: an unpublished or working paper as far as we know.
    return "article"


def guess_item(doc: DocumentInfo, kind: str = "") -> CslItem:
    """A CSL item made only from a document's columns."""
    data: dict[str, Any] = {
        "id": f"doc{doc.doc_id}",
        "type": guess_type(doc, kind),
        "title": doc.title,
        "author": [name_from_string(a).model_dump(exclude_defaults=True) for a in doc.authors if a.strip()],
        "container-title": doc.venue,
        "DOI": doc.doi,
        "arxiv": doc.arxiv_id,
        "abstract": doc.abstract,
        "language": csl_language(doc.language, doc.title),
    }
    if doc.year:
        data["issued"] = {"date-parts": [[doc.year]]}
    if doc.arxiv_id and not doc.doi:
        # A preprint is found by its arXiv page; styles print the URL when there is no DOI.
        data["URL"] = f"https://arxiv.org/abs/{doc.arxiv_id}"
    return item_from_csl({k: v for k, v in data.items() if v not in ("", [], None)})


def _year_column(item: CslItem) -> int | None:
    y = item.year
    return y if y is not None and MIN_YEAR <= y <= MAX_YEAR else None


def _doi_column(doi: str) -> str:
    bare = _DOI_PREFIX.sub("", doi.strip()).strip()
    return bare if _DOI.match(bare) else ""


def columns_for(item: CslItem) -> dict[str, Any]:
    """The column values a saved item writes (authors as a list; the store encodes JSON).

    Deterministic, so that comparing it with the current columns tells whether a column was
    edited after the item was saved.
    """
    return {
        "title": " ".join(item.title.split()),
        "authors": [" ".join(n.display().split()) for n in item.author if n.display().strip()],
        "year": _year_column(item),
        "venue": " ".join(item.container_title.split()),
        "doi": _doi_column(item.DOI),
        "arxiv_id": normalize_arxiv(item.arxiv) if item.arxiv else "",
        "abstract": item.abstract.strip(),
        "language": column_language(item.language),
    }


def _doc_columns(doc: DocumentInfo) -> dict[str, Any]:
    return {
        "title": doc.title,
        "authors": list(doc.authors),
        "year": doc.year,
        "venue": doc.venue,
        "doi": doc.doi,
        "arxiv_id": doc.arxiv_id,
        "abstract": doc.abstract,
        "language": doc.language,
    }


def _ready_document(library: Library, doc_id: int) -> DocumentInfo:
    doc = library.document(doc_id)
    if doc is None or doc.status != "ready":
        raise LibraryError(f"No document with id {doc_id}.")
    return doc


def item_for_document(library: Library, doc_id: int) -> CslItem:
    """The CSL item of a ready document: the saved item, corrected by later column edits.

    Raises LibraryError for an unknown or failed document.
    """
    doc = _ready_document(library, doc_id)
    kind = library.store.kind(doc_id)
    guessed = guess_item(doc, kind)
    stored = library.store.get_csl(doc_id)
    if not stored:
        return guessed
    try:
        item = item_from_csl(stored)
    except ValidationError:  # a damaged csl value must not hide the document from citing
        return guessed
    now, saved = _doc_columns(doc), columns_for(item)
    for col, value in now.items():
        if value == saved[col]:
            continue
        # Edited through the columns after the item was saved: the column is newer.
        if col == "title":
            item.title = doc.title
        elif col == "authors":
            item.author = guessed.author
        elif col == "year":
            item.issued = guessed.issued
        elif col == "venue":
            item.container_title = doc.venue
        elif col == "doi":
            item.DOI = doc.doi
        elif col == "arxiv_id":
            item.arxiv = doc.arxiv_id
        elif col == "abstract":
            item.abstract = doc.abstract
        elif col == "language":
            item.language = guessed.language
    if not item.id:
        item.id = guessed.id
    return item


def items_for_documents(library: Library, doc_ids: Sequence[int] | None = None) -> list[CslItem]:
    """Items for ``doc_ids`` in that order, or for every ready document when None."""
    ids = [d.doc_id for d in library.list_documents()] if doc_ids is None else list(doc_ids)
    return [item_for_document(library, i) for i in ids]


def is_metadata_only(library: Library, doc_id: int) -> bool:
    """True for documents made from a bibliography entry: no file, no pages, nothing to open."""
    return library.store.kind(doc_id) == METADATA_KIND


# --- saving -----------------------------------------------------------------------------------


def _record_text(item: CslItem) -> str:
    """The one chunk of a metadata-only document: what a search for it would use."""
    lines = [item.title]
    if item.author:
        lines.append(", ".join(n.display() for n in item.author))
    where = ", ".join(x for x in (item.container_title or item.publisher, str(item.year or "")) if x)
    if where:
        lines.append(where)
    text = "\n".join(x for x in lines if x.strip())
    if item.abstract:
        text += "\n\n" + item.abstract
    return text


def _record_chunks(item: CslItem) -> list[Chunk]:
    return [Chunk(seq=0, text=_record_text(item), section=RECORD_SECTION, page=1)]


def _normalise_for_save(item: CslItem) -> CslItem:
    item = item.model_copy(deep=True)
    item.title = " ".join(item.title.split())
    if item.DOI:
        item.DOI = _DOI_PREFIX.sub("", item.DOI.strip()).strip()
    if item.arxiv:
        item.arxiv = normalize_arxiv(item.arxiv)
    return item


def _save(library: Library, w: LibraryWriter, doc_id: int, item: CslItem) -> None:
    """Write item and columns in one transaction and re-index the document (inside ``writing()``)."""
    cols = columns_for(item)
    cols["authors"] = json.dumps(cols["authors"], ensure_ascii=False)
    chunks = _record_chunks(item) if is_metadata_only(library, doc_id) else None
    csl = json.dumps(item.to_csl(), ensure_ascii=False)
    # The title and year are indexed with every chunk, so the writer re-indexes the document.
    if not w.set_csl(doc_id, csl, cols, replace_chunks=chunks):
        raise LibraryError(f"No document with id {doc_id} can be edited.")


def save_item(library: Library, doc_id: int, item: CslItem) -> DocumentInfo:
    """Store ``item`` as the document's metadata and bring its columns and index in step.

    Raises ValueError with a sentence for the user (empty title, impossible year, not a DOI),
    LibraryError for an unknown or failed document, LibraryBusy when another process writes.
    Returns the updated document record.
    """
    _ready_document(library, doc_id)
    item = _normalise_for_save(item)
    # The same checks, with the same messages, as the column editor.
    clean_fields({"title": item.title, "year": item.year, "doi": item.DOI})
    if item.arxiv and not re.match(r"^(?:\d{4}\.\d{4,5}|[A-Za-z][A-Za-z.-]*/\d{7})$", item.arxiv):
        raise ValueError(f"{item.arxiv!r} does not look like an arXiv id (e.g. 1706.03762).")
    with library.writing() as w:
        _save(library, w, doc_id, item)
    return _ready_document(library, doc_id)


# --- bibliography import ----------------------------------------------------------------------


def title_key(title: str) -> str:
    """A title for matching: NFKC, case-folded, letters and digits only."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", title).casefold() if ch.isalnum())


def _title_key_usable(key: str) -> bool:
    return len(key) >= (_MIN_CJK_TITLE_KEY if has_cjk(key) else _MIN_TITLE_KEY)


@dataclass
class _Known:
    doc_id: int
    year: int | None
    doi: str
    arxiv: str


class _Matcher:
    """Finds the document an entry describes: by DOI, then arXiv id, then normalised title."""

    def __init__(self, library: Library) -> None:
        self.by_doi: dict[str, int] = {}
        self.by_arxiv: dict[str, int] = {}
        self.by_title: dict[str, list[_Known]] = {}
        for doc in library.list_documents():
            self.add(doc.doc_id, doc.title, doc.year, doc.doi, doc.arxiv_id)

    def add(self, doc_id: int, title: str, year: int | None, doi: str, arxiv: str) -> None:
        doi, arxiv = normalize_doi(doi) if doi else "", normalize_arxiv(arxiv).lower() if arxiv else ""
        if doi:
            self.by_doi.setdefault(doi, doc_id)
        if arxiv:
            self.by_arxiv.setdefault(arxiv, doc_id)
        key = title_key(title)
        if _title_key_usable(key):
            self.by_title.setdefault(key, []).append(_Known(doc_id, year, doi, arxiv))

    def find(self, item: CslItem) -> tuple[int, str] | None:
        doi = normalize_doi(item.DOI) if item.DOI else ""
        arxiv = normalize_arxiv(item.arxiv).lower() if item.arxiv else ""
        if doi and doi in self.by_doi:
            return self.by_doi[doi], "doi"
        if arxiv and arxiv in self.by_arxiv:
            return self.by_arxiv[arxiv], "arxiv"
        key = title_key(item.title)
        if not _title_key_usable(key):
            return None
        year = item.year
        for known in self.by_title.get(key, []):
            # Same title but a different identifier or a distant year: another work (a new
            # edition, a journal version of a workshop paper) rather than this one.
            if doi and known.doi and doi != known.doi:
                continue
            if arxiv and known.arxiv and arxiv != known.arxiv:
                continue
            if year and known.year and abs(year - known.year) > 1:
                continue
            return known.doc_id, "title"
        return None


def _blank(value: Any) -> bool:
    return value in ("", None, [], {})


def merge_items(existing: CslItem, entry: CslItem) -> CslItem:
    """``existing`` with every non-empty field of ``entry`` written over it.

    The entry is what the user chose to import, so it beats guesses; an empty entry field
    never blanks out a value the library already has.
    """
    data = existing.to_csl()
    for key, value in entry.to_csl().items():
        if not _blank(value):
            data[key] = value
    return item_from_csl(data)


def _same_metadata(a: CslItem, b: CslItem) -> bool:
    # The id alone is no news: BibTeX exports make their own cite keys, and re-importing our
    # own export (ids "doc12" vs "ruiz2019barn") must not count as an update.
    da, db = a.to_csl(), b.to_csl()
    da.pop("id", None)
    db.pop("id", None)
    return da == db


def read_bibliography_text(path: Path) -> str:
    """The file's text: UTF-8 (with or without BOM), else the encoding charset-normalizer finds."""
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ImportFailure(f"The file cannot be read: {e.strerror}.", "io") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    import charset_normalizer

    best = charset_normalizer.from_bytes(data).best()
    return str(best) if best is not None else data.decode("latin-1")


def looks_like_csl_json(path: Path) -> bool:
    """A cheap sniff for folder imports: does this .json file start like a CSL-JSON array?"""
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8-sig", errors="ignore").lstrip()
    except OSError:
        return False
    return head.startswith("[") and head[1:].lstrip()[:1] in ("{", "]", "")


def parse_bibliography(text: str, fmt: Literal["bibtex", "ris", "csl-json"]) -> ParseResult:
    """Entries of a bibliography in one of the three formats (errors carry line numbers)."""
    if fmt == "bibtex":
        from ..citations.bibtex import parse_bibtex

        return parse_bibtex(text)
    if fmt == "ris":
        from ..citations.ris import parse_ris

        return parse_ris(text)
    from ..citations.cslio import parse_csl_json

    return parse_csl_json(text)


def bibliography_format(path: Path) -> Literal["bibtex", "ris", "csl-json"]:
    ext = path.suffix.lower()
    if ext == ".bib":
        return "bibtex"
    if ext == ".ris":
        return "ris"
    if ext == ".json":
        return "csl-json"
    raise ImportFailure(
        f"Unsupported bibliography file '{ext or path.name}': use .bib, .ris or a CSL-JSON .json file.",
        "unsupported",
    )


def _new_document(library: Library, item: CslItem, path: Path) -> tuple[int, bool]:
    """Add a metadata-only document; (id, False) when one with the same entry already exists
    (another process imported the same bibliography since the matcher looked)."""
    if not item.title:
        # Imported anyway so that nothing the user listed silently disappears.
        item.title = item.container_title or item.id or "Untitled"
    cols = columns_for(item)
    meta = Metadata(
        title=cols["title"],
        authors=cols["authors"],
        year=cols["year"],
        venue=cols["venue"],
        doi=cols["doi"],
        arxiv_id=cols["arxiv_id"],
        abstract=cols["abstract"],
        language=cols["language"],
    )
    csl = json.dumps(item.to_csl(), ensure_ascii=False)
    digest = hashlib.sha256(("csl:" + csl).encode("utf-8")).hexdigest()
    with library.writing(batch=True) as w:
        # Checked again under the writer lock, as for files: the matcher looked without it.
        existing = w.find_ready_by_sha(digest)
        if existing is not None:
            return existing, False
        doc_id = w.add_metadata_document(
            sha256=digest,
            source_path=str(path.resolve()),
            file_name=path.name,
            metadata=meta,
            csl=csl,
            chunks=_record_chunks(item),
        )
    return doc_id, True


def import_bibliography(
    library: Library, path: str | Path, *, cancel: threading.Event | None = None
) -> BibImportReport:
    """Import a .bib, .ris or CSL-JSON file: merge entries into matching documents, add the rest.

    Each entry is matched to a ready document by DOI, then arXiv id, then normalised title,
    and merged into it; unmatched entries become metadata-only documents (one transaction
    each, one searchable chunk of title, authors, venue and abstract). Unreadable entries
    are reported with their line numbers and the rest are imported. Raises ImportFailure
    when the file itself cannot be read or is of an unknown type.
    """
    path = Path(path)
    fmt = bibliography_format(path)
    parsed = parse_bibliography(read_bibliography_text(path), fmt)
    report = BibImportReport(errors=list(parsed.errors))
    matcher = _Matcher(library)
    try:
        for entry in parsed.items:
            if cancel is not None and cancel.is_set():
                report.cancelled = True
                break
            found = matcher.find(entry)
            if found is None:
                doc_id, created = _new_document(library, entry.model_copy(deep=True), path)
                if created:
                    report.created.append(doc_id)
                else:
                    report.matched.append((doc_id, "content"))
                    report.unchanged.append(doc_id)
                matcher.add(doc_id, entry.title, entry.year, entry.DOI, entry.arxiv)
            else:
                doc_id, how = found
                report.matched.append((doc_id, how))
                existing = item_for_document(library, doc_id)
                merged = _normalise_for_save(merge_items(existing, entry))
                if _same_metadata(merged, existing):
                    report.unchanged.append(doc_id)
                else:
                    with library.writing(batch=True) as w:
                        _save(library, w, doc_id, merged)
                    matcher.add(doc_id, merged.title, merged.year, merged.DOI, merged.arxiv)
            library.handover()
    finally:
        library.flush()
    return report


# --- export and formatting ----------------------------------------------------------------------


def export_items(library: Library, doc_ids: Sequence[int] | None, fmt: ExportFormat) -> str:
    """BibTeX, RIS or CSL-JSON text for ``doc_ids`` in that order (None: the whole library)."""
    items = items_for_documents(library, doc_ids)
    if fmt == "bibtex":
        from ..citations.bibtex import to_bibtex

        return to_bibtex(items)
    if fmt == "ris":
        from ..citations.ris import to_ris

        return to_ris(items)
    if fmt == "csl-json":
        from ..citations.cslio import to_csl_json

        return to_csl_json(items)
    raise ValueError(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")


def format_references(library: Library, doc_ids: Sequence[int], style: str) -> list[Rendered]:
    """The reference list for ``doc_ids``: in the given (citation) order for numeric styles,
    with "[n] " first; alphabetical by first author for author-date styles.

    Raises ValueError for an unknown style, LibraryError for an unknown document.
    """
    get_style(style)  # an unknown style fails before any document is read
    return bibliography(in_list_order(items_for_documents(library, doc_ids), style), style)


def in_text(
    library: Library, doc_ids: Sequence[int], style: str, numbers: Sequence[int] | None = None
) -> str:
    """The in-text citation of ``doc_ids`` together: "[1, 2]", "(Vaswani et al., 2017)" …

    ``numbers`` are the documents' positions in the reference list (default 1, 2, … in the
    given order), for numeric styles.
    """
    st = get_style(style)
    items = items_for_documents(library, doc_ids)
    nums = list(numbers) if numbers is not None else list(range(1, len(items) + 1))
    if len(nums) != len(items):
        raise ValueError("in_text needs one number per document")
    return st.in_text(items, nums)
