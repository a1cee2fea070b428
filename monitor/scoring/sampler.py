"""The sampler: find summarization spans, recognise other instrumentations' calls, score a share, store the scores.

    sampler = Sampler(store, cascade, SpanSelector.from_settings(s), SamplingPolicy.from_settings(s))
    report = sampler.run_pass()          # recognises, then drains what is pending, batch by batch

A pass has two steps. **Recognition** reads every untagged candidate span (an LLM call of a common GenAI
instrumentation, or one a configured selector matches, see :mod:`.selectors`) newer than its own watermark
minus a look-back and not yet in ``sumwatch_recognised``; the first selector that matches reads it, else
:func:`.recognise.recognise` does (its content may be in its GenAI log records, joined by trace and span id,
see :mod:`..store.genai_events`; a span whose records arrived since the step last drained, less the look-back,
is read again however old it and its records' own times are, so content an exporter sends late is still
joined). Each summarization call found is written to
``sumwatch_recognised`` once; other calls are stored and left alone. This step is not sampled: every
recognised call is listed and counted, not only the share that is scored (shards still split it). A span
stored since the step last drained is read too, whatever its own time (a backfill).
**Scoring** selects, in ClickHouse, spans carrying sumwatch's own tag in ``otel_traces`` and recognised spans
in ``sumwatch_recognised`` (their texts come from that table), newer than the watermark minus the look-back,
or stored since the last full pass whatever their own time (a backfill; ``InsertedAt``, migration 19; a
recognised span also when it was recognised since then), with no verdict yet on some rubric, and sampled.
The watermark is the shard's, not the judge's: a new judge version (a promotion, another model, an LLM added
or removed) judges new spans, and stored spans are judged again only on purpose (:class:`Rescore`,
``sumwatch rescore``), which judges the spans it names that the rubric's current version has not judged.
The sampling decision is a deterministic hash of the trace id (MD5, the same in SQL
and in Python), so a span never sampled stays unsampled on every pass; spans with error status are always
taken (a recognised call has an answer, so it did not fail); services can have their own rates;
``--shard i/N`` splits the work between samplers by another part of the same hash. Scores are written
before the watermark moves, so a crash in between repeats nothing: the next pass skips spans that already
have scores (and a rescore would replace, not add, rows). A span stored twice (an exporter sent its batch
again after a lost answer) is fetched once, like every read of ``otel_traces`` (see
:mod:`sumwatch.monitor.store.traces`), so it is judged, paid for and counted once. Each batch of either step
is one read of spans (recognition adds one batched read of their log records), never a query per span.
``workers`` (``--workers``, ``SUMWATCH_SAMPLER_WORKERS``) runs the sentence model in that many processes (this one
and spawned helpers, see :mod:`sumwatch.clustering.sentence_model.model_pool`); the pass itself, the database and
the LLM stay here, so the guarantees above do not change, and the scores are the same whatever the number.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sumwatch.clustering.sentence_model.model_pool import model_processes
from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import STATUS_ERROR_VALUES, TRACES_TABLE

from ..contract.scores import PassReport
from ..contract.traces import RecognisedSpan
from ..rubrics.cascade import Cascade
from ..rubrics.verdicts import ERROR, SummaryCase
from ..settings import Settings, parse_span_filter
from ..settings.selectors import read_selectors
from ..store.connection import Store, StoreError, quote_ident
from ..store.experiments import EXPERIMENT_ATTR, NOT_EXPERIMENT
from ..store.genai_events import genai_events, spans_with_records_arrived
from ..store.judges import active_definitions
from ..store.recognised import RECOGNISED_TABLE, write_recognised
from ..store.scores import (
    SCORES_TABLE,
    UNJUDGED_CAP_SQL,
    ScoredSpan,
    SpanRef,
    Standing,
    spent_today,
    standing_verdicts,
    write_scores,
)
from ..store.traces import ARRIVED_AT, first_spans, parse_expected_facts
from ..store.watermarks import WATERMARKS_TABLE, advance_watermark, read_watermark
from .evaluation_events import write_evaluation_events
from .recognise import CANDIDATE_EQUALS, CANDIDATE_KEYS, Recognised
from .selectors import Selectors

_SCALE = 1_000_000  # sampling resolution: rates are compared in millionths
_log = logging.getLogger("sumwatch.sampler")


def trace_hash(trace_id: str, part: int = 0) -> int:
    """The unsigned 64-bit hash SQL computes as reinterpretAsUInt64(substring(MD5(TraceId), 1 + 8*part, 8))."""
    digest = hashlib.md5(trace_id.encode()).digest()
    return int.from_bytes(digest[8 * part: 8 * part + 8], "little")


@dataclass(frozen=True)
class SpanSelector:
    """Which spans are summarizations: sumwatch's tag (texts under ``source_key``/``summary_key``), plus the
    configured selectors and the calls of the common GenAI instrumentations that ask for a summary."""

    source_key: str = semconv.INPUT_VALUE
    summary_key: str = semconv.OUTPUT_VALUE
    selectors: Selectors = Selectors()
    recognised: bool = True  # the built-in rules of :mod:`.recognise`

    @classmethod
    def parse(cls, spec: str | None, source_key: str = semconv.INPUT_VALUE,
              summary_key: str = semconv.OUTPUT_VALUE) -> SpanSelector:
        """The older single filter as one selector beside the tag:
        ``SpanSelector.parse("span_name=ChatCompletion,attr:gen_ai.operation.name=chat", "in.key", "out.key")``."""
        legacy = read_selectors(None, None, legacy=(parse_span_filter(spec), source_key, summary_key))
        return cls(selectors=Selectors.of(legacy)) if legacy else cls(source_key, summary_key)

    @classmethod
    def from_settings(cls, settings: Settings) -> SpanSelector:
        s = settings.sampler
        # with the older filter the keys are that entry's; sumwatch's own spans keep the tracer's keys
        keys = (semconv.INPUT_VALUE, semconv.OUTPUT_VALUE) if s.span_filter else (s.source_key, s.summary_key)
        return cls(*keys, Selectors.from_settings(settings))

    def where(self, params: dict[str, Any]) -> str:
        """sumwatch's own spans."""
        params["sel_task"] = semconv.TASK_SUMMARIZATION
        return f"SpanAttributes['{semconv.TASK}'] = {{sel_task:String}}"

    def candidates(self, params: dict[str, Any]) -> str:
        """Untagged spans worth reading for recognition (``""`` when there are none to read)."""
        arms = []
        if self.recognised:
            params["rec_keys"] = list(CANDIDATE_KEYS)
            arms.append("hasAny(mapKeys(SpanAttributes), {rec_keys:Array(String)})")
            for i, (key, value) in enumerate(CANDIDATE_EQUALS):
                params[f"rec_k{i}"], params[f"rec_v{i}"] = key, value
                arms.append(f"SpanAttributes[{{rec_k{i}:String}}] = {{rec_v{i}:String}}")
        configured = self.selectors.where(params)
        if configured:
            arms.append(configured)
        if not arms:
            return ""
        # our own evaluation spans carry gen_ai.operation.name too; they are never candidates
        params["rec_eval"] = semconv.EVALUATION_SPAN_NAME
        return (f"SpanAttributes['{semconv.TASK}'] = '' AND SpanName != {{rec_eval:String}} "
                f"AND ({' OR '.join(arms)})")

    def recognise(self, span_name: str, service: str, attributes: dict[str, str],
                  events: Sequence[dict[str, str]], scope: str = "") -> Recognised | None:
        """The case an untagged candidate holds (first matching selector, then the built-in rules), or None."""
        if self.recognised:  # Selectors.recognise tries the selectors first: they are matched once per span
            found = self.selectors.recognise(span_name, service, attributes, events, scope)
        else:
            chosen = self.selectors.first(span_name, service, attributes)
            if chosen is None:
                return None
            found = chosen.read(attributes)
        return found if isinstance(found, Recognised) else None


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


@dataclass(frozen=True)
class _Pending:
    ref: SpanRef
    status: str
    case: SummaryCase | None


@dataclass(frozen=True)
class Rescore:
    """Stored spans judged again, on purpose, with the judges active now (``sumwatch rescore``): the rubrics
    (every judged one when empty), spans whose own time is at or after ``since_ns``, of ``service`` ("" all).
    A span already judged by a rubric's current version is not judged again; a result weaker than the span's
    stored verdict is not stored (see :mod:`..store.scores`)."""

    rubrics: tuple[str, ...] = ()
    since_ns: int = 0
    service: str = ""


class Sampler:
    def __init__(self, store: Store, cascade: Cascade, selector: SpanSelector = SpanSelector(),
                 policy: SamplingPolicy = SamplingPolicy(), *, batch: int = 64, eval_events: bool = False,
                 lookback_s: float = 600.0, follow_store: bool = True, workers: int = 1,
                 rescore: Rescore | None = None, daily_cap_usd: float | None = None) -> None:
        if batch < 1:
            raise ValueError(f"batch must be at least 1, got {batch}")
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        # processes that run the sentence model; the pass itself (reads, rules, LLM, writes) stays in this one
        self.workers = workers
        self.store, self.cascade, self.selector, self.policy = store, cascade, selector, policy
        # read the active judge definitions from the store at the start of each pass (off: keep the
        # cascade's own, e.g. a candidate under test)
        self.follow_store = follow_store
        self.batch, self.eval_events, self.lookback_ns = batch, eval_events, int(lookback_s * 1e9)
        self.rescore = rescore
        self._selectors_probed = False
        # LLM judging's spend per UTC day on this store (SUMWATCH_LLM_DAILY_CAP_USD); None: no daily cap
        self.daily_cap_usd = daily_cap_usd

    @classmethod
    def from_settings(cls, store: Store, cascade: Cascade, settings: Settings, *, rate: float | None = None,
                      shard: tuple[int, int] | None = None, eval_events: bool | None = None,
                      workers: int | None = None, rescore: Rescore | None = None) -> Sampler:
        """The sampler the settings describe (selector, sampling policy, batch, events, model processes, 0 for
        auto, the daily LLM cap); flags override."""
        chosen = settings.sampler.sampler_workers if workers is None else workers
        return cls(store, cascade, SpanSelector.from_settings(settings),
                   SamplingPolicy.from_settings(settings, rate=rate, shard=shard or (0, 1)),
                   batch=settings.sampler.sample_batch,
                   eval_events=settings.sampler.eval_events if eval_events is None else eval_events,
                   workers=model_processes(chosen, settings.judge.model_threads), rescore=rescore,
                   daily_cap_usd=settings.judge.llm_daily_cap_usd)

    @property
    def watermark_name(self) -> str:
        """One mark per shard, whatever the judges: a new judge version judges new spans, not the history."""
        index, count = self.policy.shard
        return f"sampler/{index}of{count}"

    def _since(self) -> int:
        """Where the pass starts by span time: the shard's mark less the look-back. A store whose marks were
        named by judge version (before the mark was the shard's alone) starts at the furthest of those."""
        position = read_watermark(self.store, self.watermark_name)
        if not position:
            index, count = self.policy.shard
            rows = self.store.query_rows(
                f"SELECT toUnixTimestamp64Nano(max(Position)) FROM {WATERMARKS_TABLE} "
                f"WHERE startsWith(Name, 'sampler/') AND endsWith(Name, {{shard:String}})",
                {"shard": f"/{index}of{count}"})
            position = int(rows[0][0]) if rows and rows[0][0] else 0
        return max(0, position - self.lookback_ns)

    @property
    def judged_rubrics(self) -> tuple[str, ...]:
        """The rubrics this pass judges: the cascade's, or a rescore's choice of them."""
        if self.rescore is not None and self.rescore.rubrics:
            return tuple(r for r in self.cascade.rubrics if r in self.rescore.rubrics)
        return tuple(self.cascade.rubrics)

    def _versions(self) -> list[str]:
        return [self.cascade.version_for(rubric) for rubric in self.judged_rubrics]

    @property
    def recognition_watermark(self) -> str:
        """Recognition does not depend on the judge: one watermark per shard."""
        index, count = self.policy.shard
        return f"recognise/{index}of{count}"

    def _shard(self, params: dict[str, Any]) -> str:
        params["shard_n"], params["shard_i"] = self.policy.shard[1], self.policy.shard[0]
        return "reinterpretAsUInt64(substring(MD5(TraceId), 9, 8)) % {shard_n:UInt64} = {shard_i:UInt64}"

    def recognise_pending(self, *, all_spans: bool = False) -> int:
        """Read every candidate span not yet recognised, write the summarization calls among them to
        ``sumwatch_recognised``; the number written."""
        params: dict[str, Any] = {}
        candidates = self.selector.candidates(params)
        if not candidates:
            return 0
        started_ns = time.time_ns()
        # arrival is stamped by the store's clock, the mark by ours: the look-back covers a skew between them
        arrived_mark = f"{self.recognition_watermark}/arrived"
        since = 0 if all_spans else max(0, read_watermark(self.store, self.recognition_watermark) - self.lookback_ns)
        arrived = 0 if all_spans else max(0, read_watermark(self.store, arrived_mark) - self.lookback_ns)
        params["since"], params["arrived"] = since, arrived
        shard = self._shard(params)
        a = "SpanAttributes"
        cursor, written = (0, ""), 0
        while True:
            rows = first_spans(
                self.store,
                f"""SELECT TraceId, SpanId, toUnixTimestamp64Nano(Timestamp) AS ts, ServiceName, SpanName, {a},
                       Events.Name, Events.Attributes, ScopeName
                FROM {TRACES_TABLE}
                WHERE {candidates} AND {shard}
                  AND (Timestamp > fromUnixTimestamp64Nano({{since:Int64}})
                       OR {ARRIVED_AT} > fromUnixTimestamp64Nano({{arrived:Int64}})
                       OR (TraceId, SpanId) IN ({spans_with_records_arrived("arrived")}))
                  AND (ts, SpanId) > ({{cur_ts:Int64}}, {{cur_span:String}})
                  AND (TraceId, SpanId) NOT IN (SELECT TraceId, SpanId FROM {quote_ident(RECOGNISED_TABLE)})
                ORDER BY ts, SpanId LIMIT {{prefix:UInt64}}""",
                {**params, "cur_ts": cursor[0], "cur_span": cursor[1]}, self.batch, fill=False)
            if not rows:
                # drained: every span and record that arrived before this step began has been read
                advance_watermark(self.store, arrived_mark, started_ns, written)
                return written
            cursor = (int(rows[-1][2]), rows[-1][1])
            # the content the contrib instrumentations log instead of putting on the span (POST /v1/logs)
            logged = genai_events(self.store, [(row[0], row[1]) for row in rows])
            found = []
            for tid, sid, ts, service, name, attrs, event_names, event_attrs, scope in rows:
                events = [{**ea, "event.name": en} for en, ea in zip(event_names, event_attrs)]
                call = self.selector.recognise(name, service, attrs, events + logged.get((tid, sid), []), scope)
                if call is not None:
                    found.append(RecognisedSpan(
                        int(ts), tid, sid, service, name, call.instrumentation, call.source, call.summary,
                        call.model, call.prompt_version, call.input_tokens, call.output_tokens,
                        call.band or attrs.get(semconv.SUMMARIZATION_BAND, ""),
                        call.document_id or attrs.get(semconv.DOCUMENT_ID, ""), call.how))
            write_recognised(self.store, found)
            written += len(found)
            # after the rows above are stored: a crash in between reads the batch again, and rows replace
            advance_watermark(self.store, self.recognition_watermark, cursor[0], written)

    def _fetch(self, since_ns: int, cursor: tuple[int, str], limit: int, recognised_since_ns: int = 0,
               arrived_since_ns: int | None = None) -> list[_Pending]:
        union, params = self.pending_sql(since_ns, cursor, recognised_since_ns, arrived_since_ns)
        rows = first_spans(self.store, f"SELECT * FROM ({union}) ORDER BY ts, SpanId LIMIT {{prefix:UInt64}}",
                           params, limit, fill=False)  # the pass reads on
        out = []
        for tid, sid, ts, service, status, source, summary, band, facts, domain in rows:
            case = (SummaryCase(source, summary, band or None, parse_expected_facts(facts), domain or None)
                    if source.strip() and summary.strip() else None)
            out.append(_Pending(SpanRef(tid, sid, int(ts), service), status, case))
        return out

    def window(self, all_spans: bool = False) -> tuple[int, int, int | None]:
        """Where a pass reads from: the span time (ns), the recognition time and the arrival time since which a
        span is read (None: arrival not read)."""
        if self.rescore is not None:
            return self.rescore.since_ns, 0, None
        recognised_since = read_watermark(self.store, f"{self.watermark_name}/recognised")
        if all_spans:
            return 0, recognised_since, None
        since = self._since()
        # arrival is stamped by the store's clock, the mark by ours: the look-back covers a skew. Before the
        # first mark, spans arrived when they happened (migration 19), so the time mark covers them
        arrived = read_watermark(self.store, f"{self.watermark_name}/arrived")
        return since, recognised_since, max(0, arrived - self.lookback_ns) if arrived else since

    def pending_sql(self, since_ns: int, cursor: tuple[int, str] = (0, ""), recognised_since_ns: int = 0,
                    arrived_since_ns: int | None = None) -> tuple[str, dict[str, Any]]:
        """The spans a pass would judge after ``cursor``, as SQL (columns: TraceId, SpanId, ts, ServiceName,
        StatusCode, source, summary, band, expected facts, domain) and its parameters."""
        rubrics = list(self.judged_rubrics)
        params: dict[str, Any] = {"since": since_ns, "rec_since": recognised_since_ns, "cur_ts": cursor[0],
                                  "cur_span": cursor[1], "rubs": rubrics, "n_rubs": len(rubrics),
                                  "jvs": self._versions(), "src": self.selector.source_key,
                                  "sum": self.selector.summary_key, "err": ERROR,
                                  "arrived": arrived_since_ns or 0}
        tagged = self.selector.where(params)
        sampled = self.policy.where(params)
        # done: a verdict (no judge error) on every rubric judged; by any judge version in a pass (a new judge
        # judges new spans), by the rubric's current version in a rescore (a version names its rubric)
        judged_by = (f"JudgeVersion IN {{jvs:Array(String)}} AND NOT {UNJUDGED_CAP_SQL}" if self.rescore
                     else "Rubric IN {rubs:Array(String)}")
        done = (f"SELECT TraceId, SpanId FROM {quote_ident(SCORES_TABLE)} FINAL WHERE {judged_by} "
                f"AND Verdict != {{err:String}} GROUP BY TraceId, SpanId HAVING uniqExact(Rubric) = {{n_rubs:UInt64}}")
        pending = (f"(ts, SpanId) > ({{cur_ts:Int64}}, {{cur_span:String}}) "
                   f"AND (TraceId, SpanId) NOT IN ({done})")
        # a span a judge failed on is fetched again, whatever the marks say
        retried = (f"(TraceId, SpanId) IN (SELECT TraceId, SpanId FROM {quote_ident(SCORES_TABLE)} FINAL "
                   f"WHERE Rubric IN {{rubs:Array(String)}} AND Verdict = {{err:String}})")
        if self.rescore is not None:
            params["svc"] = self.rescore.service
            own_when = rec_when = "Timestamp >= fromUnixTimestamp64Nano({since:Int64})"
            if self.rescore.service:
                own_when += " AND ServiceName = {svc:String}"
                rec_when += " AND ServiceName = {svc:String}"
        else:
            # newer than the mark by span time, or arrived since the last full pass (a backfill of old spans)
            own_when = (f"(Timestamp > fromUnixTimestamp64Nano({{since:Int64}}) OR {retried}"
                        + (f" OR {ARRIVED_AT} > fromUnixTimestamp64Nano({{arrived:Int64}})"
                           if arrived_since_ns is not None else "") + ")")
            # a recognised call: newer than the mark, or recognised since the last full pass (content logged
            # late makes an old span a summarization call now; a backfilled one is recognised when it arrives)
            rec_when = (f"(Timestamp > fromUnixTimestamp64Nano({{since:Int64}}) "
                        f"OR RecognisedAt > fromUnixTimestamp64Nano({{rec_since:Int64}}) OR {retried})")
        a = "SpanAttributes"
        recognised = (
            f"SELECT TraceId, SpanId, toUnixTimestamp64Nano(T) AS ts, Svc AS ServiceName, 'Unset' AS StatusCode, "
            f"Src, Sum, toString(B), '', '' FROM ("
            f"SELECT TraceId, SpanId, argMax(Timestamp, RecognisedAt) AS T, argMax(ServiceName, RecognisedAt) AS Svc, "
            f"argMax(Source, RecognisedAt) AS Src, argMax(Summary, RecognisedAt) AS Sum, "
            f"argMax(Band, RecognisedAt) AS B FROM {quote_ident(RECOGNISED_TABLE)} WHERE {rec_when} "
            f"GROUP BY TraceId, SpanId) WHERE {sampled} AND {pending} AND {NOT_EXPERIMENT}"
        ) if self.selector.candidates({}) else ""
        own = f"""SELECT TraceId, SpanId, toUnixTimestamp64Nano(Timestamp) AS ts, ServiceName, StatusCode,
                   {a}[{{src:String}}], {a}[{{sum:String}}], {a}['{semconv.SUMMARIZATION_BAND}'],
                   {a}['{semconv.EXPECTED_FACTS}'], {a}['{semconv.DOMAIN}']
            FROM {TRACES_TABLE}
            WHERE {tagged} AND {sampled} AND {own_when} AND {pending} AND {a}['{EXPERIMENT_ATTR}'] = ''"""
        return (f"{own} UNION ALL {recognised}" if recognised else own), params

    def _standing(self, pending: Sequence[_Pending]) -> dict[tuple[str, str, str], Standing]:
        return standing_verdicts(self.store, [(p.ref.trace_id, p.ref.span_id) for p in pending])

    def _needed(self, p: _Pending, standing: dict[tuple[str, str, str], Standing]) -> tuple[str, ...]:
        """The rubrics a span still needs: those with no verdict yet, or in a rescore, none by the rubric's
        current judge version and none from a source stronger than any this cascade has (a person's label):
        what it would judge could not be stored, so it is not paid for."""
        out = []
        for rubric in self.judged_rubrics:
            have = standing.get((p.ref.trace_id, p.ref.span_id, rubric))
            if have is None or (self.rescore is not None and have.strength <= self.cascade.strongest
                                and self.cascade.version_for(rubric) not in have.versions):
                out.append(rubric)
        return tuple(out)

    def _score(self, scorable: Sequence[_Pending], standing: dict[tuple[str, str, str], Standing]
               ) -> list[ScoredSpan]:
        """Each span judged on the rubrics it still needs, spans needing the same ones in one batch."""
        groups: dict[tuple[str, ...], list[_Pending]] = {}
        for p in scorable:
            groups.setdefault(self._needed(p, standing), []).append(p)
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
        """Score everything pending (or up to ``limit`` spans); ``all_spans`` ignores the marks (spans never
        judged, whatever their time). With :class:`Rescore`, judge the stored spans it names again instead."""
        started = time.perf_counter()
        if self.follow_store:
            self.refresh()
        self._use_model_processes()
        report = PassReport(self.cascade.version, workers=self.workers, rescore=self.rescore is not None)
        # recognised (or stored) since the last full pass: read again whatever the span's age (see _fetch)
        recognised_mark = f"{self.watermark_name}/recognised"
        arrived_mark = f"{self.watermark_name}/arrived"
        pass_start_ns = time.time_ns()
        since, recognised_since, arrived_since = self.window(all_spans)
        if self.rescore is None:
            self._drop_refused_selectors()
            try:
                report.recognised = self.recognise_pending(all_spans=all_spans)
            except StoreError as exc:  # the spans sumwatch's tag marks are still scored; the log says why
                _log.warning("recognising other instrumentations' spans failed, scoring tagged spans only: %s",
                             " ".join(str(exc).split())[:300])
        cursor = (0, "")
        llm_before, capped_before = self.cascade.llm_requests, self.cascade.unjudged_cap
        spent_before = getattr(self.cascade.llm, "spent_usd", 0.0)
        while limit is None or report.considered < limit:
            self._allow_spend()
            size = self.batch if limit is None else min(self.batch, limit - report.considered)
            pending = self._fetch(since, cursor, size, recognised_since, arrived_since)
            if not pending:
                if self.rescore is None:
                    # drained: every call recognised, and every span stored, before this pass began is considered
                    advance_watermark(self.store, recognised_mark, pass_start_ns, report.scored_spans)
                    advance_watermark(self.store, arrived_mark, pass_start_ns, report.scored_spans)
                break
            cursor = (pending[-1].ref.timestamp_ns, pending[-1].ref.span_id)
            report.considered += len(pending)
            scorable = [p for p in pending if p.case is not None]
            report.skipped_no_text += sum(1 for p in pending if p.case is None)
            standing = self._standing(scorable)
            scored = self._score(scorable, standing)
            if scored:
                written = write_scores(self.store, scored, self.cascade.version_for, standing=standing)
                report.kept_stronger += sum(len(s.results) for s in scored) - written
                report.score_rows += written
                if self.eval_events:
                    write_evaluation_events(self.store, self.cascade.version,
                                            [s for s in scored if all(r.verdict != ERROR for r in s.results.values())])
            report.scored_spans += len(scored)
            report.errors += sum(1 for s in scored for r in s.results.values() if r.verdict == ERROR)
            report.failing += sum(1 for s in scored if any(not r.passed for r in s.results.values()))
            if self.rescore is None:
                # the watermark moves only after the scores above are stored
                advance_watermark(self.store, self.watermark_name, cursor[0], report.scored_spans)
            report.watermark_ns = max(report.watermark_ns, cursor[0])
            if on_progress:
                on_progress(report.considered, report.scored_spans)
        report.llm_requests = self.cascade.llm_requests - llm_before
        report.unjudged_cap = self.cascade.unjudged_cap - capped_before
        report.spent_usd = getattr(self.cascade.llm, "spent_usd", 0.0) - spent_before
        if self.cascade.llm is not None:
            report.daily_cap_usd = self.daily_cap_usd
            report.spent_today_usd = spent_today(self.store)
            if report.unjudged_cap:
                _log.warning("LLM judging reached its daily cap of $%.2f (spent $%.4f today): %d rubric results "
                             "kept the cheap tiers' verdict, marked unjudged: cap; `sumwatch rescore` judges them "
                             "again, SUMWATCH_LLM_DAILY_CAP_USD raises the cap", self.daily_cap_usd or 0.0,
                             report.spent_today_usd, report.unjudged_cap)
        report.seconds = round(time.perf_counter() - started, 3)
        return report

    def _drop_refused_selectors(self) -> None:
        """Leave out, with a warning, each configured selector whose pattern the database refuses (its RE2 may
        differ from the one the settings were checked with): one selector never stops the pass. Asked once per
        sampler: the selectors come from the settings, which do not change while it lives."""
        selectors = self.selector.selectors
        if self._selectors_probed or not selectors.entries:
            return
        self._selectors_probed = True
        refused = selectors.refused_by(
            lambda pattern: self.store.query_rows("SELECT match('', {p:String})", {"p": pattern}))
        for name, why in refused.items():
            _log.warning("selector %s is left out: the database refuses its pattern %s", name, why)
        if refused:
            self.selector = replace(self.selector, selectors=selectors.without(list(refused)))

    def _allow_spend(self) -> None:
        """Before each batch: what the LLM may still spend today, every process on the store together (a batch
        may overshoot by its own requests' cost at most)."""
        if self.cascade.llm is None or self.daily_cap_usd is None:
            return
        self.cascade.allow_llm_spend(self.daily_cap_usd - spent_today(self.store))

    def _use_model_processes(self) -> None:
        """The sentence model of this cascade encodes in ``workers`` processes (the learned tier reads the same
        embedder's vectors). The model is shared by the process: each pass sets its own number."""
        judge = self.cascade.embeddings
        use = getattr(getattr(judge, "embedder", None), "set_processes", None)
        if use is not None:  # a test's own embedder may be anything that encodes
            use(self.workers)
