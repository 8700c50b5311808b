"""Help ▸ Check Library…: the integrity check (core.library.integrity) in a worker, its report, Repair.

Also shown at start-up when the library database is missing or damaged, with the repair
started at once (the window cannot open on a library without its database).
"""

from __future__ import annotations

from PySide6.QtCore import Signal, Slot
from PySide6.QtGui import QCloseEvent, QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from ..core.api import IntegrityReport, Library, Message
from ..core.app import Session
from .i18n import said, tr
from .workers import FunctionWorker, WorkerThread


def report_text(report: IntegrityReport) -> str:
    lines = [f"{tr('Library')}: {report.library_dir}" + (f"  ({tr('read-only')})" if report.read_only else "")]
    lines += [f"{tr('Recovered on opening')}: {line}" for line in report.recovered]
    repaired = report.repaired_msgs if len(report.repaired_msgs) == len(report.repaired) else [None] * len(report.repaired)
    lines += [f"{tr('Repaired')}: {said(m) if m is not None else line}" for line, m in zip(report.repaired, repaired, strict=True)]
    lines += [
        f"{tr('Problem')}: {said(p.msg) if p.msg is not None else p.message}"
        + ("" if p.fixable else f" ({tr('cannot be repaired')})")
        for p in report.problems
    ]
    lines.append("")
    lines.append(f"{tr('Checked')} {said(report.summary_msg())}.")
    if report.clean:
        lines.append(tr("No problems found."))
    else:
        lines.append(f"{len(report.problems)} {tr('problem(s)')}; {report.fixable} {tr('can be repaired')}.")
    return "\n".join(lines)


class CheckDialog(QDialog):
    """The check's report with a Repair button; ``repaired`` is emitted after a repair ran."""

    repaired = Signal()

    def __init__(
        self, library: Library, parent: QWidget | None = None, *, repair_now: bool = False, session: Session | None = None
    ) -> None:
        super().__init__(parent)
        self.library = library
        # The check runs through the application layer, on this library (also a damaged one).
        self.session = session if session is not None else Session(paths=library.paths, library=library)
        self.setWindowTitle(tr("Check Library"))
        self.resize(760, 460)
        self.status = QLabel(self)
        self.status.setWordWrap(True)
        self.text = QPlainTextEdit(self)
        self.text.setReadOnly(True)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        self.repair_button = QPushButton(tr("Repair"), self)
        self.repair_button.setEnabled(False)
        self.buttons.addButton(self.repair_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.buttons.rejected.connect(self.reject)
        self.repair_button.clicked.connect(self.on_repair_button_clicked)
        layout = QVBoxLayout(self)
        layout.addWidget(self.status)
        layout.addWidget(self.text, 1)
        layout.addWidget(self.buttons)
        self.worker_thread: WorkerThread | None = None
        self.report: IntegrityReport | None = None
        self._repairing = False
        self._start(repair_now)

    def _start(self, repair: bool) -> None:
        worker = FunctionWorker(
            self.session.check, repair=repair, doing="The check", pass_cancel=True, pass_progress=True
        )
        worker.progress.connect(self.on_worker_progress)
        worker.finished.connect(self.on_worker_finished)
        worker.failed.connect(self.on_worker_failed)
        self.worker_thread = WorkerThread(worker, self)
        self._repairing = repair
        self.repair_button.setEnabled(False)
        self.status.setText(tr("Repairing the library…") if repair else tr("Checking the library…"))
        self.worker_thread.start()

    def _thread_done(self) -> None:
        if self.worker_thread is not None:
            self.worker_thread.finish()
            self.worker_thread = None

    @Slot(object)
    def on_worker_progress(self, message: Message) -> None:
        self.status.setText(said(message))

    @Slot(object)
    def on_worker_finished(self, report: IntegrityReport) -> None:
        self._thread_done()
        self.report = report
        self.text.setPlainText(report_text(report))
        if report.clean:
            self.status.setText(tr("The library is in order."))
        elif report.read_only:
            self.status.setText(tr("The library folder is read-only: problems can be shown but not repaired."))
        else:
            self.status.setText(tr("Repair fixes what it can without deleting any stored file."))
        self.repair_button.setEnabled(bool(report.fixable) and not report.read_only)
        if self._repairing:
            self.repaired.emit()

    @Slot(str)
    def on_worker_failed(self, message: str) -> None:
        self._thread_done()
        if self._repairing:
            self.repaired.emit()  # part of it may have run
        self.status.setText(message)
        self.repair_button.setEnabled(self.report is not None and bool(self.report.fixable))

    @Slot()
    def on_repair_button_clicked(self) -> None:
        if self.worker_thread is None:
            self._start(True)

    def stop(self) -> None:
        """Stop a running check (a repair stops between files) and wait for its thread."""
        if self.worker_thread is not None:
            self.worker_thread.stop(30_000)
            self._thread_done()

    def reject(self) -> None:
        self.stop()
        super().reject()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.stop()
        super().closeEvent(event)
