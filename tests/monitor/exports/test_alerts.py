"""Threshold alerts on real chDB, sent to the loopback Slack hook and signed webhook: a breach is sent once across
checks, a recovery sends "resolved", too few judgements change nothing, a rule can watch one service or model."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from sumwatch.monitor.exports.alerts import (
    FIRED,
    NOT_ENOUGH_DATA,
    RESOLVED,
    check_alerts,
    rule_statuses,
)
from sumwatch.monitor.rubrics.verdicts import RubricResult
from sumwatch.monitor.runtime import Runtime
from sumwatch.monitor.settings import Settings, SettingsError
from sumwatch.monitor.settings.alert_rules import parse_alert_rules
from sumwatch.monitor.store.alert_states import FIRING, OK, alert_states
from sumwatch.monitor.store.scores import ScoredSpan, SpanRef, write_scores
from sumwatch.tracer import semconv

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
_seq = iter(range(1, 1_000_000))


def judge(store, passed: int, failed: int, *, service: str = "api", rubric: str = "groundedness",
          ago: timedelta = timedelta(minutes=10), model: str = "", now: datetime = NOW) -> None:
    """``passed`` + ``failed`` spans judged on ``rubric``, ``ago`` before ``now`` (stored spans too, with ``model``)."""
    good, bad = ("supported", "contradicted") if rubric == "groundedness" else ("correct", "numerically_wrong")
    at = now - ago
    scored, spans = [], []
    for ok in [True] * passed + [False] * failed:
        i = next(_seq)
        ref = SpanRef(f"{i:032x}", f"{i:016x}", int(at.timestamp() * 1e9), service)
        scored.append(ScoredSpan(ref, {rubric: RubricResult.make(rubric, good if ok else bad, tier="rules")}))
        if model:
            attrs = {semconv.TASK: semconv.TASK_SUMMARIZATION, semconv.INPUT_VALUE: "s", semconv.OUTPUT_VALUE: "t",
                     semconv.GEN_AI_REQUEST_MODEL: model}
            spans.append((ref.timestamp_ns, ref.trace_id, ref.span_id, "", "", semconv.SPAN_NAME, "Internal",
                          service, {"service.name": service}, semconv.INSTRUMENTATION_NAME, "", attrs, 1_000_000,
                          "Unset", "", (), (), (), (), (), (), ()))
    if spans:
        store.insert_spans(spans)
    write_scores(store, scored, judge_version="cascade-1")


def test_a_breach_fires_once_across_two_checks_and_a_recovery_sends_resolved(store, fake):
    config = fake.config(alert_rules="groundedness<90%/1h/min50@slack")
    judge(store, 40, 20)  # 66.7% of 60
    judge(store, 100, 0, ago=timedelta(hours=2))  # outside the window: not counted

    first = check_alerts(store, config, now=NOW)
    assert [(s.state, s.action, s.judged, s.rate) for s in first] == [(FIRING, FIRED, 60, 0.6667)]
    second = check_alerts(store, config, now=NOW + timedelta(minutes=1))
    assert [(s.state, s.sent, s.action) for s in second] == [(FIRING, FIRING, "")]
    assert len(fake.slack) == 1 and not fake.problems
    message = fake.slack[0]
    assert message["text"].startswith("Alert: groundedness pass rate below 90%: 66.7% of 60 judged spans passed")
    assert message["blocks"][0]["type"] == "header" and message["blocks"][0]["text"]["type"] == "plain_text"
    assert "`groundedness&lt;0.9/1h/min50@slack`" in message["blocks"][1]["text"]["text"]

    judge(store, 300, 0, ago=timedelta(minutes=5))  # 340 of 360: 94.4%
    third = check_alerts(store, config, now=NOW)
    assert [(s.state, s.action) for s in third] == [(OK, RESOLVED)]
    assert len(fake.slack) == 2 and fake.slack[1]["text"].startswith("Resolved: groundedness pass rate back to 90%")
    assert alert_states(store)["groundedness<0.9/1h/min50@slack"].state == OK
    assert check_alerts(store, config, now=NOW)[0].action == "" and len(fake.slack) == 2


def test_too_few_judged_spans_neither_fire_nor_resolve(store, fake):
    config = fake.config(alert_rules="groundedness<0.9/1h/min50@slack")
    judge(store, 10, 30)  # 25% but only 40 judged
    [status] = check_alerts(store, config, now=NOW)
    assert (status.state, status.judged, status.action) == (NOT_ENOUGH_DATA, 40, "") and fake.slack == []

    judge(store, 0, 20)  # 60 judged now: fires
    assert check_alerts(store, config, now=NOW)[0].action == FIRED
    # an hour later nothing is in the window: the breach is not called resolved for want of data
    [later] = check_alerts(store, config, now=NOW + timedelta(hours=2))
    assert (later.state, later.sent, later.action, later.rate) == (NOT_ENOUGH_DATA, FIRING, "", None)
    assert len(fake.slack) == 1


def test_a_rule_per_service_reads_that_service_only_and_goes_to_the_signed_webhook(store, fake):
    config = fake.config(alert_rules="factuality<0.95/6h/min20/service=api@webhook; factuality<0.95/6h/min20@webhook")
    judge(store, 10, 20, rubric="factuality", service="api")
    judge(store, 200, 0, rubric="factuality", service="batch")
    by_rule = {s.rule: s for s in check_alerts(store, config, now=NOW)}
    api, everyone = by_rule["factuality<0.95/6h/min20/service=api@webhook"], by_rule["factuality<0.95/6h/min20@webhook"]
    assert (api.state, api.judged, api.passed, api.action) == (FIRING, 30, 10, FIRED)
    assert (everyone.state, everyone.judged, everyone.action) == (FIRING, 230, FIRED)  # 210/230 = 91.3%
    assert len(fake.webhook) == 2 and not fake.problems  # the fake checks the HMAC signature and timestamp
    sent = next(w["body"] for w in fake.webhook if w["body"]["alert"]["service"] == "api")
    assert sent["event"] == "alert.firing"
    assert sent["alert"] | {"rate": 0.3333} == sent["alert"]
    assert (sent["alert"]["rule"], sent["alert"]["judged"], sent["alert"]["state"]) == (api.rule, 30, FIRING)
    assert len({w["delivery"] for w in fake.webhook}) == 2


def test_a_rule_per_model_reads_the_spans_of_that_model(store, fake):
    config = fake.config(alert_rules="groundedness<90%/1h/min5/model=gpt-4.1@slack")
    judge(store, 2, 8, model="gpt-4.1")
    judge(store, 50, 0, model="gpt-4o-mini")
    [status] = rule_statuses(store, config, now=NOW)
    assert (status.state, status.judged, status.passed) == (FIRING, 10, 2)


def test_dry_run_shows_the_request_and_sends_and_stores_nothing(store, fake):
    config = fake.config(alert_rules="groundedness<90%/1h/min5@slack")
    judge(store, 0, 10)
    [status] = check_alerts(store, config, dry_run=True, now=NOW)
    assert status.action == "would fire" and status.request is not None
    assert status.request["url"] == "$SUMWATCH_SLACK_WEBHOOK_URL" and status.request["json"]["blocks"]
    assert fake.slack == [] and alert_states(store) == {}


def test_a_failed_send_is_tried_again_on_the_next_check(store, fake):
    from fakes.trackers import Fault

    config = fake.config(alert_rules="groundedness<90%/1h/min5@slack", export_max_attempts=1)
    judge(store, 0, 10)
    fake.fault = lambda target, op: Fault(500)
    [failed] = check_alerts(store, config, now=NOW)
    assert failed.action == "failed" and "500" in failed.error and "FAKEslackSECRET" not in failed.error
    fake.fault = None
    assert check_alerts(store, config, now=NOW)[0].action == FIRED and len(fake.slack) == 1


@pytest.mark.parametrize(("rules", "says"), [
    ("groundedness<90%/1x@slack", "SUMWATCH_ALERT_RULES rule 1 'groundedness<90%/1x@slack': window:"),
    ("groundedness<90%/1h@slack; factuality<95%/6h@email", "rule 2 'factuality<95%/6h@email': target:"),
    ("groundedness<190%/1h@slack", "rule 1 'groundedness<190%/1h@slack': rate:"),
    ("groundedness<90%/1h/min0@slack", "rule 1 'groundedness<90%/1h/min0@slack': min:"),
    ("groundedness<90%/1h/team=a@slack", "rule 1 'groundedness<90%/1h/team=a@slack': team:"),
])
def test_a_bad_rule_is_one_line_naming_the_rule_and_the_field(rules, says):
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env={"SUMWATCH_ALERT_RULES": rules})
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_the_same_rule_written_differently_keeps_one_key():
    a, b = parse_alert_rules("groundedness < 0.90 / 1H / min50 / service=api @ Slack; factuality<95%/6h@webhook")
    assert a.key == parse_alert_rules("groundedness<90%/1h/min50/service=api@slack")[0].key
    assert (b.min_judged, b.window_s, b.threshold) == (20, 21600.0, 0.95)


def test_a_rule_naming_a_target_not_configured_is_refused_in_one_line(store, fake):
    config = fake.config(alert_rules="groundedness<90%/1h@webhook", webhook_url=None)
    with pytest.raises(ValueError, match=r"^SUMWATCH_ALERT_RULES: SUMWATCH_WEBHOOK_URL is not set"):
        check_alerts(store, config, now=NOW)


def test_the_worker_checks_the_rules_after_each_sampler_pass_and_a_failing_check_never_fails_the_pass(
        store, settings, fake, caplog):
    from fakes.trackers import Fault

    from sumwatch.monitor.jobs.worker import SAMPLER_JOB, Worker

    config = fake.config(alert_rules="groundedness<90%/1h/min5@slack", export_max_attempts=1)
    worker = Worker(Runtime.build(settings.with_(cluster_cron="0 0 1 1 *"), store, exports=config),
                    cascade=build_rules_cascade(settings))
    run_pass = worker._run_sampler  # the scheduled job itself, in this thread
    judge(store, 1, 9, now=datetime.now(timezone.utc))
    fake.fault = lambda target, op: Fault(503)
    run_pass()
    assert worker.stats[SAMPLER_JOB].failures == 0 and fake.slack == []
    assert worker.stats[SAMPLER_JOB].last_summary.endswith("; alert failed: groundedness<0.9/1h/min5@slack")

    fake.fault = None
    run_pass()
    run_pass()  # the breach was sent: nothing more
    assert len(fake.slack) == 1 and fake.slack[0]["text"].startswith("Alert: groundedness")
    assert worker.stats[SAMPLER_JOB].last_summary.startswith("sampler: scored 0 spans")

    store.command("DROP TABLE sumwatch_alert_states")  # the check cannot read its state
    with caplog.at_level("WARNING", logger="sumwatch.monitor.jobs.worker"):
        run_pass()
    stats = worker.stats[SAMPLER_JOB]
    assert stats.failures == 0 and stats.runs == 4
    assert stats.last_summary.endswith("; checking alert rules failed (see the log)")
    assert any("checking alert rules failed" in r.getMessage() for r in caplog.records)


def build_rules_cascade(settings):
    from sumwatch.monitor.scoring.judges import build_cascade

    return build_cascade(settings.with_(embeddings=False), mode="off")


def test_the_worker_refuses_a_rule_whose_target_is_not_configured(store, settings, fake):
    from sumwatch.monitor.jobs.worker import Worker

    with pytest.raises(ValueError, match="SUMWATCH_ALERT_RULES: SUMWATCH_SLACK_WEBHOOK_URL is not set"):
        config = fake.config(alert_rules="groundedness<90%/1h@slack", slack_webhook_url=None)
        Worker(Runtime.build(settings, store, exports=config), cascade=build_rules_cascade(settings))


def test_the_alerts_command_lists_rates_and_check_sends_once_through_the_api(store, fake, cli_env):
    import json

    from fakes.trackers import SLACK_PATH
    from typer.testing import CliRunner

    from sumwatch.monitor.cli import app

    env = {**cli_env, "SUMWATCH_SLACK_WEBHOOK_URL": fake.base + SLACK_PATH,
           "SUMWATCH_ALERT_RULES": "groundedness<90%/1h/min5@slack; groundedness<50%/1h/min500@slack"}
    judge(store, 2, 8, now=datetime.now(timezone.utc))
    listed = CliRunner().invoke(app, ["alerts", "--json"], env=env)
    assert listed.exit_code == 0, listed.output
    assert [(r["rule"], r["rate"], r["judged"], r["state"], r["sent"]) for r in json.loads(listed.stdout)] == [
        ("groundedness<0.9/1h/min5@slack", 0.2, 10, FIRING, ""),
        ("groundedness<0.5/1h/min500@slack", 0.2, 10, NOT_ENOUGH_DATA, "")]
    assert fake.slack == []

    dry = CliRunner().invoke(app, ["alerts", "check", "--dry-run"], env=env)
    assert dry.exit_code == 0 and "would fire" in dry.stdout and '"blocks"' in dry.stdout and fake.slack == []
    sent = CliRunner().invoke(app, ["alerts", "check"], env=env)
    assert sent.exit_code == 0 and "fired" in sent.stdout and len(fake.slack) == 1
    table = CliRunner().invoke(app, ["alerts"], env=env)
    assert "not enough data" in table.stdout and "firing" in table.stdout
    CliRunner().invoke(app, ["alerts", "check"], env=env)
    assert len(fake.slack) == 1


def test_the_alerts_command_names_a_bad_rule_in_one_line(store, cli_env):
    from typer.testing import CliRunner

    from sumwatch.monitor.cli import app

    bad = CliRunner().invoke(app, ["alerts"], env={**cli_env, "SUMWATCH_ALERT_RULES": "groundedness<90%@slack"})
    assert bad.exit_code == 2 and "Traceback" not in bad.output
    assert bad.output.strip() == ("error: SUMWATCH_ALERT_RULES rule 1 'groundedness<90%@slack': window: missing; "
                                  "give one after the rate, like <90%/1h")
