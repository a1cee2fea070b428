"""Files a user writes (rubric definitions, selector files), read defensively: their size, their encoding and
how deep their values nest are checked before a parser sees them, so a bad file is one line, never a
traceback.

    text = read_user_text(Path("tone.toml"))      # UserFileError("line 3: not UTF-8 text (byte 0xff ...)")
    data = parse_toml(text)                       # UserFileError("line 2: checks nests more than 32 levels deep")

``tomllib`` reads nested arrays and inline tables by recursion: a 2,000-deep array raises RecursionError
from deep inside it (and in a server thread, with less stack, can take the process down), so the nesting
is counted first with a scan that knows TOML's strings and comments.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

MAX_FILE_BYTES = 1_000_000  # a rubric definition or a selector file is a few kilobytes
MAX_DEPTH = 32  # arrays and inline tables inside one another


class UserFileError(ValueError):
    """What is wrong with a file, in one line starting with the line it is on (the caller names the file)."""


def read_user_text(path: Path, *, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of ``path``; FileNotFoundError and other OSErrors pass through for the caller to word."""
    with path.open("rb") as fh:
        raw = fh.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise UserFileError(f"is larger than {max_bytes:,} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise UserFileError(f"line {line}, column {column}: not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None


def parse_toml(text: str, *, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """``text`` as TOML, or :class:`UserFileError` naming the line (and the key, for nesting)."""
    deep = _too_deep(text, max_depth)
    if deep is not None:
        line, key = deep
        raise UserFileError(f"line {line}: {key or 'a value'} nests more than {max_depth} levels deep "
                            f"(arrays and inline tables)")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UserFileError(f"not valid TOML ({exc})") from None
    except RecursionError:  # the scan above should have caught it: a last guard, still one line
        raise UserFileError(f"nests more than {max_depth} levels deep") from None


def _too_deep(text: str, limit: int) -> tuple[int, str] | None:
    """(line, key) where arrays or inline tables first nest deeper than ``limit``, or None. Strings and
    comments are skipped; a table header (``[a]``, ``[[a]]``) counts as one or two levels and closes at once."""
    depth, line, key, i, n = 0, 1, "", 0, len(text)
    line_start = 0
    while i < n:
        ch = text[i]
        if ch == "\n":
            line, line_start = line + 1, i + 1
        elif ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif ch in "\"'":
            i, line, line_start = _skip_string(text, i, line, line_start)
            continue
        elif ch in "[{":
            if depth == 0:
                head = text[line_start:i]
                key = head.split("=", 1)[0].strip() if "=" in head else ""
            depth += 1
            if depth > limit:
                return line, key
        elif ch in "]}":
            depth = max(depth - 1, 0)
        i += 1
    return None


def _skip_string(text: str, i: int, line: int, line_start: int) -> tuple[int, int, int]:
    """The index after the string starting at ``i`` (basic or literal, one line or three quotes), and the line
    count and line start after it. An unclosed string runs to the end; tomllib then says what is wrong."""
    quote = text[i]
    triple = text.startswith(quote * 3, i)
    closing = quote * 3 if triple else quote
    j = i + len(closing)
    n = len(text)
    while j < n:
        ch = text[j]
        if ch == "\\" and quote == '"':
            if text.startswith("\n", j + 1):  # a line-ending backslash in a multi-line string
                line, line_start = line + 1, j + 2
            j += 2
            continue
        if ch == "\n":
            if not triple:
                return j, line, line_start
            line, line_start = line + 1, j + 1
        if text.startswith(closing, j):
            return j + len(closing), line, line_start
        j += 1
    return n, line, line_start
