"""The OpenAI-compatible client against a scripted server over real HTTP: modes, retries, errors."""

from __future__ import annotations

import json
import socket
import threading
import time
from typing import Any

import pytest

from paperpilot.core.llm.client import LLMCancelled, LLMClient, LLMConfig, LLMError
from tests.fakes.openai_server import ScriptedServer, delay, http_error, reply

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string"}},
    "required": ["answer"],
}
MSGS = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Say hi."}]
KEY = "sk-test-SECRET-9f8e7d6c5b4a"


def make_client(server: ScriptedServer, **kw: Any) -> LLMClient:
    cfg: dict[str, Any] = {
        "base_url": server.url,
        "model": "scripted-model",
        "timeout_s": 0.5,
        "connect_timeout_s": 0.5,
        "max_retries": 2,
        "backoff_base_s": 0.02,
        "backoff_max_s": 0.05,
    }
    cfg.update(kw)
    return LLMClient(LLMConfig(**cfg))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_json_schema_first_with_low_temperature_and_reported_usage(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([reply({"answer": "hi"}, usage=(42, 7))])
    with make_client(scripted_llm) as client:
        out = client.chat(MSGS, SCHEMA, "greeting")
    assert json.loads(out.content) == {"answer": "hi"}
    assert out.mode_used == "json_schema"
    assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (42, 7)
    assert not out.estimated_usage
    body = scripted_llm.requests[0]
    assert body["temperature"] == 0.15
    assert body["model"] == "scripted-model"
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "greeting", "schema": SCHEMA, "strict": False},
    }
    assert body["messages"] == MSGS  # the schema travels in response_format, not the prompt


def test_rejected_json_schema_falls_back_to_tools_and_remembers(scripted_llm: ScriptedServer) -> None:
    scripted_llm.reject = {"json_schema", "json_object_schema"}
    scripted_llm.set_script([{"answer": "one"}, {"answer": "two"}])
    with make_client(scripted_llm) as client:
        first = client.chat(MSGS, SCHEMA, "greeting")
        second = client.chat(MSGS, SCHEMA, "greeting")
    assert (first.mode_used, second.mode_used) == ("tools", "tools")
    assert json.loads(first.content) == {"answer": "one"}  # read from tool_calls[0].function.arguments
    assert json.loads(second.content) == {"answer": "two"}
    # each rejected mode is tried once only
    assert scripted_llm.modes == ["json_schema", "json_object_schema", "tools", "tools"]
    tools_req = scripted_llm.requests[2]
    assert tools_req["tools"][0]["function"]["parameters"] == SCHEMA
    assert tools_req["tool_choice"] == {"type": "function", "function": {"name": "greeting"}}


def test_falls_back_to_json_object_then_text_with_the_schema_in_the_prompt(
    scripted_llm: ScriptedServer,
) -> None:
    scripted_llm.reject = {"json_schema", "json_object_schema", "tools"}
    scripted_llm.set_script([{"answer": "obj"}])
    with make_client(scripted_llm) as client:
        out = client.chat(MSGS, SCHEMA)
    assert out.mode_used == "json_object"
    assert scripted_llm.modes == ["json_schema", "json_object_schema", "tools", "json_object"]
    system = scripted_llm.requests[-1]["messages"][0]["content"]
    assert system.startswith("You are terse.") and "JSON only" in system and '"answer"' in system

    with ScriptedServer(reject={"json_schema", "json_object_schema", "tools", "json_object"}) as plain:
        plain.set_script(['{"answer": "txt"}'])
        with make_client(plain) as client:
            out = client.chat(MSGS, SCHEMA)
        assert out.mode_used == "text"
        last = plain.requests[-1]
        assert "response_format" not in last and "tools" not in last
        assert "JSON only" in last["messages"][0]["content"]


def test_explicit_mode_is_used_directly(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([{"answer": "x"}])
    with make_client(scripted_llm, structured="tools", temperature=0.0) as client:
        out = client.chat(MSGS, SCHEMA)
    assert out.mode_used == "tools"
    assert scripted_llm.modes == ["tools"]
    assert scripted_llm.requests[0]["temperature"] == 0.0


def test_plain_chat_without_schema_and_estimated_usage(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([reply("Hello there, researcher.", with_usage=False)])
    with make_client(scripted_llm) as client:
        out = client.chat(MSGS)
    assert out.content == "Hello there, researcher."
    assert out.estimated_usage
    assert out.usage.completion_tokens == 6  # 24 characters / 4
    assert out.usage.prompt_tokens > 0
    assert "response_format" not in scripted_llm.requests[0]


def test_retries_5xx_then_succeeds(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([http_error(500), http_error(503), {"answer": "ok"}])
    with make_client(scripted_llm) as client:
        out = client.chat(MSGS, SCHEMA)
    assert json.loads(out.content) == {"answer": "ok"}
    assert len(scripted_llm.requests) == 3


def test_persistent_500_gives_a_plain_message(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([http_error(500)] * 3)
    with make_client(scripted_llm) as client, pytest.raises(LLMError) as err:
        client.chat(MSGS, SCHEMA)
    assert "returned HTTP 500 3 times in a row" in str(err.value)
    assert len(scripted_llm.requests) == 3


def test_retry_after_is_honoured_and_capped(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([http_error(429, headers={"Retry-After": "30"}), {"answer": "later"}])
    with make_client(scripted_llm, retry_after_max_s=0.3) as client:
        out = client.chat(MSGS, SCHEMA)
    assert json.loads(out.content) == {"answer": "later"}
    gap = scripted_llm.arrivals[1] - scripted_llm.arrivals[0]
    assert 0.28 <= gap < 2.0  # waited the (capped) Retry-After, not the short backoff


def test_timeout_is_retried_then_reported(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([delay(2.0), delay(2.0)])
    t0 = time.monotonic()
    with make_client(scripted_llm, timeout_s=0.3, max_retries=1) as client, pytest.raises(LLMError) as err:
        client.chat(MSGS, SCHEMA)
    assert "Timed out after 0.3 s waiting for the model" in str(err.value)
    assert len(scripted_llm.requests) == 2
    assert time.monotonic() - t0 < 2.0


def test_connection_refused_message() -> None:
    port = free_port()
    client = LLMClient(LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", max_retries=1, backoff_base_s=0.01))
    with client, pytest.raises(LLMError) as err:
        client.chat(MSGS, SCHEMA)
    assert str(err.value).startswith(
        f"Cannot reach the language model at http://127.0.0.1:{port}/v1: connection refused"
    )


def test_rejected_key_fails_at_once_and_is_never_echoed(scripted_llm: ScriptedServer) -> None:
    echo = {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}}
    scripted_llm.set_script([http_error(401, echo)])
    client = make_client(scripted_llm, api_key=KEY)
    with client, pytest.raises(LLMError) as err:
        client.chat(MSGS, SCHEMA)
    assert "The API key was rejected" in str(err.value)
    assert len(scripted_llm.requests) == 1  # not retried
    assert scripted_llm.headers[0]["authorization"] == f"Bearer {KEY}"
    for text in (str(err.value), repr(err.value), repr(client), repr(client.config), str(client.config)):
        assert KEY not in text and KEY[:8] not in text
    assert KEY not in json.dumps(client.config.model_dump(mode="json"))


def test_not_found_and_other_client_errors(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script(
        [http_error(404, {"error": {"message": "model 'nope' not found"}}), http_error(400)]
    )
    with make_client(scripted_llm, model="nope") as client:
        with pytest.raises(LLMError, match="model or endpoint was not found"):
            client.chat(MSGS, SCHEMA)
        with pytest.raises(LLMError, match=r"rejected the request \(HTTP 400"):
            client.chat(MSGS, SCHEMA)  # a 400 that is not about response_format: no fallback
    assert scripted_llm.modes == ["json_schema", "json_schema"]


def test_cancel_interrupts_the_retry_wait(scripted_llm: ScriptedServer) -> None:
    cancel = threading.Event()

    def overloaded(_request: dict[str, Any]) -> Any:
        cancel.set()  # the user presses Stop while the server is busy
        return http_error(429, headers={"Retry-After": "20"})

    scripted_llm.set_script([overloaded])
    t0 = time.monotonic()
    with make_client(scripted_llm, retry_after_max_s=20) as client, pytest.raises(LLMCancelled):
        client.chat(MSGS, SCHEMA, cancel=cancel)
    assert time.monotonic() - t0 < 1.0


def test_list_models_and_test_connection(scripted_llm: ScriptedServer) -> None:
    scripted_llm.set_script([reply("OK")])
    with make_client(scripted_llm) as client:
        assert client.list_models() == ["scripted-model"]
        ok, message = client.test_connection()
    assert ok, message
    assert scripted_llm.requests[-1]["max_tokens"] == 4
    with make_client(scripted_llm, model="llama-70b") as client:
        ok, message = client.test_connection()
    assert not ok and "llama-70b" in message and "scripted-model" in message
    bad = LLMClient(LLMConfig(base_url=f"http://127.0.0.1:{free_port()}/v1", max_retries=0))
    with bad:
        ok, message = bad.test_connection()
    assert not ok and "Cannot reach" in message


def test_llama_cpp_style_500_validation_error_falls_back_to_its_json_dialect(scripted_llm: ScriptedServer) -> None:
    # llama-cpp-python answers the OpenAI json_schema form with HTTP 500 and a validation error;
    # its own dialect is {"type": "json_object", "schema": …}.
    from tests.fakes.openai_server import http_error

    detail = (
        "1 validation error: {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
        "'msg': \"Input should be 'text' or 'json_object'\"}"
    )
    scripted_llm.set_script([http_error(500, detail), {"answer": "grammar"}])
    with make_client(scripted_llm) as client:
        out = client.chat(MSGS, SCHEMA)
    assert out.mode_used == "json_object_schema"
    assert json.loads(out.content) == {"answer": "grammar"}
    assert scripted_llm.requests[-1]["response_format"] == {"type": "json_object", "schema": SCHEMA}
