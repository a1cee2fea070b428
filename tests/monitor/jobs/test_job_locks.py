"""The scheduled jobs and the API's actions of one runtime share one lock per job: whichever starts second does not
run."""

import threading

import httpx
import pytest
from served import serve_runtime

from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.jobs.worker import CLUSTERING_JOB, SAMPLER_JOB, Worker
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.monitor.store.job_locks import INGEST, JobBusy
from sumwatch.monitor.views.errors import ApiError
from sumwatch.monitor.views.services import ActionRunner

pytestmark = pytest.mark.integration

NEVER = "0 0 1 1 *"
CLIENT = {"authorization": "Bearer none"}  # as the CLI sends: not a browser, so no CSRF token needed


class Gate:
    """A judge cascade that waits at each batch until released; a judge version of its own (all spans pending)."""

    def __init__(self, cascade):
        self._cascade, self.entered, self.release = cascade, threading.Event(), threading.Event()
        self.version = cascade.version + "+gate"

    def version_for(self, rubric):
        return self._cascade.version_for(rubric) + "+gate"

    def __getattr__(self, name):
        return getattr(self._cascade, name)

    def score_batch(self, *args, **kwargs):
        self.entered.set()
        assert self.release.wait(30)
        return self._cascade.score_batch(*args, **kwargs)


@pytest.fixture
def rules(settings):
    return build_cascade(settings.with_(embeddings=False), mode="off")


@pytest.fixture
def gate(rules):
    return Gate(rules)


@pytest.fixture
def runtime(store, settings, rules, gate):
    """The runtime `sumwatch up` gives its server and its worker; mode "always" scores through a closed gate."""
    return Runtime.build(settings.with_(cluster_cron=NEVER), store,
                         judges=lambda mode: gate if mode == "always" else rules)


@pytest.fixture
def served(store, runtime, gate):
    """(endpoint, gate): the API `sumwatch up` serves on the runtime."""
    run_demo(store, n=4)
    server = serve_runtime(runtime)
    yield server.endpoint, gate
    gate.release.set()
    server.stop()


def test_score_now_during_a_scheduled_sampler_pass_answers_409_naming_it(runtime, served, rules):
    endpoint, _ = served
    gate = Gate(rules)
    worker = Worker(runtime, cascade=gate)
    scheduled = threading.Thread(target=worker.run_once)
    scheduled.start()
    try:
        assert gate.entered.wait(30)  # the scheduled pass is inside its first batch, holding the scoring lock
        busy = httpx.post(endpoint + "/api/actions/score", json={"all": True}, headers=CLIENT, timeout=30)
        assert busy.status_code == 409
        assert busy.json()["error"].startswith("the scheduled sampler pass is already running")
        state = httpx.get(endpoint + "/api/actions", timeout=30).json()
        assert state["running"] == "the scheduled sampler pass" and "score" not in state["last"]
    finally:
        gate.release.set()
        scheduled.join(60)
    assert worker.stats[SAMPLER_JOB].runs == 1 and worker.stats[SAMPLER_JOB].skipped == 0
    assert runtime.locks.held() == {}
    again = httpx.post(endpoint + "/api/actions/score", json={"all": True}, headers=CLIENT, timeout=60)
    assert again.status_code == 200  # the lock went with the scheduled pass


def test_a_scheduled_sampler_pass_during_score_now_is_skipped_and_counted(runtime, served, rules):
    endpoint, gate = served
    manual: dict = {}
    action = threading.Thread(target=lambda: manual.update(answer=httpx.post(
        endpoint + "/api/actions/score", json={"all": True, "mode": "always"}, headers=CLIENT, timeout=60)))
    action.start()
    try:
        assert gate.entered.wait(30)  # score now is inside its first batch
        assert runtime.locks.held() == {"scoring": "score"}
        worker = Worker(runtime, cascade=rules)
        worker.run_once()  # the sampler finds the lock held; the clustering run does not
        stats = worker.stats
        assert stats[SAMPLER_JOB].skipped == 1 and stats[SAMPLER_JOB].runs == 0
        assert stats[CLUSTERING_JOB].runs == 1 and stats[CLUSTERING_JOB].skipped == 0
    finally:
        gate.release.set()
        action.join(60)
    assert manual["answer"].status_code == 200 and manual["answer"].json()["scored_spans"] > 0
    worker.run_once()  # the manual pass has ended: the scheduled one runs again
    assert worker.stats[SAMPLER_JOB].runs == 1 and worker.stats[SAMPLER_JOB].skipped == 1


def test_cluster_now_and_the_scheduled_clustering_run_exclude_each_other(store, runtime, rules):
    runner = ActionRunner(runtime.locks)
    entered, release = threading.Event(), threading.Event()

    def work(progress):
        entered.set()
        assert release.wait(30)
        return {"done": True}

    state = runner.start("cluster", work)
    try:
        assert entered.wait(30)
        worker = Worker(runtime, cascade=rules)
        worker.run_once()
        assert worker.stats[CLUSTERING_JOB].skipped == 1 and worker.stats[CLUSTERING_JOB].runs == 0
        assert worker.stats[SAMPLER_JOB].runs == 1  # the scoring lock was free
    finally:
        release.set()
        runner.wait(state)
    assert runner.last["cluster"].result == {"done": True}
    other = Worker(Runtime.build(runtime.settings, store), cascade=rules)  # another runtime: locks of its own
    with runtime.locks.hold("clustering", "the scheduled clustering run"):
        other.run_once()
    assert other.stats[CLUSTERING_JOB].skipped == 0 and other.stats[CLUSTERING_JOB].runs == 1

    with runtime.locks.hold("clustering", "the scheduled clustering run"):
        with pytest.raises(ApiError) as raised:
            runner.start("cluster", work)
        assert raised.value.status == 409
        assert raised.value.message.startswith("the scheduled clustering run is already running")
        assert runner.running_now() == "the scheduled clustering run"
    assert runner.running_now() is None


def test_a_second_ingest_while_one_holds_the_lock_answers_409(runtime, served):
    endpoint, _ = served
    line = b'{"source": "Revenue rose 12% in Q1.", "summary": "Revenue rose 12%."}\n'
    with runtime.locks.hold(INGEST, "ingest"):
        busy = httpx.post(endpoint + "/api/ingest", content=line,
                          headers={**CLIENT, "content-type": "application/x-ndjson"}, timeout=30)
        assert busy.status_code == 409 and busy.json()["error"].startswith("ingest is already running")
        with pytest.raises(JobBusy), runtime.locks.hold(INGEST, "another"):
            pass
    done = httpx.post(endpoint + "/api/ingest", content=line,
                      headers={**CLIENT, "content-type": "application/x-ndjson"}, timeout=30)
    assert done.status_code == 200 and done.json()["stored"] == 1
