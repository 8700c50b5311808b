"""Known OpenAI-compatible servers: their base URL, the model names they serve, the key variable.

The settings dialog offers these as presets. The hosted providers' names were checked against
their own documentation in December 2026: DeepSeek retired `deepseek-chat` / `deepseek-reasoner`
(July 2026) and `deepseek-v4-flash` for `deepseek-flash` (V4.1 Flash; `deepseek-v4-pro` is still
accepted but served by the same model); OpenAI marks the GPT-5 (5.0) snapshots deprecated;
DashScope's compatible mode serves the Qwen 3.8 models, Moonshot the Kimi K3 / K2.6 models,
Zhipu's BigModel the GLM-5 models. Local servers (Ollama, LM Studio, llama.cpp, vLLM) serve
whatever the user has installed, so they list no models: "Test connection" asks the server.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Preset:
    name: str
    base_url: str
    models: tuple[str, ...] = ()  # the first is the one a preset fills in
    key_env: str = ""  # the environment variable the provider's own tools read the key from
    # Other spellings of the same endpoint (the provider documents both), matched on open.
    aliases: tuple[str, ...] = ()
    # Model names the provider has withdrawn → the name that replaces each.
    retired: dict[str, str] = field(default_factory=dict)

    @property
    def local(self) -> bool:
        return self.base_url.startswith(("http://127.0.0.1", "http://localhost"))


PRESETS: tuple[Preset, ...] = (
    Preset("Ollama", "http://127.0.0.1:11434/v1"),
    Preset("LM Studio", "http://127.0.0.1:1234/v1"),
    Preset("llama.cpp server", "http://127.0.0.1:8080/v1"),
    Preset("vLLM", "http://127.0.0.1:8000/v1"),
    Preset(
        "OpenAI",
        "https://api.openai.com/v1",
        ("gpt-5.4-mini", "gpt-5.5", "gpt-5.4-nano"),
        "OPENAI_API_KEY",
        retired={"gpt-5": "gpt-5.5", "gpt-5-mini": "gpt-5.4-mini", "gpt-5-nano": "gpt-5.4-nano"},
    ),
    Preset(
        "DeepSeek",
        "https://api.deepseek.com",
        ("deepseek-flash", "deepseek-v4-pro"),
        "DEEPSEEK_API_KEY",
        aliases=("https://api.deepseek.com/v1",),
        retired={
            "deepseek-chat": "deepseek-flash",
            "deepseek-reasoner": "deepseek-flash",
            "deepseek-v4-flash": "deepseek-flash",
        },
    ),
    Preset(
        "Qwen / DashScope (China)",
        "https://dashscope.aliyuncs.com/compatible-mode/v1",
        ("qwen3.8-flash", "qwen3.8-max", "qwen3.6-plus"),
        "DASHSCOPE_API_KEY",
    ),
    Preset(
        "Qwen / DashScope (international)",
        "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
        ("qwen3.8-flash", "qwen3.8-max", "qwen3.6-plus"),
        "DASHSCOPE_API_KEY",
    ),
    Preset(
        "Moonshot / Kimi",
        "https://api.moonshot.cn/v1",
        ("kimi-k3", "kimi-k2.6"),
        "MOONSHOT_API_KEY",
        aliases=("https://api.moonshot.ai/v1",),
        retired={
            "kimi-k2-0905-preview": "kimi-k2.6",
            "kimi-k2-turbo-preview": "kimi-k2.6",
            "kimi-k2-thinking": "kimi-k2.6",
            "kimi-latest": "kimi-k3",
        },
    ),
    Preset(
        "Zhipu GLM (BigModel)",
        "https://open.bigmodel.cn/api/paas/v4",
        ("glm-5.2", "glm-5.3-flash", "glm-4.7-flash"),
        "ZHIPUAI_API_KEY",
    ),
    Preset("Custom", ""),
)


def _norm(url: str) -> str:
    return url.strip().rstrip("/").lower()


def preset_for_url(url: str) -> Preset | None:
    """The preset whose base URL (or one of its aliases) this is, ignoring a trailing slash and
    case; None for others."""
    target = _norm(url)
    if not target:
        return None
    return next(
        (p for p in PRESETS if p.base_url and target in {_norm(u) for u in (p.base_url, *p.aliases)}),
        None,
    )


def replacement_for(preset: Preset | None, model: str) -> str | None:
    """The name that replaces ``model`` when ``preset``'s provider has retired it, else None."""
    if preset is None:
        return None
    return preset.retired.get(model.strip())


def model_for_preset(preset: Preset, current: str) -> str:
    """The model name to show after choosing ``preset``: the current one when the provider serves
    it, its replacement when the provider retired it, else the provider's first model. A local
    server keeps what was typed, except a hosted provider's model name, which no local server
    serves under that name."""
    name = current.strip()
    if not preset.models:
        hosted = {m for p in PRESETS for m in (*p.models, *p.retired)}
        return "" if name in hosted else current
    if name in preset.models:
        return current
    return preset.retired.get(name) or preset.models[0]
