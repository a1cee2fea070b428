"""Input chosen to hurt the server: a rubric check that backtracks for ever, TOML nested 2,000 deep, an upload
with a line that is not Unicode. Each gets its answer and the server keeps answering everyone else."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
from hang_guard import HANG_GUARD_S
from served import serve

from sumwatch.monitor.ingest.backfill import ingest_lines
from sumwatch.monitor.rubrics.definition import parse_definition
from sumwatch.monitor.store.corpus import CorpusItem, save_items
from sumwatch.monitor.store.judges import JudgeRecord, record_promotion
from sumwatch.monitor.store.listing import list_traces
from sumwatch.monitor.store.scores import SCORES_TABLE

CLIENT = {"authorization": "Bearer none"}  # as the CLI sends: not a browser, so no CSRF token needed
# the check below, '(a+)+$', takes 2^28 steps of a backtracking engine on this summary (14 s with Python's re,
# the GIL held all along); RE2 is linear
HOSTILE_SUMMARY = "a" * 27 + "!"
SHOUTING = """
name = "shouting"
version = "v1"
question = "Does the summary shout?"
unit = "summary"
roll_up = "worst"
criteria = "A summary shouts when it repeats one letter at its end."
[verdicts.calm]
passes = true
score = 1.0
means = "no shouting"
[verdicts.shouting]
passes = false
score = 0.0
means = "shouts"
failure_mode = "repeated_letters"
[failure_modes]
repeated_letters = "a letter repeated to the end"
[[checks]]
pattern = '(a+)+$'
verdict = "shouting"
failure_mode = "repeated_letters"
"""


@pytest.fixture
def server(store, settings, rules_cascade):
    running = serve(settings, store, judges=lambda mode: rules_cascade)
    yield running
    running.stop()


# /healthz asked one request after another from a process of its own (as a load balancer asks: its waits are
# not the test's), until a line arrives on its stdin; it prints "(when sent, seconds to answer)" as JSON
_PROBE = """
import json, sys, threading, time
import httpx
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
times = []
with httpx.Client(timeout=60) as http:
    print("ready", flush=True)
    while not stop.is_set() or len(times) < int(sys.argv[2]):
        started = time.monotonic()
        assert http.get(sys.argv[1] + "/healthz").status_code == 200
        times.append((started, time.monotonic() - started))
print(json.dumps(times))
"""


@contextmanager
def _healthz_probe(endpoint: str, least: int) -> Iterator[list[tuple[float, float]]]:
    timed: list[tuple[float, float]] = []
    probe = subprocess.Popen([sys.executable, "-c", _PROBE, endpoint, str(least)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert probe.stdin is not None and probe.stdout is not None
    try:
        assert probe.stdout.readline().strip() == "ready"
        yield timed
    finally:
        answer, _ = probe.communicate("stop\n", timeout=HANG_GUARD_S)
    assert probe.returncode == 0
    timed.extend(tuple(pair) for pair in json.loads(answer))


def _p99(seconds: list[float]) -> float:
    return statistics.quantiles(seconds, n=100, method="inclusive")[98] if len(seconds) > 1 else max(seconds)


def test_healthz_answers_within_200_ms_while_a_hostile_check_runs_in_judge_test(server, store):
    # each of these held the GIL, and so the receiver, the API and /healthz, for 3.5 to 14 s when checks ran on
    # Python's re (the measured p99 was 2.2 s with six items of 23 a's)
    items = 900
    save_items(store, [CorpusItem("shouting", f"Document {i}: the council met.",
                                  HOSTILE_SUMMARY[i % 3:] + "!" * (i % 2), human_verdict="calm")
                       for i in range(items)])
    http = httpx.Client(base_url=server.endpoint, headers=CLIENT, timeout=60)
    runs: list[tuple[float, float]] = []  # (start, end) of each judge test
    with _healthz_probe(server.endpoint, 0) as timed:
        # judge tests back to back for at least 3 s: the probe's answers while they run are hundreds, so their
        # p99 is a percentile and not one request that the loaded machine happened to schedule late
        while not runs or runs[-1][1] - runs[0][0] < 3.0:
            started = time.monotonic()
            accepted = http.post("/api/actions/judge_test", params={"wait": "false"},
                                 json={"rubric": "shouting", "definition": SHOUTING, "origin": "shouting.toml"})
            assert accepted.status_code == 202, accepted.text
            while (state := http.get("/api/actions/judge_test").json())["running"]:
                time.sleep(0.02)
            runs.append((started, time.monotonic()))
            assert state["error"] is None and state["result"]["items"] == items, state
    during = [s for at, s in timed if any(start <= at <= end for start, end in runs)]
    print(f"\n/healthz during {len(runs)} judge tests of {items} hostile summaries "
          f"({sum(end - start for start, end in runs):.2f} s): {len(during)} requests, "
          f"p50 {statistics.median(during) * 1000:.1f} ms, p99 {_p99(during) * 1000:.1f} ms, "
          f"max {max(during) * 1000:.1f} ms")
    assert len(during) >= 100 and _p99(during) < 0.2


@pytest.mark.slow
def test_healthz_answers_within_200_ms_while_a_sampler_pass_judges_hostile_summaries(server, store):
    # the promoted rubric's check runs on every new span a pass judges, and a client that sends spans picks the
    # summaries: the case that stalled the server for 14 s during a pass, and variants (the last one matches)
    record_promotion(store, JudgeRecord.of(parse_definition(SHOUTING, origin="shouting.toml"), promoted_by="test"))
    variants = [HOSTILE_SUMMARY, "a" * 26 + "!", "a" * 28 + "!!", "b" + HOSTILE_SUMMARY, "a" * 27]
    batch = 300
    http = httpx.Client(base_url=server.endpoint, headers=CLIENT, timeout=60)
    passes: list[tuple[float, float]] = []  # (start, end) of each pass
    summaries: list[str] = []
    with _healthz_probe(server.endpoint, 0) as timed:
        # a batch of new spans, then a pass that judges them, back to back for at least 3 s of passes
        while not passes or sum(end - start for start, end in passes) < 3.0:
            sent = [variants[(len(summaries) + i) % len(variants)] for i in range(batch)]
            lines = [json.dumps({"source": f"Document {len(summaries) + i}: the council met.", "summary": text})
                     for i, text in enumerate(sent)]
            assert ingest_lines(store, enumerate(lines, 1)).stored == batch
            summaries += sent
            started = time.monotonic()
            accepted = http.post("/api/actions/score", params={"wait": "false"}, json={"workers": 1})
            assert accepted.status_code == 202, accepted.text
            while (state := http.get("/api/actions/score").json())["running"]:
                time.sleep(0.02)
            passes.append((started, time.monotonic()))
            assert state["error"] is None and state["result"]["scored_spans"] == batch, state
    during = [s for at, s in timed if any(start <= at <= end for start, end in passes)]
    print(f"\n/healthz during {len(passes)} sampler passes of {batch} hostile summaries each "
          f"({sum(end - start for start, end in passes):.2f} s): {len(during)} requests, "
          f"p50 {statistics.median(during) * 1000:.1f} ms, p99 {_p99(during) * 1000:.1f} ms, "
          f"max {max(during) * 1000:.1f} ms")
    assert len(during) >= 100 and _p99(during) < 0.2
    # the passes judged every span with the promoted check: those ending in "a" shout, the rest do not
    verdicts = dict(store.query_rows(f"SELECT Verdict, count() FROM {SCORES_TABLE} FINAL WHERE Rubric = 'shouting' "
                                     f"GROUP BY Verdict"))
    assert verdicts == {"shouting": sum(s.endswith("a") for s in summaries),
                        "calm": sum(not s.endswith("a") for s in summaries)}


def test_judge_test_with_toml_nested_2000_deep_is_422_naming_the_line(server):
    deep = SHOUTING.replace("[[checks]]", "examples = " + "[" * 2000 + "]" * 2000 + "\n[[checks]]")
    answer = httpx.post(server.endpoint + "/api/actions/judge_test", headers=CLIENT, timeout=60,
                        json={"rubric": "shouting", "definition": deep, "origin": "deep.toml"})
    assert answer.status_code == 422  # a string the schema allows, holding TOML that cannot be used
    assert answer.json()["error"] == "deep.toml: line 19: examples nests more than 32 levels deep (arrays and " \
                                     "inline tables)"


def test_ingest_stores_the_good_lines_and_reports_one_that_is_not_unicode(server, store):
    lines = (b'{"source": "Revenue rose 12% in Q1.", "summary": "Revenue rose 12%."}\n'
             b'{"source": "Revenue fell.", "summary": "bad \\ud800"}\n')
    answer = httpx.post(server.endpoint + "/api/ingest", content=lines, timeout=60,
                        headers={**CLIENT, "content-type": "application/x-ndjson"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["stored"] == 1
    assert body["skipped"] == [{"line": 2, "reason": "field 'summary' holds a lone surrogate (\\ud800 at character "
                                                     "4), which is not Unicode text"}]
    assert len(list_traces(store)) == 1
