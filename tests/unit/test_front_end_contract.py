"""The front ends' contract names every core module but the door: a new core package cannot slip past it."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOOR = {"app", "api", "errors"}


def test_every_core_module_but_the_door_is_forbidden_to_the_front_ends() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    front = next(c for c in contracts if c.get("source_modules") == ["paperpilot.ui", "paperpilot.cli"])
    assert front["ignore_imports"] == []
    forbidden = {m.removeprefix("paperpilot.core.") for m in front["forbidden_modules"]}
    core = ROOT / "desktop" / "paperpilot" / "core"
    modules = {p.stem for p in core.glob("*.py") if p.stem != "__init__"}
    packages = {p.parent.name for p in core.glob("*/__init__.py")}
    assert (modules | packages) - DOOR == forbidden
