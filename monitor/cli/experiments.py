"""`sumwatch experiment`: run a summarizer on a dataset, judge it, and compare it with another run.

    sumwatch experiment run sw3 --task app:summarize --name prompt-v4      # resumable; prints the pass rates
    sumwatch experiment compare prompt-v3 prompt-v4 --fail-on-regression   # the CI gate: exit 1 on a drop
    sumwatch experiment list | show NAME | score NAME
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape

from ._shared import (
    DbOption,
    HomeOption,
    JsonOption,
    action_progress,
    engine_errors,
    err,
    fail,
    flag,
    load_settings,
    open_client,
    out,
    print_json,
    progress_bars,
    table,
)

if TYPE_CHECKING:
    from ..contract.experiments import Comparison, ExperimentReport

experiment_app = typer.Typer(no_args_is_help=True, help="Experiments: run a summarizer on a dataset, judge it, "
                                                        "compare two runs item by item (a CI gate).")
ModeOption = typer.Option(None, "--mode", help="Judge mode: off | ambiguous | always (default: the configured one).")
DIFFS_SHOWN = 10


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


@experiment_app.command("run")
def experiment_run(dataset: str = typer.Argument(..., help="The dataset to run on (`sumwatch dataset list`)."),
                   task: str | None = typer.Option(None, "--task", help="Your summarizer: module:function (imported "
                                                                       "from the working directory) or "
                                                                       "path/to/file.py:function; called with the "
                                                                       "item's source, and by keyword the item's "
                                                                       "fields it declares."),
                   prompt: Path | None = typer.Option(None, "--prompt", help="Instead of --task: a prompt template "
                                                                            "file ({source} for the item's text), "
                                                                            "run on --model through litellm."),
                   model: str | None = typer.Option(None, "--model", help="The model --prompt runs on, like "
                                                                          "openai/gpt-4o-mini."),
                   name: str | None = typer.Option(None, "--name", help="A name to find it by; the same name again "
                                                                        "resumes it (default: its id)."),
                   version: int | None = typer.Option(None, "--version", min=1, help="The dataset version (default: "
                                                                                     "the latest)."),
                   concurrency: int = typer.Option(4, "--concurrency", min=1, max=64,
                                                   help="Items the task runs on at once."),
                   mode: str | None = ModeOption,
                   db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Run your summarizer on every item of a dataset version; each call is a span, judged by the active judges
    and the reference rubrics. A killed run resumes where it stopped (same --name)."""
    from ..views.experiment_runner import TaskError, load_task, run_experiment  # noqa: PLC0415 - start-up: a command imports what it runs

    settings = load_settings(db, home)
    if (task is None) == (prompt is None):
        fail("give --task module:function, or --prompt FILE with --model (one of them)")
    if task is not None:
        try:
            function = load_task(task)
        except TaskError as exc:
            fail(str(exc))
    else:
        if model is None or prompt is None:
            fail("--prompt needs --model, the model the prompt runs on (like openai/gpt-4o-mini)")
        with engine_errors():
            from ..engine.prompt_task import prompt_task  # noqa: PLC0415 - start-up: litellm only for a prompt

            function, task = prompt_task(settings, prompt, model)
    with open_client(settings, note="running the experiment through it") as client:
        started = time.perf_counter()
        with progress_bars() as bars:
            bar = bars.add_task(f"running {task}", total=None)
            try:
                outcome = run_experiment(client, dataset, function, task_name=task, name=name, version=version,
                                         concurrency=concurrency,
                                         on_item=lambda done, total: bars.update(bar, completed=done, total=total))
            except TaskError as exc:
                fail(str(exc))
        ran_s = time.perf_counter() - started
        with action_progress("judging") as on_progress:
            report = client.score_experiment(outcome.experiment.experiment_id, mode=mode, on_progress=on_progress)
        judged_s = time.perf_counter() - started - ran_s
    if json_:
        print_json({"experiment": report.experiment, "resumed": outcome.resumed, "ran": outcome.ran,
                    "run_s": round(ran_s, 2), "judge_s": round(judged_s, 2),
                    "skipped": outcome.skipped, "errors": [{"item": i, "error": e} for i, e in outcome.errors],
                    "report": report})
        return
    if outcome.resumed:
        out.print(f"resumed {report.experiment.name}: {outcome.skipped} items had run, {outcome.ran} ran now",
                  highlight=False)
    for item, error in outcome.errors[:DIFFS_SHOWN]:
        err.print(f"[yellow]item {escape(item)}:[/yellow] {escape(error)}", highlight=False)
    print_report(report)


def print_report(report: ExperimentReport) -> None:
    e = report.experiment
    out.print(f"experiment {e.experiment_id} ({e.name}) on {e.dataset} v{e.dataset_version}: {e.done} of {e.items} "
              f"items run, {e.errors} raised; task {e.task}", highlight=False)
    out.print(table("pass rate per rubric", ["rubric", "pass rate", "judged", "unjudged", "judge version"],
                    [(r.rubric, _rate(r.rate), r.judged, r.unjudged, ", ".join(r.judge_versions))
                     for r in report.rates]))
    latency = "-" if report.latency_ms_p50 is None else f"{report.latency_ms_p50:.0f} ms p50, " \
                                                        f"{report.latency_ms_p95:.0f} ms p95"
    out.print(f"task: {report.task_input_tokens} + {report.task_output_tokens} tokens, latency {latency}; judging: "
              f"{report.judged_now} verdicts now, {report.llm_requests} LLM requests, ${report.judge_cost_usd:.4f}"
              + (f"; Tri-Gate composite {report.tri_gate:.3f} (mean over items with a reference)"
                 if report.tri_gate is not None else ""), highlight=False)


@experiment_app.command("score")
def experiment_score(key: str = typer.Argument(..., help="Experiment id or name."), mode: str | None = ModeOption,
                     db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Judge what an experiment has not been judged on yet (after a kill, or with a judge added)."""
    with open_client(load_settings(db, home)) as client, action_progress("judging") as on_progress:
        report = client.score_experiment(key, mode=mode, on_progress=on_progress)
    print_json(report) if json_ else print_report(report)


@experiment_app.command("list")
def experiment_list(dataset: str | None = typer.Option(None, "--dataset", help="Only this dataset's experiments."),
                    db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """Experiments, newest first."""
    with open_client(load_settings(db, home)) as client:
        rows = client.experiments(dataset)
    if json_:
        print_json(rows)
        return
    out.print(table(f"{len(rows)} experiments", ["id", "name", "dataset", "items", "status", "created", "task"],
                    [(e.experiment_id, e.name, f"{e.dataset} v{e.dataset_version}", f"{e.done}/{e.items}", e.status,
                      f"{e.created_at:%Y-%m-%d %H:%M}", e.task) for e in rows]))


@experiment_app.command("show")
def experiment_show(key: str = typer.Argument(..., help="Experiment id or name."),
                    db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """One experiment: pass rate per rubric, tokens, latency, judging cost."""
    with open_client(load_settings(db, home)) as client:
        report = client.experiment(key)
    print_json(report) if json_ else print_report(report)


@experiment_app.command("compare")
def experiment_compare(base: str = typer.Argument(..., help="The base experiment (id or name)."),
                       candidate: str = typer.Argument(..., help="The candidate experiment (id or name)."),
                       rubric: list[str] = typer.Option(None, "--rubric", help="Only these rubrics (repeatable)."),
                       fail_on_regression: bool = flag(False, "--fail-on-regression",
                                                       help="Exit 1 when a rubric drops beyond noise (the 95% "
                                                            "interval below zero and McNemar's p < 0.05)."),
                       db: str | None = DbOption, home: Path | None = HomeOption, json_: bool = JsonOption) -> None:
    """A candidate against its base, paired on the same items: per rubric the pass rates, the difference with its
    95% interval, the items that regressed and were fixed (evidence side by side), cost, tokens and latency."""
    with open_client(load_settings(db, home)) as client:
        comparison = client.compare_experiments(base, candidate, rubric or ())
    if json_:
        print_json({**comparison.__dict__, "regression": comparison.regression})
    else:
        print_comparison(comparison)
    if fail_on_regression and comparison.regression:
        dropped = ", ".join(r.rubric for r in comparison.rubrics if r.regression)
        fail(f"{comparison.candidate.name} regressed on {dropped} against {comparison.base.name}", 1)


def print_comparison(c: Comparison) -> None:
    out.print(f"{c.candidate.name} against {c.base.name} on {c.base.dataset} (v{c.base.dataset_version} and "
              f"v{c.candidate.dataset_version}); {c.method}", highlight=False)
    out.print(table("per rubric", ["rubric", "base", "candidate", "difference [95%]", "p", "regressed", "fixed",
                                   "verdict"],
                    [(r.rubric, _rate(r.base_rate), _rate(r.candidate_rate),
                      f"{r.delta:+.1%} [{r.low:+.1%}, {r.high:+.1%}]", f"{r.p_value:.3g}", len(r.regressed),
                      len(r.fixed), "REGRESSION" if r.regression else "better" if r.improvement else "no change")
                     for r in c.rubrics], caption=f"{sum(r.paired for r in c.rubrics)} paired verdicts"))
    for d in c.diffs[:DIFFS_SHOWN]:
        out.print(f"[bold]{escape(d.item_id)}[/bold] {d.rubric} {d.change}: {d.base.verdict} -> "
                  f"{d.candidate.verdict}", highlight=False)
        out.print(f"  base:      {escape(d.base_summary[:160])}", highlight=False)
        out.print(f"  candidate: {escape(d.candidate_summary[:160])}", highlight=False)
        if d.candidate.evidence or d.base.evidence:
            out.print(f"  evidence:  {escape((d.candidate.evidence or d.base.evidence)[:200])}", highlight=False)
    if len(c.diffs) > DIFFS_SHOWN:
        out.print(f"... and {len(c.diffs) - DIFFS_SHOWN} more changed items (--json lists them)")
    b, k = c.base_figures, c.candidate_figures
    out.print(table("cost, tokens and latency", ["", "base", "candidate"],
                    [("task tokens in", b.task_input_tokens, k.task_input_tokens),
                     ("task tokens out", b.task_output_tokens, k.task_output_tokens),
                     ("latency p50 (ms)", b.latency_ms_p50 or "-", k.latency_ms_p50 or "-"),
                     ("items that raised", b.errors, k.errors),
                     ("judging cost (USD)", f"{b.judge_cost_usd:.4f}", f"{k.judge_cost_usd:.4f}")]))


@experiment_app.command("compare-live")
def experiment_compare_live(candidate: str = typer.Argument(..., help="The candidate experiment (id or name)."),
                            prompt_version: str = typer.Option(..., "--prompt-version",
                                                               help="Production's prompt version it replaces."),
                            service: str | None = typer.Option(None, "--service",
                                                               help="Only production's spans of this service."),
                            since: str = typer.Option("7d", "--since", help="Production's window, like 24h or 7d."),
                            fail_on_regression: bool = flag(False, "--fail-on-regression",
                                                            help="Exit 1 when a rubric is below production beyond "
                                                                 "noise (the 95% interval below zero)."),
                            db: str | None = DbOption, home: Path | None = HomeOption,
                            json_: bool = JsonOption) -> None:
    """A candidate against production's live pass rate of the prompt version it replaces (other items than the
    dataset's: two independent rates, not a paired comparison)."""
    with open_client(load_settings(db, home)) as client:
        live = client.compare_live(candidate, prompt_version, service=service or "", since=since)
    if json_:
        print_json({**live.__dict__, "regression": live.regression})
    else:
        out.print(f"{live.candidate.name} against production's {prompt_version} "
                  f"({'service ' + live.service if live.service else 'every service'}, last {since}); {live.method}",
                  highlight=False)
        out.print(table("per rubric", ["rubric", "production", "candidate", "difference [95%]", "verdict"],
                        [(r.rubric, f"{_rate(r.live_rate)} of {r.live_judged}",
                          f"{_rate(r.candidate_rate)} of {r.candidate_judged}",
                          f"{r.delta:+.1%} [{r.low:+.1%}, {r.high:+.1%}]", "REGRESSION" if r.regression else "-")
                         for r in live.rubrics]))
        if not live.rubrics:
            out.print(f"no production verdicts of prompt version {prompt_version!r} in the last {since}")
    if fail_on_regression and live.regression:
        fail(f"{live.candidate.name} is below production's {prompt_version} on "
             f"{', '.join(r.rubric for r in live.rubrics if r.regression)}", 1)
