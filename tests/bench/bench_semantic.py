"""Search by meaning on HotpotQA (500 dev questions, 4,858 pooled paragraphs), measured: run by hand.

    python tests/bench/bench_semantic.py [--home /tmp/semantic-bench/home] [--skip-loop]

1. Embeds the pooled library once (the bundled model; ~10–25 min on 2 shared cores) and keeps
   it in ``--home`` for the next runs.
2. One search from the question: every supporting paragraph in the top 6 / top 10, and the
   share of supporting paragraphs in the top 6, for keyword (Tantivy BM25), meaning (dense
   cosine) and hybrid (weighted reciprocal-rank fusion). The fusion's weight and constant are
   chosen on the even lines ("tune") and reported on the odd lines ("heldout"), held-out first.
3. Hybrid search latency (the library's ``search(mode="hybrid")``, query embedding included,
   and without it), p50 / p95.
4. The offline agent loop's "both supporting paragraphs read": keyword-only library vs the
   same library with vectors (the search tool's default then is hybrid).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED, percentile

from paperpilot.core.app import Session, eval_library
from paperpilot.core.evaluation.hotpotqa import EvalItem, format_table, load_dataset, run_eval
from paperpilot.core.library import Library
from paperpilot.core.library.semantic import HYBRID_DENSE_WEIGHT, HYBRID_RRF_C, Semantic, fuse
from paperpilot.core.retrieval import BundledEmbedder

DATASET = SHARED / "hotpotqa" / "hotpot_dev500.jsonl"
DEPTH = 30
WEIGHTS = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
CONSTANTS = [1, 5, 10, 20, 60]


def with_vectors(home: Path) -> Library:
    lib = eval_library(home)
    lib.semantic = Semantic(lib.paths.database, BundledEmbedder, search_threads=2)
    return lib


def embed(home: Path) -> None:
    """Import the pool (when missing) and embed what is not embedded yet."""
    # The eval library's chunking (one paragraph, one passage), as bench_agent.py imports it.
    with Session(home, library=with_vectors(home)) as s:
        _items, paragraphs = load_dataset(DATASET)
        have = {d.external_id for d in s.library.list_documents()}
        missing = [p for p in paragraphs if p.pid not in have]
        if missing:
            corpus = home / "corpus.jsonl"
            with corpus.open("w", encoding="utf-8") as f:
                for p in missing:
                    f.write(json.dumps({"id": p.pid, "title": p.title, "text": p.text}, ensure_ascii=False) + "\n")
            s.library.import_paths([corpus])
        t = time.perf_counter()
        result = s.embed_library(
            threads=2, batch_size=32, progress=lambda d, n: print(f"  embedded {d}/{n}", file=sys.stderr)
        )
        print(f"embedding: {result.embedded} new in {time.perf_counter() - t:.0f} s; {result.done}/{result.total}")


def rankings(lib: Library, items: list[EvalItem]) -> dict[str, tuple[list[tuple[int, float]], list[tuple[int, float]]]]:
    """Each question's keyword and dense top ``DEPTH`` (chunk id, score)."""
    assert lib.semantic is not None
    out = {}
    for it in items:
        kw = lib._keyword(it.question, DEPTH, {"doc_ids": None, "year_from": None, "year_to": None, "kinds": None})
        dense = lib.semantic.search(it.question, DEPTH)
        out[it.qid] = (kw, dense)
    return out


def scores(ranked: list[int], support: set[str], pid_of: dict[int, str]) -> tuple[bool, bool, float]:
    top6 = {pid_of.get(c, "") for c in ranked[:6]}
    top10 = {pid_of.get(c, "") for c in ranked[:10]}
    return support <= top6, support <= top10, len(support & top6) / max(1, len(support))


def table(name: str, rows: list[tuple[bool, bool, float]]) -> str:
    n = max(1, len(rows))
    return (
        f"| {name} | {100 * sum(r[0] for r in rows) / n:.1f} % | {100 * sum(r[1] for r in rows) / n:.1f} % "
        f"| {sum(r[2] for r in rows) / n:.3f} |"
    )


def retrieval(home: Path) -> None:
    items, _paragraphs = load_dataset(DATASET)
    lib = with_vectors(home)
    try:
        pid_of = {}
        doc_pid = {d.doc_id: d.external_id for d in lib.list_documents()}
        for row in lib.store.iter_chunks_for_index():
            pid_of[row.chunk_id] = doc_pid.get(row.doc_id, "")
        tune = [it for it in items if it.line % 2 == 0]
        held = [it for it in items if it.line % 2 == 1]
        t = time.perf_counter()
        ranks = rankings(lib, items)
        print(f"(searched {len(items)} questions both ways in {time.perf_counter() - t:.0f} s)")

        def run(its: list[EvalItem], how: str, w: float = 0.0, c: float = 0.0) -> list[tuple[bool, bool, float]]:
            rows = []
            for it in its:
                kw, dense = ranks[it.qid]
                if how == "keyword":
                    order = [cid for cid, _ in kw]
                elif how == "meaning":
                    order = [cid for cid, _ in dense]
                elif how == "rerank":
                    order = reranked[it.qid]
                else:
                    order = [r.chunk_id for r in fuse(kw, dense, weight=w, c=c)]
                rows.append(scores(order, set(it.supporting), pid_of))
            return rows

        # The keyword candidates reordered by their stored vectors' cosine with the question.
        assert lib.semantic is not None
        reranked: dict[str, list[int]] = {}
        for it in items:
            kw = [cid for cid, _ in ranks[it.qid][0]]
            vecs = lib.semantic.vectors(kw)
            q = lib.semantic.query_vector(it.question)
            reranked[it.qid] = sorted(kw, key=lambda c: -float(vecs[c] @ q) if c in vecs else 0.0)

        grid = [(w, c) for w in WEIGHTS for c in CONSTANTS]
        # Chosen on the tuning lines: both supporting paragraphs in the top 6 plus in the top 10.
        best = max(grid, key=lambda wc: sum(r[0] + r[1] for r in run(tune, "hybrid", *wc)))
        head = "| search | all supporting in top 6 | in top 10 | support recall@6 |\n|---|---|---|---|"
        for label, its in (("held out (odd lines)", held), ("tuning (even lines)", tune)):
            print(f"\n### {label}, n={len(its)}\n\n{head}")
            print(table("keyword (BM25)", run(its, "keyword")))
            print(table("meaning (e5-small cosine)", run(its, "meaning")))
            print(table(f"keyword top {DEPTH} reranked by stored vectors", run(its, "rerank")))
            print(table("hybrid, unweighted RRF (w 0.5, c 60)", run(its, "hybrid", 0.5, 60)))
            print(table(f"hybrid, shipped (w {HYBRID_DENSE_WEIGHT}, c {HYBRID_RRF_C})", run(its, "hybrid", HYBRID_DENSE_WEIGHT, HYBRID_RRF_C)))
            print(table(f"hybrid, best on tuning (w {best[0]}, c {best[1]})", run(its, "hybrid", *best)))
        print("\ntuning grid (even lines): all supporting in top 6 / in top 10, %")
        for w in WEIGHTS:
            cells = []
            for c in CONSTANTS:
                rows = run(tune, "hybrid", w, c)
                cells.append(f"c{c} {100 * sum(r[0] for r in rows) / len(tune):.1f}/{100 * sum(r[1] for r in rows) / len(tune):.1f}")
            print(f"  w {w}: " + "  ".join(cells))

        # latency: first searches of each question text (the query vector cache emptied)
        assert lib.semantic is not None
        lib.semantic._queries.clear()
        whole, without = [], []
        for it in held[:200]:
            t0 = time.perf_counter()
            lib.search(it.question, 6, mode="hybrid")
            whole.append(1000 * (time.perf_counter() - t0))
            t0 = time.perf_counter()
            lib.search(it.question, 6, mode="hybrid")  # the query's vector is cached now
            without.append(1000 * (time.perf_counter() - t0))
        print(
            f"\nhybrid search latency, 4,858 passages ({len(whole)} questions): with the query's embedding "
            f"p50 {percentile(whole, 50):.1f} / p95 {percentile(whole, 95):.1f} ms; without it (cached) "
            f"p50 {percentile(without, 50):.1f} / p95 {percentile(without, 95):.1f} ms"
        )
    finally:
        lib.close()


def loop(home: Path, limit: int | None) -> None:
    s = Session(home / "settings-home")
    for label, opener in (("keyword only", eval_library), ("with vectors (hybrid)", with_vectors)):
        t = time.perf_counter()
        report = run_eval(
            DATASET, ["loop"], policy="offline", limit=limit, home=home, open_library=opener,
            make_policy=lambda name, config: s.make_policy("offline"),
        )  # fmt: skip
        print(f"\n### offline loop, {label} ({time.perf_counter() - t:.0f} s)\n")
        print(format_table(report))
    s.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("/tmp/semantic-bench/home"))
    ap.add_argument("--skip-embed", action="store_true")
    ap.add_argument("--skip-loop", action="store_true")
    ap.add_argument("--skip-retrieval", action="store_true")
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    if not DATASET.exists():
        raise SystemExit(f"{DATASET} not found (the benchmark needs ../shared/data)")
    if not args.skip_embed:
        embed(args.home)
    if not args.skip_retrieval:
        retrieval(args.home)
    if not args.skip_loop:
        loop(args.home, args.limit)


if __name__ == "__main__":
    main()
