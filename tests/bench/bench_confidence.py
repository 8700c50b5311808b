"""The answer's confidence, calibrated for keyword-only libraries and for libraries with vectors.

Users get hybrid search by default once a library is embedded, so the confidence model must be
calibrated on both kinds of run. This benchmark runs the offline loop on HotpotQA twice per
question — keyword-only library, and the same library with vectors (the search tool's default
is then hybrid) — and fits one logistic model over both kinds on the tuning split (even line
numbers), reporting AUROC and ECE on the held-out split (odd line numbers) first, per kind, for
the shipped coefficients and the refit ones.

Two sets of runs, both offline policy, loop mode:

- ``devset``: bench_sufficiency.py's dev set (per split 100 unanswerable questions, 40
  out-of-library ones plus off-topic questions, 20 with a planted instruction), the set the
  shipped coefficients were fitted on. Its libraries (paragraphs removed per split) get their
  vectors from the pool embedded by bench_semantic.py: the same passage text has the same
  vector (matched by the vector store's text hash), so nothing is embedded again; questions
  are embedded by the bundled model as in use.
- ``pool``: the whole pool, answerable questions only (bench_semantic.py's loop, where the
  README's "AUROC 0.761 → 0.726 with vectors" was measured), split by line.

    python tests/bench/bench_confidence.py [--pool /tmp/semantic-bench/home] --dump rows.jsonl
    python tests/bench/bench_confidence.py --rows rows.jsonl          # fit and report only

The pool is copied to a temporary folder first (a run writes to its library). Rows (features,
label "right and fully supported", shipped confidence) go to ``--dump`` so fits can be redone
without running the loop again.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import SHARED

from paperpilot.core.agent import confidence
from paperpilot.core.app import Session, eval_library
from paperpilot.core.evaluation.hotpotqa import (
    EVAL_IMPORT,
    auroc,
    expected_calibration_error,
    run_eval,
)
from paperpilot.core.library import Library
from paperpilot.core.library.semantic import Semantic, vector_path
from paperpilot.core.retrieval import BundledEmbedder, VectorItem, VectorStore, passage_text, text_hash
from paperpilot.core.settings.paths import app_paths

DATASET = Path(os.environ.get("PAPERPILOT_SHARED_DATA", SHARED)) / "hotpotqa" / "hotpot_dev500.jsonl"
UNANSWERABLE, OUT_OF_LIBRARY, INJECT = 100, 40, 20  # as bench_sufficiency.py


def pool_vectors(pool_home: Path) -> dict[bytes, Any]:
    """text hash → vector, for every passage the pool has embedded (read from a copy)."""
    src = vector_path(app_paths(pool_home).database)
    if not src.exists():
        raise SystemExit(f"{src} not found: embed the pool first (bench_semantic.py --home {pool_home})")
    embedder = BundledEmbedder()
    with tempfile.TemporaryDirectory(prefix="pp-conf-pool-") as tmp:
        copy = Path(tmp) / src.name
        shutil.copy2(src, copy)
        con = sqlite3.connect(copy)
        rows = con.execute(
            "SELECT v.chunk_id, v.text_hash FROM vectors v JOIN models m ON m.id = v.model "
            "WHERE m.name = ? AND m.version = ?",
            embedder.model_key,
        ).fetchall()
        con.close()
        with VectorStore(copy, embedder.model_key) as store:
            vecs = store.vectors([cid for cid, _ in rows])
    return {bytes(h): vecs[cid] for cid, h in rows if cid in vecs}


class BorrowingLibrary(Library):
    """The evaluation's library with vectors for its passages taken from the embedded pool."""

    borrowed: ClassVar[dict[bytes, Any]] = {}

    def import_paths(self, paths: Iterable[Any], *args: Any, **kwargs: Any) -> Any:
        report = super().import_paths(paths, *args, **kwargs)
        self.borrow()
        return report

    def borrow(self) -> int:
        assert self.semantic is not None
        have = self.semantic.store.chunk_ids()
        items = []
        for cid, title, text, _kind in self.store.iter_chunks_for_embedding():
            h = text_hash(passage_text(title, text))
            if cid not in have and h in self.borrowed:
                items.append(VectorItem(cid, h, self.borrowed[h]))
        if items:
            self.semantic.store.add(items)
        return len(items)


def vector_library(home: Path) -> Library:
    lib = BorrowingLibrary(app_paths(home), settings=EVAL_IMPORT)
    lib.semantic = Semantic(lib.paths.database, BundledEmbedder, search_threads=2)
    lib.borrow()  # a library kept from an earlier run of this process
    return lib


def collect(pool: Path, sets: list[str], splits: list[str], limit: int | None = None) -> list[dict[str, Any]]:
    BorrowingLibrary.borrowed = pool_vectors(pool)
    print(f"{len(BorrowingLibrary.borrowed)} pooled passage vectors", file=sys.stderr)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pp-conf-") as tmp:
        work = Path(tmp)
        shutil.copytree(pool, work / "pool")
        session = Session(work / "settings")
        openers: dict[str, Callable[[Path], Library]] = {"keyword": eval_library, "vectors": vector_library}
        for which in sets:
            for split in splits:
                for kind, opener in openers.items():
                    devset = {"unanswerable": UNANSWERABLE, "out_of_library": OUT_OF_LIBRARY, "inject": INJECT}
                    t = time.perf_counter()
                    report = run_eval(
                        DATASET, ["loop"], policy="offline", split=split, limit=limit,
                        home=work / "devset" if which == "devset" else work / "pool",
                        open_library=opener, make_policy=lambda name, config: session.make_policy("offline"),
                        **(devset if which == "devset" else {}),
                    )  # fmt: skip
                    outs = [o for o in report.outcomes if o.system == "loop"]
                    print(f"{which} {split} {kind}: {len(outs)} questions in {time.perf_counter() - t:.0f} s",
                          file=sys.stderr)  # fmt: skip
                    for o in outs:
                        rows.append({"set": which, "split": split, "kind": kind, "qid": o.qid, "group": o.group,
                                     "status": o.status, "supported": bool(o.supported), "confidence": o.confidence,
                                     "both_read": o.both_read, "features": o.features})  # fmt: skip
        session.close()
    return rows


def probabilities(rows: list[dict[str, Any]], w: dict[str, float] | None) -> list[float]:
    """The confidence of each row under coefficients ``w`` (None: what the run reported).

    Rows without features stopped before an answer (nothing in the library): their reported
    confidence stands whatever the coefficients."""
    return [confidence.probability(r["features"], coefficients=w) if w is not None and r["features"]
            else r["confidence"] for r in rows]  # fmt: skip


def calibration(rows: list[dict[str, Any]], w: dict[str, float] | None) -> str:
    ps = probabilities(rows, w)
    ys = [r["supported"] for r in rows]
    mean = sum(ps) / max(1, len(ps))
    return (f"AUROC {auroc(ps, ys):.3f}, ECE {expected_calibration_error(ps, ys):.3f} "
            f"(mean confidence {mean:.3f}, right and fully supported {sum(ys) / max(1, len(ys)):.3f}, n={len(rows)})")  # fmt: skip


def report(rows: list[dict[str, Any]], fitted: dict[str, float] | None, shipped: dict[str, float]) -> None:
    for split in ("heldout", "tune"):
        for which in ("devset", "pool"):
            for kind in ("keyword", "vectors"):
                rs = [r for r in rows if r["split"] == split and r["set"] == which and r["kind"] == kind]
                if not rs:
                    continue
                print(f"{split:7} {which:6} {kind:8} as run:  {calibration(rs, None)}")
                print(f"{'':24} shipped: {calibration(rs, shipped)}")
                if fitted is not None:
                    print(f"{'':24} refit:   {calibration(rs, fitted)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pool", type=Path, default=Path("/tmp/semantic-bench/home"))
    ap.add_argument("--sets", default="devset,pool")
    ap.add_argument("--splits", default="tune,heldout")
    ap.add_argument("--limit", type=int, help="the first N questions only (a smoke test)")
    ap.add_argument("--dump", type=Path, help="write the rows here (JSON lines)")
    ap.add_argument("--rows", type=Path, help="read rows written by --dump instead of running the loop")
    ap.add_argument("--fit", action="store_true", help="fit on the tune split's devset rows (both kinds)")
    args = ap.parse_args()
    if args.rows:
        rows = [json.loads(line) for line in args.rows.read_text(encoding="utf-8").splitlines() if line.strip()]
    else:
        if not DATASET.exists():
            raise SystemExit(f"{DATASET} not found (the benchmark needs ../shared/data)")
        rows = collect(args.pool, args.sets.split(","), args.splits.split(","), args.limit)
        if args.dump:
            args.dump.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    fitted = None
    if args.fit:
        # The keyword-only model stays as it is (a library with nothing embedded keeps its
        # calibration); the terms only runs with vectors set are fitted over it, on the tune
        # split's runs with vectors of both sets.
        keyword_only = {k: v for k, v in confidence.COEFFICIENTS.items() if k not in confidence.DENSE_FEATURES}
        train = [(r["features"], int(r["supported"])) for r in rows
                 if r["split"] == "tune" and r["kind"] == "vectors" and r["features"]]  # fmt: skip
        fitted = {**keyword_only, **confidence.fit(train, features=confidence.DENSE_FEATURES, base=keyword_only)}
        print(f"COEFFICIENTS: the dense terms fitted on {len(train)} tune runs with vectors over the keyword-only "
              "model (paste into core/agent/confidence.py):")
        print(json.dumps(fitted, indent=4))
    report(rows, fitted, confidence.COEFFICIENTS)


if __name__ == "__main__":
    main()
