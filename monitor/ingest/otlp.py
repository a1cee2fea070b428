"""Decode an OTLP/HTTP trace export (protobuf or JSON, gzip or not) into ``otel_traces`` rows.

    rows = decode_traces(body, content_type="application/x-protobuf", content_encoding="gzip",
                         max_bytes=20 << 20)

Raises :class:`OtlpDecodeError` (answered 400) with the reason, or :class:`PayloadTooLarge` (413).
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Any

from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from sumwatch.tracer.otel_traces import SERVICE_NAME_KEY, SPAN_KINDS, STATUS_CODES, attribute_string

PROTOBUF = "application/x-protobuf"
JSON = "application/json"


class OtlpDecodeError(ValueError):
    """The request body is not a valid OTLP trace export."""


class PayloadTooLarge(ValueError):
    """The body, or what it inflates to, is over the configured limit."""


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def inflate(body: bytes, content_encoding: str | None, max_bytes: int) -> bytes:
    encoding = (content_encoding or "identity").strip().lower()
    if encoding in ("identity", ""):
        return body
    if encoding not in ("gzip", "deflate"):
        raise OtlpDecodeError(f"unsupported Content-Encoding {content_encoding!r} (use gzip or none)")
    # bounded inflation: a small bomb must not exhaust memory
    inflater = zlib.decompressobj(wbits=31 if encoding == "gzip" else 15)
    try:
        out = inflater.decompress(body, max_bytes + 1)
    except zlib.error as exc:
        raise OtlpDecodeError(f"body is not valid {encoding}: {exc}") from None
    if len(out) > max_bytes or inflater.unconsumed_tail:
        raise PayloadTooLarge(f"decompressed body exceeds the {max_bytes}-byte limit")
    if not inflater.eof:
        raise OtlpDecodeError(f"{encoding} body is truncated")
    return out


def parse_request(body: bytes, content_type: str | None) -> ExportTraceServiceRequest:
    kind = media_type(content_type)
    request = ExportTraceServiceRequest()
    if kind == PROTOBUF:
        try:
            request.ParseFromString(body)
        except DecodeError as exc:
            raise OtlpDecodeError(f"body is not a valid OTLP protobuf ExportTraceServiceRequest: {exc}") from None
        return request
    if kind == JSON:
        try:
            payload = json.loads(body)
        except (UnicodeDecodeError, ValueError) as exc:
            raise OtlpDecodeError(f"body is not valid JSON: {exc}") from None
        if not isinstance(payload, dict):
            raise OtlpDecodeError("OTLP/JSON body must be an object with resourceSpans")
        try:
            json_format.ParseDict(_ids_to_base64(payload), request, ignore_unknown_fields=True)
        except json_format.ParseError as exc:
            raise OtlpDecodeError(f"body is not a valid OTLP/JSON trace export: {exc}") from None
        return request
    raise OtlpDecodeError(f"unsupported Content-Type {content_type!r}: use {PROTOBUF} or {JSON}")


def encode_response(content_type: str | None) -> tuple[bytes, str]:
    """An empty ExportTraceServiceResponse in the request's encoding."""
    if media_type(content_type) == JSON:
        return b"{}", JSON
    return ExportTraceServiceResponse().SerializeToString(), PROTOBUF


def _hex_to_b64(value: Any, where: str) -> Any:
    if not isinstance(value, str) or value == "":
        return value
    try:
        return base64.b64encode(binascii.unhexlify(value)).decode("ascii")
    except (binascii.Error, ValueError):
        raise OtlpDecodeError(f"{where} must be a hex string (OTLP/JSON), got {value[:40]!r}") from None


def _ids_to_base64(payload: dict) -> dict:
    """OTLP/JSON writes ids as hex; protobuf's JSON mapping expects base64 for bytes fields."""
    for r, rs in enumerate(payload.get("resourceSpans") or payload.get("resource_spans") or []):
        for s, ss in enumerate(_get(rs, "scopeSpans", "scope_spans")):
            for i, span in enumerate(_get(ss, "spans")):
                if not isinstance(span, dict):
                    continue
                where = f"resourceSpans[{r}].scopeSpans[{s}].spans[{i}]"
                for key in ("traceId", "trace_id", "spanId", "span_id", "parentSpanId", "parent_span_id"):
                    if key in span:
                        span[key] = _hex_to_b64(span[key], f"{where}.{key}")
                for j, link in enumerate(_get(span, "links")):
                    if isinstance(link, dict):
                        for key in ("traceId", "trace_id", "spanId", "span_id"):
                            if key in link:
                                link[key] = _hex_to_b64(link[key], f"{where}.links[{j}].{key}")
    return payload


def _get(obj: Any, *keys: str) -> list:
    if not isinstance(obj, dict):
        return []
    for key in keys:
        value = obj.get(key)
        if isinstance(value, list):
            return value
    return []


def _any_value(value: Any) -> Any:
    which = value.WhichOneof("value")
    if which is None:
        return ""
    if which == "array_value":
        return [_any_value(v) for v in value.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _any_value(kv.value) for kv in value.kvlist_value.values}
    return getattr(value, which)


def _attributes(kvs: Any) -> dict[str, str]:
    out = {}
    for kv in kvs:
        value = kv.value
        which = value.WhichOneof("value")
        if which == "string_value":
            out[kv.key] = value.string_value
        else:
            out[kv.key] = attribute_string(_any_value(value)) if which is not None else ""
    return out


def _check_id(raw: bytes, size: int, what: str, where: str, required: bool = True) -> str:
    if len(raw) == size:
        return raw.hex()
    if not raw and not required:
        return ""
    raise OtlpDecodeError(f"{where}: {what} must be {size} bytes, got {len(raw)}")


def request_to_rows(request: ExportTraceServiceRequest) -> list[tuple]:
    rows = []
    for r, rs in enumerate(request.resource_spans):
        resource_attrs = _attributes(rs.resource.attributes)
        service = resource_attrs.get(SERVICE_NAME_KEY, "")
        for s, ss in enumerate(rs.scope_spans):
            scope_name, scope_version = ss.scope.name, ss.scope.version
            for i, span in enumerate(ss.spans):
                where = f"resourceSpans[{r}].scopeSpans[{s}].spans[{i}]"
                start, end = span.start_time_unix_nano, span.end_time_unix_nano
                kind = span.kind if 0 <= span.kind < len(SPAN_KINDS) else 0
                code = span.status.code if 0 <= span.status.code < len(STATUS_CODES) else 0
                events, links = span.events, span.links
                rows.append((
                    start,
                    _check_id(span.trace_id, 16, "traceId", where),
                    _check_id(span.span_id, 8, "spanId", where),
                    _check_id(span.parent_span_id, 8, "parentSpanId", where, required=False),
                    span.trace_state,
                    span.name,
                    SPAN_KINDS[kind],
                    service,
                    resource_attrs,
                    scope_name,
                    scope_version,
                    _attributes(span.attributes),
                    end - start if end >= start else 0,
                    STATUS_CODES[code],
                    span.status.message,
                    [e.time_unix_nano for e in events],
                    [e.name for e in events],
                    [_attributes(e.attributes) for e in events],
                    [_check_id(link.trace_id, 16, "links.traceId", where) for link in links],
                    [_check_id(link.span_id, 8, "links.spanId", where) for link in links],
                    [link.trace_state for link in links],
                    [_attributes(link.attributes) for link in links],
                ))
    return rows


def decode_traces(body: bytes, *, content_type: str | None, content_encoding: str | None,
                  max_bytes: int) -> list[tuple]:
    """Body of a POST /v1/traces -> rows in ``otel_traces`` column order."""
    if len(body) > max_bytes:
        raise PayloadTooLarge(f"body of {len(body)} bytes exceeds the {max_bytes}-byte limit")
    return request_to_rows(parse_request(inflate(body, content_encoding, max_bytes), content_type))
