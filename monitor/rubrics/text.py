"""Text helpers every judge tier shares: sentences, words, and the checkable items in a text.

    doc = parse("Revenue rose 12% to $4.2 million in the third quarter.")
    [(i.kind, i.text) for i in doc.sentences[0].items]
    # [('percent', '12%'), ('money', '$4.2 million'), ('date', 'third quarter')]
    values_match(extract_items("$4.2 million")[0], extract_items("4,200,000 dollars")[0])  # True

Pure functions over strings, nothing here knows about rubrics or verdicts. Parsing is cached on the
text, so the four rubric judges of one case share one parse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache, partial

from sumwatch.tracer import word_count as tracer_word_count

NUMBER, PERCENT, MONEY, QUANTITY = "number", "percent", "money", "quantity"
DATE, ENTITY = "date", "entity"
NEGATION, QUANTIFIER, HEDGE, CAUSAL = "negation", "quantifier", "hedge", "causal"
NUMERIC_KINDS = frozenset({NUMBER, PERCENT, MONEY, QUANTITY})
# Entity shapes (Item.unit of an entity): "person", "org", "other", or OPENER for a lone capitalized
# word that opens a statement, which may be a name or just a plain word.
OPENER = "opener"

__all__ = ["detokenize", "CAUSAL", "DATE", "ENTITY", "HEDGE", "MONEY", "NEGATION", "NUMBER", "NUMERIC_KINDS", "OPENER", "PERCENT",
           "QUANTIFIER", "QUANTITY", "Clause", "Item", "ParsedText", "Sentence", "causal_cue", "date_granularity",
           "date_supported", "entity_supported", "extract_items", "has_negation", "has_negative_word",
           "name_tokens", "parse", "split_sentences", "stem", "terms", "unit_differs", "values_match", "word_count",
           "words"]


@dataclass(frozen=True)
class Item:
    """One checkable thing in a sentence, e.g. ``Item("percent", "12%", 14, 17, value=12.0)``."""

    kind: str
    text: str  # as written
    start: int  # offsets in the sentence it was found in
    end: int
    value: float | None = None  # numbers, after scaling: "$4.2 million" -> 4200000.0
    precision: float = 0.0  # the size of the last stated digit, after scaling: "$4.2 million" -> 100000.0
    unit: str = ""  # money: currency; quantity: unit ("minute") or counted noun ("bed"); percent: "%" / "pp"
    dimension: str = ""  # quantity with a measurement unit: "time", "length", ...; "" for counted nouns
    base: float | None = None  # quantity in its dimension's base unit: "2 hours" -> 7200.0 (seconds)
    key: str = ""  # dates "month:3", "day:3-5", "quarter:3"; entities "redfern steel"; cues lowercased
    approx: bool = False  # stated as approximate: "about 40", "nearly 12%"
    strength: int = 0  # quantifiers: 1 (some, several) .. 4 (all, every)


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
        return tuple(Clause(self.text[a:b], a, b, terms(self.text[a:b])) for a, b in _clause_spans(self.text))

    @cached_property
    def figures(self) -> tuple[Item, ...]:
        """Numbers, amounts and dates."""
        return _figure_items(self.text, self.text.lower())

    @cached_property
    def names(self) -> tuple[Item, ...]:
        """Proper names, by capitalization."""
        return tuple(_entity_items(self.text, self.vocab, tuple((i.start, i.end) for i in self.figures)))

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


# ---------------------------------------------------------------- matching


class _Cue:
    """A lowercase pattern run on lowercased text, several times faster than IGNORECASE (which it falls
    back to where lowercasing changes a text's length). ``hints``: substrings one of which every match
    contains; a text holding none of them is skipped without running the pattern at all."""

    def __init__(self, pattern: str, hints: tuple[str, ...] = ()) -> None:
        self.pattern = pattern
        self.hints = hints
        self.fast = re.compile(pattern)
        self.slow = re.compile(pattern, re.IGNORECASE)

    def finditer(self, text: str, low: str | None = None) -> Iterator[re.Match]:
        low = text.lower() if low is None else low
        if self.hints:
            for h in self.hints:
                if h in low:
                    break
            else:
                return iter(())
        return self.fast.finditer(low) if len(low) == len(text) else self.slow.finditer(text)


# ---------------------------------------------------------------- words

_WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’.,][A-Za-z0-9]+)*")
_TERM_RE = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*(?:'[a-z]+)?")


_NOT_ALNUM_RE = re.compile(r"[^a-z0-9\s]+")


def words(text: str) -> list[str]:
    """Lowercased word tokens with punctuation stripped: ``words("U.S. sales, up 4.2%")`` ->
    ``["us", "sales", "up", "42"]`` (what verbatim-copy checks compare)."""
    return _NOT_ALNUM_RE.sub("", text.lower()).split()


# one word counter for the whole project: the tracer records summary.word_count with it
word_count = tracer_word_count


_STOPWORDS = frozenset(["a", "an", "the", "and", "or", "but", "if", "then", "than", "that", "this", "these", "those", "there", "here", "of", "to", "in", "on", "at", "for", "by", "with", "from", "as", "into", "onto", "upon", "about", "over", "under", "after", "before", "during", "while", "within", "without", "across", "through", "throughout", "between", "among", "against", "per", "via", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done", "doing", "has", "have", "had", "having", "will", "would", "shall", "should", "can", "could", "may", "might", "must", "it", "its", "it's", "they", "them", "their", "theirs", "he", "him", "his", "she", "her", "hers", "we", "us", "our", "ours", "you", "your", "yours", "i", "me", "my", "mine", "who", "whom", "whose", "which", "what", "when", "where", "why", "how", "also", "just", "only", "very", "too", "so", "such", "any", "both", "either", "each", "other", "another", "same", "own", "more", "most", "much", "many", "some", "few", "all", "every", "no", "not", "nor", "never", "none", "nothing", "out", "off", "again", "further", "once", "still", "yet", "even", "ever", "already", "about", "around", "approximately", "roughly", "nearly", "almost", "some", "said", "says", "say", "according", "didn't", "don't", "doesn't", "isn't", "wasn't", "weren't", "won't", "can't", "couldn't", "wouldn't", "shouldn't", "hasn't", "haven't", "hadn't", "aren't", "mr", "mrs", "ms", "dr", "new", "s", "percent", "pct", "dollar", "dollars", "euro", "euros", "usd"])

# Inflections that suffix stripping cannot reach; the forms that summaries rewrite most.
_IRREGULAR = {
    "went": "go", "gone": "go", "goes": "go", "rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall",
    "grew": "grow", "grown": "grow", "won": "win", "held": "hold", "led": "lead", "paid": "pay", "sold": "sell",
    "bought": "buy", "made": "make", "said": "say", "told": "tell", "met": "meet", "began": "begin",
    "begun": "begin", "left": "leave", "brought": "bring", "kept": "keep", "spent": "spend", "built": "build",
    "lost": "lose", "saw": "see", "seen": "see", "gave": "give", "given": "give", "found": "find",
    "thought": "think", "chose": "choose", "chosen": "choose", "drew": "draw", "drawn": "draw", "drove": "drive",
    "driven": "drive", "took": "take", "taken": "take", "ran": "run", "wrote": "write", "written": "write",
    "sent": "send", "struck": "strike", "hit": "hit", "cut": "cut", "set": "set", "put": "put", "shut": "shut",
    "became": "become", "came": "come", "knew": "know", "known": "know", "got": "get", "gotten": "get",
    "felt": "feel", "sought": "seek", "fought": "fight", "caught": "catch", "taught": "teach", "stood": "stand",
    "understood": "understand", "withdrew": "withdraw", "withdrawn": "withdraw", "shown": "show",
    "people": "person", "children": "child", "men": "man", "women": "woman", "data": "data", "media": "media",
}

# Paraphrase groups: words summaries swap for one another. Each maps to its group's first word, so
# "sales grew" and "revenue rose" share terms. Broad on purpose: a shared term only raises an
# alignment score, it never proves a claim.
_SYNONYM_GROUPS = (
    ("rise", "increase", "grow", "growth", "climb", "gain", "jump", "surge", "lift", "raise", "boost", "up",
     "higher", "advance", "expand", "soar", "hike"),
    ("fall", "decrease", "decline", "drop", "down", "lower", "reduce", "reduction", "cut", "slip", "shrink",
     "slide", "sink", "plunge", "dip", "ease", "fewer", "less"),
    ("revenue", "sales", "turnover", "topline"),
    ("profit", "earnings", "income"),
    ("approve", "approval", "endorse", "adopt", "ratify", "authorize", "authorise", "sanction", "greenlight"),
    ("say", "tell", "state", "note", "announce", "add", "report", "describe", "remark", "comment"),
    ("begin", "start", "launch", "commence", "kick"),
    ("end", "finish", "complete", "conclude"),
    ("buy", "purchase", "acquire", "acquisition"),
    ("buyback", "repurchase"),
    ("staff", "employee", "worker", "personnel", "headcount", "workforce"),
    ("hire", "recruit", "recruitment"),
    ("company", "firm", "business", "corporation"),
    ("patient", "participant", "subject"),
    ("study", "trial", "research"),
    ("drug", "medication", "medicine", "treatment", "therapy"),
    ("show", "demonstrate", "find", "reveal", "indicate"),
    ("meet", "achieve", "reach", "attain"),
    ("renew", "extend", "prolong"),
    ("keep", "retain", "maintain", "continue"),
    ("goal", "target", "endpoint", "objective", "aim"),
    ("fee", "charge", "fare", "price", "toll"),
    ("cost", "bill", "expense", "spend", "spending", "budget"),
    ("cash", "money", "funds", "funding", "grant"),
    ("contract", "agreement", "deal"),
    ("quarter", "quarterly"),
    ("annual", "yearly", "year"),
    ("plan", "proposal", "propose", "scheme", "program", "programme"),
    ("big", "large", "major", "significant", "substantial"),
    ("small", "minor", "modest", "slight"),
    ("fast", "rapid", "quick", "swift"),
    ("gradual", "staged", "stage", "phase", "phased", "incremental", "stepwise"),
    ("update", "change", "release", "deploy", "deployment", "patch", "upgrade"),
    ("roll", "rollout"),
    ("outage", "failure", "disruption", "downtime"),
    ("error", "fault", "bug", "glitch"),
    ("link", "tie", "association", "associate", "connection", "connect", "relationship", "correlation"),
    ("benefit", "improvement", "improve", "advantage"),
    ("customer", "client", "user"),
    ("doctor", "clinician"),
    ("vote", "ballot"),
    ("wait", "delay"),
    ("employ", "job", "role", "position"),
    ("chief", "head", "leader"),
    ("executive", "ceo"),
)


def _strip_suffix(w: str) -> str:
    if len(w) <= 3 or w.isdigit():
        return w
    for suffix, repl, min_left in (("'s", "", 1), ("ies", "y", 2), ("ied", "y", 2), ("sses", "ss", 1),
                                   ("ness", "", 4), ("ments", "", 4), ("ment", "", 4), ("ations", "ate", 3),
                                   ("ation", "ate", 3), ("ingly", "", 4), ("edly", "", 4), ("ing", "", 3),
                                   ("ed", "", 3), ("ly", "", 4), ("es", "", 4), ("s", "", 3)):
        if w.endswith(suffix) and len(w) - len(suffix) >= min_left:
            if suffix == "s" and w.endswith(("ss", "us", "is")):
                continue
            if suffix == "es" and not w.endswith(("ches", "shes", "xes", "sses", "zes")):
                continue
            w = w[: len(w) - len(suffix)] + repl
            break
    if len(w) > 4 and w[-1] == w[-2] and w[-1] not in "aeiousl":
        w = w[:-1]  # stopped -> stopp -> stop
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A crude, stable stem: ``stem("approved") == stem("approval") == "approv"``."""
    w = word.lower().replace("’", "'")
    w = _IRREGULAR.get(w, w)
    return _strip_suffix(w)[:6]


def _build_synonyms() -> dict[str, str]:
    out: dict[str, str] = {}
    for group in _SYNONYM_GROUPS:
        head = stem(group[0])
        for w in group:
            out.setdefault(stem(w), head)
    return out


_SYNONYMS = _build_synonyms()


@lru_cache(maxsize=16384)
def _term(token: str) -> str:
    if token[0].isdigit():
        return token.replace(",", "")
    s = stem(token)
    return _SYNONYMS.get(s, s)


def terms(text: str) -> frozenset[str]:
    """Content terms: stemmed, synonym-folded, stopwords and negations removed. Numbers stay as digits.

        terms("Sales grew 12%") == terms("revenue rose 12 percent")  # both {"revenu", "rise", "12"}
    """
    tokens = set(_TERM_RE.findall(text.lower().replace("’", "'"))) - _STOPWORDS
    return frozenset(_term(t) for t in tokens if len(t) > 1 or t.isdigit())


# ---------------------------------------------------------------- sentences

_ABBREVIATIONS = frozenset(["mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "ft", "gen", "gov", "sen", "rep", "lt", "col", "capt", "sgt", "rev", "hon", "inc", "corp", "co", "ltd", "llc", "plc", "bros", "dept", "univ", "vs", "etc", "approx", "est", "fig", "no", "nos", "vol", "ed", "eds", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "mon", "tue", "wed", "thu", "fri", "sat", "sun", "e.g", "i.e", "u.s", "u.k", "u.n", "e.u", "a.m", "p.m", "d.c", "n.y", "l.a", "ph.d", "m.d", "b.a", "m.a"])
# After a dotted acronym ("U.S.") a new sentence is only assumed when one of these words follows.
_SENTENCE_OPENERS = frozenset(["the", "a", "an", "this", "that", "these", "those", "it", "its", "he", "she", "they", "we", "i", "in", "on", "at", "but", "and", "however", "meanwhile", "still", "also", "there", "his", "her", "their", "our", "after", "before", "for"])
_BOUNDARY_RE = re.compile(r"([.!?]+)([\"'”’)\]]*)(\s+)(?=[\"'“‘(\[]?[A-Z0-9$€£])")
_BULLET_RE = re.compile(r"^\s*(?:[-*•–·]|\d{1,2}[.)])\s+")


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for line in text.splitlines(keepends=True):
        start, end = pos, pos + len(line)
        pos = end
        bullet = _BULLET_RE.match(line)
        cursor = start + (bullet.end() if bullet else 0)
        body_end = start + len(line.rstrip())
        if cursor >= body_end:
            continue
        for m in _BOUNDARY_RE.finditer(text, cursor, body_end):
            before = text[cursor:m.start()].split()
            last = before[-1].lower().rstrip(".").lstrip("(\"'“") if before else ""
            if m.group(1) == "." and last:
                if last in _ABBREVIATIONS or re.fullmatch(r"[a-z]", last) or (
                        last == "al" and len(before) > 1 and before[-2].lower() == "et"):
                    dotted = "." in last or last in ("u.s", "u.k", "a.m", "p.m")
                    nxt = text[m.end():m.end() + 20].split()
                    if not (dotted and nxt and nxt[0].lower().strip("\"'“") in _SENTENCE_OPENERS):
                        continue
            spans.append((cursor, m.start() + len(m.group(1)) + len(m.group(2))))
            cursor = m.end()
        if cursor < body_end:
            spans.append((cursor, body_end))
    return [(a, b) for a, b in spans if text[a:b].strip()]


def split_sentences(text: str) -> list[str]:
    """Sentences and bullet items, in order; abbreviations, initials and decimals do not end one.

        split_sentences("Dr. Li said U.S. sales hit $1.5 million.\\n- Owner: Ana")
        # ["Dr. Li said U.S. sales hit $1.5 million.", "Owner: Ana"]
    """
    return [text[a:b].strip() for a, b in _sentence_spans(text)]


_CLAUSE_RE = _Cue(
    r"[;:]\s+"
    r"|,\s+(?=(?:and|but|while|whereas|although|though|which|who|so|yet|leaving|as|because|since|after|"
    r"with|instead|even|despite)\b)"
    r"|\s+(?:[—–]\s+|--\s+|but\s+"
    r"|(?=(?:because|due\s+to|as\s+a\s+result|driven\s+by|thanks\s+to|owing\s+to|which\s+led|instead\s+of|"
    r"rather\s+than)\b)"
    r"|(?:and|while|whereas)\s+(?=(?:the|it|its|they|he|she|this|that|there|a|an|no|none|had|has|"
    r"have|was|were|is|are|will|would|did|does|could|can|may|might|should)\b))",
    hints=(";", ":", "—", "–", "--", ", ", " but ", " and ", " while ", " whereas ", "because", "due to", "result",
           "driven by", "thanks to", "owing to", "which led", "instead of", "rather than"))


# A clause that opens with one of these ends at its first comma: "Instead of the staged rollout, the
# change went out at once" states two things.
_LEADING_SUBORDINATE_RE = re.compile(r"(?:instead\s+of|rather\s+than|despite|although|though|while|after|before|"
                                     r"when|if|unless|since)\b[^,]*,\s+", re.IGNORECASE)


def _clause_spans(sentence: str) -> list[tuple[int, int]]:
    spans, cursor = [], 0
    for m in _CLAUSE_RE.finditer(sentence):
        if m.start() > cursor:
            spans.append((cursor, m.start()))
        cursor = m.end()
    if cursor < len(sentence):
        spans.append((cursor, len(sentence)))
    out = []
    for a, b in spans:
        lead = _LEADING_SUBORDINATE_RE.match(sentence, a, b)
        if lead and lead.end() < b:
            out += [(a, lead.end() - 2), (lead.end(), b)]
        else:
            out.append((a, b))
    return [(a, b) for a, b in out if sentence[a:b].strip()] or [(0, len(sentence))]


# ---------------------------------------------------------------- cues: negation, quantifiers, hedges, causes


_NEGATION_RE = _Cue(
    r"n['’]t\b|\b(?<!-)(?:not\b(?!\s+only\b|\s+least\b)|cannot\b|never\b|none\b|nothing\b|nobody\b|neither\b|"
    r"nor\b|without\b(?!\s+(?:saying|a\s+doubt|doubt|question|exception))|"
    r"no\b(?!\s+(?:later|more|less|fewer|sooner|earlier)\s+than\b|\s+doubt\b)|instead\s+of\b|rather\s+than\b|"
    r"(?:fail(?:s|ed|ing)?|declin(?:e|es|ed|ing)|refus(?:e|es|ed|ing))\s+to\b(?!\s+(?:a|an|the|about|around|"
    r"roughly|just|nearly|almost|some|its|their|[$€£\d])))(?!-)",  # not "never-before-seen", "no-fly"
    hints=("no", "n't", "n’t", "never", "without", "neither", "nor", "fail", "declin", "refus", "instead", "rather"))
# Predicates that carry a negation inside them: "rejected" says what "did not approve" says, so a
# paraphrase from one to the other is no polarity flip.
_NEGATIVE_PREDICATE_RE = _Cue(
    r"\b(?:reject(?:s|ed|ing)?|veto(?:es|ed)|turn(?:s|ed)?\s+down|vot(?:e|es|ed)\s+(?:down|against)|"
    r"rule[sd]?\s+out|scrapped|shelved|abandon(?:s|ed)|cancel(?:s|led|ed)|halt(?:s|ed)|stopp(?:ed|ing)|"
    r"block(?:ed|ing)|den(?:y|ies|ied)|missed|lack(?:s|ed|ing)?|unable|unchanged|withheld|withdr[ae]w|withdrawn|"
    r"opposed|dropp(?:ed|ing)|skipp(?:ed|ing)|bypass(?:ed|ing)?|absent|free\s+of|avoid(?:s|ed)?|"
    r"unrelated|fell\s+short|short\s+of|held\s+(?:steady|flat)|flat|pass(?:ed)?\s+on)\b",
    hints=("reject", "veto", "turn", "vot", "rule", "scrapped", "shelved", "abandon", "cancel", "halt", "stopp",
           "block", "den", "missed", "lack", "unable", "unchanged", "withh", "withdr", "opposed", "dropp", "skipp",
           "bypass", "absent", "free of", "avoid", "unrelated", "short", "held", "flat", "pass"))

_QUANTIFIER_PHRASES: dict[str, int] = {}
for _strength, _phrases in (
    (4, "all|every|each|everyone|everybody|everything|always|entire|the entire|entirely|unanimously|"
        "universally|without exception|across the board"),
    (3, "nearly all|almost all|virtually all|practically all|nearly every|almost every|virtually every|all but|"
        "the vast majority|a vast majority|the overwhelming majority|an overwhelming majority|almost always|"
        "nearly always|almost everyone|nearly everyone|nearly everything|almost everything"),
    (2, "most|a majority|the majority|majority|the bulk|mostly|largely|predominantly|mainly|more than half|"
        "over half|usually|generally|typically"),
    (1, "many|several|some|a number of|a few|few|a handful|a minority|a small number|certain|various|often|"
        "frequently|sometimes|occasionally|rarely|seldom|a couple of|numerous|a portion of|at times"),
):
    for _p in _phrases.split("|"):
        _QUANTIFIER_PHRASES[_p] = _strength
_QUANTIFIER_RE = _Cue(
    r"\b(?:" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in
                        sorted(_QUANTIFIER_PHRASES, key=len, reverse=True)) + r")\b",
    hints=tuple({max(p.split(), key=len) for p in _QUANTIFIER_PHRASES}))
# Uses of those words that do not quantify the claim: "at all", "every year", "some 300", "most recent".
_NOT_QUANTIFIER_AFTER = re.compile(
    r"\s*(?:-time\b|\s+things\s+considered\b|\s+in\s+all\b|\s+and\s+every\b|"
    r"\s+(?:year|month|week|day|quarter|hour|time|other|morning|night|season|minute)s?\b|"
    r"\s+(?:about|around|\$|€|£)?\s*\d)", re.IGNORECASE)
_NOT_QUANTIFIER_BEFORE = re.compile(r"\b(?:at|after|above|first\s+of|all\s+in)\s+$", re.IGNORECASE)
_IN_ALL_RE = re.compile(r"\bin\s+$", re.IGNORECASE)  # "64,000 failures in all." is a total, not a quantifier
_NEEDS_PLURAL_AFTER = frozenset({"most", "certain", "various"})
_PLURAL_AFTER_RE = re.compile(r"\s+(?:of\b|the\b|[a-z]+s\b)")
_CLAUSE_END_RE = re.compile(r"\s*(?:[,.;:)]|$)")

_HEDGE_RE = _Cue(
    r"\b(?:may|might|could|possibly|perhaps|maybe|probably|likely|unlikely|seemingly|seems?|seemed|"
    r"appears?\s+to|appeared\s+to|apparently|somewhat|arguably|reportedly|allegedly|presumably|potentially|"
    r"conceivably|supposedly|suggests?|tentative(?:ly)?|it\s+is\s+possible|to\s+some\s+(?:extent|degree)|"
    r"to\s+a\s+(?:certain\s+)?(?:extent|degree)|in\s+some\s+ways|more\s+or\s+less|sort\s+of|kind\s+of|"
    r"believed\s+to|thought\s+to|said\s+to\s+be|i\s+think|we\s+believe|it\s+would\s+seem|relatively|"
    r"fairly|uncertain|unclear)\b",
    hints=("may", "might", "could", "possib", "perhaps", "probab", "likely", "seem", "appear", "appar", "somewhat",
           "arguabl", "reported", "alleged", "presumab", "potential", "conceiv", "suppos", "suggest", "tentativ",
           "extent", "degree", "ways", "less", "sort", "kind", "believed", "thought", "said", "think", "believe",
           "relatively", "fairly", "uncertain", "unclear"))

_CAUSAL_RE = _Cue(
    r"\b(?:because(?:\s+of)?|due\s+to|owing\s+to|thanks\s+to|as\s+a\s+(?:direct\s+)?(?:result|consequence)(?:\s+of)?|"
    r"result(?:ed|ing|s)?\s+in|driven\s+by|dr(?:ove|ives|iving)|l(?:ed|eads?|eading)\s+to|"
    r"caus(?:e|es|ed|ing)|therefore|thus|hence|consequently|which\s+meant|so\s+that|prompt(?:ed|ing|s)|"
    r"trigger(?:ed|ing|s)?|spur(?:s|red|ring)?|fu(?:el)?led\s+by|attributed\s+to|on\s+the\s+back\s+of|"
    r"in\s+response\s+to|"
    r"stem(?:s|med|ming)\s+from|contributed\s+to|helped\s+by|hurt\s+by|weighed\s+(?:on|down)|"
    r"for\s+that\s+reason|the\s+reason)\b",
    hints=("because", "due", "owing", "thanks", "result", "driv", "drov", "led", "lead", "caus", "therefore", "thus",
           "hence", "consequen", "meant", "so that", "prompt", "trigger", "spur", "fuel", "attributed", "back of",
           "response", "stem", "contributed", "helped", "hurt", "weighed", "reason"))
# Wording in a source that gives a reason without a connective: "banned over security concerns",
# "citing costs", "blamed on the weather". A summary's "because" restates it fairly.
_REASON_RE = _Cue(
    r"\b(?:reasons?|blam(?:e|ed|es|ing)|root\s+cause|traced\s+to|responsible\s+for|behind\s+the|"
    r"reflect(?:s|ed|ing)|boost(?:ed|s)|help(?:ed|s)|hurt|weigh(?:ed|s)|explain(?:s|ed)|allow(?:ed|s)|"
    r"enabl(?:e|ed|es)|meant|forc(?:e|ed|es)|cit(?:e|ed|es|ing)|amid|in\s+light\s+of|given\s+that|"
    r"over\s+(?:[\w-]+\s+){0,3}(?:concerns?|fears?|worries|doubts)|(?:concerns?|fears?|worries)\s+(?:about|over|that)|"
    r"in\s+order\s+to|so\s+as\s+to|aim(?:s|ed)?\s+(?:to|at)|intended\s+to|"
    r"to\s+[\"“']?(?:protect|prevent|avoid|reduce|ensure|counter|offset|cut|curb|address))\b")
# Sequence words: "errors began after the deploy" suggests a cause inside one sentence, no more.
_SEQUENCE_RE = _Cue(r"\b(?:after|following|when|since|so|then|once|as)\b")


_SPACES_RE = re.compile(r"\s+")


def _cue_items(sentence: str, low: str, cue: _Cue, kind: str) -> list[Item]:
    return [Item(kind, sentence[m.start():m.end()], m.start(), m.end(), key=_SPACES_RE.sub(" ", m.group(0).lower()))
            for m in cue.finditer(sentence, low)]


def _quantifier_items(sentence: str, low: str) -> list[Item]:
    out = []
    for m in _QUANTIFIER_RE.finditer(sentence, low):
        phrase = _SPACES_RE.sub(" ", m.group(0).lower())
        if _NOT_QUANTIFIER_AFTER.match(sentence, m.end()):
            continue
        if phrase == "all" and (_NOT_QUANTIFIER_BEFORE.search(sentence[:m.start()]) or (
                _IN_ALL_RE.search(sentence[:m.start()]) and _CLAUSE_END_RE.match(sentence, m.end()))):
            continue
        if phrase in _NEEDS_PLURAL_AFTER and not _PLURAL_AFTER_RE.match(sentence, m.end()):
            continue  # "most important", "certain that"
        out.append(Item(QUANTIFIER, sentence[m.start():m.end()], m.start(), m.end(), key=phrase,
                        strength=_QUANTIFIER_PHRASES[phrase]))
    return out


def causal_cue(text: str, *, strength: str = "connective") -> str | None:
    """The first causal wording in ``text``, or None.

        causal_cue("sales fell because of the strike")                        # 'because of'
        causal_cue("banned over security concerns", strength="reason")       # 'over security concerns'
        causal_cue("errors began after the deploy", strength="sequence")     # 'after'

    ``connective``: "because", "due to", "as a result", "led to"; ``reason`` adds wording that gives a
    reason without a connective; ``sequence`` adds words of order that only suggest one.
    """
    patterns = {"connective": (_CAUSAL_RE,), "reason": (_CAUSAL_RE, _REASON_RE),
                "sequence": (_CAUSAL_RE, _REASON_RE, _SEQUENCE_RE)}[strength]
    low = text.lower()
    for pattern in patterns:
        m = next(pattern.finditer(text, low), None)
        if m:
            return text[m.start():m.end()]
    return None


def has_negation(text: str) -> bool:
    """Whether a clause holds an explicit negation: "did not approve", "no link", "failed to"."""
    return next(_NEGATION_RE.finditer(text), None) is not None


def has_negative_word(text: str) -> bool:
    """Whether a clause holds a word that negates by itself: "rejected", "unchanged", "halted"."""
    return next(_NEGATIVE_PREDICATE_RE.finditer(text), None) is not None


# ---------------------------------------------------------------- dates

_MONTHS = {"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8,
           "september": 9, "october": 10, "november": 11, "december": 12, "jan": 1, "feb": 2, "mar": 3, "apr": 4,
           "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12}
_MONTH = (r"(?:January|February|March|April|May|June|July|August|September|October|November|December|"
          r"Jan\.?|Feb\.?|Mar\.?|Apr\.?|Jun\.?|Jul\.?|Aug\.?|Sept\.?|Sep\.?|Oct\.?|Nov\.?|Dec\.?)(?![a-z])")
_DAY = r"(?:[12]\d|3[01]|0?[1-9])(?:st|nd|rd|th)?"
_YEAR = r"(?:19|20)\d{2}"
_DATE_RES: tuple[tuple[str, re.Pattern], ...] = (
    ("time", re.compile(r"\b(\d{1,2}):([0-5]\d)(?:\s?([ap])\.?m\.?\b)?|\b(\d{1,2})\s?([ap])\.?m\.?(?![a-z])|"
                        r"\b(noon|midnight)\b", re.IGNORECASE)),
    ("mdy", re.compile(rf"\b({_MONTH})(?:\s+({_DAY})\b)?(?:,?\s+({_YEAR})\b)?")),
    ("dmy", re.compile(rf"\b({_DAY})\s+(?:of\s+)?({_MONTH})(?:,?\s+({_YEAR})\b)?")),
    ("weekday", re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b")),
    ("quarter", re.compile(r"\b(?:Q([1-4])|([1-4])Q|(first|second|third|fourth|1st|2nd|3rd|4th)[-\s]quarter|"
                           r"(first|second)[-\s]half|H([12]))\b", re.IGNORECASE)),
    ("year", re.compile(rf"(?<![\w$€£.,])(?:FY\s?|fiscal\s+)?({_YEAR})(?:[-–/](\d{{2}}|{_YEAR}))?\b(?![%.,]\d)"
                        r"(?!\s?(?:%|percent|million|billion|[a-z]*(?:meter|metre|mile|foot|feet|km|kg)))")),
)
_FULL_MONTHS = frozenset(list(_MONTHS)[:12])
_DIGIT_RE = re.compile(r"\d")
_AM_PM_RE = re.compile(r"\d\s?[ap]\.?m")  # "2 p.m.", "9am"
_MONTH_PREFIX_RE = re.compile("Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec")


def _date_hints(s: str, low: str) -> set[str]:
    """The date patterns worth running on a sentence, by substring checks far cheaper than the patterns."""
    digits = _DIGIT_RE.search(s) is not None
    hints = set()
    if ":" in s or "noon" in low or "midnight" in low or (digits and _AM_PM_RE.search(low)):
        hints.add("time")
    if _MONTH_PREFIX_RE.search(s):
        hints.update(("mdy", "dmy"))
    if "day" in s:
        hints.add("weekday")
    if "quarter" in low or "half" in low or (digits and ("q" in low or "h" in low)):
        hints.add("quarter")
    if "19" in s or "20" in s:
        hints.add("year")
    return hints
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_WEEKDAYS = {"monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4, "friday": 5, "saturday": 6, "sunday": 7}
_MONTH_CONTEXT_RE = re.compile(r"\b(?:in|on|by|since|until|till|through|from|of|early|late|mid|during|before|"
                               r"after|next|last|this|to|and|or|between|beyond|past|into|until|around|within|"
                               r"throughout|starting|ending)\s+$", re.IGNORECASE)


def _date_items(sentence: str) -> list[Item]:
    out: list[Item] = []
    taken: list[tuple[int, int]] = []

    def add(kind_key: str, m: re.Match, start: int | None = None, end: int | None = None) -> None:
        a, b = (m.start() if start is None else start), (m.end() if end is None else end)
        out.append(Item(DATE, sentence[a:b], a, b, key=kind_key))

    low = sentence.lower()
    hints = _date_hints(sentence, low)
    for name, pattern in _DATE_RES:
        if name not in hints:
            continue  # cheap substring checks skip most of the regex work
        for m in pattern.finditer(sentence):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue
            if name == "time":
                if m.group(6):
                    key = "time:12:00" if m.group(6).lower() == "noon" else "time:00:00"
                else:
                    hour = int(m.group(1) or m.group(4))
                    minute = int(m.group(2) or 0)
                    half = (m.group(3) or m.group(5) or "").lower()
                    if hour > 23:
                        continue
                    hour = hour % 12 + (12 if half == "p" else 0) if half else hour
                    key = f"time:{hour:02d}:{minute:02d}"
                add(key, m)
            elif name in ("mdy", "dmy"):
                mg, dg = (1, 2) if name == "mdy" else (2, 1)
                month_s, day_s, year_s = m.group(mg), m.group(dg), m.group(3)
                month = _MONTHS[month_s.rstrip(".").lower()]
                # "May" and "March" opening a sentence may be words, "Jan" a name: alone they need a date-like
                # lead-in (mid-sentence, a capitalized "March" is the month)
                ambiguous = (month_s in ("May", "March") and not sentence[:m.start()].strip()) or \
                    month_s.rstrip(".").lower() not in _FULL_MONTHS
                if not day_s and not year_s and ambiguous and not _MONTH_CONTEXT_RE.search(sentence[:m.start()]):
                    continue
                if day_s:
                    day = int(re.sub(r"\D", "", day_s))
                    add(f"day:{month}-{day}", m, m.start(), max(m.end(1), m.end(2)))
                else:
                    add(f"month:{month}", m, m.start(), m.end(mg))
                if year_s:
                    out.append(Item(DATE, year_s, m.start(3), m.end(3), key=f"year:{year_s}"))
            elif name == "weekday":
                add(f"weekday:{_WEEKDAYS[m.group(1).lower()]}", m)
            elif name == "quarter":
                if m.group(1) or m.group(2):
                    add(f"quarter:{m.group(1) or m.group(2)}", m)
                elif m.group(3):
                    add(f"quarter:{_ORDINALS[m.group(3).lower()]}", m)
                else:
                    add(f"half:{_ORDINALS.get((m.group(4) or '').lower(), 0) or m.group(5)}", m)
            else:
                add(f"year:{m.group(1)}", m)
            taken.append((m.start(), m.end()))
    return out


# ---------------------------------------------------------------- numbers, money, percentages, units

_LETTERS_RE = re.compile(r"[A-Za-z]+")
_NUM_RE = re.compile(r"(?<![\w.,/:#])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![.,]\d)")
_WRITTEN = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
            "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
            "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
            "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "dozen": 12, "a dozen": 12, "half a dozen": 6}
_UNITS_1_9 = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_WRITTEN_RE = _Cue(
    r"\b(?:(half\s+a\s+dozen|a\s+dozen|dozen)|(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[-\s](one|two|three|four|five|six|seven|eight|nine))?|(two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen))\b",
    hints=("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty",
           "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety", "dozen"))
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12, "k": 1e3, "m": 1e6, "mn": 1e6,
           "mln": 1e6, "bn": 1e9, "b": 1e9, "tn": 1e12}
_CURRENCY_BEFORE_RE = re.compile(r"(US\$|A\$|C\$|NZ\$|HK\$|S\$|\$|€|£|¥|₹|USD|EUR|GBP|JPY|CHF)\s?$")
_CURRENCY_CODES = {"$": "USD", "us$": "USD", "usd": "USD", "€": "EUR", "eur": "EUR", "£": "GBP", "gbp": "GBP",
                   "¥": "JPY", "jpy": "JPY", "₹": "INR", "a$": "AUD", "c$": "CAD", "nz$": "NZD", "hk$": "HKD",
                   "s$": "SGD", "chf": "CHF"}
_CURRENCY_WORDS = {"dollar": "USD", "euro": "EUR", "pound": "GBP", "yen": "JPY", "yuan": "CNY", "rupee": "INR",
                   "franc": "CHF", "cent": "USD"}
_CURRENCY_AFTER_RE = re.compile(
    r"\s(?:(?:US|U\.S\.|American|Canadian|Australian|Hong\s+Kong|Singapore|New\s+Zealand)\s)?"
    r"(dollars?|euros?|pounds\s+sterling|yen|yuan|rupees?|francs?|cents?)\b", re.IGNORECASE)
_SCALE_AFTER_RE = re.compile(r"\s(thousand|million|billion|trillion)\b|\s?(bn|mn|mln|tn)\b|(?:\s?)(k|m|b)\b",
                             re.IGNORECASE)
_PERCENT_AFTER_RE = re.compile(
    r"\s?(%)|\s(?:percent|per\s+cent|pct)\b|\s(percentage\s+points?|points?|pts?)\b|\s(basis\s+points?|bps)\b",
    re.IGNORECASE)
# words that make the number after them approximate: "about 40", "more than $2 million"
_APPROX_ONE = frozenset(["about", "around", "approximately", "approx", "approx.", "roughly", "nearly", "almost", "some", "over", "under", "estimated", "circa", "below", "above"])
_APPROX_TWO = frozenset({"close to", "more than", "less than", "fewer than", "at least", "at most", "up to",
                         "upwards of", "just over", "just under", "an estimated"})


def _approx_before(sentence: str, start: int) -> bool:
    if start and sentence[start - 1] == "~":
        return True
    before = sentence[max(0, start - 24):start].lower().split()
    return bool(before) and (before[-1] in _APPROX_ONE or " ".join(before[-2:]) in _APPROX_TWO)

# unit -> (canonical name, dimension, factor to the dimension's base unit)
_UNIT_TABLE: dict[str, tuple[str, str, float]] = {}
for _names, _canon, _dim, _factor in (
    ("seconds second secs sec s", "second", "time", 1.0),
    ("minutes minute mins min", "minute", "time", 60.0),
    ("hours hour hrs hr h", "hour", "time", 3600.0),
    ("days day", "day", "time", 86400.0),
    ("weeks week wks wk", "week", "time", 604800.0),
    ("months month", "month", "time", 2629800.0),
    ("years year yrs yr", "year", "time", 31557600.0),
    ("millimeters millimetres millimeter millimetre mm", "mm", "length", 0.001),
    ("centimeters centimetres centimeter centimetre cm", "cm", "length", 0.01),
    ("meters metres meter metre m", "m", "length", 1.0),
    ("kilometers kilometres kilometer kilometre km", "km", "length", 1000.0),
    ("miles mile", "mile", "length", 1609.344),
    ("feet foot ft", "ft", "length", 0.3048),
    ("inches inch", "inch", "length", 0.0254),
    ("milligrams milligram mg", "mg", "mass", 0.001),
    ("micrograms microgram mcg µg", "mcg", "mass", 1e-6),
    ("grams gram g", "g", "mass", 1.0),
    ("kilograms kilogram kg kilos", "kg", "mass", 1000.0),
    ("tonnes tonne tons ton t", "tonne", "mass", 1e6),
    ("pounds lbs lb", "lb", "mass", 453.592),
    ("ounces ounce oz", "oz", "mass", 28.3495),
    ("milliliters millilitres milliliter millilitre ml", "ml", "volume", 0.001),
    ("liters litres liter litre l", "l", "volume", 1.0),
    ("gallons gallon", "gallon", "volume", 3.785),
    ("barrels barrel", "barrel", "volume", 158.987),
    ("degrees degree °c °f ºc", "degree", "temperature", 1.0),
    ("acres acre", "acre", "area", 4046.86),
    ("hectares hectare ha", "hectare", "area", 10000.0),
    ("kb", "kb", "data", 1e3), ("mb", "mb", "data", 1e6), ("gb", "gb", "data", 1e9), ("tb", "tb", "data", 1e12),
    ("kw", "kw", "power", 1e3), ("mw megawatts megawatt", "mw", "power", 1e6), ("gw gigawatts", "gw", "power", 1e9),
    ("kwh", "kwh", "energy", 1.0), ("mwh", "mwh", "energy", 1e3), ("gwh", "gwh", "energy", 1e6),
    ("mph", "mph", "speed", 0.44704), ("km/h kph", "km/h", "speed", 0.27778),
    ("mmhg", "mmhg", "pressure", 1.0), ("mg/dl", "mg/dl", "concentration", 1.0),
):
    for _n in _names.split():
        _UNIT_TABLE[_n] = (_canon, _dim, _factor)
_UNIT_AFTER_RE = re.compile(r"([-\s]?)([A-Za-z°ºµ][A-Za-z/°ºµ]*)(?![\w/])")
_SHORT_UNITS = frozenset({"s", "h", "m", "t", "g", "l", "ha"})  # need to touch the number: "30m", "5 g" no
_NEXT_WORD_RE = re.compile(r"[-\s]+([a-z][a-z-]*)")
_COUNT_MODIFIERS = frozenset(["new", "more", "additional", "other", "extra", "total", "full", "part", "fewer", "old", "older", "young", "younger", "senior", "small", "large", "major", "minor", "separate", "different", "key", "regional", "local", "further"])


def _counted_noun(sentence: str, pos: int) -> tuple[str, int] | None:
    """'40 beds', '59 new nurse hires' -> the counted noun (modifiers skipped) and where it ends."""
    for _ in range(3):
        m = _NEXT_WORD_RE.match(sentence, pos)
        if not m:
            return None
        word, pos = m.group(1), m.end()
        if word in _COUNT_MODIFIERS:
            continue
        return None if word in _STOPWORDS or word in _SCALES else (word, pos)
    return None


def _precision(digits: str, decimals: str) -> float:
    if decimals:
        return 10.0 ** -len(decimals)
    zeros = len(digits.replace(",", "")) - len(digits.replace(",", "").rstrip("0"))
    return 10.0 ** min(zeros, len(digits.replace(",", "")) - 1) if digits.strip("0") else 1.0


def _classify_number(sentence: str, start: int, end: int, value: float, precision: float,
                     currency: str, written: bool, approx: bool) -> Item | None:
    """Read what follows a number (scale, %, currency word, unit, counted noun) into one Item."""
    make = partial(Item, approx=approx)
    pos, scale, unit, dimension, factor, kind = end, 1.0, "", "", 1.0, NUMBER
    attached = _LETTERS_RE.match(sentence, end) if not written else None
    if attached:
        suffix = attached.group(0).lower()
        if suffix in ("st", "nd", "rd", "th", "s", "x", "q"):
            return None  # ordinals, decades, multiples: not amounts a summary restates
        scale_letter = suffix in ("k", "m", "b") and (currency or attached.group(0).isupper())  # "$30m", "5M"
        if suffix in ("bn", "mn", "mln", "tn") or scale_letter:
            scale, pos = _SCALES[suffix], end + len(suffix)
        elif suffix in _UNIT_TABLE:
            unit, dimension, factor = _UNIT_TABLE[suffix]
            kind, pos = QUANTITY, end + len(suffix)
        else:
            return None  # "737MAX", "4G": part of a name
    if scale == 1.0 and kind == NUMBER:
        m = _SCALE_AFTER_RE.match(sentence, pos)
        if m and (m.group(1) or m.group(2) or (currency and m.group(3))):
            word = (m.group(1) or m.group(2) or m.group(3)).lower()
            scale, pos = _SCALES[word], m.end()
    value, precision = value * scale, precision * scale
    if kind == NUMBER and not currency:
        m = _PERCENT_AFTER_RE.match(sentence, pos)
        if m:
            if m.group(3):  # basis points
                return make(PERCENT, sentence[start:m.end()], start, m.end(), value=value / 100,
                            precision=precision / 100, unit="pp")
            return make(PERCENT, sentence[start:m.end()], start, m.end(), value=value, precision=precision,
                        unit="pp" if m.group(2) else "%")
        m = _CURRENCY_AFTER_RE.match(sentence, pos)
        if m:
            word = m.group(1).lower()
            word = "pound" if word.startswith("pound") else word.rstrip("s")
            if word == "cent":
                value, precision = value / 100, precision / 100
            return make(MONEY, sentence[start:m.end()], start, m.end(), value=value, precision=precision,
                        unit=_CURRENCY_WORDS.get(word, "USD"))
    if currency:
        return make(MONEY, sentence[start:pos], start, pos, value=value, precision=precision, unit=currency)
    if kind == NUMBER:
        m = _UNIT_AFTER_RE.match(sentence, pos)
        word = m.group(2).lower() if m else ""
        if word in _UNIT_TABLE and not (word in _SHORT_UNITS and m.group(1)):
            unit, dimension, factor = _UNIT_TABLE[word]
            kind, pos = QUANTITY, m.end()
    if kind == QUANTITY:
        return make(QUANTITY, sentence[start:pos], start, pos, value=value, precision=precision, unit=unit,
                    dimension=dimension, base=value * factor)
    noun = _counted_noun(sentence, pos)
    if noun:
        word, noun_end = noun
        return make(QUANTITY, sentence[start:noun_end], start, noun_end, value=value, precision=precision,
                    unit=stem(word), base=value)
    return make(NUMBER, sentence[start:pos], start, pos, value=value, precision=precision, base=value)


def _numeric_items(sentence: str, taken: list[tuple[int, int]], low: str | None = None) -> list[Item]:
    found: list[Item] = []

    def free(a: int, b: int) -> bool:
        return not any(x < b and a < y for x, y in taken)

    for m in _NUM_RE.finditer(sentence):
        if not free(m.start(), m.end()):
            continue
        digits, decimals = m.group(1), (m.group(2) or "")
        value = float(digits.replace(",", "") + decimals)
        cur = _CURRENCY_BEFORE_RE.search(sentence[max(0, m.start() - 4):m.start()])
        currency = _CURRENCY_CODES.get(cur.group(1).lower(), "USD") if cur else ""
        start = m.start() - len(cur.group(0)) if cur else m.start()
        approx = _approx_before(sentence, start)
        item = _classify_number(sentence, start, m.end(), value, _precision(digits, decimals[1:]), currency,
                                written=False, approx=approx)
        if item:
            found.append(item)
    for m in _WRITTEN_RE.finditer(sentence, low):
        if not free(m.start(), m.end()) or any(i.start < m.end() and m.start() < i.end for i in found):
            continue
        if m.group(1):
            value = _WRITTEN[re.sub(r"\s+", " ", m.group(1).lower())]
        elif m.group(2):
            value = _WRITTEN[m.group(2).lower()] + _UNITS_1_9.get((m.group(3) or "").lower(), 0)
        else:
            value = _WRITTEN[m.group(4).lower()]
        approx = bool(m.group(1)) or _approx_before(sentence, m.start())
        item = _classify_number(sentence, m.start(), m.end(), float(value), 1.0, "", written=True, approx=approx)
        if item:
            found.append(item)
    return _join_ranges(sentence, sorted(found, key=lambda i: i.start))


_RANGE_GAP_RE = re.compile(r"\s*(?:-|–|—|to|and|or)\s*$")


def _join_ranges(sentence: str, items: list[Item]) -> list[Item]:
    """'$2.7 to $3.0 billion', '10-12%': the first end of a range borrows the scale and kind of the second."""
    for i in range(len(items) - 1, 0, -1):
        a, b = items[i - 1], items[i]
        if not _RANGE_GAP_RE.fullmatch(sentence[a.end:b.start]) or a.value is None or b.value is None:
            continue
        if a.kind == NUMBER and b.kind in (PERCENT, MONEY, QUANTITY):
            scale = _scale_of(b)
            items[i - 1] = replace(a, kind=b.kind, value=a.value * scale, precision=a.precision * scale,
                                    unit=b.unit, dimension=b.dimension,
                                    base=a.value * scale * ((b.base or b.value) / b.value if b.value else 1.0))
        elif a.kind == MONEY and b.kind in (MONEY, NUMBER) and _scale_of(a) == 1.0 and _scale_of(b) > 1.0:
            scale = _scale_of(b)
            items[i - 1] = replace(a, value=a.value * scale, precision=a.precision * scale)
            if b.kind == NUMBER:
                items[i] = replace(b, kind=MONEY, unit=a.unit)
    return items


def _scale_of(item: Item) -> float:
    low = item.text.lower()
    for word, scale in (("trillion", 1e12), ("billion", 1e9), ("million", 1e6), ("thousand", 1e3)):
        if word in low:
            return scale
    m = _SCALE_SUFFIX_RE.search(low)
    return _SCALES[m.group(1)] if m else 1.0


_SCALE_SUFFIX_RE = re.compile(r"\d\s?(bn|mn|mln|tn|k|m|b)\b")


# ---------------------------------------------------------------- names

_TITLES = frozenset(["mr", "mrs", "ms", "dr", "prof", "sir", "dame", "mayor", "president", "chancellor", "minister", "secretary", "senator", "sen", "governor", "gov", "judge", "justice", "ceo", "cfo", "coo", "cto", "chairman", "chairwoman", "chair", "director", "commissioner", "councillor", "councilor", "inspector", "officer", "professor", "doctor", "sheriff", "chief", "premier", "king", "queen", "prince", "princess", "pope", "bishop", "coach", "rep", "representative", "gen", "general", "lt", "col", "capt", "sgt", "rev", "hon", "deputy", "vice", "acting", "interim", "former", "executive"])
_ORG_WORDS = frozenset(["inc", "corp", "corporation", "co", "ltd", "llc", "plc", "group", "holdings", "bank", "university", "college", "institute", "hospital", "clinic", "health", "healthcare", "council", "committee", "board", "agency", "department", "ministry", "authority", "commission", "association", "foundation", "partners", "capital", "systems", "technologies", "technology", "labs", "laboratories", "pharmaceuticals", "pharma", "therapeutics", "foods", "motors", "airlines", "airways", "energy", "steel", "industries", "services", "solutions", "analytics", "software", "cloud", "networks", "media", "news", "times", "post", "fund", "trust", "school", "center", "centre", "city", "county", "state", "federal", "national", "international", "global", "society", "union", "party", "court", "police", "infrastructure", "logistics"])
_COMMON_OPENERS = frozenset(["however", "meanwhile", "overall", "perhaps", "still", "also", "today", "yesterday", "tomorrow", "last", "next", "after", "before", "during", "while", "despite", "although", "because", "since", "if", "when", "as", "once", "then", "thus", "therefore", "instead", "only", "even", "both", "each", "every", "all", "most", "some", "many", "several", "few", "nearly", "almost", "about", "around", "more", "less", "net", "gross", "total", "revenue", "sales", "profit", "shares", "analysts", "officials", "researchers", "investors", "members", "directors", "engineers", "patients", "customers", "residents", "staff", "management", "earlier", "later", "separately", "similarly", "additionally", "further", "furthermore", "moreover", "notably", "importantly", "finally", "first", "second", "third", "here", "there", "these", "those", "this", "that", "it", "its", "our", "their", "his", "her", "we", "they", "you", "he", "she", "i", "yes", "no", "not", "new", "other", "such", "according", "under", "over", "in", "on", "at", "for", "with", "from", "by", "to", "of", "and", "or", "but", "so", "yet", "a", "an", "the", "what", "who", "which", "where", "how", "why"])
_CONNECTORS = frozenset({"of", "for", "de", "del", "da", "van", "von", "der", "la", "le", "du", "&"})
_ACRONYM_RE = re.compile(r"(?:[A-Z]\.){2,}")


@lru_cache(maxsize=16384)
def _core(token: str) -> str:
    t = token.lower().replace("’", "'")
    if t.endswith("'s"):
        t = t[:-2]
    elif t.endswith("'"):
        t = t[:-1]
    return t.replace(".", "")


# Runs of capitalized words, joined by single spaces or a connector ("Bank of America").
_CAP_RUN_RE = re.compile(
    r"(?<![\w'’.-])[A-Z][\w'’&.-]*(?:\s(?:(?:of|for|de|del|da|van|von|der|la|le|du|&)\s)?[A-Z][\w'’&.-]*)*")
_LONG_WORD_RE = re.compile(r"\b[A-Za-z]{4,}\b")
_SPACE_SPLIT_RE = re.compile(r"\S+")


def _opens_statement(sentence: str, start: int) -> bool:
    before = sentence[:start].rstrip()
    return not before.strip("\"'“‘(*") or before.endswith((":", "\"", "“", "‘"))


def _entity_items(sentence: str, lowercase_vocab: frozenset[str],
                  figures: tuple[tuple[int, int], ...] = ()) -> list[Item]:
    if sum(1 for w in sentence.split() if w[:1].isupper()) >= 4 and not sentence.rstrip("\"'”’)").endswith(
            (".", "!", "?")):
        longs = _LONG_WORD_RE.findall(sentence)
        if len(longs) >= 4 and all(w[0].isupper() for w in longs):
            return []  # a headline in title case: capitals say nothing there
    out: list[Item] = []
    for m in _CAP_RUN_RE.finditer(sentence):
        run: list[tuple[int, str]] = []
        for t in _SPACE_SPLIT_RE.finditer(m.group(0)):
            tok, start = t.group(0), m.start() + t.start()
            if any(a <= start < b for a, b in figures):  # "Q3", "May 5": a date, not part of a name
                _emit(sentence, run, lowercase_vocab, out)
                run = []
                continue
            low = tok.lower()
            if low in _CONNECTORS:
                if run and _core(run[-1][1]) in _ORG_WORDS | _TITLES:
                    run.append((start, tok))  # "Bank of America", "Mayor of London"
                else:
                    _emit(sentence, run, lowercase_vocab, out)  # "Aisha Mwangi of Acme" is two names
                    run = []
                continue
            ends = tok.endswith(".") and not _ACRONYM_RE.fullmatch(tok) and low[:-1] not in _ABBREVIATIONS
            run.append((start, tok.rstrip(".-") if ends else tok.rstrip("-")))
            if ends:  # a sentence-final dot inside the match: the name stops here
                _emit(sentence, run, lowercase_vocab, out)
                run = []
        _emit(sentence, run, lowercase_vocab, out)
    return out


def _emit(sentence: str, run: list[tuple[int, str]], vocab: frozenset[str], out: list[Item]) -> None:
    while run and run[-1][1].lower() in _CONNECTORS:
        run.pop()
    while run:
        low = _core(run[0][1])
        common = any(w in _COMMON_OPENERS or w in _STOPWORDS or w in vocab for w in {low, *low.split("-")})
        if (common and _opens_statement(sentence, run[0][0])) or low in _MONTHS or low in _WEEKDAYS or low == "i":
            run.pop(0)
            continue
        break
    parts = [_core(tok) for _, tok in run if tok.lower() not in _CONNECTORS]
    key = [p for p in parts if p and p not in _TITLES and p not in _MONTHS and p not in _WEEKDAYS]
    if not key or not any(ch.isalpha() for ch in "".join(key)):
        return
    a, b = run[0][0], run[-1][0] + len(run[-1][1])
    first = run[0][1]
    lone_opener = len(run) == 1 and _opens_statement(sentence, a) and not first.endswith(("'s", "’s"))
    out.append(Item(ENTITY, sentence[a:b], a, b, key=" ".join(key), unit=OPENER if lone_opener else _shape(key)))


def _shape(parts: list[str]) -> str:
    """'org' (names an organisation word), 'person' (two or three plain name words) or 'other'."""
    if any(p in _ORG_WORDS for p in parts):
        return "org"
    if 2 <= len(parts) <= 3 and all(p.isalpha() for p in parts):
        return "person"
    return "other"


# ---------------------------------------------------------------- items and parsing


def _figure_items(text: str, low: str) -> tuple[Item, ...]:
    dates = _date_items(text)
    return tuple(dates + _numeric_items(text, [(i.start, i.end) for i in dates], low))


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
        names = tuple(_entity_items(text, lowercase_vocab, tuple((i.start, i.end) for i in found)))
    if kinds is None or kinds - _FIGURE_KINDS - {ENTITY}:
        cues = _cue_kinds(text, low, found)
    items = found + names + cues
    if kinds is not None:
        items = tuple(i for i in items if i.kind in kinds)
    return tuple(sorted(items, key=lambda i: (i.start, i.end)))


def _cue_kinds(text: str, low: str, figures: tuple[Item, ...]) -> tuple[Item, ...]:
    dates = [i for i in figures if i.kind == DATE]
    hedges = [h for h in _cue_items(text, low, _HEDGE_RE, HEDGE)
              if not any(d.start <= h.start < d.end for d in dates)]  # "in May" is a month
    return tuple(_cue_items(text, low, _NEGATION_RE, NEGATION) + _quantifier_items(text, low) + hedges
                 + _cue_items(text, low, _CAUSAL_RE, CAUSAL))


_LOWER_WORD_RE = re.compile(r"(?<![\w'’])[a-z][a-z'’-]*")


@lru_cache(maxsize=1024)
def _vocab(text: str) -> frozenset[str]:
    """Words the text uses in lower case: "nursing" here means a capitalized "Nursing" is no name."""
    return frozenset(_core(w) for w in set(_LOWER_WORD_RE.findall(text)))


_PTB_FIXES = (
    (re.compile(r"\s+(n['’]t)\b", re.I), r"\1"),            # "do n't" -> "don't"
    (re.compile(r"\s+(['’](?:s|re|ve|ll|d|m))\b", re.I), r"\1"),  # "team 's" -> "team's"
    (re.compile(r"\s+([.,;:!?%)\]])"), r"\1"),              # "word ." -> "word."
    (re.compile(r"([(\[$£€])\s+"), r"\1"),                  # "( word" / "£ 200" -> "(word" / "£200"
    (re.compile(r"``\s*|\s*''"), '"'),
    (re.compile(r"([.!?])\s+(['’\"])\s+(?=[A-Z0-9'‘\"])"), r"\1\2 "),  # "wrong. ' Next" -> "wrong.' Next"
    (re.compile(r"-lrb-", re.I), "("), (re.compile(r"-rrb-", re.I), ")"),
)


@lru_cache(maxsize=1024)
def detokenize(text: str) -> str:
    """Undo Penn-Treebank-style tokenization ("do n't", "team 's", "word ."), common in datasets and
    some pipelines, so sentences split and negations align as they would in ordinary text.

        detokenize("I do n't know .")  # "I don't know."
    """
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
    for a, b in _sentence_spans(text):
        raw = text[a:b]
        lead = len(raw) - len(raw.lstrip())
        body = raw.strip()
        sentences.append(Sentence(body, a + lead, terms(body), vocab))
    return ParsedText(text, tuple(sentences), frozenset().union(*(s.terms for s in sentences)),
                      name_tokens(text), word_count(text))


@lru_cache(maxsize=4096)
def name_tokens(text: str) -> frozenset[str]:
    """Lowercased word tokens with possessives stripped, for looking up the parts of a name."""
    return frozenset(_core(t) for t in set(_WORD_RE.findall(text)))


_LETTER_WORD_RE = re.compile(r"[A-Za-z][A-Za-z'-]*")


@lru_cache(maxsize=256)
def _first_letters(text: str) -> str:
    """The first letter of every word, connectives skipped: an acronym the text spells out is a substring."""
    return "".join(w[0].lower() for w in _LETTER_WORD_RE.findall(text) if w.lower() not in ("of", "and", "the", "for"))


# ---------------------------------------------------------------- comparing items


def _comparable(a: Item, b: Item) -> bool:
    if (a.kind == PERCENT) != (b.kind == PERCENT) or (a.kind == MONEY) != (b.kind == MONEY):
        return False
    return a.kind != MONEY or a.unit == b.unit or not a.unit or not b.unit


def _close(x: float, y: float, precision: float, approx: bool) -> bool:
    if x == y:
        return True
    big = max(abs(x), abs(y))
    if approx:
        return abs(x - y) <= 0.1 * big + 1e-9
    # a rounded restatement ("$705 million" for "$705.1 million"), never a different amount ("$2,000" for "$2,400")
    return abs(x - y) <= min(0.5 * precision, 0.05 * big) + 1e-9 * big


def _base_precision(item: Item) -> float:
    return item.precision * (item.base / item.value) if item.base and item.value else item.precision


def values_match(a: Item, b: Item) -> bool:
    """Whether two numeric items state the same amount, allowing for rounding and approximate wording.

        values_match(extract_items("up 12%")[0], extract_items("rose 12 percent")[0])  # True
    """
    if a.value is None or b.value is None or not _comparable(a, b):
        return False
    approx = a.approx or b.approx
    if a.dimension and b.dimension:
        if a.dimension != b.dimension:
            return False
        return _close(a.base or 0.0, b.base or 0.0, max(_base_precision(a), _base_precision(b)), approx)
    return _close(a.value, b.value, max(a.precision, b.precision), approx)


def unit_differs(a: Item, b: Item) -> bool:
    """Same stated number, different unit or scale: "188 minutes" vs "188 hours", "$4.2m" vs "$4.2bn"."""
    if a.value is None or b.value is None:
        return False
    if a.dimension and b.dimension and a.dimension == b.dimension and a.unit != b.unit:
        return math.isclose(a.value, b.value, rel_tol=1e-9) and not values_match(a, b)
    if a.kind == b.kind == MONEY and a.unit == b.unit:
        sa, sb = _scale_of(a), _scale_of(b)
        return sa != sb and math.isclose(a.value / sa, b.value / sb, rel_tol=1e-9)
    return False


def date_supported(key: str, keys: frozenset[str]) -> bool:
    """Whether a date key is stated by a set of keys: a month is stated by any day in it, a day only by
    itself. ``date_supported("month:3", frozenset({"day:3-5"}))`` -> True."""
    if key in keys:
        return True
    kind, _, val = key.partition(":")
    if kind == "month":
        return any(k.startswith(f"day:{val}-") for k in keys)
    if kind == "year":
        return any(k.startswith("year:") and val in k for k in keys)
    return False


def date_granularity(key: str) -> str:
    kind = key.partition(":")[0]
    return "month" if kind == "day" else kind


def entity_supported(item: Item, doc: ParsedText) -> bool:
    """Whether every part of a name appears in a text (any case, possessives ignored), or an acronym
    the text spells out: "ER" is supported by "emergency room"."""
    for part in (p for chunk in item.key.split() for p in re.split(r"[-–]", chunk) if p):
        if part in doc.tokens or stem(part) in doc.terms or _SYNONYMS.get(stem(part)) in doc.terms:
            continue
        if part.isalpha() and 2 <= len(part) <= 5 and part in _first_letters(doc.text):
            continue
        if len(part) >= 4 and any(t[:4] == part[:4] and _DEMONYM_RE.search(max(t, part, key=len))
                                  for t in doc.tokens if len(t) >= 4):
            continue  # "Chinese" for "China", "Israel" for "Israeli"
        return False
    return True


_DEMONYM_RE = re.compile(r"(?:ese|ian|ish|can|ean|i)$")
