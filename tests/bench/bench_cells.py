"""Cell accuracy of the offline literature matrix against cells labelled by reading the papers.

    .venv/bin/python tests/bench/bench_cells.py [--home DIR] [--split tune|held|all] [--show]

The labels (tests/bench/data/cell_labels.json) say, per paper and default column, which
sentences answer the column's question ("right"), which answer it in part ("ok"), or that the
paper does not say ("none"). A cell is: right, acceptable, wrong (a sentence that does not
answer), wrongly not stated (the paper says it), or wrongly found (the paper does not say it,
the cell says something). Half the papers ("held") were not looked at while tuning the cues.
``--home`` keeps the imported library between runs (the import is most of the time).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import unicodedata
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _util import ROOT, SHARED

from paperpilot.core.app import Session
from paperpilot.core.workflows.matrix import create_matrix, run_matrix
from paperpilot.core.workflows.selection import PaperSelection

LABELS = Path(__file__).resolve().parent / "data" / "cell_labels.json"
VERDICTS = ["right", "acceptable", "wrong", "wrongly not stated", "wrongly found"]


def papers() -> list[Path]:
    pdfs = sorted((SHARED / "pdfs").glob("*.pdf")) + sorted(
        p for p in (SHARED / "pdfs_dev").glob("*.pdf") if p.name.startswith(("en_", "mixed_"))
    )
    return [*pdfs, *sorted((ROOT / "resources" / "sample").glob("*.md"))]


def norm(text: str) -> str:
    # Hyphenation, spacing and PDF glyph residue differ between a cell and the label's phrase.
    return "".join(re.findall(r"\w", unicodedata.normalize("NFKC", text).lower().replace("\ufffe", "")))


def verdict(label: dict, status: str, text: str) -> str:
    t = norm(text)
    hit = lambda key: any(norm(p) and norm(p) in t for p in label.get(key, []))  # noqa: E731
    if label.get("none"):
        if status != "found":
            return "right"
        return "acceptable" if hit("ok") else "wrongly found"
    if status != "found":
        return "wrongly not stated"
    if hit("right"):
        return "right"
    return "acceptable" if hit("ok") else "wrong"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", help="library home to reuse (imported once)")
    ap.add_argument("--split", choices=["tune", "held", "all"], default="all")
    ap.add_argument("--show", action="store_true", help="print every cell with its verdict")
    args = ap.parse_args()
    labels = json.loads(LABELS.read_text(encoding="utf-8"))["papers"]
    import tempfile

    home = args.home or tempfile.mkdtemp(prefix="pp-cells-")
    s = Session(home)
    if not s.library.list_documents():
        s.import_paths(papers())
    docs = {d.file_name: d for d in s.library.list_documents()}
    chosen = [n for n, lab in labels.items() if args.split == "all" or lab["split"] == args.split]
    ids = [docs[n].doc_id for n in chosen if n in docs]
    m = create_matrix(s.workflows, s.library, PaperSelection(doc_ids=ids))
    t = time.perf_counter()
    cells = [p for p in run_matrix(s.workflows, m, s.library) if p.cell is not None]
    seconds = time.perf_counter() - t
    by_split: dict[str, Counter[str]] = {"tune": Counter(), "held": Counter()}
    by_col: dict[str, Counter[str]] = {}
    for p in cells:
        assert p.cell is not None
        name = p.row.title and next(n for n, d in docs.items() if d.doc_id == p.row.doc_id)
        lab = labels[name]
        v = verdict(lab[p.column.key], p.cell.status, p.cell.text)
        by_split[lab["split"]][v] += 1
        by_col.setdefault(p.column.key, Counter())[v] += 1
        if args.show:
            print(f"[{lab['split']}] {name[:28]:28} {p.column.key:11} {v:18} {p.cell.text[:220]!r}")
    print(f"{len(cells)} cells in {seconds:.1f} s")
    print("| split | " + " | ".join(VERDICTS) + " | right + acceptable |")
    print("|---|" + "---|" * (len(VERDICTS) + 1))
    for split, c in [*by_split.items(), ("all", by_split["tune"] + by_split["held"])]:
        n = sum(c.values())
        if n:
            print(f"| {split} ({n}) | " + " | ".join(str(c[v]) for v in VERDICTS)
                  + f" | {100 * (c['right'] + c['acceptable']) / n:.0f}% |")  # fmt: skip
    for col, c in by_col.items():
        print(f"  {col:11} " + ", ".join(f"{v} {c[v]}" for v in VERDICTS if c[v]))
    s.close()


if __name__ == "__main__":
    main()
