"""Fixtures for the GUI tests: a real library in the per-test home, and the main window."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import shiboken6
from PySide6.QtCore import QObject, QTimer, Slot
from PySide6.QtWidgets import QApplication

import paperpilot.ui  # noqa: F401 - applies the Qt work-arounds before any Qt call
from paperpilot.core.library import Library
from paperpilot.core.settings.config import EmbeddingSettings, Settings
from paperpilot.core.settings.paths import app_paths


@pytest.fixture(autouse=True)
def no_running_worker_threads(qapp: QApplication) -> Iterator[None]:
    """Fail a test that leaves a worker QThread running (the Python-thread check cannot see
    QThreads). A thread may take a moment to end after its worker reported."""
    from paperpilot.ui.workers import running_worker_threads

    yield
    deadline = time.monotonic() + 2.0
    while running_worker_threads() and time.monotonic() < deadline:
        QApplication.processEvents()
        time.sleep(0.01)
    left = [type(t.worker).__name__ for t in running_worker_threads()]
    assert not left, f"test left worker threads running: {left}"


@pytest.fixture
def library(paperpilot_home: Path) -> Iterator[Library]:
    lib = Library(app_paths())
    yield lib
    lib.close()


@pytest.fixture
def window(qapp: QApplication, library: Library) -> Iterator[object]:
    from paperpilot.ui.main_window import MainWindow

    # No embedding after the tests' imports (the real model would share the cores with what
    # they measure); tests/ui/test_embedding_ui.py turns it on.
    win = MainWindow(library, app_paths(), Settings(embedding=EmbeddingSettings(enabled=False)))
    win.show()
    yield win
    win.shutdown_workers()
    for viewer in list(win.library_pane.viewers.values()):
        if shiboken6.isValid(viewer):  # a closed tab's viewer is already gone
            viewer.close()
    win.close()
    win.deleteLater()
    QApplication.processEvents()


class LagMeter(QObject):
    """Measures how long the GUI event loop goes without running a 10 ms timer."""

    def __init__(self, interval_ms: int = 10) -> None:
        super().__init__()
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.on_timer_timeout)
        self.last = 0.0
        self.max_gap_ms = 0.0
        self.ticks = 0

    def start(self) -> None:
        self.last = time.perf_counter()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    @Slot()
    def on_timer_timeout(self) -> None:
        now = time.perf_counter()
        self.max_gap_ms = max(self.max_gap_ms, (now - self.last) * 1000)
        self.last = now
        self.ticks += 1


class SignalRecorder(QObject):
    """A GUI-thread receiver for worker signals (queued connections, bound methods only)."""

    def __init__(self) -> None:
        super().__init__()
        self.progress: list[tuple[int, int, str]] = []
        self.finished: list[object] = []

    @Slot(int, int, str)
    def on_worker_progress(self, index: int, total: int, path: str) -> None:
        self.progress.append((index, total, path))

    @Slot(object)
    def on_worker_finished(self, report: object) -> None:
        self.finished.append(report)


@pytest.fixture
def lag_meter(qapp: QApplication) -> Iterator[LagMeter]:
    meter = LagMeter()
    yield meter
    meter.stop()


@pytest.fixture
def import_recorder(monkeypatch: pytest.MonkeyPatch) -> SignalRecorder:
    """Records the progress and result signals of every import the main window starts."""
    import paperpilot.ui.main_window as main_window
    from paperpilot.ui.workers import ImportWorker

    recorder = SignalRecorder()

    class RecordingImportWorker(ImportWorker):
        def __init__(self, library: Library, paths: list[str], **kwargs: Any) -> None:
            super().__init__(library, paths, **kwargs)
            # Connected before the thread starts, so no signal can be missed.
            self.progress.connect(recorder.on_worker_progress)
            self.finished.connect(recorder.on_worker_finished)

    monkeypatch.setattr(main_window, "ImportWorker", RecordingImportWorker)
    return recorder
