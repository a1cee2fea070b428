"""``@summarization`` and ``summarization_span``: each summarizing call becomes one span.

    @summarization(band="tldr", domain="news", document_id=from_arg("doc_id"))
    def summarize(text: str, doc_id: str) -> str: ...

    with summarization_span(source=text, band="exec_summary") as s:
        summary = my_llm(text)
        s.record_summary(summary)
        s.record_usage(model="gpt-4o-mini", input_tokens=812, output_tokens=64)

The instrumentation never raises into the caller: a failure inside it is logged once and the wrapped
function runs as if undecorated. An exception from the wrapped function is recorded on the span
(status ERROR) and re-raised unchanged. A generator (sync or async) that yields the summary in pieces
is traced until it is exhausted, and the joined text is recorded as the summary.

The decorated function keeps its type: ``summarize`` above is still ``(text: str, doc_id: str) -> str``.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import json
import logging
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator, Iterator, Mapping, Sequence
from typing import Any, ParamSpec, Protocol, TypeVar, cast, overload

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

from . import semconv
from ._capture import CapturePolicy, current_policy, source_hash, word_count

_log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

__all__ = ["from_arg", "summarization", "summarization_span", "summarization_attributes", "SummarizationSpan",
           "record_usage", "Usage"]


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


class SummarizationSpan:
    """Handle on the live span: record what is only known inside the call."""

    __slots__ = ("_span", "_policy")

    def __init__(self, span: Span, policy: CapturePolicy) -> None:
        self._span, self._policy = span, policy

    @property
    def span(self) -> Span:
        return self._span

    def record_source(self, text: str) -> None:
        self._safely(_source_attributes, text)

    def record_summary(self, text: str) -> None:
        self._safely(_summary_attributes, text)

    def record_usage(self, model: str | None = None, input_tokens: int | None = None,
                     output_tokens: int | None = None, system: str | None = None, *,
                     provider: str | None = None) -> None:
        try:
            usage = Usage(model, input_tokens, output_tokens, system, provider=provider)
            self._span.set_attributes(_usage_attributes(usage))
        except Exception:  # instrumentation must never break the app
            _log.debug("sumwatch: could not record usage", exc_info=True)

    def set(self, key: str, value: Any) -> None:
        """Set one metadata attribute (``summarization.metadata.<key>``)."""
        try:
            self._span.set_attributes(_metadata_attributes(band=None, document_id=None, domain=None,
                                                           prompt_version=None, expected_facts=None,
                                                           metadata={key: value}))
        except Exception:
            _log.debug("sumwatch: could not set %s", key, exc_info=True)

    def _safely(self, build: Callable[[str, CapturePolicy], dict[str, Any]], text: Any) -> None:
        try:
            if text is not None:
                self._span.set_attributes(build(text if isinstance(text, str) else str(text), self._policy))
        except Exception:
            _log.debug("sumwatch: could not record text", exc_info=True)


# The live summarization span, for record_usage() from anywhere inside the call. A ContextVar of our
# own (not an OTel context value) so entering a call attaches one OTel context, not two.
_CURRENT: contextvars.ContextVar[SummarizationSpan | None] = contextvars.ContextVar(
    "sumwatch_summarization", default=None)


def record_usage(model: str | None = None, input_tokens: int | None = None,
                 output_tokens: int | None = None, system: str | None = None, *,
                 provider: str | None = None) -> None:
    """Report model and token usage from inside a decorated function; a no-op outside one."""
    handle = _CURRENT.get()
    if handle is not None:
        handle.record_usage(model, input_tokens, output_tokens, system, provider=provider)


_tracers: weakref.WeakKeyDictionary[trace.TracerProvider, trace.Tracer] = weakref.WeakKeyDictionary()
_global_tracer: trace.Tracer | None = None


def _tracer(provider: trace.TracerProvider | None) -> trace.Tracer:
    """The tracer for a provider (None: the global one), created once: get_tracer is costly per call.

    For the global provider this is OTel's proxy tracer, which follows a provider registered later.
    """
    global _global_tracer
    if provider is None:
        if _global_tracer is None:
            _global_tracer = trace.get_tracer(semconv.INSTRUMENTATION_NAME)
        return _global_tracer
    tracer = _tracers.get(provider)
    if tracer is None:
        tracer = _tracers[provider] = provider.get_tracer(semconv.INSTRUMENTATION_NAME)
    return tracer


class summarization_span:  # noqa: N801 - used as a context manager
    """Context manager for summarization code that is not one function."""

    def __init__(self, source: str | None = None, *, band: str | None = None,
                 document_id: str | None = None, domain: str | None = None,
                 prompt_version: str | None = None, expected_facts: Sequence[str] | None = None,
                 metadata: Mapping[str, Any] | None = None, name: str = semconv.SPAN_NAME,
                 capture: CapturePolicy | None = None,
                 tracer_provider: trace.TracerProvider | None = None) -> None:
        self._source = source
        self._static: dict[str, Any] = dict(band=band, document_id=document_id, domain=domain,
                                            prompt_version=prompt_version, expected_facts=expected_facts,
                                            metadata=metadata)
        self._name, self._capture, self._provider = name, capture, tracer_provider
        self._handle: SummarizationSpan | None = None
        self._token: Any = None

    def __enter__(self) -> SummarizationSpan:
        policy = self._capture or current_policy()
        try:
            attrs = _metadata_attributes(**self._static)
            if self._source is not None:
                attrs.update(_source_attributes(self._source, policy))
            span = _tracer(self._provider).start_span(self._name, attributes=attrs)
            self._handle = SummarizationSpan(span, policy)
            self._token = (otel_context.attach(trace.set_span_in_context(span)), _CURRENT.set(self._handle))
        except Exception:
            _log.warning("sumwatch: could not start a summarization span", exc_info=True)
            self._handle = SummarizationSpan(trace.INVALID_SPAN, policy)
        return self._handle

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        handle = self._handle
        try:
            if self._token is not None:
                otel_context.detach(self._token[0])
                _CURRENT.reset(self._token[1])
            if handle is not None and handle.span is not trace.INVALID_SPAN:
                if exc is not None:
                    _record_error(handle.span, exc)
                handle.span.end()
        except Exception:
            _log.debug("sumwatch: could not end the summarization span", exc_info=True)
        # returning None: an exception from the body propagates unchanged

    async def __aenter__(self) -> SummarizationSpan:
        return self.__enter__()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: Any) -> None:
        self.__exit__(exc_type, exc, tb)


def _record_error(span: Span, exc: BaseException) -> None:
    span.record_exception(exc)
    span.set_status(Status(StatusCode.ERROR, f"{type(exc).__name__}: {exc}"))


def _default_summary(result: Any) -> str | None:
    if isinstance(result, str):
        return result
    if isinstance(result, Mapping):
        value = result.get("summary")
        return None if value is None else str(value)
    value = getattr(result, "summary", None)
    return None if value is None else str(value)


class _Plan:
    """Everything about a decorated function that can be worked out once, at decoration time."""

    def __init__(self, fn: Callable[..., Any], source: str | Callable[[Mapping[str, Any]], Any] | None,
                 values: dict[str, Value]) -> None:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        self._positions = {p.name: i for i, p in enumerate(params)
                           if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)}
        self._params = params
        names = [p.name for p in params if p.name not in ("self", "cls")]
        if source is None:
            if not names:
                raise TypeError(f"@summarization on {fn.__qualname__}: it takes no argument to read the "
                                f"source from; pass source=<argument name or callable>")
            source = names[0]
        if isinstance(source, str) and source not in {p.name for p in params}:
            raise TypeError(f"@summarization on {fn.__qualname__}: no argument named {source!r} "
                            f"(arguments: {', '.join(names) or 'none'})")
        for key, value in values.items():
            if isinstance(value, from_arg) and value.name not in {p.name for p in params}:
                raise TypeError(f"@summarization on {fn.__qualname__}: {key}=from_arg({value.name!r}) names "
                                f"no argument (arguments: {', '.join(names) or 'none'})")
        self.source: str | Callable[[Mapping[str, Any]], Any] = source
        self.static = {k: v for k, v in values.items() if not (isinstance(v, from_arg) or callable(v))}
        self.dynamic = {k: v for k, v in values.items() if isinstance(v, from_arg) or callable(v)}
        self.static_attrs = _metadata_attributes(**self._complete(self.static))
        self._needs_bound = callable(source) or any(callable(v) and not isinstance(v, from_arg)
                                                    for v in self.dynamic.values())
        self._fn = fn

    @staticmethod
    def _complete(values: dict[str, Any]) -> dict[str, Any]:
        keys = ("band", "document_id", "domain", "prompt_version", "expected_facts", "metadata")
        return {k: values.get(k) for k in keys}

    def _arg(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if name in kwargs:
            return kwargs[name]
        pos = self._positions.get(name)
        if pos is not None and pos < len(args):
            return args[pos]
        param = next(p for p in self._params if p.name == name)
        return None if param.default is inspect.Parameter.empty else param.default

    def _bound(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Mapping[str, Any]:
        bound = inspect.signature(self._fn).bind_partial(*args, **kwargs)
        bound.apply_defaults()
        return bound.arguments

    def attributes(self, args: tuple[Any, ...], kwargs: dict[str, Any], policy: CapturePolicy) -> dict[str, Any]:
        bound = self._bound(args, kwargs) if self._needs_bound else None
        if self.dynamic:
            resolved = dict(self.static)
            for key, value in self.dynamic.items():
                resolved[key] = (self._arg(value.name, args, kwargs) if isinstance(value, from_arg)
                                 else cast(Callable[[Mapping[str, Any] | None], Any], value)(bound))
            attrs = _metadata_attributes(**self._complete(resolved))
        else:
            attrs = dict(self.static_attrs)
        text = (cast(Callable[[Mapping[str, Any] | None], Any], self.source)(bound) if callable(self.source)
                else self._arg(self.source, args, kwargs))
        if text is not None:
            attrs.update(_source_attributes(text if isinstance(text, str) else str(text), policy))
        return attrs


class _Decorator(Protocol):
    """What ``summarization(...)`` returns: a decorator that keeps the function's type."""

    def __call__(self, fn: Callable[P, R], /) -> Callable[P, R]: ...


@overload
def summarization(fn: Callable[P, R], /) -> Callable[P, R]: ...


@overload
def summarization(fn: None = None, /, *, source: str | Callable[[Mapping[str, Any]], str] | None = None,
                  summary: Callable[[Any], str | None] | None = None,
                  usage: Callable[[Any], Usage | None] | None = None,
                  band: Value = None, document_id: Value = None, domain: Value = None,
                  prompt_version: Value = None, expected_facts: Value = None,
                  metadata: Mapping[str, Any] | None = None, name: str = semconv.SPAN_NAME,
                  capture: CapturePolicy | None = None,
                  tracer_provider: trace.TracerProvider | None = None) -> _Decorator: ...


def summarization(fn: Callable[P, R] | None = None, /, *,
                  source: str | Callable[[Mapping[str, Any]], str] | None = None,
                  summary: Callable[[Any], str | None] | None = None,
                  usage: Callable[[Any], Usage | None] | None = None,
                  band: Value = None, document_id: Value = None, domain: Value = None,
                  prompt_version: Value = None, expected_facts: Value = None,
                  metadata: Mapping[str, Any] | None = None, name: str = semconv.SPAN_NAME,
                  capture: CapturePolicy | None = None,
                  tracer_provider: trace.TracerProvider | None = None) -> Callable[P, R] | _Decorator:
    """Decorate a summarizing function: sync, async, or a (sync or async) generator of summary pieces.

    ``source`` names the argument holding the source text (default: the first argument) or is a
    callable given the bound arguments. ``summary`` extracts the summary from the return value
    (default: a str return, or its ``summary`` key/attribute; for a generator, the yielded pieces joined).
    ``usage`` extracts a :class:`Usage` from the return value; the function may also call
    :func:`record_usage`. Metadata values are constants, :class:`from_arg` markers, or callables given
    the bound arguments.
    """
    values: dict[str, Any] = dict(band=band, document_id=document_id, domain=domain,
                                  prompt_version=prompt_version, expected_facts=expected_facts, metadata=metadata)
    values = {k: v for k, v in values.items() if v is not None}
    get_summary = summary or _default_summary

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        plan = _Plan(func, source, values)

        def start(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[SummarizationSpan | None, Any]:
            try:
                policy = capture or current_policy()
                span = _tracer(tracer_provider).start_span(name, attributes=plan.attributes(args, kwargs, policy))
                handle = SummarizationSpan(span, policy)
                return handle, (otel_context.attach(trace.set_span_in_context(span)), _CURRENT.set(handle))
            except Exception:
                _log.warning("sumwatch: could not start a span for %s", func.__qualname__, exc_info=True)
                return None, None

        def finish(handle: SummarizationSpan | None, token: Any, result: Any, exc: BaseException | None, *,
                   text: str | None = None, incomplete: bool = False) -> None:
            if handle is None:
                return
            span = handle.span
            try:
                if token is not None:
                    otel_context.detach(token[0])
                    _CURRENT.reset(token[1])
                if exc is not None:
                    _record_error(span, exc)
                else:
                    if text is None:
                        text = get_summary(result)
                    attrs = _summary_attributes(text, handle._policy) if text is not None else {}
                    if incomplete:
                        attrs[semconv.STREAM_INCOMPLETE] = True
                    if usage is not None:
                        reported = usage(result)
                        if reported is not None:
                            attrs.update(_usage_attributes(reported))
                    span.set_attributes(attrs)
            except Exception:
                _log.warning("sumwatch: could not finish the span for %s", func.__qualname__, exc_info=True)
            finally:
                try:
                    span.end()  # a span is always ended, even when recording its outcome failed
                except Exception:
                    _log.debug("sumwatch: could not end the span", exc_info=True)

        if inspect.isasyncgenfunction(func):
            return cast(Callable[P, R], _traced_async_generator(func, start, finish))
        if inspect.isgeneratorfunction(func):
            return cast(Callable[P, R], _traced_generator(func, start, finish))
        if inspect.iscoroutinefunction(func):
            coroutine_fn = cast(Callable[P, Awaitable[Any]], func)

            @functools.wraps(func)
            async def async_wrapper(*args: P.args, **kwargs: P.kwargs) -> Any:
                handle, token = start(args, kwargs)
                try:
                    result = await coroutine_fn(*args, **kwargs)
                except BaseException as exc:
                    finish(handle, token, None, exc)
                    raise
                finish(handle, token, result, None)
                return result
            return cast(Callable[P, R], async_wrapper)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            handle, token = start(args, kwargs)
            try:
                result = func(*args, **kwargs)
            except BaseException as exc:
                finish(handle, token, None, exc)
                raise
            finish(handle, token, result, None)
            return result
        return wrapper

    if fn is not None:  # used bare: @summarization
        return decorate(fn)
    return cast(_Decorator, decorate)


_Start = Callable[[tuple[Any, ...], dict[str, Any]], tuple[SummarizationSpan | None, Any]]
_Finish = Callable[..., None]


def _attached(handle: SummarizationSpan | None) -> Any:
    """Make the span current while a generator runs one step (not across yields: the caller's code runs
    between them, in its own context)."""
    if handle is None:
        return None
    return otel_context.attach(trace.set_span_in_context(handle.span)), _CURRENT.set(handle)


def _detached(handle: SummarizationSpan | None, token: Any) -> None:
    if handle is not None and token is not None:
        otel_context.detach(token[0])
        _CURRENT.reset(token[1])


def _traced_generator(func: Callable[..., Generator[Any, Any, Any]], start: _Start,
                      finish: _Finish) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
        handle, token = start(args, kwargs)
        _detached(handle, token)  # attached again around each step
        pieces: list[str] = []
        inner = func(*args, **kwargs)
        done = False
        try:
            while True:
                step = _attached(handle)
                try:
                    piece = next(inner)
                except StopIteration:
                    done = True
                    break
                finally:
                    _detached(handle, step)
                if isinstance(piece, str):
                    pieces.append(piece)
                yield piece
        except BaseException as exc:
            if not isinstance(exc, GeneratorExit):
                finish(handle, None, None, exc)
                raise
            inner.close()
            finish(handle, None, None, None, text="".join(pieces), incomplete=True)
            raise
        finish(handle, None, None, None, text="".join(pieces), incomplete=not done)
    return wrapper


def _traced_async_generator(func: Callable[..., AsyncGenerator[Any, Any]], start: _Start,
                            finish: _Finish) -> Callable[..., Any]:
    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        handle, token = start(args, kwargs)
        _detached(handle, token)
        pieces: list[str] = []
        inner = func(*args, **kwargs)
        try:
            while True:
                step = _attached(handle)
                try:
                    piece = await inner.__anext__()
                except StopAsyncIteration:
                    break
                finally:
                    _detached(handle, step)
                if isinstance(piece, str):
                    pieces.append(piece)
                yield piece
        except BaseException as exc:
            if not isinstance(exc, GeneratorExit):
                finish(handle, None, None, exc)
                raise
            await inner.aclose()
            finish(handle, None, None, None, text="".join(pieces), incomplete=True)
            raise
        finish(handle, None, None, None, text="".join(pieces))
    return wrapper
