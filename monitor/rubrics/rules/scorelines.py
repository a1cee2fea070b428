"""Score lines: a result ("beat Chelsea 4-1", "won 3–1", "drew 2:2", "voted 7-2") the summary states and the
source, which states results, does not.

    changed_scorelines("Arsenal beat Chelsea 3-1 on Sunday.", "Arsenal beat Chelsea 4-1.")
    # [Scoreline(summary='4-1', source='3-1', ...)]

The number checks read "4-1" as two counts, each of which the source has somewhere, so a changed result passed.
A score line here is two small whole numbers joined by a hyphen, a dash or a colon, in a sentence that speaks
of a result (won, beat, lost, drew, lead, goals, victory, voted...), and neither a range ("pages 3-5", "aged
3-5", "3-5 days") nor a date, a year span ("2019-2020") or a time ("10:30"). The summary's score line fails only
when the source states results and none of them is this one, read either way round ("lost 1-3" is the source's
"won 3-1"); a source with no result says nothing about it. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# "3-1", "3 - 1" (tokenized text), "3–1", "2:0", "1-nil"; not inside a longer run of numbers ("4-4-2",
# "2019-20", "1:2:3"), nor a decimal, a fraction or a hyphenated word ("Covid-19")
_SCORE = re.compile(r"(?<![\w.,:/–—-])(\d{1,3}|nil)\s*([-–—:])\s*(\d{1,3}|nil)(?![\w%°]|[.,:/–—-]\d)",
                    re.IGNORECASE)
# words that say a sentence reports a result
_RESULT = re.compile(
    r"\b(?:w[oi]n|wins|winning|winner|beat|beats|beaten|beating|defeat\w*|lost|lose|loses|losing|loss|victor\w*|"
    r"dr[ae]w|draws?|drawn|tied?|ties|scored?|scores|scoreline|lead|leads|led|leading|trail\w*|thrash\w*|"
    r"hammer\w*|edged?|rout\w*|triumph\w*|match\w*|game|games|final|finals|fixture|goals?|half-time|"
    r"full-time|aggregate|sets?|innings|vot\w+|verdict|ruling|decision|points)\b", re.IGNORECASE)
# a range or a measure: the word before ("pages 3-5", "aged 3-5", "from 3-5") or after ("3-5 days")
_RANGE_BEFORE = re.compile(
    r"\b(?:pages?|pp|chapters?|verses?|ages?|aged|between|from|grades?|rooms?|sections?|steps?|figures?|tables?|"
    r"lines?|weeks?|days?|years?|months?|hours?|sizes?|nos?|numbers?|ratio|odds|around|about)\W*$",
    re.IGNORECASE)
_RANGE_AFTER = re.compile(
    r"^\W{0,2}(?:per\s?cent|percent|%|days?|weeks?|months?|years?|hours?|h|minutes?|mins?|seconds?|secs?|times|"
    r"inch\w*|feet|ft|foot|metres?|meters?|m|cm|mm|km|miles?|kg|g|lbs?|pounds|degrees|million|billion|"
    r"people|year-olds?|years?-old|yards?|a\.?m\.?|p\.?m\.?|am|pm|gmt|utc|bst)\b",
    re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?;\n]\s")
_MAX_COLON = 15  # "3:45" is more likely a time than a score; a score by colon is small on both sides


@dataclass(frozen=True)
class Scoreline:
    summary: str  # as the summary writes it
    source: str  # the source's score lines, as it writes them
    sentence: str  # the summary sentence it is in


def _value(token: str) -> int:
    return 0 if token.lower() == "nil" else int(token)


def _sentence_at(text: str, start: int, end: int) -> str:
    left = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    right = _SENTENCE_END.search(text, end)
    return text[left:right.start() + 1 if right else len(text)].strip()


def scorelines(text: str, *, strict: bool = True) -> list[tuple[tuple[int, int], str, str]]:
    """Each score line of ``text``: its two values, how it is written, and its sentence. ``strict=False``
    takes any pair that is not plainly a range, time or measure, without asking for a word of result (what a
    source states is read generously, so a summary's score line is failed only against a clear result)."""
    out = []
    for m in _SCORE.finditer(text):
        a, sep, b = m.group(1), m.group(2), m.group(3)
        if a.lower() == "nil" and b.lower() == "nil" and strict:
            continue
        if sep == ":" and max(_value(a), _value(b)) > _MAX_COLON:
            continue
        if _RANGE_BEFORE.search(text, max(0, m.start() - 12), m.start()) or _RANGE_AFTER.match(text[m.end():]):
            continue
        sentence = _sentence_at(text, m.start(), m.end())
        if strict and not _RESULT.search(sentence):
            continue
        out.append(((_value(a), _value(b)), m.group(0), sentence))
    return out


def changed_scorelines(source: str, summary: str) -> list[Scoreline]:
    """The summary's score lines the source, which states results, does not state (either way round)."""
    stated = scorelines(source, strict=False)
    results = [written for _, written, sentence in stated if _RESULT.search(sentence)]
    if not results:
        return []
    pairs = {p for p, _, _ in stated} | {(b, a) for (a, b), _, _ in stated}
    shown = ", ".join(dict.fromkeys(results))
    return [Scoreline(written, shown, sentence) for pair, written, sentence in scorelines(summary)
            if pair not in pairs]
