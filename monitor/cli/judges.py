"""`sumwatch judges`: how often the cheap tiers and the LLM agree, on the cases the cascade sent it."""

from __future__ import annotations

from pathlib import Path

import typer

from ._shared import DbOption, HomeOption, JsonOption, load_settings, open_client, out, print_json, table


def judges(judge_version: str | None = typer.Option(None, "--judge-version", help="Only this judge version."),
           db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Agreement of the cheap tiers with the LLM per rubric and finding: suspicions it confirmed or
    rejected, unsure passes it settled, and the audit sample of confident results; LLM calls and cost."""
    with open_client(load_settings(db, home)) as client:
        rows = client.judge_agreement(judge_version)
    if json_:
        print_json(rows)
        return
    if not rows:
        out.print("no LLM judgements yet: configure SUMWATCH_LLM_MODEL and run `sumwatch sample` "
                  "(`sumwatch doctor` checks the model)")
        return
    calls, cost = sum(r.judged for r in rows), sum(r.cost_usd for r in rows)
    out.print(table("cheap tiers against the LLM", ["rubric", "route", "cheap finding", "LLM verdicts", "agree",
                                                     "cost (USD)"],
                    [(r.rubric, r.route, r.cheap_finding or "(pass)", r.judged, f"{r.agreed / r.judged:.0%}",
                      f"{r.cost_usd:.4f}") for r in rows],
                    caption=f"{calls} LLM judgements, ${cost:.4f}; route: suspicion = a cheap failure the LLM "
                            f"checked, unsure = an unsettled pass, audit = a sampled confident result"))
