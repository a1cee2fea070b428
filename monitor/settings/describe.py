"""Every setting as a row a person reads: its variable and flag, the value in force, where that value came from
and what it does, read from the fields themselves (``sumwatch config`` prints them; README's settings table is
written from the same rows).

    rows = describe_settings(settings, flags={"home"})   # home came from --home
    rows[0].variable, rows[0].value, rows[0].source       # "SUMWATCH_HOME", "/srv/sumwatch", "flag --home"
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import SecretStr

from . import Settings, redact_url

SET = "(set)"


@dataclass(frozen=True)
class SettingRow:
    name: str  # the flat name (``port``)
    concern: str  # store, receiver, judge, sampler, clustering or exports
    variable: str  # SUMWATCH_PORT
    flag: str  # --port, or "" where no flag sets it
    value: str | float | int | bool | None  # a secret as "(set)" or None; the ClickHouse URL without its password
    source: str  # "flag --port", "environment", or "default"
    description: str
    secret: bool


def _shown(name: str, value: Any, secret: bool) -> str | float | int | bool | None:
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


def describe_settings(settings: Settings, *, flags: set[str] = frozenset(),  # type: ignore[assignment]
                      env: Mapping[str, str] | None = None) -> list[SettingRow]:
    """One row per setting of ``settings``, in the concerns' order; ``flags`` names the settings a command-line
    flag gave, ``env`` is the environment it was read from (the process's by default)."""
    explicit = Settings.explicit(os.environ if env is None else env)
    rows = []
    for name, value in settings.flat():
        concern = Settings.concern_of(name)
        info = Settings.model_fields[concern].annotation.model_fields[name]  # type: ignore[union-attr]
        extra = info.json_schema_extra if isinstance(info.json_schema_extra, Mapping) else {}
        flag = str(extra.get("flag", ""))
        source = f"flag {flag}" if name in flags and flag else "environment" if name in explicit else "default"
        secret = Settings.secret(name)
        rows.append(SettingRow(name, concern, Settings.env_var(name), flag, _shown(name, value, secret), source,
                               info.description or "", secret))
    return rows
