"""User-written patterns run on RE2: refused at load with RE2's reason, linear at run time, bounded in time."""

from __future__ import annotations

import random
import time

import pytest
from shouting_rubric import HOSTILE_PATTERN, HOSTILE_SUMMARY, SHOUTING

from sumwatch.monitor.rubrics.definition import BUILTIN, parse_definition
from sumwatch.monitor.rubrics.verdicts import SummaryCase
from sumwatch.monitor.settings.patterns import PatternError, PatternTimeout, user_pattern


@pytest.mark.parametrize(("pattern", "reason"), [
    ("a*+", "bad repetition operator: *+"),
    ("(?>ab)c", "invalid perl operator: (?>"),
    ("(?<=a)b", "invalid perl operator: (?<="),
    (r"(\w)\1", r"invalid escape sequence: \1"),
    ("(unclosed", "missing ): (unclosed"),
])
def test_what_re2_refuses_is_one_line_with_its_reason(pattern, reason, capfd):
    with pytest.raises(PatternError) as caught:
        user_pattern(pattern)
    assert str(caught.value) == reason
    assert capfd.readouterr().err == ""  # RE2 logs nothing of its own to stderr


def test_a_hostile_pattern_runs_in_linear_time():
    pattern = user_pattern(HOSTILE_PATTERN)
    started = time.perf_counter()
    assert pattern.search(HOSTILE_SUMMARY) is None
    # 14 s for a backtracking engine: it fails here rather than hang on the million below
    assert time.perf_counter() - started < 1.0
    assert pattern.search("a" * 1_000_000 + "!") is None  # 2^1000000 steps for a backtracking engine
    assert time.perf_counter() - started < 1.0  # RE2 takes milliseconds; Python's re never finishes
    assert pattern.search("baaa").text == "aaa"


def test_named_groups_and_text_that_is_not_unicode():
    found = user_pattern(r"Document:\s*(?P<document>.+)").search("Document: the council met")
    assert found is not None and found.groups == {"document": "the council met"}
    assert user_pattern("(?P<document>x)?y").search("y").groups == {"document": ""}
    assert user_pattern("b").search("a\ud800b").text == "b"  # a lone surrogate does not stop the search


def test_a_search_past_its_time_limit_is_given_up():
    rng = random.Random(7)
    text = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=4_000_000))
    pattern = user_pattern("[a-q][^u-z]{25}[0-9]")  # a large DFA: tens of milliseconds on 4 MB, at least
    with pytest.raises(PatternTimeout, match=r"took longer than 0.001 s on a text of 4,000,000 characters"):
        pattern.search(text, limit_s=0.001)
    assert pattern.search(text) is None  # with the default limit it finishes


def test_a_custom_rubric_with_the_hostile_check_is_judged_at_once(rules_cascade):
    definition = parse_definition(SHOUTING, origin="shouting.toml")
    cascade = rules_cascade.with_definitions({**BUILTIN, "shouting": definition})
    started = time.perf_counter()
    calm, loud = cascade.score_batch([SummaryCase("source", HOSTILE_SUMMARY), SummaryCase("source", "aaaa")],
                                     rubrics=["shouting"])
    assert time.perf_counter() - started < 2.0
    assert calm["shouting"].verdict == "calm" and loud["shouting"].verdict == "shouting"
