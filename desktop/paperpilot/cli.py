"""The ``paperpilot`` command: the GUI by default, and import / list / search / read / … for scripts."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import sqlite3
import sys
import textwrap
import threading
from collections.abc import Callable, Sequence
from typing import Any

from . import __version__
from .core.config import MAX_ROUNDS, MIN_ROUNDS, Settings, load_settings
from .core.library import ImportProgress, Library, LibraryBusy, LibraryError
from .core.paths import HOME_ENV, AppPaths, app_paths

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # as a shell reports a program ended by Ctrl+C
MAX_HITS = 100


class CliError(Exception):
    """A one-line message for stderr and a non-zero exit."""


class UsageError(CliError):
    """An argument that cannot be used as given (exit status 2, like argparse's own errors)."""


# --- argument parsing -------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: the usage block is for --help, not for every typo."""

    def error(self, message: str) -> Any:
        self.exit(EXIT_USAGE, f"{self.prog}: {message} (see: {self.prog} --help)\n")


def _whole(text: str, what: str, low: int | None = None, high: int | None = None) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a whole number, not {text!r}") from None
    if (low is not None and value < low) or (high is not None and value > high):
        if high is None:
            raise argparse.ArgumentTypeError(f"{what} must be {low} or more, not {value}")
        raise argparse.ArgumentTypeError(f"{what} must be between {low} and {high}, not {value}")
    return value


def _doc_id(text: str) -> int:
    return _whole(text, "a document id", 1)


def _segment(text: str) -> int:
    return _whole(text, "a segment number", 0)


def _hits(text: str) -> int:
    return _whole(text, "the number of hits", 1, MAX_HITS)


def _rounds(text: str) -> int:
    # The same range as the settings (AgentSettings.max_rounds) and the Settings dialog.
    return _whole(text, "the number of rounds", MIN_ROUNDS, MAX_ROUNDS)


def _positive(text: str) -> int:
    return _whole(text, "the number", 1)


def _count(text: str) -> int:
    return _whole(text, "the number", 0)


def _year(text: str) -> int:
    return _whole(text, "a year", 0, 9999)


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
    p = _Parser(
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

    sp = add(
        "import",
        "import PDF, text, Markdown and JSONL corpus files or folders, and .bib / .ris / CSL-JSON bibliographies",
    )
    sp.add_argument("paths", nargs="+", metavar="PATH")
    add("list", "list the documents in the library")
    sp = add("search", "full-text search over the library")
    sp.add_argument("query", nargs="+")
    sp.add_argument("-k", type=_hits, default=5, help=f"number of hits, 1 to {MAX_HITS} (default 5)")
    sp.add_argument(
        "--doc", type=_doc_id, action="append", dest="doc_ids", metavar="DOC_ID", help="only these documents"
    )
    sp.add_argument("--year-from", type=_year)
    sp.add_argument("--year-to", type=_year)
    sp = add("read", "print one segment (chunk) of a document")
    sp.add_argument("doc_id", type=_doc_id)
    sp.add_argument("segment", type=_segment)
    sp = add("remove", "remove documents from the library (all of them, or none when an id is wrong)")
    sp.add_argument("doc_ids", type=_doc_id, nargs="+", metavar="DOC_ID")
    add("reindex", "rebuild the search index from the library database")
    sp = add(
        "check",
        "check the library: database, search index, stored files and notes (exit status 1 if problems remain)",
    )
    sp.add_argument(
        "--repair", action="store_true", help="fix what can be fixed without losing anything, then check again"
    )

    def llm_options(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--policy", choices=["offline", "llm"], help="offline (no model) or llm (default: from settings)")
        sp.add_argument(
            "--max-rounds", type=_rounds, metavar="N", help=f"{MIN_ROUNDS} to {MAX_ROUNDS} (default: from settings)"
        )
        sp.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1")
        sp.add_argument("--model", help="model name on that endpoint")
        sp.add_argument("--api-key-env", metavar="VAR", help="read the API key from this environment variable")

    sp = add("ask", "ask a question: the agent searches, reads and answers with verified citations")
    sp.add_argument("question", nargs="+")
    sp.add_argument("--mode", choices=["auto", "quick", "loop"])
    sp.add_argument("--trace", metavar="FILE.jsonl", help="write every trace event to FILE as JSON lines")
    sp.add_argument(
        "--conversation",
        metavar="ID|new",
        help="continue conversation ID (follow-up questions are understood in its context) or start a new one",
    )
    llm_options(sp)
    sp = add("conversations", "list, search, export, rename or delete saved conversations")
    sp.add_argument("--search", metavar="TEXT", help="only conversations whose title, questions or answers hold TEXT")
    sp.add_argument("--export", metavar="ID", help="print conversation ID as Markdown (with formatted references)")
    sp.add_argument("-o", "--output", metavar="FILE", help="with --export: write the Markdown to FILE")
    sp.add_argument("--style", help="with --export: citation style (default: from the research profile)")
    sp.add_argument("--delete", metavar="ID", help="delete conversation ID")
    sp.add_argument("--rename", nargs=2, metavar=("ID", "TITLE"), help="rename conversation ID")
    sp = add("profile", "show or change the research profile (fields, keywords, answer language …)")
    sp.add_argument("action", choices=["show", "set"])
    sp.add_argument("key", nargs="?", help="with set: " + ", ".join(_profile_keys()))
    sp.add_argument("value", nargs="?", help="with set: lists comma-separated; keywords as term=syn1,syn2")
    sp = add("notes", "show or set the Markdown note on a document, or search the notes")
    sp.add_argument("doc_id", type=_doc_id, nargs="?", metavar="DOC_ID")
    sp.add_argument("--set", dest="set_text", metavar="TEXT", help="replace the note with TEXT ('' deletes it)")
    sp.add_argument("--search", metavar="TEXT", help="search every note for TEXT")
    sp = add("eval", "evaluate the agent on an IRCoT-style HotpotQA file")
    sp.add_argument("dataset", metavar="DATASET.jsonl")
    sp.add_argument(
        "--mode", action="append", choices=["auto", "quick", "loop"], help="mode(s) to compare (default: quick and loop)"
    )
    sp.add_argument("--limit", type=_positive, metavar="N", help="only the first N questions")
    sp.add_argument("--split", choices=["all", "tune", "heldout"], default="all",
                    help="tune = even line numbers, heldout = odd ones (default: all)")  # fmt: skip
    sp.add_argument("--unanswerable", type=_count, default=0, metavar="N",
                    help="N questions lose their supporting paragraphs from the library")  # fmt: skip
    sp.add_argument("--out-of-library", type=_count, default=0, metavar="N",
                    help="N questions lose all their paragraphs; a few off-topic questions join them")  # fmt: skip
    llm_options(sp)
    sp = add("cite", "format references for documents, or for the items of a CSL-JSON file")
    sp.add_argument("doc_ids", type=_doc_id, nargs="*", metavar="DOC_ID")
    sp.add_argument("--style", help="citation style (default: from settings); one of: " + ", ".join(_style_names()))
    sp.add_argument(
        "--format",
        dest="fmt",
        choices=["text", "html", "bibtex", "ris", "csl-json"],
        default="text",
        help="text (default) or html: one entry per line; bibtex, ris, csl-json: that file format",
    )
    sp.add_argument("--csl-json", metavar="FILE", help="cite the items of this CSL-JSON array instead of documents")
    sp.add_argument("--in-text", action="store_true", help="print the in-text citation marker instead")
    sp = add("export", "export references of documents (default: the whole library) as BibTeX, RIS or CSL-JSON")
    sp.add_argument("doc_ids", type=_doc_id, nargs="*", metavar="DOC_ID")
    sp.add_argument("--format", dest="fmt", choices=["bibtex", "ris", "csl-json"], default="bibtex")
    sp.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    sp = add("gui", "open the desktop window (also what `paperpilot` with no command does)")
    sp.add_argument("--screenshot", metavar="FILE.png", help="save a screenshot of the window to FILE and exit")
    sp.add_argument("--ask", metavar="QUESTION", help="with --screenshot: run this question to the end first")
    sp.add_argument("--size", metavar="WxH", help="with --screenshot: window size (default 1400x860)")
    sp.add_argument("--mode", choices=["auto", "quick", "loop"], default="auto", help="mode for --ask")
    sp.add_argument(
        "--open-evidence",
        type=int,
        metavar="N",
        help="with --screenshot and --ask: open the answer's evidence [N] at its source and save that viewer instead",
    )
    return p


def _profile_keys() -> tuple[str, ...]:
    from .core.profile import PROFILE_KEYS

    return PROFILE_KEYS


def _style_names() -> tuple[str, ...]:
    from .core.citations.styles import STYLE_NAMES

    return STYLE_NAMES


# --- output helpers -------------------------------------------------------------------------


def _emit_json(data: object) -> None:
    from .core.redaction import has_secrets, redact_data

    # Masked before encoding: JSON escapes would hide a key holding a quote from the stream's mask.
    if has_secrets():
        data = redact_data(data)
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


def _settings(paths: AppPaths) -> Settings:
    settings, warning = load_settings(paths.settings_file)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return settings


def _open(args: argparse.Namespace) -> Library:
    paths = app_paths(args.home)
    return Library(paths, _settings(paths).imports)


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
        return EXIT_ERROR if report.stopped else EXIT_OK
    for d in report.imported:
        print(f"imported   #{d.doc_id}  {d.title}  ({d.pages} pages, {d.chunks} chunks)")
    for d in report.updated:
        print(f"updated    #{d.doc_id}  {d.title}  (metadata completed from {os.path.basename(d.path)})")
    for path, doc_id in report.duplicates:
        print(f"duplicate  {path}  (already in the library as #{doc_id})")
    for path, reason in report.failed:
        print(f"failed     {path}: {reason}")
    for path, reason in report.unsupported:
        print(f"unsupported {path}: {reason}")
    updated = f", {len(report.updated)} updated" if report.updated else ""
    unsupported = f", {len(report.unsupported)} unsupported" if report.unsupported else ""
    not_imported = f", {len(report.not_imported)} not imported" if report.stopped else ""
    print(
        f"\n{len(report.imported)} imported{updated}, {len(report.duplicates)} duplicate(s), "
        f"{len(report.failed)} failed{unsupported}{not_imported}."
    )
    if report.stopped:
        print(f"paperpilot: {report.stopped}", file=sys.stderr)
        return EXIT_ERROR
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
    if not query.strip():
        raise UsageError("the search query is empty; give one or more words")
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
    # Every id is checked before anything goes: `remove 5 999 4` removes nothing, rather than
    # #5 and then an error. A repeated id is removed once.
    wanted = list(dict.fromkeys(args.doc_ids))
    removed: list[dict[str, object]] = []
    try:
        with _open(args) as lib:
            missing = [i for i in wanted if lib.document(i) is None]
            if missing:
                ids = ", ".join(str(i) for i in missing)
                raise CliError(
                    f"no document with id {ids}; nothing was removed (see: paperpilot list)"
                    if len(missing) == 1
                    else f"no documents with ids {ids}; nothing was removed (see: paperpilot list)"
                )
            for doc_id in wanted:
                d = lib.remove(doc_id)
                removed.append({"doc_id": d.doc_id, "title": d.title})
    except (CliError, LibraryError, LibraryBusy) as e:
        if args.json:
            _emit_json({"removed": removed, "error": str(e)})
        raise
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


def cmd_check(args: argparse.Namespace) -> int:
    from .core.integrity import check_library

    paths = app_paths(args.home)
    lib = Library(paths, _settings(paths).imports, allow_damaged=True)
    tty = sys.stderr.isatty() and not args.json

    def progress(message: str) -> None:
        if tty:
            print(f"\r\x1b[K{message}", end="", file=sys.stderr, flush=True)

    try:
        report = check_library(lib, repair=args.repair, progress=progress)
    finally:
        if tty:
            print("\r\x1b[K", end="", file=sys.stderr)
        lib.close()
    if args.json:
        _emit_json(report.to_json())
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


def _llm_config(args: argparse.Namespace, settings: Settings) -> Any:
    from .core.llm import LLMConfig
    from .core.redaction import InvalidAPIKey, clean_api_key

    s = settings.llm
    key_env = args.api_key_env or s.api_key_env
    try:
        api_key = clean_api_key(os.environ.get(key_env), f"from the environment variable {key_env}") if key_env else None
    except InvalidAPIKey as e:
        raise CliError(str(e)) from None
    if key_env and not api_key:
        raise CliError(f"the environment variable {key_env} is not set (it should hold the API key)")
    model = args.model or s.model
    if not model:
        raise CliError("no model configured: pass --model NAME (and --base-url URL), or set one in the settings")
    return LLMConfig(
        base_url=args.base_url or s.base_url,
        model=model,
        api_key=api_key or None,
        temperature=s.temperature,
        timeout_s=s.timeout_s,
        structured=s.structured,
    )


def _policy_name(args: argparse.Namespace, settings: Settings) -> str:
    if args.policy:
        return str(args.policy)
    return "llm" if (settings.llm.enabled or args.model or args.base_url) else "offline"


def _make_policy(name: str, args: argparse.Namespace, settings: Settings, answer_language: str = "same") -> Any:
    if name == "llm":
        from .core.agent.llm_policy import LLMPolicy
        from .core.llm import LLMClient

        return LLMPolicy(LLMClient(_llm_config(args, settings)), answer_language=answer_language,
                         quote_check=settings.llm.quote_check)  # fmt: skip
    from .core.agent.offline import OfflinePolicy

    return OfflinePolicy()


_STATUS_WORDS = {
    "answered": "Answered",
    "insufficient_evidence": "Not enough evidence in your library",
    "truncated": "Answered with what was found before the round limit",
    "cancelled": "Cancelled",
    "failed": "Failed",
}


def _trace_line(ev: Any) -> str | None:
    t = ev.type
    if t == "round_started":
        return f"── round {ev.round}"
    if t == "action_chosen":
        a = ev.action
        if a["action"] == "search":
            return f"   search {a['query']!r}" + (f"  ({ev.reasoning})" if ev.reasoning else "")
        if a["action"] == "read":
            refs = [f"{a['doc_id']}:{s}" for s in a["segments"]] + [f"{r['doc_id']}:{r['segment']}" for r in a.get("also", [])]
            return f"   read {', '.join(refs)}"
        return f"   {a['action']}"
    if t == "tool_result" and ev.tool == "search":
        return f"   → {len(ev.hits)} hits, {ev.new_items} new" + (f" ({ev.note})" if ev.note else "")
    if t == "tool_result" and ev.tool == "read":
        return f"   → read {', '.join(p.id + ' ' + p.title[:40] for p in ev.passages) or 'nothing new'}"
    if t in ("warning", "info"):
        return f"   {'!' if t == 'warning' else '·'} {ev.message}"
    return None


def _profile(paths: AppPaths) -> Any:
    from .core.profile import load_profile

    profile, warning = load_profile(paths)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return profile


def _conversations(paths: AppPaths) -> Any:
    from .core.conversations import ConversationError, ConversationStore

    try:
        return ConversationStore(paths)
    except ConversationError as e:
        raise CliError(str(e)) from None


def _first_interrupt_stops(cancel: threading.Event) -> Callable[[], None]:
    """Until the returned function is called, the first Ctrl+C stops the run as the GUI's Stop
    does (it ends cancelled within a fraction of a second, and what was read is printed); a
    second one quits at once."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def on_sigint(signum: int, frame: Any) -> None:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()
        # os.write, not print: the handler may run while the main thread is inside a print.
        os.write(sys.stderr.fileno(), b"paperpilot: stopping (press Ctrl+C again to quit at once)\n")

    previous = signal.signal(signal.SIGINT, on_sigint)

    def restore() -> None:
        signal.signal(signal.SIGINT, previous)

    return restore


def _trace_path(value: str) -> Any:
    from pathlib import Path

    if not value.strip():
        raise UsageError("--trace needs a file name, such as trace.jsonl")
    path = Path(value).expanduser()
    if path.is_dir():
        raise UsageError(f"--trace {value} is a folder; give a file name, such as {path / 'trace.jsonl'}")
    # Checked before the run, so a long run does not end in "cannot write the trace".
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"--trace {value}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise UsageError(f"--trace {value}: you cannot write there")
    return path


def _open_trace(path: Any) -> Any:
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise CliError(f"cannot write the trace to {path}: {e.strerror or type(e).__name__}") from None


def cmd_ask(args: argparse.Namespace) -> int:
    from pydantic import BaseModel

    from .core.agent.actions import question_too_long
    from .core.agent.events import Finished, Result, event_to_json
    from .core.agent.followup import Rewrite, rewrite_followup
    from .core.agent.loop import AgentOptions, run_agent
    from .core.profile import expansion_terms

    question = " ".join(args.question)
    if (too_long := question_too_long(question)) is not None:
        raise UsageError(too_long)
    trace_path = _trace_path(args.trace) if args.trace else None
    paths = app_paths(args.home)
    settings = _settings(paths)
    profile = _profile(paths)
    policy_name = _policy_name(args, settings)
    policy = _make_policy(policy_name, args, settings, profile.answer_language)
    store = _conversations(paths) if args.conversation else None
    conversation_id: str | None = None
    rewrite = Rewrite(standalone=" ".join(question.split()))
    cancel = threading.Event()
    restore_ctrl_c = _first_interrupt_stops(cancel)
    try:
        if store is not None:
            if args.conversation == "new":
                conversation_id = store.create().id
            else:
                if store.get(args.conversation) is None:
                    raise CliError(f"no conversation with id {args.conversation!r} (see: paperpilot conversations)")
                conversation_id = args.conversation
                history = store.turns(args.conversation, with_events=False)
                client = getattr(policy, "client", None)
                rewrite = rewrite_followup(question, history, policy_name, client, cancel=cancel)
        options = AgentOptions(
            max_rounds=args.max_rounds or settings.agent.max_rounds,
            mode=args.mode or settings.agent.mode,
            profile_terms=expansion_terms(profile, rewrite.standalone),
            prior_evidence=rewrite.reused_evidence,
            rewritten_from=question if rewrite.is_followup else None,
        )
        show_trace = not args.json and sys.stderr.isatty()
        result: Result | None = None
        events: list[BaseModel] = []
        trace_file = _open_trace(trace_path) if trace_path is not None else None
        try:
            with Library(paths, settings.imports) as lib:
                for ev in run_agent(rewrite.standalone, lib, policy, options, cancel):
                    events.append(ev)
                    if trace_file is not None:
                        trace_file.write(event_to_json(ev) + "\n")
                    if show_trace and (line := _trace_line(ev)):
                        print(line, file=sys.stderr)
                    if isinstance(ev, Finished):
                        result = ev.result
        finally:
            if trace_file is not None:
                trace_file.close()
        assert result is not None
        if store is not None and conversation_id is not None:
            store.add_turn(conversation_id, question, rewrite.standalone, result, events)
    finally:
        restore_ctrl_c()
        if store is not None:
            store.close()
    stopped = result.status.value == "cancelled"
    code = EXIT_INTERRUPTED if stopped else EXIT_OK if result.status.value != "failed" else EXIT_ERROR
    if args.json:
        _emit_json(
            {**result.to_cli_json(), "conversation_id": conversation_id, "standalone_question": rewrite.standalone}
        )
        return code
    if rewrite.is_followup and rewrite.standalone != question.strip():
        print(f"(understood as: {rewrite.standalone})")
    w = _width()
    print(f"{_STATUS_WORDS.get(result.status.value, result.status.value)} · confidence {result.confidence:.2f} · "
          f"{result.steps} round(s) · {result.seconds:.2f} s · {result.mode}/{result.policy}")  # fmt: skip
    print()
    for line in result.answer.splitlines() or [""]:
        print(textwrap.fill(line, w, subsequent_indent="  ") if line.strip() else "")
    if result.evidence:
        print("\nRead before the stop:" if stopped else "\nSources:")
        for e in result.evidence:
            where = f"p. {e.page}" + (f", {e.section}" if e.section else "")
            print(f"  [{e.number}] {e.title} ({where}; doc {e.doc_id}, segment {e.segment})")
    if result.missing:
        print("\nNot covered:")
        for m in result.missing:
            print(f"  - {m}")
    if result.error:
        print(f"\nerror: {result.error}", file=sys.stderr)
    if conversation_id is not None:
        print(f"\nconversation: {conversation_id}  (continue with --conversation {conversation_id})")
    return code


def cmd_conversations(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .core.config import atomic_write_text
    from .core.conversations import ConversationError

    paths = app_paths(args.home)
    store = _conversations(paths)
    try:
        if args.delete:
            store.delete(args.delete)
            if args.json:
                _emit_json({"deleted": args.delete})
            else:
                print(f"deleted conversation {args.delete}")
            return EXIT_OK
        if args.rename:
            cid, title = args.rename
            store.rename(cid, title)
            conv = store.get(cid)
            assert conv is not None
            if args.json:
                _emit_json({"id": conv.id, "title": conv.title})
            else:
                print(f"renamed {conv.id}: {conv.title}")
            return EXIT_OK
        if args.export:
            profile = _profile(paths)
            style = args.style or profile.citation_style
            if style not in _style_names():
                raise CliError(f"unknown citation style {style!r}; choose one of: {', '.join(_style_names())}")
            with Library(paths, _settings(paths).imports) as lib:
                md = store.export_markdown(args.export, lib, style)
            if args.output:
                out = Path(args.output)
                try:
                    atomic_write_text(out, md)
                except OSError as e:
                    raise CliError(f"cannot write {out}: {e.strerror or e}") from None
                if args.json:
                    _emit_json({"id": args.export, "path": str(out.resolve()), "style": style})
                else:
                    print(f"Wrote conversation {args.export} to {out}.", file=sys.stderr)
            elif args.json:
                _emit_json({"id": args.export, "markdown": md, "style": style})
            else:
                sys.stdout.write(md)
            return EXIT_OK
        convs = store.list(args.search)
    except ConversationError as e:
        raise CliError(str(e)) from None
    finally:
        store.close()
    if args.json:
        _emit_json({"conversations": [c.to_json() for c in convs]})
        return EXIT_OK
    if not convs:
        print("No conversations." if not args.search else f"No conversation mentions {args.search!r}.")
        return EXIT_OK
    w = _width()
    rows = [[c.id, c.title, str(c.turns), c.updated[:16].replace("T", " ")] for c in convs]
    print(_table(rows, ["ID", "TITLE", "TURNS", "UPDATED"], [12, max(20, w - 40), 5, 16]))
    return EXIT_OK


def cmd_profile(args: argparse.Namespace) -> int:
    from .core.profile import ProfileError, save_profile, set_profile_value

    paths = app_paths(args.home)
    profile = _profile(paths)
    if args.action == "set":
        if args.key is None or args.value is None:
            raise CliError("usage: paperpilot profile set KEY VALUE")
        try:
            profile = set_profile_value(profile, args.key, args.value)
        except ProfileError as e:
            raise CliError(str(e)) from None
        try:
            save_profile(profile, paths)
        except OSError as e:
            raise CliError(f"cannot save the research profile: {e.strerror or e}") from None
    elif args.key is not None:
        raise CliError("usage: paperpilot profile show")
    data = profile.model_dump(mode="json")
    if args.json:
        _emit_json(data)
        return EXIT_OK
    for key, value in data.items():
        if key == "schema_version":
            continue
        if isinstance(value, list):
            shown = ", ".join(value) or "—"
        elif isinstance(value, dict):
            shown = "; ".join(f"{k} = {', '.join(v)}" for k, v in value.items()) or "—"
        else:
            shown = str(value)
        print(f"{key:<20} {shown}")
    if args.action == "set":
        print("\nsaved.", file=sys.stderr)
    return EXIT_OK


def cmd_notes(args: argparse.Namespace) -> int:
    from .core.notes import get_note, note_updated, search_notes, set_note

    if args.search is not None:
        with _open(args) as lib:
            hits = search_notes(lib, args.search)
        if args.json:
            _emit_json({"notes": [{"doc_id": h.doc_id, "title": h.title, "snippet": h.snippet} for h in hits]})
        else:
            for h in hits:
                print(f"#{h.doc_id}  {h.title}\n   {h.snippet}")
            if not hits:
                print(f"No note mentions {args.search!r}.")
        return EXIT_OK
    if args.doc_id is None:
        raise CliError("give a DOC_ID (or --search TEXT)")
    with _open(args) as lib:
        doc = lib.document(args.doc_id)
        if doc is None or doc.status != "ready":
            raise CliError(f"no document with id {args.doc_id}")
        if args.set_text is not None:
            set_note(lib, args.doc_id, args.set_text)
        text = get_note(lib, args.doc_id)
        updated = note_updated(lib, args.doc_id)
    if args.json:
        _emit_json({"doc_id": args.doc_id, "title": doc.title, "text": text, "updated": updated})
        return EXIT_OK
    if args.set_text is not None:
        print(f"saved the note on #{args.doc_id} ({doc.title})." if text else f"deleted the note on #{args.doc_id}.",
              file=sys.stderr)  # fmt: skip
    if text:
        print(text)
    elif args.set_text is None:
        print(f"No note on #{args.doc_id} ({doc.title}). Add one with: paperpilot notes {args.doc_id} --set TEXT")
    return EXIT_OK


def cmd_eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .core.agent.evaluate import format_table, run_eval

    paths = app_paths(args.home) if args.home else None
    settings = _settings(paths or app_paths())
    policy = _policy_name(args, settings)
    dataset = Path(args.dataset)
    if not dataset.is_file():
        raise CliError(f"{dataset} does not exist")
    tty = sys.stderr.isatty() and not args.json

    def progress(i: int, n: int) -> None:
        if tty:
            print(f"\r\x1b[K{i}/{n}", end="", file=sys.stderr, flush=True)

    report = run_eval(
        dataset,
        modes=args.mode or ["quick", "loop"],
        policy=policy,
        limit=args.limit,
        home=Path(args.home) if args.home else None,
        llm_config=_llm_config(args, settings) if policy == "llm" else None,
        max_rounds=args.max_rounds or 6,
        progress=progress,
        split=args.split,
        unanswerable=max(0, args.unanswerable),
        out_of_library=max(0, args.out_of_library),
    )
    if tty:
        print("\r\x1b[K", end="", file=sys.stderr)
    if args.json:
        _emit_json(report.model_dump(mode="json"))
    else:
        print(format_table(report))
    return EXIT_OK


def _cite_style(args: argparse.Namespace, settings: Settings | None) -> str:
    names = _style_names()
    style = args.style or (settings.ui.citation_style if settings is not None else "apa")
    if style not in names:
        raise CliError(f"unknown citation style {style!r}; choose one of: {', '.join(names)}")
    return str(style)


def _read_csl_file(path: str) -> list[Any]:
    from pathlib import Path

    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CliError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CliError(f"{path} cannot be read: {e}") from None
    from .core.citations.cslio import parse_csl_json

    parsed = parse_csl_json(text)
    for err in parsed.errors:
        print(f"warning: {path}:{err.line}: {err.message}", file=sys.stderr)
    if not parsed.items and parsed.errors:
        raise CliError(f"{path} holds no usable CSL-JSON item")
    return list(parsed.items)


def cmd_cite(args: argparse.Namespace) -> int:
    from .core.citations import library_meta as meta
    from .core.citations.styles import bibliography, get_style

    if args.csl_json and args.doc_ids:
        raise CliError("give document ids or --csl-json FILE, not both")
    if not args.csl_json and not args.doc_ids:
        raise CliError("nothing to cite: give one or more DOC_IDs, or --csl-json FILE")
    paths = app_paths(args.home)
    settings = _settings(paths)
    machine = args.fmt in ("bibtex", "ris", "csl-json")
    style = "" if machine and not args.in_text else _cite_style(args, settings)
    ids: list[int | None]
    if args.csl_json:
        items = _read_csl_file(args.csl_json)
        ids = [None] * len(items)
    else:
        with Library(paths, settings.imports) as lib:
            items = meta.items_for_documents(lib, args.doc_ids)
        ids = list(args.doc_ids)
    if args.in_text:
        marker = get_style(style).in_text(items, list(range(1, len(items) + 1)))
        if args.json:
            _emit_json({"in_text": marker, "style": style})
        else:
            print(marker)
        return EXIT_OK
    if machine:
        content = _export_text(items, args.fmt)
        if args.json:
            _emit_json({"format": args.fmt, "content": content})
        else:
            sys.stdout.write(content if content.endswith("\n") else content + "\n")
        return EXIT_OK
    entries = bibliography(items, style)
    if args.json:
        _emit_json(
            {
                "style": style,
                "entries": [
                    {**({"doc_id": i} if i is not None else {"id": it.id}), "text": e.text, "html": e.html}
                    for i, it, e in zip(ids, items, entries, strict=True)
                ],
            }
        )
        return EXIT_OK
    for e in entries:
        # One entry per line whatever the entry holds: a stray newline would split it. Only
        # line breaks go: other whitespace (a style's no-break spaces) is part of the entry.
        if args.fmt == "html":
            print(f'<div class="csl-entry">{_one_line(e.html)}</div>')
        else:
            print(_one_line(e.text))
    return EXIT_OK


def _one_line(text: str) -> str:
    return re.sub(r"\s*[\r\n]+\s*", " ", text).strip()


def _export_text(items: list[Any], fmt: str) -> str:
    if fmt == "bibtex":
        from .core.citations.bibtex import to_bibtex

        return to_bibtex(items)
    if fmt == "ris":
        from .core.citations.ris import to_ris

        return to_ris(items)
    from .core.citations.cslio import to_csl_json

    return to_csl_json(items)


def cmd_export(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .core.citations.library_meta import items_for_documents
    from .core.config import atomic_write_text

    with _open(args) as lib:
        items = items_for_documents(lib, args.doc_ids or None)
    content = _export_text(items, args.fmt)
    if args.output:
        out = Path(args.output)
        try:
            atomic_write_text(out, content)
        except OSError as e:
            raise CliError(f"cannot write {out}: {e.strerror or e}") from None
        if args.json:
            _emit_json({"format": args.fmt, "count": len(items), "path": str(out.resolve())})
        else:
            print(f"Wrote {len(items)} reference(s) to {out} ({args.fmt}).", file=sys.stderr)
        return EXIT_OK
    if args.json:
        _emit_json({"format": args.fmt, "count": len(items), "content": content})
    else:
        sys.stdout.write(content if content.endswith("\n") or not content else content + "\n")
    return EXIT_OK


def cmd_gui(args: argparse.Namespace) -> int:
    # Imported here so that every other command runs without loading Qt.
    try:
        from .ui.app import main_gui_entry
    except ImportError as e:
        raise CliError(f"the desktop app cannot start ({e}); install PySide6-Essentials and PySide6-Pdf") from e
    return main_gui_entry(args)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "ask": cmd_ask,
    "cite": cmd_cite,
    "conversations": cmd_conversations,
    "notes": cmd_notes,
    "profile": cmd_profile,
    "export": cmd_export,
    "eval": cmd_eval,
    "gui": cmd_gui,
    "import": cmd_import,
    "list": cmd_list,
    "search": cmd_search,
    "read": cmd_read,
    "remove": cmd_remove,
    "reindex": cmd_reindex,
    "check": cmd_check,
}


# Arguments that name files: surrogates there are bytes of a non-UTF-8 file name.
_PATH_ARGS = {"paths": "file", "home": "--home", "trace": "--trace", "output": "--output",
              "dataset": "dataset", "csl_json": "--csl-json", "screenshot": "--screenshot"}  # fmt: skip
_TEXT_ARGS = {"question": "question", "query": "search query", "set_text": "note", "search": "search text",
              "rename": "title", "value": "value", "key": "profile key", "ask": "question", "model": "model name",
              "base_url": "base URL", "api_key_env": "variable name", "conversation": "conversation id",
              "export": "conversation id", "delete": "conversation id", "style": "style"}  # fmt: skip


def _shown(text: str) -> str:
    """``text`` printable whatever it holds: undecodable bytes as \\xNN."""
    return os.fsencode(text).decode("utf-8", "backslashreplace") if _has_surrogates(text) else text


def _has_surrogates(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _check_text(args: argparse.Namespace) -> None:
    """Refuse arguments that are not valid UTF-8 (Python hands them over with surrogates)."""
    for dest, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for v in values:
            if not isinstance(v, str) or not _has_surrogates(v):
                continue
            if dest in _PATH_ARGS:
                raise UsageError(
                    f"the {_PATH_ARGS[dest]} name {_shown(v)} is not valid UTF-8; PaperPilot keeps file names "
                    "as text: rename it"
                )
            what = _TEXT_ARGS.get(dest, dest.replace("_", " "))
            raise UsageError(
                f"the {what} '{_shown(v)}' is not valid UTF-8 text; check the terminal's encoding and type it again"
            )


def _check_home(args: argparse.Namespace) -> None:
    """``--home`` (or $PAPERPILOT_HOME) must name a folder, or a place where one can be made."""
    from pathlib import Path

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


def _say(message: str) -> None:
    print(f"paperpilot: {_shown(message)}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    from .core.logsetup import configure_logging, log_crash, reset_logging
    from .core.redaction import RedactingStream

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
        _say(str(e))
        return EXIT_USAGE
    paths = _paths_for_log(args)
    configure_logging(paths)
    # Everything printed goes through the key mask: a server's error text can quote the key.
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = RedactingStream(out), RedactingStream(err)  # type: ignore[assignment]
    try:
        return COMMANDS[args.command](args)
    except UsageError as e:
        _say(str(e))
        return EXIT_USAGE
    except (LibraryBusy, LibraryError, CliError) as e:
        _say(str(e))
        return EXIT_ERROR
    except sqlite3.DatabaseError as e:  # damage found after opening (a malformed page)
        _say(f"the library database cannot be read ({e}); run `paperpilot check --repair`.")
        return EXIT_ERROR
    except KeyboardInterrupt:
        _say("interrupted")
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
        _say(f"{what}{e.strerror or type(e).__name__}{hint}")
        return EXIT_ERROR
    except Exception as e:  # the last line of defence: one clear line, never a traceback
        if os.environ.get("PAPERPILOT_DEBUG"):
            raise
        where = log_crash(paths, e, args.command)
        details = f"the details are in {where}" if where else "run it again with PAPERPILOT_DEBUG=1 for the details"
        _say(f"an unexpected error stopped `{args.command}` ({type(e).__name__}); this is a bug: {details}")
        return EXIT_ERROR
    finally:
        sys.stdout, sys.stderr = out, err
        reset_logging()


if __name__ == "__main__":
    sys.exit(main())
