"""Paraphrased and Chinese questions over English papers, offline: is the key passage cited?

    python tests/bench/bench_paraphrase.py [--home DIR] [--splits held_out,dev] [--modes hybrid,keyword]
                                           [--rows dev] [--json OUT]

Reads tests/bench/data/paraphrase_questions.jsonl (36 questions, each in the papers' own wording,
a researcher's paraphrase and Chinese; split by paper, see tests/bench/data/README.md).

1. Imports the 14 English papers with a text layer of shared/data/pdfs and pdfs_dev into a fresh
   PAPERPILOT_HOME (``--home``: kept there and reused by the next run) and embeds them with the
   bundled model (``Session.embed_library``, what ``paperpilot index --semantic`` runs).
2. Asks every version of every question as ``paperpilot ask`` does (``Session.ask``, the offline
   policy, mode auto), once with the vectors (the search tool's default is then hybrid and the
   cross-language bridge uses the dictionary) and once keyword-only (the same library with its
   vector store detached), to show what the vectors bring; ``--modes …,plain`` adds keyword-only
   without the dictionary bridge (the state before issue 25).
3. Reports per mode, split and version, held-out first: answerable questions whose key passage
   (a passage of the right paper holding the key string) is cited, their statuses, unanswerable
   ones not "answered", out-of-library ones "insufficient evidence", and the runs that say
   cross-language search "needs a language model" (must be 0).

Per-question rows are printed for the dev split only (``--rows dev,held_out`` to see all): the
held-out split is for reporting, never for tuning.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED

from paperpilot.core.agent import loop
from paperpilot.core.agent.events import Finished
from paperpilot.core.app import Session
from paperpilot.core.evaluation.hotpotqa import contains_answer

_BRIDGE = loop.bridge

DATA = Path(__file__).resolve().parent / "data" / "paraphrase_questions.jsonl"
VERSIONS = ("original", "paraphrase", "zh")
STATUSES = ("answered", "partial", "insufficient_evidence", "truncated")
NEEDS_MODEL = ("needs a language model", "需要语言模型")


def papers() -> list[Path]:
    """The English papers with a text layer: the three shared ones and the dev set's en_* files."""
    return sorted((SHARED / "pdfs").glob("*.pdf")) + sorted((SHARED / "pdfs_dev").glob("en_*.pdf"))


def prepare(home: Path) -> None:
    """Import the papers (when the home has none) and embed whatever is not embedded yet."""
    with Session(home) as s:
        if not s.library.list_documents():
            t = time.perf_counter()
            s.import_paths(papers())
            print(f"imported {len(s.library.list_documents())} papers in {time.perf_counter() - t:.0f} s", file=sys.stderr)
        t = time.perf_counter()
        r = s.embed_library(threads=2, progress=lambda d, n: print(f"  embedded {d}/{n}", file=sys.stderr))
        print(f"embedding: {r.embedded} new in {time.perf_counter() - t:.0f} s ({r.done}/{r.total})", file=sys.stderr)


def flat(text: str) -> str:
    return " ".join(text.replace("\u00ad", "").replace("\ufffe", "").split()).lower()


def ask(s: Session, question: str) -> tuple[Any, bool, float]:
    """The offline result, whether any event says a language model is needed, and the seconds."""
    t = time.perf_counter()
    run = s.ask(question, policy=s.make_policy("offline"))
    needs = False
    for ev in run:
        said = " ".join(str(getattr(ev, a, "") or "") for a in ("message", "text"))
        if isinstance(ev, Finished):
            r = ev.result
            said += " " + r.answer + " " + " ".join(str(m) for m in r.missing)
        needs = needs or any(n in said for n in NEEDS_MODEL)
    assert run.result is not None
    return run.result, needs, time.perf_counter() - t


def judge(it: dict[str, Any], result: Any) -> dict[str, Any]:
    status = result.status.value
    row: dict[str, Any] = {"status": status}
    if it["group"] == "answerable":
        sup = it["supporting"][0].lower()
        right_paper = [e for e in result.evidence if e.title.lower().startswith(sup)]
        row["paper"] = bool(right_paper)
        row["key"] = any(it["key"].lower() in flat(e.text) for e in right_paper)
        row["right"] = contains_answer(result.answer, it["answers"]) if it["answers"] else True
        row["ok"] = row["key"] and status in ("answered", "partial", "truncated")
    elif it["group"] == "unanswerable":
        row["ok"] = status != "answered"
    else:
        row["ok"] = status == "insufficient_evidence"
    return row


def run_mode(home: Path, mode: str, items: list[dict[str, Any]], splits: list[str], rows_for: set[str]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    with Session(home) as s:
        if mode in ("keyword", "plain"):
            s.library.semantic = None  # the same library, searched by words only
        if mode == "plain":
            # Before issue 25: no dictionary either (the loop's bridge fails as a broken install would).
            loop.bridge = _no_bridge
        for split in splits:
            for version in VERSIONS:
                group_rows = []
                for it in [i for i in items if i["split"] == split]:
                    result, needs, secs = ask(s, it[version])
                    row = {"id": it["id"], "mode": mode, "split": split, "version": version, "group": it["group"],
                           "needs_model": needs, "seconds": round(secs, 2), **judge(it, result)}  # fmt: skip
                    row["answer"] = " ".join(result.answer.split())[:100]
                    group_rows.append(row)
                out.extend(group_rows)
                summary(mode, split, version, group_rows)
                if split in rows_for:
                    for r, it in zip(group_rows, [i for i in items if i["split"] == split], strict=True):
                        mark = "✓" if r["ok"] else " "
                        print(f"    {r['id']} {r['group'][:5]:5} {r['status'][:12]:12} {mark} {it[version][:60]} → {r['answer'][:70]}")
    loop.bridge = _BRIDGE
    return out


def _no_bridge(*_args: Any, **_kw: Any) -> Any:
    raise RuntimeError("bridge switched off by the benchmark")


def summary(mode: str, split: str, version: str, rows: list[dict[str, Any]]) -> None:
    ans = [r for r in rows if r["group"] == "answerable"]
    una = [r for r in rows if r["group"] == "unanswerable"]
    ool = [r for r in rows if r["group"] == "out_of_library"]
    st = Counter(r["status"] for r in ans)
    secs = sorted(r["seconds"] for r in rows)
    print(f"  {mode:7} {split:8} {version:10} key cited {sum(r['key'] for r in ans):2}/{len(ans)}"
          f" (paper {sum(r['paper'] for r in ans):2}, answer right {sum(r['right'] and r['key'] for r in ans):2})"
          f" · {', '.join(f'{k[:5]} {st[k]}' for k in STATUSES if st[k])}"
          f" · unanswerable ok {sum(r['ok'] for r in una)}/{len(una)} · out-of-library ok {sum(r['ok'] for r in ool)}/{len(ool)}"
          f" · needs a model {sum(r['needs_model'] for r in rows)} · median {secs[len(secs) // 2]:.1f} s")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, help="keep the imported, embedded library here (reused when present)")
    ap.add_argument("--splits", default="held_out,dev")
    ap.add_argument("--modes", default="hybrid,keyword")
    ap.add_argument("--rows", default="dev", help="splits whose per-question rows are printed")
    ap.add_argument("--json", type=Path, help="write every row here (JSON lines)")
    ap.add_argument("--dense-weight", type=float, help="experiment: the hybrid fusion's dense weight (Latin-script queries)")
    args = ap.parse_args()
    if args.dense_weight is not None:
        from paperpilot.core.library import library_base

        library_base.HYBRID_DENSE_WEIGHT = args.dense_weight  # type: ignore[misc]
    items = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory(prefix="pp-para-") as tmp:
        home = args.home or Path(tmp)
        prepare(home)
        rows: list[dict[str, Any]] = []
        for mode in args.modes.split(","):
            what = {"hybrid": "vectors + dictionary bridge", "keyword": "no vectors", "plain": "no vectors, no bridge"}
            print(f"\n## {mode} ({what.get(mode, mode)}), offline policy\n")
            rows += run_mode(home, mode, items, args.splits.split(","), set(args.rows.split(",")))
        if args.json:
            args.json.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
