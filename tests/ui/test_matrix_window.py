"""The literature matrix window: fills off the GUI thread, a cell's evidence goes to the inspector."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from paperpilot.core.library import Library
from paperpilot.core.workflows import cells as cells_mod
from paperpilot.ui.matrix_window import MatrixModel, MatrixWindow

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"


def _wait_done(qtbot: Any, win: MatrixWindow) -> None:
    qtbot.waitUntil(lambda: win.thread is None, timeout=60_000)


def test_matrix_window_fills_in_a_worker_and_shows_evidence(
    qtbot: Any, window: Any, library: Library, monkeypatch: Any, tmp_path: Path
) -> None:
    library.import_paths([SAMPLE / "01-house-sparrow-decline.md", SAMPLE / "02-traffic-noise-great-tit-song.md"])
    window.refresh_library()
    gui = threading.main_thread()
    threads: set[bool] = set()
    real = cells_mod.run_agent
    monkeypatch.setattr(cells_mod, "run_agent",
                        lambda *a, **k: (threads.add(threading.current_thread() is gui), real(*a, **k))[1])  # fmt: skip
    win = window.open_matrix_window([])
    assert isinstance(win, MatrixWindow)
    _wait_done(qtbot, win)
    assert threads == {False}  # every cell ran off the GUI thread
    m = win.matrix
    assert m is not None and not m.pending() and win.model.rowCount() == 2
    assert win.progress.value() == win.progress.maximum() == 12
    # Click the sparrow paper's results cell: its evidence is in the inspector.
    results_col = 2 + [c.key for c in m.columns].index("results")
    row = next(i for i in range(win.proxy.rowCount()) if win.proxy.index(i, 0).data().startswith("House Sparrow"))
    idx = win.proxy.index(row, results_col)
    assert "412 breeding pairs" in idx.data()
    win.table.clicked.emit(idx)
    ev = window.inspector.selected_evidence()
    assert ev is not None and ev.page == 1 and "412" in ev.text
    # Filter and group.
    win.filter_edit.setText("great tit")
    assert win.proxy.rowCount() == 1
    win.filter_edit.setText("")
    win.group_box.setCurrentIndex(win.group_box.findData("year"))
    assert win.model.headerData(2, Qt.Orientation.Horizontal) == "Group"
    assert win.proxy.index(0, 2).data() == "2022"  # newest first
    # Copy as table: HTML and TSV on the clipboard, with the reference list.
    win.on_copy_button_clicked()
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.html().startswith("<table>") and "Varga" in mime.html()
    assert mime.text().splitlines()[0].startswith("Paper\tYear")
    out = tmp_path / "m.xlsx"
    win.export_to(out)
    assert out.stat().st_size > 0
    # Columns edited in the window: a renamed column keeps its cells, a new one runs alone.
    before = {k: v for k, v in m.cells.items() if k[1] == "results"}
    text = win.columns_text().replace("Main results=", "Findings=") + "\nDatasets=Which datasets were used?"
    win.apply_columns(text)
    _wait_done(qtbot, win)
    m = win.matrix
    assert m is not None and [c.name for c in m.columns][-2:] == ["Limitations", "Datasets"]
    assert {k: v for k, v in m.cells.items() if k[1] == "results"} == before
    assert sum(k[1] == "datasets" for k in m.cells) == 2 and not m.pending()
    # Reopened, it shows at once (no run).
    again = window.open_matrix_window(matrix_id=m.id)
    assert again.thread is None and again.model.rowCount() == 2
    again.close()
    win.close()


def test_matrix_model_passes_qtmodeltester(qtmodeltester: Any, window: Any, library: Library, qtbot: Any) -> None:
    library.import_paths([SAMPLE / "05-window-collisions.md"])
    win = window.open_matrix_window([])
    _wait_done(qtbot, win)
    model = MatrixModel()
    model.set_matrix(win.matrix)
    qtmodeltester.check(model)
    model.set_group_by("method")
    qtmodeltester.check(model)
    win.close()


def test_draft_window_writes_in_a_worker_and_saves(qtbot: Any, window: Any, library: Library, tmp_path: Path) -> None:
    library.import_paths([SAMPLE / "01-house-sparrow-decline.md", SAMPLE / "03-green-roofs-foraging.md"])
    win = window.open_draft_window([])
    win.topic_edit.setText("urban birds and buildings")
    win.template_box.setCurrentIndex(win.template_box.findData("review-en"))
    win.write_button.click()
    assert win.thread is not None
    qtbot.waitUntil(lambda: win.thread is None, timeout=60_000)
    assert win.draft is not None and win.draft.status == "done"
    shown = win.view.toPlainText()
    assert "Related work by theme" in shown and "References" in shown and "Varga" in shown
    assert win.save_button.isEnabled()
    out = tmp_path / "d.docx"
    win.save_to(out)
    from docx import Document

    assert "Background" in [p.text for p in Document(str(out)).paragraphs]
    win.close()
