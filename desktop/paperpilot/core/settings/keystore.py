"""Where the language-model API key lives: the system keyring when there is one, else a private file.

``keyring`` (a dependency) reaches the Secret Service (GNOME Keyring, KWallet), the macOS
Keychain or the Windows Credential Locker. Headless Linux boxes have no backend (``keyring``
selects its "fail" or an empty chainer backend, or raises ``NoKeyringError``), so the fallback
is a file under the config dir, written atomically with mode 0600 and checked on every load.
The key never goes into ``settings.json``, a log line, a trace or a repr; every key that enters
is cleaned and registered for masking (``redaction.clean_api_key``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import PaperPilotError
from ..text.redaction import InvalidAPIKey, clean_api_key
from .config import atomic_write_text
from .paths import AppPaths

log = logging.getLogger(__name__)

SERVICE = "PaperPilot"
KEY_FILE_NAME = "api_key"
# Set to "1" to skip the keyring even when one exists (portable installs, tests).
NO_KEYRING_ENV = "PAPERPILOT_NO_KEYRING"

Backend = Literal["keyring", "file"]


class KeyStoreError(PaperPilotError):
    """The key could not be stored; the message is safe to show (it never contains the key)."""


def key_file(paths: AppPaths) -> Path:
    return paths.config_dir / KEY_FILE_NAME


def _account(paths: AppPaths) -> str:
    # One entry per PaperPilot home, so a portable install or a test home never reads or
    # overwrites the key of the user's main installation.
    return f"api_key@{paths.config_dir}"


def _usable_backend() -> tuple[Any, Any] | None:
    """``(keyring module, backend)`` when keyring is installed and has a store for secrets."""
    if os.environ.get(NO_KEYRING_ENV) == "1":
        return None
    try:
        import keyring
        from keyring.backends import fail
    except Exception:  # not installed, or broken in a way that is not ours to fix
        return None
    try:
        backend = keyring.get_keyring()
    except Exception:  # NoKeyringError, or a backend that failed to initialise
        return None
    # The "fail" backend and priority ≤ 0 (the null backend, a chainer with nothing inside)
    # are what keyring selects when no real store exists; writing to them raises or drops.
    if isinstance(backend, fail.Keyring):
        return None
    try:
        if float(getattr(backend, "priority", 1)) <= 0:
            return None
    except Exception:
        return None
    return keyring, backend


def _keyring() -> Any | None:
    """The ``keyring`` module when it has a backend that can store secrets, else None."""
    found = _usable_backend()
    return found[0] if found is not None else None


def warm_up() -> threading.Thread:
    """Import keyring and find its backend in the background (it takes ~0.5 s, once), so the
    GUI thread never waits for it when Settings opens or a run starts."""
    t = threading.Thread(target=_usable_backend, name="keyring-warm-up", daemon=True)
    t.start()
    return t


# Friendly names for the stores keyring ships backends for, by backend module.
_BACKEND_NAMES = {
    "keyring.backends.SecretService": "GNOME Keyring / Secret Service",
    "keyring.backends.libsecret": "GNOME Keyring / Secret Service (libsecret)",
    "keyring.backends.kwallet": "KDE Wallet",
    "keyring.backends.macOS": "the macOS Keychain",
    "keyring.backends.Windows": "the Windows Credential Locker",
}


def describe_backend(backend: Any) -> str:
    """A name a user recognises for a keyring backend object."""
    inner = getattr(backend, "backends", None)
    if isinstance(inner, list | tuple) and inner:  # a chainer: the first store is written to
        return describe_backend(inner[0])
    module = type(backend).__module__
    if module in _BACKEND_NAMES:
        return _BACKEND_NAMES[module]
    name = getattr(backend, "name", "") or type(backend).__name__
    return f"the system keyring ({name})"


@dataclass(frozen=True)
class KeyLocation:
    """Where the key is (or a new one would go): ``backend`` and words for the Settings dialog."""

    backend: Backend
    description: str  # "GNOME Keyring / Secret Service", or the file's path
    path: Path | None = None  # the file, for the file backend

    def stored_in(self) -> str:
        """The sentence template for the Settings dialog, with ``{where}`` to fill in."""
        if self.backend == "keyring":
            return "Stored in: {where}"
        return "Stored in a file only you can read: {where}"


def storage_target(paths: AppPaths) -> KeyLocation:
    """Where ``save_api_key`` would put a key now."""
    found = _usable_backend()
    if found is not None:
        return KeyLocation("keyring", describe_backend(found[1]))
    return KeyLocation("file", str(key_file(paths)), key_file(paths))


def key_location(paths: AppPaths) -> KeyLocation | None:
    """Where the saved key is, or None when no key is saved."""
    found = _usable_backend()
    if found is not None:
        kr, backend = found
        try:
            value = kr.get_password(SERVICE, _account(paths))
        except Exception:
            value = None
        if value:
            return KeyLocation("keyring", describe_backend(backend))
    try:
        present = key_file(paths).is_file()
    except OSError:
        present = False
    return KeyLocation("file", str(key_file(paths)), key_file(paths)) if present else None


def save_api_key(paths: AppPaths, key: str) -> Backend:
    """Store ``key`` (an empty key deletes it); returns where it went.

    Surrounding whitespace is dropped; a key with a space, a control or a non-ASCII character
    inside raises KeyStoreError with a plain sentence (no part of the key in it).
    """
    try:
        cleaned = clean_api_key(key, "you entered")
    except InvalidAPIKey as e:
        raise KeyStoreError(str(e)) from None
    if cleaned is None:
        delete_api_key(paths)
        return "file"
    key = cleaned
    kr = _keyring()
    if kr is not None:
        try:
            kr.set_password(SERVICE, _account(paths), key)
        except Exception as e:
            # Backend errors can quote what they were given; log the type only.
            log.warning("the system keyring refused the API key (%s); using a private file", type(e).__name__)
        else:
            # A stale copy in the file would win if the keyring later disappears.
            _remove_file(paths)
            return "keyring"
    try:
        atomic_write_text(key_file(paths), key + "\n", mode=0o600)
    except OSError as e:
        raise KeyStoreError(f"Could not save the API key to {key_file(paths)}: {e.strerror or type(e).__name__}") from None
    return "file"


def load_api_key(paths: AppPaths) -> str | None:
    """The stored key, or None when there is none (or the file is unsafe and cannot be repaired).

    Raises InvalidAPIKey (a ValueError with a plain sentence) when the stored key holds a
    character no HTTP header can carry: sending it would fail with a library's message.
    """
    kr = _keyring()
    if kr is not None:
        try:
            value = kr.get_password(SERVICE, _account(paths))
        except Exception as e:
            log.warning("could not read the API key from the system keyring (%s)", type(e).__name__)
            value = None
        if value:
            return clean_api_key(str(value), "saved in the system keyring")
    return clean_api_key(_load_file(paths), f"saved in {key_file(paths)}")


def delete_api_key(paths: AppPaths) -> None:
    kr = _keyring()
    if kr is not None:
        # PasswordDeleteError when there is no entry: nothing to do either way.
        with contextlib.suppress(Exception):
            kr.delete_password(SERVICE, _account(paths))
    _remove_file(paths)


def has_api_key(paths: AppPaths) -> bool:
    try:
        return load_api_key(paths) is not None
    except InvalidAPIKey:
        return True  # a key is saved, unusable as it is: the user replaces it


def _remove_file(paths: AppPaths) -> None:
    try:
        key_file(paths).unlink(missing_ok=True)
    except OSError as e:
        log.warning("could not delete %s: %s", key_file(paths), e.strerror)


def _load_file(paths: AppPaths) -> str | None:
    path = key_file(paths)
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None
    except OSError as e:
        log.warning("cannot read %s: %s", path, e.strerror)
        return None
    if not stat.S_ISREG(st.st_mode):
        # A symlink could point the read (and a later repair) at another user's file.
        log.warning("ignoring %s: not a regular file", path)
        return None
    if os.name == "posix":
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            log.warning("ignoring %s: it belongs to another user", path)
            return None
        if st.st_mode & 0o077:
            try:
                os.chmod(path, 0o600)
            except OSError as e:
                log.warning("ignoring %s: readable by others and cannot be made private (%s)", path, e.strerror)
                return None
            log.warning("%s was readable by other users; made it private (0600)", path)
    try:
        # Not stripped here: clean_api_key does it for every source alike.
        value = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        log.warning("cannot read %s: %s", path, type(e).__name__)
        return None
    return value if value.strip() else None
