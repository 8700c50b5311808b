"""The GUI's side of OCR: the import shows "OCR page k of n", the inspector says "text from OCR",
and the Settings dialog turns OCR off."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Slot
from pytestqt.qtbot import QtBot

from paperpilot.core.app import Session
from paperpilot.core.library import Library
from paperpilot.core.settings import keystore
from paperpilot.core.settings.config import ImportSettings, Settings
from paperpilot.core.settings.paths import AppPaths, app_paths
from paperpilot.core.text.language import has_cjk
from paperpilot.ui import i18n
from paperpilot.ui.import_log import batch_lines
from paperpilot.ui.inspector import InspectorPane
from paperpilot.ui.main_window import MainWindow
from paperpilot.ui.settings_dialog import SettingsDialog
from tests.fixtures import pdfs

TIMEOUT_MS = 120_000  # OCR of one page plus the model load, on two busy cores


class LabelRecorder(QObject):
    """Records the window's task label each time the import reports a step (in the GUI thread:
    a bound slot of a GUI-thread object, queued after the window's own slot)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__()
        self.window = window
        self.labels: list[str] = []

    @Slot(str)
    def record(self, _detail: str) -> None:
        self.labels.append(self.window.task_label.text())


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> AppPaths:
    monkeypatch.setenv(keystore.NO_KEYRING_ENV, "1")
    return app_paths().ensure()


@pytest.fixture
def window(qtbot: QtBot, paths: AppPaths) -> Iterator[MainWindow]:
    lib = Library(paths)
    win = MainWindow(lib, paths, Settings())
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.shutdown_workers()
    lib.close()


def test_a_scanned_pdf_imports_in_the_gui_with_ocr_progress_and_its_evidence_says_ocr(
    qtbot: QtBot, window: MainWindow, paths: AppPaths, tmp_path: Path
) -> None:
    scan = pdfs.make_scanned_pdf(tmp_path, [pdfs.scan_image(pdfs.SCAN_EN_LINES)], "scan.pdf")
    recorder = LabelRecorder(window)
    window.start_import([str(scan)])
    assert window.import_thread is not None
    window.import_thread.worker.step.connect(recorder.record)  # type: ignore[attr-defined]
    steps = recorder.labels
    qtbot.waitUntil(lambda: window.import_thread is None, timeout=TIMEOUT_MS)
    report = window.last_report
    assert report is not None and len(report.imported) == 1, report
    assert steps and steps[0].endswith("scan.pdf · OCR page 1 of 1")

    # Ask about the scanned words (offline agent), then show the answer in an inspector.
    with Session(paths=paths, library=window.library) as s:
        run = s.ask("What does the optical character reader join?")
        for _ in run:
            pass
    assert run.result is not None and run.result.evidence
    insp = InspectorPane()
    qtbot.addWidget(insp)
    insp.show_result(run.result)
    insp.evidence_list.setCurrentRow(0)
    assert run.result.evidence[0].ocr
    assert "text from OCR" in insp.passage_view.toPlainText()


def test_evidence_from_a_text_layer_does_not_say_ocr(qtbot: QtBot, paths: AppPaths, tmp_path: Path) -> None:
    (tmp_path / "note.md").write_text(
        "# Readers\n\nThe optical character reader joins the halves of a broken word again.\n", encoding="utf-8"
    )
    with Session(paths=paths) as s:
        assert s.import_paths([str(tmp_path / "note.md")]).imported
        run = s.ask("What does the optical character reader join?")
        for _ in run:
            pass
    assert run.result is not None and run.result.evidence
    insp = InspectorPane()
    qtbot.addWidget(insp)
    insp.show_result(run.result)
    insp.evidence_list.setCurrentRow(0)
    assert "Page 1" in insp.passage_view.toPlainText()
    assert "text from OCR" not in insp.passage_view.toPlainText()


def test_the_settings_dialog_turns_ocr_off(qtbot: QtBot, paths: AppPaths) -> None:
    dialog = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dialog)
    assert dialog.ocr_check.isChecked()
    dialog.ocr_check.setChecked(False)
    assert dialog.result_settings().imports.ocr is False


@pytest.fixture
def chinese() -> Iterator[None]:
    i18n.set_language("zh")
    yield
    i18n.set_language("en")


def test_ocr_progress_and_its_failure_reason_are_chinese_in_the_chinese_ui(
    qtbot: QtBot, paths: AppPaths, tmp_path: Path, chinese: None
) -> None:
    blank = pdfs.make_scanned_pdf(tmp_path, [pdfs.scan_image([])], "blank_scan.pdf")
    lib = Library(paths)
    win = MainWindow(lib, paths, Settings())
    try:
        win.show()
        qtbot.waitExposed(win)
        recorder = LabelRecorder(win)
        win.start_import([str(blank)])
        assert win.import_thread is not None
        win.import_thread.worker.step.connect(recorder.record)  # type: ignore[attr-defined]
        qtbot.waitUntil(lambda: win.import_thread is None, timeout=TIMEOUT_MS)
        assert recorder.labels and recorder.labels[0].endswith("blank_scan.pdf · OCR 识别第 1 页（共 1 页）")
        assert win.last_report is not None
        assert batch_lines(win.last_report) == [("失败", "blank_scan.pdf: 所有页面都没有找到文字，OCR 也没有识别出文字。")]
    finally:
        win.shutdown_workers()
        lib.close()


def test_every_reason_a_pdf_fails_with_has_a_chinese_rendering(paths: AppPaths, tmp_path: Path) -> None:
    made = [
        pdfs.make_scanned_pdf(tmp_path, [None, None], "blank.pdf"),
        pdfs.make_scanned_pdf(tmp_path, [pdfs.scan_image(pdfs.SCAN_EN_LINES)], "scan.pdf"),
        pdfs.make_encrypted_pdf(tmp_path),
        pdfs.make_truncated_pdf(tmp_path),
        pdfs.make_empty_pdf(tmp_path),
        pdfs.make_not_a_pdf(tmp_path),
    ]
    (tmp_path / "zero.pdf").write_bytes(b"")
    lib = Library(paths, settings=ImportSettings(ocr=False))
    try:
        report = lib.import_paths([*made, tmp_path / "zero.pdf", tmp_path / "gone.pdf"])
    finally:
        lib.close()
    reasons = {why for _p, why in report.failed + report.unsupported}
    assert len(reasons) >= 6, reasons
    # Each comes with its catalogued message (which has a Chinese template for every code).
    assert [r for r in reasons if report.message(r) is None] == []
    i18n.set_language("zh")
    try:
        chinese = [i18n.said_or(report.message(r), r) for r in reasons]
    finally:
        i18n.set_language("en")
    assert all(has_cjk(t) for t in chinese), chinese
