"""The attributes of a summarization span: source and summary text (as the capture policy allows),
word counts and hash, band and other metadata, and model usage in the GenAI names.

    attrs = summarization_attributes(doc, summ, band="tldr", usage=Usage("gpt-4o-mini", provider="openai"))
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import semconv
from ._capture import CapturePolicy, current_policy, source_hash, word_count


class from_arg:  # noqa: N801 - reads as a marker at the call site
    """Take a per-call value from the decorated function's argument ``name``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"from_arg({self.name!r})"


Value = None | str | int | float | Sequence[str] | from_arg | Callable[[Mapping[str, Any]], Any]


class Usage:
    """Model and token usage a summarizer reports (GenAI semconv)."""

    __slots__ = ("model", "input_tokens", "output_tokens", "provider")

    def __init__(self, model: str | None = None, input_tokens: int | None = None,
                 output_tokens: int | None = None, system: str | None = None, *,
                 provider: str | None = None) -> None:
        """``provider`` ("openai", "anthropic", ...) names who serves the model; ``system`` is its older name."""
        self.model, self.input_tokens, self.output_tokens = model, input_tokens, output_tokens
        self.provider = provider or system

    @property
    def system(self) -> str | None:
        return self.provider


def _usage_attributes(usage: Usage) -> dict[str, Any]:
    attrs: dict[str, Any] = {}
    if usage.model:
        attrs[semconv.GEN_AI_REQUEST_MODEL] = usage.model
    if usage.provider:
        attrs[semconv.GEN_AI_PROVIDER_NAME] = usage.provider
        attrs[semconv.GEN_AI_SYSTEM] = usage.provider  # the older name, for readers that still use it
    if usage.input_tokens is not None:
        attrs[semconv.GEN_AI_INPUT_TOKENS] = int(usage.input_tokens)
    if usage.output_tokens is not None:
        attrs[semconv.GEN_AI_OUTPUT_TOKENS] = int(usage.output_tokens)
    return attrs


def _metadata_attributes(*, band: Any, document_id: Any, domain: Any, prompt_version: Any, expected_facts: Any,
                         metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        semconv.TASK: semconv.TASK_SUMMARIZATION,
        semconv.OPENINFERENCE_SPAN_KIND: semconv.OPENINFERENCE_KIND_CHAIN,
    }
    if band is not None:
        attrs[semconv.SUMMARIZATION_BAND] = str(band)
    if document_id is not None:
        attrs[semconv.DOCUMENT_ID] = str(document_id)
    if domain is not None:
        attrs[semconv.DOMAIN] = str(domain)
    if prompt_version is not None:
        attrs[semconv.PROMPT_VERSION] = str(prompt_version)
    if expected_facts is not None:
        if isinstance(expected_facts, str):
            expected_facts = [expected_facts]
        attrs[semconv.EXPECTED_FACTS] = json.dumps([str(f) for f in expected_facts], ensure_ascii=False)
    if metadata:
        for key, value in metadata.items():
            plain = isinstance(value, (str, bool, int, float))
            attrs[semconv.METADATA_PREFIX + str(key)] = value if plain else str(value)
    return attrs


def _record_text(attrs: dict[str, Any], key: str, text: str, policy: CapturePolicy) -> dict[str, Any]:
    recorded, truncated = policy.render(text)
    if recorded is not None:
        attrs[key] = recorded
    if truncated:
        attrs[semconv.TEXT_TRUNCATED] = True
    return attrs


def _source_attributes(text: str, policy: CapturePolicy) -> dict[str, Any]:
    return _record_text({
        semconv.SOURCE_HASH: source_hash(text),
        semconv.SOURCE_WORDS: word_count(text),
        semconv.SOURCE_CHARS: len(text),
        semconv.TEXT_CAPTURED: policy.enabled,
    }, semconv.INPUT_VALUE, text, policy)


def _summary_attributes(text: str, policy: CapturePolicy) -> dict[str, Any]:
    return _record_text({semconv.SUMMARY_WORDS: word_count(text)}, semconv.OUTPUT_VALUE, text, policy)


def summarization_attributes(source: str | None = None, summary: str | None = None, *,
                             band: str | None = None, document_id: str | None = None,
                             domain: str | None = None, prompt_version: str | None = None,
                             expected_facts: Sequence[str] | None = None,
                             metadata: Mapping[str, Any] | None = None, usage: Usage | None = None,
                             capture: CapturePolicy | None = None) -> dict[str, Any]:
    """All attributes of a summarization span, for code that builds spans itself (backfill, bridges).

        span = tracer.start_span("summarize", attributes=summarization_attributes(doc, summ, band="tldr"))
    """
    policy = capture or current_policy()
    attrs = _metadata_attributes(band=band, document_id=document_id, domain=domain,
                                 prompt_version=prompt_version, expected_facts=expected_facts, metadata=metadata)
    if source is not None:
        attrs.update(_source_attributes(source, policy))
    if summary is not None:
        attrs.update(_summary_attributes(summary, policy))
    if usage is not None:
        attrs.update(_usage_attributes(usage))
    return attrs
