"""Grab the literature matrix window (offscreen) on the sample library, for the README.

    .venv/bin/python tests/bench/matrix_screenshot.py resources/screenshots/matrix-window.png
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

import paperpilot.ui  # noqa: F401 - the Qt work-arounds
from paperpilot.core.library import Library
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths
from paperpilot.ui.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[2]


def main(out: str) -> int:
    app = QApplication(sys.argv[:1])
    app.setStyle("Fusion")
    with tempfile.TemporaryDirectory() as home:
        paths = app_paths(home).ensure()
        lib = Library(paths)
        lib.import_paths([ROOT / "resources" / "sample"])
        win = MainWindow(lib, paths, Settings())
        mw = win.open_matrix_window([])
        deadline = time.monotonic() + 120
        while mw.thread is not None and time.monotonic() < deadline:
            QCoreApplication.processEvents()
            time.sleep(0.02)
        mw.resize(1500, 720)
        mw.table.setColumnWidth(0, 230)
        mw.table.setColumnWidth(1, 50)
        for c in range(2, mw.model.columnCount()):
            mw.table.setColumnWidth(c, 200)
        mw.table.resizeRowsToContents()
        mw.table.clicked.emit(mw.proxy.index(0, 6))
        for _ in range(10):
            QCoreApplication.processEvents()
        ok = mw.grab().toImage().save(out, "PNG")  # type: ignore[call-overload]
        mw.close()
        win.shutdown_workers()
        win.close()
        lib.close()
    print(("wrote " if ok else "could not write ") + out)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "matrix-window.png"))
