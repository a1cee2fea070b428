"""Item kinds and the checkable item record every analysis returns."""

from __future__ import annotations

from dataclasses import dataclass

NUMBER, PERCENT, MONEY, QUANTITY = "number", "percent", "money", "quantity"
DATE, ENTITY = "date", "entity"
NEGATION, QUANTIFIER, HEDGE, CAUSAL = "negation", "quantifier", "hedge", "causal"
NUMERIC_KINDS = frozenset({NUMBER, PERCENT, MONEY, QUANTITY})
# Entity shapes (Item.unit of an entity): "person", "org", "other", or OPENER for a lone capitalized
# word that opens a statement, which may be a name or just a plain word.
OPENER = "opener"



@dataclass(frozen=True)
class Item:
    """One checkable thing in a sentence, e.g. ``Item("percent", "12%", 14, 17, value=12.0)``."""

    kind: str
    text: str  # as written
    start: int  # offsets in the sentence it was found in
    end: int
    value: float | None = None  # numbers, after scaling: "$4.2 million" -> 4200000.0
    precision: float = 0.0  # the size of the last stated digit, after scaling: "$4.2 million" -> 100000.0
    unit: str = ""  # money: currency; quantity: unit ("minute") or counted noun ("bed"); percent: "%" / "pp"
    dimension: str = ""  # quantity with a measurement unit: "time", "length", ...; "" for counted nouns
    base: float | None = None  # quantity in its dimension's base unit: "2 hours" -> 7200.0 (seconds)
    key: str = ""  # dates "month:3", "day:3-5", "quarter:3"; entities "redfern steel"; cues lowercased
    approx: bool = False  # stated as approximate: "about 40", "nearly 12%"
    strength: int = 0  # quantifiers: 1 (some, several) .. 4 (all, every)
