"""CSL-JSON files: an array of items, written and read item by item."""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import ValidationError

from .formats import ParseError, ParseResult
from .model import CslItem, item_from_csl

__all__ = ["parse_csl_json", "to_csl_json"]


def to_csl_json(items: Sequence[CslItem]) -> str:
    """A CSL-JSON array (UTF-8 text, CSL's hyphenated field names, empty fields left out)."""
    return json.dumps([item.to_csl() for item in items], ensure_ascii=False, indent=2) + "\n"


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _summary(e: ValidationError) -> str:
    first = e.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    more = f" (and {e.error_count() - 1} more)" if e.error_count() > 1 else ""
    return f"{where}: {first['msg']}{more}"


def parse_csl_json(text: str) -> ParseResult:
    """Each array element is validated on its own, so one bad item does not lose the others.

    A JSON syntax error stops the reading (JSON gives no safe place to resume); the items
    before it are kept. A single object instead of an array is accepted as one item.
    """
    result = ParseResult()
    text = text.lstrip("\ufeff")
    decoder = json.JSONDecoder()
    pos = _skip_ws(text, 0)
    if pos >= len(text):
        result.errors.append(ParseError(1, "the file is empty (expected a CSL-JSON array)"))
        return result
    single = text[pos] == "{"
    if not single and text[pos] != "[":
        result.errors.append(ParseError(_line(text, pos), "CSL-JSON must be an array of items ('[' … ']')"))
        return result
    if not single:
        pos += 1
    index = 0
    while True:
        pos = _skip_ws(text, pos)
        if not single and text[pos : pos + 1] == "]":
            break
        start = pos
        try:
            obj, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            result.errors.append(
                ParseError(
                    e.lineno,
                    f"item {index}: invalid JSON ({e.msg}); the rest of the file was not read",
                    index,
                )
            )
            return result
        if not isinstance(obj, dict):
            result.errors.append(
                ParseError(
                    _line(text, start), f"item {index}: expected an object, found {type(obj).__name__}", index
                )
            )
        else:
            try:
                result.items.append(item_from_csl(obj))
            except ValidationError as e:
                result.errors.append(ParseError(_line(text, start), f"item {index}: {_summary(e)}", index))
        index += 1
        if single:
            break
        pos = _skip_ws(text, pos)
        c = text[pos : pos + 1]
        if c == ",":
            pos += 1
        elif c != "]":
            found = repr(c) if c else "the end of the file"
            result.errors.append(
                ParseError(_line(text, pos), f"expected ',' or ']' after item {index - 1}, found {found}")
            )
            return result
    rest = _skip_ws(text, pos + (0 if single else 1))
    if rest < len(text):
        result.errors.append(
            ParseError(_line(text, rest), "unexpected text after the CSL-JSON array (ignored)")
        )
    return result
