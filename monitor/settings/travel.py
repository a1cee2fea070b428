"""A command's own settings against the server's: what travels with the request, and what is refused.

    shown = shown_settings(settings, export_config)          # the server's, in GET /api/status
    body, notes = travel("sample", own, shown, where)         # own: settings set in the command's env or flags
    # SettingsRefused: SUMWATCH_LLM_MODEL is openai/b here, but the sumwatch server at http://... applies its own ...

A command that goes through a running ``sumwatch up`` never drops a setting of its own silently: a value that
can travel goes in the request; one that cannot, and differs from the server's, stops the command with one line
saying which value applies and how to change it. A secret is never sent or shown: only whether one is set.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Any

from ..contract.status import Shown
from . import Settings
from .export_settings import ExportSettings as ExportConfig

_SET = "(set)"
# settings that say how to reach the database or the server, not what a command does with it
_CONNECTION = frozenset({"home", "clickhouse_url", "database", "cluster", "api_token", "host", "port"})
COMMANDS = ("sample", "calibrate", "cluster", "export")
# per command, from the settings' own fields (``affects`` and ``travels``, monitor/settings/concern.py): the
# settings that change what it does, and of those, the ones a request carries (setting -> body key)
RELEVANT: dict[str, tuple[str, ...]] = {
    command: tuple(name for name in Settings.names() if command in Settings.affects(name)) for command in COMMANDS}
TRAVELS: dict[str, dict[str, str]] = {
    command: {name: Settings.travels(name)[command] for name in Settings.names() if command in Settings.travels(name)}
    for command in COMMANDS}


class SettingsRefused(ValueError):
    """A setting of the command's own that the server would not apply."""


def _shown_value(value: Any, secret: bool) -> str | float | int | bool | None:
    if secret:
        return _SET if value else None
    if isinstance(value, Enum):
        return str(value.value)
    if value is None or isinstance(value, (str, float, int, bool)):
        return value
    return str(value)


def shown_settings(settings: Settings, config: ExportConfig) -> Shown:
    """The server's settings that commands compare with theirs; secrets only as set or not."""
    shown: Shown = {}
    for name, value in _flat(settings, config):
        if name not in _CONNECTION:
            shown[name] = _shown_value(value, Settings.secret(name))
    return shown


def own_settings(settings: Settings, config: ExportConfig, explicit: set[str]) -> Shown:
    """The values of the settings this command was given (``explicit``: set in its env or by its flags)."""
    own: Shown = {}
    for name, value in _flat(settings, config):
        if name in explicit and name not in _CONNECTION:
            # a secret is compared only as set or not: its text never leaves the command
            own[name] = _shown_value(value, Settings.secret(name))
    return own


def _flat(settings: Settings, config: ExportConfig) -> list[tuple[str, Any]]:
    """(flat name, value) for every setting, the tracker ones from ``config`` (the command's own reading)."""
    values = dict(settings.flat())
    values.update((name, getattr(config, name)) for name in ExportConfig.model_fields)
    return list(values.items())


def _label(name: str) -> str:
    return Settings.label(name)


def travel(command: str, own: Mapping[str, Any], server: Mapping[str, Any], where: str
           ) -> tuple[dict[str, Any], list[str]]:
    """(request fields for the settings that travel, notes to print); SettingsRefused for one that cannot
    travel and differs from the server's."""
    carried, notes = {}, []
    travels = TRAVELS.get(command, {})
    for name in RELEVANT.get(command, ()):
        if name not in own:
            continue
        if name in travels:
            carried[travels[name]] = own[name]
            continue
        secret = Settings.secret(name)
        mine, theirs = own[name], server.get(name)
        if secret:
            if mine and not theirs:
                raise SettingsRefused(f"{_label(name)} is set here, but the sumwatch server at {where} has none and "
                                      f"applies its own settings: set it where `sumwatch up` runs and restart it, "
                                      f"or stop the server to use yours")
            if mine:
                notes.append(f"{_label(name)}: the server's own applies (a secret is never sent)")
            continue
        if mine != theirs:
            applied = "none set" if theirs in (None, "") else theirs
            raise SettingsRefused(f"{_label(name)} is {mine} here, but the sumwatch server at {where} applies its own "
                                  f"({applied}): set it where `sumwatch up` runs and restart it, or stop the server "
                                  f"to use yours")
    return carried, notes
