"""Source documents for the demo workload: one builder per domain archetype, picked by domain.

    doc = build_document("finance", 0, random.Random(7))

The documents, their fact records and the writing rules their templates follow are described in
:mod:`.documents`; each domain's templates live in :mod:`.domains`.
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
