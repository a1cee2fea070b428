"""Every setting as a row a person reads: its variable and flag, the value in force, where that value came from,
its default, the rule its value follows and what it does, read from the fields themselves (``sumwatch config``
prints them; the docs site's settings reference is generated from the same fields at each build).

    rows = describe_settings(settings, flags={"home"})   # home came from --home
    rows[0].variable, rows[0].value, rows[0].source       # "SUMWATCH_HOME", "/srv/sumwatch", "flag --home"
    print(settings_markdown())                            # the reference's tables, one per concern

    python -m sumwatch.monitor.settings.describe --markdown                  # the table on stdout
    python -m sumwatch.monitor.settings.describe --markdown --write FILE.md     # between a file's markers
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo

from . import Settings, redact_url

SET = "(set)"
START, END = "<!-- settings:start -->", "<!-- settings:end -->"
COMMAND = "python -m sumwatch.monitor.settings.describe --markdown"

Shown = str | float | int | bool | None


@dataclass(frozen=True)
class SettingRow:
    name: str  # the flat name (``port``)
    concern: str  # store, receiver, judge, sampler, clustering or exports
    variable: str  # SUMWATCH_PORT
    flag: str  # --port, or "" where no flag sets it
    value: Shown  # a secret as "(set)" or None; the ClickHouse URL without its password
    source: str  # "flag --port", "environment", or "default"
    description: str
    secret: bool
    rule: str  # what the value may be, in words ("0 to 65535"); "" for any text
    default: Shown  # shown like the value (a secret's default is never shown)


def _shown(name: str, value: Any, secret: bool) -> Shown:
    if name == "clickhouse_url":
        return redact_url(value) if value else None
    if secret:
        plain = value.get_secret_value() if isinstance(value, SecretStr) else value
        return SET if plain else None
    if isinstance(value, Enum):
        return str(value.value)
    if value is None or isinstance(value, (str, float, int, bool)):
        return value
    return str(value)


def _field(name: str) -> FieldInfo:
    model = Settings.model_fields[Settings.concern_of(name)].annotation
    assert isinstance(model, type) and issubclass(model, BaseModel)
    return model.model_fields[name]


def _flag(info: FieldInfo) -> str:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, Mapping) else {}
    return str(extra.get("flag", ""))


def describe_settings(settings: Settings, *, flags: set[str] = frozenset(),  # type: ignore[assignment]
                      env: Mapping[str, str] | None = None) -> list[SettingRow]:
    """One row per setting of ``settings``, in the concerns' order; ``flags`` names the settings a command-line
    flag gave, ``env`` is the environment it was read from (the process's by default)."""
    explicit = Settings.explicit(os.environ if env is None else env)
    rows = []
    for name, value in settings.flat():
        info = _field(name)
        flag = _flag(info)
        source = f"flag {flag}" if name in flags and flag else "environment" if name in explicit else "default"
        secret = Settings.secret(name)
        rows.append(SettingRow(name=name, concern=Settings.concern_of(name), variable=Settings.env_var(name),
                               flag=flag, value=_shown(name, value, secret), source=source,
                               description=info.description or "", secret=secret, rule=Settings.rule(name),
                               default=None if secret else _shown(name, info.default, secret)))
    return rows


# -- the reference's table -----------------------------------------------------------------------------------

def _cell(text: str) -> str:
    """Text for a markdown table cell: pipes, asterisks and angle brackets kept as written."""
    for char in ("\\", "|", "*", "<"):
        text = text.replace(char, "\\" + char)
    return text


def _default_cell(value: Shown) -> str:
    if value is None or value == "":
        return "none"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, float):
        return f"`{value:g}`"
    return f"`{value}`"


def settings_markdown() -> str:
    """Every setting as markdown: a table per concern (variable, flag, default, rule, what it does), from the
    fields' declarations alone, whatever the environment holds."""
    parts = [f"<!-- generated from the fields in monitor/settings by `{COMMAND}`; edit those, not this -->"]
    for concern in Settings.CONCERNS:
        model = Settings.model_fields[concern].annotation
        assert isinstance(model, type) and issubclass(model, BaseModel)
        title = (model.__doc__ or "").strip().splitlines()[0]
        parts += ["", f"**{concern}**. {title}", "",
                  "| variable | flag | default | rule | what it does |", "|---|---|---|---|---|"]
        for name in model.model_fields:
            if Settings.concern_of(name) != concern:
                continue  # a variable two concerns read is listed once, with the first
            info = _field(name)
            secret = Settings.secret(name)
            flag = _flag(info)
            default = "none" if secret else _default_cell(_shown(name, info.default, secret))
            parts.append(f"| `{Settings.env_var(name)}` | {f'`{flag}`' if flag else ''} | {default} | "
                         f"{_cell(Settings.rule(name))} | {_cell(info.description or '')} |")
    return "\n".join(parts) + "\n"


def with_table(text: str, table: str) -> str:
    """``text`` (README.md) with ``table`` between its settings markers; ValueError when they are missing."""
    head, start, rest = text.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"no {START} ... {END} markers")
    return f"{head}{START}\n{table}{END}{tail}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sumwatch.monitor.settings.describe",
                                     description="Every sumwatch setting, from the fields that declare it.")
    parser.add_argument("--markdown", action="store_true", required=True,
                        help="a markdown table per concern: variable, flag, default, rule, what it does")
    parser.add_argument("--write", type=Path, metavar="README.md",
                        help="put the table between the file's settings markers instead of printing it")
    args = parser.parse_args(argv)
    table = settings_markdown()
    if args.write is None:
        sys.stdout.write(table)
        return 0
    args.write.write_text(with_table(args.write.read_text(), table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
