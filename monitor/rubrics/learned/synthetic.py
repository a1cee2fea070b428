"""Contradictions made from a source's own sentences, labelled at sentence level.

    edit = contradict("Revenue rose 12% in March, the CFO said.", names=["Raj Menon"], rng=random.Random(7))
    edit.kind, edit.text          # "number", "Revenue rose 19% in March, the CFO said."

Each edit changes what the sentence claims while keeping almost all of its words, so a model cannot tell it
from the original by overlap alone: changed numbers, swapped names and roles, negations, added causes and
changed quantifiers (the error kinds issue 20 lists).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

KINDS = ("number", "name", "role", "negation", "cause", "quantifier")

_NUMBER_RE = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)(?![\w])")
_NAME_RE = re.compile(r"\b([A-Z][a-z]+(?:\s+[A-Z][a-z]+)+)\b")
_CAP_RE = re.compile(r"(?<=\s)([A-Z][a-z]{2,})\b")
_ROLES = ("chief executive", "CEO", "CFO", "chairman", "president", "manager", "coach", "captain", "director",
          "spokesman", "minister", "secretary", "founder", "striker", "goalkeeper", "teacher", "mayor", "senator",
          "prosecutor", "lawyer", "doctor", "professor", "editor", "owner", "head coach", "vice president")
_ROLE_RE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _ROLES), key=len, reverse=True)) + r")\b")
_AUX_RE = re.compile(r"\b(is|are|was|were|has|have|had|will|can|could|would|should|did|does|do)\b( not\b|n't\b)?")
_QUANTIFIERS = {
    "all": "some", "some": "all", "most": "few", "few": "most", "many": "few", "always": "never", "never": "always",
    "every": "no", "none": "all", "more": "less", "less": "more", "increased": "decreased", "decreased": "increased",
    "rose": "fell", "fell": "rose", "higher": "lower", "lower": "higher", "first": "last", "last": "first",
    "before": "after", "after": "before", "won": "lost", "lost": "won",
}
_QUANT_RE = re.compile(r"\b(" + "|".join(_QUANTIFIERS) + r")\b", re.IGNORECASE)
_CAUSES = ("because of a dispute with {name}", "after pressure from {name}", "due to a decision by {name}",
           "as a result of the investigation", "because of the funding cuts", "following complaints from {name}")


@dataclass(frozen=True)
class Edit:
    kind: str
    text: str


def names_in(text: str) -> list[str]:
    """Multi-word capitalised names: ``names_in("Paul Merson met Andros Townsend")`` -> both names."""
    return list(dict.fromkeys(m.group(1) for m in _NAME_RE.finditer(text)))


def contradict(sentence: str, names: list[str], rng: random.Random) -> Edit | None:
    """One edit of ``sentence`` that changes its claim, of a kind tried in random order; None if none applies."""
    kinds = list(KINDS)
    rng.shuffle(kinds)
    for kind in kinds:
        text = _EDITS[kind](sentence, names, rng)
        if text and text != sentence:
            return Edit(kind, text)
    return None


def _number(sentence: str, names: list[str], rng: random.Random) -> str | None:
    found = list(_NUMBER_RE.finditer(sentence))
    if not found:
        return None
    m = rng.choice(found)
    raw = m.group(1).replace(",", "")
    try:
        value = float(raw)
    except ValueError:
        return None
    factor = rng.choice((0.5, 0.75, 1.5, 2.0, 3.0))
    new = value * factor + rng.choice((0, 1, 3))
    text = f"{new:.{len(raw.split('.')[1])}f}" if "." in raw else str(int(round(new)))
    if text == m.group(1):
        text = str(int(value) + 7)
    return sentence[:m.start(1)] + text + sentence[m.end(1):]


def _name(sentence: str, names: list[str], rng: random.Random) -> str | None:
    here = names_in(sentence)
    if len(here) >= 2 and rng.random() < 0.5:
        a, b = rng.sample(here, 2)
        return sentence.replace(a, "\0").replace(b, a).replace("\0", b)
    others = [n for n in names if n not in sentence]
    if here and others:
        return sentence.replace(rng.choice(here), rng.choice(others), 1)
    caps = [m.group(1) for m in _CAP_RE.finditer(sentence)]
    other_caps = [n.split()[-1] for n in others]
    if caps and other_caps:
        return sentence.replace(rng.choice(caps), rng.choice(other_caps), 1)
    return None


def _role(sentence: str, names: list[str], rng: random.Random) -> str | None:
    found = list(_ROLE_RE.finditer(sentence))
    if not found:
        return None
    m = rng.choice(found)
    other = rng.choice([r for r in _ROLES if r.lower() != m.group(1).lower()])
    return sentence[:m.start()] + other + sentence[m.end():]


def _negation(sentence: str, names: list[str], rng: random.Random) -> str | None:
    m = _AUX_RE.search(sentence)
    if not m:
        return None
    if m.group(2):  # "was not" / "wasn't" -> "was"
        return sentence[:m.start()] + m.group(1) + sentence[m.end():]
    return sentence[:m.end()] + " not" + sentence[m.end():]


def _cause(sentence: str, names: list[str], rng: random.Random) -> str | None:
    body = sentence.rstrip()
    if not body.endswith(".") or len(body.split()) < 5:
        return None
    template = rng.choice(_CAUSES)
    if "{name}" in template:
        if not names:
            return None
        template = template.format(name=rng.choice(names))
    return body[:-1] + " " + template + "."


def _quantifier(sentence: str, names: list[str], rng: random.Random) -> str | None:
    found = list(_QUANT_RE.finditer(sentence))
    if not found:
        return None
    m = rng.choice(found)
    word = m.group(1)
    new = _QUANTIFIERS[word.lower()]
    if word[0].isupper():
        new = new.capitalize()
    return sentence[:m.start()] + new + sentence[m.end():]


_EDITS = {"number": _number, "name": _name, "role": _role, "negation": _negation, "cause": _cause,
          "quantifier": _quantifier}
