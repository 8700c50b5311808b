"""The library table after an import or an organizing write: the worker that changed the
library also reads it for the table (a LibrarySnapshot), so the GUI thread reads no document
and builds no row; the rows still come out sorted and filtered as the table is, with their
tips, and a sort changed meanwhile is redone. Start-up leaves out what the first window does
not need (the document viewer's QtPdf) and starts the keyring warm-up after the first paint."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget

from paperpilot.core.library import Library
from paperpilot.ui.library_model import Column
from paperpilot.ui.library_pane import LibraryPane

from .test_library_organize import wait_write
from .test_library_pane import wait_import

ROOT = Path(__file__).resolve().parents[2]


def write_reports(directory: Path, years: list[int], bird: str = "Heron") -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for year in years:
        p = directory / f"report-{bird.lower()}-{year}.md"
        p.write_text(
            f"# {bird} census of {year}\n\nVolunteers counted {year % 97} {bird.lower()} nests in the alders in {year}. "
            "The colony moved upstream after the floods.\n",
            encoding="utf-8",
        )
        out.append(p)
    return out


def shown_titles(pane: LibraryPane) -> list[str]:
    return [str(pane.proxy.index(r, Column.TITLE).data()) for r in range(pane.proxy.rowCount())]


def gui_thread_reads(library: Library, monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Records, for every read of all documents, whether it ran on the GUI thread."""
    calls: list[bool] = []
    real = library.all_documents

    def recording() -> Any:
        calls.append(threading.current_thread() is threading.main_thread())
        return real()

    monkeypatch.setattr(library, "all_documents", recording)
    return calls


def test_an_import_shows_its_rows_sorted_filtered_and_with_tips_read_off_the_gui_thread(
    window: Any, library: Library, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.import_paths(write_reports(tmp_path / "old", [2001, 2009]) + write_reports(tmp_path / "old", [2005], "Egret"))
    window.refresh_library()
    pane = window.library_pane
    pane.table.sortByColumn(Column.TITLE, Qt.SortOrder.DescendingOrder)
    pane.filter_edit.setText("heron")
    assert shown_titles(pane) == ["Heron census of 2009", "Heron census of 2001"]
    reads = gui_thread_reads(library, monkeypatch)

    new = write_reports(tmp_path / "new", [2003, 2011]) + write_reports(tmp_path / "new", [2007, 2015], "Egret")
    window.start_import([str(p) for p in new])
    wait_import(qtbot, window)

    assert reads and not any(reads), "the GUI thread read the library after the import"
    assert shown_titles(pane) == [f"Heron census of {y}" for y in (2011, 2009, 2003, 2001)]
    assert pane.model.total() == 7
    assert "4 of 7" in pane.count_label.text()
    assert window.docs_label.text().startswith("7 documents")
    tip = str(pane.proxy.index(0, Column.TITLE).data(Qt.ItemDataRole.ToolTipRole))
    assert "Heron census of 2011" in tip and "report-heron-2011.md" in tip
    pane.filter_edit.clear()
    assert shown_titles(pane)[:3] == ["Heron census of 2011", "Heron census of 2009", "Heron census of 2003"]
    assert len(shown_titles(pane)) == 7


def test_a_sort_changed_while_the_library_was_read_is_redone_on_showing(
    window: Any, library: Library, tmp_path: Path
) -> None:
    library.import_paths(write_reports(tmp_path / "in", [2010, 2002, 2006]))
    window.refresh_library()
    pane = window.library_pane
    pane.table.sortByColumn(Column.TITLE, Qt.SortOrder.AscendingOrder)
    read = pane.snapshot_reader()  # sorted by title, as the table is now
    pane.table.sortByColumn(Column.TITLE, Qt.SortOrder.DescendingOrder)
    library.import_paths(write_reports(tmp_path / "more", [2008]))
    pane.refresh(read())
    assert shown_titles(pane) == [f"Heron census of {y}" for y in (2010, 2008, 2006, 2002)]


def test_when_the_worker_cannot_read_the_library_the_window_reads_it_itself(
    window: Any, library: Library, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pane = window.library_pane

    def broken() -> Any:
        def read() -> Any:
            raise RuntimeError("disk went away")

        return read

    monkeypatch.setattr(pane, "snapshot_reader", broken)
    window.start_import([str(p) for p in write_reports(tmp_path / "in", [2001, 2002])])
    wait_import(qtbot, window)
    assert len(window.last_report.imported) == 2
    assert sorted(shown_titles(pane)) == ["Heron census of 2001", "Heron census of 2002"]
    assert not pane.is_welcome_shown()


def test_a_tag_write_shows_the_tag_without_the_gui_thread_reading_the_library(
    window: Any, library: Library, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.import_paths(write_reports(tmp_path / "in", [2001, 2002, 2003]))
    window.refresh_library()
    pane = window.library_pane
    first = {d.title: d.doc_id for d in library.all_documents()}["Heron census of 2002"]
    reads = gui_thread_reads(library, monkeypatch)
    assert pane.tag_documents([first], add=["colony"])
    wait_write(qtbot, pane)
    assert reads and not any(reads)
    row = pane.proxy.mapFromSource(pane.model.index(pane.model.row_of(first), Column.MARKS)).row()
    assert "colony" in str(pane.proxy.index(row, Column.MARKS).data(Qt.ItemDataRole.ToolTipRole))
    assert pane.sources.find_item("tag", "colony") is not None


def test_the_first_window_is_built_without_the_document_viewer() -> None:
    code = "import sys, paperpilot.ui.application; print(sorted(m for m in sys.modules if 'QtPdf' in m or 'document_viewer' in m))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_after_first_paint_runs_once_when_the_window_has_painted(qapp: Any, qtbot: Any) -> None:
    from paperpilot.ui.application import after_first_paint

    widget = QWidget()
    qtbot.addWidget(widget)
    ran: list[bool] = []
    after_first_paint(widget, lambda: ran.append(widget.isVisible()))
    qtbot.wait(50)
    assert ran == []  # not shown, not painted: nothing yet
    widget.show()
    qtbot.waitUntil(lambda: bool(ran), timeout=2000)
    widget.update()
    widget.repaint()
    qtbot.wait(50)
    assert ran == [True]


def test_a_read_that_began_earlier_never_replaces_a_later_one(
    window: Any, library: Library, tmp_path: Path
) -> None:
    """Two workers' reads can report out of order: the table keeps the later-begun one."""
    pane = window.library_pane
    library.import_paths(write_reports(tmp_path / "a", [2001]))
    early = pane.snapshot_reader()()
    library.import_paths(write_reports(tmp_path / "b", [2002]))
    late = pane.snapshot_reader()()
    pane.refresh(late)
    pane.refresh(early)
    assert sorted(shown_titles(pane)) == ["Heron census of 2001", "Heron census of 2002"]
    library.import_paths(write_reports(tmp_path / "c", [2003]))
    window.refresh_library()  # a read on the GUI thread begins later than both
    assert len(shown_titles(pane)) == 3


def test_rows_of_unchanged_documents_are_kept_and_changed_ones_made_again(library: Library, tmp_path: Path) -> None:
    """Replacing the table's rows frees only what changed: a document read again unchanged
    keeps its row (and its document object); a new note, tag colour, edit or language does not."""
    from paperpilot.ui import i18n
    from paperpilot.ui.library_model import make_rows

    library.import_paths(write_reports(tmp_path / "in", [2001, 2002, 2003]))
    first = make_rows(library.all_documents())
    by_year = {r.doc.title[-4:]: r for r in first.rows}
    library.set_tags({by_year["2002"].doc.doc_id: ["colony"]})
    again = make_rows(
        library.all_documents(), notes={by_year["2003"].doc.doc_id}, reuse=first.rows
    )
    rows = {r.doc.title[-4:]: r for r in again.rows}
    assert rows["2001"] is by_year["2001"] and again.docs[0] is by_year["2001"].doc
    assert rows["2002"] is not by_year["2002"] and "colony" in rows["2002"].marks_tip
    assert rows["2003"] is not by_year["2003"] and rows["2003"].cells[5].startswith("✎")
    i18n.set_language("zh")
    try:
        chinese = make_rows(library.all_documents(), notes={by_year["2003"].doc.doc_id}, reuse=again.rows)
    finally:
        i18n.set_language("en")
    assert all(r.cells[4] != "Ready" for r in chinese.rows)
    assert not any(r is o for r in chinese.rows for o in again.rows)
