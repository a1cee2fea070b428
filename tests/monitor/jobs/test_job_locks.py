"""The scheduled jobs and the API's actions share one lock per job: whichever starts second does not run."""

import threading

import httpx
import pytest
from served import serve

from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.jobs.worker import CLUSTERING_JOB, SAMPLER_JOB, Worker
from sumwatch.monitor.scoring.judges import build_cascade
from sumwatch.monitor.store.job_locks import INGEST, JobBusy, job_locks
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
def served(store, settings, rules):
    """(endpoint, gate): the API `sumwatch up` serves; mode "always" scores through a closed gate."""
    run_demo(store, n=4)
    gate = Gate(rules)
    server = serve(settings, store, judges=lambda mode: gate if mode == "always" else rules)
    yield server.endpoint, gate
    gate.release.set()
    server.stop()


def test_score_now_during_a_scheduled_sampler_pass_answers_409_naming_it(store, settings, served, rules):
    endpoint, _ = served
    gate = Gate(rules)
    worker = Worker(store, settings.with_(cluster_cron=NEVER), cascade=gate)
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
    assert job_locks(store).held() == {}
    again = httpx.post(endpoint + "/api/actions/score", json={"all": True}, headers=CLIENT, timeout=60)
    assert again.status_code == 200  # the lock went with the scheduled pass


def test_a_scheduled_sampler_pass_during_score_now_is_skipped_and_counted(store, settings, served, rules):
    endpoint, gate = served
    manual: dict = {}
    action = threading.Thread(target=lambda: manual.update(answer=httpx.post(
        endpoint + "/api/actions/score", json={"all": True, "mode": "always"}, headers=CLIENT, timeout=60)))
    action.start()
    try:
        assert gate.entered.wait(30)  # score now is inside its first batch
        assert job_locks(store).held() == {"scoring": "score"}
        worker = Worker(store, settings.with_(cluster_cron=NEVER), cascade=rules)
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


def test_cluster_now_and_the_scheduled_clustering_run_exclude_each_other(store, settings, rules):
    runner = ActionRunner(job_locks(store))
    entered, release = threading.Event(), threading.Event()

    def work(progress):
        entered.set()
        assert release.wait(30)
        return {"done": True}

    state = runner.start("cluster", work)
    try:
        assert entered.wait(30)
        worker = Worker(store, settings.with_(cluster_cron=NEVER), cascade=rules)
        worker.run_once()
        assert worker.stats[CLUSTERING_JOB].skipped == 1 and worker.stats[CLUSTERING_JOB].runs == 0
        assert worker.stats[SAMPLER_JOB].runs == 1  # the scoring lock was free
    finally:
        release.set()
        runner.wait(state)
    assert runner.last["cluster"].result == {"done": True}

    with job_locks(store).hold("clustering", "the scheduled clustering run"):
        with pytest.raises(ApiError) as raised:
            runner.start("cluster", work)
        assert raised.value.status == 409
        assert raised.value.message.startswith("the scheduled clustering run is already running")
        assert runner.running_now() == "the scheduled clustering run"
    assert runner.running_now() is None


def test_a_second_ingest_while_one_holds_the_lock_answers_409(store, served):
    endpoint, _ = served
    line = b'{"source": "Revenue rose 12% in Q1.", "summary": "Revenue rose 12%."}\n'
    with job_locks(store).hold(INGEST, "ingest"):
        busy = httpx.post(endpoint + "/api/ingest", content=line,
                          headers={**CLIENT, "content-type": "application/x-ndjson"}, timeout=30)
        assert busy.status_code == 409 and busy.json()["error"].startswith("ingest is already running")
        with pytest.raises(JobBusy), job_locks(store).hold(INGEST, "another"):
            pass
    done = httpx.post(endpoint + "/api/ingest", content=line,
                      headers={**CLIENT, "content-type": "application/x-ndjson"}, timeout=30)
    assert done.status_code == 200 and done.json()["stored"] == 1
