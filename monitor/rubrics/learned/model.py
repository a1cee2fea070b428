"""The learned faithfulness tier: the probability that the source carries a summary, sentence by sentence.

    model = FaithfulnessModel(embedder=embedder)   # model.json read once; the embedding tier's embedder
    result = model.score(source, summary)
    result.supported                               # P(consistent) of the whole summary
    for s in result.sentences:
        s.sentence, s.supported, s.evidence        # evidence: the source sentence that carries most of it
    result.supported < model.fail_below            # a precise "inconsistent" (cut chosen on held-out sets)

The model is a logistic regression with non-negative weights over the alignment signals of
:mod:`.features`: word, bigram and trigram support, the best-covering source sentence, the best cosine of
the packaged all-MiniLM-L6-v2 (the embedding tier's vectors, so in the cascade it encodes nothing new), and
numbers, names and negations the source does not hold. train.py fits it; model.json holds the weights, the
cuts and the held-out figures that chose them.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..embeddings import split_for_embedding
from .features import FEATURES, Document, SentenceRow, sentence_rows, summary_vector

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "model.json"


class ModelFileError(ValueError):
    """model.json is missing, unreadable or does not match the features this code computes."""


@dataclass(frozen=True)
class Weights:
    """A fitted model: ``P = sigmoid(bias + weights . (x - mean) / scale)`` over :data:`FEATURES`."""

    version: str
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    fail_below: float  # below: inconsistent; its precision was measured on rows held out from the fit
    doubt_below: float  # below: a pass is not confident, ambiguous mode asks the LLM

    def probability(self, x: np.ndarray) -> float:
        z = self.bias + float(np.dot(self.weights, (x - np.asarray(self.mean)) / np.asarray(self.scale)))
        return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "features": list(FEATURES), "mean": list(self.mean),
                "scale": list(self.scale), "weights": list(self.weights), "bias": self.bias,
                "thresholds": {"fail_below": self.fail_below, "doubt_below": self.doubt_below}}


def read_weights(config: Path = CONFIG) -> Weights:
    """The fitted model in ``config``; a one-line ModelFileError names what is wrong."""
    try:
        raw = json.loads(config.read_text(encoding="utf-8"))
        if list(raw["features"]) != list(FEATURES):
            raise ModelFileError(f"{config}: fitted on features {raw['features']}, this code computes "
                                 f"{list(FEATURES)}: train it again")
        n = len(FEATURES)
        mean, scale, weights = (tuple(float(v) for v in raw[k]) for k in ("mean", "scale", "weights"))
        if not len(mean) == len(scale) == len(weights) == n or min(scale) <= 0:
            raise ModelFileError(f"{config}: mean, scale and weights need {n} values each, scale above 0")
        cuts = raw["thresholds"]
        return Weights(str(raw["version"]), mean, scale, weights, float(raw["bias"]),
                       float(cuts["fail_below"]), float(cuts["doubt_below"]))
    except ModelFileError:
        raise
    except OSError as exc:
        raise ModelFileError(f"cannot read the faithfulness model {config}: {exc.strerror or exc}") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelFileError(f"{config}: not a faithfulness model file ({type(exc).__name__}: {exc})") from exc


@dataclass(frozen=True)
class SentenceResult:
    sentence: str
    supported: float  # probability the source carries the sentence, read as a one-sentence summary
    evidence: str  # the source sentence that carries most of it


@dataclass(frozen=True)
class FaithfulnessResult:
    supported: float  # probability the summary is consistent with its source
    sentences: tuple[SentenceResult, ...]

    @property
    def weakest(self) -> SentenceResult | None:
        return min(self.sentences, key=lambda s: s.supported, default=None)


class FaithfulnessModel:
    """The fitted model over a sentence embedder; ``embedder`` defaults to the packaged all-MiniLM-L6-v2, and
    the cascade passes the embedding tier's own, so the vectors come from its cache."""

    def __init__(self, config: Path = CONFIG, embedder: Any = None, *, document_cache: int = 256) -> None:
        self.weights = read_weights(config)
        self._embedder = embedder
        self._docs: OrderedDict[bytes, Document] = OrderedDict()
        self._doc_cache = document_cache
        self._lock = threading.Lock()

    @property
    def version(self) -> str:
        return self.weights.version

    @property
    def fail_below(self) -> float:
        return self.weights.fail_below

    @property
    def doubt_below(self) -> float:
        return self.weights.doubt_below

    @property
    def embedder(self) -> Any:
        if self._embedder is None:
            from sumwatch.clustering.sentence_model.embedder import Embedder  # noqa: PLC0415 - loads torch on first encode

            self._embedder = Embedder()
        return self._embedder

    def score(self, source: str, summary: str) -> FaithfulnessResult:
        """``score(article, "The CEO resigned.")`` -> the summary's probability and one row per sentence."""
        return self.score_many([(source, summary)])[0]

    def score_many(self, cases: Sequence[tuple[str, str]]) -> list[FaithfulnessResult]:
        """Many (source, summary) cases: every sentence not yet embedded is encoded in one call."""
        split = [(split_for_embedding(source), split_for_embedding(summary)) for source, summary in cases]
        texts = list(dict.fromkeys(t for doc, summ in split for t in (*doc, *summ)))
        vectors = self.embedder.encode(texts) if texts else np.zeros((0, 1), np.float32)
        row = {t: i for i, t in enumerate(texts)}

        def rows(items: Sequence[str]) -> np.ndarray:
            return vectors[[row[t] for t in items]] if items else np.zeros((0, vectors.shape[1]), np.float32)

        out: list[FaithfulnessResult] = []
        for (source, _), (doc_sentences, summary_sentences) in zip(cases, split):
            doc = self._document(source, doc_sentences, rows)
            out.append(self.result(sentence_rows(doc, summary_sentences, rows(summary_sentences))))
        return out

    def result(self, rows: Sequence[SentenceRow]) -> FaithfulnessResult:
        """The probabilities for a summary's sentence rows (see :func:`.features.sentence_rows`)."""
        w = self.weights
        sentences = tuple(SentenceResult(r.sentence, w.probability(summary_vector([r])), r.evidence) for r in rows)
        return FaithfulnessResult(w.probability(summary_vector(rows)), sentences)

    def _document(self, source: str, sentences: Sequence[str], rows: Any) -> Document:
        key = hashlib.blake2b(source.encode("utf-8", "surrogatepass"), digest_size=16).digest()
        with self._lock:
            doc = self._docs.get(key)
            if doc is not None:
                self._docs.move_to_end(key)
                return doc
        doc = Document.of(sentences, rows(sentences))
        with self._lock:
            self._docs[key] = doc
            while len(self._docs) > self._doc_cache:
                self._docs.popitem(last=False)
        return doc
