"""After an import the window embeds the new passages in the background, with progress in the status bar."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from paperpilot.core.library import Library
from paperpilot.core.settings.config import Settings
from paperpilot.core.settings.paths import app_paths


def test_import_then_embedding_in_the_background(qapp: Any, library: Library, tmp_path: Path) -> None:
    from paperpilot.ui.main_window import MainWindow

    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "eiffel.md").write_text(
        "# The Eiffel Tower\n\nThe Eiffel Tower was completed in 1889 as the entrance arch to the World's Fair.\n",
        encoding="utf-8",
    )
    (folder / "bees.md").write_text(
        "# Honey bees\n\nHoney bees tell each other where flowers are through a waggle dance.\n", encoding="utf-8"
    )
    win = MainWindow(library, app_paths(), Settings())
    messages: list[str] = []
    win.statusBar().messageChanged.connect(messages.append)
    try:
        win.show()
        win.start_import([str(folder)])
        deadline = time.monotonic() + 60
        while (win.import_thread is not None or win.embed_thread is not None) and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.01)
        assert win.import_thread is None and win.embed_thread is None
        assert any(m.startswith("Embedding for search by meaning: 0 of 2") for m in messages), messages
        assert "Search by meaning: 2 passage(s) embedded." in messages
        hits = library.search("埃菲尔铁塔", 1, mode="meaning")  # the window's session gave the library its vectors
        assert hits and hits[0].title == "The Eiffel Tower" and hits[0].found_by == "meaning"
    finally:
        win.shutdown_workers()
        win.close()
        win.deleteLater()
        QApplication.processEvents()


def test_the_inspector_says_which_search_found_a_hit_and_its_scores() -> None:
    from paperpilot.core.api import HitView
    from paperpilot.ui.inspector import hit_scores_text

    both = HitView(doc_id=1, segment=0, title="t", score=0.45, found_by="both", bm25=7.31, dense=0.842, fused=0.45)
    assert hit_scores_text(both) == "score 0.45 · found by both · BM25 7.31 · cosine 0.842 · fused 0.4500"
    keyword = HitView(doc_id=1, segment=0, title="t", score=7.31, bm25=7.31)
    assert hit_scores_text(keyword) == "score 7.31 · found by keyword"
