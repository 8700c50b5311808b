"""The user's research profile: fields, topics, keywords and preferences the agent uses.

Stored as ``profile.json`` in the config dir (pydantic, ``schema_version``, atomic writes).
A missing file gives defaults; a corrupt one gives defaults plus a warning, and is moved aside
so the user can recover it. Older schema versions are migrated on load.
"""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import InvalidInput
from ..settings.config import atomic_write_text, describe_invalid, move_aside
from ..settings.paths import AppPaths
from ..text.language import has_cjk, query_terms

PROFILE_SCHEMA_VERSION = 2
PROFILE_FILE = "profile.json"

AnswerLanguage = Literal["same", "zh", "en"]
AnswerLength = Literal["short", "medium", "long"]
Tone = Literal["neutral", "formal", "plain"]

# Editable keys, as `paperpilot profile set KEY VALUE` and the Preferences dialog name them.
LIST_KEYS = ("fields_of_research", "topics", "trusted_venues")
PROFILE_KEYS = (
    "fields_of_research",
    "topics",
    "keywords",
    "answer_language",
    "citation_style",
    "trusted_venues",
    "answer_length",
    "tone",
)
# A question this short (content words) gets the profile's fields and topics added.
SHORT_QUESTION_TERMS = 3
MAX_EXPANSION_TERMS = 8


def _clean_list(v: Any) -> Any:
    if v is None:
        return []
    if isinstance(v, str):
        v = v.split(",")
    if isinstance(v, list):
        out: list[str] = []
        for x in v:
            s = " ".join(str(x).split())
            if s and s not in out:
                out.append(s)
        return out
    return v


class ResearchProfile(BaseModel):
    """What PaperPilot knows about its user's research."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    schema_version: int = PROFILE_SCHEMA_VERSION
    fields_of_research: list[str] = Field(default_factory=list)
    topics: list[str] = Field(default_factory=list)
    keywords: dict[str, list[str]] = Field(default_factory=dict)  # term → its synonyms
    answer_language: AnswerLanguage = "same"
    citation_style: str = "apa"
    trusted_venues: list[str] = Field(default_factory=list)
    answer_length: AnswerLength = "medium"
    tone: Tone = "neutral"

    @field_validator("fields_of_research", "topics", "trusted_venues", mode="before")
    @classmethod
    def _lists(cls, v: Any) -> Any:
        return _clean_list(v)

    @field_validator("keywords", mode="before")
    @classmethod
    def _keywords(cls, v: Any) -> Any:
        if v is None:
            return {}
        if isinstance(v, dict):
            out: dict[str, list[str]] = {}
            for k, syns in v.items():
                term = " ".join(str(k).split())
                cleaned = _clean_list(syns)
                if not isinstance(cleaned, list):
                    # A ValueError becomes a validation error the loader reports in plain words.
                    raise ValueError(f"the synonyms of keyword {term!r} are not a list")
                if term:
                    out[term] = [s for s in cleaned if s.lower() != term.lower()]
            return out
        return v

    @field_validator("citation_style", mode="before")
    @classmethod
    def _style(cls, v: Any) -> Any:
        if isinstance(v, str):
            v = v.strip().lower()
            if not v:
                return "apa"
        return v

    def is_empty(self) -> bool:
        return not (self.fields_of_research or self.topics or self.keywords)


class ProfileError(InvalidInput):
    """A profile value the user gave is not valid (one plain sentence)."""


# --- load / save --------------------------------------------------------------------------------


def profile_path(paths: AppPaths) -> Path:
    return paths.config_dir / PROFILE_FILE


def migrate_profile(data: dict[str, Any]) -> dict[str, Any]:
    """Bring an older profile dict up to the current schema.

    Version 1 (before ``schema_version``): ``{"version": 1, "field": "...", "topics": [...],
    "synonyms": {term: [...]}, "language": "zh"|"en"|"auto", "style": "apa", "venues": [...],
    "length": ..., "tone": ...}``.
    """
    version = data.get("schema_version", data.get("version", _unversioned(data)))
    try:
        version = int(version)
    except (TypeError, ValueError, OverflowError):
        version = 1
    if version >= 2:
        return data
    out: dict[str, Any] = {"schema_version": PROFILE_SCHEMA_VERSION}
    fields = data.get("fields", data.get("field"))
    if isinstance(fields, str):
        fields = [fields]
    out["fields_of_research"] = fields or []
    out["topics"] = data.get("topics") or []
    out["keywords"] = data.get("synonyms", data.get("keywords")) or {}
    lang = str(data.get("language", "same") or "same").lower()
    out["answer_language"] = {"auto": "same", "chinese": "zh", "english": "en"}.get(lang, lang)
    if out["answer_language"] not in ("same", "zh", "en"):
        out["answer_language"] = "same"
    if data.get("style") or data.get("citation_style"):
        out["citation_style"] = data.get("citation_style") or data.get("style")
    out["trusted_venues"] = data.get("venues", data.get("trusted_venues")) or []
    for old, new in (("length", "answer_length"), ("answer_length", "answer_length"), ("tone", "tone")):
        if data.get(old):
            out[new] = data[old]
    return out


# Keys only the current schema has: a hand-written profile that uses them but omits
# schema_version is a current one, not version 1 (migrating it would drop those keys).
_CURRENT_ONLY_KEYS = frozenset({"fields_of_research", "answer_language", "citation_style", "trusted_venues",
                                "answer_length"})  # fmt: skip


def _unversioned(data: dict[str, Any]) -> int:
    return PROFILE_SCHEMA_VERSION if _CURRENT_ONLY_KEYS & data.keys() else 1


def load_profile(paths: AppPaths) -> tuple[ResearchProfile, str | None]:
    """The saved profile; defaults when there is none; defaults and a warning when it is broken.

    A broken file is renamed to ``profile.json.corrupt-<timestamp>`` (only that file: the
    library and the settings are never touched) so the next save does not destroy it.
    """
    path = profile_path(paths)
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ResearchProfile(), None
    except (OSError, UnicodeDecodeError) as e:
        return ResearchProfile(), f"Could not read the research profile {path}: {e}; using defaults."
    try:
        data = json.loads(raw)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        version = data.get("schema_version", data.get("version", 1))
        if isinstance(version, int) and version > PROFILE_SCHEMA_VERSION:
            raise ValueError(f"written by a newer PaperPilot (schema {version})")
        migrated = migrate_profile(data)
        profile = ResearchProfile.model_validate(migrated)
        profile.schema_version = PROFILE_SCHEMA_VERSION
    except Exception as e:  # valid JSON of the wrong types is as broken as invalid JSON
        aside = _move_aside(path)
        where = f"; it was moved to {aside.name}" if aside is not None else ""
        why = describe_invalid(e)
        return ResearchProfile(), f"The research profile {path} is invalid ({why}){where}; using defaults."
    if migrated is not data:
        with contextlib.suppress(OSError):  # read-only config dir: it still works this session
            save_profile(profile, paths)
    return profile, None


def _move_aside(path: Path) -> Path | None:
    return move_aside(path)


def save_profile(profile: ResearchProfile, paths: AppPaths) -> None:
    """Write the profile atomically (temp file + rename)."""
    data = profile.model_dump(mode="json")
    data["schema_version"] = PROFILE_SCHEMA_VERSION
    atomic_write_text(profile_path(paths), json.dumps(data, indent=2, ensure_ascii=False) + "\n")


# --- editing ------------------------------------------------------------------------------------


def set_profile_value(profile: ResearchProfile, key: str, value: str) -> ResearchProfile:
    """A copy of ``profile`` with ``key`` set from a command-line string.

    Lists are comma-separated (an empty string clears them). ``keywords`` takes
    ``term=syn1,syn2`` and adds or replaces that one term (``term=`` removes it).
    Raises ProfileError with one plain sentence when the key or value is not valid.
    """
    key = key.strip().lower().replace("-", "_")
    aliases = {"fields": "fields_of_research", "field": "fields_of_research", "venues": "trusted_venues",
               "language": "answer_language", "style": "citation_style", "length": "answer_length",
               "synonyms": "keywords", "keyword": "keywords"}  # fmt: skip
    key = aliases.get(key, key)
    if key not in PROFILE_KEYS:
        raise ProfileError(f"Unknown profile key {key!r}; use one of: {', '.join(PROFILE_KEYS)}.")
    data = profile.model_dump()
    if key in LIST_KEYS:
        data[key] = _clean_list(value)
    elif key == "keywords":
        if "=" not in value:
            raise ProfileError(
                "Give keywords as term=synonym1,synonym2 (for example segmentation=delineation)."
            )
        term, _, syns = value.partition("=")
        term = " ".join(term.split())
        if not term:
            raise ProfileError("The keyword before '=' is empty.")
        kws = dict(data["keywords"])
        existing = next((k for k in kws if k.lower() == term.lower()), None)
        if existing is not None:
            del kws[existing]
        if syns.strip():
            kws[term] = _clean_list(syns)
        data["keywords"] = kws
    elif key == "citation_style":
        style = value.strip().lower()
        from ..citations.styles import STYLE_NAMES

        if style not in STYLE_NAMES:
            raise ProfileError(f"Unknown citation style {style!r}; use one of: {', '.join(STYLE_NAMES)}.")
        data[key] = style
    else:
        allowed = {
            "answer_language": ("same", "zh", "en"),
            "answer_length": ("short", "medium", "long"),
            "tone": ("neutral", "formal", "plain"),
        }[key]
        v = value.strip().lower()
        if v not in allowed:
            raise ProfileError(f"{key} must be one of: {', '.join(allowed)} (got {value!r}).")
        data[key] = v
    try:
        return ResearchProfile.model_validate(data)
    except ValidationError as e:  # pragma: no cover - the checks above catch what users type
        raise ProfileError(f"Invalid value for {key}: {e.errors()[0]['msg']}.") from e


# --- use by the agent ---------------------------------------------------------------------------


def _mentioned(term: str, question_low: str, q_terms: set[str]) -> bool:
    t = term.lower()
    if has_cjk(t):
        return t in question_low
    if " " in t:
        return re.search(rf"\b{re.escape(t)}", question_low) is not None
    stem = t[: max(4, len(t) - 2)]
    return t in q_terms or any(q.startswith(stem) for q in q_terms)


def expansion_terms(profile: ResearchProfile, question: str) -> list[tuple[str, str]]:
    """Extra search terms from the profile for ``question``, each with why it was added.

    - a keyword (or one of its synonyms) in the question brings the keyword and its other
      synonyms: ("delineation", "synonym of segmentation");
    - a short question (≤ 3 content words) also gets the research fields and topics:
      ("medical imaging", "your research field").
    Terms already in the question are skipped; at most MAX_EXPANSION_TERMS.
    """
    low = question.lower()
    q_terms = {t.lower() for t in query_terms(question)}
    out: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(term: str, why: str) -> None:
        key = term.lower()
        if key in seen or _mentioned(term, low, q_terms) or len(out) >= MAX_EXPANSION_TERMS:
            return
        seen.add(key)
        out.append((term, why))

    matched = False
    for term, syns in profile.keywords.items():
        group = [term, *syns]
        hit = next((g for g in group if _mentioned(g, low, q_terms)), None)
        if hit is None:
            continue
        matched = True
        for g in group:
            if g is hit:
                continue
            add(g, f"synonym of {hit}" if g is not term else f"your keyword for {hit}")
    content = [t for t in query_terms(question) if len(t) > 1 or has_cjk(t)]
    if len(content) <= SHORT_QUESTION_TERMS and (matched or content):
        for f in profile.fields_of_research:
            add(f, "your research field")
        for t in profile.topics:
            add(t, "your research topic")
    return out
