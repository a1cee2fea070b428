"""Proper names, by capitalization, and whether a name is supported by a text."""

from __future__ import annotations

import re
from functools import lru_cache

from .dates import MONTHS, WEEKDAYS
from .records import ENTITY, OPENER, Item
from .sentences import ABBREVIATIONS
from .words import STOPWORDS

_TITLES = frozenset([
    "mr", "mrs", "ms", "dr", "prof", "sir", "dame", "mayor", "president", "chancellor", "minister", "secretary",
    "senator", "sen", "governor", "gov", "judge", "justice", "ceo", "cfo", "coo", "cto", "chairman", "chairwoman",
    "chair", "director", "commissioner", "councillor", "councilor", "inspector", "officer", "professor", "doctor",
    "sheriff", "chief", "premier", "king", "queen", "prince", "princess", "pope", "bishop", "coach", "rep",
    "representative", "gen", "general", "lt", "col", "capt", "sgt", "rev", "hon", "deputy", "vice", "acting",
    "interim", "former", "executive",
])
_ORG_WORDS = frozenset([
    "inc", "corp", "corporation", "co", "ltd", "llc", "plc", "group", "holdings", "bank", "university", "college",
    "institute", "hospital", "clinic", "health", "healthcare", "council", "committee", "board", "agency",
    "department", "ministry", "authority", "commission", "association", "foundation", "partners", "capital",
    "systems", "technologies", "technology", "labs", "laboratories", "pharmaceuticals", "pharma", "therapeutics",
    "foods", "motors", "airlines", "airways", "energy", "steel", "industries", "services", "solutions", "analytics",
    "software", "cloud", "networks", "media", "news", "times", "post", "fund", "trust", "school", "center",
    "centre", "city", "county", "state", "federal", "national", "international", "global", "society", "union",
    "party", "court", "police", "infrastructure", "logistics", "house", "office", "parliament", "congress",
    "senate", "government", "administration", "club", "united", "stadium", "park", "street", "goods", "brands",
    "medicines", "biopharma", "biotech", "biosciences",
])
_COMMON_OPENERS = frozenset([
    "however", "meanwhile", "overall", "perhaps", "still", "also", "today", "yesterday", "tomorrow", "last", "next",
    "after", "before", "during", "while", "despite", "although", "because", "since", "if", "when", "as", "once",
    "then", "thus", "therefore", "instead", "only", "even", "both", "each", "every", "all", "most", "some", "many",
    "several", "few", "nearly", "almost", "about", "around", "more", "less", "net", "gross", "total", "revenue",
    "sales", "profit", "shares", "analysts", "officials", "researchers", "investors", "members", "directors",
    "engineers", "patients", "customers", "residents", "staff", "management", "earlier", "later", "separately",
    "similarly", "additionally", "further", "furthermore", "moreover", "notably", "importantly", "finally", "first",
    "second", "third", "here", "there", "these", "those", "this", "that", "it", "its", "our", "their", "his", "her",
    "we", "they", "you", "he", "she", "i", "yes", "no", "not", "new", "other", "such", "according", "under", "over",
    "in", "on", "at", "for", "with", "from", "by", "to", "of", "and", "or", "but", "so", "yet", "a", "an", "the",
    "what", "who", "which", "where", "how", "why",
])
_CONNECTORS = frozenset({"of", "for", "de", "del", "da", "van", "von", "der", "la", "le", "du", "&"})
_ACRONYM_RE = re.compile(r"(?:[A-Z]\.){2,}")


@lru_cache(maxsize=16384)
def core(token: str) -> str:
    t = token.lower().replace("’", "'")
    if t.endswith("'s"):
        t = t[:-2]
    elif t.endswith("'"):
        t = t[:-1]
    return t.replace(".", "")


# Runs of capitalized words, joined by single spaces or a connector ("Bank of America").
_CAP_RUN_RE = re.compile(
    r"(?<![\w'’.-])[A-ZÀ-ÖØ-Þ][\w'’&.-]*(?:\s(?:(?:of|for|de|del|da|van|von|der|la|le|du|&)\s)?[A-ZÀ-ÖØ-Þ][\w'’&.-]*)*")
_LONG_WORD_RE = re.compile(r"\b[A-Za-z]{4,}\b")
_SPACE_SPLIT_RE = re.compile(r"\S+")


def _opens_statement(sentence: str, start: int) -> bool:
    before = sentence[:start].rstrip()
    return not before.strip("\"'“‘(*") or before.endswith((":", "\"", "“", "‘"))


# a capitalized word joined to a lowercase one by a hyphen: a modifier ("AI-based", "Sims-centric")
_COMPOUND_MODIFIER_RE = re.compile(r"[A-Z][\w'’]*(?:-[A-Z][\w'’]*)*-[a-z][a-z-]*")


def entity_items(sentence: str, lowercase_vocab: frozenset[str],
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
                if run and core(run[-1][1]) in _ORG_WORDS | _TITLES:
                    run.append((start, tok))  # "Bank of America", "Mayor of London"
                else:
                    _emit(sentence, run, lowercase_vocab, out)  # "Aisha Mwangi of Acme" is two names
                    run = []
                continue
            if _COMPOUND_MODIFIER_RE.fullmatch(tok.rstrip(".,;:")):
                # "Sims-centric", "AI-based": a name turned into a describing word, not a name to check
                _emit(sentence, run, lowercase_vocab, out)
                run = []
                continue
            ends = tok.endswith(".") and not _ACRONYM_RE.fullmatch(tok) and low[:-1] not in ABBREVIATIONS
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
        low = core(run[0][1])
        common = any(w in _COMMON_OPENERS or w in STOPWORDS or w in vocab for w in {low, *low.split("-")})
        if (common and _opens_statement(sentence, run[0][0])) or low in MONTHS or low in WEEKDAYS or low == "i":
            run.pop(0)
            continue
        break
    if len(run) >= 2 and all(sum(ch.isalpha() for ch in tok) >= 2 and tok.isupper() for _, tok in run):
        return  # "CLICK HERE to read more", "WATCH THE VIDEO": shouting, not a name
    parts = [core(tok) for _, tok in run if tok.lower() not in _CONNECTORS]
    key = [p for p in parts if p and p not in _TITLES and p not in MONTHS and p not in WEEKDAYS]
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


_CAPITALIZED_RE = re.compile(r"(?<![\w'’])[A-ZÀ-ÖØ-Þ][\w'’.-]*")


@lru_cache(maxsize=1024)
def capitalized_words(text: str) -> frozenset[str]:
    """The words a text writes with a capital, as name keys: ``capitalized_words("Mr Salmond's party")``
    -> ``{"mr", "salmond"}``."""
    return frozenset(core(w.rstrip(".-")) for w in _CAPITALIZED_RE.findall(text))


@lru_cache(maxsize=4096)
def given_names(text: str, surname: str) -> frozenset[str]:
    """The capitalized words a text puts right before a surname, titles and possessives left out: the
    first names it gives that person. ``given_names("Mr Salmond met Alex Salmond.", "salmond")`` ->
    ``{"alex"}``; "Norway's Kristoff" gives none."""
    pattern = re.compile(r"(?<![\w'’])([A-ZÀ-ÖØ-Þ][\w'’.-]*)\s+" + re.escape(surname) + r"(?![\w])", re.IGNORECASE)
    out = set()
    for m in pattern.finditer(text):
        word = m.group(1)
        if not word[0].isupper() or word.endswith(("'s", "’s", "'", "’")):
            continue
        low = core(word)
        if low in _TITLES or low in _COMMON_OPENERS or low in STOPWORDS or low in MONTHS or low in WEEKDAYS:
            continue
        out.add(low)
    return frozenset(out)


# Roles a name is given, each with its spellings: "CEO Raj Menon", "Raj Menon, the chief financial officer".
_ROLES = (
    ("ceo", r"ceo|chief\s+executive(?:\s+officer)?"),
    ("cfo", r"cfo|chief\s+financial\s+officer|finance\s+(?:chief|director)"),
    ("coo", r"coo|chief\s+operating\s+officer"),
    ("cto", r"cto|chief\s+technology\s+officer"),
    ("chair", r"chair|chairman|chairwoman|chairperson"),
    ("vice president", r"vice[\s-]+president|vp"),
    ("president", r"(?<!vice\s)(?<!vice-)president"),
    ("founder", r"co-?founder|founder"),
    ("spokesperson", r"spokes(?:man|woman|person)"),
    ("coach", r"(?:head\s+)?coach|manager"),
    ("captain", r"captain|skipper"),
    ("mayor", r"mayor"),
    ("governor", r"governor"),
    ("senator", r"senator"),
    ("prime minister", r"prime\s+minister|premier"),
)
_ROLE_RES = tuple((role, re.compile(r"\b(?:" + spelled + r")\b", re.IGNORECASE)) for role, spelled in _ROLES)
# the role words right before a name ("the company's CFO, Raj Menon") or in an apposition after it
_ROLE_BEFORE_RE = re.compile(r"(?:[\w'’-]+\s+){0,3}[\w'’-]+,?\s+$")
_ROLE_AFTER_RE = re.compile(r",\s+[^,.;:()]{1,40}(?=[,.;:)]|$)")


def _roles_in(text: str) -> set[str]:
    return {role for role, pattern in _ROLE_RES if pattern.search(text)}


def roles_near(sentence: str, start: int, end: int) -> frozenset[str]:
    """The roles a sentence gives the name at ``sentence[start:end]``, in the words right before it or in
    an apposition after it: ``roles_near("Raj Menon, the CFO, said so.", 0, 9)`` -> ``{"cfo"}``."""
    before = _ROLE_BEFORE_RE.search(sentence, 0, start)
    after = _ROLE_AFTER_RE.match(sentence, end)
    found = _roles_in(sentence[start:end])
    if before:
        found |= _roles_in(before.group(0))
    if after:
        found |= _roles_in(after.group(0))
    return frozenset(found)


# the words before a name that make it a place: "at Anfield", "in Halifax", "near Curitiba"
_PLACE_BEFORE_RE = re.compile(r"\b(?:at|in|near|outside|inside|across|throughout|around)\s+(?:the\s+)?$", re.IGNORECASE)
_THE_BEFORE_RE = re.compile(r"\bthe\s+$", re.IGNORECASE)
_POSSESSIVE_RE = re.compile(r"(?:'s|’s|s'|s’)$")
_HEAD_AFTER_RE = re.compile(r"\s+([a-z][a-z-]+)\b")


def name_kind(sentence: str, item: Item) -> str:
    """What a name is as the sentence uses it: its shape ("person", "org", "other"), or "place" after a
    place word ("at Anfield", "in Port Adair"). Two plain words after "the" name a thing, not a person
    ("the Nimbus Notes service"). ``name_kind("Fans gathered at Anfield.", item_for_anfield)`` -> "place"."""
    shape = item.unit
    if shape == "org":
        return shape
    before = sentence[:item.start]
    if _PLACE_BEFORE_RE.search(before):
        return "place"
    if shape == "person" and _THE_BEFORE_RE.search(before) and core(item.text.split()[0]) not in _TITLES:
        return "other"
    return shape


def possessed_noun(sentence: str, item: Item) -> str:
    """The common noun a possessive name owns: ``possessed_noun("Rockhurst's council voted.", item)`` ->
    "council"; "" when the name is no possessive."""
    if not _POSSESSIVE_RE.search(item.text):
        return ""
    m = _HEAD_AFTER_RE.match(sentence, item.end)
    return m.group(1) if m and m.group(1) not in STOPWORDS else ""


def names_noun(sentence: str, item: Item, noun: str) -> bool:
    """Whether a name ends in ``noun`` or governs it: "Ashbury City Council" and "Rockhurst council
    members" both name a council."""
    if item.key.split()[-1:] == [noun]:
        return True
    m = _HEAD_AFTER_RE.match(sentence, item.end)
    return m is not None and m.group(1) == noun
