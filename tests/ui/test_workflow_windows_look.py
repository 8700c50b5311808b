"""The matrix and draft windows at 1024×700, in Chinese and in dark mode: every interface string
translated (the same walk as tests/ui/test_translations.py), nothing cut off, no forced width."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QComboBox,
    QLabel,
    QPushButton,
    QWidget,
)

from paperpilot.core.library import Library
from paperpilot.core.settings import keystore
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths
from paperpilot.core.workflows.draft import Draft, write_draft
from paperpilot.core.workflows.matrix import create_matrix, default_columns, run_matrix
from paperpilot.core.workflows.selection import PaperSelection
from paperpilot.core.workflows.templates import load_template
from paperpilot.ui.theme import apply_theme, is_dark

from .test_translations import in_both_languages

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"


@pytest.fixture
def home(paperpilot_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(keystore.NO_KEYRING_ENV, "1")
    return paperpilot_home


@pytest.fixture
def saved(home: Path) -> Iterator[tuple[Any, str, str]]:
    """A main window over two sample papers with one finished matrix and one finished draft."""
    from paperpilot.ui.main_window import MainWindow

    lib = Library(app_paths())
    lib.import_paths([SAMPLE / "01-house-sparrow-decline.md", SAMPLE / "06-binjiang-park-vegetation-birds-zh.md"])
    main = MainWindow(lib, app_paths(), Settings())
    s = main.session
    m = create_matrix(s.workflows, lib, PaperSelection())
    for _ in run_matrix(s.workflows, m, lib):
        pass
    draft: Draft | None = None
    for ev in write_draft(s.workflows, lib, "城市鸟类与建筑", load_template("proposal-zh"), PaperSelection(),
                          references=lambda ids: s.reference_entries(ids)):  # fmt: skip
        if isinstance(ev, Draft):
            draft = ev
    assert draft is not None
    yield main, m.id, draft.id
    main.shutdown_workers()
    main.close()
    main.deleteLater()
    QApplication.processEvents()
    lib.close()


def _settle(win: Any, seconds: float = 60) -> None:
    """Let the window's background reads (the saved list, the count, the matrix) come back."""
    deadline = time.monotonic() + seconds
    parts = [win.task, win.side_task, win.saved.task, win.scope_row.task, win.scope_row.picker_task]
    while time.monotonic() < deadline and (any(t.busy for t in parts) or win.scope_row.timer.isActive()):
        QApplication.processEvents()
        time.sleep(0.01)
    QApplication.processEvents()


def _matrix_window(main: Any, mid: str) -> QWidget:
    win = main.open_matrix_window([], matrix_id=mid)
    win.resize(1024, 700)
    _settle(win)
    win.table.clicked.emit(win.proxy.index(0, 3))
    win.group_box.setCurrentIndex(win.group_box.findData("method"))
    QApplication.processEvents()
    return win


def _draft_window(main: Any, did: str) -> QWidget:
    win = main.open_draft_window([1, 2])
    win.resize(1024, 700)
    win.open_saved(did)
    _settle(win)
    return win


def _data(w: QWidget) -> tuple[QWidget, ...]:
    """The papers' words: the matrix cells, the draft's text, the saved titles."""
    out: list[QWidget] = [w.saved.list.viewport()]  # type: ignore[attr-defined]
    for name in ("table", "view"):
        part = getattr(w, name, None)
        if part is not None:
            out.append(part.viewport())
    return tuple(out)


def cut_off(root: QWidget) -> list[str]:
    """Visible labels, buttons and boxes narrower than their text needs."""
    cut = []
    for w in root.findChildren(QWidget):
        if not w.isVisibleTo(root) or w.width() <= 0:
            continue
        if isinstance(w, QLabel) and not w.wordWrap() and w.text():
            need = w.fontMetrics().horizontalAdvance(w.text())
            if need > w.contentsRect().width() + 1:
                cut.append(f"label {w.text()!r}: {need} > {w.contentsRect().width()}")
        elif isinstance(w, (QAbstractButton, QComboBox)) and w.sizeHint().width() > w.width() + 1:
            text = w.currentText() if isinstance(w, QComboBox) else w.text()
            cut.append(f"{type(w).__name__} {text!r}: {w.sizeHint().width()} > {w.width()}")
    return cut


def test_matrix_and_draft_windows_are_all_chinese(qapp: QApplication, saved: tuple[Any, str, str]) -> None:
    main, mid, did = saved
    # The matrix made by core (as the CLI makes one) is named in core's words: its saved name, data.
    title = main.session.workflows.matrix(mid)["title"]
    left = in_both_languages(lambda: _matrix_window(main, mid), _data, (title,))
    left += in_both_languages(lambda: _draft_window(main, did), _data)
    assert not left, "\n".join(left)


def test_columns_dialog_is_all_chinese(qapp: QApplication, home: Path) -> None:
    from paperpilot.ui.matrix_window import ColumnsDialog

    # The questions are asked of the papers (data); the names are the interface's default columns.
    left = in_both_languages(lambda: ColumnsDialog(default_columns(), ["birds"]), lambda w: (w.table.viewport(),),  # type: ignore[attr-defined]
                             ("birds",))  # a saved set's name is the user's
    assert not left, "\n".join(left)


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_nothing_is_cut_off_at_1024x700(qapp: QApplication, saved: tuple[Any, str, str], lang: str, theme: str) -> None:
    from paperpilot.ui import i18n

    main, mid, did = saved
    i18n.set_language(lang)
    apply_theme(theme)
    try:
        for build in (lambda: _matrix_window(main, mid), lambda: _draft_window(main, did)):
            win = build()
            win.show()
            _settle(win)
            assert (win.width(), win.height()) == (1024, 700), "a minimum size forced the window larger"
            assert is_dark(win.palette()) is (theme == "dark")
            assert not cut_off(win), "\n".join(cut_off(win))
            assert not win.grab().toImage().isNull()
            # The check sees a cut button (so its silence above means something).
            probe = QPushButton("A button whose words do not fit", win.status_label.parentWidget())
            probe.setFixedWidth(40)
            probe.show()
            assert any("do not fit" in c for c in cut_off(win))
            probe.deleteLater()
            win.close()
    finally:
        i18n.set_language("en")
        apply_theme("system")
