"""What tickets are told about triage is true (loopback fakes): a resolve names who did it and what the last run still
counted; triage from before the first export follows the new ticket; comments reach a ticket exported by hand after
a sampler pass, whether or not ``SUMWATCH_EXPORT_TARGETS`` names its tracker."""

from datetime import datetime, timedelta, timezone

from fakes.trackers import Fault

from sumwatch.monitor.exports import export_issues, sync, triage_to_tickets
from sumwatch.monitor.issues.reads import get_issue
from sumwatch.monitor.issues.triage import act
from sumwatch.monitor.store.exports import load_exports

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)  # run N of the ``runs`` fixture finished at T0 + N hours


def _said(fake) -> list[str]:
    return [text for _, text in fake.github_comments]


def test_a_resolve_by_hand_names_who_and_what_the_last_run_still_counted(issues, fake, tmp_path, monkeypatch):
    config = fake.config(markdown_dir=str(tmp_path))
    export_issues(issues, config, "github", ["SW-1"])
    act(issues, "SW-1", "resolve", by="alice", source="dashboard")
    read = []
    monkeypatch.setattr(sync, "get_issue", lambda store, iid, **kw: read.append(iid) or get_issue(store, iid, **kw))
    assert export_issues(issues, config, "github", ["SW-1"])[0].action == "resolved"
    assert read == ["SW-1"]  # the comment takes the runs from the detail the payload was built from
    said = _said(fake)[-1]
    assert "SW-1 was resolved by alice at " in said
    assert "The last clustering run before that (run-1, 2026-11-20 13:00 UTC) still counted 5 failures in it." in said
    assert "no failures" not in said


def test_runs_after_a_resolve_by_hand_that_found_nothing_are_counted(issues, fake, tmp_path, runs, issue):
    config = fake.config(markdown_dir=str(tmp_path))
    export_issues(issues, config, "github", ["SW-1"])
    act(issues, "SW-1", "resolve", by="alice", now=T0 + timedelta(minutes=90))  # between run 1 and run 2
    runs(2, [issue(1, "resolved", members=0), issue(2, "ongoing", "low", 3)])
    export_issues(issues, config, "github", ["SW-1"])
    said = _said(fake)[-1]
    assert said.startswith("sumwatch: SW-1 was resolved by alice at 2026-11-20 13:30 UTC. The last clustering run "
                           "before that (run-1, 2026-11-20 13:00 UTC) still counted 5 failures in it.")
    assert "1 clustering run since found no failures of it." in said


def test_a_resolve_by_the_runs_counts_the_runs_that_found_none(issues, fake, tmp_path, runs, issue):
    config = fake.config(markdown_dir=str(tmp_path))
    export_issues(issues, config, "github", ["SW-1"])
    runs(2, [issue(1, "ongoing", members=0), issue(2, "ongoing", "low", 3)])
    runs(3, [issue(1, "resolved", members=0), issue(2, "ongoing", "low", 3)])
    assert export_issues(issues, config, "github", ["SW-1"])[0].action == "resolved"
    said = _said(fake)[-1]
    assert said.startswith("sumwatch: SW-1 is resolved by the clustering runs: no failures of it in the last 2 "
                           "clustering runs (the last run-3, 2026-11-20 15:00 UTC).")


def test_triage_before_the_first_export_follows_the_new_ticket_in_order(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path))
    act(issues, "SW-1", "assign", by="ana", value="bo")
    act(issues, "SW-1", "comment", by="ana", value="seen since the v3 prompt")
    assert export_issues(issues, config, "github", ["SW-1"])[0].action == "created"
    said = _said(fake)
    assert len(said) == 2 and "assigned to bo by ana" in said[0] and said[1].endswith("seen since the v3 prompt")
    export_issues(issues, config, "github", ["SW-1"])
    assert triage_to_tickets(issues, fake.config(markdown_dir=str(tmp_path), export_targets="github")) == []
    assert len(_said(fake)) == 2  # each once


def test_a_comment_refused_at_creation_keeps_the_ticket_and_goes_with_the_next_sync(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path))
    act(issues, "SW-1", "comment", by="ana", value="first")
    fake.fault = lambda target, op: Fault(422) if op == "comment" else None
    assert export_issues(issues, config, "github", ["SW-1"])[0].action == "created"
    assert load_exports(issues, target="github")[(1, "github")].external_id  # never created twice
    fake.fault = None
    export_issues(issues, config, "github", ["SW-1"])
    assert [text.rsplit("\n\n", 1)[1] for text in _said(fake)] == ["first"] and len(fake.github) == 1


def test_a_comment_reaches_a_ticket_exported_by_hand_without_export_targets(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path))  # SUMWATCH_EXPORT_TARGETS unset
    assert not config.export_targets
    export_issues(issues, config, "github", ["SW-1"])
    act(issues, "SW-1", "comment", by="ana", value="the prompt drops figures")
    results = triage_to_tickets(issues, config)  # what the worker runs after each sampler pass
    assert [(r.target, r.issue_id, r.action) for r in results] == [("github", "SW-1", "triage-sent")]
    assert _said(fake)[-1].endswith("the prompt drops figures")
    assert triage_to_tickets(issues, config) == []


def test_a_pass_with_nothing_to_send_reads_a_fixed_few_tables_and_builds_no_tracker(issues, fake, tmp_path,
                                                                                    monkeypatch):
    config = fake.config(markdown_dir=str(tmp_path), export_targets="github,linear")
    export_issues(issues, config, "github", ["SW-1", "SW-2"])
    export_issues(issues, config, "linear", ["SW-1"])
    act(issues, "SW-1", "comment", by="ana", value="sent once")
    act(issues, "SW-2", "assign", by="ana", value="bo")
    assert len(triage_to_tickets(issues, config)) == 3
    reads, built = [], []
    real_query = issues.query_rows
    monkeypatch.setattr(issues, "query_rows", lambda sql, *a, **k: reads.append(sql) or real_query(sql, *a, **k))
    monkeypatch.setattr("sumwatch.monitor.exports.sync.build_target", lambda name, cfg: built.append(name))
    requests = len(fake.requests)
    assert triage_to_tickets(issues, config) == []  # every event went: the ledger says so, one read per tracker
    assert len(reads) <= 4 and built == [] and len(fake.requests) == requests
