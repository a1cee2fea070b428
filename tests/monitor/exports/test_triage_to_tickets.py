"""An issue's triage reaches its tickets (loopback fakes checking each API's request shapes): reopen, ignore, mute,
merge, assign and comment become comments, each sent once; ignoring closes the ticket where configured."""

import json

import pytest
from fakes.trackers import Fault

from sumwatch.monitor.exports import export_issues, triage_to_tickets
from sumwatch.monitor.issues.triage import act
from sumwatch.monitor.store.event_sends import FAILED, SENT, event_sends


def _comments(fake, target):
    if target == "github":
        return [text for _, text in fake.github_comments]
    if target == "jira":  # ADF: the text nodes of the comment document
        return [" ".join(n["text"] for p in body["content"] for n in p.get("content", [])) for _, body in
                fake.jira_comments]
    return [text for _, text in fake.linear_comments]


@pytest.mark.parametrize("target", ("github", "jira", "linear"))
def test_each_triage_event_becomes_one_comment_on_the_ticket_in_order(issues, fake, tmp_path, target):
    config = fake.config(markdown_dir=str(tmp_path))
    act(issues, "SW-1", "comment", by="ana", value="before the ticket: it follows the new ticket")
    export_issues(issues, config, target, ["SW-1"])
    assert "before the ticket: it follows the new ticket" in _comments(fake, target)[0]
    act(issues, "SW-1", "assign", by="ana", value="bo")
    act(issues, "SW-1", "comment", by="bo", value="the prompt drops figures")
    act(issues, "SW-1", "mute", by="bo", value="7d")
    act(issues, "SW-1", "ignore", by="bo")
    result = export_issues(issues, config, target, ["SW-1"])[0]
    assert result.action == "triage-sent" and not fake.problems
    said = _comments(fake, target)[1:]
    assert len(said) == 4, said
    assert "assigned to bo by ana" in said[0] and f"not a {target} account" in said[0]
    assert "bo commented on SW-1" in said[1] and "the prompt drops figures" in said[1]
    assert "muted by bo until" in said[2] and "ignored by bo" in said[3]
    assert "https://sumwatch.example.com/issues/SW-1" in said[3]  # the back-link
    assert export_issues(issues, config, target, ["SW-1"])[0].action == "updated"  # once, not on every sync
    assert len(_comments(fake, target)) == 5
    assert {s.phase for s in event_sends(issues, target=target).values()} == {SENT}


ACCOUNTS = {"github": "bo-gh", "linear": "5f1c2d3e-0000-4000-8000-00000000b0b0", "jira": "5b10ac8d82e05b22cc7d4ef5"}


def _assignee(fake, target):
    if target == "github":
        return fake.github[1].get("assignees")
    if target == "jira":
        return next(iter(fake.jira.values())).get("assignee", "never set")
    return next(iter(fake.linear.values())).get("assigneeId", "never set")


@pytest.mark.parametrize("target", ("github", "jira", "linear"))
def test_an_assignment_sets_the_tickets_assignee_where_the_name_maps_to_an_account(issues, fake, tmp_path, target):
    config = fake.config(markdown_dir=str(tmp_path), **{f"{target}_assignees": f"bo={ACCOUNTS[target]}, cy=x"})
    export_issues(issues, config, target, ["SW-1"])
    act(issues, "SW-1", "assign", by="ana", value="bo")
    export_issues(issues, config, target, ["SW-1"])
    assert _assignee(fake, target) == ([ACCOUNTS[target]] if target == "github" else ACCOUNTS[target])
    assert f"assigned to bo ({target} account {ACCOUNTS[target]}) by ana" in _comments(fake, target)[-1]
    act(issues, "SW-1", "assign", by="ana", value="dee")  # a name the map does not list: the comment only
    export_issues(issues, config, target, ["SW-1"])
    assert _assignee(fake, target) == ([ACCOUNTS[target]] if target == "github" else ACCOUNTS[target])
    assert f"assigned to dee by ana (a sumwatch name, not a {target} account)" in _comments(fake, target)[-1]
    act(issues, "SW-1", "assign", by="ana", value="")
    export_issues(issues, config, target, ["SW-1"])
    assert _assignee(fake, target) in ([], None) and "unassigned by ana" in _comments(fake, target)[-1]
    assert not fake.problems and {s.phase for s in event_sends(issues, target=target).values()} == {SENT}


def test_without_a_map_an_assignment_changes_no_ticket_assignee(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path))
    export_issues(issues, config, "jira", ["SW-1"])
    act(issues, "SW-1", "assign", by="ana", value="bo")
    act(issues, "SW-1", "assign", by="ana", value="")
    export_issues(issues, config, "jira", ["SW-1"])
    assert not [r for r in fake.requests if r.op == "assign"] and "unassigned by ana" in _comments(fake, "jira")[-1]


def test_a_malformed_assignee_map_is_refused_in_one_line():
    from sumwatch.monitor.settings import Settings, SettingsError

    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env={"SUMWATCH_GITHUB_ASSIGNEES": "bo"})
    message = str(caught.value)
    assert "SUMWATCH_GITHUB_ASSIGNEES" in message and "name=account" in message and "\n" not in message


def test_ignoring_closes_the_ticket_where_configured_and_unignoring_opens_it(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path), export_close_ignored=True)
    export_issues(issues, config, "github", ["SW-1"])
    act(issues, "SW-1", "ignore", by="ana")
    assert export_issues(issues, config, "github", ["SW-1"])[0].tracker_state == "closed"
    assert fake.github[1]["state"] == "closed"
    act(issues, "SW-1", "unignore", by="ana")
    assert export_issues(issues, config, "github", ["SW-1"])[0].tracker_state == "open"
    assert fake.github[1]["state"] == "open" and "no longer ignored" in fake.github_comments[-1][1]


def test_a_reopen_by_hand_opens_the_ticket_that_resolving_closed(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path), export_close_resolved=True)
    export_issues(issues, config, "jira", ["SW-1"])
    act(issues, "SW-1", "resolve", by="ana")
    assert export_issues(issues, config, "jira", ["SW-1"])[0].action == "closed"
    act(issues, "SW-1", "reopen", by="bo")
    result = export_issues(issues, config, "jira", ["SW-1"])[0]
    assert result.tracker_state == "open" and next(iter(fake.jira.values()))["status"] != "done"
    assert "reopened by bo" in json.dumps(fake.jira_comments[-1][1])


def test_after_a_sampler_pass_every_ticket_gets_its_events_without_a_full_sync(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path), export_targets="github,linear")
    export_issues(issues, config, "github", ["SW-1", "SW-2"])
    export_issues(issues, config, "linear", ["SW-1"])
    act(issues, "SW-1", "merge", by="ana", value="SW-2")
    patches = sum(r.method == "PATCH" for r in fake.requests)
    results = triage_to_tickets(issues, config)
    assert sorted((r.target, r.issue_id, r.action) for r in results) == [
        ("github", "SW-1", "triage-sent"), ("linear", "SW-1", "triage-sent")]
    assert "merged into SW-2 by ana" in fake.github_comments[-1][1] and "/issues/SW-1" in fake.github_comments[-1][1]
    assert fake.github_comments[-1][0] == 1
    assert "merged into SW-2" in fake.linear_comments[-1][1]
    assert sum(r.method == "PATCH" for r in fake.requests) == patches  # the ticket's body is the sync's job
    assert triage_to_tickets(issues, config) == []  # nothing left to send


def test_a_refused_comment_is_recorded_and_sent_on_the_next_sync_once(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path), export_targets="github")
    export_issues(issues, config, "github", ["SW-1"])
    act(issues, "SW-1", "comment", by="ana", value="first")
    act(issues, "SW-1", "comment", by="ana", value="second")
    fake.fault = lambda target, op: Fault(422) if op == "comment" else None
    [result] = triage_to_tickets(issues, config)
    assert result.action == "failed" and "422" in result.error
    assert [s.phase for s in event_sends(issues, target="github").values()] == [FAILED]  # the second waits
    fake.fault = None
    assert [r.action for r in triage_to_tickets(issues, config)] == ["triage-sent"]
    assert [text.rsplit("\n\n", 1)[1] for _, text in fake.github_comments] == ["first", "second"]
