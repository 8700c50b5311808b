"""Chat pane, inspector and settings dialog inside a real MainWindow over a real library."""

from __future__ import annotations

import gc
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QElapsedTimer, QObject, Qt, QTimer, QUrl, Slot
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QApplication, QFileDialog
from pytestqt.qtbot import QtBot

from paperpilot.core.agent.actions import Answer, Decision, Search
from paperpilot.core.agent.events import Finished, RoundStarted, Status, event_from_json
from paperpilot.core.agent.state import AgentState, PolicyStep
from paperpilot.core.app import Session
from paperpilot.core.library import Library
from paperpilot.core.settings import keystore
from paperpilot.core.settings.config import Settings, UISettings, load_settings, save_settings
from paperpilot.core.settings.keystore import load_api_key
from paperpilot.core.settings.paths import AppPaths, app_paths
from paperpilot.ui import i18n
from paperpilot.ui.chat_pane import ChatPane, markdown_to_html
from paperpilot.ui.inspector import InspectorPane, highlight_html
from paperpilot.ui.main_window import MainWindow
from paperpilot.ui.settings_dialog import SettingsDialog
from tests.timing import bound

SECRET = "sk-test-DO-NOT-LEAK-4f9a8b7c6d5e"

PAPERS = {
    "sparrows.md": (
        "# The Decline of House Sparrows in European Cities\n\n## Abstract\n\n"
        "House sparrow populations in many European cities declined sharply between 1990 and 2010. "
        "We review the evidence for the main causes.\n\n## Causes of the decline\n\n"
        "The loss of nesting sites in modern buildings reduced breeding success. Insect prey for nestlings "
        "became scarce because of pesticide use and the loss of urban green space. Chick starvation was the "
        "main driver of the decline in London suburbs.\n\n## Predation\n\n"
        "Predation by domestic cats and sparrowhawks increased in some cities, but the effect on population "
        "size was small compared with food shortage.\n"
    ),
    "bees.md": (
        "# Neonicotinoid Pesticides and Wild Bee Health\n\n## Results\n\n"
        "Exposure to neonicotinoids reduced colony growth of bumblebees by 8 to 12 percent and cut queen "
        "production by 85 percent in field experiments.\n\n## Discussion\n\n"
        "Pesticide use in farmland also reduces the insects that birds feed to their chicks, which links bee "
        "decline to farmland bird decline.\n"
    ),
    "lights.md": (
        "# Artificial Light at Night Disrupts Urban Insects\n\n## Summary\n\n"
        "Street lighting attracts moths and other night-flying insects, which die from exhaustion or "
        "predation. Light pollution reduced moth caterpillar numbers by half under LED street lights.\n"
    ),
}
# Filler papers give a slow policy something new to find every round (or the loop converges).
FILLERS = 14
QUESTION = "Why did house sparrows decline in European cities?"


class SlowPolicy:
    """Searches a new marker word every round, sleeping first: a run that takes seconds."""

    name = "slow"

    def __init__(self, delay: float = 0.2) -> None:
        self.delay = delay

    def decide(self, state: AgentState) -> PolicyStep:
        time.sleep(self.delay)
        return PolicyStep(Decision(thought="slowly", action=Search(query=f"marker{state.round}", k=1)))

    def answer(self, state: AgentState, reason: str) -> PolicyStep:
        return PolicyStep(Decision(action=Answer(text="Nothing useful.", evidence_ids=[], confidence=0.1)))


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> AppPaths:
    monkeypatch.setenv(keystore.NO_KEYRING_ENV, "1")  # never touch a developer's real keyring
    return app_paths().ensure()


@pytest.fixture
def library(tmp_path: Path, paths: AppPaths) -> Iterator[Library]:
    folder = tmp_path / "papers"
    folder.mkdir()
    for name, text in PAPERS.items():
        (folder / name).write_text(text, encoding="utf-8")
    lib = Library(paths)
    report = lib.import_paths([folder])
    assert not report.failed
    yield lib
    lib.close()


def build_window(qtbot: QtBot, library: Library, paths: AppPaths, settings: Settings | None = None) -> MainWindow:
    win = MainWindow(library, paths, settings or Settings())
    win.show()
    qtbot.waitExposed(win)
    return win


@pytest.fixture
def win(qtbot: QtBot, library: Library, paths: AppPaths) -> Iterator[MainWindow]:
    w = build_window(qtbot, library, paths)
    yield w
    w.shutdown_workers()
    w.close()
    w.deleteLater()
    QApplication.processEvents()


@pytest.fixture
def slow_policy(monkeypatch: pytest.MonkeyPatch, library: Library, tmp_path: Path) -> SlowPolicy:
    folder = tmp_path / "fillers"
    folder.mkdir()
    for i in range(1, FILLERS + 1):
        (folder / f"filler{i}.md").write_text(
            f"# Filler note {i}\n\nThis note mentions marker{i} once and nothing about birds.\n", encoding="utf-8"
        )
    assert len(library.import_paths([folder]).imported) == FILLERS
    policy = SlowPolicy()
    monkeypatch.setattr(Session, "make_policy", lambda self, *a, **k: policy)
    return policy


def ask(qtbot: QtBot, win: MainWindow, question: str = QUESTION, timeout: int = 10_000) -> None:
    pane = win.chat_pane
    pane.input.setPlainText(question)
    pane.input.setFocus()
    qtbot.keyClick(pane.input, Qt.Key.Key_Return)
    assert win.agent_thread is not None or pane.last_result() is not None
    qtbot.waitUntil(lambda: win.agent_thread is None, timeout=timeout)


def wait_for_round(qtbot: QtBot, win: MainWindow, n: int) -> None:
    qtbot.waitUntil(
        lambda: any(isinstance(e, RoundStarted) and e.round >= n for e in win.inspector.events()), timeout=5000
    )


# --- asking -------------------------------------------------------------------------------------


def test_offline_question_shows_answer_evidence_and_trace(qtbot: QtBot, win: MainWindow) -> None:
    ask(qtbot, win)
    pane, insp = win.chat_pane, win.inspector
    result = pane.last_result()
    assert result is not None and result.status is Status.ANSWERED
    assert result.evidence
    text = pane.conversation.toPlainText()
    assert QUESTION in text
    assert "Answered" in text
    assert "Confidence" in text
    first_sentence = result.answer.splitlines()[0].lstrip("- ").split("[")[0].strip()
    assert first_sentence in text
    # Citations are links to cite:n.
    assert 'href="cite:1"' in pane.conversation_html()
    # Back to idle: Send visible, input enabled and cleared.
    assert pane.send_button.isVisible() and not pane.stop_button.isVisible()
    assert pane.input.isEnabled() and pane.input.toPlainText() == ""
    # Evidence tab.
    assert insp.evidence_list.count() == len(result.evidence)
    assert "verified" in insp.evidence_list.item(0).text()
    # Trace: Start, rounds, Finished.
    tree = insp.trace_tree
    labels = [tree.topLevelItem(i).text(0) for i in range(tree.topLevelItemCount())]
    assert labels[0] == "Start" and "Round 1" in labels and labels[-1] == "Finished"
    round1 = tree.topLevelItem(labels.index("Round 1"))
    assert round1.text(1).startswith("search")
    children = [round1.child(i).text(0) for i in range(round1.childCount())]
    assert "Hits" in children and "Timing" in children and "Tokens" in children
    # Result tab.
    assert insp.status_label.text() == "Answered"
    assert insp.confidence_bar.value() == round(result.confidence * 100)
    assert insp.rounds_label.text() == str(result.steps)


def test_shift_enter_inserts_a_newline_and_does_not_send(qtbot: QtBot, win: MainWindow) -> None:
    pane = win.chat_pane
    pane.input.setFocus()
    qtbot.keyClicks(pane.input, "first")
    qtbot.keyClick(pane.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(pane.input, "second")
    assert pane.input.toPlainText() == "first\nsecond"
    assert win.agent_thread is None and pane.last_result() is None


def test_mode_selector_reaches_the_agent(qtbot: QtBot, win: MainWindow) -> None:
    pane = win.chat_pane
    assert [pane.mode_combo.itemData(i) for i in range(pane.mode_combo.count())] == ["auto", "quick", "loop"]
    pane.set_mode("loop")
    ask(qtbot, win)
    result = pane.last_result()
    assert result is not None and result.mode == "loop"


def test_stop_cancels_within_a_second(qtbot: QtBot, win: MainWindow, slow_policy: SlowPolicy) -> None:
    win.settings.agent.max_rounds = 30
    pane = win.chat_pane
    pane.input.setPlainText("what do the markers say?")
    qtbot.mouseClick(pane.send_button, Qt.MouseButton.LeftButton)
    assert pane.stop_button.isVisible() and not pane.input.isEnabled() and pane.busy.isVisible()
    wait_for_round(qtbot, win, 2)
    t0 = time.perf_counter()
    qtbot.mouseClick(pane.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: win.agent_thread is None, timeout=1000)
    assert time.perf_counter() - t0 < 1.0
    result = pane.last_result()
    assert result is not None and result.status is Status.CANCELLED
    assert "Cancelled" in pane.conversation.toPlainText()
    assert win.inspector.status_label.text() == "Cancelled"
    assert pane.send_button.isVisible() and pane.input.isEnabled()


def test_citation_click_selects_evidence(qtbot: QtBot, win: MainWindow) -> None:
    ask(qtbot, win)
    result = win.chat_pane.last_result()
    assert result is not None and result.evidence
    target = result.evidence[-1]
    browser = win.chat_pane.conversation
    # Find the answer's link to the last evidence number and click it like a user would.
    doc = browser.document()
    pos = -1
    block = doc.begin()
    while block.isValid() and pos < 0:
        it = block.begin()
        while not it.atEnd():
            frag = it.fragment()
            if frag.charFormat().anchorHref() == f"cite:{target.number}":
                pos = frag.position()
                break
            it += 1
        block = block.next()
    assert pos >= 0
    cursor = QTextCursor(doc)
    cursor.setPosition(pos + 1)
    browser.setTextCursor(cursor)
    browser.ensureCursorVisible()
    rect = browser.cursorRect(cursor)
    point = rect.center()
    point.setX(max(1, rect.left() - 2))
    win.inspector.tabs.setCurrentIndex(1)  # somewhere else first
    win.inspector.evidence_list.setCurrentRow(-1)
    with qtbot.waitSignal(win.chat_pane.citation_clicked, timeout=1000) as sig:
        qtbot.mouseClick(browser.viewport(), Qt.MouseButton.LeftButton, pos=point)
    assert sig.args == [target.number]
    insp = win.inspector
    assert insp.tabs.currentWidget() is insp.evidence_tab
    selected = insp.selected_evidence()
    assert selected is not None and selected.number == target.number
    assert target.text.split()[0] in insp.passage_view.toPlainText()
    # The browser did not navigate away from the conversation.
    assert browser.source() == QUrl()
    assert QUESTION in browser.toPlainText()


def test_evidence_open_at_source_emits_location(qtbot: QtBot, win: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    ask(qtbot, win)
    result = win.chat_pane.last_result()
    assert result is not None
    insp = win.inspector
    insp.select_evidence(1)
    opened: list[tuple[int, int, str]] = []
    monkeypatch.setattr(win.library_pane, "open_document", lambda d, p, t: opened.append((d, p, t)))
    insp.open_source.disconnect()
    insp.open_source.connect(win.library_pane.open_document)
    with qtbot.waitSignal(insp.open_source, timeout=1000) as sig:
        qtbot.mouseClick(insp.open_button, Qt.MouseButton.LeftButton)
    e = result.evidence[0]
    assert sig.args == [e.doc_id, e.page, e.text]


def test_copy_answer_puts_html_and_text_on_the_clipboard(qtbot: QtBot, win: MainWindow) -> None:
    ask(qtbot, win)
    result = win.chat_pane.last_result()
    assert result is not None
    win.copy_answer_action.trigger()
    mime = QApplication.clipboard().mimeData()
    assert mime.hasHtml() and mime.hasText()
    assert "text/html" in mime.formats() and "text/plain" in mime.formats()
    # The references are the cited documents in the preferred style (APA by default), once each.
    cited = {e.doc_id: e.title for e in result.evidence if f"[{e.number}]" in result.answer}
    text = mime.text()
    assert "References" in text
    refs = text.split("\n\nReferences\n", 1)[1].strip().splitlines()
    assert len(refs) == len(cited)
    for title in cited.values():
        assert any(title in r for r in refs)
    assert result.answer.split("[")[0].strip("- ").strip() in text
    assert "<b>References</b>" in mime.html()
    assert "cite:" not in mime.html()  # links that mean nothing outside PaperPilot are dropped


# --- inspector export ---------------------------------------------------------------------------


def test_trace_export_jsonl_and_markdown(
    qtbot: QtBot, win: MainWindow, paths: AppPaths, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    keystore.save_api_key(paths, SECRET)
    ask(qtbot, win)
    chosen: list[tuple[str, str]] = []

    def fake_dialog(*args: object, **kwargs: object) -> tuple[str, str]:
        return chosen.pop(0)

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake_dialog))
    out_jsonl = tmp_path / "run"  # no suffix: the chosen filter decides
    out_md = tmp_path / "report.md"
    chosen[:] = [(str(out_jsonl), "JSON lines (*.jsonl)"), (str(out_md), "Markdown report (*.md)")]
    win.export_trace_action.trigger()
    win.inspector.export_trace()
    jsonl = out_jsonl.with_suffix(".jsonl").read_text(encoding="utf-8")
    events = [event_from_json(line) for line in jsonl.splitlines()]
    assert len(events) == len(win.inspector.events())
    assert events[0].type == "run_started"  # type: ignore[attr-defined]
    assert isinstance(events[-1], Finished) and events[-1].result.status is Status.ANSWERED
    md = out_md.read_text(encoding="utf-8")
    assert md.startswith("# PaperPilot research trace") and "## Round 1" in md and "## Result" in md
    for text in (jsonl, md, paths.settings_file.read_text() if paths.settings_file.exists() else ""):
        assert SECRET not in text


def test_export_with_nothing_to_export_says_so(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    pane = InspectorPane()
    qtbot.addWidget(pane)
    shown: list[str] = []
    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "information", staticmethod(lambda parent, title, text: shown.append(text)))
    pane.export_trace()
    assert shown and "ask a question first" in shown[0]


# --- threads and responsiveness -----------------------------------------------------------------


def test_closing_the_window_during_a_run_stops_it(qtbot: QtBot, library: Library, paths: AppPaths, slow_policy: SlowPolicy) -> None:
    settings = Settings()
    settings.agent.max_rounds = 30
    w = build_window(qtbot, library, paths, settings)
    w.chat_pane.input.setPlainText("markers please")
    qtbot.mouseClick(w.chat_pane.send_button, Qt.MouseButton.LeftButton)
    wait_for_round(qtbot, w, 1)
    thread = w.agent_thread
    assert thread is not None and thread.isRunning()
    t0 = time.perf_counter()
    assert w.close()
    assert time.perf_counter() - t0 < bound(2.0)
    assert w.agent_thread is None
    assert thread.isFinished()
    w.deleteLater()
    QApplication.processEvents()


class LagProbe(QObject):
    """Measures the longest gap between 10 ms timer ticks: how long the GUI thread was blocked."""

    def __init__(self) -> None:
        super().__init__()
        self.clock = QElapsedTimer()
        self.timer = QTimer(self)
        self.timer.setInterval(10)
        self.timer.timeout.connect(self.on_timer_timeout)
        self.max_gap_ms = 0
        self.ticks = 0

    def start(self) -> None:
        self.clock.start()
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    @Slot()
    def on_timer_timeout(self) -> None:
        self.max_gap_ms = max(self.max_gap_ms, self.clock.restart())
        self.ticks += 1


def test_gui_thread_never_blocked_during_a_run(qtbot: QtBot, win: MainWindow, monkeypatch: pytest.MonkeyPatch) -> None:
    # Fast offline rounds interleaved with short sleeps: many events streaming into the panes.
    from paperpilot.core.agent.offline import OfflinePolicy

    class Paced(OfflinePolicy):
        def decide(self, state: AgentState) -> PolicyStep:
            time.sleep(0.05)
            return super().decide(state)

    monkeypatch.setattr(Session, "make_policy", lambda self, *a, **k: Paced())
    win.chat_pane.set_mode("loop")
    # As run_gui does once the window is up (freeze_startup_objects): long-lived objects are
    # kept out of the collector's sight, so a full collection of the test session's heap is
    # not mistaken for the GUI blocking.
    gc.collect()
    gc.freeze()
    probe = LagProbe()
    probe.start()
    try:
        ask(qtbot, win)
        qtbot.wait(30)
    finally:
        probe.stop()
        gc.unfreeze()
    assert win.chat_pane.last_result() is not None
    assert probe.ticks > 5
    assert probe.max_gap_ms < bound(100), f"GUI thread blocked for {probe.max_gap_ms} ms"


# --- settings -----------------------------------------------------------------------------------


def test_settings_persist_across_restart_and_key_stays_out_of_settings(qtbot: QtBot, paths: AppPaths) -> None:
    dlg = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dlg)
    assert dlg.offline_check.isChecked()  # offline by default
    dlg.offline_check.setChecked(False)
    dlg.preset_combo.setCurrentIndex(1)  # LM Studio
    assert dlg.url_edit.text() == "http://127.0.0.1:1234/v1"
    dlg.model_combo.setCurrentText("qwen2.5-7b-instruct")
    dlg.key_edit.setText(SECRET)
    assert dlg.key_edit.echoMode() == dlg.key_edit.EchoMode.Password
    dlg.rounds_spin.setValue(9)
    dlg.temperature_spin.setValue(0.4)
    assert not dlg.quote_check.isChecked()  # the model's quote check is off by default
    dlg.quote_check.setChecked(True)
    dlg.chunk_spin.setValue(1200)
    dlg.citation_combo.setCurrentIndex(dlg.citation_combo.findData("gbt7714-2015-numeric"))
    dlg.language_combo.setCurrentIndex(dlg.language_combo.findData("zh"))
    dlg.accept()
    # A new model connection is checked first; nothing serves LM Studio's port here, so the
    # dialog warns, and "Keep anyway" saves regardless.
    qtbot.waitUntil(lambda: dlg.unreachable_box is not None or dlg.result() == dlg.DialogCode.Accepted, timeout=10_000)
    if dlg.unreachable_box is not None:
        keep = next(b for b in dlg.unreachable_box.buttons() if b.text() == "Keep anyway")
        qtbot.mouseClick(keep, Qt.MouseButton.LeftButton)
    assert dlg.result() == dlg.DialogCode.Accepted
    save_settings(dlg.result_settings(), paths.settings_file)

    # "Restart": read the file again and build a fresh dialog from it.
    loaded, warning = load_settings(paths.settings_file)
    assert warning is None
    assert loaded.llm.enabled and loaded.llm.base_url == "http://127.0.0.1:1234/v1"
    assert loaded.llm.model == "qwen2.5-7b-instruct"
    assert loaded.agent.max_rounds == 9 and loaded.llm.temperature == 0.4 and loaded.llm.quote_check
    assert loaded.imports.chunk_max_chars == 1200
    assert loaded.ui == UISettings(citation_style="gbt7714-2015-numeric", ui_language="zh")
    dlg2 = SettingsDialog(loaded, paths)
    qtbot.addWidget(dlg2)
    assert not dlg2.offline_check.isChecked()
    assert dlg2.preset_combo.currentText() == "LM Studio"
    assert dlg2.model_combo.currentText() == "qwen2.5-7b-instruct"
    assert dlg2.rounds_spin.value() == 9 and dlg2.chunk_spin.value() == 1200
    assert abs(dlg2.temperature_spin.value() - 0.4) < 1e-9 and dlg2.quote_check.isChecked()
    assert dlg2.citation_combo.currentData() == "gbt7714-2015-numeric"
    assert dlg2.language_combo.currentData() == "zh"
    assert dlg2.key_edit.text() == ""  # the key is never shown, not even as dots
    assert dlg2.key_edit.placeholderText().startswith("Saved")
    # The key: in the key store, nowhere in settings.json.
    assert load_api_key(paths) == SECRET
    assert SECRET not in paths.settings_file.read_text()
    assert "api_key" not in json.loads(paths.settings_file.read_text()).get("llm", {})
    dlg2.reject()


def test_settings_refuse_llm_without_model(qtbot: QtBot, paths: AppPaths) -> None:
    dlg = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dlg)
    dlg.offline_check.setChecked(False)
    dlg.model_combo.setCurrentText("")
    dlg.accept()
    assert dlg.result() != dlg.DialogCode.Accepted
    assert dlg.error_label.isVisibleTo(dlg) and "model" in dlg.error_label.text()
    dlg.reject()


def test_test_connection_ok_lists_models(qtbot: QtBot, paths: AppPaths, scripted_llm: object) -> None:
    from tests.fakes.openai_server import DEFAULT_MODEL, ScriptedServer

    server = scripted_llm
    assert isinstance(server, ScriptedServer)
    server.add("OK")
    s = Settings()
    s.llm.enabled = True
    s.llm.base_url = server.url
    s.llm.model = DEFAULT_MODEL
    dlg = SettingsDialog(s, paths)
    qtbot.addWidget(dlg)
    probe = LagProbe()
    probe.start()
    qtbot.mouseClick(dlg.test_button, Qt.MouseButton.LeftButton)
    assert dlg.is_testing() and not dlg.test_button.isEnabled()
    qtbot.waitUntil(lambda: not dlg.is_testing(), timeout=10_000)
    probe.stop()
    assert dlg.test_label.text().startswith("OK"), dlg.test_label.text()
    assert "1 model" in dlg.test_label.text()
    assert dlg.model_combo.count() == 1 and dlg.model_combo.currentText() == DEFAULT_MODEL
    assert probe.max_gap_ms < bound(100)
    dlg.reject()


def test_test_connection_refused_in_plain_words(qtbot: QtBot, paths: AppPaths) -> None:
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    s = Settings()
    s.llm.enabled = True
    s.llm.base_url = f"http://127.0.0.1:{port}/v1"
    s.llm.model = "m"
    dlg = SettingsDialog(s, paths)
    qtbot.addWidget(dlg)
    qtbot.mouseClick(dlg.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.is_testing(), timeout=10_000)
    assert dlg.test_label.text().startswith("Connection refused"), dlg.test_label.text()
    dlg.reject()


def test_closing_settings_during_a_test_does_not_wait_for_the_server(
    qtbot: QtBot, paths: AppPaths, scripted_llm: object
) -> None:
    from tests.fakes.openai_server import ScriptedServer, delay

    server = scripted_llm
    assert isinstance(server, ScriptedServer)
    server.add(delay(30))
    s = Settings()
    s.llm.enabled = True
    s.llm.base_url = server.url
    s.llm.model = server.model
    dlg = SettingsDialog(s, paths)
    qtbot.addWidget(dlg)
    qtbot.mouseClick(dlg.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(server.requests) == 1, timeout=5000)  # the chat is in flight
    t0 = time.perf_counter()
    dlg.reject()
    assert time.perf_counter() - t0 < 2.5
    assert not dlg.is_testing()


# --- language -----------------------------------------------------------------------------------


def test_chinese_interface(qtbot: QtBot, library: Library, paths: AppPaths) -> None:
    settings = Settings(ui=UISettings(ui_language="zh"))
    i18n.set_language(settings.ui.ui_language)  # what the app does at start-up
    try:
        w = build_window(qtbot, library, paths, settings)
        pane, insp = w.chat_pane, w.inspector
        assert pane.send_button.text() == "发送"
        assert pane.input.placeholderText() == "就你的论文提一个问题…"
        assert pane.mode_combo.itemText(2) == "深度循环"
        assert [insp.tabs.tabText(i) for i in range(3)] == ["证据", "追踪", "结果"]
        dlg = SettingsDialog(settings, paths, w)
        assert dlg.windowTitle() == "设置" and dlg.test_button.text() == "测试连接"
        dlg.reject()
        ask(qtbot, w)
        assert "已回答" in pane.conversation.toPlainText()
        w.close()
        w.deleteLater()
    finally:
        i18n.set_language("en")


# --- rendering helpers --------------------------------------------------------------------------


def test_markdown_is_escaped_and_citations_linked() -> None:
    out = markdown_to_html("- <script>x</script> **bold** [1]\n- cites [2, 9]", {1, 2})
    assert "<script>" not in out and "&lt;script&gt;" in out
    assert "<b>bold</b>" in out
    assert '<a href="cite:1"' in out and '<a href="cite:2"' in out
    assert 'cite:9"' not in out  # not an evidence number
    assert out.startswith("<ul><li>")
    assert "cite:" not in markdown_to_html("see [1]", None)


def test_highlight_marks_terms_without_breaking_html() -> None:
    out = highlight_html("Sparrows declined & <b>fell</b>", ["sparrow", "decline", "amp"])
    assert out.count("<span") == 2
    assert "&amp;" in out and "&lt;b&gt;" in out
    assert "麻雀" in highlight_html("城市麻雀数量下降", ["麻雀"]) and "<span" in highlight_html("城市麻雀", ["麻雀"])


def test_pane_refused_ask_keeps_the_question(qtbot: QtBot) -> None:
    pane = ChatPane()
    qtbot.addWidget(pane)
    asked: list[tuple[str, str]] = []
    pane.ask_requested.connect(lambda q, m: asked.append((q, m)))  # same thread: no worker involved
    pane.input.setPlainText("  a question  ")
    pane.on_send_clicked()
    assert asked == [("a question", "auto")]
    # Nobody called set_running(True) (e.g. no model configured): the text stays for a retry.
    assert pane.input.toPlainText() == "  a question  "
    assert not pane.is_running()


def test_stop_is_idempotent_and_threads_untouched(qtbot: QtBot) -> None:
    pane = ChatPane()
    qtbot.addWidget(pane)
    stops: list[int] = []
    pane.stop_requested.connect(lambda: stops.append(1))
    pane.on_stop_clicked()  # not running: nothing to stop
    pane.set_running(True)
    pane.on_stop_clicked()
    pane.on_stop_clicked()  # the button is disabled after the first click
    assert stops == [1]
    assert threading.current_thread() is threading.main_thread()
