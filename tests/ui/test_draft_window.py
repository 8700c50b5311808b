"""The draft window: scope, template, language and policy; written off the GUI thread with
progress per section; stop and resume; reopen at once; .docx and .md saved."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from paperpilot.core.library import Library
from paperpilot.core.workflows import draft as draft_mod
from paperpilot.ui.draft_window import DraftWindow

SAMPLE = Path(__file__).resolve().parents[2] / "resources" / "sample"


def _idle(qtbot: Any, win: DraftWindow) -> None:
    qtbot.waitUntil(lambda: not win.busy and not win.side_task.busy, timeout=60_000)


def _import(library: Library, *names: str) -> dict[str, int]:
    library.import_paths([SAMPLE / n for n in names])
    by_file = {d.file_name: d.doc_id for d in library.all_documents()}
    return {n: by_file[n] for n in names}


def test_draft_writes_over_a_tag_in_a_worker_with_progress_and_saves_docx_and_md(
    qtbot: Any, window: Any, library: Library, tmp_path: Path, monkeypatch: Any
) -> None:
    ids = _import(library, "01-house-sparrow-decline.md", "03-green-roofs-foraging.md", "05-window-collisions.md")
    window.session.tag([ids["01-house-sparrow-decline.md"], ids["03-green-roofs-foraging.md"]], add=["roofs"])
    window.refresh_library()
    gui = threading.main_thread()
    threads: set[bool] = set()
    real = draft_mod.evidence_section
    monkeypatch.setattr(draft_mod, "evidence_section",
                        lambda *a, **k: (threads.add(threading.current_thread() is gui), real(*a, **k))[1])  # fmt: skip
    win = window.open_draft_window([])
    assert isinstance(win, DraftWindow)
    win.write_button.click()
    assert win.status_label.text() == "Give the draft a topic first." and not win.busy
    win.topic_edit.setText("urban birds and buildings")
    win.template_box.setCurrentIndex(win.template_box.findData("review-en"))
    win.language_box.setCurrentIndex(win.language_box.findData("en"))
    win.policy_box.setCurrentIndex(win.policy_box.findData("offline"))
    qtbot.waitUntil(lambda: win.scope_row.tag_box.count() > 0, timeout=30_000)
    win.scope_row.set_kind("tag", "roofs")
    qtbot.waitUntil(lambda: win.scope_row.count == 2, timeout=30_000)
    win.write_button.click()
    assert win.busy and win.write_button.text() == "Stop" and not win.topic_edit.isEnabled()
    _idle(qtbot, win)
    assert threads == {False}
    d = win.draft
    assert d is not None and d.status == "done" and d.policy == "offline" and d.language == "en"
    assert win.progress.value() == win.progress.maximum() == len(d.template.sections)
    shown = win.view.toPlainText()
    assert "Related work by theme" in shown and "References" in shown and "Varga" in shown
    # Only the tagged papers are cited.
    assert {doc for _n, doc, _t in d.references} <= {ids["01-house-sparrow-decline.md"], ids["03-green-roofs-foraging.md"]}
    assert win.save_button.isEnabled() and not win.write_button.isEnabled()  # done: nothing to write
    assert win.save_to(tmp_path / "d.docx")
    _idle(qtbot, win)
    from docx import Document

    assert "Background" in [p.text for p in Document(str(tmp_path / "d.docx")).paragraphs]
    win.appendix_box.setChecked(True)
    assert win.save_to(tmp_path / "d.md", appendix=True)
    _idle(qtbot, win)
    assert (tmp_path / "d.md").read_text(encoding="utf-8").startswith("# Literature review")
    assert str(tmp_path / "d.md") in win.status_label.text()
    win.close()


def test_draft_stops_resumes_and_reopens_at_once(
    qtbot: Any, window: Any, library: Library, monkeypatch: Any
) -> None:
    _import(library, "01-house-sparrow-decline.md", "03-green-roofs-foraging.md")
    window.refresh_library()
    win = window.open_draft_window([])
    win.topic_edit.setText("urban birds and buildings")
    win.template_box.setCurrentIndex(win.template_box.findData("review-en"))
    sections: list[str] = []
    real = draft_mod.evidence_section

    def section(spec: Any, *a: Any, **k: Any) -> Any:
        if sections and win.cancel is not None:
            # Stop, as if clicked, while the second evidence section is gathered: the sections
            # before it (background, related work) are saved, this one is not.
            win.cancel.set()
        sections.append(spec.heading)
        return real(spec, *a, **k)

    monkeypatch.setattr(draft_mod, "evidence_section", section)
    win.write_button.click()
    _idle(qtbot, win)
    d = win.draft
    assert d is not None and d.status == "cancelled"
    assert win.write_button.text() == "Resume" and "Resume" in win.status_label.text()
    total = len(d.template.sections)
    saved_sections = len(d.sections)
    assert 0 < saved_sections < total
    did = d.id
    qtbot.waitUntil(lambda: win.saved.list.count() == 1 and not win.saved.task.busy, timeout=30_000)
    assert f"{saved_sections} of {total} sections" in win.saved.list.item(0).text()
    win.close()
    # Reopened: the saved sections at once (no section is gathered), then Resume writes the rest.
    before = len(sections)
    again = window.open_draft_window([])
    again.open_saved(did)
    _idle(qtbot, again)
    assert again.draft is not None and len(again.draft.sections) == saved_sections and len(sections) == before
    assert again.topic_edit.text() == "urban birds and buildings" and not again.topic_edit.isEnabled()
    assert again.write_button.text() == "Resume"
    again.write_button.click()
    _idle(qtbot, again)
    assert again.draft is not None and again.draft.status == "done" and len(again.draft.sections) == total
    assert again.draft.id == did and again.write_button.text() == "Write" and not again.write_button.isEnabled()
    # A rename keeps the topic; delete empties the list and the window.
    again.saved.rename(did, "My review")
    qtbot.waitUntil(lambda: "My review" in again.saved.list.item(0).text(), timeout=30_000)
    assert window.session.workflows.draft(did)["topic"] == "urban birds and buildings"
    assert again.windowTitle().endswith("My review")
    qtbot.waitUntil(lambda: not again.saved.task.busy, timeout=30_000)
    again.saved.delete(did)
    qtbot.waitUntil(lambda: again.saved.list.count() == 0 and not again.saved.task.busy, timeout=30_000)
    assert again.draft is None and again.topic_edit.isEnabled()
    again.close()


def test_a_topic_with_a_year_phrase_narrows_the_count(qtbot: Any, window: Any, library: Library) -> None:
    _import(library, "02-traffic-noise-great-tit-song.md", "04-breeding-bird-survey-2019-2023.md")
    window.refresh_library()
    win = window.open_draft_window([])
    qtbot.waitUntil(lambda: win.scope_row.count == 2, timeout=30_000)
    # The sample papers are from 2020 and 2024; "since 2022" leaves one.
    win.topic_edit.setText("urban bird surveys since 2022")
    qtbot.waitUntil(lambda: win.scope_row.count == 1 and not win.scope_row.timer.isActive(), timeout=30_000)
    assert "2022–" in win.scope_row.count_label.text()
    win.close()


def test_the_language_model_without_settings_is_one_line_and_nothing_is_saved(
    qtbot: Any, window: Any, library: Library
) -> None:
    _import(library, "01-house-sparrow-decline.md")
    window.refresh_library()
    win = window.open_draft_window([])
    win.topic_edit.setText("urban birds")
    win.policy_box.setCurrentIndex(win.policy_box.findData("llm"))
    win.write_button.click()
    _idle(qtbot, win)
    text = win.status_label.text()
    assert "\n" not in text and "Traceback" not in text and "model" in text.lower()
    assert win.draft is None and win.write_button.text() == "Write" and win.write_button.isEnabled()
    assert window.session.workflows.drafts() == []
    win.close()
