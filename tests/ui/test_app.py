"""The application entry points: `paperpilot gui --screenshot` in a subprocess, plain `paperpilot`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QImage

from paperpilot import cli
from paperpilot.ui import application as app_module
from paperpilot.ui.resources import app_icon, resources_dir, sample_library_dir


def run_cli(args: list[str], env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_screenshot_subprocess_writes_png_of_requested_size(paperpilot_home: Path, tmp_path: Path) -> None:
    out = tmp_path / "shot.png"
    env = {**os.environ, "PAPERPILOT_HOME": str(paperpilot_home), "QT_QPA_PLATFORM": "offscreen"}
    r = run_cli(["gui", "--screenshot", str(out), "--size", "1200x800"], env)
    assert r.returncode == 0, r.stderr
    image = QImage(str(out))
    assert not image.isNull()
    assert (image.width(), image.height()) == (1200, 800)
    # A headless screenshot must not overwrite the user's saved window geometry.
    assert not (paperpilot_home / "config" / "window.ini").exists()


def test_screenshot_with_question_and_no_display(paperpilot_home: Path, tmp_path: Path) -> None:
    from paperpilot.core.library import Library
    from paperpilot.core.settings.paths import app_paths

    with Library(app_paths(paperpilot_home)) as lib:
        lib.import_paths([sample_library_dir()])
    out = tmp_path / "answer.png"
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env["PAPERPILOT_HOME"] = str(paperpilot_home)
    question = "How do green roofs help black redstarts?"
    r = run_cli(["gui", "--screenshot", str(out), "--ask", question, "--mode", "quick"], env)
    assert r.returncode == 0, r.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == app_module.SCREENSHOT_SIZE


def test_bad_size_is_a_usage_error(
    paperpilot_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert app_module.run_gui(str(paperpilot_home), screenshot=str(tmp_path / "x.png"), size="huge") == 2
    assert "--size" in capsys.readouterr().err
    assert app_module.parse_size("800x600") == (800, 600)
    assert app_module.parse_size(None) == app_module.SCREENSHOT_SIZE


def test_no_arguments_opens_the_gui(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, ...]] = []

    def fake_run_gui(home: str | None, **kw: Any) -> int:
        calls.append((home, kw))
        return 0

    monkeypatch.setattr(app_module, "run_gui", fake_run_gui)
    assert cli.main([]) == 0
    assert cli.main(["--home", "/tmp/x", "gui", "--size", "800x600", "--mode", "loop"]) == 0
    assert calls[0] == (None, {"screenshot": None, "ask": None, "size": None, "mode": "auto"})
    assert calls[1] == ("/tmp/x", {"screenshot": None, "ask": None, "size": "800x600", "mode": "loop"})


def test_other_commands_do_not_import_qt(paperpilot_home: Path) -> None:
    code = (
        "import sys\n"
        "from paperpilot.cli import main\n"
        "main(['list'])\n"
        "assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt was imported'\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_resources_are_found(qapp: Any) -> None:
    assert (resources_dir() / "icons" / "paperpilot.svg").is_file()
    assert (resources_dir() / "SAMPLE-LICENSE.txt").is_file()
    assert not app_icon().isNull()
    assert not app_icon().pixmap(64, 64).isNull()


def test_unusable_library_exits_1_with_the_reason(paperpilot_home: Path, tmp_path: Path) -> None:
    db = paperpilot_home / "data" / "library" / "library.sqlite3"
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not a database" * 300)
    (paperpilot_home / "config").mkdir(parents=True)
    (paperpilot_home / "config" / "settings.json").write_text("{broken", encoding="utf-8")
    env = {**os.environ, "PAPERPILOT_HOME": str(paperpilot_home), "QT_QPA_PLATFORM": "offscreen"}
    r = run_cli(["gui", "--screenshot", str(tmp_path / "x.png")], env)
    assert r.returncode == 1
    assert "settings.json is invalid" in r.stderr and "cannot be opened" in r.stderr
    assert not (tmp_path / "x.png").exists()


def test_plain_paperpilot_without_a_display_explains_instead_of_hanging(paperpilot_home: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env["PAPERPILOT_HOME"] = str(paperpilot_home)
    r = run_cli([], env, timeout=60)
    assert r.returncode == 1
    assert "no display" in r.stderr and "--screenshot" in r.stderr


def test_quitting_after_a_copy_does_not_crash(tmp_path: Path) -> None:
    """Rich-text copies go through a Qt-made QMimeData: a Python-made one on the clipboard
    segfaults the process when it quits (PySide6 frees it after the interpreter is gone)."""
    import subprocess
    import sys

    code = (
        "import paperpilot.ui\n"
        "from PySide6.QtWidgets import QApplication\n"
        "from paperpilot.ui.qtcompat import new_mime_data\n"
        "app = QApplication([])\n"
        "m = new_mime_data(); m.setText('[1] A. Title.'); m.setHtml('<i>Title</i>')\n"
        "QApplication.clipboard().setMimeData(m)\n"
        "assert QApplication.clipboard().mimeData().html() == '<i>Title</i>'\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])


def test_screenshot_of_the_viewer_open_at_a_cited_span(paperpilot_home: Path, tmp_path: Path) -> None:
    from paperpilot.core.library import Library
    from paperpilot.core.settings.paths import app_paths
    from tests.fixtures.pdfs import make_span_pdf

    with Library(app_paths(paperpilot_home)) as lib:
        lib.import_paths([make_span_pdf(tmp_path)])
    out = tmp_path / "viewer.png"
    env = {**os.environ, "PAPERPILOT_HOME": str(paperpilot_home), "QT_QPA_PLATFORM": "offscreen"}
    question = "Where must cited passages be shown?"
    r = run_cli(["gui", "--screenshot", str(out), "--ask", question, "--mode", "quick", "--open-evidence", "1"], env)
    assert r.returncode == 0, r.stderr
    image = QImage(str(out))
    # The viewer is docked in the main window's reader: the window is saved, the document in front.
    assert (image.width(), image.height()) == app_module.SCREENSHOT_SIZE
    # The cited span is painted: plenty of highlighter yellow on the page.
    yellow = sum(
        1
        for y in range(0, image.height(), 4)
        for x in range(0, image.width(), 4)
        if (c := image.pixelColor(x, y)).red() > 230 and c.green() > 190 and c.blue() < 150
    )
    assert yellow > 300


def test_open_evidence_needs_a_question(
    paperpilot_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = app_module.run_gui(str(paperpilot_home), screenshot=str(tmp_path / "x.png"), open_evidence=1)
    assert code == 2
    assert "--open-evidence needs --screenshot and --ask" in capsys.readouterr().err
