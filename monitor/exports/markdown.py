"""Markdown files, for repositories and air-gapped teams: ``$SUMWATCH_MARKDOWN_DIR/SW-3.md`` per issue.

The file starts with a front matter block (``state: open``); change it to ``state: closed`` and the next export
reads it back and shows the issue's ticket as closed. Files are replaced whole (write, then rename), so a reader
never sees half a file.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

from .config import ExportConfig
from .payload import IssuePayload
from .tracker import CLOSED, OPEN, Ticket, Tracker
from .transport import PermanentError

_STATE = re.compile(r"^state:\s*(\w+)\s*$", re.MULTILINE)
_COMMENTS = "\n## Updates\n"


class Markdown(Tracker):
    name = "markdown"
    required = ("markdown_dir",)

    @classmethod
    def problems(cls, config: ExportConfig) -> list[str]:
        lines = super().problems(config)
        folder = Path(config.markdown_dir) if config.markdown_dir else None
        if folder is not None and not folder.is_dir():
            lines.append(f"SUMWATCH_MARKDOWN_DIR {config.markdown_dir} is not a folder")
        return lines

    def _path(self, issue_id: str) -> Path:
        return Path(self.config.markdown_dir) / f"{issue_id}.md"

    def _render(self, payload: IssuePayload, state: str, updates: str) -> str:
        return (f"---\nissue: {payload.issue_id}\nstate: {state}\nseverity: {payload.severity}\n"
                f"status: {payload.status}\n---\n\n# {payload.issue_id}: {payload.title}\n\n"
                f"{payload.markdown(1_000_000)}\n{updates}")

    def _write(self, path: Path, text: str) -> None:
        try:
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, path)
        except OSError as exc:
            raise PermanentError(f"markdown: cannot write {path}: {exc.strerror or exc}") from None

    def _read(self, path: Path) -> str:
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise PermanentError(f"markdown: cannot read {path}: {exc.strerror or exc}") from None

    def _ticket(self, path: Path, text: str) -> Ticket:
        match = _STATE.search(text)
        return Ticket(path.name, path.resolve().as_uri(), CLOSED if match and match.group(1) == CLOSED else OPEN)

    def preview(self, payload: IssuePayload, event: str = "export") -> dict[str, Any]:
        path = self._path(payload.issue_id)
        return {"method": "WRITE", "url": str(path), "text": self._render(payload, OPEN, "")}

    def create(self, payload: IssuePayload) -> Ticket:
        path = self._path(payload.issue_id)
        text = self._render(payload, OPEN, "")
        self._write(path, text)
        return self._ticket(path, text)

    def find(self, payload: IssuePayload) -> Ticket | None:
        path = self._path(payload.issue_id)
        text = self._read(path)
        return self._ticket(path, text) if payload.marker_comment in text else None

    def update(self, ticket: Ticket, payload: IssuePayload) -> Ticket:
        path = self._path(payload.issue_id)
        old = self._read(path)
        updates = old[old.index(_COMMENTS):] if _COMMENTS in old else ""
        text = self._render(payload, self._ticket(path, old).state if old else OPEN, updates)
        self._write(path, text)
        return self._ticket(path, text)

    def comment(self, ticket: Ticket, text: str) -> None:
        path = Path(self.config.markdown_dir) / ticket.external_id
        old = self._read(path)
        self._write(path, old + ("" if _COMMENTS in old else _COMMENTS) + f"\n- {text}\n")

    def set_open(self, ticket: Ticket, open_: bool) -> Ticket:
        path = Path(self.config.markdown_dir) / ticket.external_id
        text = _STATE.sub(f"state: {OPEN if open_ else CLOSED}", self._read(path), count=1)
        self._write(path, text)
        return self._ticket(path, text)

    def fetch(self, ticket: Ticket) -> Ticket:
        path = Path(self.config.markdown_dir) / ticket.external_id
        text = self._read(path)
        if not text:
            raise PermanentError(f"markdown: {path.name} is gone from SUMWATCH_MARKDOWN_DIR")
        return self._ticket(path, text)
