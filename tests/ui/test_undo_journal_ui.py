"""Edit ▸ Undo and the command line share one undo journal (in the library database): the
window undoes what `paperpilot tag` did, `paperpilot undo` undoes the window's removal, the
menu names what will be undone (in Chinese too), and an undo whose documents were purged says
so in one line. The CLI runs as a real second process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QMessageBox

from paperpilot.core.library import Library
from paperpilot.ui import i18n
from paperpilot.ui.library_pane import LibraryPane

from .test_library_organize import ids, remove_in_window, shown, wait_write, write_papers


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", *argv], capture_output=True, text=True, timeout=120,
        env=dict(os.environ),
    )  # fmt: skip


@pytest.fixture
def pane(window: Any, library: Library, tmp_path: Path) -> LibraryPane:
    library.import_paths(write_papers(tmp_path / "in"))
    window.refresh_library()
    return window.library_pane


def test_the_window_and_the_cli_undo_each_others_changes(
    window: Any, pane: LibraryPane, library: Library, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    known = ids(library)
    target = known["swifts"]
    remove_in_window(pane, qtbot, monkeypatch, target)

    # The command line undoes the window's removal.
    out = cli("undo", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"undone": "Remove 1 document"}
    window.refresh_library()
    assert target in shown(pane)
    hits = library.search("swifts insects roofs")
    assert hits and hits[0].doc_id == target

    # The window undoes the command line's tag; the menu names it first.
    out = cli("tag", str(known["owls"]), "--add", "from the cli")
    assert out.returncode == 0, out.stderr
    window.on_edit_menu_about_to_show()
    assert window.undo_action.text() == "&Undo Tag 1 document"
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    wait_write(qtbot, pane)
    assert library.document(known["owls"]).tags == []  # type: ignore[union-attr]

    # Nothing left: the menu says so, and Ctrl+Z still reaches the journal once it closes.
    window.on_edit_menu_about_to_show()
    assert (window.undo_action.text(), window.undo_action.isEnabled()) == ("&Undo", False)
    window.on_edit_menu_about_to_hide()
    out = cli("collection", "add", "Birds/Towns", str(known["gulls"]))
    assert out.returncode == 0, out.stderr
    assert window.undo_action.isEnabled()
    window.undo_action.trigger()
    wait_write(qtbot, pane)
    assert library.collection_tree().get("Birds/Towns").doc_ids == set()


def test_the_menu_names_the_change_in_chinese(
    window: Any, pane: LibraryPane, library: Library, qtbot: Any
) -> None:
    known = ids(library)
    assert pane.tag_documents([known["owls"], known["gulls"]], add=["夜行"])
    wait_write(qtbot, pane)
    i18n.set_language("zh")
    try:
        window.on_edit_menu_about_to_show()
        assert window.undo_action.text() == "撤销(&U)：更改 2 篇文献的标签"
    finally:
        i18n.set_language("en")
    window.on_edit_menu_about_to_show()
    assert window.undo_action.text() == "&Undo Tag 2 documents"


def test_undo_of_a_purged_removal_says_so_in_one_line(
    window: Any, pane: LibraryPane, library: Library, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    known = ids(library)
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text, *a, **k: warnings.append(text))
    pane.select_ids([known["kestrels"]])
    pane.remove_selected()
    wait_write(qtbot, pane)
    out = cli("trash", "--empty")
    assert out.returncode == 0, out.stderr
    window.undo_action.trigger()
    wait_write(qtbot, pane)
    assert warnings == [
        f"Cannot undo “Remove 1 document”: document #{known['kestrels']} was deleted from the trash for good since."
    ]
    window.on_edit_menu_about_to_show()
    assert window.undo_action.text() == "&Undo"


def test_the_chinese_window_says_why_an_undo_cannot_be_done_in_chinese(
    window: Any, pane: LibraryPane, library: Library, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    known = ids(library)
    warnings: list[str] = []
    monkeypatch.setattr(QMessageBox, "warning", lambda _p, _t, text, *a, **k: warnings.append(text))
    remove_in_window(pane, qtbot, monkeypatch, known["kestrels"])
    out = cli("trash", "--empty")
    assert out.returncode == 0, out.stderr
    i18n.set_language("zh")
    try:
        window.undo_action.trigger()
        wait_write(qtbot, pane)
    finally:
        i18n.set_language("en")
    assert warnings == [f"无法撤销“移除 1 篇文献”：文献 #{known['kestrels']} 此后已从回收站中永久删除。"]


def test_undo_messages_core_writes_read_in_chinese(library: Library, tmp_path: Path) -> None:
    """What the real journal says when an undo cannot be done, or only in part, comes out in
    Chinese with its document numbers kept; in English it stays as core wrote it."""
    from paperpilot.core.app import Session
    from paperpilot.core.library.undo import NothingToUndo
    from paperpilot.core.text.messages import Message
    from paperpilot.ui.undo_text import shown

    library.import_paths(write_papers(tmp_path / "in"))
    k = ids(library)
    session = Session(paths=library.paths, library=library)
    said: list[tuple[str, Message | str]] = []  # (core's line, the same as a catalogued message)

    def undo_fails() -> None:
        with pytest.raises(NothingToUndo) as caught:
            session.undo()
        assert caught.value.msg is not None
        said.append((str(caught.value), caught.value.msg))

    session.remove([k["owls"], k["gulls"]])
    session.empty_trash()
    undo_fails()
    session.tag([k["kestrels"], k["swifts"]], add=["夜行"])
    session.remove([k["swifts"]])
    session.empty_trash()
    undo_fails()
    said.append((session.undo(), session.undo_stack.last_said))  # the tag comes off kestrels only

    i18n.set_language("zh")
    try:
        translated = [shown(m) for _, m in said]
    finally:
        i18n.set_language("en")
    pair = "、".join(f"#{i}" for i in sorted([k["owls"], k["gulls"]]))
    assert translated == [
        f"无法撤销“移除 2 篇文献”：文献 {pair} 此后已从回收站中永久删除。",
        f"无法撤销“移除 1 篇文献”：文献 #{k['swifts']} 此后已从回收站中永久删除。",
        f"更改 2 篇文献的标签（文献 #{k['swifts']} 此后已被永久删除）",
    ]
    assert [shown(m) for _, m in said] == [text for text, _ in said]


def test_a_metadata_edit_in_the_window_is_undone_after_a_restart(
    window: Any, pane: LibraryPane, library: Library, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paperpilot.core.app import Session
    from paperpilot.ui.metadata_dialog import MetadataDialog

    target = ids(library)["gulls"]

    def fill_and_accept(dlg: MetadataDialog) -> int:
        dlg.title_edit.setText("Gulls at the Old Harbour")
        dlg.accept()
        qtbot.waitUntil(lambda: not dlg.is_saving(), timeout=10_000)
        return int(dlg.result())

    monkeypatch.setattr(MetadataDialog, "exec", fill_and_accept)
    assert pane.edit_metadata(target)
    wait_write(qtbot, pane)  # the journal entry is written by a worker, not the GUI thread
    assert library.document(target).title == "Gulls at the Old Harbour"  # type: ignore[union-attr]
    # Another session on the same home (a restart of the window, or the CLI) sees it and undoes it.
    s = Session()
    try:
        assert s.undo_stack.label() == "Edit metadata of “Gulls at the Harbour”"
        assert s.undo() == "Edit metadata of “Gulls at the Harbour”"
    finally:
        s.close()
    window.refresh_library()
    assert library.document(target).title == "Gulls at the Harbour"  # type: ignore[union-attr]
    assert library.search("gulls fishing boats")[0].title == "Gulls at the Harbour"
