"""Metadata accuracy on publisher layouts we have no real files of: tune and held-out halves.

    .venv/bin/python tests/bench/bench_publisher_metadata.py [DIR] [--show] [--show-held-out]

Generates the papers of make_publisher_pdfs.py into DIR (a temporary folder by default; kept
when DIR is given and already holds them), reads each with the importer's extractor (no online
lookup) and prints per-field exact-match rates for the ``tune`` and ``held_out`` halves, whose
split make_publisher_pdfs.py fixes by seed. ``--show`` lists the wrong fields of the tune half
only: the held-out half is for reporting, and ``--show-held-out`` is there to explain a number
after the work is done, not to tune on. Scoring is bench_metadata.py's.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_metadata import FIELDS, extract, field_ok, rate
from make_publisher_pdfs import build


def _names(v: Any) -> Any:
    if isinstance(v, list):
        return [a.get("literal") or f"{a.get('given', '')}|{a.get('family', '')}" for a in v]
    return v


def score(folder: Path, show: set[str]) -> dict[str, dict[str, list[int]]]:
    truth = json.loads((folder / "metadata_truth.json").read_text(encoding="utf-8"))
    groups: dict[str, dict[str, list[int]]] = {}
    for e in truth["entries"]:
        got, sources, conf, check, failure = extract(folder / e["file"])
        wrong = []
        for f in FIELDS:
            ok = field_ok(f, got, e)
            if ok is None:
                continue
            for g in (e["split"], f"{e['split']}:{e['family']}", f"batch{e.get('batch', 1)}/{e['split']}"):
                cell = groups.setdefault(g, {}).setdefault(f, [0, 0])
                cell[0] += int(ok)
                cell[1] += 1
            if not ok:
                wrong.append(f)
        if e["split"] in show:
            print(f"{'ok ' if not wrong else 'BAD'} {e['file']} conf={conf} check={check} {failure}")
            for f in wrong:
                print(f"    {f}: got {_names(got.get(f))!r} want {_names(e.get(f))!r} (source {sources.get(f)})")
    return groups


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path, nargs="?", help="folder for the generated papers (kept)")
    ap.add_argument("--show", action="store_true", help="list the wrong fields of the tune half")
    ap.add_argument("--show-held-out", action="store_true", help="also list the held-out half's wrong fields")
    ap.add_argument("--families", action="store_true", help="also print the wrong counts per family (of the halves shown)")
    ap.add_argument("--json", type=Path, help="also write the rates as JSON here")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="pp-bench-pub-") as tmp:
        folder = args.dir or Path(tmp)
        if not (folder / "metadata_truth.json").exists():
            build(folder)
        show = ({"tune"} if args.show else set()) | ({"held_out"} if args.show_held_out else set())
        t0 = time.perf_counter()
        groups = score(folder, show)
        elapsed = time.perf_counter() - t0
    print("| field | tune | held-out |")
    print("|---|---|---|")
    for f in FIELDS:
        print(f"| {f} | {rate(groups.get('tune', {}).get(f))} | {rate(groups.get('held_out', {}).get(f))} |")
    for half in ("tune", "held_out", *(f"batch{b}/{h}" for b in (1, 2, 3, 4, 5) for h in ("tune", "held_out"))):
        cells = groups.get(half, {})
        right, total = sum(c[0] for c in cells.values()), sum(c[1] for c in cells.values())
        print(f"{half}: {right}/{total} fields right ({100 * right / max(total, 1):.0f} %)")
    if args.families:
        for g in sorted(k for k in groups if ":" in k and k.split(":")[0] in (show or {"tune"})):
            cells = groups[g]
            print(g, " ".join(f"{f}={c[0]}/{c[1]}" for f, c in cells.items() if c[0] < c[1]) or "all right")
    print(f"{elapsed:.1f} s")
    if args.json:
        args.json.write_text(json.dumps(groups, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
