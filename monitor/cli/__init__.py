"""The ``sumwatch`` command line: one module per command group, registered here in one place.

    sumwatch demo --n 200          # the whole loop on the embedded database
    sumwatch up --port 4318        # OTLP/HTTP receiver, read API and scheduled jobs
    sumwatch traces --limit 20 --json
"""

from __future__ import annotations

import typer

from . import calibration, db, demo, doctor, ingest, issues, judges, scoring, serve, traces

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="Watch LLM summarization: trace, store, score, cluster.")
app.add_typer(db.db_app, name="db")
app.add_typer(traces.traces_app, name="traces")
app.add_typer(calibration.corpus_app, name="corpus")
app.command()(serve.up)
app.command()(serve.worker)
app.command()(ingest.ingest)
app.command()(scoring.sample)
app.command()(scoring.scores)
app.command()(issues.cluster)
app.add_typer(issues.issues_app, name="issues")
app.command()(calibration.calibrate)
app.command()(demo.demo)
app.command()(doctor.doctor)
app.command()(judges.judges)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
