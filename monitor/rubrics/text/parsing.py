"""Parsed text: sentences with their clauses and items, read lazily and cached per text."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from .cues import CAUSAL_RE, HEDGE_RE, NEGATION_RE, cue_items, has_negation, has_negative_word, quantifier_items
from .dates import date_items
from .names import core, entity_items
from .numbers import numeric_items
from .records import CAUSAL, DATE, ENTITY, HEDGE, MONEY, NEGATION, NUMBER, PERCENT, QUANTITY, Item
from .sentences import clause_spans, sentence_spans
from .words import WORD_RE, terms, word_count


@dataclass(frozen=True)
class Clause:
    """A stretch of a sentence that states one thing; negation and quantifiers are read per clause."""

    text: str
    start: int
    end: int
    terms: frozenset[str]

    @cached_property
    def negated(self) -> bool:
        """Holds an explicit negation: "not", "no", "never", "failed to"."""
        return has_negation(self.text)

    @cached_property
    def negative_word(self) -> bool:
        """Holds a predicate with a negation inside: "rejected", "unchanged", "halted"."""
        return has_negative_word(self.text)


_FIGURE_KINDS = frozenset({NUMBER, PERCENT, MONEY, QUANTITY, DATE})


@dataclass(frozen=True)
class Sentence:
    """A sentence or bullet item. Its clauses and items are read on first use: a judge looks at every
    number in a source but at the names and negations of only the few sentences a summary aligns to."""

    text: str
    start: int  # offset in the whole text
    terms: frozenset[str]
    vocab: frozenset[str] = field(default=frozenset(), repr=False, compare=False)  # see extract_items()

    @cached_property
    def clauses(self) -> tuple[Clause, ...]:
        return tuple(Clause(self.text[a:b], a, b, terms(self.text[a:b])) for a, b in clause_spans(self.text))

    @cached_property
    def figures(self) -> tuple[Item, ...]:
        """Numbers, amounts and dates."""
        return _figure_items(self.text, self.text.lower())

    @cached_property
    def names(self) -> tuple[Item, ...]:
        """Proper names, by capitalization."""
        return tuple(entity_items(self.text, self.vocab, tuple((i.start, i.end) for i in self.figures)))

    @cached_property
    def cues(self) -> tuple[Item, ...]:
        """Negations, quantifiers, hedges and causal connectives."""
        return _cue_kinds(self.text, self.text.lower(), self.figures)

    @cached_property
    def items(self) -> tuple[Item, ...]:
        """Every checkable item, in order of position."""
        return tuple(sorted(self.figures + self.names + self.cues, key=lambda i: (i.start, i.end)))

    def of_kind(self, *kinds: str) -> tuple[Item, ...]:
        wanted = set(kinds)
        pool: tuple[Item, ...] = ()
        if wanted & _FIGURE_KINDS:
            pool += self.figures
        if ENTITY in wanted:
            pool += self.names
        if wanted - _FIGURE_KINDS - {ENTITY}:
            pool += self.cues
        return tuple(sorted((i for i in pool if i.kind in wanted), key=lambda i: (i.start, i.end)))


@dataclass(frozen=True)
class ParsedText:
    text: str
    sentences: tuple[Sentence, ...]
    terms: frozenset[str]  # content terms of the whole text
    tokens: frozenset[str]  # every lowercased word token, possessives stripped (for name lookups)
    word_count: int

    def items(self, *kinds: str) -> tuple[Item, ...]:
        return tuple(i for s in self.sentences for i in (s.of_kind(*kinds) if kinds else s.items))





def _figure_items(text: str, low: str) -> tuple[Item, ...]:
    dates = date_items(text)
    return tuple(dates + numeric_items(text, [(i.start, i.end) for i in dates], low))


def extract_items(text: str, lowercase_vocab: frozenset[str] = frozenset(), *,
                  kinds: frozenset[str] | None = None) -> tuple[Item, ...]:
    """The checkable items in one sentence (all kinds, or only ``kinds``), in order of position.

        [i.kind for i in extract_items("Redfern Steel did not raise its dividend in Q3.")]
        # ['entity', 'negation', 'date']

    ``lowercase_vocab``: words seen in lower case nearby, so a capitalized sentence opener like
    "Nursing" is not taken for a name when "nursing" is a plain word in the texts.
    """
    low = text.lower()
    found = _figure_items(text, low)
    names: tuple[Item, ...] = ()
    cues: tuple[Item, ...] = ()
    if kinds is None or ENTITY in kinds:
        names = tuple(entity_items(text, lowercase_vocab, tuple((i.start, i.end) for i in found)))
    if kinds is None or kinds - _FIGURE_KINDS - {ENTITY}:
        cues = _cue_kinds(text, low, found)
    items = found + names + cues
    if kinds is not None:
        items = tuple(i for i in items if i.kind in kinds)
    return tuple(sorted(items, key=lambda i: (i.start, i.end)))


def _cue_kinds(text: str, low: str, figures: tuple[Item, ...]) -> tuple[Item, ...]:
    dates = [i for i in figures if i.kind == DATE]
    hedges = [h for h in cue_items(text, low, HEDGE_RE, HEDGE)
              if not any(d.start <= h.start < d.end for d in dates)]  # "in May" is a month
    return tuple(cue_items(text, low, NEGATION_RE, NEGATION) + quantifier_items(text, low) + hedges
                 + cue_items(text, low, CAUSAL_RE, CAUSAL))


_LOWER_WORD_RE = re.compile(r"(?<![\w'’])[a-z][a-z'’-]*")


@lru_cache(maxsize=1024)
def _vocab(text: str) -> frozenset[str]:
    """Words the text uses in lower case: "nursing" here means a capitalized "Nursing" is no name."""
    return frozenset(core(w) for w in set(_LOWER_WORD_RE.findall(text)))


_PTB_FIXES = (
    (re.compile(r"\s+(n['’]t)\b", re.I), r"\1"),            # "do n't" -> "don't"
    (re.compile(r"\s+(['’](?:s|re|ve|ll|d|m))\b", re.I), r"\1"),  # "team 's" -> "team's"
    (re.compile(r"\s+([.,;:!?%)\]])"), r"\1"),              # "word ." -> "word."
    (re.compile(r"([(\[$£€])\s+"), r"\1"),                  # "( word" / "£ 200" -> "(word" / "£200"
    (re.compile(r"``\s*|\s*''"), '"'),
    (re.compile(r"([.!?])\s+(['’\"])\s+(?=[A-Z0-9'‘\"])"), r"\1\2 "),  # "wrong. ' Next" -> "wrong.' Next"
    (re.compile(r"-lrb-", re.I), "("), (re.compile(r"-rrb-", re.I), ")"),
)


_SPLIT_THOUSANDS_RE = re.compile(r"(?<![\d.,])(\d{1,3}), (\d{3})(?![\d,])")
# "twenty - five": a compound number word whose hyphen tokenization set apart
_SPLIT_NUMBER_WORD_RE = re.compile(r"\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety) - "
                                   r"(one|two|three|four|five|six|seven|eight|nine)\b", re.I)


@lru_cache(maxsize=1024)
def detokenize(text: str) -> str:
    """Undo Penn-Treebank-style tokenization ("do n't", "team 's", "word ."), common in datasets and
    some pipelines, so sentences split and negations align as they would in ordinary text.

        detokenize("I do n't know .")  # "I don't know."
    """
    if ", " in text:  # "50, 000": a thousands separator split by tokenization
        text = _SPLIT_THOUSANDS_RE.sub(r"\1,\2", text)
    if " - " in text:
        text = _SPLIT_NUMBER_WORD_RE.sub(r"\1-\2", text)
    if " n't" not in text and " ." not in text and " ," not in text and " 's" not in text:
        return text
    for pattern, replacement in _PTB_FIXES:
        text = pattern.sub(replacement, text)
    return text


@lru_cache(maxsize=1024)
def parse(text: str, context: str = "") -> ParsedText:
    """Sentences with their items, clauses and terms. ``context`` (e.g. the source, when parsing a
    summary) only helps tell names from capitalized common words.

        doc = parse(summary, context=source)
        doc.items("percent")
    """
    vocab = _vocab(text) | _vocab(context) if context else _vocab(text)
    sentences = []
    for a, b in sentence_spans(text):
        raw = text[a:b]
        lead = len(raw) - len(raw.lstrip())
        body = raw.strip()
        sentences.append(Sentence(body, a + lead, terms(body), vocab))
    return ParsedText(text, tuple(sentences), frozenset().union(*(s.terms for s in sentences)),
                      name_tokens(text), word_count(text))


@lru_cache(maxsize=4096)
def name_tokens(text: str) -> frozenset[str]:
    """Lowercased word tokens with possessives stripped, for looking up the parts of a name."""
    return frozenset(core(t) for t in set(WORD_RE.findall(text)))


_LETTER_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*")


@lru_cache(maxsize=256)
def first_letters(text: str) -> str:
    """The first letter of every word, connectives skipped: an acronym the text spells out is a substring."""
    return "".join(w[0].lower() for w in _LETTER_WORD_RE.findall(text) if w.lower() not in ("of", "and", "the", "for"))
