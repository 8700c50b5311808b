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
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import os
import sys
import zlib
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

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
_FORMAT = "paperpilot-accel 1"


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
    """Put the finder for a verified build first on ``sys.meta_path``; False when there is none
    (not built, stale, another Python, or ``PAPERPILOT_PURE_PYTHON`` set)."""
    if active():
        return True
    return not os.environ.get("PAPERPILOT_PURE_PYTHON") and use_build(build)


def use_build(build: Path) -> bool:
    """Load the compiled modules from ``build`` from now on, when it is verified."""
    modules = verified_modules(build)
    if modules:
        sys.meta_path.insert(0, _Finder(build, modules))
    return bool(modules)


def active() -> bool:
    """Whether the compiled modules are in use in this process."""
    return any(isinstance(f, _Finder) for f in sys.meta_path)
