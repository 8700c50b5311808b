"""Work-arounds for bugs in the Qt bindings we ship with, applied before any Qt call."""

from __future__ import annotations

import sys

import shiboken6
from PySide6.QtCore import QMimeData


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


def new_mime_data() -> QMimeData:
    """A QMimeData for the clipboard that Qt, not Python, constructed.

    A QMimeData constructed from Python and handed to the clipboard outlives the interpreter:
    Qt frees it in its exit handlers, its Python wrapper's destructor then calls into a
    finalized interpreter and the process dies with a segfault on quit (PySide6 6.11 and 6.12,
    reproduced here). One made by Qt itself has no wrapper destructor, so quitting is clean.
    """
    from PySide6.QtWidgets import QTextEdit

    class _Factory(QTextEdit):
        def make(self) -> QMimeData:
            # An empty selection: Qt returns a new, empty QMimeData of its own.
            return self.createMimeDataFromSelection()

    factory = _Factory()
    try:
        mime = factory.make()
        mime.clear()
        return mime
    finally:
        shiboken6.delete(factory)
