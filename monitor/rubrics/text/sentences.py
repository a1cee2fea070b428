"""Sentence and clause boundaries."""

from __future__ import annotations

import re

from .matching import Cue

ABBREVIATIONS = frozenset([
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "ft", "gen", "gov", "sen", "rep", "lt", "col", "capt",
    "sgt", "rev", "hon", "inc", "corp", "co", "ltd", "llc", "plc", "bros", "dept", "univ", "vs", "etc", "approx",
    "est", "fig", "no", "nos", "vol", "ed", "eds", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept",
    "oct", "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun", "e.g", "i.e", "u.s", "u.k", "u.n", "e.u",
    "a.m", "p.m", "d.c", "n.y", "l.a", "ph.d", "m.d", "b.a", "m.a",
])
# After a dotted acronym ("U.S.") a new sentence is only assumed when one of these words follows.
_SENTENCE_OPENERS = frozenset([
    "the", "a", "an", "this", "that", "these", "those", "it", "its", "he", "she", "they", "we", "i", "in", "on",
    "at", "but", "and", "however", "meanwhile", "still", "also", "there", "his", "her", "their", "our", "after",
    "before", "for",
])
_BOUNDARY_RE = re.compile(r"([.!?]+)([\"'”’)\]]*)(\s+)(?=[\"'“‘(\[]?[A-Z0-9$€£])")
_BULLET_RE = re.compile(r"^\s*(?:[-*•–·]|\d{1,2}[.)])\s+")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        start, end = pos, pos + len(line)
        pos = end
        bullet = _BULLET_RE.match(line)
        cursor = start + (bullet.end() if bullet else 0)
        body_end = start + len(line.rstrip())
        if cursor >= body_end:
            continue
        for m in _BOUNDARY_RE.finditer(text, cursor, body_end):
            before = text[cursor:m.start()].split()
            last = before[-1].lower().rstrip(".").lstrip("(\"'“") if before else ""
            if m.group(1) == "." and last and (last in ABBREVIATIONS or re.fullmatch(r"[a-z]", last) or (
                    last == "al" and len(before) > 1 and before[-2].lower() == "et")):
                dotted = "." in last or last in ("u.s", "u.k", "a.m", "p.m")
                nxt = text[m.end():m.end() + 20].split()
                if not (dotted and nxt and nxt[0].lower().strip("\"'“") in _SENTENCE_OPENERS):
                    continue
            spans.append((cursor, m.start() + len(m.group(1)) + len(m.group(2))))
            cursor = m.end()
        if cursor < body_end:
            spans.append((cursor, body_end))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def split_sentences(text: str) -> list[str]:
    """Sentences and bullet items, in order; abbreviations, initials and decimals do not end one.

        split_sentences("Dr. Li said U.S. sales hit $1.5 million.\\n- Owner: Ana")
        # ["Dr. Li said U.S. sales hit $1.5 million.", "Owner: Ana"]
    """
    return [text[a:b].strip() for a, b in sentence_spans(text)]


_CLAUSE_RE = Cue(
    r"[;:]\s+"
    r"|,\s+(?=(?:and|but|while|whereas|although|though|which|who|so|yet|leaving|as|because|since|after|"
    r"with|instead|even|despite)\b)"
    r"|\s+(?:[—–]\s+|--\s+|but\s+"
    r"|(?=(?:because|due\s+to|as\s+a\s+result|driven\s+by|thanks\s+to|owing\s+to|which\s+led|instead\s+of|"
    r"rather\s+than)\b)"
    r"|(?:and|while|whereas)\s+(?=(?:the|it|its|they|he|she|this|that|there|a|an|no|none|had|has|"
    r"have|was|were|is|are|will|would|did|does|could|can|may|might|should)\b))",
    hints=(";", ":", "—", "–", "--", ", ", " but ", " and ", " while ", " whereas ", "because", "due to", "result",
           "driven by", "thanks to", "owing to", "which led", "instead of", "rather than"))


# A clause that opens with one of these ends at its first comma: "Instead of the staged rollout, the
# change went out at once" states two things.
_LEADING_SUBORDINATE_RE = re.compile(r"(?:instead\s+of|rather\s+than|despite|although|though|while|after|before|"
                                     r"when|if|unless|since)\b[^,]*,\s+", re.IGNORECASE)


def clause_spans(sentence: str) -> list[tuple[int, int]]:
    spans, cursor = [], 0
    for m in _CLAUSE_RE.finditer(sentence):
        if m.start() > cursor:
            spans.append((cursor, m.start()))
        cursor = m.end()
    if cursor < len(sentence):
        spans.append((cursor, len(sentence)))
    out = []
    for a, b in spans:
        lead = _LEADING_SUBORDINATE_RE.match(sentence, a, b)
        if lead and lead.end() < b:
            out += [(a, lead.end() - 2), (lead.end(), b)]
        else:
            out.append((a, b))
    return [(a, b) for a, b in out if sentence[a:b].strip()] or [(0, len(sentence))]
