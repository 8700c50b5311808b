"""Online metadata lookup by DOI (Crossref) and arXiv id (arXiv API), only when the user asks.

Both functions block for at most ``timeout`` seconds: the GUI runs them in a worker. Every
failure is a ``LookupFailed`` whose message is one plain sentence for the user.
"""

from __future__ import annotations

import html
import re
import unicodedata
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

from ..errors import PaperPilotError

if TYPE_CHECKING:  # httpx is imported when a lookup runs: not at start-up (~0.1 s)
    import httpx

from ... import __version__
from ..text.language import has_cjk
from .identifiers import bare_doi, is_arxiv_id, is_doi, normalize_arxiv
from .model import CslItem, CslName, item_from_csl

USER_AGENT = f"PaperPilot/{__version__}"
CROSSREF_URL = "https://api.crossref.org"
ARXIV_URL = "https://export.arxiv.org/api/query"

_ATOM = "{http://www.w3.org/2005/Atom}"
_ARXIV = "{http://arxiv.org/schemas/atom}"

# Crossref work types → CSL types (https://api.crossref.org/types).
CROSSREF_TYPES = {
    "journal-article": "article-journal",
    "proceedings-article": "paper-conference",
    "book-chapter": "chapter",
    "book-section": "chapter",
    "book-part": "chapter",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-set": "book",
    "posted-content": "article",
    "dissertation": "thesis",
    "report": "report",
    "report-component": "report",
    "dataset": "dataset",
    "standard": "standard",
    "reference-entry": "entry-encyclopedia",
    "peer-review": "article",
}

_TAG = re.compile(r"<[^>]+>")
# Family-name particles that belong to the family name in "Given particle Family".
_PARTICLES = frozenset(
    {"van", "von", "de", "der", "den", "da", "di", "du", "del", "della", "dos", "la", "le", "ten", "ter", "bin", "al"}
)  # fmt: skip
_SUFFIXES = frozenset({"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"})


class LookupFailed(PaperPilotError):
    """A lookup did not produce metadata; ``message`` says why in plain words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# --- names ------------------------------------------------------------------------------------


def name_from_string(text: str) -> CslName:
    """A CSL name from one free-text author name.

    CJK names stay whole (``literal``): splitting 张伯伟 into family/given needs knowledge of
    compound surnames, and GB/T 7714 prints them unchanged anyway. "Family, Given" is taken
    at its word; otherwise the last word (with any lowercase particles before it, as in
    "Ludwig van Beethoven") is the family name. A single word is a family name alone.
    """
    name = " ".join(unicodedata.normalize("NFC", text).split())
    if not name:
        return CslName()
    if has_cjk(name):
        return CslName(literal=name)
    if "," in name:
        family, _, given = name.partition(",")
        given = given.strip()
        if given.lower() in _SUFFIXES:  # "King, Jr." is not "Family, Given"
            return name_from_string(family + " " + given)
        return CslName(family=family.strip(), given=given)
    words = name.split(" ")
    suffix = ""
    if len(words) > 2 and words[-1].lower() in _SUFFIXES:
        suffix = words.pop()
    if len(words) == 1:
        return CslName(family=words[0])
    i = len(words) - 1
    while i > 1 and words[i - 1].lower() in _PARTICLES:
        i -= 1
    family = " ".join(words[i:]) + (f" {suffix}" if suffix else "")
    return CslName(family=family, given=" ".join(words[:i]))


# --- identifiers ------------------------------------------------------------------------------


# --- HTTP -------------------------------------------------------------------------------------


def _host(url: str) -> str:
    return urlsplit(url).hostname or url


def _get(
    url: str,
    params: dict[str, str] | None,
    *,
    service: str,
    base_url: str,
    timeout: float,
    client: httpx.Client | None,
) -> httpx.Response:
    import httpx

    headers = {"User-Agent": USER_AGENT}
    try:
        if client is not None:
            return client.get(url, params=params, headers=headers, timeout=timeout)
        with httpx.Client(timeout=timeout, follow_redirects=True) as own:
            return own.get(url, params=params, headers=headers)
    except httpx.TimeoutException:
        raise LookupFailed(f"{service} did not answer within {timeout:g} s; try again later.") from None
    except (httpx.ConnectError, httpx.NetworkError, httpx.ProxyError):
        raise LookupFailed(f"No internet connection: could not reach {_host(base_url)}.") from None
    except httpx.HTTPError as e:
        raise LookupFailed(f"The request to {service} failed: {e}.") from None


def _clean(text: Any) -> str:
    """Text without markup (Crossref titles and abstracts carry JATS / HTML tags)."""
    if not isinstance(text, str):
        return ""
    return " ".join(html.unescape(_TAG.sub(" ", text)).split())


def _first(value: Any) -> str:
    if isinstance(value, list):
        return _clean(value[0]) if value else ""
    return _clean(value)


def _date(message: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any] | None:
    for key in keys:
        parts = (message.get(key) or {}).get("date-parts") or []
        if parts and parts[0] and parts[0][0] is not None:
            return {"date-parts": [[int(p) for p in parts[0] if p is not None]]}
    return None


def _names(raw: Any) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for a in raw if isinstance(raw, list) else []:
        if not isinstance(a, dict):
            continue
        family, given = _clean(a.get("family")), _clean(a.get("given"))
        if family:
            out.append({"family": family, "given": given} if given else {"family": family})
        elif a.get("name"):
            out.append({"literal": _clean(a["name"])})  # organisations, consortia
    return out


# --- Crossref ---------------------------------------------------------------------------------


def crossref_to_item(message: dict[str, Any]) -> CslItem:
    """A CSL item from the ``message`` of a Crossref /works/{doi} reply."""
    title = _first(message.get("title"))
    subtitle = _first(message.get("subtitle"))
    if subtitle and subtitle.lower() not in title.lower():
        title = f"{title}: {subtitle}"
    ctype = str(message.get("type") or "")
    data: dict[str, Any] = {
        "id": str(message.get("DOI") or ""),
        "type": CROSSREF_TYPES.get(ctype, "article-journal" if message.get("container-title") else "article"),
        "title": title,
        "author": _names(message.get("author")),
        "editor": _names(message.get("editor")),
        "container-title": _first(message.get("container-title")),
        "volume": _clean(message.get("volume")),
        "issue": _clean(message.get("issue")),
        "page": _clean(message.get("page")),
        "number": _clean(message.get("article-number")),
        "publisher": _clean(message.get("publisher")),
        "publisher-place": _clean(message.get("publisher-location")),
        "DOI": _clean(message.get("DOI")),
        "URL": _clean(message.get("URL")),
        "ISSN": _first(message.get("ISSN")),
        "ISBN": _first(message.get("ISBN")),
        "language": _clean(message.get("language")),
        "abstract": _clean(message.get("abstract")),
        "issued": _date(message, ("published-print", "published-online", "issued", "published")),
    }
    if data["type"] == "paper-conference" and not data["container-title"]:
        event = message.get("event") or {}
        data["event-title"] = _clean(event.get("name")) if isinstance(event, dict) else ""
    return item_from_csl({k: v for k, v in data.items() if v not in ("", [], None)})


def lookup_doi(
    doi: str,
    *,
    base_url: str = CROSSREF_URL,
    timeout: float = 10,
    client: httpx.Client | None = None,
) -> CslItem:
    """Crossref's metadata for ``doi`` (a bare DOI or a doi.org link)."""
    bare = bare_doi(doi)
    if not is_doi(bare):
        raise LookupFailed(f"{doi.strip() or 'An empty string'!r} does not look like a DOI (10.xxxx/…).")
    url = f"{base_url.rstrip('/')}/works/{quote(bare, safe='/:;()')}"
    r = _get(url, None, service="Crossref", base_url=base_url, timeout=timeout, client=client)
    if r.status_code == 404:
        raise LookupFailed(f"Crossref has no record for DOI {bare}.")
    if r.status_code != 200:
        raise LookupFailed(f"Crossref answered with an error (HTTP {r.status_code}); try again later.")
    try:
        body = r.json()
        message = body["message"]
        if not isinstance(message, dict):
            raise TypeError
        item = crossref_to_item(message)
    except (ValueError, KeyError, TypeError):
        raise LookupFailed("Crossref sent a reply PaperPilot cannot read.") from None
    if not item.title:
        raise LookupFailed(f"Crossref's record for DOI {bare} has no title.")
    if not item.DOI:
        item.DOI = bare
    return item


# --- arXiv ------------------------------------------------------------------------------------


def _text(el: ET.Element | None) -> str:
    return " ".join((el.text or "").split()) if el is not None else ""


def arxiv_entry_to_item(entry: ET.Element, arxiv_id: str) -> CslItem:
    """A CSL item from one Atom ``<entry>`` of the arXiv API."""
    published = _text(entry.find(f"{_ATOM}published"))
    m = re.match(r"(\d{4})-(\d{2})-(\d{2})", published)
    issued = {"date-parts": [[int(m.group(1)), int(m.group(2)), int(m.group(3))]]} if m else None
    authors = [name_from_string(_text(a.find(f"{_ATOM}name"))) for a in entry.findall(f"{_ATOM}author")]
    data: dict[str, Any] = {
        "id": f"arXiv:{arxiv_id}",
        "type": "article",
        "title": _text(entry.find(f"{_ATOM}title")),
        "author": [a.model_dump(exclude_defaults=True) for a in authors if a.display()],
        "container-title": "arXiv",
        "number": f"arXiv:{arxiv_id}",
        "arxiv": arxiv_id,
        "DOI": _text(entry.find(f"{_ARXIV}doi")),
        "URL": f"https://arxiv.org/abs/{arxiv_id}",
        "abstract": _text(entry.find(f"{_ATOM}summary")),
        "issued": issued,
    }
    return item_from_csl({k: v for k, v in data.items() if v not in ("", [], None)})


def lookup_arxiv(
    arxiv_id: str,
    *,
    base_url: str = ARXIV_URL,
    timeout: float = 10,
    client: httpx.Client | None = None,
) -> CslItem:
    """The arXiv API's metadata for ``arxiv_id`` ("1706.03762", "arXiv:1706.03762v5", a link …)."""
    aid = normalize_arxiv(arxiv_id)
    if not is_arxiv_id(aid):
        raise LookupFailed(
            f"{arxiv_id.strip() or 'An empty string'!r} does not look like an arXiv id (e.g. 1706.03762)."
        )
    r = _get(
        base_url,
        {"id_list": aid, "max_results": "1"},
        service="arXiv",
        base_url=base_url,
        timeout=timeout,
        client=client,
    )
    if r.status_code == 404:
        raise LookupFailed(f"arXiv has no record for {aid}.")
    if r.status_code != 200:
        raise LookupFailed(f"arXiv answered with an error (HTTP {r.status_code}); try again later.")
    try:
        root = ET.fromstring(r.content)
    except ET.ParseError:
        raise LookupFailed("arXiv sent a reply PaperPilot cannot read.") from None
    if root.tag != f"{_ATOM}feed":
        raise LookupFailed("arXiv sent a reply PaperPilot cannot read.")
    for entry in root.findall(f"{_ATOM}entry"):
        # An unknown or malformed id comes back as an entry pointing at arxiv.org/api/errors,
        # or as an entry without a title.
        if "/api/errors" in _text(entry.find(f"{_ATOM}id")):
            break
        item = arxiv_entry_to_item(entry, aid)
        if item.title:
            return item
    raise LookupFailed(f"arXiv has no record for {aid}.")
