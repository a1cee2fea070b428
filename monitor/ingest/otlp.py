"""Decode an OTLP/HTTP trace export (protobuf or JSON, gzip or not) into ``otel_traces`` rows.

    decoded = decode_traces(body, content_type="application/x-protobuf", content_encoding="gzip",
                            max_bytes=20 << 20)
    decoded.rows              # spans that can be stored, in ``otel_traces`` column order
    decoded.rejected          # spans dropped for a value the store cannot take, with the first reasons

A body that is not an OTLP trace export at all raises :class:`OtlpDecodeError` (answered 400): not
protobuf or JSON, wrong types at any level, JSON nested deeper than the parser allows, invalid UTF-8
anywhere in a protobuf body, or invalid text outside the spans of a JSON body. A body over the limit,
or one that inflates past it, raises :class:`PayloadTooLarge` (413). Within a well-formed body, each span
is checked (:mod:`.validate`) and one that cannot be stored is dropped, not the request.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from sumwatch.tracer.otel_traces import SERVICE_NAME_KEY, SPAN_KINDS, STATUS_CODES, attribute_string, format_double

from .validate import Rejections, plain_span_ok, span_problem, stored_id, text_problem

_M = TypeVar("_M", bound=Message)

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
MAX_GZIP_MEMBERS = 1000  # a body of many tiny members costs a decoder each; no exporter sends more than one
_MESSAGE_CHARS = 400  # reasons quote the client's input; keep them short
# a JSON \u escape of a UTF-16 surrogate; only bodies holding one can decode to invalid text
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_FAILED_FIELD = re.compile(r"Failed to parse (\w+) field: ")  # the path in protobuf's ParseDict errors


class OtlpDecodeError(ValueError):
    """The request body is not a valid OTLP trace export."""


class PayloadTooLarge(ValueError):
    """The body, or what it inflates to, is over the configured limit."""


@dataclass
class Decoded:
    """The spans of one request: rows to store, and what was dropped."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    rejected: Rejections = field(default_factory=Rejections)

    @property
    def total(self) -> int:
        return len(self.rows) + self.rejected.count


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";")[0].strip().lower()


def inflate(body: bytes, content_encoding: str | None, max_bytes: int) -> bytes:
    """The body decoded from gzip (every member, as RFC 1952 allows several) or deflate, refusing more than
    ``max_bytes`` of output in all: a small bomb must not exhaust memory."""
    encoding = (content_encoding or "identity").strip().lower()
    if encoding in ("identity", ""):
        return body
    if encoding not in ("gzip", "deflate"):
        raise OtlpDecodeError(f"unsupported Content-Encoding {content_encoding!r} (use gzip or none)")
    out: list[bytes] = []
    size, rest, member = 0, body, 0
    while True:
        member += 1
        if member > MAX_GZIP_MEMBERS:
            raise OtlpDecodeError(f"gzip body has more than {MAX_GZIP_MEMBERS} members")
        inflater = zlib.decompressobj(wbits=31 if encoding == "gzip" else 15)
        try:
            chunk = inflater.decompress(rest, max_bytes - size + 1)
        except zlib.error as exc:
            which = f" (member {member})" if member > 1 else ""
            raise OtlpDecodeError(f"body is not valid {encoding}{which}: {exc}") from None
        size += len(chunk)
        if size > max_bytes or inflater.unconsumed_tail:
            raise PayloadTooLarge(f"decompressed body exceeds the {max_bytes}-byte limit")
        if not inflater.eof:
            raise OtlpDecodeError(f"{encoding} body is truncated")
        out.append(chunk)
        rest = inflater.unused_data
        if not rest:
            return b"".join(out)
        if encoding == "deflate":
            raise OtlpDecodeError(f"deflate body has {len(rest)} bytes after the end of its stream")


def parse_request(body: bytes, content_type: str | None
                  ) -> tuple[ExportTraceServiceRequest, dict[tuple[int, int, int], str]]:
    """The request message, and the reasons of JSON spans refused while reading it, by (r, s, i) place."""
    kind = media_type(content_type)
    request = ExportTraceServiceRequest()
    if kind == PROTOBUF:
        return parse_protobuf(body, request), {}
    if kind == JSON:
        payload = json_object(body, "resourceSpans")
        refused = _prepare_json(payload, check_text=_SURROGATE_ESCAPE.search(body) is not None)
        try:
            json_format.ParseDict(payload, request, ignore_unknown_fields=True)
        except Exception as exc:  # ParseError, and upb's errors on odd keys
            raise OtlpDecodeError(f"body is not a valid OTLP/JSON trace export: {_parse_error(exc, payload)}") \
                from None
        return request, refused
    raise OtlpDecodeError(f"unsupported Content-Type {content_type!r}: use {PROTOBUF} or {JSON}")


def parse_protobuf(body: bytes, request: _M) -> _M:
    """``request`` read from an OTLP protobuf body; one line naming the message when it is not one."""
    try:
        request.ParseFromString(body)
    except Exception as exc:  # DecodeError, and whatever else upb raises on hostile input
        name = type(request).__name__
        raise OtlpDecodeError(_short(f"body is not a valid OTLP protobuf {name}: {exc}")) from None
    return request


def json_object(body: bytes, root: str) -> dict[str, Any]:
    """An OTLP/JSON body as an object; one line saying why when it is not JSON or not an object."""
    try:
        payload = json.loads(body)
    except RecursionError:
        raise OtlpDecodeError("body is not valid JSON: nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise OtlpDecodeError(_short(f"body is not valid JSON: {exc}")) from None
    if not isinstance(payload, dict):
        raise OtlpDecodeError(f"OTLP/JSON body must be an object with {root}")
    return payload


def encode_message(response: Message, content_type: str | None) -> tuple[bytes, str]:
    """An export response in the request's encoding."""
    if media_type(content_type) == JSON:
        return json.dumps(json_format.MessageToDict(response)).encode(), JSON
    return response.SerializeToString(), PROTOBUF


def encode_response(content_type: str | None, decoded: Decoded | None = None) -> tuple[bytes, str]:
    """An ExportTraceServiceResponse in the request's encoding, with ``partial_success`` when spans were dropped."""
    response = ExportTraceServiceResponse()
    if decoded is not None and decoded.rejected.count:
        response.partial_success.rejected_spans = decoded.rejected.count
        response.partial_success.error_message = safe_text(decoded.rejected.message(decoded.total))
    return encode_message(response, content_type)


def safe_text(text: str) -> str:
    """Text that encodes as UTF-8: a lone surrogate quoted from the input becomes its escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _short(text: str) -> str:
    return text if len(text) <= _MESSAGE_CHARS else text[:_MESSAGE_CHARS] + "..."


def _parse_error(exc: Exception, payload: dict[str, Any]) -> str:
    """protobuf's ParseDict message ("Failed to parse a field: Failed to parse b field: reason") as
    "place.field: reason", the place with the indexes of the first piece that does not parse."""
    text = str(exc) or type(exc).__name__
    names = _FAILED_FIELD.findall(text)
    reason = text.rsplit("field: ", 1)[-1].split(" at ExportTraceServiceRequest", 1)[0].rstrip(".")
    place, depth = _failing_place(payload)
    path = ".".join(([place] if place else []) + names[depth:])
    return _short(f"{path}: {reason}" if path else reason)


def _failing_place(payload: dict[str, Any]) -> tuple[str, int]:
    """The first resource, scope or span of a JSON body that does not parse on its own, and its depth."""
    from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span  # noqa: PLC0415 - heavy: loaded on first use

    levels = ((("resourceSpans", "resource_spans"), ResourceSpans), (("scopeSpans", "scope_spans"), ScopeSpans),
              (("spans",), Span))
    place, depth, node = "", 0, payload
    for names, message in levels:
        items = _list(node, *names)
        for k, item in enumerate(items):
            try:
                json_format.ParseDict(item, message(), ignore_unknown_fields=True)
            except Exception:
                place, depth, node = f"{place}.{names[0]}[{k}]".lstrip("."), depth + 1, item
                break
        else:
            break
    return place, depth


def _hex_to_b64(value: Any) -> Any:
    if not isinstance(value, str) or value == "":
        return value  # a wrong type is left for ParseDict to refuse
    return base64.b64encode(binascii.unhexlify(value)).decode("ascii")


_ID_KEYS = ("traceId", "trace_id", "spanId", "span_id", "parentSpanId", "parent_span_id")
_LINK_ID_KEYS = ("traceId", "trace_id", "spanId", "span_id")


def _prepare_json(payload: dict[str, Any], check_text: bool) -> dict[tuple[int, int, int], str]:
    """OTLP/JSON writes ids as hex, protobuf's JSON mapping reads bytes as base64: convert them in place.
    A span with an id that is not hex, or (``check_text``) with a lone surrogate, is replaced by an empty
    object and its reason returned, keyed by its (r, s, i) place; a lone surrogate elsewhere refuses the body."""
    refused: dict[tuple[int, int, int], str] = {}
    for r, rs in enumerate(_list(payload, "resourceSpans", "resource_spans")):
        for s, ss in enumerate(_list(rs, "scopeSpans", "scope_spans")):
            spans = _list(ss, "spans")
            for i, span in enumerate(spans):
                if not isinstance(span, dict):
                    continue
                problem = _span_json_problem(span, check_text)
                if problem is not None:
                    refused[(r, s, i)] = problem
                    spans[i] = {}
    if check_text:
        path = text_problem(payload)
        if path is not None:
            raise OtlpDecodeError(safe_text(_short(f"{path.lstrip('.')}: not valid text (a lone UTF-16 surrogate)")))
    return refused


def _span_json_problem(span: dict[str, Any], check_text: bool) -> str | None:
    if check_text:
        path = text_problem(span)
        if path is not None:
            return safe_text(_short(f"{path.lstrip('.')}: not valid text (a lone UTF-16 surrogate)"))
    places = [(span, key, key) for key in _ID_KEYS]
    for j, link in enumerate(_list(span, "links")):
        if isinstance(link, dict):
            places.extend((link, key, f"links[{j}].{key}") for key in _LINK_ID_KEYS)
    for obj, key, name in places:
        if key in obj:
            try:
                obj[key] = _hex_to_b64(obj[key])
            except (binascii.Error, ValueError):
                return safe_text(_short(f"{name}: must be a hex string (OTLP/JSON), got {obj[key][:40]!r}"))
    return None


def _list(obj: Any, *keys: str) -> list[Any]:
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


# An attribute value's text by its oneof case, as attribute_string renders it, without building the Python
# value first; strings, by far the most common, never get here.
_VALUE_TEXT: dict[str | None, Callable[[Any], str]] = {
    None: lambda value: "",
    "bool_value": lambda value: "true" if value.bool_value else "false",
    "int_value": lambda value: str(value.int_value),
    "double_value": lambda value: format_double(value.double_value),
    "bytes_value": lambda value: attribute_string(value.bytes_value),
    "array_value": lambda value: attribute_string(_any_value(value)),
    "kvlist_value": lambda value: attribute_string(_any_value(value)),
}


def _attributes(kvs: Any) -> dict[str, str]:
    out = {}
    for kv in kvs:
        value = kv.value
        which = value.WhichOneof("value")
        out[kv.key] = value.string_value if which == "string_value" else _VALUE_TEXT[which](value)
    return out


def _resource_attributes(resource: Any, seen: dict[bytes, dict[str, str]] | None) -> dict[str, str]:
    """A resource's attributes, converted once per request (``seen``, when it holds several resources: a
    Collector that merged batches repeats the same resource in them)."""
    if seen is None:
        return _attributes(resource.attributes)
    key = resource.SerializeToString(deterministic=True)
    found = seen.get(key)
    if found is None:
        found = seen[key] = _attributes(resource.attributes)
    return found


def request_to_rows(request: ExportTraceServiceRequest,
                    refused: dict[tuple[int, int, int], str] | None = None) -> Decoded:
    """Rows of the spans that can be stored; the others counted in ``rejected`` with their reasons, in
    request order (``refused``: reasons of spans already rejected while reading the body, by place)."""
    decoded = Decoded()
    reject, append = decoded.rejected.add, decoded.rows.append
    resources: dict[bytes, dict[str, str]] | None = {} if len(request.resource_spans) > 1 else None
    kinds, codes = len(SPAN_KINDS), len(STATUS_CODES)
    for r, rs in enumerate(request.resource_spans):
        resource_attrs = _resource_attributes(rs.resource, resources)
        service = resource_attrs.get(SERVICE_NAME_KEY, "")
        for s, ss in enumerate(rs.scope_spans):
            scope_name, scope_version = ss.scope.name, ss.scope.version
            for i, span in enumerate(ss.spans):
                # read each field once: every access of a protobuf field builds a new Python object
                trace_id, span_id, parent_id = span.trace_id, span.span_id, span.parent_span_id
                start, end = span.start_time_unix_nano, span.end_time_unix_nano
                events, links = span.events, span.links
                problem = refused.get((r, s, i)) if refused else None
                if problem is None and not plain_span_ok(trace_id, span_id, parent_id, start):
                    problem = span_problem(span)
                if problem is None and (events or links):
                    problem = span_problem(span)
                if problem is not None:
                    reject(f"resourceSpans[{r}].scopeSpans[{s}].spans[{i}].{problem}")
                    continue
                kind = span.kind
                status = span.status
                code = status.code
                if events:
                    event_columns: tuple[list[Any], ...] = (
                        [e.time_unix_nano for e in events], [e.name for e in events],
                        [_attributes(e.attributes) for e in events])
                else:
                    event_columns = ([], [], [])
                if links:
                    link_columns: tuple[list[Any], ...] = (
                        [stored_id(link.trace_id) for link in links], [stored_id(link.span_id) for link in links],
                        [link.trace_state for link in links], [_attributes(link.attributes) for link in links])
                else:
                    link_columns = ([], [], [], [])
                append((
                    start,
                    trace_id.hex(),
                    span_id.hex(),
                    stored_id(parent_id) if parent_id else "",
                    span.trace_state,
                    span.name,
                    SPAN_KINDS[kind if 0 <= kind < kinds else 0],
                    service,
                    resource_attrs,
                    scope_name,
                    scope_version,
                    _attributes(span.attributes),
                    end - start if end >= start else 0,
                    STATUS_CODES[code if 0 <= code < codes else 0],
                    status.message,
                    *event_columns,
                    *link_columns,
                ))
    return decoded


def decode_traces(body: bytes, *, content_type: str | None, content_encoding: str | None,
                  max_bytes: int) -> Decoded:
    """Body of a POST /v1/traces -> the rows to store and the spans rejected."""
    if len(body) > max_bytes:
        raise PayloadTooLarge(f"body of {len(body)} bytes exceeds the {max_bytes}-byte limit")
    request, refused = parse_request(inflate(body, content_encoding, max_bytes), content_type)
    return request_to_rows(request, refused)
