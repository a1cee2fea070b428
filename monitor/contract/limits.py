"""The limits a request is held to, the same on both sides: a command checks its flags against them before it
asks, and the API's parameters refuse what goes past them.

    client.corpus(limit=MAX_LIST_LIMIT)      # the longest page a listing answers
"""

from __future__ import annotations

# the most rows one listing returns (CLI --limit, the read API's ?limit=): ClickHouse reads LIMIT as UInt32,
# so a larger number would wrap around
MAX_LIST_LIMIT = 10_000
