"""Talking to services sumwatch does not run (the LLM provider, the trackers): retries that honour
Retry-After, error texts that say what happened, and secrets scrubbed from whatever comes back.

    policy = RetryPolicy(attempts=4, backoff_s=0.5, max_wait_s=30)
    answer = policy.call(send, what="github POST /issues")          # raise Transient(...) to ask again
    answer = await policy.acall(send, what="LLM judge")
    Scrubber(["sk-key"], basic=[("me@example.com", "token")])(text)

The LLM client is ``remote.llm`` (imported on its own: it brings litellm). This room sits low in the row
of rooms so that the judge (rubrics), the namer's wiring (issues), ``doctor`` (cli) and the exports all use
the same code.
"""

from .retry import GaveUp, RetryPolicy, Transient, retry_after_s
from .scrub import Scrubber

__all__ = ["GaveUp", "RetryPolicy", "Transient", "retry_after_s", "Scrubber"]
