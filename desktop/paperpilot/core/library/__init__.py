"""The per-user library: SQLite (the source of truth), the Tantivy index derived from it, the
stored copies and their sidecars, one serialized writer, notes, and the integrity check.

The public API is re-exported here; ``Library`` is what the application layer opens, and
``Library.writing()`` is the one way to change it.
"""

from ..errors import LibraryBusy, LibraryDamaged, LibraryError, LibraryFull, LibraryReadOnly
from .library import ImportedDoc, ImportProgress, ImportReport, Library, LibraryWriter, LinkedReference

__all__ = [
    "ImportProgress",
    "ImportReport",
    "ImportedDoc",
    "Library",
    "LibraryBusy",
    "LibraryDamaged",
    "LibraryError",
    "LibraryFull",
    "LibraryReadOnly",
    "LibraryWriter",
    "LinkedReference",
]
