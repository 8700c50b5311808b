"""The ``paperpilot`` command, split by command group (library, ask/eval, citations, memory,
check, gui); each command parses its arguments, calls ``core.app.Session`` and prints."""

from .main import COMMANDS, build_parser, main

__all__ = ["COMMANDS", "build_parser", "main"]
