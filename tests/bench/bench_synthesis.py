"""Research questions across the library (issue 26): how well they are recognised and their scope read.

Over ``tests/bench/data/synthesis_questions.jsonl`` (the held-out split first, then dev), against the
library of ``synthesis_library.json`` and its fixed clock: recognition (synthesis or look-up), the
scope read exactly (years, collections, tags, authors, venues, kinds: all fields, and each), the facets
asked, the tasks, and the generic words (about the library, the task, the facets or the scope) that
the question analysis still takes for concepts — which must be 0. The topic words the analysis keeps
(the ``topic`` of each question) are reported beside it.

With ``--library HOME`` it also imports the library into HOME (once; OCR and embeddings off, so
the search is by keyword), files its collections and tags, and measures the plan's first step
(``synthesis_plan.select_papers``): the relevant papers selected (recall), the irrelevant ones
(precision) and the papers selected outside the expected scope (violations, must be 0), by the
metadata the library extracted itself. Later: the papers an answer cites.

    PYTHONPATH=desktop .venv/bin/python tests/bench/bench_synthesis.py [--json] [--show] [--library HOME]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from collections import defaultdict
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import ROOT, SHARED, percentile

from paperpilot.core.agent.analysis import analyze
from paperpilot.core.agent.synthesis import LibraryFacts, parse_synthesis

DATA = ROOT / "tests" / "bench" / "data"
SCOPE_FIELDS = ("years", "collections", "tags", "authors", "venues", "kinds")

# What a synthesis question says about the library, the papers as papers, the task, the facets and
# the scope: none of it is a concept the papers must mention. Written from the issue, independent
# of the parser's own word lists.
GENERIC_EN = {
    "library", "collection", "paper", "papers", "article", "articles", "study", "studies", "literature",
    "research", "progress", "compare", "comparison", "directions", "direction", "suggest", "promising", "overview",
    "summarise", "summarize", "last", "past", "years", "year", "three", "five", "ten", "each", "across",
    "these", "conclude", "findings", "find", "found", "method", "methods", "evaluation", "evaluated", "populations",
    "limitations", "future", "open", "questions", "problems", "published", "tagged", "review", "reviews",
    "conference", "preprints", "contribute", "datasets", "sample", "sizes", "since",
}  # fmt: skip
GENERIC_ZH = {
    "库中", "这些论文", "论文", "文献", "研究", "进展", "研究进展", "方向", "建议", "方向建议", "对比", "比较", "总结",
    "帮我", "一下", "值得", "投稿", "近三年", "近五年", "过去两年", "发现", "主要发现", "方法", "局限性", "局限",
    "未来", "研究方向", "结论", "数据集", "评价指标", "研究对象", "学位论文", "期刊论文", "标签", "发表", "哪些",
}  # fmt: skip


def _library_facts() -> tuple[LibraryFacts, datetime]:
    lib = json.loads((DATA / "synthesis_library.json").read_text(encoding="utf-8"))
    truth = json.loads((DATA / "metadata_truth.json").read_text(encoding="utf-8"))
    authors: list[str] = []
    venues: list[str] = []
    for e in truth["entries"]:
        for a in e.get("authors") or []:
            authors.append(a.get("literal") or " ".join(x for x in (a.get("given"), a.get("family")) if x))
        if e.get("container_title"):
            venues.append(e["container_title"])
    for f in sorted((ROOT / "resources" / "sample").glob("*.md")):
        head = f.read_text(encoding="utf-8").split("---")[1]
        m = re.search(r"^authors:\s*\[(.*)\]", head, re.M)
        authors += [a.strip() for a in m.group(1).split(",")] if m else []
        m = re.search(r"^venue:\s*(.+)$", head, re.M)
        venues += [m.group(1).strip()] if m else []
    facts = LibraryFacts(
        collections=tuple(lib["collections"]),
        tags=tuple(lib["tags"]),
        authors=tuple(dict.fromkeys(authors)),
        venues=tuple(dict.fromkeys(venues)),
    )
    return facts, datetime.fromisoformat(lib["now"])


def _generic_concepts(question: str, lang: str, topic: list[str]) -> list[str]:
    a = analyze(question)
    words = {p.text for p in a.parts if p.kind in ("entity", "concept")} | set(a.entities)
    for c in a.concepts:
        words |= {c, *c.lower().split()}
    generic = GENERIC_ZH if lang == "zh" else GENERIC_EN
    # A word the question's topic is about ("bird populations") is no generic word there.
    own = {t.lower() for t in topic} | {w.lower() for t in topic for w in t.split()}
    return sorted(w for w in words if (w.lower() in generic or w in generic) and w.lower() not in own)


def evaluate(items: list[dict[str, Any]], facts: LibraryFacts, now: datetime) -> list[dict[str, Any]]:
    rows = []
    for x in items:
        f = LibraryFacts(**{**facts.__dict__, "open_collection": x.get("open_collection")})
        t0 = time.perf_counter()
        r = parse_synthesis(x["question"], f, now.date())
        ms = (time.perf_counter() - t0) * 1000
        row: dict[str, Any] = {"id": x["id"], "split": x["split"], "lang": x["lang"], "type": x["type"], "ms": ms,
                               "recognised": (r is not None) == x["synthesis"], "synthesis": x["synthesis"]}  # fmt: skip
        if x["synthesis"]:
            got = r.scope.to_data() if r is not None else {}
            want = x["scope"]
            row["fields"] = {k: r is not None and got[k] == want[k] for k in SCOPE_FIELDS}
            row["scope"] = all(row["fields"].values())
            row["facets"] = r is not None and set(r.facets) == set(x["facets"])
            row["tasks"] = r is not None and set(r.tasks) == set(x["tasks"])
            row["got"] = r.to_data() if r is not None else None
            a = analyze(x["question"])
            kept = {w.lower() for c in [*a.entities, *a.concepts] for w in [c, *c.split()]}
            row["topic_kept"] = [w for w in x["topic"] if w.lower() in kept or any(w in c for c in a.concepts)]
            row["topic_total"] = len(x["topic"])
        row["generic"] = _generic_concepts(x["question"], x["lang"], x["topic"]) if x["synthesis"] else []
        rows.append(row)
    return rows


def _share(rows: list[dict[str, Any]], key: str) -> str:
    done = [r for r in rows if key in r]
    return f"{sum(bool(r[key]) for r in done)}/{len(done)}" if done else "–"


def report(rows: list[dict[str, Any]], show: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for split in ("heldout", "dev"):
        part = [r for r in rows if r["split"] == split]
        syn = [r for r in part if r["synthesis"]]
        summary = {
            "questions": len(part),
            "recognised": _share(part, "recognised"),
            "look_ups_kept_out": _share([r for r in part if not r["synthesis"]], "recognised"),
            "scope_exact": _share(syn, "scope"),
            "scope_fields": {k: f"{sum(r['fields'][k] for r in syn)}/{len(syn)}" for k in SCOPE_FIELDS},
            "facets_exact": _share(syn, "facets"),
            "tasks_exact": _share(syn, "tasks"),
            "generic_words_as_concepts": sum(len(r["generic"]) for r in part),
            "topic_words_kept": f"{sum(len(r['topic_kept']) for r in syn)}/{sum(r['topic_total'] for r in syn)}",
        }
        by_type: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in syn:
            by_type[f"{r['type']} ({r['lang']})"].append(r)
        summary["by_type"] = {
            t: {"n": len(rs), "recognised": _share(rs, "recognised"), "scope": _share(rs, "scope"), "facets": _share(rs, "facets")}
            for t, rs in sorted(by_type.items())
        }
        out[split] = summary
        print(f"== {split}: {len(part)} questions ({len(syn)} synthesis, {len(part) - len(syn)} look-ups)")
        for k in ("recognised", "look_ups_kept_out", "scope_exact", "facets_exact", "tasks_exact",
                  "generic_words_as_concepts", "topic_words_kept"):  # fmt: skip
            print(f"   {k:<27} {summary[k]}")
        print("   scope fields               " + "  ".join(f"{k} {v}" for k, v in summary["scope_fields"].items()))
        for t, s in summary["by_type"].items():
            print(f"   {t:<24} n={s['n']:<2} recognised {s['recognised']:<6} scope {s['scope']:<6} facets {s['facets']}")
        for r in part:
            wrong = not r["recognised"] or not r.get("scope", True) or not r.get("facets", True) or r["generic"]
            if wrong or show:
                bad = [k for k, ok in r.get("fields", {}).items() if not ok]
                print(f"   {'✗' if wrong else '·'} {r['id']}: recognised={r['recognised']} scope-wrong={bad} "
                      f"facets={r.get('facets')} generic={r['generic']} got={r.get('got')}")  # fmt: skip
    ms = [r["ms"] for r in rows]
    out["parse_ms"] = {"median": statistics.median(ms), "p95": percentile(ms, 95)}
    print(f"parse time per question: median {out['parse_ms']['median']:.2f} ms, p95 {out['parse_ms']['p95']:.2f} ms")
    return out


def _truth() -> dict[str, dict[str, Any]]:
    """Year, authors, venue and kind of each file, as printed (metadata_truth.json, front matter)."""
    lib = json.loads((DATA / "synthesis_library.json").read_text(encoding="utf-8"))
    truth = json.loads((DATA / "metadata_truth.json").read_text(encoding="utf-8"))
    out: dict[str, dict[str, Any]] = {}
    for e in truth["entries"]:
        names = [a.get("literal") or " ".join(x for x in (a.get("given"), a.get("family")) if x) for a in e.get("authors") or []]
        out[e["file"]] = {"year": e.get("year"), "authors": names, "venue": e.get("container_title") or ""}
    for f in sorted((ROOT / "resources" / "sample").glob("*.md")):
        head = f.read_text(encoding="utf-8").split("---")[1]
        year = re.search(r"^year:\s*(\d{4})", head, re.M)
        authors = re.search(r"^authors:\s*\[(.*)\]", head, re.M)
        venue = re.search(r"^venue:\s*(.+)$", head, re.M)
        out[f"sample/{f.name}"] = {"year": int(year.group(1)) if year else None,
                                   "authors": [a.strip() for a in authors.group(1).split(",")] if authors else [],
                                   "venue": venue.group(1).strip() if venue else ""}  # fmt: skip
    for kind, files in lib["kinds"].items():
        for f in files:
            out[f].setdefault("kinds", set()).add(kind)
    for f, t in out.items():
        kinds = t.setdefault("kinds", set())
        if not kinds & {"review", "thesis"}:
            kinds.add("research")
        if f.startswith("pdfs") and "conference" not in kinds and "preprint" not in kinds and "thesis" not in kinds:
            kinds.add("journal")
    return out


def _allowed(x: dict[str, Any], truth: dict[str, dict[str, Any]], lib: dict[str, Any]) -> set[str]:
    """The files the expected scope allows, by the printed metadata."""
    sc = x["scope"]
    ok = set(lib["files"])
    if sc["years"]:
        a, b = sc["years"]
        ok = {f for f in ok if truth[f]["year"] is not None and (a is None or truth[f]["year"] >= a)
              and (b is None or truth[f]["year"] <= b)}  # fmt: skip
    for c in sc["collections"]:
        ok &= {f for name, fs in lib["collections"].items() if name == c or name.startswith(c + "/") for f in fs}
    for t in sc["tags"]:
        ok &= set(lib["tags"][t])
    if sc["authors"]:
        ok = {f for f in ok if any(a in truth[f]["authors"] for a in sc["authors"])}
    if sc["venues"]:
        ok = {f for f in ok if truth[f]["venue"] in sc["venues"]}
    if sc["kinds"]:
        ok = {f for f in ok if truth[f]["kinds"] & set(sc["kinds"])}
    return ok


def library_run(home: Path, items: list[dict[str, Any]], now: datetime) -> None:
    """The plan's first step over a real library: selected papers against the relevant ones."""
    from paperpilot.core.agent.synthesis_plan import select_papers
    from paperpilot.core.app import Session

    lib = json.loads((DATA / "synthesis_library.json").read_text(encoding="utf-8"))
    files = {f: (SHARED / f if f.startswith("pdfs") else ROOT / "resources" / f) for f in lib["files"]}
    s = Session(home)
    if not s.library.list_documents():
        settings = s.settings.model_copy(deep=True)
        settings.imports.ocr = False
        settings.embedding.enabled = False
        s.save_settings(settings)
        t = time.perf_counter()
        report = s.import_paths(list(files.values()))
        print(f"imported {len(report.imported)} of {len(files)} files in {time.perf_counter() - t:.1f} s")
        by_name = {Path(d.file_name or d.source_path).name: d.doc_id for d in s.library.list_documents()}
        for path, members in lib["collections"].items():
            s.collection_add(path, [by_name[Path(f).name] for f in members if Path(f).name in by_name])
        for tag, members in lib["tags"].items():
            s.tag([by_name[Path(f).name] for f in members if Path(f).name in by_name], add=[tag])
    name_of = {d.doc_id: Path(d.file_name or d.source_path).name for d in s.library.list_documents()}
    file_of = {Path(f).name: f for f in files}
    truth = _truth()
    for split in ("heldout", "dev"):
        stats: dict[str, list[float]] = defaultdict(list)
        violations = 0
        selected = relevant_total = hit_total = 0
        ms: list[float] = []
        for x in items:
            if x["split"] != split or not x["synthesis"]:
                continue
            facts = LibraryFacts.of(s.library, open_collection=x.get("open_collection"))
            r = parse_synthesis(x["question"], facts, now.date())
            if r is None:
                continue
            t = time.perf_counter()
            pick = select_papers(r, s.library)
            ms.append((time.perf_counter() - t) * 1000)
            chosen = [file_of.get(name_of.get(c.doc_id, ""), "?") for c in pick.chosen]
            allowed = _allowed(x, truth, lib)
            violations += sum(f not in allowed for f in chosen)
            relevant = set(x["relevant"])
            hit = len(relevant & set(chosen))
            selected += len(chosen)
            relevant_total += len(relevant)
            hit_total += hit
            if relevant:
                stats[x["type"]].append(hit / len(relevant))
            bad = [f for f in chosen if f not in allowed]
            print(f"   {x['id']}: {hit}/{len(relevant)} relevant, {len(chosen) - hit} other, more {pick.more}"
                  + (f", OUTSIDE the scope: {bad}" if bad else ""))  # fmt: skip
        if not ms:
            continue
        print(f"== {split} (library): relevant papers selected {hit_total}/{relevant_total} "
              f"(recall {hit_total / max(1, relevant_total):.2f}), precision {hit_total / max(1, selected):.2f}, "
              f"scope violations {violations}; select p50 {percentile(ms, 50):.0f} ms, p95 {percentile(ms, 95):.0f} ms")  # fmt: skip
        for kind, rs in sorted(stats.items()):
            print(f"   {kind:<14} recall {statistics.mean(rs):.2f} over {len(rs)} questions")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print the summary as JSON at the end")
    ap.add_argument("--show", action="store_true", help="list every question, not only the wrong ones")
    ap.add_argument("--library", type=Path, help="import the library into this home (once) and measure paper selection")
    args = ap.parse_args()
    items = [json.loads(line) for line in (DATA / "synthesis_questions.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    facts, now = _library_facts()
    rows = evaluate(items, facts, now)
    summary = report(rows, args.show)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
    if args.library:
        library_run(args.library, items, now)


if __name__ == "__main__":
    main()
