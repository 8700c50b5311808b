"""A document's bibliographic record as a CSL item, and back: the rules that need no library.

Columns (title, authors, year, venue, DOI, arXiv id, abstract, language) ↔ CSL items, the
CSL type guessed for a document nobody has typed yet, the validation of edited fields, the
title key bibliography entries are matched on, and merging an imported entry into a record.
``core.library.metadata`` applies them to the library's documents.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

from ..errors import InvalidInput
from ..models import Chunk, DocumentInfo, ImportFailure
from ..text.language import has_cjk
from ..text.messages import msg
from .identifiers import bare_doi, doi_or_empty, is_doi, normalize_arxiv
from .lookup import name_from_string
from .model import CslItem, item_from_csl

METADATA_KIND = "metadata"
# The section name of a metadata-only document's one chunk: search hits and the agent's
# evidence then say plainly that the text is a bibliographic record, not the paper.
RECORD_SECTION = "Bibliographic record"

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

EDITABLE_FIELDS = ("title", "authors", "year", "venue", "doi")
MIN_YEAR, MAX_YEAR = 1000, 2200


def clean_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """Validated column values for ``fields``; raises ValueError with a sentence for the user."""
    unknown = sorted(set(fields) - set(EDITABLE_FIELDS))
    if unknown:
        raise InvalidInput(f"Unknown metadata field(s): {', '.join(unknown)}.")
    out: dict[str, Any] = {}
    if "title" in fields:
        title = " ".join(str(fields["title"] or "").split())
        if not title:
            raise InvalidInput("The title cannot be empty.")
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
                raise InvalidInput(f"The year must be a number, not {year!r}.") from None
            if not MIN_YEAR <= y <= MAX_YEAR:
                raise InvalidInput(f"The year {y} is out of range ({MIN_YEAR}–{MAX_YEAR}).")
            out["year"] = y
    if "venue" in fields:
        out["venue"] = " ".join(str(fields["venue"] or "").split())
    if "doi" in fields:
        doi = str(fields["doi"] or "").strip()
        # People paste DOIs as links; store the bare DOI, which is what citations need.
        doi = bare_doi(doi)
        if doi and not is_doi(doi):
            raise InvalidInput(f"{doi!r} does not look like a DOI (10.xxxx/…).")
        out["doi"] = doi
    return out



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
        "doi": doi_or_empty(item.DOI),
        "arxiv_id": normalize_arxiv(item.arxiv) if item.arxiv else "",
        "abstract": item.abstract.strip(),
        "language": column_language(item.language),
    }


def doc_columns(doc: DocumentInfo) -> dict[str, Any]:
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


def record_chunks(item: CslItem) -> list[Chunk]:
    return [Chunk(seq=0, text=_record_text(item), section=RECORD_SECTION, page=1)]


def normalise_for_save(item: CslItem) -> CslItem:
    item = item.model_copy(deep=True)
    item.title = " ".join(item.title.split())
    if item.DOI:
        item.DOI = bare_doi(item.DOI)
    if item.arxiv:
        item.arxiv = normalize_arxiv(item.arxiv)
    return item


def title_key(title: str) -> str:
    """A title for matching: NFKC, case-folded, letters and digits only."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", title).casefold() if ch.isalnum())


def title_key_usable(key: str) -> bool:
    return len(key) >= (_MIN_CJK_TITLE_KEY if has_cjk(key) else _MIN_TITLE_KEY)


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


def same_metadata(a: CslItem, b: CslItem) -> bool:
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
        raise ImportFailure(msg("import.cannot_read", error=str(e.strerror)), "io") from None
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


