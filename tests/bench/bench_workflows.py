"""Research workflows on 20 real papers: a 20 × 6 matrix offline and through the scripted model
(tokens vs. one prompt with each paper's whole text), and a proposal draft offline.

    .venv/bin/python tests/bench/bench_workflows.py

The papers: every PDF with a text layer in ../shared/data/pdfs and pdfs_dev (18 born-digital
and the one with a born-digital page beside a scanned one) plus one sample paper, to make 20.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _util import ROOT, SHARED, percentile
from tests.fakes.openai_server import ScriptedServer

from paperpilot.core.app import Session
from paperpilot.core.llm.client import LLMConfig
from paperpilot.core.workflows.draft import Draft, to_json, write_draft
from paperpilot.core.workflows.matrix import create_matrix, run_matrix
from paperpilot.core.workflows.selection import PaperSelection
from paperpilot.core.workflows.templates import load_template


def papers() -> list[Path]:
    pdfs = sorted((SHARED / "pdfs").glob("*.pdf")) + sorted(
        p for p in (SHARED / "pdfs_dev").glob("*.pdf") if not p.name.startswith("scanned_")
    )
    return [*pdfs, ROOT / "resources" / "sample" / "01-house-sparrow-decline.md"][:20]


def writer(req: dict[str, Any]) -> dict[str, Any]:
    """A scripted model: the first sentence of the first passage it is shown, cited."""
    user = req["messages"][-1]["content"]
    m = re.search(r"\[(P\d+)\][^\n]*\(p\. \d+\):\n(.+)", user)
    pid, text = (m.group(1), m.group(2)) if m else ("P1", "")
    sentence = re.split(r"(?<=[.!?。])\s*", text.strip())[0].rstrip("…").rstrip(".")
    return {"action": "answer", "text": f"{sentence} [{pid}].", "evidence_ids": [pid], "missing": [], "confidence": 0.6}


def main() -> None:
    files = papers()
    with tempfile.TemporaryDirectory() as home:
        s = Session(home)
        t = time.perf_counter()
        report = s.import_paths(files)
        print(f"imported {len(report.imported)} of {len(files)} papers in {time.perf_counter() - t:.1f} s")
        ids = [d.doc_id for d in s.library.list_documents()]

        m = create_matrix(s.workflows, s.library, PaperSelection(doc_ids=ids))
        t = time.perf_counter()
        cells = [p.cell for p in run_matrix(s.workflows, m, s.library) if p.cell is not None]
        offline_s = time.perf_counter() - t
        secs = [c.seconds for c in cells]
        found = sum(c.status == "found" for c in cells)
        print(f"matrix offline: {len(m.rows)} × {len(m.columns)} = {len(cells)} cells in {offline_s:.1f} s; "
              f"per cell p50 {percentile(secs, 50) * 1000:.0f} ms, p95 {percentile(secs, 95) * 1000:.0f} ms; "
              f"{found} found, {len(cells) - found} not stated")  # fmt: skip

        with ScriptedServer() as srv:
            srv.set_script([writer] * 400)
            model = s.make_policy("llm", config=LLMConfig(base_url=srv.url, model="scripted-model"))
            m2 = create_matrix(s.workflows, s.library, PaperSelection(doc_ids=ids))
            t = time.perf_counter()
            cells2 = [p.cell for p in run_matrix(s.workflows, m2, s.library, model=model) if p.cell is not None]
            llm_s = time.perf_counter() - t
            prompt = sum(c.usage.prompt_tokens for c in cells2)
            completion = sum(c.usage.completion_tokens for c in cells2)
            calls = len(srv.requests)
        # The alternative: each paper's whole text in one prompt (all six questions at once),
        # counted the way the scripted server counts (JSON characters / 4).
        whole = 0
        for d in ids:
            doc = s.library.document(d)
            assert doc is not None
            text = " ".join(s.library.read(d, i).text for i in range(doc.chunks))
            whole += len(json.dumps([{"role": "user", "content": text}])) // 4
        found2 = sum(c.status == "found" for c in cells2)
        print(f"matrix, scripted model: {calls} model calls, {prompt} prompt + {completion} completion tokens "
              f"in {llm_s:.1f} s ({found2} found); one prompt per paper with its whole text: {whole} prompt "
              f"tokens ({prompt / max(1, whole):.2f}×)")  # fmt: skip

        t = time.perf_counter()
        style = s.draft_style("zh")
        draft: Draft | None = None
        for ev in write_draft(s.workflows, s.library, "文档解析与信息抽取的研究进展", load_template("proposal-zh"),
                              PaperSelection(doc_ids=ids), references=lambda i: s.reference_entries(i, style)):  # fmt: skip
            if isinstance(ev, Draft):
                draft = ev
        assert draft is not None
        data = to_json(draft)
        points = sum(len(sec["paragraphs"]) for sec in data["sections"])
        print(f"proposal draft offline on {len(ids)} papers: {time.perf_counter() - t:.1f} s, {points} paragraphs/points, "
              f"{len(data['references'])} references")  # fmt: skip
        s.close()


if __name__ == "__main__":
    main()
