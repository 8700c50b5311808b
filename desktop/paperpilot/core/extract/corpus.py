"""Read a JSONL corpus (one ``{"id", "title", "text"}`` document per line) for batch import.

Reading is streamed line by line so a corpus of any size costs the memory of one line, and a
bad line becomes a ``CorpusError`` for the report instead of stopping the batch.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from paperpilot.core.extract.text import clean_text

_BOM = b"\xef\xbb\xbf"
_MAX_SNIFF_LINES = 50


@dataclass(frozen=True)
class CorpusRecord:
    """One document of a corpus; ``line_no`` is 1-based."""

    line_no: int
    external_id: str
    title: str
    text: str


@dataclass(frozen=True)
class CorpusError:
    """A line that could not be read as a document; ``reason`` is one human sentence."""

    line_no: int
    reason: str


def iter_corpus(path: Path) -> Iterator[CorpusRecord | CorpusError]:
    """Yield each non-blank line of ``path`` as a record, or as an error saying what is wrong.

    Raises ``OSError`` only when the file itself cannot be opened.
    """
    with path.open("rb") as handle:
        for line_no, raw in enumerate(handle, start=1):
            if line_no == 1 and raw.startswith(_BOM):
                raw = raw[len(_BOM) :]
            if not raw.strip():
                continue
            yield _parse_line(line_no, raw)


def _parse_line(line_no: int, raw: bytes) -> CorpusRecord | CorpusError:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return CorpusError(line_no, f"Line {line_no} is not valid UTF-8 (byte {exc.start + 1}).")
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return CorpusError(line_no, f"Line {line_no} is not valid JSON: {exc.msg}.")
    if not isinstance(obj, dict):
        kind = type(obj).__name__
        return CorpusError(line_no, f"Line {line_no} is a JSON {kind}, not an object.")
    text = obj.get("text")
    if text is None:
        return CorpusError(line_no, f'Line {line_no} has no "text" field.')
    if not isinstance(text, str):
        return CorpusError(line_no, f'Line {line_no}: "text" is not a string.')
    text = clean_text(text).strip()
    if not text:
        return CorpusError(line_no, f'Line {line_no} has an empty "text".')
    return CorpusRecord(
        line_no=line_no,
        external_id=_scalar(obj.get("id")),
        title=" ".join(_scalar(obj.get("title")).split()),
        text=text,
    )


def _scalar(value: object) -> str:
    # Ids are often numbers in exported corpora; a nested value is not an id or a title.
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, int | float):
        return str(value)
    return ""


def is_corpus_file(path: Path) -> bool:
    """True for a ``.jsonl`` file whose first non-blank line is a JSON object with "text"."""
    if path.suffix.lower() != ".jsonl":
        return False
    try:
        with path.open("rb") as handle:
            for line_no, raw in enumerate(handle, start=1):
                if line_no > _MAX_SNIFF_LINES:
                    return False
                if line_no == 1 and raw.startswith(_BOM):
                    raw = raw[len(_BOM) :]
                if not raw.strip():
                    continue
                try:
                    obj = json.loads(raw.decode("utf-8"))
                except (UnicodeDecodeError, json.JSONDecodeError):
                    return False
                return isinstance(obj, dict) and "text" in obj
    except OSError:
        return False
    return False
