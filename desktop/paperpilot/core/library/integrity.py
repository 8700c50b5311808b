"""The library's integrity check and its repair (``paperpilot check``, Help ▸ Check Library…).

Modelled on Zotero's "Check Database Integrity": the database, the search index, the stored
copies with their sidecars, and the notes are compared with each other, and every disagreement
becomes a typed ``Problem``. ``repair`` fixes what can be fixed without losing anything:

* a missing or damaged database is set aside (renamed, never deleted) and the library rebuilt
  from the stored copies and their sidecars;
* a stored copy no document refers to is re-imported, or, when that fails, moved to the
  quarantine folder; a half-written ``.part`` copy is finished or removed (it is only ever
  written under the writer lock, which the check holds);
* a second document with the same content is merged into the first (its note is kept);
* the index is brought in line with the database; notes of documents that no longer exist
  are written to a Markdown file in the quarantine folder.

The check holds the writer lock (``Library.exclusive``), so a live writer's work in progress is
never mistaken for debris: another process's import waits while the check runs, and this
process's pending index work is committed first.
"""

from __future__ import annotations

import threading
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..clock import file_stamp
from ..errors import LibraryReadOnly
from ..models import ImportFailure
from ..text.messages import Message, msg
from .library import ImportReport, Library

# The check says where it is as a catalogued message (a window renders it in its language).
ProgressFn = Callable[[Message], None]


class Kind(StrEnum):
    DATABASE_DAMAGED = "database_damaged"
    HALF_REMOVED = "half_removed"
    PARTIAL_FILE = "partial_file"
    STORED_FILE_MISSING = "stored_file_missing"
    ORPHAN_FILE = "orphan_file"
    DUPLICATE = "duplicate"
    UNINDEXED = "unindexed"
    CHUNKS_NOT_INDEXED = "chunks_not_indexed"
    INDEX_ORPHANS = "index_orphans"
    ORPHAN_NOTE = "orphan_note"
    SIDECAR_OUTDATED = "sidecar_outdated"
    STALE_SIDECAR = "stale_sidecar"
    ORGANIZE_OUTDATED = "organize_outdated"
    VECTORS = "vectors"  # the vector store (retrieval by meaning): derived, repaired from the library


@dataclass(frozen=True)
class Problem:
    kind: Kind
    message: str
    fixable: bool
    doc_id: int | None = None
    path: str = ""  # relative to the library folder
    other: int | None = None  # DUPLICATE: the document it duplicates
    msg: Message | None = None  # ``message`` as a catalogued message

    @classmethod
    def said(cls, kind: Kind, message: Message, fixable: bool, **where: Any) -> Problem:
        return cls(kind, message.text(), fixable, msg=message, **where)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "message": self.message,
            "fixable": self.fixable,
            "doc_id": self.doc_id,
            "path": self.path or None,
        }


@dataclass
class Counts:
    documents: int = 0
    failed: int = 0
    chunks: int = 0
    index_entries: int = 0
    stored_files: int = 0
    notes: int = 0
    quarantined: int = 0

    def to_json(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class IntegrityReport:
    library_dir: str
    counts: Counts = field(default_factory=Counts)
    problems: list[Problem] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)  # what the repair did, one line each
    # The same lines as catalogued messages, where the repair wrote them (the library's own
    # notes about settling half-written copies stay words).
    repaired_msgs: list[Message | None] = field(default_factory=list)
    recovered: list[str] = field(default_factory=list)  # what opening the library already fixed
    read_only: bool = False

    @property
    def clean(self) -> bool:
        return not self.problems

    @property
    def fixable(self) -> int:
        return sum(1 for p in self.problems if p.fixable)

    def summary(self) -> str:
        return self.summary_msg().text()

    def summary_msg(self) -> Message:
        c = self.counts
        return msg("check.summary", documents=c.documents, chunks=c.chunks, index_entries=c.index_entries,
                   stored_files=c.stored_files, notes=c.notes)  # fmt: skip

    def to_json(self) -> dict[str, Any]:
        return {
            "library": self.library_dir,
            "clean": self.clean,
            "read_only": self.read_only,
            "counts": self.counts.to_json(),
            "problems": [p.to_json() for p in self.problems],
            "repaired": list(self.repaired),
            "recovered_on_open": list(self.recovered),
        }


def check_library(
    library: Library,
    *,
    repair: bool = False,
    progress: ProgressFn | None = None,
    cancel: threading.Event | None = None,
) -> IntegrityReport:
    """Check the library; with ``repair``, fix what can be fixed and check again.

    Raises LibraryReadOnly for a repair of a read-only library, LibraryBusy when another
    process keeps the writer lock, LibraryFull when the disk fills up during a repair.
    """
    say = progress or (lambda _msg: None)
    say(msg("progress.checking"))
    report = _check(library)
    if not repair or report.clean:
        return report
    if library.read_only:
        raise LibraryReadOnly(
            f"The library folder {library.paths.library_dir} is read-only: the check can report problems "
            "but not repair them."
        )
    done: list[Message | str] = []
    after = report
    # A second pass picks up what the first one uncovers (a rebuilt database leaves sidecars
    # of copies that could not be re-imported, for example).
    for _ in range(2):
        if library.damaged:
            _rebuild(library, done, say, cancel)
        else:
            with library.exclusive():
                problems = _scan(library, Counts())
                if not problems:
                    break
                _repair(library, problems, done, say, cancel)
        after = _check(library)
        if after.clean or not after.fixable or (cancel is not None and cancel.is_set()):
            break
    after.repaired = [str(line) for line in done]
    after.repaired_msgs = [line if isinstance(line, Message) else None for line in done]
    after.recovered = report.recovered
    return after


def _check(library: Library) -> IntegrityReport:
    report = IntegrityReport(library_dir=str(library.paths.library_dir), read_only=library.read_only)
    report.recovered = list(library.recovery_notes)
    if library.damaged:
        report.counts.stored_files = library.stored_copy_count()
        report.problems.append(Problem(Kind.DATABASE_DAMAGED, library.damaged, fixable=not library.read_only))
        return report
    with library.exclusive():
        report.problems = _scan(library, report.counts)
    return report


# --- the check ------------------------------------------------------------------------------------


def _scan(library: Library, counts: Counts) -> list[Problem]:
    store = library.store
    conn = store.conn
    problems: list[Problem] = []
    verdict = [str(r[0]) for r in conn.execute("PRAGMA quick_check").fetchall()]
    if verdict != ["ok"]:
        problems.append(
            Problem.said(
                Kind.DATABASE_DAMAGED, msg("check.database_damaged", why="; ".join(verdict[:3])), fixable=not library.read_only
            )
        )
        return problems
    rows = conn.execute(
        "SELECT id, sha256, stored_path, status, indexed, chunk_count, title, source_path, trashed FROM documents"
        " ORDER BY id"
    ).fetchall()
    # Trashed documents keep their rows, copies and sidecars but have no index entries.
    ready = [r for r in rows if r[3] == "ready"]
    live = [r for r in ready if not r[8]]
    counts.documents = len(live)
    counts.failed = sum(1 for r in rows if r[3] == "failed")
    counts.chunks = sum(int(r[5]) for r in live)
    counts.notes = int(conn.execute("SELECT COUNT(*) FROM notes").fetchone()[0])
    counts.quarantined = sum(1 for f in library.paths.quarantine_dir.rglob("*") if f.is_file())

    for r in rows:
        if r[3] == "deleting":
            problems.append(
                Problem.said(Kind.HALF_REMOVED, msg("check.half_removed", id=r[0], title=r[6]), True, doc_id=r[0])
            )

    first_by_sha: dict[str, int] = {}
    for r in ready:
        if not r[1]:
            continue
        if r[1] in first_by_sha:
            keep = first_by_sha[r[1]]
            problems.append(
                Problem.said(
                    Kind.DUPLICATE,
                    msg("check.duplicate", id=r[0], title=r[6], other=keep),
                    True,
                    doc_id=r[0],
                    other=keep,
                )
            )
        else:
            first_by_sha[r[1]] = r[0]

    on_disk = {rel for rel, _p in library.iter_stored_files()}
    parts = {rel for rel, _p in library.iter_stored_files(parts=True)}
    counts.stored_files = len(on_disk)
    wanted: dict[str, int] = {}
    for r in rows:
        if r[2] and r[3] in ("ready", "deleting"):
            wanted.setdefault(r[2], r[0])
    for r in ready:
        if r[2] and r[2] not in on_disk:
            fixable = (r[2] + ".part") in parts or bool(r[7] and Path(r[7]).is_file())
            problems.append(
                Problem.said(
                    Kind.STORED_FILE_MISSING,
                    msg("check.copy_missing" if fixable else "check.copy_gone", id=r[0], title=r[6], path=r[2]),
                    fixable,
                    doc_id=r[0],
                    path=r[2],
                )
            )
    for rel in sorted(on_disk - set(wanted)):
        problems.append(
            Problem.said(
                Kind.ORPHAN_FILE,
                msg("check.orphan_file", path=rel),
                True,
                path=rel,
            )
        )
    for rel in sorted(parts):
        problems.append(
            Problem.said(Kind.PARTIAL_FILE, msg("check.partial_file", path=rel), True, path=rel)
        )

    # The index against the database: every passage of an indexed document once, nothing else.
    entries = library.index.entries()
    counts.index_entries = len(entries)
    chunk_doc = {
        int(c): int(d)
        for c, d in conn.execute(
            "SELECT c.id, c.doc_id FROM chunks c JOIN documents d ON d.id = c.doc_id"
            " WHERE d.status='ready' AND d.trashed=''"
        )
    }
    indexed_docs = {int(r[0]) for r in live if r[4]}
    for r in live:
        if not r[4]:
            problems.append(
                Problem.said(Kind.UNINDEXED, msg("check.unindexed", id=r[0], title=r[6]), True, doc_id=r[0])
            )
    seen = Counter(c for c, _d in entries)
    missing: Counter[int] = Counter()
    for c, d in chunk_doc.items():
        if d in indexed_docs and c not in seen:
            missing[d] += 1
    titles = {int(r[0]): str(r[6]) for r in ready}
    for d, n in sorted(missing.items()):
        problems.append(
            Problem.said(
                Kind.CHUNKS_NOT_INDEXED,
                msg("check.chunks_not_indexed", id=d, title=titles.get(d, ""), n=n),
                True,
                doc_id=d,
            )
        )
    stray: dict[int, int] = defaultdict(int)
    for c, d in entries:
        if chunk_doc.get(c) != d or seen[c] > 1:
            stray[d] += 1
    for d, n in sorted(stray.items()):
        code = "check.index_orphans" + ("" if n > 1 else "_one") + ("" if d in titles else "_gone")
        said = msg(code, n=n, id=d, title=titles[d]) if d in titles else msg(code, n=n, id=d)
        problems.append(
            Problem.said(
                Kind.INDEX_ORPHANS,
                said,
                True,
                doc_id=d,
            )
        )

    for doc_id, title in conn.execute(
        "SELECT n.doc_id, COALESCE(d.title, '') FROM notes n LEFT JOIN documents d ON d.id = n.doc_id"
        " WHERE d.id IS NULL OR d.status != 'ready' ORDER BY n.doc_id"
    ):
        problems.append(
            Problem.said(
                Kind.ORPHAN_NOTE,
                msg("check.orphan_note", id=doc_id, title=title),
                True,
                doc_id=int(doc_id),
            )
        )

    # Sidecars: one per stored copy, in step with the database.
    for r in ready:
        if not r[2] or r[2] not in on_disk:
            continue
        expected = store.sidecar_data(int(r[0]))
        actual = library.read_sidecar(r[2])
        if expected is not None and (
            actual is None
            or {k: actual.get(k) for k in expected} != expected
            # Written only when the document is in one: a stale list must go too.
            or actual.get("collections", []) != expected.get("collections", [])
        ):
            problems.append(
                Problem.said(
                    Kind.SIDECAR_OUTDATED,
                    msg("check.sidecar_missing" if actual is None else "check.sidecar_outdated", id=r[0], title=r[6]),
                    True,
                    doc_id=r[0],
                    path=r[2],
                )
            )
    organization = library.organize_data()
    kept = library.read_organize_file()
    wanted_org = organization["collections"] or organization["tag_colors"]
    if (kept is not None or wanted_org) and {k: (kept or {}).get(k) for k in organization} != organization:
        problems.append(
            Problem.said(
                Kind.ORGANIZE_OUTDATED,
                msg("check.organize_missing" if kept is None else "check.organize_outdated"),
                True,
                path="meta/library.json",
            )
        )
    meta = library.paths.sidecar_dir
    if meta.is_dir():
        for f in sorted(meta.glob("*/*.json")):
            rel = f"files/{f.parent.name}/{f.name[: -len('.json')]}"
            if rel not in wanted and rel not in on_disk:
                problems.append(
                    Problem.said(
                        Kind.STALE_SIDECAR,
                        msg("check.stale_sidecar", path=f.relative_to(library.paths.library_dir).as_posix()),
                        True,
                        path=f.relative_to(library.paths.library_dir).as_posix(),
                    )
                )
    return problems


# --- the repair -----------------------------------------------------------------------------------


def _repair(
    library: Library, problems: list[Problem], done: list[Message | str], say: ProgressFn, cancel: threading.Event | None
) -> None:
    by_kind: dict[Kind, list[Problem]] = defaultdict(list)
    for p in problems:
        by_kind[p.kind].append(p)
    if by_kind.get(Kind.DATABASE_DAMAGED):
        _rebuild(library, done, say, cancel)
        return
    for p in by_kind.get(Kind.HALF_REMOVED, []):
        assert p.doc_id is not None
        library.finish_removal(p.doc_id)
        done.append(msg("repair.finished_removing", id=p.doc_id))
    if by_kind.get(Kind.PARTIAL_FILE) or by_kind.get(Kind.STORED_FILE_MISSING):
        done.extend(library.settle_part_files())
    for p in by_kind.get(Kind.STORED_FILE_MISSING, []):
        assert p.doc_id is not None
        if (library.paths.library_dir / p.path).exists():
            continue  # settled from its .part above
        if library.recopy_from_source(p.doc_id):
            done.append(msg("repair.copied_back", id=p.doc_id))
    for p in by_kind.get(Kind.DUPLICATE, []):
        assert p.doc_id is not None and p.other is not None
        library.merge_duplicate(p.doc_id, p.other)
        done.append(msg("repair.merged", id=p.doc_id, other=p.other))
    orphans = by_kind.get(Kind.ORPHAN_FILE, [])
    for i, p in enumerate(orphans, 1):
        if cancel is not None and cancel.is_set():
            done.append(msg("repair.cancelled"))
            break
        say(msg("progress.reimporting", i=i, n=len(orphans)))
        done.append(_restore(library, p.path))
    reindex = {
        p.doc_id
        for k in (Kind.UNINDEXED, Kind.CHUNKS_NOT_INDEXED, Kind.INDEX_ORPHANS)
        for p in by_kind.get(k, [])
        if p.doc_id is not None
    }
    if reindex:
        say(msg("progress.indexing"))
        n = library.reindex_documents(reindex)
        done.append(msg("repair.reindexed", documents=len(reindex), passages=n))
    notes = by_kind.get(Kind.ORPHAN_NOTE, [])
    if notes:
        done.append(_keep_orphan_notes(library, [p.doc_id for p in notes if p.doc_id is not None]))
    for p in by_kind.get(Kind.SIDECAR_OUTDATED, []):
        assert p.doc_id is not None
        library.write_sidecar(p.doc_id)
    if by_kind.get(Kind.SIDECAR_OUTDATED):
        done.append(msg("repair.sidecars", n=len(by_kind[Kind.SIDECAR_OUTDATED])))
    if by_kind.get(Kind.ORGANIZE_OUTDATED):
        library.write_organize_file()
        done.append(msg("repair.organize"))
    for p in by_kind.get(Kind.STALE_SIDECAR, []):
        dest = library.quarantine(library.paths.library_dir / p.path, "metadata of a stored file that is gone")
        done.append(msg("repair.moved", path=p.path, dest=dest.relative_to(library.paths.library_dir).as_posix()))


def _restore(library: Library, rel: str) -> Message:
    """Re-import one stored copy, or quarantine it; returns the line for the report."""
    scratch = ImportReport()
    try:
        doc_id = library.restore_stored_copy(rel, scratch)
    except (ImportFailure, OSError) as e:
        why = e.reason if isinstance(e, ImportFailure) else (e.strerror or str(e))
        dest = library.quarantine(library.paths.library_dir / rel, why)
        said: str | Message = e.msg if isinstance(e, ImportFailure) and e.msg is not None else why
        return msg("repair.moved_why", path=rel, dest=dest.relative_to(library.paths.library_dir).as_posix(), why=said)
    if doc_id is None:
        return msg("repair.already_there", path=rel)
    title = scratch.imported[0].title if scratch.imported else ""
    return msg("repair.reimported", path=rel, id=doc_id, title=title)


def _keep_orphan_notes(library: Library, doc_ids: list[int]) -> Message:
    rows = library.store.notes(doc_ids)
    out = library.paths.quarantine_dir / f"notes-{file_stamp()}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    body = "".join(f"## Note on document #{d} (saved {u})\n\n{t.strip()}\n\n" for d, t, u in rows)
    with library.storage_errors():
        out.write_text("# Notes of documents no longer in the library\n\n" + body, encoding="utf-8")
        library.store.delete_notes(doc_ids)
    return msg("repair.notes_kept", n=len(rows), path=out.relative_to(library.paths.library_dir).as_posix())


def _rebuild(library: Library, done: list[Message | str], say: ProgressFn, cancel: threading.Event | None) -> None:
    """Set the database aside and re-import every stored copy (with its sidecar)."""
    say(msg("progress.setting_aside"))
    aside = library.rebuild_database()
    if aside:
        done.append(msg("repair.set_aside", path=str(aside)))
    files = [rel for rel, _p in library.iter_stored_files()]
    restored = 0
    with library.exclusive():
        done.extend(library.settle_part_files())
        # The collection tree first (empty collections too); each copy's sidecar then files it.
        made, colours = library.restore_organization()
        if made or colours:
            done.append(msg("repair.organization_restored", collections=made, colours=colours))
        for i, rel in enumerate(files, 1):
            if cancel is not None and cancel.is_set():
                done.append(msg("repair.cancelled"))
                break
            say(msg("progress.reimporting", i=i, n=len(files)))
            line = _restore(library, rel)
            restored += line.code == "repair.reimported"
            done.append(line)
    done.append(msg("repair.rebuilt", restored=restored, n=len(files)))


__all__ = ["Counts", "IntegrityReport", "Kind", "Problem", "check_library"]
