"""Sending verdicts back out: verdicts per second to each score target, and what a second pass sends (goal 0).

    python tests/bench/score_sends.py [--verdicts 1000]

``--verdicts`` verdicts (two rubrics per span) are written into a fresh embedded database, then each target
(OTLP logs, Langfuse ingestion, Phoenix span annotations, on the loopback fakes in tests/fakes/score_targets.py,
which check each request's shape) gets them all through ``send_scores``; a second pass follows. Then Phoenix again
on a fresh fake and ledger, holding only 3 in 5 of the spans, as when spans reach
it after their verdicts: the first pass must count only those sent and leave the rest waiting; once the rest of
the spans arrive the next pass attaches the waiting ones (goal: all held, none left waiting). The last line is one
JSON object: per target, verdicts/s of the first pass, requests, what the target holds, and the second pass's sent
count; ``phoenix_late_spans``: sent and waiting after the first pass, sent after the spans arrive, held at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fakes.score_targets import FakeScoreTargets  # noqa: E402

from sumwatch.monitor.exports.score_sends import send_scores  # noqa: E402
from sumwatch.monitor.rubrics.verdicts import RubricResult  # noqa: E402
from sumwatch.monitor.settings import Settings  # noqa: E402
from sumwatch.monitor.store.connection import Store  # noqa: E402
from sumwatch.monitor.store.migrations import migrate  # noqa: E402
from sumwatch.monitor.store.score_sends import SCORE_SENDS_TABLE  # noqa: E402
from sumwatch.monitor.store.scores import SCORES_TABLE, ScoredSpan, SpanRef, write_scores  # noqa: E402

TARGETS = ("otlp", "langfuse", "phoenix")


def fill(store: Store, verdicts: int) -> None:
    spans = []
    for i in range(verdicts // 2):
        ref = SpanRef(os.urandom(16).hex(), os.urandom(8).hex(), time.time_ns(), "bench")
        fact = (RubricResult.make("factuality", "numerically_wrong", failure_mode="number_mismatch", tier="llm",
                                  explanation='"21%" where the source says "12%"') if i % 5 == 0
                else RubricResult.make("factuality", "correct", tier="rules", explanation="every number matches"))
        spans.append(ScoredSpan(ref, {"factuality": fact, "conciseness": RubricResult.make("conciseness", "concise")}))
    write_scores(store, spans, "cascade-1/bench")


def held(fake: FakeScoreTargets, target: str) -> int:
    return {"otlp": len(fake.otlp), "langfuse": len(fake.langfuse), "phoenix": len(fake.phoenix)}[target]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verdicts", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home, FakeScoreTargets() as fake:
        settings = Settings.from_env(env={}, home=Path(home), database="bench")
        store = Store.open(settings)
        migrate(store)
        fill(store, args.verdicts)
        config = fake.config(export_backoff_s=0.01)
        report: dict[str, dict[str, float | int]] = {}
        for target in TARGETS:
            calls = len(fake.calls)
            began = time.perf_counter()
            [first] = send_scores(store, config, [target], limit=args.verdicts)
            seconds = time.perf_counter() - began
            requests = len(fake.calls) - calls
            [second] = send_scores(store, config, [target], limit=args.verdicts)
            report[target] = {"sent": first.sent, "failed": first.failed, "seconds": round(seconds, 3),
                              "verdicts_per_s": round(first.sent / seconds, 1), "requests": requests,
                              "held": held(fake, target), "second_pass_sent": second.sent}
            print(f"{target}: {first.sent} verdicts in {seconds:.2f}s ({first.sent / seconds:.0f}/s, "
                  f"{requests} requests); second pass sent {second.sent}", file=sys.stderr)
        assert not fake.problems, fake.problems
        late = late_spans(store, args.verdicts)
        store.close()
    print(json.dumps({"verdicts": args.verdicts, "targets": report, "phoenix_late_spans": late}))


def late_spans(store: Store, verdicts: int) -> dict[str, int]:
    """Phoenix holding 3 in 5 spans at the first pass and all of them at the next: sent only when acknowledged."""
    store.command(f"TRUNCATE TABLE {SCORE_SENDS_TABLE}")
    spans = sorted({r[0] for r in store.query_rows(f"SELECT SpanId FROM {SCORES_TABLE}")})
    with FakeScoreTargets() as fake:
        fake.phoenix_spans = {s for i, s in enumerate(spans) if i % 5 < 3}
        config = fake.config(export_backoff_s=0.01)
        [first] = send_scores(store, config, ["phoenix"], limit=verdicts)
        fake.phoenix_spans = set(spans)
        [later] = send_scores(store, config, ["phoenix"], limit=verdicts)
        assert not fake.problems and fake.phoenix_dropped == 0, fake.problems
        out = {"first_sent": first.sent, "first_waiting": first.waiting, "later_sent": later.sent,
               "left_waiting": later.waiting, "held": len(fake.phoenix)}
    print(f"phoenix, spans arriving late: {first.sent} sent and {first.waiting} waiting, then {later.sent} sent "
          f"once the spans arrived; {later.waiting} left waiting, {out['held']} held", file=sys.stderr)
    return out


if __name__ == "__main__":
    main()
