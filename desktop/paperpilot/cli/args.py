"""What every command group shares: exit statuses, one-line errors, argument types, output,
and the Session a command works on."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..core.api import MAX_ROUNDS, MIN_ROUNDS, Library
from ..core.app import Session
from ..core.errors import InvalidInput, PaperPilotError

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # as a shell reports a program ended by Ctrl+C
MAX_HITS = 100
# add(name, help) → the subcommand's parser, with --home and --json (main.build_parser).
AddParser = Callable[[str, str], argparse.ArgumentParser]


class CliError(PaperPilotError):
    """A one-line message for stderr and a non-zero exit."""


class UsageError(CliError, InvalidInput):
    """An argument that cannot be used as given (exit status 2, like argparse's own errors)."""


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: the usage block is for --help, not for every typo."""

    def error(self, message: str) -> Any:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see: {self.prog} --help)\n")


def whole(text: str, what: str, low: int | None = None, high: int | None = None) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number, not {text!r}") from None
    if (low is not None and value < low) or (high is not None and value > high):
        if high is None:
            raise argparse.ArgumentTypeError(f"{what} must be {low} or more, not {value}")
        raise argparse.ArgumentTypeError(f"{what} must be between {low} and {high}, not {value}")
    return value


def doc_id_type(text: str) -> int:
    return whole(text, "a document id", 1)


def segment_type(text: str) -> int:
    return whole(text, "a segment number", 0)


def hits_type(text: str) -> int:
    return whole(text, "the number of hits", 1, MAX_HITS)


def rounds_type(text: str) -> int:
    # The same range as the settings (AgentSettings.max_rounds) and the Settings dialog.
    return whole(text, "the number of rounds", MIN_ROUNDS, MAX_ROUNDS)


def positive_type(text: str) -> int:
    return whole(text, "the number", 1)


def count_type(text: str) -> int:
    return whole(text, "the number", 0)


def year_type(text: str) -> int:
    return whole(text, "a year", 0, 9999)


def common(parser: argparse.ArgumentParser, top: bool) -> None:
    # Defined on the top parser and on every subparser so the options may come before or after
    # the subcommand; SUPPRESS keeps a subparser from overwriting a value given before it.
    default: Any = None if top else argparse.SUPPRESS
    parser.add_argument(
        "--home", metavar="DIR", default=default, help="keep everything under DIR (like $PAPERPILOT_HOME)"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help="print one JSON document on stdout",
    )


def profile_keys() -> tuple[str, ...]:
    from ..core.api import PROFILE_KEYS

    return PROFILE_KEYS


def style_names() -> tuple[str, ...]:
    from ..core.api import STYLE_NAMES

    return STYLE_NAMES


def emit_json(data: object) -> None:
    from ..core.api import has_secrets, redact_data

    # Masked before encoding: JSON escapes would hide a key holding a quote from the stream's mask.
    if has_secrets():
        data = redact_data(data)
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def width() -> int:
    return max(60, min(shutil.get_terminal_size((100, 24)).columns, 140))


def table(rows: Sequence[Sequence[str]], headers: Sequence[str], max_widths: Sequence[int]) -> str:
    cols = list(zip(*([headers, *rows]), strict=True)) if rows else [[h] for h in headers]
    widths = [min(max(len(str(c)) for c in col), mw) for col, mw in zip(cols, max_widths, strict=True)]

    def fmt(row: Sequence[str]) -> str:
        cells = []
        for c, w in zip(row, widths, strict=True):
            s = str(c)
            cells.append((s[: w - 1] + "…") if len(s) > w else s.ljust(w))
        return "  ".join(cells).rstrip()

    return "\n".join([fmt(headers), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)])


def authors(a: list[str]) -> str:
    if not a:
        return ""
    return a[0] + (" et al." if len(a) > 2 else f", {a[1]}" if len(a) == 2 else "")


def session(args: argparse.Namespace) -> Session:
    """The Session of ``--home`` (or $PAPERPILOT_HOME); a broken settings or profile file is
    reported on stderr once (defaults are used and the file was moved aside)."""
    s = Session(args.home)
    for warning in s.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return s


@contextmanager
def library(args: argparse.Namespace) -> Iterator[Library]:
    """The home's library for one command, closed afterwards."""
    with session(args) as s:
        yield s.library


def shown(text: str) -> str:
    """``text`` printable whatever it holds: undecodable bytes as \\xNN."""
    return os.fsencode(text).decode("utf-8", "backslashreplace") if has_surrogates(text) else text


def has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
