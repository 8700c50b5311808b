"""Background work for the GUI: import and agent runs in QThreads, results back by signals.

Each long operation is a QObject worker moved to its own QThread. Results reach the GUI thread
through signals connected to bound methods of GUI-thread objects (queued connections); the
workers never touch a widget. Cancellation is a threading.Event checked between steps.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

from PySide6.QtCore import QObject, QThread, Signal, Slot

from ..core.agent.loop import AgentOptions, run_agent
from ..core.agent.state import Policy
from ..core.library import ImportProgress, Library, LibraryBusy


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
    event = Signal(object)  # one trace event (pydantic model)
    finished = Signal(object)  # Result
    failed = Signal(str)

    def __init__(self, library: Library, policy: Policy, question: str, options: AgentOptions) -> None:
        super().__init__()
        self.library = library
        self.policy = policy
        self.question = question
        self.options = options
        self.cancel = threading.Event()

    def request_stop(self) -> None:
        """Called from the GUI thread: stop between steps, and cut a model request short.

        A synchronous HTTP request cannot be interrupted from inside; closing the policy's
        client aborts it, the policy reports a failure and the loop, seeing the cancel flag,
        ends the run as cancelled. The policy is built per question, so nothing reuses it.
        """
        self.cancel.set()
        client = getattr(self.policy, "client", None)
        close = getattr(client, "close", None)
        if callable(close):
            # Best effort: the cancel flag alone still stops the loop at the next step.
            with contextlib.suppress(Exception):
                close()

    @Slot()
    def run(self) -> None:
        result: Any = None
        try:
            for ev in run_agent(self.question, self.library, self.policy, self.options, self.cancel):
                self.event.emit(ev)
                if ev.type == "finished":
                    result = ev.result
        except Exception as e:
            self.failed.emit(f"The agent failed: {type(e).__name__}: {e}")
            return
        self.finished.emit(result)


class WorkerThread(QThread):
    """A QThread that owns one worker and runs its ``run`` slot once."""

    def __init__(self, worker: QObject, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.worker = worker
        worker.moveToThread(self)
        self.started.connect(worker.run)  # type: ignore[attr-defined]

    def stop(self, timeout_ms: int = 5000) -> bool:
        """Ask the worker to stop, then wait for the thread; True when it ended in time."""
        cancel = getattr(self.worker, "cancel", None)
        if isinstance(cancel, threading.Event):
            cancel.set()
        self.requestInterruption()
        self.quit()
        return self.wait(timeout_ms)
