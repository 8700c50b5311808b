"""The conversation list beside the chat: search, new, rename, delete and export saved conversations.

The pane reads and edits the ``ConversationStore`` directly (small, fast SQLite writes) and
tells the main window what the user chose through signals; restoring a conversation into
the chat and the inspector, and exporting it, is the main window's job.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..core.api import ConversationError, ConversationStore, has_cjk
from .i18n import tr

ID_ROLE = Qt.ItemDataRole.UserRole
TITLE_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_DELAY_MS = 200


def _when(updated: Any) -> str:
    """A short date for the list: the time today, the date otherwise."""
    try:
        if hasattr(updated, "timestamp"):
            ts = float(updated.timestamp())
        elif isinstance(updated, str):
            from datetime import datetime

            ts = datetime.fromisoformat(updated).timestamp()
        else:
            ts = float(updated)
    except (TypeError, ValueError, OverflowError):
        return str(updated or "")
    t = time.localtime(ts)
    if time.strftime("%Y%m%d", t) == time.strftime("%Y%m%d"):
        return time.strftime("%H:%M", t)
    return time.strftime("%Y-%m-%d", t)


class RowDelegate(QStyledItemDelegate):
    """Rows as tall as their wrapped text really is. Qt measures a row with the list's font,
    but Chinese glyphs come from a fallback font with taller lines, so a wrapped Chinese title
    lost its last line (the turn count and time) to an ellipsis."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:  # Qt override
        hint = super().sizeHint(option, index)
        text = str(index.data() or "")
        if not has_cjk(text):
            return hint
        fm = option.fontMetrics
        lines = max(1, round(hint.height() / max(1, fm.lineSpacing())))
        return QSize(hint.width(), hint.height() + max(2, fm.lineSpacing() // 4) * lines)


class ConversationsPane(QWidget):
    conversation_selected = Signal(object)  # conversation id
    new_requested = Signal()
    export_requested = Signal(object)  # conversation id
    deleted = Signal(object)  # conversation id

    def __init__(self, store: ConversationStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversationsPane")
        self.store = store
        self._current: Any = None

        self.title_label = QLabel(tr("Conversations"), self)
        font = self.title_label.font()
        font.setBold(True)
        self.title_label.setFont(font)
        self.new_button = QToolButton(self)
        self.new_button.setObjectName("newConversationButton")
        self.new_button.setText("+")
        self.new_button.setToolTip(tr("New conversation") + " (Ctrl+N)")
        self.new_button.setAutoRaise(True)

        self.search_edit = QLineEdit(self)
        self.search_edit.setObjectName("conversationSearch")
        self.search_edit.setPlaceholderText(tr("Search conversations…"))
        self.search_edit.setClearButtonEnabled(True)

        self.list = QListWidget(self)
        self.list.setObjectName("conversationList")
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setWordWrap(True)
        # Rows are measured again when the pane's width changes: a title that wraps onto more
        # lines in a narrower pane keeps its last line (the turn count and time) in view.
        self.list.setResizeMode(QListView.ResizeMode.Adjust)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.setItemDelegate(RowDelegate(self.list))
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.list.setSpacing(1)
        self.empty_label = QLabel(tr("No conversations yet. Ask a question to start one."), self)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)

        self.rename_button = self._tool(tr("Rename"), "renameConversationButton")
        self.delete_button = self._tool(tr("Delete"), "deleteConversationButton")
        self.export_button = self._tool(tr("Export…"), "exportConversationButton")
        self.export_button.setToolTip(tr("Export as Markdown…"))
        for button, slot in (
            (self.rename_button, self.rename_current),
            (self.delete_button, self.delete_current),
            (self.export_button, self.on_export_button_clicked),
        ):
            button.clicked.connect(slot)
            # The same actions on the list's context menu.
            act = QAction(button.text(), self.list)
            act.triggered.connect(slot)
            self.list.addAction(act)

        head = QHBoxLayout()
        head.setContentsMargins(2, 0, 0, 0)
        head.addWidget(self.title_label, 1)
        head.addWidget(self.new_button)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.setSpacing(2)
        for b in (self.rename_button, self.delete_button, self.export_button):
            buttons.addWidget(b)
        buttons.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 6)
        layout.setSpacing(4)
        layout.addLayout(head)
        layout.addWidget(self.search_edit)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.empty_label, 1)
        layout.addLayout(buttons)

        # Typing filters after a short pause, so each key press is not a database query.
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.refresh)
        self.search_edit.textChanged.connect(self.on_search_edit_text_changed)
        self.new_button.clicked.connect(self.on_new_button_clicked)
        self.list.itemClicked.connect(self.on_list_item_activated)
        self.list.itemActivated.connect(self.on_list_item_activated)
        self.list.currentItemChanged.connect(self.on_list_current_item_changed)
        self.refresh()

    def _tool(self, text: str, name: str) -> QToolButton:
        b = QToolButton(self)
        b.setObjectName(name)
        b.setText(text)
        b.setAutoRaise(True)
        return b

    def sizeHint(self) -> QSize:  # Qt override
        return QSize(200, 400)

    # --- public API ---------------------------------------------------------------------------------

    def current_id(self) -> Any:
        return self._current

    def set_current(self, conv_id: Any) -> None:
        """Mark ``conv_id`` as the open conversation (None: a new one not saved yet)."""
        self._current = conv_id
        self.list.blockSignals(True)
        try:
            self.list.setCurrentRow(-1)
            for row in range(self.list.count()):
                item = self.list.item(row)
                if item.data(ID_ROLE) == conv_id:
                    self.list.setCurrentItem(item)
                    break
        finally:
            self.list.blockSignals(False)
        self._update_buttons()

    def ids(self) -> list[Any]:
        return [self.list.item(r).data(ID_ROLE) for r in range(self.list.count())]

    def titles(self) -> list[str]:
        return [str(self.list.item(r).data(TITLE_ROLE)) for r in range(self.list.count())]

    @Slot()
    def refresh(self) -> None:
        query = self.search_edit.text().strip() or None
        summaries = self.store.list(query)
        self.list.blockSignals(True)
        try:
            self.list.clear()
            for s in summaries:
                turns = tr("{n} turn(s)").format(n=s.turns)
                item = QListWidgetItem(f"{s.title or tr('Untitled conversation')}\n{turns} · {_when(s.updated)}")
                item.setData(ID_ROLE, s.id)
                item.setData(TITLE_ROLE, s.title)
                item.setToolTip(s.title)
                self.list.addItem(item)
                if s.id == self._current:
                    self.list.setCurrentItem(item)
        finally:
            self.list.blockSignals(False)
        empty = self.list.count() == 0
        self.list.setVisible(not empty)
        self.empty_label.setVisible(empty)
        self.empty_label.setText(
            tr("No conversation matches.") if query else tr("No conversations yet. Ask a question to start one.")
        )
        self._update_buttons()

    def select(self, conv_id: Any) -> None:
        """Select ``conv_id`` as if the user clicked it (restores it)."""
        self._current = conv_id
        self.set_current(conv_id)
        self.conversation_selected.emit(conv_id)

    def rename(self, conv_id: Any, title: str) -> None:
        title = " ".join(title.split())
        if not title:
            return
        try:
            self.store.rename(conv_id, title)
        except ConversationError as e:
            QMessageBox.warning(self, tr("Rename conversation"), str(e))
        self.refresh()

    def delete(self, conv_id: Any) -> None:
        with contextlib.suppress(ConversationError):  # already gone: the list just catches up
            self.store.delete(conv_id)
        if conv_id == self._current:
            self._current = None
        self.refresh()
        self.deleted.emit(conv_id)

    # --- slots ------------------------------------------------------------------------------------

    @Slot(str)
    def on_search_edit_text_changed(self, _text: str) -> None:
        self._search_timer.start()

    @Slot()
    def on_new_button_clicked(self) -> None:
        self.new_requested.emit()

    @Slot(QListWidgetItem)
    def on_list_item_activated(self, item: QListWidgetItem) -> None:
        conv_id = item.data(ID_ROLE)
        if conv_id != self._current:
            self.select(conv_id)

    @Slot(QListWidgetItem, QListWidgetItem)
    def on_list_current_item_changed(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        # Keyboard navigation opens the conversation too; clicks arrive here first.
        if current is not None and current.data(ID_ROLE) != self._current:
            self.select(current.data(ID_ROLE))
        self._update_buttons()

    @Slot()
    def rename_current(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        title, ok = QInputDialog.getText(
            self, tr("Rename conversation"), tr("Title:"), QLineEdit.EchoMode.Normal, str(item.data(TITLE_ROLE))
        )
        if ok:
            self.rename(item.data(ID_ROLE), title)

    @Slot()
    def delete_current(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        answer = QMessageBox.question(
            self,
            tr("Delete conversation"),
            tr("Delete “{title}” and its answers? This cannot be undone.").format(title=item.data(TITLE_ROLE)),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.delete(item.data(ID_ROLE))

    @Slot()
    def on_export_button_clicked(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.export_requested.emit(item.data(ID_ROLE))

    def _update_buttons(self) -> None:
        has = self.list.currentItem() is not None
        for b in (self.rename_button, self.delete_button, self.export_button):
            b.setEnabled(has)
