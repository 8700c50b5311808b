"""Citation commands: cite (formatted references, in-text markers, file formats) and export."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ..core.api import CslItem, atomic_write_text, bibliography, export_text, get_style, parse_csl_json
from .args import EXIT_OK, AddParser, CliError, doc_id_type, emit_json, session, style_names


def add_cite_parser(add: AddParser) -> None:
    sp = add("cite", "format references for documents, or for the items of a CSL-JSON file")
    sp.add_argument("doc_ids", type=doc_id_type, nargs="*", metavar="DOC_ID")
    sp.add_argument("--style", help="citation style (default: from settings); one of: " + ", ".join(style_names()))
    sp.add_argument(
        "--format",
        dest="fmt",
        choices=["text", "html", "bibtex", "ris", "csl-json"],
        default="text",
        help="text (default) or html: one entry per line; bibtex, ris, csl-json: that file format",
    )
    sp.add_argument("--csl-json", metavar="FILE", help="cite the items of this CSL-JSON array instead of documents")
    sp.add_argument("--in-text", action="store_true", help="print the in-text citation marker instead")


def add_export_parser(add: AddParser) -> None:
    sp = add("export", "export references of documents (default: the whole library) as BibTeX, RIS or CSL-JSON")
    sp.add_argument("doc_ids", type=doc_id_type, nargs="*", metavar="DOC_ID")
    sp.add_argument("--format", dest="fmt", choices=["bibtex", "ris", "csl-json"], default="bibtex")
    sp.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")


def _read_csl_file(path: str) -> list[CslItem]:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise CliError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CliError(f"{path} cannot be read: {e}") from None
    parsed = parse_csl_json(text)
    for err in parsed.errors:
        print(f"warning: {path}:{err.line}: {err.message}", file=sys.stderr)
    if not parsed.items and parsed.errors:
        raise CliError(f"{path} holds no usable CSL-JSON item")
    return list(parsed.items)


def cmd_cite(args: argparse.Namespace) -> int:
    if args.csl_json and args.doc_ids:
        raise CliError("give document ids or --csl-json FILE, not both")
    if not args.csl_json and not args.doc_ids:
        raise CliError("nothing to cite: give one or more DOC_IDs, or --csl-json FILE")
    s = session(args)
    machine = args.fmt in ("bibtex", "ris", "csl-json")
    try:
        style = "" if machine and not args.in_text else s.style(args.style)
        ids: list[int | None]
        if args.csl_json:
            items = _read_csl_file(args.csl_json)
            ids = [None] * len(items)
        else:
            items = s.items(args.doc_ids)
            ids = list(args.doc_ids)
    finally:
        s.close()
    if args.in_text:
        marker = get_style(style).in_text(items, list(range(1, len(items) + 1)))
        if args.json:
            emit_json({"in_text": marker, "style": style})
        else:
            print(marker)
        return EXIT_OK
    if machine:
        content = export_text(items, args.fmt)
        if args.json:
            emit_json({"format": args.fmt, "content": content})
        else:
            sys.stdout.write(content if content.endswith("\n") else content + "\n")
        return EXIT_OK
    entries = bibliography(items, style)
    if args.json:
        emit_json(
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


def cmd_export(args: argparse.Namespace) -> int:
    with session(args) as s:
        content, count = s.export(args.doc_ids or None, args.fmt)
    if args.output:
        out = Path(args.output)
        try:
            atomic_write_text(out, content)
        except OSError as e:
            raise CliError(f"cannot write {out}: {e.strerror or e}") from None
        if args.json:
            emit_json({"format": args.fmt, "count": count, "path": str(out.resolve())})
        else:
            print(f"Wrote {count} reference(s) to {out} ({args.fmt}).", file=sys.stderr)
        return EXIT_OK
    if args.json:
        emit_json({"format": args.fmt, "count": count, "content": content})
    else:
        sys.stdout.write(content if content.endswith("\n") or not content else content + "\n")
    return EXIT_OK


COMMANDS = {"cite": cmd_cite, "export": cmd_export}
