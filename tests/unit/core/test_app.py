"""The application layer: one rule for the API key, the citation style, follow-ups and saving a
turn, whichever front end asks (real homes, a real library, the real CLI in-process)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paperpilot import cli
from paperpilot.core import app as app_module
from paperpilot.core.agent.events import Finished, Info
from paperpilot.core.agent.events import Warning as TraceWarning
from paperpilot.core.app import FOLLOWUP_WARNING, ConversationNotFound, Session
from paperpilot.core.errors import InvalidInput, NotFound
from paperpilot.core.memory.profile import set_profile_value
from paperpilot.core.settings.config import Settings, save_settings
from paperpilot.core.settings.keystore import save_api_key
from tests.unit.memory_helpers import make_library

QUESTION = "How does dense passage retrieval rank passages?"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    paths, lib = make_library(tmp_path)
    lib.close()
    return paths.data_dir.parent


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_key_store_beats_the_settings_variable_and_api_key_env_beats_both(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = Session(home)
    s.settings.llm.api_key_env = "PP_SETTINGS_KEY"
    monkeypatch.setenv("PP_SETTINGS_KEY", "sk-from-the-settings-variable")
    monkeypatch.setenv("PP_CLI_KEY", "sk-from-the-command-line")
    assert s.api_key() == "sk-from-the-settings-variable"  # nothing saved yet
    save_api_key(s.paths, "sk-saved-in-the-key-store")
    assert s.api_key() == "sk-saved-in-the-key-store"
    assert s.api_key("PP_CLI_KEY") == "sk-from-the-command-line"
    monkeypatch.delenv("PP_CLI_KEY")
    with pytest.raises(InvalidInput, match="PP_CLI_KEY is not set"):
        s.api_key("PP_CLI_KEY")


def test_make_policy_is_the_one_factory(home: Path) -> None:
    s = Session(home)
    assert s.make_policy().name == "offline"  # type: ignore[attr-defined]
    s.settings.llm.enabled = True
    with pytest.raises(InvalidInput, match="no model name is set"):
        s.make_policy()
    s.profile = set_profile_value(s.profile, "answer_language", "zh")
    policy: Any = s.make_policy(model="m", base_url="http://127.0.0.1:9/v1")
    try:
        assert policy.answer_language == "zh"  # the profile's language reaches the model
        assert (policy.client.config.model, policy.client.config.base_url) == ("m", "http://127.0.0.1:9/v1")
    finally:
        policy.client.close()


def test_one_citation_style_for_cite_and_conversation_exports(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    h = str(home)
    # `profile set citation_style` (the only way before) is what `cite` uses now too.
    assert run_cli(capsys, "--home", h, "profile", "set", "citation_style", "gbt7714-2015-numeric")[0] == 0
    s = Session(home)
    assert s.citation_style == "gbt7714-2015-numeric"
    assert s.settings.ui.citation_style == "gbt7714-2015-numeric"  # written to the settings too
    code, out, _ = run_cli(capsys, "--home", h, "cite", "1", "--json")
    assert code == 0 and json.loads(out)["style"] == "gbt7714-2015-numeric"
    code, out, _ = run_cli(capsys, "--home", h, "ask", QUESTION, "--conversation", "new", "--json")
    cid = json.loads(out)["conversation_id"]
    code, out, _ = run_cli(capsys, "--home", h, "conversations", "--export", cid, "--json")
    assert code == 0 and json.loads(out)["style"] == "gbt7714-2015-numeric"
    # The settings name the style: they win over an older profile's.
    settings = Settings()
    settings.ui.citation_style = "ieee"
    save_settings(settings, Session(home).paths.settings_file)
    assert Session(home).citation_style == "ieee"
    code, out, _ = run_cli(capsys, "--home", h, "conversations", "--export", cid, "--json")
    assert json.loads(out)["style"] == "ieee"
    with pytest.raises(InvalidInput, match="unknown citation style"):
        Session(home).set_citation_style("no-such-style")


def test_a_failed_followup_rewrite_is_a_warning_and_the_question_is_answered_as_typed(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with Session(home) as s:
        first = s.ask(QUESTION, save=True)
        list(first)
        cid = first.conversation_id
        assert cid is not None and not first.save_error

        def broken(*args: object, **kwargs: object) -> object:
            raise RuntimeError("the model went away")

        monkeypatch.setattr(app_module, "rewrite_followup", broken)
        run = s.ask("What are its limitations?", conversation=cid, save=True)
        events = list(run)
        warnings = [e for e in events if isinstance(e, TraceWarning) and e.code == FOLLOWUP_WARNING]
        assert len(warnings) == 1 and "the model went away" in warnings[0].message
        assert isinstance(events[-1], Finished) and run.result is not None
        assert run.standalone == "What are its limitations?" and not run.rewritten
        assert not [e for e in events if isinstance(e, Info) and e.code == "followup"]
        assert len(s.conversations.turns(cid)) == 2
    # The CLI survives it the same way (it used to stop: "an unexpected error stopped `ask`").
    code, _out, err = run_cli(capsys, "--home", str(home), "ask", "And its training data?", "--conversation", cid)
    assert code == 0 and "warning: Could not rewrite the follow-up: the model went away" in err


def test_a_turn_that_cannot_be_saved_still_answers(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with Session(home) as s:

        def full(*args: object, **kwargs: object) -> None:
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(s.conversations, "add_turn", full)
        run = s.ask(QUESTION, save=True)
        list(run)
        assert run.result is not None and run.result.answer
        assert "No space left on device" in run.save_error


def test_unknown_ids_are_not_found(home: Path) -> None:
    with Session(home) as s:
        with pytest.raises(ConversationNotFound) as e:
            s.ask(QUESTION, conversation="nope")
        assert isinstance(e.value, NotFound) and "no conversation with id 'nope'" in str(e.value)
        with pytest.raises(NotFound, match="nothing was removed"):
            s.remove([1, 999])
        assert len(s.library.list_documents()) == 3
