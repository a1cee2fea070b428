"""The sampler: find unscored summarization spans, score a share of them, store the scores.

    sampler = Sampler(store, cascade, SpanSelector.from_settings(s), SamplingPolicy.from_settings(s))
    report = sampler.run_pass()          # drains what is pending, batch by batch

Selection happens in ClickHouse: spans matching the selector (ours by ``sumwatch.task``, or another
instrumentation's by a filter and the attribute keys holding source and summary) and, besides those,
untagged LLM calls of the common GenAI instrumentations, kept when :func:`.recognise.recognise` reads a
summarization request with its document and answer (other calls are left alone; a call's content may be in
its GenAI log records, joined by trace and span id, see :mod:`..store.genai_events`), newer than the
watermark minus a look-back, not yet scored by this judge version, and sampled. The sampling decision
is a deterministic hash of the trace id (MD5, the same in SQL and in Python), so a span never
sampled stays unsampled on every pass; spans with error status are always taken; services can have
their own rates; ``--shard i/N`` splits the work between samplers by another part of the same hash.
Scores are written before the watermark moves, so a crash in between repeats nothing: the next pass
skips spans that already have scores (and a rescore would replace, not add, rows). A span stored twice
(an exporter sent its batch again after a lost answer) is fetched once, like every read of ``otel_traces``
(see :mod:`sumwatch.monitor.store.traces`), so it is judged, paid for and counted once.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import SERVICE_NAME_KEY, STATUS_ERROR_VALUES, TRACES_TABLE

from ..rubrics.cascade import Cascade
from ..rubrics.verdicts import ERROR, RubricResult, SummaryCase
from ..settings import Settings, parse_span_filter
from ..store.connection import Store, quote_ident
from ..store.genai_events import genai_events
from ..store.judges import active_definitions
from ..store.scores import SCORES_TABLE, ScoredSpan, SpanRef, write_scores
from ..store.traces import first_spans, parse_expected_facts
from ..store.watermarks import advance_watermark, read_watermark
from .recognise import CANDIDATE_EQUALS, CANDIDATE_KEYS, Recognised, recognise

_SCALE = 1_000_000  # sampling resolution: rates are compared in millionths


def trace_hash(trace_id: str, part: int = 0) -> int:
    """The unsigned 64-bit hash SQL computes as reinterpretAsUInt64(substring(MD5(TraceId), 1 + 8*part, 8))."""
    digest = hashlib.md5(trace_id.encode()).digest()
    return int.from_bytes(digest[8 * part: 8 * part + 8], "little")


@dataclass(frozen=True)
class SpanSelector:
    """Which spans are summarizations, and where their texts are."""

    filters: tuple[tuple[str, str], ...] = ()  # ("span_name"|"service"|"attr:<key>", value); empty: our tag
    source_key: str = semconv.INPUT_VALUE
    summary_key: str = semconv.OUTPUT_VALUE
    # besides those: untagged LLM calls of the common GenAI instrumentations that ask for a summary
    # (see :mod:`.recognise`)
    recognised: bool = True

    @classmethod
    def parse(cls, spec: str | None, source_key: str = semconv.INPUT_VALUE,
              summary_key: str = semconv.OUTPUT_VALUE) -> SpanSelector:
        """``"span_name=ChatCompletion,attr:gen_ai.operation.name=chat"`` -> a selector."""
        return cls(parse_span_filter(spec), source_key, summary_key)

    @classmethod
    def from_settings(cls, settings: Settings) -> SpanSelector:
        return cls.parse(settings.sampler.span_filter, settings.sampler.source_key, settings.sampler.summary_key)

    def where(self, params: dict[str, Any]) -> str:
        if not self.filters:
            params["sel_task"] = semconv.TASK_SUMMARIZATION
            return f"SpanAttributes['{semconv.TASK}'] = {{sel_task:String}}"
        clauses = []
        for i, (key, value) in enumerate(self.filters):
            params[f"sel_v{i}"] = value
            if key == "span_name":
                clauses.append(f"SpanName = {{sel_v{i}:String}}")
            elif key == "service":
                clauses.append(f"ServiceName = {{sel_v{i}:String}}")
            else:
                params[f"sel_k{i}"] = key[5:]
                clauses.append(f"SpanAttributes[{{sel_k{i}:String}}] = {{sel_v{i}:String}}")
        return " AND ".join(clauses)

    def candidates(self, params: dict[str, Any]) -> str:
        """Untagged spans worth reading for :func:`recognise` (``""`` when recognition is off)."""
        if not self.recognised:
            return ""
        params["rec_keys"] = list(CANDIDATE_KEYS)
        arms = ["hasAny(mapKeys(SpanAttributes), {rec_keys:Array(String)})"]
        for i, (key, value) in enumerate(CANDIDATE_EQUALS):
            params[f"rec_k{i}"], params[f"rec_v{i}"] = key, value
            arms.append(f"SpanAttributes[{{rec_k{i}:String}}] = {{rec_v{i}:String}}")
        # our own evaluation spans carry gen_ai.operation.name too; they are never candidates
        params["rec_eval"] = semconv.EVALUATION_SPAN_NAME
        return (f"SpanAttributes['{semconv.TASK}'] = '' AND SpanName != {{rec_eval:String}} "
                f"AND ({' OR '.join(arms)})")


@dataclass(frozen=True)
class SamplingPolicy:
    rate: float = 1.0
    service_rates: dict[str, float] = field(default_factory=dict)
    always_errors: bool = True
    shard: tuple[int, int] = (0, 1)

    def __post_init__(self) -> None:
        if not 0.0 <= self.rate <= 1.0:
            raise ValueError(f"sample rate must be between 0 and 1, got {self.rate}")
        index, count = self.shard
        if count < 1 or not 0 <= index < count:
            raise ValueError(f"shard must be i/N with 0 <= i < N, got {index}/{count}")

    @classmethod
    def from_settings(cls, settings: Settings, rate: float | None = None,
                      shard: tuple[int, int] = (0, 1)) -> SamplingPolicy:
        return cls(settings.sampler.sample_rate if rate is None else rate, settings.service_rate_map(), True, shard)

    def rate_of(self, service: str) -> float:
        return self.service_rates.get(service, self.rate)

    def takes(self, trace_id: str, service: str, status: str) -> bool:
        """The decision the SQL makes, in Python."""
        index, count = self.shard
        if trace_hash(trace_id, 1) % count != index:
            return False
        if self.always_errors and status in STATUS_ERROR_VALUES:
            return True
        return trace_hash(trace_id, 0) % _SCALE < round(self.rate_of(service) * _SCALE)

    def where(self, params: dict[str, Any]) -> str:
        params["shard_n"], params["shard_i"] = self.shard[1], self.shard[0]
        shard = ("reinterpretAsUInt64(substring(MD5(TraceId), 9, 8)) % {shard_n:UInt64} = {shard_i:UInt64}")
        threshold = str(round(self.rate * _SCALE))
        if self.service_rates:
            arms = []
            for i, (service, rate) in enumerate(sorted(self.service_rates.items())):
                params[f"svc{i}"] = service
                arms.append(f"ServiceName = {{svc{i}:String}}, {round(rate * _SCALE)}")
            threshold = f"multiIf({', '.join(arms)}, {threshold})"
        sampled = f"reinterpretAsUInt64(substring(MD5(TraceId), 1, 8)) % {_SCALE} < {threshold}"
        if self.always_errors:
            errors = ", ".join(f"'{v}'" for v in STATUS_ERROR_VALUES)
            sampled = f"({sampled} OR StatusCode IN ({errors}))"
        return f"{shard} AND {sampled}"


@dataclass
class PassReport:
    judge_version: str
    considered: int = 0
    scored_spans: int = 0
    score_rows: int = 0
    skipped_no_text: int = 0
    errors: int = 0
    failing: int = 0
    llm_requests: int = 0
    spent_usd: float = 0.0
    seconds: float = 0.0
    watermark_ns: int = 0



@dataclass(frozen=True)
class _Pending:
    ref: SpanRef
    status: str
    case: SummaryCase | None
    selected: bool = True  # by the selector; False: a candidate for recognition, left alone when not recognised


class Sampler:
    def __init__(self, store: Store, cascade: Cascade, selector: SpanSelector = SpanSelector(),
                 policy: SamplingPolicy = SamplingPolicy(), *, batch: int = 64, eval_events: bool = False,
                 lookback_s: float = 600.0, follow_store: bool = True) -> None:
        if batch < 1:
            raise ValueError(f"batch must be at least 1, got {batch}")
        self.store, self.cascade, self.selector, self.policy = store, cascade, selector, policy
        # read the active judge definitions from the store at the start of each pass (off: keep the
        # cascade's own, e.g. a candidate under test)
        self.follow_store = follow_store
        self.batch, self.eval_events, self.lookback_ns = batch, eval_events, int(lookback_s * 1e9)

    @classmethod
    def from_settings(cls, store: Store, cascade: Cascade, settings: Settings, *, rate: float | None = None,
                      shard: tuple[int, int] | None = None, eval_events: bool | None = None) -> Sampler:
        """The sampler the settings describe (selector, sampling policy, batch, events); flags override."""
        return cls(store, cascade, SpanSelector.from_settings(settings),
                   SamplingPolicy.from_settings(settings, rate=rate, shard=shard or (0, 1)),
                   batch=settings.sampler.sample_batch,
                   eval_events=settings.sampler.eval_events if eval_events is None else eval_events)

    @property
    def watermark_name(self) -> str:
        index, count = self.policy.shard
        return f"sampler/{self.cascade.version}/{index}of{count}"

    def _versions(self) -> list[str]:
        return [self.cascade.version_for(rubric) for rubric in self.cascade.rubrics]

    def _fetch(self, since_ns: int, cursor: tuple[int, str], limit: int) -> list[_Pending]:
        versions = self._versions()
        params: dict[str, Any] = {"since": since_ns, "cur_ts": cursor[0], "cur_span": cursor[1],
                                  "jvs": versions, "n_jvs": len(versions), "src": self.selector.source_key,
                                  "sum": self.selector.summary_key, "err": ERROR}
        selector = self.selector.where(params)
        candidates = self.selector.candidates(params)
        chosen = f"(({selector}) OR ({candidates}))" if candidates else selector
        sampled = self.policy.where(params)
        # done = scored on every rubric by that rubric's judge version, with no error verdict (a version
        # names its rubric); a span with errors is fetched again, whatever the watermark says
        scored = (f"SELECT TraceId, SpanId FROM {quote_ident(SCORES_TABLE)} FINAL "
                  f"WHERE JudgeVersion IN {{jvs:Array(String)}}")
        a = "SpanAttributes"
        rows = first_spans(
            self.store,
            f"""SELECT TraceId, SpanId, toUnixTimestamp64Nano(Timestamp) AS ts, ServiceName, StatusCode,
                   {a}[{{src:String}}], {a}[{{sum:String}}], {a}['{semconv.SUMMARIZATION_BAND}'],
                   {a}['{semconv.EXPECTED_FACTS}'], {a}['{semconv.DOMAIN}'], ({selector}) AS selected, SpanName,
                   if(selected, mapFilter((k, v) -> 0, {a}), {a}), if(selected, [], Events.Name),
                   if(selected, [], Events.Attributes)
            FROM {TRACES_TABLE}
            WHERE {chosen} AND {sampled}
              AND (Timestamp > fromUnixTimestamp64Nano({{since:Int64}})
                   OR (TraceId, SpanId) IN ({scored} AND Verdict = {{err:String}}))
              AND (ts, SpanId) > ({{cur_ts:Int64}}, {{cur_span:String}})
              AND (TraceId, SpanId) NOT IN ({scored} GROUP BY TraceId, SpanId
                                            HAVING uniqExactIf(JudgeVersion, Verdict != {{err:String}})
                                                   = {{n_jvs:UInt64}})
            ORDER BY ts, SpanId LIMIT {{prefix:UInt64}}""", params, limit, fill=False)  # the pass reads on
        # the content the contrib instrumentations log instead of putting on the span (POST /v1/logs)
        logged = genai_events(self.store, [(row[0], row[1]) for row in rows if not row[10]])
        out = []
        for (tid, sid, ts, service, status, source, summary, band, facts, domain, selected, name, attrs,
             event_names, event_attrs) in rows:
            if selected:
                case = (SummaryCase(source, summary, band or None, parse_expected_facts(facts), domain or None)
                        if source.strip() and summary.strip() else None)
            else:
                case = _recognised_case(name, attrs, event_names, event_attrs, logged.get((tid, sid), ()))
            out.append(_Pending(SpanRef(tid, sid, int(ts), service), status, case, bool(selected)))
        return out

    def _done(self, pending: Sequence[_Pending]) -> dict[tuple[str, str], set[str]]:
        """(trace, span) -> the rubrics already scored, without error, by their current judge version: a
        span comes back when one rubric's judge changed, and only that rubric is judged again."""
        if not pending:
            return {}
        rows = self.store.query_rows(
            f"SELECT TraceId, SpanId, groupUniqArray(Rubric) FROM {quote_ident(SCORES_TABLE)} FINAL "
            f"WHERE TraceId IN {{tids:Array(String)}} AND JudgeVersion IN {{jvs:Array(String)}} "
            f"AND Verdict != {{err:String}} GROUP BY TraceId, SpanId",
            {"tids": sorted({p.ref.trace_id for p in pending}), "jvs": self._versions(), "err": ERROR})
        return {(tid, sid): set(rubrics) for tid, sid, rubrics in rows}

    def _score(self, scorable: Sequence[_Pending]) -> list[ScoredSpan]:
        """Each span judged on the rubrics it still needs, spans needing the same ones in one batch."""
        done = self._done(scorable)
        groups: dict[tuple[str, ...], list[_Pending]] = {}
        for p in scorable:
            have = done.get((p.ref.trace_id, p.ref.span_id), set())
            groups.setdefault(tuple(r for r in self.cascade.rubrics if r not in have), []).append(p)
        scored: dict[int, ScoredSpan] = {}
        for rubrics, members in groups.items():
            if not rubrics:
                continue
            results = self.cascade.score_batch([p.case for p in members], rubrics=rubrics)  # type: ignore[misc]
            for p, r in zip(members, results):
                scored[id(p)] = ScoredSpan(p.ref, r)
        return [scored[id(p)] for p in scorable if id(p) in scored]

    def refresh(self) -> bool:
        """Judge with the definitions active in the store now (a promotion made by any process); True when
        they changed."""
        active = active_definitions(self.store)
        if active == self.cascade.definitions:
            return False
        self.cascade = self.cascade.with_definitions(active)
        return True

    def run_pass(self, *, all_spans: bool = False, limit: int | None = None,
                 on_progress: Callable[[int, int], None] | None = None) -> PassReport:
        """Score everything pending (or up to ``limit`` spans); ``all_spans`` ignores the watermark."""
        started = time.perf_counter()
        if self.follow_store:
            self.refresh()
        report = PassReport(self.cascade.version)
        since = 0 if all_spans else max(0, read_watermark(self.store, self.watermark_name) - self.lookback_ns)
        cursor = (0, "")
        llm_before = self.cascade.llm_requests
        spent_before = getattr(self.cascade.llm, "spent_usd", 0.0)
        while limit is None or report.considered < limit:
            size = self.batch if limit is None else min(self.batch, limit - report.considered)
            pending = self._fetch(since, cursor, size)
            if not pending:
                break
            cursor = (pending[-1].ref.timestamp_ns, pending[-1].ref.span_id)
            report.considered += len(pending)
            scorable = [p for p in pending if p.case is not None]
            report.skipped_no_text += sum(1 for p in pending if p.case is None and p.selected)
            scored = self._score(scorable)
            if scored:
                report.score_rows += write_scores(self.store, scored, self.cascade.version_for)
                if self.eval_events:
                    self._write_events([s for s in scored if all(r.verdict != ERROR for r in s.results.values())])
            report.scored_spans += len(scored)
            report.errors += sum(1 for s in scored for r in s.results.values() if r.verdict == ERROR)
            report.failing += sum(1 for s in scored if any(not r.passed for r in s.results.values()))
            # the watermark moves only after the scores above are stored
            advance_watermark(self.store, self.watermark_name, cursor[0], report.scored_spans)
            report.watermark_ns = max(report.watermark_ns, cursor[0])
            if on_progress:
                on_progress(report.considered, report.scored_spans)
        report.llm_requests = self.cascade.llm_requests - llm_before
        report.spent_usd = getattr(self.cascade.llm, "spent_usd", 0.0) - spent_before
        report.seconds = round(time.perf_counter() - started, 3)
        return report

    def _write_events(self, scored: Sequence[ScoredSpan]) -> None:
        """Each scored span gets a child span carrying one gen_ai.evaluation.result event per rubric."""
        now = time.time_ns()
        rows: list[tuple[Any, ...]] = []
        for item in scored:
            names, attrs = [], []
            for rubric, r in item.results.items():
                names.append(semconv.EVALUATION_EVENT)
                attrs.append(_event_attributes(rubric, r))
            rows.append((
                now, item.ref.trace_id, os.urandom(8).hex(), item.ref.span_id, "", semconv.EVALUATION_SPAN_NAME,
                "Internal", "sumwatch", {SERVICE_NAME_KEY: "sumwatch"}, "sumwatch.monitor", "",
                {semconv.JUDGE_VERSION: self.cascade.version, "gen_ai.operation.name": "evaluate"}, 0, "Unset", "",
                [now] * len(names), names, attrs, [], [], [], [],
            ))
        self.store.insert_spans(rows)


def _recognised_case(name: str, attributes: dict[str, str], event_names: Sequence[str],
                     event_attributes: Sequence[dict[str, str]],
                     logged: Sequence[dict[str, str]] = ()) -> SummaryCase | None:
    """The case an untagged span holds, with its span events and the GenAI log records of its call, when it is
    a summarization call; None leaves it alone."""
    events = [{**attrs, "event.name": event} for event, attrs in zip(event_names, event_attributes)] + list(logged)
    found = recognise(name, attributes, events)
    if not isinstance(found, Recognised):
        return None
    return SummaryCase(found.source, found.summary, attributes.get(semconv.SUMMARIZATION_BAND) or None)


def _event_attributes(rubric: str, r: RubricResult) -> dict[str, str]:
    return {
        semconv.EVALUATION_NAME: rubric,
        semconv.EVALUATION_SCORE_LABEL: r.verdict,
        semconv.EVALUATION_SCORE_VALUE: f"{r.score:.4g}",
        semconv.EVALUATION_EXPLANATION: r.explanation,
        semconv.EVALUATION_PASSED: "true" if r.passed else "false",
        semconv.EVALUATION_FAILURE_MODE: r.failure_mode,
        semconv.EVALUATION_TIER: r.tier,
    }
