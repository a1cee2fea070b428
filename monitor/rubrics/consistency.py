"""One consistency score per summary from the offline tiers: how faithful it is to its source, 0..1.

    grounded = EmbeddingJudge().judge("groundedness", case)
    factual = RulesJudge().judge("factuality", case)
    consistency_score(grounded, factual)   # 0.93

This is the number that ranks summaries of one source by faithfulness when no LLM is configured, and the
one ``tests/bench/judge_quality.py`` correlates with SummEval's human consistency ratings.

The embedding tier's groundedness score carries it: per summary sentence, half the rescaled cosine to
its best source passage and half the share of its content terms the source uses, averaged over the
sentences. The rules' factuality verdict enters with ``FACTUALITY_WEIGHT``, fitted on SummEval's
even-numbered articles over 0, 0.05, 0.1, 0.2, 0.3: the fit is 0. Many of its failures there come from
the corpus' tokenized text ("do n't" read as a negation the summary drops), so every weight lowered the
correlation (0.1 took Kendall from .36 to .34 on both halves). The bench refits the weight on every run
and prints the fit beside this constant, so a rules tier that gets better there shows as a non-zero fit.
"""

from __future__ import annotations

from .verdicts import RubricResult

FACTUALITY_WEIGHT = 0.0


def consistency_score(groundedness: RubricResult, factuality: RubricResult | None = None,
                      factuality_weight: float = FACTUALITY_WEIGHT) -> float:
    """The groundedness score, blended with the factuality score by ``factuality_weight``."""
    if factuality is None or factuality_weight <= 0.0:
        return groundedness.score
    return (1.0 - factuality_weight) * groundedness.score + factuality_weight * factuality.score
