"""How an extraction worker is started: with this process's sys.path and without site and
the environment when the modules are on that plain path, the ordinary way otherwise; a PDF
comes back extracted either way."""

from __future__ import annotations

import importlib.machinery
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from paperpilot.core.extract import worker_processes as workers
from paperpilot.core.extract.worker_processes import ExtractionPool
from paperpilot.core.models import Extracted
from tests.fixtures import pdfs


def _extract_in_a_worker(path: Path) -> Extracted:
    pool = ExtractionPool(1)
    try:
        result = pool.submit(str(path)).result(timeout=120)
    finally:
        pool.close()
    assert isinstance(result, Extracted)
    return result


def test_a_worker_gets_this_process_path_and_skips_site(tmp_path: Path) -> None:
    command = workers._worker_command()
    assert command[1:3] == ["-I", "-S"]
    assert command[-len(sys.path):] == sys.path  # after the parent pid
    result = _extract_in_a_worker(pdfs.make_structured_paper_pdf(tmp_path))
    assert result.pages and result.structure is not None


def test_modules_found_only_by_an_import_hook_keep_the_ordinary_start(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(importlib.machinery.PathFinder, "find_spec", classmethod(lambda cls, *a, **k: None))
    command = workers._worker_command()
    assert "-S" not in command and "-I" not in command and command[-1].isdigit()
    monkeypatch.undo()  # the worker itself imports normally
    monkeypatch.setattr(workers, "_worker_command", lambda: command)
    result = _extract_in_a_worker(pdfs.make_structured_paper_pdf(tmp_path))
    assert result.pages and result.structure is not None


@pytest.mark.parametrize("mode", ["0", "1"])
def test_utf8_mode_is_passed_on(mode: str) -> None:
    code = "from paperpilot.core.extract.worker_processes import _worker_command; print(_worker_command()[3:5])"
    out = subprocess.run([sys.executable, "-X", f"utf8={mode}", "-c", code], capture_output=True, text=True, check=True)
    assert (out.stdout.strip() == "['-X', 'utf8']") is (mode == "1")
