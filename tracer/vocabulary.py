"""The words every room shares: an issue's severity and where it stands (its status).

    Severity("high") >= ...          # Severity.HIGH; str(Severity.HIGH) == "high"
    IssueStatus.REGRESSED == "regressed"

They live in the lowest room so that the tracer, clustering and monitor can all name them: clustering's tracker
sets statuses and its namer severities, monitor stores, filters and exports both. It needs the standard library
only, so the tracer stays light in the production apps it goes into.

Each is a ``str`` enum, so a member compares equal to, and is stored as, its text; ``Choice`` makes ``str()``
and f-strings give that text too (a plain ``(str, Enum)`` prints ``Severity.HIGH``). Other closed vocabularies
(a rubric's verdicts, a sentence model's backend) subclass ``Choice`` where they are defined.
"""

from __future__ import annotations

from enum import Enum


class Choice(str, Enum):
    """A closed vocabulary of texts: ``str(member)`` and ``f"{member}"`` are its value."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """The members' texts in order: ``Severity.values() == ("low", "medium", "high", "critical")``."""
        return tuple(str(m.value) for m in cls)


class Severity(Choice):
    """How bad an issue is, mildest first (the order ranks them)."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        return list(Severity).index(self)


class IssueStatus(Choice):
    """Where an issue stands across clustering runs."""

    NEW = "new"
    ONGOING = "ongoing"
    REGRESSED = "regressed"
    RESOLVED = "resolved"
