"""The public types and small pure helpers the front ends use, in one place.

``paperpilot.ui`` and ``paperpilot.cli`` import from core only ``core.app`` (the ``Session``
that does things), this module (what they receive, pass back and show) and ``core.errors``;
import-linter checks it (pyproject.toml). Everything here is a re-export: the definitions stay
in their packages, and nothing here touches the library, the network or a file on its own.
"""

from __future__ import annotations

from .agent import answer_status, tools
from .agent.actions import question_too_long
from .agent.events import (
    EVENT_ADAPTER,
    ActionChosen,
    AnswerDrafted,
    Event,
    Evidence,
    Finished,
    HitView,
    Info,
    Result,
    RoundStarted,
    RunStarted,
    Status,
    ToolResult,
    event_to_json,
)
from .agent.events import Warning as TraceWarning
from .agent.report import describe_action, format_reference, one_line, trace_to_jsonl, trace_to_markdown
from .citations.cslio import parse_csl_json
from .citations.formats import ExportFormat, export_text
from .citations.identifiers import bare_arxiv, bare_doi, is_arxiv_id, is_doi
from .citations.model import ITEM_TYPES, CslItem, CslName
from .citations.styles import STYLE_NAMES, Rendered, bibliography, get_style
from .clock import file_stamp, today
from .extract.pdf_spans import PageRects, SpanLocation, locate_span
from .library import ImportProgress, ImportReport, Library, LibraryBusy, LibraryError, LinkedReference
from .library.integrity import IntegrityReport
from .library.metadata import MetadataUpdate
from .library.organize import TAG_COLORS, Collection, CollectionTree, all_tags, recently_added
from .library.query import DocumentFilter, parse_query
from .library.scoped_library import CollectionScope
from .library.text_filter import TextMatches
from .library.undo import Action as UndoAction
from .library.undo import UndoEntry
from .llm.presets import PRESETS, Preset, model_for_preset, preset_for_url, replacement_for
from .memory.conversations import ConversationError, ConversationStore
from .memory.profile import PROFILE_KEYS, ResearchProfile, set_profile_value
from .models import DocumentInfo, Hit
from .settings.config import (
    MAX_ROUNDS,
    MIN_ROUNDS,
    ImportSettings,
    Settings,
    atomic_write_text,
    chunk_range_problem,
    describe_invalid,
    load_settings,
)
from .settings.keystore import KeyStoreError
from .settings.logsetup import configure_logging, log_crash, reset_logging
from .settings.paths import HOME_ENV, AppPaths, app_paths
from .text.kinds import ALL_KINDS, parse_kinds
from .text.language import has_cjk, query_terms
from .text.messages import Message, msg
from .text.redaction import RedactingStream, clean_api_key, has_secrets, redact, redact_data
from .workflows.draft import Draft, SectionProgress, draft_scope
from .workflows.draft import to_json as draft_to_json
from .workflows.export import Reference, draft_markdown
from .workflows.matrix import CellProgress, Column, Matrix, column, family, parse_column, shown_title
from .workflows.saved import SavedDraft, SavedItem
from .workflows.selection import PaperSelection, parse_years, year_argument
from .workflows.templates import BUILTIN_TEMPLATES, Template

__all__ = [
    "ALL_KINDS",
    "BUILTIN_TEMPLATES",
    "EVENT_ADAPTER",
    "HOME_ENV",
    "ITEM_TYPES",
    "MAX_ROUNDS",
    "MIN_ROUNDS",
    "PRESETS",
    "PROFILE_KEYS",
    "STYLE_NAMES",
    "TAG_COLORS",
    "ActionChosen",
    "AnswerDrafted",
    "AppPaths",
    "CellProgress",
    "Collection",
    "CollectionScope",
    "CollectionTree",
    "Column",
    "ConversationError",
    "ConversationStore",
    "CslItem",
    "CslName",
    "DocumentFilter",
    "DocumentInfo",
    "Draft",
    "Event",
    "Evidence",
    "ExportFormat",
    "Finished",
    "Hit",
    "HitView",
    "ImportProgress",
    "ImportReport",
    "ImportSettings",
    "Info",
    "IntegrityReport",
    "KeyStoreError",
    "Library",
    "LibraryBusy",
    "LibraryError",
    "LinkedReference",
    "Matrix",
    "Message",
    "MetadataUpdate",
    "PageRects",
    "PaperSelection",
    "Preset",
    "RedactingStream",
    "Reference",
    "Rendered",
    "ResearchProfile",
    "Result",
    "RoundStarted",
    "RunStarted",
    "SavedDraft",
    "SavedItem",
    "SectionProgress",
    "Settings",
    "SpanLocation",
    "Status",
    "Template",
    "TextMatches",
    "ToolResult",
    "TraceWarning",
    "UndoAction",
    "UndoEntry",
    "all_tags",
    "answer_status",
    "app_paths",
    "atomic_write_text",
    "bare_arxiv",
    "bare_doi",
    "bibliography",
    "chunk_range_problem",
    "clean_api_key",
    "column",
    "configure_logging",
    "describe_action",
    "describe_invalid",
    "draft_markdown",
    "draft_scope",
    "draft_to_json",
    "event_to_json",
    "export_text",
    "family",
    "file_stamp",
    "format_reference",
    "get_style",
    "has_cjk",
    "has_secrets",
    "is_arxiv_id",
    "is_doi",
    "load_settings",
    "locate_span",
    "log_crash",
    "model_for_preset",
    "msg",
    "one_line",
    "parse_column",
    "parse_csl_json",
    "parse_kinds",
    "parse_query",
    "parse_years",
    "preset_for_url",
    "query_terms",
    "question_too_long",
    "recently_added",
    "redact",
    "redact_data",
    "replacement_for",
    "reset_logging",
    "set_profile_value",
    "shown_title",
    "today",
    "tools",
    "trace_to_jsonl",
    "trace_to_markdown",
    "year_argument",
]
