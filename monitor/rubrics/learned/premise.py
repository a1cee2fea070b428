"""The premise a summary sentence is checked against: the source sentences that share most of its words.

    premise = pick_premise(source_sentences(source), "The CEO resigned on Monday.")
    premise.text, premise.sentences        # the chosen sentences in source order, their indices

The SummaC pattern: a whole article does not fit a small cross-encoder, and a summary sentence usually rests on
a few source sentences, so lexical overlap picks them (cheap, and good enough to find the deciding passage).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from ..text.sentences import split_sentences

# Words that say nothing about which passage a sentence comes from.
_STOP_WORDS = """a an the of to in on at for and or but is are was were be been being by with from as that this
these those it its he she they them his her their we our you your i not no has have had do does did will would can
could may might shall should said says say also than then there here which who whom what when where why how all any
some more most other into over after before about up out so if"""
_STOP = frozenset(_STOP_WORDS.split())
_WORD_RE = re.compile(r"\w+", re.UNICODE)
MAX_PREMISE_SENTENCES = 2
MAX_PREMISE_WORDS = 80  # premise + hypothesis stay within 128 word pieces: CPU cost grows with length


@dataclass(frozen=True)
class Premise:
    text: str
    sentences: tuple[int, ...]  # indices into the source's sentences, in source order


def content_words(text: str) -> list[str]:
    """Lower-cased words that carry meaning: ``content_words("The CEO resigned")`` -> ``["ceo", "resigned"]``."""
    return [w for w in _WORD_RE.findall(text.lower()) if w not in _STOP]


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


def pick_premise(sentences: list[str], hypothesis: str, *, limit: int = MAX_PREMISE_SENTENCES) -> Premise:
    """The up to ``limit`` source sentences that cover most of the hypothesis' words, rarer words weighing more."""
    wanted = Counter(content_words(hypothesis))
    bags = [set(content_words(s)) for s in sentences]
    # words found in few source sentences decide more than words found everywhere
    df = Counter(w for bag in bags for w in bag)
    n = len(sentences)

    def weight(word: str) -> float:
        return math.log(1 + n / (1 + df.get(word, 0)))

    covered: set[str] = set()
    chosen: list[int] = []
    for _ in range(min(limit, n)):
        best, best_gain = -1, 0.0
        for i, bag in enumerate(bags):
            if i in chosen:
                continue
            gain = sum(weight(w) for w in wanted if w in bag and w not in covered)
            gain += 0.01 * sum(weight(w) for w in wanted if w in bag)  # ties: the sentence that repeats most
            if gain > best_gain:
                best, best_gain = i, gain
        if best < 0:
            break
        chosen.append(best)
        covered |= bags[best] & set(wanted)
    if not chosen:
        chosen = [0]
    chosen.sort()
    words: list[str] = []
    kept: list[int] = []
    for i in chosen:
        tokens = sentences[i].split()
        if words and len(words) + len(tokens) > MAX_PREMISE_WORDS:
            continue
        words.extend(tokens[:MAX_PREMISE_WORDS])
        kept.append(i)
    return Premise(" ".join(words), tuple(kept))


def overlap_share(source: str, summary: str) -> float:
    """The word-overlap baseline: the share of the summary's content words found in the source."""
    seen = set(content_words(source))
    wanted = content_words(summary)
    return sum(1 for w in wanted if w in seen) / len(wanted) if wanted else 1.0
