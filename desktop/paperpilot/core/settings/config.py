"""User settings: one pydantic model, versioned, saved atomically with only non-default values."""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..clock import file_stamp

log = logging.getLogger(__name__)

SETTINGS_VERSION = 1
# The agent's round limit, as the settings, the Settings dialog and `--max-rounds` accept it.
MIN_ROUNDS, MAX_ROUNDS = 1, 30


class ImportSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    chunk_min_chars: int = Field(300, ge=50, le=5000)
    chunk_max_chars: int = Field(800, ge=100, le=20000)
    max_file_mb: float = Field(200.0, gt=0)
    # Read pages without a usable text layer (scans) by OCR, in this many worker processes
    # (each holds about 1 GB while it reads; one per core is what two cores can use).
    ocr: bool = True
    ocr_workers: int = Field(2, ge=1, le=8)

    @model_validator(mode="after")
    def _min_not_above_max(self) -> Self:
        # The chunker cannot honour both; checked here so every import does not fail on it.
        if self.chunk_min_chars > self.chunk_max_chars:
            raise ValueError(chunk_range_problem(self.chunk_min_chars, self.chunk_max_chars))
        return self


def chunk_range_problem(min_chars: int, max_chars: int) -> str | None:
    """A plain sentence when the smallest chunk size is above the largest, else None."""
    if min_chars <= max_chars:
        return None
    return (
        f"The smallest chunk ({min_chars} characters) is larger than the largest ({max_chars}); "
        "make the smallest at most the largest."
    )


class LLMSettings(BaseModel):
    """The language model connection. The API key is not stored here (see the key store)."""

    model_config = ConfigDict(extra="ignore")

    enabled: bool = False  # offline until the user connects a model
    base_url: str = "http://127.0.0.1:11434/v1"
    model: str = ""
    api_key_env: str = ""  # read the key from this environment variable when set
    temperature: float = Field(0.15, ge=0.0, le=2.0)
    timeout_s: float = Field(60.0, gt=0)
    structured: str = "auto"
    # After the answer, ask the model to quote each claim's support (verified in code). One more
    # call per answer; off by default because small local models quote poorly.
    quote_check: bool = False
    # Before reading, the model scores a search's skims and the best are read (agent.rerank).
    # One more call per search; off by default: small local models score poorly.
    rerank: bool = False


class AgentSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    max_rounds: int = Field(6, ge=MIN_ROUNDS, le=MAX_ROUNDS)
    mode: str = "auto"


class UISettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    # CSL-style names; the citation formatter of a later issue reads this.
    citation_style: str = "apa"
    ui_language: str = "en"  # "en" | "zh"
    theme: Literal["system", "light", "dark"] = "system"


class MetadataSettings(BaseModel):
    """Document metadata. PaperPilot is offline by default: an online record (Crossref, arXiv) is
    fetched only when the user allows it here, and only for "Retrieve metadata"."""

    model_config = ConfigDict(extra="ignore")

    allow_online_lookups: bool = False
    # Empty: the real services. Tests point these at a local server.
    crossref_url: str = ""
    arxiv_url: str = ""
    timeout_s: float = Field(10.0, gt=0)


class EmbeddingSettings(BaseModel):
    """Retrieval by meaning (core/retrieval): the bundled model offline, or an endpoint."""

    model_config = ConfigDict(extra="ignore")

    enabled: bool = True  # embed the library in the background after import
    kind: Literal["bundled", "endpoint"] = "bundled"
    # An OpenAI-compatible /v1/embeddings server (kind "endpoint"); the key as for the LLM.
    base_url: str = "http://127.0.0.1:11434/v1"
    model: str = ""
    api_key_env: str = ""
    timeout_s: float = Field(60.0, gt=0)
    batch_size: int = Field(16, ge=1, le=256)
    # Cores the background job's bundled model uses (1: import and the GUI keep the other).
    threads: int = Field(1, ge=1, le=64)


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    version: int = SETTINGS_VERSION
    imports: ImportSettings = Field(default_factory=ImportSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    ui: UISettings = Field(default_factory=UISettings)
    metadata: MetadataSettings = Field(default_factory=MetadataSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)


def load_settings(path: Path) -> tuple[Settings, str | None]:
    """Read the settings file; a missing file gives defaults, a broken one defaults plus a warning.

    A file that is not JSON, or holds values of the wrong type, is renamed to
    ``settings.json.corrupt-<timestamp>`` (so the next save cannot destroy what the user wrote)
    and named in the one-line warning; pydantic's own text never reaches the user.
    """
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return Settings(), None
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else "it is not UTF-8 text"
        return Settings(), f"Could not read settings {path} ({why}); using defaults."
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return Settings.model_validate(data), None
    except Exception as e:  # any bad content: wrong JSON, wrong types, values out of range
        why = describe_invalid(e)
    aside = move_aside(path)
    where = f"; it was moved to {aside.name}" if aside is not None else ""
    return Settings(), f"Settings file {path} is invalid ({why}){where}; using defaults."


def describe_invalid(e: BaseException) -> str:
    """Why a settings or profile file was refused, in plain words (never pydantic's text)."""
    if isinstance(e, json.JSONDecodeError):
        return f"not valid JSON at line {e.lineno}, column {e.colno}"
    if isinstance(e, ValidationError):
        ours: list[str] = []
        fields: list[str] = []
        for err in e.errors():
            cause = (err.get("ctx") or {}).get("error")
            if err.get("type") == "value_error" and cause is not None:
                text = str(cause).rstrip(".")  # our validators' own sentences
                ours.append(text[:1].lower() + text[1:])
                continue
            name = ".".join(str(x) for x in err.get("loc", ()) if isinstance(x, str))
            if name and name not in fields:
                fields.append(name)
        parts = ours + ([f"wrong type or value for {', '.join(fields)}"] if fields else [])
        return "; ".join(parts) or "values of the wrong type"
    if isinstance(e, ValueError) and not isinstance(e, UnicodeError) and str(e):
        return str(e)  # raised by our own loading code: already plain
    return "values of the wrong type"


def move_aside(path: Path) -> Path | None:
    """Rename a broken file to ``<name>.corrupt-<timestamp>``; None when it cannot be moved."""
    stamp = file_stamp(unique=True)
    aside = path.with_name(f"{path.name}.corrupt-{stamp}")
    try:
        path.replace(aside)
    except OSError:
        return None
    return aside


def save_settings(settings: Settings, path: Path) -> None:
    """Write only what differs from the defaults, atomically (temp file + rename)."""
    data: dict[str, Any] = settings.model_dump(mode="json", exclude_defaults=True)
    data["version"] = SETTINGS_VERSION
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def atomic_write_text(path: Path, text: str, mode: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
