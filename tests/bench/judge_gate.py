"""The judge loop against a loopback LLM: how long `judge test` takes, and whether the loop does its job.

    python tests/bench/judge_gate.py [--items 80] [--latency 0.3]

1. Time of ``test_candidate`` (what `sumwatch judge test` runs) for an edited factuality definition on an
   ``--items`` labelled corpus, the LLM answering after ``--latency`` seconds, at the default concurrency;
   both the active version and the candidate judge every item (no reply cached). Goal: under 10 s for 80.
2. ``edited_prompt_reaches_llm``: the edit's sentence is in the system prompt of the candidate's requests.
3. ``bad_edit_blocked``: an edit that makes the judge pass flipped negations is refused by the gate (kappa of
   the negation bucket falls), and ``promote`` stores nothing: the active version stays.
4. ``custom_rubric_end_to_end``: a team's ``negations`` rubric, promoted through the gate on its own corpus,
   judges stored spans in a sampler pass, its failures cluster into an issue (real embedding model, UMAP,
   HDBSCAN), and the issue exports as a Markdown ticket naming the rubric.
The LLM is a real HTTP server on 127.0.0.1 speaking the OpenAI chat API, answering by what each request
holds (tests/fakes/judge_by_prompt.py). The last line is one JSON object with every figure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the loopback fakes

from fakes.judge_by_prompt import (  # noqa: E402
    LENIENT,
    NEGATIONS,
    SOURCE,
    VERDICTS,
    factuality_by_prompt,
    factuality_corpus,
    system_prompts,
)
from fakes.openai_server import FakeOpenAI, chat_completion, judge_responder  # noqa: E402

from sumwatch.monitor.calibration.judges import promote, test_candidate  # noqa: E402
from sumwatch.monitor.contract.calibration import CorpusItem  # noqa: E402
from sumwatch.monitor.exports import export_issues  # noqa: E402
from sumwatch.monitor.exports.config import ExportConfig  # noqa: E402
from sumwatch.monitor.ingest.backfill import SpanBuilder, parse_record  # noqa: E402
from sumwatch.monitor.issues.job import run_clustering  # noqa: E402
from sumwatch.monitor.rubrics.definition import BUILTIN, parse_definition  # noqa: E402
from sumwatch.monitor.scoring.judges import build_cascade  # noqa: E402
from sumwatch.monitor.scoring.sampler import Sampler  # noqa: E402
from sumwatch.monitor.settings import Settings  # noqa: E402
from sumwatch.monitor.store.connection import Store  # noqa: E402
from sumwatch.monitor.store.corpus import save_items  # noqa: E402
from sumwatch.monitor.store.judges import active_definitions  # noqa: E402
from sumwatch.monitor.store.migrations import migrate  # noqa: E402

GOOD_EDIT = "Quote the whole sentence that carries the detail."


BUILTINS_PASS = {"on": False}  # the end-to-end part: the built-in rubrics pass, so only the team's one fails


def _passing(request: dict, rubric: str):
    user = next((str(m.get("content", "")) for m in request.get("messages") or [] if m.get("role") == "user"), "")
    summary = user.split("<summary>\n", 1)[1].split("\n</summary>", 1)[0]
    good = BUILTIN[rubric].overall[0]
    claim = {"claim": summary, "evidence_quote": SOURCE.split(". ")[0], "summary_quote": summary, "verdict": good,
             "failure_mode": ""}
    reply = {"claims": [claim], "verdict": good, "failure_mode": "", "explanation": "checks out"}
    return 200, chat_completion(request, json.dumps(reply)), {}, 0.0


def respond(request: dict):
    """The prompt-following judge for factuality and negations; the default fake judge for the rest."""
    system = next((str(m.get("content", "")) for m in request.get("messages") or [] if m.get("role") == "system"), "")
    builtin = next((r for r in BUILTIN if f"Rubric: {r}." in system), None)
    if builtin and BUILTINS_PASS["on"]:
        return _passing(request, builtin)
    if any(f"Rubric: {rubric}." in system for rubric in VERDICTS):
        return factuality_by_prompt(request)
    if "Rubric: " in system:
        return judge_responder(request)
    name = {"title": "Summaries flip the council's decision", "description": "The summary says the opposite.",
            "root_cause": "The model drops or adds a negation.", "fix": "Ask for negations to be kept verbatim.",
            "severity": "high"}  # the cluster namer
    return 200, chat_completion(request, json.dumps(name)), {}, 0.0


def edited(marker: str):
    text = BUILTIN["factuality"].text.replace('version = "1"', f'version = "bench-{abs(hash(marker)) % 10**6}"')
    return parse_definition(text.replace("Work in this order:", f"{marker}\nWork in this order:"))


def corpus(n: int) -> list[CorpusItem]:
    kinds = [("The council approved the budget", "correct", "pass"),
             ("The council did not approve the budget", "polarity_wrong", "negation_flip"),
             ("The mayor approved the budget", "entity_wrong", "entity_swap")]
    return [CorpusItem("factuality", SOURCE, f"{kinds[i % 3][0]} (note {i}).", kinds[i % 3][1], kinds[i % 3][2])
            for i in range(n)]


def spans(store: Store) -> None:
    """40 summarization spans: 30 with a negation flipped (in three wordings), 10 faithful."""
    builder = SpanBuilder()
    flips = ["The council did not approve the budget {}.", "Councillors did not pass the spending plan {}.",
             "The budget was not approved by the council {}."]
    for i in range(40):
        summary = (flips[i % 3] if i < 30 else "The council approved the budget {}.").format(f"in week {i}")
        builder.add(parse_record(json.dumps({"source": SOURCE, "summary": summary, "service": "bench",
                                             "timestamp": int(time.time()) - 600 + i}), 0))
    store.insert_spans(builder.take_rows())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=int, default=80)
    parser.add_argument("--latency", type=float, default=0.3)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="sumwatch-judge-gate-"))
    with FakeOpenAI(respond, latency_s=args.latency) as fake:
        settings = Settings.from_env(env={}, home=home, database=f"bench_{uuid.uuid4().hex[:8]}", port=0,
                                     llm_model="openai/judge-test", llm_api_base=fake.base_url, llm_api_key="k")
        store = Store.open(settings)
        migrate(store)
        save_items(store, corpus(args.items))
        cascade = build_cascade(settings, mode="always", embeddings=False)
        concurrency = settings.judge.llm_concurrency

        before = len(fake.requests)
        started = time.perf_counter()
        good = test_candidate(store, cascade, edited(GOOD_EDIT))
        seconds = time.perf_counter() - started
        asked = system_prompts(fake)[before:]
        reaches = any(GOOD_EDIT in p for p in asked)
        print(f"judge test, {good.items} items, LLM latency {args.latency:.2f}s, concurrency {concurrency}: "
              f"{seconds:.2f}s; gate {'passed' if good.gate.passed else 'failed'}, {len(good.changed)} changed, "
              f"{len(asked)} requests, at most {fake.max_in_flight} at once", flush=True)

        bad = edited(LENIENT)
        refused = promote(store, cascade, bad)
        blocked = (not refused.promoted and not refused.test.gate.passed
                   and active_definitions(store)["factuality"].judge_version == BUILTIN["factuality"].judge_version)
        print(f"lenient edit: promoted={refused.promoted}; {'; '.join(refused.test.gate.reasons)}", flush=True)

        save_items(store, factuality_corpus("negations"))
        custom = promote(store, cascade, parse_definition(NEGATIONS, origin="negations.toml"))
        spans(store)
        BUILTINS_PASS["on"] = True
        pass_report = Sampler(store, build_cascade(settings, mode="ambiguous", embeddings=False)).run_pass()
        run = run_clustering(store, settings)

        issues = [i for i in run.issues if i.rubric == "negations"]
        ticket = ""
        if issues:
            out = home / "tickets"
            out.mkdir()
            export_issues(store, ExportConfig(markdown_dir=str(out)), "markdown", [issues[0].issue_id])
            ticket = (out / f"{issues[0].issue_id}.md").read_text()
        end_to_end = custom.promoted and bool(issues) and "negations" in ticket
        print(f"negations rubric: promoted={custom.promoted}, {pass_report.scored_spans} spans scored, "
              f"{len(issues)} negations issue(s) of {len(run.issues)}, ticket {'names it' if ticket else 'missing'}",
              flush=True)
        store.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
        store.close()
    print(json.dumps({"judge_test_s": round(seconds, 2), "items": good.items, "llm_latency_s": args.latency,
                      "concurrency": concurrency, "goal_s": 10.0, "under_goal": seconds < 10.0,
                      "edited_prompt_reaches_llm": reaches, "bad_edit_blocked": blocked,
                      "custom_rubric_end_to_end": end_to_end}))


if __name__ == "__main__":
    main()
