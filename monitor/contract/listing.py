"""What a listing of summarization spans narrows to: one model, declared once, that every side uses.

    filters = TraceFilters(service="digest", q="revenue", rubric="factuality", verdict="fail")
    list_traces(store, limit=50, filters=filters)      # the store reads it
    GET /api/traces?service=digest&q=revenue&...      # the API takes it as its query (FastAPI, from the fields)
    client.traces(filters, limit=50)                   # the client sends it
    sumwatch traces --service digest -q revenue ...    # the CLI's options are made from its fields
    /traces?service=digest&q=revenue&...               # the Traces page reads its query string with it

Adding a filter is one field here (its type, bounds and description) plus its SQL in ``store/listing.py``. A
value the model refuses is refused alike everywhere, in the same words (``contract.values.validation_message``).
Blank free text means "any"; the Traces page drops a form's blank fields, so an empty select filters nothing.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field
from pydantic.fields import FieldInfo

from .issues import parse_issue_id
from .values import ISSUE_ID_PATTERN, RUBRIC_PATTERN, IsoTime

Verdict = Literal["pass", "fail"]
Certainty = Literal["unsure", "confident"]
PASS, FAIL = get_args(Verdict)
UNSURE, CONFIDENT = get_args(Certainty)
VERDICT_CHOICES: tuple[str, ...] = get_args(Verdict)
CERTAINTY_CHOICES: tuple[str, ...] = get_args(Certainty)
MAX_TEXT = 200

# the CLI reads a time filter as a duration back from now (``--since 24h``), the API and the page as a time
DURATION = "duration"


def _blank_is_any(value: Any) -> Any:
    """Free text is stripped, and blank text means any (the API's ``?q=``, a form's empty field)."""
    if isinstance(value, str):
        return value.strip() or None
    return value


# free text: a filter of this type takes any text up to MAX_TEXT characters, blank meaning any; a choice, a
# pattern or a time is refused blank, as the OpenAPI document says (the Traces page drops a form's blank fields)
Text = Annotated[Annotated[str, Field(max_length=MAX_TEXT)] | None, BeforeValidator(_blank_is_any)]


def is_text(field: FieldInfo) -> bool:
    """Whether a filter is free text (:data:`Text`)."""
    return any(isinstance(m, BeforeValidator) and m.func is _blank_is_any for m in field.metadata)


class TraceFilters(BaseModel):
    """What a listing of summarization spans narrows to; None means any. A field's ``flag`` (and ``short``) is
    its CLI option where the name alone would not say it."""

    model_config = ConfigDict(frozen=True)

    service: Text = Field(default=None, description="Only this service")
    domain: Text = Field(default=None, description="Only this domain (summarization.domain)")
    band: Text = Field(default=None, description="Only this length band (tldr, short, ...)")
    since: IsoTime | None = Field(default=None, description="Only spans from this time on (ISO 8601)",
                                  json_schema_extra={"cli": DURATION})
    until: IsoTime | None = Field(default=None, description="Only spans before this time (ISO 8601)",
                                  json_schema_extra={"cli": DURATION})
    model: Text = Field(default=None, description="Only spans of this model")
    prompt_version: Text = Field(default=None, description="Only spans of this prompt version")
    q: Text = Field(default=None, description="Only spans whose source or summary holds this text (case aside)",
                    json_schema_extra={"flag": "--search", "short": "-q"})
    rubric: str | None = Field(default=None, pattern=RUBRIC_PATTERN, max_length=40,
                               description="With verdict: the judgement of this rubric (a built-in one or one "
                                           "promoted into the database)")
    verdict: Verdict | None = Field(default=None, description="Only spans whose latest judgement passed or failed (of "
                                                      "`rubric`, or of any rubric)")
    certainty: Certainty | None = Field(default=None, description="unsure: spans with a judgement recorded as unsure; "
                                                          "confident: judged spans with none")
    issue: str | None = Field(default=None, pattern=ISSUE_ID_PATTERN, max_length=40,
                              description="Only the members of this issue in the latest clustering run, like SW-3")

    @property
    def text(self) -> str | None:
        """The search (``q``): found, case aside, in the source or the summary."""
        return self.q

    @property
    def passed(self) -> bool | None:
        """The verdict filter as the store reads it: True for pass, False for fail, None for any."""
        return None if self.verdict is None else self.verdict == PASS

    @property
    def unsure(self) -> bool | None:
        """True for spans with a judgement recorded as unsure, False for judged spans with none, None for any."""
        return None if self.certainty is None else self.certainty == UNSURE

    @property
    def issue_number(self) -> int | None:
        return None if self.issue is None else parse_issue_id(self.issue)

    @property
    def narrowing(self) -> bool:
        """Whether a filter the span facts cannot apply is set: matches may then be rare in recent spans."""
        return bool(self.text or self.rubric or self.verdict or self.certainty or self.issue)

    def query(self) -> dict[str, str]:
        """The filters set, as the API's query parameters (times in ISO 8601)."""
        values = self.model_dump(mode="json", exclude_none=True)
        return {name: str(value) for name, value in values.items()}
