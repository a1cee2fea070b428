"""Source documents for the demo workload: one builder per domain archetype, picked by domain.

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
from collections.abc import Callable

from .documents import (
    Day,
    Document,
    Entity,
    Fact,
    Number,
    Quant,
    Text,
    coarse_entity_type,
    entity_pool,
    format_number,
    normalized_words,
    number_tokens,
    random_person,
)
from .domains import finance, healthcare, meetings, news, technology

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

_BUILDERS: dict[str, tuple[Callable[[random.Random], Document], ...]] = {
    "finance": (finance.earnings,),
    "healthcare": (healthcare.trial, healthcare.hospital),
    "meetings": (meetings.meeting,),
    "news": (news.city, news.science),
    "technology": (technology.postmortem,),
}
DOMAINS: tuple[str, ...] = tuple(_BUILDERS)
DOMAIN_PREFIX = {"finance": "fin", "healthcare": "hc", "meetings": "mtg", "news": "news",
                 "technology": "tech"}


def build_document(domain: str, index: int, rng: random.Random) -> Document:
    """The ``index``-th document of ``domain`` (archetypes of a domain alternate)."""
    builders = _BUILDERS[domain]
    return builders[index % len(builders)](rng)
