"""A store with four demo traces and one finished clustering run that found SW-1, served on loopback."""

import threading
from datetime import datetime, timezone

import numpy as np
import pytest
from served import serve

from sumwatch.monitor.demo.run import run_demo
from sumwatch.monitor.store.issue_members import MEMBER, REPRESENTATIVE, MemberRow, save_members
from sumwatch.monitor.store.issues import IssueState, save_states
from sumwatch.monitor.store.runs import RunRow, save_run

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
TOKEN = "s3cret-token"


@pytest.fixture
def run_at():
    return NOW


@pytest.fixture
def issue_state():
    """SW-1 as the clustering job leaves it, centroid included; a share with more places than are served."""
    return IssueState(1, "SW-1", "Numbers changed in the summary", "Figures differ from the source.",
                      "The model rounds and rewrites numbers.", "Copy figures verbatim.", "high", "factuality",
                      "number_mismatch", ["number", "percent"], "new", 2, 2, 2 / 3, 0,
                      NOW, NOW, np.ones(4, dtype=np.float32) / 2, "all-MiniLM-L6-v2", "KeywordNamer")


def _one_run_with_an_issue(store, state, trace_ids):
    """A finished clustering run that found one issue, written as the clustering job writes it."""
    save_states(store, [state], "run-1", NOW)
    save_members(store, [MemberRow("run-1", 1, tid, "0" * 16, NOW, service_name="svc", rubric="factuality",
                                   verdict="numerically_wrong", failure_mode="number_mismatch",
                                   membership=0.9 - i / 10, role=REPRESENTATIVE if i == 0 else MEMBER,
                                   evidence='summary: "21%" | source: "12%"',
                                   failure_text="factuality numerically wrong", run_at=NOW)
                         for i, tid in enumerate(trace_ids)])
    save_run(store, RunRow("run-1", NOW, NOW, NOW, NOW, failures=4, clustered=2, noise=2, issues=1, new_issues=1,
                           embedded=2, promoted=0, namer="KeywordNamer", embedding_model="all-MiniLM-L6-v2",
                           seconds=1.5))


@pytest.fixture
def served(store, settings, issue_state):
    """(server, the two trace ids in SW-1); the server wants ``Bearer s3cret-token``."""
    demo = run_demo(store, n=4)
    trace_ids = [e["trace_id"] for e in demo.examples][:2]
    _one_run_with_an_issue(store, issue_state, trace_ids)
    secured = settings.with_(api_token=TOKEN)
    server = serve(secured, store)
    yield server, trace_ids
    server.stop()


class _Gate:
    """A judge cascade that waits at its first batch until released: an action that is still running."""

    def __init__(self, cascade):
        self._cascade, self.entered, self.release = cascade, threading.Event(), threading.Event()
        self.version = cascade.version + "+gate"  # another judge version: every span is pending for it

    def version_for(self, rubric):
        return self._cascade.version_for(rubric) + "+gate"

    def __getattr__(self, name):
        return getattr(self._cascade, name)

    def score_batch(self, *args, **kwargs):
        self.entered.set()
        assert self.release.wait(30)
        return self._cascade.score_batch(*args, **kwargs)


@pytest.fixture
def api(store, settings, issue_state, rules_cascade):
    """(server, trace ids, the gate): demo traces scored by the rules, one clustering run, two items to label."""
    from sumwatch.monitor.contract.calibration import CorpusItem
    from sumwatch.monitor.demo.run import run_demo
    from sumwatch.monitor.scoring.sampler import Sampler
    from sumwatch.monitor.store.corpus import save_items

    demo = run_demo(store, n=4)
    trace_ids = [e["trace_id"] for e in demo.examples]
    _one_run_with_an_issue(store, issue_state, trace_ids[:2])
    Sampler(store, rules_cascade).run_pass()
    save_items(store, [CorpusItem("factuality", f"Revenue rose 12% in quarter {q}.", f"Revenue rose 21% in Q{q}.",
                                  status="needs_label", proposed_verdict="numerically_wrong", origin="promoted",
                                  trace_id=trace_ids[0]) for q in (1, 2)])
    gate = _Gate(rules_cascade)
    gate.release.set()
    secured = settings.with_(api_token=TOKEN)
    judges = {"off": rules_cascade, "always": gate}
    server = serve(secured, store, judges=lambda mode: judges.get(mode or "off", rules_cascade))
    yield server, trace_ids, gate
    gate.release.set()
    server.stop()
