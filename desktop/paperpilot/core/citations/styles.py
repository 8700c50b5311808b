"""The style registry: every reference style renders an item to plain text and to HTML."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ..errors import InvalidInput
from .model import CslItem


@dataclass(frozen=True)
class Rendered:
    text: str  # plain text, exactly what a style manual prints (no leading label)
    html: str  # the same with <i>…</i> where the style italicises; HTML-escaped


class Style(Protocol):
    name: str  # e.g. "apa", "gbt7714-2015-numeric"
    label: str  # for menus: "APA 7th edition"
    numeric: bool  # references are numbered [1], [2] … in citation order

    def entry(self, item: CslItem) -> Rendered:
        """The bibliography entry for one item, without its number/label."""
        ...

    def in_text(self, items: Sequence[CslItem], numbers: Sequence[int]) -> str:
        """The in-text marker citing ``items`` (numbers are their positions, 1-based)."""
        ...


STYLES: dict[str, Style] = {}
STYLE_NAMES = (
    "gbt7714-2015-numeric",
    "gbt7714-2015-author-date",
    "apa",
    "mla",
    "ieee",
    "chicago-author-date",
)


def register(style: Style) -> Style:
    STYLES[style.name] = style
    return style


def get_style(name: str) -> Style:
    _load_builtin()
    try:
        return STYLES[name]
    except KeyError:
        raise InvalidInput(f"unknown citation style {name!r}; choose one of {', '.join(STYLE_NAMES)}") from None


def bibliography(items: Sequence[CslItem], style_name: str) -> list[Rendered]:
    """Entries in the given order; numeric styles prefix "[n] " (the list is the numbering)."""
    style = get_style(style_name)
    # A style that needs the whole list (author-date year suffixes: 2024a, 2024b) renders it
    # at once; the others entry by entry.
    whole = getattr(style, "entries", None)
    rendered = list(whole(list(items))) if callable(whole) else [style.entry(item) for item in items]
    out = []
    for n, r in enumerate(rendered, 1):
        if style.numeric:
            r = Rendered(f"[{n}] {r.text}", f"[{n}] {r.html}")
        out.append(r)
    return out


def sort_key(item: CslItem) -> tuple[str, int, str]:
    """Where an item goes in an author-date reference list: first author, then year, then title.

    Author-date styles (APA, MLA, Chicago, GB/T author-date) list references alphabetically by
    first author (by title when there is none), oldest first for the same author.
    """
    first = item.author[0] if item.author else None
    name = (first.literal or first.family or first.given) if first is not None else ""
    return ((name or item.title).casefold(), item.year or 0, item.title.casefold())


def in_list_order(items: Sequence[CslItem], style_name: str) -> list[CslItem]:
    """Items in reference-list order: as given (citation order) for numeric styles, else sorted."""
    if get_style(style_name).numeric:
        return list(items)
    return sorted(items, key=sort_key)


def _load_builtin() -> None:
    if len(STYLES) >= len(STYLE_NAMES):
        return
    # Importing the style modules registers them.
    from . import gbt7714, western  # noqa: F401
