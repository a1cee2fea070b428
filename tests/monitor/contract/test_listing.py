"""A listing's filters are one model: every field of TraceFilters is a query parameter of GET /api/traces, an
option of `sumwatch traces`, read by the Traces page and sent by the client, and a bad value is refused in the
same words everywhere. Adding a filter is a field and its SQL; these tests hold the rest to it."""

import typer
from fastapi import FastAPI
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.cli._shared import option_name
from sumwatch.monitor.contract.listing import TraceFilters
from sumwatch.monitor.views.dashboard.explorer import trace_query
from sumwatch.monitor.views.dashboard.query import BadRequest
from sumwatch.monitor.views.routers import traces

FIELDS = set(TraceFilters.model_fields)
SET = {"service": "digest", "domain": "news", "band": "tldr", "since": "2026-11-01T00:00:00+00:00",
       "until": "2026-11-02T00:00:00+00:00", "model": "m1", "prompt_version": "v2", "q": "revenue",
       "rubric": "factuality", "verdict": "fail", "certainty": "unsure", "issue": "SW-3"}


def test_every_field_is_a_query_parameter_of_the_api_with_its_description():
    api = FastAPI()
    api.include_router(traces.router)
    params = {p["name"]: p for p in api.openapi()["paths"]["/api/traces"]["get"]["parameters"]}
    assert set(params) >= FIELDS
    for name in FIELDS:
        assert params[name]["in"] == "query"
        assert params[name]["description"] == TraceFilters.model_fields[name].description


def test_every_field_is_an_option_of_the_cli():
    group = typer.main.get_command(app).commands["traces"]
    flags = {flag for p in group.params for flag in p.opts}
    assert {option_name(TraceFilters, name) for name in FIELDS} <= flags
    assert "-q" in flags and "--search" in flags


def test_the_client_sends_every_field_it_is_given_and_the_page_reads_it_back():
    assert SET.keys() == FIELDS  # this test names every field: a new one must join it
    filters = TraceFilters.model_validate(SET)
    assert set(filters.query()) == FIELDS
    page = trace_query({k: v for k, v in SET.items() if k != "since"}, ("factuality",))
    assert page.filters.model_dump(exclude={"since"}) == filters.model_dump(exclude={"since"})


def test_a_bad_value_is_refused_in_the_same_words_by_the_cli_and_the_page():
    result = CliRunner().invoke(app, ["traces", "--verdict", "maybe"])
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: --verdict must be one of 'pass' or 'fail', got 'maybe'"
    try:
        trace_query({"verdict": "maybe"}, ("factuality",))
    except BadRequest as exc:
        assert str(exc) == "verdict must be one of 'pass' or 'fail', got 'maybe'"
    else:
        raise AssertionError("the page took a verdict that is not one")
    result = CliRunner().invoke(app, ["traces", "--issue", "three"])
    assert result.exit_code == 2 and "an issue id looks like SW-12" in result.stderr


def test_blank_text_is_any_and_a_blank_choice_is_refused_as_the_document_says():
    import pytest
    from pydantic import ValidationError

    assert TraceFilters.model_validate({"q": "  ", "service": ""}) == TraceFilters()
    for name in ("verdict", "certainty", "issue", "rubric", "until"):
        with pytest.raises(ValidationError):
            TraceFilters.model_validate({name: ""})
    # the page's form sends a blank field for "any": it filters nothing there
    assert trace_query({"q": "", "verdict": "", "certainty": "", "issue": "", "rubric": ""}, ("factuality",)
                       ).filters.model_dump(exclude={"since"}) == TraceFilters().model_dump(exclude={"since"})
