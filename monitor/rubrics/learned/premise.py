"""Words and sentences as the training data and the word-overlap baseline read them.

    content_words("The CEO resigned")          # ["ceo", "resigned"]
    source_sentences(article)                  # the article cut into sentences of at most 80 words
    overlap_share(source, summary)             # the baseline: share of the summary's content words in the source
"""

from __future__ import annotations

import re

from ..text.sentences import split_sentences

# Words that say nothing about which passage a sentence comes from.
_STOP_WORDS = """a an the of to in on at for and or but is are was were be been being by with from as that this
these those it its he she they them his her their we our you your i not no has have had do does did will would can
could may might shall should said says say also than then there here which who whom what when where why how all any
some more most other into over after before about up out so if"""
STOP_WORDS = frozenset(_STOP_WORDS.split())
_WORD_RE = re.compile(r"\w+", re.UNICODE)


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry meaning: ``content_words("The CEO resigned")`` -> ``["ceo", "resigned"]``."""
    return [w for w in _WORD_RE.findall(text.lower()) if w not in STOP_WORDS]


def source_sentences(source: str) -> list[str]:
    """The source cut into sentences; very long ones are cut at word 80 so one never fills the premise."""
    out: list[str] = []
    for sentence in split_sentences(source):
        tokens = sentence.split()
        for start in range(0, len(tokens), 80):
            piece = " ".join(tokens[start:start + 80]).strip()
            if piece:
                out.append(piece)
    return out or [source.strip()]


def overlap_share(source: str, summary: str) -> float:
    """The word-overlap baseline: the share of the summary's content words found in the source."""
    seen = set(content_words(source))
    wanted = content_words(summary)
    return sum(1 for w in wanted if w in seen) / len(wanted) if wanted else 1.0
