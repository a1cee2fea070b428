"""Numbers, money, percentages and quantities with units, scaled to comparable values."""

from __future__ import annotations

import re
from dataclasses import replace
from functools import partial

from .matching import Cue
from .records import MONEY, NUMBER, PERCENT, QUANTITY, Item
from .words import STOPWORDS, stem

_LETTERS_RE = re.compile(r"[A-Za-z]+")
_NUM_RE = re.compile(r"(?<![\w.,/:#])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![.,]\d)")
_WRITTEN = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
            "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
            "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
            "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "dozen": 12, "a dozen": 12, "half a dozen": 6}
_UNITS_1_9 = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_WRITTEN_RE = Cue(
    r"\b(?:(half\s+a\s+dozen|a\s+dozen|dozen)|(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[-\s](one|two|three|four|five|six|seven|eight|nine))?|(two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen))\b",
    hints=("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty",
           "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "dozen"))
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "k": 1e3, "m": 1e6, "mn": 1e6,
           "mln": 1e6, "bn": 1e9, "b": 1e9, "tn": 1e12}
_CURRENCY_BEFORE_RE = re.compile(r"(US\$|A\$|C\$|NZ\$|HK\$|S\$|\$|€|£|¥|₹|USD|EUR|GBP|JPY|CHF)\s?$")
_CURRENCY_CODES = {"$": "USD", "us$": "USD", "usd": "USD", "€": "EUR", "eur": "EUR", "£": "GBP", "gbp": "GBP",
                   "¥": "JPY", "jpy": "JPY", "₹": "INR", "a$": "AUD", "c$": "CAD", "nz$": "NZD", "hk$": "HKD",
                   "s$": "SGD", "chf": "CHF"}
_CURRENCY_WORDS = {"dollar": "USD", "euro": "EUR", "pound": "GBP", "yen": "JPY", "yuan": "CNY", "rupee": "INR",
                   "franc": "CHF", "cent": "USD"}
_CURRENCY_AFTER_RE = re.compile(
    r"\s(?:(?:US|U\.S\.|American|Canadian|Australian|Hong\s+Kong|Singapore|New\s+Zealand)\s)?"
    r"(dollars?|euros?|pounds\s+sterling|yen|yuan|rupees?|francs?|cents?)\b", re.IGNORECASE)
_SCALE_AFTER_RE = re.compile(r"\s(thousand|million|billion|trillion)\b|\s?(bn|mn|mln|tn)\b|(?:\s?)(k|m|b)\b",
                             re.IGNORECASE)
_PERCENT_AFTER_RE = re.compile(
    r"\s?(%)|\s(?:percent|per\s+cent|pct)\b|\s(percentage\s+points?|points?|pts?)\b|\s(basis\s+points?|bps)\b",
    re.IGNORECASE)
# words that make the number after them approximate: "about 40", "more than $2 million"
_APPROX_ONE = frozenset([
    "about", "around", "approximately", "approx", "approx.", "roughly", "nearly", "almost", "some", "over", "under",
    "estimated", "circa", "below", "above",
])
_APPROX_TWO = frozenset({"close to", "more than", "less than", "fewer than", "at least", "at most", "up to",
                         "upwards of", "just over", "just under", "an estimated"})


def _approx_before(sentence: str, start: int) -> bool:
    if start and sentence[start - 1] == "~":
        return True
    before = sentence[max(0, start - 24):start].lower().split()
    return bool(before) and (before[-1] in _APPROX_ONE or " ".join(before[-2:]) in _APPROX_TWO)

# unit -> (canonical name, dimension, factor to the dimension's base unit)
_UNIT_TABLE: dict[str, tuple[str, str, float]] = {}
for _names, _canon, _dim, _factor in (
    ("seconds second secs sec s", "second", "time", 1.0),
    ("minutes minute mins min", "minute", "time", 60.0),
    ("hours hour hrs hr h", "hour", "time", 3600.0),
    ("days day", "day", "time", 86400.0),
    ("weeks week wks wk", "week", "time", 604800.0),
    ("months month", "month", "time", 2629800.0),
    ("years year yrs yr", "year", "time", 31557600.0),
    ("millimeters millimetres millimeter millimetre mm", "mm", "length", 0.001),
    ("centimeters centimetres centimeter centimetre cm", "cm", "length", 0.01),
    ("meters metres meter metre m", "m", "length", 1.0),
    ("kilometers kilometres kilometer kilometre km", "km", "length", 1000.0),
    ("miles mile", "mile", "length", 1609.344),
    ("feet foot ft", "ft", "length", 0.3048),
    ("inches inch", "inch", "length", 0.0254),
    ("milligrams milligram mg", "mg", "mass", 0.001),
    ("micrograms microgram mcg µg", "mcg", "mass", 1e-6),
    ("grams gram g", "g", "mass", 1.0),
    ("kilograms kilogram kg kilos", "kg", "mass", 1000.0),
    ("tonnes tonne tons ton t", "tonne", "mass", 1e6),
    ("pounds lbs lb", "lb", "mass", 453.592),
    ("ounces ounce oz", "oz", "mass", 28.3495),
    ("milliliters millilitres milliliter millilitre ml", "ml", "volume", 0.001),
    ("liters litres liter litre l", "l", "volume", 1.0),
    ("gallons gallon", "gallon", "volume", 3.785),
    ("barrels barrel", "barrel", "volume", 158.987),
    ("degrees degree °c °f ºc", "degree", "temperature", 1.0),
    ("acres acre", "acre", "area", 4046.86),
    ("hectares hectare ha", "hectare", "area", 10000.0),
    ("kb", "kb", "data", 1e3), ("mb", "mb", "data", 1e6), ("gb", "gb", "data", 1e9), ("tb", "tb", "data", 1e12),
    ("kw", "kw", "power", 1e3), ("mw megawatts megawatt", "mw", "power", 1e6), ("gw gigawatts", "gw", "power", 1e9),
    ("kwh", "kwh", "energy", 1.0), ("mwh", "mwh", "energy", 1e3), ("gwh", "gwh", "energy", 1e6),
    ("mph", "mph", "speed", 0.44704), ("km/h kph", "km/h", "speed", 0.27778),
    ("mmhg", "mmhg", "pressure", 1.0), ("mg/dl", "mg/dl", "concentration", 1.0),
):
    for _n in _names.split():
        _UNIT_TABLE[_n] = (_canon, _dim, _factor)
_UNIT_AFTER_RE = re.compile(r"([-\s]?)([A-Za-z°ºµ][A-Za-z/°ºµ]*)(?![\w/])")
_SHORT_UNITS = frozenset({"s", "h", "m", "t", "g", "l", "ha"})  # need to touch the number: "30m", "5 g" no
_NEXT_WORD_RE = re.compile(r"[-\s]+([a-z][a-z-]*)")
_COUNT_MODIFIERS = frozenset([
    "new", "more", "additional", "other", "extra", "total", "full", "part", "fewer", "old", "older", "young",
    "younger", "senior", "small", "large", "major", "minor", "separate", "different", "key", "regional", "local",
    "further",
])


def _counted_noun(sentence: str, pos: int) -> tuple[str, int] | None:
    """'40 beds', '59 new nurse hires' -> the counted noun (modifiers skipped) and where it ends."""
    for _ in range(3):
        m = _NEXT_WORD_RE.match(sentence, pos)
        if not m:
            return None
        word, pos = m.group(1), m.end()
        if word in _COUNT_MODIFIERS:
            continue
        return None if word in STOPWORDS or word in _SCALES else (word, pos)
    return None


def _precision(digits: str, decimals: str) -> float:
    if decimals:
        return 10.0 ** -len(decimals)
    zeros = len(digits.replace(",", "")) - len(digits.replace(",", "").rstrip("0"))
    return 10.0 ** min(zeros, len(digits.replace(",", "")) - 1) if digits.strip("0") else 1.0


def _classify_number(sentence: str, start: int, end: int, value: float, precision: float,
                     currency: str, written: bool, approx: bool) -> Item | None:
    """Read what follows a number (scale, %, currency word, unit, counted noun) into one Item."""
    make = partial(Item, approx=approx)
    pos, scale, unit, dimension, factor, kind = end, 1.0, "", "", 1.0, NUMBER
    attached = _LETTERS_RE.match(sentence, end) if not written else None
    if attached:
        suffix = attached.group(0).lower()
        if suffix in ("st", "nd", "rd", "th", "s", "x", "q"):
            return None  # ordinals, decades, multiples: not amounts a summary restates
        scale_letter = suffix in ("k", "m", "b") and (currency or attached.group(0).isupper())  # "$30m", "5M"
        if suffix in ("bn", "mn", "mln", "tn") or scale_letter:
            scale, pos = _SCALES[suffix], end + len(suffix)
        elif suffix in _UNIT_TABLE:
            unit, dimension, factor = _UNIT_TABLE[suffix]
            kind, pos = QUANTITY, end + len(suffix)
        else:
            return None  # "737MAX", "4G": part of a name
    if scale == 1.0 and kind == NUMBER:
        m = _SCALE_AFTER_RE.match(sentence, pos)
        if m and (m.group(1) or m.group(2) or (currency and m.group(3))):
            word = (m.group(1) or m.group(2) or m.group(3)).lower()
            scale, pos = _SCALES[word], m.end()
    value, precision = value * scale, precision * scale
    if kind == NUMBER and not currency:
        m = _PERCENT_AFTER_RE.match(sentence, pos)
        if m:
            if m.group(3):  # basis points
                return make(PERCENT, sentence[start:m.end()], start, m.end(), value=value / 100,
                            precision=precision / 100, unit="pp")
            return make(PERCENT, sentence[start:m.end()], start, m.end(), value=value, precision=precision,
                        unit="pp" if m.group(2) else "%")
        m = _CURRENCY_AFTER_RE.match(sentence, pos)
        if m:
            word = m.group(1).lower()
            word = "pound" if word.startswith("pound") else word.rstrip("s")
            if word == "cent":
                value, precision = value / 100, precision / 100
            return make(MONEY, sentence[start:m.end()], start, m.end(), value=value, precision=precision,
                        unit=_CURRENCY_WORDS.get(word, "USD"))
    if currency:
        return make(MONEY, sentence[start:pos], start, pos, value=value, precision=precision, unit=currency)
    if kind == NUMBER:
        m = _UNIT_AFTER_RE.match(sentence, pos)
        word = m.group(2).lower() if m else ""
        if m and word in _UNIT_TABLE and not (word in _SHORT_UNITS and m.group(1)):
            unit, dimension, factor = _UNIT_TABLE[word]
            kind, pos = QUANTITY, m.end()
    if kind == QUANTITY:
        return make(QUANTITY, sentence[start:pos], start, pos, value=value, precision=precision, unit=unit,
                    dimension=dimension, base=value * factor)
    noun = _counted_noun(sentence, pos)
    if noun:
        word, noun_end = noun
        return make(QUANTITY, sentence[start:noun_end], start, noun_end, value=value, precision=precision,
                    unit=stem(word), base=value)
    return make(NUMBER, sentence[start:pos], start, pos, value=value, precision=precision, base=value)


def numeric_items(sentence: str, taken: list[tuple[int, int]], low: str | None = None) -> list[Item]:
    found: list[Item] = []

    def free(a: int, b: int) -> bool:
        return not any(x < b and a < y for x, y in taken)

    for m in _NUM_RE.finditer(sentence):
        if not free(m.start(), m.end()):
            continue
        digits, decimals = m.group(1), (m.group(2) or "")
        value = float(digits.replace(",", "") + decimals)
        cur = _CURRENCY_BEFORE_RE.search(sentence[max(0, m.start() - 4):m.start()])
        currency = _CURRENCY_CODES.get(cur.group(1).lower(), "USD") if cur else ""
        start = m.start() - len(cur.group(0)) if cur else m.start()
        approx = _approx_before(sentence, start)
        item = _classify_number(sentence, start, m.end(), value, _precision(digits, decimals[1:]), currency,
                                written=False, approx=approx)
        if item:
            found.append(item)
    for m in _WRITTEN_RE.finditer(sentence, low):
        if not free(m.start(), m.end()) or any(i.start < m.end() and m.start() < i.end for i in found):
            continue
        if m.group(1):
            value = _WRITTEN[re.sub(r"\s+", " ", m.group(1).lower())]
        elif m.group(2):
            value = _WRITTEN[m.group(2).lower()] + _UNITS_1_9.get((m.group(3) or "").lower(), 0)
        else:
            value = _WRITTEN[m.group(4).lower()]
        approx = bool(m.group(1)) or _approx_before(sentence, m.start())
        item = _classify_number(sentence, m.start(), m.end(), float(value), 1.0, "", written=True, approx=approx)
        if item:
            found.append(item)
    return _join_ranges(sentence, sorted(found, key=lambda i: i.start))


_RANGE_GAP_RE = re.compile(r"\s*(?:-|–|—|to|and|or)\s*$")


def _join_ranges(sentence: str, items: list[Item]) -> list[Item]:
    """'$2.7 to $3.0 billion', '10-12%': the first end of a range borrows the scale and kind of the second."""
    for i in range(len(items) - 1, 0, -1):
        a, b = items[i - 1], items[i]
        if not _RANGE_GAP_RE.fullmatch(sentence[a.end:b.start]) or a.value is None or b.value is None:
            continue
        if a.kind == NUMBER and b.kind in (PERCENT, MONEY, QUANTITY):
            scale = scale_of(b)
            items[i - 1] = replace(a, kind=b.kind, value=a.value * scale, precision=a.precision * scale,
                                    unit=b.unit, dimension=b.dimension,
                                    base=a.value * scale * ((b.base or b.value) / b.value if b.value else 1.0))
        elif a.kind == MONEY and b.kind in (MONEY, NUMBER) and scale_of(a) == 1.0 and scale_of(b) > 1.0:
            scale = scale_of(b)
            items[i - 1] = replace(a, value=a.value * scale, precision=a.precision * scale)
            if b.kind == NUMBER:
                items[i] = replace(b, kind=MONEY, unit=a.unit)
    return items


def scale_of(item: Item) -> float:
    low = item.text.lower()
    for word, scale in (("trillion", 1e12), ("billion", 1e9), ("million", 1e6), ("thousand", 1e3)):
        if word in low:
            return scale
    m = _SCALE_SUFFIX_RE.search(low)
    return _SCALES[m.group(1)] if m else 1.0


_SCALE_SUFFIX_RE = re.compile(r"\d\s?(bn|mn|mln|tn|k|m|b)\b")
