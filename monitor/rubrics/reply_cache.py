"""Validated LLM judge replies kept by a hash of (model, messages): an LRU in memory and, optionally, a JSONL
file, so a rerun over the same spans asks the model nothing twice.

    cache = ReplyCache(4096, "/var/lib/sumwatch/replies.jsonl")
    cache.get(cache.key(model, messages)) or cache.put(key, reply)
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import OrderedDict
from pathlib import Path

log = logging.getLogger(__name__)


class ReplyCache:
    """Validated replies by sha256 of (model, messages): an LRU in memory, optionally a JSONL file."""

    def __init__(self, size: int, path: str | None) -> None:
        self.size, self.path = size, Path(path) if path else None
        self._replies: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        if self.path is not None and self.path.exists():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                    self._remember(str(row["key"]), str(row["reply"]))
                except (ValueError, KeyError, TypeError):
                    continue  # a torn last line from a crash

    @staticmethod
    def key(model: str, messages: list[dict[str, str]]) -> str:
        payload = json.dumps([model, messages], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def _remember(self, key: str, reply: str) -> None:
        self._replies[key] = reply
        self._replies.move_to_end(key)
        while len(self._replies) > self.size:
            self._replies.popitem(last=False)

    def get(self, key: str) -> str | None:
        with self._lock:
            reply = self._replies.get(key)
            if reply is not None:
                self._replies.move_to_end(key)
            return reply

    def put(self, key: str, reply: str) -> None:
        if self.size == 0:
            return
        with self._lock:
            self._remember(key, reply)
            if self.path is not None:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                    with self.path.open("a", encoding="utf-8") as out:
                        out.write(json.dumps({"key": key, "reply": reply}, ensure_ascii=False) + "\n")
                except OSError as exc:
                    log.warning("LLM judge cache: cannot write %s (%s); keeping replies in memory only",
                                self.path, exc)
                    self.path = None


