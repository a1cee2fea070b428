"""`sumwatch config`: the settings in force, each with where its value came from.

    sumwatch config                      # every setting: variable, value, source, what it does
    sumwatch config --set                # only those given a value (a flag or the environment)
    sumwatch config --json               # [{"name", "variable", "value", "source", "rule", "default", ...}, ...]

A value comes from a flag (``--db``, ``--home``), else a ``SUMWATCH_*`` variable, else the default; nothing else
is read. A secret shows only whether it is set, and the ClickHouse URL without its password.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from ._shared import DbOption, HomeOption, JsonOption, flag, load_settings, out, print_json, table


def config(db: str | None = DbOption, home: Path | None = HomeOption,
           only_set: bool = flag(False, "--set", help="Only the settings given a value by a flag or the environment."),
           concern: str | None = typer.Option(None, "--concern", help="Only one concern: store, receiver, judge, "
                                                                     "sampler, clustering or exports."),
           json_: bool = JsonOption) -> None:
    """Print the settings in force, with where each value came from; secrets only as set or not."""
    from ..contract.values import choice_error  # noqa: PLC0415 - start-up: as above
    from ..settings import Settings  # noqa: PLC0415 - start-up: a command imports what it runs
    from ..settings.describe import describe_settings  # noqa: PLC0415 - start-up: as above

    settings = load_settings(db, home)
    if concern is not None and concern not in Settings.CONCERNS:
        from ._shared import fail  # noqa: PLC0415 - start-up: as above

        fail(choice_error("--concern", concern, Settings.CONCERNS))
    flags = {name for name, value in (("clickhouse_url", db), ("home", home)) if value is not None}
    rows = [row for row in describe_settings(settings, flags=flags)
            if (not only_set or row.source != "default") and (concern is None or row.concern == concern)]
    if json_:
        print_json(rows)
        return
    shown: list[list[Any]] = [[row.variable, _cell(row.value), row.source, row.description] for row in rows]
    out.print(table("settings in force", ["variable", "value", "source", "what it does"], shown, text_width=30,
                    caption="source: a flag, the environment (SUMWATCH_*), or the default"))


def _cell(value: str | float | int | bool | None) -> str:
    return "" if value is None else str(value)
