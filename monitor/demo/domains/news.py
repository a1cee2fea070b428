"""Demo documents of the news domain: city council news and science findings."""

from __future__ import annotations

import random

from ..documents import (
    CITIES,
    CONTRACTORS,
    FUNDERS,
    INSTITUTIONS,
    JOURNALS,
    MONTHS,
    STREETS,
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
    _people,
    _pick,
    _rand,
)

_CITY_BACKGROUND = (
    "Residents who attended the hearing raised questions about noise, parking and access for delivery trucks.",
    "The city has set up a web page where people can sign up for construction alerts.",
    "Local business owners asked for clear signage so customers can still reach their shops.",
    "The project has been discussed for more than a decade, and earlier plans were shelved during a budget shortfall.",
    "Council members also heard a presentation on the long-term capital plan.",
    "Utility crews will mark underground lines before heavy equipment arrives.",
    "The transportation department said it will coordinate the work with other planned road projects to avoid repeated "
    "closures.",
    "Public meetings on the design were held last year in libraries and community centers.",
    "The project team will publish a monthly progress report online.",
)

# project type -> (long name, short name, scope sources, scope clauses, scope statement)
_CITY_PROJECTS = (
    ("a replacement of aging water mains", "water main replacement",
     ["Crews will replace {length} kilometers of cast-iron pipe, much of it laid more than a century ago, beneath "
      "{street_a} and {street_b}.",
      "The work covers {length} kilometers of old cast-iron water pipe under {street_a} and {street_b}, parts of which "
      "date to the nineteenth century."],
     ["{length} km of old pipe under {street_a} and {street_b} will be swapped out"],
     "{length} km of water main to be replaced"),
    ("the rebuilding of the {street_a} Bridge", "bridge rebuild",
     ["The two-lane {street_a} Bridge will be replaced with a {span}-meter, four-lane crossing that includes a "
      "protected bike path.",
      "Plans call for a four-lane, {span}-meter crossing with a protected bike path in place of the existing two-lane "
      "{street_a} Bridge."],
     ["a wider {span}-meter bridge with a bike lane takes the place of the old two-lane span"],
     "New {span}-meter four-lane bridge replaces the {street_a} Bridge"),
    ("a bus rapid transit line along {street_a}", "bus rapid transit line",
     ["The line will run {length} kilometers along {street_a}, with {n_stops} stations and dedicated bus lanes along "
      "the full route.",
      "Buses on the new line will travel {length} kilometers along {street_a} in their own lanes, stopping at "
      "{n_stops} stations."],
     ["the {length} km route on {street_a} gets {n_stops} stations and its own lanes"],
     "{length} km bus line with {n_stops} stations"),
)
_FEES = ("water rates", "parking fees", "the local sales tax", "transit fares")


def city(rng: random.Random) -> Document:
    mayor, engineer = _people(rng, 2)
    long_name, short_name, scope_src, scope_clauses, scope_stmt = _pick(rng, _CITY_PROJECTS)
    street_a, street_b = rng.sample(STREETS, 2)
    total = _pick(rng, (7, 9, 11))
    yes = _rand(rng, total // 2 + 1, total)
    s = dict(
        city=Entity(_pick(rng, CITIES), "city"), mayor=mayor, engineer=engineer,
        contractor=Entity(_pick(rng, CONTRACTORS), "contractor"),
        street_a=Text(street_a), street_b=Text(street_b), date=_day(rng),
        cost=Number(_rand(rng, 12, 240), "musd"), yes=_int(yes), no=_int(total - yes),
        pct_grant=_pct(rng, 20, 60), start_month=Text(_pick(rng, MONTHS)),
        end_year=Number(_pick(rng, (2026, 2027, 2028)), "year", perturbable=False),
        n_bids=_int(_rand(rng, 3, 7)), length=Number(round(rng.uniform(2.1, 9.8), 1), "dec1"),
        span=_int(_rand(rng, 18, 62) * 10), n_stops=_int(_rand(rng, 8, 19)),
        qs=Quant(_pick(rng, ("most", "a majority of", "several", "some")),
                 "neighborhood association", "neighborhood associations"),
        n_assoc=_int(_rand(rng, 6, 15)), fee=Text(_pick(rng, _FEES)), n_routes=_int(_rand(rng, 2, 6)),
    )
    s["project"] = Text(long_name.format_map(s))
    s["project_short"] = Text(short_name)
    b = _Builder(rng, s)
    b.fact("vote", "metric",
           ["The {city} City Council voted {yes} to {no} on {date} to approve {project}, with a budget of {cost}.",
            "On {date}, {city} council members approved {project} by a vote of {yes} to {no}, setting aside {cost} for "
            "the work."],
           ["{city.poss} council backed the {cost} {project_short} in a {yes}-{no} vote on {date}",
            "a {cost} {project_short} won council approval {yes}-{no} in {city}"],
           "{city} council approved the {cost} {project_short}, {yes}-{no}", 1,
           np="the council vote on the {project_short}")
    b.fact("scope", "metric", scope_src, scope_clauses, scope_stmt, 3)
    b.fact("grant", "metric",
           ["A federal infrastructure grant will cover {pct_grant} of the cost, and the remainder will come from the "
            "city's capital reserve.",
            "Roughly {pct_grant} of the project is being paid for with a federal grant, with city reserves covering "
            "the rest."],
           ["federal money pays for {pct_grant} of the bill",
            "{pct_grant} of the cost comes from a federal grant"],
           "A federal grant covers {pct_grant} of the cost", 4, np="a federal grant worth {pct_grant} of the cost")
    b.fact("timeline", "metric",
           ["Construction is scheduled to begin in {start_month} and to wrap up by the end of {end_year}.",
            "Work is expected to start in {start_month}, with completion targeted for late {end_year}."],
           ["work runs from {start_month} until late {end_year}",
            "crews start in {start_month} and aim to be done by the close of {end_year}"],
           "Construction runs from {start_month} to the end of {end_year}", 3)
    b.fact("contractor", "entity",
           ["The contract went to {contractor}, which submitted the lowest of {n_bids} bids.",
            "{contractor} won the contract after offering the lowest price among {n_bids} bidders."],
           ["{contractor} was hired as the cheapest of {n_bids} bidders",
            "low bidder {contractor} got the job"],
           "{contractor} won the contract as lowest of {n_bids} bidders", 5)
    b.fact("mayor", "entity",
           ["Mayor {mayor} said the project was long overdue and promised regular updates for residents and businesses "
            "along the route.",
            "Mayor {mayor} welcomed the vote, calling the work long overdue and pledging to keep residents informed as "
            "it moves ahead."],
           ["Mayor {mayor} called the work overdue and pledged updates",
            "Mayor {mayor} backed the project and promised to keep people posted"],
           "Mayor {mayor} supported the project", 4)
    b.fact("engineer", "entity",
           ["City engineer {engineer} said crews will work overnight on the busiest segments to keep daytime lane "
            "closures to a minimum.",
            "To limit daytime lane closures, crews will work through the night on the busiest segments, city engineer "
            "{engineer} said."],
           ["city engineer {engineer} plans night work on the busiest stretches"],
           "City engineer {engineer} plans overnight work on busy segments", 6)
    b.fact("associations", "quant",
           ["{qs.of} {n_assoc} neighborhood associations that submitted comments supported the plan.",
            "The plan drew support from {qs.of} {n_assoc} neighborhood associations that sent in written comments."],
           ["{qs.np} supported the plan",
            "the plan had backing from {qs.np}"],
           "{qs.Np} supported the plan", 5)
    b.polar("fee",
            (["The council did not approve a proposed increase in {fee} that had been floated as an extra funding "
              "source.",
              "A proposed increase in {fee}, floated as another way to pay for the work, was not approved by the "
              "council."],
             ["a proposed rise in {fee} was not approved",
              "the council did not raise {fee}"],
             "No increase in {fee} was approved"),
            (["The council also approved an increase in {fee} as an extra funding source for the work.",
              "A proposed increase in {fee}, floated as another way to pay for the work, was approved by the council."],
             ["a proposed rise in {fee} was approved",
              "the council raised {fee}"],
             "An increase in {fee} was approved"),
            2, p_negative=1.0)
    b.fact("detours", "metric",
           ["During construction, {n_routes} bus routes will be detoured, and the transit agency will post maps at "
            "affected stops.",
            "The transit agency said {n_routes} bus routes will be detoured while work is under way."],
           ["{n_routes} bus routes face detours during the work"],
           "{n_routes} bus routes will be detoured", 7)
    layout = [["vote", "scope", "grant"], ["timeline", "contractor", "detours"],
              ["mayor", "engineer", "associations", "fee"]]
    text, facts = _assemble(rng, layout, b.facts, list(_CITY_BACKGROUND))
    title = _pick(rng, ("{city} approves {cost} {project_short}", "{city} council backs {project_short}",
                        "Green light for {project_short} in {city}")).format_map(s)
    gist = "{city} approved a {project_short}.".format_map(s)
    return _finish("news", "city_infrastructure", title, text, facts, gist, s)


_SCIENCE_BACKGROUND = (
    "Pavement and rooftops absorb sunlight during the day and release it slowly after sunset, keeping cities warmer "
    "than the surrounding land.",
    "Heat waves have become a growing public health concern for city governments.",
    "The authors checked sensor placement against satellite imagery to confirm shade levels.",
    "Tree-planting campaigns have been launched in a number of cities in recent years.",
    "The dataset will be made publicly available so other researchers can repeat the analysis.",
    "Local officials said they would review the results as they update the urban forestry plan.",
    "The team is planning a follow-up study that will compare how different tree species perform.",
    "Sensors were calibrated each spring before the measurement season began.",
)
_SECOND_VARS = ("nighttime air pollution readings", "summer electricity use", "hospital visits for asthma",
                "noise levels")


def science(rng: random.Random) -> Document:
    lead, coauthor = _people(rng, 2)
    delta = round(rng.uniform(1.6, 4.8), 1)
    canopy = _rand(rng, 12, 30)
    s = dict(
        lead=lead, coauthor=coauthor, institution=Entity(_pick(rng, INSTITUTIONS), "institution"),
        journal=Text(_pick(rng, JOURNALS)), funder=Entity(_pick(rng, FUNDERS), "funder"),
        city=Entity(_pick(rng, CITIES), "city"), date=_day(rng),
        delta=Number(delta, "dec1"), night_delta=Number(round(delta * rng.uniform(0.2, 0.5), 1), "dec1"),
        n_sensors=_int(_rand(rng, 40, 220)), n_summers=_int(_rand(rng, 2, 5)),
        canopy=Number(canopy, "pct"), target=Number(canopy + _rand(rng, 8, 20), "pct"),
        qs=Quant(_pick(rng, ("most", "a majority of", "nearly all", "some")),
                 "monitored neighborhood", "monitored neighborhoods"),
        n_nbhd=_int(_rand(rng, 12, 40)), second_var=Text(_pick(rng, _SECOND_VARS)),
    )
    b = _Builder(rng, s)
    b.fact("finding", "metric",
           ["Streets with dense tree cover were on average {delta} degrees Celsius cooler on summer afternoons than "
            "nearby streets with little shade, the researchers found.",
            "On summer afternoons, blocks with heavy tree canopy measured {delta} degrees Celsius cooler on average "
            "than comparable blocks with sparse shade."],
           ["well-shaded streets averaged {delta} degrees cooler than exposed ones in summer afternoon heat",
            "dense canopy cut afternoon street temperatures by {delta} degrees Celsius on average"],
           "Tree-covered streets were {delta} degrees Celsius cooler on summer afternoons", 1,
           np="{delta}-degree cooler afternoons under trees")
    b.fact("design", "metric",
           ["The team placed {n_sensors} temperature sensors across {city} and recorded readings every 15 minutes for "
            "{n_summers} summers.",
            "Over {n_summers} summers, researchers collected readings from {n_sensors} sensors mounted on lampposts "
            "throughout {city}."],
           ["the study used {n_sensors} sensors in {city} over {n_summers} summers",
            "{n_sensors} lamppost sensors in {city} logged data for {n_summers} summers"],
           "{n_sensors} sensors in {city} over {n_summers} summers", 3)
    b.fact("authors", "entity",
           ["The study, led by {lead} of {institution}, was published on {date} in {journal}.",
            "{lead}, an urban climate researcher at {institution}, led the work, which appeared in {journal} on "
            "{date}."],
           ["{institution} researcher {lead} led the project",
            "{journal} carried the paper by {lead} ({institution})"],
           "Led by {lead} of {institution}", 2)
    b.fact("canopy", "metric",
           ["Tree canopy covers {canopy} of {city}, according to city mapping data cited in the paper, well below the "
            "{target} goal set in the local climate plan.",
            "City mapping data cited in the paper put canopy cover in {city} at {canopy}, short of the {target} goal "
            "in its climate plan."],
           ["{city} has {canopy} canopy cover against a {target} target"],
           "{city} canopy cover is {canopy}, below its {target} goal", 5)
    b.fact("neighborhoods", "quant",
           ["The cooling effect was measured in {qs.of} {n_nbhd} monitored neighborhoods, including those with older "
            "housing.",
            "Researchers recorded the cooling effect in {qs.of} {n_nbhd} monitored neighborhoods."],
           ["the effect showed up in {qs.np}",
            "{qs.np} saw the cooling benefit"],
           "Cooling seen in {qs.np}", 4)
    b.polar("link",
            (["The researchers did not find a link between tree cover and {second_var}, which they had also tracked.",
              "Tree cover was not linked to {second_var}, a second measure the team followed during the study."],
             ["no link to {second_var} was found",
              "tree cover was not tied to {second_var}"],
             "No link between tree cover and {second_var}"),
            (["The researchers also found a link between tree cover and {second_var}, which they had tracked alongside "
              "temperature.",
              "Tree cover was also linked to {second_var}, a second measure the team followed during the study."],
             ["a link to {second_var} was found",
              "tree cover was tied to {second_var}"],
             "Tree cover was linked to {second_var}"),
            3, p_negative=1.0)
    b.fact("coauthor", "entity",
           ["Co-author {coauthor} said the findings give planners a practical reason to prioritize shade in low-income "
            "neighborhoods that lost trees to storms and construction.",
            "The findings give planners a concrete reason to put shade first in low-income neighborhoods, co-author "
            "{coauthor} said."],
           ["co-author {coauthor} urged planners to put shade first in poorer areas"],
           "{coauthor} urged prioritizing shade in low-income areas", 6)
    b.fact("night", "metric",
           ["The gap narrowed at night, when shaded streets were only {night_delta} degrees Celsius cooler.",
            "After dark the difference shrank, with shaded streets just {night_delta} degrees Celsius cooler."],
           ["at night the difference fell to {night_delta} degrees"],
           "The night-time difference was {night_delta} degrees Celsius", 6)
    b.fact("funding", "entity",
           ["The work was funded by {funder} together with the city's parks department.",
            "Funding for the study came from {funder} and the city's parks department."],
           ["{funder} and the parks department paid for the study"],
           "Funded by {funder}", 8)
    layout = [["finding", "design", "authors"], ["night", "neighborhoods", "link"],
              ["canopy", "coauthor", "funding"]]
    text, facts = _assemble(rng, layout, b.facts, list(_SCIENCE_BACKGROUND))
    title = _pick(rng, ("Tree cover keeps {city} streets cooler, study finds",
                        "Shade from street trees cuts summer heat in {city}",
                        "Study maps the cooling effect of trees in {city}")).format_map(s)
    gist = "Trees cool {city} streets.".format_map(s)
    return _finish("news", "science", title, text, facts, gist, s)
