"""The literature matrix window: scope, fill off the GUI thread, evidence, cancel and resume,
reopen, column edits, exports, the saved list."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from paperpilot.core.library import Library
from paperpilot.core.workflows import cells as cells_mod
from paperpilot.core.workflows import matrix as matrix_mod
from paperpilot.core.workflows.matrix import CellProgress, default_columns, open_matrix
from paperpilot.ui.matrix_window import ColumnsDialog, MatrixModel, MatrixWindow

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"
SPARROW, NOISE, ROOFS = "01-house-sparrow-decline.md", "02-traffic-noise-great-tit-song.md", "03-green-roofs-foraging.md"


def _import(library: Library, *names: str) -> dict[str, int]:
    library.import_paths([SAMPLE / n for n in names])
    by_file = {d.file_name: d.doc_id for d in library.all_documents()}
    return {n: by_file[n] for n in names}


def _idle(qtbot: Any, win: MatrixWindow) -> None:
    qtbot.waitUntil(lambda: not win.busy and not win.side_task.busy, timeout=60_000)


def _counted(qtbot: Any, win: Any) -> int:
    qtbot.waitUntil(lambda: win.scope_row.count is not None and not win.scope_row.timer.isActive()
                    and not win.scope_row.task.busy, timeout=30_000)  # fmt: skip
    assert win.scope_row.count is not None
    return win.scope_row.count


class AgentRuns:
    """Counts the cells run and on which thread their agent runs ran; ``stop_after`` sets the
    run's own cancel event once that many cells are done (a deterministic Stop in the middle of
    a matrix, armed before the run starts so that fast offline cells cannot overtake it)."""

    def __init__(self, monkeypatch: Any) -> None:
        self.calls = 0
        self.on_gui: set[bool] = set()
        self.stop_after: int | None = None
        real_agent, real_cell = cells_mod.run_agent, matrix_mod.run_cell
        gui = threading.main_thread()

        def run_agent(*a: Any, **k: Any) -> Any:
            self.on_gui.add(threading.current_thread() is gui)
            return real_agent(*a, **k)

        def run_cell(*a: Any, **k: Any) -> Any:
            out = real_cell(*a, **k)
            self.calls += 1
            if self.stop_after is not None and self.calls >= self.stop_after:
                cancel = k.get("cancel")
                assert isinstance(cancel, threading.Event)  # the run's Stop, as the button sets it
                cancel.set()
            return out

        monkeypatch.setattr(cells_mod, "run_agent", run_agent)
        monkeypatch.setattr(matrix_mod, "run_cell", run_cell)


def test_scope_row_counts_the_selection_tag_collection_query_and_years(
    qtbot: Any, window: Any, library: Library
) -> None:
    ids = _import(library, SPARROW, NOISE, ROOFS)
    window.session.tag([ids[SPARROW], ids[ROOFS]], add=["sparrows"])
    window.session.collection_add("Urban/Roofs", [ids[ROOFS]])
    window.session.collection_add("Urban", [ids[NOISE]])
    window.refresh_library()
    win = window.open_matrix_window([ids[NOISE]])
    row = win.scope_row
    assert row.kind() == "selection" and "1" in row.kind_box.currentText()
    assert _counted(qtbot, win) == 1
    row.set_kind("all")
    assert _counted(qtbot, win) == 3
    qtbot.waitUntil(lambda: row.tag_box.count() > 0 and row.collection_box.count() > 0, timeout=30_000)
    row.set_kind("tag", "sparrows")
    assert _counted(qtbot, win) == 2
    # A collection holds its sub-collections' papers, as the library pane's filter shows it.
    row.set_kind("collection", "Urban")
    assert [row.collection_box.itemText(i) for i in range(row.collection_box.count())] == ["Urban", "Urban/Roofs"]
    assert _counted(qtbot, win) == 2
    row.set_kind("collection", "Urban/Roofs")
    assert _counted(qtbot, win) == 1
    row.set_kind("query", "vehicles")
    assert _counted(qtbot, win) == 1
    # Years: 2021 and 2022 of the three (2020, 2021, 2022); "last N years" is read by core.
    row.set_kind("all")
    row.set_years(2021, 2022)
    assert _counted(qtbot, win) == 2
    row.on_recent_box_activated(row.recent_box.findData(3))
    lo, hi = row.years()
    assert lo is not None and hi is not None and hi - lo == 2
    # The collection scope makes a matrix of its papers.
    row.set_years(None, None)
    row.set_kind("collection", "Urban")
    assert _counted(qtbot, win) == 2 and win.make_button.isEnabled()
    win.make_button.click()
    qtbot.waitUntil(lambda: win.matrix is not None, timeout=30_000)
    win.stop()
    _idle(qtbot, win)
    assert win.matrix is not None and {r.doc_id for r in win.matrix.rows} == {ids[NOISE], ids[ROOFS]}
    assert win.matrix.scope.collections == ["Urban"] and not row.kind_box.isEnabled()
    win.close()


def test_matrix_fills_off_the_gui_thread_and_a_cell_opens_its_evidence_and_pdf(
    qtbot: Any, window: Any, library: Library, monkeypatch: Any
) -> None:
    ids = _import(library, SPARROW, NOISE)
    window.refresh_library()
    runs = AgentRuns(monkeypatch)
    win = window.open_matrix_window([])
    assert isinstance(win, MatrixWindow) and win.matrix is None
    assert _counted(qtbot, win) == 2
    win.make_button.click()
    qtbot.waitUntil(lambda: win.matrix is not None and not win.busy, timeout=60_000)
    assert runs.on_gui == {False}  # every cell ran off the GUI thread
    m = win.matrix
    assert m is not None and not m.pending() and win.model.rowCount() == 2
    assert win.progress.value() == win.progress.maximum() == 12
    # The sparrow paper's results cell: its evidence in the inspector, the paper open at its page.
    results_col = 2 + [c.key for c in m.columns].index("results")
    row = next(i for i in range(win.proxy.rowCount()) if win.proxy.index(i, 0).data().startswith("House Sparrow"))
    idx = win.proxy.index(row, results_col)
    assert "412 breeding pairs" in idx.data()
    win.table.clicked.emit(idx)
    ev = window.inspector.selected_evidence()
    assert ev is not None and ev.page == 1 and "412" in ev.text
    assert ids[SPARROW] in window.library_pane.viewers
    # Sort by year, filter, group by year.
    win.table.sortByColumn(1, Qt.SortOrder.AscendingOrder)
    assert [win.proxy.index(i, 1).data() for i in range(2)] == ["2020", "2022"]
    win.filter_edit.setText("great tit")
    assert win.proxy.rowCount() == 1
    win.filter_edit.setText("")
    win.group_box.setCurrentIndex(win.group_box.findData("year"))
    assert win.model.headerData(2, Qt.Orientation.Horizontal) == "Group"
    assert win.proxy.index(0, 2).data() == "2022"  # newest first
    win.group_box.setCurrentIndex(win.group_box.findData("method"))
    assert {win.proxy.index(i, 2).data() for i in range(2)} <= {"Survey / field study", "Experiment", "Other", "not stated"}
    win.close()


def test_stop_resume_and_reopen_show_the_saved_cells_and_run_only_the_rest(
    qtbot: Any, window: Any, library: Library, monkeypatch: Any
) -> None:
    _import(library, SPARROW, NOISE)
    window.refresh_library()
    runs = AgentRuns(monkeypatch)
    win = window.open_matrix_window([])
    _counted(qtbot, win)
    runs.stop_after = 3  # Stop, as if clicked, once three cells ran
    win.make_button.click()
    qtbot.waitUntil(lambda: win.matrix is not None, timeout=30_000)  # made, and its run started
    _idle(qtbot, win)
    m = win.matrix
    assert m is not None and len(m.cells) == 3  # the cell done when Stop came is saved; no more ran
    done = dict(m.cells)
    assert win.run_button.text() == "Resume" and win.run_button.isEnabled()
    mid = m.id
    win.close()
    # Reopened in a new window: the saved cells at once, nothing runs until Resume.
    calls = runs.calls
    again = window.open_matrix_window(matrix_id=mid)
    qtbot.waitUntil(lambda: again.matrix is not None and not again.busy, timeout=30_000)
    assert again.matrix is not None and again.matrix.cells.keys() == done.keys() and runs.calls == calls
    assert again.run_button.text() == "Resume" and "Resume" in again.status_label.text()
    qtbot.waitUntil(lambda: again.saved.list.count() == 1 and again.saved.current_id() == mid, timeout=30_000)
    assert f"{len(done)} of 12 cells" in again.saved.list.item(0).text()
    runs.stop_after = None
    again.run_button.click()
    assert again.busy and not again.saved.delete_button.isEnabled()  # not deleted under the run
    _idle(qtbot, again)
    assert again.saved.delete_button.isEnabled()
    assert runs.calls - calls == 12 - len(done) and not again.matrix.pending()
    assert len(open_matrix(window.session.workflows, mid).cells) == 12
    again.close()


def test_a_changed_column_reruns_that_column_only_and_sets_are_saved(
    qtbot: Any, window: Any, library: Library, monkeypatch: Any
) -> None:
    _import(library, SPARROW, NOISE)
    window.refresh_library()
    win = window.open_matrix_window([])
    _counted(qtbot, win)
    win.make_button.click()
    qtbot.waitUntil(lambda: win.matrix is not None and not win.busy, timeout=60_000)
    mid = win.matrix.id
    win.close()
    win = window.open_matrix_window(matrix_id=mid)
    qtbot.waitUntil(lambda: win.matrix is not None and not win.busy, timeout=30_000)
    runs = AgentRuns(monkeypatch)
    m = win.matrix
    results = {k: v for k, v in m.cells.items() if k[1] == "results"}
    # The dialog: rename one column, change another's question, move one, add one, remove one.
    dlg = ColumnsDialog(m.columns, [], win)
    specs = dlg.specs()
    assert [s[0] for s in specs] == [c.name for c in m.columns]
    names = [s[0] for s in specs]
    r = names.index("Main results")
    dlg.table.item(r, 0).setText("Findings")
    lim = names.index("Limitations")
    dlg.table.item(lim, 1).setText("Which weaknesses do the authors admit?")
    dlg.table.setCurrentCell(lim, 0)
    dlg.on_up_clicked()
    dlg.table.setCurrentCell(names.index("Data / materials"), 0)
    dlg.on_remove_clicked()
    dlg.on_add_clicked()
    last = dlg.table.rowCount() - 1
    dlg.table.item(last, 0).setText("Species")
    dlg.table.item(last, 1).setText("Which bird species were studied?")
    specs = dlg.specs()
    dlg.deleteLater()
    assert win.apply_columns(specs)
    _idle(qtbot, win)
    m = win.matrix
    assert m is not None and [c.name for c in m.columns] == [s[0] for s in specs]
    assert {k: v for k, v in m.cells.items() if k[1] == "results"} == results  # renamed: kept
    assert runs.calls == 4 and not m.pending()  # the changed and the new column, two papers each
    assert not any(k[1] == "data" for k in m.cells)
    # Save the columns as a set; a new matrix can start from it; loading one applies it.
    assert win.save_columns("birds")
    qtbot.waitUntil(lambda: win.set_box.findData("birds") >= 0 and not win.side_task.busy, timeout=30_000)
    mine = [c.name for c in m.columns]
    assert win.apply_column_set("default")
    _idle(qtbot, win)
    assert [c.name for c in win.matrix.columns] == [c.name for c in default_columns()]
    assert win.apply_column_set("birds")
    _idle(qtbot, win)
    assert [c.name for c in win.matrix.columns] == mine and not win.matrix.pending()
    win.close()


def test_the_running_cell_is_marked_and_a_done_one_shows_its_text(window: Any, library: Library, qtbot: Any) -> None:
    _import(library, SPARROW)
    win = window.open_matrix_window([])
    _counted(qtbot, win)
    win.new_matrix()
    qtbot.waitUntil(lambda: win.matrix is not None and not win.busy, timeout=60_000)
    m = win.matrix
    row, col = m.rows[0], m.columns[0]
    cell = m.cells.pop((row.doc_id, col.key))
    win.on_cell(CellProgress(0, m.total, row, col, None))
    idx = win.proxy.index(0, 2)
    assert idx.data() == "running…" and "running: House Sparrow" in win.status_label.text()
    win.on_cell(CellProgress(1, m.total, row, col, cell))
    assert idx.data().startswith(cell.text) and win.progress.value() == m.total
    win.close()


def test_exports_and_copy_as_table_from_the_window(qtbot: Any, window: Any, library: Library, tmp_path: Path) -> None:
    _import(library, SPARROW)
    window.refresh_library()
    win = window.open_matrix_window([])
    _counted(qtbot, win)
    win.make_button.click()
    qtbot.waitUntil(lambda: win.matrix is not None and not win.busy, timeout=60_000)
    for suffix in ("xlsx", "csv", "md"):
        assert win.export_to(tmp_path / f"m.{suffix}")
        _idle(qtbot, win)
        assert str(tmp_path / f"m.{suffix}") in win.status_label.text()
    from openpyxl import load_workbook

    sheet = load_workbook(tmp_path / "m.xlsx").active
    header = [c.value for c in next(sheet.iter_rows(max_row=1))]
    assert header[:3] == ["Paper", "Year", "Research question"]
    assert "412" in (tmp_path / "m.csv").read_text(encoding="utf-8")
    assert (tmp_path / "m.md").read_text(encoding="utf-8").startswith("|")
    # A file type the matrix cannot be written as: one line, nothing written.
    assert win.export_to(tmp_path / "m.pdf")
    _idle(qtbot, win)
    assert not (tmp_path / "m.pdf").exists() and "export as .xlsx, .csv or .md" in win.status_label.text()
    assert win.copy_table()
    _idle(qtbot, win)
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.html().startswith("<table>") and "Varga" in mime.html()
    assert mime.text().splitlines()[0].startswith("Paper\tYear")
    win.close()


def test_saved_list_renames_and_deletes(qtbot: Any, window: Any, library: Library) -> None:
    _import(library, SPARROW)
    window.refresh_library()
    win = window.open_matrix_window([])
    _counted(qtbot, win)
    win.make_button.click()
    qtbot.waitUntil(lambda: win.matrix is not None and not win.busy, timeout=60_000)
    mid = win.matrix.id
    qtbot.waitUntil(lambda: win.saved.list.count() == 1 and not win.saved.task.busy, timeout=30_000)
    win.saved.rename(mid, "  Sparrows   matrix ")
    qtbot.waitUntil(lambda: "Sparrows matrix" in win.saved.list.item(0).text(), timeout=30_000)
    assert win.windowTitle().endswith("Sparrows matrix")
    assert open_matrix(window.session.workflows, mid).title == "Sparrows matrix"
    qtbot.waitUntil(lambda: not win.saved.task.busy, timeout=30_000)
    win.saved.delete(mid)
    qtbot.waitUntil(lambda: win.saved.list.count() == 0 and not win.saved.task.busy, timeout=30_000)
    assert win.matrix is None and win.make_button.isEnabled()
    assert window.session.workflows.matrices() == []
    win.close()


def test_matrix_model_passes_qtmodeltester(qtmodeltester: Any, window: Any, library: Library, qtbot: Any) -> None:
    library.import_paths([SAMPLE / "05-window-collisions.md"])
    win = window.open_matrix_window([])
    _counted(qtbot, win)
    win.new_matrix()
    qtbot.waitUntil(lambda: win.matrix is not None and not win.busy, timeout=60_000)
    model = MatrixModel()
    model.set_matrix(win.matrix)
    qtmodeltester.check(model)
    model.set_group_by("method")
    qtmodeltester.check(model)
    win.close()
    QApplication.processEvents()


def test_the_scope_follows_the_library_selection_while_it_is_chosen(qtbot: Any, window: Any, library: Library) -> None:
    ids = _import(library, SPARROW, NOISE, ROOFS)
    window.refresh_library()
    win = window.open_matrix_window([])
    assert win.scope_row.kind() == "all" and _counted(qtbot, win) == 3
    window.library_pane.select_ids([ids[SPARROW], ids[ROOFS]])
    win.scope_row.set_kind("selection")
    assert "2" in win.scope_row.kind_box.currentText() and _counted(qtbot, win) == 2
    assert sorted(win.scope_row.scope().doc_ids) == sorted([ids[SPARROW], ids[ROOFS]])
    win.close()
