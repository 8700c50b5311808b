"""Chinese retrieval: character bigrams (what PaperPilot uses) against rjieba word segmentation.

CMRC 2018 trial set: 256 Wikipedia paragraphs, 1,002 questions. For each question, is the
paragraph it was written from among the top 1 / top 3 hits? Also index time per approach.
Needs ``pip install rjieba`` (not a dependency of PaperPilot).
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import tantivy

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED

from paperpilot.core.text.language import cjk_bigrams, query_terms


def evaluate(name: str, tokenize: Callable[[str], list[str]], paras: list[str], qs: list[tuple[str, int]]) -> None:
    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("pid", stored=True, indexed=True)
    sb.add_text_field("body", tokenizer_name="ws", index_option="freq")
    schema = sb.build()
    index = tantivy.Index(schema, path=tempfile.mkdtemp())
    index.register_tokenizer("ws", tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())
    t = time.perf_counter()
    w = index.writer()
    for i, p in enumerate(paras):
        w.add_document(tantivy.Document(pid=i, body=" ".join(tokenize(p))))
    w.commit()
    w.wait_merging_threads()
    build = time.perf_counter() - t
    index.reload()
    s = index.searcher()
    top1 = top3 = 0
    t = time.perf_counter()
    for q, pid in qs:
        toks = list(dict.fromkeys(tok for term in query_terms(q) for tok in tokenize(term)))
        if not toks:
            continue
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", tok)) for tok in toks]
        )
        got = [s.doc(a)["pid"][0] for _, a in s.search(query, 3).hits]
        top1 += bool(got) and got[0] == pid
        top3 += pid in got
    secs = time.perf_counter() - t
    n = len(qs)
    print(f"{name:8}  top-1 {top1 / n:.1%}  top-3 {top3 / n:.1%}  index {build * 1000:.0f} ms  "
          f"search {secs / n * 1000:.2f} ms/query")


def main() -> None:
    data = json.loads((SHARED / "cmrc2018" / "cmrc2018_trial.squad.json").read_text())
    paras: list[str] = []
    qs: list[tuple[str, int]] = []
    for art in data["data"]:
        for p in art["paragraphs"]:
            pid = len(paras)
            paras.append(p["context"])
            qs.extend((qa["question"], pid) for qa in p["qas"])
    print(f"{len(paras)} paragraphs, {len(qs)} questions")
    import rjieba

    evaluate("bigrams", cjk_bigrams, paras, qs)
    evaluate("rjieba", lambda t: [w for w in rjieba.cut(t) if w.strip()], paras, qs)


if __name__ == "__main__":
    main()
