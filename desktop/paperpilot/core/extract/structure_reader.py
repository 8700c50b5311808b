"""A document's structure read once, where it is extracted: kinds of paragraph and references."""

from __future__ import annotations

from paperpilot.core.citations.references import parse_references
from paperpilot.core.models import Page, Reference, Structure

from .chunker import read_blocks


def read_structure(pages: list[Page]) -> Structure:
    """The paragraphs with their kinds and section paths, and the parsed reference list."""
    blocks = read_blocks(pages)
    references: list[Reference] = parse_references([b.text for b in blocks if b.kind == "references"])
    return Structure(blocks, references)
