"""Triage both ways between sumwatch and the trackers (loopback fakes): a ticket closed in the tracker resolves
its issue where the target is configured to, recorded as the tracker's event; an issue resolved by hand
comments on, and with close-resolved closes, its ticket."""

import pytest

from sumwatch.monitor.exports import export_issues
from sumwatch.monitor.issues.reads import get_issue
from sumwatch.monitor.issues.triage import act
from sumwatch.monitor.store.issue_events import events_of


def _close_in_tracker(fake, target):
    if target == "github":
        fake.github[1]["state"] = "closed"
    elif target == "jira":
        next(iter(fake.jira.values()))["status"] = "done"
    else:
        next(iter(fake.linear.values()))["state"] = "completed"


@pytest.mark.parametrize("target", ("github", "jira"))
def test_a_ticket_closed_in_the_tracker_resolves_the_issue_as_the_trackers_event(issues, fake, tmp_path, target):
    config = fake.config(markdown_dir=str(tmp_path), export_sync_closed=target)
    export_issues(issues, config, target, ["SW-1"])
    _close_in_tracker(fake, target)
    result = export_issues(issues, config, target, ["SW-1"])[0]
    assert (result.action, result.tracker_state) == ("resolved", "closed")
    assert get_issue(issues, "SW-1").status == "resolved"
    assert [(e.action, e.by, e.source) for e in events_of(issues, [1])] == [("resolve", target, f"tracker:{target}")]
    assert export_issues(issues, config, target, ["SW-1"])[0].action == "updated"  # once, not on every sync
    assert len(events_of(issues, [1])) == 1


def test_closing_a_ticket_resolves_nothing_where_the_target_is_not_configured(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path), export_sync_closed="jira")
    export_issues(issues, config, "github", ["SW-1"])
    fake.github[1]["state"] = "closed"
    assert export_issues(issues, config, "github", ["SW-1"])[0].action == "updated"
    assert get_issue(issues, "SW-1").status == "new" and events_of(issues) == []


def test_a_setting_of_true_syncs_every_target():
    from sumwatch.monitor.exports.config import ExportConfig

    assert ExportConfig(export_sync_closed="true").sync_closed("linear")
    assert not ExportConfig().sync_closed("github")
    assert ExportConfig.from_env(env={"SUMWATCH_EXPORT_SYNC_CLOSED": "github, jira"}).sync_closed("jira")


def test_an_issue_resolved_by_hand_closes_its_ticket_with_a_comment(issues, fake, tmp_path):
    config = fake.config(markdown_dir=str(tmp_path), export_close_resolved=True)
    export_issues(issues, config, "github", ["SW-1"])
    act(issues, "SW-1", "resolve", by="ana", source="dashboard")
    result = export_issues(issues, config, "github", ["SW-1"])[0]
    assert result.action == "closed" and fake.github[1]["state"] == "closed"
    assert "resolved" in fake.github_comments[-1][1]
