"""Keys in: cleaned once, refused in plain words. Keys out: no run of 6 characters anywhere."""

from __future__ import annotations

import json
import logging

import pytest

from paperpilot.core.agent.events import Finished, Result, Status, Warning, event_from_json, event_to_json
from paperpilot.core.llm.client import LLMClient, LLMConfig, LLMError
from paperpilot.core.memory.conversations import ConversationStore
from paperpilot.core.settings.paths import app_paths
from paperpilot.core.text.redaction import (
    InvalidAPIKey,
    RedactingFilter,
    clean_api_key,
    redact,
    redact_data,
    redacted_json,
    register_secret,
)
from tests.fakes.openai_server import ScriptedServer, http_error

KEY = "sk-proj-SECRET-0123456789abcdefX"


def fragments(key: str = KEY) -> set[str]:
    return {key[i : i + 6] for i in range(len(key) - 5)}


def leaks(text: str | bytes, key: str = KEY) -> list[str]:
    data = text.encode() if isinstance(text, str) else text
    return sorted(f for f in fragments(key) if f.encode() in data)


# --- cleaning -----------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [KEY + "\r", KEY + "\r\n", f"  {KEY}\n", f"\t{KEY} "])
def test_surrounding_whitespace_is_stripped(raw: str) -> None:
    assert clean_api_key(raw, "from X") == KEY


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        ("sk-proj-SECR\r\nET-0123456789", "a line break"),
        ("sk-proj-SECRET\x01-0123456789", "a control character"),
        ("sk-proj-SECRET\t0123456789", "a control character"),
        ("sk-proj-SECRET 0123456789", "a space"),
        ("sk-proj-SECRÉT-0123456789", "a non-ASCII character"),
    ],
)
def test_keys_with_inner_control_or_non_ascii_characters_are_refused(raw: str, words: str) -> None:
    with pytest.raises(InvalidAPIKey) as e:
        clean_api_key(raw, "from the environment variable MYKEY")
    message = str(e.value)
    assert words in message and "MYKEY" in message
    assert "\n" not in message and not leaks(message, raw)


def test_empty_keys_are_none() -> None:
    assert clean_api_key(None, "x") is None
    assert clean_api_key(" \r\n", "x") is None


# --- masking ------------------------------------------------------------------------------------


def test_every_run_of_six_characters_is_masked() -> None:
    register_secret(KEY)
    texts = [
        f"Illegal header value b'Bearer {KEY}\\r'",
        f"Illegal header value b'Bearer ***{KEY[8:]}\\r'",  # what the old scrub let through
        f"key ends in {KEY[-6:]}, starts with {KEY[:6]}",
        f"{KEY[3:20]} and {KEY[10:]}",
    ]
    for text in texts:
        out = redact(text)
        assert not leaks(out), (text, out)
        assert "***" in out
    # Five characters are not a fragment (and ordinary words stay).
    assert redact(f"the prefix {KEY[:5]} is fine") == f"the prefix {KEY[:5]} is fine"


def test_extra_secrets_need_no_registration() -> None:
    assert redact(f"x {KEY} y", [KEY]) == "x *** y"
    assert redact(f"x {KEY} y") == f"x {KEY} y"


def test_short_dummy_keys_do_not_blank_words() -> None:
    register_secret("x")
    register_secret("ab")
    assert redact("a box of abacus") == "a box of abacus"


def test_json_with_a_key_holding_quotes_stays_valid() -> None:
    key = 'abc"def\\ghi"jkl'
    register_secret(key)
    ev = Warning(code="x", message=f"server said {key}")
    line = event_to_json(ev)
    assert key not in json.loads(line)["message"]
    assert event_from_json(line).message == "server said ***"  # type: ignore[attr-defined]
    assert redact_data({"a": [f"k={key}", 3]}) == {"a": ["k=***", 3]}


def test_redacted_json_without_secrets_is_the_plain_dump() -> None:
    ev = Warning(code="x", message="nothing secret")
    assert redacted_json(ev) == ev.model_dump_json()


def test_log_records_are_masked(caplog: pytest.LogCaptureFixture) -> None:
    register_secret(KEY)
    logger = logging.getLogger("paperpilot.test.redaction")
    logger.addFilter(RedactingFilter())
    try:
        with caplog.at_level(logging.WARNING):
            logger.warning("header %s refused", f"Bearer {KEY}")
            try:
                raise ValueError(f"bad {KEY[4:]}")
            except ValueError:
                logger.exception("boom")
    finally:
        logger.filters.clear()
    assert "***" in caplog.text and not leaks(caplog.text)


# --- the LLM client, over real HTTP -------------------------------------------------------------


def test_a_crlf_key_from_an_env_file_is_sent_stripped(scripted_llm: ScriptedServer) -> None:
    scripted_llm.add({"ok": True})
    client = LLMClient(LLMConfig(base_url=scripted_llm.url, model="m", api_key=KEY + "\r\n", max_retries=0))
    try:
        client.chat([{"role": "user", "content": "hi"}])
    finally:
        client.close()
    assert scripted_llm.headers[0]["authorization"] == f"Bearer {KEY}"


def test_a_key_no_header_can_carry_fails_plainly_and_sends_nothing(scripted_llm: ScriptedServer) -> None:
    bad = "sk-proj-SECRET\x01-0123456789abcdefX"
    client = LLMClient(LLMConfig(base_url=scripted_llm.url, model="m", api_key=bad, max_retries=0))
    try:
        with pytest.raises(LLMError) as e:
            client.chat([{"role": "user", "content": "hi"}])
    finally:
        client.close()
    assert "a control character" in str(e.value)
    assert not leaks(str(e.value), bad) and "Illegal" not in str(e.value)
    assert scripted_llm.requests == []


@pytest.mark.parametrize("echo", [KEY, KEY[3:], f"{KEY[:10]}…{KEY[-8:]}"])
def test_server_errors_echoing_the_key_are_masked(scripted_llm: ScriptedServer, echo: str) -> None:
    scripted_llm.add(
        http_error(401, {"error": {"message": f"Incorrect API key provided: {echo}"}}),
        http_error(400, {"error": {"message": f"bad request for key {echo}"}}),
    )
    client = LLMClient(LLMConfig(base_url=scripted_llm.url, model="m", api_key=KEY, max_retries=0))
    try:
        for _ in range(2):
            with pytest.raises(LLMError) as e:
                client.chat([{"role": "user", "content": "hi"}])
            assert not leaks(str(e.value)), str(e.value)
    finally:
        client.close()


def test_saved_turns_and_exports_are_masked() -> None:
    register_secret(KEY)
    paths = app_paths().ensure()
    store = ConversationStore(paths)
    try:
        conv = store.create()
        result = Result(question=f"q {KEY}", status=Status.FAILED, answer=f"The run failed: key {KEY[2:]}",
                        error=f"Bearer {KEY}\r")  # fmt: skip
        events = [Warning(code="x", message=f"echo {KEY}"), Finished(result=result)]
        store.add_turn(conv.id, f"why {KEY}?", None, result, events)
        md = store.export_markdown(conv.id)
        turns = store.turns(conv.id)
    finally:
        store.close()
    assert not leaks(md)
    assert turns[0].result.error.startswith("Bearer ***")
    for f in paths.data_dir.rglob("*"):
        if f.is_file():
            assert not leaks(f.read_bytes()), f
