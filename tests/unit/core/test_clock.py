"""Timestamps have one format for stored times and one for the names of set-aside files."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from paperpilot.core.clock import file_stamp, utc_now


def test_stored_times_are_iso_utc() -> None:
    seconds, millis = utc_now(), utc_now("milliseconds")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", seconds)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00", millis)
    parsed = datetime.fromisoformat(seconds)
    assert parsed.tzinfo is not None and abs((datetime.now(UTC) - parsed).total_seconds()) < 5


def test_file_stamps_sort_by_time() -> None:
    assert re.fullmatch(r"\d{8}-\d{6}", file_stamp())
    a, b = file_stamp(unique=True), file_stamp(unique=True)
    assert re.fullmatch(r"\d{8}-\d{6}-\d{6}", a) and a <= b
    assert a[:15] <= file_stamp()  # the same local clock as the plain stamp
