"""Where the workflows find their data files (matrix columns, draft templates) and how a draft
template reads: a JSON file in ``resources/templates`` or a lab's own path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from ..errors import InvalidInput

_HERE = Path(__file__).resolve()
BUILTIN_TEMPLATES = ("proposal-zh", "review-en")


def resources_dir() -> Path:
    """The ``resources/`` folder: the repository's (dev or editable install) or one packaged beside us."""
    dev = _HERE.parents[4] / "resources"
    if dev.is_dir():
        return dev
    packaged = _HERE.parents[2] / "resources"
    return packaged if packaged.is_dir() else dev


def templates_dir() -> Path:
    return resources_dir() / "templates"


class SectionSpec(BaseModel):
    """One section of a draft template.

    ``kind``: ``evidence`` (gathered from the papers with the loop), ``related_work`` (the
    papers grouped by method family and year, with a matrix table), ``prompt`` (the author's
    own part: left as a marked prompt, never written from the library), ``references``."""

    heading: str
    kind: Literal["evidence", "related_work", "prompt", "references"] = "evidence"
    question: str = ""  # what the loop asks for this section ({topic} is replaced)
    cues: list[str] = Field(default_factory=list)
    sections: list[str] = Field(default_factory=list)
    prompt: str = ""  # what the author is asked to write (prompt sections; evidence sections as a hint)
    max_points: int = 6


class Template(BaseModel):
    name: str
    language: Literal["zh", "en"] = "en"
    title: str = "{topic}"
    sections: list[SectionSpec]
    # What load_template was given (a built-in name, or the lab's file as an absolute path):
    # a saved draft records it, so reopening finds the same template.
    source: str = Field(default="", exclude=True)


def load_template(name_or_path: str) -> Template:
    """A built-in template by name (proposal-zh, review-en) or a JSON file a lab wrote."""
    path = templates_dir() / f"{name_or_path}.json" if name_or_path in BUILTIN_TEMPLATES else Path(name_or_path)
    if name_or_path not in BUILTIN_TEMPLATES and not path.suffix:
        raise InvalidInput(f"unknown template {name_or_path!r}: choose {', '.join(BUILTIN_TEMPLATES)} or a .json file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInput(f"the template {name_or_path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise InvalidInput(f"the template {name_or_path} cannot be read ({type(e).__name__})") from None
    except ValueError as e:
        raise InvalidInput(f"the template {name_or_path} is not valid JSON (line {getattr(e, 'lineno', '?')})") from None
    try:
        t = Template(**data) if isinstance(data, dict) else None
    except (ValidationError, TypeError):
        t = None
    if t is None or not t.sections:
        raise InvalidInput(f"the template {name_or_path} needs a name and a list of sections (heading, kind)")
    t.source = name_or_path if name_or_path in BUILTIN_TEMPLATES else str(path.resolve())
    return t
