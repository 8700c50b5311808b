"""The metadata command: each field with its source, re-reading files, online lookups (when allowed)."""

from __future__ import annotations

import argparse

from ..core.api import DocumentInfo, MetadataUpdate
from ..core.app import Session
from .args import EXIT_ERROR, EXIT_OK, AddParser, UsageError, doc_id_type, emit_json, session

_SHOWN = ("title", "authors", "year", "container_title", "volume", "issue", "pages", "doi", "arxiv_id")


def add_parsers(add: AddParser) -> None:
    sp = add(
        "metadata",
        "show documents' metadata with the source of each field; re-read it from the file or retrieve it online",
    )
    sp.add_argument("doc_ids", type=doc_id_type, nargs="*", metavar="DOC_ID")
    sp.add_argument(
        "--reread",
        action="store_true",
        help="read the metadata again from each file (fields you edited or imported are kept)",
    )
    sp.add_argument(
        "--retrieve",
        action="store_true",
        help="fill the metadata from Crossref (DOI) or arXiv; needs --allow-lookups on (off by default)",
    )
    sp.add_argument("--needs-checking", action="store_true", help="only documents flagged 'check metadata'")
    sp.add_argument(
        "--allow-lookups", choices=("on", "off"), help="allow or forbid online metadata lookups (a setting)"
    )


def _values(s: Session, doc: DocumentInfo) -> dict[str, object]:
    item = s.metadata_item(doc.doc_id)
    return {
        "title": item.title,
        "authors": [n.display() for n in item.author],
        "year": item.year,
        "container_title": item.container_title,
        "volume": item.volume,
        "issue": item.issue,
        "pages": item.page,
        "doi": item.DOI,
        "arxiv_id": item.arxiv,
    }


def _update_json(u: MetadataUpdate) -> dict[str, object]:
    return {"doc_id": u.doc_id, "changed": u.changed, "kept": u.kept, **({"skipped": u.skipped} if u.skipped else {})}


def cmd_metadata(args: argparse.Namespace) -> int:
    if args.reread and args.retrieve:
        raise UsageError("use --reread or --retrieve, not both")
    s = session(args)
    try:
        if args.allow_lookups:
            s.set_online_lookups(args.allow_lookups == "on")
            if not args.json:
                state = "allowed" if args.allow_lookups == "on" else "off"
                print(f"Online metadata lookups are {state}.")
            if not (args.doc_ids or args.reread or args.retrieve or args.needs_checking):
                return EXIT_OK
        docs = list(s.library.list_documents())
        if args.doc_ids:
            wanted = list(dict.fromkeys(args.doc_ids))
            docs = [s.ready_document(i) for i in wanted]
        if args.needs_checking:
            docs = [d for d in docs if d.check_metadata]
        ids = [d.doc_id for d in docs]
        updates: list[MetadataUpdate] = []
        if args.reread:
            updates = s.reread_metadata(ids)
        elif args.retrieve:
            updates = s.retrieve_metadata(ids)
        docs = [s.ready_document(i) for i in ids]
        if args.json:
            emit_json(
                {
                    "documents": [
                        {
                            "doc_id": d.doc_id,
                            "metadata": _values(s, d),
                            "sources": d.metadata_sources,
                            "metadata_confidence": d.metadata_confidence,
                            "check_metadata": d.check_metadata,
                        }
                        for d in docs
                    ],
                    **({"updates": [_update_json(u) for u in updates]} if updates or args.reread or args.retrieve else {}),
                }
            )
            return EXIT_OK
        for u in updates:
            if u.skipped:
                print(f"skipped    #{u.doc_id}: {u.skipped}")
            else:
                kept = f"; kept {', '.join(u.kept)} (yours)" if u.kept else ""
                print(f"updated    #{u.doc_id}: {', '.join(u.changed) or 'nothing changed'}{kept}")
        if (args.reread or args.retrieve) and not args.doc_ids:
            return EXIT_OK
        if not docs:
            print("No documents." if not args.needs_checking else "No document needs checking.")
            return EXIT_OK
        for d in docs:
            conf = "unknown" if d.metadata_confidence is None else f"{d.metadata_confidence:.2f}"
            flag = "  ⚑ check metadata" if d.check_metadata else ""
            print(f"#{d.doc_id}  confidence {conf}{flag}")
            values = _values(s, d)
            for f in _SHOWN:
                v = values[f]
                if v in ("", [], None):
                    continue
                shown = "; ".join(str(x) for x in v) if isinstance(v, list) else str(v)
                src = d.metadata_sources.get(f, "unknown")
                print(f"  {f:<15} {shown}  [{src}]")
        return EXIT_OK if not any(u.skipped for u in updates) or not updates else EXIT_ERROR
    finally:
        s.close()


COMMANDS = {"metadata": cmd_metadata}
