"""One exception hierarchy: every error PaperPilot raises on purpose derives from PaperPilotError.

``str(error)`` is one plain sentence that is safe to show as it is: no API key, no traceback,
no pydantic text. The kinds below say what happened in terms a front end can act on (the CLI
picks an exit status and prints the sentence; the GUI picks a dialog title); the modules'
own classes (``LibraryReadOnly``, ``LLMError``, ``KeyStoreError`` …) derive from a kind and
keep their messages.

The library's errors are defined here rather than in ``core.library`` because the agent
reports a failed read without importing the library (it sees a document pool).
"""

from __future__ import annotations

from typing import Self

from .text.messages import Message


class PaperPilotError(Exception):
    """Base class; the message is a sentence for the user. ``msg``, when set, is the same as a
    catalogued message that a window renders in its own language."""

    msg: Message | None = None

    @classmethod
    def said(cls, message: Message) -> Self:
        """The error whose sentence is ``message`` (in its language), keeping its code."""
        error = cls(message.text())
        error.msg = message
        return error


class NotFound(PaperPilotError):
    """No such document, segment, conversation …"""


class Busy(PaperPilotError):
    """Another process holds what is needed (the library's writer lock) for too long."""


class InvalidInput(PaperPilotError, ValueError):
    """A value the user gave cannot be used (a ValueError too, for callers that catch those)."""


class ImportFailed(PaperPilotError):
    """A file could not be imported."""


class ModelUnreachable(PaperPilotError):
    """The language model could not be used: no server, a refusal, a reply that is no answer."""


class ReadOnly(PaperPilotError):
    """A folder PaperPilot must write to cannot be written."""


class DiskFull(PaperPilotError):
    """The disk is full; nothing already stored was lost."""


class Damaged(PaperPilotError):
    """Stored data cannot be read as it is (a damaged database or index) and needs a repair."""


class Cancelled(PaperPilotError):
    """The user stopped the operation."""


# --- the library's errors ---------------------------------------------------------------------


class LibraryBusy(Busy):
    """Another process holds the library's writer lock for longer than we are willing to wait."""


class LibraryError(PaperPilotError):
    """A user-facing library error (unknown document, unusable database …)."""


class DocumentNotFound(LibraryError, NotFound):
    """No ready document has that id (or that segment)."""


class LibraryReadOnly(LibraryError, ReadOnly):
    """The library folder cannot be written: it can be listed and searched, not changed."""


class LibraryFull(LibraryError, DiskFull):
    """The disk holding the library is full."""


class LibraryDamaged(LibraryError, Damaged):
    """The library database is missing or damaged; the stored copies are kept for a rebuild."""
