"""Wall time, CPU time and peak memory of the clustering pipeline at 10,000 and 100,000 failing traces, in a
new process with an empty numba cache and in a new process with the cache the first one left.

    python tests/bench/cluster_scale.py [--sizes 10000,100000] [--seed 7] [--umap-max-fit-points N]

``FailureClusterer()`` with its default stages (UmapReducer, HdbscanClusterer, Representer, KeywordNamer,
IssueTracker) runs on precomputed 384-dim unit vectors (``texts=None``) shaped like sentence embeddings of
failure texts: 25 failure modes, each a random unit direction, with uneven sizes (weights 1/sqrt(rank), so
the largest is five times the smallest); a point is normalise(a * mode + b * template + noise), where the
template direction is shared by every point (texts written from one template are alike), a ~ U(0.8, 1.2),
b = 0.8 and the gaussian noise has norm ~0.84, so points of one mode have cosine ~0.7 and points of two
modes ~0.27. 5% of points belong to no mode (their own random direction instead of a mode's).

Each size runs in two fresh subprocesses (``--size N --child``), so the peak RSS (``ru_maxrss``) is that
size's alone: the first with an empty numba cache folder (``use_jit_cache``, as a clustering run sets it up
under the data directory), the second with the folder the first one filled, as the next ``sumwatch cluster``,
CronJob pod or demo finds it. In each the pipeline runs twice:

1. cold: the first fit in the process, so numba's JIT compilation is in the time when the cache is empty
   (UMAP's nearest-neighbour search, pynndescent, compiles for about a minute on 2 cores), and loading
   the compiled code when it is not;
2. warm: a second run on a fresh sample (same mode directions, other noise), given the first run's issues
   as ``known=``; the share of first-run issues that keep their number is the tracking figure. Given
   known issues, the pipeline may split a cluster along them, so this run can report more clusters.

``--umap-max-fit-points`` replaces the reducer's default sample size (20,000), e.g. ``100000`` fits UMAP
on every row, to compare the time and the clusters with the default's fit-on-sample.

Stages are timed by wrapping the pipeline's own stage objects in timing proxies, so the real code path is
measured: reduce (``fit_transform``), cluster (``fit``), and the rest (represent, name, track and the
pipeline's own work between them: noise reassignment, centroids, contrast points; the tracker's ``split``
by known issues counts as tracking). ARI compares the final labels with the true modes on the points that
belong to a mode (a point left as noise counts as its own label, -1); a mode counts as recovered when one
cluster holds most of its points and it is the largest mode in that cluster. The same-run baseline is the
smaller size: the scaling ratio is time(large) / time(small) against the size ratio. Target: 100,000
traces in under 180 s (cold run, on 2 cores).

Start-up cost: CPU seconds (``time.process_time``, which busy neighbours on shared cores do not inflate as
they do wall time) of a process's imports plus its first run, over its second run. Goal (issue 23): at
most 1.5 for the process that finds the cache warm; the empty-cache process's ratio is printed beside it.
Progress goes to stderr as each stage ends; the table and,
last, one JSON line with the figures go to stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

DIM = 384
N_MODES = 25
NOISE_SHARE = 0.05
TEMPLATE_WEIGHT = 0.8
NOISE_SIGMA = 0.043  # per dimension: noise norm ~ 0.043 * sqrt(384) ~ 0.84
TARGET_S = 180.0
TARGET_SIZE = 100_000
STARTUP_GOAL = 1.5  # a new process's imports + first run, at most this many times a warm run's CPU
RUBRICS = ("factuality", "groundedness", "coverage", "conciseness", "coherence")
FAILURE_MODES = (
    "number_mismatch", "entity_swap", "negation_flip", "quantifier_drift", "causal_added", "unsupported_claim",
    "date_mismatch", "filler_padding", "length_out_of_band", "verbatim_copy", "missing_key_fact", "topic_drift",
    "unit_mismatch", "percentage_mismatch", "entity_wrong", "polarity_wrong", "hedging_inflated",
    "added_causal_link", "hallucinated_fact_insertion", "temporal_wrong", "chatty_preamble",
    "over_band_length", "verbatim_restatement", "dropped_fact", "repeated_fact",
)


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _unit_rows(X: np.ndarray) -> np.ndarray:
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def directions(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The failure modes' unit directions (N_MODES, DIM) and the shared template direction (DIM,)."""
    rng = np.random.default_rng(seed)
    modes = _unit_rows(rng.standard_normal((N_MODES, DIM)))
    template = _unit_rows(rng.standard_normal((1, DIM)))[0]
    return modes, template


def mode_sizes(n: int) -> tuple[np.ndarray, int]:
    """Points per mode (weights 1/sqrt(rank), largest remainder) and the number of noise points."""
    n_noise = round(n * NOISE_SHARE)
    weights = 1 / np.sqrt(np.arange(1, N_MODES + 1))
    exact = (n - n_noise) * weights / weights.sum()
    sizes = np.floor(exact).astype(int)
    short = (n - n_noise) - sizes.sum()
    sizes[np.argsort(-(exact - sizes), kind="stable")[:short]] += 1
    return sizes, n_noise


def sample(n: int, modes: np.ndarray, template: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray, list]:
    """``n`` unit vectors (float32), the true mode per point (-1: no mode) and a PointMeta per point."""
    from sumwatch.clustering.pipeline import PointMeta

    rng = np.random.default_rng(seed)
    sizes, n_noise = mode_sizes(n)
    truth = np.concatenate([np.repeat(np.arange(N_MODES), sizes), np.full(n_noise, -1)])
    truth = truth[rng.permutation(n)]  # modes interleaved, as failures arrive
    centre = np.empty((n, DIM))
    inside = truth >= 0
    centre[inside] = modes[truth[inside]]
    centre[~inside] = _unit_rows(rng.standard_normal((int((~inside).sum()), DIM)))  # a direction of its own
    a = rng.uniform(0.8, 1.2, size=(n, 1))
    X = a * centre + TEMPLATE_WEIGHT * template + rng.normal(0.0, NOISE_SIGMA, size=(n, DIM))
    X = _unit_rows(X).astype(np.float32)
    meta = [PointMeta(RUBRICS[t % len(RUBRICS)], FAILURE_MODES[t]) if t >= 0
            else PointMeta(RUBRICS[int(r)], "") for t, r in zip(truth.tolist(), rng.integers(0, len(RUBRICS), n))]
    return X, truth, meta


class Timed:
    """Forwards everything to ``inner``; the named methods add their wall time to ``clock[stage]`` and their
    CPU time to ``cpu[stage]``."""

    def __init__(self, inner: Any, stage: str, methods: tuple[str, ...], clock: dict[str, float],
                 cpu: dict[str, float], on_done: Callable[[str, float], None] | None = None) -> None:
        self._inner, self._stage, self._methods, self._clock, self._on_done = inner, stage, methods, clock, on_done
        self._cpu = cpu

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name not in self._methods:
            return attr

        def timed(*args: Any, **kwargs: Any) -> Any:
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                return attr(*args, **kwargs)
            finally:
                spent = time.perf_counter() - t0
                self._clock[self._stage] = self._clock.get(self._stage, 0.0) + spent
                self._cpu[self._stage] = self._cpu.get(self._stage, 0.0) + time.process_time() - c0
                if self._on_done is not None:
                    self._on_done(self._stage, spent)

        return timed


def run_pipeline(label: str, X: np.ndarray, meta: list, known: list,
                 umap_max_fit: int | None = None) -> tuple[Any, dict[str, float], dict[str, float], dict[str, Any]]:
    from sumwatch.clustering.pipeline import FailureClusterer
    from sumwatch.clustering.reduce import UmapReducer

    clock: dict[str, float] = {}
    cpu: dict[str, float] = {}
    t_start = time.perf_counter()

    def done(stage: str, spent: float) -> None:
        if stage in ("reduce", "cluster"):  # called once each; the others are per cluster or quick
            _say(f"  [{label}] {stage:<8} {spent:8.1f} s  (at {time.perf_counter() - t_start:6.1f} s)")

    base = FailureClusterer(reducer=UmapReducer(max_fit_points=umap_max_fit) if umap_max_fit else None)
    clusterer = FailureClusterer(
        reducer=Timed(base.reducer, "reduce", ("fit_transform",), clock, cpu, done),
        clusterer=Timed(base.clusterer, "cluster", ("fit",), clock, cpu, done),
        representer=Timed(base.representer, "represent", ("select",), clock, cpu),
        namer=Timed(base.namer, "name", ("keywords", "name_all"), clock, cpu),
        tracker=Timed(base.tracker, "track", ("track", "split"), clock, cpu),  # split: when known issues are given
    )
    t0, c0 = time.perf_counter(), time.process_time()
    result = clusterer.fit(vectors=X, meta=meta, known=known)
    clock["total"] = time.perf_counter() - t0
    cpu["total"] = time.process_time() - c0
    clock["post"] = clock["total"] - clock.get("reduce", 0.0) - clock.get("cluster", 0.0)
    _say(f"  [{label}] post     {clock['post']:8.1f} s  (represent {clock.get('represent', 0):.2f}, "
         f"name {clock.get('name', 0):.2f}, track {clock.get('track', 0):.3f}); total {clock['total']:.1f} s")
    sample = getattr(base.reducer, "fit_sample_", None)
    model = getattr(base.clusterer, "model", None)
    fitted = {"umap_fit_rows": len(X) if sample is None else len(sample),
              "min_cluster_size": int(model.min_cluster_size) if model is not None else None}
    return result, clock, cpu, fitted


def quality(result: Any, truth: np.ndarray) -> dict[str, float]:
    """Counts, shares, ARI on the points of a true mode, and modes recovered: a mode counts when one cluster
    holds most of its points and the mode is the largest one in that cluster."""
    from sklearn.metrics import adjusted_rand_score

    labels = np.asarray(result.labels)
    inside = truth >= 0
    recovered = 0
    for mode in range(N_MODES):
        got = labels[truth == mode]
        got = got[got >= 0]
        if not len(got):
            continue
        cluster = int(np.bincount(got).argmax())
        in_cluster = truth[(labels == cluster) & inside]
        if (got == cluster).sum() * 2 > (truth == mode).sum() and np.bincount(in_cluster).argmax() == mode:
            recovered += 1
    return {
        "clusters": len(result.clusters),
        "clustered_share": float((labels >= 0).mean()),
        "noise_share": float((labels < 0).mean()),
        "ari": float(adjusted_rand_score(truth[inside], labels[inside])),
        "modes_recovered": recovered,
    }


def child(n: int, seed: int, umap_max_fit: int | None, cache_dir: str) -> dict[str, Any]:
    t_import, c_import = time.perf_counter(), time.process_time()
    from sumwatch.clustering.jit_cache import compile_counter, use_jit_cache

    use_jit_cache(Path(cache_dir))  # before umap is imported, as a clustering run does
    compiled = compile_counter()
    import hdbscan  # noqa: F401  imported here so the figure below covers the libraries' import time
    import umap  # noqa: F401

    from sumwatch.clustering.track import KnownIssue

    import_s, import_cpu_s = time.perf_counter() - t_import, time.process_time() - c_import
    _say(f"[{n}] imports {import_s:.1f} s ({import_cpu_s:.1f} CPU s)")

    modes, template = directions(seed)
    t0 = time.perf_counter()
    X1, truth1, meta1 = sample(n, modes, template, seed + 1)
    X2, truth2, meta2 = sample(n, modes, template, seed + 2)
    _say(f"[{n}] data: 2 x {X1.shape} float32 in {time.perf_counter() - t0:.1f} s")

    first, cold, cold_cpu, fitted = run_pipeline(f"{n} cold", X1, meta1, known=[], umap_max_fit=umap_max_fit)
    q1 = quality(first, truth1)
    _say(f"[{n}] cold run: {q1['clusters']} clusters, {q1['clustered_share']:.1%} clustered, ARI {q1['ari']:.3f}")
    known = [KnownIssue(number=c.issue.number, centroid=c.centroid, status=c.issue.status) for c in first.clusters]
    second, warm, warm_cpu, _ = run_pipeline(f"{n} warm", X2, meta2, known=known, umap_max_fit=umap_max_fit)
    q2 = quality(second, truth2)
    kept = {a.number for a in second.tracking.assignments if a.previous_status}
    matched = len(kept & {k.number for k in known}) / len(known) if known else 0.0
    _say(f"[{n}] warm run: {q2['clusters']} clusters, {q2['clustered_share']:.1%} clustered, ARI {q2['ari']:.3f}, "
         f"{matched:.0%} of first-run issues kept their number")

    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"size": n, **fitted, "import_s": import_s, "import_cpu_s": import_cpu_s, "cold": cold, "warm": warm,
            "cold_cpu": cold_cpu, "warm_cpu": warm_cpu, "compiled": len(compiled), "first": q1, "second": q2,
            "issues_first": len(known), "issues_matched_share": matched, "peak_rss_mib": peak_kib / 1024}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated numbers of traces")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--umap-max-fit-points", type=int, default=None,
                    help="UmapReducer(max_fit_points=...) instead of the default, e.g. to compare with a full fit")
    ap.add_argument("--size", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cache-dir", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.child:
        print(json.dumps(child(args.size, args.seed, args.umap_max_fit_points, args.cache_dir)), flush=True)
        return

    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    rows: list[dict[str, Any]] = []
    for n in sizes:
        with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache_dir:
            for cache in ("empty", "warm"):  # the second process finds what the first one compiled
                _say(f"== {n} traces (fresh process, {cache} numba cache)")
                command = [sys.executable, os.path.abspath(__file__), "--child", "--size", str(n),
                           "--seed", str(args.seed), "--cache-dir", cache_dir]
                if args.umap_max_fit_points:
                    command += ["--umap-max-fit-points", str(args.umap_max_fit_points)]
                proc = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True)
                rows.append({**json.loads(proc.stdout.strip().splitlines()[-1]), "cache": cache})

    print(f"{'measure':<44}" + "".join(f"{r['size']:>8,} {r['cache']:<5}" for r in rows))

    def line(name: str, get: Callable[[dict], Any], fmt: str) -> None:
        print(f"{name:<44}" + "".join(f"{get(r):>14{fmt}}" for r in rows))

    def startup(r: dict) -> float:
        """(imports + first run) / second run, in CPU seconds."""
        return (r["import_cpu_s"] + r["cold_cpu"]["total"]) / r["warm_cpu"]["total"]

    line("UMAP fitted on (rows; the rest transformed)", lambda r: r["umap_fit_rows"], ",d")
    line("HDBSCAN min_cluster_size chosen (cold run)", lambda r: r["min_cluster_size"] or 0, "d")
    line("imports (s)", lambda r: r["import_s"], ".1f")
    line("imports (CPU s)", lambda r: r["import_cpu_s"], ".1f")
    line("first run (CPU s)", lambda r: r["cold_cpu"]["total"], ".1f")
    line("  reduce: UMAP (CPU s)", lambda r: r["cold_cpu"].get("reduce", 0.0), ".1f")
    line("second run (CPU s)", lambda r: r["warm_cpu"]["total"], ".1f")
    line("  reduce: UMAP (CPU s)", lambda r: r["warm_cpu"].get("reduce", 0.0), ".1f")
    line("functions numba compiled", lambda r: r["compiled"], "d")
    line("start-up: (imports + 1st) / 2nd (CPU)", startup, ".2f")
    for run in ("cold", "warm"):
        what = "cold run (first fit, numba JIT)" if run == "cold" else "warm run (2nd sample, tracking)"
        line(f"{what}: total (s)", lambda r, run=run: r[run]["total"], ".1f")
        line("  reduce: UMAP (s)", lambda r, run=run: r[run].get("reduce", 0.0), ".1f")
        line("  cluster: HDBSCAN (s)", lambda r, run=run: r[run].get("cluster", 0.0), ".1f")
        line("  represent + name + track + glue (s)", lambda r, run=run: r[run]["post"], ".2f")
        line("    represent (s)", lambda r, run=run: r[run].get("represent", 0.0), ".2f")
        line("    name (s)", lambda r, run=run: r[run].get("name", 0.0), ".2f")
        line("    track (match, split by known) (s)", lambda r, run=run: r[run].get("track", 0.0), ".3f")
    line("peak RSS (MiB)", lambda r: r["peak_rss_mib"], ".0f")
    line("clusters (25 true modes)", lambda r: r["first"]["clusters"], "d")
    line("true modes recovered (cold run)", lambda r: r["first"]["modes_recovered"], "d")
    line("clusters, warm run (given known issues)", lambda r: r["second"]["clusters"], "d")
    line("true modes recovered (warm run)", lambda r: r["second"]["modes_recovered"], "d")
    line("share clustered", lambda r: r["first"]["clustered_share"], ".1%")
    line("share noise (5% true noise)", lambda r: r["first"]["noise_share"], ".1%")
    line("ARI vs true modes (cold run)", lambda r: r["first"]["ari"], ".3f")
    line("ARI vs true modes (warm run)", lambda r: r["second"]["ari"], ".3f")
    line("first-run issues keeping their number", lambda r: r["issues_matched_share"], ".1%")

    by_size = {r["size"]: r for r in rows if r["cache"] == "empty"}
    warm_cache = {r["size"]: r for r in rows if r["cache"] == "warm"}
    small, large = min(by_size), max(by_size)
    scaling = {}
    if small != large:
        for run in ("cold", "warm"):
            scaling[run] = by_size[large][run]["total"] / by_size[small][run]["total"]
        print(f"scaling {large:,} / {small:,} (same run, size ratio {large / small:.0f}x): "
              f"cold {scaling['cold']:.1f}x, warm {scaling['warm']:.1f}x")
    target = by_size.get(TARGET_SIZE)
    passed = None if target is None else target["cold"]["total"] < TARGET_S
    if target is not None:
        print(f"target: {TARGET_SIZE:,} traces under {TARGET_S:.0f} s (cold run): "
              f"{target['cold']['total']:.1f} s -> {'PASS' if passed else 'FAIL'}")

    for n, r in warm_cache.items():
        verdict = "PASS" if startup(r) <= STARTUP_GOAL else "FAIL"
        print(f"start-up, {n:,} traces: a new process with the numba cache warm costs {startup(r):.2f}x a warm run "
              f"(CPU; goal <= {STARTUP_GOAL}), with it empty {startup(by_size[n]):.2f}x -> {verdict}")

    def rounded(d: dict[str, float]) -> dict[str, float]:
        return {k: round(v, 3) for k, v in d.items()}

    print(json.dumps({
        "bench": "cluster_scale", "dim": DIM, "true_modes": N_MODES, "true_noise_share": NOISE_SHARE,
        "seed": args.seed, "cpus": os.cpu_count(), "umap_max_fit_points": args.umap_max_fit_points,
        "startup_goal": STARTUP_GOAL,
        "startup_cpu_ratio": {str(n): {"empty_cache": round(startup(by_size[n]), 2),
                                       "warm_cache": round(startup(warm_cache[n]), 2)} for n in by_size},
        "startup_pass": all(startup(r) <= STARTUP_GOAL for r in warm_cache.values()),
        "sizes": {f"{r['size']}/{r['cache']}_cache": {
            "import_s": round(r["import_s"], 2), "cold_s": rounded(r["cold"]), "warm_s": rounded(r["warm"]),
            "import_cpu_s": round(r["import_cpu_s"], 2), "first_run_cpu_s": rounded(r["cold_cpu"]),
            "second_run_cpu_s": rounded(r["warm_cpu"]), "numba_compiled": r["compiled"],
            "peak_rss_mib": round(r["peak_rss_mib"], 1), "umap_fit_rows": r["umap_fit_rows"],
            "min_cluster_size": r["min_cluster_size"], "clusters": r["first"]["clusters"],
            "modes_recovered": r["first"]["modes_recovered"], "clusters_second_run": r["second"]["clusters"],
            "modes_recovered_second_run": r["second"]["modes_recovered"],
            "clustered_share": round(r["first"]["clustered_share"], 4),
            "noise_share": round(r["first"]["noise_share"], 4), "ari": round(r["first"]["ari"], 4),
            "ari_second_run": round(r["second"]["ari"], 4), "issues_first_run": r["issues_first"],
            "issues_matched_share": round(r["issues_matched_share"], 4)} for r in rows},
        "scaling_large_over_small": {k: round(v, 2) for k, v in scaling.items()},
        "target_s": TARGET_S, "target_size": TARGET_SIZE, "pass": passed,
    }))


if __name__ == "__main__":
    main()
