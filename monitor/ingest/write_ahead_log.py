"""The receiver's write-ahead log: acknowledged rows kept on disk until an INSERT holds them.

    log = WriteAheadLog(settings.receiver_log_path / "spans")
    tail = log.open()                     # records appended but not committed before the last stop or crash
    end = log.append(payload)             # one os.write of a length+checksum header and the payload
    log.commit(end)                       # everything up to ``end`` is in the table; empties the log when drained
    log.close()

Receivers that share a home (two servers on one database, a test's second server) each take a slot of their
own: ``spans.log``, ``spans-1.log`` ... (:meth:`WriteAheadLog.open`); at start a receiver also drains the slots
no writer holds (:meth:`WriteAheadLog.orphans`), so a receiver that died and does not come back loses nothing.

A record is ``<u32 length><u32 crc32>payload``. The committed offset lives in a file of its own, replaced
(write then rename) after each INSERT, so a crash leaves either the old or the new offset, never half of one.
A torn last record (a crash during its write) fails its length or checksum and is cut off at open: it was
never acknowledged. A write() reaches the page cache, which survives the death of the process (SIGKILL, OOM);
``fsync=True`` also makes each acknowledgement wait for the disk, for power loss, at the cost of a disk flush
per request.
"""

from __future__ import annotations

import fcntl
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

_HEADER = struct.Struct("<II")
_OFFSET = struct.Struct("<Q")
MAX_SLOTS = 64  # receivers that may share one home and database, each with a log of its own


class WriteAheadLogError(RuntimeError):
    """The log cannot be used (another process holds it, or its folder cannot be written)."""


@dataclass(frozen=True)
class LogRecord:
    """One appended payload and the offset just past it (what :meth:`WriteAheadLog.commit` takes)."""

    payload: bytes
    end: int


class WriteAheadLog:
    def __init__(self, path: Path, *, fsync: bool = False, slot: int = 0) -> None:
        """``path`` without a suffix: the log is ``path.log`` (``path-<slot>.log`` beyond the first slot), its
        committed offset beside it with the suffix ``.committed``."""
        self._base, self._fsync = path, fsync
        self._fd = -1
        self.size = 0  # bytes in the log file: the offset just past the last record appended
        self.committed = 0
        self._use_slot(slot)

    def _use_slot(self, slot: int) -> None:
        self.slot = slot
        named = self._base if slot == 0 else self._base.with_name(f"{self._base.name}-{slot}")
        self.path = named.with_suffix(".log")
        self._offset_path = named.with_suffix(".committed")

    def open(self) -> list[LogRecord]:
        """Take the first log slot no other writer holds (receivers sharing a home each get one) and return its
        records not yet committed, in order."""
        for slot in range(MAX_SLOTS):
            self._use_slot(slot)
            tail = self._take()
            if tail is not None:
                return tail
        raise WriteAheadLogError(f"all {MAX_SLOTS} receiver logs under {self._base.parent} are in use")

    def orphans(self) -> list[tuple[WriteAheadLog, list[LogRecord]]]:
        """The other slots' logs that no writer holds and that hold records not yet committed (a receiver that
        died and has not come back), each taken, with those records: to insert, commit and close."""
        found = []
        for slot in range(MAX_SLOTS):
            other = WriteAheadLog(self._base, fsync=self._fsync, slot=slot)
            if slot == self.slot or not other.path.exists() or other.path.stat().st_size == 0:
                continue
            tail = other._take()
            if tail:
                found.append((other, tail))
            elif tail is not None:
                other.close()
        return found

    def _take(self) -> list[LogRecord] | None:
        """Lock this slot's log and read its uncommitted tail; None when another writer holds it."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        except OSError as exc:
            raise WriteAheadLogError(f"cannot open the receiver log {self.path}: {exc}") from exc
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._fd)
            self._fd = -1
            return None
        self.size = os.fstat(self._fd).st_size
        self.committed = self._read_offset()
        if self.committed > self.size:
            # the log was emptied but the crash came before the offset was reset: nothing follows it
            self.committed = 0
            self._write_offset(0)
        tail, good_end = self._read_from(self.committed)
        if good_end < self.size:  # a torn last record: never acknowledged, so dropped
            os.ftruncate(self._fd, good_end)
            self.size = good_end
        return tail

    def append(self, payload: bytes) -> int:
        """Write one record; returns the offset just past it. Callers serialise appends."""
        data = _HEADER.pack(len(payload), zlib.crc32(payload)) + payload
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        if self._fsync:
            os.fsync(self._fd)
        self.size += len(data)
        return self.size

    def commit(self, end: int) -> None:
        """Record that everything before ``end`` is stored; when that is the whole log, empty it.
        Callers serialise this with :meth:`append`."""
        self.committed = end
        if end == self.size:
            # emptied first: a crash between the two leaves an offset past the end, which open() reads as "all done"
            os.ftruncate(self._fd, 0)
            self.size = self.committed = 0
        self._write_offset(self.committed)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)  # releases the lock
            self._fd = -1

    def _read_from(self, start: int) -> tuple[list[LogRecord], int]:
        with open(self.path, "rb") as fh:
            fh.seek(start)
            data = fh.read()
        records, at = [], 0
        while at + _HEADER.size <= len(data):
            length, crc = _HEADER.unpack_from(data, at)
            body = data[at + _HEADER.size:at + _HEADER.size + length]
            if len(body) < length or zlib.crc32(body) != crc:
                break
            at += _HEADER.size + length
            records.append(LogRecord(bytes(body), start + at))
        return records, start + at

    def _read_offset(self) -> int:
        try:
            raw = self._offset_path.read_bytes()
        except FileNotFoundError:
            return 0
        return _OFFSET.unpack(raw)[0] if len(raw) == _OFFSET.size else 0

    def _write_offset(self, offset: int) -> None:
        tmp = self._offset_path.with_suffix(".committed-new")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            os.write(fd, _OFFSET.pack(offset))
            if self._fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, self._offset_path)
