"""PDFium calls: the one lock around them, and functions called without ctypes' argument checks.

PDFium is not thread-safe and keeps global state (including its last-error code): every call
into it, from the importer, the OCR renderer or the span locator, holds ``PDFIUM_LOCK``.

The page reader (``extract.pdf``) and the front page's glyph reader (``metadata.glyphs``) call
a few PDFium functions for every line or character. pypdfium2 declares typed pointers for
them, and ctypes then checks and converts every argument on every call, which costs more than
the call itself.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

# One lock for the whole process: PDFium keeps global state (including its last-error code).
PDFIUM_LOCK = threading.Lock()


def without_argtypes(func: Any, restype: Any) -> Any | None:
    """The same PDFium function with no declared argument types, or None on any surprise.

    Same address, same calling convention (the function class is reused); the callers pass
    what the C signature takes as it is: ``c_void_p`` for the text page, ``byref`` for
    out-parameters, Python ints for C ints. On None they keep the original function (then the
    same arguments are checked and converted as usual).
    """
    try:
        lean = type(func)(ctypes.cast(func, ctypes.c_void_p).value)
        lean.restype = restype
        return lean if lean.argtypes is None else None
    except Exception:
        return None


def keeping_gil(func: Any, restype: Any) -> Any | None:
    """``without_argtypes``, and called without letting go of the GIL (as ``ctypes.PyDLL``'s
    functions are), or None on any surprise (then the caller takes ``without_argtypes``).

    For the calls made per line or per glyph: PDFium answers them in less time than releasing
    and taking back the GIL costs, and calls no Python. Callers hold ``PDFIUM_LOCK`` anyway.
    """
    try:
        base = type(func)
        lean_type = type("_KeepingGil", (base,), {"_flags_": base._flags_ | ctypes.PYFUNCTYPE(restype)._flags_,
                                                  "_restype_": restype})  # fmt: skip
        lean = lean_type(ctypes.cast(func, ctypes.c_void_p).value)
        return lean if lean.argtypes is None and lean.restype is restype else None
    except Exception:
        return None


def address_arg(ptr: Any) -> Any:
    """The address ``ptr`` holds as a ready-made argument for these functions.

    A ``c_void_p`` argument is converted into such an argument object on every call (its
    format looked up in ctypes' table, a new object made); ``from_param`` does that once, and
    ctypes passes the object it returns as it is.
    """
    return ctypes.c_void_p.from_param(ctypes.cast(ptr, ctypes.c_void_p).value)
