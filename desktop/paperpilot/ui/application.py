"""Start the desktop application: QApplication, settings, library, main window — and the
headless ``--screenshot`` mode used for the README, tests and benchmarks."""

from __future__ import annotations

import argparse
import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QEvent, QEventLoop, QObject, QTimer, Slot
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from .. import __version__
from ..core.api import Library, LibraryBusy, LibraryError, app_paths, load_settings
from ..core.app import open_library, warm_up_key_store
from .i18n import install_qt_translations, set_language, tr
from .main_window import MainWindow
from .resources import app_icon
from .theme import apply_theme

SCREENSHOT_SIZE = (1400, 860)
VIEWER_SIZE = (900, 1000)
ASK_TIMEOUT_MS = 120_000
OPEN_TIMEOUT_MS = 20_000
BENCH_ENV = "PAPERPILOT_BENCH_STARTUP"
KEYRING_JOIN_S = 3.0


def freeze_startup_objects() -> None:
    """Move every object alive after start-up out of the garbage collector's sight.

    Modules, Qt wrappers and settings live for the whole session; without this each full
    collection walks all of them on the GUI thread, a pause of 50–100 ms that the user sees as
    a stutter (measured during imports). New objects are still collected as usual.
    """
    gc.freeze()


def parse_size(size: str | None) -> tuple[int, int]:
    """``"1200x800"`` → (1200, 800); None gives the default screenshot size."""
    if not size:
        return SCREENSHOT_SIZE
    try:
        w, h = (int(v) for v in size.lower().replace("×", "x").split("x"))
    except ValueError:
        raise ValueError(f"--size must look like 1200x800, not {size!r}") from None
    if not (200 <= w <= 10_000 and 150 <= h <= 10_000):
        raise ValueError(f"--size {size} is out of range (200x150 … 10000x10000)")
    return w, h


def _no_display() -> bool:
    """True on Linux without X11/Wayland and without an explicit QT_QPA_PLATFORM."""
    return (
        sys.platform.startswith("linux")
        and not os.environ.get("QT_QPA_PLATFORM")
        and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    )


def _say(message: str) -> None:
    print(f"paperpilot: {message}", file=sys.stderr)


def run_gui(
    home: str | None,
    screenshot: str | None = None,
    ask: str | None = None,
    size: str | None = None,
    mode: str = "auto",
    open_evidence: int | None = None,
) -> int:
    """Run the desktop app; returns the process exit code."""
    t0 = time.perf_counter()
    try:
        width, height = parse_size(size)
    except ValueError as e:
        _say(str(e))
        return 2
    if mode not in ("auto", "quick", "loop"):
        _say(f"unknown mode {mode!r} (auto, quick or loop)")
        return 2
    if open_evidence is not None and (screenshot is None or not ask):
        _say("--open-evidence needs --screenshot and --ask (it opens a passage the answer cites)")
        return 2
    if _no_display():
        if screenshot is None:
            # An invisible window that runs until killed helps nobody on a server or over ssh.
            _say(
                "no display found (DISPLAY/WAYLAND_DISPLAY unset); use a command such as "
                "`paperpilot ask`, or `paperpilot gui --screenshot FILE.png`"
            )
            return 1
        # Without a display Qt aborts the whole process while creating QApplication.
        os.environ["QT_QPA_PLATFORM"] = "offscreen"

    headless = screenshot is not None
    instance = QApplication.instance()
    app = instance if isinstance(instance, QApplication) else QApplication(sys.argv[:1])
    QCoreApplication.setApplicationName("PaperPilot")
    QCoreApplication.setOrganizationName("PaperPilot")
    QCoreApplication.setApplicationVersion(__version__)
    QApplication.setDesktopFileName("paperpilot")
    # Fusion follows the system's light/dark colour scheme in Qt 6 and looks the same everywhere.
    app.setStyle("Fusion")
    app.setWindowIcon(app_icon())

    paths = app_paths(home).ensure()
    settings, warning = load_settings(paths.settings_file)
    if warning:
        if headless:
            _say(warning)
        else:
            QMessageBox.warning(None, "PaperPilot", warning)
    set_language(settings.ui.ui_language)  # before any widget is built: widgets read tr() once
    install_qt_translations()  # Qt's own buttons and dialogs in the same language
    apply_theme(settings.ui.theme)
    try:
        library = open_library(paths, settings, allow_damaged=not headless)
        if library.damaged and not _repair_at_startup(library):
            library.close()
            return 1
    except (LibraryError, LibraryBusy) as e:
        if headless:
            _say(f"the library cannot be opened: {e}")
        else:
            QMessageBox.critical(None, "PaperPilot", tr("The library cannot be opened.") + f"\n\n{e}")
        return 1

    window = MainWindow(library, paths, settings)
    warm_ups: list[threading.Thread] = []
    try:
        if screenshot is not None:
            viewer_size = (width, height) if size else VIEWER_SIZE
            return _screenshot(window, Path(screenshot), (width, height), ask, mode, open_evidence, viewer_size)
        probe = _StartupProbe(window, t0) if os.environ.get(BENCH_ENV) else None
        # keyring takes ~0.5 s to load and find its backend: done off the GUI thread before
        # Settings or the first question need it, but after the first paint, as its imports
        # hold the interpreter lock for ~0.15 s and would delay the window by as much.
        after_first_paint(window, lambda: warm_ups.append(warm_up_key_store()))
        # The embedding model and the vector index likewise, so the first question does not load them.
        after_first_paint(window, lambda: warm_ups.extend(t for t in [window.session.warm_up_search()] if t))
        window.show()
        freeze_startup_objects()
        code = int(app.exec())
        del probe
        return code
    finally:
        window.shutdown_workers()
        library.close()
        for thread in warm_ups:
            # A quit right after start-up: let it finish rather than be torn down inside a
            # native call at exit, which aborts the process ("exception not rethrown").
            thread.join(KEYRING_JOIN_S)


def _repair_at_startup(library: Library) -> bool:
    """The database is missing or damaged: offer to rebuild it from the stored copies before
    the window opens (it cannot show a library without its database). True when repaired."""
    from .check_dialog import CheckDialog

    box = QMessageBox(QMessageBox.Icon.Warning, "PaperPilot", library.damaged)
    repair = box.addButton(tr("Repair"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    if box.clickedButton() is not repair:
        return False
    dialog = CheckDialog(library, None, repair_now=True)
    dialog.exec()
    return not library.damaged


def _process_events(rounds: int) -> None:
    for _ in range(rounds):
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)


def _screenshot(
    window: MainWindow,
    out: Path,
    size: tuple[int, int],
    ask: str | None,
    mode: str,
    open_evidence: int | None = None,
    viewer_size: tuple[int, int] = VIEWER_SIZE,
) -> int:
    window.resize(*size)
    window.show()
    _process_events(3)
    if ask:
        window.on_chat_ask_requested(ask, mode)
        if window.agent_thread is not None and not _AgentWaiter(window, ASK_TIMEOUT_MS).wait():
            _say(f"the question did not finish within {ASK_TIMEOUT_MS // 1000} s; saving the window as it is")
    # Let the answer and the inspector lay themselves out before grabbing.
    _process_events(5)
    target: QWidget = window
    if open_evidence is not None:
        viewer = _open_evidence(window, open_evidence, viewer_size)
        if viewer is not None and not getattr(viewer, "docked", False):
            target = viewer  # a viewer in a window of its own; docked, the window shows it
    image = target.grab().toImage()
    out.parent.mkdir(parents=True, exist_ok=True)
    code = 0
    if not image.save(str(out), "PNG"):  # type: ignore[call-overload]  # the stub says bytes; PySide wants str
        _say(f"could not write {out}")
        code = 1
    if target is not window:
        target.close()
        _process_events(2)
    # hide, not close: a headless screenshot must not overwrite the saved window geometry.
    window.shutdown_workers()
    window.hide()
    window.deleteLater()
    QCoreApplication.sendPostedEvents()
    return code


def _open_evidence(window: MainWindow, number: int, size: tuple[int, int]) -> QWidget | None:
    """Open the answer's evidence [number] at its source, as the inspector's button does, and
    wait until the viewer has marked the passage; None (and a message) when it cannot."""
    result = window.chat_pane.last_result()
    evidence = next((e for e in (result.evidence if result else []) if e.number == number), None)
    if evidence is None:
        _say(f"the answer has no evidence [{number}]; saving the main window instead")
        return None
    window.inspector.select_evidence(number)
    window.inspector.open_button.click()
    viewer = window.library_pane.viewers.get(evidence.doc_id)
    if viewer is None:
        _say(f"evidence [{number}] could not be opened; saving the main window instead")
        return None
    if not viewer.docked:
        viewer.resize(*size)
    _process_events(3)
    if not _wait_for(lambda: not viewer.is_locating(), OPEN_TIMEOUT_MS):
        _say("the passage was not located in time; saving the viewer as it is")
    # QtPdf renders pages in its own threads: wait until print shows up in the view.
    if not _wait_for(lambda: _has_print(viewer), OPEN_TIMEOUT_MS):
        _say("the page did not render in time; saving the viewer as it is")
    _process_events(5)
    return viewer


def _has_print(widget: QWidget) -> bool:
    image = widget.grab().toImage()
    step = 7
    for y in range(40, image.height(), step):
        for x in range(0, image.width(), step):
            if image.pixelColor(x, y).lightness() < 90:
                return True
    return False


def _wait_for(done: Callable[[], bool], timeout_ms: int) -> bool:
    deadline = time.perf_counter() + timeout_ms / 1000
    while not done():
        if time.perf_counter() > deadline:
            return False
        QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
        time.sleep(0.01)
    return True


class _AgentWaiter(QObject):
    """Runs a local event loop until the window's agent run has finished or the timeout hits."""

    def __init__(self, window: MainWindow, timeout_ms: int) -> None:
        super().__init__()
        self.window = window
        self.loop = QEventLoop(self)
        self.poll = QTimer(self)
        self.poll.setInterval(50)
        self.poll.timeout.connect(self.on_poll_timeout)
        self.deadline = QTimer(self)
        self.deadline.setSingleShot(True)
        self.deadline.setInterval(timeout_ms)
        self.deadline.timeout.connect(self.on_deadline_timeout)
        self.done = False

    @Slot()
    def on_poll_timeout(self) -> None:
        # MainWindow clears agent_thread once the result (or failure) has been shown.
        if self.window.agent_thread is None:
            self.done = True
            self.loop.quit()

    @Slot()
    def on_deadline_timeout(self) -> None:
        self.loop.quit()

    def wait(self) -> bool:
        self.poll.start()
        self.deadline.start()
        self.loop.exec()
        self.poll.stop()
        self.deadline.stop()
        return self.done


FIRST_PAINT_FALLBACK_MS = 3000


class _AfterFirstPaint(QObject):
    """Runs ``task`` once, from the event loop, after ``window`` has painted for the first time
    (or FIRST_PAINT_FALLBACK_MS after it was set up, should the window never paint)."""

    def __init__(self, window: QWidget, task: Callable[[], object]) -> None:
        super().__init__(window)
        self.window = window
        self.task = task
        self.done = False
        window.installEventFilter(self)
        QTimer.singleShot(FIRST_PAINT_FALLBACK_MS, self, self.run)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if obj is self.window and event.type() == QEvent.Type.Paint and not self.done:
            # After the paint, not inside it: the frame reaches the screen first.
            QTimer.singleShot(0, self, self.run)
        return False

    @Slot()
    def run(self) -> None:
        if self.done:
            return
        self.done = True
        self.window.removeEventFilter(self)
        self.task()


def after_first_paint(window: QWidget, task: Callable[[], object]) -> QObject:
    """Start-up work the first frame does not need: run it once the window is on screen."""
    return _AfterFirstPaint(window, task)


class _StartupProbe(QObject):
    """For the start-up benchmark: report the window's first paint, then close it."""

    def __init__(self, window: MainWindow, t0: float) -> None:
        super().__init__(window)
        self.window = window
        self.t0 = t0
        self.fired = False
        window.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if not self.fired and event.type() == QEvent.Type.Paint:
            self.fired = True
            # Wall-clock time, so the parent process can subtract its own launch timestamp.
            print(
                f"PAPERPILOT_FIRST_PAINT {time.time():.6f} in_process {time.perf_counter() - self.t0:.3f}",
                flush=True,
            )
            QTimer.singleShot(0, self.window.close)
        return False


def main_gui_entry(args: argparse.Namespace | None = None) -> int:
    """The ``paperpilot gui`` command (and plain ``paperpilot``): CLI arguments → run_gui."""
    if args is None:
        return run_gui(None)
    extra: dict[str, int] = {}
    if getattr(args, "open_evidence", None) is not None:
        extra["open_evidence"] = args.open_evidence
    return run_gui(
        getattr(args, "home", None),
        screenshot=getattr(args, "screenshot", None),
        ask=getattr(args, "ask", None),
        size=getattr(args, "size", None),
        mode=getattr(args, "mode", None) or "auto",
        **extra,
    )
