"""What every demo document is made of: slots, fact records, name pools, and the builder that
assembles a document from facts.

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
from dataclasses import dataclass, field
from typing import Any

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
    slots: dict[str, Any]
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
    _cache: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)

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
    return [Entity(f"{first} {last}", "person") for first, last in zip(firsts, lasts)]


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

QUARTERS = ("first quarter", "second quarter", "third quarter", "fourth quarter")


# --------------------------------------------------------------------------- builder


class _Builder:
    def __init__(self, rng: random.Random, slots: dict[str, Any]) -> None:
        self.rng = rng
        self.slots = slots
        self.facts: dict[str, Fact] = {}

    def fact(self, key: str, kind: str, src, clauses, statement: str, priority: int,
             np: str | None = None, causal_ok: bool = True, slots: dict[str, Any] | None = None) -> Fact:
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
               extra: dict[str, Any] | None = None) -> Fact:
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
    paras: list[tuple[str, list[Any]]] = []
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
            slots: dict[str, Any]) -> Document:
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
