"""The Settings dialog's switch for reranking search hits with the model (llm.rerank), and the
policy the Session builds from it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paperpilot.core.app import Session
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths


def test_the_rerank_switch_is_saved_and_the_policy_follows_it(qtbot: Any, paperpilot_home: Path) -> None:
    from paperpilot.core.agent.llm_policy import LLMPolicy
    from paperpilot.ui.settings_dialog import SettingsDialog

    s = Settings()
    s.llm.enabled, s.llm.model = True, "m"
    dlg = SettingsDialog(s, app_paths())
    qtbot.addWidget(dlg)
    assert not dlg.rerank_check.isChecked()  # off by default: one more call per search
    dlg.rerank_check.setChecked(True)
    saved = dlg.result_settings()
    assert saved.llm.rerank and not s.llm.rerank
    dlg.reject()
    with Session(paperpilot_home, settings=saved) as session:
        policy = session.make_policy()
        assert isinstance(policy, LLMPolicy) and policy.rerank and policy.reranker() is not None
        off = session.make_policy(rerank=False)
        assert isinstance(off, LLMPolicy) and off.reranker() is None
        off.client.close()
        policy.client.close()
