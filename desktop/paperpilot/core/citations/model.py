"""The CSL-JSON item: what PaperPilot knows about a document's bibliographic identity."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# The CSL types PaperPilot offers in its editor (CSL 1.0.2 names).
ITEM_TYPES = (
    "article-journal", "paper-conference", "book", "chapter", "thesis", "report", "webpage",
    "article", "patent", "standard", "dataset", "article-newspaper", "article-magazine",
    "manuscript", "software", "legislation", "entry-encyclopedia", "entry-dictionary",
)  # fmt: skip
# "article" is CSL's type for preprints.


class CslName(BaseModel):
    """A person: family/given, or one literal name (Chinese authors such as 张伯伟)."""

    model_config = ConfigDict(extra="allow")

    family: str = ""
    given: str = ""
    literal: str = ""

    def display(self) -> str:
        if self.literal:
            return self.literal
        return f"{self.given} {self.family}".strip()


class CslItem(BaseModel):
    """A CSL-JSON item. Unknown CSL fields are kept (extra="allow") and round-trip unchanged."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    id: str = ""
    type: str = "article-journal"
    title: str = ""
    author: list[CslName] = Field(default_factory=list)
    editor: list[CslName] = Field(default_factory=list)
    container_title: str = Field("", alias="container-title")
    collection_title: str = Field("", alias="collection-title")
    volume: str = ""
    issue: str = ""
    page: str = ""
    number: str = ""
    edition: str = ""
    publisher: str = ""
    publisher_place: str = Field("", alias="publisher-place")
    event_title: str = Field("", alias="event-title")
    genre: str = ""
    DOI: str = ""
    URL: str = ""
    ISBN: str = ""
    ISSN: str = ""
    arxiv: str = ""  # not a CSL variable: kept for lookup and BibTeX eprint
    language: str = ""
    issued: dict[str, Any] | None = None
    accessed: dict[str, Any] | None = None
    abstract: str = ""
    note: str = ""
    # CSL's comma-separated keywords: the library's tags on export (BibTeX keywords, RIS KW).
    keyword: str = ""

    def to_csl(self) -> dict[str, Any]:
        """CSL-JSON with CSL's own (hyphenated) names and no empty fields."""
        data = self.model_dump(by_alias=True, exclude_defaults=True)
        data["id"] = self.id
        data["type"] = self.type
        return data

    @property
    def year(self) -> int | None:
        parts = (self.issued or {}).get("date-parts") or []
        try:
            return int(parts[0][0])
        except (IndexError, TypeError, ValueError):
            return None


def item_from_csl(data: dict[str, Any]) -> CslItem:
    """Validate a CSL-JSON dict (numbers in string fields are accepted as strings)."""
    clean = {k: (str(v) if isinstance(v, int | float) and k not in ("issued", "accessed") else v) for k, v in data.items()}
    return CslItem.model_validate(clean)
