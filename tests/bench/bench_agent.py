"""The agent on HotpotQA (500 dev questions, 4,858 pooled paragraphs), offline policy.

(a) `paperpilot eval`: quick vs loop (and auto) next to one plain top-6 search, overall and
    on the hard questions; (b) loop overhead per round excluding the model: p50/p95 ms;
    (c) a whole offline answer on the 4,858-paragraph library: p50/p95 s per question.
Targets: round overhead p95 <= 20 ms; a whole answer <= 0.5 s.

    .venv/bin/python tests/bench/bench_agent.py [--limit N] [--modes quick,loop,auto] [--json FILE]

Writes only to a temporary folder (removed at the end), unless --json names a file.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED, percentile

from paperpilot.core.app import Session
from paperpilot.core.evaluation.hotpotqa import format_table

DATASET = SHARED / "hotpotqa" / "hotpot_dev500.jsonl"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dataset", type=Path, default=DATASET)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--modes", default="quick,loop,auto")
    ap.add_argument("--max-rounds", type=int, default=6)
    ap.add_argument(
        "--json", type=Path, default=None, help="also write the full report (with per-question rows)"
    )
    args = ap.parse_args()
    if not args.dataset.exists():
        raise SystemExit(f"{args.dataset} not found (the benchmark needs ../shared/data)")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]

    t = time.perf_counter()
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if now - last[0] > 5 or done == total:
            last[0] = now
            print(f"  … {done}/{total} runs ({now - t:.0f} s)", file=sys.stderr)

    with tempfile.TemporaryDirectory() as tmp:  # a throw-away home: no user settings, no key
        report = Session(tmp).evaluate(args.dataset, modes, policy="offline", limit=args.limit,
                                       max_rounds=args.max_rounds, into_home=False, progress=progress)  # fmt: skip
    print("## (a) eval, offline policy\n")
    print(format_table(report))

    print(
        "\n## (b) per round, offline policy: wall time, the policy's decision, and the rest (loop + tools)\n"
    )
    for mode in modes:
        rows = [o for o in report.outcomes if o.system == mode]
        wall = [ms for o in rows for ms in o.round_ms]
        decide = [ms for o in rows for ms in o.decide_ms]
        rest = [w - d for o in rows for w, d in zip(o.round_ms, o.decide_ms, strict=True)]
        print(
            f"{mode:>5}: {len(wall)} rounds; wall p50 {percentile(wall, 50):.2f} / p95 {percentile(wall, 95):.2f} ms; "
            f"policy p50 {percentile(decide, 50):.2f} / p95 {percentile(decide, 95):.2f} ms; "
            f"excluding the policy p50 {percentile(rest, 50):.2f} / p95 {percentile(rest, 95):.2f} ms "
            "(target p95 <= 20 ms)"
        )

    print("\n## (c) whole offline answer on the pooled library, per question\n")
    for mode in modes:
        secs = [o.seconds for o in report.outcomes if o.system == mode]
        print(
            f"{mode:>5}: p50 {1000 * percentile(secs, 50):.1f} ms, p95 {1000 * percentile(secs, 95):.1f} ms, "
            f"max {1000 * max(secs):.1f} ms (target <= 500 ms)"
        )
    print(
        f"\nlibrary: {report.paragraphs} paragraphs imported in {report.import_seconds:.1f} s; "
        f"whole benchmark {time.perf_counter() - t:.1f} s"
    )
    if args.json is not None:
        args.json.write_text(report.model_dump_json(indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
