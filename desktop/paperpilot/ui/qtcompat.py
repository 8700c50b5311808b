"""Work-arounds for bugs in the Qt bindings we ship with, applied before any Qt call."""

from __future__ import annotations

import sys


def guard_singleton_refcounts() -> None:
    """Make None/True/False immortal on Python < 3.12, as 3.12+ does (PEP 683).

    PySide6 6.12's wheels return these singletons without taking a reference (every void Qt
    call, every ``Signal.emit``), which on 3.11 counts them down to zero and aborts the process
    ("deallocating None") after a few thousand calls. A huge refcount makes that unreachable.
    """
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return
    import ctypes

    for obj in (None, True, False, NotImplemented, Ellipsis):
        ref = ctypes.c_ssize_t.from_address(id(obj))
        if ref.value < 1 << 40:
            ref.value += 1 << 40
