"""The library's cross-process writer lock: one writer at a time, and waiters get their turn.

Two advisory file locks (``flock`` on POSIX, ``msvcrt.locking`` on Windows; the kernel drops
them when a process dies, so a crash never leaves the library locked):

* ``writer.lock`` is the writer lock itself. A writer keeps it across several files so that
  index commits can be batched; SQLite rows it committed but has not indexed yet (``indexed=0``)
  are its work in progress for exactly as long as it holds this lock.
* ``writer.queue`` is a turnstile. A waiting writer holds it while it polls for the writer lock;
  the holder checks ``waiter_queued()`` between files and, when someone waits, commits and hands
  over. Without it a busy importer re-took the lock within microseconds and starved the other
  process, which then gave up with "busy".

The holder writes its pid into ``writer.lock`` and empties the file when it lets go, so the
next holder knows when the previous one died while writing (``inherited_dirty``): only then is
there debris to look for (half-written copies, unindexed rows).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from pathlib import Path

POLL_S = 0.02


class ProcessLock:
    """An exclusive lock on a file, owned by this object (not re-entrant, not shared by threads)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    @property
    def fd(self) -> int | None:
        return self._fd

    def try_acquire(self) -> bool:
        """Take the lock if it is free; raises OSError when the file cannot be opened for writing."""
        if self._fd is not None:
            return True
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            got = _lock_fd(fd)
        except BaseException:
            os.close(fd)
            raise
        if got:
            self._fd = fd
            return True
        os.close(fd)
        return False

    def acquire(self, timeout: float) -> bool:
        deadline = time.monotonic() + max(0.0, timeout)
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL_S)
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                _unlock_fd(fd)
            os.close(fd)


class WriterLock:
    """The writer lock plus its turnstile (see the module docstring)."""

    def __init__(self, lock_path: Path, queue_path: Path) -> None:
        self._lock = ProcessLock(lock_path)
        self._queue = ProcessLock(queue_path)
        # Set on each acquisition: the previous holder died without letting go cleanly.
        self.inherited_dirty = False

    @property
    def held(self) -> bool:
        return self._lock.held

    def acquire(self, timeout: float) -> bool:
        """Wait in line for the writer lock; False when it did not come within ``timeout`` s."""
        if self._lock.held:
            return True
        deadline = time.monotonic() + max(0.0, timeout)
        if not self._queue.acquire(timeout):
            return False
        try:
            got = self._lock.acquire(deadline - time.monotonic())
        finally:
            self._queue.release()
        if got:
            self._claim()
        return got

    def try_acquire(self) -> bool:
        """Take the writer lock only if it is free right now, without queueing (start-up recovery)."""
        if self._lock.held:
            return True
        got = self._lock.try_acquire()
        if got:
            self._claim()
        return got

    def _claim(self) -> None:
        fd = self._lock.fd
        assert fd is not None
        try:
            self.inherited_dirty = bool(os.pread(fd, 32, 0)) if hasattr(os, "pread") else False
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:  # a full disk: the marker is a hint, the lock itself is what counts
            pass

    def waiter_queued(self) -> bool:
        """True when another writer is waiting for its turn (the caller holds the writer lock)."""
        try:
            if not self._queue.try_acquire():
                return True
        except OSError:
            return False
        self._queue.release()
        return False

    def release(self) -> None:
        fd = self._lock.fd
        if fd is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
        self._lock.release()


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def _lock_fd(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock_fd(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import errno
    import fcntl

    def _lock_fd(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                return False
            raise
        return True

    def _unlock_fd(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
