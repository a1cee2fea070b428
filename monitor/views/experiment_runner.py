"""Run a team's own summarizer on every item of a dataset, in this process, and send each call to the server.

    task = load_task("app.summarize:summarize")           # module:function, or path/to/file.py:function
    outcome = run_experiment(client, "sw3", task, task_name="app.summarize:summarize", name="prompt-v4",
                             concurrency=4, on_item=bar)   # RunOutcome: the experiment, items run, errors

The task is called with the item's source as its first argument and, by keyword, the item's other fields it
declares (``reference``, ``expected_facts``, ``questions``, ``band``, ``metadata``, ``item_id``; all of them when
it takes ``**kwargs``). A function decorated with ``@summarization`` makes its span as in production; every span
started while an item runs is tagged with the experiment and the item, collected here, and sent to the server as
OTLP protobuf through the API client (a running ``sumwatch up``, or the app in this process). A task that makes
no summarization span gets one made here around its call. A task that raises on an item records the error on
that item and the run goes on. A killed run resumes: the server lists the items already sent, and they are not
called (nor judged) again.

This module stands on the client, the contract and the tracer (no server code), so a command that runs an
experiment through a running server loads no store or web framework.
"""

from __future__ import annotations

import asyncio
import base64
import contextvars
import importlib
import importlib.util
import inspect
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider

from sumwatch.tracer import semconv, summarization_attributes

from ..contract.datasets import DatasetItem
from ..contract.experiments import (
    EXPERIMENT_ATTR,
    EXPERIMENT_SERVICE,
    ITEM_ATTR,
    ExperimentInfo,
    ItemOutcome,
    StartExperiment,
)
from ..contract.limits import MAX_LIST_LIMIT

FIELDS = ("reference", "expected_facts", "questions", "band", "metadata", "item_id")
MAX_ERROR = 500
# finished calls go to the server together, at the latest this long after the first of them ended: a killed run
# loses the calls in flight and at most this much of finished ones
SEND_EVERY_S = 1.0
_ITEM: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("sumwatch_experiment_item",
                                                                               default=None)


class TaskError(ValueError):
    """A task that cannot be loaded or called: one line saying what and why."""


def load_task(spec: str, *, cwd: Path | None = None) -> Callable[..., Any]:
    """The function ``module:function`` (importable from ``cwd``, the working directory by default) or
    ``path/to/file.py:function``."""
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise TaskError(f"--task is module:function or path/to/file.py:function, got {spec!r}")
    folder = str((cwd or Path.cwd()).resolve())
    if folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_file():
                raise TaskError(f"--task {spec}: no such file {module_name}")
            loaded = importlib.util.spec_from_file_location(path.stem, path)
            if loaded is None or loaded.loader is None:
                raise TaskError(f"--task {spec}: cannot load {module_name} as Python")
            module = importlib.util.module_from_spec(loaded)
            sys.modules[path.stem] = module
            loaded.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except TaskError:
        raise
    except ModuleNotFoundError as exc:
        raise TaskError(f"--task {spec}: cannot import {module_name} ({exc}); run from the folder that holds it, "
                        f"or give path/to/file.py:function") from None
    except Exception as exc:  # the team's module raised while it was imported
        raise TaskError(f"--task {spec}: importing {module_name} raised {type(exc).__name__}: "
                        f"{_one_line(str(exc))}") from None
    function = getattr(module, attr, None)
    if function is None:
        raise TaskError(f"--task {spec}: {module_name} has no {attr!r}")
    if not callable(function):
        raise TaskError(f"--task {spec}: {attr} is a {type(function).__name__}, not a function")
    return function  # type: ignore[no-any-return]


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text[:MAX_ERROR] + ("…" if len(text) > MAX_ERROR else "")


def task_arguments(task: Callable[..., Any], item: DatasetItem) -> dict[str, Any]:
    """The keyword arguments of ``item``'s fields that ``task`` declares (all of them for ``**kwargs``)."""
    values: dict[str, Any] = {"reference": item.reference, "expected_facts": list(item.expected_facts),
                              "questions": list(item.questions), "band": item.band, "metadata": dict(item.metadata),
                              "item_id": item.item_id}
    try:
        parameters = list(inspect.signature(task).parameters.values())
    except (TypeError, ValueError):  # a builtin or an object without a signature: the source alone
        return {}
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return values
    named = {p.name for p in parameters[1:] if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                                            inspect.Parameter.KEYWORD_ONLY)}
    return {k: v for k, v in values.items() if k in named}


def call_task(task: Callable[..., Any], item: DatasetItem) -> str:
    """The summary ``task`` makes of ``item`` (a coroutine is run, a stream of pieces joined)."""
    result = task(item.source, **task_arguments(task, item))
    if inspect.isawaitable(result):
        result = asyncio.run(_awaited(result))
    if inspect.isgenerator(result):
        result = "".join(str(piece) for piece in result)
    if inspect.isasyncgen(result):
        result = asyncio.run(_joined(result))
    if not isinstance(result, str):
        raise TaskError(f"the task returned {type(result).__name__}, not the summary text")
    return result


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


async def _joined(stream: Any) -> str:
    return "".join([str(piece) async for piece in stream])


class _Collector(SpanProcessor):
    """Tags each span started while an item of this experiment runs, and keeps it for that item's outcome."""

    def __init__(self, experiment_id: str) -> None:
        self.experiment_id, self.active = experiment_id, True
        self._spans: dict[str, list[ReadableSpan]] = {}
        self._lock = threading.Lock()

    def on_start(self, span: Span, parent_context: Any = None) -> None:
        tag = _ITEM.get()
        if self.active and tag is not None and tag[0] == self.experiment_id:
            span.set_attributes({EXPERIMENT_ATTR: tag[0], ITEM_ATTR: tag[1]})

    def on_end(self, span: ReadableSpan) -> None:
        attributes = span.attributes or {}
        if self.active and attributes.get(EXPERIMENT_ATTR) == self.experiment_id:
            with self._lock:
                self._spans.setdefault(str(attributes.get(ITEM_ATTR)), []).append(span)

    def take(self, item_id: str) -> list[ReadableSpan]:
        with self._lock:
            return self._spans.pop(item_id, [])

    def shutdown(self) -> None:
        self.active = False

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


def _provider(collector: _Collector) -> TracerProvider:
    """The process's SDK provider with the collector added (an app that configured tracing keeps its exporters),
    or a new one registered globally so a decorated task's spans reach the collector."""
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        current.add_span_processor(collector)
        return current
    provider = TracerProvider(resource=Resource.create({"service.name": EXPERIMENT_SERVICE}))
    provider.add_span_processor(collector)
    trace.set_tracer_provider(provider)
    return provider


def run_item(task: Callable[..., Any], item: DatasetItem, experiment_id: str, collector: _Collector,
             tracer: trace.Tracer) -> ItemOutcome:
    """Call the task on one item with its spans tagged; the outcome to send (spans, or the error)."""
    token = _ITEM.set((experiment_id, item.item_id))
    summary, error, started = "", "", time.time_ns()
    try:
        summary = call_task(task, item)
    except Exception as exc:  # the team's code: the item records it, the run goes on
        error = _one_line(f"{type(exc).__name__}: {exc}")
    ended = time.time_ns()
    try:
        spans = collector.take(item.item_id)
        main = [s for s in spans if (s.attributes or {}).get(semconv.TASK) == semconv.TASK_SUMMARIZATION]
        if not main and not error:  # an undecorated task: its call as a summarization span made here
            span = tracer.start_span(semconv.SPAN_NAME, start_time=started, attributes=summarization_attributes(
                item.source, summary, band=item.band or None, expected_facts=list(item.expected_facts) or None))
            span.end(end_time=ended)
            spans += collector.take(item.item_id)
            main = [s for s in spans if (s.attributes or {}).get(semconv.TASK) == semconv.TASK_SUMMARIZATION]
    finally:
        _ITEM.reset(token)
    chosen = max(main, key=lambda s: (s.end_time or 0) - (s.start_time or 0)) if main else None  # the outermost
    context = chosen.get_span_context() if chosen is not None else None
    encoded = base64.b64encode(encode_spans(spans).SerializeToString()).decode("ascii") if spans else ""
    return ItemOutcome(item_id=item.item_id, trace_id=f"{context.trace_id:032x}" if context else "",
                       span_id=f"{context.span_id:016x}" if context else "", summary=summary, error=error,
                       latency_ms=round((ended - started) / 1e6, 3), spans=encoded)


def all_items(client: Any, dataset: str, version: int) -> list[DatasetItem]:
    """Every item of the dataset version, read a page at a time."""
    items: list[DatasetItem] = []
    cursor: str | None = None
    while True:
        page = client.dataset_items(dataset, version, limit=MAX_LIST_LIMIT, cursor=cursor)
        items += page.items
        cursor = page.next_cursor
        if not cursor:
            return items


@dataclass
class RunOutcome:
    experiment: ExperimentInfo
    resumed: bool
    ran: int = 0  # items called in this run
    skipped: int = 0  # items a killed run had finished
    errors: list[tuple[str, str]] = field(default_factory=list)  # (item, error) of this run


def run_experiment(client: Any, dataset: str, task: Callable[..., Any], *, task_name: str, name: str | None = None,
                   version: int | None = None, concurrency: int = 4,
                   on_item: Callable[[int, int], None] | None = None) -> RunOutcome:
    """Start (or resume) the experiment and run ``task`` on each item not finished yet, ``concurrency`` at a time;
    each outcome is sent as soon as its call ends. ``on_item(done, total)`` after each."""
    if concurrency < 1:
        raise TaskError(f"--concurrency must be at least 1, got {concurrency}")
    started = client.start_experiment(StartExperiment(dataset=dataset, version=version, name=name, task=task_name))
    experiment = started.experiment
    items = all_items(client, dataset, experiment.dataset_version)
    done = set(started.done)
    todo = [i for i in items if i.item_id not in done]
    outcome = RunOutcome(experiment, started.resumed, skipped=len(items) - len(todo))
    collector = _Collector(experiment.experiment_id)
    tracer = _provider(collector).get_tracer("sumwatch.experiments")
    finished = len(items) - len(todo)
    if on_item:
        on_item(finished, len(items))
    try:
        with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="sumwatch-task") as pool:
            # at most `concurrency` calls in flight: a failure (or Ctrl-C) stops the run before more start; finished
            # calls are sent in small batches (SEND_EVERY_S), so a killed run loses little
            pending = iter(todo)
            running: set[Future[ItemOutcome]] = set()
            ready: list[ItemOutcome] = []
            sent_at = time.monotonic()

            def send() -> None:
                nonlocal finished, sent_at
                if ready:
                    client.experiment_items(experiment.experiment_id, ready)
                    finished += len(ready)
                    outcome.ran += len(ready)
                    outcome.errors += [(r.item_id, r.error) for r in ready if r.error]
                    ready.clear()
                    if on_item:
                        on_item(finished, len(items))
                sent_at = time.monotonic()

            try:
                while True:
                    while len(running) < concurrency and (item := next(pending, None)) is not None:
                        running.add(pool.submit(run_item, task, item, experiment.experiment_id, collector, tracer))
                    if not running:
                        break
                    ended, running = wait(running, timeout=SEND_EVERY_S, return_when=FIRST_COMPLETED)
                    for future in ended:
                        ready.append(future.result())
                    if len(ready) >= concurrency or time.monotonic() - sent_at >= SEND_EVERY_S:
                        send()
                send()
            except BaseException:  # a task's BaseException, Ctrl-C, a refused send: no new call starts
                for future in running:
                    future.cancel()
                with suppress(Exception):  # what did finish is kept, when the server still takes it
                    send()
                raise
    finally:
        collector.shutdown()
    return outcome
