"""The undo stack: the last removals, tag edits, collection changes and metadata edits of a
session, each with the step that puts it back (Ctrl+Z in the window)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

MAX_STEPS = 50


@dataclass
class UndoStep:
    label: str  # what is undone, for the menu and the status bar ("Remove 2 documents")
    revert: Callable[[], None]


class UndoStack:
    """Thread-safe (the GUI records from workers); ``undo`` runs the revert in the caller's thread."""

    def __init__(self, limit: int = MAX_STEPS) -> None:
        self._steps: list[UndoStep] = []
        self._limit = limit
        self._lock = threading.Lock()

    def push(self, label: str, revert: Callable[[], None]) -> None:
        with self._lock:
            self._steps.append(UndoStep(label, revert))
            del self._steps[: -self._limit]

    def label(self) -> str:
        """What ``undo`` would undo ("" when nothing)."""
        with self._lock:
            return self._steps[-1].label if self._steps else ""

    def __len__(self) -> int:
        with self._lock:
            return len(self._steps)

    def undo(self) -> str:
        """Revert the last step; its label, or "" when there was none. A revert that fails stays
        on the stack (try again once the library is free), and its error propagates."""
        with self._lock:
            if not self._steps:
                return ""
            step = self._steps[-1]
        step.revert()
        with self._lock:
            if self._steps and self._steps[-1] is step:
                self._steps.pop()
        return step.label
