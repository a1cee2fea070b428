"""Words and terms: tokenizing, stemming, stopwords, detokenizing dataset text, word counts."""

from __future__ import annotations

import re
from functools import lru_cache

from sumwatch.tracer import word_count as tracer_word_count

WORD_RE = re.compile(r"[A-Za-z0-9]+(?:['’.,][A-Za-z0-9]+)*")
_TERM_RE = re.compile(r"[a-z0-9]+(?:[.,][0-9]+)*(?:'[a-z]+)?")


_NOT_ALNUM_RE = re.compile(r"[^a-z0-9\s]+")


def words(text: str) -> list[str]:
    """Lowercased word tokens with punctuation stripped: ``words("U.S. sales, up 4.2%")`` ->
    ``["us", "sales", "up", "42"]`` (what verbatim-copy checks compare)."""
    return _NOT_ALNUM_RE.sub("", text.lower()).split()


def word_pairs(text: str) -> list[tuple[str, str]]:
    """Adjacent word pairs of :func:`words`: ``word_pairs("Sales rose 4%")`` -> ``[("sales", "rose"),
    ("rose", "4")]``. The share of a summary's pairs found in its source is phrase-level support: a summary
    that rewires a source's words ("the council rejected" from "the council ... rejected") keeps its words
    and loses its pairs."""
    tokens = words(text)
    return list(zip(tokens, tokens[1:]))


# one word counter for the whole project: the tracer records summary.word_count with it
word_count = tracer_word_count


STOPWORDS = frozenset([
    "a", "an", "the", "and", "or", "but", "if", "then", "than", "that", "this", "these", "those", "there", "here",
    "of", "to", "in", "on", "at", "for", "by", "with", "from", "as", "into", "onto", "upon", "about", "over",
    "under", "after", "before", "during", "while", "within", "without", "across", "through", "throughout",
    "between", "among", "against", "per", "via", "is", "are", "was", "were", "be", "been", "being", "am", "do",
    "does", "did", "done", "doing", "has", "have", "had", "having", "will", "would", "shall", "should", "can",
    "could", "may", "might", "must", "it", "its", "it's", "they", "them", "their", "theirs", "he", "him", "his",
    "she", "her", "hers", "we", "us", "our", "ours", "you", "your", "yours", "i", "me", "my", "mine", "who", "whom",
    "whose", "which", "what", "when", "where", "why", "how", "also", "just", "only", "very", "too", "so", "such",
    "any", "both", "either", "each", "other", "another", "same", "own", "more", "most", "much", "many", "some",
    "few", "all", "every", "no", "not", "nor", "never", "none", "nothing", "out", "off", "again", "further", "once",
    "still", "yet", "even", "ever", "already", "about", "around", "approximately", "roughly", "nearly", "almost",
    "some", "said", "says", "say", "according", "didn't", "don't", "doesn't", "isn't", "wasn't", "weren't", "won't",
    "can't", "couldn't", "wouldn't", "shouldn't", "hasn't", "haven't", "hadn't", "aren't", "mr", "mrs", "ms", "dr",
    "new", "s", "percent", "pct", "dollar", "dollars", "euro", "euros", "usd",
])

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


SYNONYMS = _build_synonyms()


@lru_cache(maxsize=16384)
def _term(token: str) -> str:
    if token[0].isdigit():
        return token.replace(",", "")
    s = stem(token)
    return SYNONYMS.get(s, s)


def terms(text: str) -> frozenset[str]:
    """Content terms: stemmed, synonym-folded, stopwords and negations removed. Numbers stay as digits.

        terms("Sales grew 12%") == terms("revenue rose 12 percent")  # both {"revenu", "rise", "12"}
    """
    tokens = set(_TERM_RE.findall(text.lower().replace("’", "'"))) - STOPWORDS
    return frozenset(_term(t) for t in tokens if len(t) > 1 or t.isdigit())
