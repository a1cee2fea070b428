"""The demo workload generator: determinism, mode allocation, document shape, and that every
planted failure is really present (and good summaries really are good)."""

from __future__ import annotations

import json
import re
import time
from collections import Counter

import pytest

from sumwatch.monitor.demo import BANDS, DEFAULT_RATES, PLANTED_MODES, DemoCase, generate_workload

DOMAINS = {"finance", "healthcare", "meetings", "news", "technology"}

FILLERS = ("it is important to note that", "in today's fast-paced world", "at the end of the day",
           "it goes without saying that", "all things considered", "needless to say")
HEDGE_RE = re.compile(r"\b(?:may|might|possibly|could|seems|likely|perhaps|somewhat|arguably)\b|\bappears to\b",
                      re.IGNORECASE)
PREAMBLE_RE = re.compile(r"^(?:sure|certainly|of course|absolutely|happy to help|here(?:'s| is))\b", re.IGNORECASE)
CLOSING_RE = re.compile(r"let me know|hope this helps|feel free to ask|would you like me", re.IGNORECASE)
NEGATION_RE = re.compile(r"\b(?:not|no|never|none|nothing|neither|nor|without)\b|n't", re.IGNORECASE)
CAUSAL_RE = re.compile(r"\b(?:because|due to|as a result|driven by)\b", re.IGNORECASE)
NUMBER_RE = re.compile(r"\d+(?:[.,]\d+)*")


# ---------------------------------------------------------------- helpers


def words(text: str) -> int:
    """Tokens holding a letter or digit (a bullet's dash is not a word)."""
    return sum(1 for tok in text.split() if any(ch.isalnum() for ch in tok))


def norm_words(text: str) -> list[str]:
    return [w for w in (re.sub(r"[^\w]", "", t) for t in text.lower().split()) if w]


def shares_run(summary: str, source: str, n: int) -> bool:
    """Whether the summary repeats n consecutive source words (lowercased, punctuation stripped)."""
    src = norm_words(source)
    grams = {tuple(src[i:i + n]) for i in range(len(src) - n + 1)}
    out = norm_words(summary)
    return any(tuple(out[i:i + n]) in grams for i in range(len(out) - n + 1))


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n+", text) if s.strip()]


def filler_count(text: str) -> int:
    low = text.lower()
    return sum(low.count(f) for f in FILLERS)


def numbers(text: str) -> set[str]:
    return set(NUMBER_RE.findall(text))


def in_band(text: str, band: str) -> bool:
    lo, hi = BANDS[band]
    return lo <= words(text) <= hi


def word_count_of(phrase: str, text: str) -> int:
    return len(re.findall(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", text, re.IGNORECASE))


@pytest.fixture(scope="module")
def workload() -> list[DemoCase]:
    return generate_workload(200, seed=7)


@pytest.fixture(scope="module")
def by_mode() -> dict[str, list[DemoCase]]:
    """Many cases per mode: one workload per mode with that mode's rate at 1.0."""
    return {m: generate_workload(60, seed=11, rates={m: 1.0}) for m in ("none",) + PLANTED_MODES}


# ---------------------------------------------------------------- constants and determinism


def test_public_constants():
    assert PLANTED_MODES == ("number_changed", "quantifier_drift", "entity_swapped", "negation_flipped",
                             "causal_added", "hedging_inflated", "filler_padding", "verbatim_restatement",
                             "length_out_of_band", "chatty_preamble")
    assert DEFAULT_RATES["none"] == pytest.approx(0.40)
    assert all(DEFAULT_RATES[m] == pytest.approx(0.06) for m in PLANTED_MODES)
    assert set(DEFAULT_RATES) == {"none", *PLANTED_MODES}
    assert sum(DEFAULT_RATES.values()) == pytest.approx(1.0)
    assert BANDS == {"tldr": (12, 40), "exec_summary": (40, 110), "abstract": (60, 150),
                     "action_recap": (25, 120)}


def test_same_seed_gives_identical_output():
    assert generate_workload(80, seed=3) == generate_workload(80, seed=3)
    rates = {"none": 0.5, "number_changed": 0.5}
    assert generate_workload(30, seed=9, rates=rates) == generate_workload(30, seed=9, rates=rates)


def test_different_seed_gives_different_output():
    a, b = generate_workload(80, seed=3), generate_workload(80, seed=4)
    assert [c.source for c in a] != [c.source for c in b]
    assert [c.planted_mode for c in a] != [c.planted_mode for c in b]


def test_cases_are_frozen(workload):
    with pytest.raises(AttributeError):
        workload[0].summary = "changed"  # type: ignore[misc]


# ---------------------------------------------------------------- mode allocation


def test_exact_mode_counts_for_200(workload):
    counts = Counter(c.planted_mode for c in workload)
    assert counts["none"] == 80
    assert all(counts[m] == 12 for m in PLANTED_MODES)
    assert sum(counts.values()) == 200


def test_modes_are_shuffled_not_blocked(workload):
    first_40 = Counter(c.planted_mode for c in workload[:40])
    assert len(first_40) >= 5


def test_largest_remainder_rounding():
    # quotas 3.5 / 2.1 / 1.4 -> floors 3 / 2 / 1, the leftover goes to the largest remainder (none)
    rates = {"none": 0.5, "number_changed": 0.3, "chatty_preamble": 0.2}
    counts = Counter(c.planted_mode for c in generate_workload(7, seed=1, rates=rates))
    assert counts == Counter({"none": 4, "number_changed": 2, "chatty_preamble": 1})


def test_rounding_keeps_the_total():
    # plain rounding would give 3 + 3 + 3 = 9 cases; largest remainder hands out the tenth
    third = 1 / 3
    rates = {"none": third, "number_changed": third, "entity_swapped": third}
    counts = Counter(c.planted_mode for c in generate_workload(10, seed=1, rates=rates))
    assert sorted(counts.values()) == [3, 3, 4]
    # default rates with n=5: quotas 2.0 and ten times 0.3 -> 2 good cases and 3 planted
    counts = Counter(c.planted_mode for c in generate_workload(5, seed=1))
    assert counts["none"] == 2 and sum(counts.values()) == 5 and max(counts.values()) == 2


def test_zero_rate_modes_never_appear():
    cases = generate_workload(50, seed=2, rates={"none": 0.9, "filler_padding": 0.1})
    assert Counter(c.planted_mode for c in cases) == Counter({"none": 45, "filler_padding": 5})


# ---------------------------------------------------------------- documents


def test_documents_are_well_formed(workload):
    for c in workload:
        assert c.domain in DOMAINS
        assert 220 <= words(c.source) <= 450, (c.document_id, words(c.source))
        assert c.title.strip()
        assert NEGATION_RE.search(c.source), f"{c.document_id} has no negated statement"
        assert len(numbers(c.source)) >= 4, c.document_id
        assert not HEDGE_RE.search(c.source), c.document_id
        assert not CAUSAL_RE.search(c.source), c.document_id
        assert 3 <= len(c.expected_facts) <= 8
        assert all(isinstance(f, str) and f for f in c.expected_facts)
        assert c.band in BANDS


def test_document_ids_are_unique_and_stable(workload):
    ids = [c.document_id for c in workload]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[a-z]+-\d{4}", i) for i in ids)
    assert len({c.source for c in workload}) == len(workload)
    again = generate_workload(200, seed=7)
    assert [c.document_id for c in again] == ids


def test_domains_share_the_workload_evenly(workload):
    counts = Counter(c.domain for c in workload)
    assert set(counts) == DOMAINS
    assert max(counts.values()) - min(counts.values()) <= 1


def test_bands_by_domain(workload):
    meetings = [c for c in workload if c.domain == "meetings"]
    recaps = sum(c.band == "action_recap" for c in meetings)
    assert recaps > len(meetings) / 2
    others = [c for c in workload if c.domain != "meetings"]
    assert all(c.band in ("tldr", "exec_summary", "abstract") for c in others)
    assert set(Counter(c.band for c in others)) == {"tldr", "exec_summary", "abstract"}


# ---------------------------------------------------------------- good summaries


def _check_good(c: DemoCase, text: str) -> None:
    assert in_band(text, c.band), (c.document_id, c.band, words(text), text)
    if c.band == "tldr":
        assert 1 <= len(sentences(text)) <= 2, text
    elif c.band == "exec_summary":
        assert 3 <= len(sentences(text)) <= 5, text
    elif c.band == "action_recap":
        lines = text.splitlines()
        assert lines and all(re.fullmatch(r"- [A-Z][a-z]+ [A-Z][a-z]+: .+ by [A-Z][a-z]+ \d{1,2}", ln)
                             for ln in lines), text
    assert not shares_run(text, c.source, 8), (c.document_id, text)
    assert filler_count(text) == 0, text
    assert not HEDGE_RE.search(text), text
    assert not PREAMBLE_RE.search(text) and not CLOSING_RE.search(text), text
    assert not CAUSAL_RE.search(text), text
    assert numbers(text) <= numbers(c.source), (numbers(text) - numbers(c.source), text)


def test_good_summaries_are_good(workload, by_mode):
    good = [c for c in workload if c.planted_mode == "none"] + by_mode["none"]
    for c in good:
        assert c.summary == c.reference_summary
        assert c.planted_detail == {}
        _check_good(c, c.summary)


def test_reference_summaries_of_planted_cases_are_good(workload):
    for c in workload:
        _check_good(c, c.reference_summary)


def test_planted_details_are_json_and_non_empty(workload):
    for c in workload:
        json.dumps(c.planted_detail)
        if c.planted_mode == "none":
            assert c.planted_detail == {}
        else:
            assert c.planted_detail
            assert c.summary != c.reference_summary, (c.planted_mode, c.summary)


# ---------------------------------------------------------------- planted failures


def test_number_changed(by_mode):
    for c in by_mode["number_changed"]:
        d = c.planted_detail
        new_numbers = numbers(c.summary) - numbers(c.source)
        assert new_numbers, c.summary
        assert numbers(d["planted"]) <= new_numbers
        assert d["original"] in c.reference_summary and d["planted"] in c.summary
        assert d["original"] != d["planted"]


def test_quantifier_drift(by_mode):
    for c in by_mode["quantifier_drift"]:
        d = c.planted_detail
        assert d["original"] != d["planted"]
        assert word_count_of(d["original"], c.source) >= 1, (d, c.source)
        assert word_count_of(d["original_phrase"], c.reference_summary) >= 1
        assert word_count_of(d["planted_phrase"], c.summary) >= 1
        # undoing the recorded change gives back the good summary
        undone = c.summary.lower().replace(d["planted_phrase"].lower(), d["original_phrase"].lower())
        assert undone == c.reference_summary.lower()


def test_entity_swapped(by_mode):
    for c in by_mode["entity_swapped"]:
        d = c.planted_detail
        assert d["entity_type"] in ("person", "company", "drug", "city", "organization")
        s, r = c.summary.lower(), c.reference_summary.lower()
        planted, original = d["planted"].lower(), d["original"].lower()
        assert s.count(planted) > r.count(planted), d
        assert s.count(original) < r.count(original), d
        assert original in c.source.lower()
        if d["replacement_from"] == "outside":
            assert planted not in c.source.lower()
        else:
            assert planted in c.source.lower()


def test_negation_flipped(by_mode):
    for c in by_mode["negation_flipped"]:
        d = c.planted_detail
        assert len(NEGATION_RE.findall(c.summary)) != len(NEGATION_RE.findall(c.reference_summary))
        assert bool(NEGATION_RE.search(d["original"])) != bool(NEGATION_RE.search(d["planted"]))
        assert d["planted"].lower() in c.summary.lower()


def test_causal_added(by_mode):
    for c in by_mode["causal_added"]:
        d = c.planted_detail
        conn = d["connective"]
        assert conn in ("because", "as a result of", "as a result", "due to", "driven by")
        assert conn in c.summary.lower()
        assert conn not in c.reference_summary.lower()
        assert conn not in c.source.lower()
        assert d["sentence"] in c.summary
        assert d["effect"].lower() in d["sentence"].lower()
        assert d["effect_fact"] != d["cause_fact"]


def test_hedging_inflated(by_mode):
    for c in by_mode["hedging_inflated"]:
        assert any(len(HEDGE_RE.findall(s)) >= 3 for s in sentences(c.summary)), c.summary
        assert not HEDGE_RE.search(c.reference_summary)


def test_filler_padding(by_mode):
    for c in by_mode["filler_padding"]:
        assert filler_count(c.summary) >= 2, c.summary
        assert words(c.summary) > words(c.reference_summary)
        # the facts stay as they were: no number is added or dropped
        assert numbers(c.summary) == numbers(c.reference_summary)


def test_verbatim_restatement(by_mode):
    for c in by_mode["verbatim_restatement"]:
        assert shares_run(c.summary, c.source, 12), c.summary
        assert not shares_run(c.reference_summary, c.source, 8)
        assert all(span in c.source for span in c.planted_detail["copied_spans"])


def test_length_out_of_band(by_mode):
    directions = set()
    for c in by_mode["length_out_of_band"]:
        lo, hi = BANDS[c.band]
        n = words(c.summary)
        assert n > 2 * hi or n < lo / 2, (c.band, n)
        assert c.planted_detail["direction"] == ("too_long" if n > 2 * hi else "too_short")
        assert numbers(c.summary) <= numbers(c.source)
        directions.add(c.planted_detail["direction"])
    assert directions == {"too_long", "too_short"}


def test_chatty_preamble(by_mode):
    for c in by_mode["chatty_preamble"]:
        d = c.planted_detail
        assert PREAMBLE_RE.search(c.summary), c.summary
        assert c.summary.startswith(d["preamble"])
        assert c.reference_summary in c.summary
        if d["closing"]:
            assert c.summary.endswith(d["closing"]) and CLOSING_RE.search(c.summary)


def test_only_one_failure_is_planted(by_mode):
    """Signals of other modes stay absent, so each case has exactly the failure it records."""
    for mode, cases in by_mode.items():
        for c in cases:
            s = c.summary
            if mode != "verbatim_restatement":
                assert not shares_run(s, c.source, 8), (mode, s)
            if mode != "hedging_inflated":
                assert not HEDGE_RE.search(s), (mode, s)
            if mode != "filler_padding":
                assert filler_count(s) == 0, (mode, s)
            if mode != "chatty_preamble":
                assert not PREAMBLE_RE.search(s), (mode, s)
            if mode != "causal_added":
                assert not CAUSAL_RE.search(s), (mode, s)
            if mode != "number_changed":
                assert numbers(s) <= numbers(c.source), (mode, s)
            if mode in ("number_changed", "quantifier_drift", "entity_swapped", "negation_flipped"):
                assert in_band(s, c.band), (mode, words(s), s)


# ---------------------------------------------------------------- arguments and speed


@pytest.mark.parametrize("n, rates, message", [
    (0, None, r"n must be at least 1"),
    (-5, None, r"n must be at least 1"),
    (1.5, None, r"n must be an integer"),
    (10, {"none": 0.5, "typo_mode": 0.5}, r"unknown mode.*typo_mode"),
    (10, {"none": 1.2, "number_changed": -0.2}, r"'number_changed' is negative"),
    (10, {"none": 0.5, "number_changed": 0.3}, r"must sum to 1"),
    (10, {"none": "all"}, r"must be a finite number"),
])
def test_bad_arguments_raise(n, rates, message):
    with pytest.raises(ValueError, match=message):
        generate_workload(n, rates=rates)


def test_rates_within_tolerance_are_accepted():
    rates = {"none": 0.5, "number_changed": 0.5 + 5e-7}
    assert len(generate_workload(4, rates=rates)) == 4


def test_a_thousand_cases_under_a_second():
    # CPU time of this process, best of three: other processes on a busy machine do not count
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        cases = generate_workload(1000)
        best = min(best, time.process_time() - start)
        if best < 1.0:
            break
    assert len(cases) == 1000
    assert best < 1.0, f"generate_workload(1000) took {best:.2f}s of CPU"
