"""The bundled model embeds a query from its first ``QUERY_MAX_TOKENS`` tokens."""

from __future__ import annotations

import numpy as np
import pytest

from paperpilot.core.retrieval import BundledEmbedder
from paperpilot.core.retrieval.embedder import QUERY_MAX_TOKENS, _load_model, clip_query

LONG = (
    "Airborne lidar measures the ground beneath forest canopies with laser pulses, and archaeologists "
    "used it to find causeways, terraces and reservoirs of Maya cities hidden under the jungle of "
    "northern Guatemala, where decades of walking surveys had mapped only a fraction of the sites. "
) * 4


@pytest.fixture(scope="module")
def model() -> object:
    return _load_model()


def test_a_short_query_is_left_alone(model: object) -> None:
    for q in ["BRCA1", "how do owls find mice in darkness", "冰川融化的原因是什么？", ""]:
        assert clip_query(model, q, QUERY_MAX_TOKENS) == q


def test_a_long_query_is_cut_at_a_word_to_fit(model: object) -> None:
    count = model.token_count  # type: ignore[attr-defined]
    assert count(LONG, True) > 3 * QUERY_MAX_TOKENS
    cut = clip_query(model, LONG, QUERY_MAX_TOKENS)
    assert LONG.startswith(cut) and LONG[len(cut)] == " "
    assert QUERY_MAX_TOKENS - 6 <= count(cut, True) <= QUERY_MAX_TOKENS
    zh = "冰川在二十世纪末开始加速融化，夏季热浪使薄的冰舌最先消失，灰尘让积雪变暗。" * 8
    cut = clip_query(model, zh, 32)
    assert zh.startswith(cut) and 28 <= count(cut, True) <= 32


def test_the_embedder_embeds_the_cut_query_and_passages_whole() -> None:
    emb = BundledEmbedder(threads=1)
    cut = clip_query(_load_model(), LONG, QUERY_MAX_TOKENS)
    assert np.array_equal(emb.embed_query(LONG), emb.embed_query(cut))
    whole = BundledEmbedder(threads=1, max_query_tokens=0)  # 0: no limit
    assert not np.allclose(whole.embed_query(LONG), emb.embed_query(LONG), atol=1e-3)
    assert not np.allclose(emb.embed_passages([LONG])[0], emb.embed_passages([cut])[0], atol=1e-3)
