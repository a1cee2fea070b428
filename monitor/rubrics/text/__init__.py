"""Text analysis every judge tier shares: sentences, words, and the checkable items in a text.

    doc = parse("Revenue rose 12% to $4.2 million in the third quarter.")
    [(i.kind, i.text) for i in doc.sentences[0].items]
    # [('percent', '12%'), ('money', '$4.2 million'), ('date', 'third quarter')]
    values_match(extract_items("$4.2 million")[0], extract_items("4,200,000 dollars")[0])  # True

Pure functions over strings; nothing here knows about rubrics or verdicts. Parsing is cached on the
text, so the four rubric judges of one case share one parse. One module per kind of analysis.
"""

from .compare import date_granularity, date_supported, entity_supported, same_person, unit_differs, values_match
from .cues import causal_cue, has_negation, has_negative_word
from .names import name_kind, names_noun, possessed_noun, roles_near
from .numbers import is_age
from .parsing import Clause, ParsedText, Sentence, detokenize, extract_items, name_tokens, parse
from .records import (
    CAUSAL,
    DATE,
    ENTITY,
    HEDGE,
    MONEY,
    NEGATION,
    NUMBER,
    NUMERIC_KINDS,
    OPENER,
    PERCENT,
    QUANTIFIER,
    QUANTITY,
    Item,
)
from .sentences import split_sentences
from .words import stem, terms, word_count, word_pairs, words

__all__ = [
    "CAUSAL", "Clause", "DATE", "ENTITY", "HEDGE", "Item", "MONEY", "NEGATION", "NUMBER", "NUMERIC_KINDS", "OPENER",
    "PERCENT", "ParsedText", "QUANTIFIER", "QUANTITY", "Sentence", "causal_cue", "date_granularity", "date_supported",
    "detokenize", "entity_supported", "extract_items", "has_negation", "has_negative_word", "is_age", "name_kind",
    "name_tokens", "names_noun", "parse", "possessed_noun", "roles_near", "same_person", "split_sentences", "stem",
    "terms", "unit_differs", "values_match", "word_count", "word_pairs", "words",
]
