"""Prompt tokens per question: the LLM loop against one-shot retrieval with the same passages.

A tiny local model (SmolLM2-135M) rarely gets as far as reading, so this benchmark plays the
model's part with a deterministic "competent reader" behind a real OpenAI-compatible HTTP
server on 127.0.0.1 (tests/fakes): search the question's keywords, read the three best unread
hits listed in the prompt, search again with the names in what it read, read three more,
answer citing what it read. The prompts are PaperPilot's real ones; tokens are counted the
same way (characters / 4) for the loop's calls and for one answer prompt holding exactly the
passages the loop read (one-shot retrieval). The seeds paid 3-5x for their loop; target <= 2x.

    .venv/bin/python tests/bench/bench_llm_tokens.py [--limit 100]
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import SHARED
from tests.fakes.openai_server import ScriptedServer

from paperpilot.core.agent.events import Finished
from paperpilot.core.agent.llm_policy import LLMPolicy
from paperpilot.core.agent.loop import AgentOptions, run_agent
from paperpilot.core.agent.state import AgentState
from paperpilot.core.app import eval_library
from paperpilot.core.evaluation.hotpotqa import _library, load_dataset
from paperpilot.core.llm.client import LLMClient, LLMConfig, estimate_tokens
from paperpilot.core.text.language import query_terms

_HIT = re.compile(r"^- doc (\d+) seg (\d+):", re.MULTILINE)
_PASSAGE = re.compile(r"^\[(P\d+)\]", re.MULTILINE)
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+")


def prompt_tokens(request: dict[str, Any]) -> int:
    return sum(estimate_tokens(str(m.get("content", ""))) for m in request["messages"])


class Reader:
    """The scripted model: decides from what the prompt shows, like a careful agent would."""

    def __init__(self) -> None:
        self.question = ""
        self.reads = 0
        self.searched = False
        self.bridged = False

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        user = request["messages"][-1]["content"]
        name = request.get("response_format", {}).get("json_schema", {}).get("name")
        if name == "plan":
            return {"sub_questions": []}
        passages = _PASSAGE.findall(user)
        if name == "answer":
            ids = list(dict.fromkeys(passages))[:3] or ["P1"]
            return {"text": " ".join(f"Claim [{i}]." for i in ids), "evidence_ids": ids, "missing": [], "confidence": 0.6}
        hits = [(int(d), int(s)) for d, s in _HIT.findall(user)]
        if hits and self.reads < 2:
            self.reads += 1
            (d0, s0), *rest = hits[:3]
            return {"thought": "read the best hits", "action": {"action": "read", "doc_id": d0, "segments": [s0],
                    "also": [{"doc_id": d, "segment": s} for d, s in rest]}}  # fmt: skip
        if "QUERIES TRIED: (none)" in user or (not passages and not self.searched):
            self.searched = True
            q = " ".join(query_terms(self.question)[:4]) or "x"
            return {"thought": "search", "action": {"action": "search", "query": q}}
        if not self.bridged:
            self.bridged = True
            names = [n for n in _NAME.findall(user.split("PASSAGES", 1)[-1]) if n.lower() not in self.question.lower()]
            if names:
                return {"thought": "bridge", "action": {"action": "search", "query": " ".join(names[:2])}}
        return {"thought": "enough", "action": {"action": "answer", "text": "", "evidence_ids": []}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=100)
    ap.add_argument("--no-economy", action="store_true", help="let the model take every step")
    args = ap.parse_args()
    items, paragraphs = load_dataset(SHARED / "hotpotqa" / "hotpot_dev500.jsonl", args.limit)
    loop_tok: list[int] = []
    shot_tok: list[int] = []
    per_round: list[float] = []
    n_read: list[int] = []
    n_calls: list[int] = []
    with tempfile.TemporaryDirectory() as tmp, _library(paragraphs, Path(tmp), eval_library) as (lib, _s, _r), ScriptedServer() as srv:
        for item in items:
            reader = Reader()
            reader.question = item.question
            srv.set_script([reader] * 12)
            first = len(srv.requests)
            client = LLMClient(LLMConfig(base_url=srv.url, model="scripted", timeout_s=10, structured="json_schema"))
            policy = LLMPolicy(client, plan=False, economy=not args.no_economy)
            read: list[tuple[int, int]] = []
            result = None
            for ev in run_agent(item.question, lib, policy, AgentOptions(max_rounds=6, mode="loop")):
                if ev.type == "tool_result":
                    read.extend((p.doc_id, p.segment) for p in ev.passages)
                if isinstance(ev, Finished):
                    result = ev.result
            assert result is not None
            reqs = srv.requests[first:]
            if not read:
                continue
            state = AgentState(question=item.question)
            for d, s in read:
                state.add_passage(lib.read(d, s))
            one_shot = sum(estimate_tokens(m["content"]) for m in policy.answer_messages(state, "one-shot"))
            loop = sum(prompt_tokens(r) for r in reqs)
            loop_tok.append(loop)
            n_read.append(len(read))
            n_calls.append(len(reqs))
            shot_tok.append(one_shot)
            per_round.extend(prompt_tokens(r) for r in reqs)
            client.close()
    ratios = [a / b for a, b in zip(loop_tok, shot_tok, strict=True)]
    print(f"{len(ratios)} HotpotQA questions ({'every step by the model' if args.no_economy else 'economy mode'}); "
          f"passages read per question: mean {statistics.mean(n_read):.1f}, model calls: mean {statistics.mean(n_calls):.1f}")
    print(f"loop prompt tokens per question: mean {statistics.mean(loop_tok):.0f}; "
          f"per call mean {statistics.mean(per_round):.0f}, max {max(per_round)}")
    print(f"one-shot prompt tokens (same passages): mean {statistics.mean(shot_tok):.0f}")
    print(f"ratio loop / one-shot: median {statistics.median(ratios):.2f}x, mean {statistics.mean(ratios):.2f}x, "
          f"total {sum(loop_tok) / sum(shot_tok):.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
