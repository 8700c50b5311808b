"""Sidecars: a small JSON file per stored copy holding what the database knows about it.

The database is the source of truth, but it is one file. If it is lost or damaged, the stored
copies plus their sidecars are enough to rebuild the library (``paperpilot check --repair``)
with the original file names, dates, edited metadata, citation data, notes, tags, the trash
and the collections each document is in (by path). A sidecar is rewritten whenever one of those
changes; it is named after the stored copy (``files/ab/<sha>.pdf`` → ``meta/ab/<sha>.pdf.json``).

What belongs to no one document, the collection tree (every collection by path, empty ones too,
with when it was made) and the tag colours, is kept the same way in ``meta/library.json``.
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path
from typing import Any

from ..settings.paths import AppPaths

SIDECAR_VERSION = 1
# Columns restored from a sidecar when a document is rebuilt from its stored copy.
METADATA_KEYS = ("title", "authors", "year", "venue", "doi", "arxiv_id", "abstract", "language")


ORGANIZE_FILE = "library.json"


def organize_path(paths: AppPaths) -> Path:
    """The library-wide sidecar: collections and tag colours."""
    return paths.sidecar_dir / ORGANIZE_FILE


def sidecar_path(paths: AppPaths, stored_rel: str) -> Path:
    rel = Path(stored_rel)
    return paths.sidecar_dir / rel.parent.name / (rel.name + ".json")


def write_sidecar(path: Path, data: dict[str, Any]) -> None:
    """Write atomically: a reader (or a crash) sees the old sidecar or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        tmp.write_text(json.dumps({"version": SIDECAR_VERSION, **data}, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def read_sidecar(path: Path) -> dict[str, Any] | None:
    """The sidecar's data, or None when it is missing, unreadable or not one of ours."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("version"), int):
        return None
    return data
