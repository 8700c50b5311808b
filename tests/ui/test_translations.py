"""The Chinese interface is complete: every window and dialog, walked widget by widget.

Each test builds the same screens in English and in Chinese and compares them: the Chinese
build must have no English interface text left (proper names, formats and numbers aside, see
tests/ui/ui_text.py), and it must show as many pieces of text as the English one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QMessageBox, QWidget

from paperpilot.core.agent.events import Result, Status
from paperpilot.core.library import Library
from paperpilot.core.settings import keystore
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths
from paperpilot.core.text.messages import msg
from paperpilot.ui import i18n
from paperpilot.ui.reader import tab_title
from tests.fixtures.pdfs import make_paper_pdf

from .ui_text import english_left, interface_texts, untranslated

Build = Callable[[], QWidget]


@pytest.fixture
def chinese(qapp: QApplication) -> Iterator[None]:
    i18n.set_language("zh")
    assert i18n.install_qt_translations()
    yield
    i18n.set_language("en")
    i18n.install_qt_translations()


def in_both_languages(
    build: Build,
    data: Callable[[QWidget], tuple[QWidget, ...]] = lambda w: (),
    data_strings: tuple[str, ...] = (),
) -> list[str]:
    """Build the screen in English, then in Chinese; the Chinese one's English leftovers."""
    counts = []
    wheres: list[Counter[str]] = []
    left: list[str] = []
    for code in ("en", "zh"):
        i18n.set_language(code)
        i18n.install_qt_translations()
        widget = build()
        QApplication.processEvents()
        texts = interface_texts(widget, data(widget))
        counts.append(len(texts))
        wheres.append(Counter(where for where, _ in texts))
        if code == "en":
            assert any(english_left(t) for _, t in texts), "the English build shows no English?"
        else:
            left = untranslated(widget, data(widget), data_strings)
        _dispose(widget)
    i18n.set_language("en")
    i18n.install_qt_translations()
    assert counts[0] == counts[1], f"the two builds differ: {wheres[0] - wheres[1]} / {wheres[1] - wheres[0]}"
    return left


def _dispose(widget: QWidget) -> None:
    shutdown = getattr(widget, "shutdown_workers", None)
    if callable(shutdown):
        shutdown()
    for viewer in getattr(getattr(widget, "library_pane", None), "viewers", {}).values():
        import shiboken6

        if shiboken6.isValid(viewer):
            viewer.close()
    widget.close()
    widget.deleteLater()
    QApplication.processEvents()


def main_window_data(w: Any) -> tuple[QWidget, ...]:
    """The library's rows, the conversation names, the chat's questions and answers, a
    document's own text: the user's data, not the interface."""
    out = [w.library_pane.table.viewport(), w.conversations_pane.list.viewport(), w.chat_pane.conversation]
    out += [w.inspector.evidence_list.viewport(), w.inspector.passage_view]
    # The trace mixes the interface's words with the question, queries and papers' text:
    # tests/ui/test_trace_detail.py checks it row by row.
    out += [w.inspector.trace_tree, w.inspector.trace_detail]
    for viewer in w.library_pane.viewers.values():
        out += [viewer.stack, viewer.thumbnails.viewport()]
    return tuple(out)


@pytest.fixture
def home(paperpilot_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(keystore.NO_KEYRING_ENV, "1")
    return paperpilot_home


def test_main_window_empty_library_is_all_chinese(qapp: QApplication, home: Path) -> None:
    from paperpilot.ui.main_window import MainWindow

    lib = Library(app_paths())
    try:
        left = in_both_languages(lambda: _shown(MainWindow(lib, app_paths(), Settings())), main_window_data)
    finally:
        lib.close()
    assert not left, "\n".join(left)


def _shown(w: QWidget, size: tuple[int, int] = (1400, 860)) -> QWidget:
    w.resize(*size)
    w.show()
    QApplication.processEvents()
    return w


def _answered_window(lib: Library, question: str, *, narrow: bool = False, open_pdf: bool = False) -> QWidget:
    from paperpilot.ui.main_window import MainWindow

    w = MainWindow(lib, app_paths(), Settings())
    _shown(w, (1024, 700) if narrow else (1400, 860))
    run = w.session.ask(question, save=False, mode="quick")
    for event in run:
        w.on_agent_event(event)
    result = run.result
    w.chat_pane.show_result(result)
    w.inspector.show_result(result)
    w.refresh_library()
    if open_pdf:
        doc = next(d for d in lib.all_documents() if d.file_name.endswith(".pdf"))
        w.library_pane.open_document(doc.doc_id, 1, "")
    QApplication.processEvents()
    return w


@pytest.mark.parametrize("narrow", [False, True], ids=["wide", "narrow-drawer-folded"])
def test_main_window_with_an_answer_and_a_document_is_all_chinese(
    qapp: QApplication, home: Path, tmp_path: Path, narrow: bool
) -> None:
    lib = Library(app_paths())
    try:
        (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
        lib.import_paths([make_paper_pdf(tmp_path), tmp_path / "broken.pdf"])
        left = in_both_languages(
            lambda: _answered_window(lib, "What does the zebra crossing experiment show about gulls?", narrow=narrow, open_pdf=True),
            main_window_data,
            tuple(t for d in lib.all_documents() for t in (d.title, tab_title(d.title).rstrip("…"))),
        )
    finally:
        lib.close()
    assert not left, "\n".join(left)


def test_dialogs_are_all_chinese(qapp: QApplication, home: Path, tmp_path: Path) -> None:
    from paperpilot.core.memory.profile import ResearchProfile
    from paperpilot.ui.check_dialog import CheckDialog
    from paperpilot.ui.document_viewer import DocumentViewer
    from paperpilot.ui.keyboard import ShortcutsDialog
    from paperpilot.ui.main_window import MainWindow
    from paperpilot.ui.metadata_dialog import MetadataDialog
    from paperpilot.ui.notes_editor import NotesDialog
    from paperpilot.ui.preferences_dialog import PreferencesDialog
    from paperpilot.ui.settings_dialog import SettingsDialog

    lib = Library(app_paths())
    lib.import_paths([make_paper_pdf(tmp_path)])
    doc = lib.all_documents()[0]
    paths = app_paths().ensure()
    online = Settings()
    online.llm.enabled, online.llm.base_url, online.llm.model = True, "https://api.deepseek.com/v1", "deepseek-chat"
    builds: dict[str, Build] = {
        "settings (offline)": lambda: SettingsDialog(Settings(), paths),
        "settings (DeepSeek)": lambda: SettingsDialog(online, paths),
        "preferences": lambda: PreferencesDialog(ResearchProfile()),
        "metadata": lambda: MetadataDialog(lib, doc.doc_id),
        "notes": lambda: NotesDialog(lib, doc.doc_id, doc.title),
        "check library": lambda: CheckDialog(lib),
        "viewer window": lambda: _shown(DocumentViewer(lib, doc, 1, ""), (900, 1000)),
        "shortcuts": lambda: ShortcutsDialog(_keep(MainWindow(lib, app_paths(), Settings()))),
    }
    failures: list[str] = []
    try:
        for name, build in builds.items():
            left = in_both_languages(build, _dialog_data, (doc.title,))
            failures += [f"{name}: {line}" for line in left]
    finally:
        for w in _kept:
            _dispose(w)
        _kept.clear()
        for dlg in QApplication.topLevelWidgets():
            if isinstance(dlg, CheckDialog):
                dlg.stop()
        lib.close()
    assert not failures, "\n".join(failures)


_kept: list[QWidget] = []


def _dialog_data(w: QWidget) -> tuple[QWidget, ...]:
    """A viewer's page, the metadata dialog's citation preview: the document's own words."""
    from paperpilot.ui.document_viewer import DocumentViewer

    if isinstance(w, DocumentViewer):
        return (w.stack,)
    preview = w.findChild(QWidget, "previewLabel")
    return (preview,) if preview is not None else ()


def _keep(w: QWidget) -> QWidget:
    _kept.append(w)
    return w


def _modal_texts(open_it: Callable[[], object]) -> list[str]:
    """Run ``open_it`` (which shows a modal box), collect the box's English leftovers, close it."""
    found: list[str] = []

    def grab() -> None:
        box = QApplication.activeModalWidget()
        if box is None:
            QTimer.singleShot(20, grab)
            return
        found.extend(untranslated(box))
        if isinstance(box, QDialog):
            box.reject()
        else:
            box.close()

    QTimer.singleShot(20, grab)
    open_it()
    return found


def test_message_boxes_and_qt_file_dialog_are_chinese(chinese: None, home: Path, tmp_path: Path) -> None:
    from paperpilot.ui.main_window import MainWindow

    lib = Library(app_paths())
    lib.import_paths([make_paper_pdf(tmp_path)])
    w = MainWindow(lib, app_paths(), Settings())
    _shown(w)
    try:
        left = _modal_texts(w.on_about_triggered)
        w.library_pane.table.selectRow(0)
        left += [t for t in _modal_texts(w.library_pane.remove_selected)  # the confirmation
                 if english_left(t.replace(lib.all_documents()[0].title, ""))]
        left += _modal_texts(w.on_export_conversation_triggered)
        # Qt's own file dialog (not the platform's): its buttons, labels and columns.
        dialog = QFileDialog(w, i18n.tr("Import papers"), str(tmp_path))
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        dialog.show()
        QApplication.processEvents()
        file_left = untranslated(dialog)
        dialog.reject()
        assert not file_left, "\n".join(file_left)
        box = QMessageBox(QMessageBox.Icon.Question, "PaperPilot", i18n.tr("Remove"),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No | QMessageBox.StandardButton.Cancel)
        assert {b.text().replace("&", "") for b in box.buttons()} <= {"是(Y)", "否(N)", "取消"}, [b.text() for b in box.buttons()]
    finally:
        w.shutdown_workers()
        w.close()
        lib.close()
    assert not left, "\n".join(left)


def test_status_bar_import_and_run_messages_are_chinese(chinese: None, home: Path, tmp_path: Path, qtbot: Any) -> None:
    from paperpilot.ui.main_window import MainWindow

    lib = Library(app_paths())
    w = MainWindow(lib, app_paths(), Settings())
    qtbot.addWidget(w)
    _shown(w)
    try:
        (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
        w.start_import([str(make_paper_pdf(tmp_path)), str(tmp_path / "broken.pdf")])
        qtbot.waitUntil(lambda: w.import_thread is None, timeout=20_000)
        texts = [w.docs_label.text(), w.task_label.text(), w.failures_button.text(), w.model_label.text()]
        assert texts[0].endswith("个分块") and "已导入 1 个" in texts[1] and "未导入" in texts[2]
        assert texts[3] == "离线（无语言模型）"
        w.on_chat_ask_requested("What does the zebra crossing experiment show about gulls?", "quick")
        qtbot.waitUntil(lambda: w.agent_thread is None, timeout=30_000)
        assert w.task_label.text().startswith("完成："), w.task_label.text()
        assert not english_left(w.task_label.text().split("：", 1)[1])
    finally:
        w.shutdown_workers()
        w.close()
        lib.close()


# --- what core writes into a result: missing parts, confidence notes, failure reasons ---------
# Core hands these over as catalogued messages (code + parameters); the windows render them.

CORE_MESSAGES = [
    msg("confidence.answered", value="yes", weight="+1.20"),
    msg("confidence.coverage", value="50%", weight="+0.40"),
    msg("confidence.support_min", value="35%", weight="−0.22"),
    msg("confidence.rejected", value="2", weight="−0.31"),
    msg("confidence.docs", value="2.00", weight="+0.10"),
    msg("confidence.model_estimate", value="0.80", weight="0.5"),
    msg("confidence.round_limit"),
    msg("confidence.stopped_extract", factor="0.5"),
    msg("confidence.obeyed"),
    msg("missing.not_mentioned", term="swift bricks"),
    msg("missing.full_answer"),
    msg("missing.entity", term="Marlow Bay"),
    msg("missing.number", number="2023"),
    msg("missing.concept", term="nest boxes"),
    msg("missing.side", attribute="nest density", side="green roofs"),
    msg("missing.hop_first", hop="the author of the survey"),
    msg("missing.hop_next", hop="where was she born"),
    msg("missing.yes_no", focus="do swifts nest in bricks"),
    msg("missing.slot.when", focus="when the survey began"),
    msg("missing.slot.why", focus="why sparrows declined"),
    msg("missing.hop_relation", entity="Marlow Bay", relation="population"),
    msg("library.nothing_on", terms=["say", "citations"]),
    msg("stop.nothing_on", terms=["quantum gravity"]),
    msg("stop.failed_unexpectedly", error="ValueError: bad state"),
    msg("missing.a_question"),
    msg("stop.empty_question"),
]


def test_every_message_shape_core_writes_reads_in_chinese(chinese: None) -> None:
    for m in CORE_MESSAGES:
        zh = i18n.said(m)
        # What is left in English is only what core quoted (the question's own words, names).
        unquoted = re.sub(r"“[^”]*”|'[^']*'|ValueError: bad state|Marlow Bay|nest density|the author of the survey|"
                          r"where was she born|population", " ", zh)
        assert zh != m.text("en") and not english_left(unquoted), (m.code, zh)
    # Quoted words, numbers and names inside a message are kept as core gave them.
    assert "“swift bricks”" in i18n.said(msg("missing.not_mentioned", term="swift bricks"))
    assert "50%" in i18n.said(msg("confidence.coverage", value="50%", weight="+0.40"))


def test_the_confidence_reasons_core_can_give_are_all_in_chinese(chinese: None) -> None:
    from paperpilot.core.agent import confidence

    features = dict.fromkeys(confidence.FEATURES, 1.0)
    features.update(is_bridge=1.0, is_comparison=1.0)
    reasons = confidence.reasons(features, model_estimate=0.7)
    assert len(reasons) > 5
    assert [m.text() for m in reasons] == confidence.explain(features, model_estimate=0.7)
    english = [i18n.said(m) for m in reasons if english_left(i18n.said(m))]
    assert not english, english


def test_missing_parts_and_notes_of_a_real_run_show_in_chinese(chinese: None, home: Path, tmp_path: Path, qtbot: Any) -> None:
    from paperpilot.ui.inspector import InspectorPane

    missing = [msg("missing.number", number="2023"), msg("missing.not_mentioned", term="black redstarts")]
    notes = [msg("confidence.partial", value="yes", weight="+0.60"), msg("confidence.model_estimate", value="0.80", weight="0.5")]
    result = Result(
        question="Did the survey count swifts in 2023?",
        status=Status.PARTIAL,
        answer="Swifts were counted [1].",
        missing=[m.text() for m in missing],
        missing_codes=missing,
        confidence=0.4,
        confidence_notes=[m.text() for m in notes],
        confidence_reasons=notes,
        policy="offline",
    )
    insp = InspectorPane()
    qtbot.addWidget(insp)
    insp.show_result(result)
    assert "读过的段落都没有提到 2023" in insp.missing_label.text()
    assert "“black redstarts”" in insp.missing_label.text()
    shown = insp.confidence_notes.text()
    assert shown.startswith("覆盖了问题的部分必需内容") and "估计" not in shown  # offline: no model estimate
    # A result saved before its parts carried codes keeps its words (it is not parsed).
    old = result.model_copy(update={"missing_codes": [], "confidence_reasons": []})
    insp.show_result(old)
    assert "No passage read mentions 2023" in insp.missing_label.text()


# --- the other windows: the literature matrix, the draft, the import log ----------------------

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"


def _matrix_window(lib: Library) -> QWidget:
    from paperpilot.ui.main_window import MainWindow

    main = _keep(MainWindow(lib, app_paths(), Settings()))
    win = main.open_matrix_window([])  # type: ignore[attr-defined]

    def wait(done: Any) -> None:  # the scope is counted and the cells are filled in a worker
        import time

        for _ in range(1200):
            if done():
                return
            QApplication.processEvents()
            time.sleep(0.05)
        raise AssertionError("the matrix did not finish")

    wait(lambda: win.make_button.isEnabled())
    win.make_button.click()
    wait(lambda: win.matrix is not None and not win.busy and not win.matrix.pending())
    _shown(win, (1200, 700))
    return win


def _import_log(lib: Library, tmp_path: Path) -> QWidget:
    from paperpilot.ui.import_log import ImportLogDialog

    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4 not really")
    (tmp_path / "empty.md").write_text("", encoding="utf-8")
    (tmp_path / "notes.xyz").write_text("hello", encoding="utf-8")
    (tmp_path / "latin.txt").write_bytes(bytes(range(128, 256)) * 4)
    first = lib.import_paths([SAMPLE / "01-house-sparrow-decline.md"])
    again = lib.import_paths([
        SAMPLE / "01-house-sparrow-decline.md", tmp_path / "broken.pdf", tmp_path / "empty.md",
        tmp_path / "notes.xyz", tmp_path / "latin.txt",
    ])  # fmt: skip
    assert again.duplicates and len(again.failed) + len(again.unsupported) >= 3
    dlg = ImportLogDialog([first, again])
    dlg.tree.expandAll()
    return dlg


def test_matrix_draft_and_import_log_windows_are_all_chinese(qapp: QApplication, home: Path, tmp_path: Path) -> None:
    from paperpilot.core.app import Session
    from paperpilot.ui.draft_window import DraftWindow

    lib = Library(app_paths())
    lib.import_paths([SAMPLE / "01-house-sparrow-decline.md", SAMPLE / "02-traffic-noise-great-tit-song.md"])
    # The papers' titles and the imported files' names are the user's.
    titles = (*(d.title for d in lib.all_documents()), "broken.pdf", "empty.md", "notes.xyz", "latin.txt")
    failures: list[str] = []
    logs = iter(range(100))
    try:
        builds: dict[str, Build] = {
            "matrix": lambda: _matrix_window(lib),
            "draft": lambda: _shown(DraftWindow(Session(paths=app_paths(), library=lib), []), (1000, 700)),
            # Each build imports into a library of its own (the second build sees no duplicates otherwise).
            "import log": lambda: _import_log(Library(app_paths(str(tmp_path / f"h{next(logs)}"))), tmp_path),
        }
        for name, build in builds.items():
            data = (lambda w: (w.table.viewport(),)) if name == "matrix" else (lambda w: ())
            left = in_both_languages(build, data, titles)
            failures += [f"{name}: {line}" for line in left]
    finally:
        for w in _kept:
            _dispose(w)
        _kept.clear()
        lib.close()
    assert not failures, "\n".join(failures)


def test_every_import_failure_reason_core_gives_has_a_chinese_form(chinese: None, home: Path, tmp_path: Path) -> None:
    """Real imports of bad files: each reason core writes reads in Chinese in the interface."""
    bad = {
        "broken.pdf": b"%PDF-1.4 not really",
        "empty.md": b"",
        "blank.txt": b" \n\t\n",
        "notes.xyz": b"hello",
        "latin.txt": bytes(range(128, 256)) * 4,
        "corpus.jsonl": b'{"no": "fields"}\n',
        "refs.json": b'{"not": "csl"}',
    }
    for name, data in bad.items():
        (tmp_path / name).write_bytes(data)
    lib = Library(app_paths())
    try:
        report = lib.import_paths([tmp_path / n for n in bad] + [tmp_path / "missing.pdf"])
    finally:
        lib.close()
    reasons = [why for _, why in report.failed + report.unsupported]
    assert len(reasons) >= len(bad)
    for why in reasons:
        said = report.message(why)
        assert said is not None, why  # rendered from its code, not parsed back from the words
        zh = i18n.said(said)
        rest = zh
        for name in [*bad, "missing.pdf", str(tmp_path)]:
            rest = rest.replace(name, " ")
        rest = re.sub(r"\{[^}]*\}", " ", rest)  # a JSON object's keys, as the file must have them
        assert zh != why and not english_left(rest), (why, zh)


def test_the_library_check_reports_in_chinese(chinese: None, home: Path, tmp_path: Path, qtbot: Any) -> None:
    """The check's progress, counts, problems and repairs (written by core) read in Chinese."""
    import sqlite3

    from paperpilot.ui.check_dialog import CheckDialog

    lib = Library(app_paths())
    try:
        lib.import_paths([SAMPLE / "01-house-sparrow-decline.md", SAMPLE / "02-traffic-noise-great-tit-song.md"])
        gone = lib.all_documents()[0]
        with sqlite3.connect(lib.paths.database) as c:  # the row is lost; the stored copy stays
            c.execute("PRAGMA foreign_keys=ON")
            c.execute("DELETE FROM documents WHERE id=?", (gone.doc_id,))
        lib.reindex()
        dlg = CheckDialog(lib)
        qtbot.addWidget(dlg)
        dlg.show()
        qtbot.waitUntil(lambda: dlg.worker_thread is None, timeout=30_000)
        data = [str(lib.paths.library_dir), *(d.title for d in lib.all_documents()), gone.title]
        checked = dlg.text.toPlainText()
        dlg.repair_button.click()
        qtbot.waitUntil(lambda: dlg.worker_thread is None, timeout=30_000)
        left = []
        for text in (checked, dlg.text.toPlainText(), dlg.status.text()):
            for line in text.splitlines():
                rest = re.sub(r"\S+\.(md|txt|pdf)\b|'[^']*'|#\d+", " ", line)
                for d in data:
                    rest = rest.replace(d, " ")
                if english_left(rest):
                    left.append(line)
        assert "没有任何文献引用的已保存文件" in checked
        assert not left, "\n".join(left)
        dlg.reject()
    finally:
        lib.close()
