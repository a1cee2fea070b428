"""An experiment end to end, each step the real command in its own process: a 200-item dataset, a decorated
summarizer that calls a loopback LLM at 300 ms a call, judged with that LLM (an OpenAI-compatible server on
127.0.0.1, tests/fakes/openai_server.py), killed and resumed, then the CI gate on a planted regression.

    python tests/bench/experiment.py [--n 200] [--latency 0.3] [--concurrency 8]

1. `sumwatch dataset import` of N demo documents with their reference summaries.
2. `sumwatch experiment run --name base`: wall time, items per second, LLM requests (the task's and the judge's),
   the command's peak memory.
3. The same run under another name killed (SIGKILL) once a third of the items were called, then run again: the
   calls made twice (only those in flight at the kill) and the verdicts stored twice (goal: 0).
4. Three runs judged by the offline tiers (`--mode off`): `base-offline`, `same` (the same summarizer again) and
   `broken` (numbers changed in 10% of the summaries), then `sumwatch experiment compare base-offline same|broken
   --fail-on-regression`: goal exit 0 and exit 1.

Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the loopback fakes

from fakes.openai_server import FakeOpenAI  # noqa: E402

from sumwatch.monitor.demo import generate_workload  # noqa: E402

SUMWATCH = str(Path(sys.executable).with_name("sumwatch"))

TASK = textwrap.dedent('''
    """The team's summarizer: one chat call to its model, the reference summary as its answer (a good model)."""
    import os, re
    import httpx
    from sumwatch.tracer import record_usage, summarization

    _client = httpx.Client(base_url=os.environ["TASK_LLM"], timeout=30)

    @summarization(prompt_version=os.environ.get("PROMPT", "v1"))
    def summarize(text, item_id, reference):
        with open(os.environ["TASK_LOG"], "a") as log:
            log.write(item_id + "\\n")
        reply = _client.post("/chat/completions", json={"model": "house", "messages": [
            {"role": "user", "content": "Summarize:\\n" + text}]}).json()
        record_usage(model="house", input_tokens=reply["usage"]["prompt_tokens"],
                     output_tokens=reply["usage"]["completion_tokens"])
        if os.environ.get("BREAK") and int(item_id.rsplit("-", 1)[1]) % 10 == 0:
            return re.sub(r"\\d+", lambda m: str(int(m.group()) * 3 + 7), reference, count=1)
        return reference
''')


def _env(home: str, fake: FakeOpenAI, folder: Path, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUMWATCH_")}
    env.update(SUMWATCH_HOME=home, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", SUMWATCH_LLM_MODEL="openai/judge",
               SUMWATCH_LLM_API_BASE=fake.base_url, SUMWATCH_LLM_API_KEY="bench-key", TASK_LLM=fake.base_url,
               TASK_LOG=str(folder / "called.txt"), **more)
    return env


def _run(env: dict[str, str], *args: str, ok: tuple[int, ...] = (0,)) -> tuple[str, float, int]:
    """stdout, wall seconds, peak resident memory of the command (MiB)."""
    started = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M", SUMWATCH, *args], env=env, capture_output=True, text=True,
                          check=False)
    seconds = time.perf_counter() - started
    if proc.returncode not in ok:
        raise SystemExit(f"sumwatch {' '.join(args)} exited {proc.returncode}: {proc.stderr[-2000:]}")
    peak = int(proc.stderr.strip().splitlines()[-1]) // 1024 if proc.stderr.strip() else 0
    return proc.stdout, seconds, peak if proc.returncode in ok else 0


def _called(folder: Path) -> list[str]:
    path = folder / "called.txt"
    return path.read_text().split() if path.exists() else []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.3, help="seconds the loopback LLM takes per reply")
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args()
    figures: dict[str, object] = {"items": args.n, "llm_latency_s": args.latency, "concurrency": args.concurrency}
    with tempfile.TemporaryDirectory() as home, FakeOpenAI(latency_s=args.latency) as fake:
        folder = Path(home)
        (folder / "bench_task.py").write_text(TASK)
        cases = generate_workload(args.n, seed=11, rates={"none": 1.0})
        lines = [json.dumps({"id": f"doc-{i:04d}", "source": c.source, "reference": c.reference_summary,
                             "expected_facts": list(c.expected_facts), "band": c.band}) for i, c in enumerate(cases)]
        (folder / "items.jsonl").write_text("\n".join(lines) + "\n")
        env = _env(home, fake, folder)
        _run(env, "dataset", "import", "bench", str(folder / "items.jsonl"))
        task = f"{folder / 'bench_task.py'}:summarize"
        run = ["experiment", "run", "bench", "--task", task, "--concurrency", str(args.concurrency), "--json"]

        before = len(fake.requests)
        out, seconds, peak = _run(env, *run, "--name", "base")
        answer = json.loads(out)
        report = answer["report"]
        requests = len(fake.requests) - before
        task_calls = len(_called(folder))
        figures.update(wall_s=round(seconds, 1), items_per_s=round(args.n / seconds, 2), run_s=answer["run_s"],
                       judge_s=answer["judge_s"], llm_requests=requests,
                       task_llm_requests=task_calls, judge_llm_requests=requests - task_calls, peak_rss_mib=peak,
                       pass_rates={r["rubric"]: r["passed"] / r["judged"] if r["judged"] else None
                                   for r in report["rates"]})
        print(f"2. {args.n} items in {seconds:.1f}s ({args.n / seconds:.1f}/s): {requests} LLM requests "
              f"({task_calls} by the task, {requests - task_calls} judging); peak {peak} MiB")

        (folder / "called.txt").unlink()
        proc = subprocess.Popen([SUMWATCH, *run, "--name", "killed"], env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        while len(_called(folder)) < args.n // 3 and proc.poll() is None:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        first = _called(folder)
        out, _, _ = _run(env, *run, "--name", "killed")
        resumed = json.loads(out)
        calls = _called(folder)
        twice = len(calls) - len(set(calls))
        judged = {r["rubric"]: r["judged"] for r in resumed["report"]["rates"]}
        figures.update(killed_after_calls=len(first), resumed_skipped=resumed["skipped"], resumed_ran=resumed["ran"],
                       calls_made_twice=twice, verdicts_per_rubric_after_resume=judged,
                       verdicts_beyond_items=sum(max(0, v - args.n) for v in judged.values()))
        print(f"3. killed after {len(first)} calls; resumed: {resumed['skipped']} skipped, {resumed['ran']} ran; "
              f"{twice} calls made twice (in flight at the kill); verdicts per rubric {judged}")

        # the gate's runs are judged by the offline tiers: the loopback LLM's judge is a word-overlap stand-in,
        # not a model, and a gate is only as good as its judge
        offline = [*run, "--mode", "off"]
        _run(env, *offline, "--name", "base-offline")
        _run(env, *offline, "--name", "same")
        _run({**env, "BREAK": "1", "PROMPT": "v2"}, *offline, "--name", "broken")
        compare = ["experiment", "compare", "base-offline"]
        same, _, _ = _run(env, *compare, "same", "--fail-on-regression", "--json", ok=(0, 1))
        broken, _, _ = _run(env, *compare, "broken", "--fail-on-regression", "--json", ok=(0, 1))
        same_body, broken_body = json.loads(same), json.loads(broken)
        figures.update(gate_same_regression=same_body["regression"], gate_broken_regression=broken_body["regression"],
                       broken_rubrics={r["rubric"]: {"delta": r["delta"], "interval": [r["low"], r["high"]],
                                                     "p": r["p_value"], "regressed": len(r["regressed"])}
                                       for r in broken_body["rubrics"]})
        print(f"4. gate: same summarizer -> regression={same_body['regression']}; numbers changed in 10% -> "
              f"regression={broken_body['regression']}")
    print(json.dumps({"bench": "experiment", **figures}))


if __name__ == "__main__":
    main()
