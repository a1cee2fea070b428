"""The clustering job: failing scores in a window -> named, tracked issues -> promoted corpus items.

    report = run_clustering(store, settings, window="24h")    # one run (a server or a command: Runtime.cluster)
    report.issues[0].issue_id, report.issues[0].title, report.promoted

A run reads the failing spans of the window (see :mod:`.failures`), embeds each failure text once (vectors
are kept in ``sumwatch_embeddings``), runs the clustering pipeline against the issues of the last run, and
writes, in this order: the members of every issue, a snapshot of every issue as of this run, the promoted
corpus items, and finally the run's row in ``sumwatch_cluster_runs``. Readers only see runs with that last
row, so a run killed half way is invisible and the next run simply starts again from the last finished one.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from typing import Any

import numpy as np

from sumwatch.clustering import FailureClusterer, HdbscanClusterer, IssueTracker, LLMNamer, UmapReducer, glossary_key
from sumwatch.clustering.jit_cache import jit_cache_dir, use_jit_cache
from sumwatch.clustering.name import ClusterName
from sumwatch.clustering.pipeline import PointMeta, dominant_kind
from sumwatch.clustering.track import RESOLVED, KnownIssue

from ..contract.actions import Progress
from ..contract.calibration import NEEDS_LABEL, CorpusItem
from ..contract.issues import ClusterRunReport
from ..remote.llm import LitellmModel, LLMConnection
from ..rubrics.definition import JudgeDefinition
from ..scoring.judges import build_embedder, llm_connection
from ..settings import Namer, Settings, parse_duration
from ..store.connection import Store
from ..store.corpus import existing_ids, save_items
from ..store.issue_events import events_of
from ..store.issue_members import BOUNDARY, MEMBER, REPRESENTATIVE, MemberRow, save_members
from ..store.issues import IssueState, last_centroids, run_time, save_states
from ..store.judges import active_definitions
from ..store.projections import ProjectionPoint, save_projection
from ..store.runs import RunRow, latest_run_id, save_run
from ..store.traces import span_texts
from .failures import Failure, embed_failures, load_failures
from .reads import list_issues, run_states
from .triage import fold, merged_numbers

PROMOTED_ORIGIN = "promoted"


def build_clusterer(settings: Settings, connection: LLMConnection | None = None) -> Any:
    """The pipeline the settings ask for: default stages, the configured limits, an LLM namer if asked; the
    namer talks to the model over ``connection``, the judge's (``scoring.judges.llm_connection``) when not given."""

    if settings.clustering.cluster_namer == "llm" and not settings.judge.llm_model:
        raise ValueError("SUMWATCH_CLUSTER_NAMER=llm needs SUMWATCH_LLM_MODEL")
    connection = connection if connection is not None else llm_connection(settings)
    namer = None  # the pipeline's default: keyword names
    if connection is not None and settings.clustering.cluster_namer != Namer.KEYWORDS:
        namer = LLMNamer(LitellmModel(connection, name="LLM namer"))
    return FailureClusterer(
        reducer=UmapReducer(max_fit_points=settings.clustering.cluster_max_fit_points),
        clusterer=HdbscanClusterer(max_fit_points=settings.clustering.cluster_max_fit_points),
        namer=namer,
        tracker=IssueTracker(threshold=settings.clustering.cluster_match_threshold,
                             resolve_after=settings.clustering.cluster_resolve_after))


def namer_label(namer: object) -> str:
    """How a run records its namer: ``llm:<model>`` for a namer with a model, else the namer's class; an LLM
    namer whose calls failed says so, ``keywords (LLM failed: ...)``, never that the LLM named the issues."""
    model = getattr(namer, "model", None)
    if not model:
        return type(namer).__name__
    errors = list(getattr(namer, "last_errors", None) or [])
    if not errors:
        return f"llm:{model}"
    reason = errors[0].split(": ", 1)[-1]
    asked = int(getattr(namer, "last_requests", 0) or 0)
    if asked and len(errors) < asked:
        return f"llm:{model} ({len(errors)} of {asked} named by keywords: LLM failed: {reason})"
    return f"keywords (LLM failed: {reason})"


# -- the run --------------------------------------------------------------------------------------------

def run_clustering(store: Store, settings: Settings, *, window: str | None = None,
                   now: datetime | None = None, clusterer: Any = None, embedder: Any = None,
                   on_progress: Progress | None = None) -> ClusterRunReport:
    """Cluster the failing spans of the last ``window`` (default ``settings.clustering.cluster_window``) with
    ``clusterer`` and ``embedder`` (built from the settings when not given: a runtime passes its own)."""

    started = time.monotonic()
    started_at = datetime.now(timezone.utc)
    # before UMAP is first imported: numba then loads what an earlier process compiled instead of compiling it
    use_jit_cache(jit_cache_dir(settings.store.home))
    window_s = parse_duration(window or settings.clustering.cluster_window)
    end = now or started_at
    end_ns = int(end.timestamp() * 1e9)
    start_ns = end_ns - int(window_s * 1e9)
    run_id = f"{end:%Y%m%dT%H%M%S}-{uuid.uuid4().hex[:6]}"
    progress = on_progress or (lambda stage, done, total: None)
    model_name = settings.judge.embedding_model
    if embedder is None:
        embedder = build_embedder(settings)
    clusterer = clusterer if clusterer is not None else build_clusterer(settings)

    progress("read", 0, 1)
    definitions = active_definitions(store)
    failures = load_failures(store, start_ns, end_ns)
    progress("read", 1, 1)
    vectors, embedded = embed_failures(store, embedder, failures, model=model_name,
                                       on_progress=lambda d, t: progress("embed", d, t))

    previous_run = latest_run_id(store)
    # with the issues unmerged since their last snapshot (the runs after a merge keep none of the merged issue)
    previous = run_states(store, previous_run, fold(events_of(store))) if previous_run else []
    previous = apply_triage(store, previous, previous_run)
    comparable = [p for p in previous if p.embedding_model == model_name and len(p.centroid)]
    merged_centroids = _merged_centroids(store, [p.number for p in comparable], model_name)
    known = [KnownIssue(p.number, p.centroid, p.status, p.missed_runs,
                        name=ClusterName(p.title, p.description, p.root_cause, p.fix, p.severity),
                        also=merged_centroids.get(p.number, ()))
             for p in comparable]

    progress("cluster", 0, 1)
    if isinstance(getattr(clusterer.namer, "last_errors", None), list):  # a worker reuses its namer
        clusterer.namer.last_errors = []
        clusterer.namer.last_requests = 0
    if failures:

        result = clusterer.fit(texts=[f.text for f in failures], vectors=vectors,
                               meta=[PointMeta(f.rubric, f.failure_mode, f.document) for f in failures], known=known,
                               glossary=rubric_glossary(definitions.values()))
        clusters, unmatched, noise = result.clusters, result.tracking.unmatched, len(result.noise)
        progress("map", 0, 1)
        map_started = time.monotonic()
        layout = map_layout(result.reduced if result.reduced is not None else vectors,
                            settings.clustering.cluster_max_fit_points)
        map_seconds = time.monotonic() - map_started
        progress("map", 1, 1)
    else:
        outcome = clusterer.tracker.track(known, np.zeros((0, 1)))
        clusters, unmatched, noise = [], outcome.unmatched, 0
        layout, map_seconds = np.zeros((0, 2), dtype=np.float32), 0.0
    progress("cluster", 1, 1)

    # issues seen now, then known issues not seen (carried with their new status), then issues of another
    # embedding model, which cannot be matched and are carried as they were
    by_number = {p.number: p for p in previous}
    namer = namer_label(clusterer.namer)
    seen: list[IssueState] = []
    member_rows: list[MemberRow] = []
    for cluster in clusters:
        a, name = cluster.issue, cluster.name
        members = [failures[i] for i in cluster.members]
        rubric, mode = _dominant_pair(members)
        before = by_number.get(a.number)
        state = IssueState(
            a.number, a.issue_id, name.title, name.description, name.root_cause, name.fix, name.severity, rubric,
            mode, list(cluster.keywords), a.status, len(members), len({f.trace_id for f in members}),
            len(members) / len(failures), 0, before.first_seen if before else end, end, cluster.centroid,
            model_name, before.namer if before and a.previous_status else namer)
        seen.append(state)
        roles = {i: REPRESENTATIVE for i in cluster.representatives} | {i: BOUNDARY for i in cluster.boundary}
        for i, p in zip(cluster.members, cluster.probabilities):
            f = failures[i]
            member_rows.append(MemberRow(
                run_id, a.number, f.trace_id, f.span_id, datetime.fromtimestamp(f.timestamp_ns / 1e9, timezone.utc),
                service_name=f.service, rubric=f.rubric, verdict=f.primary.verdict, failure_mode=f.failure_mode,
                membership=float(p), role=roles.get(i, MEMBER), evidence=f.primary.evidence, failure_text=f.text,
                run_at=started_at))
    carried = []
    resolved_now = []
    for k in unmatched:
        p = by_number[k.number]
        if k.status == RESOLVED and p.status != RESOLVED:
            resolved_now.append(p.issue_id)
        carried.append(_absent(p, k.status, k.missed_runs))
    comparable_numbers = {p.number for p in comparable}
    others = [_absent(p, p.status, p.missed_runs) for p in previous if p.number not in comparable_numbers]

    if member_rows:
        save_members(store, member_rows)
    issue_of = {i: s.issue_id for cluster, s in zip(clusters, seen) for i in cluster.members}
    save_projection(store, run_id, started_at, [
        ProjectionPoint(f.trace_id, f.span_id, f.rubric, float(x), float(y), issue_of.get(i), f.text)
        for i, (f, (x, y)) in enumerate(zip(failures, layout))])
    all_states = seen + carried + others
    if all_states:
        save_states(store, all_states, run_id, started_at)
    promoted = promote(store, settings, failures, clusters, seen, definitions)
    seconds = time.monotonic() - started
    clustered = sum(s.members for s in seen)
    new_issues = sum(1 for c in clusters if not c.issue.previous_status)
    save_run(store, RunRow(
        run_id, started_at, datetime.now(timezone.utc), start_ns, end_ns, failures=len(failures),
        clustered=clustered, noise=noise, issues=len(seen), new_issues=new_issues, embedded=embedded,
        promoted=promoted, namer=namer, embedding_model=model_name, seconds=seconds))
    # the run's issues as the list reads them back (status, triage, counts and trend): one source for both
    seen_numbers = {s.number for s in seen}
    _, rows = list_issues(store)
    return ClusterRunReport(run_id, datetime.fromtimestamp(start_ns / 1e9, timezone.utc), end, len(failures),
                            embedded, clustered, noise, [r for r in rows if r.number in seen_numbers],
                            new_issues, resolved_now, promoted, namer, seconds, map_seconds)


def rubric_glossary(definitions: Iterable[JudgeDefinition]) -> dict[str, str]:
    """What a team's own rubrics and their failure modes mean, for the namer: each custom definition's
    question and failure-mode lines. The built-in vocabulary is left out: the keyword namer has remedies
    written for it, and its names stay what they were."""
    out: dict[str, str] = {}
    for definition in definitions:
        if definition.builtin:
            continue
        out[glossary_key(definition.name)] = definition.question
        for mode, means in definition.failure_modes:
            out[glossary_key(definition.name, mode)] = means
    return out


def map_layout(points: np.ndarray, max_fit_points: int) -> np.ndarray:
    """The cluster map: the reduced points laid out in 2D by a seeded UMAP, so a rerun draws the same map.
    Laid out from the reducer's few dimensions (not the 384 of the text vectors) it costs a fraction of the
    clustering fit and keeps the clusters apart as HDBSCAN saw them."""

    points = np.asarray(points, dtype=np.float32)
    if len(points) == 0:
        return np.zeros((0, 2), dtype=np.float32)
    reducer = UmapReducer(n_components=2, min_dist=0.1, metric="euclidean", max_fit_points=max(4, max_fit_points))
    flat = np.asarray(reducer.fit_transform(points), dtype=np.float32)
    if flat.shape[1] >= 2:  # too few points for UMAP come back as they were: their first two dimensions
        return flat[:, :2]
    return np.pad(flat, ((0, 0), (0, 2 - flat.shape[1])))


def apply_triage(store: Store, previous: list[IssueState], previous_run: str | None) -> list[IssueState]:
    """The last run's issues as triage left them since: resolved or reopened by hand (so one that comes back
    is regressed), and without the issues merged into others (their centroids match for those)."""
    triaged = fold(events_of(store))
    if not triaged or previous_run is None:
        return previous
    snapshot_at = run_time(store, previous_run)
    out = []
    for p in previous:
        t = triaged.get(p.number)
        if t is None:
            out.append(p)
        elif t.merged_into is None:
            status = t.status(p.status, snapshot_at)
            out.append(p if status == p.status else replace(p, status=status, missed_runs=0))
    return out


def _merged_centroids(store: Store, numbers: list[int], model: str) -> dict[int, tuple[np.ndarray, ...]]:
    """For each of ``numbers``, the last centroids of the issues merged into it."""
    triaged = fold(events_of(store))
    parts = {n: merged_numbers(triaged, n) for n in numbers}
    centroids = last_centroids(store, sorted({m for ms in parts.values() for m in ms}), model)
    return {n: tuple(centroids[m] for m in ms if m in centroids) for n, ms in parts.items() if ms}


def _absent(p: IssueState, status: str, missed: int) -> IssueState:
    """An issue no cluster of this run matched: carried with its new status and no members."""
    return replace(p, status=status, missed_runs=missed, members=0, traces=0, share=0.0)


def _dominant_pair(members: Sequence[Failure]) -> tuple[str, str]:
    # the pipeline's definition, so the issue's kind is the kind its lead representative shows
    kind = dominant_kind([PointMeta(f.rubric, f.failure_mode) for f in members])
    return kind.rubric, kind.failure_mode


# -- promotion ------------------------------------------------------------------------------------------

def promote(store: Store, settings: Settings, failures: Sequence[Failure], clusters: Sequence[Any],
            states: Sequence[IssueState], definitions: Mapping[str, JudgeDefinition] | None = None) -> int:
    """Put each issue's representatives into the corpus of the issue's rubric as ``needs_label`` items, the
    judge's verdict proposed as the label (when it is one the rubric's active definition has). An item
    already in the corpus (same rubric, source and summary) is left alone, so a person's label is never
    overwritten."""
    definitions = active_definitions(store) if definitions is None else definitions
    per_issue = settings.clustering.promote_per_issue
    if per_issue <= 0 or not clusters:
        return 0
    picks: list[tuple[Failure, IssueState]] = []
    for cluster, state in zip(clusters, states):
        for i in cluster.representatives[:per_issue]:
            picks.append((failures[i], state))
    texts = span_texts(store, [(f.trace_id, f.span_id) for f, _ in picks])
    items: dict[str, CorpusItem] = {}
    for f, state in picks:
        found = texts.get((f.trace_id, f.span_id))
        if not found:
            continue  # text capture was off for this span: nothing to label
        source, summary, band, facts = found
        score = next((s for s in (f.primary, *f.others) if s.rubric == state.rubric), f.primary)
        definition = definitions.get(score.rubric)
        if definition is None or score.verdict not in definition.overall:
            continue
        item = CorpusItem(rubric=score.rubric, source=source, summary=summary, status=NEEDS_LABEL,
                          proposed_verdict=score.verdict, bucket=score.failure_mode or "fail",
                          origin=PROMOTED_ORIGIN, band=band, expected_facts=facts, trace_id=f.trace_id,
                          note=f"{state.issue_id}: {state.title}")
        items.setdefault(item.item_id, item)
    present = existing_ids(store, items)
    fresh = [item for iid, item in items.items() if iid not in present]
    if fresh:
        save_items(store, fresh)
    return len(fresh)
