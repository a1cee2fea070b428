"""The contract: what the server and its client both speak, in one place below every room.

    from sumwatch.monitor.contract.traces import TraceRow          # a record the API answers with
    from sumwatch.monitor.contract.issues import parse_issue_id     # a small pure helper both sides use

It holds the records the API answers with (traces, scores, issues, calibration, exports, actions, status) and
the answers that wrap them, the limits a request is checked against, the small pure helpers both sides need
(parsing an issue id or a trace id), and, in :mod:`.server`, the lock file a running ``sumwatch up`` writes and
a command reads to find it. The client (:mod:`sumwatch.monitor.views.client`) imports nothing of the server but
this package, so a command that talks to a server loads neither the store nor the web framework.

Each record has one home, here: the room that makes it (the store, scoring, issues, calibration, exports, the
API's routers) imports it from the contract, and so does everything that reads it.

What it may import: the standard library, pydantic (with typing_extensions, which pydantic's TypedDict needs on
Python 3.11) and :mod:`sumwatch.tracer`; no other room of monitor, no web framework, no numpy, no database
driver, no model runtime, no LLM client (the import contracts in pyproject.toml check it). This ``__init__``
imports none of its modules: a reader takes the one it needs.
"""
