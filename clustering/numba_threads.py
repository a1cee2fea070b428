"""numba's thread count read through a linked symbol, so code that asks for it can be cached.

    shim = numba_with_linked_thread_count()   # a stand-in for the ``numba`` module in a function's globals

``numba.get_num_threads()`` inside compiled code calls the threading layer through a ctypes pointer, an
address numba cannot write to its cache ("dynamic globals"), so every function that asks is compiled again in
each process. The threading layer also registers the same C function with LLVM under the name
``get_num_threads`` (numba's own ``get_thread_id`` is called that way); calling it by that name gives the same
number and leaves nothing process-specific in the machine code. Kept apart from :mod:`.jit_cache` because
importing it imports numba.
"""

from __future__ import annotations

import types
from typing import Any

import numba
from llvmlite import ir
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.ufunc.parallel import _launch_threads


@intrinsic
def linked_num_threads(typingctx: Any) -> Any:
    """The threading layer's ``get_num_threads()`` (an int32, as numba's own returns), called by symbol name."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        fn = cgutils.get_or_insert_function(  # type: ignore[no-untyped-call]
            builder.module, ir.FunctionType(ir.IntType(32), []), "get_num_threads")
        return builder.call(fn, [])

    return numba.types.int32(), codegen


def numba_with_linked_thread_count() -> types.ModuleType:
    """A copy of the ``numba`` module's names whose ``get_num_threads`` is :func:`linked_num_threads`; starts the
    threading layer, which registers the symbol, before anything compiled against it can be loaded."""
    _launch_threads()  # type: ignore[no-untyped-call]
    shim = types.ModuleType("numba")
    shim.__dict__.update(vars(numba))
    shim.get_num_threads = linked_num_threads  # type: ignore[attr-defined]
    return shim
