"""The kind of a passage (prose, references, boilerplate …) as the workflows see it: one function.

The import pipeline is learning to store a kind per chunk (the names of ``text.kinds.Kind``);
when a passage or hit carries one (``kind``), it is used as stored, otherwise the classifier
decides from the text and the section heading. Every workflow asks here, so switching to the
stored kind is this one place.
"""

from __future__ import annotations

from typing import Protocol

from ..text.kinds import Kind, classify_passage


class _HasText(Protocol):
    section: str


def stored_kind(obj: object) -> Kind | None:
    value = getattr(obj, "kind", None)
    if isinstance(value, str) and value:
        try:
            return Kind(value)
        except ValueError:
            return None
    return None


def passage_kind(obj: _HasText) -> Kind:
    """The kind of a read passage (a ``Passage`` or ``PassageView``)."""
    k = stored_kind(obj)
    if k is not None:
        return k
    return classify_passage(str(getattr(obj, "text", "")), obj.section)


def hit_kind(obj: _HasText) -> Kind:
    """The kind of a search hit: stored, or judged from its snippet and section."""
    k = stored_kind(obj)
    if k is not None:
        return k
    return classify_passage(str(getattr(obj, "snippet", "")), obj.section)
