"""No library write on the GUI thread: while another process holds the writer lock, saving a
note, saving metadata, removing documents and rebuilding the index wait in a worker, the window
keeps running its event loop and shows the operation as busy; the write lands once the lock
is free. The other process is real (a second interpreter holding ``Library.writing()``)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox
from pytestqt.qtbot import QtBot

from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths
from paperpilot.ui.metadata_dialog import MetadataDialog
from paperpilot.ui.notes_editor import NotesDialog
from tests.timing import bound

from .conftest import LagMeter

# A write blocked on the GUI thread stalls it for the whole wait (a second here, up to the
# 15 s lock timeout for a user); a worker keeps every gap far below this.
MAX_GAP_MS = bound(500)
HOLD_MS = 1000


@pytest.fixture
def holder(paperpilot_home: Path) -> Iterator[subprocess.Popen[str]]:
    """Another PaperPilot process inside a write, until a line arrives on its stdin."""
    script = textwrap.dedent(f"""
        import sys
        from paperpilot.core.library import Library
        from paperpilot.core.settings.paths import app_paths
        with Library(app_paths({str(paperpilot_home)!r})) as lib:
            with lib.writing():
                print("locked", flush=True)
                sys.stdin.readline()
    """)
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)


def hold(proc: subprocess.Popen[str]) -> None:
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"


def release(proc: subprocess.Popen[str]) -> None:
    assert proc.stdin is not None
    proc.stdin.write("\n")
    proc.stdin.flush()
    assert proc.wait(timeout=10) == 0


def papers(library: Library, tmp_path: Path) -> list[int]:
    folder = tmp_path / "in"
    folder.mkdir()
    for i, title in enumerate(("Kestrels on church towers", "Swifts under bridges"), 1):
        (folder / f"p{i}.md").write_text(f"# {title}\n\nField notes about {title.lower()} in the city.\n")
    report = library.import_paths([folder])
    assert len(report.imported) == 2
    return [d.doc_id for d in report.imported]


@pytest.mark.parametrize("operation", ["notes", "metadata", "remove", "reindex"])
def test_a_write_waiting_for_another_process_never_blocks_the_gui_thread(
    operation: str,
    window: Any,
    library: Library,
    qtbot: QtBot,
    lag_meter: LagMeter,
    holder: subprocess.Popen[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ids = papers(library, tmp_path)
    window.refresh_library()
    pane = window.library_pane
    hold(holder)
    busy: Callable[[], bool]
    landed: Callable[[], bool]
    shows_busy: Callable[[], bool]
    lag_meter.start()
    if operation == "notes":
        dlg = NotesDialog(library, ids[0], "Kestrels", window)
        qtbot.addWidget(dlg)
        dlg.editor.setPlainText("Count the nests again in May.")
        dlg.save()
        busy, shows_busy = dlg.is_saving, lambda: not dlg.buttons.isEnabled() and dlg.editor.isReadOnly()
        landed = lambda: library.get_note(ids[0]) == "Count the nests again in May."  # noqa: E731
    elif operation == "metadata":
        meta = MetadataDialog(library, ids[0])
        qtbot.addWidget(meta)
        meta.title_edit.setText("Kestrels on cathedral spires")
        meta.accept()
        busy, shows_busy = meta.is_saving, lambda: not meta.buttons.isEnabled()
        landed = lambda: [h.doc_id for h in library.search("cathedral spires", 1)] == [ids[0]]  # noqa: E731
    elif operation == "remove":
        monkeypatch.setattr(QMessageBox, "question", lambda *a: QMessageBox.StandardButton.Yes)
        pane.select_ids([ids[1]])
        pane.remove_selected()
        busy, shows_busy = pane.is_removing, lambda: not pane.table.isEnabled()
        landed = lambda: [d.doc_id for d in library.all_documents()] == [ids[0]]  # noqa: E731
    else:
        window.on_reindex_triggered()
        busy = lambda: window.reindex_thread is not None  # noqa: E731
        shows_busy = lambda: not window.reindex_action.isEnabled()  # noqa: E731
        landed = lambda: "Rebuilt the search index" in window.statusBar().currentMessage()  # noqa: E731
    qtbot.wait(HOLD_MS)  # the write waits for the other process's lock meanwhile
    lag_meter.stop()
    assert busy() and shows_busy() and not landed()
    assert lag_meter.ticks >= 20
    assert lag_meter.max_gap_ms < MAX_GAP_MS, f"the GUI thread stalled for {lag_meter.max_gap_ms:.0f} ms"
    release(holder)
    qtbot.waitUntil(lambda: not busy(), timeout=15_000)
    assert landed() and not shows_busy()
    with Library(app_paths()) as again:  # and another process sees it
        assert again.counts()[0] == (1 if operation == "remove" else 2)
