"""Where the cascade sends what, with a loopback LLM that always passes or always fails.

    python tests/bench/cascade_routing.py --data ../shared/data [--per-set 40]

Rows: human-verified consistent summaries from every SummaC subset and SummEdits domain (``--per-set`` of
each), plus the demo workload's planted failures. Printed, with the goals:
- offline (no LLM): failures the cheap tiers report on the consistent rows, and how many of those are of a
  kind certain by construction;
- ``ambiguous`` with an LLM that passes everything: the share of the offline failures on consistent rows
  that still reach the user unconfirmed (goal 0 for every kind that is not certain by construction);
- LLM calls per span in ``ambiguous`` and in ``always`` (what the routing saves);
- ``ambiguous`` with an LLM that fails everything: every suspicion it was sent is confirmed and stands.
The LLM is a real HTTP server on 127.0.0.1 speaking the OpenAI chat API (tests/fakes/openai_server.py);
litellm calls it exactly as it would a provider. The last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the loopback fakes

from fakes.openai_server import FakeOpenAI, chat_completion, judge_responder  # noqa: E402

from sumwatch.monitor.demo import generate_workload  # noqa: E402
from sumwatch.monitor.rubrics.cascade import CERTAIN_KINDS, failure_kind  # noqa: E402
from sumwatch.monitor.rubrics.verdicts import RUBRICS, VERDICTS, SummaryCase  # noqa: E402
from sumwatch.monitor.scoring.judges import build_cascade  # noqa: E402
from sumwatch.monitor.settings import Settings  # noqa: E402

_FAIL = {"groundedness": ("missing", "unsupported_claim"), "completeness": ("absent", "missing_key_fact"),
         "factuality": ("entity_wrong", "entity_swap"), "conciseness": ("padded", "filler_phrases")}


def forced(verdict_kind: str):
    """A judge that quotes like a competent one but always answers pass (or always fail)."""
    def respond(request: dict) -> Any:
        status, body, headers, delay = judge_responder(request)
        reply = json.loads(body["choices"][0]["message"]["content"])
        system = next((str(m.get("content", "")) for m in request.get("messages", []) if m.get("role") == "system"),
                      "")
        rubric = next((r for r in RUBRICS if f"rubric: {r}" in system.lower()), "groundedness")
        good = next(iter(VERDICTS[rubric]))
        bad, mode = _FAIL[rubric]
        for claim in reply["claims"]:
            claim["verdict"], claim["failure_mode"] = (good, "") if verdict_kind == "pass" else (bad, mode)
        reply["verdict"], reply["failure_mode"] = (good, "") if verdict_kind == "pass" else (bad, mode)
        return status, chat_completion(request, json.dumps(reply)), headers, delay
    return respond


def consistent_rows(data: Path, per_set: int) -> list[SummaryCase]:
    cases: list[SummaryCase] = []
    for path in sorted(glob.glob(str(data / "summac" / "summac_*.jsonl"))):
        with open(path) as fh:
            rows = [json.loads(line) for line in fh]
        cases += [SummaryCase(r["document"], r["summary"]) for r in rows if r["label"] == 1][:per_set]
    for path in sorted(glob.glob(str(data / "summedits" / "summedits_*.json"))):
        with open(path) as fh:
            rows = json.load(fh)
        cases += [SummaryCase(r["doc"], r["summary"]) for r in rows if r["label"] == 1][:per_set]
    return cases


def run(settings: Settings, mode: str, cases: list[SummaryCase]) -> tuple[list[dict[str, Any]], int]:
    cascade = build_cascade(settings, mode=mode)
    results: list[dict[str, Any]] = []
    for i in range(0, len(cases), 64):
        results += cascade.score_batch(cases[i:i + 64])
    return results, cascade.llm_requests


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path("../shared/data"))
    ap.add_argument("--per-set", type=int, default=40, help="consistent rows taken from each set")
    ap.add_argument("--demo", type=int, default=200, help="demo cases with planted failures")
    args = ap.parse_args()
    started = time.perf_counter()
    good = consistent_rows(args.data, args.per_set)
    demo = [SummaryCase(c.source, c.summary, c.band, c.expected_facts, c.domain)
            for c in generate_workload(args.demo, seed=21)]
    base = Settings.from_env(env={})
    offline, _ = run(base, "off", good)
    raw = build_cascade(base, mode="off")  # what the cheap tiers found before the precision policy
    cheap = raw.rules
    offline_failures = [(k, rb) for k, case in enumerate(good) for rb in RUBRICS
                        if not cheap.judge(rb, case).passed]
    certain = [(k, rb) for k, rb in offline_failures if failure_kind(cheap.judge(rb, good[k])) in CERTAIN_KINDS]
    shown_offline = sum(not r[rb].passed for r in offline for rb in RUBRICS)

    figures: dict[str, Any] = {"consistent_rows": len(good), "demo_cases": len(demo),
                               "rules_failures_on_consistent": len(offline_failures),
                               "of_which_certain_kinds": len(certain),
                               "offline_failures_shown_on_consistent": shown_offline}
    with FakeOpenAI(forced("pass")) as fake:
        llm = base.with_(llm_model="openai/route-bench", llm_api_base=fake.base_url, llm_api_key="bench")
        amb, amb_calls = run(llm, "ambiguous", good)
        unconfirmed = [(k, rb) for k, rb in offline_failures if not amb[k][rb].passed]
        not_certain = [(k, rb) for k, rb in unconfirmed if (k, rb) not in set(certain)]
        demo_amb, demo_amb_calls = run(llm, "ambiguous", demo)
        demo_always, demo_always_calls = run(llm, "always", demo)
        spans = len(good) + len(demo)
        figures.update({
            "unconfirmed_on_consistent": len(unconfirmed),
            "unconfirmed_share": round(len(unconfirmed) / len(offline_failures), 4) if offline_failures else 0.0,
            "unconfirmed_not_certain": len(not_certain),
            "llm_calls_per_span_ambiguous": round((amb_calls + demo_amb_calls) / spans, 3),
            "llm_calls_per_span_always": round((len(good) * 0 + demo_always_calls) / len(demo), 3),
            "llm_calls_per_demo_span_ambiguous": round(demo_amb_calls / len(demo), 3),
        })
    with FakeOpenAI(forced("fail")) as fake:
        llm = base.with_(llm_model="openai/route-bench", llm_api_base=fake.base_url, llm_api_key="bench")
        failing, _ = run(llm, "ambiguous", demo)
        routed = [(k, rb) for k, r in enumerate(failing) for rb in RUBRICS
                  if r[rb].details and r[rb].details[-1].get("route") == "suspicion"]
        confirmed = sum(not failing[k][rb].passed for k, rb in routed)
        figures.update({"suspicions_sent": len(routed),
                        "suspicions_confirmed_share": round(confirmed / len(routed), 4) if routed else None})
    figures["seconds"] = round(time.perf_counter() - started, 1)
    figures["met"] = figures["unconfirmed_not_certain"] == 0 and figures["suspicions_confirmed_share"] in (1.0, None)

    print(f"{len(good)} human-verified consistent rows ({args.per_set} per set), {len(demo)} demo cases")
    print(f"rules failures on consistent rows          {len(offline_failures):>6}  "
          f"(certain by construction: {len(certain)})")
    print(f"offline failures shown (no LLM)            {shown_offline:>6}")
    print(f"reach the user unconfirmed, LLM passes all {figures['unconfirmed_on_consistent']:>6}  "
          f"(not certain: {figures['unconfirmed_not_certain']}, goal 0)")
    print(f"LLM calls per demo span: ambiguous {figures['llm_calls_per_demo_span_ambiguous']:.2f}, "
          f"always {figures['llm_calls_per_span_always']:.2f}")
    print(f"suspicions sent with an LLM that fails all {figures['suspicions_sent']:>6}, confirmed share "
          f"{figures['suspicions_confirmed_share']}")
    print(json.dumps({"bench": "cascade_routing", **figures}))


if __name__ == "__main__":
    main()
