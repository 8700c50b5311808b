from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperpilot.core.settings.config import ImportSettings, Settings, load_settings, save_settings
from paperpilot.core.settings.paths import app_paths


def test_home_env_puts_everything_under_it(paperpilot_home: Path) -> None:
    p = app_paths()
    for d in (p.data_dir, p.config_dir, p.cache_dir, p.database, p.index_dir, p.settings_file):
        assert paperpilot_home.resolve() in d.parents


def test_explicit_home_wins(tmp_path: Path, paperpilot_home: Path) -> None:
    p = app_paths(tmp_path / "other")
    assert (tmp_path / "other").resolve() in p.database.parents
    assert paperpilot_home.resolve() not in p.database.parents


def test_platformdirs_without_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PAPERPILOT_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    p = app_paths()
    assert p.data_dir == tmp_path / "xdg-data" / "PaperPilot"
    assert p.config_dir == tmp_path / "xdg-config" / "PaperPilot"


def test_settings_round_trip_saves_only_changes(tmp_path: Path) -> None:
    f = tmp_path / "settings.json"
    s = Settings(imports=ImportSettings(chunk_max_chars=1000))
    save_settings(s, f)
    data = json.loads(f.read_text())
    assert data == {"version": 1, "imports": {"chunk_max_chars": 1000}}
    loaded, warning = load_settings(f)
    assert warning is None and loaded.imports.chunk_max_chars == 1000 and loaded.imports.chunk_min_chars == 300


@pytest.mark.parametrize("content", ["{broken", "[1, 2]", '{"imports": {"chunk_max_chars": -5}}'])
def test_broken_settings_fall_back_to_defaults(tmp_path: Path, content: str) -> None:
    f = tmp_path / "settings.json"
    f.write_text(content)
    loaded, warning = load_settings(f)
    assert loaded == Settings()
    assert warning is not None and "using defaults" in warning


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ('{"llm": {"temperature": "hot", "model": "qwen"}, "agent": {"max_rounds": "many"}}',
         "wrong type or value for llm.temperature, agent.max_rounds"),
        ('{"imports": 5}', "wrong type or value for imports"),
        ('{"agent": {"max_rounds": 1e400}}', "wrong type or value for agent.max_rounds"),
        ('{"agent": {"max_rounds": 0}}', "wrong type or value for agent.max_rounds"),
        ('{"imports": {"chunk_min_chars": 900, "chunk_max_chars": 800}}',
         "the smallest chunk (900 characters) is larger than the largest (800)"),
        ("{broken", "not valid JSON at line 1, column 2"),
    ],
)  # fmt: skip
def test_settings_of_the_wrong_types_are_set_aside_with_one_plain_line(
    tmp_path: Path, content: str, why: str
) -> None:
    f = tmp_path / "settings.json"
    f.write_text(content)
    loaded, warning = load_settings(f)
    assert loaded == Settings()
    assert warning is not None and warning.count("\n") == 0
    assert f"Settings file {f} is invalid ({why}" in warning and "using defaults" in warning
    for library_text in ("validation error", "pydantic", "type=", "input_value", "Input should"):
        assert library_text not in warning
    aside = list(tmp_path.glob("settings.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text() == content and not f.exists()
    assert load_settings(f) == (Settings(), None)


def test_chunk_sizes_are_checked_by_the_model() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as e:
        ImportSettings(chunk_min_chars=900, chunk_max_chars=800)
    assert "smallest chunk (900 characters) is larger than the largest (800)" in str(e.value)
    assert ImportSettings(chunk_min_chars=800, chunk_max_chars=800).chunk_min_chars == 800


def test_an_import_after_refused_chunk_settings_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from paperpilot.cli import main

    home = tmp_path / "h"
    (home / "config").mkdir(parents=True)
    (home / "config" / "settings.json").write_text('{"imports": {"chunk_min_chars": 900, "chunk_max_chars": 800}}')
    (tmp_path / "a.md").write_text("# A paper\n\nSome text about sparrows.\n")
    (tmp_path / "b.txt").write_text("Another paper about bridges.\n")
    code = main(["--home", str(home), "import", str(tmp_path / "a.md"), str(tmp_path / "b.txt"), "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)
    assert len(data["imported"]) == 2 and data["failed"] == []
    assert err.count("\n") == 1 and "smallest chunk" in err and "Traceback" not in err
