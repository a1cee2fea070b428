"""What a judge configuration change costs the stored history: LLM requests when `sumwatch up` restarts with an
LLM over a history judged offline, what a rescore states and then spends, and whether an offline demo run in
the same store touches the LLM's verdicts. Every step is the real command in its own process; the LLM is an
OpenAI-compatible server on 127.0.0.1 (tests/fakes/openai_server.py) that counts what it is asked.

    python tests/bench/rejudge_on_restart.py [--n 120]

1. `sumwatch demo --n N --no-cluster` with no LLM: N spans judged offline.
2. `sumwatch up` with an LLM (ambiguous mode, the default), its scheduled worker's first pass, then
   `sumwatch sample` through it: the LLM requests they made (goal: 0, every span is already judged).
3. `sumwatch rescore --rubric groundedness --dry-run`, then `--yes`: the estimate beside what was sent.
4. The server stopped, `sumwatch demo --n 20` with no LLM in the same store: the LLM's verdicts before and after
   (goal: unchanged), and the spans the offline demo judged (its own 20).

Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the loopback fakes

import httpx  # noqa: E402
from fakes.openai_server import FakeOpenAI  # noqa: E402

SUMWATCH = str(Path(sys.executable).with_name("sumwatch"))


def _env(home: str, fake: FakeOpenAI | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMWATCH_")}
    env.update(SUMWATCH_HOME=home, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    if fake is not None:
        env.update(SUMWATCH_LLM_MODEL="openai/judge-test", SUMWATCH_LLM_API_BASE=fake.base_url,
                   SUMWATCH_LLM_API_KEY="k", SUMWATCH_SAMPLER_INTERVAL_S="3600")
    return env


def _run(env: dict[str, str], *args: str) -> str:
    """The command's stdout (its notes on stderr are left out)."""
    done = subprocess.run([SUMWATCH, *args], env=env, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"sumwatch {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def _verdicts(env: dict[str, str]) -> dict[tuple[str, str, str], tuple[str, bool]]:
    """Each (trace, span, rubric)'s verdict as every view reads it (the newest stored), with its tier and whether
    it passes, through the CLI."""
    out: dict[tuple[str, str, str], tuple[str, bool]] = {}
    for r in json.loads(_run(env, "scores", "--limit", "10000", "--json")):  # newest first
        out.setdefault((r["trace_id"], r["span_id"], r["rubric"]), (r["tier"], bool(r["passed"])))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=120, help="spans the first, offline demo stores")
    args = parser.parse_args()
    figures: dict[str, object] = {"spans": args.n}
    with tempfile.TemporaryDirectory() as home, FakeOpenAI() as fake:
        offline = _env(home)
        started = time.perf_counter()
        _run(offline, "demo", "--n", str(args.n), "--no-cluster")
        print(f"1. {args.n} spans traced and judged offline in {time.perf_counter() - started:.0f}s")

        online = _env(home, fake)
        proc = subprocess.Popen([SUMWATCH, "up", "--port", "0"], env=online, stderr=subprocess.PIPE, text=True)
        try:
            assert proc.stderr is not None
            endpoint = proc.stderr.readline().split(" on ", 1)[1].split("/v1/traces", 1)[0]
            while True:
                try:
                    if httpx.get(f"{endpoint}/healthz").status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.3)
            # the worker's first pass runs at start: wait until it has finished (the sampler job is idle)
            while True:
                state = httpx.get(f"{endpoint}/api/actions").json()
                if state.get("running") is None:
                    break
                time.sleep(0.5)
            time.sleep(2.0)
            sampled = _run(online, "sample")
            figures["llm_requests_on_restart"] = len(fake.requests)
            print(f"2. sumwatch up with an LLM, its worker's first pass and `sumwatch sample`: "
                  f"{len(fake.requests)} LLM requests; {sampled.strip().splitlines()[-1]}")

            estimate = json.loads(_run(online, "rescore", "--rubric", "groundedness", "--dry-run", "--json"))
            before = len(fake.requests)
            rescored = json.loads(_run(online, "rescore", "--rubric", "groundedness", "--yes", "--json"))
            sent = len(fake.requests) - before
            figures.update(rescore_spans=estimate["spans"], rescore_estimated_requests=estimate["llm_requests"],
                           rescore_requests_max=estimate["llm_requests_max"], rescore_sent_requests=sent,
                           rescore_judged_spans=rescored["scored_spans"])
            print(f"3. `sumwatch rescore --rubric groundedness --dry-run`: {estimate['spans']} spans, about "
                  f"{estimate['llm_requests']} LLM requests (at most {estimate['llm_requests_max']}; "
                  f"{estimate['basis']}); then `--yes`: {rescored['scored_spans']} spans judged, {sent} requests sent")
        finally:
            proc.terminate()
            proc.communicate(timeout=120)

        before = _verdicts(offline)
        demo = _run(offline, "demo", "--n", "20", "--no-cluster")
        after = _verdicts(offline)
        llm = {k: v for k, v in before.items() if v[0] == "llm"}
        kept = sum(after.get(k) == v for k, v in llm.items())
        judged = re.search(r"scored (\d+)", demo)
        figures.update(llm_verdicts_before_offline_demo=len(llm), llm_verdicts_standing_after_offline_demo=kept,
                       verdicts_changed_by_offline_demo=sum(after.get(k) != v for k, v in before.items()),
                       offline_demo_judged=int(judged.group(1)) if judged else None)
        print(f"4. an offline demo of 20 in the same store: {kept} of {len(llm)} LLM verdicts stand; "
              f"{figures['verdicts_changed_by_offline_demo']} of {len(before)} earlier verdicts changed; "
              f"the demo judged {figures['offline_demo_judged']} spans")
    print(json.dumps({"bench": "rejudge_on_restart", **figures}))


if __name__ == "__main__":
    main()
