"""Screenshots for the README's development section: the main window at 1024×700, 1440×900 and
1920×1080, and each pane (answer, evidence, trace, result, a docked PDF) in light and dark.

    .venv/bin/python tests/bench/screenshots.py [--out resources/screenshots] [--lang en|zh]

Builds the sample library in a temporary home, asks one question offline, and saves PNGs.
Runs offscreen when there is no display.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

QUESTION = "Why did house sparrows decline in the Old Town of Marlow Bay?"
QUESTION_ZH = "城市公园的植被结构如何影响鸟类多样性？"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "resources" / "screenshots"))
    ap.add_argument("--lang", default="en", choices=["en", "zh"])
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from PySide6.QtCore import QCoreApplication, QEventLoop, Qt
    from PySide6.QtWidgets import QApplication

    from paperpilot.core.library import Library
    from paperpilot.core.settings.config import Settings
    from paperpilot.core.settings.paths import app_paths
    from paperpilot.ui import i18n
    from paperpilot.ui.theme import apply_theme

    app = QApplication([])
    app.setStyle("Fusion")
    i18n.set_language(args.lang)
    i18n.install_qt_translations()
    from paperpilot.ui.main_window import MainWindow  # after set_language: widgets read tr() once

    home = Path(tempfile.mkdtemp(prefix="pp-shots-"))
    paths = app_paths(str(home))
    lib = Library(paths)
    from tests.fixtures.pdfs import make_paper_pdf

    lib.import_paths([ROOT / "resources" / "sample", make_paper_pdf(home)])
    question = QUESTION_ZH if args.lang == "zh" else QUESTION
    suffix = "" if args.lang == "en" else f"-{args.lang}"

    def settle(rounds: int = 8) -> None:
        for _ in range(rounds):
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)

    def window(theme: str, size: tuple[int, int]) -> MainWindow:
        apply_theme(theme)
        w = MainWindow(lib, paths, Settings())
        w.resize(*size)
        w.show()
        settle()
        w.on_chat_ask_requested(question, "auto")
        while w.agent_thread is not None:
            settle(2)
        settle()
        return w

    def save(widget: object, name: str) -> None:
        from PySide6.QtGui import QImage

        path = out / f"{name}{suffix}.png"
        # A 256-colour palette: a screen of text and flat colours looks the same at a
        # quarter of the bytes, which keeps the repository small.
        image = widget.grab().toImage()  # type: ignore[attr-defined]
        flags = Qt.ImageConversionFlag.AvoidDither | Qt.ImageConversionFlag.ThresholdDither
        image.convertToFormat(QImage.Format.Format_Indexed8, flags).save(str(path), "PNG", 0)
        print(path)

    def close(w: MainWindow) -> None:
        w.shutdown_workers()
        w.hide()
        w.deleteLater()
        settle(2)

    for size in ((1024, 700), (1440, 900), (1920, 1080)):
        w = window("light", size)
        save(w, f"window-{size[0]}x{size[1]}")
        close(w)

    for theme in ("light", "dark"):
        w = window(theme, (1440, 900))
        save(w, f"answer-{theme}")
        for index, tab in enumerate(("evidence", "trace", "result")):
            w.inspector.tabs.setCurrentIndex(index)
            if tab == "trace":
                # A search's hits, its first one chosen: shown whole below the tree.
                tree = w.inspector.trace_tree
                hits = tree.findItems(i18n.tr("Hits"), Qt.MatchFlag.MatchExactly | Qt.MatchFlag.MatchRecursive, 0)
                if hits and hits[0].childCount():
                    tree.setCurrentItem(hits[0].child(0))
            settle()
            save(w.inspector, f"inspector-{tab}-{theme}")
        # The first evidence opened at its source: a docked PDF page with the span highlighted.
        result = w.chat_pane.last_result()
        if result is not None and result.evidence:
            w.inspector.tabs.setCurrentIndex(0)
            w.inspector.select_evidence(result.evidence[0].number)
            w.inspector.open_button.click()
            viewer = w.library_pane.viewers.get(result.evidence[0].doc_id)
            for _ in range(100):
                settle(2)
                if viewer is not None and not viewer.is_locating():
                    break
            settle(20)
            save(w, f"reader-text-{theme}")
        # A PDF: the page stays paper-white with its passage highlighted, thumbnails beside it.
        pdf = next(d for d in lib.all_documents() if d.file_name.endswith(".pdf"))
        hit = next(h for h in lib.search("zebra crossing experiment", 3) if h.doc_id == pdf.doc_id)
        w.library_pane.open_document(pdf.doc_id, hit.page, lib.read(hit.doc_id, hit.seq).text)
        viewer = w.library_pane.viewers[pdf.doc_id]
        for _ in range(200):
            settle(2)
            if not viewer.is_locating() and viewer.thumbnails_rendered() == viewer.thumbnails.count():
                break
        settle(30)
        save(w, f"reader-pdf-{theme}")
        close(w)
    apply_theme("system")
    lib.close()


if __name__ == "__main__":
    main()
