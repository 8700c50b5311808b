"""The library pane: model, proxy, welcome view, drag-and-drop import, actions, viewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

from paperpilot.core.citations.model import CslName
from paperpilot.core.library import Library
from paperpilot.core.models import DocumentInfo
from paperpilot.ui.library_model import (
    DOC_ID_ROLE,
    HEADERS,
    Column,
    DocumentFilterProxy,
    DocumentTableModel,
    warning_colour,
)
from paperpilot.ui.library_pane import LibraryPane, MetadataDialog, plain_citation
from paperpilot.ui.resources import sample_library_dir, sample_questions
from tests.fixtures.pdfs import make_paper_pdf
from tests.timing import bound

from .conftest import LagMeter, SignalRecorder

IMPORT_TIMEOUT_MS = 30_000


def _doc(
    doc_id: int, title: str, authors: list[str], year: int | None, pages: int, **kw: Any
) -> DocumentInfo:
    kw.setdefault("status", "ready")
    kw.setdefault("file_name", f"{doc_id}.pdf" if kw["status"] == "ready" else title)
    return DocumentInfo(
        doc_id=doc_id, title=title, authors=authors, year=year, pages=pages, chunks=pages * 3, **kw
    )


def sample_docs() -> list[DocumentInfo]:
    return [
        _doc(1, "Sparrows of the Old Town", ["Elena Varga", "Tomasz Brenner"], 2022, 9),
        _doc(2, "Noise and Birdsong", ["Priya Natarajan"], 2020, 10),
        _doc(3, "green roofs for birds", ["Marta Oliveira", "Henrik Dahl", "Ann Lee"], 2021, 100),
        _doc(4, "城市公园鸟类多样性", ["李明"], 2019, 12),
        _doc(
            5,
            "broken.pdf",
            [],
            None,
            0,
            status="failed",
            error="The PDF is encrypted.",
            source_path="/p/broken.pdf",
        ),
    ]


def drop_files(target: Any, paths: list[Path]) -> None:
    """Simulate the file manager dropping ``paths`` onto ``target``."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    enter = QDragEnterEvent(
        QPointF(20, 20),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, enter)
    assert enter.isAccepted()
    drop = QDropEvent(
        QPointF(20, 20),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(target, drop)


def wait_import(qtbot: Any, window: Any) -> None:
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=IMPORT_TIMEOUT_MS)


def write_text_papers(directory: Path, n: int) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        p = directory / f"paper{i}.md"
        p.write_text(
            f"# Field report number {i}\n\n## Observations\n\n"
            f"Volunteers counted {10 + i} kestrels nesting on church towers during spring {2000 + i}. "
            "The birds hunted voles along the river meadows and returned to the towers at dusk.\n",
            encoding="utf-8",
        )
        out.append(p)
    return out


def rows_of(pane: LibraryPane) -> list[str]:
    return [pane.proxy.index(r, Column.TITLE).data() for r in range(pane.proxy.rowCount())]


# --- model and proxy ---------------------------------------------------------------------------


def test_model_passes_qtmodeltester(qtmodeltester: Any) -> None:
    model = DocumentTableModel()
    model.set_documents(sample_docs())
    qtmodeltester.check(model)
    proxy = DocumentFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_filter_text("bird")
    qtmodeltester.check(proxy)


def test_model_roles_tooltips_and_failed_rows(qapp: QApplication) -> None:
    model = DocumentTableModel()
    model.set_documents(sample_docs())
    assert model.rowCount() == 5 and model.columnCount() == len(HEADERS) == 7
    assert [model.headerData(c, Qt.Orientation.Horizontal) for c in range(5)] == [
        "Title", "Authors", "Year", "Pages", "Status",
    ]  # fmt: skip
    assert model.index(0, Column.AUTHORS).data() == "Varga & Brenner"
    assert model.index(2, Column.AUTHORS).data() == "Oliveira et al."
    assert model.index(2, Column.TITLE).data(DOC_ID_ROLE) == 3
    assert "3.pdf" in model.index(2, Column.TITLE).data(Qt.ItemDataRole.ToolTipRole)
    failed = model.index(4, Column.STATUS)
    assert failed.data() == "Failed: The PDF is encrypted."
    tip = model.index(4, Column.TITLE).data(Qt.ItemDataRole.ToolTipRole)
    assert "broken.pdf" in tip and "encrypted" in tip
    colour = model.index(4, Column.TITLE).data(Qt.ItemDataRole.ForegroundRole)
    assert colour == warning_colour(QGuiApplication.palette())
    assert model.index(0, Column.TITLE).data(Qt.ItemDataRole.ForegroundRole) is None
    assert model.index(4, Column.PAGES).data() == ""


def test_warning_colour_follows_palette(qapp: QApplication) -> None:
    light, dark = QPalette(), QPalette()
    light.setColor(QPalette.ColorRole.Base, Qt.GlobalColor.white)
    dark.setColor(QPalette.ColorRole.Base, Qt.GlobalColor.black)
    assert warning_colour(light).lightness() < warning_colour(dark).lightness()


def test_sort_is_numeric_for_year_and_pages(qapp: QApplication) -> None:
    model = DocumentTableModel()
    model.set_documents(sample_docs())
    proxy = DocumentFilterProxy()
    proxy.setSourceModel(model)

    def column(col: int) -> list[str]:
        return [proxy.index(r, col).data() for r in range(proxy.rowCount())]

    proxy.sort(Column.PAGES, Qt.SortOrder.AscendingOrder)
    assert column(Column.PAGES) == ["", "9", "10", "12", "100"]  # numbers, not "10" < "9"
    proxy.sort(Column.YEAR, Qt.SortOrder.DescendingOrder)
    assert column(Column.YEAR) == ["2022", "2021", "2020", "2019", ""]
    proxy.sort(Column.TITLE, Qt.SortOrder.AscendingOrder)
    assert column(Column.TITLE)[:3] == ["broken.pdf", "green roofs for birds", "Noise and Birdsong"]
    proxy.sort(Column.AUTHORS, Qt.SortOrder.AscendingOrder)
    assert column(Column.AUTHORS)[1:3] == ["Natarajan", "Oliveira et al."]


def test_filter_matches_title_authors_year_case_insensitively(qapp: QApplication) -> None:
    model = DocumentTableModel()
    model.set_documents(sample_docs())
    proxy = DocumentFilterProxy()
    proxy.setSourceModel(model)

    def titles() -> set[str]:
        return {proxy.index(r, 0).data() for r in range(proxy.rowCount())}

    proxy.set_filter_text("SPARROW")
    assert titles() == {"Sparrows of the Old Town"}
    proxy.set_filter_text("dahl")
    assert titles() == {"green roofs for birds"}
    proxy.set_filter_text("2020")
    assert titles() == {"Noise and Birdsong"}
    proxy.set_filter_text("birds 2021")  # every word must match somewhere
    assert titles() == {"green roofs for birds"}
    proxy.set_filter_text("鸟类")
    assert titles() == {"城市公园鸟类多样性"}
    proxy.set_filter_text("")
    assert proxy.rowCount() == 5


def test_reset_with_thousands_of_documents_is_fast(qapp: QApplication) -> None:
    import time

    docs = [_doc(i, f"Paper {i}", [f"Author {i}"], 1990 + i % 30, i % 40 + 1) for i in range(5000)]
    model = DocumentTableModel()
    proxy = DocumentFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(Column.YEAR)
    t = time.perf_counter()
    model.set_documents(docs)
    proxy.set_filter_text("author 12")
    elapsed = time.perf_counter() - t
    assert proxy.rowCount() > 0
    assert elapsed < bound(1.0), f"reset + sort + filter of 5,000 rows took {elapsed:.2f} s"


# --- welcome view and drag and drop ---------------------------------------------------------------


def test_welcome_view_then_drop_imports_in_background(
    window: Any, qtbot: Any, tmp_path: Path, import_recorder: SignalRecorder, lag_meter: LagMeter
) -> None:
    pane = window.library_pane
    assert pane.is_welcome_shown()
    assert pane.sample_button.isVisible() and pane.import_button.isVisible()
    files = write_text_papers(tmp_path / "in", 3)
    empty = tmp_path / "in" / "empty.txt"
    empty.write_bytes(b"")
    lag_meter.start()
    drop_files(window, [*files, empty])
    # The drop handler returns at once; the work happens in the worker thread.
    assert window.import_thread is not None and window.import_thread.isRunning()
    assert window.progress.isVisible() and window.cancel_import_button.isVisible()
    wait_import(qtbot, window)
    lag_meter.stop()

    assert [(i, n) for i, n, _ in import_recorder.progress] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert Path(import_recorder.progress[-1][2]).name == "empty.txt"
    assert len(import_recorder.finished) == 1
    assert not pane.is_welcome_shown()
    assert pane.model.rowCount() == 4
    assert "Imported 3" in window.task_label.text() and "1 failed" in window.task_label.text()
    assert window.failures_button.isVisible()
    failed = [d for d in pane.model.documents() if d.status == "failed"]
    assert len(failed) == 1 and "empty" in failed[0].error.lower()
    row = pane.model.row_of(failed[0].doc_id)
    assert pane.model.index(row, Column.STATUS).data().startswith("Failed: ")
    assert lag_meter.ticks > 0 and lag_meter.max_gap_ms < bound(250)


def test_cancel_stops_the_import(
    window: Any, qtbot: Any, tmp_path: Path, import_recorder: SignalRecorder
) -> None:
    src = make_paper_pdf(tmp_path).read_bytes()
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(40):
        (folder / f"copy{i:02d}.pdf").write_bytes(src + f"\n% copy {i}\n".encode())
    drop_files(window, [folder])
    qtbot.waitUntil(lambda: len(import_recorder.progress) >= 2, timeout=IMPORT_TIMEOUT_MS)
    window.cancel_import_button.click()
    wait_import(qtbot, window)
    report = window.last_report
    assert report is not None and report.cancelled
    assert 1 <= len(report.imported) < 40
    assert "cancelled" in window.task_label.text()
    assert window.library_pane.model.rowCount() == len(report.imported)


def test_failed_import_offers_retry_and_remove(
    window: Any, library: Library, qtbot: Any, tmp_path: Path
) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_bytes(b"   \n\n")
    library.import_paths([bad])
    window.refresh_library()
    pane = window.library_pane
    pane.table.selectRow(0)
    menu = pane.build_context_menu()
    assert menu is not None
    labels = [a.text() for a in menu.actions() if a.text()]
    assert labels == ["Retry Import", "Remove"]
    bad.write_text(
        "# Notes\n\nThe heron colony on the island held forty nests this year.\n", encoding="utf-8"
    )
    with qtbot.waitSignal(pane.import_requested) as blocker:
        next(a for a in menu.actions() if a.text() == "Retry Import").trigger()
    assert blocker.args == [[str(bad.resolve())]]
    wait_import(qtbot, window)
    docs = library.all_documents()
    assert [(d.title, d.status) for d in docs] == [("Notes", "ready")]


def test_remove_selected_asks_then_removes(
    window: Any, library: Library, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.import_paths(write_text_papers(tmp_path / "in", 3))
    window.refresh_library()
    pane = window.library_pane
    asked: list[str] = []

    def answer(choice: QMessageBox.StandardButton) -> Any:
        def question(parent: Any, title: str, text: str, *args: Any) -> QMessageBox.StandardButton:
            asked.append(text)
            return choice

        return question

    ids = [d.doc_id for d in library.all_documents()]
    pane.select_ids(ids[:2])
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.No))
    pane.remove_selected()
    assert library.counts()[0] == 3
    monkeypatch.setattr(QMessageBox, "question", answer(QMessageBox.StandardButton.Yes))
    pane.remove_selected()
    # Removed in a worker (a write may wait for another process's lock); the table is disabled.
    assert pane.is_removing() and not pane.table.isEnabled()
    qtbot.waitUntil(lambda: not pane.is_removing(), timeout=10_000)
    assert pane.table.isEnabled()
    assert len(asked) == 2 and "these 2 documents" in asked[1]
    assert [d.doc_id for d in library.all_documents()] == ids[2:]
    assert pane.model.rowCount() == 1
    assert window.docs_label.text().startswith("1 documents")


def test_refresh_keeps_selection(window: Any, library: Library, tmp_path: Path) -> None:
    library.import_paths(write_text_papers(tmp_path / "in", 3))
    window.refresh_library()
    pane = window.library_pane
    target = library.all_documents()[1].doc_id
    pane.select_ids([target])
    window.refresh_library()
    assert pane.selected_ids() == [target]


def test_filter_box_filters_as_you_type(window: Any, library: Library, qtbot: Any, tmp_path: Path) -> None:
    library.import_paths(write_text_papers(tmp_path / "in", 12))
    window.refresh_library()
    pane = window.library_pane
    pane.focus_filter()
    assert pane.filter_edit.placeholderText() == "Filter by title, author, year"
    qtbot.keyClicks(pane.filter_edit, "NUMBER 1")
    assert sorted(rows_of(pane)) == [
        "Field report number 1",
        "Field report number 10",
        "Field report number 11",
    ]
    assert pane.count_label.text().startswith("3 of 12")


# --- opening documents ---------------------------------------------------------------------------


def test_double_click_and_open_document_show_pdf_at_page(
    window: Any, library: Library, qtbot: Any, tmp_path: Path
) -> None:
    library.import_paths([make_paper_pdf(tmp_path)])
    window.refresh_library()
    pane = window.library_pane
    doc = library.all_documents()[0]
    index = pane.proxy.index(0, Column.TITLE)
    qtbot.waitUntil(lambda: pane.table.viewport().isVisible() and not pane.table.visualRect(index).isEmpty())
    pos = pane.table.visualRect(index).center()
    # A double-click only counts on the row the first press selected, as with a real mouse.
    qtbot.mouseClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseDClick(pane.table.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    viewer = pane.viewers[doc.doc_id]
    assert viewer.is_pdf and viewer.isVisible()
    assert viewer.current_page() == 1

    hit = library.search("zebra crossing experiment", 1)[0]
    assert hit.page == 3
    passage = library.read(hit.doc_id, hit.seq)
    pane.open_document(doc.doc_id, hit.page, passage.text)
    assert pane.viewers[doc.doc_id] is viewer  # one window per document, re-used
    assert viewer.search_edit.text() and passage.text.startswith(viewer.search_edit.text())
    # The whole passage is marked on its page (tests/ui/test_document_viewer.py checks how).
    qtbot.waitUntil(lambda: viewer.span_location is not None, timeout=10_000)
    assert viewer.span_location.found and viewer.span_location.coverage == 1.0
    assert [p.page for p in viewer.span_location.pages] == [3]
    assert viewer.current_page() == 3
    assert viewer.result_label.text() == "Passage highlighted"


def test_open_text_document_highlights_and_scrolls_to_passage(
    window: Any, library: Library, qtbot: Any, tmp_path: Path
) -> None:
    sections = "\n\n".join(
        f"## Section {i}\n\nParagraph {i} describes the starlings that roost under the pier in winter "
        f"and fly out over the fields at sunrise to feed on leatherjackets. Count {i * 37} birds."
        for i in range(60)
    )
    paper = tmp_path / "starlings.md"
    paper.write_text(f"# Starling roosts\n\n{sections}\n", encoding="utf-8")
    library.import_paths([paper])
    window.refresh_library()
    doc = library.all_documents()[0]
    passage = library.read(doc.doc_id, doc.chunks - 1)
    pane = window.library_pane
    pane.open_document(doc.doc_id, passage.page, passage.text)
    viewer = pane.viewers[doc.doc_id]
    assert not viewer.is_pdf
    html = viewer.text_view.toHtml()
    assert "Starling roosts" in html and "background-color" in html
    assert viewer.result_label.text() == "Passage highlighted"
    bar = viewer.text_view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.value() > bar.maximum() // 2, timeout=5_000)
    viewer.search_edit.setText("Count 370 birds")
    viewer.on_search_edit_return_pressed()
    assert viewer.text_view.textCursor().selectedText() == "Count 370 birds"


def test_open_corpus_document_shows_its_text(window: Any, library: Library, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(
        json.dumps(
            {"id": "c1", "title": "Swift nest bricks", "text": "Swift bricks fit into new walls. " * 20}
        )
        + "\n",
        encoding="utf-8",
    )
    library.import_paths([corpus])
    doc = library.all_documents()[0]
    window.library_pane.open_document(doc.doc_id, 1, "Swift bricks fit into new walls.")
    viewer = window.library_pane.viewers[doc.doc_id]
    assert not viewer.is_pdf and not viewer.open_file_action.isEnabled()
    assert "Swift bricks fit into new walls." in viewer.text_view.toPlainText()


# --- sample library ------------------------------------------------------------------------------


def test_sample_button_imports_the_sample_library(window: Any, qtbot: Any) -> None:
    pane = window.library_pane
    expected = sorted(p.name for p in sample_library_dir().glob("*.md"))
    assert len(expected) == 6
    pane.sample_button.click()
    wait_import(qtbot, window)
    docs = pane.model.documents()
    assert len(docs) == 6 and all(d.status == "ready" for d in docs)
    assert sorted(Path(d.source_path).name for d in docs) == expected
    assert all(d.authors and d.year for d in docs)
    assert any("鸟类" in d.title for d in docs)
    assert not pane.suggestions.isHidden()
    assert sample_questions()[0] in pane.suggestions.text()


def test_welcome_question_imports_samples_then_asks(window: Any, qtbot: Any) -> None:
    pane = window.library_pane
    questions = sample_questions()
    assert len(questions) == 5
    assert "Ask: " in pane.welcome_questions.text()
    with qtbot.waitSignal(pane.example_question, timeout=IMPORT_TIMEOUT_MS) as blocker:
        pane.welcome_questions.linkActivated.emit("q:1")
    assert blocker.args == [questions[1]]
    assert window.import_thread is None and pane.model.rowCount() == 6


def test_sample_papers_are_the_right_size() -> None:
    for paper in sample_library_dir().glob("*.md"):
        text = paper.read_text(encoding="utf-8")
        assert text.count("\n# ") == 1 and ("## Abstract" in text or "## 摘要" in text)
        words = len(text.split()) if "摘要" not in text else len(text) // 2
        assert 600 <= words <= 1500, (paper.name, words)


# --- metadata, citation ----------------------------------------------------------------------


def test_edit_metadata_changes_title_and_search_finds_it(
    window: Any, library: Library, qtbot: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    library.import_paths(write_text_papers(tmp_path / "in", 2))
    window.refresh_library()
    pane = window.library_pane
    doc = library.all_documents()[0]

    def fill_and_accept(dlg: MetadataDialog) -> int:
        dlg.set_type("article-journal")
        dlg.title_edit.setText("Kestrels on Cathedral Spires")
        dlg.authors.set_names([CslName(family="Linde", given="Rosa"), CslName(family="Sommer", given="Karl")])
        dlg.year_spin.setValue(2018)
        dlg.edits["container_title"].setText("Raptor Notes")
        dlg.doi_edit.setText("https://doi.org/10.5555/kestrel.1")
        dlg.accept()
        qtbot.waitUntil(lambda: not dlg.is_saving(), timeout=10_000)  # as exec() runs until done
        return int(dlg.result())

    monkeypatch.setattr(MetadataDialog, "exec", fill_and_accept)
    pane.select_ids([doc.doc_id])
    menu = pane.build_context_menu()
    assert menu is not None
    assert [a.text() for a in menu.actions() if a.text()] == [
        "Open", "Open File", "Show in Folder", "Edit Metadata…", "Notes…", "Papers in My Library That Cite This",
        "Copy Reference", "Copy In-text Citation", "Export Selection…",
        "Re-read Metadata from File", "Retrieve Metadata Online", "Add Tag…", "Add to Collection",
        "Move to Trash",
    ]  # fmt: skip
    next(a for a in menu.actions() if a.text() == "Edit Metadata…").trigger()

    updated = library.document(doc.doc_id)
    assert updated is not None
    assert (updated.title, updated.authors, updated.year, updated.venue, updated.doi) == (
        "Kestrels on Cathedral Spires", ["Rosa Linde", "Karl Sommer"], 2018, "Raptor Notes", "10.5555/kestrel.1",
    )  # fmt: skip
    assert "Kestrels on Cathedral Spires" in rows_of(pane)
    hits = library.search("cathedral spires", 3)
    assert hits and hits[0].doc_id == doc.doc_id and hits[0].title == "Kestrels on Cathedral Spires"

    next(a for a in pane.build_context_menu().actions() if a.text() == "Copy Reference").trigger()  # APA
    assert QGuiApplication.clipboard().text() == (
        "Linde, R., & Sommer, K. (2018). Kestrels on Cathedral Spires. Raptor Notes. "
        "https://doi.org/10.5555/kestrel.1"
    )


def test_metadata_dialog_rejects_an_empty_title(library: Library, qtbot: Any, tmp_path: Path) -> None:
    library.import_paths(write_text_papers(tmp_path / "in", 1))
    dlg = MetadataDialog(library, library.all_documents()[0].doc_id)
    qtbot.addWidget(dlg)
    dlg.title_edit.setText("   ")
    dlg.accept()
    assert dlg.result() != QDialog.DialogCode.Accepted
    assert not dlg.error_label.isHidden() and "title" in dlg.error_label.text().lower()


def test_plain_citation_formats() -> None:
    one = _doc(1, "A Title.", ["Solo Author"], None, 1)
    assert plain_citation(one) == "Solo Author (n.d.). A Title."
    none = _doc(2, "Untitled Notes", [], 2020, 1, venue="Field Diary")
    assert plain_citation(none) == "Untitled Notes (2020). Field Diary."


def test_pane_works_without_a_window(library: Library, qtbot: Any) -> None:
    pane = LibraryPane(library)
    qtbot.addWidget(pane)
    pane.refresh()
    assert pane.is_welcome_shown()
    with qtbot.waitSignal(pane.sample_requested):
        pane.sample_button.click()


def test_drop_on_the_filter_box_or_table_imports(
    window: Any, library: Library, qtbot: Any, tmp_path: Path
) -> None:
    library.import_paths(write_text_papers(tmp_path / "a", 1))
    window.refresh_library()
    pane = window.library_pane
    drop_files(pane.filter_edit, write_text_papers(tmp_path / "b", 2)[1:])
    wait_import(qtbot, window)
    assert pane.filter_edit.text() == ""  # the path did not land in the box as text
    third = tmp_path / "third.md"
    third.write_text("# Rooks\n\nThe rookery by the station held sixty nests in March.\n", encoding="utf-8")
    drop_files(pane.table.viewport(), [third])
    wait_import(qtbot, window)
    assert library.counts()[0] == 3
