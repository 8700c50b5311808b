"""What Edit ▸ Undo names, in the interface language ("Undo Remove 3 documents", "撤销：移除 3 篇文献").

The undo journal (core/library/undo.py) keeps each entry's English label and, beside it, its
action, document count and name, so that the window can say the same thing in Chinese.
"""

from __future__ import annotations

from ..core.library.undo import Action, UndoEntry
from .i18n import language


def undo_text(entry: UndoEntry) -> str:
    if language() != "zh":
        return entry.label
    n, name = entry.n, entry.name
    if entry.action is Action.RESTORE:
        return f"移除 {n} 篇文献"
    if entry.action is Action.SET_TAGS:
        return f"更改 {n} 篇文献的标签"
    if entry.action is Action.UNFILE:
        return f"将 {n} 篇文献加入“{name}”"
    if entry.action is Action.FILE:
        return f"将 {n} 篇文献移出“{name}”"
    if entry.action is Action.RECREATE:
        return f"删除文献集“{name}”"
    if entry.action is Action.RENAME:
        return f"重命名文献集“{name}”"
    return f"编辑“{name}”的元数据" if name else "编辑元数据"
