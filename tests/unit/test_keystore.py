"""The API key store: keyring when usable, else a private file; the key never leaks."""

from __future__ import annotations

import logging
import os
import stat
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.core import keystore
from paperpilot.core.config import Settings, save_settings
from paperpilot.core.keystore import delete_api_key, key_file, load_api_key, save_api_key
from paperpilot.core.paths import AppPaths, app_paths

KEY = "sk-test-0123456789abcdefSECRET"

posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


@pytest.fixture
def paths(monkeypatch: pytest.MonkeyPatch) -> AppPaths:
    # A developer machine may have a real keyring: never write test keys into it.
    monkeypatch.setenv(keystore.NO_KEYRING_ENV, "1")
    return app_paths().ensure()


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_round_trip_through_the_file(paths: AppPaths) -> None:
    assert load_api_key(paths) is None
    assert save_api_key(paths, f"  {KEY}\n") == "file"
    assert load_api_key(paths) == KEY
    assert key_file(paths).parent == paths.config_dir


@posix_only
def test_file_is_private(paths: AppPaths) -> None:
    save_api_key(paths, KEY)
    assert mode_of(key_file(paths)) == 0o600
    save_api_key(paths, KEY + "2")  # replacing keeps the mode (atomic rename of a 0600 file)
    assert mode_of(key_file(paths)) == 0o600
    assert load_api_key(paths) == KEY + "2"


@posix_only
def test_world_readable_file_is_repaired(paths: AppPaths, caplog: pytest.LogCaptureFixture) -> None:
    save_api_key(paths, KEY)
    os.chmod(key_file(paths), 0o644)
    with caplog.at_level(logging.WARNING):
        assert load_api_key(paths) == KEY
    assert mode_of(key_file(paths)) == 0o600
    assert "readable by other users" in caplog.text
    assert KEY not in caplog.text


@posix_only
def test_symlink_is_refused(paths: AppPaths, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_text(KEY)
    key_file(paths).symlink_to(target)
    assert load_api_key(paths) is None


def test_delete(paths: AppPaths) -> None:
    save_api_key(paths, KEY)
    delete_api_key(paths)
    assert not key_file(paths).exists()
    assert load_api_key(paths) is None
    delete_api_key(paths)  # deleting nothing is fine


def test_empty_key_deletes(paths: AppPaths) -> None:
    save_api_key(paths, KEY)
    save_api_key(paths, "   ")
    assert load_api_key(paths) is None


def test_line_breaks_are_refused(paths: AppPaths) -> None:
    with pytest.raises(keystore.KeyStoreError) as e:
        save_api_key(paths, "abc\ndef")
    assert "abc" not in str(e.value)


def test_key_never_in_settings_file(paths: AppPaths) -> None:
    save_api_key(paths, KEY)
    s = Settings()
    s.llm.enabled = True
    s.llm.model = "m"
    save_settings(s, paths.settings_file)
    assert KEY not in paths.settings_file.read_text()


class FakeKeyring:
    def __init__(self, fail_on_set: bool = False) -> None:
        self.store: dict[tuple[str, str], str] = {}
        self.fail_on_set = fail_on_set

    def set_password(self, service: str, user: str, value: str) -> None:
        if self.fail_on_set:
            raise RuntimeError(f"backend exploded while storing {value}")
        self.store[(service, user)] = value

    def get_password(self, service: str, user: str) -> str | None:
        return self.store.get((service, user))

    def delete_password(self, service: str, user: str) -> None:
        del self.store[(service, user)]


def test_keyring_is_used_when_available(paths: AppPaths, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeKeyring()
    monkeypatch.setattr(keystore, "_keyring", lambda: fake)
    key_file(paths).write_text("stale\n")
    assert save_api_key(paths, KEY) == "keyring"
    assert not key_file(paths).exists()  # a stale file copy would outlive the keyring entry
    assert load_api_key(paths) == KEY
    assert list(fake.store.values()) == [KEY]
    delete_api_key(paths)
    assert fake.store == {}


def test_failing_keyring_falls_back_to_file_without_logging_the_key(
    paths: AppPaths, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(keystore, "_keyring", lambda: FakeKeyring(fail_on_set=True))
    with caplog.at_level(logging.DEBUG):
        assert save_api_key(paths, KEY) == "file"
    assert load_api_key(paths) == KEY
    assert KEY not in caplog.text


@pytest.fixture
def fake_keyring_module(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    """A stand-in ``keyring`` package whose selected backend is the "fail" one (no real store)."""
    monkeypatch.delenv(keystore.NO_KEYRING_ENV, raising=False)
    kr = types.ModuleType("keyring")
    backends = types.ModuleType("keyring.backends")
    fail = types.ModuleType("keyring.backends.fail")

    class Keyring:
        priority = 0

        def set_password(self, *a: object) -> None:
            raise RuntimeError("No recommended backend was available")

    fail.Keyring = Keyring  # type: ignore[attr-defined]
    backends.fail = fail  # type: ignore[attr-defined]
    kr.backends = backends  # type: ignore[attr-defined]
    kr.get_keyring = lambda: Keyring()  # type: ignore[attr-defined]
    for name, mod in (("keyring", kr), ("keyring.backends", backends), ("keyring.backends.fail", fail)):
        monkeypatch.setitem(sys.modules, name, mod)
    yield kr


def test_headless_keyring_without_backend_uses_file(fake_keyring_module: types.ModuleType) -> None:
    paths = app_paths().ensure()
    assert keystore._keyring() is None
    assert save_api_key(paths, KEY) == "file"
    assert load_api_key(paths) == KEY


def test_missing_keyring_package_uses_file(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(keystore.NO_KEYRING_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "keyring", None)  # import keyring → ImportError
    assert keystore._keyring() is None
    paths = app_paths().ensure()
    assert save_api_key(paths, KEY) == "file"
    assert load_api_key(paths) == KEY
