"""Every command of ``sumwatch``: one module per command group, registered here in one place. Each command
module imports at its top only what building the command tree needs (typer, the shared options, the client's
contract); what a command runs it imports when it runs, so ``sumwatch --help`` and a read through a server stay
light."""

from __future__ import annotations

import typer

from . import (
    _shared,
    alerts,
    calibration,
    config,
    datasets,
    db,
    demo,
    doctor,
    experiments,
    export,
    ingest,
    issues,
    judge_definitions,
    judges,
    scoring,
    send_scores,
    serve,
    traces,
)

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Watch LLM summarization: trace, store, score, cluster.")


@app.callback()
def options(token: str | None = typer.Option(
        None, "--token", help="API token of the `sumwatch up` that holds the database, when a command goes "
                              "through it (default SUMWATCH_API_TOKEN).")) -> None:
    """Watch LLM summarization: trace, store, score, cluster."""
    _shared.api_token_flag[0] = token


app.add_typer(db.db_app, name="db")
app.add_typer(traces.traces_app, name="traces")
app.add_typer(calibration.corpus_app, name="corpus")
app.add_typer(datasets.dataset_app, name="dataset")
app.command()(serve.up)
app.command()(serve.worker)
app.command()(ingest.ingest)
app.command()(scoring.sample)
app.command()(scoring.rescore)
app.command()(scoring.scores)
app.command()(issues.cluster)
app.add_typer(issues.issues_app, name="issues")
app.add_typer(judge_definitions.judge_app, name="judge")
app.command()(calibration.calibrate)
app.command()(demo.demo)
app.command()(doctor.doctor)
app.command()(config.config)
app.command()(judges.judges)
app.command()(export.export)
app.command(name="send-scores")(send_scores.send_scores)
app.add_typer(alerts.alerts_app, name="alerts")
app.add_typer(experiments.experiment_app, name="experiment")
