"""Logging for the CLI and the GUI: one plain line on stderr, the details in a log file.

A traceback never reaches the terminal: the stderr handler prints the message only (and where
the details went), the file handler under ``AppPaths.log_dir`` keeps the whole record, so real
bugs stay visible to whoever reads the log. Both mask API keys (``redaction.RedactingFilter``).
The file is created only when something is logged, so a clean run leaves no file behind.
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
import traceback
from pathlib import Path
from typing import TextIO

from ..clock import utc_now
from ..text.redaction import RedactingFilter, redact
from .paths import AppPaths

LOG_FILE = "paperpilot.log"
MAX_LOG_BYTES = 1_000_000
LOG_BACKUPS = 2
_HANDLER_NAME = "paperpilot"


class _LogFile(logging.handlers.RotatingFileHandler):
    """A rotating log file that makes its folder on first use and never complains on stderr
    when it cannot be written (a read-only home must not turn one warning into a traceback)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            path, maxBytes=MAX_LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8", delay=True, errors="backslashreplace"
        )
        self.path = path
        self.ok = False  # the last record reached the file

    def _open(self) -> TextIO:  # type: ignore[override]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        return super()._open()

    def emit(self, record: logging.LogRecord) -> None:
        self.ok = False
        super().emit(record)
        if self.stream is not None:
            self.ok = True

    def handleError(self, record: logging.LogRecord) -> None:
        self.ok = False

    def flush(self) -> None:
        # A full disk fails the flush of what emit() buffered; the record is lost, not the run.
        try:
            super().flush()
        except OSError:
            self.ok = False

    def close(self) -> None:
        try:
            super().close()
        except OSError:
            # The stream could not flush its last bytes (a full disk): drop it without a word.
            self.stream = None


class _Console(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever ``sys.stderr`` is at the time (a test's capture, the CLI's masked stream)."""

    def emit(self, record: logging.LogRecord) -> None:
        self.stream = sys.stderr
        super().emit(record)


class _OneLine(logging.Formatter):
    """``LEVEL: message`` with no traceback; names the log file that has it, when it does."""

    def __init__(self, log_file: _LogFile | None) -> None:
        super().__init__("%(levelname)s: %(message)s")
        self.log_file = log_file

    def format(self, record: logging.LogRecord) -> str:
        line = " ".join(f"{record.levelname}: {record.getMessage()}".split())
        if (record.exc_info or record.exc_text) and self.log_file is not None and self.log_file.ok:
            line += f" (details in {self.log_file.path})"
        return line


def reset_logging() -> None:
    """Remove what ``configure_logging`` installed (a CLI run called in-process, by a test)."""
    root = logging.getLogger()
    for h in list(root.handlers):
        if getattr(h, "name", "") == _HANDLER_NAME:
            root.removeHandler(h)
            h.close()


def configure_logging(paths: AppPaths | None, level: int = logging.WARNING) -> Path | None:
    """Route warnings and errors: one line each to stderr, everything to the log file when
    ``paths`` is given. Safe to call again (replaces what an earlier call set up). Returns the
    log file's path."""
    reset_logging()
    root = logging.getLogger()
    root.setLevel(level)
    redacting = RedactingFilter()
    log_file: _LogFile | None = None
    if paths is not None:
        log_file = _LogFile(paths.log_dir / LOG_FILE)
        log_file.set_name(_HANDLER_NAME)
        log_file.addFilter(redacting)
        log_file.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(log_file)  # first, so the line on stderr knows whether the file has the details
    console = _Console()
    console.set_name(_HANDLER_NAME)
    console.addFilter(redacting)
    console.setFormatter(_OneLine(log_file))
    root.addHandler(console)
    return log_file.path if log_file is not None else None


def log_crash(paths: AppPaths | None, exc: BaseException, context: str) -> Path | None:
    """Append ``exc`` with its traceback to the log file; the file's path, or None if it could
    not be written. For the last line of defence, where the user sees one sentence only."""
    if paths is None:
        return None
    path = paths.log_dir / LOG_FILE
    stamp = utc_now()
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as f:
            f.write(f"{stamp} CRITICAL paperpilot: unexpected error in {context}\n{redact(text)}\n")
    except OSError:
        return None
    return path
