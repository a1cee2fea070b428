"""Cues read per clause: negations, quantifiers, hedges and causal connectives."""

from __future__ import annotations

import re

from .matching import Cue
from .records import QUANTIFIER, Item

NEGATION_RE = Cue(
    r"n['’]t\b|\b(?<!-)(?:not\b(?!\s+only\b|\s+least\b)|cannot\b|never\b|none\b|nothing\b|nobody\b|neither\b|"
    r"nor\b|without\b(?!\s+(?:saying|a\s+doubt|doubt|question|exception))|"
    r"no\b(?!\s+(?:later|more|less|fewer|sooner|earlier)\s+than\b|\s+doubt\b)|instead\s+of\b|rather\s+than\b|"
    r"(?:fail(?:s|ed|ing)?|declin(?:e|es|ed|ing)|refus(?:e|es|ed|ing))\s+to\b(?!\s+(?:a|an|the|about|around|"
    r"roughly|just|nearly|almost|some|its|their|[$€£\d])))(?!-)",  # not "never-before-seen", "no-fly"
    hints=("no", "n't", "n’t", "never", "without", "neither", "nor", "fail", "declin", "refus", "instead", "rather"))
# Predicates that carry a negation inside them: "rejected" says what "did not approve" says, so a
# paraphrase from one to the other is no polarity flip.
_NEGATIVE_PREDICATE_RE = Cue(
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
_QUANTIFIER_RE = Cue(
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

HEDGE_RE = Cue(
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

CAUSAL_RE = Cue(
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
_REASON_RE = Cue(
    r"\b(?:reasons?|blam(?:e|ed|es|ing)|root\s+cause|traced\s+to|responsible\s+for|behind\s+the|"
    r"reflect(?:s|ed|ing)|boost(?:ed|s)|help(?:ed|s)|hurt|weigh(?:ed|s)|explain(?:s|ed)|allow(?:ed|s)|"
    r"enabl(?:e|ed|es)|meant|forc(?:e|ed|es)|cit(?:e|ed|es|ing)|amid|in\s+light\s+of|given\s+that|"
    r"over\s+(?:[\w-]+\s+){0,3}(?:concerns?|fears?|worries|doubts)|(?:concerns?|fears?|worries)\s+(?:about|over|that)|"
    r"in\s+order\s+to|so\s+as\s+to|aim(?:s|ed)?\s+(?:to|at)|intended\s+to|"
    r"to\s+[\"“']?(?:protect|prevent|avoid|reduce|ensure|counter|offset|cut|curb|address))\b")
# Sequence words: "errors began after the deploy" suggests a cause inside one sentence, no more.
_SEQUENCE_RE = Cue(r"\b(?:after|following|when|since|so|then|once|as)\b")


_SPACES_RE = re.compile(r"\s+")


def cue_items(sentence: str, low: str, cue: Cue, kind: str) -> list[Item]:
    return [Item(kind, sentence[m.start():m.end()], m.start(), m.end(), key=_SPACES_RE.sub(" ", m.group(0).lower()))
            for m in cue.finditer(sentence, low)]


def quantifier_items(sentence: str, low: str) -> list[Item]:
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
    patterns = {"connective": (CAUSAL_RE,), "reason": (CAUSAL_RE, _REASON_RE),
                "sequence": (CAUSAL_RE, _REASON_RE, _SEQUENCE_RE)}[strength]
    low = text.lower()
    for pattern in patterns:
        m = next(pattern.finditer(text, low), None)
        if m:
            return text[m.start():m.end()]
    return None


def has_negation(text: str) -> bool:
    """Whether a clause holds an explicit negation: "did not approve", "no link", "failed to"."""
    return next(NEGATION_RE.finditer(text), None) is not None


def has_negative_word(text: str) -> bool:
    """Whether a clause holds a word that negates by itself: "rejected", "unchanged", "halted"."""
    return next(_NEGATIVE_PREDICATE_RE.finditer(text), None) is not None
