"""A loopback judge that answers by what the request holds, so a test can see a definition's edit change
verdicts: it reads the summary, and grades negations as passing when the system prompt carries ``LENIENT``
(a bad edit), the way a real model follows a criterion. It judges factuality and ``NEGATIONS``, a custom rubric.

    with FakeOpenAI(factuality_by_prompt) as fake: ...
    system_prompts(fake)      # every system message the judge was sent
"""

from __future__ import annotations

import json
import re
from typing import Any

from fakes.openai_server import FakeOpenAI, Reply, chat_completion

LENIENT = "A negation is a matter of style: grade it correct."
SOURCE = "The council approved the budget on Monday. Spending on parks rises next year."
QUOTE = "The council approved the budget on Monday."
# per rubric: the passing verdict, the negation's verdict and failure mode, the swapped name's
VERDICTS = {"factuality": ("correct", "polarity_wrong", "negation_flip", "entity_wrong", "entity_swap"),
            "negations": ("kept", "flipped", "negation_flip", "renamed", "entity_swap")}
NEGATIONS = '''# A team's own rubric: negations and names must survive summarization.
name = "negations"
version = "1"
question = "Does the summary keep every negation and name of the source?"
unit = "claim"
criteria = "Compare the summary's negations and names with the source."

[verdicts.kept]
passes = true
means = "negations and names as in the source"

[verdicts.flipped]
failure_mode = "negation_flip"
means = "a negation added or dropped"

[verdicts.renamed]
failure_mode = "entity_swap"
means = "a name changed"

[failure_modes]
negation_flip = "the summary says the opposite of the source"
entity_swap = "a person or body is replaced by another"
'''


def _message(request: dict, role: str) -> str:
    return next((str(m.get("content", "")) for m in request.get("messages") or [] if m.get("role") == role), "")


def factuality_by_prompt(request: dict) -> Reply:
    system, user = _message(request, "system"), _message(request, "user")
    found = re.search(r"<summary>\n?(.*?)\n?</summary>", user, re.S)
    summary = found.group(1).strip() if found else ""
    found_rubric = re.search(r"Rubric: (\w+)\.", system)
    good, flipped, flip_mode, renamed, swap_mode = VERDICTS[found_rubric.group(1) if found_rubric else "factuality"]
    if "did not" in summary and LENIENT not in system:
        verdict, mode = flipped, flip_mode
    elif "mayor" in summary:
        verdict, mode = renamed, swap_mode
    else:
        verdict, mode = good, ""
    reply = {"claims": [{"claim": summary, "evidence_quote": QUOTE, "verdict": verdict, "failure_mode": mode}],
             "verdict": verdict, "failure_mode": mode, "explanation": "checked against the quoted sentence"}
    return 200, chat_completion(request, json.dumps(reply)), {}, 0.0


def system_prompts(fake: FakeOpenAI) -> list[str]:
    return [_message(r.body, "system") for r in fake.requests if isinstance(r.body, dict)]


def factuality_corpus(rubric: str = "factuality") -> list[Any]:
    """Ten labelled items the judge above grades right unless told to be lenient: four clean, three negations
    flipped, three names swapped."""
    from sumwatch.monitor.contract.calibration import CorpusItem

    good, flipped, _, renamed, _ = VERDICTS[rubric]
    clean = [f"The council approved the budget{tail}." for tail in ("", " on Monday", " this week", " after a vote")]
    negated = [f"The council did not approve the budget{tail}." for tail in ("", " on Monday", " this week")]
    swapped = [f"The mayor approved the budget{tail}." for tail in ("", " on Monday", " this week")]
    return ([CorpusItem(rubric, SOURCE, s, good, "pass") for s in clean]
            + [CorpusItem(rubric, SOURCE, s, flipped, "negation_flip") for s in negated]
            + [CorpusItem(rubric, SOURCE, s, renamed, "entity_swap") for s in swapped])
