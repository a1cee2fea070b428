"""Source documents for the demo workload.

A document is assembled from fact records.  Each record keeps the slot values it
was rendered from, the exact sentence it contributed to the text, paraphrased
summary clauses and a one-line statement.  The summary side (``perturb``) works
from those records, so it always knows exactly what the document states and can
plant a single, recorded deviation.

Everything here is deterministic given the ``random.Random`` passed in.

Writing rules the templates follow (the tests and the planted modes rely on them):

* no hedge words (may, might, could, likely, perhaps, ...) anywhere in the text, and
  the month of May is never used, so a lexical hedge check has no false positives;
* no causal connectives ("because", "due to", "as a result", "driven by") in the
  text, so a causal link in a summary is never supported by the source;
* summary clauses are written independently of the source sentences, so a good
  summary never repeats a long run of source words.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = [
    "DOMAINS",
    "DOMAIN_PREFIX",
    "Day",
    "Document",
    "Entity",
    "Fact",
    "Number",
    "Quant",
    "Text",
    "build_document",
    "coarse_entity_type",
    "entity_pool",
    "format_number",
    "normalized_words",
    "number_tokens",
    "random_person",
]

# May is left out on purpose: "may" is also a hedge word.
MONTHS = ("January", "February", "March", "April", "June", "July", "August",
          "September", "October", "November", "December")

NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")


def number_tokens(text: str) -> set[str]:
    """Numeric tokens of a text ("$4.2 million" -> "4.2", "1,240 staff" -> "1,240")."""
    return set(NUMBER_RE.findall(text))


def _pick(rng: random.Random, seq):
    """A uniformly chosen element (cheaper than ``Random.choice``, equally deterministic)."""
    return seq[int(rng.random() * len(seq))]


def _rand(rng: random.Random, lo: int, hi: int) -> int:
    """A uniform integer in [lo, hi] (cheaper than ``Random.randint``)."""
    return lo + int(rng.random() * (hi - lo + 1))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


# --------------------------------------------------------------------------- slots


class Slot:
    """A value that fills a template field; ``str()`` gives its rendered form."""

    kind = "text"
    perturbable = False
    __slots__ = ("value", "_text")

    def __init__(self, value) -> None:
        self.value = value
        self._text: str | None = None

    def render(self) -> str:
        return str(self.value)

    def __str__(self) -> str:
        if self._text is None:
            self._text = self.render()
        return self._text

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else format(str(self), spec)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class Text(Slot):
    kind = "text"
    __slots__ = ()


class Entity(Slot):
    """A named entity: person, company, drug, city or organisation."""

    kind = "entity"
    __slots__ = ("etype",)

    def __init__(self, name: str, etype: str) -> None:
        super().__init__(name)
        self.etype = etype

    @property
    def last(self) -> str:
        return self.value.rsplit(" ", 1)[-1]

    @property
    def first(self) -> str:
        return self.value.split(" ", 1)[0]

    @property
    def poss(self) -> str:
        """Possessive form: "Kitestream's", "Nimbus Notes'"."""
        return self.value + ("'" if self.value.endswith("s") else "'s")


def format_number(value: float, style: str) -> str:
    if style == "pct":
        return f"{int(round(value))}%"
    if style == "pct1":
        return f"{value:.1f}%"
    if style == "musd":
        if abs(value - round(value)) < 1e-9:
            return f"${int(round(value)):,} million"
        return f"${value:.1f} million"
    if style == "busd":
        return f"${value:.1f} billion"
    if style == "usd":
        return f"${int(round(value)):,}"
    if style == "cents":
        return f"${value:.2f}"
    if style == "int":
        return f"{int(round(value)):,}"
    if style == "dec1":
        return f"{value:.1f}"
    if style == "year":
        return str(int(value))
    raise ValueError(f"unknown number style {style!r}")


class Number(Slot):
    """A quantity with a display style (percent, money, count, ...)."""

    kind = "number"
    __slots__ = ("style", "perturbable")

    def __init__(self, value: float, style: str, perturbable: bool = True) -> None:
        super().__init__(value)
        self.style = style
        self.perturbable = perturbable

    def render(self) -> str:
        return format_number(self.value, self.style)

    def with_value(self, value: float) -> Number:
        return Number(value, self.style, self.perturbable)


class Day(Slot):
    """A calendar date without a year, e.g. "March 3"."""

    kind = "date"
    perturbable = True
    __slots__ = ("month", "day")

    def __init__(self, month: str, day: int) -> None:
        super().__init__(f"{month} {day}")
        self.month = month
        self.day = day

    def with_day(self, day: int) -> Day:
        return Day(self.month, day)


class Quant(Slot):
    """A quantifier ("most", "a majority of", "rarely") over a noun, if any.

    ``np`` renders the quantified noun phrase ("most regional divisions",
    "every region"); ``of`` the partitive lead-in used in source sentences
    ("most of the").  Adverbs (``pl`` is None) render as the bare word.
    """

    kind = "quant"
    __slots__ = ("sg", "pl")

    def __init__(self, q: str, sg: str | None = None, pl: str | None = None) -> None:
        super().__init__(q)
        self.sg = sg
        self.pl = pl

    @property
    def np(self) -> str:
        if self.pl is None:
            return self.value
        if self.value in ("every", "each"):
            return f"{self.value} {self.sg}"
        return f"{self.value} {self.pl}"

    @property
    def Np(self) -> str:  # noqa: N802 - capitalised form for statements
        return _cap(self.np)

    @property
    def of(self) -> str:
        if self.value.endswith(" of"):
            return f"{self.value} the"
        return f"{self.value} of the"

    def shifted(self, q: str) -> Quant:
        return Quant(q, self.sg, self.pl)


# --------------------------------------------------------------------------- records


@dataclass(eq=False)
class Fact:
    """One checkable statement of a document and everything needed to summarise it."""

    key: str
    kind: str                      # metric | quant | entity | polar | event | action
    source: str                    # the sentence exactly as it appears in the text
    clauses: tuple[str, ...]       # summary clause templates (good paraphrases)
    statement_template: str        # short statement for expected_facts (see ``statement``)
    slots: dict
    priority: int                  # lower is more important
    noun_phrase: str | None = None   # template usable after "due to" / "driven by"
    flipped: tuple[str, ...] = ()       # polar facts: clause templates, opposite polarity
    bullet: str | None = None        # action items: "{owner}: ... by {due}"
    polarity: str | None = None      # polar facts: "negative" | "positive"
    causal_ok: bool = True              # may serve in a (spurious) causal link
    order: int = -1                     # position in the document, set on assembly

    @property
    def statement(self) -> str:
        return _cap(self.statement_template.format_map(self.slots))


@dataclass(eq=False)
class Document:
    domain: str
    archetype: str
    title: str
    text: str
    facts: list[Fact]
    gist: str                      # a very short but correct one-line summary
    entities: list[Entity]
    _cache: dict = field(default_factory=dict, repr=False)

    def number_tokens(self) -> set[str]:
        if "nums" not in self._cache:
            self._cache["nums"] = number_tokens(self.text)
        return self._cache["nums"]

    def normalized(self) -> str:
        """The text as normalized words joined by single spaces, padded with a space each side."""
        if "norm" not in self._cache:
            self._cache["norm"] = " " + " ".join(normalized_words(self.text)) + " "
        return self._cache["norm"]


_PUNCT = re.compile(r"[^\w\s]+")
_ASCII_PUNCT = str.maketrans("", "", "".join(chr(c) for c in range(128)
                                             if not chr(c).isalnum() and not chr(c).isspace() and chr(c) != "_"))


def normalized_words(text: str) -> list[str]:
    """Lowercased words with punctuation stripped (the unit of copy checks)."""
    if text.isascii():
        return text.lower().translate(_ASCII_PUNCT).split()
    return _PUNCT.sub("", text.lower()).split()


# --------------------------------------------------------------------------- pools

FIRST_NAMES = ("Priya", "Marcus", "Elena", "Tomasz", "Aisha", "Daniel", "Mei", "Rafael",
               "Hannah", "Kwame", "Sofia", "Jonas", "Leila", "Owen", "Yuki", "Gabriel",
               "Ingrid", "Samuel", "Nadia", "Victor", "Chloe", "Arjun", "Beatriz", "Felix",
               "Amara", "Lucas", "Rosa", "Henrik", "Zara", "Mateo", "Camille", "Idris",
               "Freya", "Tobias", "Lena", "Desmond", "Mira", "Oscar", "Anika", "Theo")
LAST_NAMES = ("Nair", "Whitfield", "Okafor", "Lindqvist", "Moreau", "Haddad", "Castellanos",
              "Brennan", "Takahashi", "Osei", "Kowalski", "Fairbanks", "Ramirez", "Adeyemi",
              "Holloway", "Petrov", "Sandoval", "Achterberg", "Quinlan", "Varga", "Ferreira",
              "Lindgren", "Ashworth", "Nakamura", "Oyelaran", "Costa", "Hartley", "Rasmussen",
              "Iyer", "Kaplan", "Mendez", "Sorensen", "Galloway", "Mwangi", "Duarte", "Everett",
              "Kimura", "Pellegrini", "Abara", "Voss")

FIN_COMPANIES = (
    ("Northwind Foods", ("frozen meals", "snack brands", "food service contracts")),
    ("Calder Logistics", ("freight brokerage", "contract warehousing", "parcel delivery")),
    ("Brightwater Utilities", ("water connections", "wastewater services", "smart meters")),
    ("Halvorsen Marine", ("ferry routes", "port services", "vessel maintenance")),
    ("Aldermoor Retail", ("home furnishings", "online orders", "garden supplies")),
    ("Quillon Software", ("subscription software", "payroll tools", "analytics services")),
    ("Redfern Steel", ("structural steel", "coated products", "recycled metals")),
    ("Oakridge Apparel", ("outdoor apparel", "footwear", "wholesale accounts")),
    ("Veridian Packaging", ("food packaging", "industrial containers", "paper products")),
    ("Marlowe Hotels", ("city hotels", "resort properties", "conference bookings")),
    ("Ostrava Chemicals", ("specialty coatings", "adhesives", "water treatment chemicals")),
    ("Pinecrest Insurance", ("commercial policies", "auto policies", "small business cover")),
    ("Lumenfield Semiconductors", ("power chips", "automotive sensors", "industrial controllers")),
    ("Corbel Home Goods", ("kitchenware", "bedding", "bath products")),
    ("Strandline Media", ("streaming subscriptions", "advertising", "licensing deals")),
    ("Tallis Engineering", ("rail signaling", "airport systems", "maintenance contracts")),
)
SPONSORS = ("Halden Therapeutics", "Marisol Pharma", "Kestrel Biosciences", "Arbor Lane Pharma",
            "Solenne Bio", "Vantor Medicines", "Greyfield Therapeutics", "Ilex Biopharma",
            "Cobalt Ridge Pharma", "Novaro Health")
DRUGS = ("dorantinib", "velostamab", "cerapridol", "lumexavir", "tavoxilan", "brenicept",
         "solvandrine", "pemarotide", "kestrafenib", "oriluzumab", "zelnacept", "afrivastat")
# condition -> (specialty, key secondary endpoint)
CONDITIONS = (
    ("moderate plaque psoriasis", "dermatology", "itch severity"),
    ("chronic migraine", "neurology", "monthly headache days"),
    ("type 2 diabetes", "endocrinology", "fasting glucose"),
    ("early rheumatoid arthritis", "rheumatology", "physical function scores"),
    ("treatment-resistant hypertension", "cardiology", "overnight blood pressure"),
    ("moderate persistent asthma", "pulmonology", "symptom-free days"),
    ("atopic dermatitis", "dermatology", "sleep disturbance scores"),
    ("generalized anxiety disorder", "psychiatry", "daily functioning scores"),
)
DOSING = ("a once-daily oral tablet", "an injection every four weeks", "a twice-daily capsule",
          "a monthly infusion")
HOSPITALS = ("Ashford Valley Hospital", "Riverside General Hospital", "Lakeview Regional Hospital",
             "Mercy Vale Hospital", "Saint Brigid Medical Center", "Northgate Community Hospital",
             "Harrow Point Hospital", "Elmstead University Hospital")
HOSPITAL_UNITS = ("cardiac step-down unit", "pediatric urgent care center",
                  "outpatient infusion center", "behavioral health unit", "orthopedic surgery wing")
CITIES = ("Millbrook", "Port Adair", "Westhaven", "Larkspur", "Dunmore", "Fairhaven", "Rockhurst",
          "Ashbury", "Glenrock", "Stonebridge", "Marlow Bay", "Elmira Falls", "Kessler Point",
          "Brookvale", "Copper Springs", "Norwood Hills")
INSTITUTIONS = ("Westhaven University", "Larkspur Institute of Technology", "Dunmore State University",
                "Northern Coast University", "Fairhaven Environmental College", "Rockhurst Climate Center")
JOURNALS = ("the Journal of Urban Climate", "Urban Ecology Letters", "Environmental Field Reports",
            "Climate and Cities Review")
FUNDERS = ("the Hollis Foundation", "the Greenway Trust", "the Marrow Science Fund",
           "the Bellcourt Foundation")
CONTRACTORS = ("Granite Line Construction", "Harbor and Vale Builders", "Ironwood Civil",
               "Keystone Pipeworks", "Meridian Infrastructure Group", "Summit Ridge Contractors")
STREETS = ("Harbor Road", "Mill Street", "Quarry Avenue", "Elm Parkway", "Station Road", "Bramble Lane",
           "Foundry Street", "Ridge Avenue", "Canal Street", "Orchard Way")
VENDORS = ("Brightpath Staffing", "Clearmark Analytics", "Tessellate Cloud", "Orchard Print Services",
           "Bluefin Courier", "Lattice Payroll", "Stonegate Facilities", "Harbinger Translations")
TEAMS = ("Platform Operations team", "Regional Sales leadership group", "Product Council",
         "Facilities Planning Committee", "Customer Support leadership team",
         "Data Governance working group", "Partner Marketing team")
PROJECTS = ("self-service returns", "warehouse scanning", "customer callback", "onboarding chatbot",
            "invoice automation", "field service scheduling")
TECH_COMPANIES = ("Kitestream", "Parcelwise", "Nimbus Notes", "Orbital Ledger", "Fernhill Pay",
                  "Quayside Cloud", "Tandem Rides", "Helio Metrics")
SERVICES = ("checkout API", "login service", "push notification pipeline", "search indexer",
            "payments gateway", "file sync service", "order routing service")
COMPONENTS = ("load balancer configuration", "connection pool settings", "DNS resolver fleet",
              "feature flag service", "certificate rotation job", "cache cluster",
              "database failover controller")

_POOLS: dict[str, tuple[str, ...]] = {
    "company": tuple(c for c, _ in FIN_COMPANIES),
    "sponsor": SPONSORS,
    "drug": DRUGS,
    "hospital": HOSPITALS,
    "city": CITIES,
    "institution": INSTITUTIONS,
    "funder": FUNDERS,
    "contractor": CONTRACTORS,
    "vendor": VENDORS,
    "tech_company": TECH_COMPANIES,
}
_COARSE = {"person": "person", "company": "company", "sponsor": "company", "contractor": "company",
           "vendor": "company", "tech_company": "company", "drug": "drug", "city": "city",
           "hospital": "organization", "institution": "organization", "funder": "organization"}


def coarse_entity_type(etype: str) -> str:
    """person | company | drug | city | organization."""
    return _COARSE.get(etype, etype)


def entity_pool(etype: str) -> tuple[str, ...]:
    """Names of the given fine-grained entity type (not for persons)."""
    return _POOLS.get(etype, ())


def random_person(rng: random.Random) -> str:
    return f"{_pick(rng, FIRST_NAMES)} {_pick(rng, LAST_NAMES)}"


def _people(rng: random.Random, k: int) -> list[Entity]:
    firsts = rng.sample(FIRST_NAMES, k)
    lasts = rng.sample(LAST_NAMES, k)
    return [Entity(f"{f} {l}", "person") for f, l in zip(firsts, lasts)]


def _day(rng: random.Random, month: str | None = None) -> Day:
    return Day(month or _pick(rng, MONTHS), _rand(rng, 1, 28))


def _later_day(rng: random.Random, start: Day) -> Day:
    """A date shortly after ``start`` (same or next month)."""
    idx = MONTHS.index(start.month)
    if start.day < 24 and rng.random() < 0.5:
        return Day(start.month, _rand(rng, start.day + 2, 28))
    return Day(MONTHS[(idx + 1) % len(MONTHS)], _rand(rng, 1, 28))


def _money(millions: float) -> Number:
    if millions >= 1000:
        return Number(round(millions / 1000, 1), "busd")
    return Number(round(millions, 1), "musd")


def _pct(rng: random.Random, lo: int, hi: int) -> Number:
    return Number(_rand(rng, lo, hi), "pct")


def _pct1(rng: random.Random, lo: float, hi: float) -> Number:
    return Number(round(rng.uniform(lo, hi), 1), "pct1")


def _int(value: int) -> Number:
    return Number(value, "int")


def _apart(rng: random.Random, base: float, lo: float, hi: float, digits: int) -> float:
    """A value that differs from ``base`` by a relative amount in [lo, hi], either way."""
    f = rng.uniform(lo, hi) * _pick(rng, (-1, 1))
    return round(base * (1 + f), digits)


# --------------------------------------------------------------------------- builder


class _Builder:
    def __init__(self, rng: random.Random, slots: dict) -> None:
        self.rng = rng
        self.slots = slots
        self.facts: dict[str, Fact] = {}

    def fact(self, key: str, kind: str, src, clauses, statement: str, priority: int,
             np: str | None = None, causal_ok: bool = True, slots: dict | None = None) -> Fact:
        slots = self.slots if slots is None else slots
        source = _cap(_pick(self.rng, src).format_map(slots))
        f = Fact(key, kind, source, tuple(clauses), statement, slots,
                 priority, noun_phrase=np, causal_ok=causal_ok)
        self.facts[key] = f
        return f

    def polar(self, key: str, neg, pos, priority: int, p_negative: float = 1.0) -> Fact:
        """neg / pos: (source templates, clause templates, statement); clause lists align."""
        negative = self.rng.random() < p_negative
        use, other = (neg, pos) if negative else (pos, neg)
        source = _cap(_pick(self.rng, use[0]).format_map(self.slots))
        f = Fact(key, "polar", source, tuple(use[1]), use[2], self.slots,
                 priority, flipped=tuple(other[1]), polarity="negative" if negative else "positive")
        self.facts[key] = f
        return f

    def action(self, key: str, spec: tuple[str, str], owner: Entity, due: Day, priority: int,
               extra: dict | None = None) -> Fact:
        src, act = spec
        slots = dict(self.slots)
        slots.update(owner=owner, due=due)
        if extra:
            slots.update(extra)
        f = Fact(key, "action", _cap(src.format_map(slots)),
                 ("{owner} will " + act + " by {due}", "{owner} is to " + act + " by {due}"),
                 "{owner}: " + act + " by {due}", slots, priority,
                 bullet="{owner}: " + act + " by {due}")
        self.facts[key] = f
        return f


def _assemble(rng: random.Random, layout, facts: dict[str, Fact], background: list[str],
              lo: int = 225, hi: int = 445) -> tuple[str, list[Fact]]:
    """Lay facts and background sentences out into paragraphs within [lo, hi] words.

    ``layout`` items: a list of fact keys (a prose paragraph that takes background
    sentences), ``("lines", [keys])`` (one sentence per line, no background),
    ``("closed", [keys])`` (prose without background), or a plain string (a fixed
    line such as a heading).
    """
    paras: list[tuple[str, list]] = []
    for block in layout:
        if isinstance(block, str):
            paras.append(("fixed", [("fixed", block)]))
        elif isinstance(block, tuple):
            paras.append((block[0], [("fact", facts[k]) for k in block[1] if k in facts]))
        else:
            paras.append(("prose", [("fact", facts[k]) for k in block if k in facts]))

    def size(entry) -> int:
        return len((entry[1].source if entry[0] == "fact" else entry[1]).split())

    words = sum(size(e) for _, entries in paras for e in entries)
    pool = list(background)
    rng.shuffle(pool)
    prose_idx = [i for i, (mode, _) in enumerate(paras) if mode == "prose"]
    target = _rand(rng, 245, 380)
    while words < target and pool:
        i = _pick(rng, prose_idx)
        p = paras[i][1]
        entry = ("bg", pool.pop())
        # the opening paragraph leads with its first fact
        p.insert(_rand(rng, 1 if i == prose_idx[0] else 0, len(p)), entry)
        words += size(entry)
    # too long: drop background first, then the least important facts
    while words > hi:
        bg_spots = [(i, j) for i, (_, es) in enumerate(paras) for j, (t, _) in enumerate(es) if t == "bg"]
        if bg_spots:
            i, j = bg_spots[-1]
        else:
            spots = [(es[j][1].priority, i, j) for i, (_, es) in enumerate(paras)
                     for j, (t, _) in enumerate(es) if t == "fact" and es[j][1].kind != "action"]
            _, i, j = max(spots)
        words -= size(paras[i][1][j])
        del paras[i][1][j]
    if words < lo:
        raise RuntimeError("document too short: add background sentences")

    out_paras: list[str] = []
    present: list[Fact] = []
    for mode, entries in paras:
        if not entries:
            continue
        texts = []
        for t, x in entries:
            if t == "fact":
                x.order = len(present)
                present.append(x)
                texts.append(x.source)
            else:
                texts.append(x)
        out_paras.append(("\n" if mode == "lines" else " ").join(texts))
    return "\n\n".join(out_paras), present


def _finish(domain: str, archetype: str, title: str, text: str, facts: list[Fact], gist: str,
            slots: dict) -> Document:
    ents: list[Entity] = []
    seen: set[str] = set()
    dicts = {id(slots): slots}
    for f in facts:
        dicts.setdefault(id(f.slots), f.slots)
    for d in dicts.values():
        for s in d.values():
            if isinstance(s, Entity) and s.value not in seen and s.value in text:
                seen.add(s.value)
                ents.append(s)
    return Document(domain, archetype, _cap(title), text, facts, gist, ents)


# --------------------------------------------------------------------------- finance

_RELEASE_MONTHS = (("April",), ("July", "August"), ("October", "November"), ("January", "February"))
_QUARTERS = ("first quarter", "second quarter", "third quarter", "fourth quarter")

_FIN_BACKGROUND = (
    "The results were released after the market closed, and the shares moved only slightly in extended trading.",
    "Analysts on the call focused mainly on pricing, inventory levels and the timing of large contracts.",
    "Management repeated its commitment to cost discipline and to keeping working capital under tight control.",
    "The filing also contained updated segment disclosures that reflect a reorganization completed earlier in the year.",
    "A replay of the conference call is available on the investor relations website.",
    "The company will hold an investor day in the autumn, where it intends to present its longer-term strategy.",
    "Currency movements had only a small effect on reported figures, according to the supplementary tables.",
    "Inventory levels were reduced during the period as the company worked through older stock.",
    "Capital spending will be weighted toward the second half of the year, the company said.",
    "The company continues to integrate a small acquisition it completed last year.",
)


def _earnings(rng: random.Random) -> Document:
    name, segments = _pick(rng, FIN_COMPANIES)
    ceo, cfo = _people(rng, 2)
    qi = rng.randrange(4)
    if rng.random() < 0.4:
        rev_m = round(rng.uniform(1.1, 8.9), 1) * 1000
    else:
        rev_m = round(rng.uniform(120, 960), 1)
    revenue = _money(rev_m)
    annual = rev_m * 4
    g_lo = _money(annual * rng.uniform(0.94, 0.98))
    g_hi = _money(annual * rng.uniform(1.03, 1.08))
    ni = rev_m * rng.uniform(0.04, 0.14)
    margin = round(rng.uniform(18, 46), 1)
    s = dict(
        company=Entity(name, "company"), ceo=ceo, cfo=cfo,
        quarter=Text(_QUARTERS[qi]), quarter_adj=Text(_QUARTERS[qi].replace(" ", "-")),
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
           ["{company} reported {quarter} revenue of {revenue}, an increase of {rev_growth} over the same period a year earlier.",
            "Revenue for the {quarter} of {year} reached {revenue}, {company} said on {date}, a gain of {rev_growth} compared with the prior-year period.",
            "{company} said on {date} that its {quarter} revenue climbed {rev_growth} from a year ago to {revenue}."],
           ["{company.poss} {quarter_adj} sales grew {rev_growth} year over year to {revenue}",
            "{company} lifted quarterly revenue {rev_growth} to {revenue}"],
           "{company} {quarter} revenue was {revenue}, up {rev_growth}", 1,
           np="a {rev_growth} jump in quarterly sales")
    b.fact("net_income", "metric",
           ["Net income was {net_income}, or {eps} per diluted share, compared with {prior_ni} in the year-earlier quarter.",
            "The company earned {net_income} in the period, equal to {eps} per diluted share, versus {prior_ni} a year before."],
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
            (["The board did not approve the proposed {buyback} share repurchase program and will revisit the plan at its next scheduled meeting.",
              "Directors did not approve a proposed {buyback} stock buyback, leaving the matter for a later board session."],
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
           ["Chief executive {ceo} told analysts on the earnings call that demand for {segment} remained firm through the final weeks of the quarter.",
            "On the call with analysts, chief executive {ceo} described order trends in {segment} as steady and said pricing had held up well."],
           ["CEO {ceo} said demand in {segment} held steady",
            "chief executive {ceo} described orders for {segment} as stable"],
           "CEO {ceo} said demand for {segment} was steady", 4)
    b.fact("cfo", "entity",
           ["Chief financial officer {cfo} said the company ended the quarter with {cash} in cash and had drawn nothing on its revolving credit facility.",
            "The company closed the period with {cash} in cash, chief financial officer {cfo} said, and its credit line was untouched."],
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
            "The company employed {headcount} people at quarter end, a figure little changed from three months earlier."],
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


# --------------------------------------------------------------------------- healthcare

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


def _trial(rng: random.Random) -> Document:
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
           ["The randomized, placebo-controlled {phase} trial enrolled {n_patients} adults with {condition} at {n_sites} sites in {n_countries} countries.",
            "A total of {n_patients} adults with {condition} took part in the {phase} study, which was run at {n_sites} sites across {n_countries} countries."],
           ["the {phase} study randomized {n_patients} patients with {condition}",
            "{n_patients} people with {condition} were enrolled across {n_countries} countries"],
           "{n_patients} patients with {condition} enrolled in the {phase} trial", 3)
    b.fact("primary", "metric",
           ["After {weeks} weeks, {resp_drug} of patients receiving {drug} met the primary endpoint, compared with {resp_pbo} of those given placebo.",
            "The primary endpoint was reached by {resp_drug} of participants in the {drug} arm at week {weeks}, against {resp_pbo} in the placebo arm."],
           ["{drug} hit the main goal in {resp_drug} of patients versus {resp_pbo} on placebo",
            "at {weeks} weeks the response rate was {resp_drug} with {drug} and {resp_pbo} with placebo"],
           "Primary endpoint met by {resp_drug} on {drug} versus {resp_pbo} on placebo", 1,
           np="a {resp_drug} response rate on {drug}")
    b.fact("investigator", "entity",
           ["The results were presented in {conf_city} on {date} by lead investigator {pi}, a {specialty} specialist at {hospital}.",
            "Lead investigator {pi}, who heads {specialty} research at {hospital}, presented the findings at a medical meeting in {conf_city} on {date}."],
           ["{pi} of {hospital} shared the data at a {conf_city} meeting",
            "the findings were reported by {pi} in {conf_city} on {date}"],
           "Lead investigator {pi} of {hospital} presented the results", 4)
    b.fact("safety", "quant",
           ["{qs.of} adverse events recorded during the study were mild or moderate in severity, with headache and nausea reported more often than other events.",
            "Investigators classified {qs.of} adverse events reported in the trial as mild or moderate."],
           ["{qs.np} were graded mild or moderate",
            "{qs.np} were of low or moderate severity"],
           "{qs.Np} were mild or moderate", 5)
    b.polar("secondary",
            (["The trial did not meet its key secondary endpoint, a measure of change in {secondary}.",
              "On the key secondary endpoint, change in {secondary}, the difference between the groups was not statistically significant."],
             ["the key secondary endpoint on {secondary} was not met",
              "{drug} did not show a significant benefit on {secondary}"],
             "The key secondary endpoint ({secondary}) was not met"),
            (["The trial also met its key secondary endpoint, a measure of change in {secondary}.",
              "On the key secondary endpoint, change in {secondary}, the difference between the groups was statistically significant."],
             ["the key secondary endpoint on {secondary} was met",
              "{drug} showed a significant benefit on {secondary}"],
             "The key secondary endpoint ({secondary}) was met"),
            3, p_negative=1.0)
    b.fact("discontinuation", "metric",
           ["Discontinuation rates were {disc_drug} in the {drug} arm and {disc_pbo} in the placebo arm.",
            "{disc_drug} of patients on {drug} stopped treatment early, compared with {disc_pbo} of patients on placebo."],
           ["{disc_drug} of {drug} patients discontinued, versus {disc_pbo} with placebo",
            "treatment was halted early by {disc_drug} of the active group and {disc_pbo} of controls"],
           "Discontinuations were {disc_drug} on {drug} and {disc_pbo} on placebo", 6)
    b.fact("serious", "metric",
           ["Serious adverse events occurred in {n_serious} patients in the {drug} group, and no deaths were reported during the study period.",
            "The investigators recorded serious adverse events in {n_serious} participants taking {drug}, and there were no deaths in either arm."],
           ["{n_serious} patients on {drug} had serious adverse events, with no deaths"],
           "{n_serious} serious adverse events on {drug} and no deaths", 7)
    b.fact("sponsor", "entity",
           ["{sponsor}, which developed {drug}, said it intends to submit an application for regulatory approval in {filing}.",
            "{sponsor} is preparing to seek regulatory approval for {drug} in {filing}, according to a company statement."],
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


def _hospital(rng: random.Random) -> Document:
    coo, cno = _people(rng, 2)
    er_prev = _rand(rng, 55, 140)
    travel_prev = round(rng.uniform(3.0, 12.0), 1)
    qi = rng.randrange(4)
    s = dict(
        hospital=Entity(_pick(rng, HOSPITALS), "hospital"), city=Entity(_pick(rng, CITIES), "city"),
        coo=coo, cno=cno, quarter=Text(_QUARTERS[qi]),
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
           ["The median wait in the emergency department fell to {er_wait} minutes in the {quarter}, down from {er_prev} minutes a year earlier.",
            "Emergency department patients waited a median of {er_wait} minutes to see a clinician during the {quarter}, compared with {er_prev} minutes in the same period last year."],
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
           ["Chief nursing officer {cno} said the hospital hired {nurses} registered nurses during the quarter, the largest intake since its nursing residency program expanded.",
            "A total of {nurses} registered nurses joined the staff during the quarter, according to chief nursing officer {cno}."],
           ["{cno}, the chief nursing officer, reported {nurses} new nurse hires",
            "nursing chief {cno} said {nurses} nurses were recruited"],
           "{nurses} registered nurses were hired, per chief nursing officer {cno}", 2,
           np="the hiring of {nurses} nurses")
    b.fact("travel", "metric",
           ["Spending on temporary travel nurses dropped to {travel} from {travel_prev} in the prior quarter.",
            "The hospital spent {travel} on agency and travel nurses, compared with {travel_prev} one quarter earlier."],
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
           ["Ambulances were {freq} diverted to neighboring hospitals during the period, according to the operations report."],
           ["ambulances were {freq} sent on to other hospitals"],
           "Ambulances were {freq} diverted", 7)
    b.fact("readmission", "metric",
           ["The 30-day readmission rate stood at {readmit}, below the state average for similar hospitals.",
            "Readmissions within 30 days of discharge were {readmit}, which compares well with similar hospitals in the state."],
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


# --------------------------------------------------------------------------- meetings

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
    ("{owner} will place an order for {qty} replacement laptops for the support team, with delivery requested by {due}.",
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


def _meeting(rng: random.Random) -> Document:
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
           ["{chair} chaired the {team} meeting on {date}, with {n_att} members present and {n_remote} joining by video.",
            "The {team} met on {date} with {chair} in the chair; {n_att} members attended, {n_remote} of them remotely."],
           ["{chair} ran the {date} session of the {team}",
            "{chair} led the {team} when it convened on {date}"],
           "{chair} chaired the {team} meeting on {date}", 6)
    b.fact("budget", "metric",
           ["The group approved a budget of {budget} for the {project} pilot, which will run for {weeks} weeks starting next month.",
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
           ["{reporter} reported that the support backlog has dropped to {backlog} open tickets, from {backlog_prev} two weeks ago.",
            "According to {reporter}, open support tickets now number {backlog}, compared with {backlog_prev} at the previous meeting."],
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


# --------------------------------------------------------------------------- news

_CITY_BACKGROUND = (
    "Residents who attended the hearing raised questions about noise, parking and access for delivery trucks.",
    "The city has set up a web page where people can sign up for construction alerts.",
    "Local business owners asked for clear signage so customers can still reach their shops.",
    "The project has been discussed for more than a decade, and earlier plans were shelved during a budget shortfall.",
    "Council members also heard a presentation on the long-term capital plan.",
    "Utility crews will mark underground lines before heavy equipment arrives.",
    "The transportation department said it will coordinate the work with other planned road projects to avoid repeated closures.",
    "Public meetings on the design were held last year in libraries and community centers.",
    "The project team will publish a monthly progress report online.",
)

# project type -> (long name, short name, scope sources, scope clauses, scope statement)
_CITY_PROJECTS = (
    ("a replacement of aging water mains", "water main replacement",
     ["Crews will replace {length} kilometers of cast-iron pipe, much of it laid more than a century ago, beneath {street_a} and {street_b}.",
      "The work covers {length} kilometers of old cast-iron water pipe under {street_a} and {street_b}, parts of which date to the nineteenth century."],
     ["{length} km of old pipe under {street_a} and {street_b} will be swapped out"],
     "{length} km of water main to be replaced"),
    ("the rebuilding of the {street_a} Bridge", "bridge rebuild",
     ["The two-lane {street_a} Bridge will be replaced with a {span}-meter, four-lane crossing that includes a protected bike path.",
      "Plans call for a four-lane, {span}-meter crossing with a protected bike path in place of the existing two-lane {street_a} Bridge."],
     ["a wider {span}-meter bridge with a bike lane takes the place of the old two-lane span"],
     "New {span}-meter four-lane bridge replaces the {street_a} Bridge"),
    ("a bus rapid transit line along {street_a}", "bus rapid transit line",
     ["The line will run {length} kilometers along {street_a}, with {n_stops} stations and dedicated bus lanes along the full route.",
      "Buses on the new line will travel {length} kilometers along {street_a} in their own lanes, stopping at {n_stops} stations."],
     ["the {length} km route on {street_a} gets {n_stops} stations and its own lanes"],
     "{length} km bus line with {n_stops} stations"),
)
_FEES = ("water rates", "parking fees", "the local sales tax", "transit fares")


def _city(rng: random.Random) -> Document:
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
            "On {date}, {city} council members approved {project} by a vote of {yes} to {no}, setting aside {cost} for the work."],
           ["{city.poss} council backed the {cost} {project_short} in a {yes}-{no} vote on {date}",
            "a {cost} {project_short} won council approval {yes}-{no} in {city}"],
           "{city} council approved the {cost} {project_short}, {yes}-{no}", 1,
           np="the council vote on the {project_short}")
    b.fact("scope", "metric", scope_src, scope_clauses, scope_stmt, 3)
    b.fact("grant", "metric",
           ["A federal infrastructure grant will cover {pct_grant} of the cost, and the remainder will come from the city's capital reserve.",
            "Roughly {pct_grant} of the project is being paid for with a federal grant, with city reserves covering the rest."],
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
           ["Mayor {mayor} said the project was long overdue and promised regular updates for residents and businesses along the route.",
            "Mayor {mayor} welcomed the vote, calling the work long overdue and pledging to keep residents informed as it moves ahead."],
           ["Mayor {mayor} called the work overdue and pledged updates",
            "Mayor {mayor} backed the project and promised to keep people posted"],
           "Mayor {mayor} supported the project", 4)
    b.fact("engineer", "entity",
           ["City engineer {engineer} said crews will work overnight on the busiest segments to keep daytime lane closures to a minimum.",
            "To limit daytime lane closures, crews will work through the night on the busiest segments, city engineer {engineer} said."],
           ["city engineer {engineer} plans night work on the busiest stretches"],
           "City engineer {engineer} plans overnight work on busy segments", 6)
    b.fact("associations", "quant",
           ["{qs.of} {n_assoc} neighborhood associations that submitted comments supported the plan.",
            "The plan drew support from {qs.of} {n_assoc} neighborhood associations that sent in written comments."],
           ["{qs.np} supported the plan",
            "the plan had backing from {qs.np}"],
           "{qs.Np} supported the plan", 5)
    b.polar("fee",
            (["The council did not approve a proposed increase in {fee} that had been floated as an extra funding source.",
              "A proposed increase in {fee}, floated as another way to pay for the work, was not approved by the council."],
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
           ["During construction, {n_routes} bus routes will be detoured, and the transit agency will post maps at affected stops.",
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
    "Pavement and rooftops absorb sunlight during the day and release it slowly after sunset, keeping cities warmer than the surrounding land.",
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


def _science(rng: random.Random) -> Document:
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
           ["Streets with dense tree cover were on average {delta} degrees Celsius cooler on summer afternoons than nearby streets with little shade, the researchers found.",
            "On summer afternoons, blocks with heavy tree canopy measured {delta} degrees Celsius cooler on average than comparable blocks with sparse shade."],
           ["well-shaded streets averaged {delta} degrees cooler than exposed ones in summer afternoon heat",
            "dense canopy cut afternoon street temperatures by {delta} degrees Celsius on average"],
           "Tree-covered streets were {delta} degrees Celsius cooler on summer afternoons", 1,
           np="{delta}-degree cooler afternoons under trees")
    b.fact("design", "metric",
           ["The team placed {n_sensors} temperature sensors across {city} and recorded readings every 15 minutes for {n_summers} summers.",
            "Over {n_summers} summers, researchers collected readings from {n_sensors} sensors mounted on lampposts throughout {city}."],
           ["the study used {n_sensors} sensors in {city} over {n_summers} summers",
            "{n_sensors} lamppost sensors in {city} logged data for {n_summers} summers"],
           "{n_sensors} sensors in {city} over {n_summers} summers", 3)
    b.fact("authors", "entity",
           ["The study, led by {lead} of {institution}, was published on {date} in {journal}.",
            "{lead}, an urban climate researcher at {institution}, led the work, which appeared in {journal} on {date}."],
           ["{institution} researcher {lead} led the project",
            "{journal} carried the paper by {lead} ({institution})"],
           "Led by {lead} of {institution}", 2)
    b.fact("canopy", "metric",
           ["Tree canopy covers {canopy} of {city}, according to city mapping data cited in the paper, well below the {target} goal set in the local climate plan.",
            "City mapping data cited in the paper put canopy cover in {city} at {canopy}, short of the {target} goal in its climate plan."],
           ["{city} has {canopy} canopy cover against a {target} target"],
           "{city} canopy cover is {canopy}, below its {target} goal", 5)
    b.fact("neighborhoods", "quant",
           ["The cooling effect was measured in {qs.of} {n_nbhd} monitored neighborhoods, including those with older housing.",
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
            (["The researchers also found a link between tree cover and {second_var}, which they had tracked alongside temperature.",
              "Tree cover was also linked to {second_var}, a second measure the team followed during the study."],
             ["a link to {second_var} was found",
              "tree cover was tied to {second_var}"],
             "Tree cover was linked to {second_var}"),
            3, p_negative=1.0)
    b.fact("coauthor", "entity",
           ["Co-author {coauthor} said the findings give planners a practical reason to prioritize shade in low-income neighborhoods that lost trees to storms and construction.",
            "The findings give planners a concrete reason to put shade first in low-income neighborhoods, co-author {coauthor} said."],
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


# --------------------------------------------------------------------------- technology

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
    ("{owner} owns updating the runbook so on-call engineers can roll back configuration in one step, with a target date of {due}.",
     "rewrite the rollback runbook"),
    ("{owner} will schedule a quarterly failover drill, with the first one set for {due}.",
     "run the first quarterly failover drill"),
    ("{owner} is tasked with adding an alert on error budgets for the {service}, due {due}.",
     "create an error-budget alert for the {service}"),
)


def _postmortem(rng: random.Random) -> Document:
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
           ["At the peak, {peak_err} of requests to the service failed, and {failed_req} requests returned errors in total.",
            "Error rates reached {peak_err} at the worst point of the incident, with {failed_req} failed requests overall."],
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
            "The response was coordinated by incident commander {ic}, who pulled in the networking and database on-call engineers."],
           ["{ic} led the response as incident commander",
            "incident commander {ic} ran the response"],
           "Incident commander was {ic}", 4)
    b.polar("staged",
            (["The change did not go through the usual staged rollout and was applied everywhere in a single step.",
              "Instead of the usual staged rollout, the change was applied everywhere at once, and it did not pass through a canary phase."],
             ["the change was not rolled out in stages",
              "the update did not go out gradually"],
             "The change was not rolled out in stages"),
            (["The change went through the usual staged rollout, reaching the final region about an hour after the first.",
              "The change followed the usual staged rollout and passed through a canary phase before reaching the final region."],
             ["the change was rolled out in stages",
              "the update went out gradually"],
             "The change was rolled out in stages"),
            2, p_negative=1.0)
    b.polar("restore",
            (["Engineers did not need to restore any data from backups, and the database team confirmed that customer records were intact."],
             ["no data had to be restored from backups"],
             "No data had to be restored from backups"),
            (["Engineers had to restore two database shards from backups, and the database team confirmed that customer records were intact."],
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
           ["According to the review, the automated failover procedure had been {freq} exercised in drills over the past year."],
           ["failover drills had {freq} been run in the past year"],
           "The failover procedure was {freq} drilled", 7)
    b.fact("rollback", "entity",
           ["{eng} rolled back the change at {rollback_time}, and error rates returned to normal within {recovery} minutes.",
            "Error rates were back to normal {recovery} minutes after {eng} reverted the change at {rollback_time}."],
           ["{eng.poss} rollback at {rollback_time} restored normal error levels in {recovery} minutes"],
           "{eng} rolled back at {rollback_time}; recovery took {recovery} minutes", 5)
    keys = []
    for i, (spec, owner) in enumerate(zip(rng.sample(_TECH_ACTIONS, 2), (o1, o2))):
        key = f"followup_{i + 1}"
        keys.append(key)
        b.action(key, spec, owner, _later_day(rng, s["date"]), 6 + i)
    layout = [["impact", "errors", "regions"], ["trigger", "staged", "commander", "rollback"],
              ["restore", "drills"], "Follow-up actions", ("lines", keys)]
    text, facts = _assemble(rng, layout, b.facts, list(_TECH_BACKGROUND))
    title = _pick(rng, ("Postmortem: {service} outage on {date}", "Incident review: {company} {service} errors",
                        "{company} {service} incident report")).format_map(s)
    gist = "The {service} failed for {duration} minutes.".format_map(s)
    return _finish("technology", "postmortem", title, text, facts, gist, s)


# --------------------------------------------------------------------------- entry point

_BUILDERS: dict[str, tuple[Callable[[random.Random], Document], ...]] = {
    "finance": (_earnings,),
    "healthcare": (_trial, _hospital),
    "meetings": (_meeting,),
    "news": (_city, _science),
    "technology": (_postmortem,),
}
DOMAINS: tuple[str, ...] = tuple(_BUILDERS)
DOMAIN_PREFIX = {"finance": "fin", "healthcare": "hc", "meetings": "mtg", "news": "news",
                 "technology": "tech"}


def build_document(domain: str, index: int, rng: random.Random) -> Document:
    """The ``index``-th document of ``domain`` (archetypes of a domain alternate)."""
    builders = _BUILDERS[domain]
    return builders[index % len(builders)](rng)
