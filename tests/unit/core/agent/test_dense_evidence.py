"""Issue 25: what search by meaning may and may not vouch for — status and confidence.

A search by meaning always returns something: the nearest neighbour of a question the library
has nothing on is not evidence. These tests pin the status rules that keep out-of-library
questions insufficient once vectors exist, and the confidence features of runs with vectors.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from paperpilot.core.agent import confidence
from paperpilot.core.agent.actions import Answer
from paperpilot.core.agent.analysis import analyze
from paperpilot.core.agent.events import Finished, Info, PassageView, Status
from paperpilot.core.agent.loop import WEAK_COSINE, AgentOptions, run_agent
from paperpilot.core.agent.offline import OfflinePolicy
from paperpilot.core.agent.sufficiency import assess
from paperpilot.core.agent.verify import verify_answer
from paperpilot.core.library import Library
from paperpilot.core.library_records import Hit
from paperpilot.core.settings.paths import app_paths

PARKS = "How does the vegetation structure of urban parks affect bird diversity?"
LABELS = PassageView(
    id="P1", doc_id=1, segment=3, title="Revolt: collaborative crowdsourcing for labeling data",
    text="Revolt produces high quality labels without label guidelines. Label structures allow requesters "
    "to understand the concepts in the guidelines.",
)  # fmt: skip


def _assess(question: str, text: str, passage: PassageView) -> Status:
    v = verify_answer(Answer(text=text, evidence_ids=[passage.id]), {passage.id: passage}, question=question)
    assert v.claims and all(c.support.supported for c in v.claims)
    return assess(analyze(question), v, {passage.id: passage}).status


def test_a_generic_word_alone_does_not_make_an_entityless_question_partial() -> None:
    # Six key concepts, none an entity; the evidence shares only "structure" (and the "how" slot
    # no sentence can fail): it is about something else, not part of the answer.
    said = "Label structures allow requesters to understand the concepts in the guidelines [P1]."
    assert _assess(PARKS, said, LABELS) == Status.INSUFFICIENT


def test_evidence_on_half_the_key_concepts_is_still_partial() -> None:
    park = PassageView(id="P1", doc_id=2, segment=1, title="Urban green space",
                       text="The vegetation structure of urban parks varies with their age and size.")  # fmt: skip
    said = "The vegetation structure of urban parks varies with their age and size [P1]."
    assert _assess(PARKS, said, park) == Status.PARTIAL


def test_a_claim_citing_only_weak_passages_covers_nothing() -> None:
    park = PassageView(id="P1", doc_id=2, segment=1, title="Urban green space",
                       text="The vegetation structure of urban parks varies with their age and size.")  # fmt: skip
    said = "The vegetation structure of urban parks varies with their age and size [P1]."
    v = verify_answer(Answer(text=said, evidence_ids=["P1"]), {"P1": park}, question=PARKS)
    a = assess(analyze(PARKS), v, {"P1": park}, weak=frozenset({"P1"}))
    assert a.status == Status.INSUFFICIENT and not any(p.covered for p in a.parts if p.part.kind == "concept")


# --- through the loop, with a pool whose hits come from a search by meaning -------------------------

NOTES = {
    "labels.md": "# Crowdsourcing labels\n\n## Method\n\nAnnotators label photographs of city streets in "
    "an online tool; the tool records traffic on each street.\n\nTraffic noise was not recorded by the "
    "annotators, who only described the streets.\n",
}  # fmt: skip
QUESTION = "How does traffic noise affect the annotators of city streets?"


class MeaningPool:
    """A library whose every hit comes from a search by meaning at ``cosine`` (``found_by``)."""

    def __init__(self, lib: Library, cosine: float, found_by: str = "meaning") -> None:
        self.lib, self.cosine, self.found_by = lib, cosine, found_by

    def search(self, query: str, k: int = 3, **kw: Any) -> list[Hit]:
        kw.pop("mode", None)
        hits = self.lib.search(query, k, **kw) or self.lib.search("annotators streets", k, **kw)
        return [dataclasses.replace(h, found_by=self.found_by, dense=self.cosine,
                                    bm25=None if self.found_by == "meaning" else h.score) for h in hits]  # fmt: skip

    def __getattr__(self, name: str) -> Any:
        return getattr(self.lib, name)


def _lib(tmp_path: Path) -> Library:
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    lib = Library(app_paths(tmp_path / "home"))
    assert not lib.import_paths(sorted(tmp_path.glob("*.md"))).failed
    return lib


def _ask(pool: object) -> tuple[Status, dict[str, float]]:
    events = list(run_agent(QUESTION, pool, OfflinePolicy(), AgentOptions(mode="loop")))  # type: ignore[arg-type]
    assert isinstance(events[-1], Finished)
    feats = next((e.data["features"] for e in events if isinstance(e, Info) and e.code == "confidence"), {})
    return events[-1].result.status, feats


def test_a_weak_meaning_only_hit_does_not_make_a_question_partial(tmp_path: Path) -> None:
    lib = _lib(tmp_path)
    try:
        # Found by keywords (or as close neighbours), these passages make a partial answer: they
        # name the annotators, the streets and traffic noise, not how one affects the other. Found
        # only as a question's distant nearest neighbours — what a search by meaning returns for
        # a question the library has nothing on — they are no evidence of relevance.
        for pool in (MeaningPool(lib, WEAK_COSINE - 0.03, "both"), MeaningPool(lib, WEAK_COSINE + 0.05)):
            status, _ = _ask(pool)
            assert status == Status.PARTIAL
        status, feats = _ask(MeaningPool(lib, WEAK_COSINE - 0.03))
        assert status == Status.INSUFFICIENT
        assert feats["vectors"] == 1.0 and feats["meaning_only"] == 1.0
    finally:
        lib.close()


def test_a_keyword_only_run_has_no_dense_features_and_keeps_its_confidence(tmp_path: Path) -> None:
    lib = _lib(tmp_path)
    try:
        status, feats = _ask(lib)
        assert status == Status.PARTIAL
        assert feats["vectors"] == feats["hybrid_chain"] == feats["meaning_only"] == feats["cosine"] == 0.0
        keyword_only = {k: v for k, v in confidence.COEFFICIENTS.items() if k not in confidence.DENSE_FEATURES}
        assert confidence.probability(feats) == confidence.probability(feats, coefficients=keyword_only)
    finally:
        lib.close()


def test_dense_features_move_the_confidence_of_runs_with_vectors() -> None:
    base = {"answered": 1.0, "coverage": 1.0, "soft_coverage": 1.0, "spread": 1.0, "chain": 1.0}
    keyword = confidence.probability({**base, "vectors": 0.0, "hybrid_chain": 0.0})
    chained = confidence.probability({**base, "vectors": 1.0, "hybrid_chain": 1.0})
    scattered = confidence.probability({**base, "chain": 0.0, "vectors": 1.0, "hybrid_chain": 0.0})
    # With vectors a chain of cited documents counts for more than in a keyword-only run, and a
    # scatter of passages for a little less.
    assert chained > keyword > scattered
    assert scattered < confidence.probability({**base, "chain": 0.0})
    reasons = confidence.explain({**base, "vectors": 1.0, "hybrid_chain": 1.0})
    assert any("search by meaning" in r for r in reasons)


def test_the_fit_over_a_base_model_changes_only_the_new_terms() -> None:
    base = {"intercept": -1.0, "answered": 2.0}
    rows = [({"answered": 1.0, "vectors": 1.0}, 1)] * 8 + [({"answered": 1.0, "vectors": 1.0}, 0)] * 2
    rows += [({"answered": 0.0, "vectors": 1.0}, 0)] * 10
    w = confidence.fit(rows, features=("vectors",), base=base, steps=500)
    assert set(w) == {"vectors"}
    assert w["vectors"] < 0  # the base is overconfident on these rows: the run-kind term pulls down
