"""The learned faithfulness tier: per summary sentence, the probability that the source supports it.

    model = shared_model()                         # loaded once per process, offline, from the repo's files
    result = model.score(source, summary)
    result.supported                               # the summary's roll-up: its least supported sentence
    for s in result.sentences:
        s.sentence, s.supported, s.evidence        # evidence: the source passage the sentence was read against
    result.supported < model.thresholds.fail_below # a precise "inconsistent" (chosen on held-out domains)

Sentence results are cached by (premise, sentence) text, like the embeddings are.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .data import summary_sentences
from .premise import pick_premise, source_sentences

HERE = Path(__file__).resolve().parent
WEIGHTS = HERE / "weights.safetensors"
CONFIG = HERE / "model.json"


@dataclass(frozen=True)
class Thresholds:
    """Cut-offs on the summary's roll-up, chosen on SummEdits domains held out from training."""

    fail_below: float  # below: inconsistent, at the measured precision `fail_precision`
    fail_precision: float
    balanced: float  # the cut that maximised balanced accuracy (for routing, never a verdict alone)


@dataclass(frozen=True)
class SentenceResult:
    sentence: str
    supported: float  # probability the source supports the sentence
    evidence: str  # the source passage it was read against


@dataclass(frozen=True)
class FaithfulnessResult:
    sentences: tuple[SentenceResult, ...]

    @property
    def supported(self) -> float:
        """The summary's roll-up: a summary is as faithful as its least supported sentence."""
        return min((s.supported for s in self.sentences), default=1.0)

    @property
    def weakest(self) -> SentenceResult | None:
        return min(self.sentences, key=lambda s: s.supported, default=None)


class FaithfulnessModel:
    """The trained cross-encoder over the packaged base, with a text-keyed cache of sentence results."""

    def __init__(self, weights: Path = WEIGHTS, config: Path = CONFIG, *, batch_size: int = 32,
                 cache_size: int = 100_000) -> None:
        self._weights = weights
        self._config = config
        self._batch_size = batch_size
        self._cache_size = cache_size
        self._cache: OrderedDict[bytes, float] = OrderedDict()
        self._net: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()
        self.thresholds = read_thresholds(config)

    def score(self, source: str, summary: str) -> FaithfulnessResult:
        """``score(article, "The CEO resigned.")`` -> one SentenceResult per summary sentence."""
        return self.score_many([(source, summary)])[0]

    def score_many(self, cases: list[tuple[str, str]]) -> list[FaithfulnessResult]:
        """Many (source, summary) cases at once: their sentences share batches."""
        plans: list[list[tuple[str, str]]] = []
        for source, summary in cases:
            doc = source_sentences(source)
            plans.append([(pick_premise(doc, s).text, s) for s in summary_sentences(summary)])
        probs = iter(self.probabilities([pair for plan in plans for pair in plan]))
        return [FaithfulnessResult(tuple(SentenceResult(h, next(probs), p) for p, h in plan)) for plan in plans]

    def probabilities(self, pairs: list[tuple[str, str]]) -> list[float]:
        """P(supported) of each (premise, hypothesis); cached pairs are not run again."""
        keys = [_digest(p, h) for p, h in pairs]
        with self._lock:
            todo = {k: pair for k, pair in zip(keys, pairs) if k not in self._cache}
        fresh = dict(zip(todo, self._run(list(todo.values())))) if todo else {}
        with self._lock:
            out = [fresh[k] if k in fresh else self._cache[k] for k in keys]
            for k, value in fresh.items():
                self._cache[k] = value
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return out

    def _run(self, pairs: list[tuple[str, str]]) -> list[float]:
        import torch  # noqa: PLC0415 - heavy: loaded on first use

        from .network import encode  # noqa: PLC0415 - heavy: imports torch

        net, tokenizer = self._load()
        # similar lengths share a batch: less padding
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out = [0.0] * len(pairs)
        with torch.inference_mode():
            for start in range(0, len(order), self._batch_size):
                chunk = order[start:start + self._batch_size]
                batch = encode(tokenizer, [pairs[i][0] for i in chunk], [pairs[i][1] for i in chunk])
                probs = torch.softmax(net(**batch), dim=-1)[:, 1].tolist()
                for i, p in zip(chunk, probs):
                    out[i] = float(p)
        return out

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._net is None:
                from .network import build  # noqa: PLC0415 - heavy: imports torch and transformers

                net, self._tokenizer = build(self._weights)
                self._net = net.eval()
        return self._net, self._tokenizer


def read_thresholds(config: Path) -> Thresholds:
    try:
        raw = json.loads(config.read_text(encoding="utf-8"))["thresholds"]
        return Thresholds(float(raw["fail_below"]), float(raw["fail_precision"]), float(raw["balanced"]))
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"cannot read the faithfulness model's thresholds from {config}: {exc}") from exc


_shared: FaithfulnessModel | None = None
_shared_lock = threading.Lock()


def shared_model() -> FaithfulnessModel:
    """The process's one model (the weights load on its first score)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = FaithfulnessModel()
        return _shared


def _digest(premise: str, hypothesis: str) -> bytes:
    text = premise + "\0" + hypothesis
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()
