"""Send stored verdicts back out where teams look: OTLP endpoints, Langfuse, Phoenix (``score_targets.py``).

    results = send_scores(store, config, ["langfuse"], since="7d")       # by hand (`sumwatch send-scores`)
    results = send_scores(store, config, ["otlp"], dry_run=True)          # the requests, nothing sent
    results = after_sampling(store, config)                              # SUMWATCH_SCORES_TARGETS, after each pass

Each verdict (trace, span, rubric, judge version) is sent once per target: ``sumwatch_score_sends`` records it.
A send that failed is recorded with its reason (no secret in it) and picked again on the next pass, never in a
loop; requests are retried within a pass like the tracker exports (429, 5xx, Retry-After). Langfuse and Phoenix
get ids derived from the verdict, so even a send whose answer was lost updates rather than duplicates.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from ..settings.values import parse_duration, parse_score_verdicts
from ..store.connection import Store
from ..store.score_sends import FAILED, SENT, SendRow, Verdict, save_sends, unsent_scores
from .config import ExportConfig
from .score_targets import (
    SCORE_TARGETS,
    ScoreTarget,
    build_score_target,
    configured_score_targets,
    score_target_problems,
)
from .transport import ExportError, PermanentError, scrubber

_log = logging.getLogger("sumwatch.exports")
# per target and pass: a backlog drains over several passes instead of holding up the worker
PASS_LIMIT = 5000
# refusals that are the target's as a whole, not one verdict's: the rest of the pass would meet them too
_STOP_STATUSES = frozenset({401, 403, 404, 405})
# one pass at a time in this process: the worker's and a manual one must not both send a verdict
_sending = threading.Lock()


@dataclass
class ScoreSendResult:
    """What one pass did for one target: verdicts ``sent`` and ``failed`` (with the first ``errors``), or, with
    ``--dry-run``, ``would_send`` and the first ``requests``."""

    target: str
    sent: int = 0
    failed: int = 0
    would_send: int = 0
    errors: list[str] = field(default_factory=list)
    requests: list[dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        if data["requests"] is None:
            del data["requests"]
        return data


def verdict_choice(config: ExportConfig, target: str) -> str:
    """``all`` or ``failing``: which verdicts ``target`` gets (SUMWATCH_SCORES_VERDICTS)."""
    choices = parse_score_verdicts(config.scores_verdicts)
    return choices.get(target, choices.get("", "all"))


def send_scores(store: Store, config: ExportConfig, targets: Sequence[str] | None = None, *,
                since: str | None = None, failing_only: bool | None = None, dry_run: bool = False,
                limit: int = PASS_LIMIT) -> list[ScoreSendResult]:
    """Send the verdicts scored within ``since`` (a duration; default SUMWATCH_SCORES_WINDOW) and not sent yet,
    plus those whose send failed, to each target (default: every configured one). ValueError, one line: a target
    that is unknown or not configured, or a bad duration."""
    names = list(targets) if targets else configured_score_targets(config)
    if not names:
        raise ValueError("no score target is configured: set SUMWATCH_SCORES_OTLP_ENDPOINT, SUMWATCH_LANGFUSE_HOST "
                         "(with its keys) or SUMWATCH_PHOENIX_ENDPOINT")
    problems = [p for name in dict.fromkeys(names) for p in score_target_problems(name, config)]
    if problems:
        raise ValueError("; ".join(problems))
    window = since or config.scores_window
    try:
        start = datetime.now(timezone.utc) - timedelta(seconds=parse_duration(window))
    except ValueError as exc:
        raise ValueError(f"--since: {exc}") from None
    results = []
    with _sending:
        for name in dict.fromkeys(names):
            failing = failing_only if failing_only is not None else verdict_choice(config, name) == "failing"
            todo = unsent_scores(store, name, since=start, failing_only=failing, limit=limit)
            target = build_score_target(name, config)
            try:
                results.append(_preview(target, todo) if dry_run else _send(store, config, target, todo))
            finally:
                target.close()
    return results


def _preview(target: ScoreTarget, todo: Sequence[Verdict]) -> ScoreSendResult:
    return ScoreSendResult(target.name, would_send=len(todo), requests=target.requests(todo[:target.batch])[:3])


def _send(store: Store, config: ExportConfig, target: ScoreTarget, todo: Sequence[Verdict]) -> ScoreSendResult:
    result = ScoreSendResult(target.name)
    scrub = scrubber(config)
    for at in range(0, len(todo), target.batch):
        batch = todo[at:at + target.batch]
        try:
            target.send(batch)
        except ExportError as exc:
            error = scrub(str(exc))
            save_sends(store, [_row(target.name, v, FAILED, error) for v in batch])
            result.failed += len(batch)
            if len(result.errors) < 5:
                result.errors.append(error)
            _log.warning("sending %d verdicts to %s failed: %s", len(batch), target.name, error)
            if not isinstance(exc, PermanentError) or exc.status in _STOP_STATUSES:
                break  # still unavailable after the retries, or refused as a whole: the next pass tries again
            continue
        save_sends(store, [_row(target.name, v, SENT) for v in batch])
        result.sent += len(batch)
    return result


def _row(target: str, v: Verdict, phase: str, error: str = "") -> SendRow:
    return SendRow(target, v.trace_id, v.span_id, v.rubric, v.judge_version, v.span_ns, phase, error, v.attempts + 1)


def score_rule_problems(config: ExportConfig) -> list[str]:
    """Problems with SUMWATCH_SCORES_TARGETS and SUMWATCH_SCORES_VERDICTS (checked when the worker starts)."""
    names = _names(config.scores_targets)
    lines = [p for name in dict.fromkeys(names) for p in score_target_problems(name, config)]
    lines += [f"SUMWATCH_SCORES_VERDICTS names {name!r}, not a score target ({', '.join(SCORE_TARGETS)})"
              for name in parse_score_verdicts(config.scores_verdicts) if name and name not in SCORE_TARGETS]
    return lines


def after_sampling(store: Store, config: ExportConfig) -> list[ScoreSendResult]:
    """The automatic sends of SUMWATCH_SCORES_TARGETS after a sampler pass (none by default). A target whose
    settings are missing is logged and skipped; failures are on the ledger rows, never raised."""
    results: list[ScoreSendResult] = []
    for name in dict.fromkeys(_names(config.scores_targets)):
        try:
            results += send_scores(store, config, [name])
        except ValueError as exc:
            _log.warning("sending scores to %s skipped: %s", name, exc)
    return results


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]
