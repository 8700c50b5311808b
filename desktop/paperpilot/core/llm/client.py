"""A small client for OpenAI-compatible chat servers (Ollama, LM Studio, llama.cpp, hosted APIs).

Structured output is negotiated: servers differ in what they accept (``response_format`` with
a JSON schema, tool calling, plain JSON mode, nothing at all), so ``structured="auto"`` tries
them in that order and remembers the first one the server does not reject. Failures become
``LLMError`` with a message a user can act on; the API key never appears in one.
"""

from __future__ import annotations

import email.utils
import errno
import json
import math
import random
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Literal

import httpx
from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from ..errors import Cancelled, ModelUnreachable
from ..text.redaction import invalid_key_message, key_problem, redact, register_secret
from .cancellable_http import RequestCancelled, cancel_scope, transport_for
from .usage import Usage

StructuredMode = Literal["auto", "json_schema", "json_object_schema", "tools", "json_object", "text"]
# json_object_schema is llama.cpp's dialect: {"type": "json_object", "schema": …} constrains the
# output with a grammar; its server rejects the OpenAI json_schema form.
_FALLBACK_ORDER: tuple[StructuredMode, ...] = ("json_schema", "json_object_schema", "tools", "json_object", "text")
Message = dict[str, Any]


class LLMError(ModelUnreachable):
    """The model could not be used; the message is one plain sentence for the user."""


class LLMCancelled(LLMError, Cancelled):
    """The caller's cancel event was set while the client waited for the server or to retry."""


class LLMConfig(BaseModel):
    """How to reach the model. ``api_key`` is a SecretStr so reprs and dumps never show it."""

    model_config = ConfigDict(extra="ignore")

    base_url: str = "http://127.0.0.1:11434/v1"
    model: str = ""
    api_key: SecretStr | None = Field(default=None, repr=False)
    timeout_s: float = Field(60.0, gt=0)
    connect_timeout_s: float = Field(5.0, gt=0)
    max_retries: int = Field(3, ge=0, le=10)  # retries after the first attempt
    temperature: float = Field(0.15, ge=0.0, le=2.0)
    max_tokens: int | None = Field(None, ge=1)
    structured: StructuredMode = "auto"
    backoff_base_s: float = Field(0.5, ge=0.0)
    backoff_max_s: float = Field(8.0, ge=0.0)
    retry_after_max_s: float = Field(30.0, ge=0.0)

    @field_validator("api_key", mode="before")
    @classmethod
    def _strip_key(cls, v: Any) -> Any:
        # A key read from a CRLF .env file ends in "\r"; no key has surrounding whitespace.
        raw = v.get_secret_value() if isinstance(v, SecretStr) else v
        if isinstance(raw, str):
            raw = raw.strip()
            return SecretStr(raw) if raw else None
        return v

    @classmethod
    def from_settings(cls, settings: Any, api_key: str | None = None) -> LLMConfig:
        """Build from ``config.LLMSettings`` (duck-typed so core modules stay loosely coupled)."""
        structured = getattr(settings, "structured", "auto")
        return cls(
            base_url=settings.base_url,
            model=settings.model,
            api_key=SecretStr(api_key) if api_key else None,
            temperature=settings.temperature,
            timeout_s=settings.timeout_s,
            structured=structured if structured in ("auto", *_FALLBACK_ORDER) else "auto",
        )


class ChatReply(BaseModel):
    content: str
    usage: Usage
    mode_used: str
    estimated_usage: bool = False


def estimate_tokens(text: str) -> int:
    """Rough token count (≈4 characters per token) for servers that report no usage."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


class _Rejected(Exception):
    """The server refused the structured-output mode (not the request as such)."""

    def __init__(self, mode: str, detail: str) -> None:
        super().__init__(detail)
        self.mode = mode
        self.detail = detail


# Words a server's 400/422 uses when it does not support a request feature; anything else
# (a prompt too long, a bad model name) must not be mistaken for "try the next mode".
_REJECTION_WORDS: dict[str, tuple[str, ...]] = {
    "json_schema": ("response_format", "json_schema", "schema", "grammar"),
    "tools": ("tool", "function"),
    "json_object_schema": ("response_format", "json_object", "schema", "grammar"),
    "json_object": ("response_format", "json_object", "json mode"),
}
_UNSUPPORTED_WORDS = (
    "unsupported",
    "not supported",
    "not implemented",
    "unknown field",
    "unrecognized",
    "extra inputs",
)


class LLMClient:
    """Synchronous chat client. One instance per configured server; safe to reuse across runs."""

    def __init__(self, config: LLMConfig, transport: httpx.BaseTransport | None = None) -> None:
        """``transport`` replaces the default one, whose requests a ``cancel`` event interrupts
        within a fraction of a second whatever the server does (see ``cancellable_http``; behind
        an HTTPS or SOCKS proxy, httpx's own transport is used and only retry waits are)."""
        self.config = config
        self._base = config.base_url.rstrip("/")
        headers = {"Accept": "application/json"}
        key = config.api_key.get_secret_value() if config.api_key is not None else ""
        register_secret(key)
        problem = key_problem(key) if key else None
        # A key no header can carry fails every request with one plain sentence, instead of
        # an HTTP library's message quoting the header it refused.
        self._key_error = invalid_key_message(problem) if problem else ""
        if key and not problem:
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.Client(
            timeout=httpx.Timeout(config.timeout_s, connect=config.connect_timeout_s),
            headers=headers,
            transport=transport if transport is not None else transport_for(self._base),
            follow_redirects=True,
        )
        # What the server accepted last time; "auto" starts from here instead of json_schema.
        self._mode: StructuredMode | None = None if config.structured == "auto" else config.structured
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LLMClient(base_url={self._base!r}, model={self.config.model!r}, mode={self.mode_in_use!r})"

    @property
    def mode_in_use(self) -> str:
        return self._mode or self.config.structured

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- public API ------------------------------------------------------------------------------

    def chat(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None = None,
        schema_name: str = "reply",
        *,
        cancel: threading.Event | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
    ) -> ChatReply:
        """One chat completion. With ``schema``, the reply content is the JSON the model produced."""
        msgs = [dict(m) for m in messages]
        if schema is None:
            body = self._body(msgs, temperature, max_tokens)
            return self._reply(self._post("/chat/completions", body, cancel), msgs, "text", None)
        with self._lock:
            learned = self._mode
        if learned is not None:
            modes: Sequence[StructuredMode] = (
                (learned,)
                if self.config.structured != "auto"
                else _FALLBACK_ORDER[_FALLBACK_ORDER.index(learned) :]
            )
        else:
            modes = _FALLBACK_ORDER
        last: _Rejected | None = None
        for mode in modes:
            body = self._structured_body(mode, msgs, schema, schema_name, temperature, max_tokens)
            try:
                data = self._post("/chat/completions", body, cancel, structured_mode=mode)
            except _Rejected as r:
                last = r
                if self.config.structured != "auto":
                    break
                continue
            with self._lock:
                self._mode = mode
            return self._reply(data, body["messages"], mode, schema)
        detail = last.detail if last is not None else "no mode left to try"
        raise LLMError(self._scrub(f"The model server rejected structured output ({detail})."))

    def list_models(self, cancel: threading.Event | None = None) -> list[str]:
        data = self._request("GET", "/models", None, cancel)
        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list):
            raise LLMError(f"The server at {self._base} answered /models with something unexpected.")
        return [str(i.get("id")) for i in items if isinstance(i, dict) and i.get("id")]

    def test_connection(self, cancel: threading.Event | None = None, *, chat: bool = True) -> tuple[bool, str]:
        """For the settings dialog: can we reach the server, and does it know the model?

        ``chat=False`` is the quick check: a server that lists the model is taken at its word
        (a first chat may have to load the model, which can take longer than anyone waits for
        a settings dialog); only a server without a model list gets the tiny chat. Raises
        LLMCancelled when ``cancel`` is set.
        """
        try:
            models = self.list_models(cancel)
        except LLMCancelled:
            raise
        except LLMError as e:
            if "not found" not in str(e):
                return False, str(e)
            models = []  # some servers have no /models; a tiny chat still proves the connection
        if models and self.config.model and self.config.model not in models:
            shown = ", ".join(models[:8]) + (" …" if len(models) > 8 else "")
            return (
                False,
                f"Connected to {self._base}, but it has no model {self.config.model!r} (it has: {shown}).",
            )
        name = self.config.model or (models[0] if models else "the default model")
        if not chat and models:
            return True, f"Connected to {self._base}; it offers {name}."
        try:
            self.chat([{"role": "user", "content": "Reply with the word OK."}], cancel=cancel, max_tokens=4)
        except LLMCancelled:
            raise
        except LLMError as e:
            return False, str(e)
        return True, f"Connected to {self._base}; {name} answered."

    # --- request building ------------------------------------------------------------------------

    def _body(self, msgs: list[Message], temperature: float | None, max_tokens: int | None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "messages": msgs,
            "temperature": self.config.temperature if temperature is None else temperature,
            "stream": False,
        }
        mt = max_tokens if max_tokens is not None else self.config.max_tokens
        if mt is not None:
            body["max_tokens"] = mt
        return body

    def _structured_body(
        self,
        mode: StructuredMode,
        msgs: list[Message],
        schema: dict[str, Any],
        name: str,
        temperature: float | None,
        max_tokens: int | None,
    ) -> dict[str, Any]:
        if mode in ("json_object", "text"):
            # Neither mode enforces the schema, so the model has to be shown it.
            msgs = _with_json_instruction(msgs, schema)
        body = self._body(msgs, temperature, max_tokens)
        if mode == "json_schema":
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": False},
            }
        elif mode == "tools":
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": name, "description": "Give the reply.", "parameters": schema},
                }
            ]
            body["tool_choice"] = {"type": "function", "function": {"name": name}}
        elif mode == "json_object_schema":
            body["response_format"] = {"type": "json_object", "schema": schema}
        elif mode == "json_object":
            body["response_format"] = {"type": "json_object"}
        return body

    def _reply(self, data: Any, sent: list[Message], mode: str, schema: dict[str, Any] | None) -> ChatReply:
        try:
            message = data["choices"][0]["message"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"The model server at {self._base} sent a reply without a message.") from None
        content = ""
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        if mode == "tools" and isinstance(calls, list) and calls:
            args = (calls[0].get("function") or {}).get("arguments", "") if isinstance(calls[0], dict) else ""
            content = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        if not content and isinstance(message, dict):
            raw = message.get("content")
            content = raw if isinstance(raw, str) else ""
        usage_raw = data.get("usage") if isinstance(data, dict) else None
        estimated = False
        try:
            usage = Usage(
                prompt_tokens=int(usage_raw["prompt_tokens"]),  # type: ignore[index]
                completion_tokens=int(usage_raw.get("completion_tokens") or 0),  # type: ignore[union-attr]
            )
        except (KeyError, TypeError, ValueError, AttributeError):
            estimated = True
            prompt_chars = sum(len(str(m.get("content") or "")) for m in sent)
            if schema is not None and mode in ("json_schema", "tools"):
                prompt_chars += len(json.dumps(schema))
            usage = Usage(
                prompt_tokens=estimate_tokens("x" * prompt_chars), completion_tokens=estimate_tokens(content)
            )
        return ChatReply(content=content, usage=usage, mode_used=mode, estimated_usage=estimated)

    # --- transport, retries, errors --------------------------------------------------------------

    def _post(
        self,
        path: str,
        body: dict[str, Any],
        cancel: threading.Event | None,
        structured_mode: str | None = None,
    ) -> Any:
        return self._request("POST", path, body, cancel, structured_mode)

    def _request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None,
        cancel: threading.Event | None,
        structured_mode: str | None = None,
    ) -> Any:
        url = self._base + path
        if self._key_error:
            raise LLMError(self._key_error)
        attempts = 1 + self.config.max_retries
        failures: list[str] = []
        kind = ""
        # Per-read timeouts never fire while a server trickles a byte now and then; this bounds
        # the whole exchange.
        total = self.config.connect_timeout_s + self.config.timeout_s
        for attempt in range(attempts):
            if cancel is not None and cancel.is_set():
                raise LLMCancelled("Cancelled while waiting for the model.")
            delay: float | None = None
            try:
                with cancel_scope(cancel, total):
                    resp = self._http.request(method, url, json=body)
            except RequestCancelled:
                raise LLMCancelled("Cancelled while waiting for the model.") from None
            except httpx.TimeoutException as e:
                kind = "timeout"
                failures.append(self._timeout_message(e))
            except httpx.TransportError as e:
                kind = "connection"
                failures.append(self._connection_message(e))
            else:
                status = resp.status_code
                if status < 300:
                    try:
                        return resp.json()
                    except ValueError:
                        raise LLMError(
                            f"The server at {self._base} did not answer with JSON (HTTP {status}); "
                            "is the base URL an OpenAI-compatible endpoint (usually ending in /v1)?"
                        ) from None
                detail = _error_detail(resp)
                if status in (401, 403):
                    raise LLMError(
                        self._scrub(f"The API key was rejected by {self._base} (HTTP {status}: {detail}).")
                    )
                if status == 404:
                    raise LLMError(
                        self._scrub(
                            f"The model or endpoint was not found at {url} (HTTP 404: {detail}); check the base URL "
                            f"and the model name {self.config.model!r}."
                        )
                    )
                # Some servers (llama-cpp-python) answer an unknown response_format with a 500
                # carrying a request-validation error rather than a 400.
                rejected_status = status in (400, 422) or (status == 500 and "validation error" in detail.lower())
                if rejected_status and structured_mode is not None and _is_rejection(structured_mode, detail):
                    raise _Rejected(
                        structured_mode, self._scrub(f"{structured_mode}: HTTP {status} {detail}")
                    )
                if status == 429:
                    kind = "rate"
                    failures.append(f"HTTP 429 {detail}")
                    delay = _retry_after(resp.headers.get("Retry-After"), self.config.retry_after_max_s)
                elif status >= 500:
                    kind = f"http{status}"
                    failures.append(f"HTTP {status} {detail}")
                else:
                    raise LLMError(
                        self._scrub(f"The model server rejected the request (HTTP {status}: {detail}).")
                    )
            if attempt + 1 < attempts:
                if delay is None:
                    delay = self._backoff(attempt)
                self._sleep(delay, cancel)
        raise LLMError(self._scrub(self._final_message(kind, failures, attempts)))

    def _backoff(self, attempt: int) -> float:
        cap = min(self.config.backoff_max_s, self.config.backoff_base_s * (2.0**attempt))
        # Half fixed, half random: spreads out clients that failed together without ever
        # retrying immediately.
        return cap / 2 + random.uniform(0, cap / 2)

    @staticmethod
    def _sleep(seconds: float, cancel: threading.Event | None) -> None:
        if seconds <= 0:
            return
        if cancel is None:
            time.sleep(seconds)
        elif cancel.wait(seconds):
            raise LLMCancelled("Cancelled while waiting to retry the model request.")

    def _timeout_message(self, e: httpx.TimeoutException) -> str:
        if isinstance(e, httpx.ConnectTimeout):
            return f"Timed out after {_secs(self.config.connect_timeout_s)} connecting to the language model at {self._base}"
        return f"Timed out after {_secs(self.config.timeout_s)} waiting for the model at {self._base}"

    def _connection_message(self, e: httpx.TransportError) -> str:
        if isinstance(e, httpx.ConnectError):
            text = str(e).lower()
            cause = e.__cause__ or e.__context__
            refused = "refused" in text or (isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED)
            reason = "connection refused" if refused else (str(e) or type(e).__name__)
            return f"Cannot reach the language model at {self._base}: {reason}"
        if isinstance(e, httpx.RemoteProtocolError | httpx.ReadError | httpx.WriteError):
            return f"The language model server at {self._base} closed the connection without answering"
        return f"Cannot talk to the language model at {self._base}: {e or type(e).__name__}"

    def _final_message(self, kind: str, failures: list[str], attempts: int) -> str:
        last = failures[-1] if failures else "unknown error"
        tries = "once" if attempts == 1 else f"{attempts} times"
        if kind in ("timeout", "connection"):
            return f"{last} (tried {tries})."
        if kind == "rate":
            return f"The model server kept refusing requests as too many (HTTP 429), {tries} in a row."
        code = kind.removeprefix("http")
        return f"The model server at {self._base} returned HTTP {code} {tries} in a row ({last})."

    def _scrub(self, text: str) -> str:
        """Servers sometimes echo the key in error bodies; never pass any run of it on."""
        key = self.config.api_key.get_secret_value() if self.config.api_key is not None else ""
        return redact(text, (key,) if key else ())


def _secs(s: float) -> str:
    return f"{s:g} s"


def _with_json_instruction(msgs: list[Message], schema: dict[str, Any]) -> list[Message]:
    note = (
        "Reply with JSON only: one JSON object matching this JSON schema, no prose, no code fences.\n"
        + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )
    out = [dict(m) for m in msgs]
    for m in out:
        if m.get("role") == "system":
            m["content"] = f"{m.get('content') or ''}\n\n{note}"
            return out
    return [{"role": "system", "content": note}, *out]


def _error_detail(resp: httpx.Response) -> str:
    """The server's own error message, shortened; servers nest it in different places."""
    text = ""
    try:
        data = resp.json()
    except ValueError:
        text = resp.text
    else:
        err = data.get("error") if isinstance(data, dict) else None
        if isinstance(err, dict):
            text = str(err.get("message") or err)
        elif err:
            text = str(err)
        elif isinstance(data, dict) and data.get("detail"):
            text = str(data["detail"])
        else:
            text = resp.text
    text = " ".join(text.split())
    return (text[:200] + "…") if len(text) > 200 else (text or resp.reason_phrase)


def _is_rejection(mode: str, detail: str) -> bool:
    low = detail.lower()
    return any(w in low for w in _REJECTION_WORDS.get(mode, ())) or any(w in low for w in _UNSUPPORTED_WORDS)


def _retry_after(value: str | None, cap: float) -> float | None:
    """Seconds from a Retry-After header (seconds or an HTTP date), capped; None if absent/bad."""
    if not value:
        return None
    value = value.strip()
    try:
        secs = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        secs = (when - datetime.now(UTC)).total_seconds()
    if math.isnan(secs):
        return None
    return max(0.0, min(cap, secs))
