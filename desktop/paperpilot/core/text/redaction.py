"""Keeping API keys out of everything PaperPilot shows or writes: one cleaning rule, one mask.

A key enters through an environment variable, the key store or the Settings dialog; each goes
through ``clean_api_key`` (surrounding whitespace stripped — a CRLF ``.env`` file leaves a
``\\r`` — and anything that cannot travel in an HTTP header refused with a plain sentence).
Every key seen is registered here, and ``redact`` masks any run of ``MIN_FRAGMENT`` or more
of its characters. The boundaries call it: the LLM client's error messages, trace
serialisation, saved conversations, exports, the CLI's output streams and log handlers.
Servers echo keys in error bodies, and a library's error text may quote a header it refused,
so the mask works on fragments, not only on the whole key.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterable
from typing import Any, TextIO

from pydantic import BaseModel

from ..errors import InvalidInput

MIN_FRAGMENT = 6
MASK = "***"
# Shorter "keys" (a local server's dummy "x") would blank out ordinary words.
MIN_SECRET = 4

_lock = threading.Lock()
_secrets: set[str] = set()
_pattern: re.Pattern[str] | None = None


class InvalidAPIKey(InvalidInput):
    """The key cannot be used; the message is one plain sentence and never quotes the key."""


def _describe(ch: str) -> str:
    if ch in "\r\n":
        return "a line break"
    if ch == "\t" or ord(ch) < 0x20 or ord(ch) == 0x7F:
        return "a control character"
    if ch.isspace():
        return "a space"
    return "a non-ASCII character"


def key_problem(key: str) -> str | None:
    """What in ``key`` cannot travel in an HTTP header ("a line break" …), or None."""
    bad = next((c for c in key if not 0x21 <= ord(c) <= 0x7E), None)
    return None if bad is None else _describe(bad)


def clean_api_key(raw: str | None, source: str) -> str | None:
    """The key with surrounding whitespace stripped; None when nothing is left.

    ``source`` says where the key came from, for the message ("from the environment variable
    OPENAI_API_KEY"). Raises InvalidAPIKey when what is left holds a space, a control or a
    non-ASCII character: an HTTP header cannot carry those, and a key never has them.
    """
    if raw is None:
        return None
    key = raw.strip()
    if not key:
        return None
    # Registered even when refused: a log line about it must not show it either.
    register_secret(key)
    problem = key_problem(key)
    if problem is not None:
        raise InvalidAPIKey(invalid_key_message(problem, source))
    return key


def invalid_key_message(problem: str, source: str = "") -> str:
    where = f" {source}" if source else ""
    return (
        f"The API key{where} contains {problem}; an API key is plain ASCII letters, digits and "
        "punctuation. Copy it again."
    )


def register_secret(value: str | None) -> None:
    """Mask ``value`` (and any 6-character run of it) from now on, in this process."""
    global _pattern
    if not value:
        return
    for v in {value, value.strip()}:
        if len(v) < MIN_SECRET:
            continue
        with _lock:
            if v not in _secrets:
                _secrets.add(v)
                _pattern = None


def forget_secrets() -> None:
    """Drop every registered secret (tests, or a key the user deleted)."""
    global _pattern
    with _lock:
        _secrets.clear()
        _pattern = None


def _fragments(secrets: Iterable[str]) -> set[str]:
    out: set[str] = set()
    for s in secrets:
        if len(s) < MIN_SECRET:
            continue
        if len(s) <= MIN_FRAGMENT:
            out.add(s)
        else:
            out.update(s[i : i + MIN_FRAGMENT] for i in range(len(s) - MIN_FRAGMENT + 1))
    return out


def _compile(fragments: set[str]) -> re.Pattern[str] | None:
    if not fragments:
        return None
    # Longest first so a short secret's whole value does not hide a longer overlap; the
    # lookahead finds overlapping occurrences, which together cover every run.
    alts = "|".join(re.escape(f) for f in sorted(fragments, key=len, reverse=True))
    return re.compile(f"(?=({alts}))")


def _registered_pattern() -> re.Pattern[str] | None:
    global _pattern
    with _lock:
        if _pattern is None and _secrets:
            _pattern = _compile(_fragments(_secrets))
        return _pattern


def has_secrets() -> bool:
    with _lock:
        return bool(_secrets)


def redact(text: str, extra: Iterable[str] = ()) -> str:
    """``text`` with every run of 6+ characters of a registered (or ``extra``) secret masked."""
    if not text:
        return text
    patterns = [p for p in (_registered_pattern(), _compile(_fragments(extra))) if p is not None]
    if not patterns:
        return text
    covered = bytearray(len(text))
    hit = False
    for pattern in patterns:
        for m in pattern.finditer(text):
            start, end = m.start(1), m.end(1)
            covered[start:end] = b"\x01" * (end - start)
            hit = True
    if not hit:
        return text
    out: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        if covered[i]:
            while i < n and covered[i]:
                i += 1
            out.append(MASK)
        else:
            j = i
            while j < n and not covered[j]:
                j += 1
            out.append(text[i:j])
            i = j
    return "".join(out)


def redact_data(data: Any, extra: Iterable[str] = ()) -> Any:
    """JSON-like ``data`` with every string (keys too) redacted."""
    extra = tuple(extra)
    if isinstance(data, str):
        return redact(data, extra)
    if isinstance(data, dict):
        return {redact_data(k, extra): redact_data(v, extra) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [redact_data(v, extra) for v in data]
    return data


def redacted_json(model: BaseModel, extra: Iterable[str] = ()) -> str:
    """``model.model_dump_json()`` with secrets masked inside its strings.

    The mask is applied to the values, not the JSON text: a key holding a quote or a
    backslash is escaped in JSON, and masking a half escape would break the document.
    """
    extra = tuple(extra)
    if not extra and not has_secrets():
        return model.model_dump_json()
    data = redact_data(model.model_dump(mode="json"), extra)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


class RedactingFilter(logging.Filter):
    """Masks secrets in a log record's message and traceback before any handler formats it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not has_secrets():
            return True
        try:
            message = record.getMessage()
        except Exception:  # a bad format string is logging's problem, not a leak
            return True
        record.msg = redact(message)
        record.args = None
        if record.exc_info:
            # Formatting the traceback here means handlers reuse this (masked) text.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class RedactingStream:
    """A text stream that masks secrets in everything written through it (the CLI's stdout/stderr)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(redact(text))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
