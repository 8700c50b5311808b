"""The mypyc builds of the extraction modules: used only while current, and equal to pure Python.

Real builds with the real compiler (packaging/build_accel.py), loaded in fresh interpreters.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import paperpilot
from paperpilot import accel
from tests.fixtures.papers import make_papers
from tests.fixtures.pdfs import make_chinese_pdf, make_paper_pdf, make_two_column_pdf

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))
import build_accel  # noqa: E402

SOURCE_ROOT = Path(paperpilot.__file__).resolve().parent.parent


def _copy_package(dest: Path) -> Path:
    """A copy of the ``paperpilot`` package without any build: a root the test may edit."""
    shutil.copytree(
        SOURCE_ROOT / "paperpilot", dest / "paperpilot",
        ignore=shutil.ignore_patterns("__pycache__", "_accel", "_accel.old", ".accel-new-*"),
    )  # fmt: skip
    return dest


def _run(root: Path, code: str, pure: bool = False) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PAPERPILOT_PURE_PYTHON"}
    env["PYTHONPATH"] = os.pathsep.join([str(root), str(ROOT)])
    if pure:
        env["PAPERPILOT_PURE_PYTHON"] = "1"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


_WHERE = "import paperpilot.core.text.whitespace as w; print(w.__file__); print(repr(w.collapse_whitespace(' a \\t b\\n c ')))"


def test_a_build_is_used_only_while_it_matches_its_sources_and_python(tmp_path: Path) -> None:
    root = _copy_package(tmp_path / "root")
    build = root / "paperpilot" / "_accel"
    module = "paperpilot.core.text.whitespace"
    assert build_accel.main(["--out", str(build), "--root", str(root), "--modules", module]) == 0
    assert accel.verified_modules(build, root) == (module,)

    where, value = _run(root, _WHERE).splitlines()
    assert where.startswith(str(build)) and where.endswith(".so")
    _, pure_value = _run(root, _WHERE, pure=True).splitlines()
    assert value == pure_value == repr("a b c")
    assert _run(root, _WHERE, pure=True).splitlines()[0].endswith("whitespace.py")
    # Up to date: asking again builds nothing.
    assert build_accel.main(["--check", "--out", str(build), "--root", str(root), "--modules", module]) == 0

    # Another interpreter's build is not loaded.
    manifest = build / accel.MANIFEST
    good = manifest.read_text(encoding="utf-8")
    lines = good.splitlines()
    manifest.write_text("\n".join([lines[0], "cpython-399 .cpython-399-x86_64-linux-gnu.so", *lines[2:]]) + "\n")
    assert _run(root, _WHERE).splitlines()[0].endswith("whitespace.py")
    manifest.write_text(good, encoding="utf-8")
    assert _run(root, _WHERE).splitlines()[0].endswith(".so")

    # A damaged build (the group's library unreadable, or a file gone) runs pure Python.
    group = accel.extension_path(build, accel.GROUP + "__mypyc", root)
    intact = group.read_bytes()
    group.write_bytes(b"not an ELF file")
    where, value = _run(root, _WHERE).splitlines()
    assert where.endswith("whitespace.py") and value == repr("a b c")
    group.unlink()
    assert accel.verified_modules(build, root) == ()
    group.write_bytes(intact)
    assert _run(root, _WHERE).splitlines()[0].endswith(".so")

    # An edited source: the stale build is left alone and the edit is what runs.
    source = accel.source_path(module, root)
    source.write_text(
        source.read_text(encoding="utf-8").replace("def collapse_whitespace(", "def _unused() -> None: ...\n\n\ndef collapse_whitespace("),
        encoding="utf-8",
    )  # fmt: skip
    assert _run(root, _WHERE).splitlines()[0].endswith("whitespace.py")
    assert build_accel.main(["--check", "--out", str(build), "--root", str(root), "--modules", module]) == 1


def test_a_damaged_manifest_means_pure_python(tmp_path: Path) -> None:
    build = tmp_path / "build"
    build.mkdir()
    for text in ["", "paperpilot-accel 1\n", "\xff\xfe garbage", f"paperpilot-accel 1\n{accel.interpreter_tag()}\nno.such.module 1:0\n"]:  # fmt: skip
        (build / accel.MANIFEST).write_text(text, encoding="utf-8", errors="surrogateescape")
        assert accel.verified_modules(build) == ()
    assert accel.verified_modules(tmp_path / "missing") == ()


def test_a_compiled_package_is_compiled_whole() -> None:
    # A compiled package's __path__ is its build folder: a pure submodule next to it would not be found.
    for module in accel.MODULES:
        source = accel.source_path(module)
        if source.name == "__init__.py":
            inside = {f"{module}.{p.stem}" for p in source.parent.glob("*.py") if p.name != "__init__.py"}
            assert inside <= set(accel.MODULES), f"{module}: also compile {sorted(inside - set(accel.MODULES))}"
    assert all(accel.source_path(m).is_file() for m in accel.MODULES)


_EXTRACT = """
import pickle, sys
from pathlib import Path
from paperpilot import accel
from paperpilot.core.extract.pdf import read_pdf_for_import
from paperpilot.core.extract.chunker import chunk_document
from paperpilot.core.text.kinds import paragraph_kind
out = []
for p in sys.argv[1:]:
    ex = read_pdf_for_import(Path(p), ocr=False)
    blocks = ex.structure.blocks if ex.structure is not None else None
    out.append((ex, chunk_document(ex.pages, blocks=blocks), [paragraph_kind(pg.text) for pg in ex.pages]))
sys.stdout.write(repr(accel.active()) + "\\n" + pickle.dumps(out).hex())
"""


@pytest.fixture(scope="module")
def compiled_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The checkout when its build is current (the README's set-up made it), else a fresh build."""
    if accel.verified_modules() == accel.MODULES:
        return SOURCE_ROOT
    root = _copy_package(tmp_path_factory.mktemp("accel"))
    assert build_accel.main(["--out", str(root / "paperpilot" / "_accel"), "--root", str(root)]) == 0
    assert accel.verified_modules(root / "paperpilot" / "_accel", root) == accel.MODULES
    return root


def test_compiled_extraction_equals_pure_python(compiled_root: Path, tmp_path: Path) -> None:
    pdfs = [*make_papers(tmp_path / "papers"), make_paper_pdf(tmp_path), make_two_column_pdf(tmp_path), make_chinese_pdf(tmp_path)]  # fmt: skip
    code = _EXTRACT
    compiled = _run(compiled_root, f"import sys; sys.argv[1:] = {[str(p) for p in pdfs]!r}\n{code}").split("\n", 1)
    pure = _run(compiled_root, f"import sys; sys.argv[1:] = {[str(p) for p in pdfs]!r}\n{code}", pure=True).split("\n", 1)
    assert compiled[0] == "True" and pure[0] == "False"
    fast, slow = pickle.loads(bytes.fromhex(compiled[1])), pickle.loads(bytes.fromhex(pure[1]))
    assert len(fast) == len(pdfs)
    for (ex_fast, chunks_fast, kinds_fast), (ex_slow, chunks_slow, kinds_slow) in zip(fast, slow, strict=True):
        assert ex_fast == ex_slow
        assert chunks_fast == chunks_slow and chunks_fast
        assert kinds_fast == kinds_slow
