"""Schemathesis over the OpenAPI document of the served app, as ``schemathesis run --checks all`` runs it with
the token: every operation through all four phases (examples, coverage, fuzzing, and stateful sequences whose
links it infers from the answers), every check (but object-level authorization, which needs two users: the server
has one token), a seeded, derandomized and bounded number of cases. No answer may be a server error, break its
schema or carry an undocumented status, and no request valid under the document may be refused as malformed (400):
what the document cannot state answers 404 (a named thing the server does not have), 409 (its state or
configuration) or, for the operations UNUSABLE_CONTENT names, 422.

    pytest tests/monitor/views/test_schemathesis.py -s     # also prints the cases per phase and the statuses

The actions run for real on the ``api`` fixture's store with the offline rules judge; the four long ones get
fewer fuzzed cases than the reads (their bodies' checks are covered case by case in the coverage phase).
"""

from collections import Counter
from dataclasses import dataclass, field

import httpx
import pytest
import schemathesis
from schemathesis.config import SchemathesisConfig
from schemathesis.core.transport import Response
from schemathesis.engine import Status, StopReason, events, from_schema
from schemathesis.engine.recorder import ScenarioRecorder

TOKEN = "s3cret-token"  # the api fixture's
# Where a schema-valid request may also answer 422, besides schemathesis's default statuses (2xx, 3xx, 401, 403,
# 404 for a named thing the server does not have, 409 for its state or configuration, 429): content that JSON
# Schema cannot state. A shard i/N needs i < N; a judge definition is TOML for the rubric it names; a label's or a
# resolution's verdict is one of the item's own rubric; a triage action's value is what that action takes (an
# issue to merge into other than itself, a duration to mute for, text to comment); a listing's cursor is one the
# server gave (it carries a checksum); a dataset's edit holds at least one item (a file of its format, an issue,
# traces or a corpus with recorded text); an experiment's items are of its dataset, with spans that are its own
# (OTLP protobuf, base64); a window is at most what the server reads. 400 is never among them: a request the
# document allows is never refused as malformed.
UNUSABLE_CONTENT = ["POST /api/actions/score", "POST /api/actions/score/estimate", "POST /api/actions/judge_test",
                    "POST /api/actions/judge_promote", "POST /api/corpus/{item_id}/label",
                    "POST /api/corpus/{item_id}/resolve", "POST /api/corpus/from-trace",
                    "POST /api/issues/{issue_id}/triage", "GET /api/traces", "GET /api/scores", "GET /api/corpus",
                    "GET /api/datasets/{name}/items", "POST /api/datasets/{name}/import",
                    "POST /api/datasets/{name}/from-issue", "POST /api/datasets/{name}/from-traces",
                    "POST /api/datasets/{name}/from-corpus", "POST /api/experiments/{key}/items",
                    "GET /api/experiments/{key}/compare-live"]
LONG_ACTIONS = ["POST /api/actions/score", "POST /api/actions/cluster", "POST /api/actions/calibrate",
                "POST /api/ingest", "POST /api/actions/judge_test", "POST /api/actions/judge_promote",
                "POST /api/experiments/{key}/score"]
CASES_PER_OPERATION = 20
STATEFUL_SCENARIOS, STATEFUL_STEPS = 20, 6
CONFIG = f"""
seed = 20261125
# a guard against a hang, not a time limit: score and cluster answer when their run is done
request-timeout = 600

[generation]
max-examples = {CASES_PER_OPERATION}
deterministic = true
database = "none"

[checks]
enabled = true

# every phase: examples and coverage enumerate their cases (every boundary and wrong type of each parameter and
# body field); fuzzing and the stateful sequences (links inferred from the answers) draw theirs from the seed,
# derandomized, so every run sends the same requests
[phases.fuzzing]
enabled = true

[phases.stateful]
enabled = true
max-steps = {STATEFUL_STEPS}
generation.max-examples = {STATEFUL_SCENARIOS}

[auth.openapi.bearer]
bearer = "{TOKEN}"

[[operations]]
include-name = {UNUSABLE_CONTENT}
checks.positive_data_acceptance.expected-statuses = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]

[[operations]]
include-name = {LONG_ACTIONS}
generation.max-examples = 5

# the values of {{action}} are score, cluster and calibrate, whose POST routes exist: POST there is supported,
# and the 405 to OPTIONS names that route's method
[[operations]]
include-name = "GET /api/actions/{{action}}"
checks.unsupported_method.enabled = false
checks.allow_header_conformance.enabled = false

# a body of JSON Lines is text, and any text is a string: there is no body of the wrong type to send
[[operations]]
include-name = ["POST /api/ingest", "POST /api/corpus/import"]
generation.mode = "positive"
"""


@schemathesis.serializer("application/x-ndjson")
def _json_lines(ctx: schemathesis.SerializationContext, value: object) -> bytes:
    """The upload routes take JSON Lines as a string; send it as it is."""
    assert isinstance(value, str), value
    return value.encode()


@dataclass
class Run:
    """What the engine did: cases per phase, statuses answered, operations tested, and every failure."""

    cases: Counter[str] = field(default_factory=Counter)
    statuses: Counter[int] = field(default_factory=Counter)
    operations: set[str] = field(default_factory=set)
    failures: list[str] = field(default_factory=list)
    stop: StopReason | None = None

    def add(self, phase: str, recorder: ScenarioRecorder) -> None:
        self.cases[phase] += len(recorder.cases)
        for interaction in recorder.interactions.values():
            if isinstance(interaction.response, Response):
                self.statuses[interaction.response.status_code] += 1
        self.operations.update(node.value.operation.label for node in recorder.cases.values())
        for case_id, nodes in recorder.checks.items():
            interaction = recorder.interactions.get(case_id)
            answer = interaction.response if interaction is not None else None
            said = f"\n-> {answer.status_code} {answer.text_lossy()[:300]}" if isinstance(answer, Response) else ""
            self.failures += [f"{recorder.label}: {n.name}: {n.failure_info.failure.title}\n"
                              f"{n.failure_info.failure.message}\n{n.failure_info.code_sample}{said}"
                              for n in nodes if n.status == Status.FAILURE and n.failure_info is not None]


def _run(endpoint: str) -> Run:
    config = SchemathesisConfig.from_str(CONFIG)
    schema = schemathesis.openapi.from_url(endpoint + "/api/openapi.json",
                                           headers={"authorization": f"Bearer {TOKEN}"}, config=config)
    schema.config.update(base_url=endpoint)
    run = Run()
    for event in from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            run.add(event.phase.value, event.recorder)
        elif isinstance(event, events.NonFatalError | events.FatalError):
            run.failures.append(f"{getattr(event, 'label', 'engine')}: {event!r}")
        elif isinstance(event, events.EngineFinished):
            run.stop = event.stop_reason
            run.failures += [str(f) for f in event.failures]
    return run


@pytest.mark.slow
def test_every_operation_answers_within_its_schema_under_every_check(api):
    server, _, _ = api
    document = server._server.config.app.openapi()
    documented = {f"{method.upper()} {path}" for path, ops in document["paths"].items() for method in ops}

    run = _run(server.endpoint)

    print(f"\nschemathesis: {sum(run.cases.values())} cases {dict(run.cases)}; "
          f"statuses {dict(sorted(run.statuses.items()))}")
    assert run.stop == StopReason.COMPLETED
    assert all(run.cases[phase] for phase in ("examples", "coverage", "fuzzing", "stateful")), run.cases
    kinds = Counter(f.split("\n", 1)[0] for f in run.failures)
    assert not run.failures, (f"{len(run.failures)} failures: {dict(kinds)}; the first:\n"
                              + "\n\n".join(run.failures[:3]))
    assert not [s for s in run.statuses if s >= 500]
    assert run.operations == documented  # every route was tried, reads and actions alike
    assert run.statuses[200] and run.statuses[400] and run.statuses[404]  # answers, refusals and misses


def test_what_the_run_found_stays_fixed(api):
    """Each was a failure of the run above: an undocumented 401, a number taken as a time, a body the document
    required that the server never needed, a window the document did not describe."""
    server, _, _ = api
    headers = {"authorization": f"Bearer {TOKEN}"}
    document = server._server.config.app.openapi()
    assert "401" in document["paths"]["/api/status"]["get"]["responses"]
    assert httpx.get(server.endpoint + "/api/status", timeout=30).status_code == 401

    since = httpx.get(server.endpoint + "/api/traces", params={"since": "0.5"}, headers=headers, timeout=30)
    assert since.status_code == 400
    assert since.json() == {"error": "since must be an ISO 8601 time like 2026-11-20T12:00:00Z, got '0.5'"}

    # a body's JSON types are the schema's: 0 is not a boolean
    zero = httpx.post(server.endpoint + "/api/actions/calibrate", json={"rubric": "factuality", "record": 0},
                      headers=headers, timeout=30)
    assert zero.status_code == 400 and zero.json()["error"].startswith("record must be true or false")
    for path in ("/api/ingest", "/api/corpus/import"):
        assert document["paths"][path]["post"]["requestBody"]["required"] is False
        assert "413" in document["paths"][path]["post"]["responses"]
    empty = httpx.post(server.endpoint + "/api/ingest", headers=headers, timeout=60)
    assert empty.status_code == 200 and empty.json() == {"stored": 0, "skipped": []}

    window = document["components"]["schemas"]["ClusterBody"]["properties"]["window"]
    assert "pattern" in str(window)
    soon = httpx.post(server.endpoint + "/api/actions/cluster", json={"window": "soon"}, headers=headers, timeout=60)
    assert soon.status_code == 400 and soon.json()["error"] == ("window: a duration is a positive number with a "
                                                              "unit s, m, h, d or w (like 24h or 7d), got 'soon'")
