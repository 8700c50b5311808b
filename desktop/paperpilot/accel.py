"""Compiled builds of the extraction modules, used only while they match the source.

The import pipeline's Python (page layout, paragraph kinds, reference parsing, front-page
metadata) is compiled with mypyc by ``packaging/build_accel.py`` (the README's set-up commands run
it). The extension modules live in ``_accel/`` beside the package, never next to the ``.py``
files, so they cannot shadow the source: a finder put in front of ``sys.meta_path`` loads them,
and it is installed only when the manifest written by the build matches this interpreter and the
size and CRC-32 of every compiled module's source. Any edit, a checkout of another commit or a
different Python leaves the whole set unused (pure Python; the modules are compiled as one group
and call each other natively, so it is all or nothing). ``PAPERPILOT_PURE_PYTHON=1`` turns it off.

Kept cheap: it runs at every start of the app and of each extraction worker (about 1 ms).

The build also records the regular expressions that starting an extraction worker compiles (its
modules' patterns, the lazy ones and those written inline in functions included, and the standard
library's it imports): Python compiles a pattern in Python code, about 25 ms of every worker's
start. ``prime_patterns`` builds them from the recorded code and puts them in ``re``'s own cache,
where ``re.compile`` finds them, so the modules compile nothing. The record holds the exact interpreter version and the regular-expression
engine's magic number and code size: any other interpreter ignores it, and a pattern not in it
(edited, or made at run time) is compiled as usual.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.machinery
import importlib.util
import marshal
import os
import re
import sys
import zlib
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import Any

# The modules compiled, in the import pipeline's hot path (the worker's CPU per page).
MODULES: tuple[str, ...] = (
    "paperpilot.core.text.kinds",
    "paperpilot.core.text.language",
    "paperpilot.core.text.lazy",
    "paperpilot.core.text.whitespace",
    "paperpilot.core.citations.identifiers",
    "paperpilot.core.citations.references",
    "paperpilot.core.extract.chunker",
    "paperpilot.core.extract.pdf",
    "paperpilot.core.extract.structure",
    "paperpilot.core.extract.structure_reader",
    "paperpilot.core.extract.metadata",
    "paperpilot.core.extract.metadata.first_page",
    "paperpilot.core.extract.metadata.glyphs",
    "paperpilot.core.extract.metadata.info",
    "paperpilot.core.extract.metadata.masthead",
    "paperpilot.core.extract.metadata.merge",
    "paperpilot.core.extract.metadata.names",
    "paperpilot.core.extract.metadata.xmp",
)
GROUP = "paperpilot_accel"  # the shared library every compiled module's shim loads
PACKAGE_ROOT = Path(__file__).resolve().parent.parent  # the folder that holds ``paperpilot``
BUILD_DIR = Path(__file__).resolve().parent / "_accel"
MANIFEST = "manifest.txt"
PATTERNS = "patterns.marshal"
_FORMAT = "paperpilot-accel 1"
# What an extraction worker imports, whose patterns the build records (with the lazy ones).
PATTERN_MODULES: tuple[str, ...] = ("paperpilot.core.extract.workers", "paperpilot.core.extract.pdf")


def source_path(module: str, root: Path = PACKAGE_ROOT) -> Path:
    """The ``.py`` file of ``module`` (a package's ``__init__.py``)."""
    base = root.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def fingerprint(path: Path) -> str:
    """Size and CRC-32 of a source file: enough to notice any edit (this is no security check)."""
    data = path.read_bytes()
    return f"{len(data)}:{zlib.crc32(data):08x}"


def interpreter_tag() -> str:
    """What a compiled extension is tied to: the implementation, version and ABI suffix."""
    return f"{sys.implementation.cache_tag} {importlib.machinery.EXTENSION_SUFFIXES[0]}"


def manifest_text(modules: Sequence[str], root: Path = PACKAGE_ROOT) -> str:
    """The manifest a build writes: the format, the interpreter, one ``module fingerprint`` line each."""
    lines = [_FORMAT, interpreter_tag(), *(f"{m} {fingerprint(source_path(m, root))}" for m in modules)]
    return "\n".join(lines) + "\n"


def extension_path(build: Path, module: str, root: Path = PACKAGE_ROOT) -> Path:
    """Where the build puts ``module``'s extension: its source's place, under ``build``."""
    if module == GROUP + "__mypyc":
        return build / (module + importlib.machinery.EXTENSION_SUFFIXES[0])
    source = source_path(module, root).relative_to(root)
    return build / source.with_name(source.stem + importlib.machinery.EXTENSION_SUFFIXES[0])


class _Finder:
    """Finds the compiled modules of a verified build; everything else goes to the next finder."""

    def __init__(self, build: Path, modules: Sequence[str]) -> None:
        self.paths = {m: str(extension_path(build, m)) for m in (*modules, GROUP + "__mypyc")}
        self.packages = {m: [str(source_path(m).parent)] for m in modules if source_path(m).name == "__init__.py"}
        self.loaded_group = False

    def find_spec(self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> ModuleSpec | None:  # fmt: skip
        so = self.paths.get(fullname)
        if so is None:
            return None
        if not self.loaded_group and fullname != GROUP + "__mypyc":
            # Every compiled module needs the group's library: should it not load (a damaged
            # file), nothing has been compiled-imported yet and pure Python takes over whole.
            try:
                importlib.import_module(GROUP + "__mypyc")
            except Exception:
                sys.meta_path[:] = [f for f in sys.meta_path if f is not self]
                return None
            self.loaded_group = True
        # A compiled package still finds its other submodules in its source folder.
        return importlib.util.spec_from_file_location(
            fullname, so, loader=importlib.machinery.ExtensionFileLoader(fullname, so),
            submodule_search_locations=self.packages.get(fullname),
        )  # fmt: skip


def verified_modules(build: Path = BUILD_DIR, root: Path = PACKAGE_ROOT) -> tuple[str, ...]:
    """The modules of the build in ``build`` when it matches this interpreter and every source; else ()."""
    try:
        lines = (build / MANIFEST).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ()
    if len(lines) < 3 or lines[0] != _FORMAT or lines[1] != interpreter_tag():
        return ()
    modules: list[str] = []
    for line in lines[2:]:
        module, _, stamp = line.partition(" ")
        try:
            if stamp != fingerprint(source_path(module, root)):
                return ()
        except OSError:
            return ()
        modules.append(module)
    try:  # a build folder that lost files is no build
        if not all(extension_path(build, m, root).stat().st_size for m in (*modules, GROUP + "__mypyc")):
            return ()
    except OSError:
        return ()
    return tuple(modules)


def install(build: Path = BUILD_DIR) -> bool:
    """Put the finder for a verified build first on ``sys.meta_path``, and its recorded patterns
    in ``re``'s cache; False when there is none (not built, stale, another Python, or
    ``PAPERPILOT_PURE_PYTHON`` set)."""
    if active():
        return True
    if os.environ.get("PAPERPILOT_PURE_PYTHON") or not use_build(build):
        return False
    prime_patterns(build)
    return True


def use_build(build: Path) -> bool:
    """Load the compiled modules from ``build`` from now on, when it is verified."""
    modules = verified_modules(build)
    if modules:
        sys.meta_path.insert(0, _Finder(build, modules))
    return bool(modules)


# --- the recorded regular expressions ----------------------------------------------------------


def pattern_stamp() -> str:
    """What a recorded pattern's code is valid for: this interpreter and its regex engine."""
    sre: Any = importlib.import_module("_sre")
    return f"{sys.version} | {sre.MAGIC} {sre.CODESIZE}"


def prime_patterns(build: Path = BUILD_DIR) -> int:
    """Put the patterns recorded in ``build`` into ``re``'s cache (those not there yet, while it
    has room); how many. A record for another interpreter, a damaged one or a ``re`` without that
    cache primes nothing: the patterns are then compiled as usual."""
    try:
        record = marshal.loads((build / PATTERNS).read_bytes())
        cache = getattr(re, "_cache", None)
        if not (isinstance(cache, dict) and isinstance(record, tuple) and len(record) == 2 and record[0] == pattern_stamp()):  # fmt: skip
            return 0
        room = int(getattr(re, "_MAXCACHE", 0)) - len(cache)
        sre: Any = importlib.import_module("_sre")
        made = 0
        for pattern, flags, engine_flags, code, groups, groupindex, indexgroup in record[1]:
            if made >= room:
                break
            key = (type(pattern), pattern, flags)
            if key not in cache:
                cache[key] = sre.compile(pattern, engine_flags, code, groups, groupindex, indexgroup)
                made += 1
        return made
    except Exception:  # no record (an older build), or one this code cannot read
        return 0


def record_patterns(out: Path, root: Path = PACKAGE_ROOT, modules: Sequence[str] = PATTERN_MODULES) -> None:
    """Write the record of the patterns that importing ``modules`` (from the sources under
    ``root``) compiles, of every lazy pattern and of the literal ones written inline in their
    functions, to ``out``. A fresh interpreter does it, on pure Python (nothing primed)."""
    import subprocess

    env = {**os.environ, "PAPERPILOT_PURE_PYTHON": "1", "PYTHONPATH": str(root)}
    code = "import sys; from paperpilot import accel; accel._record(sys.argv[1], sys.argv[2:])"
    done = subprocess.run([sys.executable, "-c", code, str(out), *modules], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError((done.stderr.strip().splitlines() or ["the patterns could not be recorded"])[-1])


# Where each re function takes its flags (the pattern comes first).
_FLAGS_AT = {"compile": 1, "search": 2, "match": 2, "fullmatch": 2, "findall": 2, "finditer": 2, "split": 3, "sub": 4,
             "subn": 4}  # fmt: skip


def _record(out: str, modules: Sequence[str]) -> None:
    """``record_patterns`` in the fresh interpreter: re's compiler is watched while the modules
    are imported and the other patterns compiled, and what it hands the engine is written down."""
    compiler: Any = importlib.import_module("re._compiler")
    engine = compiler._sre
    made: list[tuple[Any, ...]] = []
    seen: dict[tuple[str | bytes, int], tuple[Any, ...]] = {}

    class Recorder:
        def __getattr__(self, name: str) -> Any:
            return getattr(engine, name)

        def compile(self, pattern: Any, flags: int, code: Any, groups: int, groupindex: Any, indexgroup: Any) -> Any:
            made.append((int(flags), [int(c) for c in code], int(groups), dict(groupindex), tuple(indexgroup)))
            return engine.compile(pattern, flags, code, groups, groupindex, indexgroup)

    compile_pattern = compiler.compile

    def recording(pattern: Any, flags: int = 0) -> Any:
        made.clear()
        compiled = compile_pattern(pattern, flags)
        if isinstance(pattern, str | bytes) and len(made) == 1:
            seen[(pattern, int(flags))] = made[0]
        return compiled

    compiler._sre = Recorder()
    compiler.compile = recording
    try:
        for name in modules:
            importlib.import_module(name)
        from .core.text.lazy import registered_patterns

        for pattern, flags in registered_patterns():
            re.compile(pattern, flags)
        for name, module in sorted(sys.modules.items()):
            path = getattr(module, "__file__", None) or ""
            if name.startswith("paperpilot.") and path.endswith(".py"):
                for inline, inline_flags in _inline_patterns(Path(path).read_text(encoding="utf-8")):
                    with contextlib.suppress(re.error):
                        re.compile(inline, inline_flags)
    finally:
        compiler._sre, compiler.compile = engine, compile_pattern
    entries = [(p, f, *v) for (p, f), v in seen.items()]
    Path(out).write_bytes(marshal.dumps((pattern_stamp(), entries)))


def _inline_patterns(source: str) -> list[tuple[str | bytes, int]]:
    """The literal patterns of ``re.search(r"...", text)`` and the like in ``source``, with
    their flags when those are literal too (as re will be asked for them)."""
    import ast

    def flag_value(node: ast.expr) -> int | None:
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "re":
            value = getattr(re, node.attr, None)
            return int(value) if isinstance(value, re.RegexFlag) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            left, right = flag_value(node.left), flag_value(node.right)
            return None if left is None or right is None else left | right
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        return None

    found: list[tuple[str | bytes, int]] = []
    for call in ast.walk(ast.parse(source)):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name) and call.func.value.id == "re"
                and call.func.attr in _FLAGS_AT and call.args and isinstance(call.args[0], ast.Constant)
                and isinstance(call.args[0].value, str | bytes)):  # fmt: skip
            continue
        at = _FLAGS_AT[call.func.attr]
        given = call.args[at] if len(call.args) > at else next((k.value for k in call.keywords if k.arg == "flags"), None)
        flags = 0 if given is None else flag_value(given)
        if flags is not None:
            found.append((call.args[0].value, flags))
    return found


def active() -> bool:
    """Whether the compiled modules are in use in this process."""
    return any(isinstance(f, _Finder) for f in sys.meta_path)
