"""Threshold alert rules (``SUMWATCH_ALERT_RULES``): a rubric's pass rate below a share over a window.

    rules = parse_alert_rules("groundedness<90%/1h/min50@slack; factuality<0.95/6h/min100/service=api@webhook")
    rules[1].service, rules[1].threshold, rules[1].window_s     # "api", 0.95, 21600.0
    parse_alert_rules("groundedness<90%/1x@slack")
    # ValueError: rule 1 'groundedness<90%/1x@slack': window: a duration is ...
    # (read from the environment: SettingsError: SUMWATCH_ALERT_RULES rule 1 ...)

One rule is ``RUBRIC<RATE/WINDOW[/minN][/service=NAME][/model=NAME]@TARGET``; rules are separated by ``;``.
RATE is a share (``0.9``) or a percentage (``90%``); WINDOW a duration (``1h``, ``30m``, ``7d``); ``minN`` the
judged spans needed before the rule may fire (default :data:`DEFAULT_MIN_JUDGED`); TARGET ``slack`` or
``webhook``. A rule's canonical text (:attr:`AlertRule.key`) names its state in the store, so the same rule
written with other spacing keeps its state.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .values import parse_duration

ALERT_RULE_TARGETS = ("slack", "webhook")
DEFAULT_MIN_JUDGED = 20  # a rate from a handful of judgements swings too far to page anyone
_NAME = re.compile(r"^[A-Za-z0-9_.:\-]+$")
_FILTERS = ("service", "model")


@dataclass(frozen=True)
class AlertRule:
    """One threshold rule: fire when ``rubric``'s pass rate over ``window`` is below ``threshold``."""

    rubric: str
    threshold: float  # a share in (0, 1]
    window: str  # as written: 1h
    window_s: float
    min_judged: int
    target: str  # slack | webhook
    service: str = ""  # "" is every service
    model: str = ""  # "" is every model

    @property
    def key(self) -> str:
        """The rule in its canonical form: ``groundedness<0.9/1h/min50/service=api@slack``."""
        scope = "".join(f"/{name}={value}" for name, value in (("service", self.service), ("model", self.model))
                        if value)
        return f"{self.rubric}<{self.threshold:g}/{self.window}/min{self.min_judged}{scope}@{self.target}"

    def describe(self) -> str:
        """In words: ``groundedness pass rate below 90% over 1h (service api)``."""
        scope = ", ".join(f"{name} {value}" for name, value in (("service", self.service), ("model", self.model))
                          if value)
        return (f"{self.rubric} pass rate below {self.threshold:.0%} over {self.window}"
                + (f" ({scope})" if scope else ""))


def parse_alert_rules(text: str) -> list[AlertRule]:
    """The rules in ``text`` (empty: none); ValueError, one line naming the rule and its field, for a bad one."""
    rules: list[AlertRule] = []
    for number, raw in enumerate((part.strip() for part in text.split(";")), start=1):
        if not raw:
            continue
        try:
            rule = _parse_rule(raw)
        except ValueError as exc:
            raise ValueError(f"rule {number} {raw!r}: {exc}") from None
        if any(r.key == rule.key for r in rules):
            raise ValueError(f"rule {number} {raw!r}: the same rule is given twice")
        rules.append(rule)
    return rules


def _parse_rule(raw: str) -> AlertRule:
    body, at, target = raw.rpartition("@")
    if not at:
        raise ValueError(f"target: missing; end the rule with @{' or @'.join(ALERT_RULE_TARGETS)}")
    target = target.strip().lower()
    if target not in ALERT_RULE_TARGETS:
        raise ValueError(f"target: must be one of {', '.join(ALERT_RULE_TARGETS)}, got {target!r}")
    rubric, lt, rest = body.partition("<")
    rubric = rubric.strip()
    if not lt:
        raise ValueError("rubric: write the rule as RUBRIC<RATE/WINDOW@TARGET, like groundedness<90%/1h@slack")
    if not _NAME.match(rubric):
        raise ValueError(f"rubric: must be a rubric's name, got {rubric!r}")
    parts = [p.strip() for p in rest.split("/")]
    if len(parts) < 2:
        raise ValueError("window: missing; give one after the rate, like <90%/1h")
    threshold = _rate(parts[0])
    try:
        window_s = parse_duration(parts[1])
    except ValueError as exc:
        raise ValueError(f"window: {exc}") from None
    min_judged, scope = DEFAULT_MIN_JUDGED, {name: "" for name in _FILTERS}
    for part in parts[2:]:
        name, eq, value = part.partition("=")
        if not eq and part.lower().startswith("min"):
            min_judged = _min_judged(part[3:])
        elif eq and name.strip().lower() in _FILTERS and value.strip():
            scope[name.strip().lower()] = value.strip()
        else:
            raise ValueError(f"{name.strip() or 'option'}: expected minN, service=NAME or model=NAME, got {part!r}")
    return AlertRule(rubric, threshold, parts[1].lower(), window_s, min_judged, target, scope["service"],
                     scope["model"])


def _rate(text: str) -> float:
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise ValueError(f"rate: must be a share like 0.9 or a percentage like 90%, got {text!r}") from None
    if not 0 < value <= 1:
        raise ValueError(f"rate: must be above 0 and at most 1 (100%), got {text!r}")
    return round(value, 6)


def _min_judged(text: str) -> int:
    if not text.strip().isdigit() or int(text) < 1:
        raise ValueError(f"min: must be a whole number of judged spans, at least 1, like min50, got 'min{text}'")
    return int(text)
