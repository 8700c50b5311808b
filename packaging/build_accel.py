"""Compile the import pipeline's hot modules with mypyc (see desktop/paperpilot/accel.py).

    python packaging/build_accel.py            build when the current build is missing or stale
    python packaging/build_accel.py --force    build anyway

The set-up commands run it; it is optional: without a C compiler, Python headers or mypy it says
so in one line and PaperPilot runs on the pure-Python modules, a little slower. A new build is
made in a temporary folder, every module is imported from it in a fresh interpreter, and only
then does it replace the old one; the manifest holds the sources' fingerprints taken before the
compile, so a file edited meanwhile leaves the build unused rather than wrong.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "desktop"))

from paperpilot import accel  # noqa: E402


def missing_tools() -> str:
    """Why this machine cannot compile, or "" when it can."""
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(cc) is None and shutil.which("cc") is None:
        return "no C compiler (install gcc)"
    include = sysconfig.get_paths()["include"]
    if not (Path(include) / "Python.h").is_file():
        return f"no Python headers in {include} (install python3-dev)"
    try:
        import mypyc.build  # noqa: F401
        import setuptools  # noqa: F401
    except ImportError as e:
        return f"{e.name} is not installed"
    return ""


def build(out: Path, modules: tuple[str, ...], root: Path, jobs: int) -> None:
    """Compile ``modules`` (sources under ``root``) into ``out``, replacing what is there."""
    from mypyc.build import mypycify
    from setuptools import setup

    manifest = accel.manifest_text(modules, root)  # before the compile: see the module docstring
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="paperpilot-accel-"))
    new = Path(tempfile.mkdtemp(prefix=".accel-new-", dir=out.parent))
    try:
        sources = [str(accel.source_path(m, root)) for m in modules]
        here = os.getcwd()
        os.chdir(work)  # mypyc writes its C files under the working folder
        log = (work / "build.log").open("w")
        saved = os.dup(1), os.dup(2)
        os.dup2(log.fileno(), 1)  # mypyc's and the compiler's chatter; shown only on failure
        os.dup2(log.fileno(), 2)
        try:
            extensions = mypycify(
                ["--config-file=", "--ignore-missing-imports", *sources], opt_level="3", group_name=accel.GROUP
            )
            setup(
                name="paperpilot-accel",
                ext_modules=extensions,
                script_args=["-q", "build_ext", "--build-lib", str(new), "--build-temp", str(work / "tmp"),
                             "--parallel", str(jobs)],
            )  # fmt: skip
        except (Exception, SystemExit) as e:  # setuptools reports a compiler failure as SystemExit
            sys.stdout.flush()
            log.close()
            last = [ln for ln in (work / "build.log").read_text(errors="replace").splitlines() if ln.strip()]
            raise RuntimeError(last[-1] if last else str(e)) from None
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            log.close()
            os.chdir(here)
        (new / accel.MANIFEST).write_text(manifest, encoding="utf-8")
        _check(new, modules, root)
        old = out.with_name(out.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if out.exists():
            out.rename(old)
        new.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(new, ignore_errors=True)


def _check(build_dir: Path, modules: tuple[str, ...], root: Path) -> None:
    """Import every module of the new build in a fresh interpreter, from the build."""
    probe = (
        "import sys, importlib; from pathlib import Path; "
        f"sys.path.insert(0, {str(root)!r}); from paperpilot import accel; "
        f"assert accel.use_build(Path({str(build_dir)!r})), 'the new build does not match its sources'; "
        "names = sys.argv[1:]; files = [importlib.import_module(m).__file__ or '' for m in names]; "
        f"bad = [m for m, f in zip(names, files) if not f.startswith({str(build_dir)!r})]; "
        "assert not bad, f'not loaded from the build: {bad}'"
    )
    env = {**os.environ, "PAPERPILOT_PURE_PYTHON": "1"}  # only the new build, not an installed one
    done = subprocess.run([sys.executable, "-c", probe, *modules], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError((done.stderr.strip().splitlines() or ["the compiled modules do not import"])[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="build even when the current build is up to date")
    parser.add_argument("--check", action="store_true", help="only say (exit status 1) whether a build is due")
    parser.add_argument("--out", type=Path, default=accel.BUILD_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, default=accel.PACKAGE_ROOT, help=argparse.SUPPRESS)
    parser.add_argument("--modules", nargs="+", default=list(accel.MODULES), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    modules = tuple(args.modules)
    current = accel.verified_modules(args.out, args.root) == modules
    if args.check:
        return 0 if current else 1
    if current and not args.force:
        return 0
    why = missing_tools()
    if why:
        print(f"compiled modules not built ({why}): PaperPilot runs on pure Python, a little slower", file=sys.stderr)
        return 0
    print(f"compiling {len(modules)} modules with mypyc (once per change, about a minute)", file=sys.stderr)
    try:
        build(args.out, modules, args.root, jobs=max(1, min(4, os.cpu_count() or 1)))
    except Exception as e:
        print(f"compiled modules not built ({e}): PaperPilot runs on pure Python, a little slower", file=sys.stderr)
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
