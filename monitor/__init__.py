"""The sumwatch backend, one room per stage of the data flow (lowest first; a room imports only rooms before it,
as the layers contract in pyproject.toml says; rooms on one line there do not import each other):

    contract     what the server and its client both speak: the records the API answers with, its limits, the
                 lock file of a running server; the standard library, pydantic and the tracer only
    settings     the one Settings object, read from the environment once
    rubrics      the four rubrics and their judge tiers (rules, embeddings, LLM): pure, no I/O
    store        ClickHouse: connection, migrations, one module per table (DDL, columns, rows <-> records)
    ingest       OTLP/HTTP receiver, OTLP decoding, group-commit writer, JSONL backfill
    scoring      the sampler and the judge cascade built from settings
    calibration  corpora management and the kappa gate on judge changes
    issues       the clustering job, failure texts, issue reads
    exports      issues to trackers (GitHub, Linear, Jira, Slack, webhooks, Markdown) and alerts
    runtime      the one Runtime built from the settings: store, LLM connection, sentence model, cascades, job
                 locks; the server, the worker and the commands take it
    jobs         the scheduler (sampler on an interval, clustering on a cron)
    demo         a generated workload with planted failures, traced through the whole loop
    views        the read API served by `sumwatch up`, and the readers the CLI prints from
    cli          the `sumwatch` command, one module per command group
"""
