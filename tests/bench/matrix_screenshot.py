"""Grab the literature matrix and the draft windows (offscreen) on the sample library, for the README.

    .venv/bin/python tests/bench/matrix_screenshot.py resources/screenshots [--lang zh] [--dark] [--size 1500x720]

writes matrix-window.png and draft-window.png there (with --lang/--dark: -zh / -dark in the names).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

import paperpilot.ui  # noqa: F401 - the Qt work-arounds
from paperpilot.core.library import Library
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths
from paperpilot.ui import i18n
from paperpilot.ui.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]


def _wait(until: Callable[[], bool], seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while not until() and time.monotonic() < deadline:
        QCoreApplication.processEvents()
        time.sleep(0.02)
    for _ in range(10):
        QCoreApplication.processEvents()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", nargs="?", default=".")
    ap.add_argument("--lang", default="en")
    ap.add_argument("--dark", action="store_true")
    ap.add_argument("--size", default="1500x720")
    args = ap.parse_args()
    w, h = (int(x) for x in args.size.split("x"))
    i18n.set_language(args.lang)
    app = QApplication(sys.argv[:1])
    app.setStyle("Fusion")
    i18n.install_qt_translations()
    if args.dark:
        from paperpilot.ui.theme import apply_theme

        apply_theme("dark")
    suffix = ("" if args.lang == "en" else f"-{args.lang}") + ("-dark" if args.dark else "")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    ok = True
    with tempfile.TemporaryDirectory() as home:
        paths = app_paths(home).ensure()
        lib = Library(paths)
        lib.import_paths([ROOT / "resources" / "sample"])
        win = MainWindow(lib, paths, Settings())
        mw = win.open_matrix_window([])
        mw.resize(w, h)
        _wait(lambda: mw.scope_row.count is not None)
        mw.new_matrix()
        _wait(lambda: mw.matrix is not None and not mw.busy)
        mw.saved.refresh()
        _wait(lambda: mw.saved.list.count() > 0 and not mw.saved.task.busy)
        mw.saved.select(mw.matrix.id if mw.matrix else None)
        mw.table.setColumnWidth(0, 200)
        mw.table.setColumnWidth(1, 50)
        for c in range(2, mw.model.columnCount()):
            mw.table.setColumnWidth(c, 190)
        mw.table.resizeRowsToContents()
        mw.table.clicked.emit(mw.proxy.index(0, 6))
        _wait(lambda: True)
        name = out / f"matrix-window{suffix}.png"
        ok = mw.grab().toImage().save(str(name), "PNG") and ok  # type: ignore[call-overload]
        print(("wrote " if ok else "could not write ") + str(name))
        mw.close()
        dw = win.open_draft_window([])
        dw.resize(w, h)
        dw.topic_edit.setText("urban birds and buildings: what the last ten years found")
        dw.template_box.setCurrentIndex(dw.template_box.findData("review-en"))
        dw.write_button.click()
        _wait(lambda: not dw.busy and dw.draft is not None)
        name = out / f"draft-window{suffix}.png"
        ok = dw.grab().toImage().save(str(name), "PNG") and ok  # type: ignore[call-overload]
        print(("wrote " if ok else "could not write ") + str(name))
        dw.close()
        win.shutdown_workers()
        win.close()
        lib.close()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
