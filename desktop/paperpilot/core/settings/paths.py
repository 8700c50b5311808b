"""Where PaperPilot keeps per-user files: the one place every path comes from."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "PaperPilot"
HOME_ENV = "PAPERPILOT_HOME"


@dataclass(frozen=True)
class AppPaths:
    """The per-user directories. ``PAPERPILOT_HOME`` (or ``--home``) puts them all under one root."""

    data_dir: Path
    config_dir: Path
    cache_dir: Path

    @property
    def library_dir(self) -> Path:
        return self.data_dir / "library"

    @property
    def files_dir(self) -> Path:
        """Copies of imported files, named by content hash."""
        return self.library_dir / "files"

    @property
    def sidecar_dir(self) -> Path:
        """One small JSON file per stored copy: what the database knows of it (core.library.sidecar)."""
        return self.library_dir / "meta"

    @property
    def quarantine_dir(self) -> Path:
        """Files ``paperpilot check --repair`` set aside because it could not account for them."""
        return self.library_dir / "quarantine"

    @property
    def database(self) -> Path:
        return self.library_dir / "library.sqlite3"

    @property
    def index_dir(self) -> Path:
        # The index is derived from SQLite and rebuildable, but it is large and slow to
        # rebuild, so it lives beside the library rather than in a purgeable cache dir.
        return self.library_dir / "index"

    @property
    def lock_file(self) -> Path:
        return self.library_dir / "writer.lock"

    @property
    def lock_queue_file(self) -> Path:
        """The turnstile of writers waiting for ``lock_file`` (core.library.writerlock)."""
        return self.library_dir / "writer.queue"

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.json"

    @property
    def log_dir(self) -> Path:
        """Where details of unexpected errors go (tracebacks a user never sees on screen)."""
        return self.data_dir / "logs"

    def ensure(self) -> AppPaths:
        for d in (self.data_dir, self.config_dir, self.cache_dir, self.library_dir, self.files_dir):
            d.mkdir(parents=True, exist_ok=True)
        return self


def app_paths(home: str | os.PathLike[str] | None = None) -> AppPaths:
    """Resolve the per-user paths: explicit ``home``, then ``$PAPERPILOT_HOME``, then platformdirs."""
    root = home if home is not None else os.environ.get(HOME_ENV) or None
    if root is not None:
        base = Path(root).expanduser().resolve()
        return AppPaths(data_dir=base / "data", config_dir=base / "config", cache_dir=base / "cache")
    return AppPaths(
        data_dir=Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        config_dir=Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
        cache_dir=Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
    )
