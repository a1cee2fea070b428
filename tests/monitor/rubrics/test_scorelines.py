"""Factuality by the rules: a score line the source does not state fails; the source's own score line, read
either way round or written otherwise, and ranges, year spans and times pass."""

from __future__ import annotations

import pytest

from sumwatch.monitor.rubrics.rules import RulesJudge
from sumwatch.monitor.rubrics.verdicts import FACTUALITY, FAILURE_MODES, SummaryCase

MATCH = ("Arsenal beat Chelsea 3-1 at the Emirates on Sunday. Bukayo Saka scored twice in the second half before "
         "Cole Palmer pulled one back. The win lifts Arsenal to second in the table.")
CUP = ("Leeds won 2:0 at Elland Road in the cup on Tuesday, their first clean sheet since the 2019-2020 season. "
       "The club's report on pages 3-5 covers the 10:30 kick-off and the 3-5 days of ticket sales.")


def judge(source: str, summary: str):
    return RulesJudge().judge(FACTUALITY, SummaryCase(source, summary))


@pytest.mark.parametrize("source, summary, changed", [
    (MATCH, "Arsenal beat Chelsea 4-1 on Sunday, with Saka scoring twice.", "4-1"),
    (MATCH, "Arsenal beat Chelsea 2–1 on Sunday.", "2–1"),  # an en dash
    (MATCH, "Arsenal won 3-0 against Chelsea at the Emirates.", "3-0"),
    (MATCH, "Arsenal won 2:0 against Chelsea on Sunday.", "2:0"),
    (CUP, "Leeds won 3-1 in the cup on Tuesday.", "3-1"),
    (CUP, "Leeds won 1-0 at Elland Road.", "1-0"),
])
def test_a_changed_score_line_fails(source, summary, changed):
    result = judge(source, summary)
    assert result.verdict == "numerically_wrong" and result.confident, result.explanation
    assert result.failure_mode in FAILURE_MODES[FACTUALITY]
    assert f'summary: "{changed}"' in result.evidence and "source:" in result.evidence
    assert f"the score {changed} is not a result the source states" in result.explanation


@pytest.mark.parametrize("source, summary", [
    (MATCH, "Arsenal beat Chelsea 3-1 on Sunday."),
    (MATCH, "Arsenal beat Chelsea 3–1 on Sunday."),  # the source's score with an en dash
    (MATCH, "Arsenal beat Chelsea 3 - 1 on Sunday ."),  # tokenized text
    (MATCH, "Chelsea lost 1-3 to Arsenal on Sunday."),  # the same result from the other side
    (CUP, "Leeds won 2-0 in the cup, their first clean sheet since the 2019-2020 season."),
    (CUP, "Leeds won in the cup; the report on pages 3-5 covers the 10:30 kick-off."),
    (CUP, "Leeds won in the cup after 3-5 days of ticket sales."),
    ("The council meets from 9-11 on Tuesday to plan the festival.", "The council meets 9-11 on Tuesday."),
    # a source that states no result says nothing about one
    ("Leeds played Hull in the cup on Tuesday at Elland Road.", "Leeds beat Hull 2-0 in the cup."),
])
def test_the_sources_score_line_ranges_years_and_times_pass(source, summary):
    result = judge(source, summary)
    assert "is not a result the source states" not in result.explanation, result.explanation
