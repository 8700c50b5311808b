"""Edit a document's bibliographic metadata in place and keep the search index in step with it.

The title and year are indexed with every chunk (title matches weigh more, year filters),
so a metadata edit re-indexes that document's chunks through the library's one writer.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import LibraryError
from ..models import DocumentInfo
from .library import Library

EDITABLE_FIELDS = ("title", "authors", "year", "venue", "doi")
MIN_YEAR, MAX_YEAR = 1000, 2200
_DOI = re.compile(r"^10\.\d{4,9}/\S+$")


def clean_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Validated column values for ``fields``; raises ValueError with a sentence for the user."""
    unknown = sorted(set(fields) - set(EDITABLE_FIELDS))
    if unknown:
        raise ValueError(f"Unknown metadata field(s): {', '.join(unknown)}.")
    out: dict[str, Any] = {}
    if "title" in fields:
        title = " ".join(str(fields["title"] or "").split())
        if not title:
            raise ValueError("The title cannot be empty.")
        out["title"] = title
    if "authors" in fields:
        raw = fields["authors"] or []
        if isinstance(raw, str):
            raw = raw.splitlines()
        authors = [" ".join(str(a).split()) for a in raw]
        out["authors"] = json.dumps([a for a in authors if a], ensure_ascii=False)
    if "year" in fields:
        year = fields["year"]
        if year in (None, "", 0):
            out["year"] = None
        else:
            try:
                y = int(year)
            except (TypeError, ValueError):
                raise ValueError(f"The year must be a number, not {year!r}.") from None
            if not MIN_YEAR <= y <= MAX_YEAR:
                raise ValueError(f"The year {y} is out of range ({MIN_YEAR}–{MAX_YEAR}).")
            out["year"] = y
    if "venue" in fields:
        out["venue"] = " ".join(str(fields["venue"] or "").split())
    if "doi" in fields:
        doi = str(fields["doi"] or "").strip()
        # People paste DOIs as links; store the bare DOI, which is what citations need.
        doi = re.sub(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", "", doi, flags=re.IGNORECASE)
        if doi and not _DOI.match(doi):
            raise ValueError(f"{doi!r} does not look like a DOI (10.xxxx/…).")
        out["doi"] = doi
    return out


def update_metadata(library: Library, doc_id: int, **fields: Any) -> DocumentInfo:
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
    with library.writing() as w:
        w.update_columns(doc_id, values)
    updated = library.document(doc_id)
    if updated is None:  # removed by another process between our commit and this read
        raise LibraryError(f"Document {doc_id} was removed while it was being edited.")
    return updated
