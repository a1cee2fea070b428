"""Versioned, idempotent schema migrations, recorded in ``sumwatch_migrations``.

    applied = migrate(store)          # runs what is missing, returns the versions it applied

Each migration is a list of DDL statements written with IF NOT EXISTS, so a run interrupted half way
is simply run again. A migration whose recorded checksum no longer matches its statements is an
error: the schema on disk is not the one this code expects.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from .alert_states import ALERT_STATES
from .baselines import BASELINES
from .connection import Store, StoreError
from .corpus import CORPUS, corpus_example_ddl
from .corpus_labels import CORPUS_LABELS, corpus_span_ddl
from .datasets import DATASET_ITEMS, DATASET_VERSIONS
from .ddl import MIGRATIONS_TABLE, Table, Target, migrations_table_ddl, tables_ddl
from .embeddings import EMBEDDINGS
from .event_sends import EVENT_SENDS
from .experiments import EXPERIMENT_ITEMS, EXPERIMENTS
from .exports import EXPORTS
from .genai_events import GENAI_EVENTS, genai_events_arrival_ddl
from .issue_events import ISSUE_EVENTS
from .issue_members import ISSUE_MEMBERS
from .issues import ISSUES
from .judges import JUDGES
from .projections import PROJECTIONS
from .recognised import RECOGNISED
from .retention import apply_retention, retention_ddl
from .runs import CLUSTER_RUNS
from .score_facts import SCORE_FACTS, score_facts_view_ddl
from .score_sends import SCORE_SENDS
from .scores import SCORES
from .span_facts import SPAN_FACTS, facts_view_ddl, filter_options_ddl
from .span_keys import SPAN_KEYS, span_keys_ddl
from .traces import otel_traces_ddl, traces_arrival_ddl
from .watermarks import WATERMARKS


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    statements: Callable[[Target], list[str]]

    def checksum(self) -> str:
        # on the single-node form, so the same migration matches on any deployment
        sql = "\n;\n".join(self.statements(Target("db")))
        return hashlib.sha256(sql.encode()).hexdigest()[:16]


def _tables(*tables: Table) -> Callable[[Target], list[str]]:
    return lambda t: tables_ddl(t, *tables)


# A recorded checksum pins each migration's statements: never edit one, add a migration instead.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "otel_traces (OpenTelemetry Collector schema)", otel_traces_ddl),
    Migration(2, "scores, watermarks, calibration corpora and baselines",
              _tables(SCORES, WATERMARKS, CORPUS, BASELINES)),
    Migration(3, "embeddings, clustering runs, issues and their members",
              _tables(EMBEDDINGS, CLUSTER_RUNS, ISSUES, ISSUE_MEMBERS)),
    Migration(4, "dashboard: cluster map projections, span facts (view from otel_traces, backfilled)",
              lambda t: tables_ddl(t, PROJECTIONS, SPAN_FACTS) + facts_view_ddl(t)),
    Migration(5, "exports: one external ticket per issue and target", _tables(EXPORTS)),
    Migration(6, "retention: expired scores leave as whole parts", retention_ddl),
    Migration(7, "dashboard: score facts (the latest judgement per span and rubric, view from the scores)",
              lambda t: tables_ddl(t, SCORE_FACTS) + score_facts_view_ddl(t)),
    Migration(8, "dashboard: span keys (model and prompt version by span key, view from otel_traces)",
              lambda t: tables_ddl(t, SPAN_KEYS) + span_keys_ddl(t)),
    Migration(9, "judges: definitions by version; corpus items marked as few-shot examples",
              lambda t: tables_ddl(t, JUDGES) + corpus_example_ddl(t)),
    Migration(10, "GenAI content log records (OTLP /v1/logs), joined to their spans for recognition",
              _tables(GENAI_EVENTS)),
    Migration(11, "summarization calls recognised in other instrumentations' spans, read once by the sampler",
              _tables(RECOGNISED)),
    Migration(12, "score sends: which verdicts went out to which score target (OTLP, Langfuse, Phoenix)",
              _tables(SCORE_SENDS)),
    Migration(13, "triage: an append-only log of what people (and trackers) did to each issue",
              _tables(ISSUE_EVENTS)),
    Migration(14, "GenAI log records: when each arrived, so content an exporter sends late is still joined",
              genai_events_arrival_ddl),
    Migration(15, "labelling: every labeller's label of a corpus item and resolutions; the span an item came from",
              lambda t: tables_ddl(t, CORPUS_LABELS) + corpus_span_ddl(t)),
    Migration(16, "threshold alerts: the state each rule last sent (firing or ok), so a breach is sent once",
              _tables(ALERT_STATES)),
    Migration(17, "dashboard: the filter choices (service, model, prompt version) as a projection of the span facts",
              filter_options_ddl),
    Migration(18, "triage to tickets: which triage events went to which ticket, so each is sent once",
              _tables(EVENT_SENDS)),
    Migration(19, "otel_traces: when each span arrived, so the sampler scores a backfill of old spans",
              traces_arrival_ddl),
    Migration(20, "datasets: versioned items to run a summarizer on (each version's row, and its items)",
              _tables(DATASET_VERSIONS, DATASET_ITEMS)),
    Migration(21, "experiments: a summarizer's run on a dataset version, and each item's call (its span or error)",
              _tables(EXPERIMENTS, EXPERIMENT_ITEMS)),
)


class MigrationError(StoreError):
    pass


def target(store: Store) -> Target:
    return Target(store.database, store.cluster)


def applied_versions(store: Store) -> dict[int, str]:
    t = target(store)
    for sql in migrations_table_ddl(t):
        store.command(sql)
    table = f"{t.name(MIGRATIONS_TABLE)}" if not t.cluster else f"`{t.database}`.`{MIGRATIONS_TABLE}`"
    rows = store.query_rows(f"SELECT version, argMax(checksum, applied_at) FROM {table} GROUP BY version")
    return {int(v): c for v, c in rows}


def pending(store: Store) -> list[Migration]:
    done = applied_versions(store)
    for m in MIGRATIONS:
        if m.version in done and done[m.version] != m.checksum():
            raise MigrationError(
                f"migration {m.version} ({m.name}) was applied with checksum {done[m.version]}, but this "
                f"version of sumwatch has {m.checksum()}: the stored schema differs from the expected one")
    return [m for m in MIGRATIONS if m.version not in done]


def migrate(store: Store) -> list[int]:
    """Apply every pending migration in order; return the versions applied."""
    t = target(store)
    applied = []
    for m in pending(store):
        for sql in m.statements(t):
            store.command(sql)
        store.insert(t.local(MIGRATIONS_TABLE) if not t.cluster else MIGRATIONS_TABLE,
                     [(m.version, m.name, m.checksum())], ["version", "name", "checksum"])
        applied.append(m.version)
    apply_retention(store)  # outside the checksummed steps: the number of days varies by deployment
    return applied
