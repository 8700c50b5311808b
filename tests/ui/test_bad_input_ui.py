"""Bad input in the GUI: long questions, broken profiles, contradictory settings, odd keys."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from paperpilot.core.agent.events import Status
from paperpilot.core.app import Session
from paperpilot.core.library import Library
from paperpilot.core.memory.profile import ResearchProfile, profile_path
from paperpilot.core.settings import keystore
from paperpilot.core.settings.config import ImportSettings, Settings, load_settings
from paperpilot.core.settings.keystore import key_file, load_api_key
from paperpilot.core.settings.paths import AppPaths, app_paths
from paperpilot.ui.main_window import MainWindow
from paperpilot.ui.settings_dialog import SettingsDialog
from tests.unit.core.agent.test_long_questions import LIBRARY_TEXT, LONG_QUESTION, PAPERS

KEY = "sk-proj-SECRET-0123456789abcdefX"


@pytest.fixture
def paths() -> AppPaths:
    return app_paths().ensure()


@pytest.fixture
def library(tmp_path: Path, paths: AppPaths) -> Iterator[Library]:
    folder = tmp_path / "papers"
    folder.mkdir()
    for name, text in PAPERS.items():
        (folder / name).write_text(text, encoding="utf-8")
    lib = Library(paths)
    assert not lib.import_paths([folder]).failed
    yield lib
    lib.close()


@pytest.fixture
def make_window(qtbot: QtBot, library: Library, paths: AppPaths) -> Iterator[type[MainWindow]]:
    made: list[MainWindow] = []

    def build() -> MainWindow:
        w = MainWindow(library, paths, Settings())
        w.show()
        qtbot.waitExposed(w)
        made.append(w)
        return w

    yield build  # type: ignore[misc]
    for w in made:
        w.shutdown_workers()
        w.close()
        w.deleteLater()
    QApplication.processEvents()


def ask(qtbot: QtBot, win: MainWindow, question: str) -> None:
    pane = win.chat_pane
    pane.input.setPlainText(question)
    pane.input.setFocus()
    qtbot.keyClick(pane.input, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: win.agent_thread is None and pane.last_result() is not None, timeout=15_000)


def test_a_long_comparison_question_runs_in_the_chat_pane(qtbot: QtBot, make_window: type[MainWindow]) -> None:
    win = make_window()
    ask(qtbot, win, LONG_QUESTION)
    result = win.chat_pane.last_result()
    assert result is not None and result.status is not Status.FAILED, result
    shown = win.chat_pane.conversation.toPlainText()
    assert "masked language modelling" in shown or "1.5B parameters" in shown
    for word in LIBRARY_TEXT:
        assert word not in shown


def test_a_profile_of_the_wrong_types_is_set_aside_and_the_window_works(
    qtbot: QtBot, paths: AppPaths, make_window: type[MainWindow]
) -> None:
    bad = '{"schema_version": 2, "keywords": {"segmentation": 5}, "fields_of_research": "x"}'
    profile_path(paths).write_text(bad, encoding="utf-8")
    win = make_window()
    assert win.profile == ResearchProfile()
    message = win.statusBar().currentMessage()
    assert "research profile" in message and "moved to profile.json.corrupt-" in message
    assert "validation" not in message.lower() and message.count("\n") == 0
    aside = list(paths.config_dir.glob("profile.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == bad
    ask(qtbot, win, "How is BERT pre-trained?")
    result = win.chat_pane.last_result()
    assert result is not None and result.status is Status.ANSWERED


# --- the settings dialog ------------------------------------------------------------------------


def test_chunk_sizes_that_contradict_each_other_cannot_be_saved(qtbot: QtBot, paths: AppPaths) -> None:
    dlg = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dlg)
    dlg.show()
    assert not dlg.chunk_error.isVisible()
    dlg.chunk_min_spin.setValue(900)
    dlg.chunk_spin.setValue(800)
    assert dlg.chunk_error.isVisible()
    assert dlg.chunk_error.text() == (
        "The smallest chunk (900 characters) is larger than the largest (800); make the smallest at most the largest."
    )
    dlg.accept()
    assert dlg.result() != dlg.DialogCode.Accepted and dlg.isVisible()
    assert dlg.error_label.isVisible() and "smallest chunk" in dlg.error_label.text()
    dlg.chunk_spin.setValue(1200)
    assert not dlg.chunk_error.isVisible() and not dlg.error_label.isVisible()
    dlg.accept()
    assert dlg.result() == dlg.DialogCode.Accepted
    assert dlg.result_settings().imports == ImportSettings(chunk_min_chars=900, chunk_max_chars=1200)


def test_settings_on_disk_with_contradicting_chunks_are_refused_in_plain_words(paths: AppPaths) -> None:
    paths.settings_file.write_text(json.dumps({"imports": {"chunk_min_chars": 900, "chunk_max_chars": 800}}))
    settings, warning = load_settings(paths.settings_file)
    assert settings == Settings()
    assert warning is not None and "the smallest chunk (900 characters) is larger than the largest (800)" in warning
    assert "validation" not in warning.lower()


def test_the_dialog_says_a_private_file_holds_the_key_when_there_is_no_keyring(
    qtbot: QtBot, paths: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Real keyring, no backend on this machine (or PAPERPILOT_NO_KEYRING where there is one).
    if keystore._usable_backend() is not None:
        monkeypatch.setenv(keystore.NO_KEYRING_ENV, "1")
    dlg = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dlg)
    assert dlg.key_store_label.text() == f"A key you enter is stored in a file only you can read: {key_file(paths)}"
    dlg.offline_check.setChecked(False)
    dlg.model_combo.setCurrentText("m")
    dlg.key_edit.setText(f"  {KEY}\r\n")
    _accept_keeping_unreachable(qtbot, dlg)
    assert load_api_key(paths) == KEY
    again = SettingsDialog(Settings(), paths)
    qtbot.addWidget(again)
    assert again.key_store_label.text() == f"Stored in a file only you can read: {key_file(paths)}"
    again.reject()


def _accept_keeping_unreachable(qtbot: QtBot, dlg: SettingsDialog) -> None:
    """OK on a new model connection: nothing serves it here, so "Keep anyway" saves it."""
    dlg.accept()
    qtbot.waitUntil(lambda: dlg.unreachable_box is not None or dlg.result() == dlg.DialogCode.Accepted, timeout=10_000)
    if dlg.unreachable_box is not None:
        keep = next(b for b in dlg.unreachable_box.buttons() if b.text() == "Keep anyway")
        qtbot.mouseClick(keep, Qt.MouseButton.LeftButton)
    assert dlg.result() == dlg.DialogCode.Accepted


class MemoryKeyring(KeyringBackend):
    """A real keyring backend class registered in-process (no OS keyring exists on this machine)."""

    priority = 1  # type: ignore[assignment]
    viable = False  # type: ignore[assignment]  # never chosen by keyring's own discovery
    name = "Test Memory Keyring"  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)


def test_the_dialog_names_the_keyring_that_holds_the_key(
    qtbot: QtBot, paths: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(keystore.NO_KEYRING_ENV, raising=False)
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        dlg = SettingsDialog(Settings(), paths)
        qtbot.addWidget(dlg)
        assert dlg.key_store_label.text() == "A key you enter is stored in: the system keyring (Test Memory Keyring)"
        dlg.offline_check.setChecked(False)
        dlg.model_combo.setCurrentText("m")
        dlg.key_edit.setText(KEY)
        _accept_keeping_unreachable(qtbot, dlg)
        assert list(backend.store.values()) == [KEY] and not key_file(paths).exists()
        again = SettingsDialog(Settings(), paths)
        qtbot.addWidget(again)
        assert again.key_store_label.text() == "Stored in: the system keyring (Test Memory Keyring)"
        again.on_forget_button_clicked()
        assert again.key_store_label.text().startswith("A key you enter is stored in:")
        again.reject()
    finally:
        keyring.set_keyring(previous)


def test_a_key_with_a_line_break_is_refused_in_the_dialog(qtbot: QtBot, paths: AppPaths) -> None:
    dlg = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dlg)
    dlg.offline_check.setChecked(False)
    dlg.model_combo.setCurrentText("m")
    dlg.key_edit.setText("sk-proj-SECRET\n0123456789")
    dlg.accept()
    assert dlg.result() != dlg.DialogCode.Accepted
    assert "a line break" in dlg.error_label.text() and "0123456789" not in dlg.error_label.text()
    assert load_api_key(paths) is None
    dlg.reject()


def test_an_env_key_with_a_line_break_is_a_plain_message(
    qtbot: QtBot, paths: AppPaths, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PP_TEST_KEY", "sk-proj-SECRET\r\n0123456789")
    s = Settings()
    s.llm.enabled, s.llm.model, s.llm.api_key_env = True, "m", "PP_TEST_KEY"
    with pytest.raises(ValueError) as e:
        Session(paths=paths, settings=s).make_policy()
    assert "PP_TEST_KEY contains a line break" in str(e.value) and "0123456789" not in str(e.value)
    dlg = SettingsDialog(s, paths)
    qtbot.addWidget(dlg)
    dlg.on_test_button_clicked()
    assert not dlg.is_testing()
    assert "contains a line break" in dlg.test_label.text()
    dlg.reject()
    monkeypatch.setenv("PP_TEST_KEY", KEY + "\r\n")  # a CRLF .env file: just stripped
    policy = Session(paths=paths, settings=s).make_policy()
    assert policy.client.config.api_key.get_secret_value() == KEY  # type: ignore[attr-defined]
    policy.client.close()  # type: ignore[attr-defined]
