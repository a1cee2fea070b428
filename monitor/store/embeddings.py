"""Failure-text embeddings: ``sumwatch_embeddings``, one vector per (model, text hash), computed once.

    vectors = cached_vectors(store, "all-MiniLM-L6-v2", [text_hash(t) for t in texts])   # hash -> vector
    save_vectors(store, "all-MiniLM-L6-v2", {text_hash(t): v for t, v in zip(texts, new)})
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone

import numpy as np

from .connection import Store, quote_ident
from .ddl import Table, Target

EMBEDDINGS_TABLE = "sumwatch_embeddings"
_CHUNK = 10_000  # hashes per lookup query


def _create(t: Target) -> str:
    return f"""CREATE TABLE IF NOT EXISTS {t.name(EMBEDDINGS_TABLE)}{t.on_cluster} (
    Model LowCardinality(String),
    TextHash String,
    Vector Array(Float32) CODEC(ZSTD(1)),
    CreatedAt DateTime64(6)
) ENGINE = {t.engine("ReplacingMergeTree", "CreatedAt")}
ORDER BY (Model, TextHash)"""


EMBEDDINGS = Table(EMBEDDINGS_TABLE, "cityHash64(TextHash)", _create)


def text_hash(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def cached_vectors(store: Store, model: str, hashes: Sequence[str]) -> dict[str, np.ndarray]:
    """The stored vectors of ``model`` for those text hashes that have one."""
    known: dict[str, np.ndarray] = {}
    for i in range(0, len(hashes), _CHUNK):
        for h, vector in store.query_rows(
                f"SELECT TextHash, argMax(Vector, CreatedAt) FROM {quote_ident(EMBEDDINGS_TABLE)} "
                f"WHERE Model = {{model:String}} AND TextHash IN {{hashes:Array(String)}} GROUP BY TextHash",
                {"model": model, "hashes": list(hashes[i:i + _CHUNK])}):
            known[h] = np.asarray(vector, dtype=np.float32)
    return known


def save_vectors(store: Store, model: str, vectors: Mapping[str, np.ndarray]) -> None:
    at = datetime.now(timezone.utc)
    store.insert(EMBEDDINGS_TABLE, [(model, h, np.asarray(v, dtype=np.float32).tolist(), at)
                                    for h, v in vectors.items()],
                 ["Model", "TextHash", "Vector", "CreatedAt"])
