"""Chinese over Chinese through the library's own search, by mode: CMRC 2018 trial.

The 256 Wikipedia paragraphs are imported as a JSONL corpus into a fresh home, embedded with the
bundled model, and each of the 1,002 questions is searched as asked with ``Library.search`` in
each mode (keyword / meaning / hybrid). Printed: the question's paragraph among the first 1 / 3
distinct documents hit. ``bench_cjk.py`` measures the raw tokenizers; this measures what the
agent's search tool gets.

    .venv/bin/python tests/bench/bench_cmrc_modes.py [--home DIR] [--threads 2]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED

from paperpilot.core.app import Session


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, help="reuse (or make) this home; the corpus is imported once")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    data = json.loads((SHARED / "cmrc2018" / "cmrc2018_trial.squad.json").read_text(encoding="utf-8"))
    home = args.home or Path(tempfile.mkdtemp(prefix="pp-cmrc-"))
    os.environ["PAPERPILOT_HOME"] = str(home)
    questions: list[tuple[str, str]] = []
    lines = []
    for art in data["data"]:
        for p in art["paragraphs"]:
            lines.append(json.dumps({"id": p["id"], "title": art["title"], "text": p["context"]}, ensure_ascii=False))
            questions.extend((qa["question"], p["id"]) for qa in p["qas"])
    with Session(home) as s:
        if not s.library.list_documents():
            corpus = home / "cmrc.jsonl"
            corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
            s.import_paths([corpus])
        t = time.perf_counter()
        done = s.embed_library(threads=args.threads)
        print(f"embedded {done.embedded} passages in {time.perf_counter() - t:.0f} s")
        doc_of = {d.doc_id: d.external_id for d in s.library.list_documents()}
        print(f"{len(doc_of)} paragraphs, {len(questions)} questions")
        for mode in ("keyword", "meaning", "hybrid"):
            top1 = top3 = 0
            times = []
            for q, pid in questions:
                t = time.perf_counter()
                hits = s.library.search(q, 10, mode=mode)
                times.append(time.perf_counter() - t)
                docs = list(dict.fromkeys(doc_of.get(h.doc_id) for h in hits))
                top1 += docs[:1] == [pid]
                top3 += pid in docs[:3]
            times.sort()
            n = len(questions)
            print(f"{mode:8s} top 1 {top1 / n:6.1%}  top 3 {top3 / n:6.1%}  "
                  f"search p50 {times[n // 2] * 1000:.1f} ms, p95 {times[int(n * 0.95)] * 1000:.1f} ms")


if __name__ == "__main__":
    main()
