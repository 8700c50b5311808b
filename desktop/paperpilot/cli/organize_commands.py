"""Organizing commands: tag, collection, restore, trash (the trash that remove moves to), undo."""

from __future__ import annotations

import argparse

from ..core.api import Collection, DocumentInfo
from .args import EXIT_OK, AddParser, UsageError, common, doc_id_type, emit_json, session


def add_parsers(add: AddParser) -> None:
    """tag, collection, restore, trash."""
    sp = add("tag", "add or remove tags on documents (all of them, or none when an id is wrong)")
    sp.add_argument("doc_ids", type=doc_id_type, nargs="+", metavar="DOC_ID")
    sp.add_argument("--add", action="append", default=[], metavar="TAG", help="add this tag (repeatable)")
    sp.add_argument("--remove", action="append", default=[], metavar="TAG", help="remove this tag (repeatable)")
    sp = add("collection", "collections of documents: add documents to one (made when missing), list them")
    csub = sp.add_subparsers(dest="collection_command", metavar="ACTION")
    csub.required = True
    cp = csub.add_parser("add", help="put documents into a collection; NAME may be nested: Parent/Child")
    cp.add_argument("name", metavar="NAME")
    cp.add_argument("doc_ids", type=doc_id_type, nargs="*", metavar="DOC_ID")
    cp = csub.add_parser("remove", help="take documents out of a collection (they stay in the library)")
    cp.add_argument("name", metavar="NAME")
    cp.add_argument("doc_ids", type=doc_id_type, nargs="+", metavar="DOC_ID")
    csub.add_parser("list", help="list the collections with their number of documents")
    cp = csub.add_parser("delete", help="delete a collection and its sub-collections (the documents stay)")
    cp.add_argument("name", metavar="NAME")
    cp = csub.add_parser("rename", help="rename a collection")
    cp.add_argument("name", metavar="NAME")
    cp.add_argument("new_name", metavar="NEW_NAME")
    for p in csub.choices.values():
        common(p, top=False)
    sp = add("restore", "take documents out of the trash; they are searchable again at once")
    sp.add_argument("doc_ids", type=doc_id_type, nargs="+", metavar="DOC_ID")
    sp = add("trash", "list the trash, or empty it (the only command that deletes documents for good)")
    sp.add_argument("--empty", action="store_true", help="delete every document in the trash for good")
    sp = add(
        "undo",
        "undo the library's last removal, tag, collection or metadata edit, made here or in the window "
        "(its Edit ▸ Undo), also after a restart",
    )
    sp.add_argument("--list", action="store_true", help="list what can be undone, newest first, and change nothing")


def _brief(d: DocumentInfo) -> dict[str, object]:
    return {"doc_id": d.doc_id, "title": d.title}


def cmd_tag(args: argparse.Namespace) -> int:
    if not args.add and not args.remove:
        raise UsageError("say what to do: --add TAG and / or --remove TAG")
    with session(args) as s:
        changed = s.tag(args.doc_ids, args.add, args.remove)
        docs = [s.library.document(i) for i in dict.fromkeys(args.doc_ids)]
    changed_ids = {d.doc_id for d in changed}
    if args.json:
        emit_json(
            {
                "tagged": [{**_brief(d), "tags": d.tags} for d in changed],
                "unchanged": [d.doc_id for d in docs if d is not None and d.doc_id not in changed_ids],
            }
        )
        return EXIT_OK
    for d in docs:
        if d is None:
            continue
        what = "tagged   " if d.doc_id in changed_ids else "unchanged"
        print(f"{what} #{d.doc_id}  {d.title}  [{', '.join(d.tags) or 'no tags'}]")
    return EXIT_OK


def _flat(c: Collection, depth: int) -> dict[str, object]:
    return {
        "collection_id": c.collection_id,
        "name": c.name,
        "path": c.path,
        "parent_id": c.parent_id,
        "depth": depth,
        "count": len(c.doc_ids),
        "count_with_subcollections": len(c.all_doc_ids()),
        "doc_ids": sorted(c.doc_ids),
    }


def cmd_collection(args: argparse.Namespace) -> int:
    action = args.collection_command
    as_json = bool(args.json)
    with session(args) as s:
        if action == "add":
            cid, added = s.collection_add(args.name, args.doc_ids)
            c = s.collections().by_id[cid]
            out: dict[str, object] = {
                "collection": _flat(c, c.path.count("/")),
                "added": added,
                "already": [i for i in dict.fromkeys(args.doc_ids) if i not in added],
            }
            line = f"{c.path}: added {len(added)} document(s); it holds {len(c.doc_ids)}"
        elif action == "remove":
            gone = s.collection_remove(args.name, args.doc_ids)
            c = s.collections().get(args.name)
            out = {"collection": _flat(c, c.path.count("/")), "removed": gone}
            line = f"{c.path}: took out {len(gone)} document(s); it holds {len(c.doc_ids)}"
        elif action == "delete":
            path = s.collections().get(args.name).path
            cid = s.collection_delete(args.name)
            out = {"deleted": {"collection_id": cid, "path": path}}
            line = f"deleted the collection {path} (its documents stay in the library)"
        elif action == "rename":
            cid = s.collection_rename(args.name, args.new_name)
            c = s.collections().by_id[cid]
            out = {"collection": _flat(c, c.path.count("/"))}
            line = f"renamed to {c.path}"
        else:
            tree = s.collections()
            flat = [_flat(c, c.path.count("/")) for c in tree.walk()]
            if as_json:
                emit_json({"collections": flat})
                return EXIT_OK
            if not flat:
                print("No collections yet. Make one with: paperpilot collection add NAME DOC_ID...")
                return EXIT_OK
            for c in tree.walk():
                # The number `list --collection` shows: sub-collections included.
                inner = len(c.all_doc_ids())
                print(f"{'  ' * c.path.count('/')}{c.name}  ({inner})")
            return EXIT_OK
    if as_json:
        emit_json(out)
    else:
        print(line)
    return EXIT_OK


def cmd_restore(args: argparse.Namespace) -> int:
    with session(args) as s:
        back = s.restore(args.doc_ids)
    if args.json:
        emit_json({"restored": [_brief(d) for d in back]})
    else:
        for d in back:
            print(f"restored #{d.doc_id}  {d.title}")
    return EXIT_OK


def cmd_trash(args: argparse.Namespace) -> int:
    with session(args) as s:
        if args.empty:
            gone = s.empty_trash()
            if args.json:
                emit_json({"deleted": [_brief(d) for d in gone]})
            elif not gone:
                print("The trash is empty.")
            else:
                for d in gone:
                    print(f"deleted  #{d.doc_id}  {d.title}")
                print(f"\nDeleted {len(gone)} document(s) for good.")
            return EXIT_OK
        docs = s.documents(trash=True)
    if args.json:
        emit_json({"trash": [{**_brief(d), "trashed": d.trashed} for d in docs]})
    elif not docs:
        print("The trash is empty.")
    else:
        for d in docs:
            print(f"#{d.doc_id}  {d.title}  (trashed {d.trashed[:10]})")
        print("\nRestore with: paperpilot restore DOC_ID...   Delete for good with: paperpilot trash --empty")
    return EXIT_OK


def cmd_undo(args: argparse.Namespace) -> int:
    with session(args) as s:
        if args.list:
            entries = s.undo_stack.entries()
            if args.json:
                emit_json({"undo": [e.to_json() for e in entries]})
            elif not entries:
                print("Nothing to undo.")
            else:
                for e in entries:
                    print(f"{e.created[:19].replace('T', ' ')}  {e.label}")
            return EXIT_OK
        done = s.undo()
    if args.json:
        emit_json({"undone": done or None})
    else:
        print(f"undone: {done}" if done else "Nothing to undo.")
    return EXIT_OK


COMMANDS = {"tag": cmd_tag, "collection": cmd_collection, "restore": cmd_restore, "trash": cmd_trash, "undo": cmd_undo}
