"""Nothing lost, ever: the library under concurrent writers, readers during an import, a lost or
damaged database, kill -9, a read-only folder, a full disk — each done for real, and each
followed by an integrity check that must find the library clean."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.core.library import Library, LibraryDamaged
from paperpilot.core.library import importer as importer_module
from paperpilot.core.library.metadata import update_metadata
from paperpilot.core.settings.paths import app_paths
from tests.unit.safety_helpers import (
    alive,
    as_unprivileged,
    assert_clean,
    children_of,
    cli,
    cli_popen,
    cmdline,
    make_folder,
    stored_files,
)


def ready_rows(home: Path) -> list[tuple[int, str, str]]:
    with sqlite3.connect(app_paths(home).database) as c:
        return c.execute("SELECT id, sha256, stored_path FROM documents WHERE status='ready' ORDER BY id").fetchall()


# --- two writers -----------------------------------------------------------------------------


def test_two_parallel_imports_of_one_folder_store_each_file_once(tmp_path: Path, paperpilot_home: Path) -> None:
    folder = make_folder(tmp_path / "papers", 12, 12)
    a, b = cli_popen(paperpilot_home, "import", "--json", str(folder)), cli_popen(
        paperpilot_home, "import", "--json", str(folder)
    )
    outs = [p.communicate(timeout=120) for p in (a, b)]
    for p, (_out, err) in zip((a, b), outs, strict=True):
        assert p.returncode == 0, err
        assert "Traceback" not in err
    reports = [json.loads(out) for out, _err in outs]
    assert [r["failed"] for r in reports] == [[], []]  # no false failure (the .part race)
    assert sum(len(r["imported"]) for r in reports) == 24
    assert sum(len(r["duplicates"]) for r in reports) == 24  # each run saw the other's files
    rows = ready_rows(paperpilot_home)
    assert len(rows) == 24 and len({sha for _id, sha, _p in rows}) == 24
    assert stored_files(paperpilot_home) == {p.removeprefix("files/") for _id, _sha, p in rows}
    assert_clean(paperpilot_home)


def test_a_waiting_writer_gets_its_turn_between_the_files_of_a_long_import(
    tmp_path: Path, paperpilot_home: Path
) -> None:
    folder = make_folder(tmp_path / "slow", 0, 60)
    # The long import: 60 files, each made to take 50 ms to extract, so ~3 s holding the library.
    script = tmp_path / "slow_import.py"
    script.write_text(
        textwrap.dedent(f"""
            import sys, time
            from paperpilot.core.library import importer as I, library as L
            from paperpilot.core.settings.paths import app_paths
            real = I.extract_text_file
            def slow(path):
                time.sleep(0.05)
                return real(path)
            I.extract_text_file = slow
            with L.Library(app_paths({str(paperpilot_home)!r})) as lib:
                print("started", flush=True)
                rep = lib.import_paths([{str(folder)!r}])
                print(len(rep.imported), flush=True)
        """)
    )
    slow = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert slow.stdout is not None and slow.stdout.readline().strip() == "started"
        time.sleep(0.5)
        other = tmp_path / "other.md"
        other.write_text("# Another paper\n\nA short text about falcons and their nesting habits.")
        # Much less than the whole batch: it only has to wait for the file in progress.
        with Library(app_paths(), lock_timeout=2.0) as lib:
            report = lib.import_paths([other])
        assert report.stopped == "" and [Path(d.path).name for d in report.imported] == ["other.md"]
        assert slow.poll() is None, "the long import should still be running"
        assert slow.stdout.readline().strip() == "60"
        assert slow.wait(timeout=60) == 0
    finally:
        slow.kill()
        slow.wait()
    assert len(ready_rows(paperpilot_home)) == 61
    assert_clean(paperpilot_home)


def test_two_parallel_imports_of_one_bibliography_add_each_entry_once(tmp_path: Path, paperpilot_home: Path) -> None:
    bib = tmp_path / "refs.bib"
    bib.write_text(
        "".join(
            f"@article{{k{i}, title={{Nesting habits of kestrel colony {i}}}, author={{Doe, Jane}}, year={{{2000 + i}}}}}\n"
            for i in range(40)
        )
    )
    runs = [cli_popen(paperpilot_home, "import", "--json", str(bib)) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in runs]
    assert [p.returncode for p in runs] == [0, 0], [err for _out, err in outs]
    reports = [json.loads(out) for out, _err in outs]
    assert sum(len(r["imported"]) for r in reports) == 40
    assert len(ready_rows(paperpilot_home)) == 40
    assert_clean(paperpilot_home)


# --- readers during an import ------------------------------------------------------------------


def test_readers_started_during_an_import_never_delete_its_copies(tmp_path: Path, paperpilot_home: Path) -> None:
    folder = make_folder(tmp_path / "papers", 16, 24)
    importer = cli_popen(paperpilot_home, "import", "--json", str(folder))
    opened = 0
    try:
        # Each open of the library runs start-up recovery when it gets the lock for a moment:
        # that is what deleted freshly copied files before.
        while importer.poll() is None:
            with Library(app_paths()) as lib:
                lib.list_documents()
                lib.search("kestrels", k=3)
            opened += 1
        r = cli(paperpilot_home, "list", "--json")
        assert r.returncode == 0, r.stderr
    finally:
        out, err = importer.communicate(timeout=120)
    assert importer.returncode == 0, err
    assert opened > 3
    assert len(json.loads(out)["imported"]) == 40
    rows = ready_rows(paperpilot_home)
    lib_dir = app_paths(paperpilot_home).library_dir
    assert len(rows) == 40
    assert [p for _id, _sha, p in rows if not (lib_dir / p).is_file()] == []
    assert_clean(paperpilot_home)


# --- a lost or damaged database ---------------------------------------------------------------


def _damage(db: Path, how: str) -> None:
    for extra in (db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        extra.unlink(missing_ok=True)
    if how == "missing":
        db.unlink()
    elif how == "empty":
        db.write_bytes(b"")
    elif how == "garbage":
        db.write_bytes(os.urandom(4096) * 4)
    elif how == "corrupt":
        data = bytearray(db.read_bytes())
        # Keep the header (page 1) and overwrite the table pages after it.
        data[4096:] = os.urandom(len(data) - 4096)
        db.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["missing", "empty", "garbage", "corrupt"])
def test_a_lost_or_damaged_database_costs_no_stored_file(tmp_path: Path, paperpilot_home: Path, how: str) -> None:
    folder = make_folder(tmp_path / "papers", 2, 3)
    with Library(app_paths()) as lib:
        report = lib.import_paths([folder])
        ids = {Path(d.path).name: d.doc_id for d in report.imported}
        edited = ids["t001.txt"]
        update_metadata(lib, edited, title="Kestrels of the Cathedral")
        lib.set_note(edited, "Compare with the 2019 survey.")
        before = {d.doc_id: (d.title, d.file_name, d.added) for d in lib.list_documents()}
    copies = stored_files(paperpilot_home)
    assert len(copies) == 5
    _damage(app_paths().database, how)

    r = cli(paperpilot_home, "list")
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert "5 stored files are kept" in lines[0] and "paperpilot check --repair" in lines[0]
    assert stored_files(paperpilot_home) == copies  # the list deleted nothing
    with pytest.raises(LibraryDamaged):
        Library(app_paths())
    assert stored_files(paperpilot_home) == copies

    r = cli(paperpilot_home, "check")
    assert r.returncode == 1 and "stored files are kept" in r.stdout
    r = cli(paperpilot_home, "check", "--repair")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "No problems found." in r.stdout
    assert stored_files(paperpilot_home) == copies
    with Library(app_paths()) as lib:
        after = {d.doc_id: (d.title, d.file_name, d.added) for d in lib.list_documents()}
        assert after == before  # same ids, titles (the edited one too), file names and dates
        assert lib.get_note(edited) == "Compare with the 2019 survey."
        assert lib.search("topic2", k=1)[0].doc_id == ids["t002.txt"]
    if how in ("garbage", "corrupt"):  # the damaged database was set aside, not deleted
        aside = list(app_paths().library_dir.glob("library.sqlite3.damaged-*"))
        assert aside and aside[0].stat().st_size > 0
    assert_clean(paperpilot_home)


# --- kill -9 and the extraction workers ---------------------------------------------------------


def _wait_for_children(pid: int, n: int, timeout: float = 20) -> list[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kids = children_of(pid)
        if len(kids) >= n:
            return kids
        time.sleep(0.05)
    raise AssertionError(f"the import never started {n} worker processes")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads child processes from Linux /proc")
@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="PDF extraction uses worker processes only with 2+ cores")
def test_kill_9_of_an_import_leaves_no_process_behind(tmp_path: Path, paperpilot_home: Path) -> None:
    folder = make_folder(tmp_path / "papers", 40, 0)
    importer = cli_popen(paperpilot_home, "import", str(folder))
    try:
        kids = _wait_for_children(importer.pid, 2)
        assert not any("resource_tracker" in cmdline(k) for k in kids)
        time.sleep(0.3)
        importer.send_signal(signal.SIGKILL)
        importer.wait(timeout=10)
        deadline = time.monotonic() + 3
        while any(alive(k) for k in kids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [k for k in kids if alive(k)] == [], "extraction workers outlived their parent"
    finally:
        importer.kill()
        importer.communicate()
    assert_clean(paperpilot_home)  # opening it recovers what the killed import left
    r = cli(paperpilot_home, "import", "--json", str(folder))
    assert r.returncode == 0 and json.loads(r.stdout)["failed"] == []
    assert len(ready_rows(paperpilot_home)) == 40
    assert_clean(paperpilot_home)


class _PoolSpy:
    """Records the worker pids of every extraction pool the library starts."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.pids: list[int] = []
        real_init = importer_module.ExtractionPool.__init__
        spy = self

        def init(pool: importer_module.ExtractionPool, workers: int) -> None:
            real_init(pool, workers)
            spy.pids.extend(pool.pids())

        monkeypatch.setattr(importer_module.ExtractionPool, "__init__", init)


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="PDF extraction uses worker processes only with 2+ cores")
@pytest.mark.parametrize("cancel_after", [None, 2])
def test_extraction_workers_end_with_the_import(
    tmp_path: Path, paperpilot_home: Path, monkeypatch: pytest.MonkeyPatch, cancel_after: int | None
) -> None:
    spy = _PoolSpy(monkeypatch)
    folder = make_folder(tmp_path / "papers", 10, 0)
    cancel = threading.Event()

    def progress(p: importer_module.ImportProgress) -> None:
        if cancel_after is not None and p.index > cancel_after:
            cancel.set()

    with Library(app_paths()) as lib:
        report = lib.import_paths([folder], progress=progress, cancel=cancel)
        assert spy.pids, "the import did not use worker processes"
        assert [p for p in spy.pids if alive(p)] == []  # gone when import_paths returns
        assert report.cancelled == (cancel_after is not None)
        if cancel_after is None:
            assert len(report.imported) == 10
        else:  # the file in progress when the flag was set may or may not have made it
            assert cancel_after <= len(report.imported) <= cancel_after + 1
    assert_clean(paperpilot_home)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_a_worker_dies_with_its_parent_even_when_it_cannot_notice(tmp_path: Path) -> None:
    """The worker is frozen (SIGSTOP: it reads no pipe, runs no watchdog) when its parent is
    killed; only the kernel's parent-death signal can end it, and it must."""
    script = tmp_path / "parent.py"
    script.write_text(
        textwrap.dedent("""
            import time
            from paperpilot.core.extract.worker_processes import ExtractionPool
            pool = ExtractionPool(1)
            time.sleep(0.5)  # let it reach its set-up (prctl) before it is frozen
            print(pool.pids()[0], flush=True)
            time.sleep(60)
        """)
    )
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    worker = 0
    try:
        assert parent.stdout is not None
        worker = int(parent.stdout.readline())
        time.sleep(0.5)
        os.kill(worker, signal.SIGSTOP)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 3
        while alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(worker)
    finally:
        parent.kill()
        if worker and alive(worker):
            os.kill(worker, signal.SIGKILL)


# --- a read-only library folder --------------------------------------------------------------------


@pytest.fixture
def read_only_home(tmp_path: Path, paperpilot_home: Path) -> Iterator[tuple[Path, list[str]]]:
    prefix = as_unprivileged()
    if prefix is None:
        pytest.skip("running as root without `unshare --user`: a read-only folder cannot be made")
    folder = make_folder(tmp_path / "papers", 1, 2)
    with Library(app_paths()) as lib:
        lib.import_paths([folder])
    lib_dir = app_paths().library_dir
    modes = {p: p.stat().st_mode for p in [lib_dir, *lib_dir.rglob("*")]}
    for p in modes:
        p.chmod(p.stat().st_mode & ~0o222)
    try:
        yield paperpilot_home, prefix
    finally:
        for p, mode in modes.items():
            p.chmod(mode)


def test_a_read_only_library_lists_and_searches_and_refuses_writes_in_one_line(
    read_only_home: tuple[Path, list[str]], tmp_path: Path
) -> None:
    home, prefix = read_only_home
    db = app_paths(home).database
    before = (db.read_bytes(), sorted(p.name for p in db.parent.iterdir()), stored_files(home))
    r = cli(home, "list", "--json", prefix=prefix)
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["documents"]) == 3
    r = cli(home, "search", "topic1", "kestrels", "--json", prefix=prefix)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hits"][0]["title"] == "Field note 1"
    r = cli(home, "read", "1", "0", prefix=prefix)
    assert r.returncode == 0, r.stderr
    extra = tmp_path / "extra.md"
    extra.write_text("# Extra\n\nSomething else entirely, about owls.")
    for args in (["import", str(extra)], ["remove", "1"], ["notes", "1", "--set", "hello"]):
        r = cli(home, *args, prefix=prefix)
        assert r.returncode == 1, (args, r.stdout, r.stderr)
        err = r.stderr.strip().splitlines()
        assert len(err) == 1 and "read-only" in err[0] and "Traceback" not in r.stderr, (args, r.stderr)
    r = cli(home, "check", prefix=prefix)
    assert r.returncode == 0 and "No problems found." in r.stdout, r.stdout + r.stderr
    assert (db.read_bytes(), sorted(p.name for p in db.parent.iterdir()), stored_files(home)) == before


# --- a full disk ------------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path | None]:
    """A 1.5 MB tmpfs when this process may mount one (root), else None."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1536k", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        yield None
        return
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_a_full_disk_stops_the_import_cleanly_and_keeps_what_was_imported(
    tmp_path: Path, small_disk: Path | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_folder(tmp_path / "papers", 40, 40)
    if small_disk is not None:
        home = small_disk / "home"
        r = cli(home, "import", "--json", str(folder))
    else:
        # No mount allowed (not root): the disk fills at the copy's write, injected there.
        home = tmp_path / "home"
        script = tmp_path / "full.py"
        script.write_text(
            textwrap.dedent(f"""
                import errno, sys
                from paperpilot.core.library import importer as I
                real, count = I.Importer.write_part, [0]
                def write_part(data, dest):
                    count[0] += 1
                    if count[0] > 25:
                        raise OSError(errno.ENOSPC, "No space left on device")
                    return real(data, dest)
                I.Importer.write_part = staticmethod(write_part)
                from paperpilot.cli import main
                sys.exit(main(["--home", {str(home)!r}, "import", "--json", {str(folder)!r}]))
            """)
        )
        r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and "IoError" not in r.stderr and "IoError" not in r.stdout
    report = json.loads(r.stdout)
    assert "disk is full" in report["stopped"]
    assert report["imported"] and report["not_imported"] and not report["failed"]
    imported = {d["doc_id"] for d in report["imported"]}
    assert {row[0] for row in ready_rows(home)} == imported  # all of them kept, nothing else

    r = cli(home, "list", "--json")  # still readable while the disk is full
    assert r.returncode == 0 and len(json.loads(r.stdout)["documents"]) == len(imported), r.stderr
    if small_disk is not None:
        subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    else:
        monkeypatch.undo()
    assert_clean(home)
    with Library(app_paths(home)) as lib:
        assert lib.search("zebra crossing", k=1)  # what was imported is searchable
        rest = lib.import_paths([folder])
    assert rest.stopped == "" and len(rest.imported) == 80 - len(imported)
    assert_clean(home)


# --- files a folder import cannot take ------------------------------------------------------------


def test_a_folder_import_lists_the_files_it_cannot_import(tmp_path: Path, paperpilot_home: Path) -> None:
    folder = tmp_path / "mixed"
    (folder / ".git").mkdir(parents=True)
    (folder / "sub").mkdir()
    (folder / "notes.txt").write_text("Kestrels nest on towers. " * 10)
    (folder / "report.docx").write_bytes(b"PK\x03\x04 a Word file")
    (folder / "config.json").write_text('{"debug": true}')
    (folder / "sub" / "README").write_text("no extension")
    (folder / ".hidden.txt").write_text("hidden")
    (folder / ".git" / "HEAD.docx").write_text("hidden folder")
    r = cli(paperpilot_home, "import", str(folder))
    assert r.returncode == 0, r.stderr
    unsupported = [line for line in r.stdout.splitlines() if line.startswith("unsupported")]
    assert sorted(Path(line.split()[1].rstrip(":")).name for line in unsupported) == [
        "README",
        "config.json",
        "report.docx",
    ]
    assert "1 imported, 0 duplicate(s), 0 failed, 3 unsupported." in r.stdout
    r = cli(paperpilot_home, "import", "--json", str(folder))
    data = json.loads(r.stdout)
    assert sorted(Path(u["path"]).name for u in data["unsupported"]) == ["README", "config.json", "report.docx"]
    assert all(u["reason"] for u in data["unsupported"])
    assert_clean(paperpilot_home)


def test_a_file_name_that_is_not_utf8_is_imported_under_its_readable_name(tmp_path: Path) -> None:
    # A folder copied from an old Windows or Latin-1 system: the name's bytes are not UTF-8.
    folder = tmp_path / "papers"
    folder.mkdir()
    odd = os.fsdecode(b"sparrows-\xe9t\xe9.txt")
    (folder / odd).write_text("House sparrows declined in the old town between 2009 and 2021.\n")
    (folder / "owls.txt").write_text("Barn owls hunt over rough grassland at dusk.\n")
    home = tmp_path / "home"
    r = cli(home, "--json", "import", str(folder))
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert not report["failed"] and len(report["imported"]) == 2
    assert "Traceback" not in r.stderr and not r.stderr.strip()
    titles = sorted(d["title"] for d in report["imported"])
    assert titles == ["owls", "sparrows-\\xe9t\\xe9"]
    hits = json.loads(cli(home, "--json", "search", "sparrows").stdout)["hits"]
    assert hits and hits[0]["title"] == "sparrows-\\xe9t\\xe9"
    assert_clean(home)
