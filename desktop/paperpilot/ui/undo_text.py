"""What Edit ▸ Undo names, in the interface language ("Undo Remove 3 documents", "撤销：移除 3 篇文献").

The undo journal (core/library/undo.py) keeps each entry's English label and, beside it, its
action, document count and name, so that the window can say the same thing in Chinese.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..core.api import UndoAction as Action
from ..core.api import UndoEntry
from .core_text import render_first
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


# What core says when an undo cannot be done, or was done only in part (core/library/undo.py):
# "Cannot undo “<label>”: <reason>." and "<label> (<note>)". The label is said again as
# undo_text says it; the document numbers and collection names inside are kept as written.
_CANNOT = re.compile(r"^Cannot undo “.*”(?P<yet> yet)?: (?P<reason>.*?)\.?$", re.DOTALL)
_DONE_IN_PART = re.compile(r"^(?P<label>.*) \((?P<note>[^()]*)\)$", re.DOTALL)
_IDS = r"(?P<ids>#\d+(?:, #\d+)*(?: and (?P<more>\d+) more)?)"
_REASONS_ZH: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (
        re.compile(rf"^documents? {_IDS} (?:was|were) deleted from the trash for good since$"),
        lambda m: f"文献 {_ids_zh(m)} 此后已从回收站中永久删除",
    ),
    (re.compile(rf"^documents? {_IDS} (?:was|were) deleted for good since$"), lambda m: f"文献 {_ids_zh(m)} 此后已被永久删除"),
    (re.compile(r"^the collection (?P<path>.*) was deleted since$"), lambda m: f"文献集“{m['path']}”此后已被删除"),
    (
        re.compile(r"^document (?P<ids>#\d+) is in the trash; restore it first$"),
        lambda m: f"文献 {m['ids']} 在回收站中；请先恢复它",
    ),
    (re.compile(r"^already restored$"), lambda m: "已经恢复"),
]
_OTHER_VERSION = re.compile(
    r"^The last change \((?P<label>.*)\) was recorded by another PaperPilot version and cannot be undone here\.$"
)


def _ids_zh(m: re.Match[str]) -> str:
    ids = m["ids"]
    if m["more"]:
        ids = ids.replace(f" and {m['more']} more", f" 等（另有 {m['more']} 篇）")
    return ids.replace(", ", "、")


def _reason_zh(reason: str) -> str | None:
    return render_first(_REASONS_ZH, reason)


def undo_message(text: str, what: str) -> str:
    """Core's line about an undo (why it cannot be done, or what was only partly undone) in
    the interface language; ``what`` is the change as undo_text names it. A line of another
    shape stays as core wrote it."""
    if language() != "zh":
        return text
    m = _CANNOT.match(text)
    if m:
        reason = _reason_zh(m["reason"])
        if reason is not None:
            return f"{'暂时' if m['yet'] else ''}无法撤销“{what}”：{reason}。"
        return text
    m = _OTHER_VERSION.match(text)
    if m:
        return f"上一次更改（{m['label']}）由另一版本的 PaperPilot 记录，无法在此撤销。"
    m = _DONE_IN_PART.match(text)
    if m:
        note = _reason_zh(m["note"])
        if note is not None:
            return f"{what}（{note}）"
    return text
