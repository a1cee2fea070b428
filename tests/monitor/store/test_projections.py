"""The cluster map on real chDB: a clustering run (real embedder and HDBSCAN; UMAP, or PCA where noise must stay
noise) stores one 2D point per failure it clustered, noise without an issue, the same map on a rerun, and reads
subsample evenly."""

import uuid
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from sumwatch.clustering import FailureClusterer, HdbscanClusterer
from sumwatch.monitor.issues.job import map_layout, run_clustering
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.issue_members import ISSUE_MEMBERS_TABLE
from sumwatch.monitor.store.migrations import migrate
from sumwatch.monitor.store.projections import (
    PROJECTIONS_TABLE,
    TEXT_CHARS,
    ProjectionPoint,
    load_projection,
    projection_size,
    save_projection,
)
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores

NOW = datetime(2026, 3, 2, 12, 0, tzinfo=timezone.utc)
CITIES = ["Lyon", "Porto", "Oslo", "Quito", "Hanoi", "Perth", "Accra", "Lima", "Riga", "Cork", "Fez", "Baku"]


def failures() -> list[tuple[str, RubricResult]]:
    """Three planted failure kinds, 12 spans each, and six unrelated one-off failures."""
    out = []
    for i, city in enumerate(CITIES):
        out.append(("factuality", RubricResult.make(
            "factuality", "numerically_wrong", tier="rules", failure_mode="number_mismatch",
            explanation=f"The summary states revenue in {city} grew {i + 12}% but the source says {i + 3}%.",
            evidence=f'summary "{i + 12}%" vs source "{i + 3}%"')))
        out.append(("conciseness", RubricResult.make(
            "conciseness", "padded", tier="rules", failure_mode="filler_phrase",
            explanation=f"The summary about {city} opens with a filler phrase: 'it is worth noting that'.",
            evidence='summary "It is worth noting that"')))
        out.append(("factuality", RubricResult.make(
            "factuality", "entity_wrong", tier="rules", failure_mode="name_mismatch",
            explanation=f"The summary names the chief executive as {city} Smith; the source names {city} Jones.",
            evidence=f'summary "{city} Smith" vs source "{city} Jones"')))
    odd = ["The summary says the merger was approved; the source says regulators blocked it.",
           "The expected fact about the dividend cut of 40 cents is absent from the summary.",
           "Weather in the mountains turned to snow before the harvest festival began.",
           "A recipe for sourdough bread needs flour, water, salt and a mature starter.",
           "The chess tournament ended in a draw after seventy moves in the final round.",
           "Migrating birds follow magnetic fields across the ocean every autumn."]
    for i, text in enumerate(odd):
        out.append(("groundedness", RubricResult.make(
            "groundedness", ["contradicted", "missing", "partial"][i % 3], tier="llm",
            failure_mode=["negation_flip", "unsupported_claim", "causal_claim"][i % 3], explanation=text)))
    return out


class _Pca:
    """A reducer that keeps distances: the failures' first 5 principal components (scikit-learn's PCA)."""

    def fit_transform(self, X):
        from sklearn.decomposition import PCA

        return PCA(n_components=5, random_state=0).fit_transform(np.asarray(X, dtype=np.float64)).astype(np.float32)


def write_failures(store) -> None:
    scored = []
    for i, (rubric, result) in enumerate(failures()):
        ns = int((NOW - timedelta(minutes=i + 1)).timestamp() * 1e9)
        scored.append(ScoredSpan(SpanRef(f"{i + 1:032x}", f"{i + 1:016x}", ns, "digest"), {rubric: result}))
    write_scores(store, scored, judge_version="cascade-1")


@pytest.mark.integration
def test_a_run_stores_one_point_per_failure_with_its_issue_and_noise_without(store, settings):
    write_failures(store)
    # clusters of at least 8 dense points (the six one-offs cannot form one), and HDBSCAN's noise kept as noise (by
    # default a point whose soft membership favours a cluster joins it). The reducer keeps distances (PCA): UMAP
    # on 42 points lays each lone failure beside some cluster, and whether HDBSCAN then calls it noise turns on
    # the third decimal of its vector; this test is about how noise is stored, not whether UMAP isolates it
    clusterer = FailureClusterer(reducer=_Pca(), clusterer=HdbscanClusterer(min_cluster_size=8, min_samples=8),
                                 noise_threshold=2.0)
    report = run_clustering(store, settings, now=NOW, clusterer=clusterer)
    points = load_projection(store)
    assert len(points) == report.failures == len(failures())
    assert len({(p.trace_id, p.span_id) for p in points}) == len(points)
    assert all(np.isfinite([p.x, p.y]).all() for p in points)
    members = {(t, s): f"SW-{n}" for t, s, n in store.query_rows(
        f"SELECT TraceId, SpanId, Number FROM {ISSUE_MEMBERS_TABLE} FINAL WHERE RunId = {{r:String}}",
        {"r": report.run_id})}
    assert {(p.trace_id, p.span_id): p.issue_id for p in points if p.issue_id} == members
    assert sum(p.issue_id is None for p in points) == report.noise >= 1
    assert report.clustered >= 30 and len(report.issues) >= 3
    issues_of_kind: dict[str, list[str | None]] = {}
    for p in points:
        assert p.text and p.text.startswith(p.rubric) and len(p.text) <= TEXT_CHARS
        issues_of_kind.setdefault(p.text.split(":")[0], []).append(p.issue_id)
    # each planted kind (12 spans) is mostly one issue of its own
    planted = [max(set(ids), key=ids.count) for ids in issues_of_kind.values() if len(ids) == len(CITIES)]
    assert len(planted) == 3 and None not in planted and len(set(planted)) == 3, issues_of_kind
    by_issue = {p.issue_id for p in points if p.issue_id}
    # on the map an issue's points sit closer to each other than to the other issues
    xy = {i: np.array([(p.x, p.y) for p in points if p.issue_id == i]) for i in by_issue}
    for i, own in xy.items():
        spread = np.linalg.norm(own - own.mean(axis=0), axis=1).mean()
        nearest_other = min(np.linalg.norm(o.mean(axis=0) - own.mean(axis=0)) for j, o in xy.items() if j != i)
        assert spread < nearest_other
    assert 0 <= report.map_seconds < report.seconds


@pytest.mark.integration
def test_a_rerun_on_the_same_failures_draws_the_same_map(store, settings, sw_home):
    write_failures(store)
    run_clustering(store, settings, now=NOW)
    first = load_projection(store)
    again = Settings.from_env(env={}, home=sw_home, database=f"t_{uuid.uuid4().hex[:10]}", port=0)
    other = Store.open(again)
    try:
        migrate(other)
        write_failures(other)
        run_clustering(other, again, now=NOW)
        second = load_projection(other)
    finally:
        other.command(f"DROP DATABASE IF EXISTS `{again.store.database}`")
        other.close()
    assert [(p.trace_id, p.issue_id, p.x, p.y) for p in second] == [(p.trace_id, p.issue_id, p.x, p.y) for p in first]


def test_the_map_of_a_larger_run_is_read_evenly_subsampled(store):
    points = [ProjectionPoint(f"{i:032x}", f"{i:016x}", "factuality", float(i), float(-i), f"SW-{i % 3 + 1}"
                              if i % 4 else None, f"factuality text {i}") for i in range(1000)]
    save_projection(store, "run-a", NOW, points)
    assert projection_size(store, "run-a") == 1000
    got = load_projection(store, "run-a", limit=300)
    assert len(got) == 250 and [p.x for p in got] == [float(i) for i in range(0, 1000, 4)]
    assert load_projection(store, "run-a") == points
    assert load_projection(store, "run-b") == [] and load_projection(store) == []  # no finished run yet
    assert store.query_rows(f"SELECT countIf(IssueId = '') FROM {PROJECTIONS_TABLE}")[0][0] == 250
    with pytest.raises(ValueError):
        load_projection(store, "run-a", limit=0)


def test_the_layout_is_seeded_and_two_dimensional_for_any_number_of_points():
    rng = np.random.default_rng(3)
    blobs = np.concatenate([rng.normal(c, 0.05, size=(40, 5)) for c in (0.0, 1.0, 2.0)]).astype(np.float32)
    a, b = map_layout(blobs, 20_000), map_layout(blobs, 20_000)
    assert a.shape == (120, 2) and np.array_equal(a, b)
    assert map_layout(blobs[:3], 20_000).shape == (3, 2) and map_layout(blobs[:0], 20_000).shape == (0, 2)
    assert map_layout(blobs[:, :1][:3], 20_000).shape == (3, 2)
