"""The judge's evidence, marked where it occurs in the source and in the summary.

    phrases = evidence_phrases('summary: "rose 21%" | source: "rose 12%"')    # ("rose 21%", "rose 12%")
    highlight("Revenue rose 12% in May.", phrases)    # Markup('Revenue <mark>rose 12%</mark> in May.')

Every judge tier quotes the phrases it decided on in double quotes (``summary: "..." | source: "..."``,
``summary "..." vs source "..."``, ``fact: "..."``); a quote cut short ends in "…". Each quoted phrase is
looked for in both texts, case and whitespace aside, so the summary's wrong figure and the source's right
one are both marked. Pure functions: no store, no request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from markupsafe import Markup, escape

_QUOTED = re.compile(r'"([^"\n]{1,400})"')
_MAX_PHRASES = 24
_MIN_CHARS = 2  # a one-letter quote would mark every occurrence of that letter


def evidence_phrases(*evidence: str) -> tuple[str, ...]:
    """The quoted phrases of one or more evidence strings, in order, each once (a cut quote loses its "…")."""
    out: dict[str, None] = {}
    for text in evidence:
        for match in _QUOTED.finditer(text or ""):
            phrase = " ".join(match.group(1).split()).rstrip("…").rstrip(" .,;:")
            if len(phrase) >= _MIN_CHARS:
                out.setdefault(phrase, None)
    return tuple(out)[:_MAX_PHRASES]


def _pattern(phrase: str) -> re.Pattern[str]:
    body = r"\s+".join(re.escape(word) for word in phrase.split())
    # a phrase that starts or ends with a letter or digit matches whole words only: "12%" not inside "112%"
    head = r"(?<!\w)" if phrase[0].isalnum() else ""
    tail = r"(?!\w)" if phrase[-1].isalnum() else ""
    return re.compile(head + body + tail, re.IGNORECASE)


def spans_of(text: str, phrases: Iterable[str]) -> list[tuple[int, int]]:
    """Where the phrases occur in ``text``: sorted, merged (start, end) character ranges."""
    found = sorted((m.start(), m.end()) for p in phrases if p.strip() for m in _pattern(p).finditer(text))
    merged: list[tuple[int, int]] = []
    for start, end in found:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def highlight(text: str, phrases: Sequence[str]) -> Markup:
    """``text`` escaped for HTML, each occurrence of an evidence phrase inside ``<mark>``."""
    parts: list[str] = []
    at = 0
    for start, end in spans_of(text, phrases):
        parts.append(str(escape(text[at:start])))
        parts.append(f"<mark>{escape(text[start:end])}</mark>")
        at = end
    parts.append(str(escape(text[at:])))
    return Markup("".join(parts))
