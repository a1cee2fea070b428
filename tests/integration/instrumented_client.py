"""An instrumented application in a process of its own: chat calls through one real instrumentation package to a
loopback fake OpenAI server, exported over OTLP/HTTP to a running sumwatch.

    python tests/integration/instrumented_client.py WHICH SUMWATCH_URL TOKEN < calls.json

calls.json is a list of {"system": str, "users": [str], "answer": str}; the fake answers each call with its
answer, in order. Prints one JSON list: the trace id of each call, in order.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fakes.openai_server import FakeOpenAI, answer, sequence  # noqa: E402
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter  # noqa: E402
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter  # noqa: E402

from tests.integration.instrumentations import instrument  # noqa: E402


def main() -> None:
    which, url, token = sys.argv[1:4]
    calls = json.load(sys.stdin)
    bearer = {"authorization": f"Bearer {token}"}
    if which == "langfuse":  # its SDK builds its own exporter: to the Langfuse OTLP path, keys as Basic auth
        live = instrument(which, None, langfuse_url=url, langfuse_secret=token)
    else:
        live = instrument(which, OTLPSpanExporter(endpoint=f"{url}/v1/traces", headers=bearer),
                          OTLPLogExporter(endpoint=f"{url}/v1/logs", headers=bearer))
    trace_ids = []
    with FakeOpenAI(sequence(*(answer(c["answer"]) for c in calls))) as fake:
        client = live.client(fake.base_url)
        for c in calls:
            messages = ([{"role": "system", "content": c["system"]}] if c["system"] else []) + [
                {"role": "user", "content": u} for u in c["users"]]
            with live.call() as trace_id:
                client.chat.completions.create(model="gpt-4o-mini", messages=messages)
            trace_ids.append(trace_id)
    live.flush()
    print(json.dumps(trace_ids))


if __name__ == "__main__":
    main()
