"""Selectors as configuration: which other spans are summarizations, and where their texts are.

    entries = read_selectors("/etc/sumwatch/selectors.toml", {"RAG": '{"span_name": "rag.answer", ...}'})
    entries[0].name, entries[0].match, entries[0].source

A file (``SUMWATCH_SELECTORS``, TOML) holds ``[[selector]]`` tables; each ``SUMWATCH_SELECTOR_<NAME>`` variable
holds one entry as a JSON object (its name: ``<NAME>`` in lower case, unless the object names one). An entry's
match keys are ANDed; ``any`` lists alternative matches (each a table of the same keys)::

    [[selector]]
    name = "rag"
    span_name_glob = "rag.*"                       # or span_name, span_name_regex; service, service_glob, ...
    attributes = { "llm.request.type" = "chat" }   # equality; attribute_globs, attribute_regexes alike
    any = [{ service = "api" }, { service = "worker" }]
    source = "input.value"                         # attribute keys; a JSON message list is read as messages
    summary = "output.value"
    source_template = 'Document:\\s*(?P<document>.+)'   # optional: the document cut out of the text
    model = "llm.model_name"                        # optional keys: model, input_tokens, output_tokens, band,
                                                    # document_id, prompt_version (summary_template too)

Regular expressions are searched (not anchored) and run in the database too, so both sides read them with
RE2 (:mod:`.patterns`): no look-around, back-references, atomic groups or possessive quantifiers. Globs
know ``*`` and ``?``. A bad entry is one line naming the file or variable, the entry and the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .patterns import PatternError, UserPattern, user_pattern
from .user_files import UserFileError, parse_toml, read_user_text

SELECTOR_VARIABLE_PREFIX = "SUMWATCH_SELECTOR_"
FIELDS = ("span_name", "service")  # what a match compares besides attributes
OPS = ("eq", "glob", "regex")
TEXT_KEYS = ("source", "summary")
OPTIONAL_KEYS = ("model", "input_tokens", "output_tokens", "band", "document_id", "prompt_version")
TEMPLATE_GROUPS = {"source_template": "document", "summary_template": "summary"}
_MATCH_KEYS = frozenset({f"{f}{suffix}" for f in FIELDS for suffix in ("", "_glob", "_regex")}
                        | {"attributes", "attribute_globs", "attribute_regexes", "any"})
_ENTRY_KEYS = _MATCH_KEYS | {"name", *TEXT_KEYS, *OPTIONAL_KEYS, *TEMPLATE_GROUPS}
_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*$")


class SelectorError(ValueError):
    """One line: where (file or variable), which entry, which field, what is wrong."""


@dataclass(frozen=True)
class Condition:
    """One comparison: ``field`` is span_name, service or attr:KEY; ``op`` eq, glob or regex."""

    field: str
    op: str
    value: str


@dataclass(frozen=True)
class Match:
    """Every condition holds, and (when any is given) one of the alternatives does."""

    conditions: tuple[Condition, ...] = ()
    any: tuple[Match, ...] = ()


@dataclass(frozen=True)
class SelectorEntry:
    name: str
    match: Match
    source: str
    summary: str
    source_template: str = ""
    summary_template: str = ""
    model: str = ""
    input_tokens: str = ""
    output_tokens: str = ""
    band: str = ""
    document_id: str = ""
    prompt_version: str = ""
    origin: str = ""  # the file or variable it came from


def read_selectors(path: str | None, variables: Mapping[str, str] | None = None, *,
                   legacy: tuple[tuple[tuple[str, str], ...], str, str] | None = None) -> tuple[SelectorEntry, ...]:
    """The entries of the file, then of the variables (by name), then the legacy single filter."""
    entries: list[SelectorEntry] = []
    if path:
        where = f"SUMWATCH_SELECTORS {path}"
        try:
            data = parse_toml(read_user_text(Path(path)))
        except OSError as exc:
            raise SelectorError(f"{where}: cannot read the file ({exc.strerror or exc})") from None
        except UserFileError as exc:
            raise SelectorError(f"{where}: {exc}") from None
        unknown = sorted(set(data) - {"selector"})
        if unknown:
            raise SelectorError(f"{where}: unknown table {unknown[0]!r} (entries are [[selector]] tables)")
        tables = data.get("selector", [])
        if not isinstance(tables, list):
            raise SelectorError(f"{where}: selector must be [[selector]] tables")
        for i, table in enumerate(tables):
            label = f"selector {table.get('name')!r}" if isinstance(table, dict) and table.get("name") \
                else f"selector #{i + 1}"
            entries.append(_entry(table, where, label, None))
    for suffix, raw in sorted((variables or {}).items()):
        where = f"{SELECTOR_VARIABLE_PREFIX}{suffix}"
        try:
            table = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise SelectorError(f"{where}: not a JSON object ({exc.msg} at character {exc.pos})") from None
        except RecursionError:
            raise SelectorError(f"{where}: a JSON object nested too deeply to read") from None
        try:
            json.dumps(table, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError as exc:  # "\\ud800", or bytes of the environment that are not UTF-8
            raise SelectorError(f"{where}: holds text that is not Unicode ({exc.object[exc.start]!r})") from None
        entries.append(_entry(table, where, f"selector {suffix.lower()!r}", suffix.lower()))
    if legacy and legacy[0]:
        filters, source, summary = legacy
        conditions = tuple(Condition(key, "eq", value) for key, value in filters)
        entries.append(SelectorEntry("span_filter", Match(conditions), source, summary, origin="SUMWATCH_SPAN_FILTER"))
    seen: dict[str, str] = {}
    for entry in entries:
        if entry.name in seen:
            raise SelectorError(f"{entry.origin}: selector {entry.name!r} is named twice (also in {seen[entry.name]})")
        seen[entry.name] = entry.origin
    return tuple(entries)


def _entry(table: Any, where: str, label: str, default_name: str | None) -> SelectorEntry:
    if not isinstance(table, dict):
        raise SelectorError(f"{where}: {label} must be a table of keys")
    name = table.get("name", default_name)
    if not isinstance(name, str) or not _NAME.match(name):
        raise SelectorError(f"{where}: {label} needs a name (letters, digits, '.', '_', '-'), got {name!r}")
    label = f"selector {name!r}"
    unknown = sorted(set(table) - _ENTRY_KEYS)
    if unknown:
        raise SelectorError(f"{where}: {label} has an unknown key {unknown[0]!r}")
    match = _match(table, where, label)
    if not match.conditions and not match.any:
        raise SelectorError(f"{where}: {label} matches nothing: give span_name, service, attributes (or their "
                            f"_glob/_regex forms) or any")
    values: dict[str, str] = {}
    for key in (*TEXT_KEYS, *OPTIONAL_KEYS, *TEMPLATE_GROUPS):
        value = table.get(key, "")
        if not isinstance(value, str):
            raise SelectorError(f"{where}: {label} has a {key} that is not text (an attribute key)")
        values[key] = value.strip() if key not in TEMPLATE_GROUPS else value
    for key in TEXT_KEYS:
        if not values[key]:
            raise SelectorError(f"{where}: {label} needs {key} (the attribute key holding the {key} text)")
    for key, group in TEMPLATE_GROUPS.items():
        if values[key]:
            pattern = _regex(values[key], where, label, key)
            if group not in pattern.names:
                raise SelectorError(f"{where}: {label} has a {key} without a named group (?P<{group}>...)")
    return SelectorEntry(name, match, origin=where, **values)


def _match(table: Mapping[str, Any], where: str, label: str) -> Match:
    conditions: list[Condition] = []
    for field in FIELDS:
        for op, suffix in (("eq", ""), ("glob", "_glob"), ("regex", "_regex")):
            key = field + suffix
            if key in table:
                conditions.append(_condition(field, op, table[key], where, label, key))
    for op, key in (("eq", "attributes"), ("glob", "attribute_globs"), ("regex", "attribute_regexes")):
        if key not in table:
            continue
        pairs = table[key]
        if not isinstance(pairs, dict) or not pairs:
            raise SelectorError(f"{where}: {label} has {key} that is not a table of attribute = value")
        for attr, value in pairs.items():
            conditions.append(_condition(f"attr:{attr}", op, value, where, label, f"{key}.{attr}"))
    alternatives: list[Match] = []
    if "any" in table:
        listed = table["any"]
        if not isinstance(listed, list) or not listed:
            raise SelectorError(f"{where}: {label} has any that is not a list of matches")
        for i, item in enumerate(listed):
            if not isinstance(item, dict) or not item:
                raise SelectorError(f"{where}: {label} has any[{i}] that is not a table of match keys")
            unknown = sorted(set(item) - _MATCH_KEYS)
            if unknown:
                raise SelectorError(f"{where}: {label} has an unknown key {unknown[0]!r} in any[{i}]")
            alternatives.append(_match(item, where, label))
    return Match(tuple(conditions), tuple(alternatives))


def _condition(field: str, op: str, value: Any, where: str, label: str, key: str) -> Condition:
    if not isinstance(value, str):
        raise SelectorError(f"{where}: {label} has a {key} that is not text, got {value!r}")
    if op == "regex":
        _regex(value, where, label, key)
    return Condition(field, op, value)


def _regex(value: str, where: str, label: str, key: str) -> UserPattern:
    try:
        return user_pattern(value)
    except PatternError as exc:
        raise SelectorError(f"{where}: {label} has a regular expression in {key} that RE2 (the database's "
                            f"engine) refuses: {exc}") from None


def glob_regex(glob: str) -> str:
    """``*`` and ``?`` as a whole-text regular expression both Python and RE2 read: ``glob_regex("a*")``."""
    out = []
    for ch in glob:
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif ch in r".^$+()[]{}|\/":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "(?s)^" + "".join(out) + "$"


def entries_of(variables: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The ``SUMWATCH_SELECTOR_<NAME>`` variables of an environment, by ``<NAME>``."""
    start = len(SELECTOR_VARIABLE_PREFIX)
    return {name[start:]: value for name, value in variables
            if name.startswith(SELECTOR_VARIABLE_PREFIX) and len(name) > start and value.strip()}
