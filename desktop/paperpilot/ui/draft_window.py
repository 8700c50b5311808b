"""The draft window: a cited proposal (开题报告) or literature review, written section by section
in the background, shown as it will be saved, then saved as .docx or Markdown."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..core.app import Session
from ..core.errors import PaperPilotError
from ..core.workflows.draft import Draft, SectionProgress, write_draft
from ..core.workflows.export import draft_docx, draft_markdown
from ..core.workflows.scope import Scope
from ..core.workflows.templates import BUILTIN_TEMPLATES, load_template
from .i18n import tr
from .workers import GeneratorWorker, WorkerThread


class DraftWindow(QMainWindow):
    """Write a draft over ``doc_ids`` (all papers when empty)."""

    def __init__(self, session: Session, doc_ids: list[int], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.doc_ids = list(doc_ids)
        self.thread: WorkerThread | None = None
        self.draft: Draft | None = None
        self.setWindowTitle(tr("Draft with Citations"))
        self.resize(900, 760)
        self.topic_edit = QLineEdit(self)
        self.topic_edit.setPlaceholderText(tr("Topic, e.g. 对比近三年 Transformer 在医学影像分割方向的研究进展"))
        self.template_box = QComboBox(self)
        for name in BUILTIN_TEMPLATES:
            self.template_box.addItem(tr(name), name)
        self.write_button = QPushButton(tr("Write"), self)
        self.save_button = QPushButton(tr("Save…"), self)
        self.save_button.setEnabled(False)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(200)
        self.view = QTextBrowser(self)
        self.status_label = QLabel("", self)
        bar = QHBoxLayout()
        bar.addWidget(self.topic_edit, 3)
        bar.addWidget(self.template_box)
        bar.addWidget(self.progress)
        bar.addWidget(self.write_button)
        bar.addWidget(self.save_button)
        body = QWidget(self)
        lay = QVBoxLayout(body)
        lay.addLayout(bar)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.status_label)
        self.setCentralWidget(body)
        self.write_button.clicked.connect(self.on_write_button_clicked)
        self.save_button.clicked.connect(self.on_save_button_clicked)

    def start(self, topic: str, template: str) -> None:
        if self.thread is not None:
            return
        try:
            t = load_template(template)
            model = self.session.workflow_model()
        except PaperPilotError as e:
            QMessageBox.warning(self, tr("Draft"), str(e))
            return
        style = self.session.draft_style(t.language)
        session = self.session
        cancel = threading.Event()

        def references(ids: Any) -> list[str]:
            return session.reference_entries(ids, style)

        run = write_draft(session.workflows, session.library, topic, t, Scope(doc_ids=self.doc_ids), model=model,
                          references=references, cancel=cancel)  # fmt: skip
        worker = GeneratorWorker(run, doing="The draft", cancel=cancel)
        worker.item.connect(self.on_worker_item)
        worker.finished.connect(self.on_worker_finished)
        worker.failed.connect(self.on_worker_failed)
        self.progress.setRange(0, len(t.sections))
        self.progress.setValue(0)
        self.write_button.setText(tr("Stop"))
        self.save_button.setEnabled(False)
        self.thread = WorkerThread(worker, self)
        self.thread.start()

    def stop(self) -> None:
        if self.thread is not None and isinstance(self.thread.worker, GeneratorWorker):
            self.thread.worker.request_stop()

    def _done(self) -> None:
        if self.thread is not None:
            self.thread.finish()
            self.thread = None
        self.write_button.setText(tr("Write"))

    @Slot(object)
    def on_worker_item(self, ev: Any) -> None:
        if isinstance(ev, SectionProgress):
            if ev.section is None:
                self.status_label.setText(tr("Writing “{h}” ({i} of {n})…").format(h=ev.heading, i=ev.index + 1, n=ev.total))
            else:
                self.progress.setValue(ev.index + 1)
        elif isinstance(ev, Draft):
            self.draft = ev
            self.view.setMarkdown(draft_markdown(ev))
            self.progress.setValue(self.progress.maximum() if ev.status == "done" else self.progress.value())
            self.save_button.setEnabled(True)
            u = ev.usage
            self.status_label.setText(tr("{status}: {refs} references, {dropped} unsupported sentence(s) dropped, "
                                         "{tokens} tokens, {s:.1f} s").format(
                status=ev.status, refs=len(ev.references), dropped=ev.dropped_sentences,
                tokens=u.prompt_tokens + u.completion_tokens, s=ev.seconds))  # fmt: skip

    @Slot(object)
    def on_worker_finished(self, _it: Any) -> None:
        self._done()

    @Slot(str)
    def on_worker_failed(self, message: str) -> None:
        self._done()
        self.status_label.setText(message)

    @Slot()
    def on_write_button_clicked(self) -> None:
        if self.thread is not None:
            self.stop()
            return
        topic = self.topic_edit.text().strip()
        if not topic:
            self.status_label.setText(tr("Give the draft a topic first."))
            return
        self.start(topic, self.template_box.currentData())

    @Slot()
    def on_save_button_clicked(self) -> None:
        name, _ = QFileDialog.getSaveFileName(self, tr("Save draft"), str(Path.home() / "draft.docx"),
                                              "Word (*.docx);;Markdown (*.md)")  # fmt: skip
        if name:
            self.save_to(Path(name))

    def save_to(self, path: Path, *, appendix: bool = False) -> None:
        if self.draft is None:
            return
        try:
            if path.suffix.lower() == ".docx":
                draft_docx(self.draft, path, appendix=appendix)
            else:
                path.write_text(draft_markdown(self.draft, appendix=appendix), encoding="utf-8")
        except OSError as e:
            QMessageBox.warning(self, tr("Could not save"), f"{path}: {e.strerror or e}")

    def closeEvent(self, event: Any) -> None:
        if self.thread is not None:
            self.stop()
            self.thread.stop()
            self.thread = None
        super().closeEvent(event)
