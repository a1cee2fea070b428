"""What a page's query string asks for, checked: the filter bar, the issue list's sort and filters, the map's run.

    def overview(bar: FilterBarQuery): choice = bar.choice()   # a route: FastAPI reads and checks the query
    choice = filter_choice(request.query_params, now)     # the same from a mapping (the Traces page reads its own)
    choice.filters                                          # a store.stats.Filters for the readers

Each page's parameters are a pydantic model (:class:`PageQuery`), so a value out of its range is refused by
pydantic in the API's words (``contract.values.validation_message``), with a 400 page; a page's builders raise
:class:`BadRequest` for what the model cannot know (a rubric the database does not have).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias, TypeVar
from urllib.parse import urlencode

from fastapi import Query
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from sumwatch.tracer.vocabulary import IssueStatus, Severity

from ...contract.values import PATTERN_MEANS, validation_message
from ...store.stats import Filters

RANGES: dict[str, int | None] = {"1h": 3600, "6h": 6 * 3600, "24h": 86400, "7d": 7 * 86400, "30d": 30 * 86400,
                                 "90d": 90 * 86400, "all": None}
DEFAULT_RANGE = "7d"
# chart buckets: the finest one each range is read at, then coarsened to at most MAX_POINTS for the data there
_READ_BUCKET = {"1h": 60, "6h": 60, "24h": 60, "7d": 600, "30d": 3600, "90d": 3600, "all": 3600}
NICE_BUCKETS = (60, 300, 600, 900, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86400, 7 * 86400)
MAX_POINTS = 72
_MAX_TEXT = 200
# printable text (str.isprintable: no control, format or separator character but the space), at most _MAX_TEXT
PRINTABLE_TEXT_PATTERN = rf"^(?:[^\p{{C}}\p{{Z}}]| ){{0,{_MAX_TEXT}}}$"
RUN_ID_PATTERN = r"^[A-Za-z0-9_.:-]{1,80}$"
PATTERN_MEANS[PRINTABLE_TEXT_PATTERN] = f"{{name}} must be printable text of at most {_MAX_TEXT} characters"
PATTERN_MEANS[RUN_ID_PATTERN] = "run must be a clustering run id (letters, digits and - _ . :)"

ISSUE_SORTS = ("id", "status", "severity", "rubric", "traces", "share", "trend", "title")
ISSUE_STATUSES = ("open", "all") + IssueStatus.values()
SEVERITIES = tuple(reversed(Severity.values()))  # most severe first, as the filter lists them

if TYPE_CHECKING:
    RangeName: TypeAlias = str
    IssueStatusName: TypeAlias = str
    SeverityName: TypeAlias = str
    IssueSort: TypeAlias = str
else:  # the choices, from the one place each is defined
    RangeName = Literal[tuple(RANGES)]
    IssueStatusName = Literal[ISSUE_STATUSES]
    SeverityName = Literal[SEVERITIES]
    IssueSort = Literal[ISSUE_SORTS]
PageText = Annotated[str, Field(pattern=PRINTABLE_TEXT_PATTERN)]

Model = TypeVar("Model", bound=BaseModel)


class BadRequest(ValueError):
    """A query parameter the page cannot use; the message says which and why."""


class PageQuery(BaseModel):
    """A page's query parameters, read by FastAPI as a query model (``Annotated[FilterBar, Query()]``): spaces
    around a value go, and a blank one (a form's empty field) is the default."""

    model_config = ConfigDict(frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _blank_is_default(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        stripped = {k: v.strip() if isinstance(v, str) else v for k, v in data.items()}
        return {k: v for k, v in stripped.items() if v != ""}


def checked(model: type[Model], params: Mapping[str, str]) -> Model:
    """``model`` from a query string's values (the ones it has fields for); BadRequest in the words a route's
    refusal of the same value has."""
    try:
        return model.model_validate({name: params[name] for name in model.model_fields if name in params})
    except ValidationError as exc:
        raise BadRequest(validation_message(list(exc.errors()))) from None


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


class FilterBar(PageQuery):
    """The filter bar: ``range`` (1h, 6h, 24h, 7d, 30d, 90d, all), ``service``, ``model``, ``prompt_version``."""

    range: RangeName = DEFAULT_RANGE
    service: PageText = ""
    model: PageText = ""
    prompt_version: PageText = ""

    def choice(self, now: datetime | None = None) -> FilterChoice:
        seconds = RANGES[self.range]
        start = None
        if seconds is not None:
            start = (now or datetime.now(timezone.utc)) - timedelta(seconds=seconds)
        return FilterChoice(self.range, start, None, self.service, self.model, self.prompt_version,
                            _READ_BUCKET[self.range])


FilterBarQuery = Annotated[FilterBar, Query()]


def filter_choice(params: Mapping[str, str], now: datetime | None = None) -> FilterChoice:
    """The filter bar from a query string's values (BadRequest: the one that is wrong)."""
    return checked(FilterBar, params).choice(now)


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


class IssueQuery(PageQuery):
    """The issue list's filters and sort; ``rubric`` is checked against the database's by the page, and
    ``hidden`` (ignored, muted and merged issues too) is not carried by the links."""

    status: IssueStatusName = "open"
    severity: SeverityName = ""
    rubric: PageText = ""
    q: PageText = ""
    sort: IssueSort = "traces"
    dir: Literal["asc", "desc"] = "desc"
    hidden: bool = False

    @property
    def text(self) -> str:
        return self.q

    @property
    def descending(self) -> bool:
        return self.dir == "desc"

    def link(self, **changes: str) -> str:
        values = {"status": self.status, "severity": self.severity, "rubric": self.rubric, "q": self.q,
                  "sort": self.sort, "dir": self.dir, **changes}
        return "/issues?" + urlencode({k: v for k, v in values.items() if v})

    def sort_link(self, column: str) -> str:
        """The link a column header gives: sort by it, or flip the direction when it is the sort already."""
        if column == self.sort:
            return self.link(dir="asc" if self.descending else "desc")
        return self.link(sort=column, dir="asc" if column in ("id", "title", "rubric", "status") else "desc")


class MapQuery(PageQuery):
    """The cluster map's run (None: the latest finished one)."""

    run: Annotated[str, Field(pattern=RUN_ID_PATTERN)] | None = None
