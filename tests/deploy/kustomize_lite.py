"""A small kustomize renderer for the subset deploy/kubernetes uses, so the tests render the overlays with no
kustomize binary. Any field outside the subset is an error, never silently skipped.

    docs = render(Path("deploy/kubernetes/overlays/production"))   # list of manifests (dicts)

Subset, in kustomize's order: ``resources`` (files and directories), ``components``, ``configMapGenerator``
(``literals``, ``files``, ``behavior: create|merge``; with ``generatorOptions.disableNameSuffixHash``, so no
name rewriting is needed), then ``namespace``, ``labels`` (pairs on metadata only), ``images``, ``replicas``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

KNOWN = {"apiVersion", "kind", "resources", "components", "configMapGenerator", "generatorOptions", "namespace",
         "labels", "images", "replicas"}
WORKLOADS = {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod"}


class KustomizeError(ValueError):
    pass


def render(path: Path) -> list[dict[str, Any]]:
    return _build(path.resolve(), [], component=False)


def _load(path: Path) -> dict[str, Any]:
    file = path / "kustomization.yaml"
    if not file.is_file():
        raise KustomizeError(f"no kustomization.yaml in {path}")
    k = yaml.safe_load(file.read_text()) or {}
    unknown = set(k) - KNOWN
    if unknown:
        raise KustomizeError(f"{file}: fields this renderer does not implement: {sorted(unknown)}")
    return k


def _build(path: Path, docs: list[dict[str, Any]], *, component: bool) -> list[dict[str, Any]]:
    k = _load(path)
    expected = "Component" if component else "Kustomization"
    if k.get("kind", "Kustomization") != expected:
        raise KustomizeError(f"{path}: expected kind {expected}, got {k.get('kind')}")
    docs = list(docs)
    for ref in k.get("resources", []):
        target = (path / ref).resolve()
        if target.is_dir():
            docs += _build(target, [], component=False)
        else:
            _inside(path, target)
            docs += [d for d in yaml.safe_load_all(target.read_text()) if d]
    for ref in k.get("components", []):
        docs = _build((path / ref).resolve(), docs, component=True)
    options = k.get("generatorOptions", {})
    if k.get("configMapGenerator") and options != {"disableNameSuffixHash": True}:
        raise KustomizeError(f"{path}: only generatorOptions.disableNameSuffixHash: true is implemented")
    for gen in k.get("configMapGenerator", []):
        docs = _generate(path, gen, docs)
    if "namespace" in k:
        for d in docs:
            d.setdefault("metadata", {})["namespace"] = k["namespace"]
    for label in k.get("labels", []):
        if set(label) - {"pairs"}:
            raise KustomizeError(f"{path}: labels support pairs only, got {sorted(label)}")
        for d in docs:
            d.setdefault("metadata", {}).setdefault("labels", {}).update(label["pairs"])
    for image in k.get("images", []):
        for container in _containers(docs):
            name, _, _ = container["image"].partition(":")
            if name == image["name"]:
                container["image"] = f"{image.get('newName', name)}:{image['newTag']}"
    for rep in k.get("replicas", []):
        matches = [d for d in docs if d["metadata"]["name"] == rep["name"] and d["kind"] in WORKLOADS]
        if not matches:
            raise KustomizeError(f"{path}: replicas names {rep['name']!r}, which no workload has")
        for d in matches:
            d["spec"]["replicas"] = rep["count"]
    return docs


def _inside(root: Path, target: Path) -> None:
    # kustomize's default load restriction: files only from the kustomization's own folder tree
    if root not in target.parents:
        raise KustomizeError(f"{target} is outside {root} (kustomize would refuse to load it)")


def _generate(path: Path, gen: dict[str, Any], docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    unknown = set(gen) - {"name", "literals", "files", "behavior"}
    if unknown:
        raise KustomizeError(f"{path}: configMapGenerator fields not implemented: {sorted(unknown)}")
    data: dict[str, str] = {}
    for literal in gen.get("literals", []):
        key, sep, value = literal.partition("=")
        if not sep:
            raise KustomizeError(f"{path}: literal {literal!r} has no '='")
        data[key] = value
    for ref in gen.get("files", []):
        target = (path / ref).resolve()
        _inside(path, target)
        data[target.name] = target.read_text()
    behavior = gen.get("behavior", "create")
    existing = [d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == gen["name"]]
    if behavior == "merge":
        if not existing:
            raise KustomizeError(f"{path}: merge into ConfigMap {gen['name']!r}, which does not exist")
        merged = copy.deepcopy(existing[0])
        merged.setdefault("data", {}).update(data)
        return [merged if d is existing[0] else d for d in docs]
    if behavior != "create" or existing:
        raise KustomizeError(f"{path}: ConfigMap {gen['name']!r}: behavior {behavior!r} not implemented or a duplicate")
    return docs + [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": gen["name"]}, "data": data}]


def pod_specs(docs: list[dict[str, Any]]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(workload, its pod spec) for every workload."""
    for d in docs:
        if d["kind"] == "CronJob":
            yield d, d["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        elif d["kind"] == "Pod":
            yield d, d["spec"]
        elif d["kind"] in WORKLOADS:
            yield d, d["spec"]["template"]["spec"]


def _containers(docs: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for _, spec in pod_specs(docs):
        yield from spec.get("initContainers", [])
        yield from spec.get("containers", [])
