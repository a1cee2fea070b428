"""Offline names for clusters: class-based TF-IDF keywords and a rule-based title, cause, fix and severity.

    namer = KeywordNamer(top_n=5)
    keywords = namer.keywords([texts_of_cluster_0, texts_of_cluster_1])   # one keyword list per cluster
    name = namer.name(texts_of_cluster_0, {"factuality": 30}, {"number_mismatch": 28}, keywords=keywords[0])
    name.title, name.description, name.root_cause, name.fix, name.severity
    names = namer.name_all([NameRequest(texts, rubric_counts, mode_counts, keywords, contrast), ...])

A namer is anything with ``keywords(clusters)`` and ``name_all(requests)``; the pipeline calls
``name_all`` once with every cluster, so a namer that calls a model can do them concurrently.

c-TF-IDF treats each cluster's texts as one document: weight(t, c) = tf(t, c) * log(1 + A / f(t)), where
tf is the term's share of the cluster's words, A the average number of words per cluster and f(t) the
term's count across all clusters. Nothing here calls a model, so the same input always gives the same name.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field, replace

_TOKEN = re.compile(r"[a-z][a-z_]+")
_STOP_WORDS = """
a about above after again against all also am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having
he her here hers him his how i if in into is it its itself just me more most my no nor not now of off on
once only or other our out over own same she should so some such than that the their theirs them then there
these they this those through to too under until up very was we were what when where which while who whom
why will with would you your says said say source summary
"""
_STOP = frozenset(_STOP_WORDS.split())
_FIGURES = re.compile(r"^\d[\d,]* failing summar(?:y|ies) (?:mostly )?on [^()]*?\(\d+%\)\.")
_COUNT = re.compile(r"\b\d[\d,]*\s+(failing\s+)?(?:summar(?:y|ies)|failures?|spans?|traces?)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ClusterName:
    """What a cluster is called and what to do about it."""

    title: str
    description: str
    root_cause: str
    fix: str
    severity: str  # "low" | "medium" | "high"


@dataclass(frozen=True)
class NameRequest:
    """One cluster to name: its texts (representatives first), what failed, its keywords, texts of nearby
    points outside the cluster (for a namer that contrasts the two), and what its rubrics and failure modes
    mean (a rubric's question, a failure mode's line), as far as the caller's glossary says."""

    texts: list[str]
    rubric_counts: dict[str, int]
    failure_mode_counts: dict[str, int]
    keywords: list[str] = field(default_factory=list)
    contrast: list[str] = field(default_factory=list)
    meanings: dict[str, str] = field(default_factory=dict)


def glossary_key(rubric: str, failure_mode: str = "") -> str:
    """Where a glossary keeps a rubric's meaning (``"tone"``) or one of its failure modes' (``"tone/sarcasm"``):
    a failure mode is read under its rubric, since two rubrics may use one mode name for different things."""
    return f"{rubric}/{failure_mode}" if failure_mode else rubric


@dataclass(frozen=True)
class _Remedy:
    root_cause: str
    fix: str
    severity: str


# Failure modes that mean the same thing under different rubric vocabularies share one remedy.
_NUMBERS = _Remedy(
    "The model rewrites or recomputes figures instead of copying them from the source.",
    "Pass numbers through verbatim; instruct the model to copy figures and check each one against the source.",
    "high")
_ENTITIES = _Remedy(
    "Names, companies or people are swapped when several entities appear close together in the source.",
    "Ask the model to quote each named entity exactly as written and attribute every statement to its source.",
    "high")
_NEGATION = _Remedy(
    "Negations and polarity words are lost or inverted while the model compresses sentences.",
    "Keep negations explicit in the prompt's rules and check each claim's polarity against the source.",
    "high")
_QUANTIFIERS = _Remedy(
    "Hedged or partial statements in the source are generalised into stronger quantifiers.",
    "Tell the model to keep the source's quantifiers (some, most, few) and never strengthen them.",
    "medium")
_CAUSAL = _Remedy(
    "The model links events with causes that the source does not state.",
    "Forbid causal wording (because, due to, led to) unless the source states the link.",
    "high")
_UNSUPPORTED = _Remedy(
    "The model adds facts from its own knowledge that the source does not contain.",
    "Restrict the model to the source text and require evidence for each claim.",
    "high")
_DATES = _Remedy(
    "Dates and time references are shifted or recomputed relative to the wrong anchor.",
    "Copy dates verbatim and forbid relative time expressions unless the source uses them.",
    "high")
_FILLER = _Remedy(
    "The model pads summaries with stock phrases and preambles that carry no information.",
    "Ban filler phrases and preambles in the prompt and lower the length budget.",
    "low")
_HEDGES = _Remedy(
    "The model stacks hedges (perhaps, seems, might) on statements the source makes plainly.",
    "Tell the model to state what the source states with the source's own certainty, without softening words.",
    "low")
_LENGTH = _Remedy(
    "Summaries miss the requested length band.",
    "State the word budget explicitly and check the length before returning the summary.",
    "low")
_VERBATIM = _Remedy(
    "The model copies long stretches of the source instead of compressing them.",
    "Ask for a paraphrased summary with a compression target and penalise long copied spans.",
    "low")
_MISSING = _Remedy(
    "Key facts from the source are dropped in favour of less important details.",
    "List the facts that must appear (or ask the model to extract them first) before summarising.",
    "medium")
_DRIFT = _Remedy(
    "The summary wanders to topics that are not the source's main subject.",
    "Anchor the prompt on the source's main subject and drop off-topic material.",
    "medium")
_DEFAULT = _Remedy(
    "A recurring weakness in how the model summarises this kind of source.",
    "Review the representative examples and add a targeted instruction or example to the prompt.",
    "medium")

_REMEDIES: dict[str, _Remedy] = {
    **dict.fromkeys(("number_mismatch", "numerically_wrong", "number_changed", "percentage_mismatch",
                     "unit_mismatch", "unsupported_number", "new_number"), _NUMBERS),
    **dict.fromkeys(("entity_swap", "entity_swapped", "entity_wrong", "entity_modification",
                     "unsupported_entity"), _ENTITIES),
    **dict.fromkeys(("negation_flip", "negation_flipped", "polarity_wrong", "antonym_swap",
                     "negation_insertion_removal", "contradicted_claim"), _NEGATION),
    **dict.fromkeys(("quantifier_mismatch", "quantifier_drift", "quantifier_understated",
                     "overgeneralized_quantifier"), _QUANTIFIERS),
    **dict.fromkeys(("hedging", "hedging_inflated", "hedges"), _HEDGES),
    **dict.fromkeys(("causal_added", "added_causal_link"), _CAUSAL),
    **dict.fromkeys(("unsupported_claim", "hallucinated_fact_insertion", "partial"), _UNSUPPORTED),
    **dict.fromkeys(("date_mismatch", "temporal_wrong", "unsupported_date"), _DATES),
    **dict.fromkeys(("filler_padding", "filler_phrases", "chatty_preamble", "padded", "repeated_fact"),
                    _FILLER),
    **dict.fromkeys(("length_out_of_band", "over_band_length", "under_band_length", "under_compressed"),
                    _LENGTH),
    **dict.fromkeys(("verbatim_copy", "verbatim_restatement"), _VERBATIM),
    **dict.fromkeys(("missing_expected_fact", "missing_key_fact", "dropped_fact"), _MISSING),
    "topic_drift": _DRIFT,
}


# How a person would title an issue of each failure kind (the kind's own name follows in brackets):
# the kind, not the documents' topic, is what an issue is about.
_TITLES: dict[str, str] = {
    **dict.fromkeys(("number_mismatch", "numerically_wrong", "number_changed", "percentage_mismatch",
                     "unit_mismatch"), "Numbers that differ from the source"),
    **dict.fromkeys(("unsupported_number", "new_number"), "Numbers the source never states"),
    **dict.fromkeys(("entity_swap", "entity_swapped", "entity_wrong", "entity_modification"),
                    "Names swapped or misattributed"),
    "unsupported_entity": "Names the source never mentions",
    **dict.fromkeys(("negation_flip", "negation_flipped", "polarity_wrong", "antonym_swap",
                     "negation_insertion_removal"), "Negations dropped or flipped"),
    "contradicted_claim": "Claims that contradict the source",
    **dict.fromkeys(("quantifier_mismatch", "quantifier_drift", "quantifier_understated",
                     "overgeneralized_quantifier"), "Quantities stated more strongly than the source"),
    **dict.fromkeys(("causal_added", "added_causal_link"), "Causes the source does not state"),
    **dict.fromkeys(("unsupported_claim", "hallucinated_fact_insertion"), "Claims the source does not support"),
    **dict.fromkeys(("date_mismatch", "temporal_wrong", "unsupported_date"), "Dates that differ from the source"),
    **dict.fromkeys(("filler_phrases", "filler_padding"), "Filler phrases pad the summary"),
    "chatty_preamble": "Chatty preamble or sign-off",
    **dict.fromkeys(("hedging", "hedging_inflated"), "Stacked hedges soften stated facts"),
    "over_band_length": "Summaries longer than their band",
    "under_band_length": "Summaries too short for their band",
    "low_compression": "Summaries barely shorter than the source",
    **dict.fromkeys(("verbatim_copy", "verbatim_restatement"), "Sentences pasted from the source"),
    "repeated_fact": "The same fact stated twice",
    "missing_expected_fact": "Expected facts left out",
    "missing_key_fact": "Key source facts left out",
    "topic_drift": "Summaries that drift off topic",
}


def clip(text: str, limit: int) -> str:
    """Whitespace collapsed, cut to ``limit`` characters with an ellipsis: ``clip(reply, 300)``."""
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def tokenize(text: str) -> list[str]:
    """Lower-case words (underscores kept, so ``number_mismatch`` stays one term), stop words and numbers out."""
    return [t for t in _TOKEN.findall(text.lower()) if t not in _STOP]


class KeywordNamer:
    """c-TF-IDF keywords per cluster and a deterministic name from the dominant rubric and failure mode."""

    def __init__(self, top_n: int = 5) -> None:
        self.top_n = top_n

    def keywords(self, clusters: list[list[str]]) -> list[list[str]]:
        """The ``top_n`` c-TF-IDF terms of each cluster, given each cluster's texts."""
        counts = [Counter(t for text in texts for t in tokenize(text)) for texts in clusters]
        if not counts:
            return []
        across: Counter[str] = Counter()
        for c in counts:
            across.update(c)
        average = sum(across.values()) / len(counts)
        out: list[list[str]] = []
        for c in counts:
            total = sum(c.values()) or 1
            weights = {t: (n / total) * math.log(1 + average / across[t]) for t, n in c.items()}
            # sorting on (-weight, term) makes ties alphabetical, so the result never depends on dict order
            out.append([t for t, _ in sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[: self.top_n]])
        return out

    def name(self, cluster_texts: list[str], rubric_counts: dict[str, int], failure_mode_counts: dict[str, int],
             *, keywords: list[str] | None = None, meanings: dict[str, str] | None = None) -> ClusterName:
        """Name one cluster; pass ``keywords`` from :meth:`keywords` to use the contrastive terms, and
        ``meanings`` (a :class:`NameRequest`'s) to say what a failure mode without a remedy of its own means."""
        if keywords is None:
            keywords = self.keywords([cluster_texts])[0]
        rubric = _dominant(rubric_counts)
        mode = _dominant(failure_mode_counts)
        remedy = _REMEDIES.get(mode, _DEFAULT)
        size = len(cluster_texts)

        if mode in _TITLES:
            title = f"{_TITLES[mode]} ({mode.replace('_', ' ')})"
        else:  # a kind without a title of its own: its name and the cluster's most distinctive terms
            label = " ".join(p for p in (rubric, mode.replace("_", " ") if mode else "") if p) or "failures"
            said = set(rubric.split("_")) | set(mode.split("_"))  # terms that only repeat the label add nothing
            extra = [k.replace("_", " ") for k in keywords
                     if k not in (rubric, mode) and not set(k.split("_")) <= said][:2]
            words = label.split() + (["-"] + ", ".join(extra).split() if extra else [])
            title = " ".join(words[:10]).capitalize()

        terms = ", ".join(keywords[:5]) or "no distinctive terms"
        description = f"{figures_sentence(size, rubric_counts, failure_mode_counts)} Typical terms: {terms}."
        meaning = (meanings or {}).get(mode, "") if mode not in _REMEDIES else ""
        root_cause = remedy.root_cause
        if meaning:  # a team's own failure mode: what its definition says it is beats a generic cause
            description += f" {mode.replace('_', ' ').capitalize()}: {_sentence(meaning)}"
            question = (meanings or {}).get(rubric, "")
            root_cause = (f"Summaries fail the {rubric} check" + (f", which asks: {_sentence(question)}" if question
                                                                 else ".")
                          + f" The failing ones show {mode.replace('_', ' ')}.")
        return ClusterName(title, description, root_cause, remedy.fix, remedy.severity)

    def name_all(self, requests: list[NameRequest]) -> list[ClusterName]:
        # meanings only where there are some: a subclass whose name() predates them keeps working
        return [self.name(r.texts, r.rubric_counts, r.failure_mode_counts, keywords=r.keywords,
                          **({"meanings": r.meanings} if r.meanings else {})) for r in requests]

    def __repr__(self) -> str:
        return f"KeywordNamer(top_n={self.top_n})"


def figures_sentence(size: int, rubric_counts: dict[str, int], failure_mode_counts: dict[str, int],
                     prefer: tuple[str, str] = ("", "")) -> str:
    """The sentence of a description that carries the cluster's figures, from one run's counts:
    ``figures_sentence(13, {"factuality": 13}, {"numerically_wrong": 12})`` ->
    ``"13 failing summaries mostly on factuality with failure mode numerically_wrong (92%)."``
    ``prefer``: the (rubric, failure mode) named when tied for the most (the issue's own), else the first by name."""
    rubric, mode = _dominant(rubric_counts, prefer[0]), _dominant(failure_mode_counts, prefer[1])
    share = _share(failure_mode_counts, mode) if mode else _share(rubric_counts, rubric)
    return (f"{size} failing {_plural(size, 'summary', 'summaries')} "
            f"{'mostly ' if share < 0.999 else ''}on {rubric or 'an unknown rubric'}"
            f"{f' with failure mode {mode}' if mode else ''} ({share:.0%}).")


def with_figures(name: ClusterName, size: int, rubric_counts: dict[str, int],
                 failure_mode_counts: dict[str, int], prefer: tuple[str, str] = ("", "")) -> ClusterName:
    """``name`` with the figures of its description taken from this run's counts, whoever wrote it and when:
    the keyword namer's figures sentence is written again, and a count of failing summaries (or failures,
    spans, traces) in a model's words becomes this run's ``size``. An issue keeps its name across runs, so
    without this its description would keep the counts of the run that named it."""
    text = _FIGURES.sub(figures_sentence(size, rubric_counts, failure_mode_counts, prefer), name.description, count=1)

    def count(match: re.Match[str]) -> str:
        failing = "failing " if match.group(1) else ""
        return f"{size} {failing}{_plural(size, 'summary', 'summaries')}"
    text = _COUNT.sub(count, text)
    return name if text == name.description else replace(name, description=text)


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text if text.endswith((".", "?", "!")) else text + "."


def _dominant(counts: dict[str, int], prefer: str = "") -> str:
    # highest count, ties to ``prefer`` and then to the alphabetically first name; empty names do not count
    items = [(k, v) for k, v in counts.items() if k]
    return min(items, key=lambda kv: (-kv[1], kv[0] != prefer, kv[0]))[0] if items else ""


def _share(counts: dict[str, int], key: str) -> float:
    total = sum(counts.values())
    return counts.get(key, 0) / total if total else 0.0


def _plural(n: int, one: str, many: str) -> str:
    return one if n == 1 else many
