"""Keyboard use: a filter box that hands the arrow keys to its results, and the shortcut list
that Help ▸ Keyboard Shortcuts shows, read from the window's own actions so it cannot drift."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLineEdit,
    QMenu,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .i18n import tr


class FilterKeys(QObject):
    """On a filter box: Esc clears it, ↓/↑/Page Down move into the results, Enter opens the
    current (or first) result. ``view`` is the list or table the filter narrows."""

    def __init__(self, edit: QLineEdit, view: QAbstractItemView, open_current: Callable[[], None]) -> None:
        super().__init__(edit)
        self.edit = edit
        self.view = view
        self.open_current = open_current
        edit.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt override
        if obj is not self.edit or not isinstance(event, QKeyEvent):
            return False
        key = event.key()
        if event.type() == QEvent.Type.ShortcutOverride:
            # Esc with text clears the box first; an Esc shortcut around it (closing the
            # drawer) only gets an empty box's Esc.
            if key == Qt.Key.Key_Escape and self.edit.text():
                event.accept()
                return True
            return False
        if event.type() != QEvent.Type.KeyPress:
            return False
        if key == Qt.Key.Key_Escape and self.edit.text():
            self.edit.clear()
            return True
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown):
            self.enter_results()
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.enter_results():
            self.open_current()
            return True
        return False

    def enter_results(self) -> bool:
        """Focus the results with a row selected (the first when none was); False when empty."""
        model = self.view.model()
        if model is None or model.rowCount() == 0:
            return False
        current = self.view.currentIndex()
        if not current.isValid() or (sel := self.view.selectionModel()) is None or not sel.isSelected(current):
            first = model.index(0, 0)
            self.view.setCurrentIndex(first)
        self.view.setFocus(Qt.FocusReason.TabFocusReason)
        return True


class FindKeys(QObject):
    """On a find box: Esc clears it and the search (a second Esc hands focus back to what is
    searched), Shift+Enter finds the previous match."""

    def __init__(
        self, edit: QLineEdit, clear_search: Callable[[], None], leave: Callable[[], None],
        previous: Callable[[], None],
    ) -> None:
        super().__init__(edit)
        self.edit = edit
        self.clear_search = clear_search
        self.leave = leave
        self.previous = previous
        edit.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt override
        if obj is not self.edit or event.type() not in (QEvent.Type.KeyPress, QEvent.Type.ShortcutOverride):
            return False
        if not isinstance(event, QKeyEvent):
            return False
        key = event.key()
        if key == Qt.Key.Key_Escape:
            # Claimed before any Esc shortcut of the window (Stop) sees it.
            if event.type() == QEvent.Type.ShortcutOverride:
                event.accept()
                return True
            if self.edit.text():
                self.edit.clear()
                self.clear_search()
            else:
                self.leave()
            return True
        shift = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and shift and event.type() == QEvent.Type.KeyPress:
            self.previous()
            return True
        return False


@dataclass(frozen=True)
class ShortcutEntry:
    group: str  # the menu (or pane) it belongs to
    name: str  # what it does, as the menu says it, without the & marks
    keys: str  # in the platform's notation (Ctrl+O, ⌘O …)


_MNEMONIC_SUFFIX = re.compile(r"\(&\w\)")  # "文件(&F)": the Chinese way of marking the key


def _plain(text: str) -> str:
    text = _MNEMONIC_SUFFIX.sub("", text)
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&").replace("…", "").strip()


def _keys(sequences: list[QKeySequence]) -> str:
    # Return and Enter read the same in some languages (回车): each name once.
    names = [s.toString(QKeySequence.SequenceFormat.NativeText) for s in sequences if not s.isEmpty()]
    return ", ".join(dict.fromkeys(names))


def _action_name(action: QAction) -> str:
    """What an action does: its text, or its tooltip when the text is only a sign (+, −)."""
    text = _plain(action.text())
    if not any(ch.isalnum() for ch in text):
        return _plain(action.toolTip()) or text
    return text


def _menu_entries(menu: QMenu, group: str, out: list[ShortcutEntry], seen: set[int]) -> None:
    for action in menu.actions():
        sub = action.menu()
        if isinstance(sub, QMenu):
            _menu_entries(sub, f"{group} ▸ {_plain(sub.title())}", out, seen)
            continue
        seen.add(id(action))
        keys = _keys(action.shortcuts())
        if keys and not action.isSeparator():
            out.append(ShortcutEntry(group, _action_name(action), keys))


# Keys that work inside a pane without a menu entry; named per the object that owns them.
PANE_NAMES = {
    "conversationsPane": "Conversations",
    "libraryTable": "Library",
    "chatPane": "Chat",
    "documentViewer": "Document",
}


def _pane_of(obj: QObject) -> str:
    node: QObject | None = obj
    while node is not None:
        name = PANE_NAMES.get(node.objectName())
        if name:
            return tr(name)
        node = node.parent()
    return tr("Other")


def collect_shortcuts(window: QWidget) -> list[ShortcutEntry]:
    """Every key the window answers to: its menus in order, then pane keys (actions and
    QShortcuts with a key, outside the menus), each named as on screen."""
    out: list[ShortcutEntry] = []
    seen: set[int] = set()
    menu_bar = getattr(window, "menuBar", None)
    if callable(menu_bar):
        for action in menu_bar().actions():
            menu = action.menu()
            if isinstance(menu, QMenu):
                _menu_entries(menu, _plain(menu.title()), out, seen)
    pane: dict[tuple[str, str], ShortcutEntry] = {}
    for action in window.findChildren(QAction):
        if id(action) in seen or action.menu() is not None:
            continue
        keys = _keys(action.shortcuts())
        name = _action_name(action)
        if keys and name:
            entry = ShortcutEntry(_pane_of(action), name, keys)
            pane.setdefault((entry.group, entry.name), entry)
    for shortcut in window.findChildren(QShortcut):
        keys = _keys([shortcut.key()])
        name = shortcut.property("description") or shortcut.whatsThis()
        if keys and name:
            entry = ShortcutEntry(_pane_of(shortcut), str(name), keys)
            pane.setdefault((entry.group, entry.name), entry)
    out.extend(sorted(pane.values(), key=lambda e: (e.group, e.name)))
    # Keys Qt's widgets answer to themselves, named here so the list is whole.
    out.extend(
        [
            ShortcutEntry(tr("Filter boxes"), tr("Clear the filter"), "Esc"),
            ShortcutEntry(tr("Filter boxes"), tr("Move into the results"), "↓"),
            ShortcutEntry(tr("Filter boxes"), tr("Open the first result"), "Enter"),
            ShortcutEntry(tr("Find in document"), tr("Next match"), "Enter"),
            ShortcutEntry(tr("Find in document"), tr("Previous match"), "Shift+Enter"),
            ShortcutEntry(tr("Find in document"), tr("Clear the search (again: back to the page)"), "Esc"),
            ShortcutEntry(tr("Dialogs and menus"), tr("Close"), "Esc"),
            ShortcutEntry(tr("Everywhere"), tr("Next / previous control"), "Tab, Shift+Tab"),
        ]
    )
    return out


class ShortcutsDialog(QDialog):
    """Help ▸ Keyboard Shortcuts: the list above, grouped by menu and pane."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle(tr("Keyboard Shortcuts"))
        self.entries = collect_shortcuts(window)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("shortcutsTree")
        self.tree.setColumnCount(2)
        self.tree.setHeaderLabels([tr("Command"), tr("Keys")])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        groups: dict[str, QTreeWidgetItem] = {}
        for entry in self.entries:
            parent = groups.get(entry.group)
            if parent is None:
                parent = QTreeWidgetItem(self.tree, [entry.group, ""])
                font = parent.font(0)
                font.setBold(True)
                parent.setFont(0, font)
                parent.setFirstColumnSpanned(True)
                groups[entry.group] = parent
            QTreeWidgetItem(parent, [entry.name, entry.keys])
        self.tree.expandAll()
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tree)
        layout.addWidget(buttons)
        self.resize(560, 640)
