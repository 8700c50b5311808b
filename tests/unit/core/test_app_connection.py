"""The model connection test behind the Settings dialog (core.app.probe_connection), against a
scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import threading

from paperpilot.core.app import probe_connection
from tests.fakes.openai_server import ScriptedServer, http_error


def test_a_named_model_that_answers_is_ok_and_the_list_comes_back(scripted_llm: ScriptedServer) -> None:
    scripted_llm.add("OK")
    probe = probe_connection(scripted_llm.url, scripted_llm.model, None, 5.0)
    assert probe.outcome == "ok" and probe.models == [scripted_llm.model]
    assert scripted_llm.remaining == 0  # the tiny chat was sent


def test_a_quick_test_trusts_a_list_that_names_the_model(scripted_llm: ScriptedServer) -> None:
    probe = probe_connection(scripted_llm.url, scripted_llm.model, "sk-test", 5.0, quick=True)
    assert probe.outcome == "ok" and scripted_llm.chat_prompts() == []


def test_no_model_named_lists_the_servers_models(scripted_llm: ScriptedServer) -> None:
    scripted_llm.listed_models = ["a-model", "b-model"]
    assert probe_connection(scripted_llm.url, "", None, 5.0).models == ["a-model", "b-model"]
    assert probe_connection(scripted_llm.url, "", None, 5.0).outcome == "listed"
    scripted_llm.listed_models = []
    assert probe_connection(scripted_llm.url, "", None, 5.0).outcome == "no_models"


def test_a_failing_list_is_reported_in_the_clients_words(scripted_llm: ScriptedServer) -> None:
    scripted_llm.models_steps = [http_error(401, {"error": {"message": "bad key"}})]
    probe = probe_connection(scripted_llm.url, scripted_llm.model, "sk-wrong", 5.0)
    assert probe.outcome == "failed" and "401" in probe.detail and probe.models == []


def test_a_cancelled_test_says_so(scripted_llm: ScriptedServer) -> None:
    cancel = threading.Event()
    cancel.set()
    assert probe_connection(scripted_llm.url, scripted_llm.model, None, 5.0, cancel=cancel).outcome == "cancelled"
