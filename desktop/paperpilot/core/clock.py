"""Timestamps: the one format for times PaperPilot stores and for the names of set-aside files."""

from __future__ import annotations

import os
from datetime import UTC, date, datetime
from typing import Literal

# Fixes "today" (an ISO date, "2026-12-01") for tests and reproducible runs: relative year
# ranges ("近三年", "the last three years") are read against it.
TODAY_ENV = "PAPERPILOT_TODAY"
# Fixes "now" (an ISO 8601 time; UTC when it names no zone) for the times the library stores
# and compares, such as when a document went to the trash and whether it has been there 30
# days: a test sets the clock forward instead of waiting.
NOW_ENV = "PAPERPILOT_NOW"


def now() -> datetime:
    """Now, in UTC, or the time $PAPERPILOT_NOW fixes (ignored when it is not a time)."""
    fixed = os.environ.get(NOW_ENV, "").strip()
    if fixed:
        try:
            when = datetime.fromisoformat(fixed)
        except ValueError:
            pass
        else:
            return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return datetime.now(UTC)


def utc_now(timespec: Literal["seconds", "milliseconds"] = "seconds") -> str:
    """Now as ISO 8601 in UTC ("2024-05-01T09:30:00+00:00"): what the database, the notes, the
    conversations and the log file hold. Conversations keep milliseconds, so that turns saved
    within one second stay in order."""
    return now().isoformat(timespec=timespec)


def file_stamp(*, unique: bool = False) -> str:
    """Now for a file name ("20240501-093000", local time, as the user reads it beside the
    file); ``unique``: with microseconds, for a file set aside again within the same second."""
    # One clock for both forms, so that a unique stamp never sorts after a plain one taken later.
    return datetime.now().strftime("%Y%m%d-%H%M%S-%f" if unique else "%Y%m%d-%H%M%S")


def today() -> date:
    """Today's local date, or the one $PAPERPILOT_TODAY fixes, or else the date of the time
    $PAPERPILOT_NOW fixes (each ignored when it is not a date or a time): a test that fixes
    "now" reads "近三年" against the same day."""
    fixed = os.environ.get(TODAY_ENV, "").strip()
    if fixed:
        try:
            return date.fromisoformat(fixed)
        except ValueError:
            pass
    if os.environ.get(NOW_ENV, "").strip():
        try:
            return datetime.fromisoformat(os.environ[NOW_ENV].strip()).date()
        except ValueError:
            pass
    return date.today()
