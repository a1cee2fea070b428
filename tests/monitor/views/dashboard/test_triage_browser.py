"""Triage from the issue page in headless Chromium through the real server: resolve, merge and comment, each
a form post with the page's CSRF token, recorded with the name typed in the form and shown in the timeline."""

from __future__ import annotations

import pytest
from served_dashboard import CHROMIUM, build_dataset, database_of_its_own, serve

from sumwatch.monitor.store.issue_events import events_of

pytestmark = [pytest.mark.slow, pytest.mark.integration]


@pytest.fixture(scope="module")
def triage_db(sw_home):
    """(settings, store) of a database of its own: triage changes what the shared dataset's tests expect."""
    with database_of_its_own(sw_home, "triage") as pair:
        yield pair


@pytest.fixture(scope="module")
def triage_dataset(triage_db, rules_cascade):
    settings, store = triage_db
    report = build_dataset(store, settings, rules_cascade)
    running = serve(store, settings)
    yield running, store, report
    running.stop()


@pytest.fixture(scope="module")
def tab(triage_dataset):
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing (apt-get install -y chromium)", pytrace=False)
    from playwright.sync_api import sync_playwright

    server = triage_dataset[0]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
        context = browser.new_context(base_url=server.endpoint, viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if "Content Security Policy" in msg.text else None)
        yield page
        browser.close()
        assert not errors, f"JavaScript errors or Content-Security-Policy violations: {errors}"


def _issues(report):
    issues = sorted(report.issues, key=lambda i: i.number)
    assert len(issues) >= 3
    return issues


def test_resolve_from_the_issue_page_records_the_name_and_shows_it(tab, triage_dataset):
    _, store, report = triage_dataset
    first = _issues(report)[0]
    tab.goto(f"/issues/{first.issue_id}")
    tab.fill("#triage-by", "ana")
    with tab.expect_navigation():
        tab.click("#triage-resolve")
    assert tab.url.endswith(f"/issues/{first.issue_id}")
    assert tab.locator(".meta-row .badge").first.inner_text().strip() == "resolved"
    assert tab.locator("#triage-reopen").is_visible()
    row = tab.locator("#timeline tr[data-action=resolve]")
    assert row.count() == 1 and "ana" in row.inner_text()
    assert tab.input_value("#triage-by") == "ana"  # remembered for this browser
    assert [(e.action, e.by, e.source) for e in events_of(store, [first.number])] == [
        ("resolve", "ana", "dashboard")]


def test_merge_from_the_issue_page_leads_to_the_issue_it_joined(tab, triage_dataset):
    _, store, report = triage_dataset
    issues = _issues(report)
    merged, into = issues[2], issues[1]
    tab.goto(f"/issues/{merged.issue_id}")
    tab.select_option("#triage-into", into.issue_id)
    with tab.expect_navigation():
        tab.click("#triage-merge")
    # asked first, naming both issues; nothing is merged until confirmed
    assert tab.locator("#merge-question").inner_text() == f"Merge {merged.issue_id} into {into.issue_id}?"
    with tab.expect_navigation():
        tab.click("#merge-confirm-yes")
    assert tab.url.endswith(f"/issues/{into.issue_id}")
    assert merged.issue_id in tab.locator("#merged-in").inner_text()
    # the failures of both count as the one issue's, as the list shows them
    assert f"{into.traces + merged.traces} traces" in tab.locator(".meta-row").inner_text()
    assert f"{merged.issue_id} into {into.issue_id}" in tab.locator("#timeline tr[data-action=merge]").inner_text()
    tab.goto(f"/issues/{merged.issue_id}")  # the old id still opens, as the issue it joined
    assert tab.locator("#merged-notice").inner_text().startswith(f"{merged.issue_id} was merged into {into.issue_id}.")
    assert tab.locator("#unmerge-asked").is_visible()
    tab.goto("/issues")
    listed = tab.locator("#issues-table tr[data-issue]").evaluate_all("rows => rows.map(r => r.dataset.issue)")
    assert merged.issue_id not in listed and into.issue_id in listed
    tab.check("form.filters input[name=hidden]")
    with tab.expect_navigation():
        tab.click("form.filters button[type=submit]")
    row = tab.locator(f"#issues-table tr[data-issue='{merged.issue_id}']")
    assert f"merged into {into.issue_id}" in row.inner_text()


def test_comment_from_the_issue_page_appears_in_the_timeline(tab, triage_dataset, tmp_path):
    _, store, report = triage_dataset
    second = _issues(report)[1]
    tab.goto(f"/issues/{second.issue_id}")
    tab.fill("#triage-comment", "Same root cause as the filler issue: the v3 prompt asks for 'context'.")
    with tab.expect_navigation():
        tab.click("#triage-comment-send")
    row = tab.locator("#timeline tr[data-action=comment]")
    assert row.count() == 1 and "the v3 prompt asks for 'context'" in row.inner_text() and "ana" in row.inner_text()
    # looked at by hand (copies in docs/screenshots/issue-triage.png and issue-timeline.png)
    tab.screenshot(path=str(tmp_path / "issue-triage.png"))
    tab.locator("#timeline").screenshot(path=str(tmp_path / "issue-timeline.png"))


def test_a_refused_action_is_one_line_on_an_error_page(tab, triage_dataset):
    report = triage_dataset[2]
    first = _issues(report)[0]
    tab.goto(f"/issues/{first.issue_id}")
    with tab.expect_navigation():
        tab.click("#triage-comment-send")  # no text
    assert "a comment needs some text" in tab.locator("body").inner_text()


def test_the_overview_shows_each_open_issues_triage_and_leaves_hidden_ones_out(tab, triage_dataset, tmp_path):
    report = triage_dataset[2]
    resolved, into, merged = _issues(report)[:3]  # as the tests above left them
    tab.goto(f"/issues/{into.issue_id}")
    tab.fill("#triage-assignee", "bo")
    with tab.expect_navigation():
        tab.click("#triage-assign")
    tab.goto("/")
    listed = tab.locator("tr[data-issue]").evaluate_all("rows => rows.map(r => r.dataset.issue)")
    assert into.issue_id in listed and merged.issue_id not in listed and resolved.issue_id not in listed
    state = tab.locator(f"tr[data-issue='{into.issue_id}'] .triage-state").inner_text()
    assert "@bo" in state and f"+{merged.issue_id}" in state and "1 comment" in state
    counts = tab.locator("#triage-counts").inner_text()
    assert "1 resolved" in counts and "1 merged" in counts and "1 assigned" in counts
    with tab.expect_navigation():
        tab.click("#triage-counts a[href*=hidden]")
    assert merged.issue_id in tab.locator("#issues-table").inner_text()
    tab.goto("/")
    # looked at by hand (a copy in docs/screenshots/overview-triage.png)
    tab.locator("#open-issues").screenshot(path=str(tmp_path / "overview-triage.png"))


def test_the_alerts_page_lists_each_rule_with_its_rate_judged_count_and_state(tab, triage_db, tmp_path):
    from fakes.trackers import WEBHOOK_SECRET

    from sumwatch.monitor.exports.alerts import rule_statuses
    from sumwatch.monitor.exports.config import ExportConfig

    settings, store = triage_db
    config = ExportConfig(alert_rules="factuality<100%/3650d/min1@webhook; groundedness<90%/3650d/min100000@webhook",
                          webhook_url="http://127.0.0.1:9/hook", webhook_secret=WEBHOOK_SECRET)
    expected = {s.rule: s for s in rule_statuses(store, config)}  # what GET /api/alerts and `sumwatch alerts` read
    assert [s.state for s in expected.values()] == ["firing", "not enough data"]
    tab.goto("/")
    with tab.expect_navigation():
        tab.click("header.top nav a[href='/alerts']")
    assert tab.locator("#alerts-none").count() == 1  # this server has no rules
    running = serve(store, settings, config)  # the same data, served with the rules
    try:
        tab.goto(f"{running.endpoint}/alerts")
        assert tab.locator("header.top nav a.active").inner_text() == "Alerts"
        rows = tab.locator("#alerts-table tr[data-rule]")
        assert rows.count() == 2
        for rule, status in expected.items():
            row = tab.locator(f"#alerts-table tr[data-rule='{rule}']")
            assert row.get_attribute("data-state") == status.state
            assert f"{status.passed} passed of {status.judged}" in row.inner_text()
            assert row.locator(".state").inner_text().strip() == status.state
        firing = next(s for s in expected.values() if s.state == "firing")
        assert f"{firing.rate:.1%}" in tab.locator(f"#alerts-table tr[data-rule='{firing.rule}'] .rate").inner_text()
        # looked at by hand (a copy in docs/screenshots/alerts.png)
        tab.screenshot(path=str(tmp_path / "alerts.png"), full_page=True)
    finally:
        running.stop()
