"""The rules tier: deterministic checks on the four rubrics, no model and no network.

    judge = RulesJudge()
    result = judge.judge("factuality", SummaryCase(source=doc, summary=summ, band="tldr"))
    result.verdict, result.evidence, result.confident
    # ('numerically_wrong', 'summary: "21% of requests" | source: "12% of requests"', True)

Rules settle what text can settle: a number, date, name or negation that disagrees with the source, a
padded or copied summary, a summary far outside its length band. ``confident=False`` hands the case on
to a later tier (embeddings, then an LLM); conciseness is always settled here.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from . import text as tx
from .bands import Band, band_for
from .text import Clause, Item, ParsedText, Sentence, detokenize
from .verdicts import COMPLETENESS, CONCISENESS, FACTUALITY, GROUNDEDNESS, RULES, RubricResult, SummaryCase

VERBATIM_RUN = 8  # consecutive source words a summary may not copy
HEDGES_PER_SENTENCE = 3
BLOAT_FACTOR = 1.5  # words over band max x this -> bloated, not just long


def _q(text: str, limit: int = 160) -> str:
    """A phrase quoted for evidence: one line, bounded length."""
    flat = " ".join(text.split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    return f'"{flat}"'


def _versus(summary_phrase: str, source_phrase: str) -> str:
    if not source_phrase:
        return f"summary: {_q(summary_phrase)}"
    return f"summary: {_q(summary_phrase)} | source: {_q(source_phrase)}"


# ---------------------------------------------------------------- the source, indexed for alignment


@dataclass(frozen=True)
class _ClauseRef:
    sentence: int
    clause: Clause


@dataclass(frozen=True)
class _SourceIndex:
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
        for v in {item.value, item.base} - {None}:
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
def _index(source: str) -> _SourceIndex:
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
                            for v in {y.value, y.base} - {None}), key=lambda x: (x[0], x[1])))
    keys = frozenset(y.key for _, y in figures if y.kind == tx.DATE)
    return _SourceIndex(doc, idf, math.log(1 + n), dict(postings), flat, numeric, keys)


# ---------------------------------------------------------------- claim analysis (shared by three rubrics)

# Failure modes that say a claim disagrees with the source (groundedness: contradicted); the others
# say it goes beyond the source (groundedness: partial or missing).
_CONTRADICTIONS = frozenset({"number_mismatch", "percentage_mismatch", "unit_mismatch", "date_mismatch",
                             "entity_swap", "negation_flip"})
# Which factuality verdict each mismatch maps to. A quantifier ("all" where the source says "most")
# misstates how many, so it is reported as a numeric error: polarity_wrong is kept for negation and
# entity_wrong for names, so each verdict keeps one meaning for clustering.
_FACT_VERDICT = {"number_mismatch": "numerically_wrong", "percentage_mismatch": "numerically_wrong",
                 "unit_mismatch": "numerically_wrong", "quantifier_mismatch": "numerically_wrong",
                 "quantifier_understated": "numerically_wrong", "date_mismatch": "temporal_wrong",
                 "entity_swap": "entity_wrong", "negation_flip": "polarity_wrong"}
# internal finding names -> the failure mode each rubric reports
_FACT_MODE = {"quantifier_understated": "quantifier_mismatch"}
_GROUND_MODE = {"quantifier_mismatch": "overgeneralized_quantifier"}
_NOT_GROUNDEDNESS = frozenset({"quantifier_understated"})  # a weaker claim is still one the source supports


@dataclass(frozen=True)
class _Finding:
    mode: str  # failure mode name
    summary_phrase: str
    source_phrase: str
    note: str  # one clause of explanation
    confident: bool = True

    @property
    def evidence(self) -> str:
        return _versus(self.summary_phrase, self.source_phrase)


@dataclass(frozen=True)
class _Claim:
    text: str
    support: float  # share of its content terms the source has (rarity-weighted)
    checked: int  # checkable items found consistent with the source
    unsettled: int  # checkable items the rules could not settle either way
    findings: tuple[_Finding, ...]
    weak_cause: bool = False  # a causal link the source only suggests ("after", "amid")


@dataclass(frozen=True)
class _Analysis:
    claims: tuple[_Claim, ...]
    support: float


_OF_AFTER_RE = re.compile(r"\s+of\s+[\w'’-]+(?:\s+[\w'’-]+)?")
_WORDS_BEFORE_RE = re.compile(r"(?:[\w'’$€£.-]+\s+){1,2}$")
_WORDS_AFTER_RE = re.compile(r"(?:\s+[\w'’-]+){1,2}")


def _phrase(sentence: str, item: Item) -> str:
    """The item as a reader would quote it: '12% of requests', 'revenue rose 21%', 'All regions reported'."""
    if item.kind == tx.ENTITY:
        return item.text
    if item.kind == tx.QUANTIFIER:
        tail = _WORDS_AFTER_RE.match(sentence, item.end)
        return item.text + (tail.group(0) if tail else "")
    of = _OF_AFTER_RE.match(sentence, item.end)
    if of:
        return item.text + of.group(0)
    head = _WORDS_BEFORE_RE.search(sentence, 0, item.start)
    return (head.group(0) if head else "") + item.text


def _clause_of(sentence: Sentence, item: Item) -> Clause:
    for c in sentence.clauses:
        if c.start <= item.start < c.end:
            return c
    return sentence.clauses[0]


def _context_terms(sentence: Sentence, item: Item) -> frozenset[str]:
    clause = _clause_of(sentence, item)
    return clause.terms if len(clause.terms) >= 3 else sentence.terms


def _local_terms(text: str, item: Item, width: int = 40) -> frozenset[str]:
    return tx.terms(text[max(0, item.start - width):item.start] + " " + text[item.end:item.end + width])


def _family(item: Item) -> str:
    if item.kind in (tx.PERCENT, tx.MONEY):
        return item.kind
    return f"measure:{item.dimension}" if item.dimension else "count"


def _comparable(a: Item, b: Item) -> bool:
    """Amounts that could stand in one slot: same family, or a bare count against a measure."""
    fa, fb = _family(a), _family(b)
    return fa == fb or {fa.split(":")[0], fb.split(":")[0]} == {"count", "measure"}


def _derived(value: Item, pool: list[Item]) -> bool:
    """A difference or sum of two source amounts ("down 38 minutes" from 114 and 76) is a fair restatement."""
    for i, a in enumerate(pool):
        for b in pool[i + 1:]:
            if a.value is None or b.value is None:
                continue
            for sign in (-1, 1):
                v = abs(a.value + sign * b.value)
                base = abs((a.base or a.value) + sign * (b.base or b.value))
                if v and tx.values_match(value, replace(a, value=v, base=base, approx=False)):
                    return True
    return False


def _check_numbers(idx: _SourceIndex, s: Sentence, summary_numeric: tuple[Item, ...]) -> tuple[list, int, int]:
    findings, checked, unsettled = [], 0, 0
    for item in s.of_kind(*tx.NUMERIC_KINDS):
        ranked = idx.best_sentences(_context_terms(s, item), k=2)
        aligned = [i for sc, i in ranked if sc >= 0.3]
        where = idx.sentences_stating(item)
        if where & set(aligned) or (where and not aligned):
            checked += 1
            continue
        pool = [(i, y) for i in aligned for y in idx.doc.sentences[i].of_kind(*tx.NUMERIC_KINDS)]
        if _derived(item, [y for _, y in pool if _family(y) == _family(item)]):
            unsettled += 1
            continue
        # a source amount the summary states elsewhere is accounted for; the one it dropped is the rival
        rivals = [(i, y) for i, y in pool
                  if _comparable(item, y) and not any(tx.values_match(y, z) for z in summary_numeric)]
        if where:
            # The value is in the source, only not in the statement this clause restates: a mismatch
            # only when that statement is a strong match with an amount of the same unit in its place.
            rivals = [(i, y) for i, y in rivals if ranked[0][0] >= 0.5 and i == ranked[0][1]
                      and (y.unit == item.unit or not y.unit or not item.unit)]
            if not rivals:
                checked += 1
                continue
        if not rivals:
            unsettled += 1
            findings.append(_Finding("unsupported_number", _phrase(s.text, item), "",
                                     f"{item.text!r} does not appear in the source"))
            continue
        local = _local_terms(s.text, item)
        at, best = max(rivals, key=lambda r: (r[1].unit == item.unit and bool(item.unit),
                                              len(local & _local_terms(idx.doc.sentences[r[0]].text, r[1])),
                                              -aligned.index(r[0])))
        if tx.unit_differs(item, best):
            mode, what = "unit_mismatch", "unit"
        elif item.kind == tx.PERCENT:
            mode, what = "percentage_mismatch", "percentage"
        else:
            mode, what = "number_mismatch", "number"
        findings.append(_Finding(mode, _phrase(s.text, item), _phrase(idx.doc.sentences[at].text, best),
                                 f"the summary's {what} {item.text!r} differs from the source's {best.text!r}"))
    return findings, checked, unsettled


def _check_dates(idx: _SourceIndex, s: Sentence, summary_keys: frozenset[str]) -> tuple[list, int, int]:
    findings, checked, unsettled = [], 0, 0
    for item in s.of_kind(tx.DATE):
        if tx.date_supported(item.key, idx.date_keys):
            checked += 1
            continue
        grain = tx.date_granularity(item.key)
        aligned = [i for sc, i in idx.best_sentences(_context_terms(s, item), k=2) if sc >= 0.3]
        rivals = [(i, d) for i in aligned for d in idx.doc.sentences[i].of_kind(tx.DATE)
                  if tx.date_granularity(d.key) == grain and not tx.date_supported(d.key, summary_keys)]
        if rivals:
            i, d = rivals[0]
            findings.append(_Finding("date_mismatch", _phrase(s.text, item),
                                     _phrase(idx.doc.sentences[i].text, d),
                                     f"the summary dates this {item.text!r}, the source {d.text!r}"))
        else:
            unsettled += 1
            weekday = item.key.startswith("weekday:")
            findings.append(_Finding("unsupported_date", _phrase(s.text, item), "",
                                     f"the date {item.text!r} does not appear in the source", confident=not weekday))
    return findings, checked, unsettled


def _mentioned(entity: Item, doc: ParsedText) -> bool:
    return all(p in doc.tokens for p in entity.key.split())


def _acronym(text: str) -> bool:
    """'ER', 'U.S.', 'YoY', 'SG&A', 'COVID-19': short forms whose expansion the rules cannot check."""
    letters = [ch for ch in text if ch.isalpha()]
    return " " not in text and 2 <= len(letters) <= 6 and sum(ch.isupper() for ch in letters) >= 2


def _check_entities(idx: _SourceIndex, s: Sentence, summary: ParsedText) -> tuple[list, int, int]:
    findings, checked, unsettled = [], 0, 0
    for item in s.of_kind(tx.ENTITY):
        own = tx.terms(item.text)
        query = s.terms - own
        supported = tx.entity_supported(item, idx.doc)
        swap: tuple[Item, str] | None = None
        for sc, ref in idx.best_clauses(query or s.terms, k=1):
            sentence = idx.doc.sentences[ref.sentence]
            in_clause = [e for e in sentence.of_kind(tx.ENTITY) if ref.clause.start <= e.start < ref.clause.end
                         and e.unit != tx.OPENER and not _mentioned(e, summary)]
            if not in_clause:
                continue
            same_shape = [e for e in in_clause if e.unit == item.unit]
            if supported:
                # a name from elsewhere in the source put in this statement's slot: only on a strong match
                here = all(p in tx.name_tokens(sentence.text) for p in item.key.split())
                if sc >= 0.6 and same_shape and item.unit in ("person", "org") and not here:
                    swap = (same_shape[0], sentence.text)
            elif sc >= 0.3 and item.unit != tx.OPENER and not _acronym(item.text):
                swap = ((same_shape or in_clause)[0], sentence.text)
        if swap:
            other, src_text = swap
            findings.append(_Finding("entity_swap", _phrase(s.text, item), _phrase(src_text, other),
                                     f"the summary names {item.text!r} where the source names {other.text!r}"))
        elif supported:
            checked += 1
        elif item.unit == tx.OPENER or _acronym(item.text):
            unsettled += 1  # "Data had ...", "ER patients": a plain word or an expansion the rules cannot check
        else:
            unsettled += 1
            findings.append(_Finding("unsupported_entity", _phrase(s.text, item), "",
                                     f"the name {item.text!r} does not appear in the source"))
    return findings, checked, unsettled


# a clause that leans on the one before it for its verb and its polarity
_FRAGMENT = re.compile(r"\W*(?:after|before|since|as|with|while|because|due\s+to|which|who|leaving|despite|"
                       r"although|though|when|until|following|amid)\b", re.IGNORECASE)


def _flipped(a: Clause, b: Clause) -> bool:
    """One side negates and the other states plainly. A negating word ("rejected", "unchanged") on the
    plain side says the same thing another way, so it is no flip."""
    if a.negated == b.negated:
        return False
    plain = b if a.negated else a
    return not plain.negative_word


def _check_polarity(idx: _SourceIndex, s: Sentence) -> tuple[list, int]:
    findings, checked = [], 0
    # names align any two sentences about the same company; the statement is in the other words
    names = frozenset().union(*(tx.terms(e.text) for e in s.of_kind(tx.ENTITY)))
    for clause in s.clauses:
        if len(clause.terms) < 2:
            continue
        ranked = idx.best_clauses(clause.terms, k=4)
        if not ranked:
            continue
        top, ref = ranked[0]
        shared = clause.terms & ref.clause.terms
        runner_up = ranked[1][0] if len(ranked) > 1 else 0.0
        # the same statement: a good match, or a fair one that no other source clause comes near; and
        # more in common than a name
        if not shared - names or not ((top >= 0.5 and len(shared) >= 2) or
                                      (top >= 0.35 and len(shared) >= 3 and top >= 2 * runner_up)):
            continue
        if not _flipped(clause, ref.clause):
            checked += 1
            continue
        if not clause.negated and (_FRAGMENT.match(clause.text) or any(
                c is not clause and c.negated and len(c.terms & ref.clause.terms) >= 2 for c in s.clauses)):
            # An adjunct ("due to the solar cell, voice feature") states nothing on its own, and a sentence
            # that negates in another clause may carry the negation there ("X was not seen as a threat
            # until 1997, after an outbreak").
            continue
        # Another source statement near as close that agrees with the summary: the source says both, no
        # flip. A "not" the summary adds usually paraphrases a negation stated elsewhere in other words,
        # so that direction needs a clearer winner than a "not" the summary drops.
        margin = 0.5 if clause.negated else 0.85
        if any(sc >= margin * top and not _flipped(clause, r.clause) for sc, r in ranked[1:]):
            continue
        said, unsaid = ("negates", "states") if clause.negated else ("states", "negates")
        findings.append(_Finding("negation_flip", clause.text, ref.clause.text,
                                 f"the summary {said} what the source {unsaid}"))
    return findings, checked


def _check_quantifiers(idx: _SourceIndex, s: Sentence) -> list:
    findings = []
    for item in s.of_kind(tx.QUANTIFIER):
        clause = _clause_of(s, item)
        ranked = idx.best_clauses(clause.terms, k=1)
        if not ranked or ranked[0][0] < 0.4:
            continue
        ref = ranked[0][1]
        sentence = idx.doc.sentences[ref.sentence]
        theirs = [q for q in sentence.of_kind(tx.QUANTIFIER) if ref.clause.start <= q.start < ref.clause.end]
        if not theirs or any(q.strength == item.strength for q in theirs):
            continue
        q = theirs[0]
        # Stronger than the source is an overclaim. Weaker is still supported by the source, so it is a
        # factual slip only when it drops two steps ("all" -> "most") and one a later tier may overrule.
        if item.strength > q.strength:
            findings.append(_Finding("quantifier_mismatch", _phrase(s.text, item), _phrase(sentence.text, q),
                                     f"the summary's {item.text!r} claims more than the source's {q.text!r}"))
        elif item.strength <= q.strength - 2:
            findings.append(_Finding("quantifier_understated", _phrase(s.text, item), _phrase(sentence.text, q),
                                     f"the summary's {item.text!r} claims less than the source's {q.text!r}",
                                     confident=False))
    return findings


def _check_causal(idx: _SourceIndex, s: Sentence) -> tuple[list, bool]:
    """A 'because' / 'as a result' the source does not state. Returns the findings and whether the
    link rests only on looser source wording ("after", "when") inside one sentence."""
    cues = s.of_kind(tx.CAUSAL)
    if not cues:
        return [], False
    cue = cues[0]
    parts = [tx.terms(p) for p in (s.text[:cue.start], s.text[cue.end:])]
    if not all(len(p) >= 2 for p in parts):  # "because of it": no two statements to place, use the whole
        parts = [s.terms]
    anchors = sorted({ranked[0][1] for p in parts for ranked in [idx.best_sentences(p, k=1)] if ranked})
    if not anchors:
        return [_Finding("added_causal_link", s.text, "", f"the summary links statements with {cue.text!r} "
                                                        f"that the source does not make")], False
    # the two halves come from one source sentence, or from sentences close together
    span = range(anchors[0], anchors[-1] + 1) if anchors[-1] - anchors[0] <= 2 else anchors
    texts = [idx.doc.sentences[i].text for i in span]
    if any(tx.causal_cue(t) for t in texts):
        return [], False
    if any(tx.causal_cue(t, strength="reason") for t in texts) or (
            len(anchors) == 1 and tx.causal_cue(texts[0], strength="sequence")):
        return [], True  # "banned over security concerns", "errors began after the deploy": suggested
    quoted = " … ".join(idx.doc.sentences[i].text for i in anchors)
    return [_Finding("added_causal_link", s.text, quoted,
                     f"the summary links two statements with {cue.text!r} but the source states no cause")], False


@lru_cache(maxsize=128)
def _analyze(source: str, summary: str) -> _Analysis:
    idx = _index(source)
    doc = tx.parse(summary, context=source)
    numeric = doc.items(*tx.NUMERIC_KINDS)
    keys = frozenset(i.key for i in doc.items(tx.DATE))
    claims = []
    for s in doc.sentences:
        numbers, dates = _check_numbers(idx, s, numeric), _check_dates(idx, s, keys)
        names = _check_entities(idx, s, doc)
        polarity, polarity_checked = _check_polarity(idx, s)
        causal, weak = _check_causal(idx, s)
        found = numbers[0] + dates[0] + names[0] + polarity + _check_quantifiers(idx, s) + causal
        checked = numbers[1] + dates[1] + names[1] + polarity_checked
        unsettled = numbers[2] + dates[2] + names[2]
        claims.append(_Claim(s.text, idx.score(s.terms, idx.doc.terms), checked, unsettled, tuple(found), weak))
    weights = [max(len(c.text.split()), 1) for c in claims]
    support = sum(c.support * w for c, w in zip(claims, weights)) / sum(weights) if claims else 0.0
    return _Analysis(tuple(claims), support)


# ---------------------------------------------------------------- conciseness lexicons

# Padding that says nothing about the source. Strong phrases count 1, weak ones 0.5; 1 or more pads.
_FILLER_STRONG = [
    r"it\s+is\s+(?:important|worth|crucial|essential|interesting|vital|key)\s+to\s+(?:note|mention|highlight|"
    r"point\s+out|remember|emphasi[sz]e|stress|understand|recogni[sz]e)(?:\s+that)?",
    r"it['’]s\s+(?:important|worth|crucial|essential|interesting|vital)\s+(?:to\s+)?(?:note|noting|mention|"
    r"mentioning|highlight|highlighting|point(?:ing)?\s+out|remember|emphasi[sz]e)(?:\s+that)?",
    r"it\s+is\s+worth\s+(?:noting|mentioning|highlighting|pointing\s+out|remembering)(?:\s+that)?",
    r"it\s+should\s+be\s+(?:noted|mentioned|emphasi[sz]ed|stressed|remembered)(?:\s+that)?",
    r"it\s+(?:must|bears)\s+(?:be\s+)?(?:noted|mentioning|repeating|emphasi[sz]ing)(?:\s+that)?",
    r"needless\s+to\s+say", r"it\s+goes\s+without\s+saying(?:\s+that)?", r"at\s+the\s+end\s+of\s+the\s+day",
    r"all\s+things\s+considered", r"when\s+all\s+is\s+said\s+and\s+done",
    r"in\s+today['’]s\s+(?:[\w-]+\s+){0,3}(?:world|landscape|environment|era|age|climate|society|economy|market|"
    r"times|context)",
    r"in\s+this\s+day\s+and\s+age", r"in\s+an\s+(?:ever[-\s]changing|increasingly\s+[\w-]+)\s+world",
    r"in\s+conclusion", r"to\s+conclude", r"in\s+summary", r"to\s+summari[sz]e", r"to\s+sum\s+(?:it\s+|things\s+)?up",
    r"in\s+a\s+nutshell", r"all\s+in\s+all", r"in\s+short,", r"long\s+story\s+short", r"first\s+and\s+foremost",
    r"last\s+but\s+not\s+least", r"as\s+a\s+matter\s+of\s+fact", r"for\s+all\s+intents\s+and\s+purposes",
    r"the\s+fact\s+of\s+the\s+matter\s+is", r"the\s+bottom\s+line\s+is", r"interestingly\s+enough",
    r"as\s+(?:previously|already)\s+(?:mentioned|noted|stated|discussed)",
    r"as\s+(?:mentioned|noted|stated|discussed)\s+(?:earlier|above|before|previously)",
    r"as\s+(?:we|you)\s+can\s+see", r"it\s+is\s+(?:clear|evident|obvious|apparent)\s+that",
    r"the\s+key\s+takeaways?\s+(?:is|are|here)", r"with\s+that\s+(?:being\s+)?said", r"that\s+being\s+said",
    r"having\s+said\s+that", r"truth\s+be\s+told", r"to\s+be\s+(?:honest|fair|clear),",
    r"it['’]s\s+no\s+secret\s+that", r"plays?\s+an?\s+(?:crucial|vital|key|pivotal|critical|significant)\s+role",
    r"a\s+testament\s+to", r"(?:delve|delves|delving)\s+(?:deep(?:er|ly)?\s+)?into",
    r"navigat(?:e|es|ing)\s+the\s+(?:complexities|intricacies)", r"ever[-\s]evolving", r"in\s+the\s+realm\s+of",
    r"at\s+this\s+point\s+in\s+time", r"each\s+and\s+every", r"without\s+further\s+ado",
    r"let['’]s\s+(?:take\s+a\s+(?:closer\s+)?look|dive\s+in|break\s+(?:it|this)\s+down)",
    r"it\s+is\s+(?:also\s+)?(?:noteworthy|notable)\s+that", r"one\s+thing\s+is\s+(?:clear|certain)",
    r"only\s+time\s+will\s+tell", r"it\s+remains\s+to\s+be\s+seen",
    r"the\s+(?:long|short)\s+and\s+(?:short|long)\s+of\s+it",
]
_FILLER_WEAK = [
    r"(?:^|(?<=[.!?]\s))(?:overall|ultimately|essentially|basically|notably|importantly|interestingly|"
    r"significantly|indeed|clearly|obviously|actually|in\s+fact|of\s+note|going\s+forward|moving\s+forward|"
    r"in\s+essence|in\s+other\s+words|on\s+the\s+whole|by\s+and\s+large|in\s+general|generally\s+speaking|"
    r"simply\s+put|put\s+simply|of\s+course),",
    r"when\s+it\s+comes\s+to", r"in\s+terms\s+of", r"at\s+this\s+time", r"as\s+a\s+whole", r"very\s+much",
    r"really", r"quite\s+(?:simply|frankly)", r"in\s+order\s+to", r"the\s+fact\s+that",
]
# one pass per weight, on lowercased text (IGNORECASE only where lowercasing changes the length)
_FILLER_PATTERNS = ((r"\b(?:" + "|".join(_FILLER_STRONG) + ")", 1.0),
                    ("|".join(p if p.startswith("(?:^") else r"\b" + p + r"\b" for p in _FILLER_WEAK), 0.5))
_FILLER_RES = tuple((re.compile(p, re.MULTILINE), re.compile(p, re.MULTILINE | re.IGNORECASE), w)
                    for p, w in _FILLER_PATTERNS)
# An assistant talking to the requester rather than summarizing. Interjections need their punctuation,
# so "Great Lakes shipping fell" is not a preamble.
_PREAMBLE_RE = re.compile("|".join(f"(?:{p})" for p in (
    r"^\W*(?:sure(?:\s+thing)?|certainly|of\s+course|absolutely|okay|ok|alright|great(?:\s+question)?|"
    r"no\s+problem|gladly)\s*[!,.:;—-]",
    r"^\W*(?:happy\s+to\s+help|glad\s+to\s+help|i['’]d\s+be\s+(?:happy|glad)\s+to)\b",
    r"^\W*(?:here(?:['’]s|\s+is|\s+are)|below\s+(?:is|are)|the\s+following\s+is|what\s+follows\s+is)\b[^.\n]{0,80}?"
    r"\b(?:summary|summari[sz]ed|overview|recap|rundown|breakdown|key\s+points|highlights|tl;?dr|synopsis|digest|"
    r"main\s+points)",
    r"^\W*(?:i(?:['’]ve|\s+have)?\s+(?:summari[sz]ed|condensed|read\s+through|reviewed)|as\s+requested|"
    r"as\s+you\s+asked|in\s+response\s+to\s+your\s+request)",
)), re.IGNORECASE)
_CLOSER_RE = re.compile("|".join((
    r"\b(?:i\s+)?hope\s+(?:this|that|it)\s+helps\b", r"\blet\s+me\s+know\s+(?:if|whether|what|how)\b",
    r"\bfeel\s+free\s+to\s+(?:ask|reach|let|get\s+in\s+touch)\b", r"\bwould\s+you\s+like\s+(?:me\s+to|more)\b",
    r"\bdo\s+you\s+want\s+me\s+to\b", r"\bshall\s+i\b",
    r"\bif\s+you\s+(?:have|need)\s+any\s+(?:other\s+|more\s+|further\s+)?(?:questions|help|clarification|details)\b",
    r"\b(?:i['’]m|i\s+am|i['’]d\s+be)\s+(?:happy|glad)\s+to\s+(?:help|elaborate|expand|clarify|provide|assist)\b",
    r"\bis\s+there\s+anything\s+else\b", r"\bi\s+can\s+(?:also\s+)?(?:provide|expand|elaborate|go\s+into)\b",
    r"\bjust\s+(?:let\s+me\s+know|ask)\b",
)), re.IGNORECASE)


# ---------------------------------------------------------------- the judge


class RulesJudge:
    """Deterministic judge for all four rubrics.

        RulesJudge().judge("conciseness", SummaryCase(source=doc, summary="Sure! Here's a summary: ..."))
        # RubricResult(verdict="padded", failure_mode="chatty_preamble", confident=True, ...)
    """

    tier = RULES
    version = "rules-1"

    def judge(self, rubric: str, case: SummaryCase) -> RubricResult:
        source, summary = detokenize(case.source), detokenize(case.summary)
        if source is not case.source or summary is not case.summary:
            case = replace(case, source=source, summary=summary)
        if rubric == CONCISENESS:
            return self._conciseness(case)
        if rubric == FACTUALITY:
            return self._factuality(case)
        if rubric == GROUNDEDNESS:
            return self._groundedness(case)
        if rubric == COMPLETENESS:
            return self._completeness(case)
        raise ValueError(f"unknown rubric {rubric!r} (rubrics: {GROUNDEDNESS}, {COMPLETENESS}, {FACTUALITY}, "
                         f"{CONCISENESS})")

    def _result(self, rubric: str, verdict: str, **kw: Any) -> RubricResult:
        return RubricResult.make(rubric, verdict, tier=RULES, judge_version=self.version, **kw)

    # ------------------------------------------------------------ factuality

    def _factuality(self, case: SummaryCase) -> RubricResult:
        analysis = _analyze(case.source, case.summary)
        findings = [(c, f) for c in analysis.claims for f in c.findings if f.mode in _FACT_VERDICT]
        if findings:
            claim, first = findings[0]
            others = len(findings) - 1
            more = f" ({others} more mismatch{'es' if others > 1 else ''})" if others else ""
            return self._result(
                FACTUALITY, _FACT_VERDICT[first.mode], failure_mode=_FACT_MODE.get(first.mode, first.mode),
                evidence=first.evidence, explanation=f"In {_q(claim.text, 80)}, {first.note}{more}.",
                confident=first.confident,
                details=tuple({"claim": c.text, "status": _FACT_VERDICT[f.mode],
                               "failure_mode": _FACT_MODE.get(f.mode, f.mode), "evidence": f.evidence}
                              for c, f in findings))
        checked = sum(c.checked for c in analysis.claims)
        unsettled = sum(c.unsettled for c in analysis.claims)
        confident = unsettled == 0 and checked > 0 and analysis.support >= 0.7
        why = (f"All {checked} checkable items (numbers, names, dates, negations) agree with the source"
               if confident else f"No mismatch in {checked} checkable items, but {unsettled} could not be checked "
                                 f"and lexical support is {analysis.support:.2f}")
        return self._result(FACTUALITY, "correct", explanation=f"{why}.", confident=confident)

    # ------------------------------------------------------------ groundedness

    def _groundedness(self, case: SummaryCase) -> RubricResult:
        analysis = _analyze(case.source, case.summary)
        rows: list[dict[str, Any]] = []
        contradicted, unsupported = [], []
        for c in analysis.claims:
            hard = [f for f in c.findings if f.mode in _CONTRADICTIONS]
            soft = [f for f in c.findings if f.mode not in _CONTRADICTIONS and f.mode not in _NOT_GROUNDEDNESS]
            if hard:
                status, f = "contradicted", hard[0]
                contradicted.append((c, f))
            elif soft:
                status, f = "unsupported", soft[0]
                unsupported.append((c, f))
            else:
                status, f = "supported", None
            rows.append({"claim": c.text, "status": status, "evidence": f.evidence if f else "",
                         "failure_mode": (_GROUND_MODE.get(f.mode, f.mode) if f else "")})
        n = max(len(analysis.claims), 1)
        if contradicted:
            c, f = contradicted[0]
            return self._result(GROUNDEDNESS, "contradicted", failure_mode="contradicted_claim", evidence=f.evidence,
                                explanation=f"{len(contradicted)} of {n} claims contradict the source: {f.note}.",
                                confident=True, details=tuple(rows))
        if unsupported:
            c, f = unsupported[0]
            share = len(unsupported) / n
            verdict = "missing" if share > 0.5 else "partial"
            score = max(0.05, 0.35 - 0.3 * share) if verdict == "missing" else max(0.3, min(0.8, 1 - share))
            return self._result(GROUNDEDNESS, verdict, score=score, failure_mode=_GROUND_MODE.get(f.mode, f.mode),
                                evidence=f.evidence,
                                explanation=f"{len(unsupported)} of {n} claims go beyond the source: {f.note}.",
                                confident=all(x.confident for _, x in unsupported), details=tuple(rows))
        weak = any(c.weak_cause for c in analysis.claims)
        confident = analysis.support >= 0.85 and not weak and all(c.unsettled == 0 for c in analysis.claims)
        return self._result(GROUNDEDNESS, "supported", confident=confident, details=tuple(rows),
                            explanation=f"No claim brings numbers, names or causes the source lacks; lexical "
                                        f"support {analysis.support:.2f}.")

    # ------------------------------------------------------------ completeness

    def _completeness(self, case: SummaryCase) -> RubricResult:
        band = band_for(case.band)
        words = tx.word_count(case.summary)
        if band and words < band.min_words / 2:
            return self._result(COMPLETENESS, "absent", failure_mode="under_band_length", confident=True,
                                evidence=f"summary: {words} words | band {band.name}: "
                                         f"{band.min_words}-{band.max_words}",
                                explanation=f"At {words} words the summary is under half the {band.name} minimum "
                                            f"of {band.min_words}; it cannot cover the source.")
        if not case.expected_facts:
            return self._result(COMPLETENESS, "present", confident=False,
                                explanation="No expected facts to check; coverage is left to a later tier.")
        summary = tx.parse(case.summary, context=case.source)
        numeric = summary.items(*tx.NUMERIC_KINDS)
        dates = frozenset(i.key for i in summary.items(tx.DATE))
        rows = [_fact_status(fact, summary, numeric, dates) for fact in case.expected_facts]
        statuses = [r["status"] for r in rows]
        # Expected facts list what a summary should carry, but a short band cannot hold every one: leaving
        # out a minority of them reads as approximate; leaving out half or more is a summary that is absent.
        absent_share = statuses.count("absent") / len(statuses)
        verdict = ("absent" if absent_share >= 0.5 else
                   "approximate" if "absent" in statuses or "approximate" in statuses else "present")
        score = sum({"present": 1.0, "approximate": 0.6, "absent": 0.0}[s] for s in statuses) / len(statuses)
        if verdict == "absent":
            score = min(score, 0.45)
        confident = all(r["checkable"] or r["decisive"] for r in rows)
        missing = [r for r in rows if r["status"] != "present"]
        mode = "missing_expected_fact" if verdict == "absent" else ""  # approximate passes: no failure mode
        evidence = "; ".join(f'fact: {_q(r["fact"], 100)} -> {r["status"]}' for r in missing[:3])
        tally = ", ".join(f"{statuses.count(k)} {k}" for k in ("present", "approximate", "absent") if k in statuses)
        return self._result(COMPLETENESS, verdict, score=score, failure_mode=mode, evidence=evidence,
                            explanation=f"Of {len(rows)} expected facts in the summary: {tally}.", confident=confident,
                            details=tuple({k: v for k, v in r.items() if k not in ("checkable", "decisive")}
                                          for r in rows))

    # ------------------------------------------------------------ conciseness

    def _conciseness(self, case: SummaryCase) -> RubricResult:
        issues = _concision_issues(case.source, case.summary, band_for(case.band))
        if not issues:
            return self._result(CONCISENESS, "concise", confident=True,
                                explanation="Within its length band, no padding, hedging or copied runs.")
        rank = {"bloated": 0, "under_compressed": 1, "padded": 2, "concise": 3}
        issues.sort(key=lambda i: (rank[i.verdict], -i.severity))
        top = issues[0]
        penalty = sum(i.severity for i in issues[1:]) * 0.05
        score = max(0.05, top.score - penalty)
        others = "; also " + ", ".join(sorted({i.mode for i in issues[1:]} - {top.mode})) if len(issues) > 1 else ""
        if top.verdict == "concise":  # only slightly long: noted in the score, not a failure
            return self._result(CONCISENESS, "concise", score=score, confident=True, evidence=top.evidence,
                                explanation=top.note + ".", details=tuple(i.row() for i in issues))
        return self._result(CONCISENESS, top.verdict, score=score, failure_mode=top.mode, evidence=top.evidence,
                            explanation=f"{top.note}{others}.", confident=True,
                            details=tuple(i.row() for i in issues))


# ---------------------------------------------------------------- completeness, per fact


_FACT_KINDS = tx.NUMERIC_KINDS | {tx.DATE, tx.ENTITY}


def _fact_status(fact: str, summary: ParsedText, summary_numeric: tuple[Item, ...],
                 summary_dates: frozenset[str]) -> dict[str, Any]:
    items = tx.extract_items(fact, kinds=_FACT_KINDS)  # a fact is one statement: no sentence split needed
    numeric = [i for i in items if i.kind in tx.NUMERIC_KINDS]
    dates = [i for i in items if i.kind == tx.DATE]
    names = [i for i in items if i.kind == tx.ENTITY]
    fact_terms = tx.terms(fact)
    found, missing = [], []
    for item in numeric:
        (found if any(tx.values_match(item, y) for y in summary_numeric) else missing).append(item.text)
    for item in dates:
        (found if tx.date_supported(item.key, summary_dates) else missing).append(item.text)
    for item in names:
        (found if tx.entity_supported(item, summary) else missing).append(item.text)
    content = {t for t in fact_terms if not t[0].isdigit()}
    coverage = len(content & summary.terms) / len(content) if content else 0.0
    hard = len(found) + len(missing)
    if hard:
        if not missing:
            status = "present" if coverage >= 0.3 else "approximate"
        elif not found:
            status = "approximate" if coverage >= 0.5 else "absent"
        else:
            status = "approximate"
    else:
        status = "present" if coverage >= 0.6 else "approximate" if coverage >= 0.3 else "absent"
    return {"fact": fact, "status": status, "found": tuple(found), "missing": tuple(missing),
            "coverage": round(coverage, 2), "checkable": hard > 0, "decisive": coverage >= 0.8 or coverage <= 0.1}


# ---------------------------------------------------------------- conciseness, issue by issue


@dataclass(frozen=True)
class _Issue:
    verdict: str
    mode: str
    evidence: str
    note: str
    score: float
    severity: float = 1.0

    def row(self) -> dict[str, Any]:
        return {"issue": self.mode, "verdict": self.verdict, "evidence": self.evidence}


_NOT_ALNUM_RE = re.compile(r"[^a-z0-9]+")


def _longest_copied_run(summary: str, idx: _SourceIndex) -> tuple[int, str]:
    """Longest run of summary words (lowercased, punctuation stripped) that the source has word for word."""
    pairs = [(t, n) for t in summary.split() for n in [_NOT_ALNUM_RE.sub("", t.lower())] if n]
    raw, norm = [t for t, _ in pairs], [n for _, n in pairs]
    def copied(at: int) -> bool:
        return " " + " ".join(norm[at:at + VERBATIM_RUN]) + " " in idx.flat

    best_len, best_at, i = 0, 0, 0
    while i <= len(norm) - VERBATIM_RUN:
        if copied(i):
            j = i + 1
            while j <= len(norm) - VERBATIM_RUN and copied(j):
                j += 1
            length = j - i + VERBATIM_RUN - 1
            if length > best_len:
                best_len, best_at = length, i
            i = j
        else:
            i += 1
    return best_len, " ".join(raw[best_at:best_at + best_len]) if best_len else ""


def _concision_issues(source: str, summary: str, band: Band | None) -> list[_Issue]:
    issues: list[_Issue] = []
    words = tx.word_count(summary)
    source_words = max(tx.word_count(source), 1)
    ratio = words / source_words
    if band:
        if words > band.max_words * BLOAT_FACTOR:
            issues.append(_Issue("bloated", "over_band_length",
                                 f"summary: {words} words | band {band.name}: at most {band.max_words}",
                                 f"At {words} words the summary is over {BLOAT_FACTOR:g}x the {band.name} maximum "
                                 f"of {band.max_words}", max(0.05, 0.25 * band.max_words * BLOAT_FACTOR / words)))
        elif ratio > band.max_ratio:
            issues.append(_Issue("under_compressed", "low_compression",
                                 f"summary: {words} words | source: {source_words} words (ratio {ratio:.2f})",
                                 f"The summary keeps {ratio:.0%} of the source's length; {band.name} allows at most "
                                 f"{band.max_ratio:.0%}", max(0.05, 0.4 * band.max_ratio / ratio)))
        elif words > band.max_words:
            issues.append(_Issue("concise", "over_band_length",
                                 f"summary: {words} words | band {band.name}: at most {band.max_words}",
                                 f"At {words} words the summary runs a little over the {band.name} maximum of "
                                 f"{band.max_words}", 0.85, severity=0.5))
    idx = _index(source)
    run, copied = _longest_copied_run(summary, idx)
    if run >= VERBATIM_RUN:
        issues.append(_Issue("under_compressed", "verbatim_copy", f"summary: {_q(copied)} | source: {_q(copied)}",
                             f"The summary copies {run} consecutive words from the source",
                             max(0.1, 0.4 - 0.03 * (run - VERBATIM_RUN)), severity=run / VERBATIM_RUN))
    head = summary.strip()[:240]
    m = _PREAMBLE_RE.search(head)
    if m:
        line = head.split("\n", 1)[0] if "\n" in head else tx.split_sentences(head)[0]
        issues.append(_Issue("padded", "chatty_preamble", f"summary: {_q(line)}",
                             f"The summary opens with an assistant-style preamble ({m.group(0).strip()!r})", 0.6))
    m = _CLOSER_RE.search(summary)
    if m:
        sentence = next((s for s in tx.split_sentences(summary) if m.group(0) in s), m.group(0))
        issues.append(_Issue("padded", "chatty_preamble", f"summary: {_q(sentence)}",
                             f"The summary ends with an assistant-style offer ({m.group(0).strip()!r})", 0.6))
    low = summary.lower()
    same = len(low) == len(summary)
    fillers = [(summary[m.start():m.end()].strip(" ,"), w) for fast, slow, w in _FILLER_RES
               for m in (fast.finditer(low) if same else slow.finditer(summary))]
    weight = sum(w for _, w in fillers)
    if weight >= 1.0:
        phrases = ", ".join(_q(p, 50) for p, _ in fillers[:4])
        issues.append(_Issue("padded", "filler_phrases", f"summary: {phrases}",
                             f"The summary carries filler that adds nothing ({len(fillers)} phrase"
                             f"{'s' if len(fillers) > 1 else ''})", max(0.3, 0.7 - 0.1 * (weight - 1)),
                             severity=weight))
    summary_doc = tx.parse(summary, context=source)
    for s in summary_doc.sentences:
        hedges = s.of_kind(tx.HEDGE)
        if len(hedges) >= HEDGES_PER_SENTENCE:
            ranked = idx.best_sentences(s.terms, k=1)
            src = idx.doc.sentences[ranked[0][1]].text if ranked else ""
            listed = ", ".join(h.text.lower() for h in hedges)
            issues.append(_Issue("padded", "hedging", _versus(s.text, src),
                                 f"One sentence stacks {len(hedges)} hedges ({listed})",
                                 max(0.3, 0.65 - 0.05 * (len(hedges) - HEDGES_PER_SENTENCE)),
                                 severity=len(hedges) / HEDGES_PER_SENTENCE))
            break
    repeat = _repeated_fact(summary_doc)
    if repeat:
        a, b = repeat
        issues.append(_Issue("padded", "repeated_fact", f"summary: {_q(a)} | summary: {_q(b)}",
                             "Two parts of the summary state the same fact", 0.6))
    return issues


def _repeated_fact(doc: ParsedText) -> tuple[str, str] | None:
    sentences = [s for s in doc.sentences if len(s.terms) >= 4]
    for i, a in enumerate(sentences):
        for b in sentences[i + 1:]:
            shared = len(a.terms & b.terms)
            if shared / min(len(a.terms), len(b.terms)) >= 0.75 and shared / len(a.terms | b.terms) >= 0.5:
                return a.text, b.text
    return None
