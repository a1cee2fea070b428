"""Which process holds an embedded database, and the API it serves: the lock file both sides read.

    api = serving_api(settings.embedded_path)   # "http://127.0.0.1:4318" while a `sumwatch up` holds it, else None

chDB allows one process per data directory. The process that opens it holds an exclusive ``flock`` on
``<dir>/sumwatch.lock`` and writes into it one JSON object: its pid, its command line and the API it serves
(``null`` for a process that serves none). A command finds a running server here with the standard library
alone, before it loads the store or the app. The lock, not the text, says whether anyone holds the folder: a
process killed with SIGKILL leaves its text behind, and its lock goes with it.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
from pathlib import Path
from typing import Any

LOCK_NAME = "sumwatch.lock"


def read_holder(folder: Path) -> dict[str, Any]:
    """What the holder of ``folder`` wrote (pid, command, api); {} when nothing readable is there."""
    try:
        info = json.loads((folder / LOCK_NAME).read_text() or "{}")
    except (OSError, ValueError):
        return {}
    return info if isinstance(info, dict) else {}


def held(folder: Path) -> bool:
    """Whether another open of the lock holds ``folder`` now (a process, or this one through another open)."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDONLY)
    except OSError:
        return False  # no lock file: nobody has opened the folder yet
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError as exc:
        return exc.errno in (errno.EAGAIN, errno.EACCES)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def serving_api(folder: Path) -> str | None:
    """The API address of the process that holds ``folder``, when one holds it and serves an API."""
    if not held(folder):
        return None
    api = read_holder(folder).get("api")
    return api if isinstance(api, str) and api else None
