"""deploy/kubernetes: both overlays render (tests/deploy/kustomize_lite.py) and every manifest passes the published
Kubernetes schema (kubernetes-validate, strict: an unknown field fails); then what the deployment relies on."""

from __future__ import annotations

import re
from pathlib import Path

import kubernetes_validate
import pytest
from kustomize_lite import KustomizeError, pod_specs, render

from sumwatch.monitor.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
OVERLAYS = sorted((ROOT / "deploy" / "kubernetes" / "overlays").iterdir())
K8S_VERSION = "1.33"  # a supported minor (CronJob timeZone is GA since 1.27)


def _docs(overlay: Path) -> list[dict]:
    return render(overlay)


def _by(docs: list[dict], kind: str, name: str) -> dict:
    return next(d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name)


def _containers(docs: list[dict]):
    for workload, spec in pod_specs(docs):
        for c in spec.get("initContainers", []) + spec["containers"]:
            yield workload, c


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_every_rendered_manifest_passes_the_kubernetes_schema(overlay):
    docs = _docs(overlay)
    assert {d["kind"] for d in docs} >= {"Deployment", "Service", "StatefulSet", "CronJob", "ConfigMap"}
    for d in docs:
        kubernetes_validate.validate(d, K8S_VERSION, strict=True)
        assert d["metadata"]["namespace"] == "sumwatch"


def test_the_validator_rejects_a_broken_manifest():
    d = _by(_docs(OVERLAYS[0]), "Deployment", "sumwatch")
    d["spec"]["replicas"] = "three"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(d, K8S_VERSION, strict=True)
    d["spec"]["replicas"], d["spec"]["replica"] = 3, 3  # a misspelt field
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(d, K8S_VERSION, strict=True)


def test_the_renderer_refuses_what_it_does_not_implement(tmp_path):
    (tmp_path / "kustomization.yaml").write_text("resources: []\npatches:\n  - path: p.yaml\n")
    with pytest.raises(KustomizeError, match="patches"):
        render(tmp_path)


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_receiver_is_a_replicated_deployment_with_liveness_and_database_readiness(overlay):
    docs = _docs(overlay)
    deploy = _by(docs, "Deployment", "sumwatch")
    assert deploy["spec"]["replicas"] >= 2
    c = deploy["spec"]["template"]["spec"]["containers"][0]
    assert c["args"][:2] == ["sumwatch", "up"] and "--no-worker" in c["args"]
    assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    service = _by(docs, "Service", "sumwatch")
    assert service["spec"]["selector"].items() <= deploy["spec"]["template"]["metadata"]["labels"].items()


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_samplers_are_a_statefulset_whose_replicas_equal_the_shard_count(overlay):
    docs = _docs(overlay)
    sts = _by(docs, "StatefulSet", "sumwatch-sampler")
    config = _by(docs, "ConfigMap", "sumwatch-config")["data"]
    assert int(config["SHARD_COUNT"]) == sts["spec"]["replicas"]
    c = sts["spec"]["template"]["spec"]["containers"][0]
    assert c["args"] == ["sampler"]
    pod_name = next(e for e in c["env"] if e["name"] == "POD_NAME")
    assert pod_name["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_clustering_runs_on_a_schedule_one_run_at_a_time(overlay):
    cron = _by(_docs(overlay), "CronJob", "sumwatch-cluster")
    assert cron["spec"]["concurrencyPolicy"] == "Forbid"
    spec = cron["spec"]["jobTemplate"]["spec"]
    assert spec["template"]["spec"]["containers"][0]["args"] == ["sumwatch", "cluster"]
    assert spec["activeDeadlineSeconds"] < 30 * 60  # ends before the next slot would be skipped


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_model_threads_follow_the_pods_cpu_limit(overlay):
    docs = _docs(overlay)
    models = [(w, c) for w, c in _containers(docs) if c.get("args") in (["sampler"], ["sumwatch", "cluster"])]
    assert len(models) == 2
    for workload, c in models:
        threads = next(e for e in c["env"] if e["name"] == "SUMWATCH_MODEL_THREADS")["valueFrom"]["resourceFieldRef"]
        assert threads == {"containerName": c["name"], "resource": "limits.cpu", "divisor": "1"}, workload
        assert "cpu" in c["resources"]["limits"]


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_every_container_has_requests_limits_a_pinned_image_and_secrets_from_secrets(overlay):
    docs = _docs(overlay)
    for workload, c in _containers(docs):
        assert {"requests", "limits"} <= set(c["resources"]), (workload["metadata"]["name"], c["name"])
        assert re.fullmatch(r"[\w./-]+:\d+\.\d+(\.\d+)*", c["image"]), c["image"]
        for e in c.get("env", []):
            if re.search(r"URL|TOKEN|KEY|PASSWORD", e["name"]):
                assert "secretKeyRef" in e.get("valueFrom", {}), e
    for workload, spec in pod_specs(docs):
        if workload["metadata"]["name"].startswith("sumwatch"):
            assert spec["securityContext"]["runAsNonRoot"] is True


@pytest.mark.parametrize("overlay", OVERLAYS, ids=lambda p: p.name)
def test_every_sumwatch_variable_the_manifests_set_is_a_setting(overlay):
    docs = _docs(overlay)
    known = {Settings.env_var(name) for name in Settings.names()}
    names = {key for d in docs if d["kind"] == "ConfigMap" for key in d.get("data", {})}
    names |= {e["name"] for _, c in _containers(docs) for e in c.get("env", [])}
    used = {n for n in names if n.startswith("SUMWATCH_")}
    assert used and used <= known, used - known
    config = _by(docs, "ConfigMap", "sumwatch-config")["data"]
    Settings.from_env(env={k: v for k, v in config.items() if k.startswith("SUMWATCH_")})  # values parse


def test_single_node_mounts_the_same_clickhouse_config_as_compose():
    docs = _docs(ROOT / "deploy" / "kubernetes" / "overlays" / "single-node")
    xml = (ROOT / "deploy" / "clickhouse" / "config.d" / "sumwatch.xml").read_text()
    assert _by(docs, "ConfigMap", "clickhouse-config")["data"] == {"sumwatch.xml": xml}
    mounts = _by(docs, "StatefulSet", "clickhouse")["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    assert "/etc/clickhouse-server/config.d/sumwatch.xml" in {m["mountPath"] for m in mounts}
