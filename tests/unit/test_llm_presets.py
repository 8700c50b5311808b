"""The provider presets: URLs and model names as the providers document them (December 2026)."""

from __future__ import annotations

from paperpilot.core.llm.presets import PRESETS, model_for_preset, preset_for_url, replacement_for


def _preset(name: str):  # type: ignore[no-untyped-def]
    return next(p for p in PRESETS if p.name.startswith(name))


def test_presets_name_the_providers_urls_and_current_models() -> None:
    deepseek = _preset("DeepSeek")
    assert deepseek.base_url == "https://api.deepseek.com"
    # deepseek-chat / deepseek-reasoner were withdrawn in July 2026: never offered again.
    assert deepseek.models[0] == "deepseek-flash"
    assert not {"deepseek-chat", "deepseek-reasoner", "deepseek-v4-flash"} & set(deepseek.models)
    china, intl = _preset("Qwen / DashScope (China)"), _preset("Qwen / DashScope (international)")
    assert china.base_url == "https://dashscope.aliyuncs.com/compatible-mode/v1"
    assert intl.base_url == "https://dashscope-intl.aliyuncs.com/compatible-mode/v1"
    assert china.models[0] == intl.models[0] == "qwen3.8-flash" and "qwen3.8-max" in china.models
    assert china.key_env == intl.key_env == "DASHSCOPE_API_KEY"
    openai = _preset("OpenAI")
    assert openai.base_url == "https://api.openai.com/v1" and openai.key_env == "OPENAI_API_KEY"
    assert openai.models[0] == "gpt-5.4-mini" and "gpt-5.5" in openai.models
    assert not {"gpt-5", "gpt-5-mini", "gpt-5-nano"} & set(openai.models)  # deprecated snapshots
    moonshot = _preset("Moonshot")
    assert moonshot.base_url == "https://api.moonshot.cn/v1" and moonshot.models[0] == "kimi-k3"
    assert moonshot.key_env == "MOONSHOT_API_KEY"
    zhipu = _preset("Zhipu")
    assert zhipu.base_url == "https://open.bigmodel.cn/api/paas/v4" and zhipu.models[0].startswith("glm-5")
    assert zhipu.key_env == "ZHIPUAI_API_KEY"
    local = {p.name: p.base_url for p in PRESETS if p.local}
    assert local == {
        "Ollama": "http://127.0.0.1:11434/v1",
        "LM Studio": "http://127.0.0.1:1234/v1",
        "llama.cpp server": "http://127.0.0.1:8080/v1",
        "vLLM": "http://127.0.0.1:8000/v1",
    }
    assert all(not p.models and not p.key_env for p in PRESETS if p.local)
    assert PRESETS[-1].name == "Custom" and PRESETS[-1].base_url == ""
    # Every hosted preset fills a model and a key variable, and no two share a URL.
    hosted = [p for p in PRESETS if p.base_url and not p.local]
    assert all(p.models and p.key_env and p.base_url.startswith("https://") for p in hosted)
    urls = [u.lower() for p in PRESETS if p.base_url for u in (p.base_url, *p.aliases)]
    assert len(urls) == len(set(urls))


def test_preset_for_url_ignores_slash_and_case_and_knows_the_other_spelling() -> None:
    assert preset_for_url("https://API.deepseek.com/") is _preset("DeepSeek")
    # Settings saved with DeepSeek's older /v1 spelling still open as the DeepSeek preset.
    assert preset_for_url("https://api.deepseek.com/v1") is _preset("DeepSeek")
    assert preset_for_url("https://api.moonshot.ai/v1") is _preset("Moonshot")
    assert preset_for_url("http://example.org/v1") is None
    assert preset_for_url("  ") is None


def test_model_for_preset_keeps_a_served_model_replaces_a_retired_one_and_drops_a_foreign_one() -> None:
    deepseek, qwen, ollama = _preset("DeepSeek"), _preset("Qwen"), _preset("Ollama")
    assert model_for_preset(deepseek, "") == "deepseek-flash"
    assert model_for_preset(deepseek, "deepseek-v4-pro") == "deepseek-v4-pro"
    assert model_for_preset(deepseek, "deepseek-chat") == "deepseek-flash"  # retired → its successor
    assert model_for_preset(deepseek, "deepseek-reasoner") == "deepseek-flash"
    assert model_for_preset(deepseek, "qwen3.8-max") == "deepseek-flash"  # another provider's name
    assert model_for_preset(qwen, "deepseek-chat") == "qwen3.8-flash"
    # A local server serves what the user pulled: a typed name stays, a hosted one goes.
    assert model_for_preset(ollama, "qwen2.5:7b-instruct") == "qwen2.5:7b-instruct"
    assert model_for_preset(ollama, "deepseek-flash") == ""
    assert model_for_preset(ollama, "deepseek-chat") == ""


def test_replacement_for_names_the_successor_of_a_withdrawn_model_only() -> None:
    deepseek = _preset("DeepSeek")
    assert replacement_for(deepseek, "deepseek-chat") == "deepseek-flash"
    assert replacement_for(deepseek, " deepseek-reasoner ") == "deepseek-flash"
    assert replacement_for(deepseek, "deepseek-flash") is None
    assert replacement_for(None, "deepseek-chat") is None  # a custom server may use any name
    assert replacement_for(_preset("OpenAI"), "gpt-5-mini") == "gpt-5.4-mini"
