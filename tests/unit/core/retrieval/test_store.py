"""The vector store: real SQLite, a real SIGKILL mid-write, the search structure's rebuilds."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from paperpilot.core.errors import InvalidInput
from paperpilot.core.retrieval.store import VectorItem, VectorStore, quantise, text_hash

MODEL = ("test-model", "1")
DIM = 32


def unit(seed: int, dim: int = DIM) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(dim).astype(np.float32)
    return v / np.linalg.norm(v)


def items(ids: range | list[int], dim: int = DIM) -> list[VectorItem]:
    return [VectorItem(i, text_hash(f"text {i}"), unit(i, dim)) for i in ids]


def test_quantised_vectors_keep_their_direction() -> None:
    rows = np.stack([unit(i, 384) for i in range(50)])
    q, scale = quantise(rows)
    back = q.astype(np.float32) * scale[:, None]
    cos = (back * rows).sum(axis=1) / np.linalg.norm(back, axis=1)
    assert q.dtype == np.int8 and cos.min() > 0.999


def test_add_search_delete(tmp_path: Path) -> None:
    with VectorStore(tmp_path / "vectors.sqlite", MODEL) as store:
        assert store.search(unit(1), 5) == [] and store.count() == 0
        store.add(items(range(1, 101)))
        assert store.count() == 100 and store.dim == DIM
        hits = store.search(unit(42), 3)
        assert hits[0][0] == 42 and hits[0][1] == pytest.approx(1.0, abs=0.01)
        assert len(hits) == 3 and hits[0][1] >= hits[1][1] >= hits[2][1]
        # limited to some chunks
        allowed = store.search(unit(42), 3, allowed_chunk_ids=[7, 8, 9])
        assert {c for c, _ in allowed} == {7, 8, 9}
        assert store.search(unit(42), 3, allowed_chunk_ids=[]) == []
        assert store.delete([42, 43, 999]) == 2
        assert 42 not in {c for c, _ in store.search(unit(42), 10)}
        assert store.missing([41, 42, 43, 44]) == [42, 43]
        vecs = store.vectors([41])
        assert float(vecs[41] @ unit(41)) > 0.995  # int8 over 32 dimensions
        with pytest.raises(InvalidInput):
            store.add([VectorItem(500, b"x" * 8, unit(1, 16))])


def test_an_edited_chunk_is_stale(tmp_path: Path) -> None:
    with VectorStore(tmp_path / "v.sqlite", MODEL) as store:
        store.add(items([1, 2]))
        assert store.stale([(1, text_hash("text 1")), (2, text_hash("edited")), (3, text_hash("new"))]) == [2, 3]


def test_a_model_change_makes_everything_stale(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    with VectorStore(path, MODEL) as old:
        old.add(items(range(10)))
    with VectorStore(path, ("test-model", "2")) as new:
        assert new.model_changed() and new.stale_count() == 10 and new.count() == 0
        assert new.missing(range(10)) == list(range(10))
        assert new.search(unit(3), 3) == []  # another model's vectors are never compared
        assert any("another model" in p for p in new.check())
        new.add(items(range(5), dim=16))  # a new model may have another length
        assert new.stale_count() == 5 and new.search(unit(3, 16), 1)[0][0] == 3
        assert new.drop_other_models() == 5 and not new.model_changed()


def test_large_store_uses_the_exact_int8_search(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    n, dim = 6000, 64  # above the size scored in numpy directly
    mat = rng.standard_normal((n, dim)).astype(np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    with VectorStore(tmp_path / "v.sqlite", MODEL) as store:
        store.add([VectorItem(i + 1, b"h" * 8, mat[i]) for i in range(n)])
        for probe in (10, 2000, 5999):
            q = mat[probe] + 0.3 * rng.standard_normal(dim).astype(np.float32)
            want = [int(i) + 1 for i in np.argsort(-(mat @ (q / np.linalg.norm(q))))[:5]]
            got = [c for c, _ in store.search(q, 5)]
            assert got[0] == want[0] and len(set(got) & set(want)) >= 4
        subset = list(range(1, 5001, 2))
        got = store.search(mat[100], 3, allowed_chunk_ids=subset)
        assert got[0][0] == 101 and all(c % 2 == 1 for c, _ in got)


def test_the_index_file_is_rebuilt_when_missing_stale_or_damaged(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    with VectorStore(path, MODEL) as store:
        store.add(items(range(1, 51)))
        store.search(unit(1), 1)
        assert store.last_rebuild == "missing"
    index = tmp_path / "v.sqlite.index"
    assert index.exists()  # written on close

    with VectorStore(path, MODEL) as store:
        assert store.search(unit(7), 1)[0][0] == 7 and store.last_rebuild == ""  # read, not rebuilt

    with VectorStore(path, MODEL) as writer, VectorStore(path, MODEL) as reader:
        reader.search(unit(1), 1)
        writer.add(items([77]))  # another store (process) writes: the reader's copy is stale
        assert reader.search(unit(77), 1)[0][0] == 77
    with VectorStore(path, MODEL) as store:
        assert store.search(unit(77), 1)[0][0] == 77

    data = bytearray(index.read_bytes())
    data[-10] ^= 0xFF
    index.write_bytes(bytes(data))
    with VectorStore(path, MODEL) as store:
        assert store.search(unit(9), 1)[0][0] == 9 and store.last_rebuild == "damaged"

    index.write_bytes(b"rubbish")
    with VectorStore(path, MODEL) as store:
        assert store.search(unit(9), 1)[0][0] == 9 and store.last_rebuild == "damaged"

    index.unlink()
    with VectorStore(path, MODEL) as store:
        assert store.search(unit(9), 1)[0][0] == 9 and store.last_rebuild == "missing"
        assert store.check() == []


def test_a_damaged_database_is_moved_aside_and_started_again(tmp_path: Path) -> None:
    path = tmp_path / "v.sqlite"
    with VectorStore(path, MODEL) as store:
        store.add(items(range(5)))
    for extra in ("-wal", "-shm"):
        Path(str(path) + extra).unlink(missing_ok=True)
    path.write_bytes(b"this is not a database at all" * 200)
    with VectorStore(path, MODEL) as store:
        assert store.recovered and store.count() == 0
        store.add(items([1]))
        assert store.search(unit(1), 1)[0][0] == 1
    assert (tmp_path / "v.sqlite.damaged").exists()


_WRITER = textwrap.dedent(
    """
    import sys
    import numpy as np
    from paperpilot.core.retrieval.store import VectorItem, VectorStore, text_hash
    store = VectorStore(sys.argv[1], ("test-model", "1"))
    batch, dim = int(sys.argv[2]), 384

    class HangInsideTheTransaction:
        # The fifth batch's rows are written, its transaction is open: say so and wait for the kill.
        def __init__(self, conn):
            self.conn = conn
        def __getattr__(self, name):
            return getattr(self.conn, name)
        def executemany(self, sql, rows):
            self.conn.executemany(sql, rows)
            print("inside", flush=True)
            import time
            time.sleep(60)

    for b in range(10_000):
        if b == 4 and sys.argv[3] == "hang":
            store._conn = HangInsideTheTransaction(store._conn)
        ids = range(b * batch + 1, (b + 1) * batch + 1)
        rows = np.stack([np.random.default_rng(i).standard_normal(dim).astype(np.float32) for i in ids])
        store.add([VectorItem(i, text_hash(str(i)), rows[k]) for k, i in enumerate(ids)])
        print(b, flush=True)
    """
)


@pytest.mark.parametrize("when", ["hang", "anywhere"])
def test_kill_9_mid_batch_loses_at_most_that_batch(tmp_path: Path, when: str) -> None:
    """Killed inside a batch's open transaction (its rows written, not committed), or at
    whatever point the fifth batch has reached."""
    path = tmp_path / "v.sqlite"
    batch = 500
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), str(batch), when],
        stdout=subprocess.PIPE, text=True, env={**os.environ},
    )  # fmt: skip
    assert child.stdout is not None
    for _ in range(4):  # four batches committed; the fifth is being written
        assert child.stdout.readline().strip() != ""
    if when == "hang":
        assert child.stdout.readline().strip() == "inside"
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=10)
    assert child.returncode == -signal.SIGKILL

    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    with VectorStore(path, ("test-model", "1")) as store:
        n = store.count()
        assert n >= 4 * batch and n % batch == 0  # whole batches only
        if when == "hang":
            assert n == 4 * batch
        assert store.missing(range(1, n + 1)) == []
        for cid in (1, n // 2, n):
            v = np.random.default_rng(cid).standard_normal(384).astype(np.float32)
            hit, score = store.search(v, 1)[0]
            assert hit == cid and score > 0.99
        assert store.check() == []


def test_a_full_disk_keeps_what_was_stored(tmp_path: Path) -> None:
    from paperpilot.core.errors import DiskFull

    with VectorStore(tmp_path / "v.sqlite", MODEL) as store:
        store.add(items(range(1, 11)))
        pages = store._conn.execute("PRAGMA page_count").fetchone()[0]
        store._conn.execute(f"PRAGMA max_page_count={pages + 1}")  # SQLite's own "disk full"
        with pytest.raises(DiskFull, match="disk is full"):
            store.add(items(range(100, 2100)))
        assert store.count() == 10 and store.search(unit(3), 1)[0][0] == 3
        assert store.missing(range(100, 103)) == [100, 101, 102]


def test_the_numpy_fallback_ranks_as_numkong_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from paperpilot.core.retrieval import store as store_module

    rng = np.random.default_rng(5)
    rows = rng.integers(-127, 128, (5000, 48), dtype=np.int8)
    q8 = rows[17]
    fast = store_module._int8_dots(rows, q8, 1)
    monkeypatch.setitem(sys.modules, "numkong", None)  # as if it were not installed
    slow = store_module._int8_dots(rows, q8, 1)
    assert np.array_equal(fast, slow) and int(np.argmax(fast)) == 17
