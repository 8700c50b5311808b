"""The ``paperpilot`` command: the GUI by default, and import / list / search / read / … for scripts."""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .core.config import load_settings
from .core.library import ImportProgress, Library, LibraryBusy, LibraryError
from .core.paths import app_paths

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


class CliError(Exception):
    """A one-line message for stderr and a non-zero exit."""


# --- argument parsing -------------------------------------------------------------------------


def _common(parser: argparse.ArgumentParser, top: bool) -> None:
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


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="paperpilot",
        description="PaperPilot: a local research assistant. Import papers, search them, ask questions.",
    )
    p.add_argument("--version", action="version", version=f"paperpilot {__version__}")
    _common(p, top=True)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        _common(sp, top=False)
        return sp

    sp = add("import", "import PDF, text, Markdown and JSONL corpus files or folders")
    sp.add_argument("paths", nargs="+", metavar="PATH")
    add("list", "list the documents in the library")
    sp = add("search", "full-text search over the library")
    sp.add_argument("query", nargs="+")
    sp.add_argument("-k", type=int, default=5, help="number of hits (default 5)")
    sp.add_argument(
        "--doc", type=int, action="append", dest="doc_ids", metavar="DOC_ID", help="only these documents"
    )
    sp.add_argument("--year-from", type=int)
    sp.add_argument("--year-to", type=int)
    sp = add("read", "print one segment (chunk) of a document")
    sp.add_argument("doc_id", type=int)
    sp.add_argument("segment", type=int)
    sp = add("remove", "remove documents from the library")
    sp.add_argument("doc_ids", type=int, nargs="+", metavar="DOC_ID")
    add("reindex", "rebuild the search index from the library database")
    return p


# --- output helpers -------------------------------------------------------------------------


def _emit_json(data: object) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _width() -> int:
    return max(60, min(shutil.get_terminal_size((100, 24)).columns, 140))


def _table(rows: Sequence[Sequence[str]], headers: Sequence[str], max_widths: Sequence[int]) -> str:
    cols = list(zip(*([headers, *rows]), strict=True)) if rows else [[h] for h in headers]
    widths = [min(max(len(str(c)) for c in col), mw) for col, mw in zip(cols, max_widths, strict=True)]

    def fmt(row: Sequence[str]) -> str:
        cells = []
        for c, w in zip(row, widths, strict=True):
            s = str(c)
            cells.append((s[: w - 1] + "…") if len(s) > w else s.ljust(w))
        return "  ".join(cells).rstrip()

    return "\n".join([fmt(headers), fmt(["-" * w for w in widths]), *(fmt(r) for r in rows)])


def _authors(a: list[str]) -> str:
    if not a:
        return ""
    return a[0] + (" et al." if len(a) > 2 else f", {a[1]}" if len(a) == 2 else "")


# --- commands -------------------------------------------------------------------------------


def _open(args: argparse.Namespace) -> Library:
    paths = app_paths(args.home)
    settings, warning = load_settings(paths.settings_file)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return Library(paths, settings.imports)


def cmd_import(args: argparse.Namespace) -> int:
    lib = _open(args)
    try:
        tty = sys.stderr.isatty() and not args.json

        def progress(p: ImportProgress) -> None:
            if tty:
                name = os.path.basename(p.path)
                print(f"\r\x1b[K[{p.index}/{p.total}] {name[:70]}", end="", file=sys.stderr, flush=True)

        report = lib.import_paths(args.paths, progress=progress)
        if tty:
            print("\r\x1b[K", end="", file=sys.stderr)
    finally:
        lib.close()
    if args.json:
        _emit_json(report.to_json())
        return EXIT_OK
    for d in report.imported:
        print(f"imported   #{d.doc_id}  {d.title}  ({d.pages} pages, {d.chunks} chunks)")
    for path, doc_id in report.duplicates:
        print(f"duplicate  {path}  (already in the library as #{doc_id})")
    for path, reason in report.failed:
        print(f"failed     {path}: {reason}")
    print(
        f"\n{len(report.imported)} imported, {len(report.duplicates)} duplicate(s), {len(report.failed)} failed."
    )
    return EXIT_OK


def cmd_list(args: argparse.Namespace) -> int:
    with _open(args) as lib:
        docs = lib.all_documents()
    if args.json:
        _emit_json(
            {
                "documents": [
                    {
                        "doc_id": d.doc_id,
                        "title": d.title,
                        "authors": d.authors,
                        "year": d.year,
                        "pages": d.pages,
                        "chunks": d.chunks,
                        "status": d.status,
                        **({"error": d.error} if d.error else {}),
                    }
                    for d in docs
                ]
            }
        )
        return EXIT_OK
    if not docs:
        print("The library is empty. Add papers with: paperpilot import FILE_OR_FOLDER")
        return EXIT_OK
    rows = [
        [
            str(d.doc_id),
            d.title if d.status == "ready" else f"{d.title} — {d.error}",
            _authors(d.authors),
            str(d.year or ""),
            str(d.pages),
            str(d.chunks),
            d.status,
        ]
        for d in docs
    ]
    w = _width()
    print(
        _table(
            rows,
            ["ID", "TITLE", "AUTHORS", "YEAR", "PAGES", "CHUNKS", "STATUS"],
            [6, max(20, w - 62), 24, 4, 5, 6, 6],
        )
    )
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    with _open(args) as lib:
        hits = lib.search(query, args.k, doc_ids=args.doc_ids, year_from=args.year_from, year_to=args.year_to)
    if args.json:
        _emit_json(
            {
                "hits": [
                    {
                        "doc_id": h.doc_id,
                        "chunk_id": h.chunk_id,
                        "segment": h.seq,
                        "title": h.title,
                        "section": h.section,
                        "page": h.page,
                        "score": h.score,
                        "snippet": h.snippet,
                    }
                    for h in hits
                ]
            }
        )
        return EXIT_OK
    if not hits:
        print(f"No passages match {query!r}.")
        return EXIT_OK
    w = _width()
    for i, h in enumerate(hits, 1):
        where = f"p. {h.page}" + (f" · {h.section}" if h.section else "")
        print(f"{i}. {h.title}  [doc {h.doc_id}, segment {h.seq}, {where}]  score {h.score:.2f}")
        print(textwrap.fill(h.snippet, w, initial_indent="   ", subsequent_indent="   "))
        print()
    return EXIT_OK


def cmd_read(args: argparse.Namespace) -> int:
    with _open(args) as lib:
        p = lib.read(args.doc_id, args.segment)
    if args.json:
        _emit_json(
            {
                "doc_id": p.doc_id,
                "chunk_id": p.chunk_id,
                "segment": p.seq,
                "title": p.title,
                "section": p.section,
                "page": p.page,
                "text": p.text,
                "prev": p.prev,
                "next": p.next,
            }
        )
        return EXIT_OK
    print(f"{p.title}\nsegment {p.seq} · page {p.page}" + (f" · {p.section}" if p.section else ""))
    print()
    print(textwrap.fill(p.text, _width()))
    nav = []
    if p.prev is not None:
        nav.append(f"previous: paperpilot read {p.doc_id} {p.prev}")
    if p.next is not None:
        nav.append(f"next: paperpilot read {p.doc_id} {p.next}")
    if nav:
        print("\n" + "   ".join(nav))
    return EXIT_OK


def cmd_remove(args: argparse.Namespace) -> int:
    removed: list[dict[str, object]] = []
    with _open(args) as lib:
        for doc_id in args.doc_ids:
            d = lib.remove(doc_id)
            removed.append({"doc_id": d.doc_id, "title": d.title})
    if args.json:
        _emit_json({"removed": removed})
    else:
        for r in removed:
            print(f"removed #{r['doc_id']}  {r['title']}")
    return EXIT_OK


def cmd_reindex(args: argparse.Namespace) -> int:
    with _open(args) as lib:
        n = lib.reindex()
        docs, _chunks = lib.counts()
    if args.json:
        _emit_json({"documents": docs, "chunks": n})
    else:
        print(f"Rebuilt the search index: {docs} documents, {n} chunks.")
    return EXIT_OK


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "import": cmd_import,
    "list": cmd_list,
    "search": cmd_search,
    "read": cmd_read,
    "remove": cmd_remove,
    "reindex": cmd_reindex,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    try:
        return COMMANDS[args.command](args)
    except (LibraryBusy, LibraryError, CliError) as e:
        print(f"paperpilot: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("paperpilot: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # the last line of defence: one clear line, never a traceback
        if os.environ.get("PAPERPILOT_DEBUG"):
            raise
        print(f"paperpilot: unexpected error: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
