"""The row model of the Collector's ``otel_traces`` table, shared by every writer.

The direct ClickHouse exporter (here) and the OTLP receiver (``sumwatch.monitor``) both turn spans
into tuples in ``COLUMNS`` order, with values rendered the way the OpenTelemetry Collector's
ClickHouse exporter renders them, so rows from either path and from a stock Collector look the same.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

TRACES_TABLE = "otel_traces"
TRACE_ID_TS_TABLE = "otel_traces_trace_id_ts"
TRACE_ID_TS_VIEW = "otel_traces_trace_id_ts_mv"

# The 22 insertable columns, in the Collector's INSERT order (Nested columns flattened).
COLUMNS: tuple[str, ...] = (
    "Timestamp", "TraceId", "SpanId", "ParentSpanId", "TraceState", "SpanName", "SpanKind", "ServiceName",
    "ResourceAttributes", "ScopeName", "ScopeVersion", "SpanAttributes", "Duration", "StatusCode",
    "StatusMessage", "Events.Timestamp", "Events.Name", "Events.Attributes", "Links.TraceId", "Links.SpanId",
    "Links.TraceState", "Links.Attributes",
)
COL = {name: i for i, name in enumerate(COLUMNS)}

# pdata's names for OTLP enum values (index = proto enum number).
SPAN_KINDS = ("Unspecified", "Internal", "Server", "Client", "Producer", "Consumer")
STATUS_CODES = ("Unset", "Ok", "Error")
# Older Collectors wrote the proto names; readers accept both.
STATUS_ERROR_VALUES = ("Error", "STATUS_CODE_ERROR")
SERVICE_NAME_KEY = "service.name"


def format_double(value: float) -> str:
    """A float as Go's strconv.FormatFloat(v, 'f', -1, 64) writes it (no exponent)."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "+Inf" if value > 0 else "-Inf"
    text = repr(value)
    if "e" in text or "E" in text:
        text = format(Decimal(text), "f")
    if text.endswith(".0"):
        text = text[:-2]
    return text


def attribute_string(value: Any) -> str:
    """Render one attribute value as the Collector does (pcommon.Value.AsString)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return format_double(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, Mapping):
        return json.dumps({str(k): _json_value(v) for k, v in value.items()}, separators=(",", ":"))
    if isinstance(value, Sequence):
        return json.dumps([_json_value(v) for v in value], separators=(",", ":"))
    return str(value)


def _json_value(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, Mapping):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v) for v in value]
    return value


def _plain(attributes: Any) -> Mapping[str, Any]:
    """The SDK's attribute dict itself when reachable (a read-only view or BoundedAttributes wraps it);
    iterating it directly skips a Python-level call per key on the export hot path."""
    inner = getattr(attributes, "_dict", None)
    return inner if isinstance(inner, dict) else attributes


def attribute_map(attributes: Mapping[str, Any] | None) -> dict[str, str]:
    if not attributes:
        return {}
    return {key: value if value.__class__ is str else attribute_string(value)
            for key, value in _plain(attributes).items()}


Row = tuple[Any, ...]


def span_to_row(span: Any, _resources: dict[int, Any] | None = None) -> Row:
    """One SDK ``ReadableSpan`` as a row in ``COLUMNS`` order."""
    ctx = span.context
    parent = span.parent
    resource = span.resource
    if _resources is not None:  # spans of one provider share a Resource: convert it once
        resource_attrs = _resources.get(id(resource))
        if resource_attrs is None:
            resource_attrs = _resources[id(resource)] = attribute_map(resource.attributes) if resource else {}
    else:
        resource_attrs = attribute_map(resource.attributes) if resource is not None else {}
    scope = span.instrumentation_scope
    status = span.status
    start = span.start_time or 0
    end = span.end_time or start
    # ReadableSpan keeps its attributes in ._attributes; .attributes wraps them in a proxy per call
    attributes = getattr(span, "_attributes", None)
    if attributes is None:
        attributes = span.attributes
    events = span.events
    links = span.links
    return (
        start, format(ctx.trace_id, "032x"), format(ctx.span_id, "016x"),
        format(parent.span_id, "016x") if parent is not None else "",
        ctx.trace_state.to_header() if ctx.trace_state else "", span.name, SPAN_KINDS[span.kind.value + 1],
        resource_attrs.get(SERVICE_NAME_KEY, ""), resource_attrs,
        scope.name if scope is not None else "", (scope.version or "") if scope is not None else "",
        attribute_map(attributes), end - start, STATUS_CODES[status.status_code.value], status.description or "",
        *(_event_columns(events) if events else _NO_EVENTS),
        *(_link_columns(links) if links else _NO_LINKS),
    )


_NO_EVENTS: Row = ((), (), ())
_NO_LINKS: Row = ((), (), (), ())


def _event_columns(events: Sequence[Any]) -> Row:
    return ([e.timestamp for e in events], [e.name for e in events], [attribute_map(e.attributes) for e in events])


def _link_columns(links: Sequence[Any]) -> Row:
    return ([format(link.context.trace_id, "032x") for link in links],
            [format(link.context.span_id, "016x") for link in links],
            [link.context.trace_state.to_header() if link.context.trace_state else "" for link in links],
            [attribute_map(link.attributes) for link in links])


def spans_to_rows(spans: Iterable[Any]) -> list[Row]:
    resources: dict[int, Any] = {}
    return [span_to_row(s, resources) for s in spans]


# -- wire encoding ----------------------------------------------------------------------------
# Rows travel to ClickHouse as one JSONCompactColumns block: a JSON array of column arrays. Each column
# is one json.dumps call (C speed), blocks from several requests merge by joining column texts, and the
# same bytes work for chDB and for a server over HTTP. DateTime64(9) values go as "seconds.nanos"
# text, since a bare JSON number would be read as seconds.
INSERT_FORMAT = "JSONCompactColumns"
_TS, _EVENT_TS = COL["Timestamp"], COL["Events.Timestamp"]

try:  # orjson (in sumwatch[server]) encodes long texts ~6x faster; the stdlib is the fallback
    import orjson

    _dumps: Any = orjson.dumps
except ImportError:  # pragma: no cover - exercised where orjson is absent
    _json_encode = json.JSONEncoder(ensure_ascii=True, separators=(",", ":")).encode

    def _dumps(value: Any) -> bytes:
        return _json_encode(value).encode("ascii")


def _ts(ns: int) -> str:
    return f"{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}"


def encode_columns(rows: Sequence[Row]) -> list[bytes]:
    """Rows -> one JSON array per column (mergeable with :func:`join_columns`)."""
    columns: list[Sequence[Any]] = list(zip(*rows)) if rows else [() for _ in COLUMNS]
    out = []
    for i, column in enumerate(columns):
        if i == _TS:
            column = [_ts(v) for v in column]
        elif i == _EVENT_TS:
            column = [[_ts(v) for v in times] if times else times for times in column]
        out.append(_dumps(list(column)))
    return out


def join_columns(parts: Sequence[Sequence[bytes]]) -> bytes:
    """Merge encodings of several row sets (of one table, whichever) into one INSERT body."""
    if len(parts) == 1:
        return b"[" + b",".join(parts[0]) + b"]"
    merged = []
    for col in range(len(parts[0])):
        inner = [p[col][1:-1] for p in parts if len(p[col]) > 2]
        merged.append(b"[" + b",".join(inner) + b"]")
    return b"[" + b",".join(merged) + b"]"


def encode_rows(rows: Sequence[Row]) -> bytes:
    return join_columns([encode_columns(rows)])
