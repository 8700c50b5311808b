"""Confidence: the probability that the answer is right and fully supported, from what the program knows.

A small logistic model over what the checks found: whether every required part is covered and
the share that is, the share of the question's other words found, whether the cited documents
form a chain (each named by the question or by another cited passage — the two hops of a bridge,
the two sides of a comparison — rather than a scatter of passages sharing words with the
question), whether the required parts rest on distinct passages, citations the verifier
rejected — and, only when a model wrote the answer, the model's own estimate. (Other signals
the checks record — the slot claim's support, a second passage stating the asked value, two
sources disagreeing on it, the weakest claim's support — got no weight in the fit and are
recorded in the trace only.)

``COEFFICIENTS`` were fitted by ``tests/bench/bench_sufficiency.py --fit`` on the tuning split
of HotpotQA (even line numbers of hotpot_dev500.jsonl, with unanswerable and out-of-library
questions built as in ``paperpilot eval``), offline policy, logistic regression (L2 0.03,
projected gradient descent, penalties kept ≤ 0); calibration is reported on the held-out split (odd line numbers), never
used for fitting. The model estimate's weight cannot be fitted on the scripted model server
(whose estimate is a constant), so it is a fixed prior: a model's estimate moves the log-odds
by ``MODEL_WEIGHT`` × its own log-odds.

A library with vectors searches hybrid by default, and the keyword-only fit was underconfident
there (held-out answerable questions: AUROC 0.704, ECE 0.149). The terms only a run with vectors
sets (``DENSE_FEATURES``: that it searched by meaning, and the chain feature again when it did)
were fitted on top of the keyword-only terms, which stay as they are, so a library with nothing
embedded keeps its calibration exactly (``tests/bench/bench_confidence.py``; the whole pool's
answerable questions and the dev set, even lines, runs with vectors). Other dense signals — the
cited passages' cosine, the share found only by meaning, the best cosine of the run — got no
useful weight and are recorded in the trace only; a weak meaning-only neighbour is kept out of
the status instead (``loop.WEAK_COSINE``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..text.messages import Message, msg

# Fitted on the tuning split by `.venv/bin/python tests/bench/bench_sufficiency.py --fit` (see the
# module docstring): 256 questions (108 answerable, 100 unanswerable, 48 out-of-library strict +
# loose), offline policy, loop mode; in-sample AUROC 0.949, ECE 0.085. The bias is "intercept".
COEFFICIENTS: dict[str, float] = {
    "intercept": -3.299,
    "answered": 1.1,
    "coverage": 0.826,
    "soft_coverage": 0.252,
    "chain": 1.415,
    "spread": 0.548,
    "rejected": -0.048,
    # Runs with vectors (hybrid search): fitted over the terms above, kept fixed, by
    # `tests/bench/bench_confidence.py --fit` on 464 tune-split runs with vectors (HotpotQA even
    # lines: the dev set above and the whole pool's answerable questions). With vectors the
    # loop reads the right passages more often, and a chain of cited documents says more.
    "vectors": -0.123,
    "hybrid_chain": 0.574,
}
MODEL_WEIGHT = 0.3
FEATURES = tuple(k for k in COEFFICIENTS if k != "intercept")
# The terms only a run with vectors sets (0 for a keyword-only library, whose confidence is the
# keyword-only fit's; see the module docstring).
DENSE_FEATURES = ("vectors", "hybrid_chain")


def _logit(p: float) -> float:
    p = min(0.99, max(0.01, p))
    return math.log(p / (1 - p))


def probability_logit(features: Mapping[str, float], coefficients: Mapping[str, float]) -> float:
    """The log-odds the coefficients give one answer's features (no model estimate)."""
    w = coefficients
    return w.get("intercept", 0.0) + sum(c * float(features.get(k, 0.0)) for k, c in w.items() if k != "intercept")


def probability(features: Mapping[str, float], model_estimate: float | None = None,
                coefficients: Mapping[str, float] | None = None) -> float:  # fmt: skip
    """P(right and fully supported) for one answer's features."""
    z = probability_logit(features, coefficients or COEFFICIENTS)
    if model_estimate is not None:
        z += MODEL_WEIGHT * _logit(model_estimate)
    return 1 / (1 + math.exp(-z))


def explain(features: Mapping[str, float], model_estimate: float | None = None) -> list[str]:
    """Plain reasons for the confidence, biggest contributions first (English)."""
    return [m.text() for m in reasons(features, model_estimate)]


def reasons(features: Mapping[str, float], model_estimate: float | None = None) -> list[Message]:
    """The reasons for the confidence as catalogued messages (``confidence.<feature>``), biggest
    contributions first."""
    parts: list[tuple[float, Message]] = []
    for k in FEATURES:
        if (k == "bridge_ok" and not features.get("is_bridge")) or (
            k == "sides_ok" and not features.get("is_comparison")
        ):
            continue  # not a bridge / comparison question: nothing to say
        v = float(features.get(k, 0.0))
        c = COEFFICIENTS[k] * v
        if abs(c) < 0.05:
            continue
        shown = f"{v:.0%}" if k in ("coverage", "soft_coverage", "support_min", "dropped_share", "chain", "spread",
                                     "hybrid_chain", "meaning_only") else (
            f"{v:.0f}" if k in ("rejected",) else ("yes" if v >= 0.5 and k not in ("docs",) else f"{v:.2f}")
        )  # fmt: skip
        parts.append((abs(c), msg(f"confidence.{k}", value=shown, weight=f"{'+' if c > 0 else '−'}{abs(c):.2f}")))
    parts.sort(key=lambda x: -x[0])
    out = [m for _, m in parts]
    if model_estimate is not None:
        out.append(msg("confidence.model_estimate", value=f"{model_estimate:.2f}", weight=str(MODEL_WEIGHT)))
    return out


# Signals that can only lower the chance of a right answer: their weights are kept ≤ 0 in the
# fit, so a few coincidences in a small tuning set cannot turn a failure into a reward.
NON_POSITIVE = frozenset(["dropped_share", "rejected", "conflict"])


def fit(
    rows: list[tuple[dict[str, float], int]], l2: float = 0.03, steps: int = 4000, lr: float = 0.5,
    features: tuple[str, ...] = FEATURES,
    base: Mapping[str, float] | None = None,
) -> dict[str, float]:
    """Logistic regression by gradient descent: coefficients for ``features`` (+ intercept).

    Used by the benchmark to fit ``COEFFICIENTS`` on the tuning split; kept here so the fit is
    reproducible with the same code that applies it. ``base``: coefficients kept as they are
    (their intercept included); only ``features`` are fitted on top of them, with no intercept
    of their own (how the terms of runs with vectors were fitted over the keyword-only model).
    """
    keys = ["intercept", *features] if base is None else list(features)
    w = dict.fromkeys(keys, 0.0)
    n = max(1, len(rows))
    xs = [([1.0] if base is None else []) + [float(f.get(k, 0.0)) for k in features] for f, _ in rows]
    offsets = [0.0 if base is None else probability_logit(f, base) for f, _ in rows]
    ys = [float(y) for _, y in rows]
    for _ in range(steps):
        grad = [0.0] * len(keys)
        for x, y, z0 in zip(xs, ys, offsets, strict=True):
            z = z0 + sum(wi * xi for wi, xi in zip(w.values(), x, strict=True))
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))
            for j, xj in enumerate(x):
                grad[j] += (p - y) * xj
        for j, k in enumerate(keys):
            reg = l2 * w[k] if k != "intercept" else 0.0
            w[k] -= lr * (grad[j] / n + reg)
            if k in NON_POSITIVE:
                w[k] = min(0.0, w[k])
    return {k: round(v, 3) for k, v in w.items()}


__all__ = ["COEFFICIENTS", "DENSE_FEATURES", "FEATURES", "MODEL_WEIGHT", "explain", "fit", "probability", "reasons"]
