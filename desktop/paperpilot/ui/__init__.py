"""The PySide6 desktop application: windows, panes, Qt item models and thread workers."""

from .qtcompat import guard_singleton_refcounts

# Before anything in this package calls Qt: PySide6 6.12 on Python 3.11 would otherwise abort
# the process after a few thousand Qt calls (see qtcompat).
guard_singleton_refcounts()
