"""Where the GUI finds its shipped files: icons, the sample library and its example questions."""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

from PySide6.QtGui import QIcon

_HERE = Path(__file__).resolve()


def resources_dir() -> Path:
    """The ``resources/`` folder: the repository's (dev/editable install) or one packaged beside us."""
    dev = _HERE.parents[3] / "resources"
    if dev.is_dir():
        return dev
    packaged = _HERE.parents[1] / "resources"
    if packaged.is_dir():
        return packaged
    return dev


def sample_library_dir() -> Path:
    return resources_dir() / "sample"


def sample_questions() -> list[str]:
    """Example questions about the sample papers; empty when the file is missing or broken."""
    try:
        data = json.loads((resources_dir() / "sample_questions.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    items = data.get("questions", []) if isinstance(data, dict) else data
    return [str(q) for q in items if isinstance(q, str) and q.strip()]


@cache
def _sample_prefix() -> str:
    return str(sample_library_dir().resolve()) + os.sep


def is_sample_path(path: str) -> bool:
    """True when ``path`` (a document's source path) lies inside the shipped sample library.

    A string test, no file system access: the library pane asks this for every document on
    every refresh, and the importer already stores sources as resolved absolute paths.
    """
    return bool(path) and path.startswith(_sample_prefix())


def app_icon() -> QIcon:
    return QIcon(str(resources_dir() / "icons" / "paperpilot.svg"))
