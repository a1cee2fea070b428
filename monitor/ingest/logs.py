"""Decode an OTLP/HTTP log export (protobuf or JSON, gzip or not) into the GenAI content records it holds.

    decoded = decode_logs(body, content_type="application/x-protobuf", content_encoding=None, max_bytes=20 << 20)
    decoded.rows       # GenAiEvent records to store (gen_ai.* events, by trace and span id)
    decoded.skipped    # other log records: accepted, not kept (sumwatch is not a log store)
    decoded.rejected   # GenAI records dropped for a value the store cannot take, with the first reasons

The event name is the record's ``EventName`` field or, as older SDKs write it, its ``event.name`` attribute.
The checks and answers are the trace receiver's (:mod:`.otlp`): a body that is not an OTLP log export raises
:class:`~.otlp.OtlpDecodeError` (400), one over the limit :class:`~.otlp.PayloadTooLarge` (413); a GenAI
record without a usable trace or span id, or with a time out of the store's range, is dropped with its reason.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)

from sumwatch.tracer.otel_traces import SERVICE_NAME_KEY, attribute_string

from ..store.genai_events import EVENT_NAME, GenAiEvent
from .otlp import (
    JSON,
    PROTOBUF,
    OtlpDecodeError,
    PayloadTooLarge,
    _any_value,
    _attributes,
    _hex_to_b64,
    _list,
    _short,
    encode_message,
    inflate,
    json_object,
    media_type,
    parse_protobuf,
    safe_text,
)
from .validate import SPAN_ID_BYTES, TRACE_ID_BYTES, Rejections, id_problem, text_problem, time_problem

GENAI_EVENT_PREFIX = "gen_ai."
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_ID_KEYS = ("traceId", "trace_id", "spanId", "span_id")
_Place = tuple[int, int, int]


@dataclass
class DecodedLogs:
    """The log records of one request: GenAI records to store, others passed over, and what was dropped."""

    rows: list[GenAiEvent] = field(default_factory=list)
    skipped: int = 0
    rejected: Rejections = field(default_factory=lambda: Rejections(noun="log records"))

    @property
    def total(self) -> int:
        return len(self.rows) + self.skipped + self.rejected.count


def decode_logs(body: bytes, *, content_type: str | None, content_encoding: str | None,
                max_bytes: int) -> DecodedLogs:
    """Body of a POST /v1/logs -> the GenAI records to store, those passed over and those rejected."""
    if len(body) > max_bytes:
        raise PayloadTooLarge(f"body of {len(body)} bytes exceeds the {max_bytes}-byte limit")
    request, refused = _parse(inflate(body, content_encoding, max_bytes), content_type)
    return _records(request, refused)


def encode_logs_response(content_type: str | None, decoded: DecodedLogs | None = None) -> tuple[bytes, str]:
    """An ExportLogsServiceResponse in the request's encoding, with ``partial_success`` when records were dropped."""
    response = ExportLogsServiceResponse()
    if decoded is not None and decoded.rejected.count:
        response.partial_success.rejected_log_records = decoded.rejected.count
        response.partial_success.error_message = safe_text(decoded.rejected.message(decoded.total))
    return encode_message(response, content_type)


def _parse(body: bytes, content_type: str | None) -> tuple[ExportLogsServiceRequest, dict[_Place, str]]:
    kind = media_type(content_type)
    request = ExportLogsServiceRequest()
    if kind == PROTOBUF:
        return parse_protobuf(body, request), {}
    if kind != JSON:
        raise OtlpDecodeError(f"unsupported Content-Type {content_type!r}: use {PROTOBUF} or {JSON}")
    payload = json_object(body, "resourceLogs")
    if _SURROGATE_ESCAPE.search(body):
        path = text_problem(payload)
        if path is not None:
            raise OtlpDecodeError(safe_text(_short(f"{path.lstrip('.')}: not valid text (a lone UTF-16 surrogate)")))
    refused = _hex_ids(payload)
    try:
        json_format.ParseDict(payload, request, ignore_unknown_fields=True)
    except Exception as exc:  # ParseError, and upb's errors on odd keys
        reason = str(exc).split(" at ExportLogsServiceRequest", 1)[0] or type(exc).__name__
        raise OtlpDecodeError(_short(f"body is not a valid OTLP/JSON log export: {reason}")) from None
    return request, refused


def _hex_ids(payload: dict[str, Any]) -> dict[_Place, str]:
    """OTLP/JSON writes ids as hex, protobuf's JSON mapping reads bytes as base64: convert them in place. A
    record with an id that is not hex is emptied and its reason returned, by its (r, s, i) place."""
    refused: dict[_Place, str] = {}
    for r, rl in enumerate(_list(payload, "resourceLogs", "resource_logs")):
        for s, sl in enumerate(_list(rl, "scopeLogs", "scope_logs")):
            records = _list(sl, "logRecords", "log_records")
            for i, record in enumerate(records):
                if not isinstance(record, dict):
                    continue
                for key in _ID_KEYS:
                    if key not in record:
                        continue
                    try:
                        record[key] = _hex_to_b64(record[key])
                    except ValueError:
                        refused[(r, s, i)] = safe_text(_short(f"{key}: must be a hex string (OTLP/JSON), "
                                                              f"got {str(record[key])[:40]!r}"))
                        records[i] = {}
                        break
    return refused


def _records(request: ExportLogsServiceRequest, refused: dict[_Place, str]) -> DecodedLogs:
    decoded = DecodedLogs()
    now = time.time_ns()
    for r, rl in enumerate(request.resource_logs):
        service = _attributes(rl.resource.attributes).get(SERVICE_NAME_KEY, "")
        for s, sl in enumerate(rl.scope_logs):
            for i, record in enumerate(sl.log_records):
                place = f"resourceLogs[{r}].scopeLogs[{s}].logRecords[{i}]"
                if (r, s, i) in refused:
                    decoded.rejected.add(f"{place}.{refused[(r, s, i)]}")
                    continue
                attributes = _attributes(record.attributes)
                name = record.event_name or attributes.get(EVENT_NAME, "")
                if not name.startswith(GENAI_EVENT_PREFIX):
                    decoded.skipped += 1
                    continue
                # the time only orders a call's records: an SDK that set neither time still has its content kept
                stamp = record.time_unix_nano or record.observed_time_unix_nano or now
                problem = (id_problem(record.trace_id, TRACE_ID_BYTES, "traceId")
                           or id_problem(record.span_id, SPAN_ID_BYTES, "spanId")
                           or time_problem(stamp, "timeUnixNano"))
                if problem is not None:
                    decoded.rejected.add(f"{place}.{problem}")
                    continue
                body = attribute_string(_any_value(record.body)) if record.HasField("body") else ""
                attributes.pop(EVENT_NAME, None)
                decoded.rows.append(GenAiEvent(stamp, record.trace_id.hex(), record.span_id.hex(), name, body, i,
                                               service, attributes))
    return decoded
