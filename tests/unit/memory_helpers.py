"""Shared fixtures data for the long-term memory tests (profile, conversations, notes, follow-ups)."""

from __future__ import annotations

from pathlib import Path

from paperpilot.core.library import Library
from paperpilot.core.settings.paths import AppPaths, app_paths

PAPERS = {
    "dense": (
        "# Dense Passage Retrieval for Open-Domain Question Answering\n\n"
        "Dense passage retrieval encodes questions and passages with two separate BERT encoders and ranks "
        "passages by the inner product of their vectors. The encoders are trained with in-batch negatives.\n\n"
        "## Limitations\n\n"
        "Dense passage retrieval needs labelled training data and a large GPU index; its recall drops on "
        "rare entities.\n"
    ),
    "sparse": (
        "# Sparse Retrieval with BM25\n\n"
        "BM25 ranks documents by term frequency and inverse document frequency, with saturation of repeated "
        "terms. It needs no training data and remains a strong baseline.\n"
    ),
    "unet": (
        "# U-Net for Biomedical Image Delineation\n\n"
        "U-Net performs delineation of cells in microscopy images with an encoder-decoder network and skip "
        "connections. It was trained with heavy data augmentation.\n"
    ),
}


def make_library(root: Path) -> tuple[AppPaths, Library]:
    root.mkdir(parents=True, exist_ok=True)
    files = []
    for name, text in PAPERS.items():
        f = root / f"{name}.md"
        f.write_text(text, encoding="utf-8")
        files.append(f)
    paths = app_paths(root / "home")
    lib = Library(paths)
    report = lib.import_paths(files)
    assert not report.failed and len(report.imported) == len(PAPERS)
    return paths, lib


def doc_id(lib: Library, title_start: str) -> int:
    return next(d.doc_id for d in lib.list_documents() if d.title.startswith(title_start))
