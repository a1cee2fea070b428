"""Comparing items: whether two values match, whether units differ, whether a date or name is supported."""

from __future__ import annotations

import math
import re

from .numbers import scale_of
from .parsing import ParsedText, first_letters
from .records import MONEY, NUMBER, PERCENT, Item
from .words import SYNONYMS, stem


def _comparable(a: Item, b: Item) -> bool:
    # a bare number may restate an amount whose unit or currency sign was dropped or mangled on the way
    # ("# 299" for "£299", "rose 12" for "rose 12%"): the value is what is checked then
    if a.kind == NUMBER or b.kind == NUMBER:
        return True
    if (a.kind == PERCENT) != (b.kind == PERCENT) or (a.kind == MONEY) != (b.kind == MONEY):
        return False
    return a.kind != MONEY or a.unit == b.unit or not a.unit or not b.unit


def _close(x: float, y: float, precision: float, approx: bool) -> bool:
    if x == y:
        return True
    big = max(abs(x), abs(y))
    if approx:
        return abs(x - y) <= 0.1 * big + 1e-9
    # a rounded restatement ("$705 million" for "$705.1 million"), never a different amount ("$2,000" for "$2,400")
    return abs(x - y) <= min(0.5 * precision, 0.05 * big) + 1e-9 * big


def _base_precision(item: Item) -> float:
    return item.precision * (item.base / item.value) if item.base and item.value else item.precision


def values_match(a: Item, b: Item) -> bool:
    """Whether two numeric items state the same amount, allowing for rounding and approximate wording.

        values_match(extract_items("up 12%")[0], extract_items("rose 12 percent")[0])  # True
    """
    if a.value is None or b.value is None or not _comparable(a, b):
        return False
    approx = a.approx or b.approx
    if a.dimension and b.dimension:
        if a.dimension != b.dimension:
            return False
        return _close(a.base or 0.0, b.base or 0.0, max(_base_precision(a), _base_precision(b)), approx)
    return _close(a.value, b.value, max(a.precision, b.precision), approx)


def unit_differs(a: Item, b: Item) -> bool:
    """Same stated number, different unit or scale: "188 minutes" vs "188 hours", "$4.2m" vs "$4.2bn"."""
    if a.value is None or b.value is None:
        return False
    if a.dimension and b.dimension and a.dimension == b.dimension and a.unit != b.unit:
        return math.isclose(a.value, b.value, rel_tol=1e-9) and not values_match(a, b)
    if a.kind == b.kind == MONEY and a.unit == b.unit:
        sa, sb = scale_of(a), scale_of(b)
        return sa != sb and math.isclose(a.value / sa, b.value / sb, rel_tol=1e-9)
    return False


def date_supported(key: str, keys: frozenset[str]) -> bool:
    """Whether a date key is stated by a set of keys: a month is stated by any day in it, a day only by
    itself. ``date_supported("month:3", frozenset({"day:3-5"}))`` -> True."""
    if key in keys:
        return True
    kind, _, val = key.partition(":")
    if kind == "month":
        return any(k.startswith(f"day:{val}-") for k in keys)
    if kind == "year":
        return any(k.startswith("year:") and val in k for k in keys)
    return False


def date_granularity(key: str) -> str:
    kind = key.partition(":")[0]
    return "month" if kind == "day" else kind


def entity_supported(item: Item, doc: ParsedText) -> bool:
    """Whether every part of a name appears in a text (any case, possessives ignored), or an acronym
    the text spells out: "ER" is supported by "emergency room"."""
    for part in (p for chunk in item.key.split() for p in re.split(r"[-–]", chunk) if p):
        if part in doc.tokens or stem(part) in doc.terms or SYNONYMS.get(stem(part)) in doc.terms:
            continue
        if part.isalpha() and 2 <= len(part) <= 5 and part in first_letters(doc.text):
            continue
        if len(part) >= 4 and any(t[:4] == part[:4] and _DEMONYM_RE.search(max(t, part, key=len))
                                  for t in doc.tokens if len(t) >= 4):
            continue  # "Chinese" for "China", "Israel" for "Israeli"
        return False
    return True


_DEMONYM_RE = re.compile(r"(?:ese|ian|ish|can|ean|i)$")
