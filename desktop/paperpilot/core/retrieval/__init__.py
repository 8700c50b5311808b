"""Retrieval by meaning: embedders, the vector store (derived data) and the background embedding job.

Qt-free. ``embedder`` turns text into L2-normalised float32 vectors (the bundled multilingual
model, or any OpenAI-compatible ``/v1/embeddings`` endpoint); ``store`` keeps one quantised
vector per chunk in its own SQLite file and searches them; ``job`` embeds a library's chunks
in batches, resumably, skipping the kinds that never answer a question.
"""

from __future__ import annotations

from .embedder import (
    BundledEmbedder,
    Embedder,
    EmbeddingError,
    EndpointEmbedder,
    bundled_embedder,
)
from .job import SKIP_KINDS, Chunk, EmbeddingJob, JobResult, passage_text
from .store import VectorItem, VectorStore, VectorStoreError, VectorStoreFull, text_hash

__all__ = [
    "SKIP_KINDS",
    "BundledEmbedder",
    "Chunk",
    "Embedder",
    "EmbeddingError",
    "EmbeddingJob",
    "EndpointEmbedder",
    "JobResult",
    "VectorItem",
    "VectorStore",
    "VectorStoreError",
    "VectorStoreFull",
    "bundled_embedder",
    "passage_text",
    "text_hash",
]
