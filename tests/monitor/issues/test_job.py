"""The clustering job end to end on chDB: the demo workload scored offline, clustered with the real model,
UMAP and HDBSCAN, tracked across runs, promoted into the corpora, read back as issues."""

import json
import re
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest
from sklearn.metrics import adjusted_rand_score
from typer.testing import CliRunner

from sumwatch.monitor.calibration.corpus import label_item
from sumwatch.monitor.cli import app
from sumwatch.monitor.contract.calibration import NEEDS_LABEL
from sumwatch.monitor.demo import PLANTED_MODE_ATTR
from sumwatch.monitor.issues.job import run_clustering
from sumwatch.monitor.issues.reads import get_issue, list_issues
from sumwatch.monitor.settings import Settings
from sumwatch.monitor.store.connection import Store
from sumwatch.monitor.store.corpus import load_items
from sumwatch.monitor.store.embeddings import EMBEDDINGS_TABLE
from sumwatch.monitor.store.issue_members import ISSUE_MEMBERS_TABLE
from sumwatch.monitor.store.issues import ISSUES_TABLE
from sumwatch.monitor.store.migrations import migrate
from sumwatch.monitor.store.runs import CLUSTER_RUNS_TABLE, latest_run_id
from sumwatch.monitor.store.scores import SCORES_TABLE
from sumwatch.tracer.otel_traces import TRACES_TABLE

pytestmark = pytest.mark.integration

runner = CliRunner()


@pytest.fixture(scope="module")
def scored_db(sw_home, offline_cascade):
    """A database holding the demo workload (120 spans) scored by rules + embeddings, built once; tests copy it."""
    from sumwatch.monitor.demo.run import run_demo, score_demo

    settings = Settings.from_env(env={}, home=sw_home, database=f"src_{uuid.uuid4().hex[:8]}")
    store = Store.open(settings)
    migrate(store)
    result = run_demo(store, n=120, seed=11)
    score_demo(store, offline_cascade, result.run_id)
    yield settings.store.database
    store.command(f"DROP DATABASE IF EXISTS `{settings.store.database}`")
    store.close()


@pytest.fixture
def scored(store, scored_db):
    for table in (TRACES_TABLE, SCORES_TABLE):
        store.command(f"INSERT INTO `{store.database}`.`{table}` SELECT * FROM `{scored_db}`.`{table}`")
    return store


def _planted(store):
    return {(t, s): m for t, s, m in store.query_rows(
        f"SELECT TraceId, SpanId, SpanAttributes['{PLANTED_MODE_ATTR}'] FROM {TRACES_TABLE}")}


def test_a_run_turns_failing_spans_into_named_issues_that_match_the_planted_failures(scored, settings):
    report = run_clustering(scored, settings)
    failing = scored.query_rows(f"SELECT uniqExact(TraceId, SpanId) FROM {SCORES_TABLE} FINAL "
                                f"WHERE Passed = 0 AND Verdict != 'error'")[0][0]
    assert report.failures == failing > 30
    assert report.clustered >= 0.9 * report.failures
    # offline only the precise and certain kinds fail (numbers, length, filler, hedges, preambles); names,
    # negations, causes, quantifiers and copied runs wait as unsure for an LLM
    assert len(report.issues) >= 4 and report.new_issues == len(report.issues)
    assert [i.issue_id for i in sorted(report.issues, key=lambda i: i.number)] == [
        f"SW-{n}" for n in range(1, len(report.issues) + 1)]
    for issue in report.issues:
        assert issue.title and len(issue.title.split()) <= 10 and issue.fix
        assert issue.severity in ("low", "medium", "high")
        assert issue.rubric and issue.status == "new" and issue.traces == issue.members
    # shares as served: 4 decimal places each
    assert abs(sum(i.share for i in report.issues) - report.clustered / report.failures) <= 5e-5 * len(report.issues)

    # each failing span belongs to one issue, and issues follow the planted failure modes
    members = scored.query_rows(f"SELECT TraceId, SpanId, Number, Role FROM {ISSUE_MEMBERS_TABLE} FINAL "
                                f"WHERE RunId = {{r:String}}", {"r": report.run_id})
    assert len(members) == report.clustered == len({(t, s) for t, s, _, _ in members})
    planted = _planted(scored)
    truth = [planted[(t, s)] for t, s, _, _ in members]
    assert adjusted_rand_score(truth, [n for _, _, n, _ in members]) >= 0.7
    roles = Counter(r for *_, r in members)
    assert roles["representative"] >= len(report.issues) and roles["boundary"] >= 1

    # every failure text was embedded once and stored
    assert report.embedded == scored.query_rows(f"SELECT count() FROM {EMBEDDINGS_TABLE} FINAL")[0][0] > 0

    # representatives went to the corpus of their rubric, waiting for a label, with the judge's verdict proposed
    promoted = [i for i in load_items(scored, status=NEEDS_LABEL) if i.origin == "promoted"]
    assert len(promoted) == report.promoted >= len(report.issues)
    assert all(i.proposed_verdict and i.trace_id and i.note.startswith("SW-") for i in promoted)


def test_the_next_run_keeps_ids_names_and_embeddings_and_promotes_nothing_twice(scored, settings):
    first = run_clustering(scored, settings)
    item = next(i for i in load_items(scored, status=NEEDS_LABEL))
    label_item(scored, item.item_id, item.proposed_verdict)
    second = run_clustering(scored, settings)
    assert second.embedded == 0 and second.promoted == 0 and second.new_issues == 0
    assert {(i.issue_id, i.title, i.members) for i in first.issues} == {
        (i.issue_id, i.title, i.members) for i in second.issues}
    assert {i.status for i in second.issues} == {"ongoing"}
    assert next(i for i in load_items(scored, item_id=item.item_id)).status == "labelled"  # a label survives
    run, rows = list_issues(scored)
    assert run.run_id == second.run_id and len(rows) == len(second.issues)
    assert all(len(r.trend) == 2 and r.trend[0] == r.trend[1] == r.members for r in rows)


def test_the_same_failures_give_the_same_issues_in_a_fresh_database(scored, scored_db, settings, sw_home):
    """Rerunning on the same data and settings, from nothing, gives the same issues: same count, titles,
    rubrics and members (UMAP, HDBSCAN and the representative choice are all seeded)."""
    first = run_clustering(scored, settings)
    again = Settings.from_env(env={}, home=sw_home, database=f"t_{uuid.uuid4().hex[:10]}", port=0)
    other = Store.open(again)
    try:
        migrate(other)
        for table in (TRACES_TABLE, SCORES_TABLE):
            other.command(f"INSERT INTO `{other.database}`.`{table}` SELECT * FROM `{scored_db}`.`{table}`")
        second = run_clustering(other, again)
        members = {}
        for st in (scored, other):
            rows = st.query_rows(f"SELECT Number, TraceId, SpanId FROM {ISSUE_MEMBERS_TABLE}")
            members[st] = {n: sorted(r[1:] for r in rows if r[0] == n) for n in {r[0] for r in rows}}
    finally:
        other.command(f"DROP DATABASE IF EXISTS `{other.database}`")
        other.close()
    assert len(first.issues) == len(second.issues) >= 2
    assert sorted((i.title, i.rubric, i.members) for i in first.issues) == sorted(
        (i.title, i.rubric, i.members) for i in second.issues)
    assert sorted(members[scored].values()) == sorted(members[other].values())


def test_absent_issues_resolve_and_come_back_regressed(scored, settings):
    settings = settings.with_(cluster_resolve_after=2)
    now = datetime.now(timezone.utc)
    first = run_clustering(scored, settings, now=now)
    later = now + timedelta(days=30)  # a window with no failing spans
    run_clustering(scored, settings, now=later)
    gone = run_clustering(scored, settings, now=later + timedelta(hours=1))
    assert sorted(gone.resolved) == sorted(i.issue_id for i in first.issues)
    _, rows = list_issues(scored)
    assert {r.status for r in rows} == {"resolved"} and all(r.members == 0 for r in rows)
    back = run_clustering(scored, settings, now=now)
    assert back.new_issues == 0 and {i.status for i in back.issues} == {"regressed"}


def test_a_run_that_dies_before_its_last_write_leaves_nothing_visible(scored, settings, monkeypatch):
    good = run_clustering(scored, settings)
    import sumwatch.monitor.issues.job as job

    real_insert = scored.insert

    def dying_insert(table, rows, columns):
        if table == CLUSTER_RUNS_TABLE:
            raise RuntimeError("killed")
        return real_insert(table, rows, columns)

    monkeypatch.setattr(scored, "insert", dying_insert)
    with pytest.raises(RuntimeError):
        job.run_clustering(scored, settings)
    monkeypatch.setattr(scored, "insert", real_insert)
    assert latest_run_id(scored) == good.run_id
    _, rows = list_issues(scored)
    assert {r.number for r in rows} == {i.number for i in good.issues}
    again = run_clustering(scored, settings)  # carries on from the last finished run
    assert again.new_issues == 0
    dupes = scored.query_rows(f"SELECT Number, count() FROM {ISSUES_TABLE} FINAL WHERE RunId = {{r:String}} "
                              f"GROUP BY Number HAVING count() > 1", {"r": again.run_id})
    assert dupes == []


def test_issue_detail_has_representatives_with_evidence_and_trace_ids(scored, settings):
    report = run_clustering(scored, settings)
    top = report.issues[0]
    detail = get_issue(scored, top.issue_id)
    assert detail.title == top.title and detail.seen_in_run == report.run_id
    assert detail.representatives and all(e.evidence and e.trace_id for e in detail.representatives)
    assert len(detail.trace_ids) == top.traces
    assert detail.history == [{"run_id": report.run_id, "run_at": detail.history[0]["run_at"],
                               "members": top.members, "status": "new"}]
    assert get_issue(scored, "SW-999") is None
    with pytest.raises(ValueError, match="SW-12"):
        get_issue(scored, "twelve")


def test_no_failures_is_a_quiet_run(store, settings):
    report = run_clustering(store, settings)
    assert (report.failures, report.issues, report.promoted) == (0, [], 0)
    assert latest_run_id(store) == report.run_id


def test_cli_cluster_issues_and_show(scored, cli_env):
    result = runner.invoke(app, ["cluster", "--window", "7d", "--json"], env=cli_env, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["issues"] and report["failures"] > 0
    listed = runner.invoke(app, ["issues", "--json"], env=cli_env, catch_exceptions=False)
    doc = json.loads(listed.stdout)
    assert doc["run"]["run_id"] == report["run_id"]
    assert [i["issue_id"] for i in doc["issues"]] == [i["issue_id"] for i in report["issues"]]
    table = runner.invoke(app, ["issues"], env=cli_env, catch_exceptions=False)
    assert table.exit_code == 0 and doc["issues"][0]["issue_id"] in table.stdout and "fix:" in table.stdout
    first = doc["issues"][0]["issue_id"]
    shown = runner.invoke(app, ["issues", "show", first], env=cli_env, catch_exceptions=False)
    assert shown.exit_code == 0 and "probable root cause" in shown.stdout and "representative" in shown.stdout
    detail = json.loads(runner.invoke(app, ["issues", "show", first, "--json"], env=cli_env).stdout)
    assert detail["issue_id"] == first and detail["trace_ids"]


@pytest.mark.parametrize("args, code, message", [
    (["cluster", "--window", "3x"], 2, "like 24h or 7d"),
    (["issues", "show", "nope"], 2, "looks like SW-12"),
    (["issues", "show", "SW-404"], 1, "no issue SW-404"),
])
def test_cli_bad_input_says_what_is_wrong(store, cli_env, args, code, message):
    result = runner.invoke(app, args, env=cli_env)
    assert result.exit_code == code
    assert message in result.output


def test_an_llm_names_new_issues_once(scored, settings):
    from fakes.openai_server import FakeOpenAI, answer

    reply = {"title": "Planted failure family", "description": "Summaries fail one way. They share a cause.",
             "root_cause": "The prompt allows it.", "fix": "Change the prompt.", "severity": "high"}
    with FakeOpenAI(answer(json.dumps(reply))) as fake:
        llm_settings = settings.with_(llm_model="openai/namer-test", llm_api_base=fake.base_url,
                                      llm_api_key="test-key")
        first = run_clustering(scored, llm_settings)
        calls = len(fake.requests)
        second = run_clustering(scored, llm_settings)
        assert calls == len(first.issues) and len(fake.requests) == calls  # known issues keep their names
    assert first.namer == "llm:openai/namer-test"
    assert {i.title for i in first.issues} == {"Planted failure family"} == {i.title for i in second.issues}
    body = json.dumps(fake.requests[0].body)
    assert "<in_cluster>" in body and "<outside_cluster>" in body


def test_a_run_whose_llm_naming_failed_says_so(scored, settings):
    from fakes.openai_server import FakeOpenAI, error

    with FakeOpenAI(error(500, "upstream exploded")) as fake:
        llm_settings = settings.with_(llm_model="openai/namer-test", llm_api_base=fake.base_url,
                                      llm_api_key="test-key")
        report = run_clustering(scored, llm_settings)
    assert report.issues and report.namer.startswith("keywords (LLM failed: ")
    assert "llm:" not in report.namer and "test-key" not in report.namer
    assert all(i.namer == report.namer for i in report.issues)


def test_cluster_prints_the_status_counts_and_trend_that_issues_lists(scored, cli_env):
    """A second `sumwatch cluster` shows its issues as ongoing with their trend, exactly as `sumwatch issues`."""
    runner.invoke(app, ["cluster", "--window", "7d", "--json"], env=cli_env, catch_exceptions=False)
    second = runner.invoke(app, ["cluster", "--window", "7d", "--json"], env=cli_env, catch_exceptions=False)
    report = json.loads(second.stdout)
    listed = json.loads(runner.invoke(app, ["issues", "--json"], env=cli_env, catch_exceptions=False).stdout)
    fields = ("issue_id", "status", "trend", "members", "traces", "share")
    assert [tuple(str(i[f]) for f in fields) for i in report["issues"]] == [
        tuple(str(i[f]) for f in fields) for i in listed["issues"]]
    assert report["issues"] and all(i["status"] == "ongoing" and len(i["trend"]) == 2 for i in report["issues"])
    text = runner.invoke(app, ["cluster", "--window", "7d"], env=cli_env, catch_exceptions=False).stdout
    assert "ongoing" in text and "(0 new)" in text and len(re.findall(r"\bnew\b", text)) == 1, text
