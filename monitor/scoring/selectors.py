"""Configured selectors at work: their match as SQL (the sampler's cut stays in the database) and in Python,
and the summarization case an entry reads from a span it matches.

    selectors = Selectors.from_settings(settings)         # the entries of monitor/settings/selectors.py
    where = selectors.where(params)                        # "(match(SpanName, {sel0_0:String}) OR ...)"
    found = selectors.recognise("rag.answer", "api", attributes, events)   # Recognised | Refusal | None

The first entry that matches a span decides; a span no entry matches (None) goes to the built-in rules of
:mod:`.recognise`, and one they refuse too is stored and left alone. An entry's attribute may hold a JSON
message list (the request or the answer): it is read as messages with the built-in readers, and a template's
named group then cuts the document (or the summary) out of the text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..settings import Settings
from ..settings.patterns import PatternTimeout, user_pattern
from ..settings.selectors import Condition, Match, SelectorEntry, glob_regex
from .instrumentation_names import instrumentation_name
from .recognise import Recognised, Refusal, recognise, request_text, response_text


def _column(field: str, params: dict[str, Any], key: str) -> str:
    if field == "span_name":
        return "SpanName"
    if field == "service":
        return "ServiceName"
    params[key] = field[len("attr:"):]
    return f"SpanAttributes[{{{key}:String}}]"


def _condition_sql(c: Condition, params: dict[str, Any], key: str) -> str:
    column = _column(c.field, params, f"{key}k")
    if c.op == "eq":
        params[key] = c.value
        return f"{column} = {{{key}:String}}"
    params[key] = glob_regex(c.value) if c.op == "glob" else c.value
    return f"match({column}, {{{key}:String}})"


def _patterns(m: Match) -> list[str]:
    """The regular expressions a match sends to the database (globs become one)."""
    out = [glob_regex(c.value) if c.op == "glob" else c.value for c in m.conditions if c.op != "eq"]
    return out + [p for alt in m.any for p in _patterns(alt)]


def _match_sql(m: Match, params: dict[str, Any], key: str) -> str:
    parts = [_condition_sql(c, params, f"{key}_{i}") for i, c in enumerate(m.conditions)]
    if m.any:
        parts.append("(" + " OR ".join(_match_sql(alt, params, f"{key}a{i}") for i, alt in enumerate(m.any)) + ")")
    return "(" + " AND ".join(parts) + ")"


def _holds(c: Condition, span_name: str, service: str, attributes: Mapping[str, str]) -> bool:
    value = span_name if c.field == "span_name" else service if c.field == "service" \
        else attributes.get(c.field[len("attr:"):], "")
    if c.op == "eq":
        return value == c.value
    pattern = glob_regex(c.value) if c.op == "glob" else c.value
    try:
        return user_pattern(pattern).search(value) is not None
    except PatternTimeout:
        return False  # as the database would not wait on it either: the span is left to the other entries


def _matches(m: Match, span_name: str, service: str, attributes: Mapping[str, str]) -> bool:
    return (all(_holds(c, span_name, service, attributes) for c in m.conditions)
            and (not m.any or any(_matches(alt, span_name, service, attributes) for alt in m.any)))


def _cut(template: str, text: str, group: str) -> tuple[str, str]:
    """The template's named group in ``text`` ("" when it does not match), and why not when it overran."""
    try:
        found = user_pattern(template).search(text)
    except PatternTimeout as exc:
        return "", str(exc)
    return (found.groups.get(group, "") if found is not None else ""), ""


def _int(raw: str) -> int | None:
    try:
        return int(float(raw)) if raw else None
    except ValueError:
        return None


@dataclass(frozen=True)
class Selector:
    """One configured entry: ``Selector(entry).matches("rag.answer", "api", attributes)``."""

    entry: SelectorEntry

    @property
    def name(self) -> str:
        return self.entry.name

    def where(self, params: dict[str, Any], key: str) -> str:
        """The entry's match as a WHERE clause over ``otel_traces``, its values bound under ``key``."""
        return _match_sql(self.entry.match, params, key)

    def matches(self, span_name: str, service: str, attributes: Mapping[str, str]) -> bool:
        return _matches(self.entry.match, span_name, service, attributes)

    def read(self, attributes: Mapping[str, str]) -> Recognised | Refusal:
        """The case the entry says the span holds (call only for a span it matches)."""
        e = self.entry
        raw_source, raw_summary = attributes.get(e.source, ""), attributes.get(e.summary, "")
        if not raw_source.strip():
            return Refusal(e.name, f"no text under {e.source} (the selector's source)")
        if not raw_summary.strip():
            return Refusal(e.name, f"no text under {e.summary} (the selector's summary)")
        source, how = request_text(raw_source), f"selector {e.name}"
        if e.source_template:
            document, problem = _cut(e.source_template, source, "document")
            if not document.strip():
                return Refusal(e.name, problem or f"source_template does not match the text under {e.source}")
            source, how = document, how + "; document: template"
        summary = response_text(raw_summary)
        if e.summary_template:
            summary, problem = _cut(e.summary_template, summary, "summary")
            if not summary.strip():
                return Refusal(e.name, problem or f"summary_template does not match the text under {e.summary}")

        def value(key: str) -> str:
            return attributes.get(key, "") if key else ""

        return Recognised(e.name, source.strip(), summary.strip(), value(e.model), _int(value(e.input_tokens)),
                          _int(value(e.output_tokens)), how, value(e.band), value(e.document_id),
                          value(e.prompt_version))


@dataclass(frozen=True)
class Selectors:
    """The configured entries, in order; the first that matches a span decides."""

    entries: tuple[Selector, ...] = ()

    @classmethod
    def of(cls, entries: Sequence[SelectorEntry]) -> Selectors:
        return cls(tuple(Selector(e) for e in entries))

    @classmethod
    def from_settings(cls, settings: Settings) -> Selectors:
        return cls.of(settings.sampler.selector_entries())

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.entries)

    def refused_by(self, compile_regex: Callable[[str], object]) -> dict[str, str]:
        """name -> why, for each entry with a pattern ``compile_regex`` raises on (the database's RE2, which
        may differ from the one the settings checked with): :meth:`without` leaves those out."""
        refused: dict[str, str] = {}
        for entry in self.entries:
            for pattern in _patterns(entry.entry.match):
                try:
                    compile_regex(pattern)
                except Exception as exc:  # whatever the engine says: the entry is left out, with its reason
                    refused[entry.name] = f"{pattern!r}: {' '.join(str(exc).split())[:200]}"
                    break
        return refused

    def without(self, names: Sequence[str]) -> Selectors:
        return Selectors(tuple(s for s in self.entries if s.name not in names))

    def where(self, params: dict[str, Any]) -> str:
        """Any entry's match as one WHERE clause (``""`` without entries)."""
        return " OR ".join(s.where(params, f"sel{i}") for i, s in enumerate(self.entries))

    def first(self, span_name: str, service: str, attributes: Mapping[str, str]) -> Selector | None:
        return next((s for s in self.entries if s.matches(span_name, service, attributes)), None)

    def recognise(self, span_name: str, service: str, attributes: Mapping[str, str],
                  events: Sequence[Mapping[str, str]] = (), scope: str = "") -> Recognised | Refusal:
        """The first matching entry's reading of the span, else the built-in rules', named by the span's
        instrumentation scope (``scope``) where the built-in rules read it (:mod:`.instrumentation_names`)."""
        chosen = self.first(span_name, service, attributes)
        if chosen is not None:
            return chosen.read(attributes)
        found = recognise(span_name, attributes, events)
        name = instrumentation_name(scope, attributes, found.instrumentation)
        return found if name == found.instrumentation else replace(found, instrumentation=name)
