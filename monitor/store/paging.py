"""Keyset paging: the cursor a listing gives for its next page, and reading one back.

    cursor = encode_cursor(TRACES_CURSOR, (ts_ns, trace_id, span_id))
    ts_ns, trace_id, span_id = decode_cursor(TRACES_CURSOR, cursor, (int, str, str))

A cursor is the sort key of the last row of a page, so the next page starts right after that row
however many rows were inserted since (an offset would shift under inserts and repeat or skip rows).
It travels as URL-safe base64 of a JSON list led by a tag naming the listing and the key's layout
version, with a short checksum in front: an edited or truncated cursor is refused instead of silently
starting somewhere else. The checksum is not a signature: a cursor only picks where a read the caller
may already make starts, so there is nothing to keep secret.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Sequence

TRACES_CURSOR = "traces.1"  # (span timestamp in ns, trace id, span id)
SCORES_CURSOR = "scores.1"  # (scored-at in µs, trace id, rubric, span id, judge version)
SCORES_KEY_CURSOR = "scores-by-key.1"  # (trace id, span id, rubric, judge version)
CORPUS_CURSOR = "corpus.1"  # (rubric, bucket, item id)
DATASET_ITEMS_CURSOR = "dataset-items.1"  # (dataset name, version, position)

MAX_CURSOR_CHARS = 2048  # far above any key this module writes; a longer string is not one of ours
_CHECK_BYTES = 6
_ALPHABET = re.compile(r"^[A-Za-z0-9_-]+$")


def _check(payload: bytes) -> bytes:
    return hashlib.blake2b(payload, digest_size=_CHECK_BYTES, person=b"sumwatch-cursor").digest()


def encode_cursor(tag: str, key: Sequence[int | str]) -> str:
    """The opaque cursor for ``key`` (the last row's sort key) in the listing ``tag``."""
    payload = json.dumps([tag, *key], separators=(",", ":"), ensure_ascii=False).encode()
    return base64.urlsafe_b64encode(_check(payload) + payload).rstrip(b"=").decode("ascii")


def decode_cursor(tag: str, cursor: str, types: Sequence[type]) -> tuple[int | str, ...]:
    """The key in ``cursor``, checked against the listing ``tag`` and the key's ``types``; ValueError with
    one line naming the parameter for anything this module did not write."""
    def refuse(why: str) -> ValueError:
        return ValueError(f"cursor is not one this server gave: {why}")

    if not isinstance(cursor, str) or not cursor or len(cursor) > MAX_CURSOR_CHARS:
        raise refuse(f"expected 1 to {MAX_CURSOR_CHARS} characters, got {len(str(cursor))}")
    if not _ALPHABET.match(cursor):
        raise refuse("it holds characters other than A-Z a-z 0-9 - _")
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
    except (binascii.Error, ValueError):
        raise refuse("it is not base64") from None
    check, payload = raw[:_CHECK_BYTES], raw[_CHECK_BYTES:]
    if len(check) < _CHECK_BYTES or check != _check(payload):
        raise refuse("it was cut or changed")
    try:
        data = json.loads(payload)
    except ValueError:
        raise refuse("it does not hold a key") from None
    if not isinstance(data, list) or not data or not isinstance(data[0], str):
        raise refuse("it does not hold a key")
    if data[0] != tag:
        raise refuse(f"it pages {data[0].split('.')[0]!r}, not {tag.split('.')[0]!r} (or is from another version)")
    key = data[1:]
    # bool is an int to isinstance, and no key holds one
    if len(key) != len(types) or any(type(v) is not t for v, t in zip(key, types)):
        raise refuse("its key does not fit this listing")
    if any(type(v) is int and not -(2**63) <= v < 2**63 for v in key):  # times go to the engine as Int64
        raise refuse("its key does not fit this listing")
    return tuple(key)
