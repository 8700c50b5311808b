"""The structure of real papers: chunk kinds, section paths and reference lists, per paper.

For every born-digital PDF in ../shared/data/pdfs and pdfs_dev (scanned ones have no text
layer and are skipped): chunks per kind, the references section (its first and last entry),
entries parsed against the count the list prints (its highest label, for numbered lists),
body chunks that look like captions or page furniture (pollution), and a sample of section
paths — the things to check by eye. ``--show DOC`` prints every chunk of one paper.

    .venv/bin/python tests/bench/bench_structure.py [--show NAME] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED

from paperpilot.core.citations.references import parse_references
from paperpilot.core.extract.chunker import chunk_document
from paperpilot.core.extract.pdf import extract_pdf
from paperpilot.core.models import ImportFailure
from paperpilot.core.text.kinds import ALL_KINDS

_CAPTION_START = re.compile(r"^(?:Figure|Fig\.|Table)\s*\d+[.:]|^[图表]\s*\d+\s")
_FURNITURE = re.compile(r"©|all rights reserved|licen[cs]ed under|creative commons|open access", re.IGNORECASE)
_LABEL = re.compile(r"^\s*\[(\d{1,4})\]|^\s*(\d{1,4})\.\s")


def _printed_count(paragraphs: list[str]) -> int | None:
    """The highest label a numbered list prints ([57] → 57); None for author-year lists."""
    labels = [int(m.group(1) or m.group(2)) for p in paragraphs for m in [_LABEL.match(p)] if m]
    labels = [n for n in labels if n < 1000]  # "2019. Title" is a year, not a label
    inline = [int(x) for p in paragraphs for x in re.findall(r"(?:^|\s)\[(\d{1,3})\]\s", p)]
    best = max(labels + inline, default=0)
    return best if best >= 3 else None


def measure(path: Path) -> dict[str, object]:
    t = time.perf_counter()
    ex = extract_pdf(path)
    chunks, ref_paras = chunk_document(ex.pages)
    refs = parse_references(ref_paras)
    secs = time.perf_counter() - t
    kinds = Counter(c.kind for c in chunks)
    body = [c for c in chunks if c.kind == "body"]
    polluted = [c.text[:80] for c in body if _CAPTION_START.match(c.text) or _FURNITURE.search(c.text)]
    paths = list(dict.fromkeys(c.section_path for c in chunks if c.section_path))
    fielded = sum(1 for r in refs if r.title and r.year and r.authors)
    return {
        "file": path.name,
        "chunks": len(chunks),
        "kinds": dict(kinds),
        "references_printed": _printed_count(ref_paras),
        "references_parsed": len(refs),
        "references_with_authors_title_year": fielded,
        "first_reference": refs[0].text[:110] if refs else "",
        "last_reference": refs[-1].text[:110] if refs else "",
        "body_polluted": polluted,
        "section_paths": paths[:6] + (["…"] if len(paths) > 6 else []) + paths[-2:] if len(paths) > 8 else paths,
        "seconds": round(secs, 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", help="print every chunk of the paper whose file name contains this")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    files = sorted((SHARED / "pdfs").glob("*.pdf")) + sorted((SHARED / "pdfs_dev").glob("*.pdf"))
    if args.show:
        path = next(f for f in files if args.show in f.name)
        chunks, ref_paras = chunk_document(extract_pdf(path).pages)
        for c in chunks:
            print(f"{c.seq:3} p{c.page:<2} {c.kind:16} [{c.section_path[:60]}] {c.text[:120]!r}")
        for r in parse_references(ref_paras):
            print(f"  REF [{r.label}] {r.authors[:3]} | {r.title[:60]} | {r.year} | {r.venue[:40]} | {r.doi}")
        return
    rows = []
    for f in files:
        try:
            rows.append(measure(f))
        except ImportFailure as e:
            rows.append({"file": f.name, "skipped": e.reason})
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    total: Counter[str] = Counter()
    for r in rows:
        print(f"== {r['file']}")
        if "skipped" in r:
            print(f"   skipped: {r['skipped']}")
            continue
        kinds: dict[str, int] = r["kinds"]  # type: ignore[assignment]
        total.update(kinds)
        print(f"   {r['chunks']} chunks: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda x: -x[1])))
        printed = r["references_printed"]
        print(
            f"   references: {r['references_parsed']} parsed"
            + (f" of {printed} printed" if printed else " (author-year list)" if r["references_parsed"] else "")
            + f", {r['references_with_authors_title_year']} with authors+title+year"
        )
        if r["first_reference"]:
            print(f"     first: {r['first_reference']}")
            print(f"     last:  {r['last_reference']}")
        polluted: list[str] = r["body_polluted"]  # type: ignore[assignment]
        print(f"   body chunks starting like a caption or holding boilerplate: {len(polluted)}")
        for p in polluted[:3]:
            print(f"     {p!r}")
        print("   sections: " + " | ".join(str(p)[:50] for p in r["section_paths"]))  # type: ignore[attr-defined]
        print(f"   {r['seconds']} s")
    n = sum(total.values())
    print("\n== all papers: % of chunks by kind")
    print("   " + ", ".join(f"{k.value} {100 * total[k.value] / n:.1f}%" for k in ALL_KINDS if total[k.value]))


if __name__ == "__main__":
    main()
