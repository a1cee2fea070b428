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
is traced until it is exhausted, and the joined text is recorded as the summary; ``send()``,
``throw()`` and its return value pass through as if undecorated.

The decorated function keeps its type: ``summarize`` above is still ``(text: str, doc_id: str) -> str``.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import logging
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable, Generator, Mapping, Sequence
from typing import Any, ParamSpec, Protocol, TypeVar, cast, overload

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode

from . import semconv
from ._attributes import (
    Usage,
    Value,
    _metadata_attributes,
    _source_attributes,
    _summary_attributes,
    _usage_attributes,
    from_arg,
    summarization_attributes,
)
from ._capture import CapturePolicy, current_policy

_log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")

__all__ = ["from_arg", "summarization", "summarization_span", "summarization_attributes", "SummarizationSpan",
           "record_usage", "Usage"]




















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
    (default: a str return, or its ``summary`` key/attribute). ``usage`` extracts a :class:`Usage`
    from the return value; the function may also call :func:`record_usage`. Metadata values are
    constants, :class:`from_arg` markers, or callables given the bound arguments.

    A generator's span stays open until the stream ends. ``summary`` and ``usage`` then apply to each
    yielded piece (default: str pieces as they are): the texts are joined into the summary and the last
    usage reported is kept, as streaming APIs report usage on their final chunk::

        @summarization(summary=lambda chunk: chunk.text, usage=lambda chunk: chunk.usage)
        async def stream(text: str) -> AsyncIterator[Chunk]: ...

    A stream closed before its end records the text so far, marked ``summarization.stream.incomplete``.
    """
    values: dict[str, Any] = dict(band=band, document_id=document_id, domain=domain,
                                  prompt_version=prompt_version, expected_facts=expected_facts, metadata=metadata)
    values = {k: v for k, v in values.items() if v is not None}
    get_summary = summary or _default_summary

    def decorate(func: Callable[P, R]) -> Callable[P, R]:
        plan = _Plan(func, source, values)

        def start(args: tuple[Any, ...], kwargs: dict[str, Any]) -> SummarizationSpan | None:
            try:
                policy = capture or current_policy()
                span = _tracer(tracer_provider).start_span(name, attributes=plan.attributes(args, kwargs, policy))
                return SummarizationSpan(span, policy)
            except Exception:
                _log.warning("sumwatch: could not start a span for %s", func.__qualname__, exc_info=True)
                return None

        def outcome(result: Any) -> _Outcome:
            """What a returned value says: extracted each on its own, so one failing extractor loses one part."""
            found = _Outcome()
            try:
                found.text = get_summary(result)
            except Exception:
                _log.warning("sumwatch: summary= failed for %s", func.__qualname__, exc_info=True)
            if usage is not None:
                try:
                    found.usage = usage(result)
                except Exception:
                    _log.warning("sumwatch: usage= failed for %s", func.__qualname__, exc_info=True)
            return found

        def stream() -> _Stream:
            return _Stream(func.__qualname__, summary or _text_piece, usage)

        if inspect.isasyncgenfunction(func):
            return cast(Callable[P, R], _traced_async_generator(func, start, stream))
        if inspect.isgeneratorfunction(func):
            return cast(Callable[P, R], _traced_generator(func, start, stream))
        if inspect.iscoroutinefunction(func):
            coroutine_fn = cast(Callable[P, Awaitable[Any]], func)

            @functools.wraps(func)
            async def async_wrapper(*args: P.args, **kwargs: P.kwargs) -> Any:
                handle = start(args, kwargs)
                token = _attach(handle)
                try:
                    result = await coroutine_fn(*args, **kwargs)
                except BaseException as exc:
                    _finish(handle, token, exc, None)
                    raise
                _finish(handle, token, None, outcome(result))
                return result
            return cast(Callable[P, R], async_wrapper)

        @functools.wraps(func)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            handle = start(args, kwargs)
            token = _attach(handle)
            try:
                result = func(*args, **kwargs)
            except BaseException as exc:
                _finish(handle, token, exc, None)
                raise
            _finish(handle, token, None, outcome(result))
            return result
        return wrapper

    if fn is not None:  # used bare: @summarization
        return decorate(fn)
    return cast(_Decorator, decorate)


class _Outcome:
    """What a call produced, for its span: the summary text, the usage, whether a stream was cut short."""

    __slots__ = ("text", "usage", "incomplete")

    def __init__(self) -> None:
        self.text: str | None = None
        self.usage: Usage | None = None
        self.incomplete = False


def _text_piece(piece: Any) -> str | None:
    return piece if isinstance(piece, str) else None


class _Stream:
    """What a generator summarizer has yielded so far: its text pieces and the last usage reported."""

    __slots__ = ("_owner", "_text_of", "_usage_of", "_pieces", "_usage")

    def __init__(self, owner: str, text_of: Callable[[Any], str | None] | None,
                 usage_of: Callable[[Any], Usage | None] | None) -> None:
        self._owner, self._text_of, self._usage_of = owner, text_of, usage_of
        self._pieces: list[str] = []
        self._usage: Usage | None = None

    def add(self, piece: Any) -> None:
        if self._text_of is not None:
            try:
                text = self._text_of(piece)
                if text is not None:
                    self._pieces.append(text if isinstance(text, str) else str(text))
            except Exception:  # a failing extractor is reported once and then left out of this stream
                _log.warning("sumwatch: summary= failed on a piece from %s", self._owner, exc_info=True)
                self._text_of = None
        if self._usage_of is not None:
            try:
                reported = self._usage_of(piece)
                if reported is not None:
                    self._usage = reported
            except Exception:
                _log.warning("sumwatch: usage= failed on a piece from %s", self._owner, exc_info=True)
                self._usage_of = None

    def outcome(self, *, incomplete: bool) -> _Outcome:
        found = _Outcome()
        found.text, found.usage, found.incomplete = "".join(self._pieces), self._usage, incomplete
        return found


def _attach(handle: SummarizationSpan | None) -> Any:
    """Make the span current (for nested spans and record_usage); the token for :func:`_detach`."""
    if handle is None:
        return None
    try:
        return otel_context.attach(trace.set_span_in_context(handle.span)), _CURRENT.set(handle)
    except Exception:
        _log.debug("sumwatch: could not make the span current", exc_info=True)
        return None


def _detach(token: Any) -> None:
    if token is not None:
        try:
            otel_context.detach(token[0])
            _CURRENT.reset(token[1])
        except Exception:
            _log.debug("sumwatch: could not restore the caller's context", exc_info=True)


def _finish(handle: SummarizationSpan | None, token: Any, exc: BaseException | None,
            found: _Outcome | None) -> None:
    """Restore the caller's context, record the error or the outcome, and end the span."""
    _detach(token)
    if handle is None:
        return
    span = handle.span
    try:
        if exc is not None:
            _record_error(span, exc)
        elif found is not None:
            attrs = _summary_attributes(found.text, handle._policy) if found.text is not None else {}
            if found.incomplete:
                attrs[semconv.STREAM_INCOMPLETE] = True
            if found.usage is not None:
                attrs.update(_usage_attributes(found.usage))
            span.set_attributes(attrs)
    except Exception:
        _log.warning("sumwatch: could not record the outcome of a summarization span", exc_info=True)
    finally:
        try:
            span.end()  # a span is always ended, even when recording its outcome failed
        except Exception:
            _log.debug("sumwatch: could not end the span", exc_info=True)


# Generators: the span is current only while the generator runs one step, never across a yield (the
# consumer's code runs between steps, in its own context). send() and throw() reach the wrapped
# generator as they would without the decorator.

def _traced_generator(func: Callable[..., Generator[Any, Any, Any]],
                      start: Callable[[tuple[Any, ...], dict[str, Any]], SummarizationSpan | None],
                      stream: Callable[[], _Stream]) -> Callable[..., Generator[Any, Any, Any]]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
        handle = start(args, kwargs)
        pieces = stream()
        inner = func(*args, **kwargs)
        sent: Any = None
        thrown: BaseException | None = None
        try:
            while True:
                step = _attach(handle)
                try:
                    piece = inner.send(sent) if thrown is None else inner.throw(thrown)
                except StopIteration as stop:
                    result = stop.value
                    break
                finally:
                    _detach(step)
                    thrown = None
                pieces.add(piece)
                try:
                    sent = yield piece
                except GeneratorExit:
                    raise
                except BaseException as exc:  # gen.throw(): passed on to the wrapped generator
                    sent, thrown = None, exc
        except GeneratorExit:
            try:
                inner.close()
            finally:
                _finish(handle, None, None, pieces.outcome(incomplete=True))
            raise
        except BaseException as exc:
            _finish(handle, None, exc, None)
            raise
        _finish(handle, None, None, pieces.outcome(incomplete=False))
        return result
    return wrapper


def _traced_async_generator(func: Callable[..., AsyncGenerator[Any, Any]],
                            start: Callable[[tuple[Any, ...], dict[str, Any]], SummarizationSpan | None],
                            stream: Callable[[], _Stream]) -> Callable[..., AsyncGenerator[Any, Any]]:
    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> AsyncGenerator[Any, Any]:
        handle = start(args, kwargs)
        pieces = stream()
        inner = func(*args, **kwargs)
        sent: Any = None
        thrown: BaseException | None = None
        try:
            while True:
                step = _attach(handle)
                try:
                    piece = await (inner.asend(sent) if thrown is None else inner.athrow(thrown))
                except StopAsyncIteration:
                    break
                finally:
                    _detach(step)
                    thrown = None
                pieces.add(piece)
                try:
                    sent = yield piece
                except GeneratorExit:
                    raise
                except BaseException as exc:  # agen.athrow(): passed on to the wrapped generator
                    sent, thrown = None, exc
        except GeneratorExit:
            try:
                await inner.aclose()
            finally:
                _finish(handle, None, None, pieces.outcome(incomplete=True))
            raise
        except BaseException as exc:
            _finish(handle, None, exc, None)
            raise
        _finish(handle, None, None, pieces.outcome(incomplete=False))
    return wrapper
