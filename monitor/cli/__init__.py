"""The ``sumwatch`` command line (the commands are assembled in :mod:`.commands`).

    sumwatch demo --n 200          # the whole loop on the embedded database
    sumwatch up --port 4318        # OTLP/HTTP receiver, read API and scheduled jobs
    sumwatch traces --limit 20 --json

This package's own module stays empty of imports, so the entry point can set the process up before anything
loads: third-party pydantic plugins (an observability SDK installed beside sumwatch registers one, and loads its
whole SDK with the first model) are switched off for sumwatch's own processes unless the environment already
chooses (``PYDANTIC_DISABLE_PLUGINS``); they observed nothing of use here and cost every command 0.3 s.
"""

from __future__ import annotations

import os
from typing import Any


def main() -> None:
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    from .commands import app  # noqa: PLC0415 - start-up: the environment is set before pydantic loads

    app()


def __getattr__(name: str) -> Any:
    """``sumwatch.monitor.cli.app``, the typer application, loaded when asked for."""
    if name == "app":
        from .commands import app  # noqa: PLC0415 - start-up: see main

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    main()
