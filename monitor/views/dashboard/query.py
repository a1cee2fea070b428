"""What a page's query string asks for, checked: the filter bar and the issue list's sort and filters.

    choice = filter_choice(request.query_params, now)     # time range, service, model, prompt version
    choice.filters                                          # a store.stats.Filters for the readers
    listing = issue_query(request.query_params)             # status, severity, rubric, text, sort, direction

A value out of its range raises :class:`BadRequest`, which the routes answer with a 400 page.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from urllib.parse import urlencode

from sumwatch.tracer.vocabulary import IssueStatus, Severity

from ...contract.values import choice_error
from ...store.stats import Filters

RANGES: dict[str, int | None] = {"1h": 3600, "6h": 6 * 3600, "24h": 86400, "7d": 7 * 86400, "30d": 30 * 86400,
                                 "90d": 90 * 86400, "all": None}
DEFAULT_RANGE = "7d"
# chart buckets: the finest one each range is read at, then coarsened to at most MAX_POINTS for the data there
_READ_BUCKET = {"1h": 60, "6h": 60, "24h": 60, "7d": 600, "30d": 3600, "90d": 3600, "all": 3600}
NICE_BUCKETS = (60, 300, 600, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 7 * 86400)
MAX_POINTS = 72
_MAX_TEXT = 200
_RUN_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,80}$")

ISSUE_SORTS = ("id", "status", "severity", "rubric", "traces", "share", "trend", "title")
ISSUE_STATUSES = ("open", "all") + IssueStatus.values()
SEVERITIES = tuple(reversed(Severity.values()))  # most severe first, as the filter lists them


class BadRequest(ValueError):
    """A query parameter the page cannot use; the message says which and why."""


@dataclass(frozen=True)
class FilterChoice:
    """The filter bar as picked: the readers' filters and the choices to show again."""

    range: str
    start: datetime | None
    end: datetime | None
    service: str
    model: str
    prompt_version: str
    read_bucket_s: int

    @property
    def filters(self) -> Filters:
        return Filters(self.start, self.end, self.service or None, self.model or None, self.prompt_version or None)

    def query(self, **changes: str) -> str:
        """This choice as a query string (for links that keep the filters)."""
        values = {"range": self.range, "service": self.service, "model": self.model,
                  "prompt_version": self.prompt_version, **changes}
        return urlencode({k: v for k, v in values.items() if v})


def text_param(params: Mapping[str, str], name: str) -> str:
    value = (params.get(name) or "").strip()
    if len(value) > _MAX_TEXT or not value.isprintable():
        raise BadRequest(f"{name} must be printable text of at most {_MAX_TEXT} characters")
    return value


def filter_choice(params: Mapping[str, str], now: datetime | None = None) -> FilterChoice:
    """The filter bar from ``range`` (1h, 6h, 24h, 7d, 30d, 90d, all), ``service``, ``model``,
    ``prompt_version``."""
    key = (params.get("range") or DEFAULT_RANGE).strip()
    if key not in RANGES:
        raise BadRequest(choice_error("range", key, RANGES))
    seconds = RANGES[key]
    start = None
    if seconds is not None:
        start = (now or datetime.now(timezone.utc)) - timedelta(seconds=seconds)
    return FilterChoice(key, start, None, text_param(params, "service"), text_param(params, "model"),
                        text_param(params, "prompt_version"), _READ_BUCKET[key])


def display_bucket(first: datetime, last: datetime, read_bucket_s: int) -> int:
    """The coarsest nice bucket needed so that [first, last] fits in about ``MAX_POINTS`` points; a
    multiple of the bucket the data was read at."""
    extent = max((last - first).total_seconds(), 0.0)
    for bucket in NICE_BUCKETS:
        if bucket >= read_bucket_s and bucket % read_bucket_s == 0 and extent / bucket <= MAX_POINTS:
            return bucket
    return NICE_BUCKETS[-1]


def coarsen_start(value: datetime, bucket_s: int) -> datetime:
    stamp = int(value.timestamp())
    return datetime.fromtimestamp(stamp - stamp % bucket_s, timezone.utc)


@dataclass(frozen=True)
class IssueQuery:
    status: str = "open"
    severity: str = ""
    rubric: str = ""
    text: str = ""
    sort: str = "traces"
    descending: bool = True

    def link(self, **changes: str) -> str:
        values = {"status": self.status, "severity": self.severity, "rubric": self.rubric, "q": self.text,
                  "sort": self.sort, "dir": "desc" if self.descending else "asc", **changes}
        return "/issues?" + urlencode({k: v for k, v in values.items() if v})

    def sort_link(self, column: str) -> str:
        """The link a column header gives: sort by it, or flip the direction when it is the sort already."""
        if column == self.sort:
            return self.link(dir="asc" if self.descending else "desc")
        return self.link(sort=column, dir="asc" if column in ("id", "title", "rubric", "status") else "desc")


def issue_query(params: Mapping[str, str], rubrics: tuple[str, ...]) -> IssueQuery:
    status = (params.get("status") or "open").strip()
    if status not in ISSUE_STATUSES:
        raise BadRequest(choice_error("status", status, ISSUE_STATUSES))
    severity = (params.get("severity") or "").strip()
    if severity and severity not in SEVERITIES:
        raise BadRequest(choice_error("severity", severity, SEVERITIES))
    rubric = (params.get("rubric") or "").strip()
    if rubric and rubric not in rubrics:
        raise BadRequest(choice_error("rubric", rubric, rubrics))
    sort = (params.get("sort") or "traces").strip()
    if sort not in ISSUE_SORTS:
        raise BadRequest(choice_error("sort", sort, ISSUE_SORTS))
    direction = (params.get("dir") or "desc").strip()
    if direction not in ("asc", "desc"):
        raise BadRequest(f"dir must be asc or desc, got {direction[:40]!r}")
    return IssueQuery(status, severity, rubric, text_param(params, "q"), sort, direction == "desc")


def run_id_param(params: Mapping[str, str]) -> str | None:
    run = (params.get("run") or "").strip()
    if not run:
        return None
    if not _RUN_ID.match(run):
        raise BadRequest("run must be a clustering run id (letters, digits and - _ . :)")
    return run
