"""Export to each tracker over real HTTP (the loopback fakes check every request's shape), once and in sync."""

import json
import logging

import pytest
from fakes.trackers import GITHUB_TOKEN, JIRA_TOKEN, LINEAR_KEY, WEBHOOK_SECRET, Fault

from sumwatch.monitor.exports import export_issues, issue_exports
from sumwatch.monitor.exports.sync import after_clustering

TICKETS = ("github", "linear", "jira", "markdown")


def _config(fake, tmp_path, **more):
    return fake.config(markdown_dir=str(tmp_path), **more)


def _tickets(fake, target, tmp_path):
    return {"github": fake.github, "linear": fake.linear, "jira": fake.jira,
            "markdown": {p.name: p for p in tmp_path.glob("SW-*.md")}}[target]


@pytest.mark.parametrize("target", TICKETS)
def test_export_creates_one_ticket_and_a_second_export_updates_it(issues, fake, tmp_path, target):
    config = _config(fake, tmp_path)
    first = export_issues(issues, config, target, ["SW-1"])
    assert [(r.issue_id, r.action) for r in first] == [("SW-1", "created")] and first[0].external_id
    again = export_issues(issues, config, target, ["SW-1"])
    assert again[0].action == "updated" and again[0].external_id == first[0].external_id
    assert len(_tickets(fake, target, tmp_path)) == 1 and fake.duplicates() == 0 and not fake.problems
    rows = issue_exports(issues, "SW-1")
    assert [(r.target, r.external_id, r.phase, r.error) for r in rows] == [(target, first[0].external_id, "synced", "")]


def test_github_ticket_holds_the_payload_and_links_back(issues, fake, tmp_path, spans):
    export_issues(issues, _config(fake, tmp_path), "github", ["SW-1"])
    (issue,) = fake.github.values()
    body = issue["body"]
    assert issue["title"] == "[SW-1] Numbers changed in summaries 1" and "sumwatch" in issue["labels"]
    for text in ("high", "factuality / number_mismatch", "5 traces", "Copy figures verbatim.",
                 "The model rewrites numbers.", "https://sumwatch.example.com/issues/SW-1",
                 f"https://sumwatch.example.com/traces/{spans[0][0]}", "Judge's evidence", "Source (excerpt)",
                 "<!-- sumwatch:SW-1 -->"):
        assert text in body, text
    assert body.count("### Example") == 3


def test_no_source_text_and_redaction(issues, fake, tmp_path):
    config = _config(fake, tmp_path, export_source_text=False, export_redact=r"\d+%")
    export_issues(issues, config, "github", ["SW-1"])
    body = next(iter(fake.github.values()))["body"]
    assert "Source (excerpt)" not in body and "Summary:" in body
    assert "21%" not in body and "[redacted]" in body


def test_jira_description_is_adf_within_the_limit(issues, fake, tmp_path):
    from sumwatch.monitor.exports.jira import fitted_document
    from sumwatch.monitor.exports.payload import IssuePayload, Representative

    export_issues(issues, _config(fake, tmp_path), "jira", ["SW-1"])
    fields = next(iter(fake.jira.values()))["fields"]
    assert fields["description"]["type"] == "doc" and "sumwatch-SW-1" in fields["labels"] and not fake.problems
    huge = IssuePayload("SW-9", 9, "t", "d" * 40_000, "c", "f", "high", "new", "factuality", "m", 1, 1, 1.0, [1],
                        "new", "", [Representative("a" * 32, "factuality", "x", "e" * 9000, "s" * 9000, "o" * 9000,
                                                   "")])
    doc = fitted_document(huge)
    assert len(json.dumps(doc, ensure_ascii=False)) <= 32_767 and "sumwatch:SW-9" in json.dumps(doc)


def test_linear_sends_the_documented_mutations_and_an_attachment(issues, fake, tmp_path):
    export_issues(issues, _config(fake, tmp_path), "linear", ["SW-1"])
    create = next(r for r in fake.requests if r.op == "create")
    assert create.headers["authorization"] == LINEAR_KEY
    assert create.body["query"].startswith("mutation IssueCreate($input: IssueCreateInput!)")
    inp = create.body["variables"]["input"]
    assert inp["teamId"] == "team-1" and inp["priority"] == 2 and len(inp["id"]) == 36
    assert fake.linear_attachments[0]["url"] == "https://sumwatch.example.com/issues/SW-1"


def test_regressed_reopens_with_a_comment_and_resolved_comments_and_closes(issues, fake, tmp_path, runs, issue):
    config = _config(fake, tmp_path, export_close_resolved=True)
    export_issues(issues, config, "github", ["SW-1"])
    runs(2, [issue(1, "resolved", members=0)])
    assert export_issues(issues, config, "github", ["SW-1"])[0].action == "closed"
    assert fake.github[1]["state"] == "closed" and "resolved" in fake.github_comments[-1][1]
    runs(3, [issue(1, "regressed", members=7)])
    result = export_issues(issues, config, "github", ["SW-1"])[0]
    assert result.action == "reopened" and result.tracker_state == "open" and fake.github[1]["state"] == "open"
    assert "regressed" in fake.github_comments[-1][1] and "7 traces" in fake.github[1]["body"]
    assert len(fake.github) == 1


@pytest.mark.parametrize("target", ("jira", "linear", "markdown"))
def test_regressed_reopens_in_every_tracker(issues, fake, tmp_path, runs, issue, target):
    config = _config(fake, tmp_path, export_close_resolved=True)
    export_issues(issues, config, target, ["SW-1"])
    runs(2, [issue(1, "resolved", members=0)])
    assert export_issues(issues, config, target, ["SW-1"])[0].tracker_state == "closed"
    runs(3, [issue(1, "regressed", members=7)])
    assert export_issues(issues, config, target, ["SW-1"])[0].tracker_state == "open"
    assert issue_exports(issues, "SW-1")[0].tracker_state == "open"


def test_a_ticket_closed_in_the_tracker_is_read_back(issues, fake, tmp_path):
    config = _config(fake, tmp_path)
    export_issues(issues, config, "github", ["SW-1"])
    fake.github[1]["state"] = "closed"  # someone closed it on GitHub
    assert export_issues(issues, config, "github", ["SW-1"])[0].tracker_state == "closed"
    assert issue_exports(issues, "SW-1")[0].tracker_state == "closed"
    assert fake.github[1]["state"] == "closed"  # not reopened: the issue did not regress


@pytest.mark.parametrize("target", ("github", "linear", "jira"))
def test_a_create_that_timed_out_after_it_was_stored_is_not_duplicated(issues, fake, tmp_path, target):
    timed_out = []

    def fault(t, op):
        if op == "create" and not timed_out:
            timed_out.append(op)
            return Fault(delay=0.6)  # stored, then answered after the client gave up
        return None
    fake.fault = fault
    result = export_issues(issues, _config(fake, tmp_path, export_timeout_s=0.3), target, ["SW-1"])[0]
    assert result.action == "created" and result.external_id
    assert len(_tickets(fake, target, tmp_path)) == 1 and fake.duplicates() == 0
    assert any(r.op == "find" or (r.op == "fetch" and target == "linear") for r in fake.requests)


def test_429_is_retried_after_retry_after_and_5xx_with_backoff(issues, fake, tmp_path):
    answers = iter([Fault(429, retry_after="0.2"), Fault(503)])
    fake.fault = lambda t, op: next(answers, None) if op == "create" else None
    import time

    started = time.monotonic()
    result = export_issues(issues, _config(fake, tmp_path), "github", ["SW-1"])[0]
    assert result.action == "created" and time.monotonic() - started >= 0.2
    assert [r.op for r in fake.requests].count("create") == 3


@pytest.mark.parametrize("status", (401, 404, 422))
def test_a_permanent_error_is_recorded_once_and_never_leaks_a_secret(issues, fake, tmp_path, caplog, status):
    fake.fault = lambda t, op: Fault(status)
    caplog.set_level(logging.INFO)
    results = []
    for target in ("github", "linear", "jira", "slack", "webhook"):
        results += export_issues(issues, _config(fake, tmp_path), target, ["SW-1"])
    assert {r.action for r in results} == {"failed"} and all(str(status) in r.error for r in results)
    assert len(fake.requests) == 5  # one attempt each: never retried
    rows = issue_exports(issues, "SW-1")
    assert {r.phase for r in rows} == {"failed"} and all(str(status) in r.error for r in rows)
    shown = caplog.text + json.dumps([r.to_json() for r in results]) + json.dumps([r.to_json() for r in rows])
    for secret in (GITHUB_TOKEN, LINEAR_KEY, JIRA_TOKEN, WEBHOOK_SECRET, "FAKEslackSECRET123"):
        assert secret not in shown


def test_retries_give_up_and_are_recorded(issues, fake, tmp_path):
    fake.fault = lambda t, op: Fault(500)
    result = export_issues(issues, _config(fake, tmp_path, export_max_attempts=3), "github", ["SW-1"])[0]
    assert result.action == "failed" and "gave up after 3 attempts" in result.error
    assert len(fake.requests) == 3


def test_slack_and_webhook_alert_once_per_issue_and_run(issues, fake, tmp_path, runs, issue):
    config = _config(fake, tmp_path, alert_targets="slack,webhook", alert_min_severity="high")
    results = after_clustering(issues, config)
    assert [(r.target, r.issue_id, r.action) for r in results] == [("slack", "SW-1", "alerted"),
                                                                   ("webhook", "SW-1", "alerted")]
    assert [r.action for r in after_clustering(issues, config)] == ["skipped", "skipped"]  # same run: once
    header = fake.slack[0]["blocks"][0]
    assert header["type"] == "header" and header["text"]["text"].startswith("New issue: SW-1")
    assert fake.slack[0]["blocks"][-1]["elements"][0]["url"] == "https://sumwatch.example.com/issues/SW-1"
    assert fake.webhook[0]["body"]["event"] == "new" and fake.webhook[0]["body"]["issue"]["issue_id"] == "SW-1"
    runs(2, [issue(1, "regressed", members=9), issue(2, "ongoing", "low")])
    assert [r.action for r in after_clustering(issues, config)] == ["alerted", "alerted"]
    assert fake.slack[-1]["blocks"][0]["text"]["text"].startswith("Regressed: SW-1") and not fake.problems


def test_a_wrong_webhook_signature_is_refused(issues, fake, tmp_path):
    result = export_issues(issues, _config(fake, tmp_path, webhook_secret="another-secret"), "webhook", ["SW-1"])
    assert result[0].action == "failed" and "401" in result[0].error and not fake.webhook


def test_rules_export_only_matching_issues(issues, fake, tmp_path):
    config = _config(fake, tmp_path, export_targets="github", export_statuses="new,regressed",
                     export_min_severity="high")
    assert [(r.issue_id, r.action) for r in after_clustering(issues, config)] == [("SW-1", "created")]
    wide = export_issues(issues, config, "github", statuses=["new", "ongoing"], min_severity="low", min_traces=3)
    assert sorted(r.issue_id for r in wide) == ["SW-1", "SW-2"]


def test_dry_run_sends_nothing(issues, fake, tmp_path):
    results = export_issues(issues, _config(fake, tmp_path), "jira", ["SW-1"], dry_run=True)
    assert results[0].action == "would-create" and results[0].request["json"]["fields"]["summary"].startswith("[SW-1]")
    assert not fake.requests and issue_exports(issues, "SW-1") == []


def test_a_timed_out_create_is_not_mistaken_for_an_issue_whose_id_extends_it(issues, fake, tmp_path, runs, issue):
    runs(2, [issue(1), issue(10)])
    config = _config(fake, tmp_path, export_timeout_s=0.3)
    export_issues(issues, config, "github", ["SW-10"])
    fake.fault = lambda t, op: Fault(delay=0.6) if op == "create" and len(fake.github) == 1 else None
    result = export_issues(issues, config, "github", ["SW-1"])[0]
    assert result.external_id == "2" and "<!-- sumwatch:SW-1 -->" in fake.github[2]["body"]


def test_a_create_left_pending_by_a_killed_process_is_found_not_sent_again(issues, fake, tmp_path):
    from sumwatch.monitor.store.exports import ExportRow, save_export

    config = _config(fake, tmp_path)
    export_issues(issues, config, "github", ["SW-1"])  # the tracker has the ticket ...
    save_export(issues, ExportRow(1, "github", phase="pending", attempts=1))  # ... the row never learnt its id
    result = export_issues(issues, config, "github", ["SW-1"])[0]
    assert result.action == "created" and result.external_id == "1" and len(fake.github) == 1
    assert [r.op for r in fake.requests][-1] == "find" and issue_exports(issues, "SW-1")[0].external_id == "1"


def test_huge_texts_are_cut_to_every_trackers_limits(issues, fake, tmp_path, runs, issue):
    from dataclasses import replace

    huge = replace(issue(1), title="T" * 400, description="word " * 30_000, fix="fix " * 5_000)
    runs(2, [huge])
    config = _config(fake, tmp_path)
    for target in ("github", "linear", "jira", "slack", "webhook", "markdown"):
        result = export_issues(issues, config, target, ["SW-1"])[0]
        assert result.action in ("created", "alerted"), (target, result.error)
    assert not fake.problems
    assert len(fake.github[1]["title"]) <= 256 and len(fake.github[1]["body"]) <= 65_536
    assert "<!-- sumwatch:SW-1 -->" in fake.github[1]["body"]
    assert all(len(b["text"]["text"]) <= 3000 for b in fake.slack[0]["blocks"] if b["type"] == "section")


def test_the_rules_keep_exported_tickets_in_sync_after_their_status_moves_on(issues, fake, tmp_path, runs, issue):
    config = _config(fake, tmp_path, export_targets="github", export_statuses="new", export_close_resolved=True)
    assert [r.action for r in after_clustering(issues, config)] == ["created"]  # SW-1 is new
    runs(2, [issue(1, "ongoing", members=12), issue(2, "ongoing", "low")])
    assert [(r.issue_id, r.action) for r in after_clustering(issues, config)] == [("SW-1", "updated")]
    assert "12 traces" in fake.github[1]["body"]
    runs(3, [issue(1, "resolved", members=0), issue(2, "ongoing", "low")])
    assert [(r.issue_id, r.action) for r in after_clustering(issues, config)] == [("SW-1", "closed")]
    assert fake.github[1]["state"] == "closed" and len(fake.github) == 1


def test_githubs_403_rate_limit_is_waited_out_not_taken_as_refusal(issues, fake, tmp_path):
    answers = iter([Fault(403, retry_after="0.05")])
    fake.fault = lambda t, op: next(answers, None) if op == "create" else None
    result = export_issues(issues, _config(fake, tmp_path), "github", ["SW-1"])[0]
    assert result.action == "created" and [r.op for r in fake.requests].count("create") == 2


def test_a_refused_connection_is_retried_and_then_recorded(issues, tmp_path, fake):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # nothing listens here once closed
    config = _config(fake, tmp_path, github_api_url=f"http://127.0.0.1:{port}", export_max_attempts=2)
    result = export_issues(issues, config, "github", ["SW-1"])[0]
    assert result.action == "failed" and "ConnectError" in result.error and "gave up after 2" in result.error
