"""deploy/docker-compose.yml against the compose-spec JSON schema (the copy check-jsonschema vendors), and the
wiring the stack relies on: pinned images, schema first, known settings, the Collector and Grafana set-up."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import jsonschema
import pytest
import yaml
from grafana_sql import DASHBOARD

from sumwatch.monitor.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())  # anchors and merge keys resolved


def test_compose_file_passes_the_compose_spec_schema(compose):
    schema = json.loads(resources.files("check_jsonschema.builtin_schemas.vendor")
                        .joinpath("compose-spec.json").read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    assert list(validator.iter_errors(compose)) == []
    broken = {**compose, "services": {**compose["services"], "sumwatch": {**compose["services"]["sumwatch"],
                                                                          "restart": ["always"]}}}
    assert list(validator.iter_errors(broken))  # the schema is live: a wrong type fails


def test_every_image_is_pinned(compose):
    images = {name: s["image"] for name, s in compose["services"].items()}
    assert {"clickhouse", "collector", "grafana"} <= set(images)
    for name, image in images.items():
        assert re.fullmatch(r"[\w./-]+:\d+\.\d+(\.\d+)*", image), (name, image)


def test_the_schema_is_migrated_before_anything_writes(compose):
    services = compose["services"]
    assert services["migrate"]["command"] == ["sumwatch", "db", "migrate"]
    assert services["migrate"]["depends_on"] == {"clickhouse": {"condition": "service_healthy"}}
    for name in ("sumwatch", "sampler-0", "sampler-1", "clusterer", "collector", "grafana"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}, name
    command = services["sumwatch"]["command"]
    assert command[:2] == ["sumwatch", "up"] and "--no-worker" in command


def test_samplers_cover_every_shard_once(compose):
    samplers = [s for name, s in compose["services"].items() if s.get("command") == ["sampler"]]
    counts = {int(s["environment"]["SHARD_COUNT"]) for s in samplers}
    assert counts == {len(samplers)} and len(samplers) >= 2
    assert sorted(int(s["environment"]["SHARD_INDEX"]) for s in samplers) == list(range(len(samplers)))


def test_every_sumwatch_variable_set_is_a_setting(compose):
    known = {Settings.env_var(name) for name in Settings.names()}
    used = {key for s in compose["services"].values() for key in (s.get("environment") or {})}
    used |= set(re.findall(r"^(\w+)=", (DEPLOY / ".env.example").read_text(), re.M))
    used = {u for u in used if u.startswith("SUMWATCH_")}
    assert len(used) >= 6 and used <= known, used - known


def test_clickhouse_mounts_the_server_config(compose):
    volumes = compose["services"]["clickhouse"]["volumes"]
    for source, target in (("config.d", "config.d"), ("users.d", "users.d")):
        assert f"./clickhouse/{source}/sumwatch.xml:/etc/clickhouse-server/{target}/sumwatch.xml:ro" in volumes
        assert (DEPLOY / "clickhouse" / source / "sumwatch.xml").is_file()


def test_the_collector_writes_into_the_migrated_otel_traces(compose):
    config = yaml.safe_load((DEPLOY / "otel-collector.yaml").read_text())
    exporter = config["exporters"]["clickhouse"]
    assert exporter["create_schema"] is False
    assert exporter["traces_table_name"] == "otel_traces"
    database = compose["services"]["sumwatch"]["environment"]["SUMWATCH_DATABASE"]
    assert exporter["database"] == database == Settings.from_env(env={}).store.database
    assert "clickhouse" in config["service"]["pipelines"]["traces/clickhouse"]["exporters"]


def test_grafana_gets_the_plugin_datasource_and_dashboard(compose):
    grafana = compose["services"]["grafana"]
    assert re.fullmatch(r"grafana-clickhouse-datasource@\d+\.\d+\.\d+", grafana["environment"]["GF_PLUGINS_PREINSTALL"])
    mounts = {v.split(":")[1]: DEPLOY / v.split(":")[0] for v in grafana["volumes"] if v.startswith("./")}
    assert mounts["/var/lib/grafana/dashboards"] == DASHBOARD.parent
    datasource = yaml.safe_load((mounts["/etc/grafana/provisioning/datasources"] / "clickhouse.yaml").read_text())
    ds = datasource["datasources"][0]
    assert ds["type"] == "grafana-clickhouse-datasource"
    provider = yaml.safe_load((mounts["/etc/grafana/provisioning/dashboards"] / "sumwatch.yaml").read_text())
    assert provider["providers"][0]["options"]["path"] == "/var/lib/grafana/dashboards"
    dash = json.loads(DASHBOARD.read_text())
    uids = {p["datasource"]["uid"] for p in dash["panels"]} | {t["datasource"]["uid"] for p in dash["panels"]
                                                                 for t in p["targets"]}
    assert uids == {ds["uid"]}
    # the provisioning file's ${VAR}s are set on the container
    wanted = set(re.findall(r"\$\{(\w+)\}", (mounts["/etc/grafana/provisioning/datasources"] / "clickhouse.yaml")
                            .read_text()))
    assert wanted <= set(grafana["environment"])
