"""Where verdicts go back out: any OTLP/HTTP endpoint, Langfuse, Phoenix; one class each behind one interface.

    target = build_score_target("langfuse", config)     # ValueError with one line per problem
    for batch in target.batches(verdicts):
        refused = target.send(batch)                    # [ItemRefusal]; raises ExportError for the whole request
    target.requests(verdicts)                           # the request bodies, as JSON, sending nothing

- ``otlp``: one OTLP/HTTP ``/v1/logs`` request (protobuf) per batch: each verdict is a ``gen_ai.evaluation.result``
  event, a log record carrying the evaluated span's trace and span id and the OpenTelemetry GenAI evaluation
  attributes (``gen_ai.evaluation.name``, ``.score.value``, ``.score.label``, ``.explanation``). OTLP has no ids to
  upsert on, so the record carries ``sumwatch.evaluation.id`` for receivers that deduplicate.
- ``langfuse``: ``POST {host}/api/public/ingestion`` per batch, Basic auth public:secret key: ``{"batch": [events]}``,
  each a ``score-create`` event (its own id, a timestamp) whose body is the score. A span Langfuse took in over OTLP
  is the observation whose id is the span id in hex, in the trace whose id is the trace id in hex, so those are the
  ids the score names; the score's ``id`` is derived from the verdict's key, so a re-send updates it. Langfuse
  answers 207 with each event's result: an event in ``errors`` is that verdict's refusal, the others are taken.
  Batches stay under the documented 3.5 MB (by bytes) and 100 events.
- ``phoenix``: ``POST {endpoint}/v1/span_annotations?sync=true`` per batch, Bearer API key; ``identifier`` names
  sumwatch and the judge version, so a re-send updates the annotation instead of adding one. With ``sync=true``
  Phoenix answers the ids of the annotations it inserted, or 404 "Spans with IDs ... do not exist." inserting none
  (without it, Phoenix answers 200 at once and drops the annotations of spans it does not hold). The verdicts of
  the spans it names are waiting for their span (``ItemRefusal.waiting``) and the rest are posted again at once;
  an answer that does not list an id for every annotation is no acknowledgement.

The score sent (``sent_score``) orders pass above fail for every rubric: a passing verdict is sent as
``0.55 + 0.45 * score`` (0.55 to 1), a failing one as ``0.45 * score`` (0 to 0.45), where ``score`` is the judge's
own 0..1 (kept in the metadata as ``judge_score``). A threshold at 0.5 splits them, and within a band a verdict
the judge scored higher still ranks higher.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, ClassVar

import httpx
from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import SEVERITY_NUMBER_INFO, LogRecord, ResourceLogs, ScopeLogs
from opentelemetry.proto.resource.v1.resource_pb2 import Resource

from sumwatch.tracer import semconv

from ..settings.values import parse_headers
from ..store.score_sends import Verdict
from .config import ExportConfig, reveal
from .transport import Http, PermanentError

# ids derived from a verdict's key: the same verdict always gets the same id in a target
_ID_SPACE = uuid.UUID("6f1d3c1e-5b7a-4c1e-9b1f-2a7d0c9e8b41")
EVALUATION_ID = "sumwatch.evaluation.id"
_SERVICE_NAME = "service.name"
_LEGACY_EVENT_NAME = "event.name"  # where readers of OTLP before the LogRecord.event_name field look for it


@dataclass(frozen=True)
class ItemRefusal:
    """One verdict the target did not take in a request it otherwise answered; ``status`` None: no answer for it."""

    key: tuple[str, str, str, str]
    status: int | None
    reason: str
    waiting: bool = False  # the target does not hold the verdict's span yet: tried again when it may

    @property
    def permanent(self) -> bool:
        """Refused for what it is (a 4xx for that verdict): sending it again cannot help."""
        return (not self.waiting and self.status is not None and 400 <= self.status < 500
                and self.status not in (408, 429))


# the bands of the score sent: a pass never scores below PASS_FLOOR, a fail never above FAIL_CEILING
PASS_FLOOR, FAIL_CEILING = 0.55, 0.45


def sent_score(v: Verdict) -> float:
    """The score a target gets: every pass above every fail, the judge's own score placing it within its band.

        sent_score(passing verdict scored 0.39) == 0.7255 > sent_score(failing verdict scored 0.42) == 0.189
    """
    judged = max(0.0, min(1.0, float(v.score)))
    return round(PASS_FLOOR + (1 - PASS_FLOOR) * judged if v.passed else FAIL_CEILING * judged, 4)


def verdict_id(v: Verdict) -> str:
    """The verdict's id on the wire: a UUID of its key (trace, span, rubric, judge version)."""
    return str(uuid.uuid5(_ID_SPACE, "/".join(v.key)))


class ScoreTarget:
    """One place verdicts go. ``batch`` verdicts per request."""

    name: ClassVar[str]
    setting: ClassVar[str]  # the variable that switches the target on, named in problems
    batch: ClassVar[int] = 100

    def __init__(self, config: ExportConfig) -> None:
        self.config = config
        self.http: Http | None = None

    @classmethod
    def problems(cls, config: ExportConfig) -> list[str]:
        raise NotImplementedError

    def batches(self, verdicts: Sequence[Verdict]) -> list[Sequence[Verdict]]:
        """``verdicts`` cut into the requests ``send`` takes."""
        return [verdicts[at:at + self.batch] for at in range(0, len(verdicts), self.batch)]

    def requests(self, verdicts: Sequence[Verdict]) -> list[dict[str, Any]]:
        """The JSON form of each request's body (for --dry-run)."""
        raise NotImplementedError

    def send(self, verdicts: Sequence[Verdict]) -> list[ItemRefusal]:
        """Send one batch; the verdicts it refused one by one (none: all taken). Raises ExportError when the
        request as a whole was not taken."""
        raise NotImplementedError

    def close(self) -> None:
        if self.http is not None:
            self.http.close()


class Otlp(ScoreTarget):
    name, setting = "otlp", "SUMWATCH_SCORES_OTLP_ENDPOINT"

    def __init__(self, config: ExportConfig) -> None:
        super().__init__(config)
        headers = parse_headers(reveal(config.scores_otlp_headers))
        self.http = Http(self.name, config, headers={**headers, "content-type": "application/x-protobuf"})
        base = config.scores_otlp_endpoint
        self.url = base if base.endswith("/v1/logs") else base + "/v1/logs"

    @classmethod
    def problems(cls, config: ExportConfig) -> list[str]:
        return [] if config.scores_otlp_endpoint else [f"otlp: set {cls.setting} (the OTLP/HTTP endpoint)"]

    def message(self, verdicts: Sequence[Verdict]) -> ExportLogsServiceRequest:
        records = [LogRecord(time_unix_nano=v.scored_ns, observed_time_unix_nano=v.scored_ns,
                             severity_number=SEVERITY_NUMBER_INFO, event_name=semconv.EVALUATION_EVENT,
                             trace_id=bytes.fromhex(v.trace_id), span_id=bytes.fromhex(v.span_id),
                             attributes=_attributes(v)) for v in verdicts]
        return ExportLogsServiceRequest(resource_logs=[ResourceLogs(
            resource=Resource(attributes=[_kv(_SERVICE_NAME, "sumwatch")]),
            scope_logs=[ScopeLogs(scope=InstrumentationScope(name="sumwatch.monitor"), log_records=records)])])

    def requests(self, verdicts: Sequence[Verdict]) -> list[dict[str, Any]]:
        return [MessageToDict(self.message(verdicts))]

    def send(self, verdicts: Sequence[Verdict]) -> list[ItemRefusal]:
        assert self.http is not None
        # a lost answer is sent again: OTLP delivery is at least once, and the id lets a receiver deduplicate
        self.http.request("POST", self.url, content=self.message(verdicts).SerializeToString())
        return []


def _attributes(v: Verdict) -> list[KeyValue]:
    return [_kv(_LEGACY_EVENT_NAME, semconv.EVALUATION_EVENT), _kv(semconv.EVALUATION_NAME, v.rubric),
            _kv(semconv.EVALUATION_SCORE_VALUE, sent_score(v)), _kv(semconv.EVALUATION_SCORE_LABEL, v.verdict),
            _kv(semconv.EVALUATION_EXPLANATION, v.explanation), _kv(semconv.EVALUATION_PASSED, v.passed),
            _kv(semconv.EVALUATION_FAILURE_MODE, v.failure_mode), _kv(semconv.EVALUATION_TIER, v.tier),
            _kv(semconv.JUDGE_VERSION, v.judge_version), _kv(EVALUATION_ID, verdict_id(v))]


def _kv(key: str, value: str | float | bool) -> KeyValue:
    if isinstance(value, bool):
        return KeyValue(key=key, value=AnyValue(bool_value=value))
    if isinstance(value, float):
        return KeyValue(key=key, value=AnyValue(double_value=value))
    return KeyValue(key=key, value=AnyValue(string_value=value))


# the documented limit is 3.5 MB a request; the margin covers either reading of a megabyte
MAX_INGESTION_BYTES = 3_000_000
SCORE_EVENT = "score-create"


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class Langfuse(ScoreTarget):
    name, setting = "langfuse", "SUMWATCH_LANGFUSE_HOST"
    batch = 100

    def __init__(self, config: ExportConfig) -> None:
        super().__init__(config)
        self.http = Http(self.name, config, auth=(config.langfuse_public_key, reveal(config.langfuse_secret_key)))
        self.url = config.langfuse_host + "/api/public/ingestion"

    @classmethod
    def problems(cls, config: ExportConfig) -> list[str]:
        lines = []
        if not config.langfuse_host:
            lines.append(f"langfuse: set {cls.setting} (like https://cloud.langfuse.com)")
        if not config.langfuse_public_key or config.langfuse_secret_key is None:
            lines.append("langfuse: set SUMWATCH_LANGFUSE_PUBLIC_KEY and SUMWATCH_LANGFUSE_SECRET_KEY "
                         "(the project's API keys)")
        return lines

    @staticmethod
    def body(v: Verdict) -> dict[str, Any]:
        return {"id": verdict_id(v), "traceId": v.trace_id, "observationId": v.span_id, "name": v.rubric,
                "value": sent_score(v), "dataType": "NUMERIC",
                "comment": f"{v.verdict}: {v.explanation}" if v.explanation else v.verdict,
                "metadata": _metadata(v)}

    @classmethod
    def event(cls, v: Verdict) -> dict[str, Any]:
        """A ``score-create`` event. Its own id is new each time: Langfuse drops an event id it has seen, while
        the score's id (stable) is what makes a re-send an update."""
        now = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return {"id": str(uuid.uuid4()), "type": SCORE_EVENT, "timestamp": now, "body": cls.body(v)}

    def batches(self, verdicts: Sequence[Verdict]) -> list[Sequence[Verdict]]:
        out: list[Sequence[Verdict]] = []
        start, size = 0, len(_json({"batch": []}))
        for at, v in enumerate(verdicts):
            grow = len(_json(self.event(v)).encode()) + 1  # and its comma
            if at > start and (at - start >= self.batch or size + grow > MAX_INGESTION_BYTES):
                out.append(verdicts[start:at])
                start, size = at, len(_json({"batch": []}))
            size += grow
        if start < len(verdicts):
            out.append(verdicts[start:])
        return out

    def requests(self, verdicts: Sequence[Verdict]) -> list[dict[str, Any]]:
        return [{"batch": [self.event(v) for v in batch]} for batch in self.batches(verdicts)]

    def send(self, verdicts: Sequence[Verdict]) -> list[ItemRefusal]:
        assert self.http is not None
        events = [self.event(v) for v in verdicts]
        answer = self.http.request("POST", self.url, content=_json({"batch": events}).encode(),
                                   headers={"content-type": "application/json"})
        return _ingestion_refusals(verdicts, [e["id"] for e in events], answer)


def _ingestion_refusals(verdicts: Sequence[Verdict], event_ids: Sequence[str],
                        answer: httpx.Response) -> list[ItemRefusal]:
    """The verdicts of events in the answer's ``errors``, and of events it does not mention (not known taken)."""
    try:
        result = answer.json()
    except ValueError:
        result = None
    if not isinstance(result, dict):
        result = {}
    taken = {str(s.get("id")) for s in result.get("successes") or [] if isinstance(s, dict)}
    errors = {str(e.get("id")): e for e in result.get("errors") or [] if isinstance(e, dict)}
    refused = []
    for v, event_id in zip(verdicts, event_ids, strict=True):
        if event_id in errors:
            error = errors[event_id]
            status = error.get("status") if isinstance(error.get("status"), int) else None
            detail = error.get("message") or error.get("error") or "refused"
            refused.append(ItemRefusal(v.key, status, f"langfuse event {status}: {str(detail)[:500]}"))
        elif event_id not in taken:
            refused.append(ItemRefusal(v.key, None, f"langfuse: the answer ({answer.status_code}) did not list the "
                                                    f"event"))
    return refused


class Phoenix(ScoreTarget):
    name, setting = "phoenix", "SUMWATCH_PHOENIX_ENDPOINT"

    def __init__(self, config: ExportConfig) -> None:
        super().__init__(config)
        key = reveal(config.phoenix_api_key)
        self.http = Http(self.name, config, headers={"authorization": f"Bearer {key}"} if key else {})
        self.url = config.phoenix_endpoint + "/v1/span_annotations?sync=true"

    @classmethod
    def problems(cls, config: ExportConfig) -> list[str]:
        return [] if config.phoenix_endpoint else [f"phoenix: set {cls.setting} (like http://localhost:6006)"]

    @staticmethod
    def annotation(v: Verdict) -> dict[str, Any]:
        return {"span_id": v.span_id, "name": v.rubric, "annotator_kind": "LLM" if v.tier == "llm" else "CODE",
                "result": {"label": v.verdict, "score": sent_score(v), "explanation": v.explanation or None},
                "identifier": f"sumwatch:{v.judge_version}", "metadata": {**_metadata(v), "trace_id": v.trace_id}}

    def requests(self, verdicts: Sequence[Verdict]) -> list[dict[str, Any]]:
        return [{"data": [self.annotation(v) for v in verdicts]}]

    def send(self, verdicts: Sequence[Verdict]) -> list[ItemRefusal]:
        assert self.http is not None
        refused: list[ItemRefusal] = []
        todo = list(verdicts)
        while todo:
            answer = self.http.request("POST", self.url, json=self.requests(todo)[0], ok=(404,))
            if answer.status_code == 404:
                missing = _missing_spans(answer)
                if not missing:  # not the missing-spans answer: the endpoint itself is wrong
                    raise PermanentError(f"phoenix POST /v1/span_annotations: 404 {answer.text[:300]}".rstrip(), 404)
                waiting = [v for v in todo if v.span_id in missing]
                if not waiting:  # names spans not asked about: no telling which were refused
                    raise PermanentError(f"phoenix: 404 for spans not in the request: {answer.text[:300]}", 404)
                refused += [ItemRefusal(v.key, 404, f"phoenix does not hold span {v.span_id} yet", waiting=True)
                            for v in waiting]
                todo = [v for v in todo if v.span_id not in missing]  # Phoenix inserted none: the rest again
                continue
            if len(_inserted_ids(answer)) != len(todo):
                refused += [ItemRefusal(v.key, None, f"phoenix answered {answer.status_code} without the id of "
                                                     f"every annotation (is it older than sync=true?)") for v in todo]
            break
        return refused


_MISSING_SPANS = re.compile(r"Spans? with IDs? (.+?) (?:does|do) not exist")


def _missing_spans(answer: httpx.Response) -> set[str]:
    """The span ids of Phoenix's 404 "Spans with IDs a, b do not exist." (empty for any other 404)."""
    try:
        detail = answer.json().get("detail")
    except (ValueError, AttributeError):
        return set()
    found = _MISSING_SPANS.search(detail) if isinstance(detail, str) else None
    return {part.strip() for part in found.group(1).split(",") if part.strip()} if found else set()


def _inserted_ids(answer: httpx.Response) -> list[str]:
    try:
        data = answer.json().get("data")
    except (ValueError, AttributeError):
        return []
    return [str(d["id"]) for d in data if isinstance(d, dict) and d.get("id")] if isinstance(data, list) else []


def _metadata(v: Verdict) -> dict[str, Any]:
    return {"source": "sumwatch", "verdict": v.verdict, "passed": v.passed, "failure_mode": v.failure_mode,
            "tier": v.tier, "judge_version": v.judge_version, "judge_score": float(v.score), "model": v.model}


SCORE_TARGETS: dict[str, type[ScoreTarget]] = {t.name: t for t in (Otlp, Langfuse, Phoenix)}


def score_target_problems(name: str, config: ExportConfig) -> list[str]:
    """One line per problem with ``name`` or its settings; empty when it can be used."""
    if name not in SCORE_TARGETS:
        return [f"unknown score target {name!r}: use one of {', '.join(SCORE_TARGETS)}"]
    return SCORE_TARGETS[name].problems(config)


def configured_score_targets(config: ExportConfig) -> list[str]:
    """The targets whose settings are complete."""
    return [name for name, cls in SCORE_TARGETS.items() if not cls.problems(config)]


def build_score_target(name: str, config: ExportConfig) -> ScoreTarget:
    problems = score_target_problems(name, config)
    if problems:
        raise ValueError("; ".join(problems))
    return SCORE_TARGETS[name](config)

