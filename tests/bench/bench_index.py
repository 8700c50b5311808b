"""Index 100k synthetic paragraphs; time the build and 200 searches through the document-pool API
(snippets included). Target: search p95 <= 5 ms."""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import percentile, run_child


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--paragraphs", type=int, default=100_000)
    ap.add_argument("--per-doc", type=int, default=100)
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pp-bench-index-"))
    res = run_child(f"""
        import random, time, json
        from pathlib import Path
        from paperpilot.core.library import Library
        from paperpilot.core.settings.paths import app_paths
        rng = random.Random(7)
        syll = ["ka","lo","mi","ne","ru","sa","ti","vo","xe","zu","bra","pel","tor","gan","qui","dem","fos","lin"]
        vocab = sorted({{"".join(rng.choice(syll) for _ in range(rng.randint(2, 4))) for _ in range(40000)}})
        rng.shuffle(vocab)
        weights = [1.0 / (i + 1) for i in range(len(vocab))]  # Zipf-like
        def sentence():
            w = rng.choices(vocab, weights, k=rng.randint(8, 20))
            return " ".join(w).capitalize() + "."
        def paragraph():
            return " ".join(sentence() for _ in range(rng.randint(3, 6)))
        folder = Path({str(work)!r}) / "docs"; folder.mkdir(parents=True)
        n, per = {args.paragraphs}, {args.per_doc}
        t = time.perf_counter()
        for d in range(n // per):
            body = "\\n\\n".join(paragraph() for _ in range(per))
            (folder / f"doc{{d:05}}.txt").write_text(f"Synthetic document {{d}}\\n\\n" + body)
        gen = time.perf_counter() - t
        lib = Library(app_paths({str(work / "home")!r}))
        t = time.perf_counter(); rep = lib.import_paths([folder]); imp = time.perf_counter() - t
        chunks = sum(d.chunks for d in rep.imported)
        t = time.perf_counter(); lib.reindex(); rebuild = time.perf_counter() - t
        mid = vocab[200:5000]
        queries = [" ".join(rng.sample(mid, rng.randint(2, 4))) for _ in range({args.queries})]
        lat = []
        for q in queries:
            t = time.perf_counter(); hits = lib.search(q, k=3); lat.append((time.perf_counter() - t) * 1000)
        lat6 = []
        for q in queries:
            q2 = q + " " + rng.choice(mid)
            t = time.perf_counter(); lib.search(q2, k=6); lat6.append((time.perf_counter() - t) * 1000)
        lib.close()
        RESULT = {{"docs": len(rep.imported), "chunks": chunks, "gen_s": gen, "import_s": imp, "reindex_s": rebuild,
                   "lat": lat, "lat6": lat6}}
    """)
    lat, lat6 = res["lat"], res["lat6"]
    print(f"{res['docs']} documents, {res['chunks']} chunks from {args.paragraphs} paragraphs")
    print(
        f"import (chunk + store + index): {res['import_s']:.1f} s; full reindex from SQLite: {res['reindex_s']:.1f} s"
    )
    print(
        f"search k=3 ({len(lat)} queries, snippets included): p50 {percentile(lat, 50):.2f} ms, "
        f"p95 {percentile(lat, 95):.2f} ms, max {max(lat):.2f} ms"
    )
    print(f"search k=6: p50 {percentile(lat6, 50):.2f} ms, p95 {percentile(lat6, 95):.2f} ms")
    print(f"peak RSS {res['peak_rss_mb']:.0f} MB")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
