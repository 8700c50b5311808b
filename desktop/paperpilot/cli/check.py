"""The check command: the library's integrity check and its repair."""

from __future__ import annotations

import argparse
import sys

from ..core.api import Message
from .args import EXIT_ERROR, EXIT_OK, AddParser, emit_json, session


def add_parsers(add: AddParser) -> None:
    sp = add(
        "check",
        "check the library: database, search index, stored files and notes (exit status 1 if problems remain)",
    )
    sp.add_argument(
        "--repair", action="store_true", help="fix what can be fixed without losing anything, then check again"
    )


def cmd_check(args: argparse.Namespace) -> int:
    s = session(args)
    tty = sys.stderr.isatty() and not args.json

    def progress(message: Message) -> None:
        if tty:
            print(f"\r\x1b[K{message.text()}", end="", file=sys.stderr, flush=True)

    try:
        report = s.check(repair=args.repair, progress=progress)
    finally:
        if tty:
            print("\r\x1b[K", end="", file=sys.stderr)
        s.close()
    if args.json:
        emit_json(report.to_json())
        return EXIT_OK if report.clean else EXIT_ERROR
    print(f"Library: {report.library_dir}" + ("  (read-only)" if report.read_only else ""))
    for line in report.recovered:
        print(f"recovered  {line} (on opening the library)")
    for line in report.repaired:
        print(f"repaired   {line}")
    for p in report.problems:
        print(f"problem    {p.message}" + ("" if p.fixable else "  (cannot be repaired)"))
    print(f"\nChecked {report.summary()}.")
    if report.clean:
        print("No problems found.")
        return EXIT_OK
    fix = f"; `paperpilot check --repair` fixes {report.fixable} of them" if report.fixable and not args.repair else ""
    print(f"{len(report.problems)} problem(s){fix}.")
    return EXIT_ERROR


COMMANDS = {"check": cmd_check}
