"""The PDF Info dictionary, the last source: often a file name, a DOI or a typesetter's job number.

Only values that look like what they claim survive: a title with words (not "119_123.indd",
"6489122611071476 1..10", "doi:10.1016/…", "Microsoft Word - draft7.docx"), authors that are
names (not "User", "nicolebleich", "Nuala E. Tully {et al.}" past its first name).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ...citations.identifiers import doi_from_text
from .names import Name, is_organisation, looks_like_person, names_from_field

_JUNK_TITLE = re.compile(
    r"^(?:microsoft\s+(?:word|powerpoint)\b|untitled|title|document\d*|slide\s*\d*|pii:|doi:|arxiv:|none|"
    r"null|unknown|template|main|paper|manuscript)\b|\.(?:docx?|pdf|tex|dvi|rtf|odt|pptx?|indd|qxd|qxp)\b|"
    r"^[\d\s._/:-]+|\d\.\.\d|^10\.\d{4,}/|^[\w-]+$",
    re.IGNORECASE,
)
_JUNK_AUTHOR = re.compile(
    r"^(?:user|admin(?:istrator)?|owner|author|authors|unknown|none|null|test|default|microsoft.*|.*@.*|\W*|"
    r"[a-z]+)$",
)


@dataclass
class Info:
    title: str = ""
    authors: list[Name] = field(default_factory=list)
    authors_complete: bool = True
    doi: str = ""


def plausible_title(value: str) -> bool:
    v = " ".join(value.split())
    if len(v) < 4 or _JUNK_TITLE.search(v) or not any(c.isalpha() for c in v):
        return False
    return " " in v or re.search("[\u3400-\u9fff]", v) is not None


def read_info(meta: dict[str, str]) -> Info:
    out = Info()
    title = " ".join(meta.get("Title", "").split())
    if plausible_title(title):
        out.title = title
    author = " ".join(meta.get("Author", "").split())
    if author and not _JUNK_AUTHOR.match(author):
        out.authors_complete = not re.search(r"\bet\s+al\b", author, re.IGNORECASE)
        names = names_from_field(author)
        out.authors = [n for n in names if n.get("literal") or looks_like_person(f"{n.get('given', '')} {n.get('family', '')}")
                       or is_organisation(n.get("literal", ""))]  # fmt: skip
    for key in ("Subject", "Keywords", "Title"):
        doi = doi_from_text(meta.get(key, ""))
        if doi:
            out.doi = doi
            break
    return out
