"""The Tri-Gate against a reference summary: length, format and semantic drift, and their composite score.

    length_gate(case)                       # ref_length: candidate words within ±20% of the reference's
    format_gate(case)                       # ref_format: chatter, meta-commentary, markdown the reference lacks
    drift_gate(case, embedder)              # ref_drift: sentence-embedding cosine to the reference, cut at 0.62
    tri_gate([length, form, drift])         # ref_tri_gate: passes when all three pass; score below
    tri_gate_score([length, form, drift])   # the composite in [0, 1], or None when a gate is unjudged

Pure and offline: no LLM. Each result gives its evidence (the counts, the phrase, the least aligned sentence)
before its verdict, like every rubric here; without a reference each is ``unjudged``, never a pass.

The composite: with c the drift cosine (clipped to 0..1) and t :data:`DRIFT_THRESHOLD`, the drift part is
``0.5 + 0.5 * (c - t) / (1 - t)`` when c >= t and ``0.5 * c / t`` below it, so it is 0.5 at the cut and 1 for
the reference's own meaning; a failed length gate halves it, and so does a failed format gate. All three gates
passing scores at least 0.5, any one failing at most 0.5, and within each side the score ranks by closeness to
the reference.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from sumwatch.clustering.arrays import Vectors

from .embeddings import split_for_embedding
from .reference_verdicts import (
    GATE_UNJUDGED,
    NO_EMBEDDER,
    NO_REFERENCE,
    REF_DRIFT,
    REF_FORMAT,
    REF_LENGTH,
    REF_TRI_GATE,
    UNJUDGED,
    ReferenceCase,
    reference_result,
    unjudged,
)
from .rules.conciseness import FILLER_WEIGHT, closer, fillers, preamble
from .rules.source import quote
from .text import split_sentences, word_count
from .verdicts import EMBEDDINGS, ERROR, RULES, RubricResult

VERSION = "ref-gates-1"

# The candidate's length may differ from the reference's by this share either way. Tokens are words as sumwatch
# counts them everywhere (sumwatch.tracer.word_count): whitespace-separated tokens holding a letter or digit, so
# "U.S." and "4.2%" are one token each and a lone "-" of tokenized text is none.
LENGTH_TOLERANCE = 0.20

# Below this cosine between the candidate's and the reference's sentence centroids (all-MiniLM-L6-v2), the
# candidate has drifted from what the reference says. Chosen on SummEval's even-numbered articles only, as the cut
# with the best F0.5 at flagging the summaries experts rated relevance < 3 (P .339, R .289, 109 of 800 flagged);
# on the odd-numbered articles, never used to choose: precision .212, recall .233, F1 .222, AUC .612, 99 of 800
# flagged where 90 are drifted (base rate .113). A weak signal on this data (CNN/DailyMail highlights as references,
# relevance rated against the article, not the reference): a drift failure is a lead to read, not proof. Reproduce:
#   python tests/bench/reference_drift.py --data ../shared/data
DRIFT_THRESHOLD = 0.62


class SentenceEncoder(Protocol):
    """What the drift gate needs of an embedder: unit-length rows, one per text (the shared ``Embedder`` is one)."""

    @property
    def name(self) -> str: ...

    def encode(self, texts: list[str]) -> Vectors: ...


# -- length ---------------------------------------------------------------------------------------------------

def length_gate(case: ReferenceCase, tolerance: float = LENGTH_TOLERANCE) -> RubricResult:
    """ref_length: the candidate's token count within ``tolerance`` of the reference's; its score is the shorter
    count over the longer (1.0 at equal length)."""
    version = f"{VERSION}:±{tolerance:g}"
    words = word_count(case.reference) if case.has_reference else 0
    if words == 0:
        return unjudged(REF_LENGTH, NO_REFERENCE, "the item has no reference summary to measure length against",
                        tier=RULES, judge_version=version)
    own = word_count(case.summary)
    low, high = math.ceil(words * (1 - tolerance)), math.floor(words * (1 + tolerance))
    ratio = own / words
    verdict, mode = (("in_range", "") if low <= own <= high else
                     ("too_short", "under_reference_length") if own < low else ("too_long", "over_reference_length"))
    return reference_result(
        REF_LENGTH, verdict, score=min(ratio, 1 / ratio) if own else 0.0, failure_mode=mode, tier=RULES,
        judge_version=version, evidence=f"summary: {own} words | reference: {words} words",
        explanation=f"The summary has {own} words, the reference {words} (ratio {ratio:.2f}); within "
                    f"±{tolerance:.0%} is {low} to {high} words. Words are whitespace-separated tokens holding a "
                    f"letter or digit.",
        details=({"summary_words": own, "reference_words": words, "ratio": round(ratio, 4), "low": low,
                  "high": high},))


# -- format ---------------------------------------------------------------------------------------------------

# An assistant talking about its own answer, or about the request, instead of summarizing.
_META_RE = re.compile("|".join((
    r"\b(?:this|my|the\s+(?:above|following))\s+(?:summary|synopsis|recap|tl;?dr)\b",
    r"^\W*(?:summary|tl;?dr|synopsis)\s*:",
    r"\bas\s+an?\s+(?:ai|language\s+model|assistant)\b",
    r"\bi\s+(?:have\s+|['’]ve\s+)?(?:omitted|left\s+out|focused\s+on|tried\s+to|condensed|summari[sz]ed)\b",
    r"\bword\s+count\s*:\s*\d+",
    r"\(\s*\d+\s+words?\s*\)",
    r"^\W*note\s*:",
)), re.IGNORECASE | re.MULTILINE)
# Markdown structure, by kind: a candidate that uses a kind its reference never does is off the reference's format.
_MARKDOWN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("a heading", re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S.*$", re.MULTILINE)),
    ("a bold label", re.compile(r"^[ \t]*(?:\*\*|__)[^*_\n]{1,80}(?:\*\*|__)[ \t]*:?.*$", re.MULTILINE)),
    ("a list", re.compile(r"^[ \t]*(?:[-*+•]|\d{1,2}[.)])[ \t]+\S.*$", re.MULTILINE)),
    ("a code fence", re.compile(r"^[ \t]*(?:```|~~~).*$", re.MULTILINE)),
    ("a table", re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)),
)
# which issue names the failure when there are several
_FORMAT_ORDER = ("chatty_preamble", "meta_commentary", "markdown_structure", "filler_phrases")


@dataclass(frozen=True)
class _FormatIssue:
    mode: str
    found: str  # the candidate's words (quoted in the evidence)
    note: str

    def row(self) -> dict[str, str]:
        return {"issue": self.mode, "found": self.found}


def _has(text: str, phrase: str) -> bool:
    return " ".join(phrase.lower().split()) in " ".join(text.lower().split())


def format_issues(summary: str, reference: str, source: str = "") -> list[_FormatIssue]:
    """What in ``summary`` is off the reference's format, worst first. A kind of markdown the reference uses is
    not counted, nor a phrase the reference or the source has (copied, it is content, not chatter)."""
    issues: list[_FormatIssue] = []

    def own(phrase: str) -> bool:
        return not _has(reference, phrase) and not _has(source, phrase)

    for found, where in ((preamble(summary), "opens with an assistant-style preamble"),
                         (closer(summary), "ends with an assistant-style offer")):
        if found is not None and own(found[0]):
            issues.append(_FormatIssue("chatty_preamble", found[1], f"The summary {where} ({found[0]!r})"))
    meta = [m for m in _META_RE.finditer(summary) if own(m.group(0))]
    if meta:
        line = summary[summary.rfind("\n", 0, meta[0].start()) + 1:].split("\n", 1)[0]
        sentence = next((x for x in split_sentences(line) if meta[0].group(0).strip() in x), line)
        issues.append(_FormatIssue("meta_commentary", sentence.strip(),
                                   f"The summary talks about itself or the request ({meta[0].group(0).strip()!r})"))
    for kind, pattern in _MARKDOWN:
        hit = pattern.search(summary)
        if hit is not None and pattern.search(reference) is None:
            issues.append(_FormatIssue("markdown_structure", hit.group(0).strip(),
                                       f"The summary uses {kind} in markdown; the reference has none"))
    padding = [(p, w) for p, w in fillers(summary) if own(p)]
    if sum(w for _, w in padding) >= FILLER_WEIGHT:
        issues.append(_FormatIssue("filler_phrases", ", ".join(p for p, _ in padding[:4]),
                                   f"The summary carries filler the reference does not ({len(padding)} phrase"
                                   f"{'s' if len(padding) > 1 else ''})"))
    return sorted(issues, key=lambda i: _FORMAT_ORDER.index(i.mode))


def format_gate(case: ReferenceCase) -> RubricResult:
    """ref_format: fails on chatty filler, a preamble or closing offer, meta-commentary, or markdown structure the
    reference does not have (the conciseness rules' preamble, offer and filler lists, and this module's own); a
    phrase the reference or the source has does not count."""
    if not case.has_reference:
        return unjudged(REF_FORMAT, NO_REFERENCE, "the item has no reference summary to compare the format with",
                        tier=RULES, judge_version=VERSION)
    issues = format_issues(case.summary, case.reference, case.source)
    if not issues:
        return reference_result(REF_FORMAT, "clean", score=1.0, tier=RULES, judge_version=VERSION,
                                explanation="No chatter, meta-commentary or markdown that the reference lacks.")
    top = issues[0]
    others = sorted({i.mode for i in issues[1:]} - {top.mode})
    return reference_result(
        REF_FORMAT, "off_format", score=0.0, failure_mode=top.mode, tier=RULES, judge_version=VERSION,
        evidence="; ".join(f"summary: {quote(i.found)}" for i in issues[:3]),
        explanation=top.note + (f"; also {', '.join(others)}" if others else "") + ".",
        details=tuple(i.row() for i in issues))


# -- drift ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Drift:
    """How far the candidate sits from the reference in embedding space."""

    cosine: float  # between the two texts' sentence centroids
    weakest: str  # the candidate sentence least like any reference sentence
    nearest: str  # the reference sentence nearest to it
    weakest_cosine: float


def drift(summary: str, reference: str, embedder: SentenceEncoder) -> Drift:
    """The cosine between the mean of the candidate's sentence vectors and the mean of the reference's (long
    sentences embedded in pieces, as the embeddings tier does, so nothing is cut off at the model's length
    limit), and the least aligned sentence. An empty side has cosine 0."""
    ours, theirs = split_for_embedding(summary), split_for_embedding(reference)
    if not ours or not theirs:
        return Drift(0.0, ours[0] if ours else "", theirs[0] if theirs else "", 0.0)
    vectors = np.asarray(embedder.encode([*ours, *theirs]), dtype=np.float32)
    a, b = vectors[:len(ours)], vectors[len(ours):]
    pairs = a @ b.T
    best = pairs.max(axis=1)
    i = int(best.argmin())
    return Drift(_cosine(a.mean(axis=0), b.mean(axis=0)), ours[i], theirs[int(pairs[i].argmax())], float(best[i]))


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na and nb else 0.0


def drift_gate(case: ReferenceCase, embedder: SentenceEncoder | None,
               threshold: float = DRIFT_THRESHOLD) -> RubricResult:
    """ref_drift: fails when the candidate's sentence-embedding cosine to the reference is below ``threshold``;
    its score is that cosine (clipped to 0..1)."""
    version = f"{VERSION}:{getattr(embedder, 'version', getattr(embedder, 'name', ''))}@{threshold:g}"
    if not case.has_reference:
        return unjudged(REF_DRIFT, NO_REFERENCE, "the item has no reference summary to measure drift from",
                        tier=EMBEDDINGS, judge_version=version)
    if embedder is None:
        return unjudged(REF_DRIFT, NO_EMBEDDER, "no sentence embedder was given", tier=EMBEDDINGS,
                        judge_version=version)
    found = drift(case.summary, case.reference, embedder)
    aligned = found.cosine >= threshold
    return reference_result(
        REF_DRIFT, "aligned" if aligned else "drifted", score=found.cosine,
        failure_mode="" if aligned else "semantic_drift", tier=EMBEDDINGS, judge_version=version,
        model=embedder.name,
        evidence=f"summary: {quote(found.weakest)} | reference: {quote(found.nearest)}",
        explanation=f"Cosine {found.cosine:.2f} between the summary's and the reference's sentence centroids "
                    f"({'at or above' if aligned else 'below'} the cut {threshold:.2f}); the sentence least like the "
                    f"reference is quoted (best cosine {found.weakest_cosine:.2f}).",
        details=({"cosine": round(found.cosine, 4), "threshold": threshold,
                  "weakest_cosine": round(found.weakest_cosine, 4)},))


# -- the composite ----------------------------------------------------------------------------------------------

_GATES = (REF_LENGTH, REF_FORMAT, REF_DRIFT)


def composite(cosine: float, length_ok: bool, format_ok: bool, threshold: float = DRIFT_THRESHOLD) -> float:
    """The Tri-Gate score in [0, 1] (the formula is the module docstring's).

        composite(1.0, True, True)    # 1.0
        composite(0.62, True, True)   # 0.5: at the drift cut
        composite(0.9, False, True)   # 0.43: the length gate failed
    """
    c = max(0.0, min(1.0, cosine))
    part = 0.5 + 0.5 * (c - threshold) / (1 - threshold) if c >= threshold else 0.5 * c / threshold
    return part * (1.0 if length_ok else 0.5) * (1.0 if format_ok else 0.5)


def _gates(results: Iterable[RubricResult]) -> list[RubricResult | None]:
    by_name = {r.rubric: r for r in results}
    return [by_name.get(name) for name in _GATES]


def tri_gate_score(results: Iterable[RubricResult], threshold: float = DRIFT_THRESHOLD) -> float | None:
    """The composite of the length, format and drift results among ``results``; None when one of them is missing,
    unjudged or an error.

        tri_gate_score(reference_results(case, embedder=embedder))  # 0.83
    """
    length, form, drifted = _gates(results)
    if any(g is None or g.verdict in (UNJUDGED, ERROR) for g in (length, form, drifted)):
        return None
    assert length is not None and form is not None and drifted is not None
    return composite(drifted.score, length.passed, form.passed, threshold)


def tri_gate(results: Iterable[RubricResult], threshold: float = DRIFT_THRESHOLD) -> RubricResult:
    """ref_tri_gate: passes when the length, format and drift gates all pass; its score is :func:`tri_gate_score`.
    Unjudged while any gate is."""
    gates = _gates(results)
    score = tri_gate_score([g for g in gates if g is not None], threshold)
    # the gates' versions, which name their parameters: a tri-gate of other gates is another judge
    version = "+".join([f"{VERSION}@{threshold:g}", *(g.judge_version for g in gates if g is not None)])
    if score is None:
        why = ", ".join(name for name, g in zip(_GATES, gates) if g is None or g.verdict in (UNJUDGED, ERROR))
        return unjudged(REF_TRI_GATE, GATE_UNJUDGED, f"the gate(s) {why} could not be judged", tier=RULES,
                        judge_version=version)
    failing = [g for g in gates if g is not None and not g.passed]
    return reference_result(
        REF_TRI_GATE, "fail" if failing else "pass", score=score,
        failure_mode=failing[0].failure_mode if failing else "", tier=RULES, judge_version=version,
        evidence="; ".join(f"{g.rubric}: {g.evidence}" for g in (failing or gates) if g is not None and g.evidence),
        explanation=(f"Failed: {', '.join(f'{g.rubric} ({g.verdict})' for g in failing)}" if failing else
                     "All three gates passed") + f"; Tri-Gate score {score:.2f}.",
        details=tuple({"gate": g.rubric, "verdict": g.verdict, "score": round(g.score, 4)}
                      for g in gates if g is not None))
