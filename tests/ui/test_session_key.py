"""The CLI and the GUI use one application layer: a key saved in the Settings dialog is the key
`paperpilot ask --policy llm` and `paperpilot eval --home` send (real processes, a real server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from paperpilot.core.library import Library
from paperpilot.core.settings.config import Settings, load_settings, save_settings
from paperpilot.core.settings.keystore import key_file, load_api_key
from paperpilot.core.settings.paths import AppPaths, app_paths
from paperpilot.ui.settings_dialog import SettingsDialog
from tests.fakes.openai_server import ScriptedServer
from tests.unit.memory_helpers import make_library

KEY = "sk-test-saved-in-the-dialog-0123456789"
QUESTION = "How does dense passage retrieval rank passages?"


def answer_step(req: dict[str, Any]) -> Any:
    answer = {"action": "answer", "text": "It ranks passages by the inner product of their vectors [P1].",
              "evidence_ids": ["P1"], "missing": [], "confidence": 0.8}  # fmt: skip
    if "writing the final answer" in req["messages"][0]["content"]:
        return answer
    return {"thought": "P1 answers it", "relevant": True, "synonyms": [], "action": answer}


def cli(home: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PAPERPILOT_DEBUG"}
    return subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "--home", str(home), *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def save_through_the_dialog(qtbot: QtBot, paths: AppPaths, server: ScriptedServer) -> None:
    """What a user does: Settings ▸ Language model, the server and model, a key, OK."""
    dlg = SettingsDialog(Settings(), paths)
    qtbot.addWidget(dlg)
    dlg.show()
    dlg.offline_check.setChecked(False)
    dlg.url_edit.setText(server.url)
    dlg.model_combo.setCurrentText(server.model)
    dlg.key_edit.setText(KEY)
    dlg.accept()
    qtbot.waitUntil(lambda: dlg.result() == dlg.DialogCode.Accepted, timeout=10_000)
    # As the main window does with an accepted dialog (Session.save_settings).
    save_settings(dlg.result_settings(), paths.settings_file)
    assert load_api_key(paths) == KEY
    assert KEY not in paths.settings_file.read_text(encoding="utf-8")


def bearer_headers(server: ScriptedServer, since: int) -> list[str]:
    return [h.get("authorization", "") for h in server.headers[since:]]


def test_a_key_saved_in_the_settings_dialog_is_used_by_ask_policy_llm(
    qtbot: QtBot, tmp_path: Path, scripted_llm: ScriptedServer
) -> None:
    paths, lib = make_library(tmp_path)
    lib.close()
    home = paths.data_dir.parent
    save_through_the_dialog(qtbot, paths, scripted_llm)
    # No keyring in tests (PAPERPILOT_NO_KEYRING): the dialog wrote the 0600 file.
    assert key_file(paths).is_file() and key_file(paths).stat().st_mode & 0o077 == 0
    before = len(scripted_llm.headers)
    scripted_llm.set_script([answer_step] * 6)
    r = cli(home, "ask", QUESTION, "--policy", "llm", "--json")
    assert r.returncode == 0, r.stderr
    sent = bearer_headers(scripted_llm, before)
    assert sent and all(h == f"Bearer {KEY}" for h in sent), sent
    out = json.loads(r.stdout)
    assert out["status"] in ("answered", "partial") and out["policy"] == "llm"
    assert KEY not in r.stdout + r.stderr


def test_eval_home_uses_that_homes_settings_key_and_library(
    qtbot: QtBot, tmp_path: Path, scripted_llm: ScriptedServer
) -> None:
    from tests.unit.core.agent.test_offline import _ircot

    paths = app_paths(tmp_path / "eval-home")
    home = paths.data_dir.parent
    save_through_the_dialog(qtbot, paths, scripted_llm)
    assert load_settings(paths.settings_file)[0].llm.enabled
    data = _ircot(tmp_path / "tiny.jsonl")
    before = len(scripted_llm.headers)
    scripted_llm.set_script([answer_step] * 40)
    # No --policy: the home's settings switch the model on; no --api-key-env: its key store.
    r = cli(home, "eval", str(data), "--limit", "1", "--mode", "quick", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["policy"] == "llm" and report["questions"] == 1
    sent = bearer_headers(scripted_llm, before)
    assert sent and all(h == f"Bearer {KEY}" for h in sent), sent
    # The pooled paragraphs went into that home's library, and a second run reuses them.
    with Library(paths) as lib:
        assert len(lib.list_documents()) == report["paragraphs"] > 0
    scripted_llm.set_script([answer_step] * 40)
    again = cli(home, "eval", str(data), "--limit", "1", "--mode", "quick", "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["reused_library"] is True
