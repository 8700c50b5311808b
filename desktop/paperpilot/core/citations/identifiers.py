"""DOIs and arXiv ids: the one place that says what they look like and how a pasted one is cleaned.

People paste identifiers as links (``https://doi.org/10.…``, ``arxiv.org/abs/…``) or with a
``doi:`` / ``arXiv:`` prefix; every editor, importer and lookup cleans them with these rules.
"""

from __future__ import annotations

import re

DOI = re.compile(r"^10\.\d{4,9}/\S+$")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
# New-style ids (1706.03762) and old-style ones with their subject class (math.GT/0309136,
# hep-th/9901001), with an optional version. Unanchored, for patterns that find ids in text.
ARXIV_ID_PATTERN = r"(?:\d{4}\.\d{4,5}|[a-z][a-z.-]*/\d{7})(?:v\d+)?"
ARXIV_ID = re.compile(f"^{ARXIV_ID_PATTERN}$", re.IGNORECASE)
_ARXIV_PREFIX = re.compile(r"^(?:https?://(?:www\.)?arxiv\.org/(?:abs|pdf)/|arxiv:\s*)", re.IGNORECASE)
_PDF_SUFFIX = re.compile(r"\.pdf$", re.IGNORECASE)
_VERSION = re.compile(r"v\d+$")


def bare_doi(text: str) -> str:
    """The DOI without a doi.org link or ``doi:`` prefix, its case kept (what citations print)."""
    return _DOI_PREFIX.sub("", text.strip()).strip()


def is_doi(text: str) -> bool:
    """Whether ``text`` is a bare DOI (10.xxxx/…)."""
    return DOI.match(text) is not None


def doi_or_empty(text: str) -> str:
    """The bare DOI when ``text`` holds one, else ""."""
    bare = bare_doi(text)
    return bare if is_doi(bare) else ""


def normalize_doi(doi: str) -> str:
    """The bare DOI, lowercased: DOIs are case-insensitive, so this is the key to match on."""
    return bare_doi(doi).lower()


def bare_arxiv(text: str) -> str:
    """The arXiv id without a link, ``arXiv:`` prefix or ``.pdf``, its version kept."""
    return _PDF_SUFFIX.sub("", _ARXIV_PREFIX.sub("", text.strip()).strip())


def normalize_arxiv(arxiv_id: str) -> str:
    """The arXiv id without prefix or version ("arXiv:1706.03762v5" → "1706.03762").

    Case is kept: old-style ids name their subject class in capitals (math.GT/0309136).
    """
    return _VERSION.sub("", bare_arxiv(arxiv_id))


def is_arxiv_id(text: str) -> bool:
    """Whether ``text`` is a bare arXiv id, with or without a version."""
    return ARXIV_ID.match(text) is not None


# A DOI inside running text (group 1, all of the match): up to the first space or quote; what
# follows is cleaned by the callers. Led by its "1" (re then looks for that character alone)
# with the word boundary before it as a look-behind: led by \b, the pattern was tried at every
# position of a page's text. (The reference parser finds and blanks out DOIs with it too.)
DOI_IN_TEXT = re.compile(r"(1(?<!\w1)0\.\d{4,9}/[^\s\"<>]+)")


def doi_from_text(text: str) -> str:
    """The first DOI printed in ``text`` ("doi:10.1186/1472-6963-14-1.", "https://doi.org/…)"),
    without the sentence's punctuation after it; "" when there is none.

    Trailing full stops, commas, semicolons and quotes are never part of a printed DOI; a closing
    bracket is, only when the DOI opened one (10.1002/(SICI)…).
    """
    m = DOI_IN_TEXT.search(text)
    if not m:
        return ""
    doi = m.group(0).rstrip(".,;:'\"]}’”")
    while doi.endswith(")") and doi.count(")") > doi.count("("):
        doi = doi[:-1].rstrip(".,;:")
    return doi if is_doi(doi) else ""
