"""A tracker that echoes the request's credentials and URL in its error: the stored export error, the result
and the log hold none of them (Jira's Basic credentials in base64, the Slack hook and webhook URL paths)."""

import base64
import json
import logging

from fakes.trackers import GITHUB_TOKEN, JIRA_EMAIL, JIRA_TOKEN, LINEAR_KEY, SLACK_PATH, WEBHOOK_SECRET, Fault

from sumwatch.monitor.exports import export_issues, issue_exports
from sumwatch.monitor.exports.sync import after_clustering


def test_credentials_and_hook_paths_a_tracker_echoes_are_never_stored_or_logged(issues, fake, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    fake.fault = lambda target, op: Fault(401, echo=True)
    config = fake.config(markdown_dir=str(tmp_path), alert_targets="slack,webhook", alert_min_severity="low")
    results = [*export_issues(issues, config, "jira", ["SW-1"]), *export_issues(issues, config, "github", ["SW-1"]),
               *after_clustering(issues, config)]
    assert {r.action for r in results} == {"failed"} and {r.target for r in results} >= {"jira", "slack", "webhook"}
    assert all("401" in r.error and "[secret]" in r.error for r in results), [r.error for r in results]
    shown = (caplog.text + json.dumps([r.to_json() for r in results])
             + json.dumps([row.error for row in issue_exports(issues, "SW-1")]))
    jira_basic = base64.b64encode(f"{JIRA_EMAIL}:{JIRA_TOKEN}".encode()).decode()
    assert any(r.headers.get("authorization") == f"Basic {jira_basic}" for r in fake.requests)  # what was echoed
    for secret in (jira_basic, JIRA_TOKEN, GITHUB_TOKEN, LINEAR_KEY, WEBHOOK_SECRET, SLACK_PATH, "FAKEslackSECRET123",
                   "/hooks/sumwatch"):
        assert secret not in shown, secret
