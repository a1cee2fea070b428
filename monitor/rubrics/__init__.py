"""Rubric scoring: four rubrics, each judged by a cascade of tiers (rules, embeddings, LLM)."""

from .verdicts import (
    COMPLETENESS,
    CONCISENESS,
    EMBEDDINGS,
    ERROR,
    FACTUALITY,
    FAILURE_MODES,
    GROUNDEDNESS,
    LLM,
    PASSING,
    RUBRICS,
    RULES,
    VERDICTS,
    RubricResult,
    SummaryCase,
)

__all__ = ["COMPLETENESS", "CONCISENESS", "EMBEDDINGS", "ERROR", "FACTUALITY", "FAILURE_MODES", "GROUNDEDNESS",
           "LLM", "PASSING", "RUBRICS", "RULES", "VERDICTS", "RubricResult", "SummaryCase"]
