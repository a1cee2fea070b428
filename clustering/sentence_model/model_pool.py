"""Helper processes that run the sentence model beside this one, so one pass uses more cores.

    pool = ModelPool(ModelSpec("all-MiniLM-L6-v2", "onnx", 1, home / "models"), processes=2)
    rows = pool.run(chunks, encode_here)     # this process encodes some chunks, one helper process the others
    model_processes(0, threads=1)            # "auto": the usable CPUs (affinity and cgroup quota) per thread count

The forward pass is nearly all of a scoring pass's CPU, and each process runs it with its own intra-op threads
(``SUMWATCH_MODEL_THREADS``). The database, the rules, the LLM tier and every counter stay in the calling
process: only texts go out and vectors come back. A chunk is one model batch, formed by the caller the same way
whatever the number of processes, so its vectors do not depend on who computed it (int8 activations are
quantized per batch, so the batch, not the span, is the unit that keeps scores equal).

Helpers start with the ``spawn`` method (a fork would copy chDB's and torch's threads and locks), load the model
once, and live as long as the pool; a helper that dies makes the pool say so once and encode here.
"""

from __future__ import annotations

import logging
import math
import os
import signal
import threading
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..arrays import Vectors

_log = logging.getLogger(__name__)
_CGROUP_V2 = Path("/sys/fs/cgroup/cpu.max")
_CGROUP_V1 = (Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"), Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us"))


class Encoder(Protocol):
    """What a helper runs: one model batch in, its rows out."""

    def encode_chunk(self, texts: list[str]) -> Vectors: ...


@dataclass(frozen=True)
class ModelSpec:
    """What a helper loads: the model as this process runs it (after any fallback to torch)."""

    name: str
    backend: str
    threads: int | None
    cache_dir: Path | None
    prebuilt_dir: Path | None = None  # a model exported ahead (the image's), read before cache_dir


def usable_cpus() -> int:
    """CPUs this process may use: its affinity, bounded by a cgroup CPU quota (a pod's limit) where one is set."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    quota = _cgroup_quota()
    return max(1, min(cpus, math.ceil(quota)) if quota else cpus)


def _cgroup_quota() -> float | None:
    try:
        if _CGROUP_V2.exists():
            limit, _, period = _CGROUP_V2.read_text().split()[:2] + [""]
            return None if limit == "max" else int(limit) / int(period or 100_000)
        if _CGROUP_V1[0].exists():
            quota = int(_CGROUP_V1[0].read_text())
            return None if quota <= 0 else quota / int(_CGROUP_V1[1].read_text())
    except (OSError, ValueError):  # unreadable or odd: the affinity alone decides
        return None
    return None


def model_processes(requested: int, threads: int | None) -> int:
    """How many processes run the model: ``requested``, or with 0 ("auto") the usable CPUs over the threads each
    uses, at least one."""
    if requested < 0:
        raise ValueError(f"workers must be a number of processes or auto (0), got {requested}")
    return requested or max(1, usable_cpus() // max(1, threads or 1))


class ModelPool:
    """``processes`` model processes: this one and ``processes - 1`` helpers, started on first use."""

    def __init__(self, spec: ModelSpec, processes: int, load: Callable[[ModelSpec], Encoder]) -> None:
        if processes < 2:
            raise ValueError(f"a pool needs at least 2 processes, got {processes}")
        # ``load`` is a module-level function (it is pickled by name): a helper calls it once to get its model
        self.spec, self.processes, self._load = spec, processes, load
        self._executor: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def run(self, chunks: Sequence[list[str]], here: Callable[[list[str]], Vectors]) -> list[Vectors]:
        """Each chunk's rows, in order: helpers take chunks from the front, this process from the back."""
        results: list[Any] = [None] * len(chunks)
        todo = deque(range(len(chunks)))
        running: dict[Future[Any], int] = {}
        helpers = self.processes - 1
        executor = self._started() if len(chunks) > 1 else None
        while todo or running:
            # two chunks queued per helper keep it busy while this process encodes one; the last is kept here
            while executor is not None and len(todo) > 1 and len(running) < 2 * helpers:
                i = todo.popleft()
                running[executor.submit(_encode_in_helper, chunks[i])] = i
            if todo:
                i = todo.pop()
                results[i] = here(chunks[i])
            elif running:
                wait(running, return_when=FIRST_COMPLETED)
            for future in [f for f in running if f.done()]:
                i = running.pop(future)
                try:
                    results[i] = future.result()
                except BrokenProcessPool:
                    self._broken()
                    executor = None
                    todo.append(i)
            if executor is None and running:  # the helpers are gone: what they held is encoded here
                todo.extend(running.values())
                running.clear()
        return results

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True, cancel_futures=True)

    def _started(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._executor is None:
                import multiprocessing  # noqa: PLC0415 - only a pass with more than one process needs it

                self._executor = ProcessPoolExecutor(self.processes - 1, multiprocessing.get_context("spawn"),
                                                     initializer=_start_helper, initargs=(self._load, self.spec))
            return self._executor

    def _broken(self) -> None:
        _log.warning("sentence model helper process stopped; encoding in this process until the next pass")
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)


_helper_model: Any = None  # the helper process's model, loaded by _start_helper


def _start_helper(load: Callable[[ModelSpec], Encoder], spec: ModelSpec) -> None:
    global _helper_model  # one model per helper process, loaded before its first chunk
    # Ctrl-C reaches the whole process group: the parent stops its helpers, they need not print tracebacks
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _helper_model = load(spec)
    _helper_model.encode_chunk(["warm"])


def _encode_in_helper(chunk: list[str]) -> Vectors:
    rows: Vectors = _helper_model.encode_chunk(chunk)
    return rows
