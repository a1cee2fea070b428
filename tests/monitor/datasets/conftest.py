"""What the dataset tests build on: tagged summarization spans with their texts, one clustering run that found SW-1
among them, a factuality corpus, and the app in this process behind the client every command uses."""

import numpy as np
import pytest
from dataset_spans import SOURCES, T0, span_row, trace_id

from sumwatch.tracer import semconv


@pytest.fixture
def spans(store):
    """Four spans of service digest (the last one summarizes the first one's source again) and one of service
    alerts whose text was not captured."""
    rows = [span_row(i, s, f"summary {i}", facts='["12%"]' if i == 0 else "") for i, s in enumerate(SOURCES)]
    blind = span_row(9, "", "", service="alerts")
    blind[11].pop(semconv.INPUT_VALUE)
    store.insert_spans(rows + [blind])
    return rows


@pytest.fixture
def issue(store, spans):
    """SW-1 in run-1: spans 1, 0 and 3 (most central first), and the span without text."""
    from sumwatch.monitor.store.issue_members import MEMBER, REPRESENTATIVE, MemberRow, save_members
    from sumwatch.monitor.store.issues import IssueState, save_states
    from sumwatch.monitor.store.runs import RunRow, save_run

    state = IssueState(1, "SW-1", "Numbers changed", "", "", "", "high", "factuality", "number_mismatch", [],
                       "new", 4, 4, 0.5, 0, T0, T0, np.ones(4, dtype=np.float32) / 2, "m", "KeywordNamer")
    save_states(store, [state], "run-1", T0)
    members = [(1, 0.9), (0, 0.8), (3, 0.7), (9, 0.6)]
    save_members(store, [MemberRow("run-1", 1, trace_id(i), f"{i + 1:016x}", T0, "digest", "factuality",
                                   "numerically_wrong", "number_mismatch", share, REPRESENTATIVE if n == 0 else MEMBER,
                                   "evidence", "factuality numerically wrong", T0)
                         for n, (i, share) in enumerate(members)])
    save_run(store, RunRow("run-1", T0, T0, T0, T0, failures=4, clustered=4, noise=0, issues=1, new_issues=1,
                           embedded=4, promoted=0, namer="KeywordNamer", embedding_model="m", seconds=1.0))
    return "SW-1"


@pytest.fixture
def corpus(store):
    """Factuality items: one source with a labelled passing summary and a failing one, another needing a label,
    a third rejected."""
    from sumwatch.monitor.contract.calibration import CorpusItem
    from sumwatch.monitor.store.corpus import save_items

    save_items(store, [
        CorpusItem("factuality", "Revenue rose 12% in May.", "Revenue rose 12%.", human_verdict="correct",
                   bucket="pass", band="tldr", expected_facts=("12%",)),
        CorpusItem("factuality", "Revenue rose 12% in May.", "Revenue rose 21%.", human_verdict="numerically_wrong",
                   bucket="number_mismatch"),
        CorpusItem("factuality", "Costs fell 4% in June.", "Costs fell.", status="needs_label",
                   proposed_verdict="correct"),
        CorpusItem("factuality", "Staff grew to 40.", "Staff grew to 400.", status="rejected"),
    ])


@pytest.fixture
def client(store, settings):
    """The API client on the app in this process, on the test's store."""
    from sumwatch.monitor.runtime import Runtime
    from sumwatch.monitor.views.app import create_app
    from sumwatch.monitor.views.client import ApiClient

    with ApiClient.in_process(create_app(Runtime.build(settings, store))) as api:
        yield api
