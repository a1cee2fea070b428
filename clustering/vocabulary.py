"""The words of clustering, defined once: an issue's severity and status, and how a failure's document part is
estimated (``FailureClusterer(document_part=...)``).

    Severity("high") >= ...          # Severity.HIGH; str(Severity.HIGH) == "high"
    IssueStatus.REGRESSED == "regressed"
    DocumentPart("by_shape")         # DocumentPart.BY_SHAPE, the default

Each is a ``str`` enum, so a member compares equal to, and is stored as, its text; ``Choice`` makes ``str()``
and f-strings give that text too (a plain ``(str, Enum)`` prints ``Severity.HIGH``). The lowest room that
needs them owns them: the tracker sets statuses, the namer severities and the pipeline reads the document
part, and ``sumwatch.monitor`` imports them.
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


class DocumentPart(Choice):
    """How the part of a failure's vector that comes from its source document is estimated (and taken away)."""

    BY_SHAPE = "by_shape"        # the default: other_kinds where a document repeats a kind, else half of each
    OTHER_KINDS = "other_kinds"  # the mean of the document's failures of other kinds
    KIND_MEANS = "kind_means"    # the document's failures' mean deviation from their kinds' means
