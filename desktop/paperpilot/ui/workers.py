"""Background work for the GUI: import and agent runs in QThreads, results back by signals.

Each long operation is a QObject worker moved to its own QThread. Results reach the GUI thread
through signals connected to bound methods of GUI-thread objects (queued connections); the
workers never touch a widget. Cancellation is a threading.Event checked between steps and, by
the model client, while a request waits on the network.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot

from ..core.agent.events import Evidence, Warning
from ..core.agent.followup import rewrite_followup
from ..core.agent.loop import AgentOptions, run_agent
from ..core.agent.state import Policy
from ..core.library import ImportProgress, Library, LibraryBusy
from ..core.memory.conversations import ConversationStore
from ..core.memory.profile import ResearchProfile, expansion_terms

# The code of the Info event the agent loop yields for a rewritten follow-up (its data has
# "original" and "standalone"); the chat shows it as "Understood as: …".
FOLLOWUP_INFO_CODE = "followup"


class ImportWorker(QObject):
    progress = Signal(int, int, str)  # file n (1-based), total, path
    finished = Signal(object)  # ImportReport
    failed = Signal(str)

    def __init__(self, library: Library, paths: list[str]) -> None:
        super().__init__()
        self.library = library
        self.paths = paths
        self.cancel = threading.Event()

    @Slot()
    def run(self) -> None:
        def on_progress(p: ImportProgress) -> None:
            self.progress.emit(p.index, p.total, p.path)

        try:
            report = self.library.import_paths(self.paths, progress=on_progress, cancel=self.cancel)
        except LibraryBusy as e:
            self.failed.emit(str(e))
            return
        except Exception as e:  # never let a worker die silently: the user gets a message
            self.failed.emit(f"Import failed: {type(e).__name__}: {e}")
            return
        self.finished.emit(report)


class AgentWorker(QObject):
    """One agent run; with ``history`` (a conversation's earlier turns) a follow-up question is
    first rewritten into a standalone one, here in the worker because it may call the model."""

    event = Signal(object)  # one trace event (pydantic model)
    saved = Signal(str, str)  # conversation id, error ("" when the turn was kept)
    finished = Signal(object)  # Result
    failed = Signal(str)

    def __init__(
        self,
        library: Library,
        policy: Policy,
        question: str,
        options: AgentOptions,
        history: Sequence[Any] | None = None,
        profile: ResearchProfile | None = None,
        conversations: ConversationStore | None = None,
        conversation_id: str | None = None,
    ) -> None:
        super().__init__()
        # Saving the turn (JSON of every event, a SQLite commit) happens here, not on the GUI
        # thread, where it showed up as a 100 ms stall at the end of a run.
        self.conversations = conversations
        self.conversation_id = conversation_id
        self.library = library
        self.policy = policy
        self.question = question
        self.options = options
        self.history = list(history or [])
        self.profile = profile
        self.standalone = question  # what the agent was asked, after any rewrite
        self.cancel = threading.Event()

    def request_stop(self) -> None:
        """Called from the GUI thread: the run ends ``cancelled`` within a fraction of a second.

        The loop checks the flag between steps, and the model client checks it while it waits
        on the network (a hung server included); the loop then reports what was read.
        """
        self.cancel.set()

    def _prepare(self) -> str:
        """Rewrite a follow-up and add the profile's terms; returns the question to research."""
        question = self.question
        if self.history:
            client = getattr(self.policy, "client", None)
            kind = "llm" if client is not None else "offline"
            try:
                rewrite = rewrite_followup(question, self.history, kind, llm_client=client, cancel=self.cancel)
            except Exception as e:
                # A failed rewrite must not cost the answer: research the question as typed.
                self.event.emit(Warning(code="followup", message=f"Could not rewrite the follow-up: {e}"))
            else:
                if not rewrite.is_followup:
                    return self._with_profile(question)  # a new subject: research it as typed
                question = rewrite.standalone or question
                reused = self._reused_evidence(rewrite.reused_evidence)
                if reused:
                    self.options.prior_evidence = reused
                # The loop reports the rewrite in the trace (an Info with FOLLOWUP_INFO_CODE).
                self.options.rewritten_from = self.question
        return self._with_profile(question)

    def _with_profile(self, question: str) -> str:
        if self.profile is not None:
            self.options.profile_terms = expansion_terms(self.profile, question)
        self.standalone = question
        return question

    def _reused_evidence(self, reused: Any) -> list[Evidence]:
        """The evidence to carry over: the rewrite gives a list, or a flag meaning "the last turn's"."""
        if isinstance(reused, list):
            return [e for e in reused if isinstance(e, Evidence)]
        if reused and self.history:
            last = getattr(self.history[-1], "result", None)
            return list(getattr(last, "evidence", None) or [])
        return []

    @Slot()
    def run(self) -> None:
        result: Any = None
        events: list[Any] = []
        try:
            question = self._prepare()
            for ev in run_agent(question, self.library, self.policy, self.options, self.cancel):
                events.append(ev)
                self.event.emit(ev)
                if ev.type == "finished":
                    result = ev.result
        except Exception as e:
            self.failed.emit(f"The agent failed: {type(e).__name__}: {e}")
            return
        if result is not None and self.conversations is not None:
            self._save(result, events)
        self.finished.emit(result)

    def _save(self, result: Any, events: list[Any]) -> None:
        try:
            if self.conversation_id is None:
                # Untitled: the store titles a conversation with its first question.
                self.conversation_id = self.conversations.create().id  # type: ignore[union-attr]
            self.conversations.add_turn(  # type: ignore[union-attr]
                self.conversation_id, self.question, self.standalone, result, events
            )
        except Exception as e:  # the answer is on screen either way; say it was not kept
            self.saved.emit(self.conversation_id or "", str(e) or type(e).__name__)
            return
        self.saved.emit(self.conversation_id, "")


class WorkerThread(QThread):
    """A QThread that owns one worker and runs its ``run`` slot once."""

    def __init__(self, worker: QObject, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker = worker
        worker.moveToThread(self)
        self.started.connect(worker.run)  # type: ignore[attr-defined]
        _all_threads.add(self)

    def stop(self, timeout_ms: int = 5000) -> bool:
        """Ask the worker to stop, then wait for the thread; True when it ended in time."""
        cancel = getattr(self.worker, "cancel", None)
        if isinstance(cancel, threading.Event):
            cancel.set()
        self.requestInterruption()
        self.quit()
        return self.wait(timeout_ms)


# Every WorkerThread made, so the test suite can check that none is left running.
_all_threads: weakref.WeakSet[WorkerThread] = weakref.WeakSet()


def running_worker_threads() -> list[WorkerThread]:
    """The worker threads still running (deleted ones have ended: Qt aborts on deleting a running one)."""
    out = []
    for t in list(_all_threads):
        try:
            if t.isRunning():
                out.append(t)
        except RuntimeError:
            continue
    return out


class _ThreadReaper(QObject):
    """Owns worker threads whose dialog closed while they were still blocked in the network
    (a lookup, a connection test) until they end: a QThread destroyed while running aborts
    the process, and waiting for it would freeze the dialog's close."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: set[WorkerThread] = set()

    def adopt(self, thread: WorkerThread) -> None:
        thread.setParent(None)
        self.threads.add(thread)
        thread.finished.connect(self.on_thread_finished)
        app = QCoreApplication.instance()
        if app is not None and len(self.threads) == 1:
            app.aboutToQuit.connect(self.on_app_about_to_quit, Qt.ConnectionType.UniqueConnection)
        # It may have ended before the connection existed.
        self.on_thread_finished()

    @Slot()
    def on_thread_finished(self) -> None:
        for t in [t for t in self.threads if t.isFinished()]:
            self.threads.discard(t)
            t.deleteLater()

    @Slot()
    def on_app_about_to_quit(self) -> None:
        self.wait_all(LINGER_WAIT_MS)

    def wait_all(self, timeout_ms: int) -> None:
        for t in list(self.threads):
            t.wait(timeout_ms)
        self.on_thread_finished()


# Long enough for a network request to hit its own timeout (lookups 10 s, connection tests 20 s).
LINGER_WAIT_MS = 22_000
_reaper: _ThreadReaper | None = None


def adopt_lingering_thread(thread: WorkerThread) -> None:
    """Keep ``thread`` alive after its owner closed, until it finishes on its own."""
    global _reaper
    if _reaper is None:
        _reaper = _ThreadReaper()
    _reaper.adopt(thread)


def wait_lingering_threads(timeout_ms: int = LINGER_WAIT_MS) -> None:
    """Wait for adopted threads (the main window calls this when it shuts down)."""
    if _reaper is not None:
        _reaper.wait_all(timeout_ms)
