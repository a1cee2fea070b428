"""Backfill from JSONL: good lines become spans, bad lines are reported by number and skipped."""

import json

import pytest

from sumwatch.monitor.ingest.backfill import ingest_file, parse_record, parse_timestamp
from sumwatch.monitor.store.listing import list_traces
from sumwatch.monitor.store.traces import get_trace
from sumwatch.tracer import semconv

GOOD = {
    "source": "The hospital opened 40 new beds in March, raising capacity by 8%. It did not add ICU staff.",
    "summary": "40 new beds (+8%) opened in March; no new ICU staff.",
    "band": "tldr", "document_id": "ops-3", "domain": "healthcare", "service": "ward-digest",
    "timestamp": "2026-03-05T08:30:00Z", "metadata": {"ward": "east", "priority": 2},
    "expected_facts": ["40 new beds", "capacity up 8%"], "model": "m-1", "input_tokens": 31, "output_tokens": 12,
}


def write_lines(path, lines):
    path.write_bytes(b"\n".join(line if isinstance(line, bytes) else line.encode() for line in lines) + b"\n")
    return path


def test_good_lines_stored_bad_lines_reported_with_numbers(store, tmp_path):
    path = write_lines(tmp_path / "history.jsonl", [
        json.dumps(GOOD),
        '{"source": "only a source"}',
        "{broken json",
        "",
        json.dumps({**GOOD, "band": "sonnet"}),
        json.dumps({**GOOD, "document_id": 77, "timestamp": 1767225600, "service": None}),
        json.dumps({**GOOD, "colour": "red"}),
        b'{"source": "caf\xe9", "summary": "x"}',
        json.dumps({**GOOD, "input_tokens": -4}),
        json.dumps({**GOOD, "timestamp": "last tuesday"}),
    ])
    report = ingest_file(store, path)
    assert report.stored == 2
    assert [(b.line, b.reason.split(" (")[0].split(";")[0]) for b in report.bad] == [
        (2, "missing required field 'summary'"),
        (3, "not valid JSON"),
        (5, "band 'sonnet' is not one of tldr, exec_summary, abstract, action_recap, custom"),
        (7, "unknown field(s) 'colour'"),
        (8, "not UTF-8 text"),
        (9, "field 'input_tokens' must be a non-negative integer"),
        (10, "timestamp 'last tuesday' is not ISO 8601"),
    ]
    rows = list_traces(store, limit=10)
    assert {r.service for r in rows} == {"ward-digest", "sumwatch-ingest"}
    first = next(r for r in rows if r.service == "ward-digest")
    assert first.timestamp == "2026-03-05T08:30:00.000Z"
    (span,) = get_trace(store, first.trace_id)
    attrs = span.attributes
    assert attrs[semconv.TASK] == "summarization"
    assert attrs[semconv.INPUT_VALUE] == GOOD["source"]
    assert attrs[semconv.OUTPUT_VALUE] == GOOD["summary"]
    assert attrs[semconv.DOCUMENT_ID] == "ops-3" and attrs[semconv.DOMAIN] == "healthcare"
    assert attrs[semconv.METADATA_PREFIX + "ward"] == "east"
    assert json.loads(attrs[semconv.EXPECTED_FACTS]) == GOOD["expected_facts"]
    assert attrs[semconv.GEN_AI_REQUEST_MODEL] == "m-1" and attrs[semconv.GEN_AI_INPUT_TOKENS] == "31"
    second = next(r for r in rows if r.service == "sumwatch-ingest")
    assert second.timestamp == "2026-01-01T00:00:00.000Z" and second.document_id == "77"


def test_a_file_of_only_bad_lines_loses_nothing_already_stored(store, tmp_path):
    ingest_file(store, write_lines(tmp_path / "a.jsonl", [json.dumps(GOOD)] * 3))
    report = ingest_file(store, write_lines(tmp_path / "b.jsonl", ["nope", "[]", '{"summary": "s"}']))
    assert report.stored == 0 and len(report.bad) == 3
    assert len(list_traces(store, limit=50)) == 3


def test_large_file_is_inserted_in_batches(store, tmp_path):
    lines = [json.dumps({**GOOD, "document_id": f"d{i}"}) for i in range(120)]
    seen = []
    report = ingest_file(store, write_lines(tmp_path / "big.jsonl", lines), batch_size=50,
                         on_progress=lambda stored, bad: seen.append(stored))
    assert report.stored == 120 and seen == [50, 100, 120]
    distinct_docs = "SELECT uniqExact(SpanAttributes['summarization.document.id']) FROM otel_traces"
    assert store.query_rows(distinct_docs) == [(120,)]


def test_timestamps():
    assert parse_timestamp("2026-03-05T08:30:00Z") == 1772699400 * 10**9
    assert parse_timestamp("2026-03-05T09:30:00+01:00") == 1772699400 * 10**9
    assert parse_timestamp("2026-03-05 08:30:00.250") == 1772699400 * 10**9 + 250_000_000
    assert parse_timestamp(1772699400.5) == 1772699400 * 10**9 + 500_000_000
    with pytest.raises(ValueError, match="not Unix seconds"):
        parse_timestamp(1772699400000)  # milliseconds by mistake
    with pytest.raises(ValueError, match="boolean"):
        parse_timestamp(True)


def test_missing_file_is_a_clear_error(store, tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        ingest_file(store, tmp_path / "absent.jsonl")


@pytest.mark.parametrize("value", ["1900-01-01T00:00:00Z", "2300-01-01T00:00:00Z", 5, 9.3e9])
def test_a_timestamp_the_store_cannot_hold_is_a_bad_line(value):
    with pytest.raises(ValueError, match="outside the times the store holds"):
        parse_record(json.dumps({"source": "s", "summary": "t", "timestamp": value}), now_ns=0)


def test_json_nested_too_deeply_is_a_bad_line_not_a_crash():
    line = '{"source": "s", "summary": "t", "metadata": ' + "[" * 5000 + "]" * 5000 + "}"
    with pytest.raises(ValueError, match="nested too deeply"):
        parse_record(line, now_ns=0)


@pytest.mark.parametrize(("fields", "reason"), [
    ('"summary": "bad \\ud800"', "field 'summary' holds a lone surrogate (\\ud800 at character 4), which is not "
                                  "Unicode text"),
    ('"summary": "t", "metadata": {"k": ["ok", "\\udfff"]}', "field 'metadata.k[1]' holds a lone surrogate"),
    ('"summary": "t", "metadata": {"\\ud800": 1}', "field 'metadata.\\ud800' holds a lone surrogate"),
    ('"summary": "t", "metadata": ' + "[" * 40 + "]" * 40, "field 'metadata' nests more than 32 levels deep"),
])
def test_text_the_store_cannot_take_is_a_bad_line_naming_the_field(fields, reason):
    with pytest.raises(ValueError) as caught:
        parse_record('{"source": "s", ' + fields + "}", now_ns=0)
    assert str(caught.value).startswith(reason)


def test_a_line_with_a_lone_surrogate_is_skipped_and_the_good_line_stored(store, tmp_path):
    path = tmp_path / "two.jsonl"
    path.write_text('{"source": "Revenue rose 12% in Q1.", "summary": "Revenue rose 12%."}\n'
                    '{"source": "s", "summary": "bad \\ud800"}\n')
    report = ingest_file(store, path)
    assert report.stored == 1 and [(b.line, b.reason.split(" (")[0]) for b in report.bad] == [
        (2, "field 'summary' holds a lone surrogate")]
    assert store.query_rows("SELECT count() FROM otel_traces")[0][0] == 1
