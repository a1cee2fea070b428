"""A team's rubric whose one check, ``(a+)+$``, backtracks for ever in Python's re on a summary of a's ending in
"!" (2^n steps for n a's: 14 s at 27, the GIL held all along); RE2 runs it in linear time. What the
hostile-input tests share.

    definition = parse_definition(SHOUTING, origin="shouting.toml")
    cascade.score_batch([SummaryCase("source", HOSTILE_SUMMARY)], rubrics=["shouting"])   # calm: no match
"""

from __future__ import annotations

HOSTILE_PATTERN = "(a+)+$"
HOSTILE_SUMMARY = "a" * 27 + "!"
SHOUTING = f"""
name = "shouting"
version = "v1"
question = "Does the summary shout?"
unit = "summary"
roll_up = "worst"
criteria = "A summary shouts when it repeats one letter at its end."
[verdicts.calm]
passes = true
score = 1.0
means = "no shouting"
[verdicts.shouting]
passes = false
score = 0.0
means = "shouts"
failure_mode = "repeated_letters"
[failure_modes]
repeated_letters = "a letter repeated to the end"
[[checks]]
pattern = '{HOSTILE_PATTERN}'
verdict = "shouting"
failure_mode = "repeated_letters"
"""
