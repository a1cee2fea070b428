"""Keep the machine code numba compiles for umap-learn and pynndescent on disk, so a new process starts warm.

    use_jit_cache(jit_cache_dir(home))   # once per process, before the first UMAP fit
    umap = umap_module()                 # ``import umap`` with every numba function caching to that folder
    warm_jit_cache(jit_cache_dir(home))  # a tiny fit that compiles and stores what a clustering run needs

UMAP's neighbour search (pynndescent) and layout are numba functions compiled on their first call in each
process: a first 100,000-failure run took 505 s against 82 s for the next one in the same process. Only
some of them ask numba to cache (``cache=True``), so pointing numba at a cache folder alone keeps little;
the module-level functions of both libraries get caching switched on here before their first call, and
numba then writes each compiled signature to the folder and loads it in the next process (keyed by source
file stamp, signature and CPU, so an upgrade or another CPU compiles afresh). Two things would
still keep pynndescent's neighbour search (``nn_descent``, used above a few thousand points, with about 48
functions compiled beneath it) compiling in every process, and both are dealt with here:

- ``nn_descent`` and ``nn_descent_internal`` ask ``numba.get_num_threads()``, which numba compiles to a ctypes
  pointer it refuses to cache ("dynamic globals"). Each is re-made from the library's own function object
  (same code, same defaults) with ``numba`` in its globals standing for a copy whose ``get_num_threads`` calls
  the same C function by its linked name (:mod:`.numba_threads`), jitted with caching on under its own name,
  and put in the module in place of the original; the pair then loads from the cache like the rest.
- Functions that take a compiled function as an argument (the distance: ``process_candidates``, ``init_random``,
  ...) are cached under a signature naming that function's dispatcher, which numba identifies by an id drawn
  at random in each process, so the next process never finds the entry. Each library dispatcher gets an id
  made from its module and name instead, before anything is cached.

Functions compiled at import from an explicit signature without ``cache=True`` (two small ones in
``umap.utils``) and functions made at run time (closures for custom metrics) stay uncached.
``NUMBA_CACHE_DIR``, numba's own setting, wins over the data directory when set, so an image can carry a
cache compiled at build time.
"""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

_LIBRARIES = ("umap", "pynndescent")
_enabled: dict[int, str] = {}  # id(dispatcher) -> the cache folder its caching points at
# module -> its functions that ask numba for the thread count, each before its callers (see the docstring)
_THREAD_COUNT_USERS = {"pynndescent.pynndescent_": ("nn_descent_internal", "nn_descent")}
_REMADE_SUFFIX = "_linked_threads"  # a name of their own, so their cache entries are never the originals'


@dataclass(frozen=True)
class CacheSwitch:
    """What switching caching on found: numba functions now caching, ones that already did, ones left out."""

    enabled: int
    already: int
    skipped: int


def jit_cache_dir(home: Path) -> Path:
    """The folder for numba's cache: ``NUMBA_CACHE_DIR`` when numba was given one, else ``numba`` under home."""
    configured = str(_numba_config().CACHE_DIR or "")
    return Path(configured) if configured else Path(home) / "numba"


def use_jit_cache(directory: Path) -> CacheSwitch:
    """Point numba's cache at ``directory`` for this process and switch caching on for umap-learn and
    pynndescent functions already imported (``umap_module`` does it for the rest on import)."""
    directory = Path(directory).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    _numba_config().CACHE_DIR = str(directory)
    return _switch_on_loaded()


def umap_module() -> ModuleType:
    """``import umap``, with caching switched on for its and pynndescent's numba functions when a cache folder
    is in use (see ``use_jit_cache``)."""
    import umap  # noqa: PLC0415 - heavy: loaded on first use

    _switch_on_loaded()
    module: ModuleType = umap
    return module


def _numba_config() -> Any:
    """numba's settings, read from its environment variables at import and changeable in the process."""
    from numba.core import config  # noqa: PLC0415 - heavy: loaded on first use

    return config


def _switch_on_loaded() -> CacheSwitch:
    from numba.core.dispatcher import Dispatcher  # noqa: PLC0415 - heavy: loaded on first use

    folder = str(_numba_config().CACHE_DIR or "")
    if not folder:  # without a folder numba would write next to the installed sources: leave numba as it is
        return CacheSwitch(0, 0, 0)
    _remake_thread_count_users()
    enabled = already = skipped = 0
    for name, module in list(sys.modules.items()):
        if module is None or name.split(".")[0] not in _LIBRARIES:
            continue
        for value in list(vars(module).values()):
            if not isinstance(value, Dispatcher) or getattr(value.py_func, "__module__", None) != name:
                continue  # each function once: in the module that defines it, not where it is imported
            _pin_identity(value, f"{name}.{value.py_func.__qualname__}")
            if _enabled.get(id(value)) == folder:
                already += 1
                continue
            try:
                # also re-points functions declared cache=True, whose cache was placed when they were decorated
                value.enable_caching()
            except RuntimeError:  # numba finds no place to cache this function's source
                skipped += 1
                continue
            _enabled[id(value)] = folder
            enabled += 1
    return CacheSwitch(enabled, already, skipped)


def _pin_identity(dispatcher: Any, name: str) -> None:
    """Give ``dispatcher`` the same id in every process, so a cached signature that names it (as an argument's
    type) matches in the next process; one that already has an id keeps it."""
    key = f"sumwatch.jit_cache:{name}"
    if dispatcher._MemoMixin__uuid is None and key not in type(dispatcher)._memo:
        dispatcher._set_uuid(key)


def _remake_thread_count_users() -> None:
    """Put cacheable twins of the library functions that ask numba for its thread count in their modules."""
    import numba  # noqa: PLC0415 - heavy: loaded on first use
    from numba.core.dispatcher import Dispatcher  # noqa: PLC0415

    for module_name, function_names in _THREAD_COUNT_USERS.items():
        module = sys.modules.get(module_name)
        if module is None:
            continue
        originals: list[Any] = [getattr(module, name, None) for name in function_names]
        if not all(isinstance(f, Dispatcher) and not f.py_func.__qualname__.endswith(_REMADE_SUFFIX)
                   for f in originals):
            continue  # remade already (or the library changed shape: leave it as it is)
        from .numba_threads import numba_with_linked_thread_count  # noqa: PLC0415 - imports numba

        namespace = dict(vars(module))  # the module's globals, so callees resolve as they do there
        namespace["numba"] = numba_with_linked_thread_count()
        for name, original in zip(function_names, originals, strict=True):
            source = original.py_func
            twin = types.FunctionType(source.__code__, namespace, source.__name__, source.__defaults__,
                                      source.__closure__)
            twin.__kwdefaults__ = source.__kwdefaults__
            twin.__module__ = source.__module__
            twin.__qualname__ = source.__qualname__ + _REMADE_SUFFIX
            options = {k: v for k, v in original.targetoptions.items() if k != "nopython"}
            remade = numba.njit(cache=True, **options)(twin)
            namespace[name] = remade  # callers remade after it call it, not the original
            setattr(module, name, remade)


def compile_counter() -> list[str]:
    """A list that from now on gets the name of every function numba compiles in this process (a load from the
    cache is not a compile)."""
    from numba.core import event  # noqa: PLC0415 - heavy: loaded on first use

    compiled: list[str] = []

    class _Recorder(event.Listener):
        def on_start(self, ev: Any) -> None:
            func = ev.data["dispatcher"].py_func
            compiled.append(f"{func.__module__}.{func.__qualname__}")

        def on_end(self, ev: Any) -> None:
            pass

    event.register("numba:compile", _Recorder())  # type: ignore[no-untyped-call]
    return compiled
