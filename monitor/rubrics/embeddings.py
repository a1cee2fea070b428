"""The embeddings tier: sentence support (groundedness), coverage (completeness) and topic drift.

    judge = EmbeddingJudge()                  # or EmbeddingJudge(Embedder("path/to/model"))
    result = judge.judge("groundedness", SummaryCase(source=doc, summary=summ))
    result.verdict, result.score, result.confident, result.evidence
    judge.judge_batch(cases)                  # one encode call for every sentence of every case

Groundedness: each summary sentence's support is half its best cosine to a source passage (a sentence
or two adjacent sentences), rescaled to 0..1, and half the share of its content terms that the source
uses. The cosine carries paraphrase; the terms catch the swapped name or invented detail that leaves a
sentence's embedding almost where it was. The verdict reads the mean support and the weakest sentence
(the evidence). The score, which ranks, adds a third part per sentence: the share of its adjacent word
pairs found in the source (see :func:`consistency`). Completeness: each expected fact (or, without them,
each key source sentence) is covered by its best summary sentence, scored the same way. Factuality is not
judged here: embeddings put "rose 12%" and "rose 21%" side by side, so this tier returns None and leaves it
to the rules and the LLM.
Conciseness belongs to the rules.

Verdicts in the middle band carry ``confident=False``, so the cascade can ask the LLM when one is set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from sumwatch.clustering.sentence_model.embedder import Embedder

from . import text as tx
from .verdicts import COMPLETENESS, CONCISENESS, EMBEDDINGS, FACTUALITY, GROUNDEDNESS, RubricResult, SummaryCase

VERSION = "emb-3"

# Cosine of all-MiniLM-L6-v2 mapped to 0..1: below SIM_FLOOR two texts share little more than a topic;
# at SIM_CEIL one restates the other. tests/bench/judge_quality.py refits both constants on SummEval's
# even-numbered articles on every run; the range is the fit's choice.
SIM_FLOOR, SIM_CEIL = 0.40, 0.85
# Weight of content-term support in a sentence's support; the rest is the cosine. The SummEval fit leans
# to 0.75, a gain of .004 Kendall on the fitted half and .002 on the other, less than the two halves differ
# by; 0.5 is kept because every step toward the terms penalizes reworded sentences more, and LLM
# summaries reword far more than SummEval's 2019 systems, which mostly copy.
TERM_SHARE = 0.5

# groundedness: verdict bands on the mean support (score) and the weakest sentence
SUPPORTED_SCORE, SUPPORTED_MIN = 0.70, 0.50
MISSING_SCORE, MISSING_MIN = 0.45, 0.25
CONFIDENT_SUPPORTED, CONFIDENT_MISSING = 0.80, 0.30  # outside these the middle band is ambiguous
CONFIDENT_WEAKEST = 0.70  # a confident "supported" needs every sentence this well supported
UNSUPPORTED_SENTENCE = 0.15  # a sentence this far from the source settles "missing" on its own
DRIFT_COSINE = 0.25  # summary centroid vs source centroid: below this the summary is about something else

# completeness: a short fact (or a key sentence) set against a longer summary sentence that carries it
# scores a lower cosine than a sentence against its own paraphrase, hence a lower rescaling range
FACT_FLOOR, FACT_CEIL = 0.30, 0.70
FACT_PRESENT, FACT_APPROXIMATE = 0.65, 0.40
KEY_SENTENCES = 3
KEY_DUPLICATE = 0.80  # a candidate this close to a chosen key sentence says the same thing

MAX_WORDS = 40  # longer sentences (run-on captions, pasted lists) are embedded in pieces


@dataclass(frozen=True)
class _Plan:
    """The texts one case needs embedded."""

    summary: tuple[str, ...]
    source: tuple[str, ...]
    windows: tuple[str, ...]  # adjacent source pairs: a summary sentence often fuses two
    facts: tuple[str, ...]


class EmbeddingJudge:
    """Judges groundedness and completeness from sentence embeddings; see the module docstring."""

    tier = EMBEDDINGS

    def __init__(self, embedder: Embedder | None = None) -> None:
        if embedder is None:

            embedder = Embedder()
        self.embedder = embedder

    @property
    def version(self) -> str:
        """``emb-3:all-MiniLM-L6-v2`` on torch, ``emb-3:all-MiniLM-L6-v2+onnx-int8`` on ONNX: int8 vectors move
        scores a little, so scores of the two are kept apart. Other embedders (tests' own) name themselves."""
        return f"{VERSION}:{getattr(self.embedder, 'version', self.embedder.name)}"

    def judge(self, rubric: str, case: SummaryCase) -> RubricResult | None:
        """One rubric; None for factuality and conciseness, which this tier does not judge."""
        if rubric not in (GROUNDEDNESS, COMPLETENESS):
            if rubric in (FACTUALITY, CONCISENESS):
                return None
            raise ValueError(f"unknown rubric {rubric!r}")
        return self.judge_all(case).get(rubric)

    def judge_all(self, case: SummaryCase) -> dict[str, RubricResult]:
        """Groundedness and completeness of one case, its sentences embedded once for both."""
        return self.judge_batch([case])[0]

    def judge_batch(self, cases: list[SummaryCase]) -> list[dict[str, RubricResult]]:
        """Every sentence of every case embedded in one call, then each case judged."""
        plans = [_plan(case) for case in cases]
        # windows (two adjacent source sentences) are not encoded: their vector is the normalized sum of
        # the two sentence vectors, which tracks the pair's own embedding closely and saves ~70% of the
        # encoding time (the pairs are the longest texts, and attention cost grows with length)
        texts = list(dict.fromkeys(t for p in plans for t in (*p.summary, *p.source, *p.facts)))
        vectors = self.embedder.encode(texts) if texts else None
        row = {t: i for i, t in enumerate(texts)}

        def rows(items: tuple[str, ...]) -> np.ndarray:
            if not items or vectors is None:
                return np.zeros((0, 1), dtype=np.float32)
            return vectors[[row[t] for t in items]]

        out: list[dict[str, RubricResult]] = []
        for case, plan in zip(cases, plans):
            if not plan.source:
                out.append({})  # nothing to compare against: leave both rubrics to the other tiers
                continue
            source = rows(plan.source)
            vec = _Vectors(rows(plan.summary), source, _pair_vectors(source), rows(plan.facts))
            out.append({GROUNDEDNESS: self._groundedness(case, plan, vec),
                        COMPLETENESS: self._completeness(case, plan, vec)})
        return out

    def _result(self, rubric: str, verdict: str, **kw: Any) -> RubricResult:
        return RubricResult.make(rubric, verdict, tier=EMBEDDINGS, judge_version=self.version,
                                 model=self.embedder.name, **kw)

    # ------------------------------------------------------------ groundedness

    def _groundedness(self, case: SummaryCase, plan: _Plan, vec: _Vectors) -> RubricResult:
        if not plan.summary:
            return self._result(GROUNDEDNESS, "missing", score=0.0, failure_mode="unsupported_claim",
                                explanation="The summary is empty: nothing in it is supported.")
        passages = plan.source + plan.windows
        sims = vec.summary @ (np.vstack([vec.source, vec.windows]) if plan.windows else vec.source).T
        source_terms = tx.terms(case.source)
        source_pairs = frozenset(tx.word_pairs(case.source))
        rows: list[dict[str, Any]] = []
        for i, sentence in enumerate(plan.summary):
            j = int(sims[i].argmax())
            own = tx.terms(sentence)
            unseen = sorted(own - source_terms)
            term_support = 1.0 - len(unseen) / len(own) if own else 1.0
            pairs = tx.word_pairs(sentence)
            pair_support = sum(p in source_pairs for p in pairs) / len(pairs) if pairs else term_support
            cosine = float(sims[i, j])
            rows.append({"sentence": sentence, "support": round(sentence_support(cosine, term_support), 4),
                         "consistency": round(consistency(cosine, term_support, pair_support), 4),
                         "similarity": round(cosine, 4), "term_support": round(term_support, 4),
                         "pair_support": round(pair_support, 4),
                         "unseen_terms": tuple(unseen[:8]), "new_number": _has_number(unseen),
                         "source": passages[j]})
        score = sum(r["support"] for r in rows) / len(rows)
        ranked = sum(r["consistency"] for r in rows) / len(rows)
        low = min(r["support"] for r in rows)
        drift = _cosine(vec.summary.mean(axis=0), vec.source.mean(axis=0))
        # a number the source never states is beyond what a cosine can vouch for: never "supported" here
        new_number = any(r["new_number"] for r in rows)
        if drift < DRIFT_COSINE:
            verdict, ranked, mode, confident = "missing", min(ranked, 0.25), "topic_drift", True
        elif score >= SUPPORTED_SCORE and low >= SUPPORTED_MIN and not new_number:
            verdict, mode = "supported", ""
            confident = score >= CONFIDENT_SUPPORTED and low >= CONFIDENT_WEAKEST
        else:
            verdict = "missing" if score < MISSING_SCORE or low < MISSING_MIN else "partial"
            mode = "unsupported_number" if new_number and low >= MISSING_MIN else "unsupported_claim"
            confident = verdict == "missing" and (score < CONFIDENT_MISSING or low < UNSUPPORTED_SENTENCE)
        shown = (next(r for r in rows if r["new_number"]) if mode == "unsupported_number"
                 else min(rows, key=lambda r: r["support"]))
        what = "weakest" if shown["support"] == low else "a sentence with a new number"
        why = (f"{what} of {len(rows)} sentences: support {shown['support']:.2f} (cosine {shown['similarity']:.2f}, "
               f"{shown['term_support']:.0%} of its content terms in the source"
               + (f"; not in the source: {', '.join(shown['unseen_terms'][:5])}" if shown["unseen_terms"] else "")
               + ")")
        if mode == "topic_drift":
            why = (f"the summary is about something else: its centroid has cosine {drift:.2f} to the source's "
                   f"(below {DRIFT_COSINE}); {why}")
        return self._result(GROUNDEDNESS, verdict, score=ranked, failure_mode=mode, evidence=_evidence(shown),
                            confident=confident, details=tuple(rows),
                            explanation=f"Mean sentence support {score:.2f} (consistency score {ranked:.2f}); {why}.")

    # ------------------------------------------------------------ completeness

    def _completeness(self, case: SummaryCase, plan: _Plan, vec: _Vectors) -> RubricResult:
        if plan.facts:
            facts, fact_vecs, mode, kind = plan.facts, vec.facts, "missing_expected_fact", "expected fact"
        else:
            keys = _key_sentences(vec.source, KEY_SENTENCES, plan.source)
            facts = tuple(plan.source[k] for k in keys)
            fact_vecs, mode, kind = vec.source[keys], "missing_key_fact", "key source sentence"
        if not plan.summary:
            return self._result(COMPLETENESS, "absent", score=0.0, failure_mode=mode,
                                evidence=f"fact: {_quote(facts[0])}", explanation="The summary is empty.")
        sims = fact_vecs @ vec.summary.T
        summary_terms = tx.terms(case.summary)
        rows: list[dict[str, Any]] = []
        for i, fact in enumerate(facts):
            j = int(sims[i].argmax())
            own = tx.terms(fact)
            term_support = len(own & summary_terms) / len(own) if own else 1.0
            coverage = sentence_support(float(sims[i, j]), term_support, FACT_FLOOR, FACT_CEIL)
            status = ("present" if coverage >= FACT_PRESENT else
                      "approximate" if coverage >= FACT_APPROXIMATE else "absent")
            rows.append({"fact": fact, "status": status, "coverage": round(coverage, 4),
                         "similarity": round(float(sims[i, j]), 4), "term_support": round(term_support, 4),
                         "summary": plan.summary[j]})
        score = sum(r["coverage"] for r in rows) / len(rows)
        statuses = [r["status"] for r in rows]
        worst = min(rows, key=lambda r: r["coverage"])
        if plan.facts:
            # expected facts were asked for by name: the summary is as complete as its worst one
            verdict = "absent" if "absent" in statuses else "approximate" if "approximate" in statuses else "present"
            confident = worst["coverage"] >= 0.8 or worst["coverage"] < 0.25
        else:
            # which sentences are "key" is itself a guess, so only a clear score settles the case
            verdict = ("present" if score >= FACT_PRESENT else "approximate" if score >= FACT_APPROXIMATE
                       else "absent")
            confident = score >= 0.85 or score < 0.2
        counts = ", ".join(f"{statuses.count(s)} {s}" for s in ("present", "approximate", "absent") if s in statuses)
        return self._result(
            COMPLETENESS, verdict, score=score, failure_mode="" if verdict != "absent" else mode,
            evidence=f"fact: {_quote(worst['fact'])} | summary: {_quote(worst['summary'])}",
            confident=confident, details=tuple(rows),
            explanation=f"{len(rows)} {kind}s: {counts}; least covered at {worst['coverage']:.2f} "
                        f"(cosine {worst['similarity']:.2f}, {worst['term_support']:.0%} of its terms in the summary).")


def sentence_support(cosine: float, term_support: float, floor: float = SIM_FLOOR, ceil: float = SIM_CEIL) -> float:
    """Support of one sentence by a passage, 0..1: the rescaled cosine and the share of content terms.

        sentence_support(0.85, 1.0)  # 1.0
        sentence_support(0.62, 0.5)  # 0.49
    """
    rescaled = min(1.0, max(0.0, (cosine - floor) / (ceil - floor)))
    return (1.0 - TERM_SHARE) * rescaled + TERM_SHARE * term_support


def consistency(cosine: float, term_support: float, pair_support: float) -> float:
    """How consistent one summary sentence is with its source, 0..1, for ranking: the mean of its rescaled
    best cosine, its share of content terms the source uses and its share of adjacent word pairs the source
    has. Equal parts, not fitted: the cosine carries paraphrase, the terms an invented detail, the pairs
    a source's words rewired into a claim it does not make. Measured on SummaC's four validation subsets
    (tests/bench/consistency_sets.py), the mean over sentences ranks consistent summaries above
    inconsistent ones better than each part alone and than plain unigram precision on every subset.

        consistency(0.85, 1.0, 1.0)  # 1.0
        consistency(0.62, 0.5, 0.25)  # 0.41
    """
    rescaled = min(1.0, max(0.0, (cosine - SIM_FLOOR) / (SIM_CEIL - SIM_FLOOR)))
    return (rescaled + term_support + pair_support) / 3.0


@dataclass(frozen=True)
class _Vectors:
    summary: np.ndarray
    source: np.ndarray
    windows: np.ndarray
    facts: np.ndarray


def _pair_vectors(sentences: np.ndarray) -> np.ndarray:
    """Vectors for each pair of adjacent sentences: the normalized sum of the two."""
    if len(sentences) < 2:
        return np.zeros((0, sentences.shape[1] if sentences.ndim == 2 else 1), dtype=np.float32)
    pairs = sentences[:-1] + sentences[1:]
    norms = np.maximum(np.linalg.norm(pairs, axis=1, keepdims=True), 1e-12)
    normalized: np.ndarray = (pairs / norms).astype(np.float32)
    return normalized


def _plan(case: SummaryCase) -> _Plan:
    source = split_for_embedding(case.source)
    windows = tuple(f"{a} {b}" for a, b in zip(source, source[1:]))
    facts = tuple(f.strip() for f in case.expected_facts if f and f.strip())
    return _Plan(split_for_embedding(case.summary), source, windows, facts)


def split_for_embedding(text: str) -> tuple[str, ...]:
    """A text's sentences as this tier embeds them: very long ones in pieces of at most MAX_WORDS words."""
    out: list[str] = []
    for sentence in tx.split_sentences(text or ""):
        words = sentence.split()
        if not any(ch.isalnum() for ch in sentence):
            continue
        if len(words) <= MAX_WORDS:
            out.append(sentence)
            continue
        pieces = -(-len(words) // MAX_WORDS)
        size = -(-len(words) // pieces)
        out += [" ".join(words[i:i + size]) for i in range(0, len(words), size)]
    return tuple(out)


def _key_sentences(source: np.ndarray, k: int, texts: tuple[str, ...] = ()) -> list[int]:
    """The k sentences nearest the document's centroid, skipping near-duplicates of ones already chosen
    and, when the texts are given, turns that carry no fact ("Okay.", "PhD D: Yeah ."), unless nothing
    else is left."""
    centrality = source @ source.mean(axis=0)
    order = [int(i) for i in centrality.argsort()[::-1]]
    if texts:
        informative = [i for i in order if _informative(texts[i])]
        order = informative or order
    chosen: list[int] = []
    for i in order:
        if all(float(source[i] @ source[j]) < KEY_DUPLICATE for j in chosen):
            chosen.append(int(i))
        if len(chosen) == k:
            break
    return chosen


# a speaker label opening a transcript turn ("PhD D:", "Grad C:", "Sales Rep:")
_SPEAKER_RE = re.compile(r"^\s*[A-Z][\w.' -]{0,24}:\s")
# words of talk that state nothing: a turn made of these and a name is not a fact to expect in a summary
_TALK_WORDS = frozenset({"okay", "ok", "yeah", "yes", "yep", "no", "um", "uh", "hmm", "mm", "mhm", "oh", "ah",
                         "right", "well", "so", "like", "sure", "alright", "thank", "thanks", "good", "great",
                         "know", "mean", "think", "just", "actually", "basic", "realli", "probab"})
MIN_FACT_TERMS = 3


def _informative(sentence: str) -> bool:
    """Whether a source sentence states something: at least MIN_FACT_TERMS content terms beyond a speaker
    label and words of talk."""
    return len(tx.terms(_SPEAKER_RE.sub("", sentence)) - _TALK_WORDS) >= MIN_FACT_TERMS


def _has_number(terms: list[str]) -> bool:
    return any(any(ch.isdigit() for ch in t) for t in terms)


def _evidence(row: dict[str, Any]) -> str:
    return f"summary: {_quote(row['sentence'])} | source: {_quote(row['source'])}"


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na and nb else 0.0


def _quote(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return f'"{flat}"'
