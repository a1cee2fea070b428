"""The receiver's write-ahead log: acknowledged rows kept on disk until an INSERT holds them.

    log = WriteAheadLog(settings.receiver_log_path / "spans")
    tail = log.open()                     # records appended but not committed before the last stop or crash
    end = log.append(payload)             # one os.write of a length+checksum header and the payload
    log.commit(end)                       # everything up to ``end`` is in the table; empties the log when drained
    log.close()

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


class WriteAheadLogError(RuntimeError):
    """The log cannot be used (another process holds it, or its folder cannot be written)."""


@dataclass(frozen=True)
class LogRecord:
    """One appended payload and the offset just past it (what :meth:`WriteAheadLog.commit` takes)."""

    payload: bytes
    end: int


class WriteAheadLog:
    def __init__(self, path: Path, *, fsync: bool = False) -> None:
        """``path`` without a suffix: the log is ``path.log``, its committed offset ``path.committed``."""
        self.path = path.with_suffix(".log")
        self._offset_path = path.with_suffix(".committed")
        self._fsync = fsync
        self._fd = -1
        self.size = 0  # bytes in the log file: the offset just past the last record appended
        self.committed = 0

    def open(self) -> list[LogRecord]:
        """Take the log (one process at a time) and return the records not yet committed, in order."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
        except OSError as exc:
            raise WriteAheadLogError(f"cannot open the receiver log {self.path}: {exc}") from exc
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(self._fd)
            self._fd = -1
            raise WriteAheadLogError(f"the receiver log {self.path} is in use by another process") from exc
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
