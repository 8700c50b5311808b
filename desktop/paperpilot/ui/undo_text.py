"""What Edit ▸ Undo names, in the interface language ("Undo Remove 3 documents", "撤销：移除 3 篇文献").

The undo journal (core/library/undo.py) keeps each entry's English label and says it, and what
an undo did or why it could not, as catalogued messages; the window renders those here.
"""

from __future__ import annotations

from ..core.api import Message, UndoEntry
from .i18n import language, said


def undo_text(entry: UndoEntry) -> str:
    """The change ``entry`` undoes, as the Edit menu names it."""
    if language() != "zh":
        return entry.label
    return shown(entry.said())


def shown(line: Message | str) -> str:
    """A line of the journal's (a label, what an undo did) in the interface language; an
    entry another version wrote keeps its own words."""
    return said(line) if isinstance(line, Message) else line
