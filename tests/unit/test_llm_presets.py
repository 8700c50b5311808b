"""The provider presets: URLs and model names as the providers document them."""

from __future__ import annotations

from paperpilot.core.llm.presets import PRESETS, model_for_preset, preset_for_url


def _preset(name: str):  # type: ignore[no-untyped-def]
    return next(p for p in PRESETS if p.name.startswith(name))


def test_presets_name_the_providers_urls_and_models() -> None:
    deepseek = _preset("DeepSeek")
    assert deepseek.base_url == "https://api.deepseek.com/v1"
    assert deepseek.models[:2] == ("deepseek-chat", "deepseek-reasoner")
    qwen = _preset("Qwen")
    assert qwen.base_url == "https://dashscope.aliyuncs.com/compatible-mode/v1"
    assert set(qwen.models) >= {"qwen-plus", "qwen-max", "qwen-turbo"} and qwen.models[0] == "qwen-plus"
    openai = _preset("OpenAI")
    assert openai.base_url == "https://api.openai.com/v1" and openai.models
    assert all(m.startswith("gpt-") for m in openai.models)
    assert _preset("Ollama").base_url == "http://127.0.0.1:11434/v1"
    assert _preset("LM Studio").base_url == "http://127.0.0.1:1234/v1"
    assert _preset("llama.cpp").base_url == "http://127.0.0.1:8080/v1"
    assert all(p.local and not p.models for p in PRESETS[:3])
    assert PRESETS[-1].name == "Custom" and PRESETS[-1].base_url == ""


def test_preset_for_url_ignores_slash_and_case() -> None:
    assert preset_for_url("https://API.deepseek.com/v1/") is _preset("DeepSeek")
    assert preset_for_url("http://example.org/v1") is None
    assert preset_for_url("  ") is None


def test_model_for_preset_keeps_a_served_model_and_drops_a_foreign_one() -> None:
    deepseek, qwen, ollama = _preset("DeepSeek"), _preset("Qwen"), _preset("Ollama")
    assert model_for_preset(deepseek, "") == "deepseek-chat"
    assert model_for_preset(deepseek, "deepseek-reasoner") == "deepseek-reasoner"
    assert model_for_preset(deepseek, "qwen-max") == "deepseek-chat"  # another provider's name
    assert model_for_preset(qwen, "deepseek-chat") == "qwen-plus"
    # A local server serves what the user pulled: a typed name stays, a hosted one goes.
    assert model_for_preset(ollama, "qwen2.5:7b-instruct") == "qwen2.5:7b-instruct"
    assert model_for_preset(ollama, "deepseek-chat") == ""
