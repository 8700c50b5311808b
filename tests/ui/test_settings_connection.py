"""Settings ▸ Test connection can be cancelled against a hung server, its message is never cut
off, and saving a model that cannot be reached warns with "Keep anyway" / "Cancel".

Real HTTP to the scripted server on 127.0.0.1 (or to a port nobody listens on); the dialog's
workers run in real QThreads, and the GUI event loop is watched for stalls throughout.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import pytest
from PySide6.QtCore import QPoint, Qt
from pytestqt.qtbot import QtBot

from paperpilot.core.settings import keystore
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.keystore import load_api_key
from paperpilot.core.settings.paths import AppPaths, app_paths
from paperpilot.ui.settings_dialog import CANCELLED_MESSAGE, SettingsDialog
from tests.fakes.openai_server import Reply, ScriptedServer, hang, headers_then_hang, trickle
from tests.timing import bound

from .test_chat_inspector import LagProbe

STOP_BOUND_S = bound(2.0)
MAX_STALL_MS = bound(100)
HANGS: dict[str, Callable[[], Reply]] = {
    "accept-and-hang": hang,
    "headers-then-hang": headers_then_hang,
    "slow-trickle": lambda: trickle(interval=0.3),
}


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> AppPaths:
    monkeypatch.setenv(keystore.NO_KEYRING_ENV, "1")
    return app_paths().ensure()


def llm_settings(url: str, model: str) -> Settings:
    s = Settings()
    s.llm.enabled = True
    s.llm.base_url = url
    s.llm.model = model
    return s


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def open_dialog(qtbot: QtBot, settings: Settings, paths: AppPaths) -> SettingsDialog:
    dlg = SettingsDialog(settings, paths)
    qtbot.addWidget(dlg)
    dlg.show()
    qtbot.waitExposed(dlg)
    return dlg


# --- Test connection: cancel ----------------------------------------------------------------------


@pytest.mark.parametrize("where", ["chat", "models"])
@pytest.mark.parametrize("behaviour", list(HANGS))
def test_cancel_a_test_against_a_hung_server(
    qtbot: QtBot, paths: AppPaths, scripted_llm: ScriptedServer, behaviour: str, where: str
) -> None:
    if where == "chat":
        scripted_llm.add(HANGS[behaviour]())  # the model list answers, the tiny chat hangs
    else:
        scripted_llm.models_steps = [HANGS[behaviour]()]
    dlg = open_dialog(qtbot, llm_settings(scripted_llm.url, scripted_llm.model), paths)
    assert not dlg.cancel_test_button.isVisible()
    qtbot.mouseClick(dlg.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: scripted_llm.stalls >= 1, timeout=10_000)
    qtbot.wait(200)  # the worker is blocked inside the request
    assert dlg.is_testing() and dlg.cancel_test_button.isVisible() and dlg.cancel_test_button.isEnabled()
    probe = LagProbe()
    probe.start()
    try:
        t0 = time.perf_counter()
        qtbot.mouseClick(dlg.cancel_test_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not dlg.is_testing(), timeout=int(STOP_BOUND_S * 1000) + 500)
        elapsed = time.perf_counter() - t0
    finally:
        probe.stop()
    print(f"{behaviour} in {where}: test cancelled in {elapsed:.2f} s, max stall {probe.max_gap_ms} ms")
    assert elapsed < STOP_BOUND_S
    assert dlg.test_label.text() == CANCELLED_MESSAGE
    assert dlg.test_button.isEnabled() and not dlg.cancel_test_button.isVisible()
    assert probe.max_gap_ms < MAX_STALL_MS
    dlg.reject()


def test_a_new_test_after_a_cancel_works(qtbot: QtBot, paths: AppPaths, scripted_llm: ScriptedServer) -> None:
    scripted_llm.add(hang(), "OK")
    dlg = open_dialog(qtbot, llm_settings(scripted_llm.url, scripted_llm.model), paths)
    qtbot.mouseClick(dlg.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: scripted_llm.stalls >= 1, timeout=10_000)
    qtbot.mouseClick(dlg.cancel_test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.is_testing(), timeout=3000)
    qtbot.mouseClick(dlg.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.is_testing(), timeout=10_000)
    assert dlg.test_label.text().startswith("OK."), dlg.test_label.text()
    dlg.reject()


# --- Test connection: the message is never cut off ------------------------------------------------


def assert_fully_visible(dlg: SettingsDialog) -> None:
    label = dlg.test_label
    assert label.isVisible()
    needed = label.heightForWidth(label.width())
    assert label.height() >= needed, f"label is {label.height()} px high but its text needs {needed} px"
    bottom_right = label.mapTo(dlg, QPoint(label.width() - 1, label.height() - 1))
    assert dlg.rect().contains(bottom_right), "the label reaches past the dialog's edge"


def test_a_long_test_message_is_shown_in_full(qtbot: QtBot, paths: AppPaths, scripted_llm: ScriptedServer) -> None:
    scripted_llm.listed_models = [f"organisation-{i}/a-rather-long-model-name-{i}-instruct-q4_K_M" for i in range(12)]
    dlg = open_dialog(qtbot, llm_settings(scripted_llm.url, "the-model-you-meant"), paths)
    qtbot.mouseClick(dlg.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.is_testing(), timeout=10_000)
    qtbot.wait(50)
    text = dlg.test_label.text()
    assert "has no model 'the-model-you-meant'" in text and "organisation-7/" in text and len(text) > 300
    assert_fully_visible(dlg)
    dlg.reject()


def test_a_message_with_a_long_unbroken_url_wraps_inside_the_dialog(qtbot: QtBot, paths: AppPaths) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/" + "a-very-long-path-segment-without-spaces/" * 6 + "v1"
    dlg = open_dialog(qtbot, llm_settings(url, "m"), paths)
    width = dlg.width()
    qtbot.mouseClick(dlg.test_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dlg.is_testing(), timeout=10_000)
    qtbot.wait(50)
    assert dlg.test_label.text().startswith("Connection refused") and url in dlg.test_label.text()
    assert dlg.width() == width  # it wraps; the dialog does not run off the screen sideways
    assert_fully_visible(dlg)
    dlg.reject()


# --- saving a model that cannot be reached --------------------------------------------------------


def click_box_button(qtbot: QtBot, dlg: SettingsDialog, text: str) -> None:
    box = dlg.unreachable_box
    assert box is not None
    button = next(b for b in box.buttons() if b.text() == text)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)


def test_saving_an_unreachable_model_warns_then_cancel_or_keep(qtbot: QtBot, paths: AppPaths) -> None:
    dlg = open_dialog(qtbot, Settings(), paths)  # offline at first
    dlg.offline_check.setChecked(False)
    dlg.url_edit.setText(f"http://127.0.0.1:{free_port()}/v1")
    dlg.model_combo.setCurrentText("llama3")
    dlg.key_edit.setText("sk-test-key-for-the-check")
    probe = LagProbe()
    probe.start()
    dlg.accept()
    assert dlg.is_checking() and not dlg.ok_button.isEnabled()
    qtbot.waitUntil(lambda: dlg.unreachable_box is not None, timeout=10_000)
    probe.stop()
    assert probe.max_gap_ms < MAX_STALL_MS
    box = dlg.unreachable_box
    assert box is not None and box.isVisible()
    assert sorted(b.text() for b in box.buttons()) == ["Cancel", "Keep anyway"]
    assert "Connection refused" in box.informativeText()
    assert "sk-test-key" not in box.informativeText()
    # Cancel: nothing saved, the dialog stays open for a fix.
    click_box_button(qtbot, dlg, "Cancel")
    assert dlg.result() != dlg.DialogCode.Accepted and dlg.isVisible()
    assert dlg.ok_button.isEnabled() and load_api_key(paths) is None
    # Keep anyway: saved as typed.
    dlg.accept()
    qtbot.waitUntil(lambda: dlg.unreachable_box is not None, timeout=10_000)
    click_box_button(qtbot, dlg, "Keep anyway")
    assert dlg.result() == dlg.DialogCode.Accepted
    assert dlg.result_settings().llm.model == "llama3"
    assert load_api_key(paths) == "sk-test-key-for-the-check"


def test_saving_a_reachable_model_asks_nothing(qtbot: QtBot, paths: AppPaths, scripted_llm: ScriptedServer) -> None:
    dlg = open_dialog(qtbot, Settings(), paths)
    dlg.offline_check.setChecked(False)
    dlg.url_edit.setText(scripted_llm.url)
    dlg.model_combo.setCurrentText(scripted_llm.model)
    dlg.accept()
    qtbot.waitUntil(lambda: dlg.result() == dlg.DialogCode.Accepted, timeout=10_000)
    assert dlg.unreachable_box is None
    assert scripted_llm.requests == []  # the quick check trusts the model list: no chat


def test_saving_unchanged_model_settings_checks_nothing(qtbot: QtBot, paths: AppPaths) -> None:
    # The model was chosen before; changing the citation style must not wait for the server.
    dlg = open_dialog(qtbot, llm_settings(f"http://127.0.0.1:{free_port()}/v1", "m"), paths)
    dlg.citation_combo.setCurrentIndex(dlg.citation_combo.findData("apa"))
    dlg.accept()
    assert not dlg.is_checking() and dlg.result() == dlg.DialogCode.Accepted


def test_closing_during_the_save_check_of_a_hung_server_is_immediate(
    qtbot: QtBot, paths: AppPaths, scripted_llm: ScriptedServer
) -> None:
    scripted_llm.models_steps = [hang()]
    dlg = open_dialog(qtbot, Settings(), paths)
    dlg.offline_check.setChecked(False)
    dlg.url_edit.setText(scripted_llm.url)
    dlg.model_combo.setCurrentText(scripted_llm.model)
    dlg.accept()
    qtbot.waitUntil(lambda: scripted_llm.stalls >= 1, timeout=10_000)
    t0 = time.perf_counter()
    dlg.reject()
    assert time.perf_counter() - t0 < 0.5
    assert not dlg.is_checking() and dlg.result() == dlg.DialogCode.Rejected


def test_presets_fill_the_providers_model_names(qtbot: QtBot, paths: AppPaths) -> None:
    from paperpilot.core.llm.presets import PRESETS

    dlg = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dlg)
    dlg.offline_check.setChecked(False)
    names = [dlg.preset_combo.itemText(i) for i in range(dlg.preset_combo.count())]
    dlg.preset_combo.setCurrentIndex(names.index("DeepSeek"))
    assert dlg.url_edit.text() == "https://api.deepseek.com"
    assert dlg.model_combo.currentText() == "deepseek-flash"
    offered = [dlg.model_combo.itemText(i) for i in range(dlg.model_combo.count())]
    assert "deepseek-chat" not in offered and "deepseek-v4-pro" in offered
    assert dlg.key_env_edit.text() == "DEEPSEEK_API_KEY"
    assert not dlg.model_note.isVisibleTo(dlg)
    qwen = next(i for i, p in enumerate(PRESETS) if p.name.startswith("Qwen"))
    dlg.preset_combo.setCurrentIndex(qwen)
    assert dlg.url_edit.text() == "https://dashscope.aliyuncs.com/compatible-mode/v1"
    assert dlg.model_combo.currentText() == "qwen3.8-flash"
    # The variable the DeepSeek preset filled follows the provider; one the user typed stays.
    assert dlg.key_env_edit.text() == "DASHSCOPE_API_KEY"
    dlg.key_env_edit.setText("MY_QWEN_KEY")
    dlg.preset_combo.setCurrentIndex(names.index("DeepSeek"))
    assert dlg.key_env_edit.text() == "MY_QWEN_KEY"
    dlg.preset_combo.setCurrentIndex(names.index("Ollama"))
    assert dlg.url_edit.text() == "http://127.0.0.1:11434/v1"
    assert dlg.model_combo.currentText() == ""  # no local server serves deepseek-flash by that name
    dlg.preset_combo.setCurrentIndex(names.index("vLLM"))
    assert dlg.url_edit.text() == "http://127.0.0.1:8000/v1"
    # Settings saved with a name DeepSeek has withdrawn (and its older /v1 URL): the preset is
    # recognised, and the dialog says what to use instead; choosing the preset again fills it.
    s = Settings()
    s.llm.enabled, s.llm.base_url, s.llm.model = True, "https://api.deepseek.com/v1", "deepseek-chat"
    dlg2 = SettingsDialog(s, paths)
    qtbot.addWidget(dlg2)
    dlg2.show()
    assert dlg2.preset_combo.currentText() == "DeepSeek"
    assert dlg2.model_combo.currentText() == "deepseek-chat"
    assert dlg2.model_note.isVisible()
    assert dlg2.model_note.text() == "DeepSeek has retired “deepseek-chat”: use “deepseek-flash”."
    # The note is shown whole: its row is as tall as its wrapped text needs.
    qtbot.waitUntil(lambda: dlg2.model_note.height() >= dlg2.model_note.heightForWidth(dlg2.model_note.width()))
    dlg2.model_combo.setCurrentText("deepseek-flash")
    assert not dlg2.model_note.isVisible()
    dlg.reject()
    dlg2.reject()


def test_the_key_store_line_is_never_cut_off(qtbot: QtBot, paths: AppPaths) -> None:
    """A long path (the key file) wraps onto a second line that the form makes room for."""
    dlg = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dlg)
    dlg.offline_check.setChecked(False)
    dlg.key_store_label.setText("A key you enter is stored in a file only you can read: " + "/very/long/path" * 12)
    dlg.show()
    label = dlg.key_store_label
    qtbot.waitUntil(lambda: label.height() >= label.heightForWidth(label.width()) > label.fontMetrics().height() * 2)
    # …and no block of empty rows either: the dialog fits its content.
    qtbot.waitUntil(lambda: label.height() < label.heightForWidth(label.width()) + label.fontMetrics().height())
    dlg.reject()
