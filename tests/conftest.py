"""Test-wide set-up: offscreen Qt, an isolated PAPERPILOT_HOME per test, no leaked threads."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest_plugins = ["tests.fakes.openai_server"]


@pytest.fixture(autouse=True)
def paperpilot_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own PaperPilot home; nothing touches the real user's library."""
    home = tmp_path / "pp-home"
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))
    # Nor a developer's real keyring (keyring is a dependency): tests of the keyring path
    # remove this and register an in-memory backend.
    monkeypatch.setenv("PAPERPILOT_NO_KEYRING", "1")
    return home


@pytest.fixture(autouse=True)
def no_leaked_threads() -> Iterator[None]:
    before = {t.ident for t in threading.enumerate()}
    yield
    leaked = [t for t in threading.enumerate() if t.ident not in before and t.is_alive() and not t.daemon]
    for t in leaked:
        t.join(timeout=2.0)
    still = [t.name for t in leaked if t.is_alive()]
    assert not still, f"test left threads running: {still}"


@pytest.fixture(autouse=True)
def no_registered_secrets() -> Iterator[None]:
    """Keys registered for masking are per process; one test's key must not mask another's output."""
    from paperpilot.core.text.redaction import forget_secrets

    forget_secrets()
    yield
    forget_secrets()
