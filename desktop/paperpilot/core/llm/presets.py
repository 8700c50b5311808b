"""Known OpenAI-compatible servers: their base URL, the model names they serve, the key variable.

The settings dialog offers these as presets; the names were checked against each provider's
own documentation (December 2026). Local servers (Ollama, LM Studio, llama.cpp) serve whatever
the user has installed, so they list no models: "Test connection" asks the server instead.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    name: str
    base_url: str
    models: tuple[str, ...] = ()  # the first is the one a preset fills in
    key_env: str = ""  # the environment variable the provider's own tools read the key from

    @property
    def local(self) -> bool:
        return self.base_url.startswith(("http://127.0.0.1", "http://localhost"))


PRESETS: tuple[Preset, ...] = (
    Preset("Ollama", "http://127.0.0.1:11434/v1"),
    Preset("LM Studio", "http://127.0.0.1:1234/v1"),
    Preset("llama.cpp server", "http://127.0.0.1:8080/v1"),
    Preset(
        "OpenAI",
        "https://api.openai.com/v1",
        ("gpt-5-mini", "gpt-5", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4o-mini"),
        "OPENAI_API_KEY",
    ),
    # deepseek-chat is the non-thinking mode, deepseek-reasoner the thinking mode of the same
    # model; DeepSeek's docs also name the V4 models that will replace both names.
    Preset(
        "DeepSeek",
        "https://api.deepseek.com/v1",
        ("deepseek-chat", "deepseek-reasoner", "deepseek-v4-flash", "deepseek-v4-pro"),
        "DEEPSEEK_API_KEY",
    ),
    Preset(
        "Qwen / DashScope (compatible mode)",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        ("qwen-plus", "qwen-max", "qwen-turbo"),
        "DASHSCOPE_API_KEY",
    ),
    Preset("Custom", ""),
)


def _norm(url: str) -> str:
    return url.strip().rstrip("/").lower()


def preset_for_url(url: str) -> Preset | None:
    """The preset whose base URL this is (ignoring a trailing slash and case); None for others."""
    target = _norm(url)
    if not target:
        return None
    return next((p for p in PRESETS if p.base_url and _norm(p.base_url) == target), None)


def model_for_preset(preset: Preset, current: str) -> str:
    """The model name to show after choosing ``preset``: the current one when the provider serves
    it, else the provider's first model. A local server keeps what was typed, except a hosted
    provider's model name, which no local server serves under that name."""
    name = current.strip()
    if not preset.models:
        hosted = {m for p in PRESETS for m in p.models}
        return "" if name in hosted else current
    return current if name in preset.models else preset.models[0]
