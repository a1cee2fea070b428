"""deploy/clickhouse: the server config bounds memory and system logs. The ClickHouse engine in chDB loads
the same file (in a subprocess: one engine per process), so its settings and log TTLs are the engine's reading
of it, not ours. Turning a log off (remove="1") acts on the server's own config.xml, which chDB does not have,
so that part is checked on the file."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hang_guard import HANG_GUARD_S

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "clickhouse" / "config.d" / "sumwatch.xml"
USERS = CONFIG.parents[1] / "users.d" / "sumwatch.xml"
# every *_log table a ClickHouse 25.x server can write
SYSTEM_LOGS = {"query_log", "part_log", "crash_log", "trace_log", "metric_log", "asynchronous_metric_log",
               "query_thread_log", "query_views_log", "query_metric_log", "processors_profile_log", "text_log",
               "session_log", "opentelemetry_span_log", "asynchronous_insert_log", "backup_log", "blob_storage_log",
               "error_log", "latency_log", "s3queue_log", "zookeeper_log"}

ENGINE = r"""
import json, sys
from chdb import session
s = session.Session(sys.argv[1] + "?config-file=" + sys.argv[2])
s.query("SELECT 1")
s.query("SYSTEM FLUSH LOGS")
settings = {}
for line in str(s.query("SELECT name, value FROM system.server_settings WHERE name IN "
                        "('max_server_memory_usage_to_ram_ratio', 'mark_cache_size', 'uncompressed_cache_size')",
                        "JSONCompactEachRow")).splitlines():
    name, value = json.loads(line)
    settings[name] = value
ttls = {}
for line in str(s.query("SELECT name, engine_full FROM system.tables WHERE database = 'system' "
                        "AND name IN ('query_log', 'part_log', 'crash_log')", "JSONCompactEachRow")).splitlines():
    name, engine = json.loads(line)
    ttls[name] = engine
print(json.dumps({"settings": settings, "engines": ttls}))
"""


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> dict:
    data = tmp_path_factory.mktemp("chconfig") / "engine"
    out = subprocess.run([sys.executable, "-c", ENGINE, str(data), str(CONFIG)], capture_output=True, text=True,
                         timeout=HANG_GUARD_S)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.integration
def test_the_engine_reads_the_memory_bounds(engine):
    assert float(engine["settings"]["max_server_memory_usage_to_ram_ratio"]) == 0.75
    assert int(engine["settings"]["mark_cache_size"]) == 256 * 1024 * 1024
    assert int(engine["settings"]["uncompressed_cache_size"]) == 0


@pytest.mark.integration
def test_the_logs_kept_expire(engine):
    assert "TTL event_date + toIntervalDay(7)" in engine["engines"]["query_log"]
    assert "TTL event_date + toIntervalDay(7)" in engine["engines"]["part_log"]
    assert "TTL event_date + toIntervalDay(30)" in engine["engines"]["crash_log"]


def test_every_system_log_is_off_or_expires():
    root = ET.parse(CONFIG).getroot()
    for name in SYSTEM_LOGS:
        node = root.find(name)
        assert node is not None, f"{name} is neither turned off nor given a TTL"
        assert node.get("remove") == "1" or "INTERVAL" in (node.findtext("ttl") or ""), name
    assert root.findtext("logger/size") and root.findtext("logger/count")  # the server's own log rotates


def test_queries_are_bounded_per_user():
    profile = ET.parse(USERS).getroot().find("profiles/default")
    assert int(profile.findtext("max_memory_usage")) > 0
    assert int(profile.findtext("max_bytes_before_external_group_by")) < int(profile.findtext("max_memory_usage"))
