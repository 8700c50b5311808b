"""The API key store: keyring when usable, else a private file; the key never leaks."""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
import textwrap
import types
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from paperpilot.core.settings import keystore
from paperpilot.core.settings.config import Settings, save_settings
from paperpilot.core.settings.keystore import delete_api_key, key_file, load_api_key, save_api_key
from paperpilot.core.settings.paths import AppPaths, app_paths

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


# --- the real keyring package -------------------------------------------------------------------


class MemoryKeyring(KeyringBackend):
    """A real keyring backend class, registered in-process: this machine has no OS backend
    (no Secret Service on a headless box), so the keyring path is tested through keyring's own
    API with a store that lives in memory."""

    priority = 1  # type: ignore[assignment]
    # Defining a subclass registers it with keyring; not viable keeps keyring's own discovery
    # from ever choosing it. Only set_keyring (the fixture below) puts it in use.
    viable = False  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if (service, username) not in self.store:
            raise PasswordDeleteError("no such password")
        del self.store[(service, username)]


@pytest.fixture
def real_keyring(monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    monkeypatch.delenv(keystore.NO_KEYRING_ENV, raising=False)
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def test_keyring_is_a_dependency() -> None:
    from importlib.metadata import requires

    assert any(r.split(">")[0].split("=")[0].strip().lower() == "keyring" for r in requires("paperpilot") or [])


def test_no_backend_here_falls_back_to_a_private_file(tmp_path: Path) -> None:
    # The real keyring package, in a fresh interpreter, on this headless machine: it selects
    # its "fail" backend (or an empty chainer), which PaperPilot must recognise as "no store".
    script = textwrap.dedent(
        """
        import json, os, stat, sys
        import keyring
        from paperpilot.core.settings import keystore
        from paperpilot.core.settings.paths import app_paths
        paths = app_paths().ensure()
        out = {"backend": repr(keyring.get_keyring()), "usable": keystore._usable_backend() is not None,
               "target": keystore.storage_target(paths).backend, "before": keystore.key_location(paths) is None,
               "saved": keystore.save_api_key(paths, sys.argv[1] + "\\r\\n"),
               "loaded": keystore.load_api_key(paths)}
        where = keystore.key_location(paths)
        out["where"] = where.stored_in().format(where=where.description)
        out["file"] = str(keystore.key_file(paths))
        out["mode"] = stat.S_IMODE(os.stat(keystore.key_file(paths)).st_mode)
        print(json.dumps(out))
        """
    )
    env = {k: v for k, v in os.environ.items() if k != keystore.NO_KEYRING_ENV}
    env["PAPERPILOT_HOME"] = str(tmp_path / "home")
    r = subprocess.run([sys.executable, "-c", script, KEY], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    if out["usable"]:
        pytest.skip(f"this machine has a keyring backend ({out['backend']}); the fallback is not reachable")
    assert out["target"] == "file" and out["before"] is True
    assert out["saved"] == "file" and out["loaded"] == KEY
    assert out["where"] == f"Stored in a file only you can read: {out['file']}"
    if os.name == "posix":
        assert out["mode"] == 0o600


def test_a_registered_keyring_backend_holds_the_key(real_keyring: MemoryKeyring) -> None:
    paths = app_paths().ensure()
    key_file(paths).write_text("stale\n")
    assert keystore.storage_target(paths).backend == "keyring"
    assert save_api_key(paths, f"  {KEY}\r\n") == "keyring"
    assert list(real_keyring.store.values()) == [KEY]  # stripped before it was stored
    assert not key_file(paths).exists()
    assert load_api_key(paths) == KEY
    where = keystore.key_location(paths)
    assert where is not None and where.backend == "keyring" and where.path is None
    assert "MemoryKeyring" in where.description
    delete_api_key(paths)
    assert real_keyring.store == {} and load_api_key(paths) is None


def test_a_key_with_a_control_character_in_the_keyring_is_refused_plainly(real_keyring: MemoryKeyring) -> None:
    paths = app_paths().ensure()
    real_keyring.set_password(keystore.SERVICE, keystore._account(paths), "sk-abc\x07def-0123456789")
    with pytest.raises(ValueError) as e:
        load_api_key(paths)
    assert "control character" in str(e.value) and "0123456789" not in str(e.value)
    assert keystore.has_api_key(paths)  # a key is saved: the user replaces it in Settings


def test_keys_with_inner_spaces_or_non_ascii_are_refused_by_the_store(paths: AppPaths) -> None:
    for bad in ("sk-abc def", "sk-abcdéf", "sk-abc\tdef"):
        with pytest.raises(keystore.KeyStoreError) as e:
            save_api_key(paths, bad)
        assert "abc" not in str(e.value)
    assert load_api_key(paths) is None


def test_a_crlf_key_file_is_read_stripped(paths: AppPaths) -> None:
    save_api_key(paths, KEY)
    key_file(paths).write_bytes(KEY.encode() + b"\r\n")
    assert load_api_key(paths) == KEY


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("keyring.backends.SecretService", "GNOME Keyring / Secret Service"),
        ("keyring.backends.macOS", "the macOS Keychain"),
        ("keyring.backends.Windows", "the Windows Credential Locker"),
        ("keyring.backends.kwallet", "KDE Wallet"),
    ],
)
def test_backends_are_named_as_users_know_them(module: str, name: str) -> None:
    cls = type("Keyring", (), {"__module__": module})
    assert keystore.describe_backend(cls()) == name
    chainer = types.SimpleNamespace(backends=[cls()])
    assert keystore.describe_backend(chainer) == name


def test_warm_up_finds_the_backend_off_the_calling_thread(real_keyring: MemoryKeyring) -> None:
    t = keystore.warm_up()
    t.join(timeout=10)
    assert not t.is_alive() and t.daemon
