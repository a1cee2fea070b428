"""What an issue looks like outside sumwatch: one record every target renders in its own format.

    payload = build_payload(store, detail, config)          # IssueDetail -> IssuePayload
    payload.markdown(limit=65_000)                          # GitHub, Linear, Markdown files
    clip("a long text", 6)                                  # "a lo…"

The marker (``sumwatch:SW-3``) goes into every ticket, so a create that timed out after the tracker stored
it is found again instead of being sent twice.
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

from ..contract.issues import IssueDetail, trend_label
from ..settings.patterns import PatternTimeout, user_pattern
from ..store.connection import Store
from ..store.judges import active_definitions
from ..store.traces import span_texts
from .config import ExportConfig
from .transport import scrubber

ELLIPSIS = "…"
REDACTED = "[redacted]"  # what each hit of SUMWATCH_EXPORT_REDACT becomes
log = logging.getLogger(__name__)


def clip(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters, cut at a word where one is near, never inside a surrogate pair."""
    text = text or ""
    if len(text) <= limit:
        return text
    if limit <= 1:
        return text[:max(limit, 0)]
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    if space > limit * 0.8:
        cut = cut[:space]
    return cut.rstrip() + ELLIPSIS


@dataclass
class Representative:
    trace_id: str
    rubric: str
    verdict: str
    evidence: str
    summary: str
    source: str  # "" when source text is not exported
    trace_url: str
    membership: float = 1.0  # the clusterer's soft membership of the example in the issue
    core: bool = True  # False: shown although the clustering was unsure of it (a boundary case)


@dataclass
class IssuePayload:
    """Everything a ticket says about one issue."""

    issue_id: str
    number: int
    title: str
    description: str
    root_cause: str
    fix: str
    severity: str
    status: str
    rubric: str
    failure_mode: str
    traces: int
    members: int
    share: float
    trend: list[int]
    trend_text: str
    issue_url: str
    representatives: list[Representative] = field(default_factory=list)
    # a team's own rubric, as its active definition says it: the question it asks and what the failure mode
    # means (empty for the built-in rubrics, whose names a reader of the ticket already knows)
    rubric_question: str = ""
    failure_mode_means: str = ""

    @property
    def marker(self) -> str:
        return f"sumwatch:{self.issue_id}"

    @property
    def marker_comment(self) -> str:
        """The marker as a Markdown body carries it, whole (``sumwatch:SW-1`` is also in ``sumwatch:SW-12``)."""
        return f"<!-- {self.marker} -->"

    def summary_line(self) -> str:
        return (f"{self.severity} · {self.status} · {self.rubric} / {self.failure_mode} · {self.traces} traces "
                f"({self.share:.0%} of failures) · trend {self.trend_text}")

    def counts_line(self) -> str:
        return f"{self.traces} traces, {self.members} failures, {self.share:.0%} of failures; trend {self.trend_text}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def markdown(self, limit: int) -> str:
        """The ticket body in Markdown within ``limit`` characters: excerpts shrink first, the marker stays."""
        for excerpt in (None, 300, 120, 0):
            text = self._markdown(excerpt)
            if len(text) <= limit:
                return text
        return clip(self._markdown(0), limit - len(self.marker_comment) - 2) + "\n\n" + self.marker_comment

    def _markdown(self, excerpt: int | None) -> str:
        def cut(text: str) -> str:
            return text if excerpt is None else clip(text, excerpt)

        lines = [f"**{self.issue_id}** · {self.summary_line()}", "", cut(self.description), ""]
        if self.rubric_question:
            lines += [f"**Rubric {self.rubric}:** {cut(self.rubric_question)}", ""]
        if self.failure_mode_means:
            lines += [f"**Failure mode {self.failure_mode}:** {cut(self.failure_mode_means)}", ""]
        lines += [f"**Probable root cause:** {cut(self.root_cause)}", "", f"**Fix:** {cut(self.fix)}", ""]
        if self.issue_url:
            lines += [f"[Open {self.issue_id} in sumwatch]({self.issue_url})", ""]
        if excerpt != 0:
            for i, rep in enumerate(self.representatives, 1):
                link = f" · [trace]({rep.trace_url})" if rep.trace_url else ""
                where = f"membership {rep.membership:.2f}" + ("" if rep.core else ", boundary case")
                lines += [f"### Example {i}: {rep.rubric} / {rep.verdict} ({where}, `{rep.trace_id}`){link}", "",
                          f"**Judge's evidence:** {cut(rep.evidence)}", ""]
                if rep.summary:
                    lines += ["**Summary:**", "", _quote(cut(rep.summary)), ""]
                if rep.source:
                    lines += ["**Source (excerpt):**", "", _quote(cut(rep.source)), ""]
        lines.append(self.marker_comment)
        return "\n".join(lines)


def _quote(text: str) -> str:
    return "\n".join("> " + line for line in text.splitlines() or [""])


def _redactor(config: ExportConfig) -> Any:
    pattern = user_pattern(config.export_redact) if config.export_redact else None
    scrub = scrubber(config)

    def redact(text: str) -> str:
        text = text or ""
        if pattern is not None and text:
            try:
                text = pattern.sub(REDACTED, text)
            except PatternTimeout as exc:  # a text the pattern cannot finish leaves whole, never unredacted
                log.warning("SUMWATCH_EXPORT_REDACT: %s; the whole text is exported as %s", exc, REDACTED)
                text = REDACTED
        return scrub(text)
    return redact


def build_payload(store: Store | None, detail: IssueDetail, config: ExportConfig) -> IssuePayload:
    """The payload of one issue: its texts redacted, up to ``export_representatives`` examples with excerpts of
    their summary (and source, unless ``export_source_text`` is off) read from the stored spans."""
    s = detail
    redact = _redactor(config)
    reps = detail.representatives[:config.export_representatives]
    texts = (span_texts(store, [(e.trace_id, e.span_id) for e in reps])
             if store is not None and reps else {})
    chars = config.export_excerpt_chars
    representatives = []
    for e in reps:
        source, summary, _, _ = texts.get((e.trace_id, e.span_id), ("", "", "", ()))
        representatives.append(Representative(
            e.trace_id, e.rubric, e.verdict, clip(redact(e.evidence), chars), clip(redact(summary), chars),
            clip(redact(source), chars) if config.export_source_text else "",
            config.dashboard_link(f"/traces/{e.trace_id}"), e.membership, e.core))
    trend = list(detail.trend or [s.members])
    definition = active_definitions(store).get(s.rubric) if store is not None else None
    custom = definition is not None and not definition.builtin
    return IssuePayload(s.issue_id, s.number, redact(s.title), redact(s.description), redact(s.root_cause),
                        redact(s.fix), s.severity, s.status, s.rubric, s.failure_mode, s.traces, s.members,
                        float(s.share), trend, trend_label(trend), config.dashboard_link(f"/issues/{s.issue_id}"),
                        representatives,
                        rubric_question=" ".join(definition.question.split()) if definition and custom else "",
                        failure_mode_means=(" ".join(definition.mode_hints.get(s.failure_mode, "").split())
                                            if definition and custom else ""))
