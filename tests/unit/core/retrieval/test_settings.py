"""The embedding section of the settings: defaults offline, saved only when changed, validated."""

from __future__ import annotations

import json
from pathlib import Path

from paperpilot.core.settings.config import Settings, load_settings, save_settings


def test_defaults_are_the_bundled_model_on_one_core(tmp_path: Path) -> None:
    s = Settings()
    assert (s.embedding.kind, s.embedding.threads, s.embedding.enabled) == ("bundled", 1, True)
    path = tmp_path / "settings.json"
    save_settings(s, path)
    assert "embedding" not in json.loads(path.read_text())  # only non-default values are written


def test_an_endpoint_round_trips_and_bad_values_fall_back(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    s = Settings()
    s.embedding.kind = "endpoint"
    s.embedding.model = "nomic-embed-text"
    save_settings(s, path)
    loaded, warning = load_settings(path)
    assert warning is None and loaded.embedding.kind == "endpoint" and loaded.embedding.model == "nomic-embed-text"
    path.write_text(json.dumps({"version": 1, "embedding": {"kind": "telepathy"}}))
    loaded, warning = load_settings(path)
    assert warning is not None and loaded.embedding.kind == "bundled"
