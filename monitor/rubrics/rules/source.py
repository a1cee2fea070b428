"""The source, indexed so each summary claim can be aligned to the sentences that state it; evidence quoting."""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from .. import text as tx
from ..text import Clause, Item, ParsedText


def quote(text: str, limit: int = 160) -> str:
    """A phrase quoted for evidence: one line, bounded length."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return f'"{flat}"'


def versus(summary_phrase: str, source_phrase: str) -> str:
    if not source_phrase:
        return f"summary: {quote(summary_phrase)}"
    return f"summary: {quote(summary_phrase)} | source: {quote(source_phrase)}"






@dataclass(frozen=True)
class _ClauseRef:
    sentence: int
    clause: Clause


@dataclass(frozen=True)
class SourceIndex:
    doc: ParsedText
    idf: dict[str, float]
    unseen: float  # weight of a term the source never uses
    postings: dict[str, list[int]]  # term -> sentences that use it
    flat: str  # the source's words, lowercased and space-joined: " revenue rose 12 to "
    numeric: tuple[tuple[float, int, Item], ...]  # (value, sentence, item) for every amount, by value
    date_keys: frozenset[str]

    def sentences_stating(self, item: Item) -> set[int]:
        """The sentences holding an amount equal to ``item`` (values_match), found by value window."""
        out = set()
        for v in {x for x in (item.value, item.base) if x is not None}:
            lo, hi = (v * 0.9, v / 0.9) if v >= 0 else (v / 0.9, v * 0.9)
            at = bisect_left(self.numeric, (lo, -1))
            while at < len(self.numeric) and self.numeric[at][0] <= hi:
                _, i, y = self.numeric[at]
                if tx.values_match(item, y):
                    out.add(i)
                at += 1
        return out

    def weight(self, term: str) -> float:
        return self.idf.get(term, self.unseen)

    def score(self, query: frozenset[str], target: frozenset[str]) -> float:
        """Share of the query's (rarity-weighted) terms the target has."""
        total = sum(self.weight(t) for t in query)
        return sum(self.weight(t) for t in query & target) / total if total else 0.0

    def best_sentences(self, query: frozenset[str], k: int = 2) -> list[tuple[float, int]]:
        total = sum(self.weight(t) for t in query)
        if not total:
            return []
        hits: dict[int, float] = {}
        for t in query:
            w = self.idf.get(t)
            if w is not None:
                for n in self.postings.get(t, ()):
                    hits[n] = hits.get(n, 0.0) + w
        return sorted(((h / total, n) for n, h in hits.items()), key=lambda x: (-x[0], x[1]))[:k]

    def best_clauses(self, query: frozenset[str], k: int = 3) -> list[tuple[float, _ClauseRef]]:
        # A clause never scores above its sentence, so sentences are split into clauses best first and
        # only while one of them could still make the top k.
        weights = {t: self.weight(t) for t in query}
        total = sum(weights.values())
        found: list[tuple[float, int, int, Clause]] = []
        for bound, i in self.best_sentences(query, k=len(self.doc.sentences)):
            if len(found) >= k and bound < found[k - 1][0]:
                break
            for n, clause in enumerate(self.doc.sentences[i].clauses):
                hit = sum(weights[t] for t in query & clause.terms)
                if hit:
                    found.append((hit / total, i, n, clause))
            found.sort(key=lambda x: (-x[0], x[1], x[2]))
        return [(score, _ClauseRef(i, clause)) for score, i, _, clause in found[:k]]


@lru_cache(maxsize=128)
def index_source(source: str) -> SourceIndex:
    doc = tx.parse(source)
    n = max(len(doc.sentences), 1)
    postings: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(doc.sentences):
        for t in s.terms:
            postings[t].append(i)
    idf = {t: math.log(1 + n / len(ns)) for t, ns in postings.items()}
    flat = " " + " ".join(tx.words(source)) + " "
    figures = [(i, y) for i, s in enumerate(doc.sentences) for y in s.figures]
    # each amount under its stated value and, for measures, its base value ("2 hours" under 2 and 7200)
    numeric = tuple(sorted(((v, i, y) for i, y in figures if y.kind in tx.NUMERIC_KINDS
                            for v in {x for x in (y.value, y.base) if x is not None}), key=lambda x: (x[0], x[1])))
    keys = frozenset(y.key for _, y in figures if y.kind == tx.DATE)
    return SourceIndex(doc, idf, math.log(1 + n), dict(postings), flat, numeric, keys)
