"""The draft window: a cited proposal (开题报告) or literature review, written section by section
in the background, shown as it will be saved, then saved as .docx or Markdown.

On the left the saved drafts (a click reopens one at once; rename, delete); on top the topic,
the papers (the selection, a tag, a collection or a query, a year range; a topic saying
"近三年" narrows the years itself), the template, the language and how it is written. A
stopped or unfinished draft resumes where it stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..core.api import (
    BUILTIN_TEMPLATES,
    Draft,
    PaperSelection,
    SavedDraft,
    SectionProgress,
    Template,
    draft_markdown,
    draft_scope,
)
from ..core.app import Session
from .i18n import tr
from .workflow_parts import WorkflowWindow, policy_box

TEMPLATE_LABELS = {"proposal-zh": "Research proposal (开题报告)", "review-en": "Literature review"}
OTHER_TEMPLATE = "__file__"


def _write(session: Session, topic: str, template_name: str | Template, scope: PaperSelection, language: str, policy: str,
           cancel: threading.Event, draft_id: str | None = None) -> Iterator[SectionProgress | Draft]:  # fmt: skip
    """The draft's sections (a new one, or the rest of ``draft_id``), with the model and the
    template read here, off the GUI thread."""
    yield from session.write_draft(topic, template_name, scope, language=language, policy=policy or None, cancel=cancel,
                                   draft_id=draft_id)  # fmt: skip


class DraftWindow(WorkflowWindow):
    """The saved drafts and one draft: write a new one over the scope row's papers, or reopen,
    resume and save a saved one."""

    KIND = "draft"
    TITLE = "Draft with Citations"
    STOPPING = "Stopping after the current section…"
    BUSY_NEW = "Stop the run before starting another draft."

    def __init__(self, session: Session, doc_ids: list[int], parent: QWidget | None = None) -> None:
        super().__init__(session, doc_ids, parent)
        self.draft: Draft | None = None
        self.shown: SavedDraft | None = None  # the saved draft being shown (resume needs its scope)
        self.resize(1100, 760)
        self.topic_edit = QLineEdit(self)
        self.topic_edit.setPlaceholderText(tr("Topic, e.g. 对比近三年 Transformer 在医学影像分割方向的研究进展"))
        self.scope_row.adjust = self._with_topic_years
        self.template_box = QComboBox(self)
        for name in BUILTIN_TEMPLATES:
            self.template_box.addItem(tr(TEMPLATE_LABELS.get(name, name)), name)
        self.template_box.addItem(tr("Template file…"), OTHER_TEMPLATE)
        self.language_box = QComboBox(self)
        self.language_box.addItem(tr("Template's language"), "")
        self.language_box.addItem(tr("Chinese"), "zh")
        self.language_box.addItem(tr("English"), "en")
        self.policy_box = policy_box(self)
        self.write_button = QPushButton(tr("Write"), self)
        self.write_button.setObjectName("writeDraft")
        self.save_button = QPushButton(tr("Save…"), self)
        self.appendix_box = QCheckBox(tr("Evidence appendix"), self)
        self.progress = QProgressBar(self)
        self.progress.setMaximumWidth(180)
        self.progress.setFormat(tr("%v of %m sections"))
        self.view = QTextBrowser(self)
        self.view.setObjectName("draftView")
        top = QHBoxLayout()
        top.addWidget(QLabel(tr("Topic:"), self))
        top.addWidget(self.topic_edit, 1)
        how = QHBoxLayout()
        how.addWidget(QLabel(tr("Template:"), self))
        how.addWidget(self.template_box, 1)
        how.addWidget(QLabel(tr("Language:"), self))
        how.addWidget(self.language_box)
        how.addWidget(QLabel(tr("Answers:"), self))
        how.addWidget(self.policy_box)
        act = QHBoxLayout()
        act.addWidget(self.progress)
        act.addWidget(self.write_button)
        act.addStretch(1)
        act.addWidget(self.appendix_box)
        act.addWidget(self.save_button)
        right = QWidget(self)
        lay = QVBoxLayout(right)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(top)
        lay.addWidget(self.scope_row)
        lay.addLayout(how)
        lay.addLayout(act)
        lay.addWidget(self.view, 1)
        lay.addWidget(self.status_label)
        self.assemble(right, 1100)
        self.write_button.clicked.connect(self.on_write_button_clicked)
        self.save_button.clicked.connect(self.on_save_button_clicked)
        self.template_box.activated.connect(self.on_template_box_activated)
        self.topic_edit.textChanged.connect(self.on_topic_edit_text_changed)
        self.show_new()

    def shown_id(self) -> str | None:
        return self.shown.draft.id if self.shown is not None else None

    def renamed(self, title: str) -> None:
        if self.shown is not None:
            self.shown.title = title
        self.set_title(title)

    def _with_topic_years(self, scope: PaperSelection) -> PaperSelection:
        return draft_scope(self.topic_edit.text(), scope)

    def _buttons(self) -> None:
        running = self.cancel is not None
        resumable = self.shown is not None and self.shown.remaining > 0
        self.write_button.setText(tr("Stop") if running else (tr("Resume") if resumable else tr("Write")))
        self.write_button.setEnabled(running or (not self.busy and (self.shown is None or resumable)))
        self.save_button.setEnabled(self.draft is not None and not running)
        editable = self.shown is None and not running
        for w in (self.topic_edit, self.template_box, self.language_box):
            w.setEnabled(editable)
        self.policy_box.setEnabled(not running)
        self.scope_row.set_locked(not editable)
        self.run_changed()

    def show_new(self) -> None:
        self.draft = None
        self.shown = None
        self.view.clear()
        self.saved.select(None)
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.set_title("")
        self.status_label.setText(tr("Give a topic and choose the papers, then Write; or reopen a saved draft on the left."))
        self._buttons()

    def _show_draft(self, d: Draft) -> None:
        self.draft = d
        self.view.setMarkdown(draft_markdown(d))
        u = d.usage
        status = {"done": tr("done"), "cancelled": tr("stopped"), "running": tr("writing")}.get(d.status, d.status)
        self.status_label.setText(tr("{status}: {refs} references, {dropped} unsupported sentence(s) dropped, "
                                     "{tokens} tokens, {s:.1f} s").format(
            status=status, refs=len(d.references), dropped=d.dropped_sentences,
            tokens=u.prompt_tokens + u.completion_tokens, s=d.seconds))  # fmt: skip

    # --- writing, opening, saving ------------------------------------------------------------------

    def start(self, topic: str, template: str) -> bool:
        """Write a new draft on ``topic`` over the scope row's papers; False when busy."""
        if self.busy:
            return False
        cancel = threading.Event()
        run = _write(self.session, topic, template, self.scope_row.scope(), str(self.language_box.currentData() or ""),
                     str(self.policy_box.currentData() or ""), cancel)  # fmt: skip
        return self._run(run, cancel, None)

    def resume(self) -> bool:
        """Write the sections a reopened draft still lacks."""
        s = self.shown
        if s is None or self.busy or s.remaining == 0:
            return False
        cancel = threading.Event()
        d = s.draft
        run = _write(self.session, d.topic, d.template, s.scope, d.language, str(self.policy_box.currentData() or ""),
                     cancel, d.id)  # fmt: skip
        return self._run(run, cancel, s)

    def _run(self, run: Iterator[Any], cancel: threading.Event, shown: SavedDraft | None) -> bool:
        if not self.task.iterate(run, cancel=cancel, item=self.on_section, done=self.on_written,
                                 failed=self.on_failed, doing="The draft"):  # fmt: skip
            return False
        self.cancel = cancel
        self.shown = shown
        self.status_label.setText(tr("Planning the sections…"))
        self._buttons()
        return True

    def open_saved(self, draft_id: str) -> bool:
        if self.busy:
            self.status_label.setText(tr("Stop the run before opening another draft."))
            self.saved.select(self.draft.id if self.draft else None)
            return False
        self.status_label.setText(tr("Opening…"))
        return self.task.call(self.session.open_draft, draft_id, done=self.on_opened, failed=self.on_failed,
                              doing="Opening the draft")  # fmt: skip

    def save_to(self, path: Path, *, appendix: bool = False) -> bool:
        """Save the draft (.docx or .md, by the suffix) in the background."""
        if self.draft is None:
            return False
        return self.side_task.call(self.session.export_draft, self.draft, path, appendix=appendix,
                                   done=self.on_saved, failed=self.on_failed, doing="Saving the draft")  # fmt: skip

    # --- what the background work reports ----------------------------------------------------------

    def on_section(self, ev: Any) -> None:
        if isinstance(ev, SectionProgress):
            self.progress.setRange(0, ev.total)
            if ev.section is None:
                self.status_label.setText(tr("Writing “{h}” ({i} of {n})…").format(h=ev.heading, i=ev.index + 1, n=ev.total))
            else:
                self.progress.setValue(ev.index + 1)
        elif isinstance(ev, Draft):
            self._show_draft(ev)

    def on_written(self, _run: Any) -> None:
        self.cancel = None
        d = self.draft
        if d is not None:
            total = len(d.template.sections)
            self.progress.setRange(0, total)
            self.progress.setValue(len(d.sections))
            self.shown = SavedDraft(d, self.shown.scope if self.shown else self.scope_row.scope(),
                                    self.shown.title if self.shown else d.topic, total - len(d.sections))  # fmt: skip
            self.set_title(self.shown.title)
            if d.status == "cancelled":
                self.say(tr("stopped; the sections done are saved: Resume"), add=True)
        self.saved.refresh()
        self.saved.select(d.id if d else None)
        self._buttons()

    def on_opened(self, s: SavedDraft) -> None:
        self.shown = s
        d = s.draft
        self._show_draft(d)
        self.topic_edit.setText(d.topic)
        i = self.template_box.findData(d.template.name)
        self.template_box.setCurrentIndex(max(0, i))
        self.language_box.setCurrentIndex(max(0, self.language_box.findData(d.language)))
        self.scope_row.show_scope(s.scope)
        total = len(d.template.sections)
        self.progress.setRange(0, total)
        self.progress.setValue(len(d.sections))
        self.set_title(s.title)
        if s.remaining:
            self.say(tr("{n} sections to write: Resume").format(n=s.remaining), add=True)
        self.saved.select(d.id)
        self._buttons()

    def on_failed(self, message: str) -> None:
        self.cancel = None
        self.status_label.setText(message)
        self._buttons()

    def on_saved(self, path: Path) -> None:
        self.status_label.setText(tr("Saved to {path}").format(path=path))

    # --- slots -------------------------------------------------------------------------------------

    @Slot()
    def on_write_button_clicked(self) -> None:
        if self.cancel is not None:
            self.stop()
            return
        if self.shown is not None:
            if self.shown.remaining:
                self.resume()
            return
        topic = self.topic_edit.text().strip()
        if not topic:
            self.status_label.setText(tr("Give the draft a topic first."))
            return
        self.start(topic, str(self.template_box.currentData()))

    @Slot(int)
    def on_template_box_activated(self, i: int) -> None:
        if self.template_box.itemData(i) != OTHER_TEMPLATE:
            return
        name, _ = QFileDialog.getOpenFileName(self, tr("Template file"), str(Path.home()), "JSON (*.json)")
        if not name:
            self.template_box.setCurrentIndex(0)
            return
        self.template_box.insertItem(i, Path(name).stem, name)
        self.template_box.setCurrentIndex(i)

    @Slot(str)
    def on_topic_edit_text_changed(self, _text: str) -> None:
        self.scope_row.on_edited()

    @Slot()
    def on_save_button_clicked(self) -> None:
        name, chosen = QFileDialog.getSaveFileName(self, tr("Save draft"), str(Path.home() / "draft.docx"),
                                                   "Word (*.docx);;Markdown (*.md)")  # fmt: skip
        if name:
            path = Path(name)
            if not path.suffix:
                path = path.with_suffix(".md" if "md" in chosen else ".docx")
            self.save_to(path, appendix=self.appendix_box.isChecked())
