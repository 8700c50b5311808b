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

import logging
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .agent.events import Event, Finished, Info, Result
from .agent.events import Warning as TraceWarning
from .agent.followup import rewrite_followup
from .agent.loop import AgentOptions, run_agent
from .agent.state import Policy
from .citations.formats import export_text
from .citations.model import CslItem
from .citations.styles import STYLE_NAMES, Rendered
from .errors import InvalidInput, LibraryError, NotFound, PaperPilotError
from .library import ImportProgress, ImportReport, Library, LinkedReference
from .library.integrity import IntegrityReport, Kind, Problem, check_library
from .library.metadata import (
    MetadataUpdate,
    format_references,
    in_text,
    item_for_document,
    items_for_documents,
    reread_metadata,
    retrieve_metadata,
    save_item,
)
from .library.organize import Collection, CollectionTree, merge_tags, normalize_tag
from .library.scoped_library import CollectionScope, ScopedLibrary
from .library.semantic import Semantic, chunk_batches
from .library.undo import UndoJournal
from .memory.conversations import ConversationError, ConversationStore, Turn
from .memory.profile import ResearchProfile, expansion_terms, load_profile, save_profile
from .memory.workflow_store import WorkflowStore
from .models import DocumentInfo
from .settings.config import LLMSettings, Settings, load_settings, save_settings
from .settings.keystore import load_api_key
from .settings.paths import AppPaths, app_paths
from .text.messages import Message
from .text.redaction import clean_api_key

if TYPE_CHECKING:
    from .evaluation.hotpotqa import EvalReport
    from .library.text_filter import TextMatches
    from .llm.client import LLMConfig
    from .retrieval import Chunk, Embedder, JobResult
    from .settings.keystore import Backend, KeyLocation
    from .workflows.draft import Draft, SectionProgress
    from .workflows.export import Reference
    from .workflows.matrix import CellProgress, Column, Matrix
    from .workflows.saved import SavedDraft, SavedItem
    from .workflows.selection import PaperSelection
    from .workflows.templates import Template

log = logging.getLogger(__name__)

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
    # The documents the agent may use (a collection or a tag), None for the whole library.
    scope: CollectionScope | None = None
    scope_ids: list[int] | None = None
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
        pool: Any = s.library
        if self.scope is not None and self.scope_ids is not None:
            pool = ScopedLibrary(s.library, self.scope_ids, self.scope)
            info = Info(
                code="scope",
                message=f"only the {len(self.scope_ids)} document(s) of {self.scope.label()}",
                data={"kind": self.scope.kind, "name": self.scope.name, "doc_ids": list(self.scope_ids)},
            )
            self.events.append(info)
            yield info
        for ev in run_agent(self.standalone, pool, self.policy, self.options, self.cancel):
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
        if library is not None:
            self._attach_semantic(library)
        self._conversations: ConversationStore | None = None
        self._workflows: WorkflowStore | None = None
        self._lock = threading.Lock()
        # Ctrl+Z: the library's last removals, tag, collection and metadata edits, kept in its
        # database (see library.undo), so they outlive the session and are shared with the CLI.
        self.undo_stack = UndoJournal(lambda: self.library)

    # --- what the home holds ---------------------------------------------------------------

    @property
    def library(self) -> Library:
        with self._lock:
            if self._library is None:
                self._library = self._attach_semantic(Library(self.paths, self.settings.imports))
            return self._library

    def open_library(self, *, allow_damaged: bool = False) -> Library:
        """Open the library now (``allow_damaged``: also when it needs a repair, for the check)."""
        with self._lock:
            if self._library is None:
                lib = Library(self.paths, self.settings.imports, allow_damaged=allow_damaged)
                self._library = self._attach_semantic(lib)
            return self._library

    # --- retrieval by meaning ----------------------------------------------------------------

    def _attach_semantic(self, lib: Library) -> Library:
        """Give the library its vector store and embedder (both opened on first use)."""
        if lib.semantic is None and not lib.damaged:
            lib.semantic = Semantic(lib.paths.database, lambda: self.embedder(), search_threads=2)
        return lib

    def embedder(self, *, threads: int | None = None) -> Embedder:
        """The embedder ``settings.embedding`` names: the bundled model (nothing is downloaded)
        or an OpenAI-compatible endpoint. ``threads``: the bundled model's cores (None: all)."""
        from .retrieval import BundledEmbedder, EndpointEmbedder

        cfg = self.settings.embedding
        if cfg.kind == "endpoint":
            key = os.environ.get(cfg.api_key_env, "") if cfg.api_key_env else ""
            return EndpointEmbedder(
                cfg.base_url, cfg.model, api_key=key, batch_size=cfg.batch_size, timeout_s=cfg.timeout_s
            )
        return BundledEmbedder(threads=threads, batch_size=min(cfg.batch_size, 16))

    def embed_library(
        self,
        *,
        threads: int | None = None,
        batch_size: int | None = None,
        progress: Callable[[int, int], None] | None = None,
        low_priority: bool = False,
        cancel: threading.Event | None = None,
    ) -> JobResult:
        """Embed the library's chunks that have no vector of the current model yet (resumable:
        each batch is committed, so after a kill the next run embeds only what is missing);
        forgets the vectors of deleted chunks and of other models. Never part of an import.
        ``cancel``: set, the run stops after the batch it is embedding (``cancelled``)."""
        from .retrieval import EmbeddingJob

        lib = self.library
        semantic = lib.semantic
        if semantic is None:
            raise LibraryError("The library cannot be embedded while it needs a repair (run paperpilot check).")
        cfg = self.settings.embedding
        job_embedder = self.embedder(threads=threads or cfg.threads)
        if job_embedder.model_key != semantic.embedder.model_key:  # pragma: no cover - same settings
            raise LibraryError("The embedding settings changed while the library was open.")
        store = lib.store

        def source() -> Iterator[list[Chunk]]:
            return chunk_batches(store.iter_chunks_for_embedding())

        def on_progress(done: int, total: int) -> None:
            if cancel is not None and cancel.is_set():
                job.cancel()
            if progress is not None:
                progress(done, total)

        job = EmbeddingJob(
            semantic.store, job_embedder, source, batch_size=batch_size or cfg.batch_size,
            on_progress=on_progress, prune=True, low_priority=low_priority,
        )  # fmt: skip
        if cancel is not None and cancel.is_set():
            job.cancel()
        try:
            result = job.run()
        finally:
            close_quietly(job_embedder)
        semantic.after_run(result)
        return result

    def semantic_problems(self, *, repair: bool = False) -> list[str]:
        """The vector store's problems (``repair``: fixed: unusable rows dropped, vectors of
        deleted chunks forgotten, the search structure rebuilt); [] when it is fine or absent."""
        lib = self.open_library(allow_damaged=True)
        semantic = lib.semantic
        if semantic is None or not semantic.path.exists():
            return []
        store = semantic.store
        problems = store.check()
        live = {cid for cid, *_ in lib.store.iter_chunks_for_embedding()}
        gone = len(store.chunk_ids() - live)
        if gone:
            problems.append(f"{gone} stored vectors belong to passages no longer in the library.")
        if repair and problems:
            store.repair()
            store.retain(live)
            if store.model_changed():
                store.drop_other_models()
        return problems

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
        rerank: bool | None = None,
    ) -> Policy:
        """The policy a run uses (the only place one is built); the LLM policy answers in the
        research profile's preferred language. ``config``: an explicit model connection instead
        of the settings' (benchmarks against a scripted server). ``quote_check``: ask the model to
        quote each claim's support (default: the settings'). ``rerank``: the model scores each
        search's skims before reading (default: the settings'). Raises InvalidInput when it
        cannot be built."""
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
        if rerank is None:
            rerank = self.settings.llm.rerank
        return LLMPolicy(LLMClient(config), answer_language=self.profile.answer_language, quote_check=quote_check,
                         rerank=rerank)  # fmt: skip

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
        scope: CollectionScope | None = None,
    ) -> AskRun:
        """Answer ``question``; iterate the returned run for the loop's events.

        ``conversation``: continue that saved conversation (the question is rewritten against
        its turns when it is a follow-up); ``save``: keep the turn there, or in a new
        conversation when ``conversation`` is None. ``policy`` defaults to ``make_policy()``.
        ``scope``: only the documents of that collection or tag (the agent's searches get their
        ids; the run's first event says so). Raises ConversationNotFound for an unknown
        conversation, NotFound for an unknown collection, before anything runs.
        """
        if conversation is not None and self.conversations.get(conversation) is None:
            raise ConversationNotFound(f"no conversation with id {conversation!r}")
        scope_ids = self.scope_doc_ids(scope) if scope is not None else None
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
            scope=scope,
            scope_ids=scope_ids,
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
        from .evaluation.hotpotqa import run_eval

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
        """Remove documents from the library: all of them, or none when an id is wrong (NotFound
        names them). Documents go to the trash (``restore`` brings them back, ``undo`` too); a
        failed import, which holds nothing but its reason, is deleted. ``on_removed`` hears of
        each one gone, with its status as it was ('ready' or 'failed')."""
        wanted = self._known_ids(doc_ids, "removed", {"ready", "failed"})
        docs = [d for d in (self.library.document(i) for i in wanted) if d is not None]
        removed: list[DocumentInfo] = []
        ready = [d.doc_id for d in docs if d.status == "ready"]
        if ready:
            trashed = {d.doc_id for d in self.library.trash(ready)}
            for d in docs:
                if d.doc_id in trashed:
                    removed.append(d)
                    if on_removed is not None:
                        on_removed(d)
            if trashed:
                self.undo_stack.record_removal(sorted(trashed))
        for d in docs:
            if d.status == "failed":
                removed.append(self.library.remove(d.doc_id))
                if on_removed is not None:
                    on_removed(d)
        return removed

    def _known_ids(self, doc_ids: Sequence[int], verb: str, statuses: set[str]) -> list[int]:
        """``doc_ids`` without repeats, once every one is a document with one of ``statuses``;
        else NotFound naming the others (nothing is changed)."""
        wanted = list(dict.fromkeys(doc_ids))
        missing = []
        for i in wanted:
            d = self.library.document(i)
            if d is None or d.status not in statuses:
                missing.append(i)
        if missing:
            ids = ", ".join(str(i) for i in missing)
            where = "in the trash" if statuses == {"trashed"} else "in the library"
            see = "paperpilot list --trash" if statuses == {"trashed"} else "paperpilot list"
            raise NotFound(
                f"no document with id {ids} {where}; nothing was {verb} (see: {see})"
                if len(missing) == 1
                else f"no documents with ids {ids} {where}; nothing was {verb} (see: {see})"
            )
        return wanted

    def restore(self, doc_ids: Sequence[int]) -> list[DocumentInfo]:
        """Take documents out of the trash (all of them, or none when an id is not there); they
        are searchable again when this returns."""
        wanted = self._known_ids(doc_ids, "restored", {"trashed"})
        return self.library.restore(wanted)

    def empty_trash(self, doc_ids: Sequence[int] | None = None) -> list[DocumentInfo]:
        """Delete what is in the trash for good (or only ``doc_ids``, which must all be there)."""
        wanted = None if doc_ids is None else self._known_ids(doc_ids, "deleted", {"trashed"})
        deleted = self.library.empty_trash(wanted)
        if deleted:
            self._prune_vectors()
        return deleted

    def _prune_vectors(self) -> None:
        """Forget the vectors of passages deleted for good (search already skips them; this
        keeps the vector file from growing and the check clean)."""
        semantic = self.library.semantic
        if semantic is None or not semantic.path.exists():
            return
        try:
            semantic.store.retain(cid for cid, *_ in self.library.store.iter_chunks_for_embedding())
        except PaperPilotError as exc:  # derived data: the next embedding run or check prunes it
            log.warning("vectors not pruned: %s", exc)

    def documents(
        self, *, tag: str | None = None, collection: str | None = None, trash: bool = False
    ) -> list[DocumentInfo]:
        """The documents ``paperpilot list`` shows: the library (ready and failed imports) or the
        trash, narrowed to a tag and / or a collection (with its sub-collections)."""
        docs = self.library.trashed_documents() if trash else self.library.all_documents()
        if tag is not None:
            want = normalize_tag(tag, new=False).casefold()
            docs = [d for d in docs if want in {t.casefold() for t in d.tags}]
        if collection is not None:
            ids = self.collections().get(collection).all_doc_ids()
            docs = [d for d in docs if d.doc_id in ids]
        return docs

    def tag(
        self, doc_ids: Sequence[int], add: Sequence[str] = (), remove: Sequence[str] = ()
    ) -> list[DocumentInfo]:
        """Add and / or remove tags on documents (all of them, or none when an id is wrong);
        returns the documents whose tags changed. Undoable."""
        plus = [normalize_tag(t) for t in add]
        minus = [normalize_tag(t, new=False) for t in remove]
        wanted = self._known_ids(doc_ids, "tagged", {"ready", "trashed"})
        before: dict[int, list[str]] = {}
        changes: dict[int, list[str]] = {}
        for doc_id in wanted:
            doc = self.library.document(doc_id)
            if doc is None:
                continue
            new = merge_tags(doc.tags, plus, minus)
            if new != doc.tags:
                before[doc_id], changes[doc_id] = list(doc.tags), new
        if not changes:
            return []
        done = self.library.set_tags(changes)
        old = {i: before[i] for i in done}
        if old:
            self.undo_stack.record_tags(old)
        return [d for d in (self.library.document(i) for i in done) if d is not None]

    def set_tag_color(self, tag: str, color: str) -> None:
        """Give a tag one of organize.TAG_COLORS (by name or hex), or none with ''."""
        from .library.organize import TAG_COLORS

        name = normalize_tag(tag, new=False)
        value = TAG_COLORS.get(color.casefold(), color) if color else ""
        if value and not (value.startswith("#") and len(value) == 7):
            raise InvalidInput(f"unknown colour {color!r}; choose one of: {', '.join(TAG_COLORS)}")
        self.library.set_tag_color(name, value)

    def collections(self) -> CollectionTree:
        return self.library.collection_tree()

    def collection_add(self, path: str, doc_ids: Sequence[int]) -> tuple[int, list[int]]:
        """Put documents into the collection at ``path`` (made, with its parents, when missing):
        all of them, or none when an id is wrong. Returns (collection id, ids newly filed)."""
        wanted = self._known_ids(doc_ids, "filed", {"ready", "trashed"}) if doc_ids else []
        cid = self.library.create_collection(path)
        added = self.library.file_documents(cid, wanted, True) if wanted else []
        if added:
            self.undo_stack.record_filing(cid, self.collections().by_id[cid].path, added, added=True)
        return cid, added

    def collection_remove(self, path: str, doc_ids: Sequence[int]) -> list[int]:
        """Take documents out of a collection (they stay in the library); the ids taken out."""
        c = self.collections().get(path)
        gone = self.library.file_documents(c.collection_id, list(dict.fromkeys(doc_ids)), False)
        if gone:
            self.undo_stack.record_filing(c.collection_id, c.path, gone, added=False)
        return gone

    def collection_delete(self, path: str) -> int:
        """Delete a collection and its sub-collections (the documents stay); its id. Undoable:
        the collections come back with their documents."""
        tree = self.collections()
        c = tree.get(path)
        created = self.library.store.collection_created()
        subtree: list[dict[str, Any]] = []

        def visit(x: Collection) -> None:
            subtree.append({"path": x.path, "created": created.get(x.collection_id, ""), "doc_ids": sorted(x.doc_ids)})
            for ch in x.children:
                visit(ch)

        visit(c)
        self.library.delete_collection(c.collection_id)
        self.undo_stack.record_deleted_collection(c.path, subtree)
        return c.collection_id

    def collection_rename(self, path: str, new_name: str) -> int:
        """Rename a collection (undoable); its id."""
        c = self.collections().get(path)
        self.library.rename_collection(c.collection_id, new_name)
        renamed = self.collections().by_id[c.collection_id].path
        if renamed != c.path:
            self.undo_stack.record_renamed_collection(c.collection_id, c.path, renamed)
        return c.collection_id

    def scope_doc_ids(self, scope: CollectionScope) -> list[int]:
        """The live documents of a scope (NotFound for an unknown collection)."""
        if scope.kind == "collection":
            ids = self.collections().get(scope.name).all_doc_ids()
        elif scope.kind == "tag":
            want = normalize_tag(scope.name, new=False).casefold()
            ids = {d.doc_id for d in self.library.list_documents() if want in {t.casefold() for t in d.tags}}
        else:
            raise InvalidInput(f"unknown scope {scope.kind!r} (collection or tag)")
        live = {d.doc_id for d in self.library.list_documents()}
        return sorted(ids & live)

    def undo(self) -> str:
        """Undo the library's last removal, tag, collection or metadata edit (made by this
        session, an earlier one, or another process); what was undone ("" when nothing was left
        to undo). Raises NothingToUndo, one line, when its documents were deleted for good since."""
        return self.undo_stack.undo()

    def check(
        self, *, repair: bool = False, progress: Callable[[Message], None] | None = None, cancel: threading.Event | None = None
    ) -> IntegrityReport:
        """The integrity check (``repair``: fix what can be fixed without losing anything)."""
        report = check_library(self.open_library(allow_damaged=True), repair=repair, progress=progress, cancel=cancel)
        # The vector store is derived data: its repair drops what is unusable; the next
        # `paperpilot index --semantic` (or the background job) embeds what is missing.
        if repair:
            report.repaired.extend(f"vectors: {p}" for p in self.semantic_problems(repair=True))
            report.repaired_msgs.extend(None for _ in range(len(report.repaired) - len(report.repaired_msgs)))
        report.problems.extend(Problem(Kind.VECTORS, p, True) for p in self.semantic_problems())
        semantic = self.library.semantic if self._library is not None else None
        if semantic is not None and semantic.recovered:
            report.recovered.append("the vector file was damaged: set aside, its passages are embedded again")
        return report

    def ready_document(self, doc_id: int) -> DocumentInfo:
        doc = self.library.document(doc_id)
        if doc is None or doc.status != "ready":
            raise NotFound(f"no document with id {doc_id}")
        return doc

    def set_note(self, doc_id: int, text: str) -> None:
        self.library.set_note(doc_id, text)

    def reindex(self) -> int:
        """Rebuild the search index from the library database; the number of passages indexed."""
        return self.library.reindex()

    # --- the structure of papers --------------------------------------------------------------

    def reference_list(self, doc_id: int) -> list[LinkedReference]:
        """The parsed reference list of a document, entries linked to library documents."""
        self.ready_document(doc_id)
        return self.library.references(doc_id)

    def cited_by(self, doc_id: int) -> list[DocumentInfo]:
        """Documents in the library whose reference list names this one."""
        self.ready_document(doc_id)
        return self.library.cited_by(doc_id)

    def save_metadata(self, doc_id: int, item: CslItem) -> DocumentInfo:
        before = item_for_document(self.library, doc_id)
        doc = save_item(self.library, doc_id, item)
        self.record_metadata_edit(doc_id, before)
        return doc

    def record_metadata_edit(self, doc_id: int, before: CslItem) -> None:
        """Let ``undo`` put a document's metadata back as ``before`` (the window's editor saves
        on its own and tells the session here). A write: call it off the GUI thread."""
        self.undo_stack.record_metadata(doc_id, before.title, before)

    def metadata_item(self, doc_id: int) -> CslItem:
        return item_for_document(self.library, doc_id)

    def reread_metadata(self, doc_ids: Sequence[int]) -> list[MetadataUpdate]:
        """Read metadata again from each document's file; fields a person chose are kept."""
        for doc_id in doc_ids:
            self.ready_document(doc_id)
        return [reread_metadata(self.library, doc_id) for doc_id in doc_ids]

    @property
    def online_lookups_allowed(self) -> bool:
        return self.settings.metadata.allow_online_lookups

    def retrieve_metadata(
        self, doc_ids: Sequence[int], cancel: threading.Event | None = None
    ) -> list[MetadataUpdate]:
        """Fill each document's metadata from Crossref (by DOI) or arXiv, when the user allows
        online lookups (Settings ▸ metadata.allow_online_lookups; off by default). A lookup that
        fails is reported for its document and the others go on.

        Raises InvalidInput, before any network access, when lookups are not allowed.
        """
        if not self.online_lookups_allowed:
            raise InvalidInput(
                "Online metadata lookups are off; allow them first "
                "(Settings ▸ Allow online metadata lookups, or: paperpilot metadata --allow-lookups on)."
            )
        for doc_id in doc_ids:
            self.ready_document(doc_id)
        # Here, not at the top: httpx takes a noticeable moment to import, and most runs never look up.
        from .citations.lookup import ARXIV_URL, CROSSREF_URL, LookupFailed, lookup_arxiv, lookup_doi

        cfg = self.settings.metadata

        def lookup(kind: str, key: str) -> CslItem:
            if kind == "doi":
                return lookup_doi(key, base_url=cfg.crossref_url or CROSSREF_URL, timeout=cfg.timeout_s)
            return lookup_arxiv(key, base_url=cfg.arxiv_url or ARXIV_URL, timeout=cfg.timeout_s)

        out = []
        for doc_id in doc_ids:
            if cancel is not None and cancel.is_set():
                break
            try:
                out.append(retrieve_metadata(self.library, doc_id, lookup))
            except LookupFailed as e:
                out.append(MetadataUpdate(doc_id, skipped=str(e)))
        return out

    def set_online_lookups(self, allowed: bool) -> None:
        settings = self.settings.model_copy(deep=True)
        settings.metadata.allow_online_lookups = allowed
        self.save_settings(settings)

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


    # --- workflows: the literature matrix and the cited draft -----------------------------------
    # One implementation for the matrix and draft windows and ``paperpilot matrix`` / ``draft``.

    def saved_workflows(self, kind: str) -> list[SavedItem]:
        """The saved matrices (``kind`` "matrix") or drafts, newest first, with their progress."""
        from .workflows import saved

        return saved.saved_matrices(self.workflows) if kind == "matrix" else saved.saved_drafts(self.workflows)

    def rename_workflow(self, kind: str, item_id: str, title: str) -> None:
        from .workflows import saved

        (saved.rename_matrix if kind == "matrix" else saved.rename_draft)(self.workflows, item_id, title)

    def delete_workflow(self, kind: str, item_id: str) -> None:
        from .workflows import saved

        (saved.delete_matrix if kind == "matrix" else saved.delete_draft)(self.workflows, item_id)

    def scope_documents(self, scope: PaperSelection) -> list[DocumentInfo]:
        """The papers a matrix or a draft over ``scope`` would take (the scope row's count)."""
        from .workflows.selection import resolve_scope

        return resolve_scope(self.library, scope)

    def column_sets(self) -> list[str]:
        return self.workflows.column_sets()

    def load_column_set(self, name: str) -> list[Column]:
        """A saved column set (or "default", or a .json file)."""
        from .workflows.matrix import load_column_set

        return load_column_set(self.workflows, name)

    def save_column_set(self, name: str, columns: Sequence[Column]) -> None:
        from .workflows.matrix import save_column_set

        save_column_set(self.workflows, name, columns)

    def create_matrix(
        self,
        scope: PaperSelection,
        columns: Sequence[Column] | None = None,
        *,
        column_set: str = "",
        title: str = "",
    ) -> Matrix:
        """A new saved matrix over the papers of ``scope``: ``columns``, else the saved
        ``column_set``, else the standard columns."""
        from .workflows.matrix import create_matrix, load_column_set

        if not columns and column_set:
            columns = load_column_set(self.workflows, column_set)
        return create_matrix(self.workflows, self.library, scope, columns, title=title)

    def open_matrix(self, matrix_id: str) -> Matrix:
        from .workflows.matrix import open_matrix

        return open_matrix(self.workflows, matrix_id)

    def edit_matrix_columns(self, matrix: Matrix, columns: Sequence[Column]) -> Matrix:
        """The matrix with these columns (kept cells stay; a changed question empties its cells)."""
        from .workflows.matrix import edit_columns, set_columns

        return set_columns(self.workflows, matrix, edit_columns(matrix, columns))

    def use_column_set(self, matrix: Matrix, name: str) -> Matrix:
        from .workflows.matrix import load_column_set, set_columns

        return set_columns(self.workflows, matrix, load_column_set(self.workflows, name))

    def run_matrix(
        self,
        matrix: Matrix,
        policy: str | None = None,
        cancel: threading.Event | None = None,
        **model: Any,
    ) -> Iterator[CellProgress]:
        """The run that fills the matrix's pending cells (each saved as done), yielding progress.
        The model is built here (InvalidInput when it cannot be; it may import the HTTP client,
        so the GUI calls this in its worker); ``model``: ``workflow_model``'s overrides
        (base_url, model, api_key_env)."""
        from .workflows.matrix import run_matrix

        writer = self.workflow_model(policy or None, **model)
        return run_matrix(self.workflows, matrix, self.library, model=writer, cancel=cancel)

    def matrix_references(self, matrix: Matrix, style: str | None = None) -> list[Reference]:
        """The matrix's rows as numbered references in ``style`` (default: the style)."""
        from .workflows.export import Reference

        ids = [r.doc_id for r in matrix.rows]
        entries = self.reference_entries(ids, style)
        return [Reference(i + 1, d, t) for i, (d, t) in enumerate(zip(ids, entries, strict=True))]

    def matrix_text(
        self, matrix: Matrix, fmt: str, *, style: str | None = None, group_by: str | None = None
    ) -> str:
        """The matrix as Markdown ("md", grouped by a column or "year" with ``group_by``), CSV,
        TSV or HTML (the clipboard's two), with its reference list."""
        from .workflows import export
        from .workflows.matrix import Matrix, group_rows

        refs = self.matrix_references(matrix, style)
        if fmt == "csv":
            return export.matrix_csv(matrix, refs)
        if fmt == "tsv":
            return export.matrix_tsv(matrix, refs)
        if fmt == "html":
            return export.matrix_html(matrix, refs)
        if fmt != "md":
            raise InvalidInput(f"unknown matrix format {fmt!r} (md, csv, tsv or html)")
        if not group_by:
            return export.matrix_markdown(matrix, refs)
        out = []
        for name, rows in group_rows(matrix, group_by):
            sub = Matrix(matrix.id, matrix.title, matrix.policy, matrix.scope, matrix.columns, rows, matrix.cells)
            out.append(f"### {name} ({len(rows)})\n\n{export.matrix_markdown(sub, refs, with_references=False)}")
        if refs:
            out.append("## References\n\n" + "\n".join(f"[{r.n}] {r.text}" for r in refs) + "\n")
        return "\n".join(out)

    def export_matrix(self, matrix: Matrix, path: Path, *, style: str | None = None) -> Path:
        """Write the matrix to ``path`` as its suffix says: .xlsx, .csv or .md (also .markdown, .txt)."""
        from .workflows.export import matrix_xlsx

        suffix = path.suffix.lower()
        if suffix == ".xlsx":
            matrix_xlsx(matrix, self.matrix_references(matrix, style), path)
        elif suffix == ".csv":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.matrix_text(matrix, "csv", style=style), encoding="utf-8")
        elif suffix in (".md", ".markdown", ".txt"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(self.matrix_text(matrix, "md", style=style), encoding="utf-8")
        else:
            raise InvalidInput(f"{path.name}: export as .xlsx, .csv or .md")
        return path

    def saved_draft(self, draft_id: str) -> dict[str, Any]:
        """A saved draft's record (topic, template, language, scope …); NotFound-like errors from the store."""
        return self.workflows.draft(draft_id)

    def write_draft(
        self,
        topic: str,
        template: str | Template,
        scope: PaperSelection,
        *,
        language: str = "",
        policy: str | None = None,
        style: str | None = None,
        cancel: threading.Event | None = None,
        draft_id: str | None = None,
        **model: Any,
    ) -> Iterator[SectionProgress | Draft]:
        """The run that writes a draft (or the rest of ``draft_id``) section by section, yielding
        progress and last the ``Draft``. The template (a name, a path or a Template) and the
        model are read here (InvalidInput when they cannot be; the GUI calls this in its
        worker). References are in ``draft_style``."""
        from .workflows.draft import write_draft
        from .workflows.templates import Template, load_template

        tpl = template if isinstance(template, Template) else load_template(template)
        lang = language or tpl.language
        entries_style = self.draft_style(lang, style)
        writer = self.workflow_model(policy or None, **model)

        def references(ids: Sequence[int]) -> list[str]:
            return self.reference_entries(ids, entries_style)

        return write_draft(self.workflows, self.library, topic, tpl, scope, model=writer, language=lang,
                           references=references, cancel=cancel, draft_id=draft_id)  # fmt: skip

    def open_draft(self, draft_id: str) -> SavedDraft:
        """A saved draft as it was left, its references in the draft's style."""
        from .workflows.saved import open_draft

        style = self.draft_style(self.saved_draft(draft_id)["language"] or "en")
        return open_draft(self.workflows, draft_id, references=lambda ids: self.reference_entries(ids, style))

    def export_draft(self, draft: Draft, path: Path, *, appendix: bool = False) -> Path:
        """Write the draft to ``path`` as its suffix says: .docx or .md (also .markdown, .txt)."""
        from .workflows.export import draft_docx, draft_markdown

        suffix = path.suffix.lower()
        if suffix == ".docx":
            draft_docx(draft, path, appendix=appendix)
        elif suffix in (".md", ".markdown", ".txt"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(draft_markdown(draft, appendix=appendix), encoding="utf-8")
        else:
            raise InvalidInput(f"{path.name}: save the draft as .docx or .md")
        return path

    # --- the library pane's full-text filter -------------------------------------------------

    def has_vectors(self) -> bool:
        """Whether any passage is embedded, so that search by meaning works."""
        return self.library.has_vectors()

    def text_matches(self, text: str, mode: str | None = None) -> TextMatches:
        """The full-text filter: the documents matching ``text``, their passage counts and
        snippets. ``mode``: keyword, meaning or hybrid (None: hybrid once the library is
        embedded, else keyword), as ``paperpilot search --mode``. Raises InvalidInput for an
        unknown mode."""
        from .library.text_filter import text_matches

        return text_matches(self.library, text, mode)

    def warm_up_search(self) -> threading.Thread | None:
        """Load the embedding model and the vector index on a background thread when the
        library has vectors, so that the first search by meaning pays neither (the GUI calls
        this after its first paint). The thread, for a caller to wait on at exit; None when
        there is nothing to warm (no vectors, keyword only, or already done)."""
        semantic = self.library.semantic
        return semantic.warm_up() if semantic is not None else None


def open_library(paths: AppPaths, settings: Settings, *, allow_damaged: bool = False) -> Library:
    """The home's library, opened before a Session (the window offers a repair first when
    ``allow_damaged`` and ``library.damaged`` says why it needs one)."""
    return Library(paths, settings.imports, allow_damaged=allow_damaged)


def eval_library(home: Path) -> Library:
    """The library an evaluation pools its paragraphs into (one paragraph, one passage)."""
    from .evaluation.hotpotqa import EVAL_IMPORT

    return Library(app_paths(home), settings=EVAL_IMPORT)


def eval_table(report: EvalReport) -> str:
    """An evaluation's report as a Markdown table (one column per mode, one row per measure)."""
    from .evaluation.hotpotqa import format_table

    return format_table(report)


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


# --- the API key and the model connection (the Settings dialog's) ---------------------------------


def save_api_key(paths: AppPaths, key: str) -> Backend:
    """Keep ``key`` in the key store: the system keyring, else a file only the user can read.
    Raises KeyStoreError (one sentence, never the key)."""
    from .settings.keystore import save_api_key

    return save_api_key(paths, key)


def forget_api_key(paths: AppPaths) -> None:
    """Delete the stored key, wherever it is (KeyStoreError when it cannot be deleted)."""
    from .settings.keystore import delete_api_key

    delete_api_key(paths)


def has_api_key(paths: AppPaths) -> bool:
    from .settings.keystore import has_api_key

    return has_api_key(paths)


def api_key_location(paths: AppPaths) -> KeyLocation | None:
    """Where the stored key is (None: no key is stored)."""
    from .settings.keystore import key_location

    return key_location(paths)


def api_key_target(paths: AppPaths) -> KeyLocation:
    """Where a key saved now would go."""
    from .settings.keystore import storage_target

    return storage_target(paths)


def warm_up_key_store() -> threading.Thread:
    """Find the system keyring in a background thread (its first use can take a second)."""
    from .settings.keystore import warm_up

    return warm_up()


@dataclass
class ConnectionProbe:
    """What a test of a model connection found. ``outcome``: "ok" (the model answered, or a
    quick test found it listed), "listed" (no model named: the server lists ``models``),
    "no_models" (no model named, none listed), "failed" (``detail`` says why, in the client's
    words), "cancelled"."""

    outcome: Literal["ok", "listed", "no_models", "failed", "cancelled"]
    detail: str = ""
    models: list[str] = field(default_factory=list)


def probe_connection(
    base_url: str,
    model: str,
    api_key: str | None,
    timeout_s: float,
    *,
    quick: bool = False,
    cancel: threading.Event | None = None,
) -> ConnectionProbe:
    """Test a model connection: list the server's models, then (unless ``quick`` and the model
    is listed) send a short chat. ``cancel`` ends it within a fraction of a second. Other
    errors propagate (the caller words them)."""
    # Imported here: httpx takes a noticeable moment to import the first time.
    from .llm.client import LLMCancelled, LLMClient, LLMConfig, LLMError

    cancel = cancel if cancel is not None else threading.Event()
    # No retries: the user is waiting for a verdict, and a retry only delays the same answer.
    config = LLMConfig(
        base_url=base_url,
        model=model,
        api_key=api_key or None,
        timeout_s=timeout_s,
        connect_timeout_s=min(5.0, timeout_s),
        max_retries=0,
    )
    with LLMClient(config) as client:
        try:
            models: list[str] = []
            try:
                models = client.list_models(cancel=cancel)
            except LLMError as e:
                if cancel.is_set():
                    raise
                if "not found" not in str(e).lower():
                    return ConnectionProbe("failed", str(e))
            if not model:
                return ConnectionProbe("listed", models=models) if models else ConnectionProbe("no_models")
            ok, message = client.test_connection(cancel, chat=not quick)
            return ConnectionProbe("ok" if ok else "failed", message, models)
        except LLMCancelled:
            return ConnectionProbe("cancelled")


def lookup_identifier(
    kind: str,
    key: str,
    *,
    crossref_url: str | None = None,
    arxiv_url: str | None = None,
    timeout: float = 10.0,
) -> CslItem:
    """One online lookup, by DOI (``kind`` "doi", Crossref) or arXiv id: the metadata editor's
    Look up buttons (``Session.retrieve_metadata`` fills saved documents). None for a URL means
    the real service. Raises LookupFailed with a plain sentence for the user."""
    # Imported here: the first import of httpx takes a noticeable moment.
    from .citations.lookup import lookup_arxiv, lookup_doi

    kwargs: dict[str, Any] = {"timeout": timeout}
    if kind == "doi":
        if crossref_url:
            kwargs["base_url"] = crossref_url
        return lookup_doi(key, **kwargs)
    if arxiv_url:
        kwargs["base_url"] = arxiv_url
    return lookup_arxiv(key, **kwargs)


def close_quietly(obj: object) -> None:
    """Close a policy and its model client, whatever they are (an evaluation's or a run's)."""
    for part in (obj, getattr(obj, "client", None)):
        close = getattr(part, "close", None)
        if callable(close):
            with suppress(Exception):
                close()
