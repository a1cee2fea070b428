"""Demo documents of the healthcare domain: clinical trial results and hospital announcements."""

from __future__ import annotations

import random

from ..documents import (
    CITIES,
    CONDITIONS,
    DOSING,
    DRUGS,
    HOSPITAL_UNITS,
    HOSPITALS,
    QUARTERS,
    SPONSORS,
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
    _pct,
    _pct1,
    _people,
    _pick,
    _rand,
)

_TRIAL_BACKGROUND = (
    "The study was designed with input from patient advocacy groups and regulators.",
    "Full results will be submitted to a peer-reviewed journal later this year.",
    "Patients who completed the study were offered the option to continue in an open-label extension.",
    "Independent experts said the data would need to be confirmed in a longer study.",
    "Enrollment was completed ahead of the original schedule.",
    "Data were analyzed on an intention-to-treat basis.",
    "Shares of the developer rose in early trading after the announcement.",
    "Baseline characteristics were similar across the treatment groups.",
    "Neither patients nor investigators knew who received the active drug during the double-blind phase.",
    "Patient groups welcomed the results and called for broader access to new treatment options.",
)


def trial(rng: random.Random) -> Document:
    condition, specialty, secondary = _pick(rng, CONDITIONS)
    pi, = _people(rng, 1)
    resp_pbo = _rand(rng, 9, 30)
    disc_pbo = round(rng.uniform(1.0, 6.0), 1)
    s = dict(
        sponsor=Entity(_pick(rng, SPONSORS), "sponsor"), drug=Entity(_pick(rng, DRUGS), "drug"),
        condition=Text(condition), specialty=Text(specialty), secondary=Text(secondary),
        phase=Text(_pick(rng, ("Phase 2", "Phase 3"))), dosing=Text(_pick(rng, DOSING)),
        n_patients=_int(_rand(rng, 18, 140) * 10), n_sites=_int(_rand(rng, 20, 140)),
        n_countries=_int(_rand(rng, 4, 18)), weeks=_int(_pick(rng, (12, 16, 24, 52))),
        resp_drug=Number(resp_pbo + _rand(rng, 12, 40), "pct"), resp_pbo=Number(resp_pbo, "pct"),
        pi=pi, hospital=Entity(_pick(rng, HOSPITALS), "hospital"),
        conf_city=Entity(_pick(rng, CITIES), "city"), date=_day(rng),
        qs=Quant(_pick(rng, ("most", "a majority of", "nearly all")), None, "adverse events"),
        disc_drug=Number(round(disc_pbo + rng.uniform(0.6, 5.0), 1), "pct1"),
        disc_pbo=Number(disc_pbo, "pct1"), n_serious=_int(_rand(rng, 3, 25)),
        filing=Text(_pick(rng, ("early next year", "the second half of next year", "the coming months"))),
    )
    b = _Builder(rng, s)
    b.fact("design", "metric",
           ["The randomized, placebo-controlled {phase} trial enrolled {n_patients} adults with {condition} at "
            "{n_sites} sites in {n_countries} countries.",
            "A total of {n_patients} adults with {condition} took part in the {phase} study, which was run at "
            "{n_sites} sites across {n_countries} countries."],
           ["the {phase} study randomized {n_patients} patients with {condition}",
            "{n_patients} people with {condition} were enrolled across {n_countries} countries"],
           "{n_patients} patients with {condition} enrolled in the {phase} trial", 3)
    b.fact("primary", "metric",
           ["After {weeks} weeks, {resp_drug} of patients receiving {drug} met the primary endpoint, compared with "
            "{resp_pbo} of those given placebo.",
            "The primary endpoint was reached by {resp_drug} of participants in the {drug} arm at week {weeks}, "
            "against {resp_pbo} in the placebo arm."],
           ["{drug} hit the main goal in {resp_drug} of patients versus {resp_pbo} on placebo",
            "at {weeks} weeks the response rate was {resp_drug} with {drug} and {resp_pbo} with placebo"],
           "Primary endpoint met by {resp_drug} on {drug} versus {resp_pbo} on placebo", 1,
           np="a {resp_drug} response rate on {drug}")
    b.fact("investigator", "entity",
           ["The results were presented in {conf_city} on {date} by lead investigator {pi}, a {specialty} specialist "
            "at {hospital}.",
            "Lead investigator {pi}, who heads {specialty} research at {hospital}, presented the findings at a medical "
            "meeting in {conf_city} on {date}."],
           ["{pi} of {hospital} shared the data at a {conf_city} meeting",
            "the findings were reported by {pi} in {conf_city} on {date}"],
           "Lead investigator {pi} of {hospital} presented the results", 4)
    b.fact("safety", "quant",
           ["{qs.of} adverse events recorded during the study were mild or moderate in severity, with headache and "
            "nausea reported more often than other events.",
            "Investigators classified {qs.of} adverse events reported in the trial as mild or moderate."],
           ["{qs.np} were graded mild or moderate",
            "{qs.np} were of low or moderate severity"],
           "{qs.Np} were mild or moderate", 5)
    b.polar("secondary",
            (["The trial did not meet its key secondary endpoint, a measure of change in {secondary}.",
              "On the key secondary endpoint, change in {secondary}, the difference between the groups was not "
              "statistically significant."],
             ["the key secondary endpoint on {secondary} was not met",
              "{drug} did not show a significant benefit on {secondary}"],
             "The key secondary endpoint ({secondary}) was not met"),
            (["The trial also met its key secondary endpoint, a measure of change in {secondary}.",
              "On the key secondary endpoint, change in {secondary}, the difference between the groups was "
              "statistically significant."],
             ["the key secondary endpoint on {secondary} was met",
              "{drug} showed a significant benefit on {secondary}"],
             "The key secondary endpoint ({secondary}) was met"),
            3, p_negative=1.0)
    b.fact("discontinuation", "metric",
           ["Discontinuation rates were {disc_drug} in the {drug} arm and {disc_pbo} in the placebo arm.",
            "{disc_drug} of patients on {drug} stopped treatment early, compared with {disc_pbo} of patients on "
            "placebo."],
           ["{disc_drug} of {drug} patients discontinued, versus {disc_pbo} with placebo",
            "treatment was halted early by {disc_drug} of the active group and {disc_pbo} of controls"],
           "Discontinuations were {disc_drug} on {drug} and {disc_pbo} on placebo", 6)
    b.fact("serious", "metric",
           ["Serious adverse events occurred in {n_serious} patients in the {drug} group, and no deaths were reported "
            "during the study period.",
            "The investigators recorded serious adverse events in {n_serious} participants taking {drug}, and there "
            "were no deaths in either arm."],
           ["{n_serious} patients on {drug} had serious adverse events, with no deaths"],
           "{n_serious} serious adverse events on {drug} and no deaths", 7)
    b.fact("sponsor", "entity",
           ["{sponsor}, which developed {drug}, said it intends to submit an application for regulatory approval in "
            "{filing}.",
            "{sponsor} is preparing to seek regulatory approval for {drug} in {filing}, according to a company "
            "statement."],
           ["{sponsor} aims to file {drug} with regulators in {filing}",
            "developer {sponsor} will ask regulators to clear {drug} in {filing}"],
           "{sponsor} plans to seek approval for {drug} in {filing}", 2)
    b.fact("dosing", "event",
           ["Participants received {drug}, given as {dosing}, or a matching placebo for the length of the study.",
            "In the study, {drug} was given as {dosing}, and the control group received a matching placebo."],
           ["{drug} is dosed as {dosing}"],
           "{drug} is given as {dosing}", 8)
    layout = [["primary", "design", "dosing"], ["secondary", "safety", "serious", "discontinuation"],
              ["investigator", "sponsor"]]
    text, facts = _assemble(rng, layout, b.facts, list(_TRIAL_BACKGROUND))
    title = _pick(rng, ("{drug} meets primary endpoint in {phase} {condition} trial",
                        "{sponsor} reports {phase} results for {drug} in {condition}",
                        "{phase} readout: {drug} in {condition}")).format_map(s)
    gist = "{drug} beat placebo.".format_map(s)
    return _finish("healthcare", "trial_readout", title, text, facts, gist, s)


_HOSPITAL_BACKGROUND = (
    "The update was presented to the board of trustees at its regular quarterly meeting.",
    "Flu and respiratory virus admissions were lower than during the same months last year.",
    "Recruitment continues for hard-to-fill roles in imaging and laboratory services.",
    "Volunteers returned to the main lobby and the children's ward after a long absence.",
    "A new discharge lounge has helped free up inpatient beds earlier in the day.",
    "Patient satisfaction surveys showed improvement in communication about medications.",
    "Renovation of the main kitchen is expected to finish before the winter.",
    "The hospital is also upgrading its electronic health record system in stages.",
    "Community outreach clinics held screening events in three neighborhoods over the summer.",
)


def hospital(rng: random.Random) -> Document:
    coo, cno = _people(rng, 2)
    er_prev = _rand(rng, 55, 140)
    travel_prev = round(rng.uniform(3.0, 12.0), 1)
    qi = rng.randrange(4)
    s = dict(
        hospital=Entity(_pick(rng, HOSPITALS), "hospital"), city=Entity(_pick(rng, CITIES), "city"),
        coo=coo, cno=cno, quarter=Text(QUARTERS[qi]),
        er_wait=_int(er_prev - _rand(rng, 8, 40)), er_prev=_int(er_prev),
        occupancy=_pct(rng, 78, 97), beds=_int(_rand(rng, 18, 64) * 10),
        nurses=_int(_rand(rng, 20, 140)),
        travel=Number(round(travel_prev * rng.uniform(0.45, 0.85), 1), "musd"),
        travel_prev=Number(travel_prev, "musd"),
        qs=Quant(_pick(rng, ("most", "a majority of", "several", "nearly all")),
                 "inpatient unit", "inpatient units"),
        n_units=_int(_rand(rng, 8, 22)),
        freq=Quant(_pick(rng, ("rarely", "occasionally"))),
        readmit=_pct1(rng, 9.0, 16.0), unit=Text(_pick(rng, HOSPITAL_UNITS)), open_date=_day(rng),
    )
    b = _Builder(rng, s)
    b.fact("er_wait", "metric",
           ["The median wait in the emergency department fell to {er_wait} minutes in the {quarter}, down from "
            "{er_prev} minutes a year earlier.",
            "Emergency department patients waited a median of {er_wait} minutes to see a clinician during the "
            "{quarter}, compared with {er_prev} minutes in the same period last year."],
           ["median emergency wait times dropped to {er_wait} minutes from {er_prev}",
            "ER patients now wait a median {er_wait} minutes, down from {er_prev}"],
           "Median ER wait fell to {er_wait} minutes from {er_prev}", 1,
           np="shorter emergency waits of {er_wait} minutes")
    b.fact("occupancy", "metric",
           ["Average bed occupancy was {occupancy} across the {beds}-bed hospital.",
            "Occupancy averaged {occupancy} of the hospital's {beds} licensed beds over the quarter."],
           ["beds were {occupancy} full on average",
            "average occupancy ran at {occupancy}"],
           "Average bed occupancy was {occupancy}", 3)
    b.fact("nurses", "entity",
           ["Chief nursing officer {cno} said the hospital hired {nurses} registered nurses during the quarter, the "
            "largest intake since its nursing residency program expanded.",
            "A total of {nurses} registered nurses joined the staff during the quarter, according to chief nursing "
            "officer {cno}."],
           ["{cno}, the chief nursing officer, reported {nurses} new nurse hires",
            "nursing chief {cno} said {nurses} nurses were recruited"],
           "{nurses} registered nurses were hired, per chief nursing officer {cno}", 2,
           np="the hiring of {nurses} nurses")
    b.fact("travel", "metric",
           ["Spending on temporary travel nurses dropped to {travel} from {travel_prev} in the prior quarter.",
            "The hospital spent {travel} on agency and travel nurses, compared with {travel_prev} one quarter "
            "earlier."],
           ["travel nurse costs fell to {travel} from {travel_prev}",
            "agency nursing spend declined to {travel}, from {travel_prev}"],
           "Travel nurse spending fell to {travel} from {travel_prev}", 4,
           np="lower travel nurse spending")
    b.fact("staffing", "quant",
           ["{qs.of} {n_units} inpatient units met their staffing targets for the quarter.",
            "Staffing targets for the quarter were met in {qs.of} {n_units} inpatient units, the report showed."],
           ["{qs.np} met staffing targets",
            "staffing goals were reached in {qs.np}"],
           "{qs.Np} met staffing targets", 5)
    b.fact("diversion", "quant",
           ["Ambulances were {freq} diverted to neighboring hospitals during the period, according to the operations "
            "report."],
           ["ambulances were {freq} sent on to other hospitals"],
           "Ambulances were {freq} diverted", 7)
    b.fact("readmission", "metric",
           ["The 30-day readmission rate stood at {readmit}, below the state average for similar hospitals.",
            "Readmissions within 30 days of discharge were {readmit}, which compares well with similar hospitals in "
            "the state."],
           ["the 30-day readmission rate was {readmit}"],
           "The 30-day readmission rate was {readmit}", 6)
    b.fact("new_unit", "entity",
           ["Chief operating officer {coo} said the new {unit} is on track to open on {open_date}.",
            "The new {unit} will open on {open_date}, chief operating officer {coo} told the board."],
           ["operations chief {coo} expects the {unit} to welcome patients from {open_date}",
            "the {unit} opens {open_date}, according to operations head {coo}"],
           "The new {unit} opens on {open_date}", 4)
    b.polar("parking",
            (["The board did not approve a proposal to raise visitor parking fees at the main campus."],
             ["the board did not back higher visitor parking fees"],
             "The board did not approve higher visitor parking fees"),
            (["The board approved a proposal to raise visitor parking fees at the main campus."],
             ["the board backed higher visitor parking fees"],
             "The board approved higher visitor parking fees"),
            3, p_negative=1.0)
    b.polar("surgery",
            (["{hospital} has not resumed elective surgery on weekends, which was paused last winter."],
             ["weekend elective surgery has not restarted"],
             "Weekend elective surgery has not resumed"),
            (["{hospital} has resumed elective surgery on weekends, which was paused last winter."],
             ["weekend elective surgery has restarted"],
             "Weekend elective surgery has resumed"),
            7, p_negative=0.5)
    layout = [["er_wait", "occupancy", "diversion"], ["nurses", "travel", "staffing"],
              ["readmission", "new_unit"], ["parking", "surgery"]]
    text, facts = _assemble(rng, layout, b.facts, list(_HOSPITAL_BACKGROUND))
    title = _pick(rng, ("{hospital} {quarter} operations update",
                        "{hospital} reports shorter emergency waits and new nurse hires",
                        "Operations report: {hospital}, {quarter}")).format_map(s)
    gist = "{hospital} cut ER waits.".format_map(s)
    return _finish("healthcare", "hospital_operations", title, text, facts, gist, s)
