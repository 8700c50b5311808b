"""Choosing the agent's policy from the settings: offline, or a language model with its key."""

from __future__ import annotations

import os

from ..core.agent.state import Policy
from ..core.config import LLMSettings, Settings
from ..core.keystore import load_api_key
from ..core.paths import AppPaths
from ..core.redaction import clean_api_key


def resolve_api_key(llm: LLMSettings, paths: AppPaths) -> str | None:
    """The key to send: the named environment variable when it is set, else the key store.

    Raises ValueError (``redaction.InvalidAPIKey``, one plain sentence) for a key that holds
    a character no HTTP header can carry.
    """
    if llm.api_key_env:
        value = clean_api_key(
            os.environ.get(llm.api_key_env), f"from the environment variable {llm.api_key_env}"
        )
        if value:
            return value
    return load_api_key(paths)


def make_policy(settings: Settings, paths: AppPaths) -> Policy:
    """The policy a run should use; ValueError (a sentence for the user) when it cannot be built."""
    llm = settings.llm
    if not llm.enabled:
        from ..core.agent.offline import OfflinePolicy

        return OfflinePolicy()
    if not llm.model.strip():
        raise ValueError(
            "A language model is switched on but no model name is set. Choose a model in "
            "Settings ▸ Language model, or switch to offline mode."
        )
    if not llm.base_url.strip():
        raise ValueError("A language model is switched on but its server URL is empty; set it in Settings.")
    # Imported here: the LLM modules pull in httpx, which offline users never need at start-up.
    from ..core.agent.llm_policy import LLMPolicy
    from ..core.llm import LLMClient, LLMConfig

    config = LLMConfig.from_settings(llm, api_key=resolve_api_key(llm, paths))
    return LLMPolicy(LLMClient(config), quote_check=llm.quote_check)
