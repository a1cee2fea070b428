"""Which instrumentation wrote a span, by name: the instrumentation scope first, then the attributes only one
instrumentation writes, then the attribute convention the span's content was read in.

    instrumentation_name("opentelemetry.instrumentation.openai.v1", attributes, "gen_ai")   # "openllmetry"
    instrumentation_name("litellm", attributes, "openllmetry")                              # "litellm"
    instrumentation_name("pydantic-ai", attributes, "logfire")                              # "pydantic-ai"

The convention (:func:`.recognise.recognise`'s reading) says how a span's content is laid out, and several
instrumentations share one: litellm's OpenTelemetry callback writes OpenLLMetry's ``gen_ai.prompt.{i}`` keys,
Pydantic AI writes the GenAI names and Logfire's ``logfire.msg``, OpenLLMetry's newer releases write the GenAI
names. The scope (``InstrumentationScope.name``, ``ScopeName`` in ``otel_traces``) is the instrumentation's
own name for itself, so it comes first; only scopes that one project alone uses are in :data:`SCOPES`
(OpenLLMetry and the OpenTelemetry contrib both publish ``opentelemetry.instrumentation.vertexai`` and
``...langchain``, which the attributes then settle). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from .recognise import GEN_AI, GEN_AI_EVENTS, LANGFUSE, LOGFIRE, OPENINFERENCE, OPENLLMETRY, VERCEL_AI

LITELLM, PYDANTIC_AI = "litellm", "pydantic-ai"  # named by their scope or attributes; read in others' conventions

# The scope names each project gives its tracer, as its source sets them (checked against each repository):
# an exact name, or a prefix ending in "." that every scope of the project starts with.
SCOPES: tuple[tuple[str, str], ...] = (
    ("litellm", LITELLM),  # BerriAI/litellm integrations/opentelemetry.py: LITELLM_TRACER_NAME (OTEL_TRACER_NAME)
    ("pydantic-ai", PYDANTIC_AI),  # pydantic/pydantic-ai models/instrumented.py: scope_name = 'pydantic-ai'
    ("ai", VERCEL_AI),  # vercel/ai telemetry/get-tracer.ts: trace.getTracer('ai')
    ("langfuse-sdk", LANGFUSE),  # langfuse/langfuse-python (v3, OpenTelemetry based)
    ("openinference.instrumentation.", OPENINFERENCE),  # Arize-ai/openinference: one scope per package
    ("logfire", LOGFIRE), ("logfire.", LOGFIRE),  # pydantic/logfire: logfire.openai, logfire.anthropic, ...
    ("traceloop.", OPENLLMETRY),  # traceloop/openllmetry's SDK (workflows, tasks)
    # traceloop/openllmetry packages name their tracer get_tracer(__name__): the module, under the package
    ("opentelemetry.instrumentation.openai", OPENLLMETRY), ("opentelemetry.instrumentation.openai.", OPENLLMETRY),
    ("opentelemetry.instrumentation.anthropic", OPENLLMETRY), ("opentelemetry.instrumentation.bedrock", OPENLLMETRY),
    ("opentelemetry.instrumentation.cohere", OPENLLMETRY), ("opentelemetry.instrumentation.mistralai", OPENLLMETRY),
    ("opentelemetry.instrumentation.ollama", OPENLLMETRY), ("opentelemetry.instrumentation.groq", OPENLLMETRY),
    ("opentelemetry.instrumentation.together", OPENLLMETRY),
    ("opentelemetry.instrumentation.llamaindex", OPENLLMETRY),
    # open-telemetry/opentelemetry-python-contrib's GenAI packages: the GenAI convention, events or attributes
    ("opentelemetry.instrumentation.openai_v2", GEN_AI), ("opentelemetry.instrumentation.google_genai", GEN_AI),
    ("opentelemetry.instrumentation.openai_agents", GEN_AI),
)

# Attributes one project alone writes, for spans whose scope is missing (a backfill, a collector that drops
# it) or shared: a key, or a prefix ending in ".".
MARKERS: tuple[tuple[str, str], ...] = (
    ("traceloop.", OPENLLMETRY), ("llm.request.type", OPENLLMETRY), ("llm.usage.total_tokens", OPENLLMETRY),
    ("llm.is_streaming", OPENLLMETRY),
    ("model_request_parameters", PYDANTIC_AI), ("pydantic_ai.", PYDANTIC_AI),
    ("ai.operationId", VERCEL_AI), ("ai.prompt.", VERCEL_AI), ("ai.response.", VERCEL_AI),
    ("ai.prompt", VERCEL_AI),
)


@lru_cache(maxsize=256)  # a deployment has a handful of scope names, and the sampler asks once per span
def scope_instrumentation(scope: str) -> str:
    """The instrumentation a scope name belongs to, or ``""`` when the scope does not say."""
    scope = scope.strip()
    for name, instrumentation in SCOPES:
        if scope == name or (name.endswith(".") and scope.startswith(name)):
            return instrumentation
    return ""


def marked_instrumentation(attributes: Mapping[str, object]) -> str:
    """The instrumentation whose own attributes the span carries, or ``""``."""
    for marker, instrumentation in MARKERS:
        if marker.endswith("."):
            if any(k.startswith(marker) for k in attributes):
                return instrumentation
        elif marker in attributes:
            return instrumentation
    return ""


def instrumentation_name(scope: str, attributes: Mapping[str, object], convention: str) -> str:
    """The name shown for a span's instrumentation: its scope's, else its own attributes', else the
    convention it was read in. A span no convention reads (``convention == ""``) keeps ``""``: it is no
    GenAI call, whoever wrote it; and the GenAI convention keeps saying whether it came as events."""
    if not convention:
        return ""
    found = scope_instrumentation(scope) or marked_instrumentation(attributes)
    if not found:
        return convention
    if found == GEN_AI and convention == GEN_AI_EVENTS:
        return GEN_AI_EVENTS
    return found
