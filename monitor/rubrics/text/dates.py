"""Dates: days, months, quarters, years and weekdays, with their granularity."""

from __future__ import annotations

import re

from .records import DATE, Item

MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
           "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
           "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept\.?|Sep\.?|Oct\.?|Nov\.?|Dec\.?)(?![a-z])")
# lower-case month names (transcripts, tokenized corpora): full names only, and only with a day or a year
# beside them (checked where matched), since "may", "march" and "august" are also words
_LOWER_MONTH = (r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
                r"(?![a-z])")
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d{2}"
_DATE_RES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("time", re.compile(r"\b(\d{1,2}):([0-5]\d)(?:\s?([ap])\.?m\.?\b)?|\b(\d{1,2})\s?([ap])\.?m\.?(?![a-z])|"
                        r"\b(noon|midnight)\b", re.IGNORECASE)),
    # day-first before month-first: in "22 February 2020" the month-first pattern would take "February
    # 2020" and leave the day behind
    ("dmy", re.compile(rf"\b({_DAY})\s+(?:of\s+)?({_MONTH}|{_LOWER_MONTH})(?:,?\s+({_YEAR})\b)?")),
    ("mdy", re.compile(rf"\b({_MONTH}|{_LOWER_MONTH})(?:\s+({_DAY})\b)?(?:,?\s+({_YEAR})\b)?")),
    ("weekday", re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b")),
    ("quarter", re.compile(r"\b(?:Q([1-4])|([1-4])Q|(first|second|third|fourth|1st|2nd|3rd|4th)[-\s]quarter|"
                           r"(first|second)[-\s]half|H([12]))\b", re.IGNORECASE)),
    ("year", re.compile(rf"(?<![\w$€£.,])(?:FY\s?|fiscal\s+)?({_YEAR})(?:[-–/](\d{{2}}|{_YEAR}))?\b(?![%.,]\d)"
                        r"(?!\s?(?:%|percent|million|billion|[a-z]*(?:meter|metre|mile|foot|feet|km|kg)))")),
)
_FULL_MONTHS = frozenset(list(MONTHS)[:12])
_DIGIT_RE = re.compile(r"\d")
_AM_PM_RE = re.compile(r"\d\s?[ap]\.?m")  # "2 p.m.", "9am"
_MONTH_PREFIX_RE = re.compile("jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec")


def _date_hints(s: str, low: str) -> set[str]:
    """The date patterns worth running on a sentence, by substring checks far cheaper than the patterns."""
    digits = _DIGIT_RE.search(s) is not None
    hints = set()
    if ":" in s or "noon" in low or "midnight" in low or (digits and _AM_PM_RE.search(low)):
        hints.add("time")
    if _MONTH_PREFIX_RE.search(low):
        hints.update(("mdy", "dmy"))
    if "day" in s:
        hints.add("weekday")
    if "quarter" in low or "half" in low or (digits and ("q" in low or "h" in low)):
        hints.add("quarter")
    if "19" in s or "20" in s:
        hints.add("year")
    return hints
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
WEEKDAYS = {"monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6, "sunday": 7}
_MONTH_CONTEXT_RE = re.compile(r"\b(?:in|on|by|since|until|till|through|from|of|early|late|mid|during|before|"
                               r"after|next|last|this|to|and|or|between|beyond|past|into|until|around|within|"
                               r"throughout|starting|ending)\s+$", re.IGNORECASE)


def date_items(sentence: str) -> list[Item]:
    out: list[Item] = []
    taken: list[tuple[int, int]] = []

    def add(kind_key: str, m: re.Match[str], start: int | None = None, end: int | None = None) -> None:
        a, b = (m.start() if start is None else start), (m.end() if end is None else end)
        out.append(Item(DATE, sentence[a:b], a, b, key=kind_key))

    low = sentence.lower()
    hints = _date_hints(sentence, low)
    for name, pattern in _DATE_RES:
        if name not in hints:
            continue  # cheap substring checks skip most of the regex work
        for m in pattern.finditer(sentence):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            if name == "time":
                if m.group(6):
                    key = "time:12:00" if m.group(6).lower() == "noon" else "time:00:00"
                else:
                    hour = int(m.group(1) or m.group(4))
                    minute = int(m.group(2) or 0)
                    half = (m.group(3) or m.group(5) or "").lower()
                    if hour > 23:
                        continue
                    hour = hour % 12 + (12 if half == "p" else 0) if half else hour
                    key = f"time:{hour:02d}:{minute:02d}"
                add(key, m)
            elif name in ("mdy", "dmy"):
                mg, dg = (1, 2) if name == "mdy" else (2, 1)
                month_s, day_s, year_s = m.group(mg), m.group(dg), m.group(3)
                month = MONTHS[month_s.rstrip(".").lower()]
                if month_s[0].islower() and not (day_s or year_s):
                    continue  # "may", "march", "august": a word unless a day or a year makes it a date
                if month_s in ("may", "march") and not year_s and \
                        not _MONTH_CONTEXT_RE.search(sentence[:m.start()]):
                    continue  # "you may 2 times", "the 2 may be": verbs; "on may 2", "by 2 may" dates
                # "May" and "March" opening a sentence may be words, "Jan" a name: alone they need a date-like
                # lead-in (mid-sentence, a capitalized "March" is the month)
                ambiguous = (month_s in ("May", "March") and not sentence[:m.start()].strip()) or \
                    month_s.rstrip(".").lower() not in _FULL_MONTHS
                if not day_s and not year_s and ambiguous and not _MONTH_CONTEXT_RE.search(sentence[:m.start()]):
                    continue
                if day_s:
                    day = int(re.sub(r"\D", "", day_s))
                    add(f"day:{month}-{day}", m, m.start(), max(m.end(1), m.end(2)))
                else:
                    add(f"month:{month}", m, m.start(), m.end(mg))
                if year_s:
                    out.append(Item(DATE, year_s, m.start(3), m.end(3), key=f"year:{year_s}"))
            elif name == "weekday":
                add(f"weekday:{WEEKDAYS[m.group(1).lower()]}", m)
            elif name == "quarter":
                if m.group(1) or m.group(2):
                    add(f"quarter:{m.group(1) or m.group(2)}", m)
                elif m.group(3):
                    add(f"quarter:{_ORDINALS[m.group(3).lower()]}", m)
                else:
                    add(f"half:{_ORDINALS.get((m.group(4) or '').lower(), 0) or m.group(5)}", m)
            else:
                add(f"year:{m.group(1)}", m)
            taken.append((m.start(), m.end()))
    return out
