"""Send stored verdicts back out where teams look: OTLP endpoints, Langfuse, Phoenix (``score_targets.py``).

    results = send_scores(store, config, ["langfuse"], since="7d")       # by hand (`sumwatch send-scores`)
    results = send_scores(store, config, ["otlp"], dry_run=True)          # the requests, nothing sent
    results = after_sampling(store, config)                              # SUMWATCH_SCORES_TARGETS, after each pass

Each verdict (trace, span, rubric, judge version) is sent once per target: ``sumwatch_score_sends`` records it.
A send that failed is recorded with its reason (no secret in it) and picked again on the next pass, never in a
loop; requests are retried within a pass like the tracker exports (429, 5xx, Retry-After). Langfuse and Phoenix
get ids derived from the verdict, so even a send whose answer was lost updates rather than duplicates.

A verdict counts as sent only when the target acknowledged it: Langfuse's 207 lists its event among the
``successes``; Phoenix (``sync=true``) answers the id of its annotation. One whose span the target does not hold yet
(Phoenix's 404 naming it) is ``waiting``: tried again on later passes, by a manual send at once and by the worker's
passes after a back-off (1 minute, doubling to 1 hour), so it attaches once its span reaches the target; it is
given up when still waiting SPAN_WAIT_DAYS after it was scored.

A verdict is given up (kept, not picked again until ``retry_given_up``) when the target refuses it for itself
(a 4xx for that verdict alone), after MAX_SEND_ATTEMPTS failed sends that may be its own doing, or after waiting
SPAN_WAIT_DAYS for its span. A target that is down or refuses the key fails the pass after one request, and counts
toward no verdict's cap: an outage must not give up a backlog. SUMWATCH_SCORES_SERVICES picks which services'
verdicts each target gets (``services_for``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

from ..contract.exports import ScoreSendResult
from ..settings.values import parse_duration, parse_score_services, parse_score_verdicts
from ..store.connection import Store
from ..store.score_sends import (
    FAILED,
    GIVEN_UP,
    SENT,
    WAITING,
    SendRow,
    Verdict,
    phase_counts,
    save_sends,
    unsent_scores,
)
from .config import ExportConfig
from .score_targets import (
    SCORE_TARGETS,
    ItemRefusal,
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
# failed sends of one verdict before it is given up
MAX_SEND_ATTEMPTS = 5
# how long after it was scored a verdict waits for its span to reach a target before it is given up
SPAN_WAIT_DAYS = 7
# one pass at a time in this process: the worker's and a manual one must not both send a verdict
_sending = threading.Lock()


def verdict_choice(config: ExportConfig, target: str) -> str:
    """``all`` or ``failing``: which verdicts ``target`` gets (SUMWATCH_SCORES_VERDICTS)."""
    choices = parse_score_verdicts(config.scores_verdicts)
    return choices.get(target, choices.get("", "all"))


def services_for(config: ExportConfig, target: str) -> list[str] | None:
    """The services whose verdicts ``target`` gets (SUMWATCH_SCORES_SERVICES); None: every service's."""
    choices = parse_score_services(config.scores_services)
    return choices.get(target, choices.get(""))


def send_scores(store: Store, config: ExportConfig, targets: Sequence[str] | None = None, *,
                since: str | None = None, failing_only: bool | None = None, dry_run: bool = False,
                retry_given_up: bool = False, due_only: bool = False, now: datetime | None = None,
                limit: int = PASS_LIMIT) -> list[ScoreSendResult]:
    """Send the verdicts scored within ``since`` (a duration; default SUMWATCH_SCORES_WINDOW) and not sent yet,
    plus those whose send failed or that wait for their span (with ``due_only``, the worker's passes: once their
    back-off is over at ``now``), and those given up with ``retry_given_up`` (one more try each), to each target
    (default: every configured one). ValueError, one line: a target that is unknown or not configured, or a bad
    duration."""
    names = list(targets) if targets else configured_score_targets(config)
    if not names:
        raise ValueError("no score target is configured: set SUMWATCH_SCORES_OTLP_ENDPOINT, SUMWATCH_LANGFUSE_HOST "
                         "(with its keys) or SUMWATCH_PHOENIX_ENDPOINT")
    problems = [p for name in dict.fromkeys(names) for p in score_target_problems(name, config)]
    if problems:
        raise ValueError("; ".join(problems))
    window = since or config.scores_window
    now = now or datetime.now(timezone.utc)
    try:
        start = now - timedelta(seconds=parse_duration(window))
    except ValueError as exc:
        raise ValueError(f"--since: {exc}") from None
    results = []
    with _sending:
        for name in dict.fromkeys(names):
            failing = failing_only if failing_only is not None else verdict_choice(config, name) == "failing"
            services = services_for(config, name)
            todo = unsent_scores(store, name, since=start, failing_only=failing, retry_given_up=retry_given_up,
                                 services=services, due_only=due_only, now=now, limit=limit)
            if todo or dry_run:
                target = build_score_target(name, config)
                try:
                    result = _preview(target, todo) if dry_run else _send(store, config, target, todo, now)
                finally:
                    target.close()
            else:  # the worker's usual pass: no client built for nothing to send
                result = ScoreSendResult(name)
            result.services = services
            counts = phase_counts(store, name)
            result.given_up, result.waiting = counts.get(GIVEN_UP, 0), counts.get(WAITING, 0)
            results.append(result)
    return results


def _preview(target: ScoreTarget, todo: Sequence[Verdict]) -> ScoreSendResult:
    first = target.batches(todo[:target.batch])[:1]
    return ScoreSendResult(target.name, would_send=len(todo), requests=target.requests(first[0])[:3] if first else [])


def _send(store: Store, config: ExportConfig, target: ScoreTarget, todo: Sequence[Verdict],
          now: datetime) -> ScoreSendResult:
    result = ScoreSendResult(target.name)
    scrub = scrubber(config)
    for batch in target.batches(todo):
        try:
            refusals = target.send(batch)
        except ExportError as exc:
            error = scrub(str(exc))
            whole = not isinstance(exc, PermanentError) or exc.status in _STOP_STATUSES
            # a content refusal (400, 413, 422) of a request holding one verdict is that verdict's own
            rows = [_failed(target.name, v, error, counts=not whole, permanent=not whole and len(batch) == 1)
                    for v in batch]
            _record_failures(store, result, rows, [error])
            _log.warning("sending %d verdicts to %s failed: %s", len(batch), target.name, error)
            if whole:
                break  # still unavailable after the retries, or refused as a whole: the next pass tries again
            continue
        refused: dict[tuple[str, str, str, str], ItemRefusal] = {r.key: r for r in refusals}
        taken = [v for v in batch if v.key not in refused]
        save_sends(store, [_row(target.name, v, SENT) for v in taken])
        result.sent += len(taken)
        waiting = [v for v in batch if v.key in refused and refused[v.key].waiting]
        if waiting:
            _record_waits(store, result, target.name, waiting, now, scrub(refused[waiting[0].key].reason))
            refused = {k: r for k, r in refused.items() if not r.waiting}
        if refused:
            rows = [_failed(target.name, v, scrub(refused[v.key].reason), counts=True,
                            permanent=refused[v.key].permanent) for v in batch if v.key in refused]
            _record_failures(store, result, rows, [r.error for r in rows])
            _log.warning("%s refused %d of %d verdicts: %s", target.name, len(rows), len(batch), rows[0].error)
    return result


def _record_waits(store: Store, result: ScoreSendResult, target: str, verdicts: Sequence[Verdict], now: datetime,
                  reason: str) -> None:
    """Verdicts whose span ``target`` does not hold yet: waiting, or given up once SPAN_WAIT_DAYS old."""
    oldest = (now - timedelta(days=SPAN_WAIT_DAYS)).timestamp() * 1e9
    rows = [_row(target, v, GIVEN_UP, f"{reason}, {SPAN_WAIT_DAYS} days after the verdict") if v.scored_ns < oldest
            else _row(target, v, WAITING, reason) for v in verdicts]
    save_sends(store, rows)
    result.gave_up += sum(r.phase == GIVEN_UP for r in rows)
    _log.info("%s does not hold the spans of %d verdicts yet: %s", target, len(rows), reason)


def _record_failures(store: Store, result: ScoreSendResult, rows: Sequence[SendRow], errors: Sequence[str]) -> None:
    save_sends(store, rows)
    result.failed += len(rows)
    result.gave_up += sum(r.phase == GIVEN_UP for r in rows)
    for error in errors:
        if len(result.errors) < 5 and error not in result.errors:
            result.errors.append(error)


def _failed(target: str, v: Verdict, error: str, *, counts: bool, permanent: bool) -> SendRow:
    """The row of a failed send: given up when refused for itself, or when it may be its own doing (``counts``)
    and has failed MAX_SEND_ATTEMPTS times."""
    give_up = permanent or (counts and v.attempts + 1 >= MAX_SEND_ATTEMPTS)
    return _row(target, v, GIVEN_UP if give_up else FAILED, error)


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
            results += send_scores(store, config, [name], due_only=True)
        except ValueError as exc:
            _log.warning("sending scores to %s skipped: %s", name, exc)
    return results


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]
