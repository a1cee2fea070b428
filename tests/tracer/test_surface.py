"""What other people's apps meet: a light import, a typed decorator, streamed summaries, version info."""

import asyncio
import gc
import importlib.metadata
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from fakes.tracing import memory_provider
from opentelemetry import trace
from opentelemetry.trace import StatusCode

import sumwatch.tracer
from sumwatch.tracer import Usage, record_usage, semconv, summarization, summarization_attributes, summarization_span

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
HEAVY = ("numpy", "torch", "clickhouse_connect", "chdb", "litellm", "sentence_transformers")
SOURCE = "The council approved a budget of $4.2 million on Monday. Spending on parks rises 12% next year."


@pytest.mark.integration
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


@pytest.mark.integration
@pytest.mark.parametrize("module", ["sumwatch.tracer", "sumwatch.tracer.semconv", "sumwatch.tracer.otel_traces"])
def test_a_public_tracer_module_imports_without_the_sdk_an_exporter_or_heavy_packages(module):
    code = ("import sys\n"
            f"import {module}\n"
            f"heavy = {HEAVY!r}\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy\n"
            "             or m.startswith(('opentelemetry.sdk', 'opentelemetry.exporter'))))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", f"importing {module} loaded {out.stdout.strip()}"


def test_the_public_surface_is_listed_and_resolves():
    public = set(sumwatch.tracer.__all__)
    # what monitor code and apps import from the package
    assert public >= {"semconv", "Usage", "summarization_attributes", "configure", "from_arg", "record_usage",
                      "summarization", "summarization_span", "word_count", "CapturePolicy", "__version__"}
    assert all(getattr(sumwatch.tracer, name) is not None for name in public)
    assert not any(name.startswith("_") and name != "__version__" for name in public)


def test_version_and_type_information_ship_with_the_package():
    assert sumwatch.tracer.__version__ == importlib.metadata.version("sumwatch")
    assert (Path(sumwatch.tracer.__file__).parent / "py.typed").is_file()
    assert set(sumwatch.tracer.__all__) >= {"summarization", "summarization_span", "configure", "record_usage"}
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in pyproject["tool"]["setuptools"]["package-data"]["sumwatch.tracer"]
    assert sumwatch.tracer.__version__ == pyproject["project"]["version"]


@pytest.mark.integration
def test_version_falls_back_to_the_source_version_without_distribution_metadata():
    tomllib = pytest.importorskip("tomllib")
    code = ("import importlib.metadata as m\n"
            "def missing(name):\n    raise m.PackageNotFoundError(name)\n"
            "m.version = missing\n"
            "import sumwatch.tracer\nprint(sumwatch.tracer.__version__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


@pytest.fixture(scope="module")
def mypy_output(request, tmp_path_factory):
    """One mypy run over an app snippet and typed_usage.py, the tracer seen under its installed name.

    The cache lives in pytest's cache dir, so only the first run pays for checking the standard library.
    """
    tmp_path = tmp_path_factory.mktemp("typed")
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
    shutil.copy(HERE / "typed_usage.py", tmp_path / "typed_usage.py")
    # opentelemetry's own types play no part in these checks; skipping them keeps a cold run short
    (tmp_path / "mypy.ini").write_text("[mypy]\nexplicit_package_bases = True\nignore_missing_imports = True\n"
                                       "warn_unused_ignores = True\n[mypy-opentelemetry.*]\nfollow_imports = skip\n")
    cache = request.config.cache.mkdir("mypy") if getattr(request.config, "cache", None) else tmp_path / "cache"
    env = {**os.environ, "MYPYPATH": str(tmp_path / "src")}
    out = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--cache-dir", str(cache),
                          "app.py", "typed_usage.py"], capture_output=True, text=True, env=env, cwd=tmp_path)
    return out.stdout


@pytest.mark.integration
def test_the_decorated_function_keeps_its_type(mypy_output):
    """mypy sees through the decorator: parameters and return types survive, sync and async."""
    out = mypy_output
    assert 'Revealed type is "def (text: str, doc_id: str) -> str"' in out, out
    assert 'Revealed type is "def (text: str, *, words: int =) -> typing.Coroutine[Any, Any, str]"' in out
    assert 'Argument 2 to "summarize" has incompatible type "int"; expected "str"' in out, out


@pytest.mark.integration
def test_typed_usage_checks_clean_functions_generators_and_methods(mypy_output):
    """typed_usage.py: assert_type on calls of decorated functions, and type errors that must still be errors."""
    problems = [line for line in mypy_output.splitlines() if line.startswith("typed_usage.py")]
    assert problems == [], mypy_output
    assert "app.py" in mypy_output  # the run happened and reported on the other file


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


def test_an_error_mid_async_stream_marks_the_span_and_reaches_the_caller_unchanged():
    provider, exporter = memory_provider()
    boom = ConnectionResetError("stream cut")

    @summarization(tracer_provider=provider)
    async def stream(text):
        yield "partial "
        raise boom

    async def consume():
        return [p async for p in stream(SOURCE)]

    with pytest.raises(ConnectionResetError) as caught:
        asyncio.run(consume())
    assert caught.value is boom
    span = _only(exporter)
    assert span.status.status_code is StatusCode.ERROR and "ConnectionResetError" in span.status.description
    assert [e.name for e in span.events] == ["exception"] and semconv.OUTPUT_VALUE not in span.attributes


def test_a_for_loop_that_breaks_out_of_a_stream_ends_its_span_as_incomplete():
    provider, exporter = memory_provider()

    @summarization(tracer_provider=provider)
    def stream(text):
        yield "first, "
        yield "second"

    for piece in stream(SOURCE):
        assert piece == "first, "
        break
    gc.collect()  # CPython closes the abandoned generator at once; this makes it so elsewhere too
    attrs = _only(exporter).attributes
    assert attrs[semconv.OUTPUT_VALUE] == "first, " and attrs[semconv.STREAM_INCOMPLETE] is True


def test_send_throw_and_the_return_value_pass_through_a_traced_generator():
    provider, exporter = memory_provider()

    @summarization(tracer_provider=provider)
    def stream(text):
        try:
            reply = yield "asked "
            yield f"{reply} "
            yield "never"
        except ValueError:
            yield "recovered"
        return "done"

    pieces = stream(SOURCE)
    assert next(pieces) == "asked "
    assert pieces.send("answered") == "answered "
    assert pieces.throw(ValueError("retry")) == "recovered"
    with pytest.raises(StopIteration) as stop:
        next(pieces)
    assert stop.value.value == "done"
    attrs = _only(exporter).attributes
    assert attrs[semconv.OUTPUT_VALUE] == "asked answered recovered" and semconv.STREAM_INCOMPLETE not in attrs


def test_asend_and_athrow_pass_through_a_traced_async_generator():
    provider, exporter = memory_provider()

    @summarization(tracer_provider=provider)
    async def stream(text):
        try:
            reply = yield "asked "
            yield f"{reply} "
        except ValueError:
            yield "recovered"

    async def drive():
        pieces = stream(SOURCE)
        got = [await pieces.asend(None), await pieces.asend("answered"), await pieces.athrow(ValueError("x"))]
        with pytest.raises(StopAsyncIteration):
            await pieces.__anext__()
        return got

    assert asyncio.run(drive()) == ["asked ", "answered ", "recovered"]
    assert _only(exporter).attributes[semconv.OUTPUT_VALUE] == "asked answered recovered"


def test_the_span_is_current_inside_the_stream_but_not_in_the_consumer_between_pieces():
    provider, exporter = memory_provider()
    tracer = provider.get_tracer("app")

    @summarization(tracer_provider=provider)
    def stream(text):
        for piece in ("a", "b"):
            with tracer.start_as_current_span("llm.chunk"):
                pass
            yield piece

    for _ in stream(SOURCE):
        assert not trace.get_current_span().get_span_context().is_valid
    *chunks, outer = exporter.get_finished_spans()
    assert outer.attributes[semconv.TASK] == "summarization"
    assert [c.parent.span_id for c in chunks] == [outer.context.span_id] * 2


@dataclass
class Chunk:
    """A streaming API's chunk: a piece of text, and usage on the last one."""

    text: str | None
    usage: Usage | None = None


def test_summary_and_usage_extractors_apply_to_each_streamed_chunk():
    provider, exporter = memory_provider()

    @summarization(summary=lambda c: c.text, usage=lambda c: c.usage, tracer_provider=provider)
    async def stream(text):
        yield Chunk("Parks spending ")
        yield Chunk("rises 12%.")
        yield Chunk(None, Usage(model="gpt-4o-mini", provider="openai", input_tokens=40, output_tokens=5))

    async def consume():
        return [c async for c in stream(SOURCE)]

    assert len(asyncio.run(consume())) == 3
    attrs = _only(exporter).attributes
    assert attrs[semconv.OUTPUT_VALUE] == "Parks spending rises 12%."
    assert attrs[semconv.GEN_AI_REQUEST_MODEL] == "gpt-4o-mini" and attrs[semconv.GEN_AI_OUTPUT_TOKENS] == 5
    assert attrs[semconv.GEN_AI_PROVIDER_NAME] == attrs[semconv.GEN_AI_SYSTEM] == "openai"


def test_a_failing_extractor_never_breaks_the_stream_or_loses_the_rest():
    provider, exporter = memory_provider()

    @summarization(usage=lambda piece: piece["usage"], tracer_provider=provider)
    def stream(text):
        yield "still "
        yield "recorded"

    assert list(stream(SOURCE)) == ["still ", "recorded"]
    assert _only(exporter).attributes[semconv.OUTPUT_VALUE] == "still recorded"


def test_a_failing_usage_extractor_keeps_the_summary():
    provider, exporter = memory_provider()

    @summarization(usage=lambda result: result["usage"], tracer_provider=provider)
    def summarize(text):
        return "short"

    assert summarize(SOURCE) == "short"
    assert _only(exporter).attributes[semconv.OUTPUT_VALUE] == "short"


def test_the_provider_is_written_under_both_genai_names_everywhere_usage_is_recorded():
    assert semconv.GEN_AI_PROVIDER_NAME == "gen_ai.provider.name" and semconv.GEN_AI_SYSTEM == "gen_ai.system"
    assert Usage(system="openai").provider == "openai" and Usage(provider="openai").system == "openai"

    attrs = summarization_attributes(SOURCE, "short", usage=Usage(model="gpt-4o-mini", provider="openai"))
    assert attrs[semconv.GEN_AI_PROVIDER_NAME] == attrs[semconv.GEN_AI_SYSTEM] == "openai"

    provider, exporter = memory_provider()
    with summarization_span(SOURCE, tracer_provider=provider) as s:
        s.record_usage(model="gpt-4o-mini", provider="openai")
    attrs = _only(exporter).attributes
    assert attrs[semconv.GEN_AI_PROVIDER_NAME] == attrs[semconv.GEN_AI_SYSTEM] == "openai"

    exporter.clear()

    @summarization(usage=lambda r: Usage(model="m", system="azure.ai.openai"), tracer_provider=provider)
    def summarize(text):
        return "short"

    summarize(SOURCE)
    attrs = _only(exporter).attributes
    assert attrs[semconv.GEN_AI_PROVIDER_NAME] == attrs[semconv.GEN_AI_SYSTEM] == "azure.ai.openai"
