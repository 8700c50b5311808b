"""What every bibliographic-format parser returns: the items it could read and what it could not."""

from __future__ import annotations

from dataclasses import dataclass, field

from .model import CslItem


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
