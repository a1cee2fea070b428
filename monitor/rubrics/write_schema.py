"""Writes the JSON Schema of a judge definition file beside the built-in files (a module of its own, so that
``-m`` runs it without importing it twice: the package imports :mod:`.definition_schema` already).

    python -m sumwatch.monitor.rubrics.write_schema            # definitions/judge-definition.schema.json
    python -m sumwatch.monitor.rubrics.write_schema --check    # exit 1 when the shipped file differs
"""

from __future__ import annotations

import sys

from .definition_schema import main

if __name__ == "__main__":
    sys.exit(main())
