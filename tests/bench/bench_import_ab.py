"""Import speed of two or more source trees, alternated run by run so that the machine's drift
falls on all of them alike: each run imports one folder of PDFs into a fresh library in a fresh
interpreter (OCR off) and times ``Library.import_paths``.

    .venv/bin/python tests/bench/bench_import_ab.py --runs 24 --copies 7 \\
        base=/path/to/old/checkout/desktop now=desktop
    .venv/bin/python tests/bench/bench_import_ab.py --runs 16 --folder ../shared/data/pdfs_dev \\
        --skip 'scanned_*' base=... now=...

A tree is the ``desktop`` folder of a checkout (its ``paperpilot`` package is imported from
there, its compiled modules too when built); a git worktree of an older commit makes a base.
Printed: pages/s per tree (median and quartiles), CPU per page of the whole process tree, and
for each tree after the first the median of its per-run ratios to the first and the ratio of
the medians.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED

_CHILD = r"""
import json, shutil, sys, tempfile, time
from paperpilot.core.library import Library
from paperpilot.core.settings.config import ImportSettings
from paperpilot.core.settings.paths import app_paths
home = tempfile.mkdtemp(prefix="pp-bench-ab-")
settings = ImportSettings()
if "ocr" in type(settings).model_fields:  # (a tree from before OCR has no such setting)
    settings.ocr = False
lib = Library(app_paths(home), settings=settings)
t = time.perf_counter()
report = lib.import_paths([sys.argv[1]])
wall = time.perf_counter() - t
lib.close()
shutil.rmtree(home, ignore_errors=True)
print(json.dumps({"pages": sum(d.pages for d in report.imported), "files": len(report.imported), "wall": wall}))
"""


def _folder(args: argparse.Namespace, work: Path) -> Path:
    """The PDFs to import: ``--folder`` (less ``--skip``), or ``--copies`` of the shared papers,
    each copy with a distinct byte suffix so that the importer sees no duplicates."""
    out = work / "pdfs"
    out.mkdir()
    if args.folder:
        for src in sorted(Path(args.folder).glob("*.pdf")):
            if not any(src.match(p) for p in args.skip):
                shutil.copy(src, out / src.name)
        return out
    for copy in range(args.copies):
        for src in sorted((SHARED / "pdfs").glob("*.pdf")):
            (out / f"{src.stem}-{copy}.pdf").write_bytes(src.read_bytes() + f"\n% copy {copy}\n".encode())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="+", metavar="LABEL=DESKTOP_DIR")
    ap.add_argument("--runs", type=int, default=16, help="imports per tree")
    ap.add_argument("--copies", type=int, default=7, help="copies of the three shared papers (7: 336 pages)")
    ap.add_argument("--folder", help="import this folder's PDFs instead")
    ap.add_argument("--skip", action="append", default=[], help="file-name patterns to leave out of --folder")
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.trees)
    work = Path(tempfile.mkdtemp(prefix="pp-bench-ab-"))
    try:
        folder = _folder(args, work)
        speed: dict[str, list[float]] = {k: [] for k in trees}
        cpu: dict[str, list[float]] = {k: [] for k in trees}
        for i in range(args.runs):
            order = list(trees.items()) if i % 2 == 0 else list(trees.items())[::-1]
            for label, desktop in order:
                env = {**os.environ, "PYTHONPATH": str(Path(desktop).resolve())}
                env.pop("PAPERPILOT_HOME", None)
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                done = subprocess.run([sys.executable, "-c", _CHILD, str(folder)], env=env, cwd=work,
                                      capture_output=True, text=True, check=True)  # fmt: skip
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                r = json.loads(done.stdout.strip().splitlines()[-1])
                speed[label].append(r["pages"] / r["wall"])
                used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                cpu[label].append(1000 * used / r["pages"])
        print(f"{r['files']} files, {r['pages']} pages, {args.runs} runs per tree, alternating")
        for label in trees:
            q = statistics.quantiles(speed[label], n=4)
            print(f"{label:8s} {statistics.median(speed[label]):6.0f} pages/s (quartiles {q[0]:.0f}-{q[2]:.0f}); "
                  f"CPU {statistics.median(cpu[label]):.2f} ms per page (all processes, start-up included)")  # fmt: skip
        first, *others = trees
        for label in others:
            ratios = [a / b for a, b in zip(speed[label], speed[first], strict=True)]
            print(f"{label}/{first}: median of run ratios {statistics.median(ratios):.3f}, ratio of medians "
                  f"{statistics.median(speed[label]) / statistics.median(speed[first]):.3f}")  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
