"""The tree beside the library table: All documents, Recently added, Unfiled, the Trash, the
collections (nested; documents are dragged onto them) and the tags (a click filters by one).

It only shows and reports: the library pane makes the changes (in workers) and refills it.
"""

from __future__ import annotations

import functools
import json

from PySide6.QtCore import QPoint, Qt, Signal, Slot
from PySide6.QtGui import QBrush, QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QAbstractItemView, QMenu, QTreeWidget, QTreeWidgetItem, QWidget

from ..core.api import Collection, CollectionTree
from .i18n import tr
from .library_model import DOC_IDS_MIME

# What an item stands for: (kind, value). Kinds: all, recent, unfiled, trash, collection (value:
# its path), tag (value: the tag), and the two headings (not selectable).
KIND_ROLE = Qt.ItemDataRole.UserRole
VALUE_ROLE = Qt.ItemDataRole.UserRole + 1
ALL, RECENT, UNFILED, TRASH, COLLECTION, TAG, HEADING = "all", "recent", "unfiled", "trash", "collection", "tag", "heading"


class SourcesPane(QTreeWidget):
    source_selected = Signal(str, str)  # kind, value
    documents_dropped = Signal(str, list)  # collection path, doc ids
    new_collection_requested = Signal(str)  # the parent's path ("" for the top)
    rename_collection_requested = Signal(str)
    delete_collection_requested = Signal(str)
    empty_trash_requested = Signal()
    tag_color_requested = Signal(str, str)  # tag, colour name ("" for none)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sourcesPane")
        self.setHeaderHidden(True)
        self.setColumnCount(1)
        self.setRootIsDecorated(True)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAcceptDrops(True)
        self.setDropIndicatorShown(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.setMinimumWidth(110)
        self.setIndentation(12)
        self._current: tuple[str, str] = (ALL, "")
        self._filling = False
        self.currentItemChanged.connect(self.on_current_item_changed)
        self.customContextMenuRequested.connect(self.on_context_menu_requested)

    # --- filling --------------------------------------------------------------------------------

    def fill(
        self,
        tree: CollectionTree,
        tags: list[tuple[str, int]],
        colors: dict[str, str],
        counts: dict[str, int],
    ) -> None:
        """Rebuild the items (keeping the current one and which collections are open)."""
        expanded = {
            str(it.data(0, VALUE_ROLE)) for it in self._items() if it.data(0, KIND_ROLE) == COLLECTION and it.isExpanded()
        }
        self._filling = True
        try:
            self.clear()
            for kind, label in (
                (ALL, tr("All documents")),
                (RECENT, tr("Recently added")),
                (UNFILED, tr("Unfiled")),
                (TRASH, tr("Trash")),
            ):
                n = counts.get(kind)
                self.addTopLevelItem(self._item(kind, "", f"{label} ({n})" if n is not None else label))
            head = self._item(HEADING, COLLECTION, tr("Collections"))
            self.addTopLevelItem(head)

            def add(parent: QTreeWidgetItem, c: Collection) -> None:
                it = self._item(COLLECTION, c.path, f"{c.name} ({len(c.all_doc_ids())})")
                it.setFlags(it.flags() | Qt.ItemFlag.ItemIsDropEnabled)
                it.setToolTip(0, tr("{path}: drop documents here to add them").format(path=c.path))
                parent.addChild(it)
                for ch in c.children:
                    add(it, ch)
                it.setExpanded(c.path in expanded or not expanded)

            for root in tree.roots:
                add(head, root)
            head.setExpanded(True)
            tag_head = self._item(HEADING, TAG, tr("Tags"))
            self.addTopLevelItem(tag_head)
            lowered = {k.casefold(): v for k, v in colors.items()}
            for name, n in tags:
                it = self._item(TAG, name, f"{name} ({n})")
                color = lowered.get(name.casefold())
                if color:
                    it.setForeground(0, QBrush(QColor(color)))
                tag_head.addChild(it)
            tag_head.setExpanded(True)
        finally:
            self._filling = False
        self.select(*self._current, emit=False)

    def _item(self, kind: str, value: str, text: str) -> QTreeWidgetItem:
        it = QTreeWidgetItem([text])
        it.setData(0, KIND_ROLE, kind)
        it.setData(0, VALUE_ROLE, value)
        flags = Qt.ItemFlag.ItemIsEnabled
        if kind != HEADING:
            flags |= Qt.ItemFlag.ItemIsSelectable
        it.setFlags(flags)
        if kind == HEADING:
            font = it.font(0)
            font.setBold(True)
            it.setFont(0, font)
        return it

    def _items(self) -> list[QTreeWidgetItem]:
        out: list[QTreeWidgetItem] = []

        def walk(it: QTreeWidgetItem | None) -> None:
            if it is None:
                return
            out.append(it)
            for i in range(it.childCount()):
                walk(it.child(i))

        for i in range(self.topLevelItemCount()):
            walk(self.topLevelItem(i))
        return out

    def find_item(self, kind: str, value: str = "") -> QTreeWidgetItem | None:
        for it in self._items():
            if it.data(0, KIND_ROLE) == kind and (str(it.data(0, VALUE_ROLE)).casefold() == value.casefold()):
                return it
        return None

    def current(self) -> tuple[str, str]:
        return self._current

    def select(self, kind: str, value: str = "", *, emit: bool = True) -> None:
        """Make (kind, value) the current view; a collection or tag that is gone falls back to All."""
        it = self.find_item(kind, value) or self.find_item(ALL)
        if it is None:
            return
        new = (str(it.data(0, KIND_ROLE)), str(it.data(0, VALUE_ROLE)))
        if not emit:
            self._current = new
        was = self._filling
        self._filling = not emit
        try:
            self.setCurrentItem(it)
        finally:
            self._filling = was
        self._current = new

    @Slot(QTreeWidgetItem, QTreeWidgetItem)
    def on_current_item_changed(self, item: QTreeWidgetItem | None, _previous: QTreeWidgetItem | None) -> None:
        if item is None or item.data(0, KIND_ROLE) == HEADING:
            return
        new = (str(item.data(0, KIND_ROLE)), str(item.data(0, VALUE_ROLE)))
        if self._filling:
            return
        self._current = new
        self.source_selected.emit(*new)

    # --- dropping documents onto a collection -------------------------------------------------------

    def _target(self, pos: QPoint) -> QTreeWidgetItem | None:
        it = self.itemAt(pos)
        return it if it is not None and it.data(0, KIND_ROLE) == COLLECTION else None

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(DOC_IDS_MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(DOC_IDS_MIME) and self._target(event.position().toPoint()) is not None:
            event.acceptProposedAction()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        target = self._target(event.position().toPoint())
        ids = doc_ids_from(bytes(event.mimeData().data(DOC_IDS_MIME).data()))
        if target is None or not ids:
            event.ignore()
            return
        event.acceptProposedAction()
        self.documents_dropped.emit(str(target.data(0, VALUE_ROLE)), ids)

    # --- context menu ---------------------------------------------------------------------------------

    @Slot(QPoint)
    def on_context_menu_requested(self, pos: QPoint) -> None:
        menu = self.build_context_menu(self.itemAt(pos))
        if menu is not None:
            menu.exec(self.viewport().mapToGlobal(pos))
            menu.deleteLater()

    def build_context_menu(self, item: QTreeWidgetItem | None) -> QMenu | None:
        kind = str(item.data(0, KIND_ROLE)) if item is not None else ""
        value = str(item.data(0, VALUE_ROLE)) if item is not None else ""
        menu = QMenu(self)
        if kind == COLLECTION:
            menu.addAction(tr("New Sub-collection…"), lambda: self.new_collection_requested.emit(value))
            menu.addAction(tr("Rename…"), lambda: self.rename_collection_requested.emit(value))
            menu.addAction(tr("Delete Collection"), lambda: self.delete_collection_requested.emit(value))
        elif kind == TRASH:
            menu.addAction(tr("Empty Trash…"), self.empty_trash_requested.emit)
        elif kind == TAG:
            colours = menu.addMenu(tr("Colour"))
            from ..core.api import TAG_COLORS

            for name in TAG_COLORS:
                colours.addAction(tr(name), functools.partial(self.tag_color_requested.emit, value, name))
            colours.addAction(tr("None"), lambda: self.tag_color_requested.emit(value, ""))
        else:
            menu.addAction(tr("New Collection…"), lambda: self.new_collection_requested.emit(""))
        return menu


def doc_ids_from(data: bytes) -> list[int]:
    try:
        ids = json.loads(data.decode() or "[]")
    except ValueError:
        return []
    return [int(i) for i in ids if isinstance(i, int)] if isinstance(ids, list) else []
