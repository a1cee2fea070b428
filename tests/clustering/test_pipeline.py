"""The clustering pipeline on real embeddings, UMAP and HDBSCAN: kinds recovered, stable, swappable."""

import os

os.environ["HF_HUB_OFFLINE"] = "1"

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from sumwatch.clustering.cluster import HdbscanClusterer
from sumwatch.clustering.name import KeywordNamer
from sumwatch.clustering.pipeline import FailureClusterer, PointMeta
from sumwatch.clustering.reduce import UmapReducer
from sumwatch.clustering.represent import CORE_MEMBERSHIP
from sumwatch.clustering.sentence_model.embedder import Embedder

pytestmark = pytest.mark.integration

_COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Cyberdyne", "Soylent",
              "Vandelay", "Wonka", "Tyrell", "Oscorp", "Aperture", "Massive", "Pied Piper", "Dunder",
              "Gringotts", "Monarch", "Nakatomi"]
_FILLERS = ["it is important to note", "needless to say", "at the end of the day", "in today's world",
            "it goes without saying", "as we all know", "all things considered", "first and foremost"]
_CAUSES = [("sales fell", "the CEO resigned"), ("shares rose", "the merger closed"),
           ("costs grew", "the plant opened"), ("profit dropped", "the lawsuit was filed"),
           ("hiring slowed", "rates went up")]
_PARTS = ["chapter", "section", "meeting", "report", "speech", "thread", "email", "article"]


def _kinds(per_kind: int) -> tuple[list[str], list[int], list[PointMeta]]:
    texts, kinds, meta = [], [], []
    for i in range(per_kind):
        company = _COMPANIES[i % len(_COMPANIES)]
        a, b = 5 + (i * 7) % 40, 3 + (i * 11) % 50
        texts.append(f"factuality numerically_wrong: summary says {a}% but source says {b}% revenue growth "
                     f"for {company} in quarter {1 + i % 4}")
        meta.append(PointMeta("factuality", "numerically_wrong"))
        filler = _FILLERS[i % len(_FILLERS)]
        texts.append(f"conciseness filler_padding: the summary opens with the filler phrase '{filler}' and "
                     f"repeats padding words about {company} that add no information")
        meta.append(PointMeta("conciseness", "filler_padding"))
        effect, cause = _CAUSES[i % len(_CAUSES)]
        texts.append(f"groundedness causal_added: the summary claims {effect} at {company} because {cause}, "
                     f"but the source never states that causal link")
        meta.append(PointMeta("groundedness", "causal_added"))
        part = _PARTS[i % len(_PARTS)]
        texts.append(f"coverage dropped_fact: the summary of the {part} leaves out the key decision by "
                     f"{company}, an expected fact missing from the summary")
        meta.append(PointMeta("coverage", "dropped_fact"))
        kinds += [0, 1, 2, 3]
    return texts, kinds, meta


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


@pytest.fixture(scope="module")
def data(embedder: Embedder):
    texts, kinds, meta = _kinds(20)
    return texts, np.asarray(kinds), meta, embedder.encode(texts)


@pytest.fixture(scope="module")
def fitted(embedder: Embedder, data):
    texts, _, meta, _ = data
    return FailureClusterer(embedder=embedder).fit(texts=texts, meta=meta)


def test_recovers_the_kinds_with_little_noise(fitted, data):
    _, kinds, _, _ = data
    assert adjusted_rand_score(kinds, fitted.labels) >= 0.8
    assert len(fitted.noise) <= 0.1 * len(kinds)
    assert len(fitted.clusters) == 4
    assert sorted(i for c in fitted.clusters for i in c.members) == sorted(np.flatnonzero(fitted.labels >= 0))


def test_two_fits_give_identical_labels(embedder, data, fitted):
    texts, _, meta, _ = data
    again = FailureClusterer(embedder=embedder).fit(texts=texts, meta=meta)
    np.testing.assert_array_equal(again.labels, fitted.labels)
    assert [c.name for c in again.clusters] == [c.name for c in fitted.clusters]


def test_representatives_are_confident_members_and_boundary_is_weakest(fitted):
    for c in fitted.clusters:
        assert 1 <= len(c.representatives) <= 5
        assert len(set(c.representatives)) == len(c.representatives)
        assert set(c.representatives) <= set(c.members)
        membership = dict(zip(c.members, c.probabilities))
        core = max(c.probabilities) >= CORE_MEMBERSHIP  # without a core the best are shown, as boundary cases
        assert all(membership[i] >= CORE_MEMBERSHIP for i in c.representatives) or not core
        assert set(c.boundary) <= set(c.members) - set(c.representatives)
        if c.boundary:
            assert min(membership[i] for i in c.boundary) == pytest.approx(min(c.probabilities))
        assert np.linalg.norm(c.centroid) == pytest.approx(1.0, abs=1e-5)


def test_names_mention_the_dominant_failure_mode(fitted, data):
    _, _, meta, _ = data
    for c in fitted.clusters:
        mode = max(("numerically_wrong", "filler_padding", "causal_added", "dropped_fact"),
                   key=lambda m: sum(meta[i].failure_mode == m for i in c.members))
        assert mode.replace("_", " ") in c.name.title.lower()
        assert len(c.name.title.split()) <= 10
        assert c.name.description.count(". ") == 1 and c.name.description.endswith(".")
        assert c.name.severity in {"low", "medium", "high"} and c.name.fix and c.name.root_cause
    number = next(c for c in fitted.clusters if "numerically wrong" in c.name.title.lower())
    assert "verbatim" in number.name.fix and number.name.severity == "high"


class _Identity:
    """A reducer that keeps the vectors as they are."""

    def __init__(self) -> None:
        self.calls = 0

    def fit_transform(self, X):
        self.calls += 1
        return np.asarray(X)


def test_precomputed_vectors_and_a_swapped_stage(data):
    _, kinds, meta, vectors = data
    reducer = _Identity()
    result = FailureClusterer(reducer=reducer, embedder=object()).fit(vectors=vectors, meta=meta)
    assert reducer.calls == 1
    assert adjusted_rand_score(kinds, result.labels) >= 0.8
    # without texts the keywords come from meta, so names still carry the failure mode
    assert all(c.name.title for c in result.clusters)


def test_swapped_namer_is_used(data):
    _, _, meta, vectors = data

    class Plain(KeywordNamer):
        def name(self, cluster_texts, rubric_counts, failure_mode_counts, *, keywords=None):
            base = super().name(cluster_texts, rubric_counts, failure_mode_counts, keywords=keywords)
            return base.__class__("plain", base.description, base.root_cause, base.fix, base.severity)

    result = FailureClusterer(reducer=_Identity(), namer=Plain()).fit(vectors=vectors, meta=meta)
    assert result.clusters and {c.name.title for c in result.clusters} == {"plain"}


def test_every_default_stage_satisfies_its_protocol_and_a_duck_typed_stage_is_used(data):
    from sumwatch.clustering import (
        ClustererStage,
        Embedder,
        EmbedderStage,
        HdbscanClusterer,
        IssueTracker,
        KeywordNamer,
        LLMNamer,
        NamerStage,
        ReducerStage,
        Representer,
        RepresenterStage,
        TrackerStage,
        UmapReducer,
    )
    from sumwatch.monitor.remote.llm import LitellmModel, LLMConnection

    llm_namer = LLMNamer(LitellmModel(LLMConnection("openai/x")))
    for stage, protocol in ((Embedder(), EmbedderStage), (UmapReducer(), ReducerStage),
                            (HdbscanClusterer(), ClustererStage), (Representer(), RepresenterStage),
                            (KeywordNamer(), NamerStage), (llm_namer, NamerStage), (IssueTracker(), TrackerStage)):
        assert isinstance(stage, protocol), (stage, protocol)

    class Terse:  # no base class: only the methods the namer protocol names
        def keywords(self, clusters):
            return [["k"] for _ in clusters]

        def name_all(self, requests):
            from sumwatch.clustering import ClusterName

            return [ClusterName(f"group of {len(r.texts)}", "d.", "c", "f", "low") for r in requests]

    assert isinstance(Terse(), NamerStage) and not isinstance(_Identity(), NamerStage)
    _, _, meta, vectors = data
    result = FailureClusterer(reducer=_Identity(), namer=Terse()).fit(vectors=vectors, meta=meta)
    assert result.clusters and all(c.name.title.startswith("group of ") and c.keywords == ["k"]
                                   for c in result.clusters)


def test_fit_on_sample_assigns_the_rest_to_the_same_clusters(embedder):
    texts, kinds, meta = _kinds(30)  # 120 points, fitted on 60
    vectors = embedder.encode(texts)
    clusterer = HdbscanClusterer(max_fit_points=60)
    result = FailureClusterer(reducer=_Identity(), clusterer=clusterer).fit(vectors=vectors, meta=meta)
    assert len(clusterer.model.labels_) == 60
    assert adjusted_rand_score(kinds, result.labels) >= 0.8
    labels, probs = clusterer.assign(result.reduced)  # the points the clusterer saw (the kinds joined in)
    assert probs.shape == (len(texts), len(result.clusters))
    assert adjusted_rand_score(kinds, labels) >= 0.8


def test_reducer_leaves_tiny_inputs_alone_and_clamps_neighbours():
    tiny = np.eye(4, 8, dtype=np.float32)
    assert np.array_equal(UmapReducer(n_components=5).fit_transform(tiny), tiny)
    rng = np.random.default_rng(0)
    small = rng.normal(size=(10, 8)).astype(np.float32)
    assert UmapReducer(n_components=2, n_neighbors=15).fit_transform(small).shape == (10, 2)


def test_adaptive_min_cluster_size():
    assert HdbscanClusterer().candidate_sizes(80) == [3, 4, 5]
    assert HdbscanClusterer().candidate_sizes(1000) == [25, 31, 37]
    assert HdbscanClusterer(min_cluster_size=7).candidate_sizes(1000) == [7]


def test_noise_joins_a_cluster_only_above_the_threshold():
    from sumwatch.clustering.cluster import ClusterFit

    class Fixed:
        """A clusterer stage with a known answer: points 2 and 3 are noise, one leaning hard on cluster 1."""

        def fit(self, X):
            labels = np.array([0, 1, -1, -1, 0, 1])
            probs = np.array([[1, 0], [0, 1], [0.1, 0.9], [0.4, 0.3], [1, 0], [0, 1]], dtype=float)
            return ClusterFit(labels, probs, None)

    vectors = np.eye(6, 4, dtype=np.float32)
    result = FailureClusterer(reducer=_Identity(), clusterer=Fixed()).fit(vectors=vectors)
    assert result.labels.tolist() == [0, 1, 1, -1, 0, 1]
    assert result.noise == [3]
    assert [c.members for c in result.clusters] == [[1, 2, 5], [0, 4]]  # largest first
