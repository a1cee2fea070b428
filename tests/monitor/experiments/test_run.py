"""`sumwatch experiment run | score | compare` in process: a team's decorated summarizer on a dataset, its calls as
tagged spans, judged once, resumed after a crash, and the comparison the CI gate reads."""

from __future__ import annotations

import json
import textwrap

import pytest
from typer.testing import CliRunner

from sumwatch.monitor.cli import app
from sumwatch.monitor.contract.datasets import DatasetItem
from sumwatch.monitor.datasets.versions import save_dataset
from sumwatch.tracer.otel_traces import TRACES_TABLE

runner = CliRunner()
CITIES = ["Leeds", "Porto", "Lyon", "Graz", "Turku", "Ghent", "Brno", "Cork", "Bern", "Split"]

TASK = textwrap.dedent('''
    import os
    from sumwatch.tracer import record_usage, summarization

    CALLED = os.environ["TASK_LOG"]

    @summarization(prompt_version=os.environ.get("PROMPT", "v1"))
    def summarize(text, item_id, reference=""):
        with open(CALLED, "a") as log:
            log.write(item_id + "\\n")
        record_usage(model="house-model", input_tokens=len(text.split()), output_tokens=12)
        if "explode" in text:
            raise RuntimeError("the model refused this one")
        if os.environ.get("STOP_AT") == item_id:
            raise KeyboardInterrupt  # the process is killed here
        first = text.split(". ")[0] + "."
        if os.environ.get("BREAK") and int(item_id.split("-")[1]) % 5 == 0:
            first = first.replace("14", "41")  # the planted regression: a number changed
        return first
''')


def _items(n: int) -> list[DatasetItem]:
    out = []
    for i in range(n):
        city = CITIES[i % len(CITIES)]
        source = (f"The council of {city} approved 14 new bus lines on Tuesday. The lines open in spring and "
                  f"serve the northern districts of {city}. Officials said fares stay the same.")
        if i == 3:
            source += " The press office asked reporters to explode the story."
        reference = f"The {city} council approved 14 new bus lines on Tuesday."
        out.append(DatasetItem(item_id=f"item-{i:02d}", source=source, reference=reference))
    return out


@pytest.fixture
def env(cli_env, store, tmp_path):
    save_dataset(store, "buses", _items(40), origin="test")
    (tmp_path / "app_task.py").write_text(TASK)
    return {**cli_env, "SUMWATCH_EMBEDDINGS": "false", "TASK_LOG": str(tmp_path / "called.txt")}, tmp_path


def _run(env, *args, **more):
    environment, folder = env
    result = runner.invoke(app, ["experiment", *args], env={**environment, **more})
    return result


def _task(env) -> str:
    return f"{env[1] / 'app_task.py'}:summarize"


def _called(env) -> list[str]:
    path = env[1] / "called.txt"
    return path.read_text().split() if path.exists() else []


def test_a_run_traces_each_call_as_a_tagged_span_records_errors_and_judges_every_item(env, store):
    result = _run(env, "run", "buses", "--task", _task(env), "--name", "base", "--mode", "off", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["ran"] == 40 and answer["skipped"] == 0 and not answer["resumed"]
    assert answer["errors"] == [{"item": "item-03", "error": "RuntimeError: the model refused this one"}]
    report = answer["report"]
    assert report["experiment"]["done"] == 40 and report["experiment"]["errors"] == 1
    rates = {r["rubric"]: r for r in report["rates"]}
    # the active judges, and the reference rubrics that need no model (drift needs the sentence model, recall and
    # coverage an LLM: with neither they store nothing and the report counts them unjudged, not failed)
    assert set(rates) == {"groundedness", "factuality", "completeness", "conciseness", "ref_length", "ref_format"}
    assert all(r["judged"] == 39 for r in rates.values())  # the item that raised has no summary to judge
    assert rates["ref_length"]["passed"] == 39  # the first sentence: within 20% of the reference's words
    assert report["task_input_tokens"] > 0 and report["task_output_tokens"] == 40 * 12
    exp = report["experiment"]["experiment_id"]
    rows = store.query_rows(
        f"SELECT SpanAttributes['sumwatch.experiment.item'], SpanAttributes['summarization.prompt.version'], "
        f"ServiceName FROM {TRACES_TABLE} WHERE SpanAttributes['sumwatch.experiment.id'] = {{e:String}}", {"e": exp})
    assert len(rows) == 40 and {r[1] for r in rows} == {"v1"}  # the task's own span, with its own attributes
    assert {r[0] for r in rows} == {f"item-{i:02d}" for i in range(40)}
    # the scheduled sampler leaves an experiment's spans to it: not even the one whose call raised is read
    sampled = runner.invoke(app, ["sample", "--all", "--mode", "off", "--json"], env=env[0])
    assert sampled.exit_code == 0 and json.loads(sampled.stdout)["considered"] == 0


def test_a_killed_run_resumes_without_calling_or_judging_a_finished_item_again(env, store):
    first = _run(env, "run", "buses", "--task", _task(env), "--name", "crash", "--concurrency", "1", "--mode", "off",
                 STOP_AT="item-17")
    assert first.exit_code != 0
    before = _called(env)
    assert before[-1] == "item-17" and len(before) == 18
    resumed = _run(env, "run", "buses", "--task", _task(env), "--name", "crash", "--mode", "off", "--json")
    assert resumed.exit_code == 0, resumed.output
    answer = json.loads(resumed.stdout)
    assert answer["resumed"] and answer["skipped"] == 17 and answer["ran"] == 23
    after = _called(env)[len(before):]
    assert sorted(after) == sorted({f"item-{i:02d}" for i in range(17, 40)})  # item-17 again: it never finished
    scores = store.query_rows("SELECT count(), uniqExact(TraceId, SpanId, Rubric) FROM sumwatch_scores")[0]
    assert scores[0] == scores[1]  # no item and rubric judged twice
    again = _run(env, "score", "crash", "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["judged_now"] == 0


def test_the_gate_fails_a_planted_regression_and_passes_the_same_summarizer_run_twice(env):
    for name, more in (("base", {}), ("same", {}), ("broken", {"BREAK": "1", "PROMPT": "v2"})):
        result = _run(env, "run", "buses", "--task", _task(env), "--name", name, "--mode", "off", **more)
        assert result.exit_code == 0, result.output
    same = _run(env, "compare", "base", "same", "--fail-on-regression", "--json")
    assert same.exit_code == 0, same.output
    assert not json.loads(same.stdout)["regression"]
    broken = _run(env, "compare", "base", "broken", "--fail-on-regression", "--json")
    assert broken.exit_code == 1, broken.output
    body = json.loads(broken.stdout)
    factuality = next(r for r in body["rubrics"] if r["rubric"] == "factuality")
    assert factuality["regression"] and factuality["high"] < 0 and factuality["p_value"] < 0.05
    assert set(factuality["regressed"]) <= {f"item-{i:02d}" for i in range(0, 40, 5)}
    diff = next(d for d in body["diffs"] if d["rubric"] == "factuality")
    assert "41" in diff["candidate_summary"] and "14" in diff["base_summary"] and diff["source"]
    assert broken.stderr.strip().endswith("error: broken regressed on factuality against base") or \
        "regressed on factuality" in broken.stderr


def test_bad_tasks_and_names_are_one_line_errors(env):
    missing = _run(env, "run", "buses", "--task", "no_such_module:summarize")
    assert missing.exit_code == 2 and "cannot import no_such_module" in missing.stderr
    assert len(missing.stderr.strip().splitlines()) == 1 and "Traceback" not in missing.output
    no_function = _run(env, "run", "buses", "--task", f"{env[1] / 'app_task.py'}:nope")
    assert no_function.exit_code == 2 and "has no 'nope'" in no_function.stderr
    no_colon = _run(env, "run", "buses", "--task", "app_task")
    assert no_colon.exit_code == 2 and "module:function" in no_colon.stderr
    no_dataset = _run(env, "run", "nothing-here", "--task", _task(env))
    assert no_dataset.exit_code != 0 and "no dataset 'nothing-here'" in no_dataset.stderr
    unknown = _run(env, "show", "never-ran")
    assert unknown.exit_code != 0 and "no experiment 'never-ran'" in unknown.stderr


def test_a_candidate_against_production_compares_two_independent_rates(env, tmp_path):
    lines = [json.dumps({"source": item.source, "summary": item.source.split(". ")[0] + ".", "service": "buses-app",
                         "prompt_version": "v1"}) for item in _items(40)]
    (tmp_path / "prod.jsonl").write_text("\n".join(lines) + "\n")
    environment = env[0]
    assert runner.invoke(app, ["ingest", str(tmp_path / "prod.jsonl")], env=environment).exit_code == 0
    assert runner.invoke(app, ["sample", "--mode", "off"], env=environment).exit_code == 0
    broken = _run(env, "run", "buses", "--task", _task(env), "--name", "broken", "--mode", "off", BREAK="1")
    assert broken.exit_code == 0, broken.output
    live = _run(env, "compare-live", "broken", "--prompt-version", "v1", "--service", "buses-app", "--json",
                "--fail-on-regression")
    assert live.exit_code == 1, live.output
    body = json.loads(live.stdout)
    factuality = next(r for r in body["rubrics"] if r["rubric"] == "factuality")
    assert (factuality["live_judged"], factuality["live_passed"]) == (40, 40)
    assert factuality["candidate_judged"] == 39 and factuality["candidate_passed"] <= 39 - 7
    assert factuality["regression"] and factuality["high"] < 0
    none = _run(env, "compare-live", "broken", "--prompt-version", "v9", "--service", "buses-app")
    assert none.exit_code == 0 and "no production verdicts of prompt version 'v9'" in none.stdout
