"""Attribute names of a summarization span, defined once for the whole project.

Text attributes follow OpenInference (so any OTel viewer shows source and summary), model and token
usage follow the OTel GenAI conventions, and the rest are sumwatch's own::

    from sumwatch.tracer import semconv
    span.set_attribute(semconv.SUMMARIZATION_BAND, "tldr")
"""

from __future__ import annotations

# -- the tag the sampler selects on ------------------------------------------------------------
TASK = "sumwatch.task"
TASK_SUMMARIZATION = "summarization"

# -- OpenInference ---------------------------------------------------------------------------
INPUT_VALUE = "input.value"  # the source text
OUTPUT_VALUE = "output.value"  # the summary
INPUT_MIME_TYPE = "input.mime_type"
OUTPUT_MIME_TYPE = "output.mime_type"
OPENINFERENCE_SPAN_KIND = "openinference.span.kind"
OPENINFERENCE_KIND_CHAIN = "CHAIN"

# -- summarization metadata ----------------------------------------------------------------
SUMMARIZATION_BAND = "summarization.band"
SOURCE_WORDS = "summarization.source.word_count"
SUMMARY_WORDS = "summarization.summary.word_count"
SOURCE_HASH = "summarization.source.sha256"  # kept when text capture is off
SOURCE_CHARS = "summarization.source.char_count"
TEXT_TRUNCATED = "summarization.text.truncated"  # true when capture cut a text short
TEXT_CAPTURED = "summarization.text.captured"
STREAM_INCOMPLETE = "summarization.stream.incomplete"  # a streamed summary closed before its end
DOCUMENT_ID = "summarization.document.id"
DOMAIN = "summarization.domain"
PROMPT_VERSION = "summarization.prompt.version"
EXPECTED_FACTS = "summarization.expected_facts"  # JSON list of strings, for the completeness rubric
METADATA_PREFIX = "summarization.metadata."  # free-form user metadata: summarization.metadata.<key>

BANDS = ("tldr", "exec_summary", "abstract", "action_recap", "custom")

# -- OTel GenAI --------------------------------------------------------------------------
GEN_AI_PROVIDER_NAME = "gen_ai.provider.name"  # who serves the model: "openai", "anthropic", ...
GEN_AI_SYSTEM = "gen_ai.system"  # the older name of gen_ai.provider.name, still written for older readers
GEN_AI_OPERATION_NAME = "gen_ai.operation.name"
GEN_AI_REQUEST_MODEL = "gen_ai.request.model"
GEN_AI_RESPONSE_MODEL = "gen_ai.response.model"
GEN_AI_INPUT_TOKENS = "gen_ai.usage.input_tokens"
GEN_AI_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"

SPAN_NAME = "summarize"
INSTRUMENTATION_NAME = "sumwatch.tracer"

# -- evaluation results written back into otel_traces (OTel GenAI evaluation event) ----------
EVALUATION_SPAN_NAME = "gen_ai.evaluation"
EVALUATION_EVENT = "gen_ai.evaluation.result"
EVALUATION_NAME = "gen_ai.evaluation.name"
EVALUATION_SCORE_VALUE = "gen_ai.evaluation.score.value"
EVALUATION_SCORE_LABEL = "gen_ai.evaluation.score.label"
EVALUATION_EXPLANATION = "gen_ai.evaluation.explanation"
EVALUATION_PASSED = "sumwatch.evaluation.passed"
EVALUATION_FAILURE_MODE = "sumwatch.evaluation.failure_mode"
EVALUATION_TIER = "sumwatch.evaluation.tier"
JUDGE_VERSION = "sumwatch.judge.version"
