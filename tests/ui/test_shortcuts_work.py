"""Every key Help ▸ Keyboard Shortcuts lists does what it says: pressed where it applies, it
reaches its action (no two commands share a key, so none is lost to an ambiguous shortcut),
and the find box of the document viewer answers to Esc and Shift+Enter."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from paperpilot.core.library import Library
from paperpilot.ui.keyboard import collect_shortcuts
from tests.fixtures.pdfs import make_paper_pdf


def _focus_for(owner: QWidget, window: Any) -> QWidget:
    """Where the key is pressed: inside the pane that owns a pane key, else a widget of the
    window that is no text box (a text box keeps Delete, Ctrl+Z … for itself, as it should)."""
    if owner is window:
        return window.library_pane.table
    viewer_page = getattr(owner, "pdf_view", None) or getattr(owner, "text_view", None)
    return viewer_page if isinstance(viewer_page, QWidget) else owner


def test_every_listed_key_triggers_its_command(window: Any, library: Library, tmp_path: Path, qtbot: Any) -> None:
    library.import_paths([make_paper_pdf(tmp_path)])
    window.refresh_library()
    doc = library.all_documents()[0]
    window.library_pane.open_document(doc.doc_id, 1, "")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
    listed = {e.keys for e in collect_shortcuts(window)}

    fired: list[object] = []
    keyed: list[tuple[object, QWidget, QKeySequence]] = []
    for action in window.findChildren(QAction):
        if action.menu() is not None or not action.shortcuts():
            continue
        # The command itself is tested where it lives; here only that the key reaches it.
        with contextlib.suppress(RuntimeError, TypeError):  # an action with no slot yet
            action.triggered.disconnect()
        action.setEnabled(True)
        action.triggered.connect(lambda _checked=False, a=action: fired.append(a))
        owners = [o for o in action.associatedObjects() if isinstance(o, QWidget) and not o.inherits("QMenu")]
        owner = owners[0] if owners else window
        if action.shortcutContext() == Qt.ShortcutContext.WindowShortcut and owner.window() is window:
            owner = window
        for seq in action.shortcuts():
            keyed.append((action, _focus_for(owner, window), seq))
    for shortcut in window.findChildren(QShortcut):
        if shortcut.key().isEmpty():
            continue
        shortcut.activated.disconnect()
        shortcut.setEnabled(True)  # the chat pane's Esc is on only while a run goes
        shortcut.activated.connect(lambda s=shortcut: fired.append(s))
        parent = shortcut.parent()
        assert isinstance(parent, QWidget)
        # The chat pane's Esc, pressed in the answer area (the question box is off during a run).
        focus = getattr(parent, "conversation", parent)
        keyed.append((shortcut, focus, shortcut.key()))

    names = {k.toString(QKeySequence.SequenceFormat.NativeText) for _, _, k in keyed}
    assert names <= {part.strip() for keys in listed for part in keys.split(",")} | names
    assert len(keyed) >= 25
    lost = []
    for target, focus, seq in keyed:
        fired.clear()
        # Bring the tab that holds the widget to the front (the chat, or the docked document).
        if window.chat_pane.isAncestorOf(focus):
            window.reader.show_chat()
        for viewer in window.library_pane.viewers.values():
            if viewer.isAncestorOf(focus):
                window.reader.setCurrentWidget(viewer)
        focus.setFocus(Qt.FocusReason.OtherFocusReason)
        QApplication.processEvents()
        QTest.keySequence(focus, seq)
        QApplication.processEvents()
        if fired != [target]:
            name = target.text() if isinstance(target, QAction) else target.property("description")
            lost.append(f"{name!r} {seq.toString()}: fired {[getattr(f, 'text', lambda: '?')() for f in fired]}")
    assert not lost, "\n".join(lost)


def test_esc_clears_the_viewers_find_box_then_returns_to_the_page(
    window: Any, library: Library, tmp_path: Path, qtbot: Any
) -> None:
    (tmp_path / "notes.md").write_text(
        "# Hedgehog tunnels\n\nHedgehogs use garden gaps. Gaps in fences let hedgehogs roam.\n", encoding="utf-8"
    )
    library.import_paths([tmp_path / "notes.md"])
    doc = library.all_documents()[0]
    window.library_pane.open_document(doc.doc_id, 1, "")
    viewer = window.library_pane.viewers[doc.doc_id]
    window.activateWindow()
    viewer.search_edit.setFocus()
    qtbot.keyClicks(viewer.search_edit, "gaps")
    qtbot.keyClick(viewer.search_edit, Qt.Key.Key_Return)
    view = viewer.text_view
    assert view is not None and view.textCursor().selectedText().lower() == "gaps"
    first = view.textCursor().position()
    qtbot.keyClick(viewer.search_edit, Qt.Key.Key_Return)
    assert view.textCursor().position() > first  # Enter: the next match
    qtbot.keyClick(viewer.search_edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert view.textCursor().position() == first  # Shift+Enter: back to the previous one
    # Esc clears the box and the marked match, and does not stop anything else (no run).
    qtbot.keyClick(viewer.search_edit, Qt.Key.Key_Escape)
    assert viewer.search_edit.text() == "" and view.textCursor().selectedText() == ""
    assert viewer.search_edit.hasFocus()
    qtbot.keyClick(viewer.search_edit, Qt.Key.Key_Escape)
    assert view.hasFocus()


def test_esc_clears_the_pdf_search_too(window: Any, library: Library, tmp_path: Path, qtbot: Any) -> None:
    library.import_paths([make_paper_pdf(tmp_path)])
    doc = library.all_documents()[0]
    window.library_pane.open_document(doc.doc_id, 1, "")
    viewer = window.library_pane.viewers[doc.doc_id]
    assert viewer.search_model is not None
    viewer.search_edit.setFocus()
    qtbot.keyClicks(viewer.search_edit, "zebra")
    qtbot.keyClick(viewer.search_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: viewer.search_model.count() > 0, timeout=10_000)
    qtbot.keyClick(viewer.search_edit, Qt.Key.Key_Escape)
    assert viewer.search_edit.text() == ""
    assert viewer.search_model.searchString() == "" and viewer.result_label.text() == ""
    qtbot.keyClick(viewer.search_edit, Qt.Key.Key_Escape)
    assert viewer.pdf_view is not None and viewer.pdf_view.hasFocus()


def test_esc_closes_the_conversations_drawer_after_clearing_its_search(window: Any, qtbot: Any) -> None:
    window.resize(1024, 700)
    QApplication.processEvents()
    window.activateWindow()
    window.show_conversations_action.trigger()
    qtbot.waitUntil(window.drawer_open)
    search = window.conversations_pane.search_edit
    search.setFocus()
    qtbot.keyClicks(search, "hedgehog")
    qtbot.keyClick(search, Qt.Key.Key_Escape)
    assert search.text() == "" and window.drawer_open()  # the first Esc clears the search
    qtbot.keyClick(search, Qt.Key.Key_Escape)
    assert not window.drawer_open() and not window.show_conversations_action.isChecked()


def test_tab_in_settings_follows_the_rows_as_shown(qtbot: Any, paperpilot_home: Path) -> None:
    from paperpilot.core.settings.config import Settings
    from paperpilot.core.settings.paths import app_paths
    from paperpilot.ui.settings_dialog import SettingsDialog

    s = Settings()
    s.llm.enabled = True
    dlg = SettingsDialog(s, app_paths())
    qtbot.addWidget(dlg)
    dlg.show()
    order = [dlg.offline_check, dlg.preset_combo, dlg.url_edit, dlg.model_combo, dlg.key_edit, dlg.key_env_edit,
             dlg.test_button, dlg.rounds_spin, dlg.temperature_spin, dlg.citation_combo, dlg.quote_check,
             dlg.ocr_check, dlg.chunk_spin, dlg.chunk_min_spin, dlg.lookups_check, dlg.language_combo, dlg.theme_combo]
    seen = []
    w: QWidget = dlg.offline_check
    for _ in range(80):
        if w in order and w not in seen:
            seen.append(w)
        w = w.nextInFocusChain()
    assert seen == order, [x.objectName() for x in seen]
    dlg.reject()
