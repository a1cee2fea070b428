"""A loopback factuality judge that answers by what the request holds, so a test can see a definition's edit
change verdicts: it reads the summary, and grades negations as correct when the system prompt carries
``LENIENT`` (a bad edit), the way a real model follows a criterion.

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


def _message(request: dict, role: str) -> str:
    return next((str(m.get("content", "")) for m in request.get("messages") or [] if m.get("role") == role), "")


def factuality_by_prompt(request: dict) -> Reply:
    system, user = _message(request, "system"), _message(request, "user")
    found = re.search(r"<summary>\n?(.*?)\n?</summary>", user, re.S)
    summary = found.group(1).strip() if found else ""
    if "did not" in summary and LENIENT not in system:
        verdict, mode = "polarity_wrong", "negation_flip"
    elif "mayor" in summary:
        verdict, mode = "entity_wrong", "entity_swap"
    else:
        verdict, mode = "correct", ""
    reply = {"claims": [{"claim": summary, "evidence_quote": QUOTE, "verdict": verdict, "failure_mode": mode}],
             "verdict": verdict, "failure_mode": mode, "explanation": "checked against the quoted sentence"}
    return 200, chat_completion(request, json.dumps(reply)), {}, 0.0


def system_prompts(fake: FakeOpenAI) -> list[str]:
    return [_message(r.body, "system") for r in fake.requests if isinstance(r.body, dict)]


def factuality_corpus() -> list[Any]:
    """Ten labelled factuality items the judge above grades right under the shipped definition: four clean, three
    negations flipped, three names swapped."""
    from sumwatch.monitor.store.corpus import CorpusItem

    clean = [f"The council approved the budget{tail}." for tail in ("", " on Monday", " this week", " after a vote")]
    flipped = [f"The council did not approve the budget{tail}." for tail in ("", " on Monday", " this week")]
    swapped = [f"The mayor approved the budget{tail}." for tail in ("", " on Monday", " this week")]
    return ([CorpusItem("factuality", SOURCE, s, "correct", "pass") for s in clean]
            + [CorpusItem("factuality", SOURCE, s, "polarity_wrong", "negation_flip") for s in flipped]
            + [CorpusItem("factuality", SOURCE, s, "entity_wrong", "entity_swap") for s in swapped])
