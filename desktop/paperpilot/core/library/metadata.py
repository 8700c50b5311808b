"""The library's documents as CSL items: read, edit, import from bibliographies, export, format.

A document's citation metadata lives in two places that this module keeps in step:

* the ``csl`` column holds the full CSL-JSON item once one has been saved (by an edit, a
  bibliography import or an online lookup); until then the item is guessed from the columns,
  so importing a PDF costs nothing extra;
* the columns (title, authors, year, venue, DOI, arXiv id, abstract, language) stay the source
  for search, listing and the agent. Every save writes both in one transaction.

The columns can still be edited on their own (``update_metadata``, the older edit dialog; the
title and year are indexed with every chunk, so an edit re-indexes the document). ``item_for_document`` notices that because a column no longer equals what the
stored item would write into it, and then the column wins for that field only.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..citations.csl_record import (
    METADATA_KIND,
    clean_fields,
    columns_for,
    doc_columns,
    guess_item,
    merge_items,
    normalise_for_save,
    read_bibliography_text,
    record_chunks,
    same_metadata,
    title_key,
    title_key_usable,
)
from ..citations.formats import ExportFormat, ParseError, bibliography_format, export_text, parse_bibliography
from ..citations.identifiers import is_arxiv_id, normalize_arxiv, normalize_doi
from ..citations.lookup import name_from_string
from ..citations.model import CslItem, item_from_csl
from ..citations.styles import Rendered, bibliography, get_style, in_list_order
from ..errors import InvalidInput, LibraryError
from ..extract.metadata import CHOSEN_SOURCES, FIELDS
from ..extract.metadata import confidence as metadata_confidence
from ..models import DocumentInfo, Extracted, Metadata
from ..text.language import has_cjk
from .library_base import LibraryBase, LibraryWriter
from .organize import merge_tags, split_keywords


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


def _ready_document(library: LibraryBase, doc_id: int) -> DocumentInfo:
    doc = library.document(doc_id)
    if doc is None or doc.status != "ready":
        raise LibraryError(f"No document with id {doc_id}.")
    return doc


def item_for_document(library: LibraryBase, doc_id: int) -> CslItem:
    """The CSL item of a ready document: the saved item, corrected by later column edits.

    Raises LibraryError for an unknown or failed document.
    """
    doc = _ready_document(library, doc_id)
    item = _item_from_columns(library, doc)
    # The library's tags are the keywords (the source of truth; BibTeX keywords, RIS KW).
    item.keyword = ", ".join(doc.tags)
    return item


def _item_from_columns(library: LibraryBase, doc: DocumentInfo) -> CslItem:
    doc_id = doc.doc_id
    kind = library.store.kind(doc_id)
    guessed = guess_item(doc, kind)
    stored = library.store.get_csl(doc_id)
    if not stored:
        return guessed
    try:
        item = item_from_csl(stored)
    except ValidationError:  # a damaged csl value must not hide the document from citing
        return guessed
    now, saved = doc_columns(doc), columns_for(item)
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


def items_for_documents(library: LibraryBase, doc_ids: Sequence[int] | None = None) -> list[CslItem]:
    """Items for ``doc_ids`` in that order, or for every ready document when None."""
    ids = [d.doc_id for d in library.list_documents()] if doc_ids is None else list(doc_ids)
    return [item_for_document(library, i) for i in ids]


def is_metadata_only(library: LibraryBase, doc_id: int) -> bool:
    """True for documents made from a bibliography entry: no file, no pages, nothing to open."""
    return library.store.kind(doc_id) == METADATA_KIND


# --- saving -----------------------------------------------------------------------------------


# Provenance fields ↔ what holds them in a CSL item.
_ITEM_FIELDS: dict[str, Any] = {
    "title": lambda i: " ".join(i.title.split()),
    "authors": lambda i: [n.model_dump(exclude_defaults=True) for n in i.author],
    "year": lambda i: i.year,
    "container_title": lambda i: " ".join(i.container_title.split()),
    "volume": lambda i: i.volume,
    "issue": lambda i: i.issue,
    "pages": lambda i: i.page,
    "doi": lambda i: normalize_doi(i.DOI) if i.DOI else "",
    "arxiv_id": lambda i: normalize_arxiv(i.arxiv) if i.arxiv else "",
}
# Columns edited through update_metadata, as provenance fields.
_COLUMN_FIELDS = {"title": "title", "authors": "authors", "year": "year", "venue": "container_title", "doi": "doi"}


def changed_fields(old: CslItem, new: CslItem) -> set[str]:
    """The provenance fields whose value differs between two items."""
    return {f for f, get in _ITEM_FIELDS.items() if get(old) != get(new)}


def provenance_after(
    doc: DocumentInfo, changed: set[str], source: str
) -> tuple[dict[str, str], float | None, bool]:
    """The document's provenance once ``changed`` fields got their value from ``source``."""
    sources = dict(doc.metadata_sources)
    for f in changed:
        sources[f] = source
    conf, check = metadata_confidence(sources)
    return sources, conf, check


def _save(library: LibraryBase, w: LibraryWriter, doc_id: int, item: CslItem, source: str = "user") -> None:
    """Write item and columns in one transaction and re-index the document (inside ``writing()``).

    The fields that change take ``source`` as their provenance ("user" for the editor,
    "bibliography" for an imported entry, "online" for a lookup).
    """
    doc = _ready_document(library, doc_id)
    before = item_for_document(library, doc_id)
    provenance = provenance_after(doc, changed_fields(before, item), source)
    cols = columns_for(item)
    cols["authors"] = json.dumps(cols["authors"], ensure_ascii=False)
    chunks = record_chunks(item) if is_metadata_only(library, doc_id) else None
    csl = json.dumps(item.to_csl(), ensure_ascii=False)
    # The title and year are indexed with every chunk, so the writer re-indexes the document.
    if not w.set_csl(doc_id, csl, cols, replace_chunks=chunks, provenance=provenance):
        raise LibraryError(f"No document with id {doc_id} can be edited.")


def save_item(library: LibraryBase, doc_id: int, item: CslItem) -> DocumentInfo:
    """Store ``item`` as the document's metadata and bring its columns and index in step.

    Raises ValueError with a sentence for the user (empty title, impossible year, not a DOI),
    LibraryError for an unknown or failed document, LibraryBusy when another process writes.
    Returns the updated document record.
    """
    _ready_document(library, doc_id)
    item = normalise_for_save(item)
    # The same checks, with the same messages, as the column editor.
    clean_fields({"title": item.title, "year": item.year, "doi": item.DOI})
    if item.arxiv and not is_arxiv_id(item.arxiv):
        raise InvalidInput(f"{item.arxiv!r} does not look like an arXiv id (e.g. 1706.03762).")
    with library.writing() as w:
        _save(library, w, doc_id, item)
    return _ready_document(library, doc_id)


def update_metadata(library: LibraryBase, doc_id: int, **fields: Any) -> DocumentInfo:
    """Change title / authors / year / venue / DOI of a ready document; returns the new record.

    Raises ValueError for invalid values, LibraryError for an unknown or failed document and
    LibraryBusy when another process holds the writer lock.
    """
    values = clean_fields(fields)
    doc = library.document(doc_id)
    if doc is None or doc.status != "ready":
        raise LibraryError(f"No document with id {doc_id} can be edited.")
    if not values:
        return doc
    # indexed=0 in the same transaction: if we crash before the index commit, start-up
    # recovery notices and re-indexes the document with the new title.
    provenance = provenance_after(doc, {_COLUMN_FIELDS[k] for k in values}, "user")
    with library.writing() as w:
        w.update_columns(doc_id, values, provenance)
    updated = library.document(doc_id)
    if updated is None:  # removed by another process between our commit and this read
        raise LibraryError(f"Document {doc_id} was removed while it was being edited.")
    return updated


# --- bibliography import ----------------------------------------------------------------------


@dataclass
class _Known:
    doc_id: int
    year: int | None
    doi: str
    arxiv: str
    first_family: str = ""


def _family_key(name: str) -> str:
    """The first author's family name for matching ("Ashish Vaswani", "Vaswani, A." → vaswani)."""
    if not name.strip():
        return ""
    parsed = name_from_string(name)
    return title_key(parsed.family or parsed.literal)


class _Matcher:
    """Finds the document an entry describes: by DOI, then arXiv id, then normalised title.

    A short title ("Honey Bees", "Introduction") says less than a long one, so it matches only
    the one document with exactly that title and only with something more behind it: the same
    first author or year where both sides have one, or, where neither can be compared, a title
    of two words or more (a lone "Introduction" or "Editorial" is too common to stand alone).
    """

    def __init__(self, library: LibraryBase) -> None:
        self.by_doi: dict[str, int] = {}
        self.by_arxiv: dict[str, int] = {}
        self.by_title: dict[str, list[_Known]] = {}
        for doc in library.list_documents():
            self.add(doc.doc_id, doc.title, doc.year, doc.doi, doc.arxiv_id, doc.authors[0] if doc.authors else "")

    def add(self, doc_id: int, title: str, year: int | None, doi: str, arxiv: str, first_author: str = "") -> None:
        doi, arxiv = normalize_doi(doi) if doi else "", normalize_arxiv(arxiv).lower() if arxiv else ""
        if doi:
            self.by_doi.setdefault(doi, doc_id)
        if arxiv:
            self.by_arxiv.setdefault(arxiv, doc_id)
        key = title_key(title)
        if key:
            self.by_title.setdefault(key, []).append(_Known(doc_id, year, doi, arxiv, _family_key(first_author)))

    def find(self, item: CslItem) -> tuple[int, str] | None:
        doi = normalize_doi(item.DOI) if item.DOI else ""
        arxiv = normalize_arxiv(item.arxiv).lower() if item.arxiv else ""
        if doi and doi in self.by_doi:
            return self.by_doi[doi], "doi"
        if arxiv and arxiv in self.by_arxiv:
            return self.by_arxiv[arxiv], "arxiv"
        key = title_key(item.title)
        candidates = self.by_title.get(key, []) if key else []
        year = item.year
        family = _family_key(_first_author(item))
        words = _title_words(item.title, key)
        short = not title_key_usable(key) or words < 3
        if short and len(candidates) != 1:
            return None
        for known in candidates:
            # Same title but a different identifier or a distant year: another work (a new
            # edition, a journal version of a workshop paper) rather than this one.
            if doi and known.doi and doi != known.doi:
                continue
            if arxiv and known.arxiv and arxiv != known.arxiv:
                continue
            if year and known.year and abs(year - known.year) > 1:
                continue
            if short:
                if family and known.first_family and family != known.first_family:
                    continue
                agrees = bool(family and family == known.first_family) or bool(year and year == known.year)
                comparable = bool(family and known.first_family) or bool(year and known.year)
                if not agrees and (comparable or words < 2):
                    continue
            return known.doc_id, "title"
        return None


def _title_words(title: str, key: str) -> int:
    """Words in a title; a Chinese title's characters count two to a word."""
    if has_cjk(key):
        return len(key) // 2
    return sum(1 for w in title.split() if any(ch.isalnum() for ch in w))


def _first_author(item: CslItem) -> str:
    return item.author[0].display() if item.author else ""


def _new_document(library: LibraryBase, item: CslItem, path: Path) -> tuple[int, bool]:
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
            chunks=record_chunks(item),
        )
    return doc_id, True


def import_bibliography(
    library: LibraryBase, path: str | Path, *, cancel: threading.Event | None = None
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
            keywords = split_keywords(entry.keyword)
            entry.keyword = ""  # keywords become tags, which are kept apart from the CSL item
            if found is None:
                doc_id, created = _new_document(library, entry.model_copy(deep=True), path)
                if created:
                    report.created.append(doc_id)
                    if keywords:
                        with library.writing(batch=True) as w:
                            w.set_tags({doc_id: keywords})
                else:
                    report.matched.append((doc_id, "content"))
                    report.unchanged.append(doc_id)
                matcher.add(doc_id, entry.title, entry.year, entry.DOI, entry.arxiv, _first_author(entry))
            else:
                doc_id, how = found
                report.matched.append((doc_id, how))
                existing = item_for_document(library, doc_id)
                merged = normalise_for_save(merge_items(existing, entry))
                doc = library.document(doc_id)
                tags = list(doc.tags) if doc is not None else []
                more = merge_tags(tags, keywords)
                if same_metadata(merged, existing) and more == tags:
                    report.unchanged.append(doc_id)
                else:
                    with library.writing(batch=True) as w:
                        merged.keyword = ""
                        _save(library, w, doc_id, merged, source="bibliography")
                        if more != tags:
                            w.set_tags({doc_id: more})
                    matcher.add(doc_id, merged.title, merged.year, merged.DOI, merged.arxiv, _first_author(merged))
            library.handover()
    finally:
        library.flush()
    return report


# --- export and formatting ----------------------------------------------------------------------


def export_items(library: LibraryBase, doc_ids: Sequence[int] | None, fmt: ExportFormat) -> str:
    """BibTeX, RIS or CSL-JSON text for ``doc_ids`` in that order (None: the whole library)."""
    return export_text(items_for_documents(library, doc_ids), fmt)


def format_references(library: LibraryBase, doc_ids: Sequence[int], style: str) -> list[Rendered]:
    """The reference list for ``doc_ids``: in the given (citation) order for numeric styles,
    with "[n] " first; alphabetical by first author for author-date styles.

    Raises ValueError for an unknown style, LibraryError for an unknown document.
    """
    get_style(style)  # an unknown style fails before any document is read
    return bibliography(in_list_order(items_for_documents(library, doc_ids), style), style)


def in_text(
    library: LibraryBase, doc_ids: Sequence[int], style: str, numbers: Sequence[int] | None = None
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


# --- provenance: re-reading the file, retrieving an online record -------------------------------


@dataclass
class MetadataUpdate:
    """What re-reading or retrieving did to one document: the fields it changed, the ones it kept
    because a person chose them (user, bibliography, online), or why it did nothing."""

    doc_id: int
    changed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    skipped: str = ""


def _apply_fields(base: CslItem, other: CslItem, fields: set[str]) -> CslItem:
    """``base`` with ``fields`` (provenance names) taken from ``other``."""
    out = base.model_copy(deep=True)
    for f in fields:
        if f == "title":
            out.title = other.title
        elif f == "authors":
            out.author = [n.model_copy() for n in other.author]
        elif f == "year":
            out.issued = other.issued
        elif f == "container_title":
            out.container_title = other.container_title
        elif f == "volume":
            out.volume = other.volume
        elif f == "issue":
            out.issue = other.issue
        elif f == "pages":
            out.page = other.page
        elif f == "doi":
            out.DOI = other.DOI
        elif f == "arxiv_id":
            out.arxiv = other.arxiv
    return out


def _chosen(doc: DocumentInfo, library: LibraryBase) -> set[str] | None:
    """Fields a person chose; None for a document from before provenance whose item was saved
    (an edit, an import or a lookup we can no longer tell apart field by field)."""
    if not doc.metadata_sources:
        return None if library.store.get_csl(doc.doc_id) else set()
    return {f for f, s in doc.metadata_sources.items() if s in CHOSEN_SOURCES}


# The pages whose layout the metadata reads (see extract.pdf._front_matter).
_FRONT_PAGES = 2


def _reread_pdf(library: LibraryBase, path: Path) -> Extracted:
    """The PDF read again for its metadata: a scanned front page is read by OCR again (in a
    worker process, as at import), since without it a scan has nothing to read; the other
    scanned pages are left out, they hold no metadata the front pages do not."""
    from ..extract.ocr import LocalOcrPool, OcrPool, OcrUnavailable, ocr_available, run_ocr
    from ..extract.pdf import finish_pdf, scan_pdf
    from ..extract.worker_processes import ExtractionPool

    scan = scan_pdf(path)
    front = [n for n in scan.ocr_pages if n <= _FRONT_PAGES]
    if not front or not (library.settings.ocr and ocr_available()):
        return finish_pdf(scan, None, ocr_off=not library.settings.ocr)
    pool: OcrPool = ExtractionPool(1) if ExtractionPool.available() else LocalOcrPool()
    try:
        lines = run_ocr(pool, scan.path, front)
    except OcrUnavailable:
        return finish_pdf(scan, None)
    finally:
        pool.close()
    return finish_pdf(scan, lines)


def reread_metadata(library: LibraryBase, doc_id: int) -> MetadataUpdate:
    """Read the document's metadata again from its stored file; fields a person chose are kept.

    For documents imported before provenance was recorded: re-read when nothing was ever saved
    for them, skipped (with the reason) when an item was saved. Raises LibraryError for an
    unknown document, ImportFailure when the stored file cannot be read.
    """
    from ..extract.text import extract_text_file

    doc = _ready_document(library, doc_id)
    if is_metadata_only(library, doc_id) or not doc.stored_path:
        return MetadataUpdate(doc_id, skipped="it has no file (a bibliography entry)")
    chosen = _chosen(doc, library)
    if chosen is None:
        return MetadataUpdate(doc_id, skipped="its metadata was edited before PaperPilot kept track of edits")
    path = library.paths.library_dir / doc.stored_path
    extracted = _reread_pdf(library, path) if path.suffix.lower() == ".pdf" else extract_text_file(path)
    md = extracted.metadata
    as_doc = DocumentInfo(
        doc_id, md.title or doc.title, md.authors, md.year, doc.pages, doc.chunks, "ready",
        venue=md.venue, doi=md.doi, arxiv_id=md.arxiv_id, language=md.language,
    )  # fmt: skip
    fresh_data = dict(md.csl) if md.csl else guess_item(as_doc, library.store.kind(doc_id)).to_csl()
    fresh_data["id"] = ""
    fresh = item_from_csl(fresh_data)
    if not fresh.title:
        fresh.title = doc.title
    current = item_for_document(library, doc_id)
    fresh.id = current.id
    take = set(FIELDS) - chosen
    merged = normalise_for_save(_apply_fields(current, fresh, take))
    changed = sorted(changed_fields(current, merged))
    sources = {f: s for f, s in md.sources.items() if f in take}
    sources.update({f: s for f, s in doc.metadata_sources.items() if f in chosen})
    conf, check = metadata_confidence(sources)
    cols = columns_for(merged)
    cols["authors"] = json.dumps(cols["authors"], ensure_ascii=False)
    with library.writing() as w:
        if not w.set_csl(doc_id, json.dumps(merged.to_csl(), ensure_ascii=False), cols, provenance=(sources, conf, check)):
            raise LibraryError(f"No document with id {doc_id} can be edited.")
    return MetadataUpdate(doc_id, changed=changed, kept=sorted(chosen))


def retrieve_metadata(
    library: LibraryBase, doc_id: int, lookup: Any
) -> MetadataUpdate:
    """Fill the document's metadata from an online record (``lookup(kind, key)`` → CslItem, kind
    "doi" or "arxiv"); fields from the user or a bibliography entry are kept.

    The caller decides whether lookups are allowed (the setting); this function only runs one.
    Raises LookupFailed with a plain sentence when the service has no usable record.
    """
    doc = _ready_document(library, doc_id)
    current = item_for_document(library, doc_id)
    if current.DOI:
        record = lookup("doi", current.DOI)
    elif current.arxiv:
        record = lookup("arxiv", current.arxiv)
    else:
        return MetadataUpdate(doc_id, skipped="it has no DOI or arXiv id to look up")
    chosen = {f for f, s in doc.metadata_sources.items() if s in ("user", "bibliography")}
    offered = {f for f, get in _ITEM_FIELDS.items() if get(record) not in ("", [], None)}
    merged = normalise_for_save(_apply_fields(current, record, offered - chosen))
    if not merged.abstract and record.abstract:
        merged.abstract = record.abstract
    changed = sorted(changed_fields(current, merged))
    sources = dict(doc.metadata_sources)
    for f in offered - chosen:
        sources[f] = "online"
    conf, check = metadata_confidence(sources)
    cols = columns_for(merged)
    cols["authors"] = json.dumps(cols["authors"], ensure_ascii=False)
    chunks = record_chunks(merged) if is_metadata_only(library, doc_id) else None
    with library.writing() as w:
        if not w.set_csl(doc_id, json.dumps(merged.to_csl(), ensure_ascii=False), cols, replace_chunks=chunks,
                         provenance=(sources, conf, check)):  # fmt: skip
            raise LibraryError(f"No document with id {doc_id} can be edited.")
    return MetadataUpdate(doc_id, changed=changed, kept=sorted(chosen & offered))
