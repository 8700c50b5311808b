"""The per-user library: SQLite (the source of truth), the Tantivy index derived from it, the
stored copies and their sidecars, one serialized writer, notes, and the integrity check.

The public API is re-exported here; ``library.Library`` is what the application layer opens.
"""

from .library import (
    ImportedDoc,
    ImportProgress,
    ImportReport,
    Library,
    LibraryBusy,
    LibraryDamaged,
    LibraryError,
)

__all__ = ["ImportProgress", "ImportReport", "ImportedDoc", "Library", "LibraryBusy", "LibraryDamaged", "LibraryError"]
