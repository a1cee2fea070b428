"""Input chosen to hurt the server: a rubric check that backtracks for ever, TOML nested 2,000 deep, an upload
with a line that is not Unicode. Each gets its answer and the server keeps answering everyone else."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import httpx
import pytest
from hang_guard import HANG_GUARD_S
from served import serve
from shouting_rubric import HOSTILE_SUMMARY, SHOUTING

from sumwatch.monitor.contract.calibration import CorpusItem
from sumwatch.monitor.ingest.backfill import ingest_lines
from sumwatch.monitor.rubrics.definition import parse_definition
from sumwatch.monitor.store.corpus import save_items
from sumwatch.monitor.store.judges import JudgeRecord, record_promotion
from sumwatch.monitor.store.listing import list_traces
from sumwatch.monitor.store.scores import SCORES_TABLE

pytestmark = pytest.mark.integration

CLIENT = {"authorization": "Bearer none"}  # as the CLI sends: not a browser, so no CSRF token needed
SAMPLES = 300  # /healthz answers inside the hostile work, at least: their p99 is not the one slowest answer


@pytest.fixture
def server(store, settings, rules_cascade):
    running = serve(settings, store, judges=lambda mode: rules_cascade)
    yield running
    running.stop()


# /healthz asked one request after another from a process of its own (as a load balancer asks: its waits are
# not the test's), until a line arrives on its stdin; it prints "[when sent, seconds to answer]" for each answer
_PROBE = """
import json, sys, threading, time
import httpx
stop = threading.Event()
threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
with httpx.Client(timeout=60) as http:
    print("ready", flush=True)
    while not stop.is_set():
        started = time.monotonic()
        assert http.get(sys.argv[1] + "/healthz").status_code == 200
        print(json.dumps([started, time.monotonic() - started]), flush=True)
"""


@contextmanager
def _healthz_probe(endpoint: str) -> Iterator[list[tuple[float, float]]]:
    """The probe's answers, (when sent, seconds to answer), appended as they arrive while the block runs."""
    timed: list[tuple[float, float]] = []
    probe = subprocess.Popen([sys.executable, "-c", _PROBE, endpoint], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    assert probe.stdin is not None and probe.stdout is not None
    answers = probe.stdout
    reader = threading.Thread(target=lambda: timed.extend(tuple(json.loads(line)) for line in answers))
    try:
        assert answers.readline().strip() == "ready"
        reader.start()
        yield timed
    finally:
        with suppress(BrokenPipeError):  # a probe that failed has said why on stderr; its exit status tells
            probe.stdin.write("stop\n")
            probe.stdin.close()
        probe.wait(timeout=HANG_GUARD_S)
        if reader.ident is not None:
            reader.join(timeout=HANG_GUARD_S)
    assert probe.returncode == 0


def _run_action(http: httpx.Client, action: str, body: dict[str, Any]) -> tuple[dict[str, Any], tuple[float, float]]:
    """Start ``action`` and wait for it to finish: its final state and (start, end)."""
    started = time.monotonic()
    accepted = http.post(f"/api/actions/{action}", params={"wait": "false"}, json=body)
    assert accepted.status_code == 202, accepted.text
    while (state := http.get(f"/api/actions/{action}").json())["running"]:
        time.sleep(0.02)
    return state, (started, time.monotonic())


def _p99(seconds: list[float]) -> float:
    return statistics.quantiles(seconds, n=100, method="inclusive")[98]


def _healthz_during(endpoint: str, run_once: Callable[[], tuple[float, float]]) -> tuple[list[float], float]:
    """``run_once`` (work returning its (start, end)) back to back while /healthz is asked, until the work has run
    3 s and at least SAMPLES answers were sent while it ran: those answers' seconds, and the work's seconds. Only
    answers sent during the work count, and a loaded machine makes the test wait for samples, not fail."""
    windows: list[tuple[float, float]] = []

    def during() -> list[float]:
        return [s for at, s in timed if any(start <= at <= end for start, end in windows)]

    deadline = time.monotonic() + HANG_GUARD_S  # a hang guard, not a test limit
    with _healthz_probe(endpoint) as timed:
        while sum(end - start for start, end in windows) < 3.0 or len(during()) < SAMPLES:
            assert time.monotonic() < deadline, f"{len(during())} /healthz answers during the work"
            windows.append(run_once())
    return during(), sum(end - start for start, end in windows)


def _assert_healthz_p99_under_200_ms(endpoint: str, hostile: Callable[[], tuple[float, float]],
                                     ordinary: Callable[[], tuple[float, float]], what: str) -> None:
    """/healthz's p99 while ``hostile`` work runs is under 200 ms. The same work on ordinary text is measured
    first, in the same run: when the machine is so loaded that even that misses 100 ms, the bound is twice its
    p99 instead (the hostile text must cost /healthz no more than ordinary text does), never above 1 s. The
    engine this replaced held /healthz for seconds on one hostile text, so either bound separates it."""
    rows = []
    for name, work in (("ordinary", ordinary), ("hostile", hostile)):
        answers, seconds = _healthz_during(endpoint, work)
        rows.append((name, answers))
        print(f"\n/healthz during {what}, {name} text ({seconds:.2f} s): {len(answers)} requests, "
              f"p50 {statistics.median(answers) * 1000:.1f} ms, p99 {_p99(answers) * 1000:.1f} ms, "
              f"max {max(answers) * 1000:.1f} ms")
    (_, ordinary_answers), (_, answers) = rows
    baseline = _p99(ordinary_answers)
    bound = 0.2 if baseline < 0.1 else min(1.0, max(0.2, 2 * baseline))
    assert len(answers) >= SAMPLES and _p99(answers) < bound, (bound, baseline)


def test_healthz_answers_within_200_ms_while_a_hostile_check_runs_in_judge_test(server, store):
    # each of these held the GIL, and so the receiver, the API and /healthz, for 3.5 to 14 s when checks ran on
    # Python's re (the measured p99 was 2.2 s with six items of 23 a's)
    items = 900
    save_items(store, [CorpusItem("shouting", f"Document {i}: the council met.",
                                  HOSTILE_SUMMARY[i % 3:] + "!" * (i % 2), human_verdict="calm")
                       for i in range(items)])
    http = httpx.Client(base_url=server.endpoint, headers=CLIENT, timeout=60)

    def judge_test(rubric: str, definition: str) -> Callable[[], tuple[float, float]]:
        def run() -> tuple[float, float]:
            state, window = _run_action(http, "judge_test", {"rubric": rubric, "definition": definition,
                                                             "origin": f"{rubric}.toml"})
            assert state["error"] is None and state["result"]["items"] == items, state
            return window
        return run

    # the same check on a corpus of ordinary summaries: the machine's own figure, in this run
    save_items(store, [CorpusItem("quiet", f"Document {i}: the council met.", f"The council met on day {i}.",
                                  human_verdict="calm") for i in range(items)])
    quiet = SHOUTING.replace('name = "shouting"', 'name = "quiet"')
    _assert_healthz_p99_under_200_ms(server.endpoint, judge_test("shouting", SHOUTING), judge_test("quiet", quiet),
                                     f"judge tests of {items} summaries")


@pytest.mark.slow
def test_healthz_answers_within_200_ms_while_a_sampler_pass_judges_hostile_summaries(server, store):
    # the promoted rubric's check runs on every new span a pass judges, and a client that sends spans picks the
    # summaries: the case that stalled the server for 14 s during a pass, and variants (the last one matches)
    record_promotion(store, JudgeRecord.of(parse_definition(SHOUTING, origin="shouting.toml"), promoted_by="test"))
    variants = [HOSTILE_SUMMARY, "a" * 26 + "!", "a" * 28 + "!!", "b" + HOSTILE_SUMMARY, "a" * 27]
    batch = 300
    http = httpx.Client(base_url=server.endpoint, headers=CLIENT, timeout=60)
    summaries: list[str] = []

    ordinary = [f"The council met on day {i}." for i in range(len(variants))]

    def sampler_pass(texts: list[str]) -> tuple[float, float]:
        # a batch of new spans, then a pass that judges them: only the pass is the measured work
        sent = [texts[(len(summaries) + i) % len(texts)] for i in range(batch)]
        lines = [json.dumps({"source": f"Document {len(summaries) + i}: the council met.", "summary": text})
                 for i, text in enumerate(sent)]
        assert ingest_lines(store, enumerate(lines, 1)).stored == batch
        summaries.extend(sent)
        state, window = _run_action(http, "score", {"workers": 1})
        assert state["error"] is None and state["result"]["scored_spans"] == batch, state
        return window

    _assert_healthz_p99_under_200_ms(server.endpoint, lambda: sampler_pass(variants), lambda: sampler_pass(ordinary),
                                     f"sampler passes of {batch} summaries each")
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
