"""A library of generated research papers (and the shipped sample) for the workflow tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from paperpilot.core.app import Session
from tests.fixtures.papers import make_papers

SAMPLE = Path(__file__).resolve().parents[4] / "resources" / "sample"

# Paper files are built once per test session; each test imports copies into its own home.
_BUILT: dict[str, Path] = {}


@pytest.fixture
def papers_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if "papers" not in _BUILT:
        _BUILT["papers"] = tmp_path_factory.mktemp("papers")
        make_papers(_BUILT["papers"])
    return _BUILT["papers"]


@pytest.fixture
def session(paperpilot_home: Path, papers_dir: Path) -> Iterator[Session]:
    s = Session(paperpilot_home)
    report = s.import_paths([papers_dir])
    assert len(report.imported) == 3, report
    yield s
    s.close()


@pytest.fixture
def sample_session(paperpilot_home: Path) -> Iterator[Session]:
    s = Session(paperpilot_home)
    s.import_paths([SAMPLE])
    yield s
    s.close()


def doc_id(s: Session, title_start: str) -> int:
    return next(d.doc_id for d in s.library.list_documents() if d.title.startswith(title_start))
