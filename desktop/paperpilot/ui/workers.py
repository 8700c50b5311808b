"""Background work for the GUI: one worker abstraction, one way to cancel, one reaper.

* ``FunctionWorker(fn, *args)``: one call off the GUI thread (an import, a library write, a
  lookup, a connection test); ``finished(result)`` or ``failed(message)``.
* ``GeneratorWorker(iterable)``: iterates a generator off the GUI thread (an agent run:
  ``Session.ask``); ``item(each value)``, then ``finished(the iterable)`` or ``failed(message)``.
* Cancellation: every worker has a ``cancel`` event; ``WorkerThread.stop`` sets it, and the
  work checks it between steps (the model client also while it waits on the network).
* ``BackgroundTask``: a window's one job at a time (a call or a generator) with its callbacks;
  the matrix and draft windows run creating, loading and filling through it.
* ``adopt_lingering_thread``: the one reaper, for a thread whose owner closed while it was
  still blocked (a QThread destroyed while running aborts the process).

Workers never touch a widget: results reach the GUI thread by signals connected to bound
methods of GUI-thread objects (queued connections). ``error_message`` is the GUI's one place
that turns an exception into the sentence shown.
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Qt, QThread, Signal, Slot

from ..core.api import ImportProgress
from ..core.app import Session
from ..core.errors import PaperPilotError
from .i18n import said

# The code of the Info event the agent loop yields for a rewritten follow-up (its data has
# "original" and "standalone"); the chat shows it as "Understood as: …".
FOLLOWUP_INFO_CODE = "followup"


def error_message(e: BaseException, doing: str = "") -> str:
    """The sentence the GUI shows for ``e``: our own errors as they are, a file system error as
    its path and reason, anything else (a bug) with its type so it can be reported."""
    if isinstance(e, PaperPilotError):
        return said(e.msg) if e.msg is not None else str(e)
    if isinstance(e, OSError) and e.strerror:
        return f"{e.filename}: {e.strerror}" if e.filename else e.strerror
    prefix = f"{doing} failed: " if doing else ""
    return f"{prefix}{type(e).__name__}: {e}"


def _end_own_thread(worker: QObject) -> None:
    """A worker runs once: end its thread's event loop from inside, so the thread finishes even
    when nobody is left to stop it (its window closed and the reaper adopted it)."""
    thread = worker.thread()
    if thread is not None:
        thread.quit()


class FunctionWorker(QObject):
    """Calls ``fn(*args, **kwargs)`` once in the worker thread.

    ``pass_cancel``: ``fn`` also gets ``cancel=`` this worker's event (stop checks it);
    ``pass_progress``: ``fn`` also gets ``progress=`` a callable whose values arrive as the
    ``progress`` signal.
    """

    progress = Signal(object)
    finished = Signal(object)  # what fn returned
    failed = Signal(str)  # error_message of what it raised

    def __init__(
        self,
        fn: Callable[..., Any],
        *args: Any,
        doing: str = "",
        pass_cancel: bool = False,
        pass_progress: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__()
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.doing = doing
        self.cancel = threading.Event()
        if pass_cancel:
            self.kwargs["cancel"] = self.cancel
        if pass_progress:
            self.kwargs["progress"] = self.progress.emit

    @Slot()
    def run(self) -> None:
        try:
            result = self.fn(*self.args, **self.kwargs)
        except Exception as e:  # never let a worker die silently: the user gets a message
            self.failed.emit(error_message(e, self.doing))
        else:
            self.finished.emit(result)
        finally:
            _end_own_thread(self)


class GeneratorWorker(QObject):
    """Iterates ``iterable`` in the worker thread, emitting each value as it comes."""

    item = Signal(object)
    finished = Signal(object)  # the iterable itself (a run keeps its outcome on it)
    failed = Signal(str)

    def __init__(self, iterable: Iterable[Any], *, doing: str = "", cancel: threading.Event | None = None) -> None:
        super().__init__()
        self.iterable = iterable
        self.doing = doing
        self.cancel = cancel if cancel is not None else threading.Event()

    def request_stop(self) -> None:
        """Called from the GUI thread: the run ends ``cancelled`` within a fraction of a second."""
        self.cancel.set()

    @Slot()
    def run(self) -> None:
        try:
            for value in self.iterable:
                self.item.emit(value)
        except Exception as e:
            self.failed.emit(error_message(e, self.doing))
        else:
            self.finished.emit(self.iterable)
        finally:
            _end_own_thread(self)


class ImportWorker(FunctionWorker):
    """An import of files and folders, with one progress signal per file.

    ``then``: more work for this thread once the import is done (the library pane's read of
    the library as it now is); its result arrives as ``prepared``, before ``finished``.
    """

    progress = Signal(int, int, str)  # file n (1-based), total, path
    step = Signal(str)  # a step within the current file: "OCR page 3 of 12"
    prepared = Signal(object)  # what ``then`` returned

    def __init__(self, session: Session, paths: list[str], then: Callable[[], Any] | None = None) -> None:
        super().__init__(self._import, doing="Import")
        self.session = session
        self.paths = paths
        self.then = then

    def _import(self) -> Any:
        def on_progress(p: ImportProgress) -> None:
            if p.detail:
                self.step.emit(said(p.detail_msg) if p.detail_msg is not None else p.detail)
            else:
                self.progress.emit(p.index, p.total, p.path)

        report = self.session.import_paths(self.paths, progress=on_progress, cancel=self.cancel)
        if self.then is not None:
            try:
                self.prepared.emit(self.then())
            except Exception:  # the window then reads the library itself (on_import_finished)
                logging.getLogger(__name__).exception("preparing the view after an import failed")
        return report


class EmbedWorker(FunctionWorker):
    """Embeds the library's passages that have no vector yet, at low priority, after an import
    (search by meaning uses what is embedded; keyword search finds the rest meanwhile)."""

    progress = Signal(int, int)  # passages embedded, passages to embed

    def __init__(self, session: Session) -> None:
        super().__init__(self._embed, doing="Embedding")
        self.session = session

    def _embed(self) -> Any:
        return self.session.embed_library(progress=self.progress.emit, cancel=self.cancel, low_priority=True)


class WorkerThread(QThread):
    """A QThread that owns one worker and runs its ``run`` slot once."""

    def __init__(self, worker: QObject, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker = worker
        worker.moveToThread(self)
        self.started.connect(worker.run)  # type: ignore[attr-defined]
        _all_threads.add(self)

    def finish(self) -> None:
        """Its worker has reported: the thread ends at once; wait for that, then let Qt delete it."""
        self.stop(2000)
        self.deleteLater()

    def stop(self, timeout_ms: int = 5000) -> bool:
        """Ask the worker to stop, then wait for the thread; True when it ended in time."""
        cancel = getattr(self.worker, "cancel", None)
        if isinstance(cancel, threading.Event):
            cancel.set()
        self.requestInterruption()
        self.quit()
        return self.wait(timeout_ms)


class BackgroundTask(QObject):
    """A window's background work, one job at a time: ``call(fn, …)`` or ``iterate(generator)``.

    The callbacks (bound methods of the window) run on the GUI thread: ``item`` for each value a
    generator yields, then ``done`` with the result (or the iterable) or ``failed`` with the
    message. ``stop`` asks the job to end; ``shutdown`` (the window closes) also forgets the
    callbacks and leaves a job that does not end at once to the reaper.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker_thread: WorkerThread | None = None
        self._item: Callable[[Any], None] | None = None
        self._done: Callable[[Any], None] | None = None
        self._failed: Callable[[str], None] | None = None

    @property
    def busy(self) -> bool:
        return self.worker_thread is not None

    def _start(self, worker: FunctionWorker | GeneratorWorker, item: Callable[[Any], None] | None,
               done: Callable[[Any], None] | None, failed: Callable[[str], None] | None) -> bool:  # fmt: skip
        if self.worker_thread is not None:
            return False
        self._item, self._done, self._failed = item, done, failed
        if isinstance(worker, GeneratorWorker):
            worker.item.connect(self.on_worker_item)
        worker.finished.connect(self.on_worker_finished)
        worker.failed.connect(self.on_worker_failed)
        self.worker_thread = WorkerThread(worker, self)
        self.worker_thread.start()
        return True

    def call(self, fn: Callable[..., Any], *args: Any, done: Callable[[Any], None] | None = None,
             failed: Callable[[str], None] | None = None, doing: str = "", **kwargs: Any) -> bool:  # fmt: skip
        """Run ``fn(*args, **kwargs)`` off the GUI thread; False when a job is already running."""
        return self._start(FunctionWorker(fn, *args, doing=doing, **kwargs), None, done, failed)

    def iterate(self, iterable: Iterable[Any], *, cancel: threading.Event | None = None,
                item: Callable[[Any], None] | None = None, done: Callable[[Any], None] | None = None,
                failed: Callable[[str], None] | None = None, doing: str = "") -> bool:  # fmt: skip
        """Iterate ``iterable`` off the GUI thread (``cancel`` is the event it checks); False when busy."""
        return self._start(GeneratorWorker(iterable, doing=doing, cancel=cancel), item, done, failed)

    def stop(self) -> None:
        """Ask the running job to end (a generator checks its cancel event between steps)."""
        if self.worker_thread is not None:
            cancel = getattr(self.worker_thread.worker, "cancel", None)
            if isinstance(cancel, threading.Event):
                cancel.set()

    def shutdown(self, wait_ms: int = 3000) -> None:
        self._item = self._done = self._failed = None
        thread, self.worker_thread = self.worker_thread, None
        if thread is not None and not thread.stop(wait_ms):
            adopt_lingering_thread(thread)

    def _end(self) -> None:
        thread, self.worker_thread = self.worker_thread, None
        if thread is not None:
            thread.finish()

    @Slot(object)
    def on_worker_item(self, value: Any) -> None:
        if self._item is not None:
            self._item(value)

    @Slot(object)
    def on_worker_finished(self, value: Any) -> None:
        done = self._done
        self._end()  # before the callback, which may start the next job
        if done is not None:
            done(value)

    @Slot(str)
    def on_worker_failed(self, message: str) -> None:
        failed = self._failed
        self._end()
        if failed is not None:
            failed(message)


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
