"""Recognition with the real instrumentation packages: each chat call of the test corpus sent through the
OpenAI client to a loopback fake, the span (and log records) the instrumentation writes read by recognise().

    python tests/bench/genai_recognition.py openinference     # openinference-instrumentation-openai
    python tests/bench/genai_recognition.py contrib-events    # opentelemetry-instrumentation-openai-v2, content
    python tests/bench/genai_recognition.py contrib-span      #   in log records / in span attributes
    python tests/bench/genai_recognition.py openllmetry       # opentelemetry-instrumentation-openai (Traceloop)
    python tests/bench/genai_recognition.py logfire           # logfire's instrument_openai
    python tests/bench/genai_recognition.py langfuse          # the Langfuse SDK's OpenAI wrapper

The packages are the ``instrumentations`` extra (``pip install -e '.[instrumentations]'``); each run sets up
one, since an instrumentor patches the openai module for the whole process. Prints the misses and false
recognitions, then one JSON line: summaries recognised with the exact document and answer, and other calls
recognised. tests/integration runs the same packages end to end, through a running sumwatch and its rubrics.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fakes.openai_server import FakeOpenAI, answer  # noqa: E402
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402

from sumwatch.monitor.scoring.recognise import Recognised, recognise  # noqa: E402
from sumwatch.tracer.otel_traces import attribute_string  # noqa: E402
from tests.bench.heldout_chat_calls import HELDOUT_OTHERS, HELDOUT_SUMMARIES  # noqa: E402
from tests.integration.instrumentations import INSTRUMENTATIONS, instrument  # noqa: E402
from tests.monitor.scoring.chat_calls import OTHERS, SUMMARIES, ChatCall  # noqa: E402


def _attribute(value: object) -> str:
    """An attribute as the store keeps it: a string, lists and mappings as JSON."""
    return value if isinstance(value, str) else attribute_string(value)


def _records(logs: InMemoryLogRecordExporter) -> list[dict[str, str]]:
    """The log records written since the last call, as the store hands them to recognise()."""
    out = []
    for item in logs.get_finished_logs():
        record = item.log_record
        attributes = {k: _attribute(v) for k, v in (record.attributes or {}).items()}
        body = "" if record.body is None else _attribute(record.body)
        out.append({**attributes, "event.name": record.event_name or attributes.get("event.name", ""),
                    "body": body})
    logs.clear()
    return out


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--calls")]
    which = args[0] if args else "openinference"
    heldout = "--calls=heldout" in sys.argv or ("--calls" in sys.argv and "heldout" in sys.argv)
    summaries, others = (HELDOUT_SUMMARIES, HELDOUT_OTHERS) if heldout else (SUMMARIES, OTHERS)
    if heldout:
        args = [a for a in args if a != "heldout"]
        which = args[0] if args else "openinference"
    if which not in INSTRUMENTATIONS:
        raise SystemExit(f"unknown instrumentation {which!r}; one of {', '.join(INSTRUMENTATIONS)}")
    spans, logs = InMemorySpanExporter(), InMemoryLogRecordExporter()
    live = instrument(which, spans, logs)
    exact = recognised = false = 0
    calls: list[ChatCall] = [*summaries, *others]
    for call in calls:
        messages = ([{"role": "system", "content": call.system}] if call.system else []) + [
            {"role": "user", "content": u} for u in call.users]
        with FakeOpenAI(answer(call.answer)) as fake, live.call():
            live.client(fake.base_url).chat.completions.create(
                model="gpt-4o-mini", messages=messages)  # type: ignore[arg-type]
        live.flush()
        # the chat call's span: the one under the application's span
        [span] = [s for s in spans.get_finished_spans() if s.parent is not None]
        spans.clear()
        found = recognise(span.name, {k: _attribute(v) for k, v in (span.attributes or {}).items()},
                          _records(logs))
        if call.document is None:
            if isinstance(found, Recognised):
                false += 1
                print(f"false recognition: {call.name}")
        elif isinstance(found, Recognised):
            recognised += 1
            if (found.source, found.summary) == (call.document, call.answer):
                exact += 1
            else:
                print(f"inexact: {call.name}: {found.source[:60]!r} / {found.summary[:40]!r}")
        else:
            print(f"missed: {call.name}: {found.reason}")
    print(json.dumps({"instrumentation": which, "calls": "heldout" if heldout else "corpus",
                      "summaries": len(summaries), "recognised": recognised, "exact": exact,
                      "other_calls": len(others), "false_recognitions": false}))


if __name__ == "__main__":
    main()
