"""The engine in this process: what a command runs when it holds the database itself.

    with open_store(settings) as store: ...          # local.py: the store, its schema brought up to date
    api, app = local_app(stack, settings)             # the app on that store, when no server holds it
    serve(settings, with_worker=True, say=print)      # serve.py: `sumwatch up`; run_worker for `sumwatch worker`
    migrate_schema(settings); ddl_statements("otel")  # schema.py: `sumwatch db`
    run_demo(settings, ...)                           # demo.py: `sumwatch demo`
    llm_check(settings); candidate_text(rubric, path) # checks.py: what `doctor` and `judge test` check here

The command line reaches the domain (store, scoring, clustering, exports, jobs) through this room and the API
client only: a command that reads or acts through a running server imports neither, and one that runs the engine
itself names it here. Every refusal is an :class:`EngineError`, one line and an exit status, never a traceback.
This module imports nothing, so a command can catch that error without loading the engine.
"""

from __future__ import annotations


class EngineError(Exception):
    """A problem a command reports in one line: ``code`` 2 for a setting or argument it cannot use, 3 for the
    database, 1 for work that ran and failed."""

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
