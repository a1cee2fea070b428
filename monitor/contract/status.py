"""The server's state as the API serves it (``GET /api/status``): the schema version, the spans stored, today's
LLM spend against its cap, and the server's settings that a command compares with its own.

    status = client.status()        # StoreStatus(schema_version=..., spans=..., settings={...}, llm_spend=...)
"""

from __future__ import annotations

from dataclasses import dataclass

# settings by their flat name, as the server shows them: secrets only as "(set)" or None, never their text
Shown = dict[str, str | float | int | bool | None]


@dataclass(frozen=True)
class LlmSpend:
    """LLM judging today (UTC day ``day``): spent, the daily cap (None: no cap, SUMWATCH_LLM_DAILY_CAP_USD=off),
    whether it is reached, and the rubric results the cap left to the cheap tiers (marked ``unjudged: cap``)."""

    day: str
    spent_usd: float
    daily_cap_usd: float | None
    capped: bool
    unjudged_cap: int


@dataclass(frozen=True)
class StoreStatus:
    """What ``doctor`` reports about the database, and the server's settings a command compares with its own:
    values that are not secret, and for secrets only whether one is set."""

    schema_version: int
    spans: int
    settings: Shown
    llm_spend: LlmSpend
