"""Timestamps: the one format for times PaperPilot stores and for the names of set-aside files."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Literal


def utc_now(timespec: Literal["seconds", "milliseconds"] = "seconds") -> str:
    """Now as ISO 8601 in UTC ("2024-05-01T09:30:00+00:00"): what the database, the notes, the
    conversations and the log file hold. Conversations keep milliseconds, so that turns saved
    within one second stay in order."""
    return datetime.now(UTC).isoformat(timespec=timespec)


def file_stamp(*, unique: bool = False) -> str:
    """Now for a file name ("20240501-093000", local time, as the user reads it beside the
    file); ``unique``: with microseconds, for a file set aside again within the same second."""
    if unique:
        return datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    return time.strftime("%Y%m%d-%H%M%S")
