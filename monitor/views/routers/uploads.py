"""Uploads of JSON Lines (a backfill, a corpus): the body, bounded, as a file for readers that take a path."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fastapi import Request

from ..errors import ApiError

NDJSON = "application/x-ndjson"
# the OpenAPI entry of a JSON Lines body; not required, as the server takes an empty body as zero lines
NDJSON_BODY: dict[str, Any] = {"requestBody": {"required": False, "content": {NDJSON: {"schema": {"type": "string"}}}}}


async def read_upload(request: Request, limit: int) -> bytes:
    """The body, or ApiError(413) past ``limit`` bytes."""
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, f"the body is over {limit:,} bytes; split the file")
        chunks.append(chunk)
    return b"".join(chunks)


@contextmanager
def as_file(body: bytes) -> Iterator[Path]:
    """The uploaded lines as a file (removed afterwards)."""
    fd, name = tempfile.mkstemp(prefix="sumwatch-upload-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(body)
        yield Path(name)
    finally:
        os.unlink(name)
