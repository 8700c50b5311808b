"""Keyboard use: filter boxes, Enter to open, Tab order, and the generated shortcut list."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication

from paperpilot.core.library import Library
from paperpilot.ui.keyboard import ShortcutsDialog, collect_shortcuts
from tests.fixtures.pdfs import make_paper_pdf


def two_papers(library: Library, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Hedgehog tunnels\n\nHedgehogs use garden gaps.\n", encoding="utf-8")
    library.import_paths([make_paper_pdf(tmp_path), tmp_path / "a.md"])


def test_esc_clears_the_filter_and_arrows_move_into_the_results(
    window: Any, library: Library, tmp_path: Path, qtbot: Any
) -> None:
    two_papers(library, tmp_path)
    window.refresh_library()
    lib = window.library_pane
    window.activateWindow()
    lib.focus_filter()
    qtbot.keyClicks(lib.filter_edit, "hedgehog")
    qtbot.waitUntil(lambda: lib.proxy.rowCount() == 1)
    qtbot.keyClick(lib.filter_edit, Qt.Key.Key_Escape)
    assert lib.filter_edit.text() == ""
    qtbot.waitUntil(lambda: lib.proxy.rowCount() == 2)
    qtbot.keyClick(lib.filter_edit, Qt.Key.Key_Down)
    assert lib.table.hasFocus() or QApplication.focusWidget() is lib.table
    assert lib.table.currentIndex().row() == 0
    assert lib.table.selectionModel().isSelected(lib.table.currentIndex())


def test_enter_in_the_filter_opens_the_first_result(
    window: Any, library: Library, tmp_path: Path, qtbot: Any
) -> None:
    two_papers(library, tmp_path)
    window.refresh_library()
    lib = window.library_pane
    lib.focus_filter()
    qtbot.keyClicks(lib.filter_edit, "hedgehog")
    qtbot.waitUntil(lambda: lib.proxy.rowCount() == 1)
    qtbot.keyClick(lib.filter_edit, Qt.Key.Key_Return)
    doc = next(d for d in library.all_documents() if "Hedgehog" in d.title)
    viewer = lib.viewers.get(doc.doc_id)
    assert viewer is not None and window.reader.currentWidget() is viewer
    # Enter in the table opens the selected row too.
    window.reader.show_chat()
    lib.table.setFocus()
    qtbot.keyClick(lib.table, Qt.Key.Key_Return)
    assert window.reader.currentWidget() is viewer


def test_conversation_search_hands_down_arrow_to_the_list(window: Any, qtbot: Any) -> None:
    conv = window.conversations_pane
    window.conversations.create("Hedgehog tunnels")
    conv.refresh()
    assert conv.list.count() == 1
    conv.search_edit.setFocus()
    qtbot.keyClick(conv.search_edit, Qt.Key.Key_Down)
    assert conv.list.currentRow() == 0


def test_tab_walks_the_panes_left_to_right(window: Any) -> None:
    lib, conv, chat, insp = window.library_pane, window.conversations_pane, window.chat_pane, window.inspector
    expected = [lib.table, conv.search_edit, conv.list, chat.input, chat.mode_combo, chat.send_button]
    widget = lib.filter_edit
    for nxt in expected:
        widget = widget.nextInFocusChain()
        # Skip what cannot take Tab focus (labels, disabled buttons) the way Qt does.
        while not (widget.focusPolicy() & Qt.FocusPolicy.TabFocus) or not widget.isEnabled():
            widget = widget.nextInFocusChain()
        assert widget is nxt, (widget.objectName(), nxt.objectName())
    # Further on, the inspector comes before the walk wraps round to the library again.
    seen = []
    for _ in range(400):
        widget = widget.nextInFocusChain()
        if widget is lib.filter_edit:
            break
        seen.append(widget)
    assert any(insp.isAncestorOf(w) for w in seen)


def test_the_shortcut_list_is_read_from_the_actions(
    window: Any, library: Library, tmp_path: Path, qtbot: Any
) -> None:
    library.import_paths([make_paper_pdf(tmp_path)])
    doc = library.all_documents()[0]
    window.library_pane.open_document(doc.doc_id, 1, "")
    entries = collect_shortcuts(window)
    listed = {(e.name, e.keys) for e in entries}
    # Every action with a key, in a menu or in a pane (the docked viewer's), is in the list.
    for action in window.findChildren(QAction):
        keys = ", ".join(s.toString(QKeySequence.SequenceFormat.NativeText) for s in action.shortcuts())
        if keys and action.menu() is None:
            name = action.text().replace("&", "").replace("…", "").strip()
            if not any(ch.isalnum() for ch in name):
                name = action.toolTip()  # a sign (+, −) is named by what it does
            assert (name, keys) in listed, (name, keys)
    names = {e.name for e in entries}
    assert {"Import Files", "Find in Library", "Keyboard Shortcuts", "Close Document", "Stop the run"} <= names
    assert {"Zoom in", "Zoom out"} <= names and not {"+", "−"} & names
    # A new action in a menu shows up without anyone editing the list.
    extra = window._action("Brand-new Command", window.refresh_library, "Ctrl+Shift+K")
    window.menuBar().actions()[0].menu().addAction(extra)
    assert ("Brand-new Command", QKeySequence("Ctrl+Shift+K").toString(QKeySequence.SequenceFormat.NativeText)) in {
        (e.name, e.keys) for e in collect_shortcuts(window)
    }
    window.shortcuts_action.trigger()
    dlg = window.shortcuts_dialog
    assert isinstance(dlg, ShortcutsDialog) and dlg.isVisible()
    assert dlg.tree.topLevelItemCount() >= 5
    dlg.close()
