"""The ``paperpilot`` command: the argument parser, the dispatch to the command groups, and the
one place errors become a line on stderr and an exit status."""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from .. import __version__
from ..core.api import (
    HOME_ENV,
    AppPaths,
    RedactingStream,
    app_paths,
    configure_logging,
    log_crash,
    reset_logging,
)
from ..core.errors import PaperPilotError
from . import (
    ask,
    check,
    cite,
    gui,
    library_commands,
    memory,
    metadata_commands,
    organize_commands,
    workflow_commands,
)
from .args import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    Parser,
    UsageError,
    common,
    has_surrogates,
    shown,
)


def build_parser() -> argparse.ArgumentParser:
    p = Parser(
        prog="paperpilot",
        description="PaperPilot: a local research assistant. Import papers, search them, ask questions.",
    )
    p.add_argument("--version", action="version", version=f"paperpilot {__version__}")
    common(p, top=True)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        common(sp, top=False)
        return sp

    # In the order `paperpilot --help` lists them.
    library_commands.add_parsers(add)
    organize_commands.add_parsers(add)
    check.add_parsers(add)
    metadata_commands.add_parsers(add)
    ask.add_ask_parser(add)
    memory.add_conversations_parser(add)
    memory.add_profile_parser(add)
    memory.add_notes_parser(add)
    ask.add_eval_parser(add)
    cite.add_cite_parser(add)
    cite.add_export_parser(add)
    workflow_commands.add_parsers(add)
    gui.add_parsers(add)
    return p


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    **ask.COMMANDS,
    **cite.COMMANDS,
    **memory.COMMANDS,
    **gui.COMMANDS,
    **library_commands.COMMANDS,
    **organize_commands.COMMANDS,
    **check.COMMANDS,
    **metadata_commands.COMMANDS,
    **workflow_commands.COMMANDS,
}


def exit_status(e: PaperPilotError) -> int:
    """2 for an argument that cannot be used as given (like argparse's own errors), else 1."""
    return EXIT_USAGE if isinstance(e, UsageError) else EXIT_ERROR


# Arguments that name files: surrogates there are bytes of a non-UTF-8 file name.
_PATH_ARGS = {"paths": "file", "home": "--home", "trace": "--trace", "output": "--output",
              "dataset": "dataset", "csl_json": "--csl-json", "screenshot": "--screenshot"}  # fmt: skip


_TEXT_ARGS = {"question": "question", "query": "search query", "set_text": "note", "search": "search text",
              "rename": "title", "value": "value", "key": "profile key", "ask": "question", "model": "model name",
              "base_url": "base URL", "api_key_env": "variable name", "conversation": "conversation id",
              "export": "conversation id", "delete": "conversation id", "style": "style", "add": "tag",
              "remove": "tag", "name": "collection name", "new_name": "collection name", "tag": "tag",
              "collection": "collection name", "topic": "topic", "column": "column",
              "years": "year range"}  # fmt: skip


def _check_text(args: argparse.Namespace) -> None:
    """Refuse arguments that are not valid UTF-8 (Python hands them over with surrogates)."""
    for dest, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for v in values:
            if not isinstance(v, str) or not has_surrogates(v):
                continue
            if dest in _PATH_ARGS:
                raise UsageError(
                    f"the {_PATH_ARGS[dest]} name {shown(v)} is not valid UTF-8; PaperPilot keeps file names "
                    "as text: rename it"
                )
            what = _TEXT_ARGS.get(dest, dest.replace("_", " "))
            raise UsageError(
                f"the {what} '{shown(v)}' is not valid UTF-8 text; check the terminal's encoding and type it again"
            )


def _check_home(args: argparse.Namespace) -> None:
    """``--home`` (or $PAPERPILOT_HOME) must name a folder, or a place where one can be made."""
    if args.home is not None:
        value, name = args.home, "--home"
    else:
        value, name = os.environ.get(HOME_ENV), HOME_ENV
        if not value:
            return  # unset or empty: the platform's default folders
    if not value.strip():
        raise UsageError(f"{name} is empty; give a folder, or leave it out to use the default location")
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        raise UsageError(f"{name} {value} is a file, not a folder")
    for parent in path.absolute().parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"{name} {value} cannot be made: {parent} is a file, not a folder")
            break


def _paths_for_log(args: argparse.Namespace) -> AppPaths | None:
    try:
        return app_paths(args.home)
    except (OSError, RuntimeError, ValueError):
        return None


def say(message: str) -> None:
    print(f"paperpilot: {shown(message)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version, or a usage error already printed in one line
        return e.code if isinstance(e.code, int) else EXIT_OK if e.code is None else EXIT_USAGE
    if args.command is None:
        args.command = "gui"  # no command: the desktop app, as when launched from a menu
    try:
        _check_text(args)
        _check_home(args)
    except UsageError as e:
        say(str(e))
        return EXIT_USAGE
    paths = _paths_for_log(args)
    configure_logging(paths)
    # Everything printed goes through the key mask: a server's error text can quote the key.
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(out), RedactingStream(err)
    try:
        return COMMANDS[args.command](args)
    except PaperPilotError as e:  # every error raised on purpose: its message is the line to print
        say(str(e))
        return exit_status(e)
    except sqlite3.DatabaseError as e:  # damage found after opening (a malformed page)
        say(f"the library database cannot be read ({e}); run `paperpilot check --repair`.")
        return EXIT_ERROR
    except KeyboardInterrupt:
        say("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`paperpilot ask … | head`): not an error worth a message.
        # Point stdout at /dev/null so the interpreter's final flush does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, out.fileno())
        return EXIT_OK
    except OSError as e:
        # The file system said no (a folder that is a file, no permission, a full disk): the
        # user can act on that sentence; the traceback goes to the log for a bug hiding here.
        where = log_crash(paths, e, args.command)
        what = f"{e.filename}: " if e.filename else ""
        hint = f" (details in {where})" if where else ""
        say(f"{what}{e.strerror or type(e).__name__}{hint}")
        return EXIT_ERROR
    except Exception as e:  # the last line of defence: one clear line, never a traceback
        if os.environ.get("PAPERPILOT_DEBUG"):
            raise
        where = log_crash(paths, e, args.command)
        details = f"the details are in {where}" if where else "run it again with PAPERPILOT_DEBUG=1 for the details"
        say(f"an unexpected error stopped `{args.command}` ({type(e).__name__}); this is a bug: {details}")
        return EXIT_ERROR
    finally:
        sys.stdout, sys.stderr = out, err
        reset_logging()

