"""The gui command: the desktop window (also what `paperpilot` with no command opens)."""

from __future__ import annotations

import argparse

from .args import AddParser, CliError


def add_parsers(add: AddParser) -> None:
    sp = add("gui", "open the desktop window (also what `paperpilot` with no command does)")
    sp.add_argument("--screenshot", metavar="FILE.png", help="save a screenshot of the window to FILE and exit")
    sp.add_argument("--ask", metavar="QUESTION", help="with --screenshot: run this question to the end first")
    sp.add_argument("--size", metavar="WxH", help="with --screenshot: window size (default 1400x860)")
    sp.add_argument("--mode", choices=["auto", "quick", "loop"], default="auto", help="mode for --ask")
    sp.add_argument(
        "--open-evidence",
        type=int,
        metavar="N",
        help="with --screenshot and --ask: open the answer's evidence [N] at its source (docked) and save the window",
    )


def cmd_gui(args: argparse.Namespace) -> int:
    # Imported here so that every other command runs without loading Qt.
    try:
        from ..ui.application import main_gui_entry
    except ImportError as e:
        raise CliError(f"the desktop app cannot start ({e}); install PySide6-Essentials and PySide6-Pdf") from e
    return main_gui_entry(args)


COMMANDS = {"gui": cmd_gui}
