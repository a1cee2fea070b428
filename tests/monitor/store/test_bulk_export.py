"""Every span and score out: JSON lines and Parquet hold the same rows, typed, written a page at a time."""

import io
import json
import random
import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.scoring.sampler import Sampler
from sumwatch.monitor.store import bulk_export
from sumwatch.monitor.store.bulk_export import (
    ExportFormat,
    export_scores,
    export_spans,
    score_schema,
    span_pages,
    span_schema,
)
from sumwatch.monitor.store.listing import list_traces
from sumwatch.monitor.store.scores import list_scores
from sumwatch.monitor.store.traces import get_trace
from sumwatch.tracer import semconv
from sumwatch.tracer.otel_traces import TRACES_TABLE

NS = 1_000_000_000


def traced_span(rng: random.Random, ts: int, text: str = "", service: str = "digest") -> tuple:
    """A summarization span in otel_traces column order, with an event and a link."""
    return (ts, rng.getrandbits(128).to_bytes(16, "big").hex(), rng.getrandbits(64).to_bytes(8, "big").hex(),
            "", "", semconv.SPAN_NAME, "Internal", service, {"service.name": service}, semconv.INSTRUMENTATION_NAME,
            "0.1", {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: text,
                    semconv.OUTPUT_VALUE: "a summary", semconv.SUMMARIZATION_BAND: "tldr"},
            1_234_567, "Unset", "", (ts + 17,), ("retry",), ({"attempt": "2"},), ("ab" * 16,), ("cd" * 8,),
            ("k=v",), ({"why": "follows"},))


def jsonl_rows(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode().splitlines()]


def ns(iso: str) -> int:
    """An ISO 8601 UTC time with nanoseconds, read by numpy rather than by the code under test."""
    assert iso.endswith("Z")
    return int(np.datetime64(iso[:-1], "ns").astype("int64"))


def without_time_types(table: pa.Table) -> list[dict]:
    """The table's rows with timestamps as integers and maps as dicts, to compare with the JSON lines."""
    def plain(t: pa.DataType) -> pa.DataType:
        if pa.types.is_timestamp(t):
            return pa.int64()
        if pa.types.is_list(t):
            return pa.list_(plain(t.value_type))
        if pa.types.is_struct(t):
            return pa.struct([(f.name, plain(f.type)) for f in t])
        return t

    rows = table.cast(pa.schema([(f.name, plain(f.type)) for f in table.schema])).to_pylist()

    def maps(value):
        if isinstance(value, list) and value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return dict(value)
        if isinstance(value, list):
            return [maps(v) for v in value]
        if isinstance(value, dict):
            return {k: maps(v) for k, v in value.items()}
        return value

    return [maps(r) for r in rows]


def test_spans_round_trip_through_json_lines_and_parquet_with_typed_columns(store, tmp_path):
    run_demo(store, n=30, seed=3)
    rng = random.Random(1)
    newest = store.query_rows(f"SELECT toUnixTimestamp64Nano(max(Timestamp)) FROM {TRACES_TABLE}")[0][0]
    extra = [traced_span(rng, newest + i * NS + 123) for i in range(1, 6)]
    store.insert_spans(extra)
    store.insert_spans(extra[:2])  # a retried batch: each span goes out once
    listed = [(t.trace_id, t.span_id) for t in list_traces(store, limit=1000)]
    assert len(listed) == 35

    lines, progress = io.BytesIO(), []
    assert export_spans(store, lines, ExportFormat.JSONL, page_size=8, on_progress=progress.append) == 35
    assert progress == [8, 16, 24, 32, 35]
    path = tmp_path / "spans.parquet"
    assert export_spans(store, path, "parquet", page_size=8) == 35
    assert not (tmp_path / "spans.parquet.part").exists()

    rows = jsonl_rows(lines.getvalue())
    assert [(r["trace_id"], r["span_id"]) for r in rows] == listed
    meta = pq.ParquetFile(path)
    assert meta.metadata.num_row_groups == 5  # a row group per page
    table = pq.read_table(path)
    assert table.schema == span_schema()
    assert table.schema.field("timestamp").type == pa.timestamp("ns", tz="UTC")
    assert table.schema.field("attributes").type == pa.map_(pa.string(), pa.string())
    assert table.schema.field("duration_ns").type == pa.int64()

    for r in rows:
        r["timestamp"] = ns(r["timestamp"])
        for e in r["events"]:
            e["timestamp"] = ns(e["timestamp"])
    assert without_time_types(table) == rows

    first = rows[0]  # the newest: one of ours, with its event and link, to the nanosecond
    assert first["timestamp"] == extra[-1][0] and first["duration_ns"] == 1_234_567
    assert first["events"] == [{"timestamp": extra[-1][0] + 17, "name": "retry", "attributes": {"attempt": "2"}}]
    assert first["links"] == [{"trace_id": "ab" * 16, "span_id": "cd" * 8, "trace_state": "k=v",
                               "attributes": {"why": "follows"}}]
    demo = rows[-1]
    stored = next(s for s in get_trace(store, demo["trace_id"]) if s.span_id == demo["span_id"])
    assert demo["attributes"] == stored.attributes and semconv.INPUT_VALUE in demo["attributes"]
    assert demo["resource_attributes"] == stored.resource_attributes

    only = io.BytesIO()
    assert export_spans(store, only, "jsonl", service="digest") == 5  # the listing's filters


def test_scores_round_trip_through_json_lines_and_parquet(store, rules_cascade, tmp_path):
    run_demo(store, n=20, seed=4)
    Sampler(store, rules_cascade, batch=10).run_pass()
    listed = [s.to_json() for s in list_scores(store, limit=1000)]
    assert len(listed) == 80
    listed.sort(key=lambda r: (r["trace_id"], r["span_id"], r["rubric"], r["judge_version"]))  # key order

    lines = io.BytesIO()
    assert export_scores(store, lines, ExportFormat.JSONL, page_size=30) == 80
    rows = jsonl_rows(lines.getvalue())
    assert rows == listed
    path = tmp_path / "scores.parquet"
    assert export_scores(store, path, ExportFormat.PARQUET, page_size=30) == 80
    table = pq.read_table(path)
    assert table.schema == score_schema()
    assert table.schema.field("scored_at").type == pa.timestamp("us", tz="UTC")
    assert table.schema.field("passed").type == pa.bool_() and table.schema.field("score").type == pa.float64()
    back = table.to_pylist()
    for row in back:
        row["scored_at"] = row["scored_at"].isoformat()
    assert back == rows

    failing = io.BytesIO()
    assert export_scores(store, failing, "jsonl", failing_only=True, rubric="conciseness") == len(
        [r for r in listed if not r["passed"] and r["rubric"] == "conciseness"])


def test_default_span_pages_hold_about_the_same_bytes_whatever_a_span_holds(store, monkeypatch):
    rng = random.Random(3)
    base = 1_780_000_000 * NS
    small = [traced_span(rng, base + i * NS, "x" * 200) for i in range(1600)]
    large = [traced_span(rng, base + (1600 + i) * NS, "x" * 2000) for i in range(400)]  # newer: read first
    store.insert_spans(small + large)
    per_span = 2256 + len("a summary") + len(semconv.TASK_SUMMARIZATION) + len("tldr")  # text + 256 for the rest
    monkeypatch.setattr(bulk_export, "FIRST_SPAN_PAGE", 5)
    monkeypatch.setattr(bulk_export, "SPAN_PAGE_BYTES", 150 * per_span)
    sizes = [len(page) for page in span_pages(store)]
    assert sizes[:4] == [5, 150, 150, 150]  # large spans: 150 a page
    assert max(sizes) > 500 and sum(sizes) == 2000  # small ones: more a page, and every span once


def test_an_export_with_nothing_to_write_is_a_valid_empty_file(store, tmp_path):
    path = tmp_path / "none.parquet"
    assert export_spans(store, path, "parquet") == 0
    assert pq.read_table(path).num_rows == 0 and pq.read_table(path).schema == span_schema()
    empty = io.BytesIO()
    assert export_scores(store, empty, "jsonl") == 0 and empty.getvalue() == b""


def test_bad_export_arguments_are_refused_in_one_line(store, tmp_path):
    for call, message in (
        (lambda: export_spans(store, io.BytesIO(), "csv"), "format must be one of jsonl, parquet, got 'csv'"),
        (lambda: export_spans(store, io.BytesIO(), "jsonl", page_size=0), "page size must be 1 to 10,000, got 0"),
        (lambda: export_scores(store, tmp_path / "no" / "such" / "x.jsonl", "jsonl"),
         "cannot write the export to "),
    ):
        with pytest.raises(ValueError, match=message) as err:
            call()
        assert "\n" not in str(err.value)


@pytest.mark.integration  # 25,000 spans written and streamed out (about 20 s): a scale check, beside the benchmarks
def test_25k_spans_export_in_memory_a_whole_read_exceeds(store, tmp_path):
    rng = random.Random(7)
    base = 1_780_000_000 * NS
    words = ["revenue", "rose", "in", "May", "the", "company", "said", "quarter", "guidance", "margin"]
    for chunk in range(5):
        store.insert_spans([traced_span(rng, base + i * 1_000_000, " ".join(rng.choices(words, k=300)))
                            for i in range(chunk * 5000, (chunk + 1) * 5000)])

    def peak(run) -> int:
        tracemalloc.start()
        try:
            run()
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    whole = peak(lambda: store.query_rows(
        f"SELECT Timestamp, TraceId, SpanId, SpanAttributes, ResourceAttributes, Events.Attributes "
        f"FROM {TRACES_TABLE}"))
    lines = tmp_path / "spans.jsonl"
    jsonl = peak(lambda: export_spans(store, lines, "jsonl", page_size=1000))
    parquet = peak(lambda: export_spans(store, tmp_path / "spans.parquet", "parquet", page_size=1000))
    assert sum(1 for _ in lines.open("rb")) == 25_000 == pq.ParquetFile(tmp_path / "spans.parquet").metadata.num_rows
    # a page holds 1/25 of the spans; the export also keeps one page's JSON or Arrow columns
    assert jsonl < whole / 4 and parquet < whole / 4, (jsonl, parquet, whole)
