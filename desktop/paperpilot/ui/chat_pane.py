"""The chat pane: the conversation (questions and cited answers), the question box, Send / Stop.

The pane knows nothing of threads or the agent: it emits ``ask_requested`` / ``stop_requested``
and the main window calls ``set_running``, ``on_event``, ``show_result`` and ``show_error``.
Answers are rendered from the model's markdown by a small converter that escapes everything
first, so neither a document nor a model can inject HTML into the view.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QEvent, QMimeData, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QKeyEvent, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from ..core.api import (
    ActionChosen,
    AnswerDrafted,
    Evidence,
    Info,
    Rendered,
    Result,
    RoundStarted,
    RunStarted,
    Status,
    ToolResult,
    answer_status,
    format_reference,
    msg,
    one_line,
    tools,
)
from .i18n import language, said, said_each, tr
from .qtcompat import new_mime_data
from .workers import FOLLOWUP_INFO_CODE
from .wrap_label import WrapLabel

# doc ids in bibliography order → their entries in the preferred style (numbered if numeric).
ReferenceFormatter = Callable[[list[int]], list[Rendered]]
# doc ids cited together, their bibliography numbers → the in-text marker ("[1, 3]", "(A, 2020)").
CitationFormatter = Callable[[list[int], list[int]], str]

MODES: tuple[tuple[str, str], ...] = (("Auto", "auto"), ("Quick", "quick"), ("Deep loop", "loop"))

# Fixed colours with white text at ≥ 4.5:1 contrast, readable on light and dark palettes alike.
# Partial is violet: a hue of its own between the green of answered and the amber of
# insufficient, so the two are never confused at a glance.
STATUS_COLOURS: dict[str, str] = {
    Status.ANSWERED.value: "#1b7f3b",
    Status.PARTIAL.value: "#6b3fb5",
    Status.INSUFFICIENT.value: "#9a5200",
    Status.TRUNCATED.value: "#1f5fa8",
    Status.CANCELLED.value: "#5f6368",
    Status.FAILED.value: "#b3261e",
}

# --- markdown → HTML ------------------------------------------------------------------------------

_CITE = re.compile(r"\[(\d+(?:\s*[,;]\s*\d+)*)\]")
_CODE = re.compile(r"`([^`\n]+)`")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_BULLET = re.compile(r"^\s*[-*•]\s+(.*)$")
_NUMBERED = re.compile(r"^\s*\d+[.)]\s+(.*)$")
_HEADING = re.compile(r"^\s*(#{1,6})\s+(.*?)\s*#*\s*$")
# Adjacent markers ("[2][3]") cite together: after renumbering by document they may be one.
_CITE_RUN = re.compile(r"\[\d+(?:\s*[,;]\s*\d+)*\](?:\[\d+(?:\s*[,;]\s*\d+)*\])*")


# --- answer citations → bibliography --------------------------------------------------------------


@dataclass(frozen=True)
class CitedDocuments:
    """An answer's sources as a bibliography: one entry per document, in order of first citation."""

    doc_ids: list[int]  # entry k (1-based) is doc_ids[k - 1]
    numbers: dict[int, int]  # evidence number → entry number


def number_by_document(answer: str, evidence: Sequence[Evidence]) -> CitedDocuments:
    """Number the documents an answer cites in the order the answer first cites them.

    Evidence numbers are per passage, so two passages of one paper are two numbers; a reference
    list names the paper once, and both passages' markers point at its single entry. An answer
    without usable markers lists its verified evidence, in evidence order.
    """
    by_number = {e.number: e for e in evidence}
    order: list[int] = []
    for m in _CITE.finditer(answer):
        for part in re.split(r"[,;]", m.group(1)):
            n = int(part)
            if n in by_number and n not in order:
                order.append(n)
    if not order:
        order = [e.number for e in sorted(evidence, key=lambda e: e.number) if e.verified]
    doc_ids: list[int] = []
    numbers: dict[int, int] = {}
    for n in order:
        doc_id = by_number[n].doc_id
        if doc_id not in doc_ids:
            doc_ids.append(doc_id)
        numbers[n] = doc_ids.index(doc_id) + 1
    return CitedDocuments(doc_ids, numbers)


def bracket_marker(doc_ids: list[int], numbers: list[int]) -> str:
    """``[1, 3]``: the marker when no citation style is at hand."""
    return "[" + ", ".join(str(n) for n in numbers) + "]"


def renumber_citations(answer: str, cited: CitedDocuments, marker: CitationFormatter = bracket_marker) -> str:
    """The answer with each run of evidence markers replaced by its documents' in-text marker.

    Numbers that are not evidence (a year in brackets, a model's slip) are left as written.
    """

    def replace(m: re.Match[str]) -> str:
        evidence_numbers = [int(x) for x in re.findall(r"\d+", m.group(0))]
        entries = sorted({cited.numbers[n] for n in evidence_numbers if n in cited.numbers})
        if not entries:
            return m.group(0)
        return marker([cited.doc_ids[k - 1] for k in entries], entries)

    return _CITE_RUN.sub(replace, answer)


def _inline(text: str, cite_numbers: set[int] | None) -> str:
    """Escape, then apply inline markdown; citation numbers become ``cite:n`` links."""
    out = html.escape(text, quote=False)
    codes: list[str] = []

    def keep_code(m: re.Match[str]) -> str:
        codes.append(f"<code>{m.group(1)}</code>")
        return f"\x00{len(codes) - 1}\x00"

    out = _CODE.sub(keep_code, out)
    out = _BOLD.sub(lambda m: f"<b>{m.group(1) or m.group(2)}</b>", out)
    out = _ITALIC.sub(lambda m: f"<i>{m.group(1) or m.group(2)}</i>", out)
    if cite_numbers is not None:

        def link(m: re.Match[str]) -> str:
            parts = re.split(r"(\s*[,;]\s*)", m.group(1))
            rendered = []
            for p in parts:
                if p.strip().isdigit() and int(p) in cite_numbers:
                    rendered.append(f'<a href="cite:{int(p)}" style="text-decoration:none">{p}</a>')
                else:
                    rendered.append(p)
            return "[" + "".join(rendered) + "]"

        out = _CITE.sub(link, out)
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], out)


def markdown_to_html(text: str, cite_numbers: set[int] | None = None) -> str:
    """A small, safe subset of markdown: paragraphs, lists, headings, bold, italic, code.

    ``cite_numbers``: the evidence numbers to link; None renders citations as plain text
    (for the clipboard, where a ``cite:`` link means nothing).
    """
    blocks: list[str] = []
    para: list[str] = []
    items: list[str] = []
    list_tag = ""

    def flush_para() -> None:
        if para:
            blocks.append("<p>" + "<br>".join(_inline(line, cite_numbers) for line in para) + "</p>")
            para.clear()

    def flush_list() -> None:
        nonlocal list_tag
        if items:
            blocks.append(f"<{list_tag}>" + "".join(f"<li>{i}</li>" for i in items) + f"</{list_tag}>")
            items.clear()
        list_tag = ""

    for raw in text.replace("\r\n", "\n").split("\n"):
        line = raw.rstrip()
        if not line.strip():
            flush_para()
            flush_list()
            continue
        bullet = _BULLET.match(line)
        numbered = None if bullet else _NUMBERED.match(line)
        heading = None if (bullet or numbered) else _HEADING.match(line)
        if bullet or numbered:
            flush_para()
            tag = "ul" if bullet else "ol"
            if list_tag and list_tag != tag:
                flush_list()
            list_tag = tag
            m = bullet or numbered
            assert m is not None
            items.append(_inline(m.group(1), cite_numbers))
        elif heading:
            flush_para()
            flush_list()
            level = min(6, len(heading.group(1)) + 2)  # answers use headings sparingly; keep them small
            blocks.append(f"<h{level}>{_inline(heading.group(2), cite_numbers)}</h{level}>")
        elif items and raw.startswith((" ", "\t")):
            items[-1] += " " + _inline(line.strip(), cite_numbers)  # a wrapped list item
        else:
            flush_list()
            para.append(line.strip())
    flush_para()
    flush_list()
    return "\n".join(blocks)


def escape_multiline(text: str) -> str:
    return "<br>".join(html.escape(line, quote=False) for line in text.strip().splitlines())


# --- widgets --------------------------------------------------------------------------------------


class PromptEdit(QPlainTextEdit):
    """The question box: Enter sends, Shift+Enter inserts a new line."""

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setPlaceholderText(tr("Ask a question about your papers…"))
        self.setTabChangesFocus(True)
        # Files dropped on the question box must reach the window's import, not become text.
        self.setAcceptDrops(False)
        lines = 3
        margins = self.contentsMargins()
        frame = int(self.document().documentMargin() * 2) + self.frameWidth() * 2
        self.setFixedHeight(self.fontMetrics().lineSpacing() * lines + frame + margins.top() + margins.bottom() + 4)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # Qt override
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                # Insert "\n" ourselves: the default inserts U+2028, which is not a newline
                # in toPlainText() on every Qt version.
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            event.accept()
            return
        super().keyPressEvent(event)


@dataclass
class _Exchange:
    question: str
    result: Result | None = None
    error: str = ""
    understood: str = ""  # the standalone question a follow-up was rewritten into
    scope: str = ""  # "collection: Thesis" when the question was asked of part of the library


class ChatPane(QWidget):
    ask_requested = Signal(str, str)  # question, mode ("auto" | "quick" | "loop")
    stop_requested = Signal()
    citation_clicked = Signal(int)  # evidence number

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatPane")
        self._exchanges: list[_Exchange] = []
        self._running = False
        self._asked: str | None = None  # the question whose ask_requested awaits set_running(True)
        self._last_result: Result | None = None
        self._format_references: ReferenceFormatter | None = None
        self._format_citation: CitationFormatter | None = None

        self.conversation = QTextBrowser(self)
        self.conversation.setObjectName("conversation")
        self.conversation.setOpenLinks(False)
        self.conversation.setOpenExternalLinks(False)
        self.conversation.document().setDocumentMargin(10)

        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)
        self.busy.setTextVisible(False)
        self.busy.setFixedSize(80, 8)
        self.progress_label = QLabel(self)
        self.progress_label.setObjectName("progressLabel")
        self.progress_label.setTextFormat(Qt.TextFormat.PlainText)
        self.progress_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

        self.input = PromptEdit(self)
        self.input.setObjectName("questionInput")
        self.mode_combo = QComboBox(self)
        self.mode_combo.setObjectName("modeCombo")
        self.mode_combo.setToolTip(
            tr("Auto picks a quick search for simple questions and the research loop for harder ones.")
        )
        for label, value in MODES:
            self.mode_combo.addItem(tr(label), value)
        self.send_button = QPushButton(tr("Send"), self)
        self.send_button.setObjectName("sendButton")
        self.send_button.setDefault(False)
        self.send_button.setAutoDefault(False)
        self.stop_button = QPushButton(tr("Stop"), self)
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setToolTip(tr("Stop the run (Esc)"))
        self.copy_button = QPushButton(tr("Copy answer"), self)
        self.copy_button.setObjectName("copyButton")
        self.copy_button.setFlat(True)
        self.copy_button.setEnabled(False)
        # Wrapped, not cut: at 1024 px the chat column is narrower than the hint and the button.
        self.hint_label = WrapLabel(self)
        self.hint_label.setText(tr("Enter sends · Shift+Enter new line"))

        status_row = QHBoxLayout()
        status_row.setContentsMargins(2, 0, 2, 0)
        status_row.addWidget(self.busy)
        status_row.addWidget(self.progress_label, 1)

        side = QVBoxLayout()
        side.setSpacing(4)
        side.addWidget(self.mode_combo)
        side.addWidget(self.send_button)
        side.addWidget(self.stop_button)
        side.addStretch(1)
        input_row = QHBoxLayout()
        input_row.addWidget(self.input, 1)
        input_row.addLayout(side)

        bottom = QHBoxLayout()
        bottom.setContentsMargins(2, 0, 2, 0)
        bottom.addWidget(self.hint_label, 1)
        bottom.addWidget(self.copy_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(6)
        layout.addWidget(self.conversation, 1)
        layout.addLayout(status_row)
        layout.addLayout(input_row)
        layout.addLayout(bottom)

        self._stop_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self._stop_shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)

        self.send_button.clicked.connect(self.on_send_clicked)
        self.stop_button.clicked.connect(self.on_stop_clicked)
        self.copy_button.clicked.connect(self.copy_answer)
        self.input.submitted.connect(self.on_input_submitted)
        self.conversation.anchorClicked.connect(self.on_conversation_anchor_clicked)
        self._stop_shortcut.activated.connect(self.on_stop_clicked)

        self._apply_muted_style()
        self.set_running(False)
        self._render()

    # --- public API (called by the main window) --------------------------------------------------

    def mode(self) -> str:
        return str(self.mode_combo.currentData())

    def set_mode(self, mode: str) -> None:
        i = self.mode_combo.findData(mode)
        if i >= 0:
            self.mode_combo.setCurrentIndex(i)

    def is_running(self) -> bool:
        return self._running

    def set_running(self, running: bool) -> None:
        was = self._running
        self._running = running
        if running and not was:
            self._exchanges.append(_Exchange(question=self._asked or ""))
            self._asked = None
            self.input.clear()
            self.progress_label.setText(tr("Starting…"))
            self._render()
        self.input.setEnabled(not running)
        self.mode_combo.setEnabled(not running)
        self.send_button.setVisible(not running)
        self.stop_button.setVisible(running)
        self.stop_button.setEnabled(running)
        self.stop_button.setText(tr("Stop"))
        self.busy.setVisible(running)
        self._stop_shortcut.setEnabled(running)
        if not running:
            self.progress_label.clear()
            if was:
                # The input was disabled, which dropped focus; give it back for the next question.
                self.input.setFocus()

    def on_event(self, ev: Any) -> None:
        """Show live progress ("Round 2 · searching 'x'…") for one trace event."""
        if isinstance(ev, Info) and ev.code == "scope":
            pending = self._pending()
            if pending is not None:
                pending.scope = f"{ev.data.get('kind', '')}: {ev.data.get('name', '')}"
                self._render()
        if isinstance(ev, Info) and ev.code == FOLLOWUP_INFO_CODE:
            pending = self._pending()
            standalone = str(ev.data.get("standalone", "")).strip()
            if pending is not None and standalone:
                pending.understood = standalone
                self._render()
        text = self._progress_text(ev)
        if text:
            self.progress_label.setText(text)

    def show_result(self, result: Result | None) -> None:
        if result is None:
            self.show_error(said(msg("stop.no_result")))
            return
        ex = self._pending() or self._new_exchange(result.question)
        ex.result = result
        if not ex.question:
            ex.question = result.question
        self._last_result = result
        self.copy_button.setEnabled(bool(result.answer.strip()))
        self._render()

    def clear(self) -> None:
        """Start an empty conversation view (a new conversation)."""
        self._exchanges = []
        self._last_result = None
        self.copy_button.setEnabled(False)
        self.progress_label.clear()
        self._render()

    def restore(self, turns: Sequence[Any]) -> None:
        """Show a saved conversation: each turn's question, how it was understood, its answer.

        ``turns`` are the store's turns (``question``, ``standalone_question``, ``result``).
        """
        self._exchanges = []
        for t in turns:
            result = getattr(t, "result", None)
            standalone = str(getattr(t, "standalone_question", "") or "")
            self._exchanges.append(
                _Exchange(question=t.question, result=result, understood=standalone)
            )
        self._last_result = self._exchanges[-1].result if self._exchanges else None
        self.copy_button.setEnabled(self._last_result is not None and bool(self._last_result.answer.strip()))
        self.progress_label.clear()
        self._render()

    def exchange_count(self) -> int:
        return len(self._exchanges)

    def show_error(self, message: str) -> None:
        ex = self._pending() or self._new_exchange("")
        ex.error = message or said(msg("stop.run_failed"))
        self._render()

    def set_reference_formatter(
        self, references: ReferenceFormatter | None, citation: CitationFormatter | None = None
    ) -> None:
        """How "copy answer" formats its sources: bibliography entries and in-text markers in
        the preferred style. Without one, sources are listed as ``[n] Title, p. 3``."""
        self._format_references = references
        self._format_citation = citation

    def copy_answer(self) -> None:
        """Put the last answer with its references on the clipboard, as HTML and text."""
        result = self._last_result
        if result is None or not result.answer.strip():
            self.progress_label.setText(tr("There is no answer to copy yet."))
            return
        note = tr("Copied the answer and its references.")
        mime: QMimeData | None = None
        if self._format_references is not None and result.evidence:
            try:
                mime = self._styled_answer_mime(result, self._format_references)
            except Exception as e:  # a document removed since the answer, a style bug …
                # The answer is still worth copying; say why its references look plain.
                note = tr("Copied the answer; its references could not be formatted ({reason}).").format(
                    reason=e
                )
        if mime is None:
            mime = self._simple_answer_mime(result)
        QApplication.clipboard().setMimeData(mime)
        if not self._running:
            self.progress_label.setText(note)
            QTimer.singleShot(4000, self._clear_transient_note)

    def _styled_answer_mime(self, result: Result, references: ReferenceFormatter) -> QMimeData:
        if answer_status.is_related(result):
            # Related passages are not sources: they are listed as such, never as references.
            return self._simple_answer_mime(result)
        cited = number_by_document(result.answer, result.evidence)
        entries = references(cited.doc_ids) if cited.doc_ids else []
        answer = renumber_citations(result.answer, cited, self._format_citation or bracket_marker)
        heading = tr(answer_status.REFERENCES_HEADING)
        body = _copy_header_html(result) + markdown_to_html(answer, None) + _copy_missing_html(result)
        if entries:
            body += f"\n<p><b>{html.escape(heading)}</b></p>\n" + "".join(f"<p>{r.html}</p>" for r in entries)
        shown = result.model_copy(update={"answer": answer})
        text = answer_status.plain_answer(shown, [r.text for r in entries], tr)
        mime = new_mime_data()
        mime.setHtml(f"<html><body>{body}</body></html>")
        mime.setText(text)
        return mime

    def _simple_answer_mime(self, result: Result) -> QMimeData:
        body = _copy_header_html(result) + markdown_to_html(result.answer, None) + _copy_missing_html(result)
        related = answer_status.related_passages(result)
        if related:
            body += _related_html(related, "")
        elif result.evidence:
            refs = "".join(f"<p>{html.escape(format_reference(e), quote=False)}</p>" for e in result.evidence)
            body += f"\n<p><b>{html.escape(tr(answer_status.REFERENCES_HEADING))}</b></p>\n{refs}"
        mime = new_mime_data()
        mime.setHtml(f"<html><body>{body}</body></html>")
        mime.setText(answer_status.plain_answer(result, None, tr))
        return mime

    def focus_input(self) -> None:
        self.input.setFocus(Qt.FocusReason.ShortcutFocusReason)

    @Slot(str)
    def ask_example(self, question: str) -> None:
        if self._running:
            return
        self.input.setPlainText(question)
        self._send()

    def last_result(self) -> Result | None:
        return self._last_result

    def conversation_html(self) -> str:
        return self.conversation.toHtml()

    # --- slots -----------------------------------------------------------------------------------

    @Slot()
    def on_send_clicked(self) -> None:
        self._send()

    @Slot()
    def on_input_submitted(self) -> None:
        self._send()

    @Slot()
    def on_stop_clicked(self) -> None:
        if not self._running or not self.stop_button.isEnabled():
            return
        self.stop_button.setEnabled(False)
        self.stop_button.setText(tr("Stopping…"))
        self.progress_label.setText(tr("Stopping…"))
        self.stop_requested.emit()

    @Slot(QUrl)
    def on_conversation_anchor_clicked(self, url: QUrl) -> None:
        if url.scheme() == "cite":
            try:
                number = int(url.path())
            except ValueError:
                return
            self.citation_clicked.emit(number)

    # --- internals -------------------------------------------------------------------------------

    def _send(self) -> None:
        question = self.input.toPlainText().strip()
        if not question or self._running:
            return
        self._asked = question
        # The main window answers synchronously with set_running(True), which records the
        # exchange and clears the box; if it refuses (no model configured …) the text stays.
        self.ask_requested.emit(question, self.mode())
        if not self._running:
            self._asked = None

    def _pending(self) -> _Exchange | None:
        if self._exchanges and self._exchanges[-1].result is None and not self._exchanges[-1].error:
            return self._exchanges[-1]
        return None

    def _new_exchange(self, question: str) -> _Exchange:
        ex = _Exchange(question=question)
        self._exchanges.append(ex)
        return ex

    def _clear_transient_note(self) -> None:
        if not self._running:
            self.progress_label.clear()

    def _progress_text(self, ev: Any) -> str:
        if isinstance(ev, RunStarted):
            return tr("Starting…")
        if isinstance(ev, RoundStarted):
            return tr("Round {n} · thinking…").format(n=ev.round)
        if isinstance(ev, ActionChosen):
            return tools.progress(ev.action, ev.round, language())
        if isinstance(ev, ToolResult):
            return tools.result_progress(ev, language())
        if isinstance(ev, AnswerDrafted):
            return tr("Checking citations…")
        return ""

    def changeEvent(self, event: QEvent) -> None:  # Qt override
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            # The question bubble and muted text take their colours from the palette.
            self._apply_muted_style()
            self._render()

    def _apply_muted_style(self) -> None:
        muted = self.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.PlaceholderText).name()
        for label in (self.hint_label, self.progress_label):
            label.setStyleSheet(f"color: {muted};")

    def _render(self) -> None:
        pal = self.conversation.palette()
        bubble = pal.color(QPalette.ColorRole.AlternateBase).name()
        muted = pal.color(QPalette.ColorGroup.Active, QPalette.ColorRole.PlaceholderText).name()
        parts: list[str] = []
        if not self._exchanges:
            parts.append(
                f'<p style="color:{muted}; margin-top:24px" align="center">'
                + html.escape(
                    tr(
                        "Ask about the papers in your library. Answers cite the passages they rely on; "
                        "click a number to see it."
                    ),
                    quote=False,
                )
                + "</p>"
            )
        for ex in self._exchanges:
            parts.append(self._exchange_html(ex, bubble, muted))
        self.conversation.setHtml("\n".join(parts))
        sb = self.conversation.verticalScrollBar()
        sb.setValue(sb.maximum())

    def _exchange_html(self, ex: _Exchange, bubble: str, muted: str) -> str:
        out = [
            f'<table width="100%" cellspacing="0" cellpadding="8" bgcolor="{bubble}" style="margin-top:10px">'
            f"<tr><td><b>{html.escape(tr('You'))}</b><br>{escape_multiline(ex.question)}</td></tr></table>"
        ]
        if ex.understood and " ".join(ex.understood.split()) != " ".join(ex.question.split()):
            # A follow-up was rewritten: say how, so a wrong reading is visible at once.
            out.append(
                f'<p style="color:{muted}; margin-top:4px"><i>'
                + html.escape(tr("Understood as: {q}").format(q=ex.understood), quote=False)
                + "</i></p>"
            )
        if ex.scope:
            out.append(
                f'<p style="color:{muted}; margin-top:4px">'
                + html.escape(tr("Asked of {scope} only").format(scope=ex.scope), quote=False)
                + "</p>"
            )
        if ex.result is not None:
            out.append(self._result_html(ex.result, muted))
        elif ex.error:
            out.append(_badge(Status.FAILED.value))
            out.append(f"<p>{escape_multiline(ex.error)}</p>")
        else:
            out.append(f'<p style="color:{muted}"><i>{html.escape(tr("Researching…"))}</i></p>')
        return "\n".join(out)

    def _result_html(self, r: Result, muted: str) -> str:
        facts = [
            f"{tr('Confidence')} {r.confidence:.0%}",
            tr("{n} round(s)").format(n=r.steps),
            tr("{s:.1f} s").format(s=r.seconds),
        ]
        out = [
            '<p style="margin-top:8px">'
            + _badge(r.status.value)
            + f'&nbsp;&nbsp;<span style="color:{muted}">{html.escape(" · ".join(facts))}</span></p>'
        ]
        missing = missing_parts(r)
        # A partial or insufficient answer says what it lacks first, right under its badge;
        # for the other statuses the (rare) list follows the answer.
        upfront = r.status in (Status.PARTIAL, Status.INSUFFICIENT)
        if upfront and missing:
            out.append(_missing_html(tr(answer_status.missing_heading(r)), missing, top=True))
        numbers = {e.number for e in r.evidence}
        out.append(markdown_to_html(r.answer, numbers))
        if missing and not upfront:
            out.append(_missing_html(tr("Still missing"), missing, top=False))
        related = answer_status.related_passages(r)
        if related:
            out.append(_related_html(related, muted, links=True))
            return "\n".join(out)
        # A stopped or failed run keeps every passage it read: list them all (click to read),
        # the ones its extract cites first.
        stopped = answer_status.stopped(r)
        shown = r.evidence if stopped else [] if r.status == Status.INSUFFICIENT else [e for e in r.evidence if e.verified]
        if shown:
            heading = tr("Sources")
            if r.status is Status.CANCELLED:
                heading = tr("Read before you stopped ({n})").format(n=len(shown))
            elif r.status is Status.FAILED:
                heading = tr("Read before the failure ({n})").format(n=len(shown))
            out.append(f'<p style="margin-bottom:0"><b>{html.escape(heading)}</b></p>')
            out.append(
                f'<p style="color:{muted}; margin-top:2px">'
                + "<br>".join(_reference_html(e) for e in shown)
                + "</p>"
            )
        return "\n".join(out)


def missing_parts(result: Result) -> list[str]:
    """What the answer leaves out (``answer_status.missing_parts``), in the interface language."""
    if answer_status.stopped(result):
        return []
    return [" ".join(m.split()) for m in said_each(result.missing_codes, result.missing) if m.strip()]


def _missing_html(heading: str, parts: list[str], top: bool) -> str:
    margin = "margin-top:2px; margin-bottom:2px" if top else "margin-bottom:2px"
    return (
        f'<p style="{margin}"><b>{html.escape(heading)}</b></p>'
        + '<ul style="margin-top:0">'
        + "".join(f"<li>{html.escape(one_line(m), quote=False)}</li>" for m in parts)
        + "</ul>"
    )


def _related_html(related: list[Evidence], muted: str, links: bool = False) -> str:
    """Related passages, labelled as such: what was found, not what answers the question."""
    style = f' style="color:{muted}"' if muted else ""
    out = [
        f'<p style="margin-bottom:0"><b>{html.escape(tr(answer_status.RELATED_HEADING))}</b>'
        f"&nbsp;<i{style}>{html.escape(tr(answer_status.RELATED_NOTE))}</i></p>",
        '<ul style="margin-top:2px">',
    ]
    for e in related:
        ref = _reference_html(e) if links else html.escape(reference_line(e), quote=False)
        quote = html.escape(answer_status.excerpt(e.text), quote=False)
        out.append(f"<li>{ref}<br><span{style}>“{quote}”</span></li>")
    out.append("</ul>")
    return "".join(out)


def _copy_header_html(result: Result) -> str:
    lines = answer_status.header_lines(result, tr)
    if not lines:
        return ""
    first = f"<p><b>{html.escape(lines[0])}</b>"
    rest = "".join(f"<br><i>{html.escape(x)}</i>" for x in lines[1:])
    return first + rest + "</p>\n"


def _copy_missing_html(result: Result) -> str:
    parts = answer_status.missing_parts(result)
    if not parts:
        return ""
    return "\n" + _missing_html(tr(answer_status.missing_heading(result)), parts, top=False)


def _badge(status: str) -> str:
    colour = STATUS_COLOURS.get(status, "#5f6368")
    words = html.escape(tr(answer_status.status_label(status)))
    return f'<span style="background-color:{colour}; color:#ffffff; font-weight:600">&nbsp;{words}&nbsp;</span>'


def reference_line(e: Evidence) -> str:
    """``[1] Title, p. 3, §Section`` as the answer area shows it, in the interface language
    (the copied answer keeps report.format_reference's own form)."""
    if language() == "en":
        return format_reference(e)
    parts = [f"[{e.number}] {one_line(e.title) or tr('Untitled')}", tr("p. {n}").format(n=e.page)]
    if e.section.strip():
        parts.append(f"§{one_line(e.section)}")
    return tr(", ").join(parts)


def _reference_html(e: Evidence) -> str:
    text = html.escape(reference_line(e), quote=False)
    prefix = f"[{e.number}]"
    link = f'<a href="cite:{e.number}" style="text-decoration:none">{prefix}</a>'
    return link + text[len(prefix) :]
