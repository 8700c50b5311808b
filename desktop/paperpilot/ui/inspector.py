"""The inspector: why an answer is what it is — its evidence, the run's trace, the result's numbers.

Trace events stream in through ``add_event`` while the run goes (the tree grows round by
round); ``show_result`` fills the Evidence and Result tabs. ``export_trace`` writes the last
run's events as JSON lines or as a Markdown report.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import shiboken6
from pydantic import BaseModel
from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QStyle,
    QTabWidget,
    QTextBrowser,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from ..core.api import (
    ActionChosen,
    AnswerDrafted,
    Evidence,
    Finished,
    HitView,
    Info,
    LinkedReference,
    Result,
    RoundStarted,
    RunStarted,
    Status,
    ToolResult,
    answer_status,
    atomic_write_text,
    file_stamp,
    has_cjk,
    one_line,
    query_terms,
    tools,
    trace_to_jsonl,
    trace_to_markdown,
)
from ..core.api import TraceWarning as Warning
from .chat_pane import STATUS_COLOURS, missing_parts
from .i18n import language, said, tr

NUMBER_ROLE = Qt.ItemDataRole.UserRole
# A trace row's whole text (its Detail column is one elided line): shown below the tree.
FULL_TEXT_ROLE = Qt.ItemDataRole.UserRole + 1
_BOLD_MARK = re.compile(r"\*\*(.+?)\*\*")
WARNING_BG = QColor("#fff3cd")
WARNING_FG = QColor("#5c3c00")


def highlight_pattern(terms: list[str]) -> re.Pattern[str] | None:
    """A pattern matching the terms as the index would: word prefixes for Latin words (so
    "decline" also marks "declined"), plain substrings for CJK runs."""
    alts: list[str] = []
    for t in sorted({t for t in terms if t.strip()}, key=len, reverse=True):
        if has_cjk(t):
            alts.append(re.escape(t))
        elif len(t) >= 3:
            stem = t[: max(4, len(t) - 2)] if len(t) > 4 else t
            alts.append(rf"\b{re.escape(stem)}\w*")
    if not alts:
        return None
    return re.compile("|".join(alts), re.IGNORECASE)


def highlight_html(text: str, terms: list[str], colour: str = "#ffe08a") -> str:
    """Escape ``text`` and mark every match of ``terms`` (matched on the raw text, so a term can
    never match inside an HTML entity)."""
    pattern = highlight_pattern(terms)
    if pattern is None:
        return html.escape(text, quote=False)
    out: list[str] = []
    pos = 0
    for m in pattern.finditer(text):
        out.append(html.escape(text[pos : m.start()], quote=False))
        out.append(f'<span style="background-color:{colour}; color:#000000">{html.escape(m.group(0), quote=False)}</span>')
        pos = m.end()
    out.append(html.escape(text[pos:], quote=False))
    return "".join(out)


# Policies that ask no language model: a "model estimate" in their confidence notes is the
# offline policy's own constant, not a model's judgement, and must not be shown as one.
MODEL_FREE_POLICIES = frozenset({"offline"})


# "model estimate 0.90", "the model's own estimate 0.90 (weight 0.5)": how a result saved
# before its notes carried codes says it (confidence.explain).
_MODEL_ESTIMATE = re.compile(r"\bmodel(?:'s own)? estimate\b", re.IGNORECASE)
MODEL_ESTIMATE_CODE = "confidence.model_estimate"


def confidence_notes(result: Result) -> list[str]:
    """The confidence notes worth showing for ``result``, in the interface language."""
    reasons, notes = result.confidence_reasons, result.confidence_notes
    if len(reasons) == len(notes):
        keep = [m for m in reasons if not (result.policy in MODEL_FREE_POLICIES and m.code == MODEL_ESTIMATE_CODE)]
        return [t for t in (said(m) for m in keep) if t.strip()]
    shown = [n for n in notes if n.strip()]
    if result.policy in MODEL_FREE_POLICIES:
        shown = [n for n in shown if not _MODEL_ESTIMATE.search(n)]
    return shown


# How a run was made (the Result tab's "mode · policy" line): the router's and the policies' names.
RUN_WORDS_ZH = {"quick": "快速", "loop": "深度循环", "auto": "自动", "offline": "离线", "llm": "语言模型"}


def run_word(word: str) -> str:
    return RUN_WORDS_ZH.get(word, word) if language() == "zh" else word


def locator(doc_id: int, segment: int) -> str:
    """Where a passage sits in the library: its document's number and its passage number."""
    return tr("doc {doc} / passage {seg}").format(doc=doc_id, seg=segment)


def action_label(action: dict[str, Any]) -> str:
    """What a round chose to do, in the interface language (its tool's words, from the registry)."""
    return tools.describe_action(action, language())


def kind_label(kind: str) -> str:
    """A passage's stored kind as the inspector names it ("" for a passage stored without one)."""
    return tr(kind.replace("_", " ")) if kind else ""


def is_note(e: Evidence) -> bool:
    """Evidence from the user's notes (the notes tool cites them with section "Notes")."""
    return e.section.strip().casefold() == "notes"



def hit_scores_text(h: HitView) -> str:
    """A hit's score, which search found it and, for a search by meaning, its scores there:
    "score 0.45 · found by both · BM25 7.31 · cosine 0.842 · fused 0.4500"."""
    parts = [tr("score {s}").format(s=f"{h.score:.2f}"), tr("found by {mode}").format(mode=tr(h.found_by, "search mode"))]
    if h.dense is not None or h.fused is not None:
        if h.bm25 is not None:
            parts.append(f"BM25 {h.bm25:.2f}")
        if h.dense is not None:
            parts.append(tr("cosine {s}").format(s=f"{h.dense:.3f}"))
        if h.fused is not None:
            parts.append(tr("fused {s}").format(s=f"{h.fused:.4f}"))
    if h.search_rank is not None:  # the model reranked the search's candidates
        parts.append(tr("model {s}/10").format(s=f"{h.rerank:g}") if h.rerank is not None else tr("model: no score"))
        parts.append(tr("search #{n}").format(n=h.search_rank))
    return " · ".join(parts)

class InspectorPane(QWidget):
    open_source = Signal(int, int, str)  # doc_id, page, passage text

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("inspectorPane")
        self._events: list[BaseModel] = []
        # The trace follows its newest item once per batch of events, not once per event: a run's
        # events arrive in bursts, and each scroll lays the whole tree out again.
        self._follow: QTreeWidgetItem | None = None
        self._follow_timer = QTimer(self)
        self._follow_timer.setSingleShot(True)
        self._follow_timer.setInterval(0)
        self._follow_timer.timeout.connect(self.on_follow_timer_timeout)
        self._question = ""
        self._search_queries: list[str] = []
        self._result: Result | None = None
        self._round_items: dict[int, QTreeWidgetItem] = {}
        self._round_stats: dict[int, dict[str, float]] = {}
        self._start_item: QTreeWidgetItem | None = None

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("inspectorTabs")
        self.tabs.setDocumentMode(True)
        # An icon, not a word: beside four tabs a labelled button would crowd them at 1024 px.
        self.export_button = QToolButton(self)
        self.export_button.setObjectName("exportTraceButton")
        self.export_button.setAutoRaise(True)
        self.export_button.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_DialogSaveButton))
        self.export_button.setAccessibleName(tr("Export…"))
        self.export_button.setToolTip(tr("Export trace") + " (JSON lines / Markdown)")
        self.tabs.setCornerWidget(self.export_button, Qt.Corner.TopRightCorner)

        self._build_evidence_tab()
        self._build_trace_tab()
        self._build_result_tab()
        self._build_references_tab()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 6, 6, 6)
        layout.addWidget(self.tabs)

        self.export_button.clicked.connect(self.export_trace)
        self.evidence_list.currentRowChanged.connect(self.on_evidence_list_current_row_changed)
        self.evidence_list.itemDoubleClicked.connect(self.on_evidence_list_item_double_clicked)
        self.open_button.clicked.connect(self.on_open_button_clicked)
        self.clear()

    # --- construction ----------------------------------------------------------------------------

    def _build_evidence_tab(self) -> None:
        page = QWidget(self)
        self.evidence_list = QListWidget(page)
        self.evidence_list.setObjectName("evidenceList")
        self.evidence_list.setWordWrap(True)
        self.evidence_list.setAlternatingRowColors(True)
        self.evidence_list.setUniformItemSizes(False)
        self.passage_view = QTextBrowser(page)
        self.passage_view.setObjectName("passageView")
        self.passage_view.setOpenLinks(False)
        self.open_button = QPushButton(tr("Open at source"), page)
        self.open_button.setObjectName("openSourceButton")
        self.evidence_placeholder = QLabel(tr("Evidence appears here when an answer is ready."), page)
        self.evidence_placeholder.setWordWrap(True)
        self.evidence_placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.related_label = QLabel(page)
        self.related_label.setObjectName("relatedLabel")
        self.related_label.setWordWrap(True)
        self.related_label.setTextFormat(Qt.TextFormat.PlainText)
        self.related_label.setVisible(False)

        detail = QWidget(page)
        dl = QVBoxLayout(detail)
        dl.setContentsMargins(0, 0, 0, 0)
        dl.addWidget(self.passage_view, 1)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.open_button)
        dl.addLayout(row)

        self.evidence_split = QSplitter(Qt.Orientation.Vertical, page)
        self.evidence_split.addWidget(self.evidence_list)
        self.evidence_split.addWidget(detail)
        self.evidence_split.setStretchFactor(0, 1)
        self.evidence_split.setStretchFactor(1, 3)
        # The passage is what people read; the list only needs room for a few entries.
        self.evidence_split.setSizes([150, 450])
        layout = QVBoxLayout(page)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.evidence_placeholder)
        layout.addWidget(self.related_label)
        layout.addWidget(self.evidence_split, 1)
        self.tabs.addTab(page, tr("Evidence"))
        self.evidence_tab = page

    def _build_references_tab(self) -> None:
        page = QWidget(self)
        self.references_label = QLabel(tr("Select a paper in the library to see its references."), page)
        self.references_label.setWordWrap(True)
        self.references_list = QListWidget(page)
        self.references_list.setObjectName("referencesList")
        self.references_list.setWordWrap(True)
        self.references_list.setAlternatingRowColors(True)
        lay = QVBoxLayout(page)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.references_label)
        lay.addWidget(self.references_list, 1)
        self.tabs.addTab(page, tr("References"))

    def show_references(self, title: str, refs: list[LinkedReference]) -> None:
        """The reference list of the paper selected in the library; entries that are papers in
        the library say so."""
        self.references_list.clear()
        if not refs:
            self.references_label.setText(tr("No reference list was found in “{title}”.").format(title=one_line(title, 80)))
            return
        linked = sum(1 for r in refs if r.doc_id is not None)
        self.references_label.setText(
            tr("References of “{title}”: {n}, {k} in your library.").format(title=one_line(title, 80), n=len(refs), k=linked)
        )
        for i, lr in enumerate(refs, 1):
            r = lr.reference
            label = f"[{r.label}]" if r.label else f"{i}."
            text = f"{label} {r.text}"
            if lr.doc_id is not None:
                text += "\n→ " + tr("in your library") + f" ({tr('doc {n}').format(n=lr.doc_id)})"
            item = QListWidgetItem(text)
            fields = [x for x in (", ".join(r.authors[:3]), r.title, str(r.year or ""), r.venue, r.doi) if x]
            item.setToolTip(" · ".join(fields))
            self.references_list.addItem(item)

    def _build_trace_tab(self) -> None:
        page = QWidget(self)
        self.trace_tree = QTreeWidget(page)
        self.trace_tree.setObjectName("traceTree")
        self.trace_tree.setColumnCount(2)
        self.trace_tree.setHeaderLabels([tr("Step"), tr("Detail")])
        self.trace_tree.setUniformRowHeights(True)
        self.trace_tree.setAlternatingRowColors(True)
        header = self.trace_tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        # The Detail column holds one line per step, elided to the pane's width; the step
        # under the cursor (or chosen with the keys) is shown whole, wrapped, below the tree.
        self.trace_detail = QTextBrowser(page)
        self.trace_detail.setObjectName("traceDetail")
        self.trace_detail.setOpenLinks(False)
        self.trace_detail.setPlaceholderText(tr("Select a step to read it in full."))
        self.trace_split = QSplitter(Qt.Orientation.Vertical, page)
        self.trace_split.setObjectName("traceSplit")
        self.trace_split.addWidget(self.trace_tree)
        self.trace_split.addWidget(self.trace_detail)
        self.trace_split.setStretchFactor(0, 3)
        self.trace_split.setStretchFactor(1, 1)
        self.trace_split.setChildrenCollapsible(False)
        self.trace_split.setSizes([420, 140])
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.trace_split)
        self.tabs.addTab(page, tr("Trace"))
        self.trace_tab = page
        self.trace_tree.currentItemChanged.connect(self.on_trace_tree_current_item_changed)

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def on_trace_tree_current_item_changed(self, item: QTreeWidgetItem | None, _previous: object) -> None:
        self.show_trace_detail(item)

    def show_trace_detail(self, item: QTreeWidgetItem | None) -> None:
        """The step's name and its whole text (what the Detail column shows cut to one line)."""
        if item is None:
            self.trace_detail.clear()
            return
        full = item.data(1, FULL_TEXT_ROLE)
        text = full if isinstance(full, str) and full else item.text(1)
        # A hit's snippet marks the query's words **like this**: bold here, not asterisks.
        body = "".join(
            "<p>" + _BOLD_MARK.sub(r"<b>\1</b>", html.escape(para, quote=False)) + "</p>"
            for para in text.split("\n")
            if para.strip()
        )
        self.trace_detail.setHtml(f"<p><b>{html.escape(item.text(0), quote=False)}</b></p>{body}")

    def _build_result_tab(self) -> None:
        inner = QWidget(self)
        form = QFormLayout(inner)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.status_label = QLabel(inner)
        self.status_label.setObjectName("resultStatus")
        # A badge, not a bar: as wide as its words.
        self.status_label.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self.status_note = QLabel(inner)
        self.status_note.setObjectName("resultStatusNote")
        self.status_note.setWordWrap(True)
        self.status_note.setVisible(False)
        self.confidence_bar = QProgressBar(inner)
        self.confidence_bar.setObjectName("confidenceBar")
        self.confidence_bar.setRange(0, 100)
        self.confidence_bar.setFormat("%p%")
        self.confidence_notes = QLabel(inner)
        self.confidence_notes.setWordWrap(True)
        self.missing_label = QLabel(inner)
        self.missing_label.setWordWrap(True)
        self.missing_label.setTextFormat(Qt.TextFormat.RichText)
        self.rounds_label = QLabel(inner)
        self.passages_label = QLabel(inner)
        self.tokens_label = QLabel(inner)
        self.time_label = QLabel(inner)
        self.run_label = QLabel(inner)
        self.run_label.setWordWrap(True)
        for label in (
            self.status_label,
            self.status_note,
            self.confidence_notes,
            self.rounds_label,
            self.passages_label,
            self.tokens_label,
            self.time_label,
            self.run_label,
        ):
            # Error text can quote a model or a server: never let Qt guess it is HTML.
            label.setTextFormat(Qt.TextFormat.PlainText)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        conf_box = QWidget(inner)
        cl = QVBoxLayout(conf_box)
        cl.setContentsMargins(0, 0, 0, 0)
        cl.addWidget(self.confidence_bar)
        cl.addWidget(self.confidence_notes)
        status_box = QWidget(inner)
        sl = QVBoxLayout(status_box)
        sl.setContentsMargins(0, 0, 0, 0)
        sl.addWidget(self.status_label)
        sl.addWidget(self.status_note)
        form.addRow(tr("Status"), status_box)
        form.addRow(tr("Confidence"), conf_box)
        form.addRow(tr("Missing information"), self.missing_label)
        form.addRow(tr("Rounds"), self.rounds_label)
        form.addRow(tr("Passages read"), self.passages_label)
        form.addRow(tr("Tokens in / out"), self.tokens_label)
        form.addRow(tr("Time"), self.time_label)
        form.addRow("", self.run_label)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setWidget(inner)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.tabs.addTab(scroll, tr("Result"))

    # --- public API --------------------------------------------------------------------------------

    def clear(self) -> None:
        self._events = []
        self._follow = None
        self._question = ""
        self._search_queries = []
        self._result = None
        self._round_items = {}
        self._round_stats = {}
        self._start_item = None
        self.trace_tree.clear()
        self.trace_detail.clear()
        self.evidence_list.clear()
        self.passage_view.clear()
        self.open_button.setEnabled(False)
        self.evidence_placeholder.setText(tr("Evidence appears here when an answer is ready."))
        self.evidence_placeholder.setVisible(True)
        self.related_label.setVisible(False)
        self.evidence_split.setVisible(False)
        self.status_label.setText("—")
        self.status_label.setStyleSheet("")
        self.confidence_bar.setValue(0)
        self.confidence_notes.clear()
        self.status_note.clear()
        self.status_note.setVisible(False)
        self.missing_label.setText("—")
        for label in (self.rounds_label, self.passages_label, self.tokens_label, self.time_label, self.run_label):
            label.setText("—")
        self.export_button.setEnabled(False)

    def events(self) -> list[BaseModel]:
        return list(self._events)

    def add_event(self, ev: Any) -> None:
        if not isinstance(ev, BaseModel):
            return
        self._events.append(ev)
        self.export_button.setEnabled(True)
        item = self._trace_item(ev)
        if item is not None:
            self._follow = item
            self._follow_timer.start()

    @Slot()
    def on_follow_timer_timeout(self) -> None:
        item, self._follow = self._follow, None
        if item is not None and shiboken6.isValid(item):  # the trace may have been cleared since
            self.trace_tree.scrollToItem(item)

    def show_result(self, result: Result | None) -> None:
        if result is None:
            return
        self._result = result
        if not self._question:
            self._question = result.question
        self._fill_evidence(result)
        self._fill_result(result)

    def select_evidence(self, number: int) -> None:
        for row in range(self.evidence_list.count()):
            item = self.evidence_list.item(row)
            if item.data(NUMBER_ROLE) == number:
                self.tabs.setCurrentWidget(self.evidence_tab)
                self.evidence_list.setCurrentRow(row)
                self.evidence_list.scrollToItem(item, QListWidget.ScrollHint.PositionAtCenter)
                self._show_passage(row)
                return

    def selected_evidence(self) -> Evidence | None:
        row = self.evidence_list.currentRow()
        if self._result is None or row < 0 or row >= len(self._result.evidence):
            return None
        return self._result.evidence[row]

    def export_trace(self) -> None:
        if not self._events:
            QMessageBox.information(self, tr("Export trace"), tr("Nothing to export yet: ask a question first."))
            return
        stamp = file_stamp()
        jsonl_filter = "JSON lines (*.jsonl)"
        md_filter = "Markdown report (*.md)"
        name, chosen = QFileDialog.getSaveFileName(
            self,
            tr("Export trace"),
            str(Path.home() / f"paperpilot-trace-{stamp}.jsonl"),
            f"{jsonl_filter};;{md_filter}",
        )
        if not name:
            return
        path = Path(name)
        if not path.suffix:
            path = path.with_suffix(".md" if chosen == md_filter else ".jsonl")
        try:
            self.export_trace_to(path)
        except OSError as e:
            QMessageBox.warning(self, tr("Could not write the trace"), f"{path}: {e.strerror or e}")

    def export_trace_to(self, path: Path) -> None:
        """Write the last run's events: a Markdown report for ``*.md``, JSON lines otherwise."""
        if path.suffix.lower() in (".md", ".markdown"):
            text = trace_to_markdown(self._events)
        else:
            text = trace_to_jsonl(self._events)
        atomic_write_text(path, text)

    # --- slots ------------------------------------------------------------------------------------

    @Slot(int)
    def on_evidence_list_current_row_changed(self, row: int) -> None:
        self._show_passage(row)

    @Slot(QListWidgetItem)
    def on_evidence_list_item_double_clicked(self, item: QListWidgetItem) -> None:
        self._emit_open(self.evidence_list.row(item))

    @Slot()
    def on_open_button_clicked(self) -> None:
        self._emit_open(self.evidence_list.currentRow())

    # --- evidence ---------------------------------------------------------------------------------

    def _terms(self) -> list[str]:
        terms = query_terms(self._question)
        for q in self._search_queries:
            terms.extend(query_terms(q))
        return list(dict.fromkeys(terms))

    def _fill_evidence(self, result: Result) -> None:
        self.evidence_list.clear()
        self.passage_view.clear()
        stopped = result.status in (Status.CANCELLED, Status.FAILED)
        for e in result.evidence:
            state = tr("verified") if e.verified else tr("not verified")
            if is_note(e):
                # The user's own notes, not the paper's text: say so where it is cited.
                where = " · ".join((tr("Your note on this paper"), state))
            else:
                section = e.section_path or e.section
                where = " · ".join(
                    x
                    for x in (f"§ {one_line(section)}" if section else "", tr("p. {n}").format(n=e.page), kind_label(e.kind), state)
                    if x
                )
            item = QListWidgetItem(f"[{e.number}] {one_line(e.title) or tr('Untitled')}\n{where}")
            item.setData(NUMBER_ROLE, e.number)
            item.setToolTip(
                tr("Verified: the cited passage was read and any quoted words occur in it.")
                if e.verified
                else tr("Not verified: read during the run but not checked as support for an answer.")
            )
            if not e.verified:
                item.setForeground(QBrush(self.palette().color(QPalette.ColorRole.PlaceholderText)))
            self.evidence_list.addItem(item)
        has = bool(result.evidence)
        related = answer_status.is_related(result)
        # Passages of an insufficient answer are what was found nearby, not its support.
        self.related_label.setText(
            f"{tr(answer_status.RELATED_HEADING)}: {tr(answer_status.RELATED_NOTE)}" if related else ""
        )
        self.related_label.setVisible(related)
        self.evidence_split.setVisible(has)
        if stopped and has:
            # What was read before the stop: useful, but not evidence for any answer.
            self.evidence_placeholder.setText(
                tr("Not verified: read during the run but not checked as support for an answer.")
            )
        elif not has:
            self.evidence_placeholder.setText(tr("No passage in your library supports an answer to this question."))
        self.evidence_placeholder.setVisible(stopped or not has)
        if has:
            self.evidence_list.setCurrentRow(0)

    def _show_passage(self, row: int) -> None:
        if self._result is None or row < 0 or row >= len(self._result.evidence):
            self.passage_view.clear()
            self.open_button.setEnabled(False)
            return
        e = self._result.evidence[row]
        muted = self.palette().color(QPalette.ColorRole.PlaceholderText).name()
        verified_colour = STATUS_COLOURS[Status.ANSWERED.value] if e.verified else STATUS_COLOURS[Status.CANCELLED.value]
        state = tr("verified") if e.verified else tr("not verified")
        meta = " · ".join(
            x
            for x in (
                html.escape(tr("Your note on this paper")) if is_note(e) else "",
                f"{tr('Section')}: {html.escape(one_line(e.section_path or e.section))}"
                if (e.section_path or e.section) and not is_note(e)
                else "",
                f"{tr('Kind')}: {html.escape(kind_label(e.kind))}" if e.kind and not is_note(e) else "",
                tr("Page {n}").format(n=e.page),
                # A scanned page: its words were recognised, so a misread letter is possible.
                html.escape(tr("text from OCR")) if e.ocr else "",
                locator(e.doc_id, e.segment),
            )
            if x
        )
        body = "".join(f"<p>{highlight_html(para, self._terms())}</p>" for para in e.text.split("\n\n") if para.strip())
        quote = ""
        if e.quote.strip():
            quote = f'<p style="color:{muted}"><i>“{html.escape(one_line(e.quote, 300), quote=False)}”</i></p>'
        self.passage_view.setHtml(
            f"<p><b>[{e.number}] {html.escape(one_line(e.title) or tr('Untitled'), quote=False)}</b><br>"
            f'<span style="color:{muted}">{meta}</span><br>'
            f'<span style="background-color:{verified_colour}; color:#ffffff">&nbsp;{html.escape(state)}&nbsp;</span></p>'
            f"{quote}{body}"
        )
        self.open_button.setEnabled(True)

    def _emit_open(self, row: int) -> None:
        if self._result is None or row < 0 or row >= len(self._result.evidence):
            return
        e = self._result.evidence[row]
        self.open_source.emit(e.doc_id, e.page, e.text)

    # --- result -----------------------------------------------------------------------------------

    def _fill_result(self, r: Result) -> None:
        colour = STATUS_COLOURS.get(r.status.value, "#5f6368")
        self.status_label.setText(tr(answer_status.status_label(r.status)))
        self.status_label.setStyleSheet(
            f"QLabel {{ background-color: {colour}; color: #ffffff; font-weight: 600; padding: 2px 6px; border-radius: 3px; }}"
        )
        self.confidence_bar.setValue(round(r.confidence * 100))
        notes = confidence_notes(r)
        self.confidence_notes.setText("; ".join(notes))
        self.status_note.setText(tr(answer_status.status_note(r.status)))
        self.status_note.setVisible(bool(self.status_note.text()))
        missing = missing_parts(r)
        if missing:
            self.missing_label.setText(
                f"<b>{html.escape(tr(answer_status.missing_heading(r)))}</b>"
                "<ul style='margin:0'>" + "".join(f"<li>{html.escape(one_line(m))}</li>" for m in missing) + "</ul>"
            )
        else:
            self.missing_label.setText("—")
        self.rounds_label.setText(str(r.steps))
        self.passages_label.setText(str(r.passages_read))
        self.tokens_label.setText(f"{r.usage.prompt_tokens} / {r.usage.completion_tokens}")
        self.time_label.setText(f"{r.seconds:.2f} s")
        run = tr("mode {mode} · policy {policy}").format(mode=run_word(r.mode), policy=run_word(r.policy))
        if r.error:
            run += f"\n{one_line(r.error, 300)}"
        self.run_label.setText(run)

    # --- trace tree -------------------------------------------------------------------------------

    def _start_node(self) -> QTreeWidgetItem:
        if self._start_item is None:
            self._start_item = QTreeWidgetItem([tr("Start"), ""])
            self.trace_tree.insertTopLevelItem(0, self._start_item)
            self._start_item.setExpanded(True)
        return self._start_item

    def _round_node(self, n: int) -> QTreeWidgetItem:
        if n <= 0:
            return self._start_node()
        item = self._round_items.get(n)
        if item is None:
            item = QTreeWidgetItem([tr("Round {n}").format(n=n), ""])
            font = item.font(0)
            font.setBold(True)
            item.setFont(0, font)
            self.trace_tree.addTopLevelItem(item)
            # Keep the round being worked on open and fold the previous one away.
            prev = self._round_items.get(n - 1)
            if prev is not None:
                prev.setExpanded(False)
            item.setExpanded(True)
            self._round_items[n] = item
            self._round_stats[n] = {"decide_ms": 0.0, "tool_ms": 0.0, "prompt": 0.0, "completion": 0.0}
        return item

    def _child(self, parent: QTreeWidgetItem, step: str, detail: str, full: str = "") -> QTreeWidgetItem:
        """A row: ``detail`` is its one line, ``full`` (when longer) the whole text, shown as
        its tooltip and in the detail view below the tree."""
        child = QTreeWidgetItem([step, detail])
        if full:
            child.setToolTip(1, full)
        child.setData(1, FULL_TEXT_ROLE, full or detail)
        parent.addChild(child)
        return child

    def _update_round_stats(self, n: int) -> None:
        item = self._round_items.get(n)
        stats = self._round_stats.get(n)
        if item is None or stats is None:
            return
        timing = tr("decide {d} ms · tool {t} ms").format(d=f"{stats['decide_ms']:.0f}", t=f"{stats['tool_ms']:.0f}")
        tokens = tr("{i} in · {o} out").format(i=int(stats["prompt"]), o=int(stats["completion"]))
        for role, text in ((tr("Timing"), timing), (tr("Tokens"), tokens)):
            found = None
            for i in range(item.childCount()):
                existing = item.child(i)
                if existing is not None and existing.data(0, Qt.ItemDataRole.UserRole) == role:
                    found = item.takeChild(i)
                    break
            if found is None:
                found = QTreeWidgetItem([role, text])
                found.setData(0, Qt.ItemDataRole.UserRole, role)
            found.setText(1, text)
            # Re-added at the end so the round's numbers stay below what happened in it.
            item.addChild(found)

    def _trace_item(self, ev: BaseModel) -> QTreeWidgetItem | None:
        if isinstance(ev, RunStarted):
            self._question = ev.question
            node = self._start_node()
            node.setText(1, one_line(ev.question, 200))
            node.setToolTip(1, ev.question)
            node.setData(1, FULL_TEXT_ROLE, ev.question)
            mode = tr("{mode} · policy {policy} · ≤ {n} rounds").format(
                mode=run_word(ev.mode), policy=run_word(ev.policy), n=ev.max_rounds
            )
            return self._child(node, tr("Mode"), mode)
        if isinstance(ev, RoundStarted):
            return self._round_node(ev.round)
        if isinstance(ev, ActionChosen):
            node = self._round_node(ev.round)
            node.setText(1, action_label(ev.action))
            node.setData(1, FULL_TEXT_ROLE, action_label(ev.action))
            stats = self._round_stats.get(ev.round)
            if stats is not None:
                stats["decide_ms"] += ev.decide_ms
                stats["prompt"] += ev.usage.prompt_tokens
                stats["completion"] += ev.usage.completion_tokens
            last = None
            if ev.reasoning.strip():
                last = self._child(node, tr("Thought"), one_line(ev.reasoning, 200), ev.reasoning)
            self._update_round_stats(ev.round)
            return last or node
        if isinstance(ev, ToolResult):
            return self._tool_item(ev)
        if isinstance(ev, Warning):
            node = self._round_node(ev.round)
            message = said(ev.msg) if ev.msg is not None else ev.message
            child = self._child(node, "⚠ " + tr("Warning"), f"{ev.code}: {one_line(message, 200)}", f"{ev.code}: {message}")
            for col in (0, 1):
                child.setBackground(col, QBrush(WARNING_BG))
                child.setForeground(col, QBrush(WARNING_FG))
            node.setExpanded(True)
            return child
        if isinstance(ev, Info):
            node = self._round_node(ev.round)
            message = said(ev.msg) if ev.msg is not None else ev.message
            stats = self._round_stats.get(ev.round)
            if ev.code == "rerank" and stats is not None:  # the rerank's call counts in its round's tokens
                usage = ev.data.get("usage") or {}
                stats["prompt"] += int(usage.get("prompt_tokens", 0))
                stats["completion"] += int(usage.get("completion_tokens", 0))
                self._update_round_stats(ev.round)
            return self._child(node, tr("Info"), f"{ev.code}: {one_line(message, 200)}", f"{ev.code}: {message}")
        if isinstance(ev, AnswerDrafted):
            node = self._round_node(ev.round)
            cites = ", ".join(ev.evidence_ids) or "—"
            head = tr("cites {ids}").format(ids=cites) + (" " + tr("(forced)") if ev.forced else "")
            return self._child(node, tr("Answer drafted"), f"{head} — {one_line(ev.text, 160)}", f"{head}\n{ev.text}")
        if isinstance(ev, Finished):
            r = ev.result
            item = QTreeWidgetItem(
                [tr("Finished"), f"{tr(answer_status.status_label(r.status))} · {r.confidence:.0%} · {r.seconds:.2f} s"]
            )
            colour = QColor(STATUS_COLOURS.get(r.status.value, "#5f6368"))
            item.setForeground(0, QBrush(colour))
            font = item.font(0)
            font.setBold(True)
            item.setFont(0, font)
            self.trace_tree.addTopLevelItem(item)
            return item
        return None

    def _tool_item(self, ev: ToolResult) -> QTreeWidgetItem:
        node = self._round_node(ev.round)
        stats = self._round_stats.get(ev.round)
        if stats is not None:
            stats["tool_ms"] += ev.tool_ms
        last: QTreeWidgetItem = node
        if ev.tool == "search":
            if ev.query:
                self._search_queries.append(ev.query)
            label = f"“{one_line(ev.query, 80)}” → " + tr("{n} hit(s), {k} new").format(n=len(ev.hits), k=ev.new_items)
            if ev.note:
                label += f" ({ev.note})"
            group = self._child(node, tr("Hits"), label, f"“{ev.query}” → " + label.split(" → ", 1)[-1])
            for h in ev.hits:
                sec = f" § {one_line(h.section, 40)}" if h.section else ""
                where = locator(h.doc_id, h.segment)
                text = f"{one_line(h.title, 70)}{sec} — {where} — {one_line(h.snippet.replace('**', ''), 160)}"
                scores = hit_scores_text(h)
                full = f"{h.title}{sec}\n{where} · {scores}\n{h.snippet}"
                child = self._child(group, "·" if h.new else "· " + tr("(read)"), text, full)
                child.setToolTip(0, scores)
            group.setExpanded(True)
            last = group
        elif ev.tool == "read":
            group = self._child(node, tr("Read"), tr("{n} passage(s)").format(n=len(ev.passages)))
            for p in ev.passages:
                sec = f" § {one_line(p.section, 40)}" if p.section else ""
                where = f"{locator(p.doc_id, p.segment)}, {tr('p. {n}').format(n=p.page)}"
                self._child(group, p.id, f"{one_line(p.title, 80)}{sec} ({where})", f"{p.title}{sec}\n{where}\n\n{p.text}")
            group.setExpanded(True)
            last = group
        elif ev.tool == "list_documents":
            last = self._child(node, tr("Read"), tools.result_summary(ev, language()))
        elif ev.tool != "notes":  # another tool: its name and its one line, in the tool's words
            summary = tools.result_summary(ev, language())
            last = self._child(node, tools.display_name(ev.tool, language()), summary or str(ev.new_items))
        self._update_round_stats(ev.round)
        return last
