"""Bibliographic file formats: what every parser returns, and the one dispatch from a format
name (BibTeX, RIS, CSL-JSON) to its parser and its writer."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ..errors import InvalidInput
from ..models import ImportFailure
from ..text.messages import msg
from .model import CslItem

ExportFormat = Literal["bibtex", "ris", "csl-json"]
EXPORT_FORMATS: tuple[str, ...] = ("bibtex", "ris", "csl-json")
BIBLIOGRAPHY_EXT = frozenset({".bib", ".ris", ".json"})


@dataclass(frozen=True)
class ParseError:
    line: int  # 1-based line in the parsed text where the problem was found
    message: str
    index: int | None = None  # position of the item in a CSL-JSON array (None for line formats)

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class ParseResult:
    """Parsers never raise on bad input: a malformed record becomes an error and the rest is kept."""

    items: list[CslItem] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


def parse_bibliography(text: str, fmt: Literal["bibtex", "ris", "csl-json"]) -> ParseResult:
    """Entries of a bibliography in one of the three formats (errors carry line numbers)."""
    if fmt == "bibtex":
        from .bibtex import parse_bibtex

        return parse_bibtex(text)
    if fmt == "ris":
        from .ris import parse_ris

        return parse_ris(text)
    from .cslio import parse_csl_json

    return parse_csl_json(text)


def bibliography_format(path: Path) -> Literal["bibtex", "ris", "csl-json"]:
    ext = path.suffix.lower()
    if ext == ".bib":
        return "bibtex"
    if ext == ".ris":
        return "ris"
    if ext == ".json":
        return "csl-json"
    raise ImportFailure(msg("import.unsupported_bibliography", ext=ext or path.name), "unsupported")


def export_text(items: Sequence[CslItem], fmt: str) -> str:
    """``items`` as a BibTeX, RIS or CSL-JSON file."""
    if fmt == "bibtex":
        from .bibtex import to_bibtex

        return to_bibtex(list(items))
    if fmt == "ris":
        from .ris import to_ris

        return to_ris(list(items))
    if fmt == "csl-json":
        from .cslio import to_csl_json

        return to_csl_json(list(items))
    raise InvalidInput(f"unknown export format {fmt!r}; choose one of {', '.join(EXPORT_FORMATS)}")
