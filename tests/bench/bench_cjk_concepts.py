"""Chinese question concepts (analysis.zh_concepts) on the CMRC 2018 trial questions.

Measures what the rule-based cutter (function words, question words, measure words and
relation verbs) gives on 1,002 real questions: concepts per question, fragments left (a concept
starting or ending with a function character, or holding a question word), samples, and — when
jieba is installed (`pip install jieba`; not a dependency) — agreement with jieba's POS-tagged
content words: the share of our concepts made of whole jieba words, and the share of jieba
nouns our concepts contain. Also: the paragraph-in-top-3 rate when the library is searched
with the concepts instead of the raw question (the concepts must still find the paragraph).

    .venv/bin/python tests/bench/bench_cjk_concepts.py
"""

from __future__ import annotations

import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import SHARED

from paperpilot.core.agent.analysis import zh_concepts
from paperpilot.core.library import Library
from paperpilot.core.settings.paths import app_paths

DATA = Path(os.environ.get("PAPERPILOT_SHARED_DATA", SHARED)) / "cmrc2018" / "cmrc2018_trial.squad.json"
FUNCTION_EDGE = re.compile(r"^[的了是在和与及或吗呢吧啊把被对从向于将就也都而并之]|[的了是在和与及或吗呢吧啊把被对从向于将就也都而并之]$")
QUESTION_WORD = re.compile(r"什么|哪|多少|谁|如何|怎么|为什么|几")


def main() -> None:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    items = []
    for art in data["data"]:
        for para in art["paragraphs"]:
            for qa in para["qas"]:
                items.append((qa["question"], para["context"], art.get("title", "")))
    t = time.perf_counter()
    concepts = [zh_concepts(q) for q, _, _ in items]
    ms = (time.perf_counter() - t) * 1000 / len(items)
    flat = [c for cs in concepts for c in cs]
    fragments = [c for c in flat if FUNCTION_EDGE.search(c) or QUESTION_WORD.search(c)]
    print(f"{len(items)} questions; {ms:.3f} ms per question; concepts per question: mean {len(flat) / len(items):.2f}; "
          f"questions without a concept: {sum(not cs for cs in concepts)}")  # fmt: skip
    print(f"fragments (function character at an edge, or a question word inside): {len(fragments)} of {len(flat)} "
          f"({len(fragments) / max(1, len(flat)):.1%}); e.g. {fragments[:12]}")  # fmt: skip
    random.seed(10)
    print("\nsamples:")
    for i in random.sample(range(len(items)), 15):
        print(f"  {items[i][0]}  →  {concepts[i]}")
    try:
        import jieba  # type: ignore[import-not-found]
        import jieba.posseg as pseg  # type: ignore[import-not-found]
    except ImportError:
        print("\n(jieba not installed: no agreement measure)")
    else:
        jieba.setLogLevel(60)
        t = time.perf_counter()
        tagged = [list(pseg.cut(q)) for q, _, _ in items]
        load = time.perf_counter() - t
        whole = 0
        nouns_total = nouns_hit = 0
        for cs, tags in zip(concepts, tagged, strict=True):
            words = [w.word for w in tags]
            for c in cs:
                # A concept made of whole jieba words: it starts and ends on word boundaries.
                joined = "".join(words)
                pos = joined.find(c)
                bounds = {0}
                acc = 0
                for w in words:
                    acc += len(w)
                    bounds.add(acc)
                whole += pos >= 0 and pos in bounds and pos + len(c) in bounds
            for w in tags:
                if w.flag.startswith(("n", "eng")) and len(w.word) >= 2:
                    nouns_total += 1
                    nouns_hit += any(w.word in c for c in cs)
        print(f"\njieba posseg (first cut incl. dictionary load {load:.1f} s): {whole / max(1, len(flat)):.1%} of our "
              f"concepts are whole jieba words or word sequences; {nouns_hit / max(1, nouns_total):.1%} of jieba's "
              f"nouns (n*, eng; ≥ 2 characters) are inside one of our concepts")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "c.jsonl"
        contexts = list(dict.fromkeys(c for _, c, _ in items))
        with corpus.open("w", encoding="utf-8") as f:
            for i, c in enumerate(contexts):
                f.write(json.dumps({"id": f"c{i}", "title": f"段落 {i}", "text": c}, ensure_ascii=False) + "\n")
        lib = Library(app_paths(Path(tmp) / "home"))
        lib.import_paths([corpus])
        index = {c: i for i, c in enumerate(contexts)}

        def top3(query: str, ctx: str) -> bool:
            hits = lib.search(query, 3)
            return any(lib.read(h.doc_id, h.seq).text[:40] == ctx[:40] for h in hits) or any(
                h.title == f"段落 {index[ctx]}" for h in hits
            )

        raw = sum(top3(q, c) for q, c, _ in items) / len(items)
        con = sum(top3(" ".join(cs) or q, c) for (q, c, _), cs in zip(items, concepts, strict=True)) / len(items)
        lib.close()
    print(f"\nparagraph in top 3: searching the raw question {raw:.1%}, searching the concepts {con:.1%}")


if __name__ == "__main__":
    main()
