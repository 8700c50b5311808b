"""Chinese question analysis: concepts cut at function words, the answer type and the sides of a
comparison (see ``agent.analysis``).
"""

from __future__ import annotations

import re

from ..text.language import STOPWORDS, ZH_STOPWORDS
from .lexicon import (
    ZH_DEMONSTRATIVE,
    ZH_MEASURE,
    ZH_NUMERAL,
    ZH_PARTICLES,
    ZH_PROTECTED,
    ZH_QUESTION_WORDS,
    ZH_TASK_WORDS,
    ZH_VERBS,
)

_ZH_GLUE = re.compile(
    "|".join(sorted((re.escape(w) for w in (*ZH_QUESTION_WORDS, *ZH_VERBS)), key=len, reverse=True))
    + f"|(?:多少|哪|[{ZH_DEMONSTRATIVE}{ZH_NUMERAL}]+)[{ZH_MEASURE}]|[{ZH_PARTICLES}]"
)


_ZH_TASK = re.compile("|".join(sorted(map(re.escape, ZH_TASK_WORDS), key=len, reverse=True)))


def is_task_phrase(concept: str) -> bool:
    """A phrase made only of words about the library or the task (总结这些论文, 研究方向, 库中):
    what the user wants done, not what the papers must be about."""
    rest = _ZH_TASK.sub("", concept)
    return len(rest) <= 1 and rest != concept


_CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


_LATIN_RUN = re.compile(r"[A-Za-z][A-Za-z0-9+#.\-]*[A-Za-z0-9+#]|[A-Za-z]")


def zh_concepts(text: str) -> list[str]:
    """The concepts of a Chinese question: 'LoopAgent相比传统RAG有什么优势' → LoopAgent, 传统, RAG, 优势.

    Latin-script terms count whole (LoopAgent, RAG, S2ORC); each Chinese run is cut at function
    words, question words, demonstrative/numeral + measure words and relation verbs; what is
    left and is at least two characters long is a concept. Generic words (论文, 方法, 问题 …)
    are kept but marked non-key by ``analyze``; words about the library or the task itself
    (论文, 库中, 这些, 总结 …) are no concepts at all.
    """
    out: list[str] = []
    spans: list[tuple[int, str]] = []
    for m in _LATIN_RUN.finditer(text):
        w = m.group().strip(".-")
        if len(w) >= 2 and w.lower() not in STOPWORDS:
            spans.append((m.start(), w))
    for m in _CJK_RUN.finditer(text):
        run = m.group()
        pos = 0
        # "2000年桃花源小厨": a measure character right after digits belongs to the number.
        if m.start() > 0 and text[m.start() - 1].isdigit() and run[:1] in ZH_MEASURE:
            pos = 1
        protected = [(p.start(), p.end()) for w in ZH_PROTECTED for p in re.finditer(w, run)]
        for g in _ZH_GLUE.finditer(run):
            inside = any(a <= g.start() < b or a < g.end() <= b for a, b in protected)
            if g.start() < pos or inside:
                continue
            piece = run[pos : g.start()]
            if len(piece) >= 2:
                spans.append((m.start() + pos, piece))
            pos = g.end()
        piece = run[pos:]
        if len(piece) >= 2:
            spans.append((m.start() + pos, piece))
    spans.sort()
    for _, w in spans:
        w = w.strip()
        if w and w not in ZH_STOPWORDS and w not in out and not is_task_phrase(w):
            out.append(w)
    return out


# Chinese question words → answer type, the first that matches wins (a comparison is tested first).
_ZH_TYPES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), kind)
    for pattern, kind in (
        (r"为什么|为何|原因|何故", "why"),
        (r"什么时候|何时|哪一?年|哪天|几月|几号|年份|日期|时间", "when"),
        (r"哪里|哪儿|在哪|什么地方|何地|哪个(?:国家|城市|省|地区|地方)|位于", "where"),
        (r"多少钱|多大|多高|多长|多重|多远|多久", "how_much"),
        (r"多少|几[个位名种篇项条次年]|数量|人数", "how_many"),
        (r"谁|哪位|哪个人|作者是", "who"),
        (r"如何|怎么|怎样", "how"),
        (r"什么是|是什么|指什么|是指|含义|定义|意思", "definition"),
        (r"是否|是不是|有没有|能不能|可不可以|[吗么][？?]?$", "yes_no"),
        (r"哪些|哪个|哪一|哪种|什么", "which"),
    )
)


def answer_type_zh(q: str) -> str:
    if re.search(r"对比|比较|区别|差异|异同|相比|不同|哪个更|谁更|更早|更晚|更多|更少|还是", q) and re.search(
        r"[和与跟同及、]|还是|相比", q
    ):
        return "comparison"
    return next((kind for pattern, kind in _ZH_TYPES if pattern.search(q)), "other")


def sides_zh(q: str, concepts: list[str]) -> list[str]:
    m = re.search(
        r"(?P<a>[A-Za-z0-9\u4e00-\u9fff]+?)(?:和|与|跟|同|及|、|还是|相比)(?P<b>[A-Za-z0-9\u4e00-\u9fff]+?)(?:相比|之间|的|有|在|哪|谁|[？?，,]|$)",
        q,
    )
    if not m:
        return []
    a = next((c for c in reversed(concepts) if c in m.group("a")), "")
    b = next((c for c in concepts if c in m.group("b")), "")
    return [a, b] if a and b and a != b else []
