"""Demo documents of the finance domain: earnings releases."""

from __future__ import annotations

import random

from ..documents import (
    CITIES,
    FIN_COMPANIES,
    QUARTERS,
    Document,
    Entity,
    Number,
    Quant,
    Text,
    _apart,
    _assemble,
    _Builder,
    _day,
    _finish,
    _int,
    _money,
    _pct,
    _people,
    _pick,
    _rand,
)

_RELEASE_MONTHS = (("April",), ("July", "August"), ("October", "November"), ("January", "February"))

_FIN_BACKGROUND = (
    "The results were released after the market closed, and the shares moved only slightly in extended trading.",
    "Analysts on the call focused mainly on pricing, inventory levels and the timing of large contracts.",
    "Management repeated its commitment to cost discipline and to keeping working capital under tight control.",
    "The filing also contained updated segment disclosures that reflect a reorganization completed earlier in the "
    "year.",
    "A replay of the conference call is available on the investor relations website.",
    "The company will hold an investor day in the autumn, where it intends to present its longer-term strategy.",
    "Currency movements had only a small effect on reported figures, according to the supplementary tables.",
    "Inventory levels were reduced during the period as the company worked through older stock.",
    "Capital spending will be weighted toward the second half of the year, the company said.",
    "The company continues to integrate a small acquisition it completed last year.",
)


def earnings(rng: random.Random) -> Document:
    name, segments = _pick(rng, FIN_COMPANIES)
    ceo, cfo = _people(rng, 2)
    qi = rng.randrange(4)
    rev_m = round(rng.uniform(1.1, 8.9), 1) * 1000 if rng.random() < 0.4 else round(rng.uniform(120, 960), 1)
    revenue = _money(rev_m)
    annual = rev_m * 4
    g_lo = _money(annual * rng.uniform(0.94, 0.98))
    g_hi = _money(annual * rng.uniform(1.03, 1.08))
    ni = rev_m * rng.uniform(0.04, 0.14)
    margin = round(rng.uniform(18, 46), 1)
    s = dict(
        company=Entity(name, "company"), ceo=ceo, cfo=cfo,
        quarter=Text(QUARTERS[qi]), quarter_adj=Text(QUARTERS[qi].replace(" ", "-")),
        year=Number(_pick(rng, (2023, 2024, 2025)), "year", perturbable=False),
        date=_day(rng, _pick(rng, _RELEASE_MONTHS[qi])),
        revenue=revenue, rev_growth=_pct(rng, 3, 24), g_lo=g_lo, g_hi=g_hi,
        net_income=_money(ni), prior_ni=_money(_apart(rng, ni, 0.08, 0.3, 1)),
        eps=Number(round(rng.uniform(0.12, 2.85), 2), "cents"),
        margin=Number(margin, "pct1"), prior_margin=Number(_apart(rng, margin, 0.02, 0.08, 1), "pct1"),
        qs=Quant(_pick(rng, ("most", "a majority of", "several", "nearly all", "some")),
                 "regional division", "regional divisions"),
        n_div=_int(_rand(rng, 6, 12)), segment=Text(_pick(rng, segments)),
        cash=_money(rng.uniform(40, 900)), n_centers=_int(_rand(rng, 2, 6)),
        city=Entity(_pick(rng, CITIES), "city"),
        buyback=Number(_pick(rng, (50, 75, 100, 150, 200, 250, 300, 400, 500)), "musd"),
        dividend=Number(round(rng.uniform(0.08, 0.95), 2), "cents"),
        headcount=_int(_rand(rng, 120, 3800) * 10),
    )
    b = _Builder(rng, s)
    b.fact("revenue", "metric",
           ["{company} reported {quarter} revenue of {revenue}, an increase of {rev_growth} over the same period a "
            "year earlier.",
            "Revenue for the {quarter} of {year} reached {revenue}, {company} said on {date}, a gain of {rev_growth} "
            "compared with the prior-year period.",
            "{company} said on {date} that its {quarter} revenue climbed {rev_growth} from a year ago to {revenue}."],
           ["{company.poss} {quarter_adj} sales grew {rev_growth} year over year to {revenue}",
            "{company} lifted quarterly revenue {rev_growth} to {revenue}"],
           "{company} {quarter} revenue was {revenue}, up {rev_growth}", 1,
           np="a {rev_growth} jump in quarterly sales")
    b.fact("net_income", "metric",
           ["Net income was {net_income}, or {eps} per diluted share, compared with {prior_ni} in the year-earlier "
            "quarter.",
            "The company earned {net_income} in the period, equal to {eps} per diluted share, versus {prior_ni} a year "
            "before."],
           ["profit came to {net_income}, or {eps} a share, against {prior_ni} last year",
            "quarterly earnings totaled {net_income} ({eps} per share), compared with {prior_ni} previously"],
           "Net income was {net_income}, or {eps} per share", 2, np="net income of {net_income}")
    b.fact("margin", "metric",
           ["Gross margin was {margin}, compared with {prior_margin} in the same quarter last year.",
            "Gross margin came in at {margin} for the quarter, against {prior_margin} twelve months earlier."],
           ["gross margin moved to {margin} from {prior_margin}",
            "the gross margin stood at {margin}, versus {prior_margin} a year ago"],
           "Gross margin was {margin}, versus {prior_margin} a year earlier", 5,
           np="a gross margin of {margin}")
    b.fact("divisions", "quant",
           ["{qs.of} {n_div} regional divisions posted higher sales, with the strongest gains in {segment}.",
            "Sales rose in {qs.of} {n_div} regional divisions, and {segment} led the gains."],
           ["{qs.np} reported sales growth, with {segment} strongest",
            "sales increased in {qs.np}, led by {segment}"],
           "Sales rose in {qs.np}", 5)
    b.polar("buyback",
            (["The board did not approve the proposed {buyback} share repurchase program and will revisit the plan at "
              "its next scheduled meeting.",
              "Directors did not approve a proposed {buyback} stock buyback, leaving the matter for a later board "
              "session."],
             ["the board did not sign off on the {buyback} buyback",
              "the {buyback} share buyback plan was not approved"],
             "The board did not approve the {buyback} buyback"),
            (["The board approved a {buyback} share repurchase program that runs through the end of next year.",
              "Directors approved a new {buyback} stock buyback during the quarter."],
             ["the board signed off on the {buyback} buyback",
              "the {buyback} share buyback plan was approved"],
             "The board approved a {buyback} buyback"),
            3, p_negative=1.0)
    b.polar("dividend",
            (["The company did not raise its quarterly dividend, which remains at {dividend} per share."],
             ["the {dividend} quarterly dividend was not increased"],
             "The quarterly dividend was not raised ({dividend} per share)"),
            (["The company raised its quarterly dividend to {dividend} per share."],
             ["the quarterly dividend was increased to {dividend}"],
             "The quarterly dividend was raised to {dividend} per share"),
            7, p_negative=0.5)
    b.fact("guidance", "metric",
           ["For the full year, management now expects revenue between {g_lo} and {g_hi}.",
            "{company} set its full-year revenue outlook at a range of {g_lo} to {g_hi} in the release."],
           ["full-year revenue is forecast at {g_lo} to {g_hi}",
            "the company guided to annual sales of {g_lo} to {g_hi}"],
           "Full-year revenue guidance is {g_lo} to {g_hi}", 3)
    b.fact("ceo", "entity",
           ["Chief executive {ceo} told analysts on the earnings call that demand for {segment} remained firm through "
            "the final weeks of the quarter.",
            "On the call with analysts, chief executive {ceo} described order trends in {segment} as steady and said "
            "pricing had held up well."],
           ["CEO {ceo} said demand in {segment} held steady",
            "chief executive {ceo} described orders for {segment} as stable"],
           "CEO {ceo} said demand for {segment} was steady", 4)
    b.fact("cfo", "entity",
           ["Chief financial officer {cfo} said the company ended the quarter with {cash} in cash and had drawn "
            "nothing on its revolving credit facility.",
            "The company closed the period with {cash} in cash, chief financial officer {cfo} said, and its credit "
            "line was untouched."],
           ["finance chief {cfo} reported a cash balance of {cash}",
            "CFO {cfo} put quarter-end cash at {cash}"],
           "CFO {cfo} reported {cash} in cash", 6, np="a cash balance of {cash}")
    b.fact("centers", "event",
           ["During the quarter, {company} opened {n_centers} new distribution centers, including one in {city}.",
            "{company} added {n_centers} distribution centers in the period, among them a site in {city}."],
           ["the company brought {n_centers} more distribution sites online, one of them in {city}"],
           "{company} opened {n_centers} distribution centers, including one in {city}", 6,
           np="the opening of {n_centers} distribution centers")
    b.fact("headcount", "metric",
           ["Headcount stood at {headcount} employees at the end of the period, roughly flat with the prior quarter.",
            "The company employed {headcount} people at quarter end, a figure little changed from three months "
            "earlier."],
           ["the workforce totaled {headcount} people"],
           "Headcount was {headcount}", 8)
    layout = [["revenue", "net_income"], ["margin", "divisions", "centers"],
              ["guidance", "buyback", "dividend"], ["ceo", "cfo", "headcount"]]
    text, facts = _assemble(rng, layout, b.facts, list(_FIN_BACKGROUND))
    title = _pick(rng, ("{company} reports {quarter_adj} {year} results",
                        "{company} posts higher {quarter_adj} revenue and sets outlook",
                        "{company} {quarter} {year} earnings")).format_map(s)
    gist = "{company} revenue rose {rev_growth}.".format_map(s)
    return _finish("finance", "earnings", title, text, facts, gist, s)
