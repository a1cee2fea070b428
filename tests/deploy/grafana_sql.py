"""The dashboard's panel SQL with the grafana-clickhouse-datasource macros expanded as the plugin expands them.

    sql = expand(panel_sql, start, end, interval_s=300)

Only the macros the dashboard uses are known; any other ``$__`` left in a query fails the test.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

DASHBOARD = Path(__file__).resolve().parents[2] / "deploy" / "grafana" / "dashboards" / "sumwatch.json"


def panel_queries() -> list[tuple[str, str]]:
    """(panel title, raw SQL) for every query of every panel."""
    dash = json.loads(DASHBOARD.read_text())
    return [(p["title"], t["rawSql"]) for p in dash["panels"] for t in p.get("targets", [])]


def expand(sql: str, start: datetime, end: datetime, interval_s: int) -> str:
    f, t = int(start.timestamp()), int(end.timestamp())
    sql = re.sub(r"\$__timeFilter\(([^)]+)\)",
                 lambda m: f"{m[1]} >= toDateTime({f}) AND {m[1]} <= toDateTime({t})", sql)
    sql = re.sub(r"\$__timeInterval\(([^)]+)\)",
                 lambda m: f"toStartOfInterval(toDateTime({m[1]}), INTERVAL {interval_s} second)", sql)
    sql = sql.replace("$__fromTime", f"toDateTime({f})").replace("$__toTime", f"toDateTime({t})")
    sql = sql.replace("$__interval_s", str(interval_s))
    if "$__" in sql:
        raise ValueError(f"a macro this test does not expand: {sql}")
    return sql
