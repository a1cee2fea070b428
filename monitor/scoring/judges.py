"""Build the judge cascade the settings ask for; the one place tiers are wired together.

    cascade = build_cascade(Settings.from_env())            # rules + embeddings (+ LLM if configured)
    cascade = build_cascade(settings, mode="off")           # offline tiers only
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sumwatch.clustering.sentence_model.embedder import Embedder

from ..remote.llm import LLMConnection
from ..rubrics.cascade import Cascade
from ..rubrics.definition import JudgeDefinition
from ..rubrics.embeddings import EmbeddingJudge
from ..rubrics.learned.model import shared_model
from ..rubrics.llm import LLMConfig, LLMJudge
from ..rubrics.rules import RulesJudge
from ..settings import Settings, reveal

_embedders: dict[tuple[str, str, int], Embedder] = {}  # one model per process: loading it costs seconds


def shared_embedder(settings: Settings) -> Embedder:
    """The process's sentence model as the settings ask: model, backend, threads, export cache under home."""
    judge = settings.judge
    key = (judge.embedding_model, judge.model_backend.value, judge.model_threads)
    if key not in _embedders:
        _embedders[key] = Embedder(judge.embedding_model, backend=judge.model_backend, threads=judge.model_threads,
                                   cache_dir=settings.models_path, prebuilt_dir=judge.model_prebuilt_dir)
    return _embedders[key]


def llm_connection(settings: Settings) -> LLMConnection | None:
    """The one connection to the configured model, shared by the judge (:func:`build_llm`) and the cluster
    namer (``issues.job.build_clusterer``); None when no model is configured. Retries and backoff have no
    settings of their own: they keep :class:`LLMConnection`'s defaults."""
    judge = settings.judge
    if not judge.llm_model:
        return None
    return LLMConnection(judge.llm_model, api_base=judge.llm_api_base, api_key=reveal(judge.llm_api_key) or None,
                         timeout_s=settings.judge.llm_timeout_s, concurrency=settings.judge.llm_concurrency)


def build_llm(settings: Settings) -> Any | None:
    connection = llm_connection(settings)
    if connection is None:
        return None

    return LLMJudge(LLMConfig.from_connection(connection, max_spend_usd=settings.judge.llm_max_spend_usd))


def build_cascade(settings: Settings, *, mode: str | None = None, embeddings: bool | None = None,
                  llm: Any = None, definitions: Mapping[str, JudgeDefinition] | None = None) -> Cascade:
    """The cascade the settings ask for, judging with ``definitions`` (the shipped four unless given; a
    sampler reads the store's active ones at each pass)."""

    use_embeddings = settings.judge.embeddings if embeddings is None else embeddings
    embedding_judge = learned = None
    if use_embeddings:
        embedder = shared_embedder(settings)
        embedding_judge = EmbeddingJudge(embedder)
        if settings.judge.learned:
            learned = shared_model(embedder)
    chosen_mode = mode or settings.judge.judge_mode
    judge = llm if llm is not None else (build_llm(settings) if chosen_mode != "off" else None)
    return Cascade(rules=RulesJudge(), embeddings=embedding_judge, llm=judge, mode=chosen_mode,
                   audit_rate=settings.judge.judge_audit_rate, definitions=definitions,
                   budget=settings.judge.judge_budget, learned=learned)
