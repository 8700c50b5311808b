"""The library end to end: import, duplicates, failures, search, read, remove, recovery, locking."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from paperpilot.core.library import Library, LibraryError
from paperpilot.core.settings.config import ImportSettings
from paperpilot.core.settings.paths import app_paths
from tests.fixtures import pdfs

LEAVE_TEXT = (
    "# 员工请假流程管理办法\n\n"
    "第一条 为规范公司员工请假流程管理，保障员工合法权益，制定本办法。员工因病或因事需要请假的，"
    "应当提前在系统中提交申请。\n\n"
    "第二条 病假须提供医院证明。事假每年累计不超过十五天。"
)

ATTENTION_TEXT = (
    "# Attention in Sequence Models\n\n"
    "Transformers rely on self-attention to relate positions of a sequence. "
    "Attention weights are computed from queries and keys. "
    "This paragraph discusses running computations in parallel.\n\n"
    "# Results\n\n"
    "The model improved translation quality on the benchmark by two BLEU points. "
    "Training was stable across random seeds."
)


def write(p: Path, text: str, encoding: str = "utf-8") -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(text.encode(encoding))
    return p


@pytest.fixture
def lib() -> Library:
    library = Library(app_paths())
    yield library
    library.close()


def test_import_text_search_read(lib: Library, tmp_path: Path) -> None:
    a = write(tmp_path / "attention.md", ATTENTION_TEXT)
    report = lib.import_paths([a])
    assert [d.title for d in report.imported] == ["Attention in Sequence Models"]
    assert not report.failed and not report.duplicates
    doc_id = report.imported[0].doc_id

    hits = lib.search("run attention", k=3)
    assert hits and hits[0].doc_id == doc_id
    # stemming: "run" matches "running"; the snippet marks the words that matched
    assert "**" in hits[0].snippet
    assert any(t in ("running", "attention") for t in hits[0].terms)

    p = lib.read(doc_id, hits[0].seq)
    assert "self-attention" in p.text or "Attention" in p.text
    assert p.title == "Attention in Sequence Models"
    with pytest.raises(LibraryError):
        lib.read(doc_id, 999)
    with pytest.raises(LibraryError):
        lib.read(12345, 0)


def test_stored_copy_and_metadata(lib: Library, tmp_path: Path) -> None:
    a = write(tmp_path / "attention.md", ATTENTION_TEXT)
    doc_id = lib.import_paths([a]).imported[0].doc_id
    doc = lib.document(doc_id)
    assert doc is not None
    stored = lib.paths.library_dir / doc.stored_path
    assert stored.read_bytes() == a.read_bytes()
    assert doc.file_name == "attention.md" and doc.source_path == str(a.resolve())
    assert len(doc.sha256) == 64 and doc.language == "en" and doc.status == "ready"


def test_chinese_query_finds_compound(lib: Library, tmp_path: Path) -> None:
    lib.import_paths(
        [write(tmp_path / "leave.txt", LEAVE_TEXT, "gbk"), write(tmp_path / "a.md", ATTENTION_TEXT)]
    )
    hits = lib.search("请假流程", k=3)
    assert hits, "a Chinese query must find the passage containing 员工请假流程管理办法"
    assert hits[0].title == "员工请假流程管理办法"
    assert "**" in hits[0].snippet
    # mixed query: Chinese and English terms in one query both work
    mixed = lib.search("请假 attention", k=5)
    assert {h.title for h in mixed} >= {"员工请假流程管理办法", "Attention in Sequence Models"}


def test_title_outweighs_body(lib: Library, tmp_path: Path) -> None:
    write(tmp_path / "docs" / "one.md", "# Graph Neural Networks\n\n" + "A study of message passing. " * 5)
    write(
        tmp_path / "docs" / "two.md",
        "# Protein Folding\n\nWe mention graph neural networks once in passing among many other things. "
        + "Folding is hard. " * 5,
    )
    lib.import_paths([tmp_path / "docs"])
    hits = lib.search("graph neural networks", k=2)
    assert hits[0].title == "Graph Neural Networks"


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "title:",
        "a:b:c",
        "(((",
        ")",
        "[1 TO",
        "AND",
        "OR NOT",
        "*",
        "?",
        "-",
        "+",
        "!!",
        "~2",
        "\\",
        "",
        "   ",
        "field:[a TO b]",
        '请假"流程',
        "emoji 🚀",
    ],
)
def test_any_text_is_a_valid_query(lib: Library, tmp_path: Path, query: str) -> None:
    lib.import_paths([write(tmp_path / "a.md", ATTENTION_TEXT)])
    hits = lib.search(query, k=3)
    assert isinstance(hits, list)


def test_search_filters(lib: Library, tmp_path: Path) -> None:
    r = lib.import_paths(
        [
            write(tmp_path / "a.md", ATTENTION_TEXT),
            write(tmp_path / "b.md", "# Other\n\nAttention also here."),
        ]
    )
    ids = [d.doc_id for d in r.imported]
    only_b = lib.search("attention", k=5, doc_ids=[ids[1]])
    assert only_b and {h.doc_id for h in only_b} == {ids[1]}
    # year filters: text files have no year, so a year range excludes them
    assert lib.search("attention", k=5, year_from=2000) == []


def test_duplicate_by_content(lib: Library, tmp_path: Path) -> None:
    a = write(tmp_path / "a.md", ATTENTION_TEXT)
    b = write(tmp_path / "copy" / "renamed.md", ATTENTION_TEXT)
    first = lib.import_paths([a])
    second = lib.import_paths([b])
    assert not second.imported
    assert second.duplicates == [(str(b.resolve()), first.imported[0].doc_id)]
    assert len(lib.list_documents()) == 1


def test_failures_are_recorded_and_do_not_stop_the_batch(lib: Library, tmp_path: Path) -> None:
    good = write(tmp_path / "in" / "good.md", ATTENTION_TEXT)
    write(tmp_path / "in" / "empty.txt", "")
    write(tmp_path / "in" / "blank.txt", "   \n\n  ")
    (tmp_path / "in" / "binary.txt").write_bytes(bytes(range(256)) * 4)
    gen = tmp_path / "gen"
    gen.mkdir()
    for make in (pdfs.make_truncated_pdf, pdfs.make_encrypted_pdf, pdfs.make_image_only_pdf):
        made = make(gen)
        made.rename(tmp_path / "in" / made.name)
    write(tmp_path / "in" / "picture.png", "not imported from folders")
    report = lib.import_paths([tmp_path / "in", tmp_path / "missing.pdf", tmp_path / "in" / "picture.png"])
    assert [d.path for d in report.imported] == [str(good.resolve())]
    reasons = {Path(p).name: r for p, r in report.failed}
    assert set(reasons) == {
        "empty.txt",
        "blank.txt",
        "binary.txt",
        "truncated.pdf",
        "encrypted.pdf",
        "image_only.pdf",
        "missing.pdf",
        "picture.png",
    }
    assert "password" in reasons["encrypted.pdf"].lower()
    assert "ocr" in reasons["image_only.pdf"].lower()
    assert "empty" in reasons["empty.txt"].lower()
    assert "unsupported" in reasons["picture.png"].lower()
    # failures of real candidates are kept (with their reason) for the library view
    failed = {d.file_name: d for d in lib.all_documents() if d.status == "failed"}
    assert "encrypted.pdf" in failed and failed["encrypted.pdf"].error == reasons["encrypted.pdf"]
    assert "picture.png" not in failed
    # only the good file is searchable
    assert len(lib.list_documents()) == 1


def test_too_large_is_refused(tmp_path: Path) -> None:
    lib = Library(app_paths(), ImportSettings(max_file_mb=0.001))
    try:
        report = lib.import_paths([write(tmp_path / "big.txt", "big text. " * 500)])
        assert report.failed and "too large" in report.failed[0][1].lower()
    finally:
        lib.close()


def test_retry_replaces_failed_record(lib: Library, tmp_path: Path) -> None:
    f = write(tmp_path / "notes.txt", "")
    assert lib.import_paths([f]).failed
    write(f, ATTENTION_TEXT)
    assert lib.import_paths([f]).imported
    statuses = [d.status for d in lib.all_documents()]
    assert statuses == ["ready"]


def test_remove_deletes_everywhere(lib: Library, tmp_path: Path) -> None:
    r = lib.import_paths(
        [write(tmp_path / "a.md", ATTENTION_TEXT), write(tmp_path / "leave.txt", LEAVE_TEXT)]
    )
    a_id = r.imported[0].doc_id
    stored = lib.paths.library_dir / lib.document(a_id).stored_path  # type: ignore[union-attr]
    assert stored.exists()
    lib.remove(a_id)
    assert lib.document(a_id) is None
    assert not stored.exists()
    assert all(h.doc_id != a_id for h in lib.search("attention transformers", k=10))
    assert lib.index.num_docs() == lib.store.indexed_chunk_count()
    with pytest.raises(LibraryError):
        lib.remove(a_id)


def test_corpus_jsonl(lib: Library, tmp_path: Path) -> None:
    lines = [
        json.dumps({"id": "p1", "title": "Paris", "text": "Paris is the capital of France."}),
        "{not json",
        json.dumps({"id": "p2", "title": "巴黎", "text": "巴黎是法国的首都。"}),
        json.dumps({"id": "p3", "title": "Paris", "text": "Paris is the capital of France."}),
    ]
    write(tmp_path / "corpus.jsonl", "\n".join(lines) + "\n")
    r = lib.import_paths([tmp_path / "corpus.jsonl"])
    assert [d.title for d in r.imported] == ["Paris", "巴黎"]
    assert len(r.failed) == 1 and r.failed[0][0].endswith(":2")
    assert len(r.duplicates) == 1
    assert {d.external_id for d in lib.list_documents()} == {"p1", "p2"}
    assert lib.search("法国首都", k=1)[0].title == "巴黎"


def test_two_column_pdf_search_and_read(lib: Library, tmp_path: Path) -> None:
    pdf = pdfs.make_two_column_pdf(tmp_path)
    r = lib.import_paths([pdf])
    assert r.imported, r.failed
    hits = lib.search("quantum pelican migration", k=1)
    assert hits and hits[0].doc_id == r.imported[0].doc_id
    passage = lib.read(hits[0].doc_id, hits[0].seq)
    assert "quantum pelican migration" in " ".join(passage.text.split()).lower()
    assert passage.page == 1


def test_chinese_pdf(lib: Library, tmp_path: Path) -> None:
    r = lib.import_paths([pdfs.make_chinese_pdf(tmp_path)])
    assert r.imported, r.failed
    hits = lib.search("请假流程", k=1)
    assert hits and hits[0].doc_id == r.imported[0].doc_id


def test_cache_invalidated_on_change(lib: Library, tmp_path: Path) -> None:
    assert lib.search("attention", k=3) == []
    assert lib.list_documents() == []
    lib.import_paths([write(tmp_path / "a.md", ATTENTION_TEXT)])
    assert lib.search("attention", k=3)
    assert len(lib.list_documents()) == 1


def test_other_process_changes_are_seen(lib: Library, tmp_path: Path) -> None:
    assert lib.search("attention", k=3) == []
    f = write(tmp_path / "a.md", ATTENTION_TEXT)
    run_py(f"""
        from paperpilot.core.library import Library
        from paperpilot.core.settings.paths import app_paths
        with Library(app_paths()) as lib:
            lib.import_paths([{str(f)!r}])
    """)
    assert lib.search("attention", k=3), "a search cache must not hide another process's import"
    assert len(lib.list_documents()) == 1


# --- recovery and concurrency -------------------------------------------------------------------


def run_py(code: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )


def assert_consistent(lib: Library) -> None:
    assert lib.index.num_docs() == lib.store.indexed_chunk_count()
    assert lib.store.unindexed_ready() == []
    assert lib.store.doc_ids_with_status("deleting") == []
    on_disk = {
        f.relative_to(lib.paths.library_dir).as_posix() for f in lib.paths.files_dir.rglob("*") if f.is_file()
    }
    assert on_disk == lib.store.stored_paths()
    with sqlite3.connect(lib.paths.database) as c:
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_crash_between_store_and_index_is_recovered(tmp_path: Path) -> None:
    f = write(tmp_path / "a.md", ATTENTION_TEXT)
    # The child dies (like kill -9) right after the SQLite commit, before the index commit.
    r = run_py(f"""
        import os
        from paperpilot.core.library import library as L
        from paperpilot.core.settings.paths import app_paths
        def die(self): os._exit(9)
        L.Library._flush_and_unlock = die
        lib = L.Library(app_paths(), recover=False)
        lib.import_paths([{str(f)!r}])
    """)
    assert r.returncode == 9, r.stderr
    with Library(app_paths(), recover=False) as raw:
        assert len(raw.store.unindexed_ready()) == 1  # the debris really is there
    with Library(app_paths()) as lib:
        assert_consistent(lib)
        assert lib.search("attention", k=1)


def test_crash_after_file_copy_leaves_no_orphan(tmp_path: Path) -> None:
    f = write(tmp_path / "a.md", ATTENTION_TEXT)
    r = run_py(f"""
        import os
        from paperpilot.core.library import library as L
        from paperpilot.core.library.store import Store
        from paperpilot.core.settings.paths import app_paths
        def die(self, **kw): os._exit(9)
        Store.add_document = die
        lib = L.Library(app_paths(), recover=False)
        lib.import_paths([{str(f)!r}])
    """)
    assert r.returncode == 9, r.stderr
    files = [p for p in app_paths().files_dir.rglob("*") if p.is_file()]
    assert files, "the copy was made before the crash"
    with Library(app_paths()) as lib:
        assert_consistent(lib)
        assert lib.list_documents() == []


def test_crash_during_remove_is_finished(tmp_path: Path) -> None:
    with Library(app_paths()) as lib:
        doc_id = lib.import_paths([write(tmp_path / "a.md", ATTENTION_TEXT)]).imported[0].doc_id
    r = run_py(f"""
        import os
        from paperpilot.core.library import library as L
        from paperpilot.core.settings.paths import app_paths
        def die(self, doc_id): os._exit(9)
        L.Library._finish_delete = die
        lib = L.Library(app_paths(), recover=False)
        lib.remove({doc_id})
    """)
    assert r.returncode == 9, r.stderr
    with Library(app_paths()) as lib:
        assert lib.document(doc_id) is None
        assert_consistent(lib)


def test_kill_9_at_random_points_keeps_library_consistent(tmp_path: Path) -> None:
    folder = tmp_path / "many"
    for i in range(40):
        write(
            folder / f"doc{i:02}.md", f"# Document {i}\n\n" + f"Paragraph about topic{i} and attention. " * 30
        )
    script = tmp_path / "importer.py"
    script.write_text(
        "import sys\nfrom paperpilot.core.library import Library\nfrom paperpilot.core.settings.paths import app_paths\n"
        f"with Library(app_paths()) as lib:\n    lib.import_paths([{str(folder)!r}])\n"
    )
    for delay in (0.35, 0.6, 0.9):
        p = subprocess.Popen(
            [sys.executable, str(script)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            p.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            p.kill()  # SIGKILL
            p.wait()
        with Library(app_paths()) as lib:
            assert_consistent(lib)
    with Library(app_paths()) as lib:
        lib.import_paths([folder])
        assert len(lib.list_documents()) == 40
        assert lib.search("topic7", k=1)[0].title == "Document 7"
        assert_consistent(lib)


def test_second_writer_is_told_library_is_busy(tmp_path: Path) -> None:
    with Library(app_paths()) as lib:
        lib.import_paths([write(tmp_path / "a.md", ATTENTION_TEXT)])
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            textwrap.dedent("""
                import sys, time
                from paperpilot.core.library import Library
                from paperpilot.core.settings.paths import app_paths
                lib = Library(app_paths())
                with lib.writing():
                    print("locked", flush=True)
                    time.sleep(30)
            """),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        lib = Library(app_paths(), lock_timeout=0.3)
        try:
            # reading is never blocked by a writer
            assert lib.search("attention", k=1)
            b = write(tmp_path / "b.md", "# B\n\nAnother text about attention.")
            report = lib.import_paths([b])
            # told "busy" in one line for the batch, which keeps its list of what it did not do
            assert "busy" in report.stopped and "\n" not in report.stopped
            assert report.not_imported == [str(b)] and not report.imported
        finally:
            lib.close()
    finally:
        holder.kill()
        holder.wait()
    with Library(app_paths()) as lib:
        assert_consistent(lib)


def test_index_missing_or_corrupt_is_rebuilt(tmp_path: Path) -> None:
    with Library(app_paths()) as lib:
        lib.import_paths([write(tmp_path / "a.md", ATTENTION_TEXT)])
        index_dir = lib.paths.index_dir
    for f in index_dir.iterdir():
        if f.suffix in (".idx", ".term", ".store") or f.name == "meta.json":
            f.write_bytes(b"garbage")
    with Library(app_paths()) as lib:
        assert lib.index_rebuilt
        assert lib.search("attention", k=1)
        assert_consistent(lib)
    import shutil

    shutil.rmtree(index_dir)
    with Library(app_paths()) as lib:
        assert lib.search("attention", k=1)


def test_reindex(lib: Library, tmp_path: Path) -> None:
    lib.import_paths([write(tmp_path / "a.md", ATTENTION_TEXT), write(tmp_path / "b.txt", LEAVE_TEXT)])
    chunks = lib.store.indexed_chunk_count()
    assert lib.reindex() == chunks
    assert lib.search("请假", k=1) and lib.search("attention", k=1)
    assert_consistent(lib)


def test_reads_from_another_thread_while_importing(lib: Library, tmp_path: Path) -> None:
    import threading

    folder = tmp_path / "many"
    for i in range(25):
        write(folder / f"d{i}.md", f"# Paper {i}\n\n" + f"Sentence about attention number {i}. " * 20)
    errors: list[BaseException] = []
    seen: list[int] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                seen.append(len(lib.search("attention", k=5)))
                lib.list_documents()
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    t = threading.Thread(target=reader)
    t.start()
    try:
        lib.import_paths([folder])
    finally:
        stop.set()
        t.join()
    assert not errors
    assert seen and len(lib.list_documents()) == 25
    assert len(lib.search("attention", k=5)) == 5


def test_large_pdf_imports_extract_in_worker_processes(lib: Library, tmp_path: Path) -> None:
    """Five or more PDFs go through the process pool: same results, in order, codes intact."""
    from paperpilot.core.library import importer as importer_module

    folder = tmp_path / "pdfs"
    folder.mkdir()
    (tmp_path / "gen").mkdir()
    (tmp_path / "gen2").mkdir()
    paper = pdfs.make_paper_pdf(tmp_path / "gen")
    for i in range(4):
        (folder / f"p{i}.pdf").write_bytes(paper.read_bytes() + f"\n% copy {i}\n".encode())
    pdfs.make_encrypted_pdf(tmp_path / "gen2").rename(folder / "p9-encrypted.pdf")
    files = importer_module.expand_paths([folder])
    assert importer_module._PdfPrefetcher.for_files(files) is not None or (os.cpu_count() or 1) < 2
    report = lib.import_paths([folder])
    assert [Path(d.path).name for d in report.imported] == ["p0.pdf", "p1.pdf", "p2.pdf", "p3.pdf"]
    assert [d.doc_id for d in report.imported] == sorted(d.doc_id for d in report.imported)
    failed = {d.file_name: d for d in lib.all_documents() if d.status == "failed"}
    assert "password" in failed["p9-encrypted.pdf"].error.lower()
    with sqlite3.connect(lib.paths.database) as c:
        code = c.execute("SELECT error_code FROM documents WHERE file_name='p9-encrypted.pdf'").fetchone()[0]
    assert code == "encrypted"  # the failure's code survived the trip between processes


def test_the_index_writer_leaves_the_cores_to_the_extraction_workers(
    lib: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While worker processes extract PDFs the index has one indexing thread; an import
    without workers (text files) and a rebuild have Tantivy's default, one per core."""
    from paperpilot.core.library.index import SearchIndex

    asked: list[int] = []
    real = SearchIndex.writer

    def spy(self: SearchIndex, threads: int = 0) -> object:
        asked.append(threads)
        return real(self, threads)

    monkeypatch.setattr(SearchIndex, "writer", spy)
    folder = tmp_path / "pdfs"
    folder.mkdir()
    (tmp_path / "gen").mkdir()
    paper = pdfs.make_paper_pdf(tmp_path / "gen")
    for i in range(4):
        (folder / f"p{i}.pdf").write_bytes(paper.read_bytes() + f"\n% copy {i}\n".encode())
    assert len(lib.import_paths([folder]).imported) == 4
    with_workers = (os.cpu_count() or 1) >= 2
    assert asked and set(asked) == ({1} if with_workers else {0})
    asked.clear()
    notes = tmp_path / "notes.txt"
    notes.write_text("Attention is what the notes are about.\n\nA second paragraph.", encoding="utf-8")
    assert len(lib.import_paths([notes]).imported) == 1
    assert asked == [0]
    asked.clear()
    lib.rebuild_index()
    assert asked == [0]
    assert len(lib.search("attention", k=5)) >= 1
