"""Scoring throughput: the offline cascade, the LLM tier's concurrency, and what `ambiguous` saves.

    python tests/bench/sampler_throughput.py [--cases 300] [--calls 640] [--concurrency 64] [--latency 0.3]
    python tests/bench/sampler_throughput.py --models-only --cases 150    # part 1 and the model table only

1. Spans/s scored by the offline tiers (rules alone, then rules + embeddings) on the demo workload; then spans
   per CPU-second of the offline cascade (rules + embeddings + learned) for each way of running the sentence
   model, each in a process of its own (torch's thread pool is process-wide): torch at 2 threads (what
   sumwatch ran before SUMWATCH_MODEL_THREADS, on a 2-core box), torch at 1 thread and int8 ONNX Runtime at 1
   thread, with each one's ratio to the first. CPU time (time.process_time, every thread of the process), not
   wall time: on shared cores wall time mostly measures the neighbours. Target: ONNX >= 2.5x torch at 2 threads.
2. Judge calls/s through litellm's real HTTP path against a loopback OpenAI-compatible server (its own
   process) that answers after ``--latency`` seconds, at ``--concurrency``; compared with the ideal
   concurrency / latency in the same run. Target: >= 100 calls/s at concurrency 64 with 300 ms.
3. LLM requests in `ambiguous` mode against `always` on the same demo workload: the share saved.
4. Spans per wall-second of the offline cascade (int8 ONNX, 1 thread) with the sentence model in 1 and then 2
   processes (``--workers``), in the same run, and their ratio. Wall time here, since that is what more
   processes buy; on shared cores the neighbours' load moves it, so the ratio from one run is the figure.

    python tests/bench/sampler_throughput.py --workers-only --cases 150    # part 4 only

Calls/s are measured through litellm's route for OpenAI-compatible servers (hosted_vllm/, judged
against the target) and through its OpenAI route (openai/gpt-4o-mini), whose OpenAI SDK layer costs more
client CPU per call. On 2 cores the client's CPU per call, not the server, bounds the rate.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from sumwatch.clustering.sentence_model.model_pool import usable_cpus  # noqa: E402
from sumwatch.monitor.demo import generate_workload  # noqa: E402
from sumwatch.monitor.rubrics.cascade import Cascade  # noqa: E402
from sumwatch.monitor.rubrics.llm import LLMConfig, LLMJudge  # noqa: E402
from sumwatch.monitor.rubrics.rules import RulesJudge  # noqa: E402
from sumwatch.monitor.rubrics.verdicts import SummaryCase  # noqa: E402
from sumwatch.monitor.scoring.judges import build_cascade, build_embedder  # noqa: E402
from sumwatch.monitor.settings import Settings  # noqa: E402

TESTS = Path(__file__).resolve().parents[1]  # the fake OpenAI server runs as fakes.openai_server from here
# litellm's route for self-hosted OpenAI-compatible servers, then its OpenAI route (a priced model name,
# as a user of that model writes it: for unpriced names litellm's price lookup costs more CPU per call)
ROUTES = ("hosted_vllm/judge", "openai/gpt-4o-mini")
# (backend, intra-op threads): the first is the baseline the others are compared with
MODEL_RUNS = (("torch", 2), ("torch", 1), ("onnx", 1))
MODEL_TARGET = 2.5  # ONNX at 1 thread against torch at 2 threads, spans per CPU-second


@dataclass(frozen=True)
class ModelRun:
    """The offline cascade's cost with one way of running the sentence model, measured in its own process."""

    backend: str
    threads: int
    spans: int
    cpu_s: float
    spans_per_cpu_s: float
    sentences_per_cpu_s: float
    version: str  # the cascade's version: which backend really ran


def measure_model(backend: str, threads: int, cases: int, home: Path) -> ModelRun:
    """Score ``cases`` demo spans offline after a warm-up on others (which loads, or exports, the model)."""
    workload = [SummaryCase(c.source, c.summary, c.band, c.expected_facts, c.domain)
                for c in generate_workload(cases, seed=21)]
    warm = [SummaryCase(c.source, c.summary) for c in generate_workload(8, seed=5)]
    settings = Settings.from_env(env={}, home=home).with_(model_backend=backend, model_threads=threads)
    embedder = build_embedder(settings)
    cascade = build_cascade(settings, mode="off", embedder=embedder)
    cascade.score_batch(warm)
    before = len(embedder._cache)  # distinct sentences the measured pass encodes
    t0 = time.process_time()
    cascade.score_batch(workload)
    cpu = time.process_time() - t0
    sentences = len(embedder._cache) - before
    return ModelRun(backend, threads, len(workload), round(cpu, 2), round(len(workload) / cpu, 2),
                    round(sentences / cpu, 1), cascade.version)


def measure_models(cases: int) -> list[ModelRun]:
    """Each of MODEL_RUNS in a child process, one after another, sharing one exported ONNX model."""
    runs: list[ModelRun] = []
    with tempfile.TemporaryDirectory(prefix="sumwatch-bench-") as home:
        for backend, threads in MODEL_RUNS:
            out = subprocess.run([sys.executable, __file__, "--measure-model", backend, str(threads),
                                  "--cases", str(cases), "--home", home], capture_output=True, text=True, check=True)
            runs.append(ModelRun(**json.loads(out.stdout.strip().splitlines()[-1])))
    return runs


def measure_workers(cases: int, processes: tuple[int, ...] = (1, 2)) -> dict[int, float]:
    """Spans per wall-second of the offline cascade with the model in each number of processes, each with a model
    and vector cache of its own, after a warm-up that loads the model (and starts the helpers)."""
    workload = [SummaryCase(c.source, c.summary, c.band, c.expected_facts, c.domain)
                for c in generate_workload(cases, seed=21)]
    warm = [SummaryCase(c.source, c.summary) for c in generate_workload(8, seed=5)]  # two model batches
    rates: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="sumwatch-bench-") as home:
        settings = Settings.from_env(env={}, home=Path(home)).with_(model_backend="onnx", model_threads=1)
        for n in processes:
            embedder = build_embedder(settings)  # an empty vector cache: every run encodes the workload's sentences
            cascade = build_cascade(settings, mode="off", embedder=embedder)
            embedder.set_processes(n)
            cascade.score_batch(warm)
            t0 = time.perf_counter()
            cascade.score_batch(workload)
            rates[n] = round(len(workload) / (time.perf_counter() - t0), 2)
            embedder.set_processes(1)
    return rates


def print_workers(rates: dict[int, float]) -> dict[str, object]:
    print(f"{'model processes (onnx, 1 thread)':<34}{'spans/wall-s':>13}{'ratio':>7}")
    for n, rate in rates.items():
        print(f"{n:<34}{rate:>13.2f}{rate / rates[1]:>7.2f}")
    return {"workers_spans_per_wall_s": {str(n): r for n, r in rates.items()},
            "workers_ratio_2_to_1": round(rates[2] / rates[1], 2), "cpus": usable_cpus()}


def start_fake(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "fakes.openai_server", "--latency", str(latency)], cwd=TESTS,
                            stdout=subprocess.PIPE, text=True)
    base_url = proc.stdout.readline().strip()  # the server prints its base URL once it listens
    if not base_url.startswith("http://127.0.0.1"):
        proc.kill()
        raise RuntimeError(f"fake server did not start: {base_url!r}")
    return proc, base_url


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--calls", type=int, default=640)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--models-only", action="store_true", help="part 1 and the model table, no LLM parts")
    ap.add_argument("--workers-only", action="store_true", help="part 4 only: 1 and 2 model processes")
    ap.add_argument("--measure-model", nargs=2, metavar=("BACKEND", "THREADS"), help=argparse.SUPPRESS)
    ap.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.measure_model:  # a child of measure_models
        backend, threads = args.measure_model
        print(json.dumps(asdict(measure_model(backend, int(threads), args.cases, args.home))))
        return
    if args.workers_only:
        print(json.dumps({"bench": "sampler_throughput", "cases": args.cases,
                          **print_workers(measure_workers(args.cases))}))
        return

    cases = [SummaryCase(c.source, c.summary, c.band, c.expected_facts, c.domain)
             for c in generate_workload(args.cases, seed=21)]
    settings = Settings.from_env(env={})

    # 1. offline tiers
    rules_only = Cascade(rules=RulesJudge())
    t0 = time.perf_counter()
    rules_only.score_batch(cases)
    rules_rate = len(cases) / (time.perf_counter() - t0)
    offline = build_cascade(settings, mode="off")
    offline.score_batch(cases[:8])  # load the model outside the timing
    t0 = time.perf_counter()
    offline.score_batch(cases)
    offline_rate = len(cases) / (time.perf_counter() - t0)
    del offline
    models = measure_models(args.cases)
    base = models[0].spans_per_cpu_s
    ratios = {f"{m.backend}_{m.threads}t": round(m.spans_per_cpu_s / base, 2) for m in models}
    print(f"{'sentence model (offline cascade)':<30}{'spans/CPU-s':>12}{'sent./CPU-s':>12}{'CPU-s':>8}{'ratio':>7}")
    for m in models:
        print(f"{f'{m.backend}, {m.threads} thread(s)':<30}{m.spans_per_cpu_s:>12.2f}{m.sentences_per_cpu_s:>12.1f}"
              f"{m.cpu_s:>8.1f}{m.spans_per_cpu_s / base:>7.2f}")
    model_report = {"model_runs": [asdict(m) for m in models], "model_ratios_to_torch_2t": ratios,
                    "model_target_ratio": MODEL_TARGET, "model_pass": ratios["onnx_1t"] >= MODEL_TARGET,
                    **print_workers(measure_workers(args.cases))}
    if args.models_only:
        print(json.dumps({"bench": "sampler_throughput", "cases": len(cases), "rules_spans_per_s": round(rules_rate, 1),
                          "offline_spans_per_s": round(offline_rate, 1), **model_report}))
        return

    proc, base_url = start_fake(args.latency)
    try:
        # 2. LLM calls/s at the concurrency limit (distinct prompts: no cache hits), through litellm's route
        #    for OpenAI-compatible servers and through its OpenAI route (the OpenAI SDK adds CPU per call)
        rates: dict[str, float] = {}
        errors = 0
        for route in ROUTES:
            judge = LLMJudge(LLMConfig(model=route, api_base=base_url, api_key="bench-key",
                                       concurrency=args.concurrency, timeout_s=30, cache_size=0))
            items = [("groundedness", SummaryCase(cases[k % len(cases)].source,
                                                  f"{cases[k % len(cases)].summary} (variant {k}, {route})"))
                     for k in range(args.calls)]
            asyncio.run(judge.ajudge_many(items[:args.concurrency]))  # warm up imports, client, connections
            t0 = time.perf_counter()
            results = asyncio.run(judge.ajudge_many(items[args.concurrency:]))
            rates[route] = len(results) / (time.perf_counter() - t0)
            errors += sum(1 for r in results if r.verdict == "error")
        calls_rate = rates[ROUTES[0]]
        ideal = args.concurrency / args.latency

        # 3. ambiguous vs always on the same workload
        quick_proc, quick_url = start_fake(0.0)
        try:
            requests = {}
            for mode in ("ambiguous", "always"):
                llm = LLMJudge(LLMConfig(model=ROUTES[0], api_base=quick_url, api_key="bench-key",
                                         concurrency=args.concurrency))
                cascade = build_cascade(settings, mode=mode, llm=llm)
                cascade.score_batch(cases)
                requests[mode] = cascade.llm_requests
        finally:
            quick_proc.terminate()
    finally:
        proc.terminate()

    saved = 1 - requests["ambiguous"] / max(requests["always"], 1)
    print(f"{'measure':<46}{'value':>12}")
    print(f"{'offline, rules only (spans/s)':<46}{rules_rate:>12.1f}")
    print(f"{'offline, rules + embeddings (spans/s)':<46}{offline_rate:>12.1f}")
    for route, rate in rates.items():
        print(f"{f'LLM calls/s, {route}, concurrency {args.concurrency}':<46}{rate:>12.1f}")
    print(f"{'  ideal (concurrency / latency)':<46}{ideal:>12.1f}")
    print(f"{'LLM requests, always':<46}{requests['always']:>12}")
    print(f"{'LLM requests, ambiguous':<46}{requests['ambiguous']:>12}")
    print(f"{'share of LLM calls saved by ambiguous':<46}{saved:>12.1%}")
    print(json.dumps({
        "bench": "sampler_throughput", "cases": len(cases), "rules_spans_per_s": round(rules_rate, 1),
        "offline_spans_per_s": round(offline_rate, 1), "llm_calls_per_s": round(calls_rate, 1),
        "llm_calls_per_s_by_route": {r: round(v, 1) for r, v in rates.items()},
        "llm_ideal_calls_per_s": round(ideal, 1), "llm_efficiency": round(calls_rate / ideal, 3),
        "llm_errors": errors, "concurrency": args.concurrency, "latency_s": args.latency,
        "llm_requests_always": requests["always"], "llm_requests_ambiguous": requests["ambiguous"],
        "ambiguous_saves": round(saved, 3), "target_calls_per_s": 100, "pass": calls_rate >= 100 and errors == 0,
        **model_report,
    }))


if __name__ == "__main__":
    main()
