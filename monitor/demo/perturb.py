"""Summaries for the demo workload: a good one per document, and variants with one planted failure.

A summary is held as a :class:`Draft`: an ordered list of items, each tied to a fact
record of the document and rendered from a clause template plus that fact's slot
values.  A planted failure edits exactly one thing in a copy of the good draft (a
slot value, a template, one or two sentences, or a wrapper around the body) and
reports what it changed, so the result differs from the good summary in one
recorded way only.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from string import Formatter

from ..rubrics.bands import BANDS as _BAND_DEFS
from .corpus import (
    Day,
    Document,
    Entity,
    Fact,
    Number,
    Quant,
    coarse_entity_type,
    entity_pool,
    normalized_words,
    number_tokens,
    random_person,
)

__all__ = [
    "BANDS",
    "CAUSAL_CONNECTIVES",
    "CLOSINGS",
    "COPY_RUN",
    "DEFAULT_RATES",
    "Draft",
    "FILLER_PHRASES",
    "HEDGE_WORDS",
    "Item",
    "MODE_NEEDS",
    "PLANTED_MODES",
    "PREAMBLES",
    "PlantingError",
    "RECAP_MODES",
    "VERBATIM_RUN",
    "alter_number",
    "build_reference",
    "copies_run",
    "expected_facts",
    "plant",
    "word_count",
]

# band -> (min words, max words)
BANDS: dict[str, tuple[int, int]] = {name: (b.min_words, b.max_words) for name, b in _BAND_DEFS.items()}
_SENTENCES = {"tldr": (1, 2), "exec_summary": (3, 5), "abstract": (4, 7)}
# good summaries keep this many words clear of the band edges, so that a one-word
# edit (a flipped negation, a swapped name) does not also push them out of band
_SLACK = 3

PLANTED_MODES: tuple[str, ...] = (
    "number_changed",
    "quantifier_drift",
    "entity_swapped",
    "negation_flipped",
    "causal_added",
    "hedging_inflated",
    "filler_padding",
    "verbatim_restatement",
    "length_out_of_band",
    "chatty_preamble",
)
DEFAULT_RATES: dict[str, float] = {"none": 0.40, **{m: 0.06 for m in PLANTED_MODES}}

COPY_RUN = 8        # a good summary never shares a run of this many words with its source
VERBATIM_RUN = 12   # a verbatim restatement copies at least this many consecutive words

FILLER_PHRASES = (
    "It is important to note that",
    "In today's fast-paced world,",
    "At the end of the day,",
    "It goes without saying that",
    "All things considered,",
    "Needless to say,",
)
HEDGE_WORDS = ("may", "might", "possibly", "appears to", "could", "seems", "likely", "perhaps",
               "somewhat", "arguably")
PREAMBLES = (
    "Sure! Here's a concise summary of the document:",
    "Certainly, below is a summary of the key points:",
    "Of course! Here is a brief summary of the text:",
    "Absolutely, here's a quick summary of what the document says:",
    "Sure thing! Below is a summary of the main points:",
    "Happy to help! Here's a summary:",
)
CLOSINGS = (
    "Let me know if you'd like more detail!",
    "I hope this helps! Let me know if you need anything else.",
    "Feel free to ask if you want me to expand on any point.",
    "Would you like me to shorten it further or add more detail?",
)
CAUSAL_CONNECTIVES = ("because", "as a result of", "as a result", "due to", "driven by")


class PlantingError(RuntimeError):
    """The requested failure cannot be planted in this draft."""


_WORD = re.compile(r"\S*\w\S*")


def word_count(text: str) -> int:
    """Whitespace-separated tokens that contain a letter or digit (bullet dashes do not count)."""
    return len(_WORD.findall(text))


def copies_run(text: str, source: str, n: int = COPY_RUN) -> bool:
    """Whether ``text`` shares a run of ``n`` consecutive words with ``source``.

    Words are lowercased with punctuation stripped before comparing.
    """
    return _copies_normalized(text, " " + " ".join(normalized_words(source)) + " ", n)


def _copies_normalized(text: str, padded_source: str, n: int) -> bool:
    toks = normalized_words(text)
    return any(" " + " ".join(toks[i:i + n]) + " " in padded_source for i in range(len(toks) - n + 1))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text


_FIELDS: dict[str, tuple[str, ...]] = {}


def _fields(template: str) -> tuple[str, ...]:
    """Slot names a template uses, sorted (never iterate a set of str: hash order varies)."""
    got = _FIELDS.get(template)
    if got is None:
        names = {f.split(".")[0].split("[")[0] for _, f, _, _ in Formatter().parse(template) if f}
        got = tuple(sorted(names))
        _FIELDS[template] = got
    return got


_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _long_source_sentences(fact: Fact) -> list[str]:
    return [s for s in _SENT_SPLIT.split(fact.source) if len(normalized_words(s)) >= VERBATIM_RUN]


# --------------------------------------------------------------------------- drafts


@dataclass
class Item:
    fact: Fact
    variant: int
    template: str
    slots: dict
    sentence: str | None = None   # when set, replaces the rendered sentence or bullet
    _clause: str | None = None

    def clause(self) -> str:
        if self._clause is None:
            self._clause = self.template.format_map(self.slots)
        return self._clause

    def set_slot(self, name: str, value) -> None:
        self.slots[name] = value
        self._clause = None

    def set_template(self, template: str) -> None:
        self.template = template
        self._clause = None

    def copy(self) -> Item:
        return Item(self.fact, self.variant, self.template, dict(self.slots), self.sentence, self._clause)


@dataclass
class Draft:
    band: str
    bullets: bool
    items: list[Item]
    lead: str = ""        # sentence or line placed before the body
    preamble: str = ""
    closing: str = ""

    def sentences(self) -> list[str]:
        out = []
        for it in self.items:
            if it.sentence is not None:
                out.append(it.sentence)
            elif self.bullets:
                out.append("- " + it.clause())
            else:
                out.append(_cap(it.clause()) + ".")
        return out

    def render(self) -> str:
        sep = "\n" if self.bullets else " "
        parts = ([self.lead] if self.lead else []) + self.sentences()
        text = sep.join(parts)
        if self.preamble:
            text = self.preamble + "\n\n" + text
        if self.closing:
            text = text + "\n\n" + self.closing
        return text

    def copy(self) -> Draft:
        return Draft(self.band, self.bullets, [it.copy() for it in self.items], self.lead,
                     self.preamble, self.closing)


def _template_meets(fact: Fact, template: str, need: str | None) -> bool:
    if need in (None, "pair"):
        return True
    if need == "polar":
        return fact.kind == "polar"
    if need == "long":
        return bool(_long_source_sentences(fact))
    for name in _fields(template):
        slot = fact.slots.get(name)
        if need == "number" and isinstance(slot, (Number, Day)) and slot.perturbable:
            return True
        if need == "quant" and isinstance(slot, Quant):
            return True
        if need == "entity" and isinstance(slot, Entity):
            return True
    return False


def _fact_meets(fact: Fact, need: str | None) -> bool:
    return any(_template_meets(fact, t, need) for t in fact.clauses)


def _make_item(fact: Fact, rng: random.Random, bullets: bool, need: str | None = None) -> Item:
    if bullets:
        return Item(fact, 0, fact.bullet, dict(fact.slots))
    idxs = [i for i, t in enumerate(fact.clauses) if _template_meets(fact, t, need)] or \
        list(range(len(fact.clauses)))
    i = rng.choice(idxs)
    return Item(fact, i, fact.clauses[i], dict(fact.slots))


def _prose_draft(doc: Document, band: str, rng: random.Random, need: str | None) -> Draft | None:
    lo, hi = BANDS[band]
    lo, hi = lo + _SLACK, hi - _SLACK
    smin, smax = _SENTENCES[band]
    pool = [f for f in doc.facts if f.clauses]
    ranked = sorted(pool, key=lambda f: f.priority + rng.random() * 3.0)
    target = rng.randint(smin, smax)
    least = smin
    if need == "pair":
        target = max(target, 2)
        least = max(least, 2)
    items: list[Item] = []
    words = 0
    required = None
    if need not in (None, "pair"):
        required = next((f for f in ranked if _fact_meets(f, need)), None)
        if required is None:
            raise PlantingError(f"document has no fact of kind {need!r}")
        items.append(_make_item(required, rng, False, need))
        words += word_count(items[0].clause())
    for f in ranked:
        if f is required:
            continue
        if len(items) >= smax or (len(items) >= target and words >= lo):
            break
        it = _make_item(f, rng, False)
        w = word_count(it.clause())
        if words + w > hi:
            continue
        items.append(it)
        words += w
    if not (lo <= words <= hi and least <= len(items) <= smax):
        return None
    if need == "pair" and sum(it.fact.causal_ok for it in items) < 2:
        return None
    items.sort(key=lambda it: it.fact.order)
    return Draft(band, False, items)


def _recap_draft(doc: Document, rng: random.Random) -> Draft | None:
    lo, hi = BANDS["action_recap"]
    lo, hi = lo + _SLACK, hi - _SLACK
    items = [_make_item(f, rng, True) for f in doc.facts if f.kind == "action"]
    draft = Draft("action_recap", True, items)
    while word_count(draft.render()) > hi and len(items) > 3:
        items.pop()
    if not lo <= word_count(draft.render()) <= hi:
        return None
    return draft


def build_reference(doc: Document, band: str, rng: random.Random, need: str | None = None) -> Draft:
    """A faithful summary of ``doc`` in ``band``.

    ``need`` asks for at least one item of a kind ("number", "quant", "entity",
    "polar", "long" for a fact with a long source sentence, "pair" for two or more
    sentences), so that a failure mode has something to act on.
    """
    if band not in BANDS:
        raise ValueError(f"unknown band {band!r}; expected one of {sorted(BANDS)}")
    norm = doc.normalized()
    for _ in range(60):
        if band == "action_recap":
            draft = _recap_draft(doc, rng)
        else:
            draft = _prose_draft(doc, band, rng, need)
        if draft is not None and not _copies_normalized(draft.render(), norm, COPY_RUN):
            return draft
    raise RuntimeError(f"could not build a {band} summary for document {doc.title!r}")


def expected_facts(doc: Document, reference: Draft) -> tuple[str, ...]:
    """3 to 8 statements: those the reference covers, topped up with the most important others."""
    facts = [it.fact for it in reference.items]
    if len(facts) < 3:
        rest = sorted((f for f in doc.facts if f not in facts), key=lambda f: (f.priority, f.order))
        facts += rest[:3 - len(facts)]
    return tuple(f.statement for f in facts[:8])


# --------------------------------------------------------------------------- planting


def _round_like(value: float, slot: Number) -> float:
    style = slot.style
    if style == "pct":
        return float(max(1, int(round(value))))
    if style == "int":
        if slot.value >= 1000:
            return float(int(round(value / 10.0)) * 10)
        return float(max(1, int(round(value))))
    if style == "usd":
        step = 1000 if slot.value >= 10000 else 10
        return float(int(round(value / step)) * step)
    if style == "musd" and abs(slot.value - round(slot.value)) < 1e-9:
        return float(int(round(value)))
    if style == "cents":
        return round(value, 2)
    return round(value, 1)


def alter_number(slot, rng: random.Random, forbidden: set[str]):
    """A different value for a Number or Day slot whose digits appear nowhere in the source."""
    if isinstance(slot, Day):
        offsets = [d for d in range(-9, 10) if abs(d) >= 2]
        rng.shuffle(offsets)
        for off in offsets:
            day = slot.day + off
            if 1 <= day <= 28 and str(day) not in forbidden:
                return slot.with_day(day)
        return None
    old = str(slot)
    swapped: list[float] = []
    if slot.style in ("pct", "int") and 10 <= slot.value < 100:
        tens, ones = divmod(int(slot.value), 10)
        if ones and tens != ones:
            swapped.append(float(ones * 10 + tens))   # 12% -> 21%
    factors = [1.25, 0.8, 1.4, 0.7, 1.6, 0.6, 1.15, 0.85, 1.9, 0.5, 2.5, 0.4]
    rng.shuffle(factors)
    scaled = [slot.value * f for f in factors]
    candidates = swapped + scaled if rng.random() < 0.5 else scaled + swapped
    for value in candidates:
        value = _round_like(value, slot)
        if value <= 0 or (slot.style in ("pct", "pct1") and value >= 100):
            continue
        new = slot.with_value(value)
        text = str(new)
        if text == old or any(tok in forbidden for tok in number_tokens(text)):
            continue
        return new
    return None


def _plant_number(d: Draft, doc: Document, rng: random.Random) -> dict:
    forbidden = doc.number_tokens()
    spots = [(i, name) for i, it in enumerate(d.items) if it.sentence is None
             for name in _fields(it.template)
             if isinstance(it.slots.get(name), (Number, Day)) and it.slots[name].perturbable]
    rng.shuffle(spots)
    for i, name in spots:
        item = d.items[i]
        old = item.slots[name]
        new = alter_number(old, rng, forbidden)
        if new is None:
            continue
        item.set_slot(name, new)
        return {"original": str(old), "planted": str(new), "fact": item.fact.key, "slot": name}
    raise PlantingError("number_changed: no number in the summary can be altered")


_DRIFT = {
    "most": ("all",), "a majority of": ("all",), "several": ("every", "all"), "some": ("all", "every"),
    "nearly all": ("all", "every"), "many": ("all",), "all": ("some", "most"),
    "rarely": ("never",), "occasionally": ("always", "never"), "often": ("always",),
}
_STRENGTH = {"never": 0, "rarely": 1, "occasionally": 2, "some": 2, "several": 3, "often": 3,
             "a majority of": 4, "most": 4, "many": 4, "nearly all": 5, "all": 6, "every": 6, "always": 6}


def _plant_quantifier(d: Draft, doc: Document, rng: random.Random) -> dict:
    spots = [(i, name) for i, it in enumerate(d.items) if it.sentence is None
             for name in _fields(it.template) if isinstance(it.slots.get(name), Quant)]
    if not spots:
        raise PlantingError("quantifier_drift: no quantifier in the summary")
    i, name = rng.choice(spots)
    item = d.items[i]
    old: Quant = item.slots[name]
    options = [q for q in _DRIFT[old.value] if q != "every" or old.sg]
    new = old.shifted(rng.choice(options))
    item.set_slot(name, new)
    direction = "strengthened" if _STRENGTH[new.value] > _STRENGTH[old.value] else "weakened"
    return {"original": old.value, "planted": new.value, "original_phrase": old.np,
            "planted_phrase": new.np, "direction": direction, "fact": item.fact.key}


def _absent_entity(old: Entity, doc: Document, summary: str, rng: random.Random) -> Entity | None:
    if old.etype == "person":
        for _ in range(200):
            name = random_person(rng)
            first, last = name.split(" ", 1)
            if first not in doc.text and last not in doc.text and name not in summary:
                return Entity(name, "person")
        return None
    text, summary = doc.text.lower(), summary.lower()
    pool = [n for n in entity_pool(old.etype) if n.lower() not in text and n.lower() not in summary]
    return Entity(rng.choice(pool), old.etype) if pool else None


def _plant_entity(d: Draft, doc: Document, rng: random.Random) -> dict:
    spots = [(i, name) for i, it in enumerate(d.items) if it.sentence is None
             for name in _fields(it.template) if isinstance(it.slots.get(name), Entity)]
    rng.shuffle(spots)
    summary = d.render()
    for i, name in spots:
        item = d.items[i]
        old: Entity = item.slots[name]
        clause = item.clause()
        in_doc = [e for e in doc.entities
                  if e.etype == old.etype and e.value != old.value and e.value not in clause]
        if in_doc and rng.random() < 0.5:
            new, origin = rng.choice(in_doc), "document"
        else:
            new, origin = _absent_entity(old, doc, summary, rng), "outside"
        if new is None:
            continue
        item.set_slot(name, new)
        return {"original": old.value, "planted": new.value, "entity_type": coarse_entity_type(old.etype),
                "replacement_from": origin, "fact": item.fact.key}
    raise PlantingError("entity_swapped: no entity in the summary can be swapped")


def _plant_negation(d: Draft, doc: Document, rng: random.Random) -> dict:
    spots = [i for i, it in enumerate(d.items) if it.sentence is None and it.fact.kind == "polar"]
    if not spots:
        raise PlantingError("negation_flipped: no polar statement in the summary")
    item = d.items[rng.choice(spots)]
    before = item.clause()
    item.set_template(item.fact.flipped[item.variant])
    after = item.clause()
    direction = "negative_to_positive" if item.fact.polarity == "negative" else "positive_to_negative"
    return {"original": before, "planted": after, "direction": direction, "fact": item.fact.key}


def _plant_causal(d: Draft, doc: Document, rng: random.Random) -> dict:
    if d.bullets:
        raise PlantingError("causal_added: needs a prose summary")
    idxs = [i for i, it in enumerate(d.items) if it.sentence is None and it.fact.causal_ok]
    if len(idxs) < 2:
        raise PlantingError("causal_added: needs two statements to link")
    effects = [i for i in idxs if d.items[i].fact.kind == "metric"] or idxs
    e = rng.choice(effects)
    c = rng.choice([i for i in idxs if i != e])
    effect, cause = d.items[e], d.items[c]
    effect_clause, cause_clause = effect.clause(), cause.clause()
    options = ["because", "as a result"]
    if cause.fact.noun_phrase:
        options += ["due to", "driven by", "as a result of"]
    conn = rng.choice(options)
    cause_text = cause_clause
    if conn == "because":
        sentence = f"{_cap(effect_clause)} because {cause_clause}."
    elif conn == "as a result":
        sentence = f"{_cap(cause_clause)}, and as a result {effect_clause}."
    else:
        cause_text = cause.fact.noun_phrase.format_map(cause.slots)
        sep = ", " if conn == "driven by" else " "
        sentence = f"{_cap(effect_clause)}{sep}{conn} {cause_text}."
    effect.sentence = sentence
    d.items.remove(cause)
    return {"connective": conn, "effect": effect_clause, "cause": cause_text,
            "effect_fact": effect.fact.key, "cause_fact": cause.fact.key, "sentence": sentence}


_HEDGE_FRAMES = (
    ("It seems likely that, perhaps, {c}.", ("seems", "likely", "perhaps")),
    ("It may possibly be the case that {c}, although this could change.", ("may", "possibly", "could")),
    ("Arguably, {c}, though the picture might perhaps shift.", ("arguably", "might", "perhaps")),
    ("{C}, or so it seems, although this could possibly be somewhat overstated.",
     ("seems", "could", "possibly", "somewhat")),
    ("Perhaps {c}, but this appears to be somewhat tentative and might be revised.",
     ("perhaps", "appears to", "somewhat", "might")),
)
_HEDGE_TAILS = (
    (", though this may possibly slip and perhaps be reassigned", ("may", "possibly", "perhaps")),
    (", which seems likely but could perhaps change", ("seems", "likely", "could", "perhaps")),
    (", though the date might somewhat move and arguably could slip", ("might", "somewhat", "arguably", "could")),
)


def _plant_hedging(d: Draft, doc: Document, rng: random.Random) -> dict:
    spots = [i for i, it in enumerate(d.items) if it.sentence is None]
    k = 2 if len(spots) >= 3 and rng.random() < 0.35 else 1
    sentences, hedges = [], []
    for i in sorted(rng.sample(spots, k)):
        item = d.items[i]
        clause = item.clause()
        if d.bullets:
            tail, words = rng.choice(_HEDGE_TAILS)
            item.sentence = "- " + clause + tail
        else:
            frame, words = rng.choice(_HEDGE_FRAMES)
            item.sentence = frame.format(c=clause, C=_cap(clause))
        sentences.append(item.sentence)
        hedges.extend(words)
    return {"sentences": sentences, "hedges": hedges}


def _plant_filler(d: Draft, doc: Document, rng: random.Random) -> dict:
    k = rng.choice((2, 3))
    phrases = rng.sample(FILLER_PHRASES, k)
    if d.bullets:
        p1, p2 = phrases[0], phrases[1]
        d.lead = f"{p1} these follow-ups matter, and {_lower_first(p2)} the list below covers them:"
        if k == 3:
            d.closing = f"{phrases[2]} everyone knows what to do next."
        return {"phrases": phrases}
    # "In today's fast-paced world," reads as an opener
    phrases.sort(key=lambda p: p != "In today's fast-paced world,")
    spots = [i for i, it in enumerate(d.items) if it.sentence is None]
    targets = sorted(rng.sample(spots, min(k, len(spots))))
    groups: list[list[str]] = [[p] for p in phrases[:len(targets)]]
    for extra in phrases[len(targets):]:
        groups[0].append(extra)
    for i, group in zip(targets, groups):
        item = d.items[i]
        lead = " ".join([group[0]] + [_lower_first(p) for p in group[1:]])
        item.sentence = f"{lead} {item.clause()}."
    return {"phrases": phrases}


def _plant_verbatim(d: Draft, doc: Document, rng: random.Random) -> dict:
    spots = [i for i, it in enumerate(d.items) if it.sentence is None and _long_source_sentences(it.fact)]
    if not spots:
        raise PlantingError("verbatim_restatement: no item with a long source sentence")
    k = 2 if len(spots) >= 3 and rng.random() < 0.4 else 1
    spans, keys = [], []
    for i in sorted(rng.sample(spots, k)):
        item = d.items[i]
        span = rng.choice(_long_source_sentences(item.fact))
        item.sentence = ("- " + span) if d.bullets else span
        spans.append(span)
        keys.append(item.fact.key)
    return {"copied_spans": spans, "facts": keys}


def _plant_length(d: Draft, doc: Document, rng: random.Random) -> dict:
    lo, hi = BANDS[d.band]
    if not d.bullets and d.band == "tldr":
        # restate nearly everything, in paraphrase
        norm = doc.normalized()
        for _ in range(20):
            items = [_make_item(f, rng, False) for f in doc.facts if f.clauses]
            text = Draft(d.band, False, items).render()
            n = word_count(text)
            if n > 2 * hi and not _copies_normalized(text, norm, COPY_RUN):
                d.items = items
                return {"direction": "too_long", "word_count": n, "band_min": lo, "band_max": hi}
    # a fragment: fewer than half the band's minimum
    if d.bullets:
        options = [[it] for it in d.items if word_count("- " + it.clause()) * 2 < lo]
        if options:
            d.items = rng.choice(options)
            n = word_count(d.render())
            return {"direction": "too_short", "word_count": n, "band_min": lo, "band_max": hi}
    else:
        choices = []
        if word_count(doc.gist) * 2 < lo:
            choices.append("gist")
        short = [it for it in d.items if word_count(it.clause()) * 2 < lo]
        if short:
            choices.append("clause")
        if choices:
            if rng.choice(choices) == "gist":
                d.items = []
                d.lead = doc.gist
            else:
                d.items = [rng.choice(short)]
            n = word_count(d.render())
            return {"direction": "too_short", "word_count": n, "band_min": lo, "band_max": hi}
    raise PlantingError("length_out_of_band: no way to leave the band")


def _plant_chatty(d: Draft, doc: Document, rng: random.Random) -> dict:
    d.preamble = rng.choice(PREAMBLES)
    if rng.random() < 0.5:
        d.closing = rng.choice(CLOSINGS)
    return {"preamble": d.preamble, "closing": d.closing}


_PLANTERS: dict[str, Callable[[Draft, Document, random.Random], dict]] = {
    "number_changed": _plant_number,
    "quantifier_drift": _plant_quantifier,
    "entity_swapped": _plant_entity,
    "negation_flipped": _plant_negation,
    "causal_added": _plant_causal,
    "hedging_inflated": _plant_hedging,
    "filler_padding": _plant_filler,
    "verbatim_restatement": _plant_verbatim,
    "length_out_of_band": _plant_length,
    "chatty_preamble": _plant_chatty,
}

# what each mode needs in the good summary it starts from
MODE_NEEDS: dict[str, str] = {
    "number_changed": "number",
    "quantifier_drift": "quant",
    "entity_swapped": "entity",
    "negation_flipped": "polar",
    "causal_added": "pair",
    "verbatim_restatement": "long",
}
# modes that work on a bullet recap; the others need prose
RECAP_MODES = frozenset({"none", "number_changed", "entity_swapped", "hedging_inflated", "filler_padding",
                         "verbatim_restatement", "length_out_of_band", "chatty_preamble"})


def plant(mode: str, reference: Draft, doc: Document, rng: random.Random) -> tuple[Draft, dict]:
    """A copy of ``reference`` with the failure ``mode`` planted, and what was changed."""
    if mode not in _PLANTERS:
        raise ValueError(f"unknown failure mode {mode!r}; expected one of {PLANTED_MODES}")
    draft = reference.copy()
    detail = _PLANTERS[mode](draft, doc, rng)
    return draft, detail
