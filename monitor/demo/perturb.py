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
from dataclasses import dataclass
from string import Formatter
from typing import Any, cast

from sumwatch.tracer import word_count

from ..rubrics.bands import BANDS as _BAND_DEFS
from .corpus import (
    Day,
    Document,
    Entity,
    Fact,
    Number,
    Quant,
    normalized_words,
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
    "PLANTED_MODES",
    "PREAMBLES",
    "PlantingError",
    "VERBATIM_RUN",
    "build_reference",
    "copies_run",
    "expected_facts",
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




def copies_run(text: str, source: str, n: int = COPY_RUN) -> bool:
    """Whether ``text`` shares a run of ``n`` consecutive words with ``source``.

    Words are lowercased with punctuation stripped before comparing.
    """
    return copies_normalized(text, " " + " ".join(normalized_words(source)) + " ", n)


def copies_normalized(text: str, padded_source: str, n: int) -> bool:
    toks = normalized_words(text)
    return any(" " + " ".join(toks[i:i + n]) + " " in padded_source for i in range(len(toks) - n + 1))


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text else text


_FIELDS: dict[str, tuple[str, ...]] = {}


def template_fields(template: str) -> tuple[str, ...]:
    """Slot names a template uses, sorted (never iterate a set of str: hash order varies)."""
    got = _FIELDS.get(template)
    if got is None:
        names = {f.split(".")[0].split("[")[0] for _, f, _, _ in Formatter().parse(template) if f}
        got = tuple(sorted(names))
        _FIELDS[template] = got
    return got


_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def long_source_sentences(fact: Fact) -> list[str]:
    return [s for s in _SENT_SPLIT.split(fact.source) if len(normalized_words(s)) >= VERBATIM_RUN]


# --------------------------------------------------------------------------- drafts


@dataclass
class Item:
    fact: Fact
    variant: int
    template: str
    slots: dict[str, Any]
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
                out.append(capitalized(it.clause()) + ".")
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
        return bool(long_source_sentences(fact))
    for name in template_fields(template):
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


def make_item(fact: Fact, rng: random.Random, bullets: bool, need: str | None = None) -> Item:
    if bullets:
        return Item(fact, 0, cast(str, fact.bullet), dict(fact.slots))
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
        items.append(make_item(required, rng, False, need))
        words += word_count(items[0].clause())
    for f in ranked:
        if f is required:
            continue
        if len(items) >= smax or (len(items) >= target and words >= lo):
            break
        it = make_item(f, rng, False)
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
    items = [make_item(f, rng, True) for f in doc.facts if f.kind == "action"]
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
        draft = _recap_draft(doc, rng) if band == "action_recap" else _prose_draft(doc, band, rng, need)
        if draft is not None and not copies_normalized(draft.render(), norm, COPY_RUN):
            return draft
    raise RuntimeError(f"could not build a {band} summary for document {doc.title!r}")


def expected_facts(doc: Document, reference: Draft) -> tuple[str, ...]:
    """3 to 8 statements: those the reference covers, topped up with the most important others."""
    facts = [it.fact for it in reference.items]
    if len(facts) < 3:
        rest = sorted((f for f in doc.facts if f not in facts), key=lambda f: (f.priority, f.order))
        facts += rest[:3 - len(facts)]
    return tuple(f.statement for f in facts[:8])
