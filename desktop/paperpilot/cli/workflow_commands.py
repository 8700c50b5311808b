"""``paperpilot matrix`` and ``paperpilot draft``: the literature matrix and the cited draft."""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any

from ..core.api import (
    Draft,
    PaperSelection,
    SectionProgress,
    draft_markdown,
    draft_to_json,
    parse_column,
    year_argument,
)
from ..core.errors import InvalidInput
from .args import EXIT_INTERRUPTED, EXIT_OK, AddParser, UsageError, doc_id_type, emit_json, session, year_type
from .ask import _llm_options, _model_overrides


def _scope_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--query", metavar="Q", help="the papers whose passages match Q")
    sp.add_argument("--year-from", type=year_type, metavar="Y")
    sp.add_argument("--year-to", type=year_type, metavar="Y")
    sp.add_argument("--years", metavar="RANGE", help='a year range in words: "2019-2023", "since 2020", "近三年"')
    sp.add_argument("--tag", action="append", default=[], metavar="TAG", help="papers with this tag (repeatable)")
    sp.add_argument("--collection", action="append", default=[], metavar="NAME", help="papers in this collection")


def add_parsers(add: AddParser) -> None:
    sp = add("matrix", "a literature matrix: papers as rows, questions as columns, every cell cited")
    sp.add_argument("doc_ids", nargs="*", type=doc_id_type, metavar="DOC_ID")
    _scope_options(sp)
    sp.add_argument("--column", action="append", default=[], metavar="NAME=QUESTION",
                    help="a column (repeatable, in order; default: the six standard columns)")  # fmt: skip
    sp.add_argument("--columns", metavar="SET", help="use a saved column set (or a .json file)")
    sp.add_argument("--save-columns", metavar="NAME", help="save this matrix's columns as a reusable set")
    sp.add_argument("--open", metavar="ID", help="reopen (and finish) a saved matrix; with --column, edit its columns")
    sp.add_argument("--list", action="store_true", help="list the saved matrices")
    sp.add_argument("--group-by", metavar="COLUMN|year", help="group the rows (Markdown output)")
    sp.add_argument("--format", choices=["json", "md", "csv", "xlsx"], help="output format (default: from -o, else md)")
    sp.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    sp.add_argument("--style", metavar="STYLE", help="citation style of the reference list (default: yours)")
    _llm_options(sp)

    dp = add("draft", "a cited draft: a research proposal (开题报告) or a literature review")
    dp.add_argument("topic", nargs="?", default="", help="what the proposal or review is about")
    dp.add_argument("doc_ids", nargs="*", type=doc_id_type, metavar="DOC_ID")
    dp.add_argument("--template", default="proposal-zh", metavar="proposal-zh|review-en|PATH")
    dp.add_argument("--language", choices=["zh", "en"], help="default: the template's")
    _scope_options(dp)
    dp.add_argument("-o", "--output", metavar="FILE.docx|FILE.md", help="write the draft to FILE")
    dp.add_argument("--appendix", action="store_true", help="add the evidence appendix (every cited passage)")
    dp.add_argument("--style", metavar="STYLE", help="citation style (default: GB/T 7714 numeric for Chinese)")
    dp.add_argument("--open", metavar="ID", help="reopen (and finish) a saved draft")
    dp.add_argument("--list", action="store_true", help="list the saved drafts")
    _llm_options(dp)


def _scope(args: argparse.Namespace) -> PaperSelection:
    lo, hi = args.year_from, args.year_to
    if args.years:
        try:
            a, b = year_argument(args.years)
        except InvalidInput as e:
            raise UsageError(str(e)) from None
        lo = lo if lo is not None else a
        hi = hi if hi is not None else b
    if lo is not None and hi is not None and lo > hi:
        raise UsageError(f"--year-from {lo} is after --year-to {hi}")
    return PaperSelection(doc_ids=list(args.doc_ids), query=args.query or "", year_from=lo, year_to=hi,
                         tags=list(args.tag), collections=list(args.collection))  # fmt: skip


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cmd_matrix(args: argparse.Namespace) -> int:
    with session(args) as s:
        store = s.workflows
        if args.list:
            items = store.matrices()
            if args.json:
                emit_json({"matrices": items})
            else:
                for m in items:
                    print(f"{m['id']}  {m['cells_done']}/{m['cells_total']} cells  {m['updated'][:19]}  {m['title']}")
            return EXIT_OK
        specs = [parse_column(c) for c in args.column]
        out = Path(args.output) if args.output else None
        fmt = args.format or ("json" if args.json else None)
        if fmt is None:
            fmt = {".csv": "csv", ".xlsx": "xlsx", ".json": "json"}.get(out.suffix.lower(), "md") if out else "md"
        if fmt == "xlsx" and out is None:
            raise UsageError("--format xlsx needs -o FILE.xlsx")
        if args.open:
            if args.doc_ids or args.query or args.tag or args.years or args.year_from or args.year_to:
                raise UsageError("--open reopens a saved matrix: its papers are already chosen")
            matrix = s.open_matrix(args.open)
            if specs:
                matrix = s.edit_matrix_columns(matrix, specs)
            elif args.columns:
                matrix = s.use_column_set(matrix, args.columns)
        else:
            matrix = s.create_matrix(_scope(args), specs, column_set=args.columns or "")
        if args.save_columns:
            s.save_column_set(args.save_columns, matrix.columns)
        cancel = threading.Event()
        run = s.run_matrix(matrix, args.policy, cancel, **_model_overrides(args))
        pending = len(matrix.pending())
        _say(f"matrix {matrix.id}: {len(matrix.rows)} papers × {len(matrix.columns)} columns, {pending} cells to fill")
        try:
            for p in run:
                if p.cell is not None and not args.json:
                    _say(f"  [{p.done}/{p.total}] doc {p.row.doc_id} · {p.column.name}: {p.cell.status}")
        except KeyboardInterrupt:
            cancel.set()
            _say(f"stopped; the cells done are saved: resume with `paperpilot matrix --open {matrix.id}`")
            return EXIT_INTERRUPTED
        if fmt == "xlsx":
            assert out is not None
            s.export_matrix(matrix, out, style=args.style)
        else:
            if fmt == "json":
                refs = s.matrix_references(matrix, args.style)
                data: Any = matrix.to_json([r.to_json() for r in refs])
                if out is None:
                    emit_json(data)
                    return EXIT_OK
                import json

                text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
            else:
                text = s.matrix_text(matrix, fmt, style=args.style, group_by=args.group_by)
            if out is None:
                sys.stdout.write(text)
                return EXIT_OK
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        if args.json:
            refs = s.matrix_references(matrix, args.style)
            emit_json({**matrix.to_json([r.to_json() for r in refs]), "output": str(out)})
        else:
            print(f"wrote {out}")
        return EXIT_OK


def cmd_draft(args: argparse.Namespace) -> int:
    with session(args) as s:
        store = s.workflows
        if args.list:
            items = store.drafts()
            if args.json:
                emit_json({"drafts": items})
            else:
                for d in items:
                    print(f"{d['id']}  {d['status']:<9}  {d['updated'][:19]}  [{d['template']}] {d['topic']}")
            return EXIT_OK
        scope = _scope(args)
        draft_id = None
        topic = args.topic
        template_name = args.template
        language = args.language
        if args.open:
            saved = s.saved_draft(args.open)
            draft_id, topic, template_name = saved["id"], saved["topic"], saved["template"]
            language = language or saved["language"]
            scope = PaperSelection.from_json(saved["scope"])
        if not topic.strip():
            raise UsageError("give the draft's topic, e.g. paperpilot draft \"对比近三年 Transformer 在医学影像分割方向的研究进展\"")
        cancel = threading.Event()
        run = s.write_draft(topic, template_name, scope, language=language or "", policy=args.policy, style=args.style,
                            cancel=cancel, draft_id=draft_id, **_model_overrides(args))  # fmt: skip
        draft: Draft | None = None
        try:
            for ev in run:
                if isinstance(ev, SectionProgress):
                    if ev.section is None:
                        _say(f"  [{ev.index + 1}/{ev.total}] {ev.heading} …")
                else:
                    draft = ev
        except KeyboardInterrupt:
            cancel.set()
            _say("stopped; the sections done are saved: resume with `paperpilot draft --open ID` (see: paperpilot draft --list)")
            return EXIT_INTERRUPTED
        assert draft is not None
        out = Path(args.output) if args.output else None
        if out is not None:
            if out.suffix.lower() not in (".docx", ".md", ".markdown", ".txt"):
                raise UsageError(f"-o {out.name}: write a .docx or a .md file")
            s.export_draft(draft, out, appendix=args.appendix)
        if args.json:
            emit_json({**draft_to_json(draft), **({"output": str(out)} if out else {})})
        elif out is None:
            sys.stdout.write(draft_markdown(draft, appendix=args.appendix))
        else:
            print(f"wrote {out} (draft {draft.id}; {draft.dropped_sentences} unsupported sentence(s) dropped)")
        return EXIT_OK


COMMANDS = {"matrix": cmd_matrix, "draft": cmd_draft}
