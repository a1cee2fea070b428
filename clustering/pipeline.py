"""Failure texts in, named and tracked clusters out: embed -> reduce -> cluster -> represent -> name -> track.

    clusterer = FailureClusterer()                       # defaults for every stage
    result = clusterer.fit(texts=texts, meta=[PointMeta("factuality", "number_mismatch"), ...],
                           known=[KnownIssue(12, centroid, "ongoing"), ...])
    for c in result.clusters:
        c.label, c.members, c.representatives, c.name.title, c.issue.issue_id
    result.noise                                         # indices left unassigned
    result.tracking.unmatched                            # known issues absent from this run

Each stage is an object with one job, typed by a protocol in :mod:`~sumwatch.clustering.stages`, and may
be swapped without touching the rest: ``FailureClusterer(reducer=MyReducer())`` only needs
``fit_transform(vectors)``; a clusterer needs ``fit(points)`` returning labels, soft memberships and a model
(see :class:`~sumwatch.clustering.cluster.ClusterFit`); a representer ``select(vectors, members,
membership)``; a namer ``keywords(clusters)`` and ``name_all(requests)`` (see :class:`NameRequest`); a
tracker ``track(known, centroids)``, and ``split(known, members)`` when it can split a cluster along known
issues. No base class is needed. Precomputed vectors (for example embeddings stored earlier) may be passed
instead of texts.

A cluster whose members sit nearest to different known issues is first split along them (see
:meth:`IssueTracker.split`), so an issue keeps its id when a run happens to cluster more coarsely.
Tracking runs before naming: a cluster matched to a known issue that has a name keeps that name, so only
new issues are named (with an LLM namer, that is where the calls go).

Before reducing, a failure whose source document also failed another way loses that document's part
(``topic_weight``, 1 by default; 0 leaves the vectors as they are). Every failure of a document quotes it (names,
figures, sentences), so text alone groups a document's failures by document; less the document's part, they group
by failure kind. ``document_part`` says how that part is estimated: ``"other_kinds"``, the mean of the document's
other-kind failures; ``"kind_means"``, the document's failures' mean deviation from their kinds' means over the
whole run; ``"by_shape"`` (the default), the first for a document that failed some kind more than once (a few
documents failing often) and half of each for a document whose failures are each of a different kind (many
documents failing one to four ways). Figures in ``tests/bench/cluster_purity.py``.
Documents are known by ``PointMeta.document`` (the clustering job passes a digest of each span's source text);
failures without one, or of a document that failed one way only, keep their vectors, so a workload where each
document fails once (the demo) clusters exactly as before.

Points HDBSCAN calls noise stay unassigned unless their best soft membership reaches
``noise_threshold`` (0.5 by default: the point's soft membership favours one cluster over all others
combined), in which case they join that cluster; set it above 1 to never reassign noise.
"""

from __future__ import annotations

import zlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .arrays import Floats, Indices, Labels, Memberships, Vectors
from .cluster import HdbscanClusterer
from .name import ClusterName, KeywordNamer, NameRequest, glossary_key, with_figures
from .reduce import UmapReducer
from .represent import Representer
from .sentence_model.embedder import Embedder
from .stages import (
    ClustererStage,
    EmbedderStage,
    NamerStage,
    ReducerStage,
    RepresenterStage,
    SplittingTrackerStage,
    TrackerStage,
)
from .track import Assignment, IssueTracker, KnownIssue, TrackOutcome
from .vocabulary import DocumentPart


@dataclass(frozen=True)
class PointMeta:
    """What is known about one failing score besides its text, used for naming."""

    rubric: str = ""
    failure_mode: str = ""
    document: str = ""  # the same value for failures of the same source document ("" when not known)


@dataclass
class Cluster:
    """One cluster: member indices, their membership, centroid (unit, input space) and how it reads."""

    label: int
    members: list[int]
    probabilities: Memberships  # membership of each member, aligned with ``members``
    centroid: Vectors
    representatives: list[int]
    boundary: list[int]
    keywords: list[str]
    contrast: list[int] = field(default_factory=list)  # nearest points outside the cluster
    name: ClusterName | None = None
    issue: Assignment | None = None


@dataclass
class ClusterResult:
    """All clusters, a final label per point (-1 noise), soft memberships (points x clusters), noise indices."""

    clusters: list[Cluster]
    labels: Labels
    probabilities: Memberships
    noise: list[int] = field(default_factory=list)
    tracking: TrackOutcome | None = None
    reduced: Vectors | None = None  # the reducer's output, one row per point (what a 2D map is laid out from)


class FailureClusterer:
    """The clustering pipeline with every stage swappable; ``None`` picks the default for that stage.

    The defaults are wired here and nowhere else:
    :class:`~sumwatch.clustering.sentence_model.embedder.Embedder` (built on first use, so passing ``vectors``
    never loads a model), :class:`UmapReducer`, :class:`HdbscanClusterer`, :class:`Representer`,
    :class:`KeywordNamer` and :class:`IssueTracker`."""

    def __init__(self, embedder: EmbedderStage | None = None, reducer: ReducerStage | None = None,
                 clusterer: ClustererStage | None = None, representer: RepresenterStage | None = None,
                 namer: NamerStage | None = None, tracker: TrackerStage | None = None,
                 noise_threshold: float = 0.5, n_contrast: int = 5, kind_weight: float = 0.0,
                 topic_weight: float = 1.0, document_part: DocumentPart | str = DocumentPart.BY_SHAPE) -> None:
        self._embedder: EmbedderStage | None = embedder
        self.reducer: ReducerStage = reducer if reducer is not None else UmapReducer()
        self.clusterer: ClustererStage = clusterer if clusterer is not None else HdbscanClusterer()
        self.representer: RepresenterStage = representer if representer is not None else Representer()
        self.namer: NamerStage = namer if namer is not None else KeywordNamer()
        self.tracker: TrackerStage = tracker if tracker is not None else IssueTracker()
        self.noise_threshold = noise_threshold
        self.n_contrast = n_contrast
        self.kind_weight = kind_weight
        self.topic_weight = topic_weight
        self.document_part = DocumentPart(document_part)

    @property
    def embedder(self) -> EmbedderStage:
        if self._embedder is None:  # built on demand: the vectors path never loads a model

            self._embedder = Embedder()
        return self._embedder

    def fit(self, texts: Sequence[str] | None = None, vectors: Floats | None = None,
            meta: Sequence[PointMeta | Mapping[str, str]] | None = None,
            known: Sequence[KnownIssue] = (), glossary: Mapping[str, str] | None = None) -> ClusterResult:
        """Cluster ``texts`` (embedded here) or precomputed ``vectors``; ``meta`` has one entry per point;
        ``known`` are the issues of earlier runs that clusters are matched to; ``glossary`` says what rubrics
        and failure modes mean, keyed by :func:`~.name.glossary_key` (``{"tone": "Is the tone neutral?",
        "tone/sarcasm": "mocks the source"}``), and reaches the namer for the clusters they occur in."""
        if vectors is None:
            if texts is None:
                raise ValueError("pass texts or vectors")
            vectors = self.embedder.encode(list(texts))
        vectors = np.asarray(vectors, dtype=np.float32)
        n = len(vectors)
        if texts is not None and len(texts) != n:
            raise ValueError(f"{len(texts)} texts but {n} vectors")
        if meta is not None and len(meta) != n:
            raise ValueError(f"{len(meta)} meta entries but {n} points")
        points = [_as_meta(m) for m in meta] if meta is not None else [PointMeta()] * n

        spread = _without_document(vectors, points, self.topic_weight, self.document_part)
        low = self.reducer.fit_transform(_with_kinds(spread, points, self.kind_weight))
        fitted = self.clusterer.fit(low)
        labels = np.asarray(fitted.labels, dtype=np.intp).copy()
        probs = np.asarray(fitted.probabilities, dtype=np.float64).reshape(n, -1)
        if probs.shape[1]:
            for point in np.flatnonzero(labels < 0):
                best = int(np.argmax(probs[point]))
                if probs[point, best] >= self.noise_threshold:
                    labels[point] = best

        docs = list(texts) if texts is not None else [f"{p.rubric} {p.failure_mode}" for p in points]
        groups = {int(k): np.flatnonzero(labels == k) for k in set(labels.tolist()) if k >= 0}
        column = {k: k for k in groups}  # cluster label -> its column of soft memberships
        if isinstance(self.tracker, SplittingTrackerStage) and known:
            unit_vectors = _unit(vectors)
            for k in list(groups):
                parts = self.tracker.split(known, unit_vectors[groups[k]])
                for part in parts[1:]:  # the first part keeps the label, the others get new ones
                    new = max(groups) + 1
                    groups[new], column[new] = groups[k][part], column[k]
                    labels[groups[new]] = new
                if len(parts) > 1:
                    groups[k] = groups[k][parts[0]]
        # largest first, so new issues are numbered by size and listings need no re-sorting
        found = sorted(groups, key=lambda k: (-len(groups[k]), k))
        centroids = (np.stack([_centroid(vectors[groups[k]]) for k in found]) if found
                     else np.zeros((0, vectors.shape[1]), dtype=np.float32))
        tracking = self.tracker.track(list(known), centroids)
        # clusters given the same known issue (a run that split it finer) become one cluster again
        owner: dict[int, int] = {}
        for k, a in zip(found, tracking.assignments):
            if a.number in owner:
                first = owner[a.number]
                groups[first] = np.concatenate([groups[first], groups.pop(k)])
                labels[groups[first]] = first
            else:
                owner[a.number] = k
        assignment_of = {owner[a.number]: a for a in tracking.assignments}
        found = [k for k in found if k in groups]
        keywords = self.namer.keywords([[docs[i] for i in groups[k]] for k in found]) if found else []

        clusters: list[Cluster] = []
        requests: list[NameRequest] = []
        unit = _unit(vectors)
        for k, words in zip(found, keywords):
            members = np.sort(groups[k])
            membership = probs[members, column[k]] if column[k] < probs.shape[1] else np.ones(len(members))
            reps, boundary = self.representer.select(vectors, members, membership)
            reps = _lead_with_kind(reps, members, membership, points, self.representer, vectors)
            centroid = _centroid(vectors[members])
            contrast = _nearest_outside(unit, centroid, members, self.n_contrast)
            chosen = set(reps)
            ordered = reps + [int(i) for i in members if int(i) not in chosen]
            requests.append(NameRequest([docs[i] for i in ordered],
                                        dict(Counter(points[i].rubric for i in members)),
                                        dict(Counter(points[i].failure_mode for i in members)),
                                        list(words), [docs[i] for i in contrast],
                                        _meanings([points[i] for i in members], glossary or {})))
            clusters.append(Cluster(label=k, members=members.tolist(), probabilities=membership,
                                    centroid=centroid, representatives=reps, boundary=boundary,
                                    keywords=list(words), contrast=contrast, issue=assignment_of[k]))
        names_of = {k.number: k.name for k in known if k.name is not None}
        # an issue keeps its name across runs; only clusters without one are named (model calls cost money)
        issues = [_assigned(c) for c in clusters]
        todo = [i for i, a in enumerate(issues) if not (a.previous_status and a.number in names_of)]
        names = self.namer.name_all([requests[i] for i in todo]) if todo else []
        if len(names) != len(todo):
            raise ValueError(f"namer {self.namer!r} returned {len(names)} names for {len(todo)} clusters")
        fresh = dict(zip(todo, names))
        for i, (cluster, issue, request) in enumerate(zip(clusters, issues, requests)):
            named = fresh[i] if i in fresh else names_of[issue.number]
            cluster.name = with_figures(named, len(cluster.members), request.rubric_counts,
                                        request.failure_mode_counts)
        return ClusterResult(clusters=clusters, labels=labels, probabilities=probs,
                             noise=np.flatnonzero(labels < 0).tolist(), tracking=tracking,
                             reduced=np.asarray(low, dtype=np.float32))

    def __repr__(self) -> str:
        return (f"FailureClusterer(embedder={self._embedder!r}, reducer={self.reducer!r}, "
                f"clusterer={self.clusterer!r}, representer={self.representer!r}, namer={self.namer!r}, "
                f"tracker={self.tracker!r})")


def dominant_kind(points: Sequence[PointMeta]) -> PointMeta:
    """The most common (rubric, failure mode) of ``points``, ties to the alphabetically first: the kind an
    issue is named and listed by, and the kind its lead example must show."""
    counts = Counter((p.rubric, p.failure_mode) for p in points)
    if not counts:
        return PointMeta()
    rubric, mode = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0]
    return PointMeta(rubric, mode)


def _without_document(vectors: Vectors, points: Sequence[PointMeta], weight: float,
                      part: DocumentPart = DocumentPart.BY_SHAPE) -> Vectors:
    """The vectors the reducer sees: each failure's unit vector less ``weight`` times its document's part, for
    failures of documents that failed in two kinds or more; the others keep their vectors.

    A document's failures quote it, so they share its part (names, figures, sentences); taking it away leaves
    what each failure is, and a kind's failures from different documents come together. ``KIND_MEANS`` reads
    each vector as its kind's mean plus its document's part plus its own rest, and estimates the two by turns
    (:func:`_document_offsets`); ``OTHER_KINDS`` takes the mean of the document's failures of other kinds, which
    is the document's part plus a blend of those kinds (:func:`_other_kind_means`). ``BY_SHAPE`` takes
    ``OTHER_KINDS`` where a document failed some kind more than once: every such document then tends to fail the
    same kinds, the blend is alike for all of them, and the kinds' means of a few documents would carry those
    documents' common part (a kind moves next to another's failures from other documents). Where each failure
    of a document is of a different kind, the blend differs with the kinds it fails beside and splits a kind,
    while ``KIND_MEANS`` leaves some of the document in failures that share it; half of each removes the
    document's part and pushes a failure half away from the kinds it fails beside (the half: chosen on the
    tuning workloads of the purity bench). All are means: they move smoothly with the vectors, so the issues do
    not jump when a vector moves slightly (the int8 embedder's vectors move with their batch). Centroids,
    tracking and representatives stay in text space, so issue matching across runs is unchanged."""
    if weight <= 0:
        return vectors
    kinds = [(p.rubric, p.failure_mode) for p in points]
    by_document: dict[str, list[int]] = {}
    for i, p in enumerate(points):
        if p.document:
            by_document.setdefault(p.document, []).append(i)
    several = [np.asarray(m) for m in by_document.values() if len({kinds[i] for i in m}) > 1]
    if not several:
        return vectors
    unit = _unit(vectors)
    wide = unit.astype(np.float64)
    if part == DocumentPart.KIND_MEANS:
        offsets = _document_offsets(wide, kinds, several)
    else:
        offsets = _other_kind_means(wide, kinds, several)
        once = [rows for rows in several if len({kinds[i] for i in rows}) == len(rows)]
        if part == DocumentPart.BY_SHAPE and once:
            estimated = _document_offsets(wide, kinds, several)
            for rows in once:
                offsets[rows] = 0.5 * (offsets[rows] + estimated[rows])
    out = unit - np.float32(weight) * offsets.astype(np.float32)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    # a failure that reads exactly like its document's part keeps its own vector rather than none
    return np.asarray(np.where(norms > 1e-6, out / np.maximum(norms, 1e-6), unit), dtype=np.float32)


def _other_kind_means(unit: np.ndarray, kinds: Sequence[tuple[str, str]], documents: Sequence[Indices]
                      ) -> np.ndarray:
    """Each failure's document part as the mean of its document's failures of other kinds (zero for failures
    outside ``documents``)."""
    offsets = np.zeros_like(unit)
    for rows in documents:
        of = [kinds[i] for i in rows]
        total = unit[rows].sum(axis=0)
        for same in (rows[[k == kind for k in of]] for kind in sorted(set(of))):
            offsets[same] = (total - unit[same].sum(axis=0)) / (len(rows) - len(same))
    return offsets


def _document_offsets(unit: np.ndarray, kinds: Sequence[tuple[str, str]], documents: Sequence[Indices],
                      rounds: int = 3) -> np.ndarray:
    """Each failure's document part, from ``unit ~ kind mean + document part``: by turns, the kinds' means of
    the vectors less their documents' parts, then each document's part as the mean deviation of its failures
    from their kinds' means (zero for failures outside ``documents``). A kind's mean is taken over every
    document it failed in, so a document that failed two ways loses only what its two failures share beyond
    their kinds. ``rounds``: 3, chosen on the tuning workloads of the purity bench."""
    names = sorted(set(kinds))
    of = np.asarray([names.index(k) for k in kinds], dtype=np.intp)
    counts = np.bincount(of, minlength=len(names)).astype(np.float64)[:, None]
    offsets = np.zeros_like(unit)
    for _ in range(rounds):
        means = np.zeros((len(names), unit.shape[1]))
        np.add.at(means, of, unit - offsets)
        deviation = unit - (means / counts)[of]
        offsets = np.zeros_like(unit)
        for rows in documents:
            offsets[rows] = deviation[rows].mean(axis=0)
    return offsets


def _with_kinds(vectors: Vectors, points: Sequence[PointMeta], weight: float) -> Vectors:
    """The vectors the reducer sees: each text vector joined by a fixed unit vector of its point's (rubric,
    failure mode), scaled by ``weight``. Two failures of one kind then share that part, and failures of
    different kinds that quote the same document (same names, numbers and sentences in their evidence) are
    pulled apart, so clusters follow the failure, not the document. Centroids, tracking and representatives
    stay in text space; with one kind (or none given) the vectors go through unchanged. Off by default
    (``weight`` 0): on the workloads of ``tests/bench/cluster_purity.py`` it has not yet changed purity."""
    kinds = sorted({(p.rubric, p.failure_mode) for p in points})
    if weight <= 0 or len(kinds) < 2:
        return vectors
    dim = vectors.shape[1]
    basis = {k: _kind_vector(k, dim) for k in kinds}
    extra = np.stack([basis[(p.rubric, p.failure_mode)] for p in points]) * np.float32(weight)
    joined = np.hstack([_unit(vectors), extra])
    return np.asarray(joined / np.sqrt(1.0 + weight * weight), dtype=np.float32)


def _kind_vector(kind: tuple[str, str], dim: int) -> Vectors:
    # seeded by the kind's name, so a kind lands in the same place in every run and every process
    rng = np.random.default_rng(zlib.crc32("/".join(kind).encode()))
    v = rng.standard_normal(dim)
    return np.asarray(v / np.linalg.norm(v), dtype=np.float32)


def _lead_with_kind(reps: list[int], members: Indices, membership: Memberships, points: Sequence[PointMeta],
                    representer: object, vectors: Vectors) -> list[int]:
    """Representatives of the cluster's own kind first, then by membership: the first example a person sees
    shows what the issue is named after. When none shows it, the most certain member that does leads."""
    if not reps:
        return reps
    kind = dominant_kind([points[i] for i in members])
    of = dict(zip((int(i) for i in members), (float(p) for p in membership)))

    def shows(i: int) -> bool:
        return (points[i].rubric, points[i].failure_mode) == (kind.rubric, kind.failure_mode)
    if not any(shows(i) for i in reps):
        unit = _unit(vectors[list(reps)])
        limit = float(getattr(representer, "duplicate_similarity", 1.0))
        for i in sorted((int(m) for m in members if shows(int(m))), key=lambda m: (-of[m], m)):
            if float((unit @ _unit(vectors[[i]])[0]).max()) <= limit:
                full = len(reps) >= int(getattr(representer, "n_representatives", len(reps)))
                reps = [i, *reps[:-1]] if full else [i, *reps]
                break
    return sorted(reps, key=lambda i: (not shows(i), -of[i], i))


def _meanings(points: Sequence[PointMeta], glossary: Mapping[str, str]) -> dict[str, str]:
    """What the cluster's rubrics and failure modes mean, by the names the namer sees; most common first."""
    out: dict[str, str] = {}
    if not glossary:
        return out
    for (rubric, mode), _ in Counter((p.rubric, p.failure_mode) for p in points).most_common():
        for name, key in ((rubric, glossary_key(rubric)), (mode, glossary_key(rubric, mode))):
            if name and key in glossary:
                out.setdefault(name, glossary[key])
    return out


def _as_meta(m: PointMeta | Mapping[str, str]) -> PointMeta:
    if isinstance(m, Mapping):
        return PointMeta(str(m.get("rubric", "") or ""), str(m.get("failure_mode", "") or ""),
                         str(m.get("document", "") or ""))
    return PointMeta(getattr(m, "rubric", "") or "", getattr(m, "failure_mode", "") or "",
                     getattr(m, "document", "") or "")


def _assigned(cluster: Cluster) -> Assignment:
    if cluster.issue is None:  # the pipeline tracks every cluster before naming it
        raise RuntimeError(f"cluster {cluster.label} was never matched to an issue")
    return cluster.issue


def _centroid(X: Vectors) -> Vectors:
    c = X.astype(np.float64).mean(axis=0)
    norm = float(np.linalg.norm(c))
    return np.asarray(c / norm if norm else c, dtype=np.float32)


def _unit(X: Vectors) -> Vectors:
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return np.asarray(X / np.where(norms == 0, 1.0, norms), dtype=np.float32)  # float32 already: no copy


def _nearest_outside(unit: Vectors, centroid: Vectors, members: Indices, n: int) -> list[int]:
    """The ``n`` points outside the cluster closest to its centroid: what the cluster must be told from."""
    if n <= 0:
        return []
    sim = unit @ centroid.astype(np.float32)
    sim[members] = -np.inf
    take = min(n, len(sim) - len(members))
    if take <= 0:
        return []
    best = np.argpartition(-sim, take - 1)[:take]
    return [int(i) for i in best[np.argsort(-sim[best], kind="stable")]]
