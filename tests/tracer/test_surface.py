"""What other people's apps meet: a light import, a typed decorator, streamed summaries, version info."""

import asyncio
import importlib.metadata
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.tracing import memory_provider
from opentelemetry.trace import StatusCode

import sumwatch.tracer
from sumwatch.tracer import record_usage, semconv, summarization

ROOT = Path(__file__).resolve().parents[2]
SOURCE = "The council approved a budget of $4.2 million on Monday. Spending on parks rises 12% next year."


def test_importing_the_tracer_loads_the_opentelemetry_api_only():
    code = ("import sys, sumwatch.tracer, sumwatch.tracer.semconv\n"
            "from sumwatch.tracer import summarization, summarization_span, configure\n"
            "print(sorted(m for m in sys.modules if m.startswith(('opentelemetry.sdk', 'opentelemetry.exporter'))))\n"
            "configure(endpoint='http://127.0.0.1:9', set_global=False)\n"
            "print(sorted(m for m in sys.modules if m.startswith('opentelemetry.sdk'))[:1])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    before, after = out.stdout.splitlines()
    assert before == "[]", f"importing sumwatch.tracer loaded {before}"
    assert after == "['opentelemetry.sdk']"  # configure() is where the SDK comes in


def test_version_and_type_information_ship_with_the_package():
    assert sumwatch.tracer.__version__ == importlib.metadata.version("sumwatch")
    assert (Path(sumwatch.tracer.__file__).parent / "py.typed").is_file()
    assert set(sumwatch.tracer.__all__) >= {"summarization", "summarization_span", "configure", "record_usage"}


@pytest.mark.slow
def test_the_decorated_function_keeps_its_type(tmp_path):
    """mypy sees through the decorator: parameters and return types survive, sync and async."""
    src = tmp_path / "src" / "sumwatch"
    src.mkdir(parents=True)
    (src / "tracer").symlink_to(ROOT / "tracer")
    app = tmp_path / "app.py"
    app.write_text(
        "from sumwatch.tracer import summarization\n"
        "@summarization(band='tldr')\n"
        "def summarize(text: str, doc_id: str) -> str:\n    return text\n"
        "@summarization\n"
        "async def asummarize(text: str, *, words: int = 30) -> str:\n    return text\n"
        "reveal_type(summarize)\nreveal_type(asummarize)\n"
        "summarize('a', 3)\n")
    env = {**os.environ, "MYPYPATH": str(tmp_path / "src")}
    out = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental", "--explicit-package-bases",
                          "--ignore-missing-imports", str(app)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert 'Revealed type is "def (text: str, doc_id: str) -> str"' in out.stdout, out.stdout
    assert 'Revealed type is "def (text: str, *, words: int =) -> typing.Coroutine[Any, Any, str]"' in out.stdout
    assert 'Argument 2 to "summarize" has incompatible type "int"; expected "str"' in out.stdout, out.stdout


def _only(exporter):
    (span,) = exporter.get_finished_spans()
    return span


def test_a_generator_summarizer_is_traced_until_exhausted_with_the_pieces_joined():
    provider, exporter = memory_provider()

    @summarization(band="tldr", tracer_provider=provider)
    def stream(text):
        record_usage(model="gpt-4o-mini", provider="openai", output_tokens=9)
        yield "Council approved "
        yield "a $4.2M budget."

    pieces = stream(SOURCE)
    assert next(pieces) == "Council approved "
    assert exporter.get_finished_spans() == ()  # still open while the stream runs
    assert list(pieces) == ["a $4.2M budget."]
    attrs = _only(exporter).attributes
    assert attrs[semconv.OUTPUT_VALUE] == "Council approved a $4.2M budget."
    assert attrs[semconv.SUMMARY_WORDS] == 5 and semconv.STREAM_INCOMPLETE not in attrs
    assert attrs[semconv.GEN_AI_PROVIDER_NAME] == attrs[semconv.GEN_AI_SYSTEM] == "openai"
    assert attrs[semconv.INPUT_VALUE] == SOURCE


def test_a_stream_closed_early_records_what_came_and_says_so():
    provider, exporter = memory_provider()

    @summarization(tracer_provider=provider)
    def stream(text):
        yield "first part, "
        yield "second part"

    pieces = stream(SOURCE)
    next(pieces)
    pieces.close()
    attrs = _only(exporter).attributes
    assert attrs[semconv.OUTPUT_VALUE] == "first part, " and attrs[semconv.STREAM_INCOMPLETE] is True


def test_an_error_mid_stream_marks_the_span_and_reaches_the_caller_unchanged():
    provider, exporter = memory_provider()

    @summarization(tracer_provider=provider)
    def stream(text):
        yield "partial"
        raise TimeoutError("model stopped")

    with pytest.raises(TimeoutError, match="model stopped"):
        list(stream(SOURCE))
    span = _only(exporter)
    assert span.status.status_code is StatusCode.ERROR and "TimeoutError" in span.status.description


def test_an_async_generator_summarizer_is_traced_too():
    provider, exporter = memory_provider()

    @summarization(band="tldr", tracer_provider=provider)
    async def stream(text):
        for piece in ("Parks ", "spending ", "rises 12%."):
            await asyncio.sleep(0)
            yield piece

    async def consume():
        return [p async for p in stream(SOURCE)]

    assert asyncio.run(consume()) == ["Parks ", "spending ", "rises 12%."]
    assert _only(exporter).attributes[semconv.OUTPUT_VALUE] == "Parks spending rises 12%."

    async def stop_early():
        pieces = stream(SOURCE)
        first = await pieces.__anext__()
        await pieces.aclose()
        return first

    exporter.clear()
    assert asyncio.run(stop_early()) == "Parks "
    attrs = _only(exporter).attributes
    assert attrs[semconv.OUTPUT_VALUE] == "Parks " and attrs[semconv.STREAM_INCOMPLETE] is True


def test_usage_writes_the_provider_under_both_genai_names():
    provider, exporter = memory_provider()

    @summarization(tracer_provider=provider)
    def summarize(text):
        record_usage(model="claude-x", system="anthropic", input_tokens=10)
        return "short"

    summarize(SOURCE)
    attrs = _only(exporter).attributes
    assert attrs[semconv.GEN_AI_PROVIDER_NAME] == "anthropic" and attrs[semconv.GEN_AI_SYSTEM] == "anthropic"
