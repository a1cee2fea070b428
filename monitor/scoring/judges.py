"""Build the judge cascade the settings ask for; the one place tiers are wired together.

    cascade = build_cascade(settings)                       # rules + embeddings (+ LLM if configured)
    cascade = build_cascade(settings, mode="off")           # offline tiers only
    cascade = build_cascade(settings, embedder=embedder)    # on a sentence model someone else owns

Nothing here is kept between calls: the process's one sentence model, LLM connection and cascade per mode are
held by ``sumwatch.monitor.runtime.Runtime``, which passes them in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sumwatch.clustering.sentence_model.embedder import Embedder

from ..remote.llm import LLMConnection
from ..rubrics.cascade import Cascade
from ..rubrics.definition import JudgeDefinition
from ..rubrics.embeddings import EmbeddingJudge
from ..rubrics.learned.model import FaithfulnessModel
from ..rubrics.llm import LLMConfig, LLMJudge
from ..rubrics.rules import RulesJudge
from ..settings import Settings, reveal


def build_embedder(settings: Settings) -> Embedder:
    """A sentence model as the settings ask: model, backend, threads, export cache under home. Building it is
    free; the model loads (seconds) on the first encode, so whoever builds one should keep and share it."""
    judge = settings.judge
    return Embedder(judge.embedding_model, backend=judge.model_backend, threads=judge.model_threads,
                    cache_dir=settings.models_path, prebuilt_dir=judge.model_prebuilt_dir)


def llm_connection(settings: Settings) -> LLMConnection | None:
    """The one connection to the configured model, shared by the judge (:func:`build_llm`) and the cluster
    namer (``issues.job.build_clusterer``); None when no model is configured. Retries and backoff have no
    settings of their own: they keep :class:`LLMConnection`'s defaults."""
    judge = settings.judge
    if not judge.llm_model:
        return None
    return LLMConnection(judge.llm_model, api_base=judge.llm_api_base, api_key=reveal(judge.llm_api_key) or None,
                         timeout_s=settings.judge.llm_timeout_s, concurrency=settings.judge.llm_concurrency)


def build_llm(settings: Settings, connection: LLMConnection | None = None) -> Any | None:
    """The LLM judge on ``connection`` (the settings' when not given); None when no model is configured."""
    connection = connection if connection is not None else llm_connection(settings)
    if connection is None:
        return None

    return LLMJudge(LLMConfig.from_connection(connection, max_spend_usd=settings.judge.llm_max_spend_usd))


def build_cascade(settings: Settings, *, mode: str | None = None, embeddings: bool | None = None,
                  llm: Any = None, definitions: Mapping[str, JudgeDefinition] | None = None,
                  embedder: Any = None, faithfulness: FaithfulnessModel | None = None,
                  connection: LLMConnection | None = None) -> Cascade:
    """The cascade the settings ask for, judging with ``definitions`` (the shipped four unless given; a
    sampler reads the store's active ones at each pass). ``embedder``, ``faithfulness`` (the learned model on
    that embedder) and ``connection`` are the caller's to share; each is built here when not given."""

    use_embeddings = settings.judge.embeddings if embeddings is None else embeddings
    embedding_judge = learned = None
    if use_embeddings:
        embedder = embedder if embedder is not None else build_embedder(settings)
        embedding_judge = EmbeddingJudge(embedder)
        if settings.judge.learned:
            learned = faithfulness if faithfulness is not None else FaithfulnessModel(embedder=embedder)
    chosen_mode = mode or settings.judge.judge_mode
    judge = llm if llm is not None else (build_llm(settings, connection) if chosen_mode != "off" else None)
    return Cascade(rules=RulesJudge(), embeddings=embedding_judge, llm=judge, mode=chosen_mode,
                   audit_rate=settings.judge.judge_audit_rate, definitions=definitions,
                   budget=settings.judge.judge_budget, learned=learned)
