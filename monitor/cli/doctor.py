"""`sumwatch doctor`: check the set-up before trusting it: settings, database, one small LLM call, and one
real judge request (the judge's own prompt, read back by the judge's own parser)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ._shared import DbOption, HomeOption, JsonOption, engine_errors, err, load_settings, open_client, out, print_json

if TYPE_CHECKING:
    from ..contract.scores import InstrumentationCounts, RecognitionReport
    from ..contract.status import LlmSpend


def doctor(db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Check settings, the database and the configured LLM (one small call, then one judge request)."""
    settings = load_settings(db, home)
    with open_client(settings) as client:
        server = client.where if client.is_remote else None
        status = client.status()
        recognition = client.recognition()
    version, spans = status.schema_version, status.spans
    with engine_errors():  # the model of this command's settings, called from here
        from ..engine.checks import llm_check  # noqa: PLC0415 - start-up: a command imports what it runs

        result, judged = llm_check(settings)
    if json_:
        print_json({"database": settings.safe_url, "schema_version": version, "spans": int(spans),
                    "llm_spend": asdict(status.llm_spend),
                    "llm": asdict(result) if result else None, "judge": asdict(judged) if judged else None,
                    "recognition": asdict(recognition)})
    else:
        out.print(f"database: {settings.store.database} on {settings.safe_url}, schema version {version}, "
                  f"{int(spans)} spans stored", highlight=False)
        _print_recognition(recognition)
        _print_spend(status.llm_spend, server, settings.judge.llm_daily_cap_usd)
        if result is None:
            out.print("llm: none configured (set SUMWATCH_LLM_MODEL); the offline tiers judge alone")
        elif result.ok:
            out.print(f"llm: {result.model} answered in {result.latency_ms:.0f} ms, {result.input_tokens} + "
                      f"{result.output_tokens} tokens, ${result.cost_usd:.6f}", highlight=False)
        else:
            err.print(f"[red]llm:[/red] {result.model} failed after {result.latency_ms:.0f} ms: {result.error}",
                      highlight=False)
        if judged is not None and judged.ok:
            out.print(f"judge: the {judged.rubric} prompt came back as a valid verdict ({judged.verdict}) in "
                      f"{judged.latency_ms:.0f} ms", highlight=False)
        elif judged is not None:
            err.print(f"[red]judge:[/red] the {judged.rubric} prompt got no usable verdict: {judged.error}",
                      highlight=False)
    if (result is not None and not result.ok) or (judged is not None and not judged.ok):
        raise typer.Exit(1)


def _print_spend(spend: LlmSpend, server: str | None, own_cap: float | None) -> None:
    """Today's spend against the cap that applies: the server's when the command goes through one, said so
    when this command's own setting differs."""
    setting = "SUMWATCH_LLM_DAILY_CAP_USD" + (f" of the server at {server}" if server else "")
    cap = (f"of the ${spend.daily_cap_usd:.2f} daily cap ({setting})" if spend.daily_cap_usd is not None
           else f"with no daily cap ({setting}=off)")
    line = f"llm judging today ({spend.day} UTC): ${spend.spent_usd:.4f} {cap}"
    if server and own_cap != spend.daily_cap_usd:
        line += f"; it is {'off' if own_cap is None else f'{own_cap:g}'} here, which that server does not apply"
    if spend.capped or spend.unjudged_cap:
        line += (f"; the cap is reached: {spend.unjudged_cap} rubric results kept the cheap tiers' verdict "
                 f"(unjudged: cap; `sumwatch rescore` judges them again)")
    (err if spend.capped else out).print(line, highlight=False)


def _print_recognition(report: RecognitionReport) -> None:
    hours = report.window_s / 3600
    window = "hour" if hours == 1 else f"{hours:g} hours"
    read = "" if report.read == report.candidates else f" (the newest {report.read} of {report.candidates} read)"
    out.print(f"spans of the last {window} per service and instrumentation{read}:", highlight=False)
    if not report.rows or all(r.spans == 0 for r in report.rows):
        out.print("  none: no span stored in that time")
        return
    services: dict[str, list[InstrumentationCounts]] = {}
    for row in report.rows:
        services.setdefault(row.service, []).append(row)
    for service, rows in services.items():
        if all(r.spans == 0 for r in rows):
            continue
        out.print(f"  service {service or '(no service.name)'}:", highlight=False)
        for row in rows:
            if row.spans == 0 and (row.instrumentation != "sumwatch" or len(services) > 1):
                continue
            out.print(f"    {row.instrumentation}: {row.spans} spans, {row.recognised} recognised, "
                      f"{row.not_recognised} not", highlight=False)
            for reason in row.reasons:
                out.print(f"      {reason.spans} × {reason.reason}", highlight=False)
