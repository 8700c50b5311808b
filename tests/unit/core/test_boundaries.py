"""core must never import Qt: checked in a fresh interpreter where importing Qt is impossible."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import paperpilot.core


def test_core_imports_without_qt() -> None:
    modules = [m.name for m in pkgutil.walk_packages(paperpilot.core.__path__, "paperpilot.core.")]
    assert "paperpilot.core.library.library" in modules
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6', 'PyQt5', 'PyQt6'):\n"
        "            raise ImportError('Qt is forbidden in core: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        f"for m in {modules!r}:\n"
        "    __import__(m)\n"
        "assert not any(k.startswith('PySide6') for k in sys.modules)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
