"""Today's LLM judging spend against its daily cap, where people look: GET /api/status, the overview page and
`sumwatch doctor`."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from served import serve
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.rubrics.cascade import CAP_ROW
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores


def _spend(store, usd: float, capped: int) -> None:
    """LLM verdicts costing ``usd`` in all, and ``capped`` cheap ones the cap kept from the LLM, stored today."""
    now = time.time_ns()
    llm = [ScoredSpan(SpanRef(f"{i:032x}", f"{i:016x}", now), {"factuality": RubricResult.make(
        "factuality", "correct", tier="llm", cost_usd=usd / 4, model="openai/judge")}) for i in range(4)]
    kept = [ScoredSpan(SpanRef(f"{i:032x}", f"{i:016x}", now), {"factuality": RubricResult.make(
        "factuality", "correct", tier="rules", details=(CAP_ROW,))}) for i in range(10, 10 + capped)]
    write_scores(store, llm + kept, "v1")


@pytest.mark.integration
def test_status_and_overview_show_the_spend_against_the_cap(store, settings):
    _spend(store, 1.2, capped=3)
    server = serve(settings.with_(llm_daily_cap_usd=1.0), store)
    try:
        with httpx.Client(base_url=server.endpoint, timeout=30) as client:
            spend = client.get("/api/status").json()["llm_spend"]
            page = client.get("/").text
    finally:
        server.stop()
    assert spend["spent_usd"] == 1.2 and spend["daily_cap_usd"] == 1.0
    assert spend["capped"] is True and spend["unjudged_cap"] == 3
    assert "LLM spend today" in page and "cap reached" in page and "3 results left to the cheap tiers" in page


def test_doctor_says_the_spend_and_the_cap(store, cli_env):
    _spend(store, 0.4, capped=0)
    runner = CliRunner()
    said = runner.invoke(app, ["doctor"], env={**cli_env, "SUMWATCH_LLM_DAILY_CAP_USD": "2"})
    assert said.exit_code == 0, said.output
    assert "llm judging today" in said.stdout and "$0.4000 of the $2.00 daily cap" in said.stdout
    off = runner.invoke(app, ["doctor", "--json"], env={**cli_env, "SUMWATCH_LLM_DAILY_CAP_USD": "off"})
    assert json.loads(off.stdout)["llm_spend"]["daily_cap_usd"] is None
