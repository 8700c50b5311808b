"""Metadata provenance in the GUI: the check flag column, its sort and filter, the editor naming
each value's source, re-reading in a worker, and the online action gated by the setting."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from paperpilot.core.library import Library
from paperpilot.core.models import DocumentInfo
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths
from paperpilot.ui.library_model import CHECK_MARK, Column, DocumentFilterProxy, DocumentTableModel
from paperpilot.ui.library_pane import MetadataDialog
from paperpilot.ui.settings_dialog import SettingsDialog
from tests.fixtures.pdfs import PAPER_TITLE, make_paper_pdf


def _doc(doc_id: int, title: str, conf: float | None, check: bool) -> DocumentInfo:
    return DocumentInfo(
        doc_id=doc_id, title=title, authors=["Ana Ruiz"], year=2020, pages=3, chunks=9, status="ready",
        metadata_sources={"title": "info"} if check else {"title": "layout", "authors": "layout"},
        metadata_confidence=conf, check_metadata=check,
    )  # fmt: skip


def test_flag_column_sorts_by_confidence_and_filters_needs_checking(qapp: Any) -> None:
    model = DocumentTableModel()
    model.set_documents([_doc(1, "Sure", 0.9, False), _doc(2, "Shaky", 0.3, True), _doc(3, "Middling", 0.6, True)])
    assert [model.index(r, Column.MARKS).data() for r in range(3)] == ["", CHECK_MARK, CHECK_MARK]
    tip = model.index(1, Column.MARKS).data(Qt.ItemDataRole.ToolTipRole)
    assert "0.30" in tip and "title (info)" in tip
    proxy = DocumentFilterProxy()
    proxy.setSourceModel(model)
    proxy.sort(Column.MARKS, Qt.SortOrder.AscendingOrder)
    assert [proxy.index(r, Column.TITLE).data() for r in range(3)] == ["Shaky", "Middling", "Sure"]
    proxy.set_needs_checking(True)
    assert sorted(proxy.index(r, Column.TITLE).data() for r in range(proxy.rowCount())) == ["Middling", "Shaky"]
    proxy.set_needs_checking(False)
    assert proxy.rowCount() == 3


def _import(library: Library, tmp_path: Path) -> int:
    report = library.import_paths([make_paper_pdf(tmp_path, with_info=False, name="p.pdf")])
    assert not report.failed
    return report.imported[0].doc_id


def test_editor_shows_sources_and_an_edit_becomes_yours(library: Library, qtbot: Any, tmp_path: Path) -> None:
    doc_id = _import(library, tmp_path)
    dlg = MetadataDialog(library, doc_id, style="apa")
    qtbot.addWidget(dlg)
    assert dlg.field_sources["title"] == "page 1 layout"
    assert dlg.title_edit.toolTip() == "From: page 1 layout"
    assert "DOI: masthead" in dlg.sources_label.text()
    dlg.title_edit.setText("A Title I Typed")
    dlg.accept()
    qtbot.waitUntil(lambda: dlg.result() == QDialog.DialogCode.Accepted, timeout=10_000)
    doc = library.document(doc_id)
    assert doc is not None and doc.metadata_sources["title"] == "user"
    again = MetadataDialog(library, doc_id, style="apa")
    qtbot.addWidget(again)
    assert again.field_sources["title"] == "you"


def test_reread_runs_in_a_worker_and_online_retrieval_waits_for_the_setting(
    window: Any, library: Library, qtbot: Any, tmp_path: Path
) -> None:
    doc_id = _import(library, tmp_path)
    window.refresh_library()
    pane = window.library_pane
    pane.select_ids([doc_id])
    menu = pane.build_context_menu()
    actions = {a.text(): a for a in menu.actions() if a.text()}
    assert not actions["Retrieve Metadata Online"].isEnabled()  # lookups are off by default

    threads: list[str] = []
    # The pane re-reads through Session.reread_metadata, which calls core.app's reread_metadata.
    import paperpilot.core.app as lp

    real = lp.reread_metadata

    def spy(lib: Library, i: int) -> Any:
        threads.append(threading.current_thread().name)
        return real(lib, i)

    lp.reread_metadata = spy  # type: ignore[assignment]
    try:
        actions["Re-read Metadata from File"].trigger()
        qtbot.waitUntil(lambda: pane.metadata_thread is None, timeout=20_000)
    finally:
        lp.reread_metadata = real  # type: ignore[assignment]
    assert threads and threads[0] != threading.main_thread().name
    doc = library.document(doc_id)
    assert doc is not None and doc.title == PAPER_TITLE

    settings = window.settings.model_copy(deep=True)
    settings.metadata.allow_online_lookups = True
    window.session.save_settings(settings)
    menu = pane.build_context_menu()
    assert next(a for a in menu.actions() if a.text() == "Retrieve Metadata Online").isEnabled()


def test_settings_dialog_round_trips_the_lookup_setting(qtbot: Any, paperpilot_home: Path) -> None:
    s = Settings()
    dlg = SettingsDialog(s, app_paths())
    qtbot.addWidget(dlg)
    assert not dlg.lookups_check.isChecked()
    dlg.lookups_check.setChecked(True)
    assert dlg.result_settings().metadata.allow_online_lookups
