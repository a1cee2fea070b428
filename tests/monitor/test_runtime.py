"""One runtime, built once from the settings: the cascades, the sentence model, the LLM connection, the tracker
settings and the job locks live on it, the app and the worker take it, and a clustering run is assembled by it.
In process, no server and no sentence model: building a runtime's cascades leaves its model unloaded."""

import hashlib
import re

import numpy as np
import pytest
from fastapi.testclient import TestClient

from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.exports.config import ExportConfig
from sumwatch.monitor.jobs.worker import Worker
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.store.runs import latest_run_id
from sumwatch.monitor.views.app import create_app

LLM = {"llm_model": "openai/runtime-test", "llm_api_base": "http://127.0.0.1:9/v1", "llm_api_key": "k"}


class HashedWords:
    """Texts as unit vectors of hashed words: a stand-in for the sentence model."""

    name = version = "hashed-words"

    def encode(self, texts):
        out = np.zeros((len(texts), 32), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in re.findall(r"[a-z]+", text.lower()):
                out[i, int(hashlib.md5(word.encode()).hexdigest(), 16) % 32] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1, norms)


def test_a_runtime_builds_each_modes_cascade_once_on_its_one_unloaded_model(store, settings):
    runtime = Runtime.build(settings.with_(**LLM), store)
    off, always = runtime.cascade("off"), runtime.cascade("always")
    assert runtime.cascade("off") is off and runtime.cascade("always") is always
    assert off is not always and (off.mode, always.mode) == ("off", "always")
    # one sentence model under every cascade (and under the learned tier), still not loaded
    assert off.embeddings.embedder is always.embeddings.embedder is runtime.embedder
    assert off.learned is always.learned and off.learned.embedder is runtime.embedder
    assert runtime.embedder._model is None
    # one connection: the judge's and the cluster namer's
    assert runtime.llm is not None and runtime.llm.model == "openai/runtime-test"
    assert always.llm.config.connection == runtime.llm
    assert runtime.clusterer().namer.model == "openai/runtime-test"


def test_two_runtimes_share_no_cascade_model_or_lock(store, settings):
    one, two = Runtime.build(settings, store), Runtime.build(settings, store)
    torch = Runtime.build(settings.with_(model_backend="torch"), store)
    assert one.cascade() is not two.cascade() and one.cascade() is not torch.cascade()
    assert one.embedder is not two.embedder and one.cascade().learned is not two.cascade().learned
    assert one.locks is not two.locks
    assert one.llm is None and one.clusterer() is not one.clusterer()  # a pipeline per call


def test_the_tracker_settings_are_the_settings_and_the_environment_is_not_read_again(store, settings, monkeypatch):
    runtime = Runtime.build(settings, store)
    assert runtime.exports is settings.exports and not runtime.exports.github_repo
    monkeypatch.setenv("SUMWATCH_GITHUB_REPO", "acme/later")
    monkeypatch.setenv("SUMWATCH_EXPORT_TARGETS", "github")
    assert not runtime.exports.github_repo and not runtime.settings.exports.github_repo
    app = create_app(runtime)
    assert app.state.services.export_config is runtime.exports
    with TestClient(app, base_url="http://localhost") as client:
        shown = client.get("/api/status").json()["settings"]
    assert not shown["github_repo"] and not shown["export_targets"]
    Worker(runtime, clusterer=object())  # would refuse export_targets=github without a token

    given = ExportConfig(github_repo="acme/summaries")
    replaced = Runtime.build(settings, store, exports=given)
    assert replaced.exports is given and replaced.settings.exports is given
    assert replaced.settings.store == settings.store


def test_the_app_and_the_worker_of_one_runtime_serve_its_store_and_share_its_locks(store, settings):
    run_demo(store, n=3)
    runtime = Runtime.build(settings, store)
    app = create_app(runtime)
    assert app.state.runtime is runtime
    services = app.state.services
    assert services.store is runtime.store and services.settings is runtime.settings
    assert services.judges("off") is runtime.cascade("off") and services.actions.locks is runtime.locks
    with TestClient(app, base_url="http://localhost") as client:
        status = client.get("/api/status").json()
    assert status["spans"] == 3
    worker = Worker(runtime, clusterer=object())
    assert worker.runtime is runtime and worker.settings is runtime.settings
    with runtime.locks.hold("scoring", "score (POST /api/actions/score)"):
        worker._run_sampler()  # the scheduled pass finds the app's lock held: skipped
    assert worker.stats["sampler"].skipped == 1 and worker.stats["sampler"].runs == 0


def test_a_clustering_run_reports_stage_done_total_and_a_raising_report_discards_it(store, settings):
    runtime = Runtime.build(settings, store, embedder=HashedWords())
    heard = []
    report = runtime.cluster(lambda stage, done, total: heard.append((stage, done, total)), window="1h")
    assert report.failures == 0 and latest_run_id(store) == report.run_id
    assert heard[0] == ("read", 0, 1) and ("cluster", 1, 1) in heard
    assert all(isinstance(done, int) and (total is None or isinstance(total, int)) for _, done, total in heard)

    def stop(stage, done, total):
        if stage == "cluster":
            raise RuntimeError("stopping")

    with pytest.raises(RuntimeError, match="stopping"):
        runtime.cluster(stop)
    assert latest_run_id(store) == report.run_id  # nothing of the stopped run was written


def test_a_runtime_is_not_rebound(store, settings):
    runtime = Runtime.build(settings, store)
    with pytest.raises(AttributeError):
        runtime.store = None
