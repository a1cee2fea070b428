"""Loopback stand-ins for where verdicts go back out: an OTLP/HTTP logs endpoint, Langfuse's scores API and
Phoenix's span annotations API, each checking the request shape its documentation gives.

    with FakeScoreTargets() as fake:
        config = fake.config(scores_verdicts="all")      # an ExportConfig pointing every score target here
        fake.fault = lambda target: Fault(503) if ... else None
        fake.otlp        # the log records taken, decoded from protobuf
        fake.langfuse    # scores by id (a re-send with the same id updates, as Langfuse upserts)
        fake.langfuse_refuse = lambda score: (400, "...") if ... else None   # that event in the 207's errors
        fake.phoenix     # annotations by (span id, name, identifier), as Phoenix upserts
        fake.phoenix_spans = {span_id, ...}   # the spans Phoenix holds (None: every span asked about)
        fake.problems    # requests the API would refuse (each also answered 400 or 422)

- OTLP: ``POST /v1/logs``, ``content-type: application/x-protobuf``, the configured headers; the body must decode
  as ExportLogsServiceRequest with 16-byte trace ids and 8-byte span ids.
- Langfuse: ``POST /api/public/ingestion``, Basic auth public:secret key, ``{"batch": [events]}`` of at most 3.5 MB
  (413 above); each event an ``id`` (unique in the request), ``type`` ``score-create``, an ISO 8601 ``timestamp``
  and a ``body``; a request not of that shape is answered 400. Each score body needs ``traceId`` and ``name``,
  ``value`` a number for NUMERIC, ``dataType`` one of NUMERIC, CATEGORICAL, BOOLEAN; ``observationId`` and ``id``
  optional. The answer is 207 ``{"successes": [{id, status}], "errors": [{id, status, message}]}``: a score body
  Langfuse would refuse, or one ``langfuse_refuse`` picks, is in ``errors`` and the rest are stored.
- Phoenix: ``POST /v1/span_annotations``, ``{"data": [...]}`` with ``span_id`` (16 hex), ``name``,
  ``annotator_kind`` (LLM, CODE, HUMAN) and ``result`` holding at least one of label, score, explanation. As
  Phoenix's router does: without ``sync=true`` the answer is 200 ``{"data": []}`` and the annotations of spans it
  does not hold are dropped (queued, never inserted); with ``sync=true`` a request naming any span it does not hold
  is answered 404 ``{"detail": "Spans with IDs a, b do not exist."}`` inserting none, and otherwise with the id of
  every annotation inserted.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest, ExportLogsServiceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .loopback import LoopbackServer

OTLP_TOKEN = "otlp-FAKE-token-12345"
LANGFUSE_PUBLIC, LANGFUSE_SECRET = "pk-lf-FAKE-public", "sk-lf-FAKE-secret-123"
PHOENIX_KEY = "phx-FAKE-api-key-123"
_HEX16 = re.compile(r"[0-9a-f]{16}")
LANGFUSE_MAX_BYTES = 3_500_000
_SCORE_FIELDS = frozenset({"id", "traceId", "observationId", "sessionId", "name", "value", "dataType", "comment",
                           "configId", "metadata", "environment", "datasetRunId"})


@dataclass
class Fault:
    status: int
    retry_after: str | None = None
    echo: bool = False  # the error body repeats the request's Authorization header, as some servers do


@dataclass
class LogSeen:
    """One OTLP log record, decoded."""

    trace_id: str
    span_id: str
    event_name: str
    attributes: dict[str, Any]
    service: str


@dataclass
class FakeScoreTargets(LoopbackServer):
    fault: Callable[[str], Fault | None] | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)  # (target, path) of every request, answered or not
    problems: list[str] = field(default_factory=list)
    otlp: list[LogSeen] = field(default_factory=list)
    langfuse: dict[str, dict[str, Any]] = field(default_factory=dict)
    langfuse_posts: int = 0  # ingestion requests taken (207)
    langfuse_events: int = 0
    langfuse_refuse: Callable[[dict[str, Any]], tuple[int, str] | None] | None = None
    phoenix: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    phoenix_spans: set[str] | None = None  # the spans Phoenix holds; None: every span asked about
    phoenix_dropped: int = 0  # annotations taken without sync=true for spans Phoenix does not hold

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        LoopbackServer.__init__(self, "the fake score targets")
        self.app = Starlette(routes=[
            Route("/otlp/v1/logs", self._otlp, methods=["POST"]),
            Route("/langfuse/api/public/ingestion", self._langfuse, methods=["POST"]),
            Route("/phoenix/v1/span_annotations", self._phoenix, methods=["POST"]),
        ])

    def config(self, **overrides: Any) -> Any:
        from sumwatch.monitor.exports.config import ExportConfig

        values: dict[str, Any] = dict(
            scores_otlp_endpoint=f"{self.base}/otlp", scores_otlp_headers=f"authorization=Bearer {OTLP_TOKEN}",
            langfuse_host=f"{self.base}/langfuse", langfuse_public_key=LANGFUSE_PUBLIC,
            langfuse_secret_key=LANGFUSE_SECRET, phoenix_endpoint=f"{self.base}/phoenix", phoenix_api_key=PHOENIX_KEY,
            export_backoff_s=0.01, export_max_attempts=3)
        values.update(overrides)
        return ExportConfig(**values)

    def env(self) -> dict[str, str]:
        """The same settings as SUMWATCH_* variables, for commands."""
        return {"SUMWATCH_SCORES_OTLP_ENDPOINT": f"{self.base}/otlp",
                "SUMWATCH_SCORES_OTLP_HEADERS": f"authorization=Bearer {OTLP_TOKEN}",
                "SUMWATCH_LANGFUSE_HOST": f"{self.base}/langfuse", "SUMWATCH_LANGFUSE_PUBLIC_KEY": LANGFUSE_PUBLIC,
                "SUMWATCH_LANGFUSE_SECRET_KEY": LANGFUSE_SECRET, "SUMWATCH_PHOENIX_ENDPOINT": f"{self.base}/phoenix",
                "SUMWATCH_PHOENIX_API_KEY": PHOENIX_KEY, "SUMWATCH_EXPORT_BACKOFF_S": "0.01"}

    # -- plumbing ------------------------------------------------------------------------------
    def _begin(self, request: Request, target: str, auth_ok: bool) -> Response | None:
        with self._lock:
            self.calls.append((target, request.url.path))
        if not auth_ok:
            return JSONResponse({"message": "unauthorized"}, status_code=401)
        fault = self.fault(target) if self.fault else None
        if fault:
            headers = {"retry-after": fault.retry_after} if fault.retry_after else {}
            message = f"fault {fault.status}"
            if fault.echo:
                message += f" with Authorization: {request.headers.get('authorization', '')}"
            return JSONResponse({"message": message}, status_code=fault.status, headers=headers)
        return None

    def _refuse(self, status: int, problem: str) -> Response:
        with self._lock:
            self.problems.append(problem)
        return JSONResponse({"message": problem}, status_code=status)

    # -- OTLP ------------------------------------------------------------------------------------
    async def _otlp(self, request: Request) -> Response:
        refused = self._begin(request, "otlp", request.headers.get("authorization") == f"Bearer {OTLP_TOKEN}")
        if refused:
            return refused
        if request.headers.get("content-type") != "application/x-protobuf":
            return self._refuse(415, "otlp: content-type must be application/x-protobuf")
        message = ExportLogsServiceRequest()
        try:
            message.ParseFromString(await request.body())
        except DecodeError:
            return self._refuse(400, "otlp: the body is not an ExportLogsServiceRequest")
        seen = []
        for resource_logs in message.resource_logs:
            service = next((a.value.string_value for a in resource_logs.resource.attributes
                            if a.key == "service.name"), "")
            for scope_logs in resource_logs.scope_logs:
                for record in scope_logs.log_records:
                    if len(record.trace_id) != 16 or len(record.span_id) != 8:
                        return self._refuse(400, "otlp: trace id must be 16 bytes and span id 8 bytes")
                    attributes = {a.key: next(iter(MessageToDict(a.value).values()), None) for a in record.attributes}
                    seen.append(LogSeen(record.trace_id.hex(), record.span_id.hex(), record.event_name, attributes,
                                        service))
        with self._lock:
            self.otlp.extend(seen)
        return Response(ExportLogsServiceResponse().SerializeToString(), media_type="application/x-protobuf")

    # -- Langfuse ----------------------------------------------------------------------------------
    async def _langfuse(self, request: Request) -> Response:
        expected = "Basic " + base64.b64encode(f"{LANGFUSE_PUBLIC}:{LANGFUSE_SECRET}".encode()).decode()
        refused = self._begin(request, "langfuse", request.headers.get("authorization") == expected)
        if refused:
            return refused
        raw = await request.body()
        if len(raw) > LANGFUSE_MAX_BYTES:
            return self._refuse(413, f"langfuse: a batch of {len(raw)} bytes is over 3.5 MB")
        try:
            body = json.loads(raw)
        except ValueError:
            return self._refuse(400, "langfuse: the body is not JSON")
        batch = body.get("batch") if isinstance(body, dict) else None
        if not isinstance(batch, list) or not batch:
            return self._refuse(400, 'langfuse: the body must be {"batch": [events]}')
        ids = [e.get("id") if isinstance(e, dict) else None for e in batch]
        if not all(isinstance(i, str) and i for i in ids) or len(set(ids)) != len(ids):
            return self._refuse(400, "langfuse: every event needs an id, unique in the batch")
        for event in batch:
            if event.get("type") != "score-create" or not isinstance(event.get("body"), dict) \
                    or not _iso8601(event.get("timestamp")):
                return self._refuse(400, "langfuse: a score event needs type score-create, an ISO 8601 timestamp "
                                         "and a body")
        successes, errors = [], []
        for event in batch:
            problem = _score_problem(event["body"])
            if problem:
                with self._lock:
                    self.problems.append(problem)
                errors.append({"id": event["id"], "status": 400, "message": "Invalid request data",
                               "error": problem})
                continue
            chosen = self.langfuse_refuse(event["body"]) if self.langfuse_refuse else None
            if chosen:
                errors.append({"id": event["id"], "status": chosen[0], "message": chosen[1]})
                continue
            score_id = event["body"].get("id") or f"generated-{len(self.langfuse)}"
            with self._lock:
                self.langfuse[score_id] = event["body"]  # the same id updates the score
            successes.append({"id": event["id"], "status": 201})
        with self._lock:
            self.langfuse_posts += 1
            self.langfuse_events += len(batch)
        return JSONResponse({"successes": successes, "errors": errors}, status_code=207)

    # -- Phoenix -----------------------------------------------------------------------------------
    async def _phoenix(self, request: Request) -> Response:
        refused = self._begin(request, "phoenix", request.headers.get("authorization") == f"Bearer {PHOENIX_KEY}")
        if refused:
            return refused
        try:
            body = json.loads(await request.body())
        except ValueError:
            return self._refuse(400, "phoenix: the body is not JSON")
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list) or not data:
            return self._refuse(422, "phoenix: the body must be {\"data\": [annotations]}")
        for item in data:
            result = item.get("result") or {}
            if not _HEX16.fullmatch(str(item.get("span_id", ""))) or not item.get("name") \
                    or item.get("annotator_kind") not in ("LLM", "CODE", "HUMAN") \
                    or not any(result.get(k) is not None for k in ("label", "score", "explanation")):
                return self._refuse(422, "phoenix: an annotation needs span_id (16 hex), name, annotator_kind "
                                         "and a result with label, score or explanation")
        held = self.phoenix_spans
        missing = sorted({item["span_id"] for item in data if held is not None and item["span_id"] not in held})
        sync = request.query_params.get("sync", "false").lower() == "true"
        if sync and missing:
            return JSONResponse({"detail": f"Spans with IDs {', '.join(missing)} do not exist."}, status_code=404)
        ids = []
        with self._lock:
            for item in data:
                if item["span_id"] in missing:
                    self.phoenix_dropped += 1
                    continue
                key = (item["span_id"], item["name"], item.get("identifier", ""))
                self.phoenix[key] = item
                ids.append({"id": "SpanAnnotation:" + str(list(self.phoenix).index(key) + 1)})
        return JSONResponse({"data": ids if sync else []})



def _iso8601(value: Any) -> bool:
    try:
        datetime.fromisoformat(str(value))
    except ValueError:
        return False
    return isinstance(value, str) and "T" in value


def _score_problem(body: dict[str, Any]) -> str | None:
    """Why Langfuse would refuse this score body (None: it would take it)."""
    if not isinstance(body.get("traceId"), str) or not body.get("name"):
        return "langfuse: a score needs traceId and name"
    kind = body.get("dataType", "NUMERIC")
    if kind not in ("NUMERIC", "CATEGORICAL", "BOOLEAN"):
        return f"langfuse: dataType {kind!r} is not NUMERIC, CATEGORICAL or BOOLEAN"
    if kind == "NUMERIC" and not isinstance(body.get("value"), (int, float)):
        return "langfuse: a NUMERIC score's value must be a number"
    if set(body) - _SCORE_FIELDS:
        return f"langfuse: unknown fields {sorted(set(body) - _SCORE_FIELDS)}"
    return None
