"""Help ▸ Check Library…, the import summary's unsupported files, and the extraction workers
when the window closes in the middle of an import."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from paperpilot.core.library import Library
from paperpilot.core.library import importer as importer_module
from tests.unit.safety_helpers import alive, make_folder

TIMEOUT_MS = 30_000


def test_check_library_reports_in_a_worker_and_repairs(window: Any, library: Library, qtbot: Any, tmp_path: Path) -> None:
    library.import_paths([make_folder(tmp_path / "papers", 1, 2)])
    window.refresh_library()
    gone = next(d for d in library.list_documents() if d.file_name == "t001.txt")
    with sqlite3.connect(library.paths.database) as c:  # the row is lost; the stored copy stays
        c.execute("PRAGMA foreign_keys=ON")
        c.execute("DELETE FROM documents WHERE id=?", (gone.doc_id,))
    library.reindex()
    window.check_library_action.trigger()
    dialog = window.check_dialog
    assert dialog is not None and dialog.isVisible()
    # The check runs in its own thread; the window stays responsive meanwhile.
    qtbot.waitUntil(lambda: dialog.worker_thread is None, timeout=TIMEOUT_MS)
    assert "a stored file no document refers to" in dialog.text.toPlainText()
    assert dialog.repair_button.isEnabled()
    dialog.repair_button.click()
    qtbot.waitUntil(lambda: dialog.worker_thread is None, timeout=TIMEOUT_MS)
    text = dialog.text.toPlainText()
    assert "No problems found." in text and "re-imported" in text
    assert not dialog.repair_button.isEnabled()
    assert window.library_pane.model.row_of(gone.doc_id) is not None  # the pane was refreshed
    dialog.reject()
    qtbot.waitUntil(lambda: window.check_dialog is None, timeout=TIMEOUT_MS)


def test_a_folder_import_names_its_unsupported_files(window: Any, qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.txt").write_text("Kestrels nest on church towers in spring. " * 8)
    (folder / "b.docx").write_bytes(b"PK\x03\x04")
    (folder / "settings.json").write_text("{}")
    (folder / "NOTES").write_text("no extension")
    window.start_import([str(folder)])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=TIMEOUT_MS)
    assert "Imported 1" in window.task_label.text() and "3 unsupported" in window.task_label.text()
    assert window.failures_button.isVisible()
    assert [Path(p).name for p, _why in window.last_report.unsupported] == ["NOTES", "b.docx", "settings.json"]


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="PDF extraction uses worker processes only with 2+ cores")
def test_closing_the_window_mid_import_ends_the_extraction_workers(
    window: Any, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids: list[int] = []
    real_init = importer_module.ExtractionPool.__init__

    def init(pool: importer_module.ExtractionPool, workers: int) -> None:
        real_init(pool, workers)
        pids.extend(pool.pids())

    monkeypatch.setattr(importer_module.ExtractionPool, "__init__", init)
    window.start_import([str(make_folder(tmp_path / "papers", 40, 0))])
    qtbot.waitUntil(lambda: bool(pids), timeout=TIMEOUT_MS)
    assert all(alive(p) for p in pids)
    window.shutdown_workers()  # what closing the window does
    assert window.import_thread is None
    assert [p for p in pids if alive(p)] == []


def test_the_start_up_repair_rebuilds_a_library_whose_database_is_gone(qapp: Any, qtbot: Any, tmp_path: Path) -> None:
    """What the app shows when the database is missing: the check dialog, repairing at once."""
    from paperpilot.core.settings.paths import app_paths
    from paperpilot.ui.check_dialog import CheckDialog

    with Library(app_paths()) as lib:
        lib.import_paths([make_folder(tmp_path / "papers", 1, 2)])
    app_paths().database.unlink()
    damaged = Library(app_paths(), allow_damaged=True)
    try:
        assert "3 stored files are kept" in damaged.damaged
        dialog = CheckDialog(damaged, None, repair_now=True)
        qtbot.waitUntil(lambda: dialog.worker_thread is None, timeout=TIMEOUT_MS)
        assert damaged.damaged == "" and len(damaged.list_documents()) == 3
        assert "No problems found." in dialog.text.toPlainText()
        dialog.reject()
        dialog.deleteLater()
    finally:
        damaged.close()
