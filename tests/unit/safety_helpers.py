"""Helpers for the tests that do dangerous things to a library for real (tests/unit/test_library_safety.py,
test_integrity.py, the GUI check test): folders of generated papers, the CLI in a subprocess,
child processes from /proc, and "is the library clean?"."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from paperpilot.core.library import Library
from paperpilot.core.library.integrity import IntegrityReport, check_library
from paperpilot.core.settings.paths import app_paths
from tests.fixtures import pdfs


def make_folder(folder: Path, n_pdf: int, n_txt: int) -> Path:
    """``n_pdf`` distinct small PDFs (one generated paper, a different trailer each) and
    ``n_txt`` distinct text files."""
    folder.mkdir(parents=True, exist_ok=True)
    gen = folder.parent / (folder.name + "-gen")
    gen.mkdir(exist_ok=True)
    paper = pdfs.make_paper_pdf(gen).read_bytes()
    for i in range(n_pdf):
        (folder / f"p{i:03}.pdf").write_bytes(paper + f"\n% copy {i}\n".encode())
    for i in range(n_txt):
        (folder / f"t{i:03}.txt").write_text(
            f"Field note {i}\n\n" + f"Observers counted topic{i} kestrels on the towers at dusk. " * 25
        )
    return folder


def cli(home: Path, *args: str, timeout: float = 120, prefix: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    """``paperpilot --home HOME ARGS…`` in a fresh interpreter, as a user would run it."""
    return subprocess.run(
        [*(prefix or []), sys.executable, "-m", "paperpilot.cli", "--home", str(home), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def cli_popen(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "paperpilot.cli", "--home", str(home), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def check(home: Path) -> IntegrityReport:
    with Library(app_paths(home), allow_damaged=True) as lib:
        return check_library(lib)


def assert_clean(home: Path) -> IntegrityReport:
    report = check(home)
    assert report.clean, [p.message for p in report.problems]
    return report


def children_of(pid: int) -> list[int]:
    """Live child processes of ``pid`` (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: the fields follow the last ')'.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2 :].split()[0] != "Z"


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def stored_files(home: Path) -> set[str]:
    files = app_paths(home).files_dir
    return {p.relative_to(files).as_posix() for p in files.rglob("*") if p.is_file()} if files.is_dir() else set()


def as_unprivileged() -> list[str] | None:
    """A command prefix that makes file permissions apply to this process's children: none is
    needed for a normal user; root gets a user namespace in which it is nobody (``unshare``)."""
    if os.geteuid() != 0:
        return []
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    probe = subprocess.run([unshare, "--user", "true"], capture_output=True)
    return [unshare, "--user"] if probe.returncode == 0 else None
