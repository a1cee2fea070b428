"""Planting one failure mode in a reference summary: changed numbers, swapped names, flipped negations,
added causes, hedging, filler, copied runs, length and chatty preambles, each recorded."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, cast

from .corpus import (
    Day,
    Document,
    Entity,
    Number,
    Quant,
    coarse_entity_type,
    entity_pool,
    number_tokens,
    random_person,
)
from .perturb import (
    BANDS,
    CLOSINGS,
    COPY_RUN,
    FILLER_PHRASES,
    PLANTED_MODES,
    PREAMBLES,
    Draft,
    PlantingError,
    capitalized,
    copies_normalized,
    long_source_sentences,
    lower_first,
    make_item,
    template_fields,
    word_count,
)


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


def _plant_number(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
    forbidden = doc.number_tokens()
    spots = [(i, name) for i, it in enumerate(d.items) if it.sentence is None
             for name in template_fields(it.template)
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


def _plant_quantifier(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
    spots = [(i, name) for i, it in enumerate(d.items) if it.sentence is None
             for name in template_fields(it.template) if isinstance(it.slots.get(name), Quant)]
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


def _plant_entity(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
    spots = [(i, name) for i, it in enumerate(d.items) if it.sentence is None
             for name in template_fields(it.template) if isinstance(it.slots.get(name), Entity)]
    rng.shuffle(spots)
    summary = d.render()
    for i, name in spots:
        item = d.items[i]
        old: Entity = item.slots[name]
        clause = item.clause()
        in_doc = [e for e in doc.entities
                  if e.etype == old.etype and e.value != old.value and e.value not in clause]
        new: Entity | None
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


def _plant_negation(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
    spots = [i for i, it in enumerate(d.items) if it.sentence is None and it.fact.kind == "polar"]
    if not spots:
        raise PlantingError("negation_flipped: no polar statement in the summary")
    item = d.items[rng.choice(spots)]
    before = item.clause()
    item.set_template(item.fact.flipped[item.variant])
    after = item.clause()
    direction = "negative_to_positive" if item.fact.polarity == "negative" else "positive_to_negative"
    return {"original": before, "planted": after, "direction": direction, "fact": item.fact.key}


def _plant_causal(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
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
        sentence = f"{capitalized(effect_clause)} because {cause_clause}."
    elif conn == "as a result":
        sentence = f"{capitalized(cause_clause)}, and as a result {effect_clause}."
    else:
        cause_text = cast(str, cause.fact.noun_phrase).format_map(cause.slots)
        sep = ", " if conn == "driven by" else " "
        sentence = f"{capitalized(effect_clause)}{sep}{conn} {cause_text}."
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


def _plant_hedging(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
    spots = [i for i, it in enumerate(d.items) if it.sentence is None]
    k = 2 if len(spots) >= 3 and rng.random() < 0.35 else 1
    sentences: list[str] = []
    hedges: list[str] = []
    for i in sorted(rng.sample(spots, k)):
        item = d.items[i]
        clause = item.clause()
        if d.bullets:
            tail, words = rng.choice(_HEDGE_TAILS)
            item.sentence = "- " + clause + tail
        else:
            frame, words = rng.choice(_HEDGE_FRAMES)
            item.sentence = frame.format(c=clause, C=capitalized(clause))
        sentences.append(item.sentence)
        hedges.extend(words)
    return {"sentences": sentences, "hedges": hedges}


def _plant_filler(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
    k = rng.choice((2, 3))
    phrases = rng.sample(FILLER_PHRASES, k)
    if d.bullets:
        p1, p2 = phrases[0], phrases[1]
        d.lead = f"{p1} these follow-ups matter, and {lower_first(p2)} the list below covers them:"
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
        lead = " ".join([group[0]] + [lower_first(p) for p in group[1:]])
        item.sentence = f"{lead} {item.clause()}."
    return {"phrases": phrases}


def _plant_verbatim(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
    spots = [i for i, it in enumerate(d.items) if it.sentence is None and long_source_sentences(it.fact)]
    if not spots:
        raise PlantingError("verbatim_restatement: no item with a long source sentence")
    k = 2 if len(spots) >= 3 and rng.random() < 0.4 else 1
    spans, keys = [], []
    for i in sorted(rng.sample(spots, k)):
        item = d.items[i]
        span = rng.choice(long_source_sentences(item.fact))
        item.sentence = ("- " + span) if d.bullets else span
        spans.append(span)
        keys.append(item.fact.key)
    return {"copied_spans": spans, "facts": keys}


def _plant_length(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
    lo, hi = BANDS[d.band]
    if not d.bullets and d.band == "tldr":
        # restate nearly everything, in paraphrase
        norm = doc.normalized()
        for _ in range(20):
            items = [make_item(f, rng, False) for f in doc.facts if f.clauses]
            text = Draft(d.band, False, items).render()
            n = word_count(text)
            if n > 2 * hi and not copies_normalized(text, norm, COPY_RUN):
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


def _plant_chatty(d: Draft, doc: Document, rng: random.Random) -> dict[str, Any]:
    d.preamble = rng.choice(PREAMBLES)
    if rng.random() < 0.5:
        d.closing = rng.choice(CLOSINGS)
    return {"preamble": d.preamble, "closing": d.closing}


_PLANTERS: dict[str, Callable[[Draft, Document, random.Random], dict[str, Any]]] = {
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


def plant(mode: str, reference: Draft, doc: Document, rng: random.Random) -> tuple[Draft, dict[str, Any]]:
    """A copy of ``reference`` with the failure ``mode`` planted, and what was changed."""
    if mode not in _PLANTERS:
        raise ValueError(f"unknown failure mode {mode!r}; expected one of {PLANTED_MODES}")
    draft = reference.copy()
    detail = _PLANTERS[mode](draft, doc, rng)
    return draft, detail
