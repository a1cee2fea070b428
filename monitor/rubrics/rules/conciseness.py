"""Conciseness by the rules: length against the band, padding, hedging, copied runs, repeats."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import text as tx
from ..bands import Band, band_for
from ..text import Item, ParsedText
from ..verdicts import CONCISENESS, RubricResult, SummaryCase
from .source import SourceIndex, index_source, quote, versus

VERBATIM_RUN = 8  # consecutive source words that count as a copied run
RESTATED_SHARE = 0.8  # a sentence whose copied run is this share of its words restates the source
HEDGES_PER_SENTENCE = 3
BLOAT_FACTOR = 1.5  # words over band max x this -> bloated, not just long


def judge(case: SummaryCase, result: Callable[..., RubricResult]) -> RubricResult:
    issues = _concision_issues(case.source, case.summary, band_for(case.band))
    if not issues:
        return result(CONCISENESS, "concise", confident=True,
                            explanation="Within its length band, no padding, hedging or copied runs.")
    rank = {"bloated": 0, "under_compressed": 1, "padded": 2, "concise": 3}
    issues.sort(key=lambda i: (rank[i.verdict], -i.severity))
    top = issues[0]
    penalty = sum(i.severity for i in issues[1:]) * 0.05
    score = max(0.05, top.score - penalty)
    others = "; also " + ", ".join(sorted({i.mode for i in issues[1:]} - {top.mode})) if len(issues) > 1 else ""
    if top.verdict == "concise":  # only slightly long: noted in the score, not a failure
        return result(CONCISENESS, "concise", score=score, confident=True, evidence=top.evidence,
                            explanation=top.note + ".", details=tuple(i.row() for i in issues))
    return result(CONCISENESS, top.verdict, score=score, failure_mode=top.mode, evidence=top.evidence,
                        explanation=f"{top.note}{others}.", confident=True,
                        details=tuple(i.row() for i in issues))



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
FILLER_WEIGHT = 1.0  # filler phrases of this total weight (strong 1, weak 0.5) pad a summary


def preamble(summary: str) -> tuple[str, str] | None:
    """The assistant-style opening of ``summary`` as (the phrase, its line), or None.

        preamble("Here is a summary of the report:\nSales rose 4%.")  # ("Here is a summary", "Here is a ... report:")
    """
    head = summary.strip()[:240]
    m = _PREAMBLE_RE.search(head)
    if m is None:
        return None
    line = head.split("\n", 1)[0] if "\n" in head else tx.split_sentences(head)[0]
    return m.group(0).strip(), line


def closer(summary: str) -> tuple[str, str] | None:
    """An assistant-style offer in ``summary`` ("I hope this helps", "Let me know if ...") as (the phrase, its
    sentence), or None."""
    m = _CLOSER_RE.search(summary)
    if m is None:
        return None
    return m.group(0).strip(), next((s for s in tx.split_sentences(summary) if m.group(0) in s), m.group(0))


def fillers(summary: str) -> list[tuple[str, float]]:
    """The filler phrases of ``summary`` with their weights (1 a strong one, 0.5 a weak one), in pattern order;
    a total of :data:`FILLER_WEIGHT` pads a summary."""
    low = summary.lower()
    same = len(low) == len(summary)
    return [(summary[m.start():m.end()].strip(" ,"), w) for fast, slow, w in _FILLER_RES
            for m in (fast.finditer(low) if same else slow.finditer(summary))]


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


def _longest_copied_run(summary: str, idx: SourceIndex) -> tuple[int, str]:
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
        elif ratio > band.max_ratio and source_words * band.max_ratio >= band.min_words:
            # only where compression is possible: a source so short that even a summary at the band's
            # minimum keeps more than the ratio allows (a 40-word source, a 12-word tldr) is not judged by it
            issues.append(_Issue("under_compressed", "low_compression",
                                 f"summary: {words} words | source: {source_words} words (ratio {ratio:.2f})",
                                 f"The summary keeps {ratio:.0%} of the source's length; {band.name} allows at most "
                                 f"{band.max_ratio:.0%}", max(0.05, 0.4 * band.max_ratio / ratio)))
        elif words > band.max_words:
            issues.append(_Issue("concise", "over_band_length",
                                 f"summary: {words} words | band {band.name}: at most {band.max_words}",
                                 f"At {words} words the summary runs a little over the {band.name} maximum of "
                                 f"{band.max_words}", 0.85, severity=0.5))
    idx = index_source(source)
    # restatement: a summary sentence that is mostly one pasted source sentence; a run of copied words
    # inside an otherwise compressed sentence (a name with its title, a quoted phrase) is not
    pasted = [(run, copied, n) for s in tx.split_sentences(summary) for n in [tx.word_count(s)]
              for run, copied in [_longest_copied_run(s, idx)] if run >= VERBATIM_RUN and run >= RESTATED_SHARE * n]
    if pasted:
        run, copied, n = max(pasted)
        issues.append(_Issue("under_compressed", "verbatim_copy", f"summary: {quote(copied)} | source: {quote(copied)}",
                             f"A summary sentence restates the source: {run} of its {n} words are copied "
                             f"word for word", max(0.1, 0.4 - 0.03 * (run - VERBATIM_RUN)),
                             severity=run / VERBATIM_RUN))
    opening = preamble(summary)
    if opening:
        phrase, line = opening
        issues.append(_Issue("padded", "chatty_preamble", f"summary: {quote(line)}",
                             f"The summary opens with an assistant-style preamble ({phrase!r})", 0.6))
    ending = closer(summary)
    if ending:
        phrase, sentence = ending
        issues.append(_Issue("padded", "chatty_preamble", f"summary: {quote(sentence)}",
                             f"The summary ends with an assistant-style offer ({phrase!r})", 0.6))
    found = fillers(summary)
    weight = sum(w for _, w in found)
    if weight >= FILLER_WEIGHT:
        phrases = ", ".join(quote(p, 50) for p, _ in found[:4])
        issues.append(_Issue("padded", "filler_phrases", f"summary: {phrases}",
                             f"The summary carries filler that adds nothing ({len(found)} phrase"
                             f"{'s' if len(found) > 1 else ''})", max(0.3, 0.7 - 0.1 * (weight - 1)),
                             severity=weight))
    summary_doc = tx.parse(summary, context=source)
    source_hedges: frozenset[str] | None = None
    for s in summary_doc.sentences:
        hedges = s.of_kind(tx.HEDGE)
        if len(hedges) >= HEDGES_PER_SENTENCE:
            # a hedge the source itself uses reports its doubt; only the summary's own hedges pad
            if source_hedges is None:
                source_hedges = frozenset(_hedge_key(h) for h in idx.doc.items(tx.HEDGE))
            hedges = tuple(h for h in hedges if _hedge_key(h) not in source_hedges)
        if len(hedges) >= HEDGES_PER_SENTENCE:
            ranked = idx.best_sentences(s.terms, k=1)
            src = idx.doc.sentences[ranked[0][1]].text if ranked else ""
            listed = ", ".join(h.text.lower() for h in hedges)
            issues.append(_Issue("padded", "hedging", versus(s.text, src),
                                 f"One sentence stacks {len(hedges)} hedges ({listed})",
                                 max(0.3, 0.65 - 0.05 * (len(hedges) - HEDGES_PER_SENTENCE)),
                                 severity=len(hedges) / HEDGES_PER_SENTENCE))
            break
    repeat = _repeated_fact(summary_doc)
    if repeat:
        a, b = repeat
        issues.append(_Issue("padded", "repeated_fact", f"summary: {quote(a)} | summary: {quote(b)}",
                             "Two parts of the summary state the same fact", 0.6))
    return issues


def _hedge_key(hedge: Item) -> str:
    """One form of a hedge: "suggests" and "suggest", "appeared to" and "appears to" are one hedge."""
    return " ".join(tx.stem(w) for w in hedge.key.split())


def _repeated_fact(doc: ParsedText) -> tuple[str, str] | None:
    sentences = [s for s in doc.sentences if len(s.terms) >= 4]
    for i, a in enumerate(sentences):
        for b in sentences[i + 1:]:
            shared = len(a.terms & b.terms)
            if shared / min(len(a.terms), len(b.terms)) >= 0.75 and shared / len(a.terms | b.terms) >= 0.5:
                return a.text, b.text
    return None
