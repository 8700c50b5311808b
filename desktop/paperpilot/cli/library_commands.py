"""Library commands: import, list, search, read, refs, remove, reindex."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import time

from ..core.api import ALL_KINDS, DocumentInfo, Hit, ImportProgress, parse_kinds
from ..core.errors import PaperPilotError
from .args import (
    EXIT_ERROR,
    EXIT_OK,
    MAX_HITS,
    AddParser,
    UsageError,
    authors,
    doc_id_type,
    emit_json,
    hits_type,
    library,
    segment_type,
    session,
    shown,
    table,
    width,
    year_type,
)


def add_parsers(add: AddParser) -> None:
    """import, list, search, read, remove, reindex."""
    sp = add(
        "import",
        "import PDF, text, Markdown and JSONL corpus files or folders, and .bib / .ris / CSL-JSON bibliographies",
    )
    sp.add_argument("paths", nargs="+", metavar="PATH")
    sp = add("list", "list the documents in the library (or in the trash)")
    sp.add_argument("--tag", metavar="TAG", help="only documents with this tag")
    sp.add_argument("--collection", metavar="NAME", help="only documents in this collection (or its sub-collections)")
    sp.add_argument("--trash", action="store_true", help="list the trash instead")
    sp = add("search", "full-text search over the library")
    sp.add_argument("query", nargs="+")
    sp.add_argument("-k", type=hits_type, default=5, help=f"number of hits, 1 to {MAX_HITS} (default 5)")
    sp.add_argument(
        "--doc",
        type=doc_id_type,
        action="append",
        dest="doc_ids",
        metavar="DOC_ID",
        help="only these documents",
    )
    sp.add_argument("--year-from", type=year_type)
    sp.add_argument("--year-to", type=year_type)
    sp.add_argument(
        "--kind",
        type=kinds_type,
        action="append",
        dest="kinds",
        metavar="KIND",
        help=f"only passages of these kinds (repeat or comma-separate): {', '.join(k.value for k in ALL_KINDS)}",
    )
    sp.add_argument(
        "--mode",
        choices=("keyword", "meaning", "hybrid"),
        default=None,
        help="keyword (full text), meaning (embeddings) or hybrid (both); default: hybrid once the library "
        "is embedded (paperpilot index --semantic), else keyword",
    )
    sp = add("refs", "the reference list of a document, entries linked to documents in the library")
    sp.add_argument("doc_id", type=doc_id_type)
    sp.add_argument(
        "--cited-by", action="store_true", help="instead: the documents in the library that cite it"
    )
    sp = add("read", "print one segment (chunk) of a document")
    sp.add_argument("doc_id", type=doc_id_type)
    sp.add_argument("segment", type=segment_type)
    sp = add(
        "remove",
        "move documents to the trash (all of them, or none when an id is wrong; see restore and trash --empty)",
    )
    sp.add_argument("doc_ids", type=doc_id_type, nargs="+", metavar="DOC_ID")
    add("reindex", "rebuild the search index from the library database")
    sp = add("index", "build the library's indexes: --semantic embeds the passages not embedded yet (resumable)")
    sp.add_argument(
        "--semantic", action="store_true", help="embed what is missing for search by meaning (Ctrl+C stops; run again to go on)"
    )
    sp.add_argument("--threads", type=threads_type, default=None, metavar="N", help="cores the bundled model uses")
    sp.add_argument("--batch-size", type=threads_type, default=None, metavar="N", help="passages per batch")


def cmd_import(args: argparse.Namespace) -> int:
    s = session(args)
    try:
        tty = sys.stderr.isatty() and not args.json

        def progress(p: ImportProgress) -> None:
            if tty:
                name = os.path.basename(p.path)
                step = f" · {p.detail}" if p.detail else ""  # "OCR page 3 of 12"
                print(f"\r\x1b[K[{p.index}/{p.total}] {name[:60]}{step}", end="", file=sys.stderr, flush=True)

        report = s.import_paths(args.paths, progress=progress)
        if tty:
            print("\r\x1b[K", end="", file=sys.stderr)
    finally:
        s.close()
    if args.json:
        emit_json(report.to_json())
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
    with session(args) as s:
        docs = s.documents(tag=args.tag, collection=args.collection, trash=args.trash)
        tree = s.collections()
    if args.json:
        emit_json(
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
                        "tags": d.tags,
                        "collections": tree.paths_of(d.doc_id),
                        **({"trashed": d.trashed} if d.trashed else {}),
                        "metadata_confidence": d.metadata_confidence,
                        "check_metadata": d.check_metadata,
                        **({"error": d.error} if d.error else {}),
                    }
                    for d in docs
                ]
            }
        )
        return EXIT_OK
    if not docs:
        if args.trash:
            print("The trash is empty.")
        elif args.tag or args.collection:
            print("No documents match.")
        else:
            print("The library is empty. Add papers with: paperpilot import FILE_OR_FOLDER")
        return EXIT_OK
    rows = [
        [
            str(d.doc_id),
            f"{d.title} — {d.error}" if d.status == "failed" else d.title,
            authors(d.authors),
            str(d.year or ""),
            str(d.pages),
            str(d.chunks),
            d.status,
        ]
        for d in docs
    ]
    w = width()
    print(
        table(
            rows,
            ["ID", "TITLE", "AUTHORS", "YEAR", "PAGES", "CHUNKS", "STATUS"],
            [6, max(20, w - 63), 24, 4, 5, 6, 7],  # "trashed" whole
        )
    )
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    query = " ".join(args.query)
    if not query.strip():
        raise UsageError("the search query is empty; give one or more words")
    with session(args) as ses:
        if args.mode in ("meaning", "hybrid") and not ses.has_vectors():
            # Asked by meaning with nothing embedded: say how it was searched instead.
            print("paperpilot: nothing is embedded yet, so this is a keyword search "
                  "(paperpilot index --semantic embeds the library)", file=sys.stderr)  # fmt: skip
        kinds = [k for group in args.kinds for k in group] if args.kinds else None
        hits = ses.library.search(
            query, args.k, doc_ids=args.doc_ids, year_from=args.year_from, year_to=args.year_to, kinds=kinds,
            mode=args.mode,
        )  # fmt: skip
    if args.json:
        emit_json(
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
                        "kind": h.kind,
                        "section_path": h.section_path,
                        "found_by": h.found_by,
                        "bm25": h.bm25,
                        "dense": h.dense,
                        "fused": h.fused,
                    }
                    for h in hits
                ]
            }
        )
        return EXIT_OK
    if not hits:
        said = query if len(query) <= 80 else query[:77] + "…"
        print(f"No passages match {shown(said)!r}.")
        return EXIT_OK
    w = width()
    for i, h in enumerate(hits, 1):
        where = f"p. {h.page}" + (f" · {h.section_path or h.section}" if h.section_path or h.section else "")
        where += f" · {h.kind}" if h.kind else ""
        print(f"{i}. {h.title}  [doc {h.doc_id}, segment {h.seq}, {where}]  {hit_scores(h)}")
        print(textwrap.fill(h.snippet, w, initial_indent="   ", subsequent_indent="   "))
        print()
    return EXIT_OK


def hit_scores(h: Hit) -> str:
    """Which search found the hit and its scores: "keyword 7.31", "meaning 0.842",
    "both: bm25 7.31 · cosine 0.842 · fused 0.0625"."""
    parts = ([f"bm25 {h.bm25:.2f}"] if h.bm25 is not None else []) + (
        [f"cosine {h.dense:.3f}"] if h.dense is not None else []
    )
    if h.fused is not None:
        return f"{h.found_by}: " + " · ".join([*parts, f"fused {h.fused:.4f}"])
    return f"{h.found_by} " + (f"{h.score:.3f}" if h.found_by == "meaning" else f"{h.score:.2f}")


def cmd_index(args: argparse.Namespace) -> int:
    if not args.semantic:
        raise UsageError("say what to build: paperpilot index --semantic (the full-text index: paperpilot reindex)")
    tty = sys.stderr.isatty() and not args.json
    started = time.monotonic()
    first: list[int] = []

    def progress(done: int, total: int) -> None:
        if not first:
            first.append(done)
        rate = (done - first[0]) / max(1e-9, time.monotonic() - started)
        if tty:
            bar = int(30 * done / total) if total else 30
            print(f"\r\x1b[KEmbedding [{'#' * bar}{'.' * (30 - bar)}] {done}/{total}  {rate:.1f} passages/s",
                  end="", file=sys.stderr, flush=True)  # fmt: skip
        elif not args.json:
            print(f"embedded {done}/{total}", file=sys.stderr, flush=True)

    with session(args) as s:
        try:
            result = s.embed_library(threads=args.threads, batch_size=args.batch_size, progress=progress)
        except KeyboardInterrupt:
            if tty:
                print(file=sys.stderr)
            print("Stopped; what was embedded is kept: run `paperpilot index --semantic` again to go on.", file=sys.stderr)
            return 130
        finally:
            if tty:
                print(file=sys.stderr)
    seconds = time.monotonic() - started
    if args.json:
        emit_json(
            {
                "total": result.total, "embedded": result.embedded, "done": result.done,
                "skipped": result.skipped, "removed": result.removed, "seconds": round(seconds, 2),
                "complete": result.done == result.total,
            }
        )  # fmt: skip
        return EXIT_OK
    print(
        f"Embedded {result.embedded} passage(s) in {seconds:.1f} s; {result.done} of {result.total} "
        f"searchable by meaning ({result.skipped} references, boilerplate or figure residue skipped)."
    )
    return EXIT_OK


def threads_type(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 1 <= n <= 256:
        raise argparse.ArgumentTypeError("give a number from 1 to 256")
    return n


def cmd_read(args: argparse.Namespace) -> int:
    with library(args) as lib:
        p = lib.read(args.doc_id, args.segment)
    if args.json:
        emit_json(
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
                "ocr": p.ocr,
                "kind": p.kind,
                "section_path": p.section_path,
            }
        )
        return EXIT_OK
    ocr = " · text from OCR" if p.ocr else ""
    print(f"{p.title}\nsegment {p.seq} · page {p.page}" + (f" · {p.section}" if p.section else "") + ocr)
    print()
    print(textwrap.fill(p.text, width()))
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
    # #5 and then an error. A repeated id is removed once. Documents go to the trash
    # ("trashed"); "removed" lists every document gone from the library's list, the trashed
    # ones and failed imports (which are deleted: they hold nothing but their reason).
    removed: list[dict[str, object]] = []
    trashed: list[dict[str, object]] = []

    def on_removed(d: DocumentInfo) -> None:
        removed.append({"doc_id": d.doc_id, "title": d.title})
        if d.status == "ready":
            trashed.append({"doc_id": d.doc_id, "title": d.title})

    try:
        with session(args) as s:
            s.remove(args.doc_ids, on_removed)
    except PaperPilotError as e:
        if args.json:
            emit_json({"trashed": trashed, "removed": removed, "error": str(e)})
        raise
    if args.json:
        emit_json({"trashed": trashed, "removed": removed})
    else:
        moved = {int(str(r["doc_id"])) for r in trashed}
        for r in removed:
            what = "moved to the trash" if r["doc_id"] in moved else "removed"
            print(f"{what} #{r['doc_id']}  {r['title']}")
        if trashed:
            ids = " ".join(str(r["doc_id"]) for r in trashed)
            print(f"\nRestore with: paperpilot restore {ids}")
    return EXIT_OK


def cmd_reindex(args: argparse.Namespace) -> int:
    with library(args) as lib:
        n = lib.reindex()
        docs, _chunks = lib.counts()
    if args.json:
        emit_json({"documents": docs, "chunks": n})
    else:
        print(f"Rebuilt the search index: {docs} documents, {n} chunks.")
    return EXIT_OK


def kinds_type(text: str) -> list[str]:
    try:
        return [k.value for k in parse_kinds(text)]
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def cmd_refs(args: argparse.Namespace) -> int:
    with session(args) as s:
        if args.cited_by:
            doc = s.ready_document(args.doc_id)
            citing = s.cited_by(args.doc_id)
            if args.json:
                emit_json(
                    {
                        "doc_id": doc.doc_id,
                        "cited_by": [{"doc_id": d.doc_id, "title": d.title, "year": d.year} for d in citing],
                    }
                )
                return EXIT_OK
            if not citing:
                print(f"No document in the library cites #{doc.doc_id} {doc.title!r}.")
                return EXIT_OK
            print(f"Cited by {len(citing)} document(s) in the library:")
            for d in citing:
                print(f"  #{d.doc_id}  {d.title}" + (f" ({d.year})" if d.year else ""))
            return EXIT_OK
        doc = s.ready_document(args.doc_id)
        refs = s.reference_list(args.doc_id)
    if args.json:
        emit_json({"doc_id": doc.doc_id, "references": [r.to_json() for r in refs]})
        return EXIT_OK
    if not refs:
        print(f"No reference list was found in #{doc.doc_id} {doc.title!r}.")
        return EXIT_OK
    w = width()
    print(f"{len(refs)} references in #{doc.doc_id} {doc.title}:")
    for i, lr in enumerate(refs, 1):
        r = lr.reference
        label = f"[{r.label}]" if r.label else f"{i}."
        link = f"  → in library: #{lr.doc_id}" if lr.doc_id is not None else ""
        print(textwrap.fill(f"{label} {r.text}", w, subsequent_indent="    ") + link)
    return EXIT_OK


COMMANDS = {
    "refs": cmd_refs,
    "import": cmd_import,
    "list": cmd_list,
    "search": cmd_search,
    "read": cmd_read,
    "remove": cmd_remove,
    "reindex": cmd_reindex,
    "index": cmd_index,
}
