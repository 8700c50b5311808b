"""Evaluate the agent on an IRCoT-style multi-hop QA file (HotpotQA): does it read the evidence?

Every paragraph of every question is pooled into one library (one paragraph = one passage),
so each question must find its two supporting paragraphs among thousands of distractors.
The report compares agent modes side by side with one plain search for the top N hits, over
all questions and over the "hard" ones whose weaker supporting paragraph shares few words
with the question (the bridge paragraph a single search rarely finds).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import string
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import tantivy
from pydantic import BaseModel, Field

from ..config import ImportSettings, load_settings
from ..library import Library
from ..paths import app_paths
from ..textutil import query_terms
from .events import ActionChosen, Finished, RoundStarted, ToolResult
from .loop import AgentOptions, run_agent
from .state import Policy

if TYPE_CHECKING:
    from ..llm import LLMConfig

BASELINE_K = 6
# A question is "hard" when its less question-like supporting paragraph contains at most this
# share of the question's content words (stemmed, title included).
HARD_MAX_OVERLAP = 0.3
HARD_DEFINITION = (
    f"the supporting paragraph sharing fewer words with the question contains ≤ {HARD_MAX_OVERLAP:.0%} "
    "of the question's content words (stopwords dropped, English-stemmed, title + text)"
)
MODES = ("quick", "loop", "auto")

ProgressFn = Callable[[int, int], None]


# --- the data set -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Paragraph:
    pid: str  # stable content id, the corpus "id" (external id in the library)
    title: str
    text: str


@dataclass(frozen=True)
class EvalItem:
    qid: str
    question: str
    answers: list[str]
    supporting: list[str]  # paragraph ids
    overlap: float  # min over supporting paragraphs of the shared share of question words
    hard: bool


def _pid(title: str, text: str) -> str:
    return "hp-" + hashlib.sha1(f"{title}\n{text}".encode()).hexdigest()[:16]


# The same analyzer as the index's English fields, so "shares a word" means what search sees.
_STEMMER = (
    tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
    .filter(tantivy.Filter.lowercase())
    .filter(tantivy.Filter.stemmer("english"))
    .build()
)


def _stems(text: str) -> set[str]:
    return set(_STEMMER.analyze(text))


def question_overlap(question: str, title: str, text: str) -> float:
    """Share of the question's content words (stemmed) that occur in the paragraph."""
    q = _stems(" ".join(query_terms(question)))
    if not q:
        return 1.0
    return len(q & _stems(title + " " + text)) / len(q)


def load_dataset(path: Path, limit: int | None = None) -> tuple[list[EvalItem], list[Paragraph]]:
    """Questions (the first ``limit``) and the pooled, de-duplicated paragraphs of the whole file.

    The pool always holds every question's paragraphs, so a limited run searches the same
    library as a full one and its numbers are comparable.
    """
    items: list[EvalItem] = []
    pool: dict[str, Paragraph] = {}
    with path.open(encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
                question = str(obj["question_text"]).strip()
                contexts = obj["contexts"]
            except (ValueError, KeyError, TypeError) as e:
                raise ValueError(f"{path}:{line_no}: not an IRCoT-style QA record ({e})") from e
            supporting: list[str] = []
            overlaps: list[float] = []
            for c in contexts:
                title = " ".join(str(c.get("title", "")).split())
                text = str(c.get("paragraph_text", "")).strip()
                if not text:
                    continue
                pid = _pid(title, text)
                pool.setdefault(pid, Paragraph(pid, title, text))
                if c.get("is_supporting"):
                    supporting.append(pid)
                    overlaps.append(question_overlap(question, title, text))
            if limit is not None and len(items) >= limit:
                continue
            answers = [
                str(s)
                for a in obj.get("answers_objects", [])
                for s in (a.get("spans") or [])
                if str(s).strip()
            ]
            overlap = min(overlaps) if overlaps else 1.0
            items.append(
                EvalItem(
                    qid=str(obj.get("question_id", line_no)),
                    question=question,
                    answers=answers,
                    supporting=list(dict.fromkeys(supporting)),
                    overlap=round(overlap, 3),
                    hard=bool(supporting) and overlap <= HARD_MAX_OVERLAP,
                )
            )
    return items, list(pool.values())


# --- answer scoring (SQuAD normalisation) -----------------------------------------------------

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)
_CITATION = re.compile(r"\[(?:P?\d+)(?:\s*[,;]\s*P?\d+)*\]")


def normalize_answer(s: str) -> str:
    s = "".join(ch for ch in s.lower() if ch not in _PUNCT)
    return " ".join(_ARTICLES.sub(" ", s).split())


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> float:
    p, g = normalize_answer(prediction).split(), normalize_answer(gold).split()
    # SQuAD: a yes/no/noanswer gold only matches itself exactly.
    if normalize_answer(gold) in ("yes", "no", "noanswer") or normalize_answer(prediction) in ("yes", "no"):
        return float(p == g)
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def answer_text(answer: str) -> str:
    """The answer without citation markers and list bullets, for scoring."""
    lines = [ln.strip().removeprefix("- ").removeprefix("* ") for ln in answer.splitlines()]
    return " ".join(_CITATION.sub("", " ".join(lines)).split())


def best_scores(prediction: str, golds: list[str]) -> tuple[float, float]:
    if not golds:
        return 0.0, 0.0
    pred = answer_text(prediction)
    return max(exact_match(pred, g) for g in golds), max(token_f1(pred, g) for g in golds)


# --- the report -------------------------------------------------------------------------------


class QuestionOutcome(BaseModel):
    qid: str
    system: str  # a mode, or the baseline's name
    hard: bool
    supporting_read: int
    supporting_total: int
    both_read: bool
    rounds: int
    passages_read: int
    status: str = ""
    error: str = ""
    exact_match: float = 0.0
    f1: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    round_ms: list[float] = Field(default_factory=list)  # wall time of each round
    decide_ms: list[float] = Field(default_factory=list)  # of which the policy's decision (the model)


class Stats(BaseModel):
    questions: int = 0
    both_read: float = 0.0  # fraction of questions with every supporting paragraph read
    supporting_recall: float = 0.0  # mean fraction of supporting paragraphs read
    mean_rounds: float = 0.0
    mean_passages: float = 0.0
    exact_match: float = 0.0
    f1: float = 0.0
    prompt_tokens: float = 0.0  # per question
    completion_tokens: float = 0.0
    seconds: float = 0.0  # mean per question
    seconds_p50: float = 0.0
    seconds_p95: float = 0.0


class SystemResult(BaseModel):
    system: str
    overall: Stats
    hard: Stats


class EvalReport(BaseModel):
    dataset: str
    policy: str
    modes: list[str]
    max_rounds: int
    questions: int
    hard_questions: int
    hard_definition: str = HARD_DEFINITION
    paragraphs: int
    baseline: str = f"top-{BASELINE_K} search"
    import_seconds: float = 0.0
    reused_library: bool = False
    seconds: float = 0.0
    systems: list[SystemResult]
    outcomes: list[QuestionOutcome] = Field(default_factory=list)

    def system(self, name: str) -> SystemResult:
        for s in self.systems:
            if s.system == name:
                return s
        raise KeyError(name)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    k = (len(s) - 1) * p / 100
    lo = int(k)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def _stats(rows: list[QuestionOutcome]) -> Stats:
    n = len(rows)
    if not n:
        return Stats()

    def mean(xs: list[float]) -> float:
        return sum(xs) / n

    secs = [r.seconds for r in rows]
    return Stats(
        questions=n,
        both_read=round(mean([float(r.both_read) for r in rows]), 4),
        supporting_recall=round(mean([r.supporting_read / max(1, r.supporting_total) for r in rows]), 4),
        mean_rounds=round(mean([float(r.rounds) for r in rows]), 2),
        mean_passages=round(mean([float(r.passages_read) for r in rows]), 2),
        exact_match=round(mean([r.exact_match for r in rows]), 4),
        f1=round(mean([r.f1 for r in rows]), 4),
        prompt_tokens=round(mean([float(r.prompt_tokens) for r in rows]), 1),
        completion_tokens=round(mean([float(r.completion_tokens) for r in rows]), 1),
        seconds=round(mean(secs), 4),
        seconds_p50=round(percentile(secs, 50), 4),
        seconds_p95=round(percentile(secs, 95), 4),
    )


def _summarise(system: str, rows: list[QuestionOutcome]) -> SystemResult:
    return SystemResult(system=system, overall=_stats(rows), hard=_stats([r for r in rows if r.hard]))


# --- the library ------------------------------------------------------------------------------

# One dataset paragraph is one passage: the benchmark counts paragraphs read, and the longest
# HotpotQA paragraphs would otherwise be split into several chunks.
EVAL_IMPORT = ImportSettings(chunk_min_chars=300, chunk_max_chars=20000)


@contextmanager
def _library(paragraphs: list[Paragraph], home: Path | None) -> Iterator[tuple[Library, float, bool]]:
    """The pooled library (imported unless ``home`` already holds this corpus), import seconds, reused."""
    with tempfile.TemporaryDirectory(prefix="pp-eval-") as tmp:
        lib = Library(app_paths(home if home is not None else Path(tmp) / "home"), settings=EVAL_IMPORT)
        try:
            have = {d.external_id for d in lib.list_documents()}
            missing = [p for p in paragraphs if p.pid not in have]
            t = time.perf_counter()
            if missing:
                corpus = Path(tmp) / "corpus.jsonl"
                with corpus.open("w", encoding="utf-8") as f:
                    for p in missing:
                        f.write(
                            json.dumps({"id": p.pid, "title": p.title, "text": p.text}, ensure_ascii=False)
                        )
                        f.write("\n")
                lib.import_paths([corpus])
            yield lib, time.perf_counter() - t, not missing
        finally:
            lib.close()


def _doc_keys(lib: Library, paragraphs: list[Paragraph]) -> dict[int, str]:
    """doc_id → paragraph id: by external id, else by title (a copy imported from elsewhere)."""
    ids = {p.pid for p in paragraphs}
    by_title: dict[str, str | None] = {}
    for p in paragraphs:
        by_title[p.title] = None if p.title in by_title else p.pid  # None: ambiguous title
    out: dict[int, str] = {}
    for d in lib.list_documents():
        if d.external_id in ids:
            out[d.doc_id] = d.external_id
        else:
            pid = by_title.get(d.title)
            if pid is not None:
                out[d.doc_id] = pid
    return out


# --- running ----------------------------------------------------------------------------------


def make_policy(policy: str, llm_config: LLMConfig | None = None) -> Policy:
    """The named policy; the LLM one talks to ``llm_config``'s server (default: the settings file's)."""
    if policy == "offline":
        from .offline import OfflinePolicy

        return OfflinePolicy()
    if policy == "llm":
        # Imported here so the offline evaluation never needs the HTTP client code.
        from ..llm import LLMClient, LLMConfig
        from .llm_policy import LLMPolicy

        cfg = llm_config
        if cfg is None:
            cfg = LLMConfig.from_settings(load_settings(app_paths().settings_file)[0].llm)
        llm_policy: Policy = LLMPolicy(LLMClient(cfg))
        return llm_policy
    raise ValueError(f"unknown policy {policy!r} (offline | llm)")


def _close_policy(policy: Policy) -> None:
    for obj in (policy, getattr(policy, "client", None)):
        close = getattr(obj, "close", None)
        if callable(close):
            close()


def ask_one(
    item: EvalItem, lib: Library, policy: Policy, mode: str, max_rounds: int, doc_keys: dict[int, str]
) -> QuestionOutcome:
    """Run the agent on one question and score what it read and answered."""
    read: set[str] = set()
    round_starts: list[float] = []
    decide_ms: dict[int, float] = {}
    end_ms = 0.0
    result = None
    for ev in run_agent(item.question, lib, policy, AgentOptions(max_rounds=max_rounds, mode=mode)):
        if isinstance(ev, RoundStarted):
            round_starts.append(ev.elapsed_ms)
        elif isinstance(ev, ActionChosen):
            decide_ms[ev.round] = decide_ms.get(ev.round, 0.0) + ev.decide_ms
        elif isinstance(ev, ToolResult) and ev.tool == "read":
            read.update(doc_keys.get(p.doc_id, "") for p in ev.passages)
        elif isinstance(ev, Finished):
            result = ev.result
            end_ms = ev.elapsed_ms
    assert result is not None
    # A round lasts until the next one starts; the last one until the run finishes.
    bounds = [*round_starts, end_ms]
    round_ms = [round(b - a, 3) for a, b in itertools.pairwise(bounds)]
    found = sum(pid in read for pid in item.supporting)
    em, f1 = (
        best_scores(result.answer, item.answers)
        if result.status.value in ("answered", "truncated")
        else (0, 0)
    )
    return QuestionOutcome(
        qid=item.qid,
        system=mode,
        hard=item.hard,
        supporting_read=found,
        supporting_total=len(item.supporting),
        both_read=bool(item.supporting) and found == len(item.supporting),
        rounds=result.steps,
        passages_read=result.passages_read,
        status=result.status.value,
        error=result.error,
        exact_match=em,
        f1=round(f1, 4),
        prompt_tokens=result.usage.prompt_tokens,
        completion_tokens=result.usage.completion_tokens,
        seconds=result.seconds,
        round_ms=round_ms,
        decide_ms=[round(decide_ms.get(i + 1, 0.0), 3) for i in range(len(round_ms))],
    )


def baseline_one(
    item: EvalItem, lib: Library, doc_keys: dict[int, str], k: int = BASELINE_K
) -> QuestionOutcome:
    """One plain search of the question; its top ``k`` hits count as read."""
    t = time.perf_counter()
    hits = lib.search(item.question, k)
    secs = time.perf_counter() - t
    read = {doc_keys.get(h.doc_id, "") for h in hits}
    found = sum(pid in read for pid in item.supporting)
    return QuestionOutcome(
        qid=item.qid,
        system=f"top-{k} search",
        hard=item.hard,
        supporting_read=found,
        supporting_total=len(item.supporting),
        both_read=bool(item.supporting) and found == len(item.supporting),
        rounds=1,
        passages_read=len(hits),
        status="answered" if hits else "insufficient_evidence",
        seconds=round(secs, 5),
    )


class EvalAborted(RuntimeError):
    """The first runs all failed (a dead model server …): going on would only repeat the failure."""


ABORT_AFTER_FAILURES = 3


def _check_not_dead(outcomes: list[QuestionOutcome]) -> None:
    if len(outcomes) == ABORT_AFTER_FAILURES and all(o.status == "failed" for o in outcomes):
        raise EvalAborted(f"the first {ABORT_AFTER_FAILURES} questions all failed: {outcomes[-1].error}")


def run_eval(
    dataset: Path,
    modes: list[str],
    policy: str = "offline",
    limit: int | None = None,
    home: Path | None = None,
    llm_config: LLMConfig | None = None,
    max_rounds: int = 6,
    progress: ProgressFn | None = None,
) -> EvalReport:
    """Ask every question of ``dataset`` in each mode, plus the top-6 search baseline.

    ``home``: a PaperPilot home to import the pooled paragraphs into (kept, and reused when it
    already holds them); by default a temporary library that is deleted afterwards.
    ``progress(done, total)`` is called after each question in each mode. Raises
    ``EvalAborted`` when the first runs all fail (an unreachable model server).
    """
    t0 = time.perf_counter()
    modes = list(dict.fromkeys(modes)) or ["loop"]
    for m in modes:
        if m not in MODES:
            raise ValueError(f"unknown mode {m!r} ({' | '.join(MODES)})")
    items, paragraphs = load_dataset(Path(dataset), limit)
    agent_policy = make_policy(policy, llm_config)
    outcomes: list[QuestionOutcome] = []
    try:
        with _library(paragraphs, home) as (lib, import_s, reused):
            keys = _doc_keys(lib, paragraphs)
            total, done = len(items) * len(modes), 0
            for mode in modes:
                for item in items:
                    outcomes.append(ask_one(item, lib, agent_policy, mode, max_rounds, keys))
                    done += 1
                    if progress is not None:
                        progress(done, total)
                    _check_not_dead(outcomes)
            base = [baseline_one(item, lib, keys) for item in items]
    finally:
        _close_policy(agent_policy)
    systems = [_summarise(m, [o for o in outcomes if o.system == m]) for m in modes]
    systems.append(_summarise(base[0].system if base else f"top-{BASELINE_K} search", base))
    return EvalReport(
        dataset=str(dataset),
        policy=policy,
        modes=modes,
        max_rounds=max_rounds,
        questions=len(items),
        hard_questions=sum(i.hard for i in items),
        paragraphs=len(paragraphs),
        import_seconds=round(import_s, 2),
        reused_library=reused,
        seconds=round(time.perf_counter() - t0, 2),
        systems=systems,
        outcomes=outcomes + base,
    )


# --- the table --------------------------------------------------------------------------------


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def format_table(report: EvalReport) -> str:
    """A markdown table: one column per mode plus the baseline, one row per measure."""
    cols = [s.system for s in report.systems]
    rows: list[tuple[str, list[str]]] = [
        ("both supporting paragraphs read", [_pct(s.overall.both_read) for s in report.systems]),
        (
            f"  … on hard questions (n={report.hard_questions})",
            [_pct(s.hard.both_read) for s in report.systems],
        ),
        ("supporting paragraphs read (recall)", [_pct(s.overall.supporting_recall) for s in report.systems]),
        ("  … on hard questions", [_pct(s.hard.supporting_recall) for s in report.systems]),
        ("mean rounds", [f"{s.overall.mean_rounds:.2f}" for s in report.systems]),
        ("passages read", [f"{s.overall.mean_passages:.2f}" for s in report.systems]),
        (
            "answer EM / F1",
            [
                "–"
                if s.system == report.baseline
                else f"{100 * s.overall.exact_match:.1f} / {100 * s.overall.f1:.1f}"
                for s in report.systems
            ],
        ),
        (
            "tokens / question (in / out)",
            [f"{s.overall.prompt_tokens:.0f} / {s.overall.completion_tokens:.0f}" for s in report.systems],
        ),
        (
            "seconds / question (mean, p95)",
            [f"{s.overall.seconds:.3f}, {s.overall.seconds_p95:.3f}" for s in report.systems],
        ),
    ]
    head = ["", *[f"{c}" for c in cols]]
    widths = [max(len(head[0]), *(len(r[0]) for r in rows))]
    for i in range(len(cols)):
        widths.append(max(len(head[i + 1]), *(len(r[1][i]) for r in rows)))

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "| " + " | ".join([first, *rest]) + " |"

    out = [
        f"{report.questions} questions, {report.paragraphs} pooled paragraphs, policy {report.policy}, "
        f"max {report.max_rounds} rounds ({report.seconds:.1f} s in all, import {report.import_seconds:.1f} s"
        + (", library reused" if report.reused_library else "")
        + ")",
        f"hard: {report.hard_definition}",
        "",
        line(head),
        "|" + "|".join(["-" * (widths[0] + 2)] + ["-" * (w + 1) + ":" for w in widths[1:]]) + "|",
        *(line([name, *cells]) for name, cells in rows),
    ]
    return "\n".join(out)


def report_json(report: EvalReport, with_outcomes: bool = False) -> dict[str, Any]:
    """The report as JSON data; per-question outcomes only when asked (they are long)."""
    return report.model_dump(mode="json", exclude=None if with_outcomes else {"outcomes"})
