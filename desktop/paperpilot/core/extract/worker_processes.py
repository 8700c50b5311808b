"""PDF extraction in child processes that never outlive the process that started them.

PDFium is not thread-safe, so a second core is used through a second process. The workers are
plain ``python -c`` children talking pickles over their stdin/stdout pipes rather than a
``multiprocessing`` pool: a pool's queues are semaphores that need multiprocessing's resource
tracker, one more process that (like the pool's workers) lived on for minutes after the parent
was killed. Here a worker ends when

* its parent closes the request pipe (normal end, cancel, an exception in the import),
* its parent dies: Linux delivers SIGKILL at once (``PR_SET_PDEATHSIG``); elsewhere, and for the
  moment between fork and prctl, a watchdog thread notices that the parent pid has changed.

``PR_SET_PDEATHSIG`` fires when the *thread* that started the child ends, so a pool must be
created and closed by the same thread (``Library.import_paths`` does both).
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import os
import pickle
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..models import Extracted, ImportFailure
from ..text.messages import msg

if TYPE_CHECKING:
    from .ocr import OcrLine
    from .pdf import PdfScan

# (kind, args): ("extract", (path, ocr, ocr_off)) or ("ocr", (path, page index)).
_Request = tuple[str, tuple[Any, ...]]

# Children that crash (PDFium on a hostile file) are replaced this many times per pool.
MAX_RESTARTS = 5
_WATCHDOG_INTERVAL_S = 0.5
_PR_SET_PDEATHSIG = 1


class WorkerCrashed(Exception):
    """A worker process died. ``culprit``: it died on this file (the file is the likely cause);
    otherwise the file was only queued behind it and can be extracted elsewhere."""

    def __init__(self, message: str, culprit: bool) -> None:
        super().__init__(message)
        self.culprit = culprit


def _die_with_parent(parent_pid: int) -> None:
    """Make this process end when ``parent_pid`` does (see the module docstring)."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no libc symbol (musl oddities): the watchdog remains
            pass
    # The parent may have died before prctl ran; re-parenting changes our ppid.
    if os.getppid() != parent_pid:
        os._exit(0)

    def watch() -> None:
        while True:
            time.sleep(_WATCHDOG_INTERVAL_S)
            if os.getppid() != parent_pid:
                os._exit(0)

    threading.Thread(target=watch, name="parent-watchdog", daemon=True).start()


def _handle(kind: str, args: tuple[Any, ...]) -> Any:
    """One request: ``extract`` a PDF (its text layer, or what is left for OCR), or ``ocr`` a page."""
    if kind == "ocr":
        from .ocr import ocr_pdf_page

        return ocr_pdf_page(args[0], args[1])
    from .pdf import read_pdf_for_import

    return read_pdf_for_import(Path(args[0]), ocr=bool(args[1]), ocr_off=bool(args[2]))


def worker_main() -> None:
    """Entry point of a worker process: read (id, kind, args) requests, answer (id, ok, payload)."""
    parent_pid = int(sys.argv[1])
    _die_with_parent(parent_pid)
    # The pipes are the protocol: keep private copies and point fds 0 and 1 elsewhere so that
    # a stray print (ours or a C library's) cannot corrupt a message.
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from .ocr import OcrUnavailable

    while True:
        try:
            req_id, kind, args = pickle.load(requests)
        except (EOFError, OSError, pickle.UnpicklingError):
            os._exit(0)  # the parent closed the pipe or went away
        ok: bool
        payload: Any
        try:
            payload, ok = _handle(kind, args), True
        except (ImportFailure, OcrUnavailable) as e:
            payload, ok = e, False
        except Exception as e:  # an extractor bug: the parent reports it for this one file
            payload, ok = ImportFailure(msg("import.unexpected", error=str(e)), "error"), False
        try:
            pickle.dump((req_id, ok, payload), answers, protocol=pickle.HIGHEST_PROTOCOL)
            answers.flush()
        except OSError:
            os._exit(0)


_WORKER_MAIN = "from paperpilot.core.extract.worker_processes import worker_main; worker_main()"


def _worker_command() -> list[str]:
    """How a worker is started: its parent pid is ``sys.argv[1]``.

    A worker imports what this process imports, so it is given this process's ``sys.path``
    rather than building its own. Then it can skip ``site`` (-S: the .pth files were read here
    already) and the environment (-I), about two thirds of an empty interpreter's start-up
    (perf stat: 11.2 -> 7.7 ms CPU). That needs the modules on the plain path: an install whose
    .pth adds an import hook instead (some editable installs) keeps the ordinary start.
    UTF-8 mode is an environment setting: passed on.
    """
    pid = str(os.getpid())
    if all(importlib.machinery.PathFinder.find_spec(m, sys.path) is not None for m in ("paperpilot", "pypdfium2")):
        utf8 = ["-X", "utf8"] if sys.flags.utf8_mode else []
        return [sys.executable, "-I", "-S", *utf8, "-c", f"import sys; sys.path[:] = sys.argv[2:]; {_WORKER_MAIN}",
                pid, *sys.path]  # fmt: skip
    return [sys.executable, "-c", _WORKER_MAIN, pid]


class _Worker:
    def __init__(self, on_exit: Callable[[_Worker], None]) -> None:
        self.pending: deque[tuple[int, Future[Any], _Request]] = deque()
        self.lock = threading.Lock()
        self.on_exit = on_exit
        self.proc = subprocess.Popen(
            _worker_command(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            close_fds=True,
        )  # fmt: skip
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.stdin: IO[bytes] = self.proc.stdin
        self.reader = threading.Thread(target=self._read, args=(self.proc.stdout,), name="extract-reader", daemon=True)
        self.reader.start()

    def send(self, req_id: int, future: Future[Any], request: _Request) -> bool:
        with self.lock:
            self.pending.append((req_id, future, request))
        try:
            pickle.dump((req_id, *request), self.stdin, protocol=pickle.HIGHEST_PROTOCOL)
            self.stdin.flush()
        except (OSError, ValueError):  # the child is gone; its reader thread reports it
            return False
        return True

    def _read(self, out: IO[bytes]) -> None:
        while True:
            try:
                req_id, ok, payload = pickle.load(out)
            except Exception:  # EOF or a torn message: the child ended or crashed
                break
            with self.lock:
                entry = self.pending.popleft() if self.pending else None
            if entry is None or entry[0] != req_id:  # cannot happen with one pipe per child
                break
            future = entry[1]
            if ok:
                future.set_result(payload)
            else:
                future.set_exception(payload)
        self.on_exit(self)

    def take_pending(self) -> list[tuple[int, Future[Any], _Request]]:
        with self.lock:
            items = list(self.pending)
            self.pending.clear()
        return items

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.stdin.close()

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.close()

    def reap(self, timeout: float) -> None:
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.reader.join(timeout)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


class ExtractionPool:
    """A few worker processes extracting PDFs; ``submit`` returns a Future of ``Extracted``.

    A future fails with the file's ``ImportFailure``, or with ``WorkerCrashed``. Files queued
    behind a file that crashed its worker go to a fresh worker, started by the owner thread in
    ``maintain`` (a child started from a reader thread would get its death signal as soon as
    that thread ended). Only the thread that created the pool may call its methods.
    """

    def __init__(self, workers: int) -> None:
        self.size = workers
        self._lock = threading.Lock()
        self._closed = False
        self._size = workers
        self._restarts = 0
        self._next_id = 0
        self._workers: list[_Worker] = []
        self._dead: list[_Worker] = []
        self._orphans: list[tuple[Future[Any], _Request]] = []
        for _ in range(workers):
            self._workers.append(_Worker(self._on_worker_exit))

    @staticmethod
    def available() -> bool:
        # A frozen application has no ``python -c`` to start.
        return not getattr(sys, "frozen", False)

    def submit(self, path: str, ocr: bool = False, ocr_off: bool = False) -> Future[Extracted | PdfScan]:
        """Extract the PDF at ``path``; with ``ocr``, a PDF with pages that need OCR comes back
        as a ``PdfScan`` (its text layer read) for ``submit_ocr`` and ``finish_pdf``.
        ``ocr_off``: OCR is off in the settings (said in the failure of a scanned PDF)."""
        future: Future[Extracted | PdfScan] = Future()
        self.maintain()
        self._dispatch(future, ("extract", (path, ocr, ocr_off)))
        return future

    def submit_ocr(self, path: str, index: int) -> Future[list[OcrLine]]:
        """Read page ``index`` (0-based) of the PDF at ``path`` by OCR."""
        future: Future[list[OcrLine]] = Future()
        self.maintain()
        self._dispatch(future, ("ocr", (path, index)))
        return future

    def _dispatch(self, future: Future[Any], request: _Request) -> None:
        with self._lock:
            if self._closed or not self._workers:
                future.set_exception(WorkerCrashed("no extraction worker is running", culprit=False))
                return
            self._next_id += 1
            req_id = self._next_id
            worker = min(self._workers, key=lambda w: len(w.pending))
        worker.send(req_id, future, request)

    def _on_worker_exit(self, worker: _Worker) -> None:
        """Runs in the reader thread of a worker whose pipe closed: park its queued files."""
        pending = worker.take_pending()
        with self._lock:
            if worker in self._workers:
                self._workers.remove(worker)
            self._dead.append(worker)
            closed = self._closed
            if not closed:
                self._orphans.extend((future, path) for _id, future, path in pending[1:])
        if closed:
            for _id, future, _path in pending:
                future.cancel()
        elif pending:
            # The first request is the one it was working on when it died.
            pending[0][1].set_exception(WorkerCrashed("the text extractor crashed on this file", culprit=True))

    def maintain(self) -> None:
        """Replace crashed workers and re-send the files they had queued (owner thread only)."""
        with self._lock:
            if self._closed:
                return
            missing = self._size - len(self._workers)
            orphans, self._orphans = self._orphans, []
        for _ in range(missing):
            if self._restarts >= MAX_RESTARTS:
                break
            self._restarts += 1
            try:
                fresh = _Worker(self._on_worker_exit)
            except OSError:
                break
            with self._lock:
                self._workers.append(fresh)
        for future, path in orphans:
            self._dispatch(future, path)

    def close(self, timeout: float = 2.0) -> None:
        """End every worker (they exit when their pipe closes) and wait for them."""
        with self._lock:
            self._closed = True
            workers = list(self._workers)
            orphans, self._orphans = self._orphans, []
        for future, _path in orphans:
            future.cancel()
        for w in workers:
            w.close()
        deadline = time.monotonic() + timeout
        for w in workers:
            w.reap(max(0.1, deadline - time.monotonic()))
        with self._lock:
            dead = [w for w in self._dead if w not in workers]
            self._dead.clear()
        for w in dead:
            w.reap(timeout)

    def kill(self) -> None:
        """End every worker at once (cancel: an OCR page takes seconds), then close the pool."""
        with self._lock:
            self._closed = True  # the reader threads then cancel what the workers had queued
            workers = list(self._workers)
        for w in workers:
            w.kill()
        self.close()

    def pids(self) -> list[int]:
        with self._lock:
            return [w.proc.pid for w in self._workers]
