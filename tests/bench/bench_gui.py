"""Desktop app benchmarks: cold start to first paint, the longest GUI-thread stall during
agent runs and during a 200-file import, memory with 1,000 documents in the library, and the
library pane's filters (as you type, field prefixes, full text) with 10,000 documents.

    .venv/bin/python tests/bench/bench_gui.py [--files 200] [--docs 1000] [--starts 5] [--runs 6] [--pane-docs 10000] [--only-pane]

Runs offscreen when there is no display. Every measured part runs in a fresh process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ROOT, run_child

SAMPLE = ROOT / "resources" / "sample"


def _env(home: Path) -> dict[str, str]:
    env = {**os.environ, "PAPERPILOT_HOME": str(home)}
    if not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY")):
        env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def cold_start(home: Path, runs: int) -> dict[str, float]:
    """Wall time from launching `python -m paperpilot.cli gui` to the window's first paint."""
    env = _env(home)
    env["PAPERPILOT_BENCH_STARTUP"] = "1"
    totals, in_process = [], []
    for _ in range(runs):
        t0 = time.time()
        r = subprocess.run(
            [sys.executable, "-m", "paperpilot.cli", "gui"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        line = next((ln for ln in r.stdout.splitlines() if ln.startswith("PAPERPILOT_FIRST_PAINT")), None)
        if r.returncode != 0 or line is None:
            raise SystemExit(f"start-up run failed ({r.returncode}):\n{r.stdout}\n{r.stderr}")
        parts = line.split()
        totals.append(float(parts[1]) - t0)
        in_process.append(float(parts[3]))
    return {
        "median_s": statistics.median(totals),
        "min_s": min(totals),
        "max_s": max(totals),
        "run_gui_to_paint_median_s": statistics.median(in_process),
    }


def import_stall(work: Path, n_files: int) -> dict[str, float]:
    """The main window imports ``n_files`` PDFs in its worker while a 10 ms timer measures lag."""
    return run_child(f"""
        import gc, os, sys, time
        from pathlib import Path
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        sys.path.insert(0, {str(ROOT)!r})
        from paperpilot.ui.application import freeze_startup_objects
        from PySide6.QtCore import QEventLoop, QObject, QTimer, Slot
        from PySide6.QtWidgets import QApplication
        from paperpilot.core.settings.config import Settings
        from paperpilot.core.library import Library
        from paperpilot.core.settings.paths import app_paths
        from paperpilot.ui.main_window import MainWindow
        from tests.fixtures.pdfs import make_paper_pdf

        work = Path({str(work)!r})
        folder = work / "pdfs"
        folder.mkdir(parents=True, exist_ok=True)
        data = make_paper_pdf(work).read_bytes()
        for i in range({n_files}):
            (folder / f"paper-{{i:04d}}.pdf").write_bytes(data + f"\\n% copy {{i}}\\n".encode())

        app = QApplication([])
        app.setStyle("Fusion")
        paths = app_paths(work / "home")
        lib = Library(paths)
        win = MainWindow(lib, paths, Settings())
        win.resize(1400, 860)
        win.show()

        class Lag(QObject):
            def __init__(self):
                super().__init__()
                self.gaps = []
                self.at = []
                self.last = time.perf_counter()
                self.timer = QTimer(self)
                self.timer.setInterval(10)
                self.timer.timeout.connect(self.on_timer_timeout)

            @Slot()
            def on_timer_timeout(self):
                now = time.perf_counter()
                self.gaps.append((now - self.last) * 1000)
                self.at.append(self.last)
                self.last = now

        def spin(ms):
            loop = QEventLoop()
            QTimer.singleShot(ms, loop.quit)
            loop.exec()

        spin(300)
        gc.collect()
        freeze_startup_objects()  # as run_gui does once the window is up
        lag = Lag()
        lag.timer.start()
        t = time.perf_counter()
        win.start_import([str(folder)])
        while win.import_thread is not None:
            spin(20)
        seconds = time.perf_counter() - t
        done_at = time.perf_counter()
        spin(200)
        lag.timer.stop()
        worst = sorted(zip(lag.gaps, lag.at), reverse=True)[:4]
        worst = [(round(g), round(a - done_at, 2)) for g, a in worst]
        gaps = sorted(lag.gaps)
        report = win.last_report
        win.shutdown_workers()
        win.close()
        lib.close()
        RESULT = {{
            "files": {n_files},
            "imported": len(report.imported),
            "seconds": seconds,
            "max_stall_ms": gaps[-1],
            "p99_gap_ms": gaps[int(len(gaps) * 0.99)],
            "ticks": len(gaps),
            "worst": worst,
        }}
    """)


def agent_stall(home: Path, runs: int) -> dict[str, float]:
    """The main window answers ``runs`` questions (offline, loop mode) on the sample library
    while a 10 ms timer measures how long the GUI event loop goes without running."""
    return run_child(f"""
        import gc, os, sys, time
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        sys.path.insert(0, {str(ROOT)!r})
        from paperpilot.ui.application import freeze_startup_objects
        from PySide6.QtCore import QEventLoop, QObject, QTimer, Slot
        from PySide6.QtWidgets import QApplication
        from paperpilot.core.settings.config import Settings
        from paperpilot.core.library import Library
        from paperpilot.core.settings.paths import app_paths
        from paperpilot.ui.main_window import MainWindow

        app = QApplication([])
        app.setStyle("Fusion")
        paths = app_paths({str(home)!r})
        lib = Library(paths)
        win = MainWindow(lib, paths, Settings())
        win.resize(1400, 860)
        win.show()
        gaps = []
        last = [time.perf_counter()]

        class Lag(QObject):
            @Slot()
            def on_timer_timeout(self):
                now = time.perf_counter()
                gaps.append((now - last[0]) * 1000)
                last[0] = now

        def spin(ms):
            loop = QEventLoop()
            QTimer.singleShot(ms, loop.quit)
            loop.exec()

        questions = [
            "Why did house sparrows decline in the Old Town of Marlow Bay?",
            "How do green roofs help black redstarts and other birds?",
            "How does traffic noise on Harbour Road change the song of great tits?",
        ]
        # One question first, unmeasured: the first run imports the agent's modules.
        win.on_chat_ask_requested(questions[0], "loop")
        while win.agent_thread is not None:
            spin(20)
        spin(300)
        gc.collect()
        freeze_startup_objects()
        lag = Lag()
        timer = QTimer(lag)
        timer.setInterval(10)
        timer.timeout.connect(lag.on_timer_timeout)
        last[0] = time.perf_counter()
        timer.start()
        seconds = []
        for i in range({runs}):
            t = time.perf_counter()
            win.on_chat_ask_requested(questions[i % len(questions)], "loop")
            while win.agent_thread is not None:
                spin(20)
            seconds.append(time.perf_counter() - t)
        spin(200)
        timer.stop()
        win.shutdown_workers()
        win.close()
        lib.close()
        ordered = sorted(gaps)
        RESULT = {{
            "runs": {runs},
            "max_stall_ms": ordered[-1],
            "p99_gap_ms": ordered[int(len(ordered) * 0.99)],
            "ticks": len(ordered),
            "median_run_s": sorted(seconds)[len(seconds) // 2],
        }}
    """)


def make_corpus(path: Path, n: int) -> None:
    words = [
        "sparrow",
        "swift",
        "redstart",
        "roof",
        "garden",
        "noise",
        "song",
        "survey",
        "colony",
        "nest",
        "insect",
        "park",
        "city",
        "glass",
        "collision",
        "migration",
        "hedge",
        "shrub",
        "habitat",
        "census",
        "breeding",
        "territory",
        "volunteer",
    ]
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            body = " ".join(words[(i * 7 + j * 3) % len(words)] for j in range(220)) + "."
            sentences = [
                f"Document {i} reports observation {k}: " + body[k * 40 : k * 40 + 300] + "."
                for k in range(4)
            ]
            f.write(
                json.dumps({"id": f"d{i}", "title": f"Urban bird note {i:04d}", "text": " ".join(sentences)})
                + "\n"
            )


def memory(home: Path, docs: int) -> dict[str, float]:
    """Peak RSS of the GUI process showing a library of ``docs`` documents (and an empty one)."""
    code = f"""
        import os, sys, time
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        sys.path.insert(0, {str(ROOT)!r})
        import paperpilot.ui  # applies the Qt work-arounds before any Qt call
        from PySide6.QtCore import QEventLoop, QTimer, Qt
        from PySide6.QtWidgets import QApplication
        from paperpilot.core.settings.config import Settings
        from paperpilot.core.library import Library
        from paperpilot.core.settings.paths import app_paths
        from paperpilot.ui.main_window import MainWindow

        def spin(ms):
            loop = QEventLoop()
            QTimer.singleShot(ms, loop.quit)
            loop.exec()

        app = QApplication([])
        app.setStyle("Fusion")
        paths = app_paths(HOME)
        lib = Library(paths)
        t = time.perf_counter()
        win = MainWindow(lib, paths, Settings())
        win.resize(1400, 860)
        win.show()
        spin(300)
        shown = time.perf_counter() - t
        pane = win.library_pane
        t = time.perf_counter()
        for col in range(5):
            pane.proxy.sort(col, Qt.SortOrder.DescendingOrder)
            spin(10)
        sort_s = (time.perf_counter() - t) / 5
        t = time.perf_counter()
        pane.filter_edit.setText("note 09")
        filter_s = time.perf_counter() - t
        t = time.perf_counter()
        win.refresh_library()
        refresh_s = time.perf_counter() - t
        rows = pane.model.rowCount()
        win.shutdown_workers()
        win.close()
        lib.close()
        RESULT = {{"rows": rows, "window_shown_s": shown, "sort_s": sort_s, "filter_s": filter_s, "refresh_s": refresh_s}}
    """
    body = textwrap.dedent(code)
    empty = run_child(f"HOME = {str(home / 'empty')!r}\n" + body)
    full = run_child(f"HOME = {str(home / 'full')!r}\n" + body)
    full["empty_library_peak_rss_mb"] = empty["peak_rss_mb"]
    return full


def library_pane(home: Path) -> dict[str, float]:
    """The library pane over a large library: filter as you type (per keystroke, on the GUI
    thread: fields and words matched in core, the proxy refiltered), a field-prefix filter,
    and the full-text filter (the index search in its worker plus applying it on the GUI thread)."""
    return run_child(f"""
        import os, statistics, sys, time
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        sys.path.insert(0, {str(ROOT)!r})
        import paperpilot.ui
        from PySide6.QtCore import QEventLoop, QTimer
        from PySide6.QtWidgets import QApplication
        from paperpilot.core.settings.config import Settings
        from paperpilot.core.library import Library
        from paperpilot.core.settings.paths import app_paths
        from paperpilot.ui.library_pane import fulltext_filter
        from paperpilot.ui.main_window import MainWindow

        def spin(ms):
            loop = QEventLoop()
            QTimer.singleShot(ms, loop.quit)
            loop.exec()

        app = QApplication([])
        app.setStyle("Fusion")
        paths = app_paths({str(home)!r})
        lib = Library(paths)
        win = MainWindow(lib, paths, Settings())
        win.resize(1400, 860)
        win.show()
        spin(300)
        pane = win.library_pane
        rows = pane.model.rowCount()
        keystrokes = []
        for _ in range(3):
            for text in ("n", "no", "not", "note", "note ", "note 0", "note 09", "note 09 tag:ring", "note 09"):
                t = time.perf_counter()
                pane.filter_edit.setText(text)
                keystrokes.append((time.perf_counter() - t) * 1000)
                spin(5)
            pane.filter_edit.clear()
            spin(5)
        t = time.perf_counter()
        pane.filter_edit.setText("year:2020-2023 tag:ringing")
        fields_ms = (time.perf_counter() - t) * 1000
        pane.filter_edit.clear()
        pane.fulltext_check.setChecked(True)
        search, apply, shown = [], [], 0
        for query in ("sparrow colony", "glass collision migration", "observation 3"):
            t = time.perf_counter()
            result = fulltext_filter(pane.session, query, pane.filter_mode())  # what the worker runs
            search.append((time.perf_counter() - t) * 1000)
            pane.filter_edit.blockSignals(True)
            pane.filter_edit.setText(query)
            pane.filter_edit.blockSignals(False)
            t = time.perf_counter()
            pane.on_fulltext_done(result)
            apply.append((time.perf_counter() - t) * 1000)
            shown = pane.proxy.rowCount()
            pane.fulltext_timer.stop()
        # Edit ▸ Undo names the last change: the undo journal is read on the GUI thread.
        t = time.perf_counter()
        win.on_edit_menu_about_to_show()
        undo_menu_ms = (time.perf_counter() - t) * 1000
        undo_text = win.undo_action.text()
        win.shutdown_workers()
        win.close()
        lib.close()
        RESULT = {{
            "undo_menu_ms": undo_menu_ms,
            "undo_text": undo_text,
            "rows": rows,
            "keystroke_median_ms": statistics.median(keystrokes),
            "keystroke_max_ms": max(keystrokes),
            "fields_ms": fields_ms,
            "fulltext_search_ms": search,
            "fulltext_apply_ms": apply,
            "keystroke_p90_ms": sorted(keystrokes)[int(len(keystrokes) * 0.9)],
            "fulltext_rows": shown,
        }}
    """)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=200, help="PDFs to import for the stall measurement")
    ap.add_argument(
        "--docs", type=int, default=1000, help="documents in the library for the memory measurement"
    )
    ap.add_argument("--starts", type=int, default=5, help="cold starts to time")
    ap.add_argument("--pane-docs", type=int, default=10_000, help="documents for the library-pane filter measurement")
    ap.add_argument("--only-pane", action="store_true", help="measure only the library pane's filters")
    ap.add_argument("--runs", type=int, default=6, help="agent runs for the stall measurement")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pp-bench-gui-"))

    corpus = work / "pane.jsonl"
    make_corpus(corpus, args.pane_docs)
    pane_home = work / "pane"
    t = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "--home", str(pane_home), "import", str(corpus)],
        check=True,
        capture_output=True,
    )
    # Tags on every tenth document, so that the field prefix has something to match.
    subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "--home", str(pane_home), "tag",
         *[str(i) for i in range(1, args.pane_docs + 1, 10)], "--add", "ringing"],
        check=True,
        capture_output=True,
    )  # fmt: skip
    # Nested collections over a seventh of them (the sources pane and the sidecars carry them).
    subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "--home", str(pane_home), "collection", "add", "Ringing/Colonies",
         *[str(i) for i in range(1, args.pane_docs + 1, 7)]],
        check=True,
        capture_output=True,
    )  # fmt: skip
    imported_s = time.perf_counter() - t
    pane = library_pane(pane_home)
    print(
        f"library pane with {pane['rows']} documents (imported in {imported_s:.0f} s): filter as you type "
        f"median {pane['keystroke_median_ms']:.0f} ms, p90 {pane['keystroke_p90_ms']:.0f} ms, worst "
        f"{pane['keystroke_max_ms']:.0f} ms per keystroke; fields (year:, tag:) {pane['fields_ms']:.0f} ms; full text, "
        f"3 queries (the first on a cold searcher): index search {[round(x) for x in pane['fulltext_search_ms']]} ms "
        f"(worker) + apply {[round(x) for x in pane['fulltext_apply_ms']]} ms (GUI thread); "
        f"Edit menu ({pane['undo_text']!r}) {pane['undo_menu_ms']:.1f} ms"
    )
    if args.only_pane:
        return

    start_home = work / "start"
    subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "--home", str(start_home), "import", str(SAMPLE)],
        check=True,
        capture_output=True,
    )
    cold_start(start_home, 1)  # warm the OS file cache: we measure Python + Qt start, not the disk
    start = cold_start(start_home, args.starts)
    print(
        f"cold start to first paint (sample library, {args.starts} runs): median {start['median_s']:.2f} s "
        f"(min {start['min_s']:.2f}, max {start['max_s']:.2f}); run_gui() to paint {start['run_gui_to_paint_median_s']:.2f} s"
    )

    agent = agent_stall(start_home, args.runs)
    print(
        f"{agent['runs']} offline agent runs (loop mode) through the window: longest event-loop stall "
        f"{agent['max_stall_ms']:.0f} ms (p99 timer gap {agent['p99_gap_ms']:.0f} ms, {agent['ticks']} ticks); "
        f"median run {agent['median_run_s']:.2f} s"
    )

    stall = import_stall(work / "import", args.files)
    print(
        f"import of {stall['files']} PDFs through the window: {stall['imported']} imported in {stall['seconds']:.1f} s; "
        f"longest event-loop stall {stall['max_stall_ms']:.0f} ms (p99 timer gap {stall['p99_gap_ms']:.0f} ms, "
        f"{stall['ticks']} ticks of a 10 ms timer); peak RSS {stall['peak_rss_mb']:.0f} MB"
        f"\n  worst gaps (ms, seconds relative to the end of the import): {stall['worst']}"
    )

    corpus = work / "corpus.jsonl"
    make_corpus(corpus, args.docs)
    mem_home = work / "mem"
    subprocess.run(
        [sys.executable, "-m", "paperpilot.cli", "--home", str(mem_home / "full"), "import", str(corpus)],
        check=True,
        capture_output=True,
    )
    mem = memory(mem_home, args.docs)
    print(
        f"memory with {mem['rows']} documents: peak RSS {mem['peak_rss_mb']:.0f} MB "
        f"(empty library {mem['empty_library_peak_rss_mb']:.0f} MB); window shown in {mem['window_shown_s']:.2f} s, "
        f"sort {mem['sort_s'] * 1000:.0f} ms, filter {mem['filter_s'] * 1000:.0f} ms, refresh {mem['refresh_s'] * 1000:.0f} ms"
    )
    print(f"(work files in {work})")


if __name__ == "__main__":
    main()
