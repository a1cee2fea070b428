"""What the faithfulness model reads: how well each summary sentence is carried by the source.

    doc = Document.of(source, embedder)            # the source's words, n-grams, numbers, sentence vectors
    rows = sentence_rows(doc, sentences, vectors)  # one SentenceRow per summary sentence
    x = summary_vector(rows)                       # the model's input: the weakest and the mean of each signal

Every signal is oriented so that more means better carried by the source (new names count negatively), which
lets the model's weights be held non-negative: a summary that copies more of its source can never score as
less faithful. That constraint is what carries the model from its training sets to news, dialogue and
one-sentence sources it never saw; an unconstrained fit learned the training sets' quirks (HaluEval's
hallucinated summaries copy more words than its right ones) and ranked held-out sets below word overlap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .premise import STOP_WORDS as _STOP

# A sentence's own signals, in this order.
SENTENCE_SIGNALS = ("words", "bigrams", "trigrams", "aligned", "cosine", "numbers", "names", "negation",
                    "quantifiers")
# The summary's: the weakest sentence's value of each signal, then the mean words, bigrams and cosine.
FEATURES = tuple(f"min_{s}" for s in SENTENCE_SIGNALS) + ("mean_words", "mean_bigrams", "mean_cosine")

_WORD_RE = re.compile(r"\w+", re.UNICODE)
_NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")
_CAPITAL_RE = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
# how much or how often: stop words to the word signals, so a changed one ("all five" for "two of its five")
# is counted on its own against the sentence that carries the claim
_QUANTIFIERS = frozenset(["all", "every", "each", "none", "some", "most", "few", "fewer", "many", "several", "both",
                          "always", "never", "only", "more", "less", "least"])
_NEGATIONS = frozenset(["not", "no", "never", "nor", "cannot", "none", "nobody", "nothing", "neither", "without"])
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"])}


def words(text: str) -> list[str]:
    """Lower-cased Unicode words, "n't" read as "not": ``words("Onça didn't")`` -> ``["onça", "did", "not"]``."""
    return [w.lower() for w in _WORD_RE.findall(text.replace("n't", " not").replace("n’t", " not"))]


def numbers(text: str) -> set[str]:
    """The quantities a text states, digits and number words alike: ``numbers("two of 1,200")`` -> {"2", "1200"}."""
    found = {n.replace(",", "") for n in _NUMBER_RE.findall(text)}
    return found | {_NUMBER_WORDS[w] for w in words(text) if w in _NUMBER_WORDS}


def capitalised(sentence: str) -> set[str]:
    """Capitalised words past a sentence's first, lower-cased, possessive dropped: the names it mentions."""
    out: set[str] = set()
    for token in sentence.split()[1:]:
        m = _CAPITAL_RE.match(token.strip("\"'“‘(["))
        if m and m.group(0)[0].isupper():
            word = re.sub(r"['’]s$", "", m.group(0)).lower()
            if word not in _STOP:
                out.add(word)
    return out


@dataclass(frozen=True)
class Document:
    """A source as the features need it, built once per source."""

    sentences: tuple[str, ...]
    vocabulary: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    trigrams: frozenset[tuple[str, str, str]]
    numbers: frozenset[str]
    bags: tuple[frozenset[str], ...]  # each sentence's content words
    bags_all: tuple[frozenset[str], ...]  # each sentence's words, stop words included
    negated: tuple[bool, ...]  # whether each sentence holds a negation
    vectors: np.ndarray  # unit rows: each sentence, then each pair of adjacent sentences

    @classmethod
    def of(cls, sentences: Sequence[str], vectors: np.ndarray) -> Document:
        """``sentences`` as the embedding tier cuts the source; ``vectors`` their unit embeddings, in order."""
        toks = [w for s in sentences for w in words(s)]
        bags_all = tuple(frozenset(words(s)) for s in sentences)
        bags = tuple(frozenset(w for w in b if w not in _STOP) for b in bags_all)
        pairs = vectors[:-1] + vectors[1:] if len(vectors) > 1 else np.zeros((0, vectors.shape[1]), np.float32)
        if len(pairs):
            pairs = pairs / np.maximum(np.linalg.norm(pairs, axis=1, keepdims=True), 1e-9)
        return cls(tuple(sentences), frozenset(toks), frozenset(zip(toks, toks[1:])),
                   frozenset(zip(toks, toks[1:], toks[2:])), frozenset(n for s in sentences for n in numbers(s)),
                   bags, bags_all, tuple(bool(b & _NEGATIONS) for b in bags_all),
                   np.vstack([vectors, pairs]) if len(vectors) else vectors)


@dataclass(frozen=True)
class SentenceRow:
    sentence: str
    signals: tuple[float, ...]  # SENTENCE_SIGNALS, in order
    evidence: str  # the source sentence that carries most of it


def _share(items: Sequence[object], have: frozenset[object]) -> float:
    return sum(1 for x in items if x in have) / len(items) if items else 1.0


def sentence_rows(doc: Document, sentences: Sequence[str], vectors: np.ndarray) -> list[SentenceRow]:
    """One row of signals per summary sentence; ``vectors`` are the sentences' unit embeddings."""
    cosines = vectors @ doc.vectors.T if len(doc.vectors) and len(vectors) else np.zeros((len(sentences), 0))
    n = len(doc.sentences)
    rows: list[SentenceRow] = []
    for k, sentence in enumerate(sentences):
        toks = words(sentence)
        content = [w for w in toks if w not in _STOP]
        bag = set(content)
        cover = [len(bag & b) / max(len(bag), 1) for b in doc.bags]
        cos = cosines[k] if cosines.shape[1] else np.zeros(0)
        # the passage that carries the sentence: shared words and meaning weigh alike
        near = [cover[i] + float(cos[i]) if i < len(cos) else cover[i] for i in range(n)]
        best = int(np.argmax(near)) if near else 0
        new_names = sum(1 for name in capitalised(sentence) if name not in doc.vocabulary)
        said = set(toks)
        # a negation the carrying sentence lacks; one the sentence drops is no signal: on the choice rows it
        # flagged paraphrases ("did not win" as "lost") more than real flips
        negation = n > 0 and bool(said & _NEGATIONS) and not doc.negated[best]
        quantifiers = len(said & _QUANTIFIERS - doc.bags_all[best]) if n else 0
        signals = (
            _share(content, doc.vocabulary),
            _share(list(zip(toks, toks[1:])), doc.bigrams),
            _share(list(zip(toks, toks[1:], toks[2:])), doc.trigrams),
            max(cover, default=0.0),
            float(cos.max()) if len(cos) else 0.0,
            -float(len(numbers(sentence) - doc.numbers)),
            -float(new_names),
            -float(negation),
            -float(quantifiers),
        )
        rows.append(SentenceRow(sentence, signals, doc.sentences[best] if n else ""))
    return rows


def summary_vector(rows: Sequence[SentenceRow]) -> np.ndarray:
    """The model's input for a summary: each signal's weakest value, then the mean words, bigrams and cosine."""
    if not rows:
        return np.array([1.0] * 5 + [0.0] * 4 + [1.0, 1.0, 1.0], dtype=np.float64)
    a = np.array([r.signals for r in rows], dtype=np.float64)
    return np.concatenate([a.min(axis=0), a[:, [0, 1, 4]].mean(axis=0)])


def sentence_vector(row: SentenceRow) -> np.ndarray:
    """A single sentence read as a one-sentence summary: what its own probability is computed from."""
    return summary_vector([row])

