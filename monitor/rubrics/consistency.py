"""One consistency score per summary from the offline tiers: how faithful it is to its source, 0..1.

    grounded = EmbeddingJudge().judge("groundedness", case)
    ranked_score(grounded.score)                                # groundedness: 0.93
    ranked_score(grounded.score, failed=not factuality.passed)  # factuality: 0.93, or 0.65 with a finding

This is the score stored with every groundedness and factuality result the offline tiers decide, the
number people sort and filter by (``sumwatch scores``), and the one ``tests/bench/judge_quality.py``
correlates with SummEval's human consistency ratings and ``tests/bench/consistency_sets.py`` turns into
an AUC per public set. The verdict says pass or fail; this says how far from the source, so two passing
summaries of one document still rank.

The embedding tier's groundedness score carries it: per summary sentence, the mean of the rescaled
cosine to its best source passage, the share of its content terms and the share of its adjacent word pairs
the source has (:func:`sumwatch.monitor.rubrics.embeddings.consistency`), averaged over the sentences.
Groundedness stores it as it is. Factuality, whose verdict is about checked facts, stores it lowered by
``FINDING_PENALTY`` when the offline cascade failed it (only on a precise finding: a number, date or name
stated differently), so a checked contradiction sorts below the same wording without one. Suspicions the
cascade leaves unsure lower neither: on SummaC's factcc and summeval subsets they fire on consistent
summaries often enough that every penalty tried (0.15 and up) lowered the AUC.

``consistency_score`` blends in the rules' factuality score by ``FACTUALITY_WEIGHT`` instead, fitted on
SummEval's even-numbered articles over 0, 0.05, 0.1, 0.2, 0.3: the fit is 0. The bench refits the weight
on every run and prints the fit beside this constant.
"""

from __future__ import annotations

from .verdicts import RubricResult

FACTUALITY_WEIGHT = 0.0
# A flat fraction, not a fit: the finding is binary and the support keeps ranking within each side. On
# SummEdits, whose inconsistent summaries are one-word edits, it raised the AUC from .48 to .56 and on SummaC's
# summeval subset from .863 to .874; on SummEval's ratings (Kendall, per article) it cost .008, the failed 2%
# being rated 4.3 of 5 on average: so it applies to factuality, the rubric about checked facts, and the
# groundedness score, the one the benches rank by, stays the plain support.
FINDING_PENALTY = 0.3


def ranked_score(support: float, failed: bool = False) -> float:
    """The stored score of an offline groundedness or factuality result: the embedding tier's support,
    lowered by ``FINDING_PENALTY`` when ``failed`` (factuality's precise finding)."""
    return round(support * (1.0 - FINDING_PENALTY) if failed else support, 4)


def consistency_score(groundedness: RubricResult, factuality: RubricResult | None = None,
                      factuality_weight: float = FACTUALITY_WEIGHT) -> float:
    """The groundedness score, blended with the factuality score by ``factuality_weight``."""
    if factuality is None or factuality_weight <= 0.0:
        return groundedness.score
    return (1.0 - factuality_weight) * groundedness.score + factuality_weight * factuality.score
