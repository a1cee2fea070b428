"""Suspicions no LLM confirmed: cheap-tier failures recorded as unsure passes, grouped by what was suspected.

    for kind in unsure_kinds(store, since=week_ago):
        print(kind.kind, kind.count, [s.trace_id for s in kind.spans])

With no LLM configured (offline mode), or past the LLM budget, the cascade records a failure its cheap
tiers cannot be sure of as a pass that is not confident: the explanation begins "Unsure" and the details
end with a ``{"suspicion": kind, "verdict": ..., "evidence": ...}`` row (``cascade.unsure``). Clustering
skips these; this read shows them, so a team sees what offline mode would have flagged.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from ..contract.traces import UnsureKind, UnsureSpan
from .connection import Store, quote_ident
from .listing import UNSURE_PREFIX
from .score_facts import SPAN_KEY
from .scores import SCORES_TABLE
from .span_keys import SPAN_KEYS_TABLE

SUSPICION = "suspicion"  # the key of the details row an unsure result's suspicion is in (cascade.unsure)


def unsure_kinds(store: Store, *, since: datetime | None = None, rubric: str | None = None,
                 service: str | None = None, model: str | None = None, prompt_version: str | None = None,
                 per_kind: int = 20) -> list[UnsureKind]:
    """The unsure results with a suspicion, of spans from ``since`` on, per kind (most first), each with its
    newest ``per_kind`` spans: ``unsure_kinds(store, rubric="factuality")``."""
    if per_kind < 1:
        raise ValueError(f"per_kind must be at least 1, got {per_kind}")
    where = ("Passed = 1 AND startsWith(Explanation, {prefix:String}) AND position(Details, {key:String}) > 0"
             + (" AND SpanTimestamp >= fromUnixTimestamp64Nano({since:Int64})" if since else "")
             + (" AND Rubric = {rubric:String}" if rubric else "")
             + (" AND ServiceName = {service:String}" if service else ""))
    if model or prompt_version:  # each span's model and prompt version, under the scores' one-number key
        where += (f" AND {SPAN_KEY} IN (SELECT SpanKey FROM {quote_ident(SPAN_KEYS_TABLE)} WHERE 1"
                  + (" AND Model = {model:String}" if model else "")
                  + (" AND PromptVersion = {prompt:String}" if prompt_version else "") + ")")
    rows = store.query_rows(
        f"""SELECT kind, count(), groupArray({{per:UInt32}})((TraceId, SpanId, Rubric, kept, Tier, Evidence,
                   Explanation, ServiceName, toTimeZone(SpanTimestamp, 'UTC'), JudgeVersion))
        FROM (SELECT *, arrayFirst(d -> JSONHas(d, {{suspicion:String}}), JSONExtractArrayRaw(Details)) AS row,
                     JSONExtractString(row, {{suspicion:String}}) AS kind, JSONExtractString(row, 'verdict') AS kept
              FROM {quote_ident(SCORES_TABLE)} WHERE {where}
              ORDER BY SpanTimestamp DESC, TraceId, SpanId, Rubric
              LIMIT 1 BY TraceId, SpanId, Rubric, JudgeVersion)
        GROUP BY kind ORDER BY count() DESC, kind""",
        {"prefix": UNSURE_PREFIX, "key": f'"{SUSPICION}"', "suspicion": SUSPICION, "per": per_kind,
         "since": int(since.timestamp() * 1e9) if since else 0, "rubric": rubric or "", "service": service or "",
         "model": model or "", "prompt": prompt_version or ""})
    return [UnsureKind(kind or "unknown", int(n), [_span(s) for s in spans]) for kind, n, spans in rows]


def _span(row: tuple[Any, ...]) -> UnsureSpan:
    tid, sid, rubric, verdict, tier, evidence, explanation, service, at, version = row
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return UnsureSpan(tid, sid, rubric, verdict, tier, evidence, explanation, service,
                      at.isoformat(timespec="milliseconds").replace("+00:00", "Z"), version)
