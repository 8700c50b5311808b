"""The GUI thread keeps running its event loop while PDFs import in the background."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

from paperpilot.ui.application import freeze_startup_objects
from paperpilot.ui.workers import ImportWorker
from tests.fixtures.pdfs import make_paper_pdf
from tests.timing import bound

from .conftest import LagMeter, SignalRecorder
from .test_library_pane import drop_files, wait_import

MAX_STALL_MS = bound(100)


def make_distinct_pdfs(directory: Path, n: int) -> list[Path]:
    """``n`` copies of the fixture paper, each with its own trailing comment (no duplicates)."""
    data = make_paper_pdf(directory).read_bytes()
    out = []
    folder = directory / "pdfs"
    folder.mkdir()
    for i in range(n):
        p = folder / f"paper-{i:03d}.pdf"
        p.write_bytes(data + f"\n% copy {i}\n".encode())
        out.append(p)
    return out


def test_gui_thread_never_blocked_while_50_pdfs_import(
    window: Any, qtbot: Any, tmp_path: Path, lag_meter: LagMeter, import_recorder: SignalRecorder
) -> None:
    pdfs = make_distinct_pdfs(tmp_path, 50)
    qtbot.wait(50)  # let the window settle so its first layout is not counted as import lag
    # As run_gui does after start-up; otherwise the GUI thread pays for full collections over
    # every object the whole pytest session has created so far.
    gc.collect()
    freeze_startup_objects()
    try:
        lag_meter.start()
        drop_files(window, [pdfs[0].parent])
        assert isinstance(window.import_thread.worker, ImportWorker)
        wait_import(qtbot, window)
        lag_meter.stop()
    finally:
        gc.unfreeze()

    print(f"max event-loop stall during the import: {lag_meter.max_gap_ms:.0f} ms ({lag_meter.ticks} ticks)")
    report = window.last_report
    assert report is not None and len(report.imported) == 50 and not report.failed
    assert len(import_recorder.progress) == 50
    assert window.library_pane.model.rowCount() == 50
    # ~10 ms timer: a healthy event loop fires it many times during a multi-second import.
    assert lag_meter.ticks >= 20
    assert lag_meter.max_gap_ms < MAX_STALL_MS, f"the GUI thread stalled for {lag_meter.max_gap_ms:.0f} ms"
