"""Demo documents of the technology domain: incident postmortems."""

from __future__ import annotations

import random
from typing import cast

from ..documents import (
    COMPONENTS,
    SERVICES,
    TECH_COMPANIES,
    Day,
    Document,
    Entity,
    Quant,
    Text,
    _assemble,
    _Builder,
    _day,
    _finish,
    _int,
    _later_day,
    _pct,
    _people,
    _pick,
    _rand,
)

_TECH_BACKGROUND = (
    "This review follows the blameless format and focuses on systems and processes rather than individuals.",
    "The status page was updated roughly every twenty minutes during the incident.",
    "Support staff received a high volume of tickets and answered them with a prepared response template.",
    "Monitoring dashboards showed the spike within the first few minutes.",
    "The team held a review meeting two days later to walk through the timeline.",
    "A full timeline with log excerpts is attached to the internal version of this document.",
    "Dependent services retried failed calls, which briefly increased load on the shared database.",
    "Customers with scheduled jobs were advised to rerun them after recovery.",
    "The on-call rotation has been reviewed to make sure both time zones are covered.",
)
_TECH_ACTIONS = (
    ("{owner} will add an automated canary stage for changes to the {component}, due {due}.",
     "put {component} changes behind a canary stage"),
    ("{owner} owns updating the runbook so on-call engineers can roll back configuration in one step, with a target "
     "date of {due}.",
     "rewrite the rollback runbook"),
    ("{owner} will schedule a quarterly failover drill, with the first one set for {due}.",
     "run the first quarterly failover drill"),
    ("{owner} is tasked with adding an alert on error budgets for the {service}, due {due}.",
     "create an error-budget alert for the {service}"),
)


def postmortem(rng: random.Random) -> Document:
    ic, eng, o1, o2 = _people(rng, 4)
    hour = _rand(rng, 1, 21)
    minute = _rand(rng, 0, 59)
    duration = _rand(rng, 22, 190)
    back = hour * 60 + minute + max(10, duration - _rand(rng, 5, 20))
    s = dict(
        company=Entity(_pick(rng, TECH_COMPANIES), "tech_company"), service=Text(_pick(rng, SERVICES)),
        component=Text(_pick(rng, COMPONENTS)), ic=ic, eng=eng, date=_day(rng),
        start=Text(f"{hour:02d}:{minute:02d} UTC"),
        rollback_time=Text(f"{(back // 60) % 24:02d}:{back % 60:02d} UTC"),
        duration=_int(duration), recovery=_int(_rand(rng, 4, 15)),
        peak_err=_pct(rng, 18, 74), failed_req=_int(_rand(rng, 12, 480) * 1000),
        qs=Quant(_pick(rng, ("most", "several", "a majority of", "some")), "region", "regions"),
        n_regions=_int(_rand(rng, 4, 9)), freq=Quant(_pick(rng, ("rarely", "occasionally"))),
    )
    b = _Builder(rng, s)
    b.fact("impact", "metric",
           ["On {date}, the {service} at {company} returned errors for {duration} minutes, starting at {start}.",
            "The {company} {service} was degraded for {duration} minutes on {date}, beginning at {start}."],
           ["{company.poss} {service} failed for {duration} minutes on {date}",
            "a {duration}-minute {service} outage hit {company} on {date}"],
           "{service} outage lasted {duration} minutes on {date}", 1)
    b.fact("errors", "metric",
           ["At the peak, {peak_err} of requests to the service failed, and {failed_req} requests returned errors in "
            "total.",
            "Error rates reached {peak_err} at the worst point of the incident, with {failed_req} failed requests "
            "overall."],
           ["errors peaked at {peak_err} of requests, with {failed_req} failures in all",
            "{failed_req} requests failed, and the error rate topped out at {peak_err}"],
           "Peak error rate {peak_err}; {failed_req} failed requests", 2,
           np="a {peak_err} peak error rate")
    b.fact("trigger", "event",
           ["The incident began minutes after a change to the {component} was deployed to production.",
            "Errors started shortly after engineers pushed an update to the {component} into production."],
           ["the trouble followed a deploy that touched the {component}",
            "a {component} change had just gone out when errors began"],
           "It began after a {component} change was deployed", 3, causal_ok=False)
    b.fact("commander", "entity",
           ["{ic} served as incident commander and coordinated the response with the database and networking teams.",
            "The response was coordinated by incident commander {ic}, who pulled in the networking and database "
            "on-call engineers."],
           ["{ic} led the response as incident commander",
            "incident commander {ic} ran the response"],
           "Incident commander was {ic}", 4)
    b.polar("staged",
            (["The change did not go through the usual staged rollout and was applied everywhere in a single step.",
              "Instead of the usual staged rollout, the change was applied everywhere at once, and it did not pass "
              "through a canary phase."],
             ["the change was not rolled out in stages",
              "the update did not go out gradually"],
             "The change was not rolled out in stages"),
            (["The change went through the usual staged rollout, reaching the final region about an hour after the "
              "first.",
              "The change followed the usual staged rollout and passed through a canary phase before reaching the "
              "final region."],
             ["the change was rolled out in stages",
              "the update went out gradually"],
             "The change was rolled out in stages"),
            2, p_negative=1.0)
    b.polar("restore",
            (["Engineers did not need to restore any data from backups, and the database team confirmed that customer "
              "records were intact."],
             ["no data had to be restored from backups"],
             "No data had to be restored from backups"),
            (["Engineers had to restore two database shards from backups, and the database team confirmed that "
              "customer records were intact."],
             ["data had to be restored from backups"],
             "Two database shards were restored from backups"),
            5, p_negative=0.5)
    b.fact("regions", "quant",
           ["Customers in {qs.of} {n_regions} regions served by the platform saw errors during the incident.",
            "Error spikes were recorded in {qs.of} {n_regions} serving regions."],
           ["errors reached customers in {qs.np}",
            "customers in {qs.np} ran into errors"],
           "Errors hit customers in {qs.np}", 4)
    b.fact("drills", "quant",
           ["According to the review, the automated failover procedure had been {freq} exercised in drills over the "
            "past year."],
           ["failover drills had {freq} been run in the past year"],
           "The failover procedure was {freq} drilled", 7)
    b.fact("rollback", "entity",
           ["{eng} rolled back the change at {rollback_time}, and error rates returned to normal within {recovery} "
            "minutes.",
            "Error rates were back to normal {recovery} minutes after {eng} reverted the change at {rollback_time}."],
           ["{eng.poss} rollback at {rollback_time} restored normal error levels in {recovery} minutes"],
           "{eng} rolled back at {rollback_time}; recovery took {recovery} minutes", 5)
    keys = []
    for i, (spec, owner) in enumerate(zip(rng.sample(_TECH_ACTIONS, 2), (o1, o2))):
        key = f"followup_{i + 1}"
        keys.append(key)
        b.action(key, spec, owner, _later_day(rng, cast(Day, s["date"])), 6 + i)
    layout = [["impact", "errors", "regions"], ["trigger", "staged", "commander", "rollback"],
              ["restore", "drills"], "Follow-up actions", ("lines", keys)]
    text, facts = _assemble(rng, layout, b.facts, list(_TECH_BACKGROUND))
    title = _pick(rng, ("Postmortem: {service} outage on {date}", "Incident review: {company} {service} errors",
                        "{company} {service} incident report")).format_map(s)
    gist = "The {service} failed for {duration} minutes.".format_map(s)
    return _finish("technology", "postmortem", title, text, facts, gist, s)
