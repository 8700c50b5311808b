"""One SQLite file of a user's own records (conversations, workflows), one connection per thread.

The file is opened in WAL mode with its schema script and schema version; a file that cannot be
opened raises the store's own error with one plain line.
"""

from __future__ import annotations

import builtins
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import PaperPilotError


class ThreadLocalStore:
    """Subclasses set ``SCHEMA``, ``SCHEMA_VERSION``, ``ERROR`` and ``WHAT`` ("conversations")."""

    SCHEMA: str
    SCHEMA_VERSION: int
    ERROR: type[PaperPilotError]
    WHAT: str

    def __init__(self, path: Path, busy_timeout_ms: int = 10_000) -> None:
        self.path = path
        self.busy_timeout_ms = busy_timeout_ms
        self._local = threading.local()
        self._conns: builtins.list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        _ = self.conn  # open now so a broken file is reported at once

    @property
    def conn(self) -> sqlite3.Connection:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            try:
                conn = sqlite3.connect(
                    str(self.path), isolation_level=None, check_same_thread=False,
                    timeout=self.busy_timeout_ms / 1000,
                )  # fmt: skip
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute("PRAGMA synchronous=NORMAL")
                conn.execute("PRAGMA foreign_keys=ON")
                conn.executescript(self.SCHEMA)
                conn.execute(
                    "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)", (str(self.SCHEMA_VERSION),)
                )
            except sqlite3.DatabaseError as e:
                raise self.ERROR(f"The {self.WHAT} database {self.path} cannot be opened: {e}") from e
            self._local.conn = conn
            with self._lock:
                self._conns.append(conn)
        return conn

    def close(self) -> None:
        with self._lock:
            for c in self._conns:
                c.close()
            self._conns.clear()
        self._local = threading.local()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        c = self.conn
        c.execute("BEGIN IMMEDIATE")
        try:
            yield c
        except BaseException:
            c.execute("ROLLBACK")
            raise
        else:
            c.execute("COMMIT")
