"""The real instrumentation packages (the ``instrumentations`` extra) against a running sumwatch: an application
instrumented with each calls a loopback OpenAI-compatible server and exports over OTLP/HTTP to the whole app as
``sumwatch up`` serves it (the Langfuse SDK on its own OTLP path, its secret key being the ingest token); a
sampler pass scores what it recognised, offline.

Each instrumentation runs in a process of its own (instrumented_client.py): instrumentors patch the ``openai``
module for the whole process, so they never meet.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hang_guard import HANG_GUARD_S

from sumwatch.monitor.ingest.receiver import ReceiverServer
from sumwatch.monitor.rubrics import FACTUALITY
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.scoring.recognise import Recognised, recognise
from sumwatch.monitor.scoring.sampler import Sampler
from sumwatch.monitor.store.genai_events import genai_events
from sumwatch.monitor.views.app import create_app
from tests.integration.instrumentations import INSTRUMENTATIONS
from tests.monitor.scoring.chat_calls import OTHERS, SUMMARIES, ChatCall

CLIENT = Path(__file__).with_name("instrumented_client.py")
TOKEN = "s3cret-ingest-token"

TRIAL = next(c for c in SUMMARIES if c.name == "system instruction")
# the trial's answer with its percentage changed: a factuality failure the offline rules catch
WRONG_NUMBER = dataclasses.replace(TRIAL, name="changed number", answer=TRIAL.answer.replace("40%", "60%"))
CALLS: tuple[ChatCall, ...] = (*SUMMARIES, WRONG_NUMBER, *OTHERS[:3])

pytestmark = pytest.mark.slow


@pytest.fixture
def sumwatch_up(settings, store):
    """The whole app on 127.0.0.1, as `sumwatch up` serves it, taking only the ingest token."""
    changed = settings.with_(ingest_token=TOKEN)
    server = ReceiverServer(changed, app=create_app(Runtime.build(changed, store))).start()
    yield server
    server.stop()


def run_application(which: str, endpoint: str, calls: tuple[ChatCall, ...]) -> list[str]:
    """The trace id of each call, once the instrumented process has flushed its exports and exited."""
    payload = json.dumps([{"system": c.system, "users": list(c.users), "answer": c.answer} for c in calls])
    done = subprocess.run([sys.executable, str(CLIENT), which, endpoint, TOKEN], input=payload,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def llm_span(store, trace_id: str) -> tuple[str, str, dict[str, str]]:
    """The one span under the application's own span in a trace: the instrumented chat call."""
    rows = store.query_rows("SELECT SpanId, SpanName, SpanAttributes FROM otel_traces "
                            "WHERE TraceId = {t:String} AND ParentSpanId != ''", {"t": trace_id})
    assert len(rows) == 1, f"{trace_id}: {[(r[0], r[1]) for r in rows]}"
    span_id, name, attributes = rows[0]
    return span_id, name, dict(attributes)


def verdicts(store, trace_id: str, span_id: str) -> dict[str, bool]:
    rows = store.query_rows("SELECT Rubric, Passed FROM sumwatch_scores FINAL "
                            "WHERE TraceId = {t:String} AND SpanId = {s:String}", {"t": trace_id, "s": span_id})
    return {rubric: bool(passed) for rubric, passed in rows}


@pytest.mark.parametrize("which", INSTRUMENTATIONS)
def test_a_real_instrumentation_is_recognised_and_scored_by_a_running_sumwatch(which, sumwatch_up, store,
                                                                                 offline_cascade):
    trace_ids = run_application(which, sumwatch_up.endpoint, CALLS)
    # acknowledged from the receiver's log: this test reads the table itself, so it waits for the INSERT first,
    # as the server's own reads do
    assert sumwatch_up.writer.wait_stored(HANG_GUARD_S)
    spans = [llm_span(store, t) for t in trace_ids]
    keys = [(t, s[0]) for t, s in zip(trace_ids, spans)]
    events = genai_events(store, keys)

    # recognised, with the document and the answer as the texts: not the messages' JSON, not the instruction
    for call, key, (_, name, attributes) in zip(CALLS, keys, spans):
        found = recognise(name, attributes, events.get(key, []))
        if call.document is None:
            assert not isinstance(found, Recognised), f"{call.name}: recognised as a summary"
        else:
            assert isinstance(found, Recognised), f"{call.name}: {found.reason}"
            assert (found.source, found.summary) == (call.document, call.answer), call.name
            assert found.model.startswith("gpt-4o-mini") and found.input_tokens and found.output_tokens

    Sampler(store, offline_cascade).run_pass()
    scored = {call.name: verdicts(store, *key) for call, key in zip(CALLS, keys)}
    for call in CALLS:
        if call.document is None:
            assert scored[call.name] == {}, f"{call.name}: a chat call that is not a summary was scored"
        elif call is WRONG_NUMBER:
            assert scored[call.name][FACTUALITY] is False
        else:
            failed = [rubric for rubric, passed in scored[call.name].items() if not passed]
            assert scored[call.name] and failed == [], f"{call.name}: faithful summary failed {failed}"
