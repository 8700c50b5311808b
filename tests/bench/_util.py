"""Helpers for the benchmarks: run a function in a child process and report its peak RSS."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The main checkout sits beside shared/; a git worktree is one or more levels further down.
SHARED = next(
    (p / "shared" / "data" for p in ROOT.parents if (p / "shared" / "data").is_dir()),
    ROOT.parent / "shared" / "data",
)


def run_child(code: str) -> dict:  # type: ignore[type-arg]
    """Run ``code`` in a fresh interpreter; it must print one JSON object as its last line."""
    wrapper = textwrap.dedent(code) + textwrap.dedent("""
        import resource as _r, json as _j
        print(_j.dumps({**RESULT, "peak_rss_mb": _r.getrusage(_r.RUSAGE_SELF).ru_maxrss / 1024}))
    """)
    r = subprocess.run([sys.executable, "-c", wrapper], capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        raise SystemExit(r.stderr)
    return json.loads(r.stdout.strip().splitlines()[-1])


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


__all__ = ["ROOT", "SHARED", "percentile", "resource", "run_child"]
