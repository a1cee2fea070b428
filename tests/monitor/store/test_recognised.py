"""The recognised-span table: rows written once, read back as texts, a newer reading replacing an older one."""

from __future__ import annotations

from sumwatch.monitor.contract.traces import RecognisedSpan
from sumwatch.monitor.store.recognised import recognised_texts, write_recognised


def _span(summary: str, tokens: int | None = None) -> RecognisedSpan:
    return RecognisedSpan(1_700_000_000_123_456_789, "t1", "s1", "svc", "ChatCompletion", "openinference",
                          "The council met on Tuesday.", summary, model="gpt-4o-mini", output_tokens=tokens)


def test_written_rows_read_back_as_texts_and_a_newer_reading_wins(store):
    write_recognised(store, [_span("The council met.", 4)])
    assert recognised_texts(store, [("t1", "s1"), ("t1", "other")]) == {
        ("t1", "s1"): ("The council met on Tuesday.", "The council met.")}
    write_recognised(store, [_span("The council met on Tuesday.")])
    assert recognised_texts(store, [("t1", "s1")])[("t1", "s1")][1] == "The council met on Tuesday."
    ts, tokens, inp = store.query_rows(
        "SELECT toUnixTimestamp64Nano(Timestamp), OutputTokens, InputTokens FROM sumwatch_recognised FINAL")[0]
    assert ts == 1_700_000_000_123_456_789 and tokens is None and inp is None  # nanoseconds kept; unknown is NULL
