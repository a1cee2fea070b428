"""The one interface every target implements: a tracker holds tickets, an alert channel takes messages.

    class GitHub(Tracker):
        name, required = "github", ("github_token", "github_repo")
        def create(self, payload): ...      # -> Ticket
        def find(self, payload): ...        # the ticket carrying payload.marker, or None
        def update(self, ticket, payload): ...
        def comment(self, ticket, text): ...
        def set_open(self, ticket, open_): ...
        def fetch(self, ticket): ...        # the ticket as the tracker has it now (closed there?)
        def assign(self, ticket, account): ...  # the ticket's assignee: an account there, or None for nobody
        def preview(self, payload): ...     # the create request, for --dry-run

Adding a target is one module with such a class, and one line in ``registry.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from .config import ExportConfig
from .payload import IssuePayload
from .transport import Http

OPEN, CLOSED = "open", "closed"
TICKET, ALERT = "ticket", "alert"


@dataclass
class Ticket:
    """A ticket in a tracker: its id there, a link people open, and whether it is open or closed."""

    external_id: str
    url: str
    state: str = OPEN


class Tracker:
    """Base of every target. ``kind`` is ``ticket`` (one ticket per issue, kept in sync) or ``alert`` (a message
    per new or regressed issue, at most one per issue and run)."""

    name: ClassVar[str] = ""
    kind: ClassVar[str] = TICKET
    required: ClassVar[tuple[str, ...]] = ()  # ExportConfig fields that must be set
    default_pace: ClassVar[float | None] = None  # content-creating requests per minute

    def __init__(self, config: ExportConfig) -> None:
        self.config = config
        self._http: Http | None = None

    @classmethod
    def problems(cls, config: ExportConfig) -> list[str]:
        """One line per setting this target needs and lacks (or has in a shape it cannot use)."""
        return [f"{config.env_var(name)} is not set (needed for --to {cls.name})"
                for name in cls.required if not getattr(config, name)]

    @property
    def http(self) -> Http:
        if self._http is None:
            self._http = self.make_http()
        return self._http

    def make_http(self) -> Http:
        return Http(self.name, self.config, default_pace=self.default_pace)

    @property
    def retries(self) -> int:
        return self._http.retries if self._http else 0

    def close(self) -> None:
        if self._http is not None:
            self._http.close()

    # -- tickets -------------------------------------------------------------------------------
    def create(self, payload: IssuePayload) -> Ticket:
        raise NotImplementedError

    def find(self, payload: IssuePayload) -> Ticket | None:
        return None

    def update(self, ticket: Ticket, payload: IssuePayload) -> Ticket:
        return ticket

    def comment(self, ticket: Ticket, text: str) -> None:
        return None

    def set_open(self, ticket: Ticket, open_: bool) -> Ticket:
        return ticket

    def fetch(self, ticket: Ticket) -> Ticket:
        return ticket

    def accounts(self) -> dict[str, str]:
        """This tracker's accounts by sumwatch name (``SUMWATCH_<TRACKER>_ASSIGNEES``): whom an assignment in
        sumwatch assigns here. Empty: assignments reach the ticket as comments only."""
        return self.config.assignees(self.name)

    def assign(self, ticket: Ticket, account: str | None) -> None:
        """Make ``account`` (an account of this tracker) the ticket's only assignee; None leaves it with none."""
        raise NotImplementedError(f"{self.name} cannot assign tickets")

    # -- alerts --------------------------------------------------------------------------------
    def send(self, payload: IssuePayload, event: str) -> None:
        raise NotImplementedError

    def preview(self, payload: IssuePayload, event: str = "export") -> dict[str, Any]:
        """What would be sent (method, URL without secrets, body), for ``--dry-run``."""
        raise NotImplementedError
