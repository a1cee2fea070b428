"""Demo documents of the meetings domain: meeting notes with action items."""

from __future__ import annotations

import random

from ..documents import (
    MONTHS,
    PROJECTS,
    TEAMS,
    VENDORS,
    Document,
    Entity,
    Number,
    Quant,
    Text,
    _assemble,
    _Builder,
    _day,
    _finish,
    _int,
    _later_day,
    _people,
    _pick,
    _rand,
)

_MEETING_ACTIONS = (
    ("{owner} agreed to circulate a revised comparison of the shortlisted vendors before {due}.",
     "send round the updated vendor comparison"),
    ("{owner} will draft the customer announcement for the launch and share it for comments by {due}.",
     "write a first draft of the launch notice"),
    ("{owner} is going to confirm the training schedule with the regional managers, with {due} as the deadline.",
     "lock in training dates with regional managers"),
    ("{owner} offered to collect updated headcount numbers from each department no later than {due}.",
     "gather department headcount figures"),
    ("{owner} will look into venues for the quarterly offsite and report back on {due}.",
     "propose offsite venue options"),
    ("{owner} took an action to review the data retention policy with legal counsel ahead of {due}.",
     "go over data retention rules with legal"),
    ("{owner} will set up a dashboard that tracks the support backlog and have it live on {due}.",
     "launch a backlog tracking dashboard"),
    ("{owner} will place an order for {qty} replacement laptops for the support team, with delivery requested by "
     "{due}.",
     "order {qty} laptops for support staff"),
    ("{owner} is responsible for scheduling interviews for the {qty} open analyst positions by {due}.",
     "line up interviews for {qty} analyst openings"),
    ("{owner} will ask finance to release the first part of the pilot budget before {due}.",
     "request the first pilot funds from finance"),
    ("{owner} agreed to update the onboarding checklist for new hires and circulate it on {due}.",
     "refresh the new-hire onboarding checklist"),
    ("{owner} will meet the facilities team to plan the office move and summarize options by {due}.",
     "map out office move options with facilities"),
)

_MEETING_BACKGROUND = (
    "{a1} opened by reviewing the notes from the previous session, which were accepted without changes.",
    "{a2} walked the group through the latest customer feedback summary.",
    "There was a short discussion about holiday coverage for the support desk.",
    "{a3} asked that future agendas be shared a day earlier so people can prepare.",
    "The group spent some time on the draft hiring plan, and open questions were noted for the next session.",
    "{a1} raised concerns about the pace of the data migration, and the item will stay on the agenda.",
    "Members briefly reviewed the risk register and kept the existing ratings.",
    "The next meeting is scheduled for the same time in two weeks.",
    "{a2} noted that the new intake form has reduced duplicate requests.",
)


def meeting(rng: random.Random) -> Document:
    people = _people(rng, _rand(rng, 5, 6))
    chair, others = people[0], people[1:]
    date = _day(rng)
    n_att = len(people)
    s = dict(
        team=Text(_pick(rng, TEAMS)), chair=chair, date=date, n_att=_int(n_att),
        n_remote=_int(_rand(rng, 1, 3)), vendor=Entity(_pick(rng, VENDORS), "vendor"),
        exp_month=Text(_pick(rng, MONTHS)), project=Text(_pick(rng, PROJECTS)),
        budget=Number(_rand(rng, 6, 48) * 5000, "usd"), weeks=_int(_pick(rng, (6, 8, 10, 12))),
        launch_month=Text(_pick(rng, MONTHS)),
        qs=Quant(_pick(rng, ("most", "a majority of", "several", "some")), "regional lead", "regional leads"),
        n_leads=_int(_rand(rng, 5, 12)), reporter=others[0],
        backlog=_int(_rand(rng, 120, 600)), a1=others[1], a2=others[2], a3=others[3],
    )
    s["backlog_prev"] = _int(s["backlog"].value + _rand(rng, 40, 300))
    b = _Builder(rng, s)
    b.fact("meeting", "entity",
           ["{chair} chaired the {team} meeting on {date}, with {n_att} members present and {n_remote} joining by "
            "video.",
            "The {team} met on {date} with {chair} in the chair; {n_att} members attended, {n_remote} of them "
            "remotely."],
           ["{chair} ran the {date} session of the {team}",
            "{chair} led the {team} when it convened on {date}"],
           "{chair} chaired the {team} meeting on {date}", 6)
    b.fact("budget", "metric",
           ["The group approved a budget of {budget} for the {project} pilot, which will run for {weeks} weeks "
            "starting next month.",
            "After some discussion, members agreed to fund the {project} pilot with {budget} over {weeks} weeks."],
           ["a {budget} budget was approved for a {weeks}-week {project} pilot",
            "the {project} pilot received {budget} for {weeks} weeks"],
           "{budget} approved for the {weeks}-week {project} pilot", 2,
           np="the {budget} pilot budget")
    b.polar("vendor",
            (["The group decided not to renew the contract with {vendor} when it expires at the end of {exp_month}.",
              "Members agreed not to extend the {vendor} agreement beyond {exp_month}."],
             ["the {vendor} contract will not be renewed",
              "{vendor} will not be kept on after {exp_month}"],
             "The {vendor} contract will not be renewed"),
            (["The group decided to renew the contract with {vendor} for another year when it expires in {exp_month}.",
              "Members agreed to extend the {vendor} agreement beyond {exp_month}."],
             ["the {vendor} contract will be renewed",
              "{vendor} will be kept on after {exp_month}"],
             "The {vendor} contract will be renewed"),
            1, p_negative=1.0)
    b.fact("launch", "quant",
           ["{qs.of} {n_leads} regional leads said they support moving the launch to {launch_month}.",
            "Support for shifting the launch to {launch_month} came from {qs.of} {n_leads} regional leads."],
           ["{qs.np} backed a {launch_month} launch",
            "a {launch_month} launch date won support from {qs.np}"],
           "{qs.Np} support a {launch_month} launch", 4)
    b.fact("backlog", "metric",
           ["{reporter} reported that the support backlog has dropped to {backlog} open tickets, from {backlog_prev} "
            "two weeks ago.",
            "According to {reporter}, open support tickets now number {backlog}, compared with {backlog_prev} at the "
            "previous meeting."],
           ["open support tickets are down to {backlog} from {backlog_prev}, said {reporter}"],
           "Support backlog fell to {backlog} tickets from {backlog_prev}", 5,
           np="a shrinking support backlog")
    specs = rng.sample(_MEETING_ACTIONS, _rand(rng, 3, 5))
    owners = rng.sample(people, len(specs))
    action_keys = []
    for i, (spec, owner) in enumerate(zip(specs, owners)):
        key = f"action_{i + 1}"
        action_keys.append(key)
        b.action(key, spec, owner, _later_day(rng, date), 3 + i, extra={"qty": _int(_rand(rng, 3, 24))})
    roster = ", ".join(p.value for p in people[:-1]) + " and " + people[-1].value
    layout = [f"Attendees: {roster}.", ["meeting", "backlog", "launch"], "Decisions",
              ("closed", ["budget", "vendor"]), "Action items", ("lines", action_keys)]
    background = [t.format_map(s) for t in _MEETING_BACKGROUND]
    text, facts = _assemble(rng, layout, b.facts, background)
    title = _pick(rng, ("{team} meeting notes, {date}", "Minutes: {team}, {date}",
                        "{team} sync on {date}")).format_map(s)
    gist = "{chair} ran the {team} meeting.".format_map(s)
    return _finish("meetings", "meeting_notes", title, text, facts, gist, s)
