"""Asking: the ask and eval commands (a thin front on Session.ask and Session.evaluate)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import textwrap
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from ..core.api import (
    MAX_ROUNDS,
    MIN_ROUNDS,
    CollectionScope,
    TraceWarning,
    event_to_json,
    question_too_long,
    tools,
)
from ..core.app import FOLLOWUP_WARNING, ConversationNotFound
from .args import (
    EXIT_ERROR,
    EXIT_INTERRUPTED,
    EXIT_OK,
    AddParser,
    CliError,
    UsageError,
    count_type,
    emit_json,
    positive_type,
    rounds_type,
    session,
    width,
)


def _llm_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--policy", choices=["offline", "llm"], help="offline (no model) or llm (default: from settings)")
    sp.add_argument(
        "--max-rounds", type=rounds_type, metavar="N", help=f"{MIN_ROUNDS} to {MAX_ROUNDS} (default: from settings)"
    )
    sp.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1")
    sp.add_argument("--model", help="model name on that endpoint")
    sp.add_argument("--api-key-env", metavar="VAR", help="read the API key from this environment variable")


def add_ask_parser(add: AddParser) -> None:
    sp = add("ask", "ask a question: the agent searches, reads and answers with verified citations")
    sp.add_argument("question", nargs="+")
    sp.add_argument("--mode", choices=["auto", "quick", "loop"])
    sp.add_argument("--trace", metavar="FILE.jsonl", help="write every trace event to FILE as JSON lines")
    sp.add_argument(
        "--conversation",
        metavar="ID|new",
        help="continue conversation ID (follow-up questions are understood in its context) or start a new one",
    )
    scope = sp.add_mutually_exclusive_group()
    scope.add_argument("--collection", metavar="NAME", help="only the documents of this collection (and its sub-collections)")
    scope.add_argument("--tag", metavar="TAG", help="only the documents with this tag")
    _llm_options(sp)


def add_eval_parser(add: AddParser) -> None:
    sp = add("eval", "evaluate the agent on an IRCoT-style HotpotQA file")
    sp.add_argument("dataset", metavar="DATASET.jsonl")
    sp.add_argument(
        "--mode", action="append", choices=["auto", "quick", "loop"], help="mode(s) to compare (default: quick and loop)"
    )
    sp.add_argument("--limit", type=positive_type, metavar="N", help="only the first N questions")
    sp.add_argument("--split", choices=["all", "tune", "heldout"], default="all",
                    help="tune = even line numbers, heldout = odd ones (default: all)")  # fmt: skip
    sp.add_argument("--unanswerable", type=count_type, default=0, metavar="N",
                    help="N questions lose their supporting paragraphs from the library")  # fmt: skip
    sp.add_argument("--out-of-library", type=count_type, default=0, metavar="N",
                    help="N questions lose all their paragraphs; a few off-topic questions join them")  # fmt: skip
    _llm_options(sp)


def _model_overrides(args: argparse.Namespace) -> dict[str, Any]:
    return {"base_url": args.base_url, "model": args.model, "api_key_env": args.api_key_env}


_STATUS_WORDS = {
    "answered": "Answered",
    "partial": "Partly answered (see what is not covered below)",
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
        return tools.cli_line(ev.action, ev.reasoning)
    if t == "tool_result" and ev.tool == "search":
        modes = Counter(h.found_by for h in ev.hits)
        by = " · ".join(f"{m} {n}" for m, n in sorted(modes.items()))
        return (
            f"   → {len(ev.hits)} hits, {ev.new_items} new"
            + (f" [found by {by}]" if by else "")
            + (f" ({ev.note})" if ev.note else "")
        )
    if t == "tool_result" and ev.tool == "read":
        return f"   → read {', '.join(p.id + ' ' + p.title[:40] for p in ev.passages) or 'nothing new'}"
    if t in ("warning", "info"):
        return f"   {'!' if t == 'warning' else '·'} {ev.message}"
    return None


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


def _trace_path(value: str) -> Path:
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


def _open_trace(path: Path) -> TextIO:
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise CliError(f"cannot write the trace to {path}: {e.strerror or type(e).__name__}") from None


def cmd_ask(args: argparse.Namespace) -> int:
    question = " ".join(args.question)
    if (too_long := question_too_long(question)) is not None:
        raise UsageError(too_long)
    trace_path = _trace_path(args.trace) if args.trace else None
    s = session(args)
    cancel = threading.Event()
    restore_ctrl_c = _first_interrupt_stops(cancel)
    try:
        policy = s.make_policy(args.policy, **_model_overrides(args))
        conversation = args.conversation if args.conversation not in (None, "new") else None
        try:
            run = s.ask(
                question,
                conversation=conversation,
                save=args.conversation is not None,
                mode=args.mode,
                max_rounds=args.max_rounds,
                policy=policy,
                cancel=cancel,
                scope=CollectionScope("collection", args.collection) if args.collection
                else CollectionScope("tag", args.tag) if args.tag else None,
            )
        except ConversationNotFound as unknown:
            raise CliError(f"{unknown} (see: paperpilot conversations)") from None
        show_trace = not args.json and sys.stderr.isatty()
        trace_file = _open_trace(trace_path) if trace_path is not None else None
        try:
            for ev in run:
                if trace_file is not None:
                    trace_file.write(event_to_json(ev) + "\n")
                if show_trace and (line := _trace_line(ev)):
                    print(line, file=sys.stderr)
                elif isinstance(ev, TraceWarning) and ev.code == FOLLOWUP_WARNING:
                    print(f"warning: {ev.message}", file=sys.stderr)
        finally:
            if trace_file is not None:
                trace_file.close()
    finally:
        restore_ctrl_c()
        s.close()
    result = run.result
    assert result is not None
    if run.save_error:
        print(f"warning: the conversation was not saved: {run.save_error}", file=sys.stderr)
    stopped = result.status.value == "cancelled"
    code = EXIT_INTERRUPTED if stopped else EXIT_OK if result.status.value != "failed" else EXIT_ERROR
    if args.json:
        emit_json(
            {**result.to_cli_json(), "conversation_id": run.conversation_id, "standalone_question": run.standalone}
        )
        return code
    if run.rewritten and run.standalone != question.strip():
        print(f"(understood as: {run.standalone})")
    w = width()
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
    if run.conversation_id is not None:
        print(f"\nconversation: {run.conversation_id}  (continue with --conversation {run.conversation_id})")
    return code


def cmd_eval(args: argparse.Namespace) -> int:
    from ..core.app import eval_table as format_table

    dataset = Path(args.dataset)
    if not dataset.is_file():
        raise CliError(f"{dataset} does not exist")
    tty = sys.stderr.isatty() and not args.json

    def progress(i: int, n: int) -> None:
        if tty:
            print(f"\r\x1b[K{i}/{n}", end="", file=sys.stderr, flush=True)

    with session(args) as s:
        report = s.evaluate(
            dataset,
            args.mode or ["quick", "loop"],
            policy=args.policy,
            **_model_overrides(args),
            max_rounds=args.max_rounds,
            limit=args.limit,
            # --home: the pooled paragraphs go into that home's library (kept, reused next time).
            into_home=args.home is not None,
            progress=progress,
            split=args.split,
            unanswerable=max(0, args.unanswerable),
            out_of_library=max(0, args.out_of_library),
        )
    if tty:
        print("\r\x1b[K", end="", file=sys.stderr)
    if args.json:
        emit_json(report.model_dump(mode="json"))
    else:
        print(format_table(report))
    return EXIT_OK


COMMANDS = {"ask": cmd_ask, "eval": cmd_eval}
