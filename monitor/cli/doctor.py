"""`sumwatch doctor`: check the set-up before trusting it: settings, database, and one small LLM call."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import typer

from ._shared import DbOption, HomeOption, JsonOption, err, load_settings, open_client, out, print_json


def doctor(db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Check settings, the database and the configured LLM (one small call: model, latency, cost)."""
    from sumwatch.clustering.llm_client import ping

    from ..scoring.judges import llm_connection

    settings = load_settings(db, home)
    with open_client(settings) as client:
        status = client.status()
    version, spans = status.schema_version, status.spans
    connection = llm_connection(settings)
    result = ping(connection) if connection is not None else None
    if json_:
        print_json({"database": settings.safe_url, "schema_version": version, "spans": int(spans),
                    "llm": asdict(result) if result else None})
    else:
        out.print(f"database: {settings.database} on {settings.safe_url}, schema version {version}, "
                  f"{int(spans)} spans stored", highlight=False)
        if result is None:
            out.print("llm: none configured (set SUMWATCH_LLM_MODEL); the offline tiers judge alone")
        elif result.ok:
            out.print(f"llm: {result.model} answered in {result.latency_ms:.0f} ms, {result.input_tokens} + "
                      f"{result.output_tokens} tokens, ${result.cost_usd:.6f}", highlight=False)
        else:
            err.print(f"[red]llm:[/red] {result.model} failed after {result.latency_ms:.0f} ms: {result.error}",
                      highlight=False)
    if result is not None and not result.ok:
        raise typer.Exit(1)
