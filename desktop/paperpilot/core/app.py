"""The application layer: one PaperPilot home and everything the CLI and the GUI do with it.

A ``Session`` owns the home's settings, research profile, library, conversations and key
store. The front ends parse input, call it and show what comes back; the rules live here
once: which policy a run uses and with which API key, how a follow-up is rewritten (and how a
failed rewrite is survived), which profile terms and answer language a run gets, how a turn
is saved, which citation style applies. ``Session.ask`` is a generator of the agent loop's
events (the CLI prints them, the GUI shows them), like paper-qa's ``agents.ask`` or what Anki's
``Collection`` is to ``aqt``. Never imports Qt.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .agent.events import Event, Finished, Result
from .agent.events import Warning as TraceWarning
from .agent.followup import rewrite_followup
from .agent.loop import AgentOptions, run_agent
from .agent.state import Policy
from .citations.formats import export_text
from .citations.model import CslItem
from .citations.styles import STYLE_NAMES, Rendered
from .errors import InvalidInput, NotFound
from .library import ImportProgress, ImportReport, Library
from .library.integrity import IntegrityReport, check_library
from .library.metadata import format_references, in_text, item_for_document, items_for_documents, save_item
from .memory.conversations import ConversationError, ConversationStore, Turn
from .memory.profile import ResearchProfile, expansion_terms, load_profile, save_profile
from .memory.workflows import WorkflowStore
from .models import DocumentInfo
from .settings.config import LLMSettings, Settings, load_settings, save_settings
from .settings.keystore import load_api_key
from .settings.paths import AppPaths, app_paths
from .text.redaction import clean_api_key

if TYPE_CHECKING:
    from .agent.evaluate import EvalReport
    from .llm.client import LLMConfig

DEFAULT_STYLE = "apa"
FOLLOWUP_WARNING = "followup"
NO_MODEL = (
    "A language model is switched on but no model name is set: choose one in Settings ▸ Language model "
    "(or pass --model NAME), or use the offline policy."
)
NO_URL = "A language model is switched on but its server URL is empty: set it in Settings (or pass --base-url URL)."


class ConversationNotFound(ConversationError, NotFound):
    """No saved conversation has that id."""


@dataclass
class AskRun:
    """One question being answered: iterate it for the loop's events; afterwards ``result``,
    ``conversation_id``, ``standalone`` and ``save_error`` say how it ended."""

    session: Session
    question: str
    conversation: str | None
    save: bool
    options: AgentOptions
    policy: Policy
    cancel: threading.Event
    standalone: str = ""
    rewritten: bool = False
    result: Result | None = None
    conversation_id: str | None = None
    save_error: str = ""

    def __post_init__(self) -> None:
        self.standalone = " ".join(self.question.split())
        self.conversation_id = self.conversation
        self.events: list[Event] = []

    def __iter__(self) -> Iterator[Event]:
        s = self.session
        history: list[Turn] = []
        if self.conversation is not None:
            history = s.conversations.turns(self.conversation, with_events=False)
        if history:
            # A follow-up is rewritten here, in the caller's thread, because it may call the model.
            client = getattr(self.policy, "client", None)
            try:
                rewrite = rewrite_followup(
                    self.question, history, "llm" if client is not None else "offline", client, cancel=self.cancel
                )
            except Exception as e:
                # A failed rewrite must not cost the answer: research the question as typed.
                warning = TraceWarning(code=FOLLOWUP_WARNING, message=f"Could not rewrite the follow-up: {e}")
                self.events.append(warning)
                yield warning
            else:
                if rewrite.is_followup:
                    self.standalone = rewrite.standalone or self.standalone
                    self.rewritten = True
                    self.options.prior_evidence = list(rewrite.reused_evidence)
                    # The loop reports the rewrite in its trace (an Info with code "followup").
                    self.options.rewritten_from = self.question
        self.options.profile_terms = expansion_terms(s.profile, self.standalone)
        for ev in run_agent(self.standalone, s.library, self.policy, self.options, self.cancel):
            self.events.append(ev)
            if isinstance(ev, Finished):
                self.result = ev.result
            yield ev
        if self.save and self.result is not None:
            self._save(self.result)

    def _save(self, result: Result) -> None:
        store = self.session.conversations
        try:
            if self.conversation_id is None:
                # Untitled: the store titles a conversation with its first question.
                self.conversation_id = store.create().id
            store.add_turn(self.conversation_id, self.question, self.standalone, result, self.events)
        except Exception as e:  # the answer is shown either way; the front end says it was not kept
            self.save_error = str(e) or type(e).__name__


class Session:
    """One PaperPilot home (``home``, else $PAPERPILOT_HOME, else the platform's folders).

    The library and the conversation store open on first use; ``close()`` (or ``with``) closes
    what was opened. ``library`` may be given (the GUI opens it first, to offer a repair).
    """

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        *,
        paths: AppPaths | None = None,
        settings: Settings | None = None,
        library: Library | None = None,
    ) -> None:
        self.paths = paths if paths is not None else app_paths(home)
        self.warnings: list[str] = []
        if settings is None:
            settings, warning = load_settings(self.paths.settings_file)
            if warning:
                self.warnings.append(warning)
        self.settings = settings
        self.profile, warning = load_profile(self.paths)
        if warning:
            self.warnings.append(warning)
        self._library = library
        self._conversations: ConversationStore | None = None
        self._workflows: WorkflowStore | None = None
        self._lock = threading.Lock()

    # --- what the home holds ---------------------------------------------------------------

    @property
    def library(self) -> Library:
        with self._lock:
            if self._library is None:
                self._library = Library(self.paths, self.settings.imports)
            return self._library

    def open_library(self, *, allow_damaged: bool = False) -> Library:
        """Open the library now (``allow_damaged``: also when it needs a repair, for the check)."""
        with self._lock:
            if self._library is None:
                self._library = Library(self.paths, self.settings.imports, allow_damaged=allow_damaged)
            return self._library

    @property
    def conversations(self) -> ConversationStore:
        with self._lock:
            if self._conversations is None:
                self._conversations = ConversationStore(self.paths)
            return self._conversations

    @property
    def workflows(self) -> WorkflowStore:
        """Saved literature matrices, column sets and drafts (their own SQLite file)."""
        with self._lock:
            if self._workflows is None:
                self._workflows = WorkflowStore(self.paths)
            return self._workflows

    def workflow_model(self, policy: str | None = None, **kw: Any) -> Policy | None:
        """The model a matrix or draft writes with: None offline (the workflows answer
        extractively), else the LLM policy ``make_policy`` builds."""
        if self.policy_name(policy, base_url=kw.get("base_url"), model=kw.get("model")) == "offline":
            return None
        return self.make_policy("llm", **kw)

    def reference_entries(self, doc_ids: Sequence[int], style: str | None = None) -> list[str]:
        """Each document's entry in ``style`` (default: the style), unnumbered, in the given order:
        a draft numbers them by first citation, a matrix by row."""
        from .citations.styles import get_style

        st = get_style(self.style(style))
        items = self.items(doc_ids)
        whole = getattr(st, "entries", None)
        rendered = list(whole(items)) if callable(whole) else [st.entry(i) for i in items]
        return [r.text for r in rendered]

    def draft_style(self, language: str, style: str | None = None) -> str:
        """GB/T 7714 numeric for a Chinese draft unless a style is asked for; the style otherwise."""
        if style:
            return self.style(style)
        return "gbt7714-2015-numeric" if language == "zh" else self.citation_style

    def close_conversations(self) -> None:
        with self._lock:
            if self._conversations is not None:
                self._conversations.close()
                self._conversations = None

    def close(self) -> None:
        with self._lock:
            if self._conversations is not None:
                self._conversations.close()
                self._conversations = None
            if self._workflows is not None:
                self._workflows.close()
                self._workflows = None
            if self._library is not None:
                self._library.close()
                self._library = None

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def save_settings(self, settings: Settings) -> None:
        """Keep ``settings`` for this home; the new chunk sizes apply to the next import."""
        save_settings(settings, self.paths.settings_file)
        self.settings = settings
        if self._library is not None:
            self._library.settings = settings.imports

    def save_profile(self, profile: ResearchProfile) -> None:
        """Keep an edited research profile; it applies from the next question on. A changed
        citation style becomes the style (see ``citation_style``)."""
        changed = profile.citation_style != self.profile.citation_style
        save_profile(profile, self.paths)
        self.profile = profile
        if changed:
            self.set_citation_style(profile.citation_style)

    # --- the citation style: one source of truth ---------------------------------------------

    @property
    def citation_style(self) -> str:
        """The style references are formatted in, by ``cite``, exports and the window alike.

        The settings hold it (``ui.citation_style``: the Settings dialog and the library pane);
        a research profile's style is the fallback for a home whose settings never named one
        (``paperpilot profile set citation_style`` before the two were joined). Changing it
        through either (``set_citation_style``, ``save_profile``) writes both.
        """
        ui = self.settings.ui
        style = ui.citation_style if "citation_style" in ui.model_fields_set else self.profile.citation_style
        return style if style in STYLE_NAMES else DEFAULT_STYLE

    def set_citation_style(self, style: str) -> None:
        if style not in STYLE_NAMES:
            raise InvalidInput(f"unknown citation style {style!r}; choose one of: {', '.join(STYLE_NAMES)}")
        ui = self.settings.ui.model_copy(update={"citation_style": style})
        ui.model_fields_set.add("citation_style")
        self.save_settings(self.settings.model_copy(update={"ui": ui}))
        if self.profile.citation_style != style:
            self.profile = self.profile.model_copy(update={"citation_style": style})
            save_profile(self.profile, self.paths)

    def style(self, style: str | None = None) -> str:
        """``style`` checked (an InvalidInput names the choices), or the current one."""
        if style is None:
            return self.citation_style
        if style not in STYLE_NAMES:
            raise InvalidInput(f"unknown citation style {style!r}; choose one of: {', '.join(STYLE_NAMES)}")
        return style

    # --- the model and the policy: one factory -----------------------------------------------

    def api_key(self, api_key_env: str | None = None) -> str | None:
        """The API key a run sends (see ``resolve_api_key``)."""
        return resolve_api_key(self.settings.llm, self.paths, api_key_env)

    def policy_name(self, policy: str | None = None, *, base_url: str | None = None, model: str | None = None) -> str:
        """offline or llm: as asked, else llm when the settings switch a model on or one is named."""
        if policy:
            if policy not in ("offline", "llm"):
                raise InvalidInput(f"unknown policy {policy!r} (offline or llm)")
            return policy
        return "llm" if (self.settings.llm.enabled or model or base_url) else "offline"

    def llm_config(
        self, *, base_url: str | None = None, model: str | None = None, api_key_env: str | None = None
    ) -> LLMConfig:
        """The model connection from the settings, with any of its parts overridden."""
        from .llm.client import LLMConfig  # httpx is imported only when a model is used

        s = self.settings.llm
        name = (model or s.model).strip()
        if not name:
            raise InvalidInput(NO_MODEL)
        url = (base_url or s.base_url).strip()
        if not url:
            raise InvalidInput(NO_URL)
        config = LLMConfig.from_settings(s, api_key=self.api_key(api_key_env))
        return config.model_copy(update={"base_url": url, "model": name})

    def make_policy(
        self,
        policy: str | None = None,
        *,
        base_url: str | None = None,
        model: str | None = None,
        api_key_env: str | None = None,
        config: LLMConfig | None = None,
        quote_check: bool | None = None,
    ) -> Policy:
        """The policy a run uses (the only place one is built); the LLM policy answers in the
        research profile's preferred language. ``config``: an explicit model connection instead
        of the settings' (benchmarks against a scripted server). ``quote_check``: ask the model to
        quote each claim's support (default: the settings'). Raises InvalidInput when it cannot
        be built."""
        name = self.policy_name(policy, base_url=base_url, model=model or (config.model if config else None))
        if name == "offline":
            from .agent.offline import OfflinePolicy

            return OfflinePolicy()
        if config is None:
            config = self.llm_config(base_url=base_url, model=model, api_key_env=api_key_env)
        from .agent.llm_policy import LLMPolicy
        from .llm.client import LLMClient

        if quote_check is None:
            quote_check = self.settings.llm.quote_check
        return LLMPolicy(LLMClient(config), answer_language=self.profile.answer_language, quote_check=quote_check)

    # --- asking -----------------------------------------------------------------------------

    def ask(
        self,
        question: str,
        *,
        conversation: str | None = None,
        save: bool = False,
        mode: str | None = None,
        max_rounds: int | None = None,
        policy: Policy | None = None,
        cancel: threading.Event | None = None,
    ) -> AskRun:
        """Answer ``question``; iterate the returned run for the loop's events.

        ``conversation``: continue that saved conversation (the question is rewritten against
        its turns when it is a follow-up); ``save``: keep the turn there, or in a new
        conversation when ``conversation`` is None. ``policy`` defaults to ``make_policy()``.
        Raises ConversationNotFound for an unknown conversation, before anything runs.
        """
        if conversation is not None and self.conversations.get(conversation) is None:
            raise ConversationNotFound(f"no conversation with id {conversation!r}")
        options = AgentOptions(
            max_rounds=max_rounds or self.settings.agent.max_rounds, mode=mode or self.settings.agent.mode
        )
        return AskRun(
            session=self,
            question=question,
            conversation=conversation,
            save=save,
            options=options,
            policy=policy if policy is not None else self.make_policy(),
            cancel=cancel if cancel is not None else threading.Event(),
        )

    def evaluate(
        self,
        dataset: Path,
        modes: Sequence[str],
        *,
        policy: str | None = None,
        base_url: str | None = None,
        model: str | None = None,
        api_key_env: str | None = None,
        max_rounds: int | None = None,
        limit: int | None = None,
        into_home: bool = True,
        progress: Callable[[int, int], None] | None = None,
        llm_config: LLMConfig | None = None,
        quote_check: bool | None = None,
        **devset: Any,
    ) -> EvalReport:
        """Run the HotpotQA-style evaluation with this home's settings and key; ``into_home``:
        pool the paragraphs into this home's library (kept and reused), else a temporary one."""
        from .agent.evaluate import run_eval

        name = self.policy_name(policy, base_url=base_url, model=model)

        def make(_name: str, config: LLMConfig | None) -> Policy:
            return self.make_policy(
                name, base_url=base_url, model=model, api_key_env=api_key_env, config=config, quote_check=quote_check
            )

        return run_eval(
            dataset,
            modes=list(modes),
            policy=name,
            limit=limit,
            home=self.paths_root() if into_home else None,
            max_rounds=max_rounds or 6,
            progress=progress,
            llm_config=llm_config,
            open_library=eval_library,
            make_policy=make,
            **devset,
        )

    def paths_root(self) -> Path:
        """The folder ``app_paths`` makes this home's paths from (its ``--home``)."""
        return self.paths.data_dir.parent

    # --- the library ------------------------------------------------------------------------

    def import_paths(
        self,
        paths: Sequence[str | os.PathLike[str]],
        progress: Callable[[ImportProgress], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> ImportReport:
        return self.library.import_paths(paths, progress=progress, cancel=cancel)

    def remove(
        self, doc_ids: Sequence[int], on_removed: Callable[[DocumentInfo], None] | None = None
    ) -> list[DocumentInfo]:
        """Remove documents: all of them, or none when an id is wrong (NotFound names them).
        ``on_removed`` hears of each one gone (a later one may still fail: busy, disk full)."""
        wanted = list(dict.fromkeys(doc_ids))
        missing = [i for i in wanted if self.library.document(i) is None]
        if missing:
            ids = ", ".join(str(i) for i in missing)
            raise NotFound(
                f"no document with id {ids}; nothing was removed (see: paperpilot list)"
                if len(missing) == 1
                else f"no documents with ids {ids}; nothing was removed (see: paperpilot list)"
            )
        removed = []
        for doc_id in wanted:
            removed.append(self.library.remove(doc_id))
            if on_removed is not None:
                on_removed(removed[-1])
        return removed

    def check(
        self, *, repair: bool = False, progress: Callable[[str], None] | None = None, cancel: threading.Event | None = None
    ) -> IntegrityReport:
        """The integrity check (``repair``: fix what can be fixed without losing anything)."""
        return check_library(self.open_library(allow_damaged=True), repair=repair, progress=progress, cancel=cancel)

    def ready_document(self, doc_id: int) -> DocumentInfo:
        doc = self.library.document(doc_id)
        if doc is None or doc.status != "ready":
            raise NotFound(f"no document with id {doc_id}")
        return doc

    def set_note(self, doc_id: int, text: str) -> None:
        self.library.set_note(doc_id, text)

    def save_metadata(self, doc_id: int, item: CslItem) -> DocumentInfo:
        return save_item(self.library, doc_id, item)

    def metadata_item(self, doc_id: int) -> CslItem:
        return item_for_document(self.library, doc_id)

    # --- citations --------------------------------------------------------------------------

    def items(self, doc_ids: Sequence[int] | None = None) -> list[CslItem]:
        """CSL items of ``doc_ids`` in that order (None: every ready document)."""
        return items_for_documents(self.library, doc_ids)

    def references(self, doc_ids: Sequence[int], style: str | None = None) -> list[Rendered]:
        return format_references(self.library, doc_ids, self.style(style))

    def in_text(self, doc_ids: Sequence[int], style: str | None = None, numbers: Sequence[int] | None = None) -> str:
        return in_text(self.library, doc_ids, self.style(style), numbers)

    def export(self, doc_ids: Sequence[int] | None, fmt: str) -> tuple[str, int]:
        """(BibTeX, RIS or CSL-JSON text, number of references) for ``doc_ids`` (None: all)."""
        items = self.items(doc_ids)
        return export_text(items, fmt), len(items)

    def export_conversation(self, conversation_id: str, style: str | None = None) -> str:
        """A saved conversation as Markdown, its references in ``style`` (default: the style)."""
        return self.conversations.export_markdown(conversation_id, self.library, self.style(style))


def eval_library(home: Path) -> Library:
    """The library an evaluation pools its paragraphs into (one paragraph, one passage)."""
    from .agent.evaluate import EVAL_IMPORT

    return Library(app_paths(home), settings=EVAL_IMPORT)


def resolve_api_key(llm: LLMSettings, paths: AppPaths, api_key_env: str | None = None) -> str | None:
    """The API key to send: ``api_key_env`` when given (it must be set; ``--api-key-env``), else
    the key store (the system keyring or the 0600 file the Settings dialog saves to), else the
    variable the settings name (``llm.api_key_env``), else None. Raises InvalidInput (one
    sentence, never the key) for a key that holds a character no HTTP header can carry."""
    if api_key_env:
        value = clean_api_key(os.environ.get(api_key_env), f"from the environment variable {api_key_env}")
        if not value:
            raise InvalidInput(f"the environment variable {api_key_env} is not set (it should hold the API key)")
        return value
    stored = load_api_key(paths)
    if stored:
        return stored
    if llm.api_key_env:
        return clean_api_key(os.environ.get(llm.api_key_env), f"from the environment variable {llm.api_key_env}")
    return None


def close_quietly(obj: object) -> None:
    """Close a policy and its model client, whatever they are (an evaluation's or a run's)."""
    for part in (obj, getattr(obj, "client", None)):
        close = getattr(part, "close", None)
        if callable(close):
            with suppress(Exception):
                close()
