"""Memory commands: saved conversations, the research profile, and notes on documents."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..core.api import atomic_write_text, set_profile_value
from .args import (
    EXIT_OK,
    AddParser,
    CliError,
    doc_id_type,
    emit_json,
    library,
    profile_keys,
    session,
    table,
    width,
)


def add_conversations_parser(add: AddParser) -> None:
    sp = add("conversations", "list, search, export, rename or delete saved conversations")
    sp.add_argument("--search", metavar="TEXT", help="only conversations whose title, questions or answers hold TEXT")
    sp.add_argument("--export", metavar="ID", help="print conversation ID as Markdown (with formatted references)")
    sp.add_argument("-o", "--output", metavar="FILE", help="with --export: write the Markdown to FILE")
    sp.add_argument("--style", help="with --export: citation style (default: the one `cite` uses)")
    sp.add_argument("--delete", metavar="ID", help="delete conversation ID")
    sp.add_argument("--rename", nargs=2, metavar=("ID", "TITLE"), help="rename conversation ID")


def add_profile_parser(add: AddParser) -> None:
    sp = add("profile", "show or change the research profile (fields, keywords, answer language …)")
    sp.add_argument("action", choices=["show", "set"])
    sp.add_argument("key", nargs="?", help="with set: " + ", ".join(profile_keys()))
    sp.add_argument("value", nargs="?", help="with set: lists comma-separated; keywords as term=syn1,syn2")


def add_notes_parser(add: AddParser) -> None:
    sp = add("notes", "show or set the Markdown note on a document, or search the notes")
    sp.add_argument("doc_id", type=doc_id_type, nargs="?", metavar="DOC_ID")
    sp.add_argument("--set", dest="set_text", metavar="TEXT", help="replace the note with TEXT ('' deletes it)")
    sp.add_argument("--search", metavar="TEXT", help="search every note for TEXT")


def cmd_conversations(args: argparse.Namespace) -> int:
    s = session(args)
    store = s.conversations
    try:
        if args.delete:
            store.delete(args.delete)
            if args.json:
                emit_json({"deleted": args.delete})
            else:
                print(f"deleted conversation {args.delete}")
            return EXIT_OK
        if args.rename:
            cid, title = args.rename
            store.rename(cid, title)
            conv = store.get(cid)
            assert conv is not None
            if args.json:
                emit_json({"id": conv.id, "title": conv.title})
            else:
                print(f"renamed {conv.id}: {conv.title}")
            return EXIT_OK
        if args.export:
            style = s.style(args.style)
            md = s.export_conversation(args.export, style)
            if args.output:
                out = Path(args.output)
                try:
                    atomic_write_text(out, md)
                except OSError as e:
                    raise CliError(f"cannot write {out}: {e.strerror or e}") from None
                if args.json:
                    emit_json({"id": args.export, "path": str(out.resolve()), "style": style})
                else:
                    print(f"Wrote conversation {args.export} to {out}.", file=sys.stderr)
            elif args.json:
                emit_json({"id": args.export, "markdown": md, "style": style})
            else:
                sys.stdout.write(md)
            return EXIT_OK
        convs = store.list(args.search)
    finally:
        s.close()
    if args.json:
        emit_json({"conversations": [c.to_json() for c in convs]})
        return EXIT_OK
    if not convs:
        print("No conversations." if not args.search else f"No conversation mentions {args.search!r}.")
        return EXIT_OK
    w = width()
    rows = [[c.id, c.title, str(c.turns), c.updated[:16].replace("T", " ")] for c in convs]
    print(table(rows, ["ID", "TITLE", "TURNS", "UPDATED"], [12, max(20, w - 40), 5, 16]))
    return EXIT_OK


def cmd_profile(args: argparse.Namespace) -> int:
    s = session(args)
    profile = s.profile
    if args.action == "set":
        if args.key is None or args.value is None:
            raise CliError("usage: paperpilot profile set KEY VALUE")
        profile = set_profile_value(profile, args.key, args.value)
        try:
            s.save_profile(profile)
        except OSError as e:
            raise CliError(f"cannot save the research profile: {e.strerror or e}") from None
    elif args.key is not None:
        raise CliError("usage: paperpilot profile show")
    data = profile.model_dump(mode="json")
    if args.json:
        emit_json(data)
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
    if args.search is not None:
        with library(args) as lib:
            hits = lib.search_notes(args.search)
        if args.json:
            emit_json({"notes": [{"doc_id": h.doc_id, "title": h.title, "snippet": h.snippet} for h in hits]})
        else:
            for h in hits:
                print(f"#{h.doc_id}  {h.title}\n   {h.snippet}")
            if not hits:
                print(f"No note mentions {args.search!r}.")
        return EXIT_OK
    if args.doc_id is None:
        raise CliError("give a DOC_ID (or --search TEXT)")
    with session(args) as s:
        doc = s.ready_document(args.doc_id)
        lib = s.library
        if args.set_text is not None:
            s.set_note(args.doc_id, args.set_text)
        text = lib.get_note(args.doc_id)
        updated = lib.note_updated(args.doc_id)
    if args.json:
        emit_json({"doc_id": args.doc_id, "title": doc.title, "text": text, "updated": updated})
        return EXIT_OK
    if args.set_text is not None:
        print(f"saved the note on #{args.doc_id} ({doc.title})." if text else f"deleted the note on #{args.doc_id}.",
              file=sys.stderr)  # fmt: skip
    if text:
        print(text)
    elif args.set_text is None:
        print(f"No note on #{args.doc_id} ({doc.title}). Add one with: paperpilot notes {args.doc_id} --set TEXT")
    return EXIT_OK


COMMANDS = {"conversations": cmd_conversations, "profile": cmd_profile, "notes": cmd_notes}
