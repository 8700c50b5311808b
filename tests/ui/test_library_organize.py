"""Library management in the window: collections, tags, the trash and Ctrl+Z, the full-text
filter, field prefixes, the table's marks, sort and widths across restarts, import feedback."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QInputDialog, QMessageBox

from paperpilot.core.library import Library
from paperpilot.core.library.metadata import update_metadata
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths
from paperpilot.ui.library_model import DOC_IDS_MIME, NOTE_MARK, Column, DocumentTableModel
from paperpilot.ui.library_pane import LibraryPane
from paperpilot.ui.sources_pane import COLLECTION, TAG

TIMEOUT_MS = 20_000

PAPERS = {
    "kestrels.md": ("Kestrels on Church Towers", 2019, "Kestrels nest on church towers and hunt voles in the meadows."),
    "swifts.md": ("Swifts over the Old Town", 2021, "Swifts feed on insects high above the roofs of the old town."),
    "gulls.md": ("Gulls at the Harbour", 2022, "Gulls follow the fishing boats; a few gulls hunt voles too."),
    "owls.md": ("Owls in Farmland", 2023, "Barn owls hunt voles at night over rough grassland and meadows."),
}


def write_papers(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for name, (title, year, text) in PAPERS.items():
        p = directory / name
        p.write_text(f"# {title}\n\nSurvey of {year}. {text} The counts were repeated every spring.\n", "utf-8")
        out.append(p)
    return out


@pytest.fixture
def pane(window: Any, library: Library, tmp_path: Path) -> LibraryPane:
    library.import_paths(write_papers(tmp_path / "in"))
    years = {title: year for title, year, _text in PAPERS.values()}
    for d in library.all_documents():
        update_metadata(library, d.doc_id, year=years[d.title])
    window.refresh_library()
    return window.library_pane


def ids(library: Library) -> dict[str, int]:
    return {d.title.split()[0].lower(): d.doc_id for d in library.all_documents()}


def shown(pane: LibraryPane) -> set[int]:
    return {int(pane.proxy.index(r, 0).data(Qt.ItemDataRole.UserRole)) for r in range(pane.proxy.rowCount())}


def wait_write(qtbot: Any, pane: LibraryPane) -> None:
    qtbot.waitUntil(lambda: not pane.is_writing() and not pane.is_removing(), timeout=TIMEOUT_MS)


def source_item(pane: LibraryPane, kind: str, value: str) -> Any:
    item = pane.sources.find_item(kind, value)
    assert item is not None, f"no {kind} {value!r} in the sources pane"
    return item


def test_collections_nested_drag_onto_and_filter(pane: LibraryPane, library: Library, qtbot: Any) -> None:
    known = ids(library)
    assert pane.run_write(pane.session.collection_add, "Thesis/Chapter 2", [])
    wait_write(qtbot, pane)
    chapter = source_item(pane, COLLECTION, "Thesis/Chapter 2")
    assert chapter.parent() is source_item(pane, COLLECTION, "Thesis")
    # Drag two rows of the table onto the sub-collection.
    pane.select_ids([known["kestrels"], known["owls"]])
    rows = pane.table.selectionModel().selectedRows()
    mime = pane.proxy.mimeData(rows)
    assert mime.hasFormat(DOC_IDS_MIME)
    pos = pane.sources.visualItemRect(chapter).center()
    drop = QDropEvent(QPointF(pos), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    pane.sources.dropEvent(drop)
    assert drop.isAccepted()
    wait_write(qtbot, pane)
    assert library.collection_tree().get("Thesis/Chapter 2").doc_ids == {known["kestrels"], known["owls"]}
    # A document in several collections.
    pane.add_to_collection("Reading", [known["owls"], known["gulls"]])
    wait_write(qtbot, pane)
    # Clicking a collection filters the table (a parent shows its sub-collections' documents).
    pane.sources.setCurrentItem(source_item(pane, COLLECTION, "Thesis"))
    assert shown(pane) == {known["kestrels"], known["owls"]}
    pane.sources.setCurrentItem(source_item(pane, COLLECTION, "Reading"))
    assert shown(pane) == {known["owls"], known["gulls"]}
    assert pane.count_label.text().startswith("2 of 4")
    pane.sources.setCurrentItem(pane.sources.find_item("unfiled"))
    assert shown(pane) == {known["swifts"]}
    pane.sources.setCurrentItem(pane.sources.find_item("recent"))
    assert len(shown(pane)) == 4  # all imported just now
    pane.sources.setCurrentItem(pane.sources.find_item("all"))
    assert len(shown(pane)) == 4
    # The tree shows the counts, and a drop on a heading is refused.
    assert source_item(pane, COLLECTION, "Reading").text(0) == "Reading (2)"


def test_tags_on_a_multi_selection_and_the_tag_selector(
    pane: LibraryPane, library: Library, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    known = ids(library)
    pane.select_ids([known["kestrels"], known["owls"], known["gulls"]])
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("voles", True))
    pane.add_tag_to_selected()
    wait_write(qtbot, pane)
    assert {d.doc_id for d in library.all_documents() if "voles" in d.tags} == {
        known["kestrels"], known["owls"], known["gulls"]
    }  # fmt: skip
    # The context menu offers the selection's tags for removal.
    pane.select_ids([known["gulls"]])
    menu = pane.build_context_menu()
    assert menu is not None
    remove_menu = next(a.menu() for a in menu.actions() if a.text() == "Remove Tag")
    assert [a.text() for a in remove_menu.actions()] == ["voles"]
    remove_menu.actions()[0].trigger()
    wait_write(qtbot, pane)
    assert library.document(known["gulls"]).tags == []
    # The tag selector filters.
    pane.sources.setCurrentItem(source_item(pane, TAG, "voles"))
    assert shown(pane) == {known["kestrels"], known["owls"]}
    assert source_item(pane, TAG, "voles").text(0) == "voles (2)"


def remove_in_window(pane: LibraryPane, qtbot: Any, monkeypatch: pytest.MonkeyPatch, doc_id: int) -> None:
    """Remove ``doc_id`` from the library pane, answering its confirmation with Yes."""
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    pane.select_ids([doc_id])
    pane.remove_selected()
    wait_write(qtbot, pane)
    assert doc_id not in shown(pane)


def test_remove_goes_to_the_trash_and_ctrl_z_brings_it_back_searchable(
    window: Any, pane: LibraryPane, library: Library, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    known = ids(library)
    target = known["swifts"]
    remove_in_window(pane, qtbot, monkeypatch, target)
    assert not library.search("swifts insects roofs")
    assert window.docs_label.text().startswith("3 documents")
    assert source_item(pane, "trash", "").text(0) == "Trash (1)"
    # The trash view lists it, with Restore and Delete for Good.
    pane.show_source("trash")
    assert shown(pane) == {target}
    status = pane.model.index(pane.model.row_of(target), Column.STATUS)
    assert status.data().startswith("In the trash since ") and status.data(Qt.ItemDataRole.ForegroundRole) is None
    assert pane.count_label.text() == "1 in the trash"
    pane.select_ids([target])
    menu = pane.build_context_menu()
    assert menu is not None and [a.text() for a in menu.actions() if a.text()] == ["Restore", "Delete for Good…"]
    pane.show_source("all")
    # Ctrl+Z (Edit ▸ Undo) restores it, searchable at once.
    window.activateWindow()
    window.on_edit_menu_about_to_show()
    assert window.undo_action.text() == "&Undo Remove 1 document"
    window.undo_action.trigger()
    wait_write(qtbot, pane)
    assert target in shown(pane)
    hits = library.search("swifts insects roofs")
    assert hits and hits[0].doc_id == target
    assert window.docs_label.text().startswith("4 documents")


def test_empty_trash_deletes_for_good(pane: LibraryPane, library: Library, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    known = ids(library)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    pane.select_ids([known["gulls"]])
    pane.remove_selected()
    wait_write(qtbot, pane)
    pane.empty_trash()
    wait_write(qtbot, pane)
    assert library.document(known["gulls"]) is None and not library.trashed_documents()


def test_full_text_filter_counts_hits_off_the_gui_thread(
    pane: LibraryPane, library: Library, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    known = ids(library)
    threads: list[bool] = []
    texts: list[str] = []
    real = Library.fulltext_counts

    def spy(self: Library, text: str, doc_ids: Any = None) -> dict[int, int]:
        threads.append(threading.current_thread() is threading.main_thread())
        texts.append(text)
        return real(self, text, doc_ids)

    monkeypatch.setattr(Library, "fulltext_counts", spy)
    pane.fulltext_check.setChecked(True)
    assert not pane.table.horizontalHeader().isSectionHidden(Column.HITS)
    qtbot.keyClicks(pane.filter_edit, "voles meadows")
    qtbot.waitUntil(lambda: not pane.is_searching(), timeout=TIMEOUT_MS)
    # Ticking the box warms the searcher; typed fast, the query is searched once (debounced),
    # and all of it in a worker.
    assert texts == ["the", "voles meadows"] and threads == [False, False]
    assert shown(pane) == {known["kestrels"], known["owls"]}
    row = pane.model.row_of(known["owls"])
    assert pane.model.index(row, Column.HITS).data() == "1"
    tip = pane.model.index(row, Column.TITLE).data(Qt.ItemDataRole.ToolTipRole)
    assert "1 matching passage" in tip and "voles" in tip
    # A field prefix combines with the full-text words.
    pane.filter_edit.setText("voles year:2023")
    qtbot.waitUntil(lambda: not pane.is_searching(), timeout=TIMEOUT_MS)
    assert shown(pane) == {known["owls"]}
    pane.fulltext_check.setChecked(False)
    assert pane.table.horizontalHeader().isSectionHidden(Column.HITS)


def test_field_prefixes_filter_as_you_type(pane: LibraryPane, library: Library, qtbot: Any) -> None:
    known = ids(library)
    library.set_tags({known["gulls"]: ["coast"], known["swifts"]: ["coast"]})
    pane.refresh()
    qtbot.keyClicks(pane.filter_edit, "tag:coast year:2021-2022")
    assert shown(pane) == {known["gulls"], known["swifts"]}
    pane.filter_edit.setText("tag:coast harbour")
    assert shown(pane) == {known["gulls"]}
    pane.filter_edit.setText("year:someday")
    assert "year:someday" in pane.count_label.toolTip()


def test_marks_show_notes_and_coloured_tags(pane: LibraryPane, library: Library) -> None:
    known = ids(library)
    library.set_note(known["owls"], "Check the night counts.")
    library.set_tags({known["owls"]: ["priority"]})
    library.set_tag_color("priority", "#d32f2f")
    pane.refresh()
    row = pane.model.row_of(known["owls"])
    marks = pane.model.index(row, Column.MARKS)
    assert NOTE_MARK in marks.data()
    assert marks.data(Qt.ItemDataRole.DecorationRole) is not None
    assert "Tags: priority" in marks.data(Qt.ItemDataRole.ToolTipRole)
    gulls = pane.model.index(pane.model.row_of(known["gulls"]), Column.MARKS)
    assert NOTE_MARK not in gulls.data() and gulls.data(Qt.ItemDataRole.DecorationRole) is None


def test_marks_show_other_helpers_flags_when_present(qapp: QApplication) -> None:
    from paperpilot.core.models import DocumentInfo

    doc = DocumentInfo(doc_id=1, title="T", authors=[], year=None, pages=1, chunks=1, status="ready")
    doc.check_metadata = True  # type: ignore[attr-defined]
    doc.ocr = True  # type: ignore[attr-defined]
    model = DocumentTableModel()
    model.set_documents([doc])
    assert model.index(0, Column.MARKS).data() == "⚑ OCR"


def test_sort_order_and_column_widths_survive_a_restart(window: Any, pane: LibraryPane, library: Library, qapp: QApplication) -> None:
    from paperpilot.ui.main_window import MainWindow

    pane.table.sortByColumn(Column.YEAR, Qt.SortOrder.DescendingOrder)
    pane.table.horizontalHeader().resizeSection(Column.AUTHORS, 173)
    window.save_geometry()
    again = MainWindow(library, app_paths(), Settings())
    try:
        header = again.library_pane.table.horizontalHeader()
        assert header.sectionSize(Column.AUTHORS) == 173
        assert header.sortIndicatorSection() == Column.YEAR
        assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
        years = [again.library_pane.proxy.index(r, Column.YEAR).data() for r in range(again.library_pane.proxy.rowCount())]
        assert years == ["2023", "2022", "2021", "2019"]
    finally:
        again.shutdown_workers()
        again.close()
        again.deleteLater()
        QApplication.processEvents()


def _drag(paths: list[Path]) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def test_import_feedback_highlight_duplicates_log_and_last_folder(
    window: Any, library: Library, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = write_papers(tmp_path / "batch1")
    bad = tmp_path / "batch1" / "empty.txt"
    bad.write_text("", encoding="utf-8")
    mime = _drag([*first, bad])
    enter = QDragEnterEvent(QPointF(30, 30), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, enter)
    assert window.drop_highlight.isVisible()
    QApplication.sendEvent(window, QDragLeaveEvent())
    assert not window.drop_highlight.isVisible()
    QApplication.sendEvent(window, enter)
    drop = QDropEvent(QPointF(30, 30), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(window, drop)
    assert not window.drop_highlight.isVisible()
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=TIMEOUT_MS)
    assert "1 failed" in window.task_label.text()
    # The second batch: all duplicates, named with their ids.
    known = ids(library)
    window.start_import([str(first[0])])
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=TIMEOUT_MS)
    assert f"already in the library as #{known['kestrels']}" in window.task_label.text()
    # The first batch's failure is still reachable: the Import Log lists both batches.
    from paperpilot.ui.import_log import ImportLogDialog, batch_lines

    assert len(window.import_log) == 2
    assert any("empty.txt" in detail for _what, detail in batch_lines(window.import_log[0]))
    dlg = ImportLogDialog(window.import_log, window)
    qtbot.addWidget(dlg)
    assert dlg.tree.topLevelItemCount() == 2
    assert window.failures_button.isVisible()
    # Header and status bar agree (one source).
    assert window.docs_label.text().startswith("4 documents")
    assert window.library_pane.count_label.text().startswith("4 documents")
    # The file dialog opens where the last import came from.
    assert window.last_import_dir() == str(tmp_path / "batch1")
    seen: list[str] = []
    monkeypatch.setattr(
        "paperpilot.ui.main_window.QFileDialog.getOpenFileNames",
        lambda parent, title, folder, *a: (seen.append(folder), ([], ""))[1],
    )
    window.on_import_files_triggered()
    assert seen == [str(tmp_path / "batch1")]


def test_a_question_asked_with_a_tag_open_is_scoped_to_it(window: Any, pane: LibraryPane, library: Library, qtbot: Any) -> None:
    known = ids(library)
    library.set_tags({known["gulls"]: ["coast"]})
    pane.refresh()
    pane.sources.setCurrentItem(source_item(pane, TAG, "coast"))
    window.on_chat_ask_requested("Who hunts voles in the meadows, and what do gulls follow?", "auto")
    qtbot.waitUntil(lambda: window.agent_thread is None, timeout=TIMEOUT_MS)
    result = window.chat_pane.last_result()
    # The kestrel and owl papers answer the first half best, but they are outside the scope.
    assert result is not None and result.evidence
    assert {e.doc_id for e in result.evidence} == {known["gulls"]}
    assert "Asked of tag: coast only" in window.chat_pane.conversation.toPlainText()
