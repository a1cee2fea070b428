"""Claim analysis shared by factuality, groundedness and completeness: numbers, dates, names, negations,
quantifiers and causal links of each summary sentence checked against the source."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from .. import text as tx
from ..text import Clause, Item, ParsedText, Sentence
from .source import SourceIndex, index_source, versus

# Failure modes that say a claim disagrees with the source (groundedness: contradicted); the others
# say it goes beyond the source (groundedness: partial or missing).
CONTRADICTIONS = frozenset({"number_mismatch", "percentage_mismatch", "unit_mismatch", "date_mismatch",
                             "entity_swap", "negation_flip"})
# How exact each finding is, most exact first: which one a rubric reports when a summary has several. A
# figure, date or name the source states otherwise, then a name the source lacks; the rest (2) are read
# from wording and go wrong more often (a negation paraphrased, a cause the source implies).
EXACT = {"number_mismatch": 0, "percentage_mismatch": 0, "unit_mismatch": 0, "date_mismatch": 0,
         "entity_swap": 0, "unsupported_entity": 1}
# Which factuality verdict each mismatch maps to. A quantifier ("all" where the source says "most")
# misstates how many, so it is reported as a numeric error: polarity_wrong is kept for negation and
# entity_wrong for names, so each verdict keeps one meaning for clustering.
FACT_VERDICT = {"number_mismatch": "numerically_wrong", "percentage_mismatch": "numerically_wrong",
                 "unit_mismatch": "numerically_wrong", "quantifier_mismatch": "numerically_wrong",
                 "quantifier_understated": "numerically_wrong", "date_mismatch": "temporal_wrong",
                 "entity_swap": "entity_wrong", "negation_flip": "polarity_wrong"}
# internal finding names -> the failure mode each rubric reports
FACT_MODE = {"quantifier_understated": "quantifier_mismatch"}
GROUND_MODE = {"quantifier_mismatch": "overgeneralized_quantifier"}
NOT_GROUNDEDNESS = frozenset({"quantifier_understated"})  # a weaker claim is still one the source supports


@dataclass(frozen=True)
class _Finding:
    mode: str  # failure mode name
    summary_phrase: str
    source_phrase: str
    note: str  # one clause of explanation
    confident: bool = True

    @property
    def evidence(self) -> str:
        return versus(self.summary_phrase, self.source_phrase)


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


def _same_unit(a: Item, b: Item) -> bool:
    # counted nouns are stems: "failures" and "failed requests" count the same thing
    return bool(a.unit) and bool(b.unit) and (a.unit == b.unit or a.unit[:4] == b.unit[:4])


def _same_role(a: Item, a_text: str, b: Item, b_text: str) -> bool:
    """Amounts that could state the same kind of thing: an age with an age only, a share with a share."""
    return tx.is_age(a_text, a) == tx.is_age(b_text, b) and _comparable(a, b)


def _about_same(item: Item, text: str, y: Item, y_text: str, strong: bool) -> bool:
    """Whether source amount ``y`` states what summary amount ``item`` states, up to its value: the same
    role, and a word around it besides the counted nouns in common ("revenue rose 21%" for "revenue rose
    12%"), or the same unit or counted noun where the summary restates the statement closely (``strong``)
    or states a share, sum or measure. "Two students taken to hospital" is no restatement of "a school of
    900 students" nearby, nor "31" of "the age of 12"."""
    if not _same_role(item, text, y, y_text):
        return False
    if tx.is_age(y_text, y):
        return True
    mine, theirs = _local_terms(text, item), _local_terms(y_text, y)
    nouns = {item.unit, y.unit} - {""}
    # "56 new nurse hires" and "65 registered nurses" count nurses both
    same_noun = _same_unit(item, y) or bool({item.unit, tx.stem(item.unit)} & theirs) or bool(
        {y.unit, tx.stem(y.unit)} & mine)
    shared = (mine - nouns) & (theirs - nouns)
    counted = not item.dimension and not y.dimension and item.kind == y.kind == tx.QUANTITY
    if counted and not same_noun and len(shared) < 2:
        # "40 beds" and "40 nurses"; but "354 people with chronic migraine" restates "590 adults with
        # chronic migraine", the same count in other words
        return False
    if item.kind == tx.NUMBER and y.kind == tx.QUANTITY and not y.dimension and not same_noun:
        return False  # a vote of "10-2" is no count of the "two-lane" bridge: the counted noun is not near
    if bool(item.dimension) != bool(y.dimension) and not same_noun:
        return False  # "on air six days a week" and "on BBC2 from 1200": a number with no unit near
    if shared:
        return True
    return same_noun and (strong or item.kind != tx.QUANTITY or bool(item.dimension))


def _check_numbers(idx: SourceIndex, s: Sentence, summary_numeric: tuple[Item, ...]) -> tuple[list[Any], int, int]:
    findings, checked, unsettled = [], 0, 0
    for item in s.of_kind(*tx.NUMERIC_KINDS):
        ranked = idx.best_sentences(_context_terms(s, item), k=2)
        aligned = [i for sc, i in ranked if sc >= 0.3]
        where = idx.sentences_stating(item)
        if where & set(aligned) or (where and not aligned):
            checked += 1
            continue
        counted = tx.is_age(s.text, item) or item.kind == tx.NUMBER or (item.kind == tx.QUANTITY
                                                                        and not item.dimension)
        if counted and any(_about_same(item, s.text, y, idx.doc.sentences[i].text, strong=False) for i in where
                           for y in idx.doc.sentences[i].of_kind(*tx.NUMERIC_KINDS) if tx.values_match(item, y)):
            # The source states this age or count in the same role elsewhere ("two students", "the
            # 31-year-old"): it is accounted for, whatever other amount the closest statement holds. A
            # price or share the source states for something else may still be in the wrong place.
            checked += 1
            continue
        pool = [(i, y) for i in aligned for y in idx.doc.sentences[i].of_kind(*tx.NUMERIC_KINDS)]
        if _derived(item, [y for _, y in pool if _family(y) == _family(item)]):
            unsettled += 1
            continue
        # A rival is an amount the summary may have changed: the same role, and about the same thing
        # ("revenue rose 21%" for "revenue rose 12%"); "two students taken to hospital" is no restatement
        # of "a school of 900 students" nearby. A source amount the summary states elsewhere is accounted
        # for; the one it dropped is the rival.
        strong = ranked[0][1] if ranked and ranked[0][0] >= 0.5 else -1
        rivals = [(i, y) for i, y in pool
                  if _about_same(item, s.text, y, idx.doc.sentences[i].text, strong=i == strong)
                  and not any(tx.values_match(y, z) for z in summary_numeric)]
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


def _check_dates(idx: SourceIndex, s: Sentence, summary_keys: frozenset[str]) -> tuple[list[Any], int, int]:
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


def _role_clash(idx: SourceIndex, s: Sentence, item: Item) -> tuple[str, str] | None:
    """A role the summary gives a source name that the source never gives it ("CEO Raj Menon" where the
    source says Raj Menon is the CFO): the summary's role and the source sentence naming the other."""
    said = tx.roles_near(s.text, item.start, item.end)
    if not said:
        return None
    surname = item.key.split()[-1]
    given: set[str] = set()
    where = ""
    for sentence in idx.doc.sentences:
        if surname not in tx.name_tokens(sentence.text):
            continue
        for e in sentence.of_kind(tx.ENTITY):
            if e.key.split()[-1] == surname:
                roles = tx.roles_near(sentence.text, e.start, e.end)
                if roles and not where:
                    where = sentence.text
                given |= roles
    if not given or said & given:
        return None
    return sorted(said)[0], where


def _check_entities(idx: SourceIndex, s: Sentence, summary: ParsedText) -> tuple[list[Any], int, int]:
    """Names: a name the source lacks is unsupported (never a swap: what stood in its slot may be a name of
    another kind, or the same thing put another way); a person the source names, put in the slot the source
    gives another person, is a swap; a role the source gives that person otherwise is a suspicion."""
    findings, checked, unsettled = [], 0, 0
    for item in s.of_kind(tx.ENTITY):
        supported = tx.entity_supported(item, idx.doc)
        if not supported:
            if item.unit == tx.OPENER or _acronym(item.text) or (item.unit == "person"
                                                                  and tx.same_person(item, idx.doc)):
                # "Data had ...", "ER patients", "Alex Salmond" for "Mr Salmond": a plain word, an expansion
                # or a first name the rules cannot check
                unsettled += 1
            else:
                there = _named_there(idx, s, item, summary)
                if there is not None:
                    # a name the source lacks, where the source names another of the same shape (a person
                    # for a person, an organisation for an organisation): a swap; of another kind it is not
                    findings.append(_Finding("entity_swap", _phrase(s.text, item), _phrase(there[1], there[0]),
                                             f"the summary names {item.text!r} where the source names "
                                             f"{there[0].text!r}"))
                    continue
                unsettled += 1
                findings.append(_Finding("unsupported_entity", _phrase(s.text, item), "",
                                         f"the name {item.text!r} does not appear in the source"))
            continue
        swap = _slot_swap(idx, s, item, summary)
        clash = _role_clash(idx, s, item) if item.unit == "person" else None
        if swap:
            other, src_text = swap
            findings.append(_Finding("entity_swap", _phrase(s.text, item), _phrase(src_text, other),
                                     f"the summary names {item.text!r} where the source names {other.text!r}"))
        elif clash:
            role, src_text = clash
            unsettled += 1
            findings.append(_Finding("unsupported_claim", _phrase(s.text, item), src_text,
                                     f"the summary calls {item.text!r} the {role.upper() if len(role) == 3 else role}"
                                     f", a role the source does not give that name", confident=False))
        else:
            checked += 1
    return findings, checked, unsettled


_RELATIVE = re.compile(r"\W*(?:which|who|whose)\b", re.IGNORECASE)


def _named_there(idx: SourceIndex, s: Sentence, item: Item, summary: ParsedText) -> tuple[Item, str] | None:
    """The name of the same kind the source states where the summary puts a name the source lacks: a person
    for a person, an organisation for an organisation, a plain name for a plain name, or whoever owns the
    same thing ("Rockhurst's council" where the source has the Ashbury City Council). A place is left out:
    a club for its ground, a town for its region may be the same thing named another way."""
    kind, owned = tx.name_kind(s.text, item), tx.possessed_noun(s.text, item)
    if kind not in ("person", "org", "other") and not owned:
        return None
    for sc, ref in idx.best_clauses((s.terms - tx.terms(item.text)) or s.terms, k=1):
        if sc < 0.3:
            return None
        sentence = idx.doc.sentences[ref.sentence]
        start = ref.clause.start
        if _RELATIVE.match(ref.clause.text):
            # "Vantor Medicines, which developed oriluzumab, said ...": the name the clause is about is before it
            start = max((c.start for c in sentence.clauses if c.start < start), default=start)
        for e in sentence.of_kind(tx.ENTITY):
            if not start <= e.start < ref.clause.end or _mentioned(e, summary) or _acronym(e.text):
                continue
            if (owned and tx.names_noun(sentence.text, e, owned)) or (
                    e.unit != tx.OPENER and tx.name_kind(sentence.text, e) == kind):
                return e, sentence.text
    return None


def _slot_swap(idx: SourceIndex, s: Sentence, item: Item, summary: ParsedText) -> tuple[Item, str] | None:
    """A person from elsewhere in the source put in this statement's slot, where the source names another
    person: only on a strong match, and only person for person (a club for its ground, a body for its
    spokesman are the same actor named another way)."""
    if item.unit != "person" or not _mentioned(item, idx.doc):  # "Lib Dem" is "Liberal Democrat" clipped
        return None
    own = tx.terms(item.text)
    query = s.terms - own
    for sc, ref in idx.best_clauses(query or s.terms, k=1):
        if sc < 0.6:
            return None
        sentence = idx.doc.sentences[ref.sentence]
        if all(p in tx.name_tokens(sentence.text) for p in item.key.split()):
            return None
        surname = item.key.split()[-1]
        rivals = [e for e in sentence.of_kind(tx.ENTITY) if ref.clause.start <= e.start < ref.clause.end
                  and e.unit == "person" and not _mentioned(e, summary) and e.key.split()[-1] != surname]
        if rivals:
            return rivals[0], sentence.text
    return None


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


def _check_polarity(idx: SourceIndex, s: Sentence) -> tuple[list[Any], int]:
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


def _check_quantifiers(idx: SourceIndex, s: Sentence) -> list[Any]:
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


def _check_causal(idx: SourceIndex, s: Sentence) -> tuple[list[Any], bool]:
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
def analyze(source: str, summary: str) -> _Analysis:
    idx = index_source(source)
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
